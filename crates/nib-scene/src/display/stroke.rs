//! Strokes: what a node's stroke keys say (the ≤ 2.11 object or the 2.13 flat keys), and the
//! outline each alignment paints. Rectangles and ellipses get their stroke as an exact ring
//! between two outlines (inside, centre or outside; per-side widths); other shapes are stroked
//! and cut to their inside or outside.

use tiny_skia::{LineCap, LineJoin, Path, PathBuilder, Rect, StrokeDash};

use super::geometry::{Shape, rounded_rect};
use crate::doc::values::{
    Fill, LineCap as PenLineCap, Stroke, StrokeAlign, StrokeAlignment, StrokeCap, StrokeJoin, Thickness,
};
use crate::doc::{Key, Props, Value, VarOr};

/// Where a stroke lies relative to the outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Inside,
    Center,
    Outside,
}

/// A node's stroke, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct StrokeSpec {
    pub fills: Vec<Fill>,
    pub align: Align,
    /// top, right, bottom, left
    pub widths: [f32; 4],
    pub join: LineJoin,
    pub cap: LineCap,
    pub dash: Option<Vec<f32>>,
    pub miter_limit: f32,
}

impl StrokeSpec {
    /// The widest side.
    pub(crate) fn max_width(&self) -> f32 {
        self.widths.iter().copied().fold(0.0, f32::max)
    }

    /// How far the stroke reaches outside the outline.
    pub(crate) fn outer_extent(&self) -> f32 {
        match self.align {
            Align::Inside => 0.0,
            Align::Center => self.max_width() / 2.0,
            Align::Outside => self.max_width(),
        }
    }

    /// tiny-skia's stroke for `width` (dash pattern and ends included).
    pub fn tiny_stroke(&self, width: f32) -> tiny_skia::Stroke {
        tiny_skia::Stroke {
            width,
            miter_limit: self.miter_limit,
            line_cap: self.cap,
            line_join: self.join,
            dash: self.dash.clone().and_then(|dash| StrokeDash::new(dash, 0.0)),
        }
    }
}

/// The stroke of a node, or `None` when it has none that paints (no width, disabled, no paint).
pub(crate) fn stroke_spec(props: &Props) -> Option<StrokeSpec> {
    let number = |v: &VarOr<f64>| v.value().copied().filter(|n| n.is_finite() && *n > 0.0).unwrap_or(0.0) as f32;
    let widths_of = |thickness: &Thickness| match thickness {
        Thickness::Uniform(width) => [number(width); 4],
        Thickness::Sides(sides) => {
            let side = |v: &Option<VarOr<f64>>| v.as_ref().map_or(0.0, number);
            [side(&sides.top), side(&sides.right), side(&sides.bottom), side(&sides.left)]
        }
    };
    let mut spec = StrokeSpec {
        fills: Vec::new(),
        align: Align::Inside,
        widths: [0.0; 4],
        join: LineJoin::Miter,
        cap: LineCap::Butt,
        dash: None,
        miter_limit: 4.0,
    };
    match props.get(&Key::Stroke)? {
        Value::Stroke(Stroke::Object(object)) => {
            if matches!(object.enabled, Some(VarOr::Value(false))) {
                return None;
            }
            spec.fills = object.fill.as_ref()?.as_slice().to_vec();
            spec.widths = object.thickness.as_ref().map_or([0.0; 4], widths_of);
            spec.align = match object.align {
                Some(StrokeAlign::Center) => Align::Center,
                Some(StrokeAlign::Outside) => Align::Outside,
                _ => Align::Inside,
            };
            spec.join = match object.join {
                Some(StrokeJoin::Bevel) => LineJoin::Bevel,
                Some(StrokeJoin::Round) => LineJoin::Round,
                _ => LineJoin::Miter,
            };
            spec.cap = match object.cap {
                Some(StrokeCap::Round) => LineCap::Round,
                Some(StrokeCap::Square) => LineCap::Square,
                _ => LineCap::Butt,
            };
            let dash: Vec<f32> = object.dash_pattern.iter().flatten().map(number).collect();
            if dash.iter().any(|d| *d > 0.0) {
                // An odd list repeats, as in SVG.
                let dash = if dash.len() % 2 == 1 { [dash.clone(), dash].concat() } else { dash };
                spec.dash = Some(dash);
            }
            if let Some(angle) =
                object.miter_angle.as_ref().and_then(|a| a.value().copied()).filter(|a| *a > 0.0 && *a < 180.0)
            {
                spec.miter_limit = (1.0 / (angle.to_radians() / 2.0).sin()) as f32;
            }
        }
        Value::Stroke(Stroke::Paint(fills)) => {
            spec.fills = fills.as_slice().to_vec();
            spec.widths = match props.get(&Key::StrokeWidth) {
                Some(Value::StrokeWidth(thickness)) => widths_of(thickness),
                _ => [0.0; 4],
            };
            spec.align = match props.literal::<StrokeAlignment>(&Key::StrokeAlignment) {
                Some(StrokeAlignment::Center) => Align::Center,
                Some(StrokeAlignment::Outer) => Align::Outside,
                _ => Align::Inside,
            };
            // 2.17's ends and corners (absent: butt and miter).
            spec.cap = match props.literal::<PenLineCap>(&Key::StrokeLinecap) {
                Some(PenLineCap::Round) => LineCap::Round,
                Some(PenLineCap::Square) => LineCap::Square,
                _ => LineCap::Butt,
            };
            spec.join = match props.literal::<StrokeJoin>(&Key::StrokeLinejoin) {
                Some(StrokeJoin::Bevel) => LineJoin::Bevel,
                Some(StrokeJoin::Round) => LineJoin::Round,
                _ => LineJoin::Miter,
            };
        }
        _ => return None,
    }
    (spec.max_width() > 0.0 && !spec.fills.is_empty()).then_some(spec)
}

/// How to paint a stroke.
pub enum StrokeOutline {
    /// Fill this ring (even-odd).
    Ring(Path),
    /// Stroke the outline this wide, then keep only the inside (or outside) of the shape.
    Cut { width: f32, keep: Keep },
}

/// The part of a cut stroke that stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    All,
    Inside,
    Outside,
}

/// A stroke as a vector format (SVG, PDF) draws it: a ring filled when its sides differ in
/// width; otherwise the outline stroked by the format itself, as wide as [`StrokeOutline::Cut`]
/// says (a uniform ring is an outline stroked twice as wide and cut inside or outside), which
/// keeps dashes, ends and corners the format's own.
pub fn vector_stroke(shape: &Shape, spec: &StrokeSpec, width: f32, height: f32) -> Option<StrokeOutline> {
    let uniform = spec.widths.iter().all(|w| *w == spec.widths[0]);
    Some(match stroke_outline(shape, spec, width, height)? {
        StrokeOutline::Ring(ring) if !uniform => StrokeOutline::Ring(ring),
        StrokeOutline::Ring(_) => {
            let w = spec.widths[0];
            match spec.align {
                Align::Inside => StrokeOutline::Cut { width: 2.0 * w, keep: Keep::Inside },
                Align::Center => StrokeOutline::Cut { width: w, keep: Keep::All },
                Align::Outside => StrokeOutline::Cut { width: 2.0 * w, keep: Keep::Outside },
            }
        }
        cut => cut,
    })
}

/// The outline of `spec` on `shape` in a `width` × `height` box; `None` when it paints
/// nothing (an inside stroke on a line).
pub fn stroke_outline(shape: &Shape, spec: &StrokeSpec, width: f32, height: f32) -> Option<StrokeOutline> {
    if spec.dash.is_none() && (shape.radii.is_some() || shape.oval) {
        return ring(shape, spec, width, height).map(StrokeOutline::Ring);
    }
    let w = spec.max_width();
    Some(match (spec.align, shape.closed) {
        (Align::Center, _) => StrokeOutline::Cut { width: w, keep: Keep::All },
        (Align::Inside, false) => return None,
        // A line has no inside: all of a doubled stroke is outside it.
        (Align::Outside, false) => StrokeOutline::Cut { width: 2.0 * w, keep: Keep::All },
        (Align::Inside, true) => StrokeOutline::Cut { width: 2.0 * w, keep: Keep::Inside },
        (Align::Outside, true) => StrokeOutline::Cut { width: 2.0 * w, keep: Keep::Outside },
    })
}

/// The stroke of a rectangle or ellipse as the ring between an outer and an inner outline.
fn ring(shape: &Shape, spec: &StrokeSpec, width: f32, height: f32) -> Option<Path> {
    let [top, right, bottom, left] = spec.widths;
    // How far the outer and inner outlines lie outside the box, per side.
    let (outer, inner): ([f32; 4], [f32; 4]) = match spec.align {
        Align::Inside => ([0.0; 4], [-top, -right, -bottom, -left]),
        Align::Center => {
            ([top / 2.0, right / 2.0, bottom / 2.0, left / 2.0], [-top / 2.0, -right / 2.0, -bottom / 2.0, -left / 2.0])
        }
        Align::Outside => ([top, right, bottom, left], [0.0; 4]),
    };
    let mut builder = PathBuilder::new();
    for grow in [outer, inner] {
        let [t, r, b, l] = grow;
        let (x, y, w, h) = (-l, -t, width + l + r, height + t + b);
        if !(w > 0.0 && h > 0.0) {
            continue;
        }
        let path = if shape.oval {
            Rect::from_xywh(x, y, w, h).and_then(PathBuilder::from_oval)
        } else {
            // Radii follow the outline: grown outward, shrunk inward, never below zero.
            let radii = shape.radii.unwrap_or([0.0; 4]);
            let corner =
                |radius: f32, a: f32, b: f32| if radius > 0.0 { (radius + (a + b) / 2.0).max(0.0) } else { 0.0 };
            let radii =
                [corner(radii[0], t, l), corner(radii[1], t, r), corner(radii[2], b, r), corner(radii[3], b, l)];
            rounded_rect(x, y, w, h, super::geometry::scaled_radii(radii, w, h))
        };
        if let Some(path) = path {
            builder.push_path(&path);
        }
    }
    builder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::geometry::shape_of;

    fn props(json: &str) -> Props {
        let doc = crate::doc::Document::load(&format!(r#"{{"version":"2.11","children":[{json}]}}"#)).expect("valid");
        let root = doc.document.tree().roots()[0];
        doc.document.tree().node(root).props.clone()
    }

    #[test]
    fn both_spellings_of_a_stroke_read_the_same() {
        let old = stroke_spec(&props(
            r##"{"type":"rectangle","id":"r","stroke":{"align":"outside","thickness":2,"fill":"#000"}}"##,
        ))
        .expect("2.11");
        let new = stroke_spec(&props(
            r##"{"type":"rectangle","id":"r","stroke":"#000","strokeWidth":2,"strokeAlignment":"outer"}"##,
        ))
        .expect("2.13");
        assert_eq!((old.align, old.widths), (Align::Outside, [2.0; 4]));
        assert_eq!((new.align, new.widths), (Align::Outside, [2.0; 4]));
        assert!(
            stroke_spec(&props(r##"{"type":"rectangle","id":"r","stroke":{"fill":"#000"}}"##)).is_none(),
            "no width, no stroke"
        );
        let default = stroke_spec(&props(r##"{"type":"rectangle","id":"r","stroke":{"thickness":1,"fill":"#000"}}"##))
            .expect("stroke");
        assert_eq!(default.align, Align::Inside);
    }

    #[test]
    fn rectangle_strokes_are_rings_inside_centered_or_outside() {
        let rect = props(
            r##"{"type":"rectangle","id":"r","width":100,"height":50,"stroke":{"align":"outside","thickness":4,"fill":"#000"}}"##,
        );
        let shape = shape_of(crate::doc::NodeType::Rectangle, &rect, 100.0, 50.0).expect("shape");
        let spec = stroke_spec(&rect).expect("stroke");
        let Some(StrokeOutline::Ring(ring)) = stroke_outline(&shape, &spec, 100.0, 50.0) else { panic!("a ring") };
        let bounds = ring.bounds();
        assert_eq!((bounds.left(), bounds.top(), bounds.width(), bounds.height()), (-4.0, -4.0, 108.0, 58.0));
    }

    #[test]
    fn lines_have_no_inside() {
        let line = props(r##"{"type":"line","id":"l","width":100,"height":0,"stroke":{"thickness":2,"fill":"#000"}}"##);
        let shape = shape_of(crate::doc::NodeType::Line, &line, 100.0, 0.0).expect("line");
        let spec = stroke_spec(&line).expect("stroke");
        assert!(stroke_outline(&shape, &spec, 100.0, 0.0).is_none(), "inside stroke on a line draws nothing");
    }
}
