//! Placing new top-level nodes in free canvas space, so a new screen never lands on top of an
//! existing one.
//!
//! Sizes come from the document (numbers, or the fallback of `fit_content(…)`); this is the
//! simple bounding-box search until layout can measure hugging frames.

use crate::doc::values::Sizing;
use crate::doc::{Document, Key, NodeKey, Props, Value, VarOr};

/// Space left between a new top-level node and what is already on the canvas.
pub const NEW_NODE_GAP: f64 = 100.0;

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
    fn overlaps(&self, other: &Rect, margin: f64) -> bool {
        self.x < other.x + other.width + margin
            && other.x < self.x + self.width + margin
            && self.y < other.y + other.height + margin
            && other.y < self.y + self.height + margin
    }
}

/// A node's size as far as the document tells without layout.
pub fn size_of(props: &Props) -> (f64, f64) {
    let dimension = |key: &Key| match props.get(key) {
        Some(Value::Size(VarOr::Value(Sizing::Fixed(n)))) => *n,
        Some(Value::Size(VarOr::Value(Sizing::FitContent(Some(n)) | Sizing::FillContainer(Some(n))))) => *n,
        _ => 0.0,
    };
    (dimension(&Key::Width), dimension(&Key::Height))
}

fn number(props: &Props, key: &Key) -> f64 {
    match props.get(key) {
        Some(Value::Number(VarOr::Value(n))) => *n,
        _ => 0.0,
    }
}

/// The rectangle of a top-level node.
pub fn rect_of(props: &Props) -> Rect {
    let (width, height) = size_of(props);
    Rect { x: number(props, &Key::X), y: number(props, &Key::Y), width, height }
}

/// Rectangles of the visible top-level nodes, except `except`.
fn occupied(document: &Document, except: Option<NodeKey>) -> Vec<Rect> {
    document
        .tree()
        .roots()
        .iter()
        .filter(|key| Some(**key) != except)
        .map(|key| &document.tree().node(*key).props)
        .filter(|props| !matches!(props.get(&Key::Enabled), Some(Value::Bool(VarOr::Value(false)))))
        .map(rect_of)
        .collect()
}

/// Where to put a new top-level node: right of everything, level with the topmost node.
pub fn free_spot(document: &Document, except: Option<NodeKey>) -> (f64, f64) {
    let rects = occupied(document, except);
    if rects.is_empty() {
        return (0.0, 0.0);
    }
    let right = rects.iter().map(|r| r.x + r.width).fold(f64::MIN, f64::max);
    let top = rects.iter().map(|r| r.y).fold(f64::MAX, f64::min);
    (right + NEW_NODE_GAP, top)
}

/// Where to put a node of `size` next to `source` in `direction`, `padding` away from it and from
/// anything else on the canvas.
pub fn next_to(
    document: &Document,
    source: Rect,
    size: (f64, f64),
    direction: Direction,
    padding: f64,
    except: Option<NodeKey>,
) -> (f64, f64) {
    let rects = occupied(document, except);
    let (width, height) = size;
    let mut spot = match direction {
        Direction::Right => Rect { x: source.x + source.width + padding, y: source.y, width, height },
        Direction::Left => Rect { x: source.x - padding - width, y: source.y, width, height },
        Direction::Bottom => Rect { x: source.x, y: source.y + source.height + padding, width, height },
        Direction::Top => Rect { x: source.x, y: source.y - padding - height, width, height },
    };
    // Each step moves past one obstacle, so this ends after at most one step per node.
    for _ in 0..=rects.len() {
        let Some(obstacle) = rects.iter().find(|r| spot.overlaps(r, padding.max(0.0) - 1e-9)) else { break };
        match direction {
            Direction::Right => spot.x = obstacle.x + obstacle.width + padding,
            Direction::Left => spot.x = obstacle.x - padding - width,
            Direction::Bottom => spot.y = obstacle.y + obstacle.height + padding,
            Direction::Top => spot.y = obstacle.y - padding - height,
        }
    }
    (spot.x, spot.y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(children: &str) -> Document {
        Document::load(&format!("{{\"version\": \"2.8\", \"children\": [{children}]}}")).unwrap().document
    }

    #[test]
    fn new_nodes_go_right_of_everything() {
        let empty = document("");
        assert_eq!(free_spot(&empty, None), (0.0, 0.0));
        let two = document(
            r#"{"type": "frame", "id": "a", "x": 0, "y": 50, "width": 400, "height": 300}, {"type": "frame", "id": "b", "x": 500, "y": 20, "width": "fit_content(200)", "height": 100}"#,
        );
        assert_eq!(free_spot(&two, None), (800.0, 20.0));
    }

    #[test]
    fn copies_step_past_obstacles() {
        let doc = document(
            r#"{"type": "frame", "id": "a", "x": 0, "y": 0, "width": 100, "height": 100}, {"type": "frame", "id": "b", "x": 120, "y": 0, "width": 100, "height": 100}"#,
        );
        let source = Rect { x: 0.0, y: 0.0, width: 100.0, height: 100.0 };
        assert_eq!(next_to(&doc, source, (100.0, 100.0), Direction::Right, 20.0, None), (240.0, 0.0));
        assert_eq!(next_to(&doc, source, (100.0, 100.0), Direction::Bottom, 20.0, None), (0.0, 120.0));
        assert_eq!(next_to(&doc, source, (50.0, 50.0), Direction::Left, 10.0, None), (-60.0, 0.0));
        assert_eq!(next_to(&doc, source, (50.0, 50.0), Direction::Top, 0.0, None), (0.0, -50.0));
    }
}
