//! The outlines of shapes in their own box (0,0)–(width,height): rounded rectangles with CSS
//! radius scaling, ellipses with arcs and rings, regular polygons with rounded corners, lines
//! and SVG path data scaled to the box (spec §4b).

use std::f32::consts::PI;

use tiny_skia::{Path, PathBuilder, Rect, Transform};

pub use crate::geometry::{parse_svg_path, rounded_rect};

use crate::doc::values::{CornerRadius, FillRule};
use crate::doc::{Key, NodeType, Props, Value, VarOr};

/// A node's outline and how to fill it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub path: Path,
    pub fill_rule: tiny_skia::FillRule,
    /// Open outlines (lines) have no inside: fills paint nothing, inside strokes neither.
    pub closed: bool,
    /// Corner radii `[top-left, top-right, bottom-right, bottom-left]` after scaling, for
    /// rectangles (used to inset and grow the outline exactly).
    pub radii: Option<[f32; 4]>,
    /// A whole ellipse filling the box (grown and shrunk exactly, like rectangles).
    pub oval: bool,
}

impl Shape {
    /// A rectangle (node coordinates) that lies inside the outline of a rounded rectangle or an
    /// oval in a `width` × `height` box: the band between the corners, or the oval's inscribed
    /// square shrunk a little (its flattened curve runs inside the true one). `None` for other
    /// outlines.
    pub fn inner_rect(&self, width: f32, height: f32) -> Option<tiny_skia::Rect> {
        if let Some([top_left, top_right, bottom_right, bottom_left]) = self.radii {
            let top = top_left.max(top_right);
            let bottom = height - bottom_left.max(bottom_right);
            return tiny_skia::Rect::from_ltrb(0.0, top, width, bottom);
        }
        if self.oval {
            // cos 45° is 0.707; 0.69 keeps clear of the curve's flattening.
            let (dx, dy) = (width / 2.0 * 0.69, height / 2.0 * 0.69);
            let (cx, cy) = (width / 2.0, height / 2.0);
            return tiny_skia::Rect::from_ltrb(cx - dx, cy - dy, cx + dx, cy + dy);
        }
        None
    }
}

/// The outline of a node of `node_type` with `props` in a `width` × `height` box; `None` for
/// nodes with nothing to outline (zero size, invalid path data, groups).
pub(crate) fn shape_of(node_type: NodeType, props: &Props, width: f32, height: f32) -> Option<Shape> {
    match node_type {
        NodeType::Frame
        | NodeType::Rectangle
        | NodeType::Note
        | NodeType::Prompt
        | NodeType::Context
        | NodeType::Browser
        | NodeType::Script => {
            let radii = scaled_radii(corner_radii(props), width, height);
            let path = rounded_rect(0.0, 0.0, width, height, radii)?;
            Some(Shape { path, fill_rule: tiny_skia::FillRule::Winding, closed: true, radii: Some(radii), oval: false })
        }
        NodeType::Ellipse => ellipse(props, width, height),
        NodeType::Line => {
            let mut builder = PathBuilder::new();
            builder.move_to(0.0, 0.0);
            builder.line_to(width, height);
            let path = builder.finish()?;
            Some(Shape { path, fill_rule: tiny_skia::FillRule::Winding, closed: false, radii: None, oval: false })
        }
        NodeType::Polygon => {
            let count = props.literal::<f64>(&Key::PolygonCount).filter(|n| n.is_finite()).unwrap_or(3.0);
            let radius = corner_radii(props)[0];
            let path = polygon(count.clamp(3.0, 1000.0) as usize, width, height, radius)?;
            Some(Shape { path, fill_rule: tiny_skia::FillRule::Winding, closed: true, radii: None, oval: false })
        }
        NodeType::Path => {
            let data = props.text(&Key::Geometry)?;
            let path = svg_path(data, view_box(props), width, height)?;
            let fill_rule = match props.literal::<FillRule>(&Key::FillRule) {
                Some(FillRule::EvenOdd) => tiny_skia::FillRule::EvenOdd,
                _ => tiny_skia::FillRule::Winding,
            };
            Some(Shape { path, fill_rule, closed: true, radii: None, oval: false })
        }
        _ => None,
    }
}

/// `cornerRadius` as `[top-left, top-right, bottom-right, bottom-left]`, 0 where unusable.
pub(crate) fn corner_radii(props: &Props) -> [f32; 4] {
    let radius = |v: &VarOr<f64>| v.value().copied().filter(|r| r.is_finite() && *r > 0.0).unwrap_or(0.0) as f32;
    match props.get(&Key::CornerRadius) {
        Some(Value::CornerRadius(CornerRadius::Uniform(r))) => [radius(r); 4],
        Some(Value::CornerRadius(CornerRadius::Corners(radii))) => {
            [radius(&radii[0]), radius(&radii[1]), radius(&radii[2]), radius(&radii[3])]
        }
        _ => [0.0; 4],
    }
}

/// Radii scaled down together, as CSS does, so that adjacent ones never overlap.
pub(crate) fn scaled_radii(radii: [f32; 4], width: f32, height: f32) -> [f32; 4] {
    let [tl, tr, br, bl] = radii;
    let ratio = |length: f32, sum: f32| if sum > length && sum > 0.0 { length / sum } else { 1.0 };
    let factor =
        ratio(width, tl + tr).min(ratio(width, bl + br)).min(ratio(height, tl + bl)).min(ratio(height, tr + br));
    radii.map(|r| (r * factor).max(0.0))
}

/// An ellipse in its box, or the arc or ring `startAngle`, `sweepAngle` and `innerRadius` make
/// of it. Angles are degrees counter-clockwise from the right (3 o'clock).
fn ellipse(props: &Props, width: f32, height: f32) -> Option<Shape> {
    let number = |key: &Key| props.literal::<f64>(key).filter(|n| n.is_finite()).map(|n| n as f32);
    let inner = number(&Key::InnerRadius).unwrap_or(0.0).clamp(0.0, 1.0);
    let start = number(&Key::StartAngle).unwrap_or(0.0);
    let sweep = number(&Key::SweepAngle).unwrap_or(360.0).clamp(-360.0, 360.0);
    let (rx, ry, cx, cy) = (width / 2.0, height / 2.0, width / 2.0, height / 2.0);
    if !(rx > 0.0 && ry > 0.0) || sweep == 0.0 {
        return None;
    }
    let mut b = PathBuilder::new();
    let full = sweep.abs() >= 360.0;
    if full {
        b.push_oval(Rect::from_xywh(0.0, 0.0, width, height)?);
        if inner > 0.0 {
            let (irx, iry) = (rx * inner, ry * inner);
            b.push_oval(Rect::from_xywh(cx - irx, cy - iry, irx * 2.0, iry * 2.0)?);
        }
        let fill_rule = if inner > 0.0 { tiny_skia::FillRule::EvenOdd } else { tiny_skia::FillRule::Winding };
        return Some(Shape { path: b.finish()?, fill_rule, closed: true, radii: None, oval: inner <= 0.0 });
    }
    // Screen y points down: counter-clockwise angles are negative there.
    let (from, to) = (-start.to_radians(), -(start + sweep).to_radians());
    let point = |rx: f32, ry: f32, angle: f32| (cx + rx * angle.cos(), cy + ry * angle.sin());
    let (sx, sy) = point(rx, ry, from);
    b.move_to(sx, sy);
    arc_to(&mut b, cx, cy, rx, ry, from, to);
    if inner > 0.0 {
        let (irx, iry) = (rx * inner, ry * inner);
        let (ex, ey) = point(irx, iry, to);
        b.line_to(ex, ey);
        arc_to(&mut b, cx, cy, irx, iry, to, from);
    } else {
        b.line_to(cx, cy);
    }
    b.close();
    Some(Shape { path: b.finish()?, fill_rule: tiny_skia::FillRule::Winding, closed: true, radii: None, oval: false })
}

/// Appends an elliptical arc from angle `from` to `to` (radians, screen orientation), as cubic
/// segments of at most a quarter turn.
fn arc_to(b: &mut PathBuilder, cx: f32, cy: f32, rx: f32, ry: f32, from: f32, to: f32) {
    let segments = ((to - from).abs() / (PI / 2.0)).ceil().max(1.0) as usize;
    let step = (to - from) / segments as f32;
    let handle = 4.0 / 3.0 * (step / 4.0).tan();
    let mut angle = from;
    for _ in 0..segments {
        let next = angle + step;
        let (c0, s0, c1, s1) = (angle.cos(), angle.sin(), next.cos(), next.sin());
        b.cubic_to(
            cx + rx * (c0 - handle * s0),
            cy + ry * (s0 + handle * c0),
            cx + rx * (c1 + handle * s1),
            cy + ry * (s1 - handle * c1),
            cx + rx * c1,
            cy + ry * s1,
        );
        angle = next;
    }
}

/// A regular polygon with `count` vertices on the ellipse inscribed in the box, the first at the
/// top, with corners rounded by `radius`.
fn polygon(count: usize, width: f32, height: f32, radius: f32) -> Option<Path> {
    let (cx, cy, rx, ry) = (width / 2.0, height / 2.0, width / 2.0, height / 2.0);
    let vertices: Vec<(f32, f32)> = (0..count)
        .map(|i| {
            let angle = -PI / 2.0 + 2.0 * PI * i as f32 / count as f32;
            (cx + rx * angle.cos(), cy + ry * angle.sin())
        })
        .collect();
    let mut b = PathBuilder::new();
    if radius <= 0.0 {
        b.move_to(vertices[0].0, vertices[0].1);
        for (x, y) in &vertices[1..] {
            b.line_to(*x, *y);
        }
        b.close();
        return b.finish();
    }
    // Each corner is cut back along both edges by up to half the edge, and joined by a curve
    // through the corner's control point.
    for i in 0..count {
        let (prev, here, next) = (vertices[(i + count - 1) % count], vertices[i], vertices[(i + 1) % count]);
        let toward = |to: (f32, f32)| {
            let (dx, dy) = (to.0 - here.0, to.1 - here.1);
            let length = (dx * dx + dy * dy).sqrt().max(f32::EPSILON);
            let cut = radius.min(length / 2.0);
            (here.0 + dx / length * cut, here.1 + dy / length * cut)
        };
        let (start, end) = (toward(prev), toward(next));
        if i == 0 {
            b.move_to(start.0, start.1);
        } else {
            b.line_to(start.0, start.1);
        }
        b.quad_to(here.0, here.1, end.0, end.1);
    }
    b.close();
    b.finish()
}

/// SVG path data mapped onto the box: the `viewBox` region when there is one, otherwise its
/// tight bounds moved to the box's corner, stretched on each axis to the box (what Pen 2.17+
/// draws; the Scene gives older documents' paths the `viewBox` that scales them in place, see
/// `resolve/format.rs`). An axis of no extent is moved, not scaled.
fn svg_path(data: &str, view_box: Option<[f32; 4]>, width: f32, height: f32) -> Option<Path> {
    let path = parse_svg_path(data)?;
    let [x, y, w, h] = match view_box {
        Some(view_box) => view_box,
        None => {
            let bounds = path.compute_tight_bounds()?;
            [bounds.left(), bounds.top(), bounds.width(), bounds.height()]
        }
    };
    let sx = if w > 0.0 { width / w } else { 1.0 };
    let sy = if h > 0.0 { height / h } else { 1.0 };
    path.transform(Transform::from_row(sx, 0.0, 0.0, sy, -x * sx, -y * sy))
}

/// A path's `viewBox` `[x, y, width, height]`, when it has a usable one (a region of no
/// extent falls back to the tight bounds, as in Pen).
fn view_box(props: &Props) -> Option<[f32; 4]> {
    let Some(Value::Numbers(numbers)) = props.get(&Key::ViewBox) else { return None };
    let values: Vec<f32> = numbers.iter().filter_map(|n| n.value().copied()).map(|n| n as f32).collect();
    match values.as_slice() {
        [x, y, w, h] if [x, y, w, h].iter().all(|n| n.is_finite()) && *w > 0.0 && *h > 0.0 => Some([*x, *y, *w, *h]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radii_scale_down_together_like_css() {
        assert_eq!(scaled_radii([10.0; 4], 100.0, 100.0), [10.0; 4]);
        assert_eq!(scaled_radii([100.0; 4], 100.0, 50.0), [25.0; 4]);
        assert_eq!(scaled_radii([60.0, 60.0, 0.0, 0.0], 100.0, 100.0), [50.0, 50.0, 0.0, 0.0]);
    }

    #[test]
    fn svg_paths_fit_the_box_or_map_their_view_box() {
        // No viewBox (2.17+): the tight bounds move to the corner and stretch to the box.
        let path = svg_path("M10 10 L30 10 L30 20 Z", None, 40.0, 20.0).expect("path");
        let bounds = path.bounds();
        assert_eq!((bounds.left(), bounds.top(), bounds.width(), bounds.height()), (0.0, 0.0, 40.0, 20.0));
        // The viewBox the Scene gives older documents' paths: scaled in place.
        let path = svg_path("M10 10 L30 10 L30 20 Z", Some([0.0, 0.0, 20.0, 10.0]), 40.0, 20.0).expect("path");
        let bounds = path.bounds();
        assert_eq!((bounds.left(), bounds.top(), bounds.width(), bounds.height()), (20.0, 20.0, 40.0, 20.0));
        // A viewBox region larger than the geometry: the geometry sits inside it.
        let path = svg_path("M10 10 L30 10 L30 20 Z", Some([0.0, 0.0, 40.0, 40.0]), 200.0, 200.0).expect("path");
        let bounds = path.bounds();
        assert_eq!((bounds.left(), bounds.top(), bounds.width(), bounds.height()), (50.0, 50.0, 100.0, 50.0));
        assert!(parse_svg_path("nonsense").is_none());
        assert!(parse_svg_path("M0 0 L10 10 Q").is_some(), "what came before an error is kept");
    }

    #[test]
    fn polygons_start_at_the_top() {
        let path = polygon(3, 100.0, 100.0, 0.0).expect("triangle");
        let first = path.points()[0];
        assert!((first.x - 50.0).abs() < 1e-3 && first.y.abs() < 1e-3);
        assert!(polygon(6, 100.0, 80.0, 8.0).is_some());
    }

    #[test]
    fn arcs_and_rings_are_closed_shapes() {
        let mut props = Props::default();
        props.set(Key::SweepAngle, Value::Number(VarOr::Value(90.0)));
        let pie = ellipse(&props, 100.0, 100.0).expect("pie");
        let bounds = pie.path.bounds();
        // A quarter from 3 o'clock counter-clockwise: the top-right quadrant.
        assert!((bounds.left() - 50.0).abs() < 0.5 && bounds.top().abs() < 0.5 && (bounds.bottom() - 50.0).abs() < 0.5);
        props.set(Key::SweepAngle, Value::Number(VarOr::Value(360.0)));
        props.set(Key::InnerRadius, Value::Number(VarOr::Value(0.5)));
        let ring = ellipse(&props, 100.0, 100.0).expect("ring");
        assert_eq!(ring.fill_rule, tiny_skia::FillRule::EvenOdd);
    }
}
