//! Free space on the canvas: where a rectangle of a given size fits next to a node (or next to
//! everything) without touching anything, at least `padding` away. Used by
//! find_empty_space_on_canvas and by batch_design to place new top-level nodes.
//!
//! The search is over top-level rectangles only: what is inside a frame is the frame's.

use crate::doc::{Document, NodeKey};

/// The laid-out boxes of the visible top-level nodes of a document (as it is in the middle of a
/// batch), in document order.
pub trait CanvasBoxes {
    /// Every visible top-level node and its box on the canvas; `None` when the document
    /// cannot be laid out (it expands past its budget), so the caller goes by its numbers.
    fn top_level_boxes(&self, document: &Document) -> Option<Vec<(NodeKey, Rect)>>;

    /// The family the canvas's text engine shapes `family` with (the document's own fonts, the
    /// user's, fetched ones); `None` when the canvas has no engine, and the bundled fonts decide.
    fn choose_family(&self, _family: &str) -> Option<std::sync::Arc<crate::text::FamilyChoice>> {
        None
    }

    /// The expanded Scene of the top-level part `root` of `document` as the batch left it, for
    /// the checks that look inside instances; `None` when the canvas cannot resolve, and those
    /// checks are skipped.
    fn part_scene(&self, _document: &Document, _root: NodeKey) -> Option<std::sync::Arc<crate::resolve::Scene>> {
        None
    }
}

/// Space left between a new top-level node and what is already on the canvas.
pub(crate) const NEW_NODE_GAP: f64 = 100.0;

/// A side of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Above.
    Top,
    /// To the right (the default).
    Right,
    /// Below.
    Bottom,
    /// To the left.
    Left,
}

impl Direction {
    /// The accepted spellings.
    pub const ALL: &'static [&'static str] = &["top", "right", "bottom", "left"];

    /// A direction from its name.
    pub fn parse(text: &str) -> Option<Direction> {
        Some(match text {
            "top" => Direction::Top,
            "right" => Direction::Right,
            "bottom" => Direction::Bottom,
            "left" => Direction::Left,
            _ => return None,
        })
    }
}

/// A rectangle on the canvas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Rect {
    /// True when the rectangles come closer than `margin` (touching at exactly `margin` is fine).
    pub fn overlaps(&self, other: &Rect, margin: f64) -> bool {
        self.x < other.x + other.width + margin
            && other.x < self.x + self.width + margin
            && self.y < other.y + other.height + margin
            && other.y < self.y + self.height + margin
    }

    /// The smallest rectangle containing all of `rects`; `None` when there are none.
    pub fn union(rects: &[Rect]) -> Option<Rect> {
        let first = rects.first()?;
        let (mut left, mut top, mut right, mut bottom) =
            (first.x, first.y, first.x + first.width, first.y + first.height);
        for r in rects {
            left = left.min(r.x);
            top = top.min(r.y);
            right = right.max(r.x + r.width);
            bottom = bottom.max(r.y + r.height);
        }
        Some(Rect { x: left, y: top, width: right - left, height: bottom - top })
    }
}

/// Where a new top-level node goes when nothing says: right of everything, level with the
/// topmost node, [`NEW_NODE_GAP`] away; the origin on an empty canvas.
pub fn free_spot(occupied: &[Rect]) -> (f64, f64) {
    match Rect::union(occupied) {
        None => (0.0, 0.0),
        Some(all) => (all.x + all.width + NEW_NODE_GAP, all.y),
    }
}

/// Where a rectangle of `size` fits next to `anchor` in `direction`, `padding` away from it and
/// from every rectangle of `occupied`: it starts beside the anchor, aligned with its top (or
/// left) edge, and moves further out past each obstacle it would touch.
pub fn next_to(occupied: &[Rect], anchor: Rect, size: (f64, f64), direction: Direction, padding: f64) -> (f64, f64) {
    let (width, height) = size;
    let mut spot = match direction {
        Direction::Right => Rect { x: anchor.x + anchor.width + padding, y: anchor.y, width, height },
        Direction::Left => Rect { x: anchor.x - padding - width, y: anchor.y, width, height },
        Direction::Bottom => Rect { x: anchor.x, y: anchor.y + anchor.height + padding, width, height },
        Direction::Top => Rect { x: anchor.x, y: anchor.y - padding - height, width, height },
    };
    // Each step moves past one obstacle, never back, so this ends after one step per rectangle.
    for _ in 0..=occupied.len() {
        let Some(obstacle) = occupied.iter().find(|r| spot.overlaps(r, padding.max(0.0) - 1e-9)) else { break };
        match direction {
            Direction::Right => spot.x = obstacle.x + obstacle.width + padding,
            Direction::Left => spot.x = obstacle.x - padding - width,
            Direction::Bottom => spot.y = obstacle.y + obstacle.height + padding,
            Direction::Top => spot.y = obstacle.y - padding - height,
        }
    }
    (spot.x, spot.y)
}

/// Where a rectangle of `size` fits on the canvas in `direction` of everything: beside the
/// union of `occupied`, `padding` away; the origin on an empty canvas.
pub fn beside_everything(occupied: &[Rect], size: (f64, f64), direction: Direction, padding: f64) -> (f64, f64) {
    match Rect::union(occupied) {
        None => (0.0, 0.0),
        Some(all) => next_to(occupied, all, size, direction, padding),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: f64, y: f64, width: f64, height: f64) -> Rect {
        Rect { x, y, width, height }
    }

    #[test]
    fn new_nodes_go_right_of_everything() {
        assert_eq!(free_spot(&[]), (0.0, 0.0));
        assert_eq!(free_spot(&[rect(0.0, 50.0, 400.0, 300.0), rect(500.0, 20.0, 200.0, 100.0)]), (800.0, 20.0));
    }

    #[test]
    fn spots_step_past_obstacles() {
        let occupied = [rect(0.0, 0.0, 100.0, 100.0), rect(120.0, 0.0, 100.0, 100.0)];
        let source = occupied[0];
        assert_eq!(next_to(&occupied, source, (100.0, 100.0), Direction::Right, 20.0), (240.0, 0.0));
        assert_eq!(next_to(&occupied, source, (100.0, 100.0), Direction::Bottom, 20.0), (0.0, 120.0));
        assert_eq!(next_to(&occupied, source, (50.0, 50.0), Direction::Left, 10.0), (-60.0, 0.0));
        assert_eq!(next_to(&occupied, source, (50.0, 50.0), Direction::Top, 0.0), (0.0, -50.0));
    }

    #[test]
    fn beside_everything_clears_the_whole_canvas() {
        let occupied = [rect(0.0, 0.0, 100.0, 100.0), rect(0.0, 300.0, 500.0, 100.0)];
        assert_eq!(beside_everything(&occupied, (10.0, 10.0), Direction::Right, 40.0), (540.0, 0.0));
        assert_eq!(beside_everything(&occupied, (10.0, 10.0), Direction::Bottom, 40.0), (0.0, 440.0));
        assert_eq!(beside_everything(&[], (10.0, 10.0), Direction::Top, 40.0), (0.0, 0.0));
    }
}
