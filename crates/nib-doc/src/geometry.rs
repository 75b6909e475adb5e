//! Paths that several rooms draw: rounded rectangles and SVG path data, as tiny-skia paths
//! (shapes, lucide icons).

use tiny_skia::{Path, PathBuilder, Rect};

/// Magic number for approximating a quarter circle with a cubic Bézier.
const KAPPA: f32 = 0.552_284_8;

/// A rectangle with per-corner radii (already scaled to fit).
pub fn rounded_rect(x: f32, y: f32, width: f32, height: f32, radii: [f32; 4]) -> Option<Path> {
    if !(width > 0.0 && height > 0.0) {
        return None;
    }
    if radii.iter().all(|r| *r <= 0.0) {
        return Some(PathBuilder::from_rect(Rect::from_xywh(x, y, width, height)?));
    }
    let [tl, tr, br, bl] = radii;
    let (right, bottom) = (x + width, y + height);
    let mut b = PathBuilder::new();
    b.move_to(x + tl, y);
    b.line_to(right - tr, y);
    if tr > 0.0 {
        b.cubic_to(right - tr + tr * KAPPA, y, right, y + tr - tr * KAPPA, right, y + tr);
    }
    b.line_to(right, bottom - br);
    if br > 0.0 {
        b.cubic_to(right, bottom - br + br * KAPPA, right - br + br * KAPPA, bottom, right - br, bottom);
    }
    b.line_to(x + bl, bottom);
    if bl > 0.0 {
        b.cubic_to(x + bl - bl * KAPPA, bottom, x, bottom - bl + bl * KAPPA, x, bottom - bl);
    }
    b.line_to(x, y + tl);
    if tl > 0.0 {
        b.cubic_to(x, y + tl - tl * KAPPA, x + tl - tl * KAPPA, y, x + tl, y);
    }
    b.close();
    b.finish()
}

/// Parses SVG path data; `None` when it holds no drawable segment or is malformed before any.
pub fn parse_svg_path(data: &str) -> Option<Path> {
    use svgtypes::SimplePathSegment as Segment;
    let mut b = PathBuilder::new();
    for segment in svgtypes::SimplifyingPathParser::from(data) {
        // Malformed data ends the path where it stops making sense, as browsers do.
        let Ok(segment) = segment else { break };
        match segment {
            Segment::MoveTo { x, y } => b.move_to(x as f32, y as f32),
            Segment::LineTo { x, y } => b.line_to(x as f32, y as f32),
            Segment::Quadratic { x1, y1, x, y } => b.quad_to(x1 as f32, y1 as f32, x as f32, y as f32),
            Segment::CurveTo { x1, y1, x2, y2, x, y } => {
                b.cubic_to(x1 as f32, y1 as f32, x2 as f32, y2 as f32, x as f32, y as f32)
            }
            Segment::ClosePath => b.close(),
        }
    }
    b.finish()
}
