//! Fills: solid colors, gradients, images, mesh gradients and shaders, alone or in a list.

use std::borrow::Cow;

use super::color::Color;
use crate::doc::convert::{FromJson, OneOrList, ReadContext, ToJson, VarOr, expect_object, wrong_type};
use crate::doc::error::{ErrorKind, ValueError};
use crate::doc::json::{Json, JsonValue, JsonWriter, Member, RawJson};
use crate::doc::keyword::{keyword_enum, suggest};
use crate::doc::object::{read_members, typed_object};

keyword_enum! {
    /// How a gradient's colors are laid out.
    pub enum GradientType as "gradientType" {
        /// Along a line.
        Linear = "linear",
        /// Outward from a center.
        Radial = "radial",
        /// Around a center (a conic sweep).
        Angular = "angular",
    }
}

keyword_enum! {
    /// How an image fills its node.
    pub enum ImageMode as "image mode" {
        /// Scaled to the node's box, ignoring the aspect ratio.
        Stretch = "stretch",
        /// Scaled to cover the box, cropped (CSS `cover`); 2.20 calls it `cover`.
        Fill = "fill",
        /// Scaled to fit inside the box (CSS `contain`); 2.20 calls it `contain`.
        Fit = "fit",
        /// 2.20's `fill`: scaled to cover the box, cropped.
        Cover = "cover",
        /// 2.20's `fit`: scaled to fit inside the box.
        Contain = "contain",
    }
}

keyword_enum! {
    /// How a paint combines with what is below it.
    pub enum BlendMode as "blendMode" {
        /// Source over.
        Normal = "normal",
        /// Darken.
        Darken = "darken",
        /// Multiply.
        Multiply = "multiply",
        /// Linear burn.
        LinearBurn = "linearBurn",
        /// Color burn.
        ColorBurn = "colorBurn",
        /// Lighten.
        Light = "light",
        /// Screen.
        Screen = "screen",
        /// Linear dodge (add).
        LinearDodge = "linearDodge",
        /// Color dodge.
        ColorDodge = "colorDodge",
        /// Overlay.
        Overlay = "overlay",
        /// Soft light.
        SoftLight = "softLight",
        /// Hard light.
        HardLight = "hardLight",
        /// Difference.
        Difference = "difference",
        /// Exclusion.
        Exclusion = "exclusion",
        /// Hue.
        Hue = "hue",
        /// Saturation.
        Saturation = "saturation",
        /// Color.
        Color = "color",
        /// Luminosity.
        Luminosity = "luminosity",
    }
}

typed_object! {
    /// A point in a node's unit box (0–1 on both axes), or an offset in pixels.
    pub struct Point as "a point {x, y}" {
        tag: None,
        "x" => x: VarOr<f64>,
        "y" => y: VarOr<f64>,
    }
}

typed_object! {
    /// A size relative to the node's box (1 = the whole box).
    pub struct RelativeSize as "a size {width, height}" {
        tag: None,
        "width" => width: VarOr<f64>,
        "height" => height: VarOr<f64>,
    }
}

typed_object! {
    /// One color of a gradient at a position between 0 and 1.
    pub struct ColorStop as "a gradient stop {color, position}" {
        tag: None,
        "color" => color: VarOr<Color>,
        "position" => position: VarOr<f64>,
    }
}

typed_object! {
    /// A solid color written as an object, which can be disabled or blended.
    pub struct ColorFill as "a color fill {type: \"color\", color}" {
        tag: Some("color"),
        "color" => color: VarOr<Color>,
        "enabled" => enabled: VarOr<bool>,
        "opacity" => opacity: VarOr<f64>,
        "blendMode" => blend_mode: BlendMode,
    }
}

typed_object! {
    /// A linear, radial or angular gradient in the node's unit box. Rotation is in degrees,
    /// counter-clockwise, 0 pointing up; a gradient without `gradientType` paints nothing.
    pub struct Gradient as "a gradient fill {type: \"gradient\", gradientType, colors}" {
        tag: Some("gradient"),
        "gradientType" => gradient_type: GradientType,
        "enabled" => enabled: VarOr<bool>,
        "opacity" => opacity: VarOr<f64>,
        "rotation" => rotation: VarOr<f64>,
        "size" => size: RelativeSize,
        "colors" => colors: Vec<ColorStop>,
        "center" => center: Point,
        "blendMode" => blend_mode: BlendMode,
    }
}

impl ImageMode {
    /// The same mode in the other versions' words: `fill` ↔ `cover`, `fit` ↔ `contain`.
    pub fn covers(self) -> bool {
        matches!(self, ImageMode::Fill | ImageMode::Cover)
    }

    /// True for `fit` and `contain`.
    pub fn contains(self) -> bool {
        matches!(self, ImageMode::Fit | ImageMode::Contain)
    }
}

typed_object! {
    /// An image file (path relative to the .pen file, or a URL) painted into the node. 2.20
    /// adds `transform`, a crop: `[a, b, c, d, tx, ty]` maps the image's unit square to the
    /// crop's (`x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`).
    pub struct ImageFill as "an image fill {type: \"image\", url}" {
        tag: Some("image"),
        "enabled" => enabled: VarOr<bool>,
        "url" => url: String,
        "mode" => mode: ImageMode,
        "opacity" => opacity: VarOr<f64>,
        "blendMode" => blend_mode: BlendMode,
        "transform" => transform: Vec<VarOr<f64>>,
    }
}

typed_object! {
    /// A mesh gradient: a grid of `columns` × `rows` colored points, row by row; a point is
    /// `[x, y]` in the node's unit box or `{position: [x, y], leftHandle, rightHandle,
    /// topHandle, bottomHandle}` (kept as written, read when painting).
    pub struct MeshGradient as "a mesh gradient fill {type: \"mesh_gradient\"}" {
        tag: Some("mesh_gradient"),
        "enabled" => enabled: VarOr<bool>,
        "columns" => columns: VarOr<f64>,
        "rows" => rows: VarOr<f64>,
        "colors" => colors: Vec<VarOr<Color>>,
        "points" => points: RawJson,
        "opacity" => opacity: VarOr<f64>,
        "blendMode" => blend_mode: BlendMode,
    }
}

typed_object! {
    /// A GLSL fragment shader fill (2.13): `url` names the shader file, `uniforms` its inputs
    /// (numbers, colors, booleans, vectors, image URLs). nib does not run GLSL: it paints the
    /// fallback [`crate::render`] describes and says so.
    pub struct ShaderFill as "a shader fill {type: \"shader\", url}" {
        tag: Some("shader"),
        "enabled" => enabled: VarOr<bool>,
        "url" => url: String,
        "uniforms" => uniforms: RawJson,
        "opacity" => opacity: VarOr<f64>,
        "blendMode" => blend_mode: BlendMode,
    }
}

/// One paint of a node.
#[derive(Debug, Clone, PartialEq)]
pub enum Fill {
    /// A bare color or variable: `"#FF0000"`, `"$--primary"`.
    Solid(VarOr<Color>),
    /// `{type: "color", ...}`
    Color(Box<ColorFill>),
    /// `{type: "gradient", ...}`
    Gradient(Box<Gradient>),
    /// `{type: "image", ...}`
    Image(Box<ImageFill>),
    /// `{type: "mesh_gradient", ...}`
    MeshGradient(Box<MeshGradient>),
    /// `{type: "shader", ...}`
    Shader(Box<ShaderFill>),
    /// A fill whose `type` nib does not know (a newer Pen's), kept as written and not drawn.
    /// Files only: what an agent writes must name a known type.
    Unknown(RawJson),
}

const FILL_TYPES: &[&str] = &["color", "gradient", "image", "mesh_gradient", "shader"];

/// Splits a tagged object into its `type` and its members, checking the type is a string.
pub(crate) fn tagged_members<T: FromJson>(json: Json, what: &'static str) -> Result<(String, Vec<Member>), ValueError> {
    let (offset, members) = expect_object::<T>(json)?;
    let tag = members.iter().find(|m| m.key == "type").map(|m| &m.value);
    match tag {
        Some(Json { value: JsonValue::String(tag), .. }) => Ok((tag.clone(), members)),
        Some(other) => Err(wrong_type::<T>(other)),
        None => Err(ValueError::new(offset, ErrorKind::MissingKey { what, key: "type" })),
    }
}

/// A tagged object whose `type` is not one of `valid`: in a file (see
/// [`ReadContext::keep_unknown`]) it is kept as written with a warning, elsewhere it is an error.
pub(crate) fn unknown_tagged(
    members: Vec<Member>,
    offset: u32,
    what: &'static str,
    got: String,
    valid: &'static [&'static str],
    cx: &mut ReadContext,
) -> Result<RawJson, ValueError> {
    if !cx.keep_unknown {
        return Err(unknown_tag(&members, what, got, valid));
    }
    let at = members.iter().find(|m| m.key == "type").map_or(offset, |m| m.value.offset);
    let suggestion = suggest(&got, valid);
    cx.report(at, crate::doc::error::ProblemKind::PaintTypeKept { what, got, suggestion });
    Ok(RawJson::from_json(&Json { offset, value: JsonValue::Object(members) }))
}

/// The error for a tagged object whose `type` is not one of `valid`.
pub(crate) fn unknown_tag(
    members: &[Member],
    what: &'static str,
    got: String,
    valid: &'static [&'static str],
) -> ValueError {
    let offset = members.iter().find(|m| m.key == "type").map_or(0, |m| m.value.offset);
    let hint = suggest(&got, valid).map(|s| format!("did you mean \"{s}\"?"));
    ValueError::new(offset, ErrorKind::UnknownVariant { what, got, valid }).with_optional_hint(hint)
}

impl FromJson for Fill {
    fn expected() -> Cow<'static, str> {
        "one of: color hex string (#RRGGBBAA, #RRGGBB or #RGB), \"$variable\", {type: \"color\"}, {type: \"gradient\"}, {type: \"image\"}, {type: \"mesh_gradient\"}".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Fill, ValueError> {
        match &json.value {
            JsonValue::String(_) => return VarOr::<Color>::from_json(json, cx).map(Fill::Solid),
            JsonValue::Object(_) => {}
            _ => return Err(wrong_type::<Fill>(&json)),
        }
        let offset = json.offset;
        let (tag, members) = tagged_members::<Fill>(json, "a fill object").map_err(|e| {
            e.with_hint("give the fill a type: {\"type\": \"color\", \"color\": \"#RRGGBB\"}, or write the color as a plain string")
        })?;
        Ok(match tag.as_str() {
            "color" => Fill::Color(Box::new(read_members(members, cx)?)),
            "gradient" => Fill::Gradient(Box::new(read_members(members, cx)?)),
            "image" => Fill::Image(Box::new(read_members(members, cx)?)),
            "mesh_gradient" => {
                let outer = std::mem::replace(&mut cx.in_mesh, true);
                let mesh = read_members(members, cx);
                cx.in_mesh = outer;
                Fill::MeshGradient(Box::new(mesh?))
            }
            "shader" => Fill::Shader(Box::new(read_members(members, cx)?)),
            _ => Fill::Unknown(unknown_tagged(members, offset, "fill", tag, FILL_TYPES, cx)?),
        })
    }
}

impl ToJson for Fill {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            Fill::Solid(color) => color.write_json(w),
            Fill::Color(fill) => fill.write_json(w),
            Fill::Gradient(fill) => fill.write_json(w),
            Fill::Image(fill) => fill.write_json(w),
            Fill::MeshGradient(fill) => fill.write_json(w),
            Fill::Shader(fill) => fill.write_json(w),
            Fill::Unknown(raw) => raw.write(w),
        }
    }
}

/// A node's paints: one, or a list painted in order (last on top).
pub type Fills = OneOrList<Fill>;

/// The file name of a placeholder picture nib draws offline for a G() prompt when no image
/// provider is configured — nib's naming, not Pen's: an image fill whose url names such a file is
/// known for what it is wherever the document goes (`images/placeholder-<hash>.png`), so it can be found again later.
pub fn placeholder_image_name(hash: u64) -> String {
    format!("{PLACEHOLDER_PREFIX}{hash:016x}.png")
}

/// True when `url` names a placeholder picture nib drew offline (see [`placeholder_image_name`]).
pub fn is_placeholder_image(url: &str) -> bool {
    let name = url.rsplit(['/', '\\']).next().unwrap_or(url);
    name.strip_prefix(PLACEHOLDER_PREFIX)
        .and_then(|rest| rest.strip_suffix(".png"))
        .is_some_and(|hash| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
}

const PLACEHOLDER_PREFIX: &str = "placeholder-";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_images_are_known_by_their_names() {
        let name = placeholder_image_name(0x35a0_01ca_fff6_4cdc);
        assert_eq!(name, "placeholder-35a001cafff64cdc.png");
        assert!(is_placeholder_image(&format!("./images/{name}")));
        assert!(is_placeholder_image(&name));
        for other in [
            "./images/generated-35a001cafff64cdc.png",
            "placeholder-xyz.png",
            "placeholder-35a001cafff64cdc.jpg",
            "photo.png",
        ] {
            assert!(!is_placeholder_image(other), "{other}");
        }
    }
    use crate::doc::convert::testing::*;

    #[test]
    fn every_fill_form_round_trips() {
        assert_round_trip::<Fills>("\"#FF0000\"");
        assert_round_trip::<Fills>("\"$--primary\"");
        assert_round_trip::<Fills>("{\n  \"type\": \"color\",\n  \"color\": \"#000000\",\n  \"enabled\": false\n}");
        assert_round_trip::<Fills>(
            "{\n  \"type\": \"gradient\",\n  \"gradientType\": \"linear\",\n  \"enabled\": true,\n  \"rotation\": 180,\n  \"size\": {\n    \"height\": 1\n  },\n  \"colors\": [\n    {\n      \"color\": \"#FFFFFF00\",\n      \"position\": 0\n    },\n    {\n      \"color\": \"$--bg\",\n      \"position\": 1\n    }\n  ]\n}",
        );
        assert_round_trip::<Fills>(
            "[\n  \"#fff\",\n  {\n    \"type\": \"image\",\n    \"enabled\": true,\n    \"url\": \"./images/a.jpg\",\n    \"mode\": \"fill\"\n  }\n]",
        );
        assert_round_trip::<Fills>("{\n  \"type\": \"shader\",\n  \"enabled\": true,\n  \"url\": \"dot-bg.glsl\"\n}");
    }

    #[test]
    fn fill_errors_say_what_is_accepted() {
        let e = read::<Fills>("\"#1535850\"").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::InvalidColor { .. }));
        let e = read::<Fills>("{\"type\": \"gradiant\"}").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean \"gradient\"?"));
        let e = read::<Fills>("{\"color\": \"#fff\"}").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::MissingKey { key: "type", .. }));
        let e = read::<Fills>("12").unwrap_err();
        assert!(e.kind.to_string().contains("{type: \"gradient\"}"));
        let e = read::<Fills>("{\"type\": \"gradient\", \"gradientType\": \"conic\"}").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::InvalidKeyword { what: "gradientType", .. }));
    }
}
