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

/// Locations of `offsets` in `text`, which must be valid JSON (it was loaded before).
pub(crate) fn locate_all(text: &str, offsets: &[u32]) -> Vec<Location> {
    let root = json::parse(text).ok().and_then(|parsed| parsed.value);
    offsets
        .iter()
        .map(|offset| {
            let (line, column) = line_column(text, *offset);
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
            if let Some(member) = members.iter().find(|m| m.key_offset == target) {
                path.push(escape_pointer_token(&member.key));
                return true;
            }
            let candidates = members.iter().filter(|m| m.key_offset < target);
            for member in candidates.rev() {
                path.push(escape_pointer_token(&member.key));
                let saved = node_id.clone();
                if find(&member.value, target, path, node_id) {
                    return true;
                }
                *node_id = saved;
                path.pop();
            }
            false
        }
        JsonValue::Array(items) => {
            let Some(index) = items.iter().rposition(|item| item.offset <= target) else {
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
}
