//! A streaming pretty-printer whose output is byte-identical to `JSON.stringify(value, null, 2)`.

use std::fmt;
use std::io;

use super::meter::{Meter, WriteLimits};
use super::number::write_js_number;

/// Bytes a streaming writer gathers before it passes them on: large enough for few system
/// calls, small enough that a saved document is never held whole in memory.
const STREAM_CHUNK: usize = 64 * 1024;

/// Writes JSON like `JSON.stringify`: pretty (`JsonWriter::new`, two-space indentation) or
/// compact (`JsonWriter::compact`, no whitespace at all).
///
/// Pretty output has two-space indentation, `"key": value` members, `[]`/`{}` for empty
/// containers, JavaScript number formatting and JavaScript string escaping; no trailing newline.
///
/// Callers announce structure (`begin_object`, `key`, value, …, `end_object`); the writer places
/// commas, newlines and indentation.
#[derive(Debug, Default)]
pub struct JsonWriter<'w> {
    out: String,
    /// Where the output goes as it is written, for a streaming writer.
    stream: Option<Stream<'w>>,
    depth: usize,
    /// Nothing has been written inside the innermost open container yet.
    container_empty: bool,
    /// A key was just written; the next value belongs to it.
    after_key: bool,
    /// No newlines, indentation or spaces: `JSON.stringify(value)`.
    compact: bool,
    /// What a write within limits has counted (see [`JsonWriter::streaming_within`]).
    meter: Option<Box<Meter>>,
    /// Half pairs are written as the escapes a `.pen` file holds (see [`super::surrogates`]);
    /// otherwise as their stand-in characters, which any JSON reader takes.
    halves: bool,
}

/// The destination of a streaming writer, and the first error it gave.
struct Stream<'w> {
    out: &'w mut dyn io::Write,
    error: Option<io::Error>,
}

impl fmt::Debug for Stream<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream").field("error", &self.error).finish_non_exhaustive()
    }
}

impl JsonWriter<'static> {
    /// A writer with an empty output buffer.
    pub fn new() -> JsonWriter<'static> {
        JsonWriter::default()
    }

    /// A writer for single-line output, as `JSON.stringify(value)` without indentation.
    pub fn compact() -> JsonWriter<'static> {
        JsonWriter { compact: true, ..JsonWriter::default() }
    }

    /// A writer whose buffer is preallocated for about `bytes` of output.
    pub fn with_capacity(bytes: usize) -> JsonWriter<'static> {
        JsonWriter { out: String::with_capacity(bytes), ..JsonWriter::default() }
    }
}

impl<'w> JsonWriter<'w> {
    /// A pretty writer that passes its output on to `out` in chunks as it goes, so that the
    /// text is never held whole; [`JsonWriter::finish_stream`] ends it.
    pub(crate) fn streaming(out: &'w mut dyn io::Write) -> JsonWriter<'w> {
        JsonWriter {
            out: String::with_capacity(STREAM_CHUNK + 1024),
            stream: Some(Stream { out, error: None }),
            ..JsonWriter::default()
        }
    }

    /// Like [`JsonWriter::streaming`], counting what is written against `limits`: at the first
    /// one gone past, nothing more is passed on and [`JsonWriter::finish_stream`] answers an
    /// error whose inner error is the [`OverLimit`](super::OverLimit).
    pub(crate) fn streaming_within(out: &'w mut dyn io::Write, limits: WriteLimits) -> JsonWriter<'w> {
        JsonWriter { meter: Some(Box::new(Meter::new(limits))), ..JsonWriter::streaming(out) }
    }

    /// The same writer, writing each half of a UTF-16 pair as the escape `JSON.stringify`
    /// writes (`\ud800`): what a `.pen` file holds, and nothing else should (see
    /// [`super::surrogates`]).
    pub(crate) fn writing_halves(mut self) -> JsonWriter<'w> {
        self.halves = true;
        self
    }

    /// The text written so far (all of it, unless the writer streams).
    pub fn finish(self) -> String {
        self.out
    }

    /// Passes on what a streaming writer still holds; the first error `out` gave, if any.
    pub(crate) fn finish_stream(mut self) -> io::Result<()> {
        self.pass_on();
        match self.stream.and_then(|stream| stream.error) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Gives the buffered text to the stream, if the writer streams.
    fn pass_on(&mut self) {
        if let Some(stream) = &mut self.stream {
            if let Some(meter) = &mut self.meter {
                meter.passed_on(self.out.len());
                if let Some(over) = meter.over
                    && stream.error.is_none()
                {
                    stream.error = Some(io::Error::other(over));
                }
            }
            if stream.error.is_none()
                && let Err(error) = stream.out.write_all(self.out.as_bytes())
            {
                stream.error = Some(error);
            }
            self.out.clear();
        }
    }

    /// Passes on a full chunk.
    fn spill(&mut self) {
        if self.out.len() >= STREAM_CHUNK {
            self.pass_on();
        }
    }

    /// Opens an object (as a value: after a key, as an array element, or at the top).
    pub fn begin_object(&mut self) {
        self.open('{');
    }

    /// Closes the innermost object.
    pub fn end_object(&mut self) {
        self.close('}');
    }

    /// Opens an array.
    pub fn begin_array(&mut self) {
        self.open('[');
    }

    /// Closes the innermost array.
    pub fn end_array(&mut self) {
        self.close(']');
    }

    /// Starts an object member; the next value written is its value.
    pub fn key(&mut self, key: &str) {
        if let Some(meter) = &mut self.meter {
            meter.key(key, false);
        }
        self.new_member();
        self.write_string(key);
        self.out.push_str(if self.compact { ":" } else { ": " });
        self.after_key = true;
    }

    /// Starts a member whose key nib does not know (kept verbatim from a file): counted by a
    /// writer within limits, as the reader counts it.
    pub fn unknown_key(&mut self, key: &str) {
        if let Some(meter) = &mut self.meter {
            meter.unknown_key();
        }
        self.key(key);
    }

    /// Writes `null`.
    pub fn null(&mut self) {
        self.before_value();
        self.out.push_str("null");
    }

    /// Writes `true` or `false`.
    pub fn bool(&mut self, value: bool) {
        self.before_value();
        self.out.push_str(if value { "true" } else { "false" });
    }

    /// Writes a number as JavaScript prints it.
    pub fn number(&mut self, value: f64) {
        self.before_value();
        write_js_number(&mut self.out, value);
    }

    /// Writes a string with JavaScript's escaping.
    pub fn string(&mut self, value: &str) {
        self.before_value();
        self.write_string(value);
    }

    fn write_string(&mut self, value: &str) {
        if self.halves && super::surrogates::holds_half_pairs(value) {
            // Escaping makes no stand-in and leaves each as it is: they are turned afterwards.
            let mut quoted = String::with_capacity(value.len() + 2);
            write_js_string(&mut quoted, value);
            super::surrogates::push_escaped(&mut self.out, &quoted);
        } else {
            write_js_string(&mut self.out, value);
        }
    }

    /// Starts a member whose key is already quoted and escaped as `JSON.stringify` does.
    pub(crate) fn raw_key(&mut self, quoted: &str) {
        if let Some(meter) = &mut self.meter {
            meter.key(quoted, true);
        }
        self.new_member();
        self.push_raw(quoted);
        self.out.push_str(if self.compact { ":" } else { ": " });
        self.after_key = true;
    }

    /// Writes a scalar already printed as `JSON.stringify` prints it.
    pub(crate) fn raw_scalar(&mut self, token: &str) {
        self.before_value();
        self.push_raw(token);
    }

    /// A token of compact text (a [`super::RawJson`]'s), whose strings hold half pairs as
    /// their stand-ins.
    fn push_raw(&mut self, token: &str) {
        if self.halves {
            super::surrogates::push_escaped(&mut self.out, token);
        } else {
            self.out.push_str(token);
        }
    }

    fn open(&mut self, bracket: char) {
        self.before_value();
        if let Some(meter) = &mut self.meter {
            meter.open(bracket == '[');
        }
        self.out.push(bracket);
        self.depth += 1;
        self.container_empty = true;
    }

    fn close(&mut self, bracket: char) {
        self.spill();
        if let Some(meter) = &mut self.meter {
            meter.close();
        }
        self.depth = self.depth.saturating_sub(1);
        if !self.container_empty && !self.compact {
            self.out.push('\n');
            self.indent();
        }
        self.out.push(bracket);
        // The parent container now holds at least this value.
        self.container_empty = false;
    }

    fn before_value(&mut self) {
        self.spill();
        if let Some(meter) = &mut self.meter {
            meter.value(self.after_key);
        }
        if self.after_key {
            self.after_key = false;
        } else if self.depth > 0 {
            self.new_member();
        }
    }

    fn new_member(&mut self) {
        if !self.container_empty {
            self.out.push(',');
        }
        if !self.compact {
            self.out.push('\n');
            self.indent();
        }
        self.container_empty = false;
    }

    fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }
}

/// Appends `value` quoted and escaped as `JSON.stringify` does: `"` and `\` escaped, control
/// characters as `\b \f \n \r \t` or `\u00xx` (lowercase hex), everything else verbatim (the
/// stand-in of half a UTF-16 pair too: only a writer of `.pen` text turns it into its escape).
pub fn write_js_string(out: &mut String, value: &str) {
    out.push('"');
    let mut plain_from = 0;
    for (i, byte) in value.bytes().enumerate() {
        let escape: &str = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&value[plain_from..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(byte >> 4)] as char);
            out.push(HEX[usize::from(byte & 0xf)] as char);
        } else {
            out.push_str(escape);
        }
        plain_from = i + 1;
    }
    out.push_str(&value[plain_from..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_containers_match_json_stringify() {
        let mut w = JsonWriter::new();
        w.begin_object();
        w.key("version");
        w.string("2.8");
        w.key("children");
        w.begin_array();
        w.begin_object();
        w.key("gap");
        w.number(-1.0);
        w.key("padding");
        w.begin_array();
        w.number(8.0);
        w.number(0.5);
        w.end_array();
        w.key("empty");
        w.begin_array();
        w.end_array();
        w.key("none");
        w.begin_object();
        w.end_object();
        w.end_object();
        w.end_array();
        w.end_object();
        let expected = "{\n  \"version\": \"2.8\",\n  \"children\": [\n    {\n      \"gap\": -1,\n      \"padding\": [\n        8,\n        0.5\n      ],\n      \"empty\": [],\n      \"none\": {}\n    }\n  ]\n}";
        assert_eq!(w.finish(), expected);
    }

    #[test]
    fn compact_output_has_no_whitespace() {
        let mut w = JsonWriter::compact();
        w.begin_object();
        w.key("a");
        w.begin_array();
        w.number(1.0);
        w.string("x y");
        w.end_array();
        w.key("b");
        w.begin_object();
        w.end_object();
        w.end_object();
        assert_eq!(w.finish(), "{\"a\":[1,\"x y\"],\"b\":{}}");
    }

    #[test]
    fn top_level_scalars_and_empty_containers() {
        let mut w = JsonWriter::new();
        w.begin_array();
        w.end_array();
        assert_eq!(w.finish(), "[]");
        let mut w = JsonWriter::new();
        w.null();
        assert_eq!(w.finish(), "null");
    }

    #[test]
    fn a_streaming_writer_passes_on_the_same_text_in_chunks() {
        let write = |w: &mut JsonWriter| {
            w.begin_array();
            for i in 0..20_000 {
                w.begin_object();
                w.key("n");
                w.number(f64::from(i));
                w.end_object();
            }
            w.end_array();
        };
        let mut whole = JsonWriter::new();
        write(&mut whole);
        let whole = whole.finish();
        let mut chunks: Vec<usize> = Vec::new();
        let mut streamed = Vec::new();
        struct Chunks<'a>(&'a mut Vec<u8>, &'a mut Vec<usize>);
        impl io::Write for Chunks<'_> {
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                self.1.push(bytes.len());
                self.0.extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut out = Chunks(&mut streamed, &mut chunks);
        let mut w = JsonWriter::streaming(&mut out);
        write(&mut w);
        w.finish_stream().unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), whole);
        assert!(whole.len() > 4 * STREAM_CHUNK);
        assert!(chunks.iter().all(|len| *len < STREAM_CHUNK + 1024), "{chunks:?}");
    }

    #[test]
    fn strings_escape_like_javascript() {
        let mut s = String::new();
        write_js_string(&mut s, "a\"b\\c\nd\u{1}e\u{7f}é/\u{2028}");
        assert_eq!(s, "\"a\\\"b\\\\c\\nd\\u0001e\u{7f}é/\u{2028}\"");
    }
}
