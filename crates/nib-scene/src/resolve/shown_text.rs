//! The text a text node shows, and the most of it nib lays out and draws.
//!
//! A text is shaped, laid out and drawn in some 25–50 bytes a character at the peak of a call
//! (4 million characters took 143–233 MB of RSS to check, render or picture in a
//! release build), so one text as long as the largest file nib reads (256 MiB) would need
//! some 10 GB. [`MAX_TEXT_CHARS`] bounds it: the characters past it are left out of the layout
//! and the picture, and resolving says so as a problem of the node, which every front end
//! shows (`nib check` a warning, a picture's warnings).

use std::borrow::Cow;

use crate::doc::json::surrogates;
use crate::doc::values::TextContent;
use crate::doc::{Key, NodeType, Props, Value};

/// Most characters of one text laid out and drawn: at most 233 MB of RSS for a call (see the
/// module's notes), which leaves room in a call's gigabyte for a document of up to 256 MiB
/// beside it. The longest text of the corpus has 579 characters.
pub const MAX_TEXT_CHARS: usize = 4_000_000;

/// The text of a node: its `content` string; styled runs (never seen in real files) read as the
/// concatenation of their `content` strings. Not cut to [`MAX_TEXT_CHARS`]: see [`shown_text`].
pub fn content_of(props: &Props) -> Cow<'_, str> {
    match props.get(&Key::Content) {
        Some(Value::Content(TextContent::Plain(text))) => Cow::Borrowed(text),
        Some(Value::Content(TextContent::Runs(runs))) => {
            let mut text = String::new();
            if let crate::doc::json::JsonValue::Array(items) = runs.to_json().value {
                for item in items {
                    text.push_str(item.get("content").and_then(|c| c.as_str()).unwrap_or_default());
                }
            }
            Cow::Owned(text)
        }
        _ => Cow::Borrowed(""),
    }
}

/// The text of a node as it is laid out and drawn: its content, cut after [`MAX_TEXT_CHARS`]
/// characters, half UTF-16 pairs shown as U+FFFD (see [`half_pairs`]).
pub(crate) fn shown_text(props: &Props) -> Cow<'_, str> {
    let text = match content_of(props) {
        Cow::Borrowed(text) => Cow::Borrowed(cut(text)),
        Cow::Owned(mut text) => {
            let kept = cut(&text).len();
            text.truncate(kept);
            Cow::Owned(text)
        }
    };
    match surrogates::shown(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(shown) => Cow::Owned(shown),
    }
}

/// `text`'s first [`MAX_TEXT_CHARS`] characters.
fn cut(text: &str) -> &str {
    // A character is at least a byte: a text no longer in bytes is not cut, and is not counted.
    if text.len() <= MAX_TEXT_CHARS {
        return text;
    }
    text.char_indices().nth(MAX_TEXT_CHARS).map_or(text, |(end, _)| &text[..end])
}

/// True for the nodes that show a text.
fn shows_text(props: &Props) -> bool {
    let node_type = props.get(&Key::Type).and_then(|value| match value {
        Value::NodeType(node_type) => Some(*node_type),
        _ => None,
    });
    matches!(node_type, Some(NodeType::Text | NodeType::Note | NodeType::Prompt | NodeType::Context))
}

/// What is said of a node whose text holds half a UTF-16 pair (a lone surrogate, which Pen's
/// JavaScript keeps and a font cannot draw): it is drawn as U+FFFD and saved as written.
/// `None` for any other node.
pub fn half_pairs(props: &Props) -> Option<String> {
    if !shows_text(props) {
        return None;
    }
    let content = content_of(props);
    if !surrogates::holds_half_pairs(&content) {
        return None;
    }
    let halves: Vec<String> = content
        .chars()
        .filter_map(surrogates::surrogate_of)
        .map(|unit| format!("\\u{unit:04x}"))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    (!halves.is_empty()).then(|| {
        format!(
            "its text holds half of a UTF-16 pair ({}), which no font draws; it is drawn as U+FFFD (�) and saved as written",
            halves.join(", ")
        )
    })
}

/// What is said of a node whose text is longer than nib draws (`None` for any other node).
pub fn too_long(props: &Props) -> Option<String> {
    if !shows_text(props) {
        return None;
    }
    let content = content_of(props);
    if content.len() <= MAX_TEXT_CHARS {
        return None;
    }
    let chars = content.chars().count();
    (chars > MAX_TEXT_CHARS).then(|| {
        format!(
            "its text has {chars} characters; nib lays out and draws the first {MAX_TEXT_CHARS} of a text \
             (split it into several text nodes to show all of it)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(content: &str) -> Props {
        let json = format!(r#"{{"version":"2.10","children":[{{"type":"text","id":"t","content":{content:?}}}]}}"#);
        let loaded = crate::doc::Document::load(&json).expect("valid");
        let root = loaded.document.tree().roots()[0];
        loaded.document.tree().node(root).props.clone()
    }

    #[test]
    fn a_text_longer_than_the_limit_is_cut_at_a_character_and_said() {
        let short = text("é".repeat(MAX_TEXT_CHARS).as_str());
        assert_eq!(shown_text(&short).chars().count(), MAX_TEXT_CHARS, "two bytes a character: not cut");
        assert_eq!(too_long(&short), None);
        let long = text(&format!("{}é and more", "a".repeat(MAX_TEXT_CHARS - 1)));
        let shown = shown_text(&long);
        assert_eq!((shown.chars().count(), shown.ends_with('é')), (MAX_TEXT_CHARS, true));
        let said = too_long(&long).expect("said");
        assert!(said.contains(&format!("{} characters", MAX_TEXT_CHARS + 9)), "{said}");
        assert!(said.contains(&MAX_TEXT_CHARS.to_string()) && said.contains("split it"), "{said}");
        let mut frame = long.clone();
        frame.set(Key::Type, Value::NodeType(NodeType::Frame));
        assert_eq!(too_long(&frame), None, "only what shows text");
    }

    #[test]
    fn half_pairs_are_shown_as_the_replacement_character_and_said() {
        let json = r#"{"version":"2.10","children":[{"type":"text","id":"t","content":"a\ud800b\udfff\ud800"}]}"#;
        let loaded = crate::doc::Document::load(json).expect("valid");
        let props = loaded.document.tree().node(loaded.document.tree().roots()[0]).props.clone();
        assert_eq!(shown_text(&props), "a\u{FFFD}b\u{FFFD}\u{FFFD}");
        let said = half_pairs(&props).expect("said");
        assert!(said.contains("(\\ud800, \\udfff)") && said.contains("U+FFFD"), "{said}");
        assert_eq!(half_pairs(&text("plain")), None);
    }

    #[test]
    fn resolving_says_which_text_is_cut() {
        let content = "word ".repeat(MAX_TEXT_CHARS / 5 + 1);
        let json = format!(
            r#"{{"version":"2.10","children":[{{"type":"frame","id":"f","children":[{{"type":"text","id":"long","content":"{content}"}},{{"type":"text","id":"short","content":"word"}}]}}]}}"#
        );
        let document = crate::doc::Document::load(&json).expect("valid").document;
        let scene = super::super::build_scene(&document, &super::super::NoImports, super::super::SceneOptions::FULL);
        let lines: Vec<String> = crate::diagnostic::lines(&scene.problems);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let said = format!("node 'long': its text has {} characters", content.len());
        assert!(lines[0].starts_with(&said), "{lines:?}");
    }
}
