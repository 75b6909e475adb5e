//! Angular (conic) gradients for the formats that have no primitive for one (SVG, PDF): wedges
//! around the center, each filled with the gradient's colour at its middle angle and reaching
//! half a step into the next (drawn over it), so no seam shows.

use crate::display::paint::{GradientGeometry, GradientSpec};

/// Wedges an angular gradient is drawn with (3° each: steps of colour finer than 8-bit
/// gradients between far-apart stops show).
pub(crate) const ANGULAR_WEDGES: usize = 120;

/// One wedge: a triangle (the center and two points past the farthest corner) and its straight
/// RGBA colour.
pub(crate) struct Wedge {
    pub corners: [(f32, f32); 3],
    pub color: [u8; 4],
}

/// The wedges of an angular `gradient` in a `size` box, in drawing order. Empty for other
/// gradients and for one without stops.
pub(crate) fn wedges(gradient: &GradientSpec, size: (f32, f32)) -> Vec<Wedge> {
    let GradientGeometry::Angular { center, rotation } = gradient.geometry else { return Vec::new() };
    if gradient.stops.is_empty() {
        return Vec::new();
    }
    let corners = [(0.0, 0.0), (size.0, 0.0), (0.0, size.1), (size.0, size.1)];
    let reach =
        corners.iter().map(|(x, y)| ((x - center.0).powi(2) + (y - center.1).powi(2)).sqrt()).fold(1.0, f32::max) * 1.5;
    let point = |degrees: f32| {
        // Clockwise from straight up on a screen whose y points down, turned counter-clockwise.
        let radians = (degrees - rotation).to_radians();
        (center.0 + reach * radians.sin(), center.1 - reach * radians.cos())
    };
    let step = 360.0 / ANGULAR_WEDGES as f32;
    (0..ANGULAR_WEDGES)
        .map(|wedge| {
            let from = wedge as f32 * step;
            let to = (from + step * 1.5).min(360.0);
            Wedge {
                corners: [center, point(from), point(to)],
                color: color_at(&gradient.stops, (from + step / 2.0) / 360.0),
            }
        })
        .collect()
}

/// The colour of `stops` at position `t` (0–1), straight colours interpolated.
pub(crate) fn color_at(stops: &[(f32, [u8; 4])], t: f32) -> [u8; 4] {
    let Some(next) = stops.iter().position(|(p, _)| *p >= t) else {
        return stops.last().map_or([0; 4], |(_, c)| *c);
    };
    if next == 0 {
        return stops[0].1;
    }
    let ((p0, c0), (p1, c1)) = (stops[next - 1], stops[next]);
    let f = if p1 > p0 { (t - p0) / (p1 - p0) } else { 1.0 };
    let mix = |a: u8, b: u8| (f32::from(a) + (f32::from(b) - f32::from(a)) * f).round().clamp(0.0, 255.0) as u8;
    [mix(c0[0], c1[0]), mix(c0[1], c1[1]), mix(c0[2], c1[2]), mix(c0[3], c1[3])]
}
