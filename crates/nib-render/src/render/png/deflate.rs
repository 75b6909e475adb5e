//! The zlib stream of a PNG's pixels, compressed in strips on every core.
//!
//! Encoding a 1440 × 900 picture took 0.7–2.7 ms of a render on one core (the `png` crate's
//! fast compression) while the other core waited. Here the rows are cut into strips of about
//! [`STRIP_BYTES`] and each strip is filtered and compressed on its own, on rayon's pool:
//!
//! - Every row is Sub-filtered (each byte less the byte one pixel to its left), which turns the
//!   flat areas of a design into runs of zeros.
//! - A strip is one deflate block, coded as it is filtered: bytes are literals, and a run of
//!   zeros is one literal zero followed by matches at distance 1 ("repeat the byte before", up
//!   to 258 bytes a match). Every strip uses the same Huffman codes, fitted once to how often
//!   each byte and run length occurs in nib's own pictures of the corpus ([`CORPUS_COUNTS`]).
//! - Every strip but the last ends as a zlib sync flush ends (an empty stored block), so the
//!   next one starts on a byte boundary and the strips are joined as they are. The Adler-32
//!   checksum of the whole is combined from the strips' own.
//!
//! The strips depend only on the picture's width and height, never on how many cores there are,
//! so the same pixels give the same bytes on every machine.

use rayon::prelude::*;

/// About how many bytes of pixels one strip holds: small enough that a picture gives the pool
/// several strips to share out (a 1440 × 900 picture gives 40), large enough that a strip's
/// code tables (some 60 bytes) cost nothing beside its data.
const STRIP_BYTES: usize = 128 * 1024;

/// The PNG filter type of every row: Sub.
const SUB: u8 = 1;

/// Deflate with a 32 KiB window, and check bits; "fastest" as the level it names.
const ZLIB_HEADER: [u8; 2] = [0x78, 0x01];

/// The longest literal and length code: deflate allows 15; with 14, four codes fit one push
/// of the [`BitWriter`].
const MAX_CODE_BITS: u8 = 14;

/// The longest code of the code-length alphabet.
const MAX_CODE_LENGTH_BITS: u8 = 7;

/// The symbol that ends a block.
const END_OF_BLOCK: usize = 256;

/// Literal and length symbols: 0–255 bytes, 256 the end of a block, 257–285 match lengths.
const LITERAL_SYMBOLS: usize = 286;

/// The shortest and longest match deflate can say.
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;

/// The zlib stream of `pixels` as PNG image data: rows of `row_bytes` bytes (RGBA, 8 bits a
/// channel), each Sub-filtered behind its filter byte. With `demultiply`, translucent pixels
/// are turned straight first (see [`super::demultiply`]); without it they are written as they
/// are (a picture known opaque).
///
/// The stream comes in pieces, in order: the zlib header, the strips, the checksum. A writer
/// passes them on one by one without joining them into one more copy of the whole.
pub(super) fn zlib_strips(pixels: &[u8], row_bytes: usize, demultiply: bool) -> Vec<Vec<u8>> {
    let strip_rows = (STRIP_BYTES / row_bytes.max(1)).max(1);
    let strips: Vec<&[u8]> = pixels.chunks(strip_rows * row_bytes.max(1)).collect();
    let last = strips.len().saturating_sub(1);
    let compressed: Vec<Strip> = strips
        .par_iter()
        .enumerate()
        .map(|(index, strip)| Strip::compress(strip, row_bytes, demultiply, index == last))
        .collect();
    let mut checksum = Adler32::EMPTY;
    let mut stream: Vec<Vec<u8>> = Vec::with_capacity(compressed.len() + 3);
    stream.push(ZLIB_HEADER.to_vec());
    if compressed.is_empty() {
        // No rows: one empty final block of fixed codes.
        stream.push(vec![0x03, 0x00]);
    }
    for strip in compressed {
        checksum = checksum.then(strip.checksum, strip.filtered_len);
        stream.push(strip.bytes);
    }
    stream.push(checksum.0.to_be_bytes().to_vec());
    stream
}

/// [`zlib_strips`] joined: the whole stream in one piece.
#[cfg(test)]
fn zlib_stream(pixels: &[u8], row_bytes: usize, demultiply: bool) -> Vec<u8> {
    zlib_strips(pixels, row_bytes, demultiply).concat()
}

/// One strip, compressed.
struct Strip {
    /// Its deflate blocks, ending on a byte boundary.
    bytes: Vec<u8>,
    /// The Adler-32 of its filtered rows, and how many bytes they are.
    checksum: Adler32,
    filtered_len: usize,
}

impl Strip {
    /// Filters each row and codes it while it is fresh in the cache: one pass over the pixels.
    fn compress(pixels: &[u8], row_bytes: usize, demultiply: bool, last: bool) -> Strip {
        let codes = &*CODES;
        // A design compresses to a small part of its pixels; the writer grows for one that does
        // not.
        let mut bits = BitWriter::with_capacity(pixels.len() / 8 + 256);
        codes.write_header(&mut bits, last);
        let mut row = vec![0; row_bytes + 1];
        let mut straight = if demultiply { vec![0; row_bytes] } else { Vec::new() };
        let mut checksum = simd_adler32::Adler32::new();
        let mut zeros = 0;
        for source in pixels.chunks_exact(row_bytes.max(1)) {
            let source = if demultiply {
                straight.copy_from_slice(source);
                super::demultiply(&mut straight);
                &straight[..]
            } else {
                source
            };
            filter_row(source, &mut row);
            checksum.write(&row);
            (bits, zeros) = code_row(bits, &row, zeros, &codes.codes);
        }
        code_zeros(&mut bits, zeros, &codes.codes);
        bits.code(codes.codes[END_OF_BLOCK]);
        if !last {
            // An empty stored block: its header, then LEN 0 and NLEN 0xFFFF on a byte boundary.
            bits.push(0, 3);
            bits.bytes(&[0x00, 0x00, 0xFF, 0xFF]);
        }
        // Each row of pixels and its filter byte.
        let filtered_len = pixels.len() / row_bytes.max(1) * (row_bytes + 1);
        Strip { bytes: bits.finish(), checksum: Adler32(checksum.finish()), filtered_len }
    }
}

/// A row behind its filter byte, Sub-filtered, into `out` (one byte longer than `row`).
fn filter_row(row: &[u8], out: &mut [u8]) {
    out[0] = SUB;
    let out = &mut out[1..];
    let first = row.len().min(4);
    out[..first].copy_from_slice(&row[..first]);
    for ((out, byte), left) in out[first..].iter_mut().zip(&row[first..]).zip(row) {
        *out = byte.wrapping_sub(*left);
    }
}

/// Codes one filtered row, going through it eight bytes at a time: a word of zeros only
/// lengthens the run of zeros being counted (`zeros`, carried from row to row); any other word
/// ends the run, and its bytes are literals but for the zeros at its end, which start the next
/// run. Answers the zeros not yet said.
///
/// A function of its own, taking the writer by value and giving it back: inlined into the
/// strip's loop, the word iterator was kept in memory for want of registers, a store and a load
/// on every word of a flat area.
#[inline(never)]
fn code_row(mut bits: BitWriter, data: &[u8], mut zeros: usize, codes: &[Code; LITERAL_SYMBOLS]) -> (BitWriter, usize) {
    // The words and the rest apart, so the loop's iterator is its own and stays in registers.
    let (words, rest) = data.split_at(data.len() / 8 * 8);
    for word in words.chunks_exact(8) {
        let value = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        if value == 0 {
            zeros += 8;
            continue;
        }
        // Zero bytes first in the word end the run; those last in it start the next one.
        let leading = value.trailing_zeros() as usize / 8;
        let trailing = value.leading_zeros() as usize / 8;
        if zeros + leading > 0 {
            code_zeros(&mut bits, zeros + leading, codes);
        }
        if leading == 0 && trailing == 0 {
            // Eight literals, four codes of at most 14 bits to a push.
            for four in word.chunks_exact(4) {
                let (mut value, mut count) = (0u64, 0u32);
                for &byte in four {
                    let code = codes[usize::from(byte)];
                    value |= u64::from(code.value) << count;
                    count += u32::from(code.bits);
                }
                bits.push(value, count);
            }
        } else {
            for &byte in &word[leading..8 - trailing] {
                bits.code(codes[usize::from(byte)]);
            }
        }
        zeros = trailing;
    }
    for &byte in rest {
        if byte == 0 {
            zeros += 1;
        } else {
            code_zeros(&mut bits, zeros, codes);
            zeros = 0;
            bits.code(codes[usize::from(byte)]);
        }
    }
    (bits, zeros)
}

/// A run of `count` zeros: a literal zero and repeats of it at distance 1, or literals when
/// too short to repeat.
#[inline(always)]
fn code_zeros(bits: &mut BitWriter, count: usize, codes: &[Code; LITERAL_SYMBOLS]) {
    if count <= MIN_MATCH {
        for _ in 0..count {
            bits.code(codes[0]);
        }
        return;
    }
    bits.code(codes[0]);
    let mut left = count - 1;
    while left >= MIN_MATCH {
        let mut length = left.min(MAX_MATCH);
        // Never leave one or two bytes that no match can say.
        if (1..MIN_MATCH).contains(&(left - length)) {
            length = left - MIN_MATCH;
        }
        let length_code = LENGTHS[length];
        let code = codes[usize::from(length_code.symbol)];
        // The length's code, its extra bits, then distance symbol 0 (distance 1): one 0 bit.
        let extra = u64::from(length_code.extra_value) << code.bits;
        bits.push(u64::from(code.value) | extra, u32::from(code.bits) + u32::from(length_code.extra_bits) + 1);
        left -= length;
    }
    for _ in 0..left {
        bits.code(codes[0]);
    }
}

/// The codes every strip uses, and the block header that gives them.
///
/// One table for all strips lets each be coded in one pass, with no count of its own bytes
/// first. The codes are fitted to [`CORPUS_COUNTS`]; every symbol has one, whatever a picture
/// holds.
struct Codes {
    codes: [Code; LITERAL_SYMBOLS],
    /// The header's whole bytes, with the first bit (the last-block flag) clear.
    header: Vec<u8>,
    /// The header's bits past its whole bytes, and how many.
    header_tail: (u64, u32),
}

static CODES: std::sync::LazyLock<Codes> = std::sync::LazyLock::new(Codes::fitted_to_the_corpus);

impl Codes {
    fn fitted_to_the_corpus() -> Codes {
        // Every symbol counts once more than it was seen, so that each has a code.
        let counts: Vec<u32> = CORPUS_COUNTS.iter().map(|&count| count.saturating_add(1)).collect();
        let lengths = code_lengths(&counts, MAX_CODE_BITS);
        let codes: [Code; LITERAL_SYMBOLS] = canonical_codes(&lengths).try_into().expect("one code a symbol");
        let mut bits = BitWriter::with_capacity(256);
        write_block_header(&mut bits, &lengths, false);
        let header = bits.bytes[..bits.len].to_vec();
        Codes { codes, header, header_tail: (bits.pending, bits.count) }
    }

    /// Writes the block header, `last` if the strip is the picture's last.
    fn write_header(&self, bits: &mut BitWriter, last: bool) {
        for (at, &byte) in self.header.iter().enumerate() {
            let flag = if at == 0 { u8::from(last) } else { 0 };
            bits.push(u64::from(byte | flag), 8);
        }
        bits.push(self.header_tail.0, self.header_tail.1);
    }
}

/// How often each literal (0–255), the end of a block (256, never counted) and each length
/// symbol (257–285) occurred in the Sub-filtered rows of the 458 frames of the 44 corpus files,
/// as nib rendered them (`nib render --all`, at e70bfc8), split into tokens as [`code_row`]
/// splits them.
#[rustfmt::skip]
const CORPUS_COUNTS: [u32; LITERAL_SYMBOLS] = [
    14754428, 2079382, 222733, 310944, 275944, 110933, 113679, 119679, 195607, 215417, 184849, 173727,
    146530, 368424, 227541, 262380, 210215, 175759, 188373, 150447, 321592, 492241, 107171, 118732,
    371153, 150206, 215830, 315652, 256554, 244498, 160275, 163643, 148971, 102291, 150266, 148520,
    139907, 140656, 136689, 113395, 91320, 99819, 133729, 181728, 96741, 154190, 110517, 94075,
    111569, 69841, 112501, 107792, 84302, 117757, 134451, 121486, 120472, 147682, 121845, 89259,
    208015, 120316, 71193, 95475, 163160, 93936, 54030, 78660, 93846, 131293, 106809, 100760,
    123694, 62623, 84924, 103562, 369651, 92346, 71913, 160391, 96208, 75977, 78053, 74512,
    96635, 150260, 100821, 64984, 79138, 71467, 123700, 100600, 98575, 57710, 74214, 87234,
    100793, 60972, 62033, 91704, 84431, 78629, 94246, 91814, 60235, 78076, 122143, 133066,
    177883, 70825, 83003, 78997, 112459, 119687, 110505, 103580, 79677, 87346, 75415, 70813,
    161744, 66477, 167166, 60538, 45942, 76871, 51698, 88640, 148388, 88383, 51603, 77705,
    45330, 61850, 137348, 97943, 156742, 71203, 60969, 91450, 92087, 104566, 93702, 126045,
    123601, 79576, 79948, 68136, 97842, 210557, 120318, 78825, 58516, 89277, 88221, 77645,
    85347, 88863, 60436, 62081, 102758, 90082, 75988, 55928, 94157, 101343, 119581, 71157,
    80121, 65367, 96983, 146606, 96617, 75566, 79066, 75494, 200574, 54267, 72012, 294835,
    165692, 105177, 84123, 57271, 124837, 102054, 64890, 174147, 91072, 76684, 54978, 91857,
    162788, 96101, 69909, 119481, 215064, 90807, 112816, 144506, 121362, 117558, 132605, 119297,
    91276, 101827, 110168, 69863, 114364, 95042, 107467, 163579, 96810, 181104, 114650, 95769,
    91612, 100721, 137589, 138336, 137162, 137433, 153809, 93016, 160186, 166932, 149226, 229736,
    250881, 326491, 171665, 158023, 367524, 128125, 130444, 457165, 283868, 137011, 174984, 144887,
    206363, 245227, 214794, 353770, 144621, 228007, 166049, 209439, 206418, 153747, 294761, 130894,
    302877, 323418, 289777, 2342936, 0, 47369, 953773, 52282, 26897, 50997, 411928, 43235,
    20468, 276383, 50578, 503587, 153548, 184036, 125446, 117000, 135033, 174693, 141463, 107605,
    112693, 184617, 157490, 91724, 98383, 122889, 191836, 135597, 321084, 8172187,
];

/// A Huffman code: `bits` long, its bits reversed for deflate's least-significant-first order.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Code {
    value: u16,
    bits: u8,
}

/// Bits written least significant first, as deflate packs them. Each push stores the whole
/// 64-bit buffer and moves on by the bytes it completed, so fewer than 8 bits are ever pending
/// and a push may hold up to 56.
struct BitWriter {
    /// Room for everything written, and 8 bytes more; the bytes past `len` are scratch.
    bytes: Vec<u8>,
    /// Bytes complete.
    len: usize,
    pending: u64,
    count: u32,
}

impl BitWriter {
    /// A writer with room for `capacity` bytes; it grows if that is not enough.
    fn with_capacity(capacity: usize) -> BitWriter {
        BitWriter { bytes: vec![0; capacity + 8], len: 0, pending: 0, count: 0 }
    }

    /// Writes the low `count` bits of `bits` (at most 56 at a time).
    #[inline(always)]
    fn push(&mut self, bits: u64, count: u32) {
        debug_assert!(count <= 56 && bits >> count == 0);
        self.pending |= bits << self.count;
        self.count += count;
        if self.len + 8 > self.bytes.len() {
            self.bytes.resize(self.bytes.len() * 2, 0);
        }
        self.bytes[self.len..self.len + 8].copy_from_slice(&self.pending.to_le_bytes());
        let whole = self.count / 8;
        self.len += whole as usize;
        self.pending = self.pending.checked_shr(whole * 8).unwrap_or(0);
        self.count -= whole * 8;
    }

    #[inline(always)]
    fn code(&mut self, code: Code) {
        self.push(u64::from(code.value), u32::from(code.bits));
    }

    /// Pads with zeros to a byte boundary.
    fn align(&mut self) {
        if self.count > 0 {
            self.push(0, 8 - self.count);
        }
    }

    /// Writes `bytes` on a byte boundary.
    fn bytes(&mut self, bytes: &[u8]) {
        self.align();
        for &byte in bytes {
            self.push(u64::from(byte), 8);
        }
    }

    /// The bytes written, padded to a byte.
    fn finish(mut self) -> Vec<u8> {
        self.align();
        self.bytes.truncate(self.len);
        self.bytes
    }
}

/// The header of a block of dynamic Huffman codes: whether it is the last, its literal and
/// length code lengths, and the two one-bit distance codes, themselves run-length coded and
/// Huffman coded as RFC 1951 (3.2.7) says.
fn write_block_header(bits: &mut BitWriter, literal_lengths: &[u8], last: bool) {
    let literals = literal_lengths.iter().rposition(|&length| length > 0).map_or(257, |at| (at + 1).max(257));
    // Distance 1 is the only one used; a second one-bit code keeps the distance code complete.
    let all: Vec<u8> = literal_lengths[..literals].iter().copied().chain([1, 1]).collect();
    let runs = run_length_code(&all);
    let mut counts = [0u32; 19];
    for run in &runs {
        counts[usize::from(run.symbol)] += 1;
    }
    let mut lengths = code_lengths(&counts, MAX_CODE_LENGTH_BITS);
    if lengths.iter().filter(|&&length| length > 0).count() == 1 {
        // One symbol alone would be an incomplete code, which inflaters refuse here: a second
        // one-bit code, never used, completes it.
        let unused = lengths.iter().position(|&length| length == 0).expect("19 symbols");
        lengths[unused] = 1;
        lengths.iter_mut().filter(|length| **length > 0).for_each(|length| *length = 1);
    }
    let codes = canonical_codes(&lengths);
    const ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
    let sent = ORDER.iter().rposition(|&symbol| lengths[symbol] > 0).map_or(4, |at| (at + 1).max(4));
    bits.push(u64::from(last), 1);
    bits.push(0b10, 2);
    bits.push((literals - 257) as u64, 5);
    bits.push(1, 5);
    bits.push((sent - 4) as u64, 4);
    for &symbol in &ORDER[..sent] {
        bits.push(u64::from(lengths[symbol]), 3);
    }
    for run in runs {
        bits.code(codes[usize::from(run.symbol)]);
        if run.extra_bits > 0 {
            bits.push(u64::from(run.extra), u32::from(run.extra_bits));
        }
    }
}

/// A symbol of the code-length alphabet, with its extra bits.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LengthRun {
    symbol: u8,
    extra: u8,
    extra_bits: u8,
}

/// Code lengths as the code-length alphabet says them: 0–15 as they are, 16 for 3–6 more of
/// the length before, 17 and 18 for 3–10 and 11–138 zeros.
fn run_length_code(lengths: &[u8]) -> Vec<LengthRun> {
    let plain = |length: u8| LengthRun { symbol: length, extra: 0, extra_bits: 0 };
    let mut runs = Vec::new();
    let mut at = 0;
    while at < lengths.len() {
        let length = lengths[at];
        let same = lengths[at..].iter().take_while(|&&other| other == length).count();
        if length == 0 && same >= 3 {
            let count = same.min(138);
            runs.push(match count {
                3..=10 => LengthRun { symbol: 17, extra: (count - 3) as u8, extra_bits: 3 },
                _ => LengthRun { symbol: 18, extra: (count - 11) as u8, extra_bits: 7 },
            });
            at += count;
        } else if length > 0 && same >= 4 {
            runs.push(plain(length));
            let count = (same - 1).min(6);
            runs.push(LengthRun { symbol: 16, extra: (count - 3) as u8, extra_bits: 2 });
            at += 1 + count;
        } else {
            runs.push(plain(length));
            at += 1;
        }
    }
    runs
}

/// Huffman code lengths of at most `limit` bits for symbols occurring `counts` times (0 for
/// unused symbols). The tree is Huffman's, built from two queues over the counts in order; when
/// it is deeper than `limit`, the deepest codes are shortened to it and the room they took is
/// made by lengthening codes just above, until the lengths again fill the code exactly.
fn code_lengths(counts: &[u32], limit: u8) -> Vec<u8> {
    let mut lengths = vec![0u8; counts.len()];
    let mut used: Vec<usize> = (0..counts.len()).filter(|&symbol| counts[symbol] > 0).collect();
    match used.len() {
        0 => return lengths,
        1 => {
            lengths[used[0]] = 1;
            return lengths;
        }
        _ => {}
    }
    used.sort_by_key(|&symbol| (counts[symbol], symbol));
    // Leaves 0..n (lightest first), then the joined nodes n.. in the order they are made, which
    // is also by weight; the last one is the root.
    let leaves = used.len();
    let mut weight: Vec<u64> = used.iter().map(|&symbol| u64::from(counts[symbol])).collect();
    let mut parent = vec![0usize; 2 * leaves - 1];
    let (mut next_leaf, mut next_node) = (0, leaves);
    for node in leaves..2 * leaves - 1 {
        let mut lightest = || {
            let take_leaf = next_leaf < leaves && (next_node >= node || weight[next_leaf] <= weight[next_node]);
            let taken = if take_leaf { &mut next_leaf } else { &mut next_node };
            *taken += 1;
            *taken - 1
        };
        let (a, b) = (lightest(), lightest());
        weight.push(weight[a] + weight[b]);
        parent[a] = node;
        parent[b] = node;
    }
    let mut depth = vec![0u32; 2 * leaves - 1];
    for node in (0..2 * leaves - 2).rev() {
        depth[node] = depth[parent[node]] + 1;
    }
    let limit = u32::from(limit);
    let mut per_length = vec![0u32; limit as usize + 1];
    for &leaf_depth in &depth[..leaves] {
        per_length[leaf_depth.min(limit) as usize] += 1;
    }
    let room = |per_length: &[u32]| -> u64 {
        per_length.iter().enumerate().skip(1).map(|(length, &n)| u64::from(n) << (limit - length as u32)).sum()
    };
    let mut taken = room(&per_length);
    while taken > 1 << limit {
        per_length[limit as usize] -= 1;
        let shorter = (1..limit as usize).rev().find(|&length| per_length[length] > 0).expect("a shorter code");
        per_length[shorter] -= 1;
        per_length[shorter + 1] += 2;
        taken -= 1;
    }
    // The most frequent symbols take the shortest codes.
    let mut by_use = used.iter().rev();
    for (length, &n) in per_length.iter().enumerate().skip(1) {
        for symbol in by_use.by_ref().take(n as usize) {
            lengths[*symbol] = length as u8;
        }
    }
    lengths
}

/// The canonical codes of code lengths (RFC 1951, 3.2.2), bit-reversed for writing.
fn canonical_codes(lengths: &[u8]) -> Vec<Code> {
    let mut per_length = [0u16; 16];
    for &length in lengths {
        per_length[usize::from(length)] += 1;
    }
    per_length[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for bits in 1..16 {
        code = (code + per_length[bits - 1]) << 1;
        next[bits] = code;
    }
    lengths
        .iter()
        .map(|&bits| {
            if bits == 0 {
                return Code::default();
            }
            let value = next[usize::from(bits)];
            next[usize::from(bits)] += 1;
            Code { value: value.reverse_bits() >> (16 - bits), bits }
        })
        .collect()
}

/// A match length's symbol and extra bits.
#[derive(Clone, Copy)]
struct Length {
    symbol: u16,
    extra_bits: u8,
    extra_value: u16,
}

/// [`Length`] of every match length 0–258 (0–2 unused).
static LENGTHS: [Length; MAX_MATCH + 1] = length_table();

const fn length_table() -> [Length; MAX_MATCH + 1] {
    // The first length of each symbol 257–285 and its extra bits (RFC 1951, 3.2.5).
    const BASES: [u16; 29] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ];
    const EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
    let mut table = [Length { symbol: 0, extra_bits: 0, extra_value: 0 }; MAX_MATCH + 1];
    let mut index = 0;
    while index < 29 {
        let end = if index + 1 < 29 { BASES[index + 1] } else { MAX_MATCH as u16 + 1 };
        let mut length = BASES[index];
        while length < end {
            table[length as usize] =
                Length { symbol: 257 + index as u16, extra_bits: EXTRA[index], extra_value: length - BASES[index] };
            length += 1;
        }
        index += 1;
    }
    table
}

/// An Adler-32 checksum.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Adler32(u32);

impl Adler32 {
    const EMPTY: Adler32 = Adler32(1);
    const MODULUS: u64 = 65521;

    #[cfg(test)]
    fn of(bytes: &[u8]) -> Adler32 {
        let mut hash = simd_adler32::Adler32::new();
        hash.write(bytes);
        Adler32(hash.finish())
    }

    /// The checksum of these bytes followed by `next_len` bytes whose checksum is `next`. Each
    /// running sum of the second part starts from the first part's sum instead of 1.
    fn then(self, next: Adler32, next_len: usize) -> Adler32 {
        let (a1, b1) = (u64::from(self.0 & 0xFFFF), u64::from(self.0 >> 16));
        let (a2, b2) = (u64::from(next.0 & 0xFFFF), u64::from(next.0 >> 16));
        let len = next_len as u64 % Adler32::MODULUS;
        let a = (a1 + a2 + Adler32::MODULUS - 1) % Adler32::MODULUS;
        let b = (b1 + b2 + len * ((a1 + Adler32::MODULUS - 1) % Adler32::MODULUS)) % Adler32::MODULUS;
        Adler32(((b as u32) << 16) | a as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inflate(stream: &[u8]) -> Vec<u8> {
        miniz_oxide::inflate::decompress_to_vec_zlib(stream).expect("a valid zlib stream")
    }

    /// The bytes a PNG decoder recovers from rows as [`zlib_stream`] filters them.
    fn unfilter(data: &[u8], row_bytes: usize) -> Vec<u8> {
        let mut pixels = Vec::new();
        for row in data.chunks_exact(row_bytes + 1) {
            assert_eq!(row[0], SUB);
            let start = pixels.len();
            for (at, &byte) in row[1..].iter().enumerate() {
                let left = if at >= 4 { pixels[start + at - 4] } else { 0 };
                pixels.push(byte.wrapping_add(left));
            }
        }
        pixels
    }

    #[test]
    fn strips_inflate_to_the_filtered_rows() {
        // Flat areas, a gradient, noise, and runs of every length around the match limits.
        let (width, height) = (700usize, 160usize);
        let mut pixels = vec![0u8; width * 4 * height];
        let mut seed = 7u32;
        for (at, byte) in pixels.iter_mut().enumerate() {
            let (x, y) = ((at / 4) % width, at / 4 / width);
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            *byte = match y % 4 {
                0 => 200,
                1 => (x % 256) as u8,
                2 => (seed >> 16) as u8,
                _ => {
                    if (x / (y + 1)) % 2 == 0 {
                        0
                    } else {
                        255
                    }
                }
            };
        }
        let stream = zlib_stream(&pixels, width * 4, false);
        assert_eq!(unfilter(&inflate(&stream), width * 4), pixels);
        assert!(pixels.len() > 3 * STRIP_BYTES, "several strips");
    }

    /// No rows: the header, one empty final block and the checksum of nothing, each its own piece.
    #[test]
    fn no_rows_make_a_valid_empty_stream() {
        let pieces = zlib_strips(&[], 4, false);
        assert_eq!(pieces.len(), 3, "header, empty block, checksum");
        assert!(inflate(&pieces.concat()).is_empty());
    }

    #[test]
    fn zero_runs_of_every_length_round_trip() {
        for run in 0..600 {
            let mut row = vec![9u8; 4];
            row.extend(std::iter::repeat_n(9u8, run));
            row.extend([1, 2, 3, 4]);
            let length = row.len();
            let stream = zlib_stream(&row, length, false);
            assert_eq!(unfilter(&inflate(&stream), length), row, "a run of {run}");
        }
    }

    #[test]
    fn the_bytes_do_not_depend_on_how_many_cores_there_are() {
        let (width, height) = (300usize, 400usize);
        let pixels: Vec<u8> =
            (0..width * height * 4).map(|at| ((at / 4 % width) * (at / 4 / width) % 7) as u8).collect();
        let alone = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().expect("a pool");
        let one_core = alone.install(|| zlib_stream(&pixels, width * 4, false));
        assert_eq!(three.install(|| zlib_stream(&pixels, width * 4, false)), one_core);
        assert_eq!(unfilter(&inflate(&one_core), width * 4), pixels);
    }

    #[test]
    fn every_symbol_has_a_code_and_the_header_gives_them() {
        let codes = &*CODES;
        assert!(codes.codes.iter().all(|code| (1..=MAX_CODE_BITS).contains(&code.bits)));
        // Rows of one pixel are not changed by the filter: every byte value is coded as itself.
        let pixels: Vec<u8> = (0..=255u8).rev().chain(0..=255).collect();
        assert_eq!(unfilter(&inflate(&zlib_stream(&pixels, 4, false)), 4), pixels);
    }

    #[test]
    fn code_lengths_fit_the_limit_and_fill_the_code() {
        // Fibonacci counts make the deepest Huffman tree there is.
        let mut counts = vec![0u32; 40];
        let (mut a, mut b) = (1u32, 1u32);
        for count in counts.iter_mut() {
            *count = a;
            (a, b) = (b, a.saturating_add(b));
        }
        for limit in [7u8, 15] {
            let lengths = code_lengths(&counts, limit);
            assert!(lengths.iter().all(|&length| (1..=limit).contains(&length)), "{lengths:?}");
            let filled: f64 = lengths.iter().map(|&length| 0.5f64.powi(i32::from(length))).sum();
            assert_eq!(filled, 1.0, "a complete code of at most {limit} bits");
        }
    }

    #[test]
    fn combined_checksums_equal_the_whole() {
        let bytes: Vec<u8> = (0..200_000u32).map(|n| (n * 31 % 251) as u8).collect();
        for cut in [0, 1, 65_521, 100_000, 200_000] {
            let (first, second) = bytes.split_at(cut);
            assert_eq!(Adler32::of(first).then(Adler32::of(second), second.len()), Adler32::of(&bytes), "cut at {cut}");
        }
    }
}
