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

/// Lines and columns of many offsets in one pass over `text` (a file with a hundred thousand
/// problems must not be read a hundred thousand times).
fn line_columns(text: &str, offsets: &[u32]) -> Vec<(u32, u32)> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut found = vec![(1, 1); offsets.len()];
    let (mut line, mut column) = (1u32, 1u32);
    let mut chars = text.char_indices().peekable();
    for index in order {
        let target = (offsets[index] as usize).min(text.len());
        while let Some(&(position, c)) = chars.peek() {
            if position >= target {
                break;
            }
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
            chars.next();
        }
        found[index] = (line, column);
    }
    found
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
