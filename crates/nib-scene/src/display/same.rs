//! Whether two display nodes paint the same pixels: what a repaint after an edit compares,
//! node by node, to find the part of a picture the edit changed. Only what the
//! painter reads counts (a text's glyphs and bars, not its string), so an edit that changes
//! nothing visible repaints nothing.

use std::sync::Arc;

use super::{Content, DisplayNode, DisplayStroke, TextRun};
use crate::text::IconDrawing;

impl DisplayNode {
    /// True when this node and `other`, placed by the same transform, paint the same pixels of
    /// their own and wrap their children the same way (opacity, effects, clip). Children are
    /// compared on their own; their number and order are the caller's to compare.
    pub fn paints_like(&self, other: &DisplayNode) -> bool {
        self.opacity == other.opacity && self.paints_like_at_any_opacity(other)
    }

    /// [`DisplayNode::paints_like`] but for the opacity the whole is drawn at.
    pub fn paints_like_at_any_opacity(&self, other: &DisplayNode) -> bool {
        self.width == other.width
            && self.height == other.height
            && self.placement == other.placement
            && self.effects == other.effects
            && self.shape == other.shape
            && self.fills_visible == other.fills_visible
            && self.fills == other.fills
            && same_content(&self.content, &other.content)
            && same_stroke(self.stroke.as_ref(), other.stroke.as_ref())
            && self.clip == other.clip
            && self.single_paint == other.single_paint
            && self.children_inside == other.children_inside
    }
}

fn same_stroke(a: Option<&DisplayStroke>, b: Option<&DisplayStroke>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.spec == b.spec && a.paints == b.paints,
        _ => false,
    }
}

fn same_content(a: &Content, b: &Content) -> bool {
    match (a, b) {
        (Content::Nothing, Content::Nothing)
        | (Content::Fill, Content::Fill)
        | (Content::MissingIcon, Content::MissingIcon)
        | (Content::Unresolved, Content::Unresolved) => true,
        (Content::Text(a), Content::Text(b)) => same_run(a, b),
        (Content::EmptySlot(a), Content::EmptySlot(b)) => a == b,
        (Content::Icon { drawing: a, placed: at_a }, Content::Icon { drawing: b, placed: at_b }) => {
            at_a == at_b && same_icon(a, b)
        }
        (Content::Annotation { color: a, text: text_a }, Content::Annotation { color: b, text: text_b }) => {
            a == b
                && match (text_a, text_b) {
                    (None, None) => true,
                    (Some(a), Some(b)) => same_run(a, b),
                    _ => false,
                }
        }
        _ => false,
    }
}

/// The same glyph outlines at the same places, and the same bars.
fn same_run(a: &TextRun, b: &TextRun) -> bool {
    a.at == b.at
        && a.bars == b.bars
        && a.glyphs().count() == b.glyphs().count()
        && a.glyphs().zip(b.glyphs()).all(|(a, b)| {
            a.transform == b.transform && (Arc::ptr_eq(a.outline, b.outline) || a.outline.path == b.outline.path)
        })
}

fn same_icon(a: &Arc<IconDrawing>, b: &Arc<IconDrawing>) -> bool {
    Arc::ptr_eq(a, b) || (a.view == b.view && a.stroke == b.stroke && a.fill == b.fill)
}

impl super::DisplayList {
    /// True when `other` shows the same images and placeholder icon: the same decoded pixels
    /// (by identity) under every image URL.
    pub fn same_pictures(&self, other: &super::DisplayList) -> bool {
        let same_icon = match (&self.missing_image_icon, &other.missing_image_icon) {
            (None, None) => true,
            (Some(a), Some(b)) => same_icon(a, b),
            _ => false,
        };
        same_icon
            && self.pictures.len() == other.pictures.len()
            && self.pictures.iter().all(|(url, mine)| match (mine, other.pictures.get(url)) {
                (Ok(a), Some(Ok(b))) => Arc::ptr_eq(a, b),
                (Err(a), Some(Err(b))) => a == b,
                _ => false,
            })
    }

    /// A rectangle under `transform` (node `index`'s coordinates → the picture's) that holds
    /// every pixel the node paints itself, its children aside: its box, outline, glyphs and
    /// icon, grown by the reach of its effects and stroke. Generous rather than tight: a repaint
    /// that misses a pixel leaves a stale one.
    pub fn paint_bounds(&self, index: usize, transform: tiny_skia::Transform) -> Option<tiny_skia::Rect> {
        let node = &self.nodes[index];
        let mut bounds = tiny_skia::Rect::from_xywh(0.0, 0.0, node.width.max(1.0), node.height.max(1.0))?;
        let mut join = |rect: Option<tiny_skia::Rect>| {
            if let Some(rect) = rect {
                bounds = bounds.join(&rect).unwrap_or(bounds);
            }
        };
        join(node.shape.as_ref().map(|shape| shape.path.bounds()));
        let run_bounds = |run: &TextRun| {
            let mut glyphs = run.glyphs().filter_map(|glyph| {
                glyph.outline.path.as_ref().and_then(|path| path.bounds().transform(glyph.transform))
            });
            let first = glyphs.next().or_else(|| run.bars.first().copied())?;
            let all = glyphs.chain(run.bars.iter().copied()).fold(first, |all, b| all.join(&b).unwrap_or(all));
            all.transform(tiny_skia::Transform::from_translate(run.at.0, run.at.1))
        };
        match &node.content {
            Content::Text(run) | Content::Annotation { text: Some(run), .. } => join(run_bounds(run)),
            Content::Icon { drawing, placed } => {
                // Lucide strokes reach half their width past the outline.
                let reach = drawing.view * 0.1;
                for path in [&drawing.stroke, &drawing.fill].into_iter().flatten() {
                    join(path.bounds().outset(reach, reach).and_then(|b| b.transform(*placed)));
                }
            }
            _ => {}
        }
        let stroke = node.stroke.as_ref().map_or(0.0, |stroke| {
            // A mitred corner reaches up to the miter limit times half the width past the outline.
            stroke.spec.max_width() * stroke.spec.miter_limit.max(1.5)
        });
        let reach = node.effects.extent() + stroke + 2.0;
        let device = bounds.outset(reach, reach)?.transform(transform)?;
        // A blur's or an edge's last pixel, whatever the scale.
        device.outset(2.0, 2.0)
    }
}
