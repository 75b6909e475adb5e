//! Strokes in both spellings: the ≤ 2.11 `stroke` object and the 2.13 flat node keys
//! (`stroke` as a fill, `strokeWidth`, `strokeAlignment`).

use std::borrow::Cow;

use super::paint::Fills;
use crate::doc::convert::{FromJson, ReadContext, ToJson, VarOr, restate_expected, wrong_type};
use crate::doc::error::ValueError;
use crate::doc::json::{Json, JsonValue, JsonWriter};
use crate::doc::keyword::keyword_enum;
use crate::doc::object::typed_object;

keyword_enum! {
    /// Where a ≤ 2.11 stroke sits relative to the outline.
    pub enum StrokeAlign as "stroke align" {
        /// Inside the shape (the default when absent).
        Inside = "inside",
        /// Centered on the outline.
        Center = "center",
        /// Outside the shape.
        Outside = "outside",
    }
}

keyword_enum! {
    /// Where a 2.13 stroke sits relative to the outline (`inner` = ≤ 2.11 `inside`).
    pub enum StrokeAlignment as "strokeAlignment" {
        /// Inside the shape.
        Inner = "inner",
        /// Centered on the outline.
        Center = "center",
        /// Outside the shape.
        Outer = "outer",
    }
}

keyword_enum! {
    /// How stroke segments meet.
    pub enum StrokeJoin as "stroke join" {
        /// Sharp corners.
        Miter = "miter",
        /// Cut corners.
        Bevel = "bevel",
        /// Rounded corners.
        Round = "round",
    }
}

keyword_enum! {
    /// How open stroke ends look, as 2.17's `strokeLinecap` spells it (the ≤ 2.11 `none` is
    /// `butt`).
    pub enum LineCap as "strokeLinecap" {
        /// Flat at the end point (the default).
        Butt = "butt",
        /// Rounded past the end point.
        Round = "round",
        /// Square past the end point.
        Square = "square",
    }
}

keyword_enum! {
    /// How open stroke ends look.
    pub enum StrokeCap as "stroke cap" {
        /// Flat at the end point.
        None = "none",
        /// Rounded past the end point.
        Round = "round",
        /// Square past the end point.
        Square = "square",
    }
}

typed_object! {
    /// Per-side stroke widths; an absent side has no stroke.
    pub struct Sides as "per-side widths {top, right, bottom, left}" {
        tag: None,
        "top" => top: VarOr<f64>,
        "right" => right: VarOr<f64>,
        "bottom" => bottom: VarOr<f64>,
        "left" => left: VarOr<f64>,
    }
}

/// A stroke width: the same on every side, or per side.
#[derive(Debug, Clone, PartialEq)]
pub enum Thickness {
    /// One width for the whole outline.
    Uniform(VarOr<f64>),
    /// Widths per side of a box.
    Sides(Box<Sides>),
}

impl FromJson for Thickness {
    fn expected() -> Cow<'static, str> {
        "a number, a \"$variable\" or per-side widths {top, right, bottom, left}".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Thickness, ValueError> {
        match json.value {
            JsonValue::Object(_) => Sides::from_json(json, cx).map(|sides| Thickness::Sides(Box::new(sides))),
            _ => VarOr::from_json(json, cx).map(Thickness::Uniform).map_err(restate_expected::<Thickness>),
        }
    }
}

impl ToJson for Thickness {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            Thickness::Uniform(width) => width.write_json(w),
            Thickness::Sides(sides) => sides.write_json(w),
        }
    }
}

typed_object! {
    /// The ≤ 2.11 stroke object. Without `align` the stroke is drawn inside.
    pub struct StrokeObject as "a stroke {align, thickness, fill}" {
        tag: None,
        "align" => align: StrokeAlign,
        "thickness" => thickness: Thickness,
        "join" => join: StrokeJoin,
        "cap" => cap: StrokeCap,
        "miterAngle" => miter_angle: VarOr<f64>,
        "dashPattern" => dash_pattern: Vec<VarOr<f64>>,
        "fill" => fill: Fills,
        "enabled" => enabled: VarOr<bool>,
    }
}

/// The value of a node's `stroke` key: a ≤ 2.11 stroke object, or (2.13) the stroke's paint,
/// whose width and alignment are the node keys `strokeWidth` and `strokeAlignment`.
#[derive(Debug, Clone, PartialEq)]
pub enum Stroke {
    /// `{align, thickness, fill, ...}`
    Object(Box<StrokeObject>),
    /// A fill value: `"$--border"`, `"#E5E5E5"`, `{type: "color", ...}`, or a list.
    Paint(Fills),
}

impl FromJson for Stroke {
    fn expected() -> Cow<'static, str> {
        "a stroke object {align, thickness, fill} or a fill (color, \"$variable\", {type: ...})".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Stroke, ValueError> {
        // Both forms are objects; only the 2.13 paint form carries a `type`.
        let is_paint = match &json.value {
            JsonValue::Object(_) => json.get("type").is_some(),
            JsonValue::String(_) | JsonValue::Array(_) => true,
            _ => return Err(wrong_type::<Stroke>(&json)),
        };
        if is_paint {
            Fills::from_json(json, cx).map(Stroke::Paint)
        } else {
            StrokeObject::from_json(json, cx).map(|stroke| Stroke::Object(Box::new(stroke)))
        }
    }
}

impl ToJson for Stroke {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            Stroke::Object(stroke) => stroke.write_json(w),
            Stroke::Paint(fills) => fills.write_json(w),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::*;

    #[test]
    fn both_stroke_spellings_are_read() {
        let legacy: Stroke =
            read("{\"align\": \"inside\", \"thickness\": {\"bottom\": 1}, \"fill\": \"$--border\"}").unwrap();
        match legacy {
            Stroke::Object(s) => {
                assert_eq!(s.align, Some(StrokeAlign::Inside));
                assert!(matches!(s.thickness, Some(Thickness::Sides(_))));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(read::<Stroke>("\"$--border\"").unwrap(), Stroke::Paint(_)));
        assert!(matches!(read::<Stroke>("{\"type\": \"color\", \"color\": \"#000\"}").unwrap(), Stroke::Paint(_)));
        assert_round_trip::<Stroke>(
            "{\n  \"align\": \"center\",\n  \"thickness\": 1.5,\n  \"join\": \"round\",\n  \"cap\": \"round\",\n  \"fill\": \"#000000\"\n}",
        );
        assert_round_trip::<Thickness>("{\n  \"top\": 1,\n  \"bottom\": 2\n}");
    }

    #[test]
    fn stroke_errors_name_both_forms() {
        let e = read::<Stroke>("4").unwrap_err();
        assert!(e.kind.to_string().contains("stroke object"));
        let e = read::<Thickness>("true").unwrap_err();
        assert!(e.kind.to_string().contains("per-side"));
        assert!(read::<Stroke>("{\"align\": \"middle\"}").is_err());
    }
}
