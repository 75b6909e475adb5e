//! A node's turn — its rotation and flips — and the box it takes in its parent once turned.
//!
//! Pen carries a node's own box (`0, 0, width, height`; a group's is the union of its children)
//! into its parent by translating it to the node's x/y (its anchor), turning it counter-clockwise
//! by `rotation` degrees about that anchor and mirroring it there (`flipX`, `flipY`), in that
//! order: `T(x, y) · R(−rotation) · S(flip)`. The parent lays out, and Pen reports, the
//! axis-aligned bounds of the turned box (DECISIONS.md, Layout: "Turned and flipped nodes").

/// How a node is turned and mirrored about its anchor.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Turn {
    /// Degrees counter-clockwise, in `[0, 360)`.
    pub rotation: f32,
    /// Mirrored left to right about the anchor.
    pub flip_x: bool,
    /// Mirrored top to bottom about the anchor.
    pub flip_y: bool,
}

/// An axis-aligned rectangle: its corner and size.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounds {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

impl Turn {
    /// True when the node is neither turned nor mirrored.
    pub fn is_identity(&self) -> bool {
        self.rotation == 0.0 && !self.flip_x && !self.flip_y
    }

    /// A point of the node's own space (its anchor at 0, 0) in its parent's, relative to the
    /// anchor.
    fn apply(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let x = if self.flip_x { -x } else { x };
        let y = if self.flip_y { -y } else { y };
        // Counter-clockwise on a screen whose y axis points down.
        let (sin, cos) = f64::from(self.rotation).to_radians().sin_cos();
        (x * cos + y * sin, -x * sin + y * cos)
    }

    /// The axis-aligned bounds, relative to the anchor, of `rect` (in the node's own space)
    /// once turned.
    pub fn bounds(&self, rect: Bounds) -> Bounds {
        if self.is_identity() {
            return rect;
        }
        let (x0, y0) = (f64::from(rect.x), f64::from(rect.y));
        let (x1, y1) = (x0 + f64::from(rect.width), y0 + f64::from(rect.height));
        let corners = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].map(|corner| self.apply(corner));
        let (mut min, mut max) = ((f64::INFINITY, f64::INFINITY), (f64::NEG_INFINITY, f64::NEG_INFINITY));
        for (x, y) in corners {
            min = (min.0.min(x), min.1.min(y));
            max = (max.0.max(x), max.1.max(y));
        }
        // Turns by quarters land on whole numbers: no 1e-15 of noise in a reported box.
        let clean = |n: f64| if (n - n.round()).abs() < 1e-9 { n.round() } else { n };
        Bounds {
            x: clean(min.0) as f32,
            y: clean(min.1) as f32,
            width: clean(max.0 - min.0) as f32,
            height: clean(max.1 - min.1) as f32,
        }
    }
}

/// Degrees in `[0, 360)`; not a number counts as 0.
pub(super) fn normalized(degrees: f64) -> f32 {
    if !degrees.is_finite() {
        return 0.0;
    }
    let turned = degrees.rem_euclid(360.0);
    if turned >= 360.0 { 0.0 } else { turned as f32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Bounds, b: [f64; 4]) -> bool {
        [a.x, a.y, a.width, a.height].iter().zip(b).all(|(a, b)| (f64::from(*a) - b).abs() < 0.01)
    }

    #[test]
    fn a_turned_box_takes_its_bounds() {
        // Pen: a 200 × 60 rectangle at (80, 60) turned −20° is (59.48, 60, 208.46 × 124.79)
        // (woodcase render-rotated-free, Ra001).
        let turn = Turn { rotation: normalized(-20.0), ..Turn::default() };
        let bounds = turn.bounds(Bounds { x: 0.0, y: 0.0, width: 200.0, height: 60.0 });
        assert!(close(bounds, [59.478_791 - 80.0, 0.0, 208.459_732, 124.785_585]), "{bounds:?}");
        // A quarter turn swaps the sides exactly.
        let quarter = Turn { rotation: 90.0, ..Turn::default() }.bounds(Bounds {
            width: 40.0,
            height: 10.0,
            ..Bounds::default()
        });
        assert_eq!(quarter, Bounds { x: 0.0, y: -40.0, width: 10.0, height: 40.0 });
    }

    #[test]
    fn flips_mirror_about_the_anchor() {
        // Pen: flipX on a 120-wide rectangle at x = 160 reports x = 40 (render-transformed-free, Fx).
        let flipped =
            Turn { flip_x: true, ..Turn::default() }.bounds(Bounds { width: 120.0, height: 40.0, ..Bounds::default() });
        assert_eq!(flipped, Bounds { x: -120.0, y: 0.0, width: 120.0, height: 40.0 });
        // flipX and 30° (FxR at 160, 150): (56.08, 150, 123.92 × 94.64).
        let both = Turn { rotation: 30.0, flip_x: true, flip_y: false }.bounds(Bounds {
            width: 120.0,
            height: 40.0,
            ..Bounds::default()
        });
        assert!(close(both, [56.08 - 160.0, 0.0, 123.92, 94.64]), "{both:?}");
        assert_eq!(normalized(-360.0), 0.0);
        assert_eq!(normalized(f64::NAN), 0.0);
    }
}
