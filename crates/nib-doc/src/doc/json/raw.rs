//! JSON kept as text: the values nib stores but does not interpret.
//!
//! A tree of [`Json`] values costs some 40 bytes per value and a heap block per string and
//! container, so a file of deeply nested or very wide unknown values would take a hundred times
//! its size. [`RawJson`] holds such a value as the compact text `JSON.stringify` makes of it,
//! about as many bytes as the file spends on it, and writes it back by streaming that text
//! through a [`JsonWriter`].

use std::fmt;

use super::{Json, JsonWriter};

/// A JSON value held as compact text, members in the order JavaScript enumerates them.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RawJson(Box<str>);

impl RawJson {
    /// The value as compact text.
    pub fn from_json(json: &Json) -> RawJson {
        let mut w = JsonWriter::compact();
        json.write(&mut w);
        RawJson(w.finish().into_boxed_str())
    }

    /// The compact text, exactly as `JSON.stringify(value)` prints it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value as a tree (its offsets are those in the compact text).
    pub fn to_json(&self) -> Json {
        // The text was written by the compact writer: it always reads back.
        super::parse(&self.0).ok().and_then(|parsed| parsed.value).unwrap_or(Json::new(super::JsonValue::Null))
    }

    /// A short name of the value's kind, for messages ("an array").
    pub fn kind_name(&self) -> &'static str {
        match self.0.as_bytes().first() {
            Some(b'{') => "an object",
            Some(b'[') => "an array",
            Some(b'"') => "a string",
            Some(b't' | b'f') => "a boolean",
            Some(b'n') | None => "null",
            Some(_) => "a number",
        }
    }

    /// Writes the value through `w`, which may indent it.
    pub fn write(&self, w: &mut JsonWriter) {
        let text = &*self.0;
        let bytes = text.as_bytes();
        let mut pos = 0;
        // Compact text has no whitespace: a token is a bracket, a separator, a string (a key
        // when a ':' follows it) or a scalar running to the next separator.
        while pos < bytes.len() {
            match bytes[pos] {
                b'{' => w.begin_object(),
                b'[' => w.begin_array(),
                b'}' => w.end_object(),
                b']' => w.end_array(),
                b',' => {}
                b'"' => {
                    let end = string_end(bytes, pos);
                    if bytes.get(end) == Some(&b':') {
                        w.raw_key(&text[pos..end]);
                        pos = end + 1;
                    } else {
                        w.raw_scalar(&text[pos..end]);
                        pos = end;
                    }
                    continue;
                }
                _ => {
                    let end = bytes[pos..]
                        .iter()
                        .position(|b| matches!(b, b',' | b']' | b'}'))
                        .map_or(bytes.len(), |n| pos + n);
                    w.raw_scalar(&text[pos..end]);
                    pos = end;
                    continue;
                }
            }
            pos += 1;
        }
    }
}

/// The offset just past the string that starts at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut pos = start + 1;
    while pos < bytes.len() {
        match bytes[pos] {
            b'\\' => pos += 2,
            b'"' => return pos + 1,
            _ => pos += 1,
        }
    }
    bytes.len()
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&Json> for RawJson {
    fn from(json: &Json) -> RawJson {
        RawJson::from_json(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> RawJson {
        RawJson::from_json(&super::super::parse(text).unwrap().value.unwrap())
    }

    #[test]
    fn writes_back_what_the_tree_writes() {
        for text in [
            r#"{"a": [1, 2.5, -0, 1e21, {"b": "x,y]}\"", "": {}}], "c": [], "d": null, "e": true}"#,
            r#"[[[["deep"]]], {"k:": "v", "2": 1, "1": [false]}]"#,
            r#""just a string""#,
            "12",
            r#"{"a": {"b": {"c": [{}, []]}}}"#,
        ] {
            let tree = super::super::parse(text).unwrap().value.unwrap();
            for pretty in [true, false] {
                let (mut a, mut b) = if pretty {
                    (JsonWriter::new(), JsonWriter::new())
                } else {
                    (JsonWriter::compact(), JsonWriter::compact())
                };
                tree.write(&mut a);
                raw(text).write(&mut b);
                assert_eq!(a.finish(), b.finish(), "{text}");
            }
            // The tree read back enumerates members as JavaScript does; it prints the same.
            assert_eq!(raw(text).to_json().to_pretty_string(), tree.to_pretty_string());
        }
    }

    #[test]
    fn nested_values_cost_their_text() {
        let deep = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        assert_eq!(raw(&deep).as_str().len(), 201);
        assert_eq!(raw(&deep).kind_name(), "an array");
    }
}
