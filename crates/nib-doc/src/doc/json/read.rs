//! A JSON reader that records the byte offset of every value and tolerates `//` and `/* */`
//! comments, trailing commas and a leading byte-order mark.
//!
//! Objects follow `JSON.parse`: a repeated key keeps the position of its first occurrence and
//! the value of its last one. Repeats are reported so `nib check` can point at them.
//!
//! One recursive-descent reader serves three purposes through a [`Sink`]: building a tree of
//! [`Json`] values, checking a text without building anything (the first pass of loading a
//! document, see [`super::outline`]), and following paths to find where values are (see
//! [`super::locate`]). Every error is found by the same code whichever sink listens.

use std::borrow::Cow;

use super::{Json, JsonValue, Member, surrogates};

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
    let mut reader = Reader::new(text, Tree)?;
    let value = reader.whole_text()?;
    Ok(ParsedJson { value, duplicate_keys: reader.duplicates, first_comment: reader.first_comment })
}

/// A scalar value as the reader meets it. Strings without escapes borrow from the text.
pub(crate) enum Scalar<'a> {
    Null,
    Bool(bool),
    Number(f64),
    String(Cow<'a, str>),
}

/// One step of the path to a value: the key of a member or the index of an array item.
pub(crate) enum Step<'k, 'a> {
    Key(&'k Cow<'a, str>),
    Index(usize),
}

/// What a read makes of the values it meets. The reader checks the syntax and keeps offsets,
/// depth and repeated keys; a sink decides what to build.
pub(crate) trait Sink<'a> {
    /// What a value becomes.
    type Value;
    /// An object being read.
    type Object;
    /// An array being read.
    type Array;

    /// A scalar starting at `offset`.
    fn scalar(&mut self, offset: u32, scalar: Scalar<'a>) -> Self::Value;
    /// An object starts at `offset`.
    fn begin_object(&mut self, offset: u32) -> Self::Object;
    /// A member was read, with `JSON.parse` semantics for repeated keys: when `key` is already
    /// in `object`, its value is replaced (keeping its place) and the key is given back.
    fn member(
        &mut self,
        object: &mut Self::Object,
        key: Cow<'a, str>,
        key_offset: u32,
        value: Self::Value,
    ) -> Option<Cow<'a, str>>;
    /// The key of the member added last (for the pointer of an error after it).
    fn last_key(&self, object: &Self::Object) -> String;
    /// The object that started at `offset` is complete.
    fn end_object(&mut self, offset: u32, object: Self::Object) -> Self::Value;
    /// An array starts at `offset`.
    fn begin_array(&mut self, offset: u32) -> Self::Array;
    /// An item was read.
    fn item(&mut self, array: &mut Self::Array, value: Self::Value);
    /// The array that started at `offset` is complete.
    fn end_array(&mut self, offset: u32, array: Self::Array) -> Self::Value;

    /// A key starting at `offset` was read; its value comes next.
    fn key(&mut self, _offset: u32, _key: &str) {}
    /// The reader goes down into a member's value or an array item.
    fn enter(&mut self, _step: Step<'_, 'a>) {}
    /// The reader comes back up from it.
    fn leave(&mut self) {}
}

/// Builds the tree of [`Json`] values.
pub(crate) struct Tree;

impl<'a> Sink<'a> for Tree {
    type Value = Json;
    type Object = (Vec<Member>, MemberIndex);
    type Array = Vec<Json>;

    fn scalar(&mut self, offset: u32, scalar: Scalar<'a>) -> Json {
        let value = match scalar {
            Scalar::Null => JsonValue::Null,
            Scalar::Bool(b) => JsonValue::Bool(b),
            Scalar::Number(n) => JsonValue::Number(n),
            Scalar::String(s) => JsonValue::String(s.into_owned()),
        };
        Json { offset, value }
    }

    fn begin_object(&mut self, _offset: u32) -> Self::Object {
        (Vec::new(), MemberIndex::default())
    }

    fn member(
        &mut self,
        (members, index): &mut Self::Object,
        key: Cow<'a, str>,
        key_offset: u32,
        value: Json,
    ) -> Option<Cow<'a, str>> {
        if let Some(existing) = index.find(members, |m| &m.key, &key) {
            members[existing].value = value;
            return Some(key);
        }
        index.add(members, |m| &m.key, &key);
        members.push(Member { key: key.into_owned(), key_offset, value });
        None
    }

    fn last_key(&self, (members, _): &Self::Object) -> String {
        members.last().map(|m| m.key.clone()).unwrap_or_default()
    }

    fn end_object(&mut self, offset: u32, (members, _): Self::Object) -> Json {
        Json { offset, value: JsonValue::Object(members) }
    }

    fn begin_array(&mut self, _offset: u32) -> Vec<Json> {
        Vec::new()
    }

    fn item(&mut self, array: &mut Vec<Json>, value: Json) {
        array.push(value);
    }

    fn end_array(&mut self, offset: u32, items: Vec<Json>) -> Json {
        Json { offset, value: JsonValue::Array(items) }
    }
}

/// What the reader does with the `children` arrays it meets (see [`super::outline`]).
#[derive(Default)]
pub(crate) enum ChildrenArrays<'o> {
    /// Reads them like any other value.
    #[default]
    Read,
    /// Records where each starts and ends, and counts their items.
    Record(ChildrenRecord),
    /// Leaves the one of the outermost object unread (its span is in this list, sorted by
    /// start): it reads as an empty array at its offset.
    Defer(&'o [(u32, u32)]),
}

/// Where `children` arrays are, and how many items they hold.
#[derive(Debug, Default)]
pub(crate) struct ChildrenRecord {
    /// (offset of `[`, offset just past `]`) of every array that is the value of a key
    /// `children`, sorted by start.
    pub spans: Vec<(u32, u32)>,
    /// Items in all of them.
    pub items: usize,
    /// Items beyond which [`ChildrenRecord::past_limit`] is noted.
    pub item_limit: usize,
    /// Offset of the first item beyond `item_limit`.
    pub past_limit: Option<u32>,
}

/// A path segment collected while an error unwinds out of nested containers.
enum Segment {
    Key(String),
    Index(usize),
}

/// An error on its way out: segments are pushed innermost first.
pub(crate) struct Unwinding {
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

    fn finish(mut self) -> SyntaxError {
        let mut pointer = String::new();
        for segment in self.reversed_path.drain(..).rev() {
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

pub(crate) struct Reader<'a, 'o, S> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
    pub duplicates: Vec<DuplicateKey>,
    pub first_comment: Option<u32>,
    /// Where the first real character of [`surrogates::STAND_INS`] is.
    pub first_stand_in: Option<u32>,
    pub sink: S,
    pub children: ChildrenArrays<'o>,
}

type Read<T> = Result<T, Unwinding>;

impl<'a, 'o, S: Sink<'a>> Reader<'a, 'o, S> {
    /// A reader at the start of `text` (past a byte-order mark).
    pub fn new(text: &'a str, sink: S) -> Result<Reader<'a, 'o, S>, SyntaxError> {
        if text.len() > u32::MAX as usize {
            return Err(SyntaxError {
                offset: 0,
                message: "the text is larger than 4 GiB".into(),
                hint: None,
                pointer: String::new(),
            });
        }
        let pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Ok(Reader {
            src: text.as_bytes(),
            text,
            pos,
            depth: 0,
            duplicates: Vec::new(),
            first_comment: None,
            first_stand_in: None,
            sink,
            children: ChildrenArrays::Read,
        })
    }

    /// A reader at `offset` of a text another reader has checked.
    pub fn at(text: &'a str, offset: u32, sink: S) -> Reader<'a, 'o, S> {
        Reader {
            src: text.as_bytes(),
            text,
            pos: offset as usize,
            depth: 0,
            duplicates: Vec::new(),
            first_comment: None,
            first_stand_in: None,
            sink,
            children: ChildrenArrays::Read,
        }
    }

    /// Reads the whole text: one value (or none) between whitespace and comments.
    pub(crate) fn whole_text(&mut self) -> Result<Option<S::Value>, SyntaxError> {
        self.skip_blank().map_err(Unwinding::finish)?;
        if self.pos == self.src.len() {
            return Ok(None);
        }
        let value = self.value().map_err(Unwinding::finish)?;
        self.skip_blank().map_err(Unwinding::finish)?;
        if self.pos < self.src.len() {
            return Err(self
                .error(format!("unexpected {} after the end of the document", self.describe_here()))
                .with_hint("a document is a single JSON object; remove what follows its closing '}'")
                .finish());
        }
        Ok(Some(value))
    }

    /// The byte offset the reader is at.
    pub fn position(&self) -> u32 {
        self.pos as u32
    }

    /// Reads the value at the reader's position.
    pub(crate) fn next_value(&mut self) -> Result<S::Value, SyntaxError> {
        self.value().map_err(Unwinding::finish)
    }

    /// Inside an array, after `[` or an item: moves to the next item and returns true, or past
    /// the closing `]` and returns false.
    pub(crate) fn next_item(&mut self, first: bool) -> Result<bool, SyntaxError> {
        let step = |r: &mut Self| -> Read<bool> {
            r.skip_blank()?;
            if !first {
                match r.peek() {
                    Some(b',') => {
                        r.pos += 1;
                        r.skip_blank()?;
                    }
                    Some(b']') => {}
                    _ => return Err(r.error(format!("expected ',' or ']', found {}", r.describe_here()))),
                }
            }
            if r.peek() == Some(b']') {
                r.pos += 1;
                return Ok(false);
            }
            Ok(true)
        };
        if first {
            self.pos += 1; // '['
        }
        step(self).map_err(Unwinding::finish)
    }

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
    #[inline(always)]
    fn skip_blank(&mut self) -> Read<()> {
        // Most calls meet no blank at all (between a key and its colon, a value and its comma).
        match self.peek() {
            Some(b' ' | b'\t' | b'\n' | b'\r' | b'/') => self.skip_blanks(),
            _ => Ok(()),
        }
    }

    /// Skips the whitespace and comments that start here.
    fn skip_blanks(&mut self) -> Read<()> {
        while let Some(byte) = self.peek() {
            match byte {
                // Pen indents by nesting: runs of spaces are most of a large file's bytes.
                b' ' | b'\t' | b'\n' | b'\r' => self.pos = after_spaces(self.src, self.pos + 1),
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

    fn value(&mut self) -> Read<S::Value> {
        let offset = self.pos as u32;
        let scalar = match self.peek() {
            Some(b'{') => return self.object(),
            Some(b'[') => return self.array(false),
            Some(b'"') => Scalar::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => Scalar::Number(self.number()?),
            Some(b't') => self.literal("true", Scalar::Bool(true))?,
            Some(b'f') => self.literal("false", Scalar::Bool(false))?,
            Some(b'n') => self.literal("null", Scalar::Null)?,
            _ => return Err(self.unexpected_instead_of_value()),
        };
        Ok(self.sink.scalar(offset, scalar))
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

    fn object(&mut self) -> Read<S::Value> {
        let offset = self.pos as u32;
        self.enter()?;
        self.pos += 1; // '{'
        let mut object = self.sink.begin_object(offset);
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
            self.sink.key(key_offset, &key);
            self.skip_blank()?;
            if self.peek() != Some(b':') {
                return Err(self
                    .error(format!("expected ':' after the key \"{key}\", found {}", self.describe_here()))
                    .in_segment(Segment::Key(key.into_owned())));
            }
            self.pos += 1;
            self.skip_blank()?;
            self.sink.enter(Step::Key(&key));
            let value =
                if key == "children" && self.peek() == Some(b'[') { self.children_array() } else { self.value() };
            self.sink.leave();
            let value = match value {
                Ok(value) => value,
                Err(e) => return Err(e.in_segment(Segment::Key(key.into_owned()))),
            };
            if let Some(key) = self.sink.member(&mut object, key, key_offset, value) {
                self.duplicates.push(DuplicateKey { key: key.into_owned(), offset: key_offset });
            }
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
                    let last = self.sink.last_key(&object);
                    return Err(error.in_segment(Segment::Key(last)));
                }
            }
        }
        self.depth -= 1;
        Ok(self.sink.end_object(offset, object))
    }

    /// The array value of a `children` key: recorded, deferred or read as any array.
    fn children_array(&mut self) -> Read<S::Value> {
        let start = self.pos as u32;
        let deferred_end = match &self.children {
            ChildrenArrays::Defer(spans) if self.depth == 1 => {
                spans.binary_search_by_key(&start, |(s, _)| *s).ok().map(|i| spans[i].1)
            }
            _ => None,
        };
        if let Some(end) = deferred_end {
            self.pos = end as usize;
            let array = self.sink.begin_array(start);
            return Ok(self.sink.end_array(start, array));
        }
        let slot = match &mut self.children {
            ChildrenArrays::Record(record) => {
                record.spans.push((start, start));
                Some(record.spans.len() - 1)
            }
            _ => None,
        };
        let value = self.array(slot.is_some())?;
        if let (Some(slot), ChildrenArrays::Record(record)) = (slot, &mut self.children) {
            record.spans[slot].1 = self.pos as u32;
        }
        Ok(value)
    }

    /// Reads an array; the items of a `children` array are counted when recording.
    fn array(&mut self, count_items: bool) -> Read<S::Value> {
        let offset = self.pos as u32;
        self.enter()?;
        self.pos += 1; // '['
        let mut array = self.sink.begin_array(offset);
        let mut len = 0;
        loop {
            self.skip_blank()?;
            if self.peek() == Some(b']') {
                self.pos += 1;
                break;
            }
            if count_items && let ChildrenArrays::Record(record) = &mut self.children {
                record.items += 1;
                if record.items > record.item_limit && record.past_limit.is_none() {
                    record.past_limit = Some(self.pos as u32);
                }
            }
            self.sink.enter(Step::Index(len));
            let item = self.value();
            self.sink.leave();
            let item = match item {
                Ok(item) => item,
                Err(e) => return Err(e.in_segment(Segment::Index(len))),
            };
            self.sink.item(&mut array, item);
            len += 1;
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
                    return Err(error.in_segment(Segment::Index(len - 1)));
                }
            }
        }
        self.depth -= 1;
        Ok(self.sink.end_array(offset, array))
    }

    fn literal(&mut self, word: &'static str, value: Scalar<'a>) -> Read<Scalar<'a>> {
        if self.src[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.unexpected_instead_of_value())
        }
    }

    fn number(&mut self) -> Read<f64> {
        let start = self.pos;
        let digits = |r: &mut Self| {
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
        // Whole numbers of up to 15 digits (most of a design's: sizes, places) are exact as
        // f64 and summed digit by digit, without the general parse.
        if int_digits <= 15 && self.pos == int_start + int_digits {
            let whole = self.src[int_start..self.pos].iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
            let value = whole as f64;
            return Ok(if start == int_start { value } else { -value });
        }
        match literal.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(value),
            _ => Err(self
                .error_at(start, format!("the number {literal} is too large"))
                .with_hint("numbers must fit a 64-bit float (about ±1.8e308)")),
        }
    }

    /// Reads a string; one without escapes borrows from the text.
    fn string(&mut self) -> Read<Cow<'a, str>> {
        let start = self.pos;
        self.pos += 1; // opening quote
        let mut out: Option<String> = None;
        let mut plain_from = self.pos;
        loop {
            let Some(byte) = self.peek() else {
                return Err(self
                    .error_at(start, "unterminated string".into())
                    .with_hint("close the string with a double quote"));
            };
            match byte {
                b'"' => {
                    let plain = &self.text[plain_from..self.pos];
                    self.pos += 1;
                    return Ok(match out {
                        None => Cow::Borrowed(plain),
                        Some(mut out) => {
                            out.push_str(plain);
                            Cow::Owned(out)
                        }
                    });
                }
                b'\\' => {
                    let out = out.get_or_insert_with(String::new);
                    out.push_str(&self.text[plain_from..self.pos]);
                    self.escape(out)?;
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
                // A character of the stand-ins' range, as it is: F4 8F A0–BF in UTF-8.
                0xF4 if self.src.get(self.pos + 1) == Some(&0x8F)
                    && self.src.get(self.pos + 2).is_some_and(|b| *b >= 0xA0) =>
                {
                    self.note_stand_in(self.pos);
                    self.pos += 1;
                }
                _ => self.pos = after_plain(self.src, self.pos + 1),
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
                let low = if (0xD800..0xDC00).contains(&first) { self.low_half(at)? } else { None };
                match low {
                    Some(low) => {
                        let code = 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00);
                        let c = char::from_u32(code).unwrap_or('\u{fffd}');
                        if surrogates::STAND_INS.contains(&c) {
                            self.note_stand_in(at);
                        }
                        c
                    }
                    // Half a pair alone, as JavaScript keeps it: its stand-in, which the
                    // writer of .pen text turns back into this escape.
                    None => match surrogates::stand_in(first) {
                        Some(stand_in) => stand_in,
                        None => char::from_u32(first).unwrap_or('\u{fffd}'),
                    },
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

    /// The low half of a pair when the next escape is one (it is then read); otherwise the
    /// high half before it stands alone and nothing more is read.
    fn low_half(&mut self, escape_at: usize) -> Read<Option<u32>> {
        if !self.src[self.pos..].starts_with(b"\\u") {
            return Ok(None);
        }
        let start = self.pos;
        self.pos += 2;
        let low = self.hex4(escape_at)?;
        if (0xDC00..0xE000).contains(&low) {
            return Ok(Some(low));
        }
        self.pos = start;
        Ok(None)
    }

    /// Notes the first real character of the range that stands for half pairs (a file that
    /// holds one would save it as a half: loading says so).
    fn note_stand_in(&mut self, at: usize) {
        self.first_stand_in.get_or_insert(at as u32);
    }
}

/// Finds repeated keys while an object is read. Objects in documents are small, and a linear
/// scan beats hashing for them; an object that grows wide gets a hash index, so a file with a
/// hundred thousand keys in one object does not take quadratic time.
#[derive(Default)]
pub(crate) struct MemberIndex(Option<std::collections::HashMap<String, usize>>);

/// Members beyond which an object is indexed by hash.
const LINEAR_MEMBERS: usize = 32;

impl MemberIndex {
    /// The position of `key` among `members`.
    pub fn find<T>(&self, members: &[T], key_of: impl Fn(&T) -> &str, key: &str) -> Option<usize> {
        match &self.0 {
            Some(map) => map.get(key).copied(),
            None => members.iter().position(|m| key_of(m) == key),
        }
    }

    /// Notes that `key` is added after `members` (whose keys are all distinct).
    pub fn add<T>(&mut self, members: &[T], key_of: impl Fn(&T) -> &str, key: &str) {
        if self.0.is_none() && members.len() >= LINEAR_MEMBERS {
            self.0 = Some(members.iter().enumerate().map(|(i, m)| (key_of(m).to_owned(), i)).collect());
        }
        if let Some(map) = &mut self.0 {
            map.insert(key.to_owned(), members.len());
        }
    }
}

/// Eight bytes of `src` from `at` as one word, when there are eight.
fn word_at(src: &[u8], at: usize) -> Option<u64> {
    src.get(at..at + 8).map(|bytes| u64::from_le_bytes(bytes.try_into().expect("eight bytes")))
}

/// Each byte of a word set to `byte`.
const fn repeated(byte: u8) -> u64 {
    u64::from_le_bytes([byte; 8])
}

/// The high bit of each byte of `word` that is below `limit` (at most 128) — exact for the
/// lowest such byte, which is all [`after_spaces`] and [`after_plain`] look at.
const fn below(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(repeated(limit)) & !word & repeated(0x80)
}

/// The first position from `at` that is not a space, eight bytes at a time.
fn after_spaces(src: &[u8], mut at: usize) -> usize {
    while let Some(word) = word_at(src, at) {
        let other = word ^ repeated(b' ');
        if other != 0 {
            return at + (other.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while src.get(at) == Some(&b' ') {
        at += 1;
    }
    at
}

/// The first position from `at` of a byte a string's reader must look at — a quote, a
/// backslash, a control character or the first byte of a stand-in (0xF4) — eight bytes at a
/// time; a shorter rest of the text is left to the byte-by-byte reader.
fn after_plain(src: &[u8], mut at: usize) -> usize {
    while let Some(word) = word_at(src, at) {
        let special = below(word ^ repeated(b'"'), 1)
            | below(word ^ repeated(b'\\'), 1)
            | below(word ^ repeated(0xF4), 1)
            | below(word, 0x20);
        if special != 0 {
            return at + (special.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time scans stop where a byte-by-byte scan would (or, for strings, where
    /// fewer than eight bytes are left), over random texts of the bytes that matter.
    #[test]
    fn the_word_scans_stop_where_byte_scans_stop() {
        let bytes = [b' ', b' ', b' ', b'a', b'"', b'\\', 0x00, 0x1F, 0x20, 0x7F, 0x80, 0xC3, 0xF4, 0xFF, b'\n'];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let special = |b: u8| b == b'"' || b == b'\\' || b < 0x20 || b == 0xF4;
        for _ in 0..3000 {
            let len = (next() % 40) as usize;
            let src: Vec<u8> = (0..len).map(|_| bytes[(next() % bytes.len() as u64) as usize]).collect();
            for at in 0..=len {
                let spaces = src[at..].iter().position(|b| *b != b' ').map_or(len, |n| at + n);
                assert_eq!(after_spaces(&src, at), spaces, "{src:?} from {at}");
                let stop = after_plain(&src, at);
                assert!(src[at..stop].iter().all(|b| !special(*b)), "{src:?} from {at}: passed a special byte");
                assert!(stop == len || special(src[stop]) || len - stop < 8, "{src:?} from {at}: stopped at {stop}");
            }
        }
    }

    /// Whole numbers read digit by digit are the numbers the general parse gives.
    #[test]
    fn whole_numbers_read_as_the_general_parse_reads_them() {
        for literal in
            ["0", "-0", "7", "-12", "1440", "999999999999999", "-999999999999999", "1234567890123456", "12.5", "1e3"]
        {
            let read = value(literal);
            let Json { value: JsonValue::Number(number), .. } = read else { panic!("{literal}: {read:?}") };
            let expected: f64 = literal.parse().expect("a number");
            assert_eq!(number.to_bits(), expected.to_bits(), "{literal}");
        }
    }

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
        for bad in ["01", "1.", "-", "1e", "1e999", "+1", ".5", "tru", "\"\\x\"", "\"a\nb\"", "{} {}", "/* open"] {
            assert!(parse(bad).is_err(), "{bad:?} should fail");
        }
    }

    #[test]
    fn half_pairs_are_read_as_javascript_reads_them() {
        let read = |text: &str| match parse(text).unwrap().value.unwrap().value {
            JsonValue::String(s) => s,
            other => panic!("{other:?}"),
        };
        let half = |unit| surrogates::stand_in(unit).unwrap();
        assert_eq!(read(r#""\ud800""#), half(0xD800).to_string());
        assert_eq!(read(r#""a\uDC00b""#), format!("a{}b", half(0xDC00)));
        // A high half before an escape that is not a low half stands alone; the escape is read.
        assert_eq!(read(r#""\ud800\u0041""#), format!("{}A", half(0xD800)));
        assert_eq!(read(r#""\ud800\ud83d\ude00""#), format!("{}😀", half(0xD800)));
        assert_eq!(read(r#""\ud800\ud800""#), format!("{}{}", half(0xD800), half(0xD800)));
        // A whole pair is one character, as before; a broken escape is still an error.
        assert_eq!(read(r#""\ud83d\ude00""#), "😀");
        assert!(parse(r#""\ud800\u12""#).is_err());
    }

    #[test]
    fn a_real_character_of_the_stand_ins_range_is_noted() {
        for text in ["\"\u{10F800}\"", r#""\udbfe\udc00""#] {
            let outline = super::super::outline(text, 10).unwrap();
            assert_eq!(outline.first_stand_in, Some(1), "{text}");
        }
        let outline = super::super::outline("\"\\ud800 \u{10F7FF} 😀\"", 10).unwrap();
        assert_eq!(outline.first_stand_in, None);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        let e = error(&deep);
        assert!(e.message.contains("nesting"));
    }
}
