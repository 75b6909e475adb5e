//! Turns byte offsets into locations people and agents can use: line, column, JSON pointer and
//! the id of the enclosing node.
//!
//! Offsets are all the loader records on its fast path; this work runs only when there is an
//! error or a problem to report.

use super::error::Location;
use super::json::{self, Json, JsonValue, escape_pointer_token};

/// 1-based line and column (in characters) of `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: u32) -> (u32, u32) {
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
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    /// Byte offsets where lines start, the first line at 0.
    line_starts: Vec<usize>,
    /// Characters before byte `i × CHECKPOINT_BYTES`.
    chars_before: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Reads `text` once.
    pub(crate) fn new(text: &'a str) -> LineIndex<'a> {
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
    pub(crate) fn line_column(&self, offset: usize) -> (u32, u32) {
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

/// Locations of `offsets` in `text`, which must be valid JSON (it was loaded before).
pub(crate) fn locate_all(text: &str, offsets: &[u32]) -> Vec<Location> {
    let root = json::parse(text).ok().and_then(|parsed| parsed.value);
    offsets
        .iter()
        .zip(line_columns(text, offsets))
        .map(|(offset, (line, column))| {
            let mut location = Location { line, column, ..Location::default() };
            if let Some(root) = &root {
                let mut path = Vec::new();
                let mut node_id = None;
                if find(root, *offset, &mut path, &mut node_id) {
                    location.pointer = path.iter().map(|segment| format!("/{segment}")).collect();
                    location.node_id = node_id;
                }
            }
            location
        })
        .collect()
}

/// The JSON pointer of the value (or key) starting at `offset` inside `root`.
pub(crate) fn pointer_in(root: &Json, offset: u32) -> Option<String> {
    let mut path = Vec::new();
    let mut node_id = None;
    find(root, offset, &mut path, &mut node_id).then(|| path.iter().map(|segment| format!("/{segment}")).collect())
}

/// Where the value at `pointer` (RFC 6901, such as `/children/0/children/3`) starts in `text`,
/// the source of a loaded document, with the id of the innermost node on the way; `None` when
/// the text does not hold that value.
pub fn locate_pointer(text: &str, pointer: &str) -> Option<Location> {
    let root = json::parse(text).ok()?.value?;
    let mut value = &root;
    let mut node_id = None;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        value = match &value.value {
            JsonValue::Object(_) => value.get(&token)?,
            JsonValue::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
        if value.get("type").is_some()
            && let Some(id) = value.get("id").and_then(Json::as_str)
        {
            node_id = Some(id.to_owned());
        }
    }
    let (line, column) = line_column(text, value.offset);
    Some(Location { line, column, pointer: pointer.to_owned(), node_id })
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
