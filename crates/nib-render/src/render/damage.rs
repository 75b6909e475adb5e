//! Repainting after an edit: where two display lists of one target differ, as one
//! rectangle of the picture's pixels. The painter then paints only the nodes that reach into
//! it, on a surface of the whole picture (so every pixel inside is computed exactly as a full
//! render computes it), and those pixels replace the old picture's.
//!
//! Nodes are matched by id. A node whose own painting or place changed damages where its
//! subtree was and where it is; a node added or removed damages where its subtree is or was.
//! What is not local falls back to painting everything: another picture size, other images,
//! nodes in another paint order or under another parent, ids that repeat. A background blur
//! reads the pixels under its outline, so a damaged rectangle that touches one grows to hold
//! all it reads; a change under a layer blur damages the blurred ancestor's bounds, which its
//! blur spreads it over.

use std::collections::{HashMap, HashSet};

use tiny_skia::{IntRect, Rect, Transform};

use crate::display::DisplayList;

/// What an edit changed in a picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Damage {
    /// Nothing: the old picture is the new one.
    Nothing,
    /// The pixels in this rectangle.
    Area(IntRect),
    /// Every pixel, the old picture faded to this opacity (the target's, lowered from full):
    /// nothing painted again.
    Faded(f32),
    /// Anything: paint the whole picture.
    Everything,
}

/// A node of a display list in paint order, placed.
struct Placed<'a> {
    id: &'a str,
    index: usize,
    parent: Option<&'a str>,
    transform: Transform,
    /// Every pixel of the node and its children, in the picture.
    subtree: Option<Rect>,
    /// The outermost ancestor with a layer blur (its place in the walk): a change under it is
    /// spread by the blur over that ancestor's bounds.
    blurred_by: Option<usize>,
}

/// The nodes of `list` in paint order, placed by `device` (the target → the picture's pixels),
/// with the subtree bounds of each node by its index in the list.
fn placed(list: &DisplayList, device: Transform) -> (Vec<Placed<'_>>, Vec<Option<Rect>>) {
    fn visit<'a>(
        list: &'a DisplayList,
        index: usize,
        parent: (Option<&'a str>, Transform, Option<usize>),
        as_target: bool,
        out: &mut Vec<Placed<'a>>,
        bounds: &mut Vec<Option<Rect>>,
    ) -> Option<Rect> {
        let node = list.node(index);
        let transform = list.transform(index, parent.1, as_target);
        let at = out.len();
        let blurred_by = parent.2;
        out.push(Placed { id: &node.id, index, parent: parent.0, transform, subtree: None, blurred_by });
        let children_blurred_by = blurred_by.or((node.effects.layer_blur > 0.0).then_some(at));
        let mut subtree = list.paint_bounds(index, transform);
        for &child in &node.children {
            let child = visit(list, child, (Some(&node.id), transform, children_blurred_by), false, out, bounds);
            // A clipping node's children paint inside its outline, which its own bounds hold.
            if !node.clip {
                subtree = match (subtree, child) {
                    (Some(a), Some(b)) => a.join(&b),
                    (a, b) => a.or(b),
                };
            }
        }
        out[at].subtree = subtree;
        if let Some(slot) = bounds.get_mut(index) {
            *slot = subtree;
        }
        subtree
    }
    let mut out = Vec::new();
    let mut bounds = vec![None; list.len()];
    for &root in list.roots() {
        visit(list, root, (None, device, None), true, &mut out, &mut bounds);
    }
    (out, bounds)
}

/// The bounds of every node of `list` with its children, in the picture `device` places the
/// target in, by index in the list: what a band's painter leaves out (see [`super::bands`]).
pub(crate) fn subtree_bounds(list: &DisplayList, device: Transform) -> Vec<Option<Rect>> {
    placed(list, device).1
}

/// Where `new` differs from `old` (the same target, painted with the same options on a picture
/// covering `area`), and the bounds of each node of `new` in the picture, by index, for the
/// painter to leave out the nodes that do not reach the damage.
pub fn damage(old: &DisplayList, new: &DisplayList, device: Transform, area: IntRect) -> (Damage, Vec<Option<Rect>>) {
    let (now, bounds) = placed(new, device);
    if old.bounds != new.bounds || !old.same_pictures(new) {
        return (Damage::Everything, bounds);
    }
    let (before, _) = placed(old, device);
    let Some(rect) = changed(&before, &now, old, new) else { return (Damage::Everything, bounds) };
    let Some(rect) = rect.and_then(|rect| rect.round_out()).and_then(|rect| rect.intersect(&area)) else {
        return (Damage::Nothing, bounds);
    };
    let rect = with_what_blurs_read(rect, &now, new, area);
    (Damage::Area(rect), bounds)
}

/// When `new` is `old` with only its one root's opacity lowered from full, and a full paint of
/// `new` on a transparent picture covering `area` paints the root where it is and fades it (see
/// `Surface::fade`): the opacity the old picture is faded by to give the new one, byte for
/// byte, without painting anything. An agent's "make the frame translucent" then costs a pass
/// over the pixels.
pub(crate) fn faded_only(old: &DisplayList, new: &DisplayList, device: Transform, area: IntRect) -> Option<f32> {
    let ([old_root], [root]) = (old.roots(), new.roots()) else { return None };
    let (was, is) = (old.node(*old_root), new.node(*root));
    let fades = was.opacity >= 1.0
        && is.opacity < 1.0
        && !is.single_paint
        && is.effects.layer_blur <= 0.0
        && old.bounds == new.bounds
        && old.same_pictures(new)
        && was.paints_like_at_any_opacity(is);
    if !fades {
        return None;
    }
    // The painter fades the root in place only where its layer would be the whole picture.
    let covers = new.subtree_bounds(*root, new.transform(*root, device, true)).and_then(|b| b.round_out());
    if covers.and_then(|bounds| bounds.intersect(&area)) != Some(area) {
        return None;
    }
    let (before, _) = placed(old, device);
    let (now, _) = placed(new, device);
    let same = before.len() == now.len()
        && before.iter().zip(&now).all(|(a, b)| {
            a.id == b.id
                && a.parent == b.parent
                && a.transform == b.transform
                && old.node(a.index).children.len() == new.node(b.index).children.len()
                && (a.index == *old_root || old.node(a.index).paints_like(new.node(b.index)))
        });
    same.then_some(is.opacity)
}

/// The ids of the nodes of `new` that paint as in `old` on a layer of their own: each alike
/// but for its opacity, in the same place, with every node under it alike (opacity too) and
/// in the same place, under the same parents in the same order. A layer `old`'s picture kept
/// for one of them is the layer `new` would paint (see [`super::layers`]). None when ids
/// repeat, the picture's bounds or its images changed.
pub(crate) fn same_contents(old: &DisplayList, new: &DisplayList, device: Transform) -> HashSet<String> {
    let mut same = HashSet::new();
    if old.bounds != new.bounds || !old.same_pictures(new) {
        return same;
    }
    let ((before, _), (now, _)) = (placed(old, device), placed(new, device));
    let (Some(was), Some(_)) = (ids(&before), ids(&now)) else { return same };
    // Where each node of `new` is in the walk, by its index in the list.
    let mut at = vec![usize::MAX; new.len()];
    for (i, placed) in now.iter().enumerate() {
        if let Some(slot) = at.get_mut(placed.index) {
            *slot = i;
        }
    }
    // Whether a node and everything under it paint as before; children come after their
    // parent in the walk, so walking it backwards decides them first.
    let mut alike = vec![false; now.len()];
    for i in (0..now.len()).rev() {
        let placed = &now[i];
        let Some(old_placed) = was.get(placed.id).map(|&j| &before[j]) else { continue };
        let (was_node, node) = (old.node(old_placed.index), new.node(placed.index));
        let children_alike = was_node.children.len() == node.children.len()
            && was_node.children.iter().zip(&node.children).all(|(&a, &b)| {
                let child = at.get(b).copied().unwrap_or(usize::MAX);
                old.node(a).id == new.node(b).id && alike.get(child).copied().unwrap_or(false)
            });
        if old_placed.transform != placed.transform || !children_alike || !was_node.paints_like_at_any_opacity(node) {
            continue;
        }
        alike[i] = was_node.opacity == node.opacity;
        same.insert(placed.id.to_owned());
    }
    same
}

/// The union of what changed (`Some(None)`: nothing), or `None` when the change is not local.
fn changed<'a>(
    before: &[Placed<'a>],
    now: &[Placed<'a>],
    old: &DisplayList,
    new: &DisplayList,
) -> Option<Option<Rect>> {
    let (was, is) = (ids(before)?, ids(now)?);
    // The nodes in both lists must come in the same order, under the same parents.
    let kept_before = before.iter().filter(|p| is.contains_key(p.id));
    let kept_now = now.iter().filter(|p| was.contains_key(p.id));
    if !kept_before.zip(kept_now).all(|(a, b)| a.id == b.id && a.parent == b.parent) {
        return None;
    }
    let mut damage: Option<Rect> = None;
    let mut add = |rect: Option<Rect>| {
        if let Some(rect) = rect {
            damage = Some(damage.map_or(rect, |d| d.join(&rect).unwrap_or(d)));
        }
    };
    // Under a layer blur a change spreads over the blurred ancestor's bounds.
    let reach =
        |placed: &Placed<'_>, all: &[Placed<'_>]| placed.blurred_by.map_or(placed.subtree, |at| all[at].subtree);
    for placed in now {
        match was.get(placed.id).map(|at| &before[*at]) {
            Some(old_placed) => {
                let same = old_placed.transform == placed.transform
                    && old.node(old_placed.index).paints_like(new.node(placed.index))
                    && old.node(old_placed.index).children.len() == new.node(placed.index).children.len();
                if !same {
                    add(reach(old_placed, before));
                    add(reach(placed, now));
                }
            }
            None => add(reach(placed, now)),
        }
    }
    for placed in before.iter().filter(|p| !is.contains_key(p.id)) {
        add(reach(placed, before));
    }
    Some(damage)
}

/// Where each id is in `placed`; `None` when an id repeats.
fn ids<'a>(placed: &[Placed<'a>]) -> Option<HashMap<&'a str, usize>> {
    let mut ids = HashMap::with_capacity(placed.len());
    placed.iter().enumerate().all(|(at, p)| ids.insert(p.id, at).is_none()).then_some(ids)
}

/// `rect` grown until every background blur reaching into it reads only pixels inside it.
fn with_what_blurs_read(mut rect: IntRect, now: &[Placed<'_>], list: &DisplayList, area: IntRect) -> IntRect {
    let reads: Vec<IntRect> = now
        .iter()
        .filter_map(|placed| {
            let node = list.node(placed.index);
            let shape = node.shape.as_ref().filter(|_| node.effects.background_blur > 0.0)?;
            shape.path.bounds().transform(placed.transform)?.round_out()?.intersect(&area)
        })
        .collect();
    loop {
        let mut grown = false;
        for read in &reads {
            if rect.intersect(read).is_some() && !contains(&rect, read) {
                rect = union(&rect, read);
                grown = true;
            }
        }
        if !grown {
            return rect;
        }
    }
}

fn contains(outer: &IntRect, inner: &IntRect) -> bool {
    outer.left() <= inner.left()
        && outer.top() <= inner.top()
        && outer.right() >= inner.right()
        && outer.bottom() >= inner.bottom()
}

fn union(a: &IntRect, b: &IntRect) -> IntRect {
    let (left, top) = (a.left().min(b.left()), a.top().min(b.top()));
    let (right, bottom) = (a.right().max(b.right()), a.bottom().max(b.bottom()));
    IntRect::from_ltrb(left, top, right, bottom).unwrap_or(*a)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::Damage;
    use crate::display::{DisplayList, RenderTarget};
    use crate::doc::Document;
    use crate::host::Host as _;
    use crate::layout::Layout;
    use crate::render::{Painted, RenderOptions, paint, paint_after};
    use crate::resolve::{NoImports, SceneOptions, build_scene};
    use crate::text::{FontBook, FontOptions, TextEngine};
    use tiny_skia::IntRect;

    /// A page with what repaints must get right: shadows (two cards casting the same one),
    /// blurs of the layer (over a child) and of the background, a clip, opacity, rotation, strokes, text and
    /// an icon.
    fn page() -> Value {
        let card = |id: &str, x: i32, y: i32| {
            json!({"type": "frame", "id": id, "x": x, "y": y, "width": 120, "height": 80, "cornerRadius": 12,
            "fill": "#FFFFFF", "layout": "none",
            "effect": {"type": "shadow", "shadowType": "outer", "color": "#00000044", "offset": {"x": 0, "y": 6}, "blur": 16, "spread": 1},
            "children": [
                {"type": "text", "id": format!("{id}-title"), "x": 12, "y": 10, "fontSize": 14, "fill": "#111827", "content": "Card title"},
                {"type": "rectangle", "id": format!("{id}-bar"), "x": 12, "y": 50, "width": 90, "height": 8, "cornerRadius": 4, "fill": "#6366F1"}
            ]})
        };
        json!({"version": "2.10", "children": [{
        "type": "frame", "id": "page", "width": 480, "height": 360, "layout": "none", "fill": "#F3F4F6",
        "children": [
            card("a", 20, 20), card("b", 170, 20), card("c", 320, 20),
            {"type": "frame", "id": "glass", "x": 150, "y": 60, "width": 160, "height": 90, "cornerRadius": 16,
             "fill": "#FFFFFF55", "effect": {"type": "background_blur", "radius": 12}},
            {"type": "frame", "id": "clip", "x": 20, "y": 140, "width": 200, "height": 120, "clip": true, "layout": "none",
             "fill": "#E0E7FF", "children": [
                {"type": "ellipse", "id": "dot", "x": 150, "y": 70, "width": 90, "height": 90, "fill": "#F59E0B"},
                {"type": "text", "id": "long", "x": 10, "y": 8, "width": 180, "fontSize": 13, "fill": "#1F2937",
                 "textGrowth": "fixed-width", "content": "A paragraph long enough to wrap on a few lines inside the clip"}
             ]},
            {"type": "frame", "id": "blurred", "x": 260, "y": 170, "width": 80, "height": 60, "fill": "#10B981",
             "layout": "none", "effect": {"type": "blur", "radius": 6}, "children": [
                {"type": "rectangle", "id": "inside-blur", "x": 50, "y": 10, "width": 20, "height": 20, "fill": "#1E3A8A"}
             ]},
            {"type": "rectangle", "id": "turned", "x": 370, "y": 170, "width": 70, "height": 40, "rotation": 20,
             "fill": "#EF4444", "stroke": {"align": "center", "thickness": 3, "fill": "#111827"}, "opacity": 0.8},
            {"type": "icon_font", "id": "icon", "x": 250, "y": 280, "width": 32, "height": 32,
             "iconFontFamily": "lucide", "iconFontName": "heart", "fill": "#DB2777"},
            {"type": "text", "id": "caption", "x": 300, "y": 290, "fontSize": 16, "fill": "#111827", "content": "Caption"}
        ]}]})
    }

    /// A small deterministic generator (xorshift), so a failure is the same on every run.
    struct Dice(u64);

    impl Dice {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// One random edit of one property of one node, or a node added or removed.
    fn edit(document: &mut Value, dice: &mut Dice, serial: &mut u32) {
        let page = &mut document["children"][0];
        let mut ids = Vec::new();
        collect_ids(page, &mut ids);
        let id = ids[1 + dice.below(ids.len() - 1)].clone();
        let node = find(page, &id).expect("the node");
        let colours = ["#0EA5E9", "#F43F5E", "#FFFFFF", "#00000080", "#84CC16"];
        match dice.below(11) {
            0 | 1 => node["fill"] = json!(colours[dice.below(colours.len())]),
            2 => node["x"] = json!(node["x"].as_f64().unwrap_or(0.0) + dice.below(41) as f64 - 20.0),
            3 => node["y"] = json!(node["y"].as_f64().unwrap_or(0.0) + dice.below(21) as f64 - 10.0 + 0.5),
            4 => node["opacity"] = json!([0.0, 0.3, 0.6, 1.0][dice.below(4)]),
            5 => node["enabled"] = json!(dice.below(2) == 0),
            6 => node["rotation"] = json!(dice.below(60) as f64 - 30.0),
            7 if node.get("content").is_some() => {
                node["content"] = json!(["Hi", "Longer words here", ""][dice.below(3)])
            }
            7 | 8 => {
                node["effect"] = json!({"type": "shadow", "shadowType": "outer", "color": "#00000055",
                                              "offset": {"x": 0, "y": 4}, "blur": 8 + dice.below(3) * 4, "spread": 0})
            }
            9 => {
                *serial += 1;
                let new = json!({"type": "rectangle", "id": format!("new{serial}"), "x": dice.below(400), "y": dice.below(300),
                                 "width": 10 + dice.below(60), "height": 10 + dice.below(40), "fill": colours[dice.below(5)]});
                let page = &mut document["children"][0]["children"];
                let at = dice.below(page.as_array().map_or(0, Vec::len) + 1);
                page.as_array_mut().expect("children").insert(at, new);
            }
            _ => {
                let page = &mut document["children"][0];
                remove(page, &id);
            }
        }
    }

    fn collect_ids(node: &Value, out: &mut Vec<String>) {
        if let Some(id) = node["id"].as_str() {
            out.push(id.to_owned());
        }
        for child in node["children"].as_array().into_iter().flatten() {
            collect_ids(child, out);
        }
    }

    fn find<'a>(node: &'a mut Value, id: &str) -> Option<&'a mut Value> {
        if node["id"] == id {
            return Some(node);
        }
        node.get_mut("children")?.as_array_mut()?.iter_mut().find_map(|child| find(child, id))
    }

    fn remove(node: &mut Value, id: &str) {
        if let Some(children) = node.get_mut("children").and_then(Value::as_array_mut) {
            children.retain(|child| child["id"] != id);
            for child in children {
                remove(child, id);
            }
        }
    }

    fn display_list(document: &Value, engine: &mut TextEngine) -> DisplayList {
        let document = Document::load(&document.to_string()).expect("valid").document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        let layout = Layout::compute(&scene, engine);
        let key = scene.node_by_id("page").expect("the page");
        let host = crate::host::MemoryHost::new();
        crate::display::build(&scene, &layout, engine, host.pictures().as_mut(), RenderTarget::Node(key))
            .expect("a display list")
    }

    /// After any edit, the picture repainted from the one before is the picture a
    /// full paint makes, byte for byte — over a few hundred random edits, at two scales.
    #[test]
    fn a_repaint_after_random_edits_is_the_full_paint_byte_for_byte() {
        repaints_after_random_edits_are_full_paints(
            page,
            &[(0x9E37_79B9_7F4A_7C15_u64, 1.0_f32), (0xD1B5_4A32_D192_ED03, 1.5)],
        );
    }

    /// Lowering the target's opacity from full fades the old picture instead of painting it
    /// again: the bytes of a full paint, whole or in bands; with another change too, or from
    /// one translucent opacity to another, it is painted as any edit is.
    #[test]
    fn lowering_the_targets_opacity_fades_the_old_picture_into_the_full_paint() {
        let without_blurs = || {
            let mut document = page();
            let children = document["children"][0]["children"].as_array_mut().expect("children");
            children.retain(|child| child.get("effect").is_none_or(|effect| effect["type"] == "shadow"));
            document
        };
        let blurred = || {
            let mut document = page();
            document["children"][0]["effect"] = json!({"type": "blur", "radius": 2});
            document
        };
        for (page, faded) in [(page as fn() -> Value, true), (without_blurs, true), (tall_page, true), (blurred, false)]
        {
            let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
            let options = RenderOptions::default();
            let mut document = page();
            let (first, _) = paint_after(display_list(&document, &mut engine), &options, None).expect("paints");
            document["children"][0]["opacity"] = json!(0.65);
            let list = display_list(&document, &mut engine);
            let full = paint(&list, &options).expect("paints");
            let (painted, damage) = paint_after(list, &options, Some(first)).expect("repaints");
            assert!(painted.rendered().pixmap.data() == full.pixmap.data(), "{document}");
            // A blurred page is painted again (its blur spreads beyond what it covers).
            assert_eq!(damage == Damage::Faded(0.65), faded, "{damage:?}");
            // From one translucent opacity to another, and with a second change: painted again.
            for (key, value) in [("opacity", json!(0.4)), ("fill", json!("#FF0000"))] {
                document["children"][0][key] = value;
                let list = display_list(&document, &mut engine);
                let full = paint(&list, &options).expect("paints");
                let previous = paint_after(display_list(&document, &mut engine), &options, None).expect("paints").0;
                let (painted, _) = paint_after(list, &options, Some(previous)).expect("repaints");
                assert!(painted.rendered().pixmap.data() == full.pixmap.data(), "{key}");
            }
        }
    }

    /// A tall page of cards without blurs: painted in bands (see `render/bands.rs`).
    fn tall_page() -> Value {
        let mut document = page();
        let page = &mut document["children"][0];
        page["height"] = json!(900);
        let children = page["children"].as_array_mut().expect("children");
        children.retain(|child| child.get("effect").is_none_or(|effect| effect["type"] == "shadow"));
        for row in 0..6 {
            for (column, x) in [20, 170, 320].into_iter().enumerate() {
                let id = format!("t{row}{column}");
                // Rows of cards from y = 300 down, some across the bands' edge at 450.
                children.push(json!({"type": "frame", "id": id, "x": x, "y": 300 + row * 95 + column * 7, "width": 130,
                    "height": 80, "cornerRadius": 10, "fill": "#FFFFFF", "layout": "none",
                    "effect": {"type": "shadow", "shadowType": "outer", "color": "#00000044", "offset": {"x": 0, "y": 6}, "blur": 16, "spread": 1},
                    "children": [{"type": "text", "id": format!("{id}-t"), "x": 10, "y": 10.5, "fontSize": 13, "fill": "#111827",
                                  "content": "Across the band"}]}));
            }
        }
        document
    }

    /// The same in bands: each band repaints its part of the damage, and the picture is still
    /// the full paint's, byte for byte.
    #[test]
    fn a_repaint_in_bands_after_random_edits_is_the_full_paint_byte_for_byte() {
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let list = display_list(&tall_page(), &mut engine);
        let area = IntRect::from_xywh(0, 0, 480, 900).expect("an area");
        let device = tiny_skia::Transform::from_translate(-list.bounds.left(), -list.bounds.top());
        assert_eq!(super::super::bands::bands(&list, area, device).len(), 2, "the page is painted in two bands");
        repaints_after_random_edits_are_full_paints(tall_page, &[(0x2545_F491_4F6C_DD1D, 1.0)]);
    }

    fn repaints_after_random_edits_are_full_paints(page: fn() -> Value, runs: &[(u64, f32)]) {
        for &(seed, scale) in runs {
            let mut dice = Dice(seed);
            let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
            let options = RenderOptions { scale, background: Some([255, 255, 255, 255]), ..RenderOptions::default() };
            let mut document = page();
            let mut previous: Option<Painted> = None;
            let (mut serial, mut partial, mut nothing, mut layers) = (0, 0, 0, 0);
            for step in 0..100 {
                let list = display_list(&document, &mut engine);
                let full = paint(&list, &options).expect("paints");
                let (painted, damage) = paint_after(list, &options, previous.take()).expect("repaints");
                assert!(
                    painted.rendered().pixmap.data() == full.pixmap.data(),
                    "step {step} (scale {scale}, {damage:?}) differs from a full paint after {document}"
                );
                layers += painted.layers().drawn_again();
                match damage {
                    Damage::Area(_) => partial += 1,
                    Damage::Nothing => nothing += 1,
                    Damage::Everything | Damage::Faded(_) => {}
                }
                previous = Some(painted);
                edit(&mut document, &mut dice, &mut serial);
            }
            // Most edits are local: the test shows nothing if they all painted everything.
            assert!(partial > 40, "only {partial} of 100 repaints were partial");
            assert!(nothing > 0, "no edit left the picture as it was ({partial} partial)");
            assert!(layers > 0, "no repaint drew a translucent container's kept layer again");
        }
    }
}
