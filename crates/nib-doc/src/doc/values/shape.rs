//! Shape values: corner radii and fill rules.

use std::borrow::Cow;

use crate::doc::convert::{FromJson, ReadContext, ToJson, VarOr, restate_expected};
use crate::doc::error::{ErrorKind, ValueError};
use crate::doc::json::{Json, JsonValue, JsonWriter};
use crate::doc::keyword::keyword_enum;

keyword_enum! {
    /// Which regions of a self-intersecting path are inside.
    pub enum FillRule as "fillRule" {
        /// Non-zero winding (the default).
        NonZero = "nonzero",
        /// Even-odd.
        EvenOdd = "evenodd",
    }
}

/// Corner radii: one for all corners, or `[topLeft, topRight, bottomRight, bottomLeft]`.
#[derive(Debug, Clone, PartialEq)]
pub enum CornerRadius {
    /// The same radius on every corner.
    Uniform(VarOr<f64>),
    /// `[topLeft, topRight, bottomRight, bottomLeft]` (the CSS `border-radius` order).
    Corners(Box<[VarOr<f64>; 4]>),
}

impl FromJson for CornerRadius {
    fn expected() -> Cow<'static, str> {
        "a number, a \"$variable\" or [topLeft, topRight, bottomRight, bottomLeft]".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<CornerRadius, ValueError> {
        match json.value {
            JsonValue::Array(_) => {
                let offset = json.offset;
                let values: Vec<VarOr<f64>> =
                    FromJson::from_json(json, cx).map_err(restate_expected::<CornerRadius>)?;
                <[VarOr<f64>; 4]>::try_from(values).map(|radii| CornerRadius::Corners(Box::new(radii))).map_err(
                    |values| {
                        ValueError::new(
                            offset,
                            ErrorKind::WrongLength { what: "cornerRadius", expected: "4", got: values.len() },
                        )
                        .with_hint("use one number, or [topLeft, topRight, bottomRight, bottomLeft]")
                    },
                )
            }
            _ => VarOr::from_json(json, cx).map(CornerRadius::Uniform).map_err(restate_expected::<CornerRadius>),
        }
    }
}

impl ToJson for CornerRadius {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            CornerRadius::Uniform(radius) => radius.write_json(w),
            CornerRadius::Corners(radii) => {
                w.begin_array();
                for radius in radii.iter() {
                    radius.write_json(w);
                }
                w.end_array();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::*;

    #[test]
    fn corner_radius_forms() {
        assert_round_trip::<CornerRadius>("8");
        assert_round_trip::<CornerRadius>("[\n  8,\n  8,\n  0,\n  0\n]");
        assert!(read::<CornerRadius>("[8, 8]").is_err());
        assert!(read::<CornerRadius>("\"round\"").is_err());
    }
}
