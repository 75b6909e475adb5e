//! Reading a document in two passes, so that no tree of the whole file is ever built.
//!
//! The first pass, [`outline`], checks the whole text (every syntax error is found before any
//! value is built, exactly as a full read finds it), notes the repeated keys and the first
//! comment, and records where every `children` array starts and ends. The second pass reads
//! one node object at a time with [`read_outer`], its `children` array left unread, and walks
//! such an array item by item with [`Items`]: only the node being converted is ever a
//! [`Json`] tree, and every byte is read twice in all.

use std::borrow::Cow;

use super::read::{ChildrenArrays, ChildrenRecord, MemberIndex, Reader, Sink, Tree};
use super::{DuplicateKey, Json, SyntaxError};

/// What the first pass found in a text.
#[derive(Debug, Default)]
pub struct Outline {
    /// Offset of the top-level value; `None` when the text holds only whitespace and comments.
    pub root: Option<u32>,
    /// Keys that occur more than once in the same object.
    pub duplicate_keys: Vec<DuplicateKey>,
    /// Byte offset of the first comment, if the text has any.
    pub first_comment: Option<u32>,
    /// Byte offset of the first string holding a real character of the range that stands for
    /// half UTF-16 pairs (see [`super::surrogates`]), if any.
    pub first_stand_in: Option<u32>,
    /// Items of all arrays that are the value of a key `children`: the nodes of a document,
    /// those in instance overrides included.
    pub children_items: usize,
    /// Where the first item beyond the `item_limit` given to [`outline`] starts.
    pub past_limit: Option<u32>,
    /// (offset of `[`, offset past `]`) of every `children` array, sorted by start.
    spans: Vec<(u32, u32)>,
}

/// Checks `text` as JSON with comments without building anything, and outlines it. Items of
/// `children` arrays beyond `item_limit` are noted in [`Outline::past_limit`] (the text is
/// still checked to the end, so a syntax error anywhere comes first).
pub fn outline(text: &str, item_limit: usize) -> Result<Outline, SyntaxError> {
    outline_with(text, item_limit, Check::default()).map(|(outline, _)| outline)
}

/// Like [`outline`], also noting every string value of a key `id` or `ref` with where it
/// starts: which top-level nodes hold a node, and which components they use, can then be told
/// without reading them (see `Document::load_excerpt`). The strings are those a full read
/// gives (escapes decoded), so nothing written differently is missed.
pub(crate) fn outline_with_names(text: &str, item_limit: usize) -> Result<(Outline, Vec<Name<'_>>), SyntaxError> {
    let check = Check { names: Some(Vec::new()), ..Check::default() };
    outline_with(text, item_limit, check).map(|(outline, names)| (outline, names.unwrap_or_default()))
}

fn outline_with<'a>(
    text: &'a str,
    item_limit: usize,
    check: Check<'a>,
) -> Result<(Outline, Option<Vec<Name<'a>>>), SyntaxError> {
    let mut reader = Reader::new(text, check)?;
    reader.children = ChildrenArrays::Record(ChildrenRecord { item_limit, ..ChildrenRecord::default() });
    let root = reader.whole_text()?.flatten();
    let ChildrenArrays::Record(record) = std::mem::take(&mut reader.children) else {
        unreachable!("the reader keeps the mode it was given")
    };
    let names = reader.sink.names.take();
    let outline = Outline {
        root,
        duplicate_keys: reader.duplicates,
        first_comment: reader.first_comment,
        first_stand_in: reader.first_stand_in,
        children_items: record.items,
        past_limit: record.past_limit,
        spans: record.spans,
    };
    Ok((outline, names))
}

/// A string value of a key `id` or `ref`, wherever it is in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Name<'a> {
    /// Byte offset of the string's opening quote.
    pub offset: u32,
    /// Which key it is the value of.
    pub kind: NameKind,
    /// The string, escapes decoded.
    pub value: Cow<'a, str>,
}

/// The keys whose values [`outline_with_names`] notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// `"id"`: a node's id (or an id inside other values, which only widens what is read).
    Id,
    /// `"ref"`: the component an instance copies.
    Ref,
}

/// Reads the value at `offset` of a text that [`outline`] accepted. When it is an object, the
/// value of its `children` key (if an array) is left unread: it reads as an empty array at the
/// array's offset, whose items [`Items`] gives.
pub(crate) fn read_outer(text: &str, outline: &Outline, offset: u32) -> Result<Json, SyntaxError> {
    let mut reader = Reader::at(text, offset, Tree);
    reader.children = ChildrenArrays::Defer(&outline.spans);
    reader.next_value()
}

/// The items of the array at an offset of a text that [`outline`] accepted, each read as
/// [`read_outer`] reads a value.
pub struct Items<'a, 'o> {
    reader: Reader<'a, 'o, Tree>,
    first: bool,
    done: bool,
}

impl<'a, 'o> Items<'a, 'o> {
    /// The items of the array whose `[` is at `offset`.
    pub fn new(text: &'a str, outline: &'o Outline, offset: u32) -> Items<'a, 'o> {
        let mut reader = Reader::at(text, offset, Tree);
        reader.children = ChildrenArrays::Defer(&outline.spans);
        Items { reader, first: true, done: false }
    }
}

impl Items<'_, '_> {
    /// Where the reader is: just past the item given last (or past the array once it is done).
    pub fn position(&self) -> u32 {
        self.reader.position()
    }
}

impl Iterator for Items<'_, '_> {
    type Item = Result<Json, SyntaxError>;

    fn next(&mut self) -> Option<Result<Json, SyntaxError>> {
        if self.done {
            return None;
        }
        let first = std::mem::replace(&mut self.first, false);
        let item = match self.reader.next_item(first) {
            Ok(true) => self.reader.next_value(),
            Ok(false) => {
                self.done = true;
                return None;
            }
            Err(error) => Err(error),
        };
        self.done = item.is_err();
        Some(item)
    }
}

/// Checks without building: the value of a read is its offset, and the keys of the objects
/// being read share one stack (an object's keys are dropped when it ends), so a check
/// allocates nothing for objects of ordinary width.
#[derive(Default)]
struct Check<'a> {
    keys: Vec<Cow<'a, str>>,
    /// The names noted, when asked for.
    names: Option<Vec<Name<'a>>>,
    /// The key just read is `id` or `ref` (while names are noted): its value is noted if it is
    /// a string.
    naming: Option<NameKind>,
}

impl<'a> Sink<'a> for Check<'a> {
    type Value = Option<u32>;
    type Object = (usize, MemberIndex);
    type Array = ();

    fn scalar(&mut self, offset: u32, scalar: super::read::Scalar<'a>) -> Option<u32> {
        if let Some(kind) = self.naming.take()
            && let (Some(names), super::read::Scalar::String(value)) = (&mut self.names, scalar)
        {
            names.push(Name { offset, kind, value });
        }
        Some(offset)
    }

    fn key(&mut self, _offset: u32, key: &str) {
        if self.names.is_some() {
            self.naming = match key {
                "id" => Some(NameKind::Id),
                "ref" => Some(NameKind::Ref),
                _ => None,
            };
        }
    }

    fn begin_object(&mut self, _offset: u32) -> Self::Object {
        self.naming = None;
        (self.keys.len(), MemberIndex::default())
    }

    fn member(
        &mut self,
        (start, index): &mut Self::Object,
        key: Cow<'a, str>,
        _key_offset: u32,
        _value: Option<u32>,
    ) -> Option<Cow<'a, str>> {
        let keys = &self.keys[*start..];
        if index.find(keys, |k| k, &key).is_some() {
            return Some(key);
        }
        index.add(keys, |k| k, &key);
        self.keys.push(key);
        None
    }

    fn last_key(&self, (start, _): &Self::Object) -> String {
        self.keys[*start..].last().map(|k| k.clone().into_owned()).unwrap_or_default()
    }

    fn end_object(&mut self, offset: u32, (start, _): Self::Object) -> Option<u32> {
        self.keys.truncate(start);
        Some(offset)
    }

    fn begin_array(&mut self, _offset: u32) {
        self.naming = None;
    }

    fn item(&mut self, _array: &mut (), _value: Option<u32>) {}

    fn end_array(&mut self, offset: u32, _array: ()) -> Option<u32> {
        Some(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::json::{JsonValue, parse};

    const DOC: &str = r#"// a comment
{"version": "2.11", "children": [
  {"type": "frame", "id": "a", "children": [{"type": "text", "id": "t", "x": 1, "x": 2}], "name": "A"},
  {"type": "ref", "id": "r", "ref": "a", "descendants": {"t": {"children": [{"type": "text", "id": "u"}]}}}
]}"#;

    #[test]
    fn the_outline_finds_what_a_full_read_finds() {
        let outline = outline(DOC, usize::MAX).unwrap();
        let parsed = parse(DOC).unwrap();
        assert_eq!(outline.duplicate_keys, parsed.duplicate_keys);
        assert_eq!(outline.first_comment, parsed.first_comment);
        assert_eq!(outline.root, parsed.value.map(|v| v.offset));
        // Two nodes at the top, one in the frame, one in the overrides.
        assert_eq!((outline.children_items, outline.past_limit), (4, None));
    }

    #[test]
    fn items_past_the_limit_are_noted_where_they_start() {
        let outline = outline(DOC, 2).unwrap();
        assert_eq!(outline.past_limit, Some(DOC.find("{\"type\": \"ref\"").unwrap() as u32));
    }

    #[test]
    fn syntax_errors_are_those_of_a_full_read() {
        for bad in [
            "{\"children\": [{\"id\": \"a\" \"type\": \"frame\"}]}",
            "{\"a\": 1, \"b\": 2, \"a\": 3 \"c\": 4}",
            "{\"a\": [1, 2",
            "{\"a\\u0041\": 1, \"aA\": 2,}}",
            "[1, 2] x",
        ] {
            assert_eq!(outline(bad, usize::MAX).unwrap_err(), parse(bad).unwrap_err(), "{bad}");
        }
    }

    #[test]
    fn nodes_are_read_one_at_a_time_with_their_children_left_unread() {
        let outline = outline(DOC, usize::MAX).unwrap();
        let root = read_outer(DOC, &outline, outline.root.unwrap()).unwrap();
        let children = root.get("children").unwrap();
        assert!(matches!(&children.value, JsonValue::Array(items) if items.is_empty()));
        let tops: Vec<Json> = Items::new(DOC, &outline, children.offset).map(Result::unwrap).collect();
        assert_eq!(tops.len(), 2);
        assert_eq!(tops[0].get("name").and_then(Json::as_str), Some("A"));
        let inner = tops[0].get("children").unwrap();
        let texts: Vec<Json> = Items::new(DOC, &outline, inner.offset).map(Result::unwrap).collect();
        assert_eq!(texts[0].get("x").map(|x| x.value.clone()), Some(JsonValue::Number(2.0)));
        // Children deeper than the node read are values like any other.
        let overrides = tops[1].get("descendants").and_then(|d| d.get("t")).and_then(|t| t.get("children"));
        assert!(matches!(overrides.map(|c| &c.value), Some(JsonValue::Array(items)) if items.len() == 1));
    }
}
