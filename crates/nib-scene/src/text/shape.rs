//! Shaping and measuring text with cosmic-text over the [`FontBook`], with the rules Pencil's
//! text boxes follow: a line is `round(lineHeight × fontSize)` pixels; when the line height is
//! the font's own (`normal`), a line is built as the browser builds it — every face that draws
//! on the line (the text's own, and fallback faces for symbols, emoji or other scripts) brings
//! its ascent, descent and line gap, each rounded to whole pixels, the gap split half above and
//! half below, and the line is their union (Inter 14 → 17 px; "⬡ 0 plugins" in JetBrains Mono
//! grows to the symbol face's height); letter
//! spacing is added after every character; `\n` starts a line; an empty text still has one line;
//! fixed-width text wraps at word boundaries and breaks words longer than the line.
//!
//! Results are cached by text and style, so measuring the same text again (a relayout after an
//! unrelated edit, the renderer after layout) costs a hash lookup. A text longer than
//! [`PIECE_BYTES`] is shaped a piece at a time and kept only as its compact result (`pieces`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use cosmic_text::{Align, Attrs, Buffer, Family, FontSystem, Metrics, Shaping, Style, Weight, Wrap, fontdb};

use super::document_fonts::DocumentFonts;
use super::faces::Origin;
use super::fonts::{FamilyChoice, FamilyEntry, FontBook};
use super::pieces::{self, PIECE_BYTES};
use super::registry::{FaceFile, FaceUse, GlyphFace, REGISTERED, Registry, UsedFont, internal_name};
use super::relayout::{self, LineRun};
use super::runs::{CJK_FAMILIES, Chain, FALLBACK_FAMILIES};
use super::shaped::{Assembler, LineExtent, LineRule, ShapedText};
use super::spacing;
use super::style::TextStyle;
use crate::diagnostic::Diagnostic;
use crate::doc::values::TextAlign;

/// Cached shapes kept before the cache is emptied (a long session must not grow without bound).
const CACHE_LIMIT: usize = 50_000;

/// Bytes of text whose shaped buffers are kept before they are all dropped: cosmic-text keeps
/// about 400 bytes for each character it shaped, so a document's texts must not all stay
/// shaped (a buffer only saves shaping a text again to wrap it at another width).
const BUFFERED_TEXT_LIMIT: usize = 256 * 1024;

/// Wrapping widths are widened by this much so that a width measured from the text itself (an
/// auto-width box rounded up) never wraps it because of float noise.
const WRAP_TOLERANCE: f32 = 0.01;

/// A text and its style made ready for repeated shaping: the family chosen and the cache key
/// hashed once, so that measuring it again (layout asks several times) costs no allocation.
#[derive(Debug, Clone)]
pub struct PreparedText<'a> {
    text: Cow<'a, str>,
    style: TextStyle,
    family: Arc<FamilyChoice>,
    hash: u64,
}

impl PreparedText<'_> {
    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The style.
    pub fn style(&self) -> &TextStyle {
        &self.style
    }

    /// The family shaped with, and the one it replaces when the requested one is missing.
    pub fn family(&self) -> &FamilyChoice {
        &self.family
    }
}

/// What a cached shape was made from, to tell a hash collision from a hit.
#[derive(Debug)]
struct CacheEntry {
    text: String,
    family: String,
    signature: Signature,
    wrap: Option<u32>,
    shaped: Arc<ShapedText>,
}

/// A text shaped by cosmic-text, ready to be wrapped at any width.
struct ShapedBuffer {
    text: String,
    family: String,
    signature: Signature,
    buffer: Buffer,
    /// Its paragraphs as shaped, corrected where the browser shapes otherwise (`relayout`);
    /// `None` when the buffer's own shaping is right.
    corrected: Option<relayout::Corrected>,
    /// How its lines are built.
    rule: LineRule,
}

/// What shaping a text needs, worked out once for all its pieces: the faces its runs are
/// shaped in, how its lines are built, its spacing and alignment.
struct ShapingPlan {
    /// The faces, as registered in the shaping database, with their weights; the first is
    /// the text's own.
    names: Vec<(String, u16)>,
    /// Byte ranges of the text, each with the index of its face in `names`, in order.
    spans: Vec<(std::ops::Range<usize>, usize)>,
    /// Pixels per em.
    size: f32,
    rule: LineRule,
    /// Letter spacing, in ems.
    spacing: f32,
    align: Align,
}

/// The parts of a style that change the shapes (alignment only matters when justified).
type Signature = (u16, bool, bool, u32, u32, u32);

fn signature(style: &TextStyle) -> Signature {
    let justify = style.align == TextAlign::Justify;
    (
        style.weight,
        style.italic,
        justify,
        style.size.to_bits(),
        style.letter_spacing.to_bits(),
        style.line_height.to_bits(),
    )
}

/// The cache is keyed by hashes computed once per prepared text: hash them no further.
#[derive(Default)]
struct PrehashedKey(u64);

impl std::hash::Hasher for PrehashedKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = crate::hash::fnv1a_from(self.0, bytes);
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// A fast, non-cryptographic hash for cache keys (collisions are checked on lookup): words of
/// eight bytes folded with a multiply, as rustc's FxHasher does.
#[derive(Default)]
struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let mut rest = [0u8; 8];
        rest[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.add(u64::from_le_bytes(rest) ^ bytes.len() as u64);
    }

    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

type PrehashedMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<PrehashedKey>>;

/// Shapes text with the fonts of one [`FontBook`] (and a document's own fonts). Not shared
/// between threads: each thread that lays out or renders keeps its own.
pub struct TextEngine {
    book: Arc<FontBook>,
    system: FontSystem,
    /// The faces read so far and their entries in `system`'s database.
    registry: Registry,
    /// Faces tried per character, by family, weight and style.
    chains: Vec<Chain>,
    chain_index: HashMap<(String, u16, bool), usize>,
    /// The families tried after a text's own, made on first use.
    fallbacks: Option<Arc<Vec<FamilyEntry>>>,
    /// The document's own fonts (its top-level `fonts` list).
    document: Arc<DocumentFonts>,
    cache: PrehashedMap<CacheEntry>,
    /// Shaped texts, kept to lay them out again at other widths without shaping them again.
    buffers: PrehashedMap<ShapedBuffer>,
    /// Bytes of text in `buffers`.
    buffered_bytes: usize,
    /// Glyph outlines by face entry and glyph (see [`TextEngine::glyph_outline`]).
    pub(super) outlines: HashMap<(fontdb::ID, u16), Arc<super::outline::GlyphOutline>>,
    /// Icons by family, name and weight (see [`TextEngine::icon`]).
    pub(super) icons: HashMap<(String, String, u16), Option<Arc<super::icons::IconDrawing>>>,
    /// The family each requested family name is shaped with.
    family_choices: HashMap<String, Arc<FamilyChoice>>,
}

impl std::fmt::Debug for TextEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextEngine").field("cached", &self.cache.len()).finish_non_exhaustive()
    }
}

thread_local! {
    /// Time spent shaping on this thread, while someone measures it (`nib render --timings`):
    /// layout shapes as it measures, and the two are told apart only by this clock.
    static SHAPING: std::cell::Cell<Option<std::time::Duration>> = const { std::cell::Cell::new(None) };
}

/// Starts measuring the time this thread spends shaping text.
pub fn start_shaping_clock() {
    SHAPING.set(Some(std::time::Duration::ZERO));
}

/// Stops measuring, and answers the time spent shaping since [`start_shaping_clock`].
pub fn stop_shaping_clock() -> Option<std::time::Duration> {
    SHAPING.replace(None)
}

impl TextEngine {
    /// An engine over `book`. Nothing is read until a text is shaped.
    pub fn new(book: Arc<FontBook>) -> TextEngine {
        let registry = Registry::new(Arc::clone(book.files()));
        TextEngine::with_database(book, fontdb::Database::new(), registry)
    }

    /// A new engine for another thread that names every face as this one does, so it can draw
    /// text this one shaped. Caches start empty.
    pub fn fork(&self) -> TextEngine {
        let mut forked =
            TextEngine::with_database(Arc::clone(&self.book), self.system.db().clone(), self.registry.clone());
        forked.document = Arc::clone(&self.document);
        forked
    }

    fn with_database(book: Arc<FontBook>, database: fontdb::Database, registry: Registry) -> TextEngine {
        // A fixed locale and no fallback of the shaper's own: the faces are chosen in `runs`.
        let system = FontSystem::new_with_locale_and_db_and_fallback("en-US".to_owned(), database, NoFallback);
        TextEngine {
            book,
            system,
            registry,
            chains: Vec::new(),
            chain_index: HashMap::new(),
            fallbacks: None,
            document: Arc::new(DocumentFonts::default()),
            cache: PrehashedMap::default(),
            buffers: PrehashedMap::default(),
            buffered_bytes: 0,
            outlines: HashMap::new(),
            icons: HashMap::new(),
            family_choices: HashMap::new(),
        }
    }

    /// Uses `fonts` (a document's own) from now on; what was measured with other document fonts
    /// is forgotten.
    pub fn set_document_fonts(&mut self, fonts: Arc<DocumentFonts>) {
        if *self.document == *fonts {
            return;
        }
        self.document = fonts;
        self.family_choices.clear();
        self.chains.clear();
        self.chain_index.clear();
        self.fallbacks = None;
        self.cache.clear();
        self.buffers.clear();
        self.buffered_bytes = 0;
    }

    /// The document fonts in use.
    pub fn document_fonts(&self) -> &Arc<DocumentFonts> {
        &self.document
    }

    /// The font files the texts shaped so far used, sorted (for `nib render --json`).
    pub fn fonts_used(&self) -> Vec<UsedFont> {
        self.registry.used()
    }

    /// Font files that could not be read when a text needed them, with why (`font-file`
    /// warnings the compiler says with the rest).
    pub fn font_failures(&self) -> &[Diagnostic] {
        self.registry.failures()
    }

    /// The font file a shaped glyph's `font` entry is read from.
    pub fn font_of(&self, font: fontdb::ID) -> Option<UsedFont> {
        self.registry.font_of(font)
    }

    /// The face of the database entry `font` of a shaped glyph, with its file, as a page ships it.
    pub fn face_file(&self, font: fontdb::ID) -> Option<FaceFile> {
        self.registry.face_file(self.system.db(), font)
    }

    /// The face of the database entry `font` of a shaped glyph, as a PDF embeds it.
    pub fn glyph_face(&self, font: fontdb::ID) -> Option<GlyphFace> {
        self.registry.glyph_face(font)
    }

    /// How the database entry `font` of a shaped glyph is drawn (weight, slant).
    pub(crate) fn face_use(&self, font: fontdb::ID) -> Option<FaceUse> {
        self.registry.face_use(font)
    }

    /// The cosmic-text font system (its database holds the faces glyphs name).
    pub(crate) fn font_system(&self) -> &FontSystem {
        &self.system
    }

    /// The faces read so far (those of the text shaped) under their real family names, weights
    /// and styles: for renderers that look fonts up by name (an SVG rasteriser, a PDF writer, a
    /// page's `@font-face`); the shaping database names each face by an internal key.
    pub fn named_database(&self) -> fontdb::Database {
        self.registry.named_database(self.system.db())
    }

    /// The fonts this engine shapes with.
    pub fn book(&self) -> &Arc<FontBook> {
        &self.book
    }

    /// The family `requested` is shaped with: the document's own font of that name, else what
    /// the [`FontBook`] chooses.
    pub fn choose_family(&mut self, requested: &str) -> Arc<FamilyChoice> {
        if let Some(choice) = self.family_choices.get(requested) {
            return Arc::clone(choice);
        }
        let choice = Arc::new(match self.document.family(requested) {
            Some(entry) => FamilyChoice {
                family: entry.name.clone(),
                replaced: None,
                substitution: None,
                origin: Origin::Document,
            },
            None => self.book.choose_family(requested),
        });
        self.family_choices.insert(requested.to_owned(), Arc::clone(&choice));
        choice
    }

    /// Prepares `text` in `style` for shaping (see [`PreparedText`]).
    pub(crate) fn prepare<'a>(&mut self, text: impl Into<Cow<'a, str>>, style: &TextStyle) -> PreparedText<'a> {
        let text = text.into();
        let family = self.choose_family(&style.family);
        let mut hasher = FastHasher::default();
        hasher.write(text.as_bytes());
        hasher.write(family.family.as_bytes());
        signature(style).hash(&mut hasher);
        PreparedText { text, style: style.clone(), family, hash: hasher.finish() }
    }

    /// Shapes `text`; `wrap_width` wraps lines at that many pixels, `None` keeps one line per
    /// paragraph.
    pub fn shape(&mut self, text: &str, style: &TextStyle, wrap_width: Option<f32>) -> Arc<ShapedText> {
        let prepared = self.prepare(text, style);
        self.shape_prepared(&prepared, wrap_width)
    }

    /// Shapes a prepared text (see [`TextEngine::shape`]).
    pub(crate) fn shape_prepared(&mut self, prepared: &PreparedText<'_>, wrap_width: Option<f32>) -> Arc<ShapedText> {
        let wrap = wrap_width.filter(|w| w.is_finite()).map(|w| w.max(0.0).to_bits());
        let key =
            prepared.hash ^ wrap.map_or(0x9e37_79b9_7f4a_7c15, |w| u64::from(w).wrapping_mul(0xff51_afd7_ed55_8ccd));
        if let Some(entry) = self.cache.get(&key)
            && entry.wrap == wrap
            && entry.text == *prepared.text
            && entry.family == prepared.family.family
            && entry.signature == signature(&prepared.style)
        {
            return Arc::clone(&entry.shaped);
        }
        let started = SHAPING.get().map(|_| std::time::Instant::now());
        let shaped = Arc::new(self.shape_uncached(prepared, wrap.map(f32::from_bits)));
        if let (Some(started), Some(spent)) = (started, SHAPING.get()) {
            SHAPING.set(Some(spent + started.elapsed()));
        }
        if self.cache.len() >= CACHE_LIMIT {
            self.cache.clear();
        }
        let entry = CacheEntry {
            text: prepared.text.clone().into_owned(),
            family: prepared.family.family.clone(),
            signature: signature(&prepared.style),
            wrap,
            shaped: Arc::clone(&shaped),
        };
        self.cache.insert(key, entry);
        shaped
    }

    /// Shapes `prepared` (or takes its shaped buffer) and lays its lines out at `wrap_width`.
    fn shape_uncached(&mut self, prepared: &PreparedText<'_>, wrap_width: Option<f32>) -> ShapedText {
        if prepared.text.len() > PIECE_BYTES {
            return self.shape_in_pieces(prepared, wrap_width, PIECE_BYTES);
        }
        self.ensure_shaped(prepared, wrap_width);
        let family = prepared.family.family.clone();
        let TextEngine { buffers, system, .. } = self;
        let Some(ShapedBuffer { buffer, corrected, rule, .. }) = buffers.get_mut(&prepared.hash) else {
            // ensure_shaped has just put it there; an empty text is the harmless answer.
            let rule = LineRule { line_height: 0.0, own_face: None, normal: true, browser_face: None };
            return Assembler::new(family, prepared.style.size, rule).finish();
        };
        let mut assembler = Assembler::new(family, prepared.style.size, *rule);
        let text: &str = &prepared.text;
        let starts = paragraph_starts(text);
        lay_out_lines(buffer, corrected.as_ref(), system, wrap_width, |system, runs| {
            for run in runs {
                let offset = starts.get(run.line_i).copied().unwrap_or(text.len());
                assembler.add(system, &run, offset, 0.0);
                assembler.end_line();
            }
        });
        assembler.finish()
    }

    /// Shapes a long text a piece of at most `piece` bytes at a time (see `pieces`), keeping
    /// only the compact result of each: what cosmic-text makes of a piece is dropped before the
    /// next is shaped.
    fn shape_in_pieces(&mut self, prepared: &PreparedText<'_>, wrap_width: Option<f32>, piece: usize) -> ShapedText {
        let family = prepared.family.family.clone();
        let Some(plan) = self.plan(prepared) else {
            // Not even the bundled fallbacks read: an empty text is the harmless answer.
            let rule = LineRule { line_height: 0.0, own_face: None, normal: true, browser_face: None };
            return Assembler::new(family, prepared.style.size, rule).finish();
        };
        let mut assembler = Assembler::new(family, prepared.style.size, plan.rule);
        let text: &str = &prepared.text;
        // About a glyph a character, and a line a paragraph at least: the lists are made at
        // their size, not doubled up to it (a list of 10 million glyphs doubled past it held
        // twice its size while it grew).
        assembler.reserve(text.chars().count(), paragraph_count(text));
        for range in pieces::pieces(text, piece) {
            if range.len() > piece {
                self.shape_long_paragraph(&plan, text, range, wrap_width, piece, &mut assembler);
                continue;
            }
            let (mut buffer, corrected) = self.new_buffer(&plan, text, range.clone(), wrap_width);
            let starts = paragraph_starts(&text[range.clone()]);
            lay_out_lines(&mut buffer, corrected.as_ref(), &mut self.system, wrap_width, |system, runs| {
                for run in runs {
                    let offset = range.start + starts.get(run.line_i).copied().unwrap_or(range.len());
                    assembler.add(system, &run, offset, 0.0);
                    assembler.end_line();
                }
            });
        }
        assembler.finish()
    }

    /// Shapes `paragraph` (a range of `text` longer than a piece, without a line break) in
    /// chunks of about `piece` bytes. Wrapped, each chunk is laid out and all its lines but the last
    /// are kept; the next chunk starts where that last line starts, so every line is laid out
    /// from its own start as in the whole paragraph. Unwrapped, the chunks are one line, each
    /// placed after the one before. The chunks are cut after a space where there is one, so
    /// only a word longer than half a chunk is shaped in parts: its glyphs are not kerned or
    /// joined across a cut (cuts are 16–32 KB apart), and its lines are the ones the whole word
    /// makes as long as half a chunk is wider than a line. A chunk starts without what came
    /// before it, so a font that kerns by context (Noto Sans JP after "、") can place a line's
    /// first glyphs a fraction of a pixel otherwise. An unwrapped paragraph's width is summed a
    /// chunk at a time, nearer the glyphs' sum than cosmic-text's one long sum of a line (past
    /// 8,388,608 pixels an `f32` keeps no fraction: 2 million characters on one line were
    /// 14,952,202 px wide summed whole, 14,922,928 by chunks).
    fn shape_long_paragraph(
        &mut self,
        plan: &ShapingPlan,
        text: &str,
        paragraph: std::ops::Range<usize>,
        wrap_width: Option<f32>,
        piece: usize,
        assembler: &mut Assembler,
    ) {
        let mut start = paragraph.start;
        let mut most = piece;
        let mut shift = 0.0;
        while start < paragraph.end {
            let end = paragraph.start + pieces::chunk_end(&text[paragraph.clone()], start - paragraph.start, most);
            let last = end == paragraph.end;
            let (mut buffer, corrected) = self.new_buffer(plan, text, start..end, wrap_width);
            let next = lay_out_lines(&mut buffer, corrected.as_ref(), &mut self.system, wrap_width, |system, runs| {
                if wrap_width.is_none() {
                    for run in &runs {
                        assembler.add(system, run, start, shift);
                        shift += run.line_w;
                    }
                    return Some(end);
                }
                let kept = if last { runs.len() } else { runs.len().saturating_sub(1) };
                // Where the last line starts, the start of the next chunk.
                let restart = runs.get(kept).and_then(|run| run.glyphs.iter().map(|g| g.start).min());
                let next = match restart {
                    _ if last => Some(end),
                    Some(restart) if kept > 0 && restart > 0 => Some(start + restart),
                    // Not one whole line in the chunk: it is made longer.
                    _ => None,
                };
                if next.is_some() {
                    for run in &runs[..kept] {
                        assembler.add(system, run, start, 0.0);
                        assembler.end_line();
                    }
                }
                next
            });
            match next {
                Some(next) => {
                    start = next;
                    most = piece;
                }
                None => most = most.saturating_mul(2),
            }
        }
        assembler.end_line();
    }

    /// Shapes `prepared` into a buffer unless it already has one. Shaping (choosing glyphs) is
    /// the expensive part; wrapping the shaped text at another width is cheap.
    fn ensure_shaped(&mut self, prepared: &PreparedText<'_>, wrap_width: Option<f32>) {
        let signature = signature(&prepared.style);
        let current = self.buffers.get(&prepared.hash).is_some_and(|entry| {
            entry.signature == signature && entry.text == *prepared.text && entry.family == prepared.family.family
        });
        if current {
            return;
        }
        if self.buffers.len() >= CACHE_LIMIT || self.buffered_bytes + prepared.text.len() > BUFFERED_TEXT_LIMIT {
            self.buffers.clear();
            self.buffered_bytes = 0;
        }
        let family = prepared.family.family.clone();
        let (buffer, corrected, rule, text) = match self.plan(prepared) {
            Some(plan) => {
                let (buffer, corrected) = self.new_buffer(&plan, &prepared.text, 0..prepared.text.len(), wrap_width);
                (buffer, corrected, plan.rule, prepared.text.clone().into_owned())
            }
            None => {
                // Not even the bundled fallbacks read: an empty text is the harmless answer.
                let size = prepared.style.size;
                let buffer = Buffer::new(&mut self.system, Metrics::new(size, size.max(0.01)));
                (
                    buffer,
                    None,
                    LineRule { line_height: 0.0, own_face: None, normal: true, browser_face: None },
                    String::new(),
                )
            }
        };
        self.buffered_bytes += text.len();
        let entry = ShapedBuffer { text, family, signature, buffer, corrected, rule };
        if let Some(replaced) = self.buffers.insert(prepared.hash, entry) {
            self.buffered_bytes = self.buffered_bytes.saturating_sub(replaced.text.len());
        }
    }

    /// The faces `prepared`'s runs are shaped in and how its lines are built; `None` when not
    /// even the bundled fallback faces can be read.
    fn plan(&mut self, prepared: &PreparedText<'_>) -> Option<ShapingPlan> {
        let style = &prepared.style;
        let family = &prepared.family;
        let chain = self.chain(family, style.weight, style.italic);
        let runs = self.chains[chain].split(&mut self.registry, &prepared.text);
        // Each face of the text (and the first face, whose metrics the lines use) is entered in
        // the shaping database at the weight it is used at; a face that cannot be read leaves
        // its characters to the first face that can.
        let first = self.first_readable(chain, |_, _| true)?;
        let mut names: Vec<(String, u16)> = vec![(internal_name(first.0, first.2), first.1)];
        let mut spans = Vec::with_capacity(runs.len());
        for (range, index) in runs {
            let face = self.chains[chain].face(index);
            let (key, weight, oblique) =
                match self.registry.register(self.system.db_mut(), face.key, face.weight, face.oblique) {
                    Some(_) => (face.key, face.weight, face.oblique),
                    None => first,
                };
            self.registry.mark_used(key);
            let name = (internal_name(key, oblique), weight);
            let position = names.iter().position(|n| *n == name).unwrap_or_else(|| {
                names.push(name);
                names.len() - 1
            });
            spans.push((range, position));
        }
        // The face whose metrics make every line (CSS's "first available font"): the first in
        // the chain declared for the space, as the browser picks it from the unicode-range
        // slices; Noto Emoji declares only emoji, so its texts' lines are Inter's (Chromium: an
        // emoji-only text in Noto Emoji 14 px is 17 px tall with its baseline at 14, Inter's
        // line, where Noto Emoji's own would be 16 and 13).
        let primary = self.first_readable(chain, |registry, key| registry.declares(key, ' ')).unwrap_or(first);
        let (line_height, own_face, browser_face) = self.line_height(primary, style);
        let rule = LineRule { line_height, own_face, normal: style.line_height <= 0.0, browser_face };
        let align = if style.align == TextAlign::Justify { Align::Justified } else { Align::Left };
        Some(ShapingPlan { names, spans, size: style.size, rule, spacing: spacing::in_ems(style), align })
    }

    /// A buffer of `range` of `text` (whole paragraphs, or a part of one) shaped by `plan` and
    /// laid out at `wrap_width`, with its corrected paragraphs (see `relayout`).
    fn new_buffer(
        &mut self,
        plan: &ShapingPlan,
        text: &str,
        range: std::ops::Range<usize>,
        wrap_width: Option<f32>,
    ) -> (Buffer, Option<relayout::Corrected>) {
        let attrs = |name| run_attrs(name, plan.spacing);
        // cosmic-text needs a positive line height; a line that rounds to 0 px still has none.
        let metrics = Metrics::new(plan.size, plan.rule.line_height.max(0.01));
        let mut buffer = Buffer::new(&mut self.system, metrics);
        // Set before the text, which is laid out as it is set: once, at the width asked for.
        let (wrap, width) = wrapping(wrap_width);
        buffer.set_wrap(&mut self.system, wrap);
        buffer.set_size(&mut self.system, width, None);
        let piece = text.get(range.clone()).unwrap_or_default();
        if plan.names.len() == 1 || plan.spans.is_empty() {
            buffer.set_text(&mut self.system, piece, &attrs(&plan.names[0]), Shaping::Advanced, Some(plan.align));
        } else {
            // The spans that reach into the range, cut to it.
            let first = plan.spans.partition_point(|(span, _)| span.end <= range.start);
            let spans =
                plan.spans[first..].iter().take_while(|(span, _)| span.start < range.end).filter_map(|(span, name)| {
                    let cut = span.start.max(range.start)..span.end.min(range.end);
                    Some((text.get(cut)?, attrs(&plan.names[*name])))
                });
            buffer.set_rich_text(&mut self.system, spans, &attrs(&plan.names[0]), Shaping::Advanced, Some(plan.align));
        }
        let corrected = relayout::corrected(&mut buffer, &mut self.system, plan.spacing);
        (buffer, corrected)
    }

    /// The first face of chain `chain` that `accept`s and that can be read, entered in the
    /// shaping database at the weight it is used at: (registry key, weight, oblique).
    fn first_readable(
        &mut self,
        chain: usize,
        accept: impl Fn(&Registry, usize) -> bool,
    ) -> Option<(usize, u16, bool)> {
        (0..self.chains[chain].len()).find_map(|index| {
            let face = self.chains[chain].face(index);
            if !accept(&self.registry, face.key) {
                return None;
            }
            self.registry.register(self.system.db_mut(), face.key, face.weight, face.oblique)?;
            Some((face.key, face.weight, face.oblique))
        })
    }

    /// The chain of faces for texts in `family` at `weight` and `italic`, made on first use.
    fn chain(&mut self, family: &FamilyChoice, weight: u16, italic: bool) -> usize {
        let key = (family.family.clone(), weight, italic);
        if let Some(index) = self.chain_index.get(&key) {
            return *index;
        }
        let mut sources: Vec<FamilyEntry> = self.document.family(&family.family).cloned().into_iter().collect();
        sources.extend(self.book.sources(&family.family));
        let fallbacks = self.fallbacks();
        let chain = Chain::build(&mut self.registry, &sources, &fallbacks, weight, italic);
        self.chains.push(chain);
        self.chain_index.insert(key, self.chains.len() - 1);
        self.chains.len() - 1
    }

    /// The families tried after a text's own: the bundled fallback chain, the document's and the
    /// user's families, then CJK families from the cache or the system.
    fn fallbacks(&mut self) -> Arc<Vec<FamilyEntry>> {
        if let Some(fallbacks) = &self.fallbacks {
            return Arc::clone(fallbacks);
        }
        let mut entries: Vec<FamilyEntry> = FALLBACK_FAMILIES
            .iter()
            .filter_map(|name| super::bundled::family(&name.to_lowercase()))
            .map(|(name, faces)| FamilyEntry { name: name.to_owned(), origin: Origin::Bundled, faces: faces.to_vec() })
            .collect();
        entries.extend(self.document.families().iter().cloned());
        entries.extend(self.book.user_families().into_iter().cloned());
        for name in CJK_FAMILIES {
            let found = self.book.sources(name);
            entries.extend(found.into_iter().filter(|e| matches!(e.origin, Origin::Cache | Origin::System)));
        }
        let fallbacks = Arc::new(entries);
        self.fallbacks = Some(Arc::clone(&fallbacks));
        fallbacks
    }

    /// The height of a line in the text's own face (`primary`): `round(lineHeight × size)`, or
    /// for `normal` its ascent, descent and line gap rounded as one sum (Pen's pitch: Skia
    /// rounds a line's height once); with the face's extent, for placing the baseline and
    /// building each line (see [`LineExtent`]), and its extent without the gap, as a browser
    /// centres it.
    fn line_height(
        &mut self,
        primary: (usize, u16, bool),
        style: &TextStyle,
    ) -> (f32, Option<LineExtent>, Option<LineExtent>) {
        let normal = style.line_height <= 0.0;
        let (key, weight, oblique) = primary;
        let font = self
            .registry
            .register(self.system.db_mut(), key, weight, oblique)
            .and_then(|id| self.system.get_font(id, fontdb::Weight(weight)));
        let extent = font.as_ref().and_then(|font| LineExtent::of(font.metrics(), style.size, normal));
        // What a browser centres in a line: the face without its gap.
        let browser = font.as_ref().and_then(|font| LineExtent::of(font.metrics(), style.size, false));
        let height = match extent {
            _ if !normal => (style.line_height * style.size).round(),
            Some(extent) => extent.normal_line().0,
            None => (1.2 * style.size).round(),
        };
        (height, extent, browser)
    }
}

/// How many paragraphs `text` has.
fn paragraph_count(text: &str) -> usize {
    text.bytes().filter(|&byte| byte == b'\n').count() + 1
}

/// Where each paragraph of `text` (a line of the text as written) starts.
fn paragraph_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// How cosmic-text wraps at `wrap_width`, and the width it wraps at.
fn wrapping(wrap_width: Option<f32>) -> (Wrap, Option<f32>) {
    let wrap = if wrap_width.is_some() { Wrap::WordOrGlyph } else { Wrap::None };
    (wrap, wrap_width.map(|w| w + WRAP_TOLERANCE))
}

/// Lays `buffer` out at `wrap_width` (`None`: one line per paragraph) — its corrected
/// paragraphs when it has them, else cosmic-text's own lines — and hands the lines to `each`.
fn lay_out_lines<R>(
    buffer: &mut Buffer,
    corrected: Option<&relayout::Corrected>,
    system: &mut FontSystem,
    wrap_width: Option<f32>,
    each: impl FnOnce(&mut FontSystem, Vec<LineRun<'_>>) -> R,
) -> R {
    let (wrap, size) = wrapping(wrap_width);
    if buffer.wrap() != wrap {
        buffer.set_wrap(system, wrap);
    }
    if buffer.size().0 != size {
        buffer.set_size(system, size, None);
    }
    let laid_out = corrected.map(|corrected| relayout::lay_out(corrected, buffer));
    let runs: Vec<LineRun<'_>> = match &laid_out {
        Some(paragraphs) => relayout::runs(paragraphs, buffer.metrics().line_height),
        None => buffer
            .layout_runs()
            .map(|run| LineRun {
                line_i: run.line_i,
                glyphs: run.glyphs,
                line_y: run.line_y,
                line_top: run.line_top,
                line_w: run.line_w,
            })
            .collect(),
    };
    each(system, runs)
}

/// The attributes of a run in the face registered as `name` at its weight.
fn run_attrs(name: &(String, u16), letter_spacing: f32) -> Attrs<'_> {
    let attrs = Attrs::new().family(Family::Name(&name.0)).weight(Weight(name.1)).style(Style::Normal);
    if letter_spacing == 0.0 {
        return attrs;
    }
    let mut features = cosmic_text::FontFeatures::new();
    for tag in spacing::OFF_WHEN_SPACED {
        features.disable(cosmic_text::FeatureTag::new(tag));
    }
    attrs.letter_spacing(letter_spacing).font_features(features)
}

/// No fallback of cosmic-text's own: every run names the face that has its characters (see
/// `runs`), and a character no face has must stay a missing glyph rather than take whatever
/// face the database happens to hold.
struct NoFallback;

impl cosmic_text::Fallback for NoFallback {
    fn common_fallback(&self) -> &[&'static str] {
        &[]
    }

    fn forbidden_fallback(&self) -> &[&'static str] {
        &[REGISTERED]
    }

    fn script_fallback(&self, _script: unicode_script::Script, _locale: &str) -> &[&'static str] {
        &[]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::values::TextAlignVertical;
    use crate::text::fonts::FontOptions;
    use crate::text::shaped::{ShapedGlyph, ShapedLine};

    /// The glyphs of line `index`.
    fn glyphs(shaped: &ShapedText, index: usize) -> Vec<ShapedGlyph> {
        shaped.glyphs(&shaped.lines[index]).collect()
    }

    fn engine() -> TextEngine {
        TextEngine::new(FontBook::new(FontOptions::default()))
    }

    fn style(size: f32) -> TextStyle {
        TextStyle {
            family: "Inter".into(),
            size,
            weight: 400,
            italic: false,
            letter_spacing: 0.0,
            line_height: 0.0,
            align: TextAlign::Left,
            vertical_align: crate::doc::values::TextAlignVertical::Top,
        }
    }

    #[test]
    fn inter_lines_are_its_ascent_and_descent_rounded_as_one_sum() {
        let mut engine = engine();
        let shaped = engine.shape("Hello", &style(14.0), None);
        assert_eq!(shaped.line_height, 17.0);
        assert_eq!(shaped.lines.len(), 1);
        assert!(shaped.width > 20.0 && shaped.width < 40.0, "width {}", shaped.width);
        assert_eq!(shaped.family, "Inter");
        // Pen (woodcase text-natural-line-height): Inter at 16 px is 15.5 + 3.86 = 19.36 px, a
        // 19 px line, three lines 57 (rounding ascent and descent apart, as Chromium does, gives
        // 20 and 60); the baseline sits on a whole pixel, the ascent rounded.
        let three = engine.shape("Ag\nAg\nAg", &style(16.0), None);
        let lines: Vec<(f32, f32, f32)> = three.lines.iter().map(|l| (l.top, l.height, l.baseline)).collect();
        assert_eq!(lines, [(0.0, 19.0, 16.0), (19.0, 19.0, 35.0), (38.0, 19.0, 54.0)]);
        assert_eq!(three.height(), 57.0);
    }

    #[test]
    fn a_line_height_multiplier_rounds_to_whole_pixels() {
        let mut engine = engine();
        let shaped = engine.shape("a\nb\nc", &TextStyle { line_height: 1.45, ..style(14.0) }, None);
        assert_eq!((shaped.line_height, shaped.lines.len(), shaped.height()), (20.0, 3, 60.0));
    }

    #[test]
    fn a_fallback_face_grows_a_line_of_normal_height_and_moves_its_baseline() {
        // Chromium, the same faces: "⬡ 0 plugins" in JetBrains Mono 11 px is 19 px high with its
        // baseline at 12 px (the symbol face reaches higher and lower; tests/fixtures/text,
        // pen-dc7eeb39a5). JetBrains Mono alone reaches 11.22 px up and 3.3 down: a 15 px line
        // as Pen rounds it once (Chromium rounds each: 11 + 3 = 14), its baseline at 11.
        let mut engine = engine();
        let mono = |size| TextStyle { family: "JetBrains Mono".into(), ..style(size) };
        let plain = engine.shape("0 plugins", &mono(11.0), None);
        let symbol = engine.shape("⬡ 0 plugins", &mono(11.0), None);
        assert_eq!((plain.height(), plain.lines[0].baseline), (15.0, 11.0));
        assert_eq!((symbol.height(), symbol.lines[0].baseline), (19.0, 12.0));
        assert_eq!(symbol.line_height, 15.0, "the text's own line height does not change");
        // Only the line that holds the symbol grows; the next starts below it.
        let two = engine.shape("⬡ 0 plugins\nplain", &mono(11.0), None);
        assert_eq!((two.lines[1].top, two.lines[1].height, two.height()), (19.0, 15.0, 34.0));
        assert!(glyphs(&two, 1).iter().all(|g| g.baseline == 19.0 + 11.0));
        // A numeric line height keeps every line at its height, baseline on the text's own face.
        let numeric = engine.shape("⬡ 0 plugins", &TextStyle { line_height: 1.5, ..mono(11.0) }, None);
        // 11 × 1.5 = 16.5 → 17 px; the 14 px face centred: 1.5 px above, baseline at 12.5.
        assert_eq!((numeric.height(), numeric.lines[0].baseline), (17.0, 12.5));
    }

    #[test]
    fn a_line_of_normal_height_includes_the_line_gap() {
        // Poppins has a line gap of a tenth of its size: 40 px text has 60 px lines in Chromium
        // (tests/fixtures/text, gen-poppins-15), the gap split above and below the glyphs.
        let mut engine = engine();
        let poppins = engine.shape("Ag", &TextStyle { family: "Poppins".into(), ..style(40.0) }, None);
        assert_eq!((poppins.height(), poppins.lines[0].baseline), (60.0, 44.0));
    }

    #[test]
    fn letter_spacing_turns_ligatures_off() {
        // Chromium draws "fi" spaced as two letters, not as the ligature glyph plus one spacing.
        let mut engine = engine();
        let font = |spacing| TextStyle { family: "Playfair Display".into(), letter_spacing: spacing, ..style(20.0) };
        let joined = engine.shape("fi", &font(0.0), None);
        let spaced = engine.shape("fi", &font(1.0), None);
        assert_eq!(glyphs(&joined, 0).len(), 1, "the ligature without spacing");
        assert_eq!(glyphs(&spaced, 0).len(), 2, "two letters with spacing");
    }

    #[test]
    fn letter_spacing_turns_contextual_forms_off() {
        // Caveat's handwriting alternates: Chromium measures "Dashboard" at 24 px 90.27 px wide,
        // 91.16 without contextual forms, and 86.66 (91.16 − 9 × 0.5) with −0.5 px spacing.
        let mut engine = engine();
        let caveat = |spacing| TextStyle { family: "Caveat".into(), letter_spacing: spacing, ..style(24.0) };
        let plain = engine.shape("Dashboard", &caveat(0.0), None).width;
        let spaced = engine.shape("Dashboard", &caveat(-0.5), None).width;
        assert!((plain - 90.27).abs() < 0.02, "{plain}");
        assert!((spaced - 86.66).abs() < 0.02, "{spaced}");
    }

    #[test]
    fn pairs_are_kerned_across_spaces_and_break_opportunities_as_in_the_browser() {
        // Widths Chromium 156 gives (tests/fixtures/text; the headline in Inter 4 as HarfBuzz
        // shapes the whole run, 654.19, Chromium's 655 rounded up); cosmic-text alone shapes each
        // word and each space apart and gets the sums of the words: 656.81, 52.00 and 71.03.
        let mut engine = engine();
        let inter = TextStyle { weight: 600, ..style(64.0) };
        let headline = engine.shape("Green. Clean. Future.", &inter, None).width;
        assert!((headline - 654.19).abs() < 0.02, "{headline}");
        // Each kana is a break opportunity; Noto Sans JP (the fallback for them) kerns ン and プ.
        let kana = engine.shape("サンプル", &TextStyle { weight: 600, ..style(13.0) }, None).width;
        assert!((kana - 51.625).abs() < 0.02, "{kana}");
        // A contextual alternate chosen across a space changes the glyph and its advance.
        let caveat = TextStyle { family: "Caveat".into(), ..style(12.0) };
        let handwriting = engine.shape("After a blank line", &caveat, None).width;
        assert!((handwriting - 70.28).abs() < 0.02, "{handwriting}");
        // Wrapping keeps the whole line's advances: the first line of the wrapped text ends
        // where the space after "Clean." starts on the single line ("." kerned against it).
        let single = engine.shape("Green. Clean. Future.", &inter, None);
        let space = glyphs(&single, 0).iter().find(|g| g.start == 13).map(|g| g.x);
        let wrapped = engine.shape("Green. Clean. Future.", &inter, Some(420.0));
        assert_eq!(wrapped.lines.len(), 2);
        assert!(
            space.is_some_and(|x| (wrapped.lines[0].width - x).abs() < 0.01),
            "{} against {space:?}",
            wrapped.lines[0].width
        );
    }

    #[test]
    fn a_line_does_not_end_kerned_against_the_next_one() {
        // Chromium breaks "…いので、どこでも…" at 200 px after "、": "ど" kerned against "こ"
        // would just fit (199.7 px), unkerned it does not (200.9), and a line's end is shaped
        // without what follows. The next line starts with "ど" at 0, unkerned against nothing.
        let mut engine = engine();
        let jp = TextStyle { family: "Noto Sans JP".into(), weight: 900, letter_spacing: 0.5, ..style(40.0) };
        let text = "いので、どこでも";
        let wrapped = engine.shape(text, &jp, Some(200.0));
        let lines: Vec<&str> = wrapped.lines.iter().map(|line| &text[line.text_range.clone()]).collect();
        assert_eq!(lines, ["いので、", "どこでも"]);
        let second = &wrapped.lines[1];
        let alone = engine.shape("どこでも", &jp, None);
        let starts = glyphs(&wrapped, 1);
        assert!(starts[0].x.abs() < 0.01, "{}", starts[0].x);
        assert!((second.width - alone.width).abs() < 0.01, "{} against {}", second.width, alone.width);
        for (a, b) in starts.iter().zip(&glyphs(&alone, 0)) {
            assert!((a.x - b.x).abs() < 0.01, "{} against {}", a.x, b.x);
        }
        // On one line, the pair is kerned: "ど" sits where the whole run puts it.
        let single = engine.shape(text, &jp, None);
        let kerned = engine.shape("いので、ど", &jp, None);
        assert!((kerned.width - 200.9).abs() < 0.02, "{}", kerned.width);
        assert!((single.width - (4.0 * 40.5 - 1.6 + alone.width)).abs() < 0.02, "{}", single.width);
    }

    #[test]
    fn the_lines_are_made_by_the_first_face_declared_for_the_space() {
        // Noto Emoji's slices declare only emoji, so the browser's first available font for a
        // Noto Emoji text is Inter: "😀🎉📊👍" at 14 px is 17 px tall in Chromium with its
        // baseline at 14 (Noto Emoji's own metrics would give 16 and 13).
        let mut engine = engine();
        let emoji =
            engine.shape("😀🎉📊👍", &TextStyle { family: "Noto Emoji".into(), weight: 300, ..style(14.0) }, None);
        assert_eq!((emoji.height(), emoji.lines[0].baseline), (17.0, 14.0));
        assert!(glyphs(&emoji, 0).iter().all(|g| g.glyph != 0), "no emoji is missing");
    }

    #[test]
    fn a_text_shaped_in_pieces_has_the_lines_and_glyphs_of_the_text_shaped_whole() {
        let mut engine = engine();
        let texts = [
            // Paragraphs gathered into pieces, an empty one, and a final line break.
            "Green. Clean. Future.\nThe quick brown fox\n\njumps over the lazy dog again.\nAnd again, and again.\n",
            // Paragraphs longer than a piece, wrapped in chunks cut after spaces.
            "Green. Clean. Future. The quick brown fox jumps over the lazy dog, again and again and again.",
            // A word longer than a piece, cut between letters.
            "Supercalifragilisticexpialidocious-and-then-some-more-letters-without-a-single-space",
            // Runs of other faces (Thai, emoji) inside a long paragraph.
            "Hello สวัสดี world 😀 and more words สวัสดี after the emoji 👍 until the end of it",
        ];
        let styles = [style(16.0), TextStyle { letter_spacing: 0.5, line_height: 1.4, ..style(16.0) }];
        for text in texts {
            for style in &styles {
                let prepared = engine.prepare(text, style);
                for wrap in [Some(90.0), Some(137.0)] {
                    let whole = engine.shape_prepared(&prepared, wrap);
                    let pieces = engine.shape_in_pieces(&prepared, wrap, 24);
                    assert_eq!(*whole, pieces, "{text:?} at {wrap:?}");
                }
                // Unwrapped, a long paragraph's chunks are placed one after the other: the
                // same glyphs, at the same places up to the rounding of the sums.
                let whole = engine.shape_prepared(&prepared, None);
                let pieces = engine.shape_in_pieces(&prepared, None, 24);
                assert_near(&whole, &pieces, 0.01, text);
            }
        }
        // Noto Sans JP kerns kana by context (a pair after "、" is kerned otherwise), and a
        // chunk starts without what came before it (its first line's start when wrapped, a
        // cut between two kana when not): places and widths can differ by a fraction of a
        // pixel at the cuts, 32 KB apart in a real text.
        let kana = "いので、どこでもいので、どこでもいので、どこでもいので、どこでも";
        let prepared = engine.prepare(kana, &style(16.0));
        for wrap in [Some(90.0), None] {
            let whole = engine.shape_prepared(&prepared, wrap);
            assert_near(&whole, &engine.shape_in_pieces(&prepared, wrap, 24), 1.0, kana);
        }
    }

    /// `a` and `b` have the same lines and glyphs, placed and as wide within `near` pixels.
    fn assert_near(a: &ShapedText, b: &ShapedText, near: f32, text: &str) {
        assert_eq!(a.lines.len(), b.lines.len(), "{text:?}");
        for (a_line, b_line) in a.lines.iter().zip(&b.lines) {
            let place = |line: &ShapedLine| (line.top, line.height, line.baseline, line.text_range.clone());
            assert_eq!(place(a_line), place(b_line), "{text:?}");
            assert!((a_line.width - b_line.width).abs() < near, "{text:?}: {} against {}", a_line.width, b_line.width);
            assert_eq!(a_line.glyph_count(), b_line.glyph_count(), "{text:?}");
            for (a, b) in a.glyphs(a_line).zip(b.glyphs(b_line)) {
                assert_eq!(
                    (a.font, a.glyph, a.start, a.end, a.baseline),
                    (b.font, b.glyph, b.start, b.end, b.baseline)
                );
                assert!((a.x - b.x).abs() < near, "{text:?}: {} against {}", a.x, b.x);
            }
        }
    }

    #[test]
    fn empty_text_has_one_line() {
        let mut engine = engine();
        let shaped = engine.shape("", &style(16.0), None);
        assert_eq!((shaped.lines.len(), shaped.width), (1, 0.0));
    }

    #[test]
    fn fixed_width_wraps_and_long_words_break() {
        let mut engine = engine();
        let text = "The quick brown fox jumps over the lazy dog";
        let one_line = engine.shape(text, &style(16.0), None);
        let wrapped = engine.shape(text, &style(16.0), Some(120.0));
        assert_eq!(one_line.lines.len(), 1);
        assert!(wrapped.lines.len() >= 3, "{} lines", wrapped.lines.len());
        assert!(wrapped.lines.iter().all(|l| l.width <= 120.0 + WRAP_TOLERANCE));
        let long_word = engine.shape(&"x".repeat(60), &style(16.0), Some(100.0));
        assert!(long_word.lines.len() > 1);
    }

    #[test]
    fn letter_spacing_is_added_after_every_character() {
        let mut engine = engine();
        let plain = engine.shape("abcd", &style(16.0), None).width;
        let spaced = engine.shape("abcd", &TextStyle { letter_spacing: 2.0, ..style(16.0) }, None).width;
        assert!((spaced - plain - 8.0).abs() < 0.01, "{plain} → {spaced}");
    }

    #[test]
    fn letter_spacing_is_added_once_per_cluster_as_browsers_add_it() {
        let mut engine = engine();
        // Four clusters: ส, วั, ส, ดี (two of them a letter with a mark above).
        for (text, clusters) in [("สวัสดี", 4.0), ("สวัสดี Hello", 10.0)] {
            let plain = engine.shape(text, &style(24.0), None);
            let spaced = engine.shape(text, &TextStyle { letter_spacing: -1.0, ..style(24.0) }, None);
            assert!((plain.width - spaced.width - clusters).abs() < 0.01, "{text}: {} → {}", plain.width, spaced.width);
            // Each mark stays on its letter: it moves with the spacing of the clusters before it.
            let marks = |shaped: &ShapedText| -> Vec<f32> {
                let glyphs = glyphs(shaped, 0);
                glyphs.windows(2).filter(|pair| pair[0].start == pair[1].start).map(|p| p[1].x - p[0].x).collect()
            };
            assert_eq!(marks(&plain).len(), 2, "{text}");
            for (was, is) in marks(&plain).iter().zip(marks(&spaced)) {
                assert!((was - is).abs() < 0.01, "{text}: a mark moved off its letter ({was} → {is})");
            }
        }
        // Wrapped lines are laid out the same way.
        let wrapped = engine.shape("สวัสดี สวัสดี", &TextStyle { letter_spacing: -1.0, ..style(24.0) }, Some(80.0));
        assert_eq!(wrapped.lines.len(), 2);
        assert!(wrapped.lines.iter().all(|line| line.glyph_count() > 0));
    }

    #[test]
    fn bold_is_wider_and_missing_families_use_inter() {
        let mut engine = engine();
        let regular = engine.shape("Design", &style(16.0), None).width;
        let bold = engine.shape("Design", &TextStyle { weight: 700, ..style(16.0) }, None).width;
        assert!(bold > regular);
        let lobster = engine.shape("Design", &TextStyle { family: "Lobster".into(), ..style(16.0) }, None);
        assert_eq!(lobster.family, "Inter", "a display family not fetched is drawn in Inter");
        assert!((lobster.width - regular).abs() < 0.01);
    }

    #[test]
    fn lines_align_in_their_box() {
        let mut engine = engine();
        let shaped = engine.shape("Hi\nHello there", &style(16.0), None);
        let (short, long) = (shaped.lines[0].width, shaped.lines[1].width);
        assert!(short < long);
        assert_eq!(shaped.line_x(0, TextAlign::Left, 200.0), 0.0);
        assert!((shaped.line_x(0, TextAlign::Center, 200.0) - (200.0 - short) / 2.0).abs() < 1e-3);
        assert!((shaped.line_x(1, TextAlign::Right, 200.0) - (200.0 - long)).abs() < 1e-3);
        assert_eq!(shaped.block_y(TextAlignVertical::Middle, 100.0), (100.0 - shaped.height()) / 2.0);
        assert_eq!(shaped.block_y(TextAlignVertical::Bottom, 10.0), 0.0, "overflowing text starts at the top");
    }

    #[test]
    fn justified_lines_reach_the_wrapping_width() {
        let mut engine = engine();
        let text = "The quick brown fox jumps over the lazy dog again and again";
        let justified = TextStyle { align: TextAlign::Justify, ..style(16.0) };
        let shaped = engine.shape(text, &justified, Some(200.0));
        assert!(shaped.lines.len() >= 3);
        let right_edge = |shaped: &ShapedText, line: &ShapedLine| shaped.glyphs(line).map(|g| g.x).fold(0.0, f32::max);
        let first = right_edge(&shaped, &shaped.lines[0]);
        let plain = engine.shape(text, &style(16.0), Some(200.0));
        assert!(first > right_edge(&plain, &plain.lines[0]), "justifying spreads the words");
        assert!(first <= 200.0 + WRAP_TOLERANCE);
    }

    #[test]
    fn a_weight_the_family_lacks_takes_its_nearest_face_not_another_family() {
        let mut engine = engine();
        let noto = TextStyle { family: "Noto Sans".into(), weight: 500, ..style(16.0) };
        let shaped = engine.shape("Noto", &noto, None);
        let regular = engine.shape("Noto", &TextStyle { weight: 400, ..noto.clone() }, None);
        assert_eq!(glyphs(&shaped, 0)[0].font, glyphs(&regular, 0)[0].font);
        let mono =
            engine.shape("mono", &TextStyle { family: "JetBrains Mono".into(), weight: 900, ..style(16.0) }, None);
        let bold =
            engine.shape("mono", &TextStyle { family: "JetBrains Mono".into(), weight: 800, ..style(16.0) }, None);
        assert_eq!(glyphs(&mono, 0)[0].font, glyphs(&bold, 0)[0].font, "JetBrains Mono has no 900");
    }

    #[test]
    fn thai_falls_back_to_noto_sans_thai() {
        let mut engine = engine();
        let shaped = engine.shape("สวัสดี", &style(16.0), None);
        assert_eq!(shaped.missing_glyphs, 0);
        assert!(shaped.width > 10.0);
    }
}
