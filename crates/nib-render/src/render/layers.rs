//! The layers of translucent containers, kept with a picture for the one after the next edit.
//!
//! A node below full opacity is painted, with everything inside it, on a layer of its own,
//! which is then drawn at its opacity (its children blend once, as a group's opacity does).
//! An edit of that opacity alone changes nothing on the layer: a repaint that kept the layer
//! draws it again at the new opacity instead of painting every child once more. A kept layer
//! is the very pixels the painter would paint on it, so the picture is a full paint's, byte
//! for byte: it is drawn only where the node and everything under it paint as before (their
//! opacity aside for the node itself, see [`super::damage::same_contents`]) and the layer has
//! the same place and extent. A layer is kept only when it was painted whole: in a repaint,
//! the children that do not reach the damaged rectangle are left out, so a layer reaching
//! beyond it is not kept from there (it stays from the picture before, when unchanged).
//!
//! Layers are kept only for pictures a server keeps to repaint (`render_after`), at most as
//! many pixels as the picture itself has; a one-shot render keeps none.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tiny_skia::{IntRect, Pixmap};

/// Where a layer was painted: the node, the layer's pixels on the device, and the extent it
/// worked its children's shadows out over.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct LayerKey {
    id: String,
    area: [i32; 4],
    extent: [i32; 4],
}

impl LayerKey {
    fn new(id: &str, area: IntRect, extent: IntRect) -> LayerKey {
        let edges = |r: IntRect| [r.left(), r.top(), r.right(), r.bottom()];
        LayerKey { id: id.to_owned(), area: edges(area), extent: edges(extent) }
    }
}

/// Layers of translucent containers, kept with a picture.
#[derive(Default, Clone)]
pub struct KeptLayers {
    layers: HashMap<LayerKey, Arc<Pixmap>>,
    /// How many layers the paint that kept these drew from the picture before.
    drawn_again: usize,
}

impl KeptLayers {
    /// The pixels all the layers hold.
    pub fn pixels(&self) -> u64 {
        self.layers.values().map(|layer| pixels_of(layer)).sum()
    }

    /// How many layers are kept.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// How many layers the paint that kept these drew from the picture before, instead of
    /// painting what is on them.
    pub fn drawn_again(&self) -> usize {
        self.drawn_again
    }

    /// Only the layers of the nodes in `ids`.
    pub(crate) fn of(mut self, ids: &HashSet<String>) -> KeptLayers {
        self.layers.retain(|key, _| ids.contains(&key.id));
        self.drawn_again = 0;
        self
    }
}

#[cfg(test)]
impl KeptLayers {
    /// Every kept layer painted over in opaque red (to see where one is drawn).
    pub(crate) fn paint_red(&mut self) {
        for layer in self.layers.values_mut() {
            Arc::make_mut(layer).fill(tiny_skia::Color::from_rgba8(255, 0, 0, 255));
        }
    }
}

fn pixels_of(pixmap: &Pixmap) -> u64 {
    u64::from(pixmap.width()) * u64::from(pixmap.height())
}

/// What one paint draws layers from and keeps them into.
pub(crate) struct Layers {
    /// Kept with the picture before, for nodes that paint as then (their opacity aside).
    before: KeptLayers,
    /// Painted whole by this paint.
    now: Mutex<KeptLayers>,
    /// Most pixels kept in all.
    limit: u64,
    /// How many layers were drawn from `before`.
    drawn: AtomicUsize,
}

impl Layers {
    /// Layers drawn from `before` (already only those still alike) and kept up to `limit`
    /// pixels in all.
    pub(crate) fn new(before: KeptLayers, limit: u64) -> Layers {
        Layers { before, now: Mutex::default(), limit, drawn: AtomicUsize::new(0) }
    }

    /// The layer of node `id` kept at `area` with `extent`.
    pub(crate) fn kept(&self, id: &str, area: IntRect, extent: IntRect) -> Option<Arc<Pixmap>> {
        let layer = self.before.layers.get(&LayerKey::new(id, area, extent)).cloned();
        if layer.is_some() {
            self.drawn.fetch_add(1, Ordering::Relaxed);
        }
        layer
    }

    /// Keeps `layer`, painted whole for node `id` at `area` with `extent`, when there is room.
    pub(crate) fn keep(&self, id: &str, area: IntRect, extent: IntRect, layer: Pixmap) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        if now.pixels() + pixels_of(&layer) <= self.limit {
            now.layers.insert(LayerKey::new(id, area, extent), Arc::new(layer));
        }
    }

    /// What to keep with the picture: the layers painted now, and those from before that are
    /// still alike and were not painted again, up to the limit.
    pub(crate) fn into_kept(self) -> KeptLayers {
        let mut kept = self.now.into_inner().unwrap_or_else(PoisonError::into_inner);
        kept.drawn_again = self.drawn.into_inner();
        let mut room = self.limit.saturating_sub(kept.pixels());
        for (key, layer) in self.before.layers {
            if !kept.layers.contains_key(&key) && pixels_of(&layer) <= room {
                room -= pixels_of(&layer);
                kept.layers.insert(key, layer);
            }
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::display::DisplayList;
    use crate::render::{Damage, Painted, RenderOptions, paint, paint_after};

    /// A page with a translucent group of a card filled `left` casting a shadow and a text,
    /// and a spot drawn over the group's card; `rows` rows of dots below, so that with many
    /// the page is painted in two bands and the group, moved down across their edge, is
    /// painted in both.
    fn page(group: Value, left: &str, rows: usize) -> DisplayList {
        let dots: Vec<Value> = (0..rows * 10)
            .map(|i| {
                json!({"type": "rectangle", "id": format!("d{i}"), "x": 10 + (i % 10) * 46,
                            "y": 560 + (i / 10) * 30, "width": 20, "height": 20, "fill": "#F97316"})
            })
            .collect();
        let mut group = group;
        let defaults = json!({"type": "frame", "id": "group", "x": 20, "y": 20, "width": 420, "height": 220,
        "layout": "none", "fill": "#E0E7FF", "cornerRadius": 14, "opacity": 0.8, "children": [
            {"type": "frame", "id": "left", "x": 12, "y": 12, "width": 180, "height": 120, "fill": left,
             "cornerRadius": 10, "effect": {"type": "shadow", "shadowType": "outer", "color": "#00000055",
             "offset": {"x": 0, "y": 4}, "blur": 12}},
            {"type": "text", "id": "right", "x": 230, "y": 20, "width": 170, "fontSize": 15, "fill": "#1E293B",
             "textGrowth": "fixed-width", "content": "Text on the group's right, far from the spot"}
        ]});
        for (key, value) in defaults.as_object().expect("an object") {
            group.as_object_mut().expect("an object").entry(key.clone()).or_insert(value.clone());
        }
        let mut children = vec![
            group,
            json!({"type": "rectangle", "id": "spot", "x": 50, "y": 50, "width": 30,
            "height": 30, "fill": "#0EA5E9"}),
        ];
        children.extend(dots);
        let height = if rows > 0 { 900 } else { 400 };
        crate::render::tests::list_of_page(
            &json!({"version": "2.10", "children": [{"type": "frame", "id": "page", "width": 480, "height": height,
                "layout": "none", "fill": "#F8FAFC", "children": children}]})
            .to_string(),
        )
    }

    /// Paints `list` after `previous`, checking the picture is a full paint's.
    fn repaint(list: DisplayList, previous: Option<Painted>) -> (Painted, Damage) {
        let options = RenderOptions::default();
        let full = paint(&list, &options).expect("paints");
        let (painted, damage) = paint_after(list, &options, previous).expect("repaints");
        assert!(painted.rendered().pixmap.data() == full.pixmap.data(), "not the full paint's bytes after {damage:?}");
        (painted, damage)
    }

    /// An edit of the group's opacity draws its kept layer at the new opacity instead of
    /// painting its cards again: the full paint's bytes, and (the kept layer painted over in
    /// red) the layer is what shows.
    #[test]
    fn an_opacity_edit_of_a_group_draws_its_kept_layer_at_the_new_opacity() {
        let (first, _) = repaint(page(json!({}), "#FFFFFF", 0), None);
        assert_eq!(first.layers().len(), 1, "the group's layer is kept");
        // The group and its cards' shadow: 440 × 240 pixels or so, counted with the picture's.
        let layer = first.layers().pixels();
        assert!((90_000..120_000).contains(&layer), "{layer}");
        let mut dropped = repaint(page(json!({}), "#FFFFFF", 0), None).0;
        assert_eq!(dropped.pixels(), 480 * 400 + layer);
        dropped.drop_layers();
        assert_eq!(dropped.pixels(), 480 * 400);
        let (second, damage) = repaint(page(json!({"opacity": 0.5}), "#FFFFFF", 0), Some(first));
        assert!(matches!(damage, Damage::Area(_)), "{damage:?}");
        assert_eq!(second.layers().drawn_again(), 1);
        let mut tampered = second;
        tampered.layers.paint_red();
        let options = RenderOptions::default();
        let (third, _) =
            paint_after(page(json!({"opacity": 0.3}), "#FFFFFF", 0), &options, Some(tampered)).expect("repaints");
        // Inside the group, away from its cards and the spot: red at 0.3 over the page.
        let pixel = third.rendered().pixmap.pixel(400, 220).expect("a pixel");
        assert!(pixel.red() > 100 && pixel.green() < 200, "{pixel:?}");
        // A card edited: its group's layer is painted again.
        let (fourth, _) = repaint(page(json!({"opacity": 0.3}), "#FFFFFF", 0), None);
        let (fifth, _) = repaint(page(json!({"opacity": 0.3}), "#FDE68A", 0), Some(fourth));
        assert_eq!(fifth.layers().drawn_again(), 0, "a group painting otherwise is painted again");
    }

    /// A repaint after an edit of the group's card paints the group again with its text left
    /// out (it does not reach the card): that layer is not kept, and the group's opacity edited
    /// next paints the group whole again (then keeps that layer).
    #[test]
    fn a_layer_painted_in_part_for_a_repaint_is_not_kept() {
        let (first, _) = repaint(page(json!({}), "#FFFFFF", 0), None);
        let (second, damage) = repaint(page(json!({}), "#FDE68A", 0), Some(first));
        assert!(matches!(damage, Damage::Area(rect) if rect.width() < 240), "{damage:?}");
        assert!(second.layers().is_empty(), "the group's layer painted in part is kept");
        let (third, _) = repaint(page(json!({"opacity": 0.45}), "#FDE68A", 0), Some(second));
        assert_eq!((third.layers().drawn_again(), third.layers().len()), (0, 1));
    }

    /// In bands, the group across their edge has a layer in each: both are kept and drawn again.
    #[test]
    fn a_group_across_bands_keeps_a_layer_in_each() {
        let group = |opacity: f64| json!({"y": 300, "opacity": opacity});
        let (first, _) = repaint(page(group(0.8), "#FFFFFF", 10), None);
        assert_eq!(first.layers().len(), 2, "a layer in each band");
        let (second, damage) = repaint(page(group(0.6), "#FFFFFF", 10), Some(first));
        assert!(matches!(damage, Damage::Area(_)), "{damage:?}");
        assert_eq!(second.layers().drawn_again(), 2);
    }
}
