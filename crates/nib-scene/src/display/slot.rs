//! The placeholder Pen draws in an empty slot of a component's own frame: a rounded box inset
//! from the slot's box, outlined and hatched in violet, showing where an instance's content
//! goes. Measured on ten of Pen's exports (DECISIONS.md, "An empty slot"); instances draw
//! nothing in an empty slot.
//!
//! The placeholder is built here as two outlines to fill with [`SLOT_INK`] (its frame and its
//! hatching, both already stroked and the hatching already cut to the frame), so every writer
//! draws it with the one operation it surely has: filling a path with a colour.

use tiny_skia::{Path, PathBuilder, Stroke};

use super::geometry::{rounded_rect, scaled_radii};

/// The colour of the placeholder's lines (#D480FF in Pen's exports).
pub const SLOT_INK: [u8; 4] = [212, 128, 255, 255];

/// How far the placeholder's frame lies inside the slot's box, on every side.
const INSET: f32 = 10.0;

/// The width of the frame's line and of each hatch line.
const LINE_WIDTH: f32 = 1.0;

/// Hatch lines run at 45° down to the right, one every `HATCH_STEP` pixels along a row.
const HATCH_STEP: f32 = 7.0;

/// Where along a row the hatching starts. Pen's exports show it at 2.9–6.0 px from the frame's
/// corner (a pattern fixed to the canvas, whose origin an export does not show); nib fixes it
/// to the slot's own corner, halfway.
const HATCH_PHASE: f32 = 3.5;

/// Most hatch lines one placeholder draws (a slot up to about 70,000 px across and down): a
/// larger slot, which no screen shows whole, gets its frame alone rather than millions of lines.
const MAX_HATCH_LINES: i64 = 10_000;

/// Segments per rounded corner when the frame is cut into a polygon for the hatching.
const CORNER_SEGMENTS: usize = 12;

/// The two outlines that draw the placeholder, in the slot's own coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotPlaceholder {
    /// The frame's line, as an outline to fill.
    pub frame: Path,
    /// The hatch lines inside the frame, as an outline to fill; `None` when none fits.
    pub hatching: Option<Path>,
}

impl SlotPlaceholder {
    /// The outlines to fill with [`SLOT_INK`], in order.
    pub fn outlines(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(&self.frame).chain(self.hatching.as_ref())
    }
}

/// The placeholder of an empty slot of `width` × `height` whose frame has `radii` (top-left,
/// top-right, bottom-right, bottom-left, as written); `None` when the slot is too small to hold
/// one.
pub fn placeholder(width: f32, height: f32, radii: [f32; 4]) -> Option<SlotPlaceholder> {
    let (inner_width, inner_height) = (width - 2.0 * INSET, height - 2.0 * INSET);
    if !(inner_width > LINE_WIDTH && inner_height > LINE_WIDTH && inner_width.is_finite() && inner_height.is_finite()) {
        return None;
    }
    // The frame follows the slot's corners at its inset: a pill stays a pill.
    let radii =
        scaled_radii(scaled_radii(radii, width, height).map(|r| (r - INSET).max(0.0)), inner_width, inner_height);
    let outline = rounded_rect(INSET, INSET, inner_width, inner_height, radii)?;
    let line = Stroke { width: LINE_WIDTH, ..Stroke::default() };
    let frame = outline.stroke(&line, 1.0)?;
    // Lines x − y = c for c = HATCH_PHASE + k · HATCH_STEP that cross the frame's box.
    let first = ((INSET - (INSET + inner_height) - HATCH_PHASE) / HATCH_STEP).ceil() as i64;
    let last = (((INSET + inner_width) - INSET - HATCH_PHASE) / HATCH_STEP).floor() as i64;
    if last - first + 1 > MAX_HATCH_LINES {
        return Some(SlotPlaceholder { frame, hatching: None });
    }
    let polygon = rounded_polygon(INSET, INSET, inner_width, inner_height, radii);
    let mut hatch = PathBuilder::new();
    for k in first..=last {
        let c = HATCH_PHASE + k as f32 * HATCH_STEP;
        if let Some(((x0, y0), (x1, y1))) = clip_diagonal(&polygon, c) {
            hatch.move_to(x0, y0);
            hatch.line_to(x1, y1);
        }
    }
    let hatching = hatch.finish().and_then(|lines| lines.stroke(&line, 1.0));
    Some(SlotPlaceholder { frame, hatching })
}

/// The rounded rectangle as a convex polygon, clockwise on a screen (y down).
fn rounded_polygon(x: f32, y: f32, width: f32, height: f32, radii: [f32; 4]) -> Vec<(f32, f32)> {
    let [top_left, top_right, bottom_right, bottom_left] = radii;
    // Each corner: its circle's centre, its radius, and the angle its quarter starts at.
    let corners = [
        (x + top_left, y + top_left, top_left, std::f32::consts::PI),
        (x + width - top_right, y + top_right, top_right, 1.5 * std::f32::consts::PI),
        (x + width - bottom_right, y + height - bottom_right, bottom_right, 0.0),
        (x + bottom_left, y + height - bottom_left, bottom_left, 0.5 * std::f32::consts::PI),
    ];
    let mut points = Vec::with_capacity(4 * (CORNER_SEGMENTS + 1));
    for (cx, cy, r, start) in corners {
        if r <= 0.0 {
            points.push((cx, cy));
            continue;
        }
        for step in 0..=CORNER_SEGMENTS {
            let angle = start + std::f32::consts::FRAC_PI_2 * step as f32 / CORNER_SEGMENTS as f32;
            points.push((cx + r * angle.cos(), cy + r * angle.sin()));
        }
    }
    points
}

/// The part of the line x − y = `c` inside the convex `polygon` (clockwise on a screen), from
/// its top-left end to its bottom-right end; `None` when the line misses it.
fn clip_diagonal(polygon: &[(f32, f32)], c: f32) -> Option<((f32, f32), (f32, f32))> {
    // Points of the line: (c + t, t).
    let (mut low, mut high) = (f32::NEG_INFINITY, f32::INFINITY);
    for (i, &(ax, ay)) in polygon.iter().enumerate() {
        let (bx, by) = polygon[(i + 1) % polygon.len()];
        // Clockwise on a screen, the inside lies to the right of each edge: cross ≥ 0.
        let (ex, ey) = (bx - ax, by - ay);
        if ex.abs() + ey.abs() < 1e-3 {
            // Where two corners meet (a pill's straight side of length 0): no edge.
            continue;
        }
        // cross(e, p − a) for p = (c + t, t) is base + slope · t.
        let base = ex * (0.0 - ay) - ey * (c - ax);
        let slope = ex - ey;
        if slope.abs() < 1e-6 {
            if base < -1e-3 {
                return None;
            }
        } else if slope > 0.0 {
            low = low.max(-base / slope);
        } else {
            high = high.min(-base / slope);
        }
    }
    (low < high && low.is_finite() && high.is_finite()).then_some(((c + low, low), (c + high, high)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_lies_ten_pixels_in_and_the_hatching_inside_it() {
        let placeholder = placeholder(140.0, 40.0, [0.0; 4]).unwrap();
        let frame = placeholder.frame.bounds();
        assert_eq!((frame.left(), frame.top(), frame.right(), frame.bottom()), (9.5, 9.5, 130.5, 30.5));
        let hatching = placeholder.hatching.unwrap().bounds();
        assert!(hatching.left() >= 9.0 && hatching.right() <= 131.0, "{hatching:?}");
        assert!(hatching.top() >= 9.0 && hatching.bottom() <= 31.0, "{hatching:?}");
    }

    #[test]
    fn a_line_is_cut_to_the_rounded_corner() {
        let square = rounded_polygon(0.0, 0.0, 20.0, 20.0, [0.0; 4]);
        assert_eq!(clip_diagonal(&square, 0.0), Some(((0.0, 0.0), (20.0, 20.0))));
        assert_eq!(clip_diagonal(&square, 5.0), Some(((5.0, 0.0), (20.0, 15.0))));
        assert_eq!(clip_diagonal(&square, 25.0), None);
        // A circle of radius 10: the diagonal through its centre crosses it at ±10/√2.
        let circle = rounded_polygon(0.0, 0.0, 20.0, 20.0, [10.0; 4]);
        let ((x0, _), (x1, _)) = clip_diagonal(&circle, 0.0).unwrap();
        assert!((x0 - (10.0 - 10.0 / 2f32.sqrt())).abs() < 0.05, "{x0}");
        assert!((x1 - (10.0 + 10.0 / 2f32.sqrt())).abs() < 0.05, "{x1}");
    }

    #[test]
    fn a_slot_too_large_to_show_whole_keeps_its_frame_without_millions_of_lines() {
        let huge = placeholder(1.0e9, 40.0, [0.0; 4]).unwrap();
        assert!(huge.hatching.is_none());
        assert!(placeholder(f32::NAN, 40.0, [0.0; 4]).is_none());
        assert!(placeholder(f32::INFINITY, 40.0, [0.0; 4]).is_none());
    }

    #[test]
    fn a_pill_stays_a_pill_and_a_small_slot_has_none() {
        let pill = placeholder(93.0, 40.0, [9999.0; 4]).unwrap();
        let bounds = pill.frame.bounds();
        assert_eq!((bounds.top(), bounds.bottom()), (9.5, 30.5));
        assert!(placeholder(20.0, 40.0, [0.0; 4]).is_none());
    }
}
