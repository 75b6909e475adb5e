//! Text values: font weight and style, alignment, growth, and content.

use std::borrow::Cow;

use crate::doc::convert::{FromJson, ReadContext, ToJson, wrong_type};
use crate::doc::error::{ErrorKind, ProblemKind, ValueError};
use crate::doc::json::{Json, JsonValue, JsonWriter, RawJson};
use crate::doc::keyword::{keyword_enum, suggest};

keyword_enum! {
    /// Upright or italic.
    pub enum FontStyle as "fontStyle" {
        /// Upright.
        Normal = "normal",
        /// Italic.
        Italic = "italic",
    }
}

keyword_enum! {
    /// Horizontal alignment of lines in a text box.
    pub enum TextAlign as "textAlign" {
        /// Left.
        Left = "left",
        /// Centered.
        Center = "center",
        /// Right.
        Right = "right",
        /// Both edges (the last line left).
        Justify = "justify",
    }
}

keyword_enum! {
    /// Vertical alignment of the text block in a taller box.
    pub enum TextAlignVertical as "textAlignVertical" {
        /// Top.
        Top = "top",
        /// Middle.
        Middle = "middle",
        /// Bottom.
        Bottom = "bottom",
    }
}

keyword_enum! {
    /// How a text box sizes itself.
    pub enum TextGrowth as "textGrowth" {
        /// One line per paragraph; the box hugs the text.
        Auto = "auto",
        /// Wraps at the width; the height hugs the text.
        FixedWidth = "fixed-width",
        /// Both fixed; text may overflow.
        FixedWidthHeight = "fixed-width-height",
    }
}

/// Named weights and the numeric weight each stands for.
const WEIGHT_NAMES: &[(&str, u16)] = &[
    ("thin", 100),
    ("hairline", 100),
    ("extralight", 200),
    ("ultralight", 200),
    ("light", 300),
    ("normal", 400),
    ("regular", 400),
    ("medium", 500),
    ("semibold", 600),
    ("demibold", 600),
    ("bold", 700),
    ("extrabold", 800),
    ("ultrabold", 800),
    ("black", 900),
    ("heavy", 900),
];

/// The named weights Pen's own files hold (`normal` is what Pen writes for a text it made;
/// `medium`, `semibold` and `bold` are in files Pen saved). The other names above are CSS's:
/// nib reads them, but Pen's files never show them, so a write refuses them and a file that
/// holds one is warned about (DECISIONS.md, Reading files).
pub const PEN_WEIGHT_NAMES: &[&str] = &["normal", "medium", "semibold", "bold"];

/// How a font weight was written, so it saves the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WeightSpelling {
    /// A name such as `"semibold"`.
    Name(&'static str),
    /// Digits in a string: `"600"`.
    Digits,
    /// A JSON number: `600`.
    Number,
}

/// A font weight from 1 to 1000 (400 = normal, 700 = bold).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FontWeight {
    weight: u16,
    spelling: WeightSpelling,
}

impl FontWeight {
    /// A weight written as digits in a string, the way Pen writes new weights.
    pub fn new(weight: u16) -> FontWeight {
        FontWeight { weight: weight.clamp(1, 1000), spelling: WeightSpelling::Digits }
    }

    /// The numeric weight.
    pub fn weight(&self) -> u16 {
        self.weight
    }

    /// A weight as text: a name Pen knows (`"bold"`) or a number from 1 to 1000.
    pub fn parse_text(text: &str) -> Option<FontWeight> {
        if let Some((name, weight)) = WEIGHT_NAMES.iter().find(|(name, _)| *name == text) {
            return Some(FontWeight { weight: *weight, spelling: WeightSpelling::Name(name) });
        }
        let weight: u16 = text.parse().ok().filter(|w| (1..=1000).contains(w))?;
        // Only canonical digits ("600", not "0600") keep the Digits spelling losslessly.
        (weight.to_string() == text).then_some(FontWeight { weight, spelling: WeightSpelling::Digits })
    }
}

impl FromJson for FontWeight {
    fn expected() -> Cow<'static, str> {
        "a font weight: \"normal\", \"bold\", \"medium\", \"semibold\" or \"100\"…\"900\"".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<FontWeight, ValueError> {
        match &json.value {
            JsonValue::Number(n) if n.fract() == 0.0 && (1.0..=1000.0).contains(n) => {
                Ok(FontWeight { weight: *n as u16, spelling: WeightSpelling::Number })
            }
            JsonValue::Number(n) => {
                Err(ValueError::new(json.offset, ErrorKind::InvalidFontWeight { got: n.to_string() })
                    .with_hint("weights are whole numbers from 1 to 1000, usually 100…900"))
            }
            JsonValue::String(text) => {
                let weight = FontWeight::parse_text(text).ok_or_else(|| {
                    let names: Vec<&'static str> = WEIGHT_NAMES.iter().map(|(n, _)| *n).collect();
                    let hint = suggest(&text.to_ascii_lowercase().replace([' ', '-', '_'], ""), &names)
                        .map(|s| format!("did you mean \"{s}\"?"));
                    ValueError::new(json.offset, ErrorKind::InvalidFontWeight { got: text.clone() })
                        .with_optional_hint(hint)
                })?;
                if let WeightSpelling::Name(name) = weight.spelling
                    && !PEN_WEIGHT_NAMES.contains(&name)
                {
                    cx.report(json.offset, ProblemKind::WeightNotPens { got: name, weight: weight.weight });
                }
                Ok(weight)
            }
            _ => Err(wrong_type::<FontWeight>(&json)),
        }
    }
}

impl ToJson for FontWeight {
    fn write_json(&self, w: &mut JsonWriter) {
        match self.spelling {
            WeightSpelling::Name(name) => w.string(name),
            WeightSpelling::Digits => w.string(&self.weight.to_string()),
            WeightSpelling::Number => w.number(f64::from(self.weight)),
        }
    }
}

/// The text of a text-like node: a string (may contain `\n`), or styled runs. Runs were never
/// seen in a real file; they are kept as written.
#[derive(Debug, Clone, PartialEq)]
pub enum TextContent {
    /// Plain text, shared: the Scene and every instance that shows it hold the same one.
    Plain(std::sync::Arc<str>),
    /// A list of styled runs, kept verbatim.
    Runs(RawJson),
}

impl FromJson for TextContent {
    fn expected() -> Cow<'static, str> {
        "a string, or a list of styled runs".into()
    }

    fn from_json(json: Json, _cx: &mut ReadContext) -> Result<TextContent, ValueError> {
        match json.value {
            JsonValue::String(text) => Ok(TextContent::Plain(text.into())),
            JsonValue::Array(_) => Ok(TextContent::Runs(RawJson::from_json(&json))),
            _ => Err(wrong_type::<TextContent>(&json)),
        }
    }
}

impl ToJson for TextContent {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            TextContent::Plain(text) => w.string(text),
            TextContent::Runs(runs) => runs.write(w),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::*;
    use crate::doc::error::RawProblem;

    #[test]
    fn font_weights_keep_their_spelling() {
        assert_round_trip::<FontWeight>("\"600\"");
        assert_round_trip::<FontWeight>("\"semibold\"");
        assert_round_trip::<FontWeight>("700");
        assert_eq!(read::<FontWeight>("\"normal\"").unwrap().weight(), 400);
        assert_eq!(read::<FontWeight>("\"medium\"").unwrap().weight(), 500);
    }

    #[test]
    fn weights_pen_does_not_write_are_noted() {
        let mut cx = ReadContext::default();
        let json = crate::doc::json::parse("\"heavy\"").unwrap().value.unwrap();
        assert_eq!(FontWeight::from_json(json, &mut cx).unwrap().weight(), 900);
        assert!(matches!(
            cx.problems.as_slice(),
            [RawProblem { kind: ProblemKind::WeightNotPens { got: "heavy", weight: 900 }, .. }]
        ));
        for pens in ["\"semibold\"", "\"bold\"", "\"normal\"", "\"medium\"", "\"700\"", "450"] {
            let mut cx = ReadContext::default();
            let json = crate::doc::json::parse(pens).unwrap().value.unwrap();
            FontWeight::from_json(json, &mut cx).unwrap();
            assert!(cx.problems.is_empty(), "{pens}");
        }
    }

    #[test]
    fn font_weight_mistakes_get_hints() {
        let e = read::<FontWeight>("\"semi-bold\"").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean \"semibold\"?"));
        assert!(read::<FontWeight>("\"0600\"").is_err());
        assert!(read::<FontWeight>("1200").is_err());
        assert!(read::<FontWeight>("true").is_err());
    }

    #[test]
    fn content_is_text_or_runs() {
        assert_round_trip::<TextContent>("\"line 1\\nline 2\"");
        assert_round_trip::<TextContent>("[\n  {\n    \"content\": \"a\"\n  }\n]");
        assert!(read::<TextContent>("12").is_err());
    }
}
