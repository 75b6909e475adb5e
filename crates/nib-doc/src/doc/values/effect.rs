//! Effects: drop and inner shadows, layer blur and background blur.

use std::borrow::Cow;

use super::color::Color;
use super::paint::{BlendMode, Point, tagged_members, unknown_tagged};
use crate::doc::convert::{FromJson, OneOrList, ReadContext, ToJson, VarOr};
use crate::doc::error::ValueError;
use crate::doc::json::{Json, JsonWriter, RawJson};
use crate::doc::keyword::keyword_enum;
use crate::doc::object::{read_members, typed_object};

keyword_enum! {
    /// Whether a shadow falls outside the shape or inside it.
    pub enum ShadowType as "shadowType" {
        /// A drop shadow.
        Outer = "outer",
        /// An inner shadow.
        Inner = "inner",
    }
}

typed_object! {
    /// A shadow: `offset` in pixels, `blur` radius (Gaussian sigma = blur / 2), `spread` grows
    /// the shadow shape.
    pub struct Shadow as "a shadow effect {type: \"shadow\"}" {
        tag: Some("shadow"),
        "shadowType" => shadow_type: ShadowType,
        "enabled" => enabled: VarOr<bool>,
        "color" => color: VarOr<Color>,
        "offset" => offset: Point,
        "blur" => blur: VarOr<f64>,
        "spread" => spread: VarOr<f64>,
        "blendMode" => blend_mode: BlendMode,
    }
}

typed_object! {
    /// Blurs the node itself.
    pub struct LayerBlur as "a blur effect {type: \"blur\", radius}" {
        tag: Some("blur"),
        "enabled" => enabled: VarOr<bool>,
        "radius" => radius: VarOr<f64>,
    }
}

typed_object! {
    /// Blurs what is behind the node, inside its shape.
    pub struct BackgroundBlur as "a background blur effect {type: \"background_blur\", radius}" {
        tag: Some("background_blur"),
        "enabled" => enabled: VarOr<bool>,
        "radius" => radius: VarOr<f64>,
    }
}

/// One effect of a node.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// `{type: "shadow", ...}`
    Shadow(Box<Shadow>),
    /// `{type: "blur", ...}`
    Blur(Box<LayerBlur>),
    /// `{type: "background_blur", ...}`
    BackgroundBlur(Box<BackgroundBlur>),
    /// An effect whose `type` nib does not know (a newer Pen's), kept as written and not
    /// drawn. Files only: what an agent writes must name a known type.
    Unknown(RawJson),
}

const EFFECT_TYPES: &[&str] = &["shadow", "blur", "background_blur"];

impl FromJson for Effect {
    fn expected() -> Cow<'static, str> {
        "an effect: {type: \"shadow\"}, {type: \"blur\"} or {type: \"background_blur\"}".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Effect, ValueError> {
        let offset = json.offset;
        let (tag, members) = tagged_members::<Effect>(json, "an effect")
            .map_err(|e| e.with_hint("give the effect a type: \"shadow\", \"blur\" or \"background_blur\""))?;
        Ok(match tag.as_str() {
            "shadow" => Effect::Shadow(Box::new(read_members(members, cx)?)),
            "blur" => Effect::Blur(Box::new(read_members(members, cx)?)),
            "background_blur" => Effect::BackgroundBlur(Box::new(read_members(members, cx)?)),
            _ => Effect::Unknown(unknown_tagged(members, offset, "effect", tag, EFFECT_TYPES, cx)?),
        })
    }
}

impl ToJson for Effect {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            Effect::Shadow(effect) => effect.write_json(w),
            Effect::Blur(effect) => effect.write_json(w),
            Effect::BackgroundBlur(effect) => effect.write_json(w),
            Effect::Unknown(raw) => raw.write(w),
        }
    }
}

/// A node's effects: one, or a list applied in order (later ones on top).
pub type Effects = OneOrList<Effect>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::*;

    #[test]
    fn effects_round_trip_in_any_key_order() {
        assert_round_trip::<Effects>(
            "{\n  \"type\": \"shadow\",\n  \"shadowType\": \"outer\",\n  \"offset\": {\n    \"x\": 0,\n    \"y\": 4\n  },\n  \"blur\": 12,\n  \"color\": \"#0000001A\"\n}",
        );
        assert_round_trip::<Effects>(
            "[\n  {\n    \"type\": \"background_blur\",\n    \"radius\": 20\n  },\n  {\n    \"type\": \"blur\",\n    \"radius\": 2\n  }\n]",
        );
    }

    #[test]
    fn unknown_effects_are_errors() {
        let e = read::<Effects>("{\"type\": \"glow\"}").unwrap_err();
        assert!(e.kind.to_string().contains("\"background_blur\""));
        assert!(read::<Effects>("\"shadow\"").is_err());
    }

    #[test]
    fn a_files_unknown_effects_are_kept_as_written() {
        let text = "[\n  {\n    \"type\": \"blur\",\n    \"radius\": 2\n  },\n  {\n    \"type\": \"glow\",\n    \"radius\": 9,\n    \"1\": true\n  }\n]";
        let (effects, problems) = read_as_file::<Effects>(text);
        let effects = effects.unwrap();
        assert!(matches!(effects.as_slice()[1], Effect::Unknown(_)));
        assert_eq!(
            write(&effects),
            text.replace(
                "{\n    \"type\": \"glow\",\n    \"radius\": 9,\n    \"1\": true",
                "{\n    \"1\": true,\n    \"type\": \"glow\",\n    \"radius\": 9"
            )
        );
        assert!(
            matches!(&problems[0].kind, crate::doc::ProblemKind::PaintTypeKept { what: "effect", got, .. } if got == "glow")
        );
        // Still refused: an effect without a type, or with a type that is no string.
        assert!(read_as_file::<Effects>("{\"radius\": 2}").0.is_err());
        assert!(read_as_file::<Effects>("{\"type\": 7}").0.is_err());
    }
}
