//! Placing new top-level nodes in free canvas space, so a new screen never lands on top of an
//! existing one. The search itself is [`crate::layout::space`]; the rectangles come from layout
//! when the caller can lay out ([`CanvasBoxes`], the tools do), else from the document's numbers.

use crate::doc::values::Sizing;
use crate::doc::{Document, Key, NodeKey, Props, Value, VarOr};
pub use crate::layout::space::{CanvasBoxes, Direction, Rect};

/// A node's size as far as the document tells without layout.
pub(crate) fn size_of(props: &Props) -> (f64, f64) {
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
pub(crate) fn rect_of(props: &Props) -> Rect {
    let (width, height) = size_of(props);
    Rect { x: number(props, &Key::X), y: number(props, &Key::Y), width, height }
}

/// The boxes of the visible top-level nodes: laid out by `canvas`, or from the document's
/// numbers when there is no canvas or it cannot lay the document out (a hugging frame without
/// a fallback then counts as 0 × 0).
pub fn top_level_boxes(document: &Document, canvas: Option<&dyn CanvasBoxes>) -> Vec<(NodeKey, Rect)> {
    if let Some(boxes) = canvas.and_then(|canvas| canvas.top_level_boxes(document)) {
        return boxes;
    }
    document
        .tree()
        .roots()
        .iter()
        .filter(|key| {
            !matches!(document.tree().node(**key).props.get(&Key::Enabled), Some(Value::Bool(VarOr::Value(false))))
        })
        .map(|key| (*key, rect_of(&document.tree().node(*key).props)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_layout_the_numbers_of_the_document_count() {
        let document = Document::load(
            r#"{"version": "2.8", "children": [{"type": "frame", "id": "a", "x": 10, "y": 20, "width": 400, "height": "fit_content(300)"}, {"type": "frame", "id": "b", "enabled": false}]}"#,
        )
        .unwrap()
        .document;
        let boxes = top_level_boxes(&document, None);
        assert_eq!(boxes.len(), 1);
        assert_eq!(boxes[0].1, Rect { x: 10.0, y: 20.0, width: 400.0, height: 300.0 });
    }
}
