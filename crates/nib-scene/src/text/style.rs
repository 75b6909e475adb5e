//! The text style of a text-like node, read from its resolved properties with the format's
//! defaults (Inter 14, weight 400, normal style, font line height, left aligned, auto growth).

use std::borrow::Cow;

use crate::doc::values::{FontStyle, TextAlign, TextAlignVertical};
use crate::doc::{Key, NodeType, Props, Value, VarOr};

/// Font size of text nodes that do not say.
pub(crate) const DEFAULT_FONT_SIZE: f32 = 14.0;

/// Font size of canvas annotations (notes, prompts, context) that do not say.
pub(crate) const DEFAULT_ANNOTATION_FONT_SIZE: f32 = 16.0;

/// Largest font size shaped; larger sizes are clamped (a typo like 14000 must not stall layout).
pub(crate) const MAX_FONT_SIZE: f32 = 2048.0;

/// How a run of text looks.
#[derive(Debug, Clone, PartialEq)]
pub struct TextStyle {
    /// The family asked for (it may be replaced when not available).
    pub family: String,
    /// Pixels per em, > 0.
    pub size: f32,
    /// 1–1000.
    pub weight: u16,
    /// Italic or upright.
    pub italic: bool,
    /// Extra pixels after every character.
    pub letter_spacing: f32,
    /// Line height as a multiple of the size; 0 = the font's own.
    pub line_height: f32,
    /// Horizontal alignment of lines.
    pub align: TextAlign,
    /// Vertical alignment of the block in its box.
    pub vertical_align: TextAlignVertical,
}

impl TextStyle {
    /// The style of a node, defaults filled in. Invalid numbers (negative sizes, NaN) fall back
    /// to the defaults.
    pub fn of(props: &Props) -> TextStyle {
        let mut style = TextStyle {
            family: String::new(),
            size: DEFAULT_FONT_SIZE,
            weight: 400,
            italic: false,
            letter_spacing: 0.0,
            line_height: 0.0,
            align: TextAlign::Left,
            vertical_align: TextAlignVertical::Top,
        };
        let mut size = None;
        let finite = |n: &f64| n.is_finite().then_some(*n as f32);
        // One pass over the properties: layout reads the style of every text on every relayout.
        for (key, value) in props.iter() {
            match (key, value) {
                (Key::Type, Value::NodeType(NodeType::Note | NodeType::Prompt | NodeType::Context)) => {
                    style.size = DEFAULT_ANNOTATION_FONT_SIZE;
                }
                (Key::FontFamily, Value::TextOrVar(VarOr::Value(family))) => style.family.clone_from(family),
                (Key::FontSize, Value::Number(VarOr::Value(n))) => size = finite(n).filter(|s| *s > 0.0),
                (Key::FontWeight, Value::FontWeight(VarOr::Value(w))) => style.weight = w.weight(),
                (Key::FontStyle, Value::FontStyle(VarOr::Value(s))) => style.italic = *s == FontStyle::Italic,
                (Key::LetterSpacing, Value::Number(VarOr::Value(n))) => style.letter_spacing = finite(n).unwrap_or(0.0),
                (Key::LineHeight, Value::Number(VarOr::Value(n))) => {
                    style.line_height = finite(n).filter(|h| *h > 0.0).unwrap_or(0.0);
                }
                (Key::TextAlign, Value::TextAlign(VarOr::Value(a))) => style.align = *a,
                (Key::TextAlignVertical, Value::TextAlignVertical(VarOr::Value(a))) => style.vertical_align = *a,
                _ => {}
            }
        }
        if let Some(size) = size {
            style.size = size.min(MAX_FONT_SIZE);
        }
        if style.family.is_empty() {
            style.family.push_str(super::fonts::DEFAULT_FAMILY);
        }
        style
    }
}

/// The text of a node as it is laid out and drawn: its `content` string (styled runs, never seen
/// in real files, read as the concatenation of their `content` strings), cut after
/// [`MAX_TEXT_CHARS`](crate::resolve::MAX_TEXT_CHARS) characters.
pub fn text_content(props: &Props) -> Cow<'_, str> {
    crate::resolve::shown_text(props)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(json: &str) -> Props {
        let doc = crate::doc::Document::load(&format!(r#"{{"version":"2.10","children":[{json}]}}"#)).expect("valid");
        let root = doc.document.tree().roots()[0];
        doc.document.tree().node(root).props.clone()
    }

    #[test]
    fn absent_keys_take_the_format_defaults() {
        let style = TextStyle::of(&props(r#"{"type":"text","id":"t","content":"Hi"}"#));
        assert_eq!((style.family.as_str(), style.size, style.weight, style.italic), ("Inter", 14.0, 400, false));
        assert_eq!((style.letter_spacing, style.line_height, style.align), (0.0, 0.0, TextAlign::Left));
        assert_eq!(TextStyle::of(&props(r#"{"type":"note","id":"n","content":"x"}"#)).size, 16.0);
    }

    #[test]
    fn named_weights_and_styles_are_read() {
        let style = TextStyle::of(&props(
            r#"{"type":"text","id":"t","fontFamily":"JetBrains Mono","fontSize":20,"fontWeight":"semibold","fontStyle":"italic","lineHeight":1.5,"letterSpacing":-0.5}"#,
        ));
        assert_eq!(
            (style.family.as_str(), style.size, style.weight, style.italic),
            ("JetBrains Mono", 20.0, 600, true)
        );
        assert_eq!((style.line_height, style.letter_spacing), (1.5, -0.5));
    }

    #[test]
    fn unusable_numbers_fall_back() {
        let style = TextStyle::of(&props(r#"{"type":"text","id":"t","fontSize":-3,"lineHeight":-1}"#));
        assert_eq!((style.size, style.line_height), (14.0, 0.0));
        assert_eq!(TextStyle::of(&props(r#"{"type":"text","id":"t","fontSize":900000}"#)).size, MAX_FONT_SIZE);
    }
}
