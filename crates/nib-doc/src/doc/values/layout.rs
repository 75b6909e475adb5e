//! Layout values: flex direction and alignment, sizing keywords with fallbacks, padding.

use std::borrow::Cow;

use crate::doc::convert::{FromJson, ReadContext, ToJson, VarOr, restate_expected, wrong_type};
use crate::doc::error::{ErrorKind, ValueError};
use crate::doc::json::{Json, JsonValue, JsonWriter, write_js_number};
use crate::doc::keyword::{keyword_enum, suggest};

keyword_enum! {
    /// How a frame or group places its children.
    pub enum Layout as "layout" {
        /// Children sit at their own x/y.
        None = "none",
        /// A column (flexbox, no wrap).
        Vertical = "vertical",
        /// A row (flexbox, no wrap).
        Horizontal = "horizontal",
    }
}

keyword_enum! {
    /// Distribution of children along the main axis.
    pub enum JustifyContent as "justifyContent" {
        /// Packed at the start.
        Start = "start",
        /// Centered.
        Center = "center",
        /// Packed at the end.
        End = "end",
        /// Even gaps between children, none at the edges.
        SpaceBetween = "space_between",
        /// Even space around each child.
        SpaceAround = "space_around",
    }
}

keyword_enum! {
    /// Alignment of children on the cross axis (children never stretch unless they fill).
    pub enum AlignItems as "alignItems" {
        /// At the start.
        Start = "start",
        /// Centered.
        Center = "center",
        /// At the end.
        End = "end",
    }
}

keyword_enum! {
    /// Whether a node takes part in its parent's flex flow.
    pub enum LayoutPosition as "layoutPosition" {
        /// In the flow (the default).
        Auto = "auto",
        /// Out of the flow, placed at its x/y.
        Absolute = "absolute",
    }
}

/// A width or height: a number of pixels or a sizing keyword with an optional fallback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sizing {
    /// A fixed size in pixels.
    Fixed(f64),
    /// Hug the children; the fallback applies when there are none or no layout.
    FitContent(Option<f64>),
    /// Take the parent's free space; the fallback applies outside a flex parent.
    FillContainer(Option<f64>),
}

const SIZING_KEYWORDS: &[&str] = &["fit_content", "fill_container"];

impl Sizing {
    /// Parses `fit_content`, `fill_container`, `fit_content(120)`, `fill_container(0)`.
    pub(crate) fn parse_keyword(text: &str) -> Option<Sizing> {
        let (word, fallback) = match text.split_once('(') {
            Some((word, rest)) => {
                let number = rest.strip_suffix(')')?.trim();
                let value: f64 = number.parse().ok().filter(|v: &f64| v.is_finite())?;
                (word, Some(value))
            }
            None => (text, None),
        };
        match word {
            "fit_content" => Some(Sizing::FitContent(fallback)),
            "fill_container" => Some(Sizing::FillContainer(fallback)),
            _ => None,
        }
    }
}

impl FromJson for Sizing {
    fn expected() -> Cow<'static, str> {
        "a number, \"fit_content\", \"fill_container\" or either with a fallback such as \"fit_content(100)\"".into()
    }

    fn from_json(json: Json, _cx: &mut ReadContext) -> Result<Sizing, ValueError> {
        match &json.value {
            JsonValue::Number(n) => Ok(Sizing::Fixed(*n)),
            JsonValue::String(text) => Sizing::parse_keyword(text).ok_or_else(|| {
                let word = text.split('(').next().unwrap_or(text);
                let hint = if text.trim_end_matches("px").parse::<f64>().is_ok() {
                    Some(format!("write the number without quotes: {}", text.trim_end_matches("px")))
                } else {
                    suggest(word, SIZING_KEYWORDS).map(|s| format!("did you mean \"{s}\"?"))
                };
                ValueError::new(json.offset, ErrorKind::InvalidSizing { got: text.clone() }).with_optional_hint(hint)
            }),
            _ => Err(wrong_type::<Sizing>(&json)),
        }
    }
}

impl ToJson for Sizing {
    fn write_json(&self, w: &mut JsonWriter) {
        let (word, fallback) = match *self {
            Sizing::Fixed(n) => return w.number(n),
            Sizing::FitContent(fallback) => ("fit_content", fallback),
            Sizing::FillContainer(fallback) => ("fill_container", fallback),
        };
        match fallback {
            None => w.string(word),
            Some(n) => {
                let mut text = String::with_capacity(24);
                text.push_str(word);
                text.push('(');
                write_js_number(&mut text, n);
                text.push(')');
                w.string(&text);
            }
        }
    }
}

/// Inner spacing of a frame: one value, `[vertical, horizontal]` or `[top, right, bottom, left]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Padding {
    /// The same on all sides.
    Uniform(VarOr<f64>),
    /// `[vertical, horizontal]`
    Axes(Box<[VarOr<f64>; 2]>),
    /// `[top, right, bottom, left]`
    Sides(Box<[VarOr<f64>; 4]>),
}

impl FromJson for Padding {
    fn expected() -> Cow<'static, str> {
        "a number, a \"$variable\", [vertical, horizontal] or [top, right, bottom, left]".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Padding, ValueError> {
        match json.value {
            JsonValue::Array(_) => {
                let offset = json.offset;
                let values: Vec<VarOr<f64>> = FromJson::from_json(json, cx).map_err(restate_expected::<Padding>)?;
                match <[VarOr<f64>; 4]>::try_from(values) {
                    Ok(sides) => Ok(Padding::Sides(Box::new(sides))),
                    Err(values) => match <[VarOr<f64>; 2]>::try_from(values) {
                        Ok(axes) => Ok(Padding::Axes(Box::new(axes))),
                        Err(values) => Err(ValueError::new(
                            offset,
                            ErrorKind::WrongLength { what: "padding", expected: "2 or 4", got: values.len() },
                        )
                        .with_hint("use [vertical, horizontal] or [top, right, bottom, left]")),
                    },
                }
            }
            JsonValue::Object(_) => Err(wrong_type::<Padding>(&json)
                .with_hint("padding is not an object; write [top, right, bottom, left], e.g. [8, 16, 8, 16]")),
            _ => VarOr::from_json(json, cx).map(Padding::Uniform).map_err(restate_expected::<Padding>),
        }
    }
}

impl ToJson for Padding {
    fn write_json(&self, w: &mut JsonWriter) {
        let values: &[VarOr<f64>] = match self {
            Padding::Uniform(value) => return value.write_json(w),
            Padding::Axes(values) => &values[..],
            Padding::Sides(values) => &values[..],
        };
        w.begin_array();
        for value in values {
            value.write_json(w);
        }
        w.end_array();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::*;

    #[test]
    fn sizing_keywords_and_fallbacks_round_trip() {
        assert_round_trip::<VarOr<Sizing>>("\"fill_container\"");
        assert_round_trip::<VarOr<Sizing>>("\"fit_content(0)\"");
        assert_round_trip::<VarOr<Sizing>>("\"fill_container(375.5)\"");
        assert_round_trip::<VarOr<Sizing>>("\"$--w\"");
        assert_round_trip::<VarOr<Sizing>>("240");
        assert_eq!(read::<Sizing>("\"fit_content(12)\"").unwrap(), Sizing::FitContent(Some(12.0)));
    }

    #[test]
    fn sizing_mistakes_get_hints() {
        let e = read::<Sizing>("\"hug_contents\"").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean \"fit_content\"?"));
        let e = read::<Sizing>("\"100%\"").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean \"fill_container\"?"));
        let e = read::<Sizing>("\"120px\"").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("write the number without quotes: 120"));
        assert!(read::<Sizing>("\"fit_content(\"").is_err());
        assert!(read::<Sizing>("true").is_err());
    }

    #[test]
    fn padding_forms() {
        assert_round_trip::<Padding>("[\n  8,\n  16\n]");
        assert_round_trip::<Padding>("[\n  1,\n  \"$--p\",\n  3,\n  4\n]");
        assert_round_trip::<Padding>("12");
        let e = read::<Padding>("[1, 2, 3]").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::WrongLength { got: 3, .. }));
        let e = read::<Padding>("{\"left\": 4}").unwrap_err();
        assert!(e.hint.unwrap().contains("[top, right, bottom, left]"));
    }
}
