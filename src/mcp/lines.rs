//! stdin cut into messages: one message per line, read in bounded memory. A line longer than the
//! limit is skipped to its newline without being kept; only its first bytes are remembered, so the
//! answer can still name the request's id when the client wrote it first.

use std::io::{self, BufRead};

/// Most bytes one message may have, newline excluded. Real messages are small (a batch_design
/// script of a few dozen operations, a set_variables call: kilobytes); 16 MiB is about ten
/// times the biggest real document (1.7 MB) and what rmcp's own transports accept, so a message
/// that fits over HTTP fits over stdio too.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Bytes kept from the start of a line that is too long: enough for the `jsonrpc`, `id` and
/// `method` members a client writes first, little enough to cost nothing.
pub const KEPT_START_BYTES: usize = 1024;

/// One line of input, its newline (and a carriage return before it) removed.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// The whole line.
    Whole(Vec<u8>),
    /// A line longer than the limit: its first [`KEPT_START_BYTES`] and its full length.
    TooLong {
        /// The first bytes of the line.
        start: Vec<u8>,
        /// How long the line was, in bytes.
        bytes: u64,
    },
}

/// Reads lines of at most `limit` bytes from `input`.
pub struct LineReader<R> {
    input: R,
    limit: usize,
}

impl<R: BufRead> LineReader<R> {
    /// A reader keeping lines of up to `limit` bytes.
    pub fn new(input: R, limit: usize) -> LineReader<R> {
        LineReader { input, limit }
    }

    /// The next line, or `None` at the end of the input. A last line without a newline counts.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut kept = Vec::new();
        let mut bytes: u64 = 0;
        let mut too_long = false;
        let mut read_any = false;
        loop {
            let available = match self.input.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                if !read_any {
                    return Ok(None);
                }
                break;
            }
            read_any = true;
            let newline = available.iter().position(|&byte| byte == b'\n');
            let content = &available[..newline.unwrap_or(available.len())];
            bytes += content.len() as u64;
            if !too_long && kept.len() + content.len() > self.limit {
                // From here on the line is only counted: keep its start and give the rest back.
                too_long = true;
                kept.truncate(KEPT_START_BYTES);
                kept.shrink_to_fit();
            }
            if too_long {
                let room = KEPT_START_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&content[..room.min(content.len())]);
            } else {
                kept.extend_from_slice(content);
            }
            let consumed = newline.map_or(available.len(), |at| at + 1);
            self.input.consume(consumed);
            if newline.is_some() {
                break;
            }
        }
        if too_long {
            return Ok(Some(Line::TooLong { start: kept, bytes }));
        }
        if kept.last() == Some(&b'\r') {
            kept.pop();
        }
        Ok(Some(Line::Whole(kept)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor, Read};

    fn lines(input: &[u8], limit: usize) -> Vec<Line> {
        // A small buffer makes lines span many fill_buf calls.
        let mut reader = LineReader::new(BufReader::with_capacity(7, Cursor::new(input.to_vec())), limit);
        std::iter::from_fn(|| reader.next_line().unwrap()).collect()
    }

    #[test]
    fn lines_are_cut_at_newlines_without_their_line_endings() {
        assert_eq!(
            lines(b"{\"a\":1}\n\r\n\nlast without newline", 100),
            [
                Line::Whole(b"{\"a\":1}".to_vec()),
                Line::Whole(Vec::new()),
                Line::Whole(Vec::new()),
                Line::Whole(b"last without newline".to_vec()),
            ]
        );
        assert!(lines(b"", 100).is_empty());
    }

    #[test]
    fn a_line_over_the_limit_keeps_only_its_start_and_the_next_line_is_whole() {
        let mut input = vec![b'x'; 5000];
        input.extend_from_slice(b"\nnext\n");
        let read = lines(&input, 100);
        assert_eq!(read.len(), 2);
        let Line::TooLong { start, bytes } = &read[0] else { panic!("{:?}", read[0]) };
        assert_eq!(start.len(), KEPT_START_BYTES);
        assert_eq!(*bytes, 5000);
        assert_eq!(read[1], Line::Whole(b"next".to_vec()));
    }

    #[test]
    fn a_line_exactly_at_the_limit_is_whole() {
        assert_eq!(lines(b"12345\n", 5), [Line::Whole(b"12345".to_vec())]);
        assert!(matches!(lines(b"123456\n", 5)[0], Line::TooLong { bytes: 6, .. }));
    }

    #[test]
    fn a_huge_line_is_counted_not_kept() {
        // 64 MiB of one line through a 4 KiB limit: read to its end, only its start is held.
        let huge = std::io::repeat(b'a').take(64 << 20).chain(Cursor::new(b"\n{}\n".to_vec()));
        let mut reader = LineReader::new(BufReader::new(huge), 4096);
        let Some(Line::TooLong { start, bytes }) = reader.next_line().unwrap() else { panic!("too long") };
        assert_eq!((start.len(), bytes), (KEPT_START_BYTES, 64 << 20));
        assert!(start.capacity() <= KEPT_START_BYTES);
        assert_eq!(reader.next_line().unwrap(), Some(Line::Whole(b"{}".to_vec())));
        assert_eq!(reader.next_line().unwrap(), None);
    }
}
