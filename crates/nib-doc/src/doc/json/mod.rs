//! JSON as `.pen` files need it: a reader that keeps key order and source offsets and tolerates
//! comments, and a writer that prints exactly what `JSON.stringify(value, null, 2)` prints.
//!
//! serde_json is not used for documents because the loader needs byte offsets for every value
//! (errors point at a line and column), JavaScript's duplicate-key behaviour, comments, and
//! JavaScript number formatting on the way out.

mod meter;
mod number;
mod outline;
mod raw;
pub(crate) mod read;
pub mod surrogates;
mod write;

pub use meter::OverLimit;
pub(crate) use meter::WriteLimits;
pub use number::{js_number, write_js_number};
pub use outline::{Items, Name, Outline, outline};
pub(crate) use outline::{NameKind, outline_with_names, read_outer};
pub use raw::RawJson;
pub use read::{DuplicateKey, MAX_DEPTH, SyntaxError, escape_pointer_token, parse};
pub use write::{JsonWriter, write_js_string};

/// A JSON value together with the byte offset in the source where it starts.
#[derive(Debug, Clone)]
pub struct Json {
    /// Byte offset of the value's first character in the text it was read from.
    pub offset: u32,
    /// The value itself.
    pub value: JsonValue,
}

/// The kinds of JSON values. Numbers are `f64`, as in JavaScript.
#[derive(Debug, Clone)]
pub enum JsonValue {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// Any number (finite; the reader rejects overflowing literals).
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in source order (a repeated key keeps its first place, last value).
    Object(Vec<Member>),
}

/// One `"key": value` member of an object.
#[derive(Debug, Clone)]
pub struct Member {
    /// The key.
    pub key: String,
    /// Byte offset of the key's opening quote.
    pub key_offset: u32,
    /// The value.
    pub value: Json,
}

impl Json {
    /// A value that did not come from any source text (offset 0).
    pub fn new(value: JsonValue) -> Json {
        Json { offset: 0, value }
    }

    /// A short name of the value's kind, for error messages ("a string", "an object").
    pub fn kind_name(&self) -> &'static str {
        match &self.value {
            JsonValue::Null => "null",
            JsonValue::Bool(_) => "a boolean",
            JsonValue::Number(_) => "a number",
            JsonValue::String(_) => "a string",
            JsonValue::Array(_) => "an array",
            JsonValue::Object(_) => "an object",
        }
    }

    /// The member `key` when this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match &self.value {
            JsonValue::Object(members) => members.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }

    /// The number when this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match &self.value {
            JsonValue::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The string when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// Writes the value through `w`, members in JavaScript's enumeration order.
    pub fn write(&self, w: &mut JsonWriter) {
        match &self.value {
            JsonValue::Null => w.null(),
            JsonValue::Bool(b) => w.bool(*b),
            JsonValue::Number(n) => w.number(*n),
            JsonValue::String(s) => w.string(s),
            JsonValue::Array(items) => {
                w.begin_array();
                for item in items {
                    item.write(w);
                }
                w.end_array();
            }
            JsonValue::Object(members) => {
                w.begin_object();
                for i in js_enumeration_order(members.iter().map(|m| m.key.as_str())) {
                    w.key(&members[i].key);
                    members[i].value.write(w);
                }
                w.end_object();
            }
        }
    }

    /// The value printed as `JSON.stringify(value, null, 2)` would print it.
    #[cfg(test)]
    pub(crate) fn to_pretty_string(&self) -> String {
        let mut w = JsonWriter::new();
        self.write(&mut w);
        w.finish()
    }
}

/// Values compare by content; source offsets are ignored.
impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        self.value == other.value
    }
}

impl PartialEq for JsonValue {
    fn eq(&self, other: &JsonValue) -> bool {
        use JsonValue::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Number(a), Number(b)) => a == b,
            (String(a), String(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (Object(a), Object(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.key == y.key && x.value == y.value)
            }
            _ => false,
        }
    }
}

/// True for keys JavaScript treats as array indices ("0", "17", not "01" or "4294967295").
/// Objects enumerate those first, in ascending numeric order, whatever their insertion order.
pub(crate) fn is_array_index(key: &str) -> bool {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || !bytes.iter().all(u8::is_ascii_digit) {
        return false;
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return false;
    }
    key.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX))
}

/// The order in which JavaScript enumerates an object with these keys (in insertion order):
/// array-index keys first in ascending order, then every other key in insertion order.
pub(crate) fn js_enumeration_order<'a>(keys: impl Iterator<Item = &'a str> + Clone) -> Vec<usize> {
    let mut indexed: Vec<(u64, usize)> = keys
        .clone()
        .enumerate()
        .filter(|(_, k)| is_array_index(k))
        .map(|(i, k)| (k.parse::<u64>().unwrap_or(0), i))
        .collect();
    if indexed.is_empty() {
        return (0..keys.count()).collect();
    }
    indexed.sort_unstable();
    let mut order: Vec<usize> = indexed.iter().map(|(_, i)| *i).collect();
    order.extend(keys.enumerate().filter(|(_, k)| !is_array_index(k)).map(|(i, _)| i));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_index_keys_are_recognised_like_javascript() {
        assert!(is_array_index("0"));
        assert!(is_array_index("83412"));
        assert!(is_array_index("4294967294"));
        assert!(!is_array_index("4294967295"));
        assert!(!is_array_index("012"));
        assert!(!is_array_index("1a"));
        assert!(!is_array_index(""));
        assert!(!is_array_index("-1"));
    }

    #[test]
    fn objects_enumerate_index_keys_first() {
        let keys = ["b", "10", "a", "2"];
        assert_eq!(js_enumeration_order(keys.iter().copied()), vec![3, 1, 0, 2]);
        let plain = ["b", "a"];
        assert_eq!(js_enumeration_order(plain.iter().copied()), vec![0, 1]);
    }
}
