//! Resolved fills ([`crate::display::paint`]) as tiny-skia paints, and the fast fills of
//! whole-pixel rectangles with a color or a gradient's table.

use std::sync::Arc;

use tiny_skia::{
    BlendMode, Color as SkColor, FilterQuality, GradientStop, LinearGradient, Pattern, Pixmap, Point,
    PremultipliedColorU8, RadialGradient, Shader, SpreadMode, SweepGradient, Transform,
};

use super::blend::{over_color, over_entries};
use super::rows::each_row;

use crate::display::mesh::MeshSpec;
use crate::display::paint::{GradientGeometry, GradientSpec, PaintSpec};
use crate::doc::values::{BlendMode as PenBlend, ImageMode};

/// One paint ready to fill a shape in the node's box.
pub(crate) enum Paint {
    /// A shader (color or gradient) with its blend mode, and for linear and radial gradients
    /// the ramp that fills rectangles faster than the shader does.
    Shader(Shader<'static>, BlendMode, Option<Box<Ramp>>),
    /// An image placed in the box by its mode and cropped by its 2.20 `transform`.
    Image { url: String, mode: ImageMode, crop: Option<[f32; 6]>, opacity: f32, blend: BlendMode },
    /// A mesh gradient, drawn small and scaled onto the shape.
    Mesh(Arc<MeshSpec>, BlendMode),
}

/// Resolved fills as tiny-skia paints, in paint order.
pub(crate) fn tiny_paints(specs: &[PaintSpec]) -> Vec<Paint> {
    specs.iter().cloned().filter_map(tiny_paint).collect()
}

/// A resolved fill as a tiny-skia paint; `None` for a gradient tiny-skia cannot make (no stops).
fn tiny_paint(spec: PaintSpec) -> Option<Paint> {
    Some(match spec {
        PaintSpec::Solid { color: [r, g, b, a], blend } => {
            Paint::Shader(Shader::SolidColor(SkColor::from_rgba8(r, g, b, a)), blend_mode(blend), None)
        }
        PaintSpec::Gradient { gradient, blend } => {
            let (shader, ramp) = gradient_shader(&gradient)?;
            Paint::Shader(shader, blend_mode(blend), ramp.map(Box::new))
        }
        PaintSpec::Image { url, mode, crop, opacity, blend } => {
            Paint::Image { url, mode, crop, opacity, blend: blend_mode(blend) }
        }
        PaintSpec::Mesh { mesh, blend } => Paint::Mesh(mesh, blend_mode(blend)),
    })
}

/// A blend mode of the format as tiny-skia's. Linear burn has no tiny-skia equivalent; multiply
/// is the nearest darkening mode.
pub(crate) fn blend_mode(mode: PenBlend) -> BlendMode {
    match mode {
        PenBlend::Normal => BlendMode::SourceOver,
        PenBlend::Darken => BlendMode::Darken,
        PenBlend::Multiply | PenBlend::LinearBurn => BlendMode::Multiply,
        PenBlend::ColorBurn => BlendMode::ColorBurn,
        PenBlend::Light => BlendMode::Lighten,
        PenBlend::Screen => BlendMode::Screen,
        PenBlend::LinearDodge => BlendMode::Plus,
        PenBlend::ColorDodge => BlendMode::ColorDodge,
        PenBlend::Overlay => BlendMode::Overlay,
        PenBlend::SoftLight => BlendMode::SoftLight,
        PenBlend::HardLight => BlendMode::HardLight,
        PenBlend::Difference => BlendMode::Difference,
        PenBlend::Exclusion => BlendMode::Exclusion,
        PenBlend::Hue => BlendMode::Hue,
        PenBlend::Saturation => BlendMode::Saturation,
        PenBlend::Color => BlendMode::Color,
        PenBlend::Luminosity => BlendMode::Luminosity,
    }
}

/// A gradient's tiny-skia shader; linear and radial gradients come with their ramp too.
pub(crate) fn gradient_shader(gradient: &GradientSpec) -> Option<(Shader<'static>, Option<Ramp>)> {
    let colors: Vec<(f32, SkColor)> =
        gradient.stops.iter().map(|(p, [r, g, b, a])| (*p, SkColor::from_rgba8(*r, *g, *b, *a))).collect();
    let stops: Vec<GradientStop> = colors.iter().map(|(p, c)| GradientStop::new(*p, *c)).collect();
    match gradient.geometry {
        GradientGeometry::Linear { start, end } => {
            let ramp = Ramp { shape: RampShape::Linear { start, end }, stops: colors };
            let (start, end) = (Point::from_xy(start.0, start.1), Point::from_xy(end.0, end.1));
            LinearGradient::new(start, end, stops, SpreadMode::Pad, Transform::identity())
                .map(|shader| (shader, Some(ramp)))
        }
        GradientGeometry::Radial { transform } => {
            let origin = Point::from_xy(0.0, 0.0);
            let ramp = Ramp { shape: RampShape::Radial { transform }, stops: colors };
            RadialGradient::new(origin, 0.0, origin, 0.5, stops, SpreadMode::Pad, transform).map(|s| (s, Some(ramp)))
        }
        GradientGeometry::Angular { center, rotation } => {
            // tiny-skia sweeps clockwise from the right: a quarter turn back starts it up.
            let transform = Transform::from_translate(center.0, center.1).pre_rotate(-90.0 - rotation);
            SweepGradient::new(Point::from_xy(0.0, 0.0), 0.0, 360.0, stops, SpreadMode::Pad, transform)
                .map(|s| (s, None))
        }
    }
}

/// A gradient in a node's box pixels that [`fill_rect_ramp`] can fill from a table: stops
/// sorted, colors straight.
#[derive(Debug, Clone)]
pub(crate) struct Ramp {
    pub shape: RampShape,
    pub stops: Vec<(f32, SkColor)>,
}

/// How a [`Ramp`]'s position follows the pixel.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RampShape {
    /// From `start` (position 0) to `end` (position 1).
    Linear { start: (f32, f32), end: (f32, f32) },
    /// Position 0 at the origin, 1 on the circle of radius ½, mapped into the box by `transform`.
    Radial { transform: Transform },
}

/// Entries of the color table a ramp fills with (fine enough that no step shows).
const RAMP_STEPS: usize = 1024;

/// 2²³: any float in [0, 2²³) plus this is an integer's float, the integer in its mantissa.
const TWO_POW_23: f32 = 8_388_608.0;

/// Fills the device pixels of `area` (whole pixels of `pixmap`) with `ramp` seen through
/// `transform` (box pixels → device pixels, scale and translation only), `alpha` applied,
/// source-over. A table of premultiplied colors: several times faster than tiny-skia's
/// per-pixel gradient evaluation on the large backgrounds designs use, and the rows of a large
/// area run on every core (each row alone, so the bytes are those of one thread).
pub(crate) fn fill_rect_ramp(
    mut pixmap: tiny_skia::PixmapMut<'_>,
    area: tiny_skia::IntRect,
    ramp: &Ramp,
    transform: Transform,
    alpha: f32,
) {
    if transform.sx == 0.0 || transform.sy == 0.0 || transform.has_skew() {
        return;
    }
    let Some(area) = within(&pixmap, area) else { return };
    let table = ramp_table(&ramp.stops, alpha);
    let steps = (RAMP_STEPS - 1) as f32;
    let stride = pixmap.width() as usize * 4;
    let (left, span) = (area.left() as usize, area.width() as usize);
    let rows = area.top() as usize..area.bottom() as usize;
    match ramp.shape {
        RampShape::Linear { start, end } => {
            let (dx, dy) = (end.0 - start.0, end.1 - start.1);
            let length = dx * dx + dy * dy;
            if length <= f32::EPSILON {
                return;
            }
            // t(device x, y) = a·x + b·y + c
            let a = dx / (transform.sx * length);
            let b = dy / (transform.sy * length);
            let c = ((-transform.tx / transform.sx - start.0) * dx + (-transform.ty / transform.sy - start.1) * dy)
                / length;
            // t in 16.16 fixed point, scaled to table indices: one integer addition per pixel.
            let max = ((RAMP_STEPS - 1) as i64) << 16;
            let step = (a * steps * 65536.0) as i64;
            each_row(pixmap.data_mut(), stride, rows, |y, line| {
                let t = a * (left as f32 + 0.5) + b * (y as f32 + 0.5) + c;
                let first = (t * steps * 65536.0 + 32768.0) as i64;
                let indices: Vec<u32> = (0..span as i64)
                    .map(|x| {
                        // Saturating: a gradient with far-away ends has huge steps, clamped anyway.
                        let position = first.saturating_add(step.saturating_mul(x));
                        (position.clamp(0, max) >> 16) as u32
                    })
                    .collect();
                over_entries(&mut line[left * 4..(left + span) * 4], &table, &indices);
            });
        }
        RampShape::Radial { transform: to_box } => {
            // Device pixel → gradient space, where the position is twice the distance from 0.
            let Some(inverse) = transform.pre_concat(to_box).invert() else { return };
            let last = (RAMP_STEPS - 1) as f32;
            each_row(pixmap.data_mut(), stride, rows, |y, line| {
                let (py, px) = (y as f32 + 0.5, left as f32 + 0.5);
                let gx = inverse.sx * px + inverse.kx * py + inverse.tx;
                let gy = inverse.ky * px + inverse.sy * py + inverse.ty;
                // The row's table positions first, in a loop of its own that the compiler
                // vectorises (square roots included), then the lookups.
                let mut indices = vec![0u32; span];
                for (x, index) in indices.iter_mut().enumerate() {
                    let along = x as i32 as f32;
                    let (u, v) = (gx + inverse.sx * along, gy + inverse.ky * along);
                    let t = 2.0 * (u * u + v * v).sqrt();
                    // Rounded to the nearest step by adding 2²³, whose float has no bits left
                    // for a fraction: `as` casts saturate and would not vectorise.
                    *index = ((t * steps).min(last) + TWO_POW_23).to_bits() & 0x007F_FFFF;
                }
                over_entries(&mut line[left * 4..(left + span) * 4], &table, &indices);
            });
        }
    }
}

/// The part of `area` inside `pixmap`.
fn within(pixmap: &tiny_skia::PixmapMut<'_>, area: tiny_skia::IntRect) -> Option<tiny_skia::IntRect> {
    area.intersect(&tiny_skia::IntRect::from_xywh(0, 0, pixmap.width(), pixmap.height())?)
}

/// Fills the device pixels of `area` (whole pixels of `pixmap`) with the premultiplied `color`,
/// source-over, the rows of a large area on every core.
pub(crate) fn fill_rect_solid(
    mut pixmap: tiny_skia::PixmapMut<'_>,
    area: tiny_skia::IntRect,
    color: PremultipliedColorU8,
) {
    let color = [color.red(), color.green(), color.blue(), color.alpha()];
    let Some(area) = within(&pixmap, area) else { return };
    if color[3] == 0 {
        return;
    }
    let stride = pixmap.width() as usize * 4;
    let (left, span) = (area.left() as usize, area.width() as usize);
    each_row(pixmap.data_mut(), stride, area.top() as usize..area.bottom() as usize, |_, line| {
        over_color(&mut line[left * 4..(left + span) * 4], color);
    });
}

/// Premultiplied colors along a ramp, straight colors interpolated between stops.
fn ramp_table(stops: &[(f32, SkColor)], alpha: f32) -> Vec<[u8; 4]> {
    let mut table = Vec::with_capacity(RAMP_STEPS);
    for step in 0..RAMP_STEPS {
        let t = step as f32 / (RAMP_STEPS - 1) as f32;
        let next = stops.iter().position(|(p, _)| *p >= t);
        let color = match next {
            None => stops.last().map(|(_, c)| *c).unwrap_or(SkColor::TRANSPARENT),
            Some(0) => stops[0].1,
            Some(i) => {
                let ((p0, c0), (p1, c1)) = (stops[i - 1], stops[i]);
                let f = if p1 > p0 { (t - p0) / (p1 - p0) } else { 1.0 };
                let mix = |x: f32, y: f32| x + (y - x) * f;
                SkColor::from_rgba(
                    mix(c0.red(), c1.red()),
                    mix(c0.green(), c1.green()),
                    mix(c0.blue(), c1.blue()),
                    mix(c0.alpha(), c1.alpha()),
                )
                .unwrap_or(c1)
            }
        };
        let a = (color.alpha() * alpha).clamp(0.0, 1.0);
        let premultiplied = |channel: f32| (channel * a * 255.0 + 0.5) as u8;
        table.push([
            premultiplied(color.red()),
            premultiplied(color.green()),
            premultiplied(color.blue()),
            (a * 255.0 + 0.5) as u8,
        ]);
    }
    table
}

/// A pattern shader drawing `image` with `transform` (image pixels → box pixels).
pub(crate) fn image_shader(image: &Arc<Pixmap>, transform: Transform, opacity: f32) -> Shader<'_> {
    Pattern::new(image.as_ref().as_ref(), SpreadMode::Pad, FilterQuality::Bicubic, opacity, transform)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::values::{Color, GradientType};

    /// The largest channel difference between a ramp fill and tiny-skia's shader fill of the
    /// same gradient over a translucent background, placed at a scale and an offset.
    fn ramp_against_shader(kind: GradientType, transform: Transform) -> u8 {
        let red = Color::parse("#ff000080").expect("color");
        let stops: Vec<GradientStop_> = vec![(0.0, [20, 200, 90, 255]), (0.4, red.rgba()), (1.0, [10, 10, 250, 30])];
        let geometry = match kind {
            GradientType::Linear => GradientGeometry::Linear { start: (10.0, 5.0), end: (150.0, 90.0) },
            _ => GradientGeometry::Radial {
                transform: Transform::from_scale(160.0, 100.0)
                    .pre_translate(0.5, 0.3)
                    .pre_rotate(-20.0)
                    .pre_scale(1.2, 0.6),
            },
        };
        let spec = GradientSpec { geometry, stops };
        let (shader, ramp) = gradient_shader(&spec).expect("a shader");
        let ramp = ramp.expect("a ramp");
        let mut ours = Pixmap::new(240, 180).expect("pixmap");
        ours.fill(SkColor::from_rgba8(200, 180, 20, 160));
        let mut theirs = ours.clone();
        let rect =
            tiny_skia::Rect::from_xywh(0.0, 0.0, 160.0, 100.0).expect("rect").transform(transform).expect("moved");
        let area = tiny_skia::IntRect::from_ltrb(
            rect.left() as i32,
            rect.top() as i32,
            rect.right() as i32,
            rect.bottom() as i32,
        )
        .expect("area");
        fill_rect_ramp(ours.as_mut(), area, &ramp, transform, 0.8);
        let mut shader = shader;
        shader.apply_opacity(0.8);
        shader.transform(transform);
        let paint = tiny_skia::Paint { shader, ..tiny_skia::Paint::default() };
        theirs.fill_rect(rect, &paint, Transform::identity(), None);
        ours.data().iter().zip(theirs.data()).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0)
    }

    type GradientStop_ = (f32, [u8; 4]);

    #[test]
    fn ramp_fills_match_the_gradient_shaders() {
        for transform in [Transform::from_translate(20.0, 30.0), Transform::from_row(1.5, 0.0, 0.0, 1.5, 1.0, 2.0)] {
            for kind in [GradientType::Linear, GradientType::Radial] {
                let worst = ramp_against_shader(kind, transform);
                assert!(worst <= 3, "{kind:?} {transform:?}: {worst} levels apart");
            }
        }
    }
}
