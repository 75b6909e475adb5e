//! Looking at JSON text without parsing it: how deep it nests, and the top-level members of an
//! object. Used for messages that cannot be parsed whole (too deep for the parser's recursion
//! guard, or cut short because they are too long) so their answer can still carry their id.

use serde_json::Value;

/// The byte offset at which `text` opens more than `limit` nested arrays and objects, if it
/// does. Brackets inside strings do not count; text that is not JSON is scanned all the same.
pub fn nesting_beyond(text: &[u8], limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'"' => match string_end(text, at) {
                Some(end) => {
                    at = end;
                    continue;
                }
                None => return None,
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(at);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    None
}

/// What the top level of a JSON object says about itself, read without parsing the values.
#[derive(Debug, Default, PartialEq)]
pub struct TopLevel {
    /// The `id` member's value, when it was read whole.
    pub id: Option<Value>,
    /// Whether an `id` member was seen (even one whose value could not be read).
    pub has_id: bool,
    /// Whether a `method` member was seen.
    pub has_method: bool,
}

/// The members of the object `text` holds, as far as they can be read: the walk stops at the
/// first thing that is not well-formed or at the end of `text`, so a cut-off start of a message
/// still gives the members before the cut. A value is taken only when something follows it,
/// so a number cut in the middle is never mistaken for a whole one.
pub fn top_level(text: &[u8]) -> TopLevel {
    let mut found = TopLevel::default();
    let mut at = skip_space(text, 0);
    if text.get(at) != Some(&b'{') {
        return found;
    }
    at += 1;
    loop {
        at = skip_space(text, at);
        if text.get(at) != Some(&b'"') {
            return found;
        }
        let Some(key_end) = string_end(text, at) else { return found };
        let Ok(key) = serde_json::from_slice::<String>(&text[at..key_end]) else { return found };
        at = skip_space(text, key_end);
        if text.get(at) != Some(&b':') {
            return found;
        }
        let value_start = skip_space(text, at + 1);
        let Some(value_end) = value_end(text, value_start) else { return found };
        let after = skip_space(text, value_end);
        let Some(&next) = text.get(after) else { return found };
        match key.as_str() {
            "id" => {
                found.has_id = true;
                found.id = serde_json::from_slice(&text[value_start..value_end]).ok();
            }
            "method" => found.has_method = true,
            _ => {}
        }
        match next {
            b',' => at = after + 1,
            _ => return found,
        }
    }
}

/// The offset just past the JSON value starting at `start`: a string, an array or object (by
/// matching brackets), or a literal or number running to the next delimiter.
fn value_end(text: &[u8], start: usize) -> Option<usize> {
    match *text.get(start)? {
        b'"' => string_end(text, start),
        b'[' | b'{' => {
            let mut depth = 0usize;
            let mut at = start;
            while at < text.len() {
                match text[at] {
                    b'"' => {
                        at = string_end(text, at)?;
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
            None
        }
        _ => {
            let length = text[start..].iter().position(|&byte| matches!(byte, b',' | b'}' | b']') || is_space(byte))?;
            (length > 0).then_some(start + length)
        }
    }
}

/// The offset just past the string whose opening quote is at `start`, if it closes.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

fn skip_space(text: &[u8], mut at: usize) -> usize {
    while text.get(at).is_some_and(|&byte| is_space(byte)) {
        at += 1;
    }
    at
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nesting_counts_brackets_outside_strings() {
        assert_eq!(nesting_beyond(br#"{"a":[[1]]}"#, 3), None);
        assert_eq!(nesting_beyond(br#"{"a":[[1]]}"#, 2), Some(6));
        assert_eq!(nesting_beyond(br#"{"a":"[[[[[\"[[[["}"#, 1), None);
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(nesting_beyond(deep.as_bytes(), 100), Some(100));
    }

    #[test]
    fn the_id_is_found_after_other_members_of_any_depth() {
        let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
        let text = format!(r#"{{"jsonrpc":"2.0","params":{{"a":{deep},"b":"}}\""}},"\u0069d":7,"method":"x"}}"#);
        let top = top_level(text.as_bytes());
        assert_eq!(top, TopLevel { id: Some(json!(7)), has_id: true, has_method: true });
    }

    #[test]
    fn a_cut_off_start_gives_what_comes_before_the_cut() {
        let text = br#"{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"x","argu"#;
        assert_eq!(top_level(text).id, Some(json!("abc")));
        // A number running into the cut may be the start of a longer one: not taken.
        assert_eq!(top_level(br#"{"jsonrpc":"2.0","id":12"#), TopLevel::default());
        assert_eq!(top_level(br#"{"id":12 ,"#).id, Some(json!(12)));
        assert_eq!(top_level(br#"{"method":"ping"}"#), TopLevel { id: None, has_id: false, has_method: true });
    }

    #[test]
    fn text_that_is_not_an_object_has_no_members() {
        for text in [&b""[..], b"[1,2]", b"not json", b"{\"id\" 5}", b"{\"id\":}"] {
            assert_eq!(top_level(text), TopLevel::default(), "{}", String::from_utf8_lossy(text));
        }
    }
}
