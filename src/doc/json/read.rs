//! A JSON reader that records the byte offset of every value and tolerates `//` and `/* */`
//! comments, trailing commas and a leading byte-order mark.
//!
//! Objects follow `JSON.parse`: a repeated key keeps the position of its first occurrence and
//! the value of its last one. Repeats are reported so `nib check` can point at them.

use super::{Json, JsonValue, Member};

/// Deepest nesting of arrays and objects accepted. The deepest real document nests 25 levels
/// (a node and its `children` array are two); 128 leaves room for 60 node levels while keeping
/// every recursive stage (reading, typing, writing) far from the stack limit of a 2 MiB thread.
pub const MAX_DEPTH: usize = 128;

/// A syntax error: where it is, what went wrong, and what usually fixes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    /// Byte offset of the offending character.
    pub offset: u32,
    /// What is wrong, e.g. "expected ',' or '}' after an object member, found '\"'".
    pub message: String,
    /// What usually fixes it.
    pub hint: Option<&'static str>,
    /// JSON pointer of the value being read when the error happened ("/children/0/fill").
    pub pointer: String,
}

/// A key that occurs twice in one object.
#[derive(Debug, Clone, PartialEq)]
pub struct DuplicateKey {
    /// The key.
    pub key: String,
    /// Byte offset of the repeated occurrence.
    pub offset: u32,
}

/// The result of reading a text: its value (`None` when the text holds only whitespace and
/// comments) and the repeated keys found on the way.
#[derive(Debug)]
pub struct ParsedJson {
    /// The top-level value, if any.
    pub value: Option<Json>,
    /// Keys that occur more than once in the same object.
    pub duplicate_keys: Vec<DuplicateKey>,
    /// Byte offset of the first comment, if the text has any.
    pub first_comment: Option<u32>,
}

/// Reads `text` as JSON with comments.
pub fn parse(text: &str) -> Result<ParsedJson, SyntaxError> {
    if text.len() > u32::MAX as usize {
        return Err(SyntaxError {
            offset: 0,
            message: "the text is larger than 4 GiB".into(),
            hint: None,
            pointer: String::new(),
        });
    }
    let mut reader =
        Reader { src: text.as_bytes(), text, pos: 0, depth: 0, duplicates: Vec::new(), first_comment: None };
    if text.starts_with('\u{feff}') {
        reader.pos = 3;
    }
    reader.skip_blank().map_err(|e| e.finish(Vec::new()))?;
    if reader.pos == reader.src.len() {
        return Ok(ParsedJson { value: None, duplicate_keys: Vec::new(), first_comment: reader.first_comment });
    }
    let value = reader.value().map_err(|e| e.finish_reversed())?;
    reader.skip_blank().map_err(|e| e.finish(Vec::new()))?;
    if reader.pos < reader.src.len() {
        return Err(reader
            .error(format!("unexpected {} after the end of the document", reader.describe_here()))
            .with_hint("a document is a single JSON object; remove what follows its closing '}'")
            .finish(Vec::new()));
    }
    Ok(ParsedJson { value: Some(value), duplicate_keys: reader.duplicates, first_comment: reader.first_comment })
}

/// A path segment collected while an error unwinds out of nested containers.
enum Segment {
    Key(String),
    Index(usize),
}

/// An error on its way out: segments are pushed innermost first.
struct Unwinding {
    offset: u32,
    message: String,
    hint: Option<&'static str>,
    reversed_path: Vec<Segment>,
}

impl Unwinding {
    fn with_hint(mut self, hint: &'static str) -> Unwinding {
        self.hint = Some(hint);
        self
    }

    fn in_segment(mut self, segment: Segment) -> Unwinding {
        self.reversed_path.push(segment);
        self
    }

    fn finish_reversed(mut self) -> SyntaxError {
        let mut path = std::mem::take(&mut self.reversed_path);
        path.reverse();
        self.finish(path)
    }

    fn finish(self, path: Vec<Segment>) -> SyntaxError {
        let mut pointer = String::new();
        for segment in path {
            pointer.push('/');
            match segment {
                Segment::Key(k) => pointer.push_str(&escape_pointer_token(&k)),
                Segment::Index(i) => pointer.push_str(&i.to_string()),
            }
        }
        SyntaxError { offset: self.offset, message: self.message, hint: self.hint, pointer }
    }
}

/// Escapes a key for use in a JSON pointer (RFC 6901): `~` → `~0`, `/` → `~1`.
pub fn escape_pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

struct Reader<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
    duplicates: Vec<DuplicateKey>,
    first_comment: Option<u32>,
}

type Read<T> = Result<T, Unwinding>;

impl Reader<'_> {
    fn error(&self, message: String) -> Unwinding {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, pos: usize, message: String) -> Unwinding {
        Unwinding { offset: pos as u32, message, hint: None, reversed_path: Vec::new() }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    /// "'x'", "the end of the file", for messages.
    fn describe_here(&self) -> String {
        match self.text.get(self.pos..).and_then(|rest| rest.chars().next()) {
            None => "the end of the file".into(),
            Some(c) if c.is_control() => format!("control character U+{:04X}", c as u32),
            Some(c) => format!("'{c}'"),
        }
    }

    /// Skips whitespace and comments.
    fn skip_blank(&mut self) -> Read<()> {
        while let Some(byte) = self.peek() {
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' => match self.src.get(self.pos + 1) {
                    // Note where the first comment is; the loop comes back here to skip it.
                    Some(b'/' | b'*') if self.first_comment.is_none() => {
                        self.first_comment = Some(self.pos as u32);
                    }
                    Some(b'/') => {
                        self.pos = match self.src[self.pos..].iter().position(|b| *b == b'\n') {
                            Some(n) => self.pos + n + 1,
                            None => self.src.len(),
                        };
                    }
                    Some(b'*') => {
                        let start = self.pos;
                        let body = &self.text[self.pos + 2..];
                        match body.find("*/") {
                            Some(n) => self.pos += 2 + n + 2,
                            None => {
                                return Err(self
                                    .error_at(start, "unterminated /* comment".into())
                                    .with_hint("close the comment with */"));
                            }
                        }
                    }
                    _ => {
                        return Err(self.error("unexpected '/'".into()).with_hint("comments start with // or /*"));
                    }
                },
                _ => break,
            }
        }
        Ok(())
    }

    fn value(&mut self) -> Read<Json> {
        let offset = self.pos as u32;
        let value = match self.peek() {
            Some(b'{') => self.object()?,
            Some(b'[') => self.array()?,
            Some(b'"') => JsonValue::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => JsonValue::Number(self.number()?),
            Some(b't') => self.literal("true", JsonValue::Bool(true))?,
            Some(b'f') => self.literal("false", JsonValue::Bool(false))?,
            Some(b'n') => self.literal("null", JsonValue::Null)?,
            _ => return Err(self.unexpected_instead_of_value()),
        };
        Ok(Json { offset, value })
    }

    fn unexpected_instead_of_value(&self) -> Unwinding {
        let error = self.error(format!("expected a value, found {}", self.describe_here()));
        match self.peek() {
            Some(b'\'') => error.with_hint("JSON strings use double quotes: \"text\""),
            Some(b'}' | b']') => error.with_hint("a value is missing here, or there is one comma too many"),
            Some(b'+') => error.with_hint("JSON numbers have no leading '+'"),
            Some(b'.') => error.with_hint("write numbers with a leading digit: 0.5, not .5"),
            Some(b'N' | b'I') => error.with_hint("NaN and Infinity are not JSON; use a finite number"),
            Some(b'u') => error.with_hint("undefined is not JSON; leave the key out or use null"),
            Some(b) if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
                error.with_hint("strings must be quoted: \"text\"")
            }
            None => error.with_hint("the file ends too early; it may be truncated"),
            _ => error,
        }
    }

    fn enter(&mut self) -> Read<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn object(&mut self) -> Read<JsonValue> {
        self.enter()?;
        self.pos += 1; // '{'
        let mut members: Vec<Member> = Vec::new();
        let mut index = MemberIndex::default();
        loop {
            self.skip_blank()?;
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b'"') => {}
                _ => {
                    let error = self.error(format!("expected a quoted key or '}}', found {}", self.describe_here()));
                    return Err(match self.peek() {
                        Some(b'\'') => error.with_hint("keys use double quotes: \"key\""),
                        Some(b) if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
                            error.with_hint("object keys must be quoted: \"key\": value")
                        }
                        None => error.with_hint("the file ends too early; it may be truncated"),
                        _ => error,
                    });
                }
            }
            let key_offset = self.pos as u32;
            let key = self.string()?;
            self.skip_blank()?;
            if self.peek() != Some(b':') {
                return Err(self
                    .error(format!("expected ':' after the key \"{key}\", found {}", self.describe_here()))
                    .in_segment(Segment::Key(key)));
            }
            self.pos += 1;
            self.skip_blank()?;
            let value = match self.value() {
                Ok(value) => value,
                Err(e) => return Err(e.in_segment(Segment::Key(key))),
            };
            self.insert_member(&mut members, &mut index, Member { key, key_offset, value });
            self.skip_blank()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => {
                    let error = self
                        .error(format!("expected ',' or '}}' after an object member, found {}", self.describe_here()));
                    let error = match self.peek() {
                        Some(b'"') => error.with_hint("a comma is missing between two members"),
                        None => error.with_hint("the file ends too early; it may be truncated"),
                        _ => error,
                    };
                    let last = members.last().map(|m| m.key.clone()).unwrap_or_default();
                    return Err(error.in_segment(Segment::Key(last)));
                }
            }
        }
        self.depth -= 1;
        Ok(JsonValue::Object(members))
    }

    /// Adds a member with `JSON.parse` semantics for repeated keys.
    fn insert_member(&mut self, members: &mut Vec<Member>, index: &mut MemberIndex, member: Member) {
        if let Some(existing) = index.find(members, &member.key) {
            self.duplicates.push(DuplicateKey { key: member.key, offset: member.key_offset });
            members[existing].value = member.value;
        } else {
            index.add(members, &member.key);
            members.push(member);
        }
    }

    fn array(&mut self) -> Read<JsonValue> {
        self.enter()?;
        self.pos += 1; // '['
        let mut items = Vec::new();
        loop {
            self.skip_blank()?;
            if self.peek() == Some(b']') {
                self.pos += 1;
                break;
            }
            let item = match self.value() {
                Ok(item) => item,
                Err(e) => return Err(e.in_segment(Segment::Index(items.len()))),
            };
            items.push(item);
            self.skip_blank()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                _ => {
                    let error = self
                        .error(format!("expected ',' or ']' after an array element, found {}", self.describe_here()));
                    let error = match self.peek() {
                        None => error.with_hint("the file ends too early; it may be truncated"),
                        Some(b'{' | b'[' | b'"') => error.with_hint("a comma is missing between two elements"),
                        _ => error,
                    };
                    return Err(error.in_segment(Segment::Index(items.len() - 1)));
                }
            }
        }
        self.depth -= 1;
        Ok(JsonValue::Array(items))
    }

    fn literal(&mut self, word: &'static str, value: JsonValue) -> Read<JsonValue> {
        if self.src[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.unexpected_instead_of_value())
        }
    }

    fn number(&mut self) -> Read<f64> {
        let start = self.pos;
        let digits = |r: &mut Reader| {
            let from = r.pos;
            while r.peek().is_some_and(|b| b.is_ascii_digit()) {
                r.pos += 1;
            }
            r.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        let int_digits = digits(self);
        if int_digits == 0 {
            return Err(self
                .error_at(start, "expected digits after '-'".into())
                .with_hint("write a number such as -12 or -0.5"));
        }
        if int_digits > 1 && self.src[int_start] == b'0' {
            return Err(self
                .error_at(int_start, "numbers cannot have leading zeros".into())
                .with_hint("write 7, not 007"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(self
                    .error("expected digits after the decimal point".into())
                    .with_hint("write 1.0 or 1, not 1."));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.error("expected digits in the exponent".into()));
            }
        }
        let literal = &self.text[start..self.pos];
        match literal.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(value),
            _ => Err(self
                .error_at(start, format!("the number {literal} is too large"))
                .with_hint("numbers must fit a 64-bit float (about ±1.8e308)")),
        }
    }

    fn string(&mut self) -> Read<String> {
        let start = self.pos;
        self.pos += 1; // opening quote
        let mut out = String::new();
        let mut plain_from = self.pos;
        loop {
            let Some(byte) = self.peek() else {
                return Err(self
                    .error_at(start, "unterminated string".into())
                    .with_hint("close the string with a double quote"));
            };
            match byte {
                b'"' => {
                    out.push_str(&self.text[plain_from..self.pos]);
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(&self.text[plain_from..self.pos]);
                    self.escape(&mut out)?;
                    plain_from = self.pos;
                }
                0x00..=0x1f => {
                    let hint = if byte == b'\n' {
                        "write a line break inside a string as \\n, or close the string"
                    } else {
                        "escape control characters, e.g. \\t or \\u0001"
                    };
                    return Err(self
                        .error(format!("raw control character U+{byte:04X} inside a string"))
                        .with_hint(hint));
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Reads one escape sequence starting at the backslash.
    fn escape(&mut self, out: &mut String) -> Read<()> {
        let at = self.pos;
        self.pos += 1;
        let Some(kind) = self.peek() else {
            return Err(self.error_at(at, "unterminated escape sequence".into()));
        };
        self.pos += 1;
        let c = match kind {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex4(at)?;
                if (0xD800..0xDC00).contains(&first) {
                    let low = if self.src[self.pos..].starts_with(b"\\u") {
                        self.pos += 2;
                        Some(self.hex4(at)?)
                    } else {
                        None
                    };
                    match low {
                        Some(low) if (0xDC00..0xE000).contains(&low) => {
                            let code = 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00);
                            char::from_u32(code).unwrap_or('\u{fffd}')
                        }
                        _ => return Err(self.lone_surrogate(at)),
                    }
                } else if (0xDC00..0xE000).contains(&first) {
                    return Err(self.lone_surrogate(at));
                } else {
                    char::from_u32(first).unwrap_or('\u{fffd}')
                }
            }
            _ => {
                return Err(self
                    .error_at(at, format!("invalid escape sequence \\{}", kind as char))
                    .with_hint("valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"));
            }
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self, escape_at: usize) -> Read<u32> {
        let hex = self.text.get(self.pos..self.pos + 4).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
        match hex.and_then(|h| u32::from_str_radix(h, 16).ok()) {
            Some(code) => {
                self.pos += 4;
                Ok(code)
            }
            None => Err(self
                .error_at(escape_at, "\\u must be followed by four hex digits".into())
                .with_hint("write e.g. \\u00e9")),
        }
    }

    fn lone_surrogate(&self, at: usize) -> Unwinding {
        self.error_at(at, "unpaired UTF-16 surrogate in a \\u escape".into())
            .with_hint("characters outside the basic plane need both halves, e.g. \\ud83d\\ude00")
    }
}

/// Finds repeated keys while an object is read. Objects in documents are small, and a linear
/// scan beats hashing for them; an object that grows wide gets a hash index, so a file with a
/// hundred thousand keys in one object does not take quadratic time.
#[derive(Default)]
struct MemberIndex(Option<std::collections::HashMap<String, usize>>);

/// Members beyond which an object is indexed by hash.
const LINEAR_MEMBERS: usize = 32;

impl MemberIndex {
    fn find(&self, members: &[Member], key: &str) -> Option<usize> {
        match &self.0 {
            Some(map) => map.get(key).copied(),
            None => members.iter().position(|m| m.key == key),
        }
    }

    /// Notes that `key` is added after `members` (whose keys are all distinct).
    fn add(&mut self, members: &[Member], key: &str) {
        if self.0.is_none() && members.len() >= LINEAR_MEMBERS {
            self.0 = Some(members.iter().enumerate().map(|(i, m)| (m.key.clone(), i)).collect());
        }
        if let Some(map) = &mut self.0 {
            map.insert(key.to_owned(), members.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Json {
        parse(text).expect("valid").value.expect("not empty")
    }

    fn error(text: &str) -> SyntaxError {
        parse(text).expect_err("invalid")
    }

    #[test]
    fn reads_values_with_offsets() {
        let v = value("{\"a\": [1, -2.5e3, true, null], \"b\": \"x\\ny\\u00e9\\ud83d\\ude00\"}");
        assert_eq!(v.offset, 0);
        let a = v.get("a").unwrap();
        assert_eq!(a.offset, 6);
        match &a.value {
            JsonValue::Array(items) => {
                assert_eq!(items[1].value, JsonValue::Number(-2500.0));
                assert_eq!(items[1].offset, 10);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(v.get("b").unwrap().as_str(), Some("x\nyé😀"));
    }

    #[test]
    fn comments_trailing_commas_and_bom_are_tolerated() {
        let v = value("\u{feff}// head\n{ /* a */ \"a\": 1, // b\n \"b\": [1, 2,], }");
        assert_eq!(v.get("b").map(|b| b.kind_name()), Some("an array"));
    }

    #[test]
    fn empty_text_has_no_value() {
        assert!(parse("").unwrap().value.is_none());
        assert!(parse("  \n// nothing\n").unwrap().value.is_none());
    }

    #[test]
    fn repeated_keys_keep_first_position_and_last_value() {
        let parsed = parse("{\"a\": 1, \"b\": 2, \"a\": 3}").unwrap();
        let v = parsed.value.unwrap();
        match &v.value {
            JsonValue::Object(m) => {
                assert_eq!(m.len(), 2);
                assert_eq!(m[0].key, "a");
                assert_eq!(m[0].value.value, JsonValue::Number(3.0));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(parsed.duplicate_keys, vec![DuplicateKey { key: "a".into(), offset: 17 }]);
    }

    #[test]
    fn errors_carry_offset_pointer_and_hint() {
        let e = error("{\"children\": [{\"id\": \"a\" \"type\": \"frame\"}]}");
        assert_eq!(e.offset, 25);
        assert_eq!(e.pointer, "/children/0/id");
        assert_eq!(e.hint, Some("a comma is missing between two members"));

        let e = error("{\"a\": 'x'}");
        assert_eq!(e.pointer, "/a");
        assert!(e.hint.unwrap().contains("double quotes"));

        let e = error("{\"a\": [1, 2");
        assert!(e.hint.unwrap().contains("truncated"));

        let e = error("{type: \"frame\"}");
        assert!(e.hint.unwrap().contains("quoted"));
    }

    #[test]
    fn malformed_literals_are_rejected() {
        for bad in [
            "01",
            "1.",
            "-",
            "1e",
            "1e999",
            "+1",
            ".5",
            "tru",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"a\nb\"",
            "{} {}",
            "/* open",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should fail");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        let e = error(&deep);
        assert!(e.message.contains("nesting"));
    }
}
