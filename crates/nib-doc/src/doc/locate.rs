//! Turns byte offsets into locations people and agents can use: line, column, JSON pointer and
//! the id of the enclosing node.
//!
//! Offsets are all the loader records on its fast path; this work runs only when there is an
//! error or a problem to report.

use std::borrow::Cow;

use super::error::Location;
use super::json::read::{Reader, Scalar, Sink, Step};
use super::json::{Json, JsonValue, escape_pointer_token};

/// 1-based line and column (in characters) of `offset` in `text`.
pub fn line_column(text: &str, offset: u32) -> (u32, u32) {
    let mut offset = (offset as usize).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line as u32, column as u32)
}

/// Lines and columns of many offsets (a file with a hundred thousand problems must not be read
/// a hundred thousand times).
fn line_columns(text: &str, offsets: &[u32]) -> Vec<(u32, u32)> {
    let index = LineIndex::new(text);
    offsets.iter().map(|offset| index.line_column(*offset as usize)).collect()
}

/// Bytes between two checkpoints of [`LineIndex`]: a column is found by reading at most this
/// many bytes, however long the line (a script can be one line of 256 KiB).
const CHECKPOINT_BYTES: usize = 64;

/// Where the lines of a text start, and how many characters come before every
/// [`CHECKPOINT_BYTES`]th byte: built in one pass, then each line and column is found without
/// reading the text from its start.
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offsets where lines start, the first line at 0.
    line_starts: Vec<usize>,
    /// Characters before byte `i × CHECKPOINT_BYTES`.
    chars_before: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Reads `text` once.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut line_starts = vec![0];
        let mut chars_before = Vec::with_capacity(text.len() / CHECKPOINT_BYTES + 1);
        let mut chars = 0;
        for (position, byte) in text.bytes().enumerate() {
            if position % CHECKPOINT_BYTES == 0 {
                chars_before.push(chars);
            }
            if byte == b'\n' {
                line_starts.push(position + 1);
            }
            chars += usize::from(starts_char(byte));
        }
        if text.len() % CHECKPOINT_BYTES == 0 {
            // The end of the text is an offset too.
            chars_before.push(chars);
        }
        LineIndex { text, line_starts, chars_before }
    }

    /// 1-based line and column (in characters) of a byte offset; an offset inside a character
    /// counts as that character's start, one past the end as the end.
    pub fn line_column(&self, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|start| *start <= offset);
        let line_start = self.line_starts[line - 1];
        let column = self.chars_before(offset) - self.chars_before(line_start) + 1;
        (line as u32, column as u32)
    }

    /// Characters that start before byte `offset`.
    fn chars_before(&self, offset: usize) -> usize {
        // `new` keeps a checkpoint for every offset up to the end; the `min` only guards.
        let checkpoint = (offset / CHECKPOINT_BYTES).min(self.chars_before.len().saturating_sub(1));
        let counted = self.chars_before.get(checkpoint).copied().unwrap_or(0);
        let from = checkpoint * CHECKPOINT_BYTES;
        counted + self.text.as_bytes()[from..offset].iter().filter(|b| starts_char(**b)).count()
    }
}

/// True for the first byte of a UTF-8 character (not a continuation byte).
fn starts_char(byte: u8) -> bool {
    byte & 0xC0 != 0x80
}

/// Locations of `offsets` in `text`, which must be valid JSON (it was loaded before). One
/// pass over the text, building no tree: it follows the path to each offset as it goes.
pub(crate) fn locate_all(text: &str, offsets: &[u32]) -> Vec<Location> {
    let mut targets: Vec<u32> = offsets.to_vec();
    targets.sort_unstable();
    targets.dedup();
    let mut locator = Locator { targets: &targets, next: 0, path: Vec::new(), found: Vec::new(), pending: Vec::new() };
    locator.found.resize(targets.len(), None);
    let mut reader = match Reader::new(text, locator) {
        Ok(reader) => reader,
        Err(_) => return offsets.iter().zip(line_columns(text, offsets)).map(plain_location).collect(),
    };
    let complete = reader.whole_text().is_ok();
    let found = reader.sink.found;
    offsets
        .iter()
        .zip(line_columns(text, offsets))
        .map(|(offset, (line, column))| {
            let mut location = Location { line, column, ..Location::default() };
            let index = targets.binary_search(offset).ok();
            if complete && let Some(Some((pointer, node_id))) = index.map(|i| &found[i]) {
                location.pointer = pointer.clone();
                location.node_id = node_id.clone();
            }
            location
        })
        .collect()
}

fn plain_location((_, (line, column)): (&u32, (u32, u32))) -> Location {
    Location { line, column, ..Location::default() }
}

/// The JSON pointer of the value (or key) starting at `offset` inside `root`.
pub fn pointer_in(root: &Json, offset: u32) -> Option<String> {
    let mut path = Vec::new();
    let mut node_id = None;
    find(root, offset, &mut path, &mut node_id).then(|| path.iter().map(|segment| format!("/{segment}")).collect())
}

impl crate::diagnostic::Diagnostic {
    /// Looks up the line and column of its pointer in `text`, the file's contents.
    pub fn locate(&mut self, text: &str) {
        if let Some(span) = &mut self.span
            && span.line_column.is_none()
        {
            span.line_column =
                locate_pointer(text, &span.pointer).map(|location| (location.line as usize, location.column as usize));
        }
    }
}

/// Where the value at `pointer` (RFC 6901, such as `/children/0/children/3`) starts in `text`,
/// the source of a loaded document, with the id of the innermost node on the way (the value
/// itself included); `None` when the text does not hold that value. One pass, no tree.
pub fn locate_pointer(text: &str, pointer: &str) -> Option<Location> {
    let tokens: Vec<String> = pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect();
    let finder = PointerFinder { tokens: &tokens, depth: 0, matched: 0, found: None, node_id: None };
    let mut reader = Reader::new(text, finder).ok()?;
    reader.whole_text().ok()?;
    let finder = reader.sink;
    let offset = finder.found?;
    let (line, column) = line_column(text, offset);
    // The loop over a pointer's values never looks at the top-level value itself.
    let node_id = if tokens.is_empty() { None } else { finder.node_id };
    Some(Location { line, column, pointer: pointer.to_owned(), node_id })
}

/// Follows one pointer while the reader passes the text: `matched` leading steps of the path
/// the reader is on are those of the pointer.
struct PointerFinder<'t> {
    tokens: &'t [String],
    /// Steps of the path the reader is on.
    depth: usize,
    matched: usize,
    /// Where the value at the pointer starts (the last one, should a key repeat).
    found: Option<u32>,
    /// The innermost node object on the way to it.
    node_id: Option<String>,
}

impl PointerFinder<'_> {
    /// True when the reader is on the pointer's path (at the value or above it).
    fn on_path(&self) -> bool {
        self.matched == self.depth
    }

    fn pass(&mut self, offset: u32) {
        if self.on_path() && self.depth == self.tokens.len() {
            self.found = Some(offset);
            self.node_id = None;
        }
    }
}

/// An object on the way: whether it lies on the pointer's path, and whether it is a node.
struct PathObject<'a> {
    start: u32,
    on_path: bool,
    has_type: bool,
    id: Option<Cow<'a, str>>,
}

impl<'a> Sink<'a> for PointerFinder<'_> {
    type Value = Option<Cow<'a, str>>;
    type Object = PathObject<'a>;
    type Array = ();

    fn scalar(&mut self, offset: u32, scalar: Scalar<'a>) -> Self::Value {
        self.pass(offset);
        match scalar {
            Scalar::String(text) => Some(text),
            _ => None,
        }
    }

    fn begin_object(&mut self, offset: u32) -> PathObject<'a> {
        self.pass(offset);
        let on_path = self.on_path() && self.depth <= self.tokens.len();
        PathObject { start: offset, on_path, has_type: false, id: None }
    }

    fn member(
        &mut self,
        object: &mut PathObject<'a>,
        key: Cow<'a, str>,
        _: u32,
        value: Self::Value,
    ) -> Option<Cow<'a, str>> {
        match key.as_ref() {
            "type" => object.has_type = true,
            "id" => object.id = value,
            _ => {}
        }
        None
    }

    fn last_key(&self, _object: &PathObject<'a>) -> String {
        String::new()
    }

    fn end_object(&mut self, _offset: u32, object: PathObject<'a>) -> Self::Value {
        // Objects end innermost first: the first node around the value found is the one.
        if object.on_path
            && self.node_id.is_none()
            && self.found.is_some_and(|found| found >= object.start)
            && object.has_type
            && let Some(id) = object.id
        {
            self.node_id = Some(id.into_owned());
        }
        None
    }

    fn begin_array(&mut self, offset: u32) {
        self.pass(offset);
    }

    fn item(&mut self, _array: &mut (), _value: Self::Value) {}

    fn end_array(&mut self, _offset: u32, _array: ()) -> Self::Value {
        None
    }

    fn enter(&mut self, step: Step<'_, 'a>) {
        if self.on_path()
            && let Some(token) = self.tokens.get(self.depth)
            && match step {
                Step::Key(key) => key.as_ref() == token.as_str(),
                Step::Index(index) => token.parse::<usize>().is_ok_and(|t| t == index),
            }
        {
            self.matched += 1;
        }
        self.depth += 1;
    }

    fn leave(&mut self) {
        if self.matched == self.depth {
            self.matched -= 1;
        }
        self.depth -= 1;
    }
}

/// A step of the path the reader is on.
enum PathStep<'a> {
    Key(Cow<'a, str>),
    Index(usize),
}

/// Finds the pointer and the enclosing node of sorted offsets while the reader passes them. A
/// value or key is found where it starts; the node around it is the innermost object with a
/// `type` and a string `id`, known when that object ends.
struct Locator<'a, 't> {
    targets: &'t [u32],
    /// The first target not passed yet.
    next: usize,
    path: Vec<PathStep<'a>>,
    /// Per target: its pointer and node id.
    found: Vec<Option<(String, Option<String>)>>,
    /// Targets found whose node is not known yet, innermost last.
    pending: Vec<usize>,
}

/// An object being read: whether it is a node, and the targets found inside it start at
/// `pending` in [`Locator::pending`].
struct NodeObject<'a> {
    has_type: bool,
    id: Option<Cow<'a, str>>,
    pending: usize,
}

impl<'a> Locator<'a, '_> {
    /// Notes a value or key starting at `offset`; `key` is the key when it is one.
    fn pass(&mut self, offset: u32, key: Option<&str>) {
        while self.targets.get(self.next).is_some_and(|t| *t < offset) {
            self.next += 1;
        }
        if self.targets.get(self.next) != Some(&offset) {
            return;
        }
        let mut pointer = String::new();
        for step in &self.path {
            pointer.push('/');
            match step {
                PathStep::Key(key) => pointer.push_str(&escape_pointer_token(key)),
                PathStep::Index(index) => pointer.push_str(&index.to_string()),
            }
        }
        if let Some(key) = key {
            pointer.push('/');
            pointer.push_str(&escape_pointer_token(key));
        }
        self.found[self.next] = Some((pointer, None));
        self.pending.push(self.next);
        self.next += 1;
    }
}

impl<'a> Sink<'a> for Locator<'a, '_> {
    /// String values, to know node ids.
    type Value = Option<Cow<'a, str>>;
    type Object = NodeObject<'a>;
    type Array = ();

    fn scalar(&mut self, offset: u32, scalar: Scalar<'a>) -> Self::Value {
        self.pass(offset, None);
        match scalar {
            Scalar::String(text) => Some(text),
            _ => None,
        }
    }

    fn begin_object(&mut self, offset: u32) -> NodeObject<'a> {
        // The object itself belongs to the nodes around it, not to itself.
        self.pass(offset, None);
        NodeObject { has_type: false, id: None, pending: self.pending.len() }
    }

    fn member(
        &mut self,
        object: &mut NodeObject<'a>,
        key: Cow<'a, str>,
        _key_offset: u32,
        value: Self::Value,
    ) -> Option<Cow<'a, str>> {
        match key.as_ref() {
            "type" => object.has_type = true,
            // The last value counts, as with JSON.parse.
            "id" => object.id = value,
            _ => {}
        }
        None
    }

    fn last_key(&self, _object: &NodeObject<'a>) -> String {
        String::new()
    }

    fn end_object(&mut self, _offset: u32, object: NodeObject<'a>) -> Self::Value {
        if let (true, Some(id)) = (object.has_type, &object.id) {
            for target in self.pending.drain(object.pending..) {
                if let Some((_, node_id)) = &mut self.found[target] {
                    *node_id = Some(id.clone().into_owned());
                }
            }
        }
        None
    }

    fn begin_array(&mut self, offset: u32) {
        self.pass(offset, None);
    }

    fn item(&mut self, _array: &mut (), _value: Self::Value) {}

    fn end_array(&mut self, _offset: u32, _array: ()) -> Self::Value {
        None
    }

    fn key(&mut self, offset: u32, key: &str) {
        self.pass(offset, Some(key));
    }

    fn enter(&mut self, step: Step<'_, 'a>) {
        self.path.push(match step {
            Step::Key(key) => PathStep::Key(key.clone()),
            Step::Index(index) => PathStep::Index(index),
        });
    }

    fn leave(&mut self) {
        self.path.pop();
    }
}

/// Descends towards the value or key that starts at `target`, collecting pointer segments and
/// the innermost node id on the way. Values start at distinct offsets, and containers hold
/// their members in source order, so only one branch is followed.
fn find(json: &Json, target: u32, path: &mut Vec<String>, node_id: &mut Option<String>) -> bool {
    if json.offset == target {
        return true;
    }
    match &json.value {
        JsonValue::Object(members) => {
            if json.get("type").is_some()
                && let Some(id) = json.get("id").and_then(Json::as_str)
            {
                *node_id = Some(id.to_owned());
            }
            // Members are in source order: the target is the key of, or lies in, the last
            // member starting at or before it (a binary search keeps wide objects cheap).
            let Some(member) = members[..members.partition_point(|m| m.key_offset <= target)].last() else {
                return false;
            };
            path.push(escape_pointer_token(&member.key));
            if member.key_offset == target {
                return true;
            }
            let saved = node_id.clone();
            if find(&member.value, target, path, node_id) {
                return true;
            }
            *node_id = saved;
            path.pop();
            false
        }
        JsonValue::Array(items) => {
            let Some(index) = items.partition_point(|item| item.offset <= target).checked_sub(1) else {
                return false;
            };
            path.push(index.to_string());
            let saved = node_id.clone();
            if find(&items[index], target, path, node_id) {
                return true;
            }
            *node_id = saved;
            path.pop();
            false
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters() {
        let text = "{\n  \"a\": \"é\", \"b\": 1\n}";
        assert_eq!(line_column(text, 0), (1, 1));
        let b = text.find("\"b\"").unwrap() as u32;
        assert_eq!(line_column(text, b), (2, 13));
    }

    #[test]
    fn the_line_index_agrees_with_reading_from_the_start() {
        let text = "é\n\nab\u{1F600}c\n".repeat(40) + &"x".repeat(300) + "\u{e9}\u{e9}y";
        let index = LineIndex::new(&text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(index.line_column(offset), line_column(&text, offset as u32), "offset {offset}");
        }
        assert_eq!(LineIndex::new("").line_column(0), (1, 1));
    }

    #[test]
    fn columns_on_one_long_line_are_found_without_rereading_it() {
        // 256 KiB on one line and a column for every 4th byte: reading from the start each time
        // would be 8 billion bytes; each answer reads at most one checkpoint's worth.
        let text = "ab\u{e9}".repeat(256 * 1024 / 4);
        let index = LineIndex::new(&text);
        let mut last = (1, 0);
        for offset in (0..text.len()).step_by(4) {
            let found = index.line_column(offset);
            assert_eq!(found.0, 1);
            assert!(found.1 > last.1);
            last = found;
        }
        assert_eq!(index.line_column(text.len()), (1, text.chars().count() as u32 + 1));
    }

    #[test]
    fn pointers_and_node_ids_are_found() {
        let text = r#"{"children": [{"type": "frame", "id": "f1", "children": [{"type": "text", "id": "t1", "fill": "red"}]}]}"#;
        let red = text.find("\"red\"").unwrap() as u32;
        let key = text.find("\"fill\"").unwrap() as u32;
        let locations = locate_all(text, &[red, key]);
        assert_eq!(locations[0].pointer, "/children/0/children/0/fill");
        assert_eq!(locations[0].node_id.as_deref(), Some("t1"));
        assert_eq!(locations[1].pointer, "/children/0/children/0/fill");
    }

    #[test]
    fn a_pointer_leads_to_its_line_and_column() {
        let text = "{\"children\": [\n  {\"type\": \"frame\", \"id\": \"a/b~\", \"children\": [\n    {\"type\": \"text\", \"id\": \"t\"}]}]}";
        let location = locate_pointer(text, "/children/0/children/0").unwrap();
        assert_eq!((location.line, location.column, location.node_id.as_deref()), (3, 5, Some("t")));
        assert_eq!(locate_pointer(text, "").map(|l| (l.line, l.column)), Some((1, 1)));
        assert_eq!(locate_pointer(text, "/children/0/id").map(|l| l.node_id), Some(Some("a/b~".to_owned())));
        assert!(locate_pointer(text, "/children/7").is_none());
        assert!(locate_pointer(text, "/children/x").is_none());
    }
}
