//! Fills resolved for one box in terms every output understands: solid colors, linear, radial
//! and angular gradients in the node's unit box (spec §4b), images placed by their mode and
//! crop, mesh gradients, blend modes and opacities. The painter turns them into tiny-skia
//! shaders, the SVG writer into paint servers, the HTML writer into CSS backgrounds.

use std::sync::Arc;

use tiny_skia::Transform;

use super::mesh::MeshSpec;
use crate::diagnostic::Diagnostic;
use crate::doc::VarOr;
use crate::doc::values::{BlendMode as PenBlend, Color, Fill, Gradient, GradientType, ImageMode};

/// A fill resolved for one box in terms every output understands: the painter turns it into a
/// tiny-skia shader, the exporters into SVG paint servers and CSS backgrounds.
#[derive(Debug, Clone, PartialEq)]
pub enum PaintSpec {
    /// A straight RGBA color, its opacities applied.
    Solid { color: [u8; 4], blend: PenBlend },
    /// A gradient laid out in the box.
    Gradient { gradient: GradientSpec, blend: PenBlend },
    /// An image placed in the box by its mode and cropped by its 2.20 `transform`.
    Image { url: String, mode: ImageMode, crop: Option<[f32; 6]>, opacity: f32, blend: PenBlend },
    /// A mesh gradient (its opacity applied to its colors).
    Mesh { mesh: Arc<MeshSpec>, blend: PenBlend },
}

/// A gradient in a node's box pixels (spec §4b).
#[derive(Debug, Clone, PartialEq)]
pub struct GradientSpec {
    pub geometry: GradientGeometry,
    /// Positions 0–1, sorted, with straight RGBA colors (the gradient's opacity applied).
    pub stops: Vec<(f32, [u8; 4])>,
}

/// Where a gradient's colors go, in the node's box pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GradientGeometry {
    /// From `start` (position 0) to `end` (position 1); lines of equal color are perpendicular
    /// to it on screen, as in CSS.
    Linear { start: (f32, f32), end: (f32, f32) },
    /// The circle of radius ½ around the origin, mapped into the box by `transform`.
    Radial { transform: Transform },
    /// A clockwise sweep around `center` starting straight up, turned counter-clockwise by
    /// `rotation` degrees.
    Angular { center: (f32, f32), rotation: f32 },
}

/// Why a fill paints nothing, for the warnings of a render.
#[derive(Debug, Clone, PartialEq)]
pub enum PaintIssue {
    /// `transparent` / `none`: written by Pen, not a color.
    ColorKeyword(String),
    /// A `$variable` that did not resolve.
    Unresolved(String),
    /// A shader fill, which nib does not run: what is drawn instead.
    Shader { url: String, fallback: &'static str },
    /// A mesh gradient Pen would remove, and why.
    Mesh(super::mesh::MeshError),
}

impl PaintIssue {
    /// What a render or export says about this issue on `node`.
    pub fn warning(&self, node: &str) -> Diagnostic {
        let diagnostic = match self {
            PaintIssue::ColorKeyword(word) => Diagnostic::warning(
                "paint",
                format!("'{word}' is not a color and paints nothing (use a #RRGGBBAA color with alpha 00)"),
            ),
            PaintIssue::Unresolved(name) => {
                Diagnostic::warning("unresolved", format!("variable '{name}' has no value here and paints nothing"))
            }
            // Nib draws something else in place of what is written: said, not the document's fault.
            PaintIssue::Shader { url, fallback } => Diagnostic::note(
                "shader",
                format!(
                    "the shader fill '{url}' is a GLSL program nib does not run; {fallback} (check the design in Pen)"
                ),
            ),
            PaintIssue::Mesh(reason) => Diagnostic::warning(
                "paint",
                format!("the mesh gradient draws nothing: {reason} (Pen removes such a fill)"),
            ),
        };
        diagnostic.at_node(node)
    }
}

/// The resolved fills of `fills` for a `width` × `height` box, in paint order, skipping
/// disabled ones and those that paint nothing (with an issue saying why).
pub fn paint_specs(fills: &[Fill], width: f32, height: f32, issues: &mut Vec<PaintIssue>) -> Vec<PaintSpec> {
    let mut specs = Vec::with_capacity(fills.len());
    for fill in fills {
        match fill {
            Fill::Solid(color) => specs.extend(solid(color, 1.0, PenBlend::Normal, issues)),
            Fill::Color(fill) => {
                if enabled(&fill.enabled) {
                    let opacity = unit(fill.opacity.as_ref());
                    let blend = fill.blend_mode.unwrap_or(PenBlend::Normal);
                    if let Some(color) = &fill.color {
                        specs.extend(solid(color, opacity, blend, issues));
                    }
                }
            }
            Fill::Gradient(gradient) => {
                if enabled(&gradient.enabled) {
                    let blend = gradient.blend_mode.unwrap_or(PenBlend::Normal);
                    if let Some(gradient) = gradient_spec(gradient, width, height, issues) {
                        specs.push(PaintSpec::Gradient { gradient, blend });
                    }
                }
            }
            Fill::Image(image) => {
                if enabled(&image.enabled)
                    && let Some(url) = &image.url
                {
                    specs.push(PaintSpec::Image {
                        url: url.clone(),
                        mode: image.mode.unwrap_or(ImageMode::Stretch),
                        crop: crop(image.transform.as_deref()),
                        opacity: unit(image.opacity.as_ref()),
                        blend: image.blend_mode.unwrap_or(PenBlend::Normal),
                    });
                }
            }
            Fill::MeshGradient(mesh) => {
                if enabled(&mesh.enabled) {
                    match MeshSpec::of(mesh, unit(mesh.opacity.as_ref())) {
                        Ok(spec) => specs.push(PaintSpec::Mesh {
                            mesh: Arc::new(spec),
                            blend: mesh.blend_mode.unwrap_or(PenBlend::Normal),
                        }),
                        Err(reason) => issues.push(PaintIssue::Mesh(reason)),
                    }
                }
            }
            Fill::Shader(shader) => {
                if enabled(&shader.enabled) {
                    specs.extend(shader_fallback(shader, width, height, issues));
                }
            }
            // A newer Pen's fill, kept in the document: nothing is drawn for it (the loader
            // said so once, with the node).
            Fill::Unknown(_) => {}
        }
    }
    specs
}

/// A 2.20 image `transform` `[a, b, c, d, tx, ty]`, when it is six finite numbers that can be
/// inverted.
fn crop(transform: Option<&[VarOr<f64>]>) -> Option<[f32; 6]> {
    let numbers: Vec<f32> = transform?.iter().map(|n| n.value().copied().map(|n| n as f32)).collect::<Option<_>>()?;
    let [a, b, c, d, tx, ty] = <[f32; 6]>::try_from(numbers).ok()?;
    let usable = [a, b, c, d, tx, ty].iter().all(|n| n.is_finite()) && (a * d - b * c).abs() > 1e-6;
    usable.then_some([a, b, c, d, tx, ty])
}

/// What a shader fill draws: nib does not run GLSL, so its color uniforms stand in for it — a
/// gradient from the first to the last top to bottom, or the one color — with a warning; with
/// none, nothing is drawn (and that is said).
fn shader_fallback(
    shader: &crate::doc::values::ShaderFill,
    width: f32,
    height: f32,
    issues: &mut Vec<PaintIssue>,
) -> Option<PaintSpec> {
    let url = shader.url.clone().unwrap_or_default();
    let opacity = unit(shader.opacity.as_ref());
    let blend = shader.blend_mode.unwrap_or(PenBlend::Normal);
    let colors: Vec<[u8; 4]> = shader
        .uniforms
        .as_ref()
        .map(|raw| raw.to_json())
        .map(|json| match json.value {
            crate::doc::json::JsonValue::Object(members) => members
                .iter()
                .filter_map(|m| m.value.as_str().and_then(|text| Color::parse(text).ok()))
                .filter(|c| !c.is_keyword())
                .map(|c| rgba_with_opacity(c, opacity))
                .collect(),
            _ => Vec::new(),
        })
        .unwrap_or_default();
    let (fallback, spec) = match colors.as_slice() {
        [] => ("it is drawn as nothing (it has no color uniforms to stand in for it)", None),
        [color] => ("its color uniform is drawn in its place", Some(PaintSpec::Solid { color: *color, blend })),
        [first, .., last] => (
            "a gradient of its first and last color uniforms is drawn in its place",
            Some(PaintSpec::Gradient {
                gradient: GradientSpec {
                    geometry: GradientGeometry::Linear {
                        start: (width / 2.0, 0.0),
                        end: (width / 2.0, height.max(1.0)),
                    },
                    stops: vec![(0.0, *first), (1.0, *last)],
                },
                blend,
            }),
        ),
    };
    issues.push(PaintIssue::Shader { url, fallback });
    spec
}

/// True when a fill list paints something visible (shadows need a visible fill).
pub fn any_visible(fills: &[Fill]) -> bool {
    fills.iter().any(|fill| match fill {
        Fill::Solid(VarOr::Value(color)) => color.rgba()[3] > 0,
        Fill::Color(fill) => enabled(&fill.enabled) && matches!(&fill.color, Some(VarOr::Value(c)) if c.rgba()[3] > 0),
        Fill::Gradient(g) => enabled(&g.enabled) && g.gradient_type.is_some(),
        Fill::Image(image) => enabled(&image.enabled),
        _ => false,
    })
}

fn enabled(flag: &Option<VarOr<bool>>) -> bool {
    !matches!(flag, Some(VarOr::Value(false)))
}

/// An opacity from 0 to 1 (absent: 1).
fn unit(value: Option<&VarOr<f64>>) -> f32 {
    value.and_then(|v| v.value().copied()).filter(|v| v.is_finite()).map_or(1.0, |v| v.clamp(0.0, 1.0) as f32)
}

fn solid(color: &VarOr<Color>, opacity: f32, blend: PenBlend, issues: &mut Vec<PaintIssue>) -> Option<PaintSpec> {
    let color = resolved_color(color, issues)?;
    Some(PaintSpec::Solid { color: rgba_with_opacity(color, opacity), blend })
}

/// The color of a value, or `None` (and an issue) when it paints nothing.
pub(crate) fn resolved_color(color: &VarOr<Color>, issues: &mut Vec<PaintIssue>) -> Option<Color> {
    match color {
        VarOr::Value(color) if color.is_keyword() => {
            issues.push(PaintIssue::ColorKeyword(color.as_str().to_owned()));
            None
        }
        VarOr::Value(color) => Some(*color),
        VarOr::Var(var) => {
            issues.push(PaintIssue::Unresolved(var.name().to_owned()));
            None
        }
    }
}

/// A color's straight RGBA, its alpha multiplied by `opacity`.
pub(crate) fn rgba_with_opacity(color: Color, opacity: f32) -> [u8; 4] {
    let [r, g, b, a] = color.rgba();
    [r, g, b, (f32::from(a) * opacity).round().clamp(0.0, 255.0) as u8]
}

/// A blend mode as CSS and SVG name it (`mix-blend-mode`); `None` for normal. Linear burn and
/// linear dodge have no CSS equivalent: multiply and plus-lighter are the nearest.
pub fn css_blend_mode(mode: PenBlend) -> Option<&'static str> {
    Some(match mode {
        PenBlend::Normal => return None,
        PenBlend::Darken => "darken",
        PenBlend::Multiply | PenBlend::LinearBurn => "multiply",
        PenBlend::ColorBurn => "color-burn",
        PenBlend::Light => "lighten",
        PenBlend::Screen => "screen",
        PenBlend::LinearDodge => "plus-lighter",
        PenBlend::ColorDodge => "color-dodge",
        PenBlend::Overlay => "overlay",
        PenBlend::SoftLight => "soft-light",
        PenBlend::HardLight => "hard-light",
        PenBlend::Difference => "difference",
        PenBlend::Exclusion => "exclusion",
        PenBlend::Hue => "hue",
        PenBlend::Saturation => "saturation",
        PenBlend::Color => "color",
        PenBlend::Luminosity => "luminosity",
    })
}

/// A gradient laid out in a `width` × `height` box (spec §4b): the geometry lives in the unit
/// box — center (default ½, ½), size (default 1, 1), rotation in degrees counter-clockwise.
/// `None` when it has no type.
fn gradient_spec(gradient: &Gradient, width: f32, height: f32, issues: &mut Vec<PaintIssue>) -> Option<GradientSpec> {
    let kind = gradient.gradient_type?;
    let opacity = unit(gradient.opacity.as_ref());
    let mut stops: Vec<(f32, [u8; 4])> = gradient
        .colors
        .iter()
        .flatten()
        .filter_map(|stop| {
            let color = resolved_color(stop.color.as_ref()?, issues)?;
            let position = stop.position.as_ref().and_then(|p| p.value().copied()).unwrap_or(0.0);
            Some((position.clamp(0.0, 1.0) as f32, rgba_with_opacity(color, opacity)))
        })
        .collect();
    stops.sort_by(|a, b| a.0.total_cmp(&b.0));
    let number = |v: Option<&VarOr<f64>>, default: f64| {
        v.and_then(|v| v.value().copied()).filter(|v| v.is_finite()).unwrap_or(default) as f32
    };
    let center = gradient.center.as_ref();
    let (cx, cy) = (number(center.and_then(|c| c.x.as_ref()), 0.5), number(center.and_then(|c| c.y.as_ref()), 0.5));
    let size = gradient.size.as_ref();
    let (sw, sh) =
        (number(size.and_then(|s| s.width.as_ref()), 1.0), number(size.and_then(|s| s.height.as_ref()), 1.0));
    let rotation = number(gradient.rotation.as_ref(), 0.0);
    let geometry = match kind {
        GradientType::Linear => {
            // From center − e (position 0) to center + e (position 1), e = (0, −h/2) turned
            // counter-clockwise by the rotation (y points down on screen).
            let (sin, cos) = rotation.to_radians().sin_cos();
            let (ex, ey) = (0.0, -sh / 2.0);
            let e = (ex * cos + ey * sin, -ex * sin + ey * cos);
            // The end points scale to pixels; the gradient runs between them in pixels (its
            // lines of equal color stay perpendicular to it on screen, as in CSS).
            GradientGeometry::Linear {
                start: ((cx - e.0) * width, (cy - e.1) * height),
                end: ((cx + e.0) * width, (cy + e.1) * height),
            }
        }
        GradientType::Radial => {
            // A circle of radius ½ around the center, stretched to the size's ellipse.
            let to_box = Transform::from_scale(width.max(f32::EPSILON), height.max(f32::EPSILON));
            let transform = to_box
                .pre_translate(cx, cy)
                .pre_rotate(-rotation)
                .pre_scale(sw.max(f32::EPSILON), sh.max(f32::EPSILON));
            GradientGeometry::Radial { transform }
        }
        GradientType::Angular => GradientGeometry::Angular { center: (cx * width, cy * height), rotation },
    };
    Some(GradientSpec { geometry, stops })
}

/// Where an image goes in a node's box.
#[derive(Debug, Clone)]
pub struct ImagePlacement {
    /// From image pixels to the box.
    pub transform: Transform,
    /// Where in the box the image is drawn, when not the whole shape: a `contain` image's box,
    /// and the part of a cropped image's crop box the image covers.
    pub area: Option<tiny_skia::Rect>,
}

/// Where an image of `image_width` × `image_height` goes in a `width` × `height` box, by its
/// mode and 2.20 crop (after the woodcase notes pinned against Pen 1.2.15's exports, see
/// spec/pen-versions.md): the crop `[a, b, c, d, tx, ty]` maps the image's unit square onto a
/// crop box, so the image's window `crop⁻¹([0,1]²)` fills it. `stretch` lays the crop box over
/// the whole box; `cover` and `contain` give it the window's aspect ratio and scale it to cover
/// or fit the box, centred; `cover` first moves its window inside the image so it never shows
/// past the image's edge. Only the image is drawn: past its edges, nothing.
pub fn image_placement(
    mode: ImageMode,
    crop: Option<[f32; 6]>,
    image_width: f32,
    image_height: f32,
    width: f32,
    height: f32,
) -> ImagePlacement {
    let (width, height) = (width.max(f32::EPSILON), height.max(f32::EPSILON));
    let Some([a, b, c, d, mut tx, mut ty]) = crop else {
        return uncropped(mode, image_width, image_height, width, height);
    };
    let crop_transform = |tx: f32, ty: f32| Transform::from_row(a, b, c, d, tx, ty);
    // The window: the image region (in its unit square) the crop box shows.
    let window = |tx: f32, ty: f32| {
        let inverse = crop_transform(tx, ty).invert()?;
        tiny_skia::Rect::from_xywh(0.0, 0.0, 1.0, 1.0)?.transform(inverse)
    };
    let Some(mut shown) = window(tx, ty) else {
        return ImagePlacement {
            transform: Transform::from_scale(width / image_width, height / image_height),
            area: None,
        };
    };
    if mode.covers() {
        // Keep the window inside the image: move it by the part that sticks out.
        let shift =
            |start: f32, size: f32| if size > 1.0 { 0.0 } else { (-start).max(0.0) - (start + size - 1.0).max(0.0) };
        let (dx, dy) = (shift(shown.left(), shown.width()), shift(shown.top(), shown.height()));
        // The window moves by (dx, dy): the crop maps p to crop(p − (dx, dy)).
        tx -= a * dx + c * dy;
        ty -= b * dx + d * dy;
        shown = window(tx, ty).unwrap_or(shown);
    }
    let (cropped_width, cropped_height) = (image_width * shown.width(), image_height * shown.height());
    let crop_box = if mode == ImageMode::Stretch {
        (0.0, 0.0, width, height)
    } else {
        let (sx, sy) = (width / cropped_width, height / cropped_height);
        let scale = if mode.covers() { sx.max(sy) } else { sx.min(sy) };
        let (w, h) = (cropped_width * scale, cropped_height * scale);
        ((width - w) / 2.0, (height - h) / 2.0, w, h)
    };
    let (x, y, w, h) = crop_box;
    let transform = Transform::from_scale(1.0 / image_width, 1.0 / image_height)
        .post_concat(crop_transform(tx, ty))
        .post_concat(Transform::from_row(w, 0.0, 0.0, h, x, y));
    // The image's own rectangle in the box, and where it may show.
    let image = tiny_skia::Rect::from_xywh(0.0, 0.0, image_width, image_height).and_then(|r| r.transform(transform));
    let bounds = if mode.contains() {
        tiny_skia::Rect::from_xywh(x, y, w, h)
    } else {
        tiny_skia::Rect::from_xywh(0.0, 0.0, width, height)
    };
    let area = match (image, bounds) {
        (Some(image), Some(bounds)) => intersect(image, bounds),
        _ => None,
    };
    let whole = tiny_skia::Rect::from_xywh(0.0, 0.0, width, height);
    let area = area.filter(|area| whole.is_none_or(|whole| !contains_rect(area, &whole)));
    ImagePlacement { transform, area }
}

/// An image without a crop: scaled to the box (stretch), or by one factor and centred.
fn uncropped(mode: ImageMode, image_width: f32, image_height: f32, width: f32, height: f32) -> ImagePlacement {
    let (sx, sy) = (width / image_width, height / image_height);
    if mode == ImageMode::Stretch {
        return ImagePlacement { transform: Transform::from_scale(sx, sy), area: None };
    }
    let scale = if mode.covers() { sx.max(sy) } else { sx.min(sy) };
    let (w, h) = (image_width * scale, image_height * scale);
    let (x, y) = ((width - w) / 2.0, (height - h) / 2.0);
    let area =
        (!mode.covers()).then(|| tiny_skia::Rect::from_xywh(x, y, w.max(f32::EPSILON), h.max(f32::EPSILON))).flatten();
    ImagePlacement { transform: Transform::from_row(scale, 0.0, 0.0, scale, x, y), area }
}

fn intersect(a: tiny_skia::Rect, b: tiny_skia::Rect) -> Option<tiny_skia::Rect> {
    tiny_skia::Rect::from_ltrb(
        a.left().max(b.left()),
        a.top().max(b.top()),
        a.right().min(b.right()),
        a.bottom().min(b.bottom()),
    )
}

/// True when `outer` holds `inner` (within a hundredth of a pixel).
fn contains_rect(outer: &tiny_skia::Rect, inner: &tiny_skia::Rect) -> bool {
    const SLACK: f32 = 0.01;
    outer.left() <= inner.left() + SLACK
        && outer.top() <= inner.top() + SLACK
        && outer.right() >= inner.right() - SLACK
        && outer.bottom() >= inner.bottom() - SLACK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_and_fill_center_the_image() {
        let placed = image_placement(ImageMode::Fit, None, 200.0, 100.0, 100.0, 100.0);
        assert_eq!((placed.transform.sx, placed.transform.ty), (0.5, 25.0));
        let area = placed.area.expect("contain covers part of the box");
        assert_eq!((area.top(), area.height()), (25.0, 50.0));
        let placed = image_placement(ImageMode::Fill, None, 200.0, 100.0, 100.0, 100.0);
        assert_eq!((placed.transform.sx, placed.transform.tx), (1.0, -50.0));
        assert!(placed.area.is_none(), "cover fills the shape");
        let placed = image_placement(ImageMode::Stretch, None, 200.0, 100.0, 100.0, 100.0);
        assert_eq!((placed.transform.sx, placed.transform.sy), (0.5, 1.0));
        assert_eq!(
            image_placement(ImageMode::Cover, None, 200.0, 100.0, 100.0, 100.0).transform,
            Transform::from_row(1.0, 0.0, 0.0, 1.0, -50.0, 0.0)
        );
    }

    #[test]
    fn a_crop_shows_its_window_of_the_image() {
        // [2, 0, 0, 1, -1, 0]: the right half of a 200 × 100 image (a 100 × 100 window).
        let right_half = Some([2.0, 0.0, 0.0, 1.0, -1.0, 0.0]);
        let placed = image_placement(ImageMode::Stretch, right_half, 200.0, 100.0, 100.0, 50.0);
        // Image x 100 lands at box x 0, image x 200 at box x 100.
        let point = |x: f32, y: f32| {
            let mut p = [tiny_skia::Point::from_xy(x, y)];
            placed.transform.map_points(&mut p);
            (p[0].x, p[0].y)
        };
        assert_eq!(point(100.0, 0.0), (0.0, 0.0));
        assert_eq!(point(200.0, 100.0), (100.0, 50.0));
        // Contain fits the square window into a 100 × 50 box: 50 × 50, centred.
        let placed = image_placement(ImageMode::Contain, right_half, 200.0, 100.0, 100.0, 50.0);
        let area = placed.area.expect("a part of the box");
        assert_eq!((area.left(), area.width(), area.height()), (25.0, 50.0, 50.0));
        // Cover keeps a window that sticks out of the image inside it: [1, 0, 0, 1, 0.5, 0]
        // shows x from -0.5, moved to start at 0 — the identity placement.
        let outside =
            image_placement(ImageMode::Cover, Some([1.0, 0.0, 0.0, 1.0, 0.5, 0.0]), 100.0, 100.0, 100.0, 100.0);
        assert_eq!(outside.transform, Transform::identity());
    }

    #[test]
    fn keywords_and_unresolved_variables_paint_nothing_and_say_so() {
        let mut issues = Vec::new();
        let keyword = Fill::Solid(VarOr::Value(Color::parse("transparent").expect("keyword")));
        assert!(paint_specs(&[keyword], 10.0, 10.0, &mut issues).is_empty());
        assert_eq!(issues, vec![PaintIssue::ColorKeyword("transparent".into())]);
    }
}
