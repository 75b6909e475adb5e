//! Layout rules that CSS cannot express (groups, auto-width text rounding, fallbacks, notes) and
//! incremental relayout. The flexbox behaviour itself is checked against Chromium in
//! tests/suite/layout_expected.rs.

use std::sync::Arc;

use super::*;
use crate::doc::{Document, Key, Value, VarOr};
use crate::resolve::{NoImports, SceneOptions, build_scene, update_scene};
use crate::text::{FontBook, FontOptions};

fn engine() -> TextEngine {
    TextEngine::new(FontBook::new(FontOptions::default()))
}

pub(super) fn laid_out(children: &str) -> (Scene, Layout) {
    let text = format!(r#"{{"version": "2.10", "children": [{children}]}}"#);
    let document = Document::load(&text).expect("valid").document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let layout = Layout::compute(&scene, &mut engine());
    (scene, layout)
}

pub(super) fn node_box(scene: &Scene, layout: &Layout, id: &str) -> Option<NodeBox> {
    layout.node_box(scene.node_by_id(id).unwrap_or_else(|| panic!("no {id}")))
}

fn boxed(scene: &Scene, layout: &Layout, id: &str) -> (f32, f32, f32, f32) {
    let b = node_box(scene, layout, id).unwrap_or_else(|| panic!("{id} is hidden"));
    (b.left, b.top, b.width, b.height)
}

#[test]
fn top_level_nodes_sit_at_their_position() {
    let (scene, layout) =
        laid_out(r#"{"type": "rectangle", "id": "r", "x": -40, "y": 25.5, "width": 10, "height": 20}"#);
    assert_eq!(boxed(&scene, &layout, "r"), (-40.0, 25.5, 10.0, 20.0));
}

#[test]
fn a_group_is_the_union_of_its_children() {
    let (scene, layout) = laid_out(
        r#"{"type": "group", "id": "g", "x": 100, "y": 100, "children": [
            {"type": "rectangle", "id": "a", "x": 10, "y": 20, "width": 50, "height": 50},
            {"type": "rectangle", "id": "b", "x": 40, "y": 0, "width": 100, "height": 30}]}"#,
    );
    assert_eq!(boxed(&scene, &layout, "g"), (110.0, 100.0, 130.0, 70.0));
    // Children stay where they were drawn.
    assert_eq!(boxed(&scene, &layout, "a"), (110.0, 120.0, 50.0, 50.0));
    assert_eq!(boxed(&scene, &layout, "b"), (140.0, 100.0, 100.0, 30.0));
    let a = node_box(&scene, &layout, "a").expect("box");
    assert_eq!((a.x, a.y), (0.0, 20.0), "relative to the group's box");
}

#[test]
fn auto_text_is_as_wide_as_its_line_rounded_up() {
    let (scene, layout) =
        laid_out(r#"{"type": "text", "id": "t", "content": "Hello world", "fontSize": 14, "width": 5, "height": 5}"#);
    let (_, _, width, height) = boxed(&scene, &layout, "t");
    assert_eq!(width.fract(), 0.0, "whole pixels: {width}");
    assert!(width > 60.0 && width < 90.0, "{width}");
    assert_eq!(height, 17.0, "Inter 14 line; width/height are ignored for auto text");
    let shaped = layout.shaped_text(scene.node_by_id("t").expect("t")).expect("shaped");
    assert!(shaped.width <= width && width - shaped.width < 1.0);
}

#[test]
fn fixed_width_text_wraps_and_hugs_its_height() {
    let (scene, layout) = laid_out(
        r#"{"type": "text", "id": "t", "textGrowth": "fixed-width", "width": 100, "height": 3, "lineHeight": 1.5, "fontSize": 16,
            "content": "one two three four five six seven"}"#,
    );
    let (_, _, width, height) = boxed(&scene, &layout, "t");
    assert_eq!(width, 100.0);
    assert_eq!(height % 24.0, 0.0);
    assert!(height >= 72.0, "{height}");
}

#[test]
fn fixed_size_text_keeps_its_box_and_reports_overflow() {
    let (scene, layout) = laid_out(
        r#"{"type": "text", "id": "t", "textGrowth": "fixed-width-height", "width": 80, "height": 20, "content": "a long text that needs several lines"}"#,
    );
    assert_eq!(boxed(&scene, &layout, "t"), (0.0, 0.0, 80.0, 20.0));
    let problems = find_problems(&scene, &layout, None).shown;
    assert!(problems.iter().any(|p| p.kind == ProblemKind::TextOverflow && p.message.contains("lines cut off")));
}

#[test]
fn sizes_fall_back_where_nothing_gives_them_meaning() {
    let (scene, layout) = laid_out(
        r#"{"type": "frame", "id": "none", "layout": "none", "width": 300, "height": 300, "children": [
            {"type": "frame", "id": "fill", "width": "fill_container(120)", "height": "fill_container", "x": 5, "y": 6},
            {"type": "frame", "id": "fit", "layout": "none", "width": "fit_content(70)", "height": "fit_content", "x": 0, "y": 0},
            {"type": "rectangle", "id": "rect", "width": "fit_content", "height": 10, "x": 0, "y": 0}]}"#,
    );
    assert_eq!(boxed(&scene, &layout, "fill"), (5.0, 6.0, 120.0, 0.0));
    assert_eq!(boxed(&scene, &layout, "fit").2, 70.0);
    let kinds: Vec<(String, ProblemKind)> =
        find_problems(&scene, &layout, None).shown.into_iter().map(|p| (p.node, p.kind)).collect();
    assert!(kinds.contains(&("fill".into(), ProblemKind::FillOutsideFlex)), "{kinds:?}");
    assert!(kinds.contains(&("fit".into(), ProblemKind::FitContentWithoutContent)), "{kinds:?}");
    assert!(kinds.contains(&("rect".into(), ProblemKind::FitContentWithoutContent)), "{kinds:?}");
}

#[test]
fn circular_sizing_is_reported_and_resolved_by_content() {
    let (scene, layout) = laid_out(
        r#"{"type": "frame", "id": "row", "children": [
            {"type": "frame", "id": "a", "width": "fill_container", "height": 10, "children": [{"type": "rectangle", "id": "a1", "width": 30, "height": 10}]},
            {"type": "frame", "id": "b", "width": "fill_container", "height": 10, "children": [{"type": "rectangle", "id": "b1", "width": 50, "height": 10}]}]}"#,
    );
    assert_eq!(boxed(&scene, &layout, "row").2, 80.0, "as if the children were fit_content");
    let problems = find_problems(&scene, &layout, None).shown;
    assert!(problems.iter().any(|p| p.node == "row" && p.kind == ProblemKind::CircularSizing), "{problems:?}");
}

#[test]
fn hidden_nodes_take_no_space_and_have_no_box() {
    let (scene, layout) = laid_out(
        r#"{"type": "frame", "id": "row", "gap": 10, "children": [
            {"type": "rectangle", "id": "a", "width": 30, "height": 10},
            {"type": "frame", "id": "h", "enabled": false, "width": 50, "height": 10, "children": [{"type": "rectangle", "id": "hc", "width": 5, "height": 5}]},
            {"type": "rectangle", "id": "b", "width": 30, "height": 10}]}"#,
    );
    assert_eq!(boxed(&scene, &layout, "row").2, 70.0);
    assert!(node_box(&scene, &layout, "h").is_none() && node_box(&scene, &layout, "hc").is_none());
}

#[test]
fn children_of_leaves_are_not_laid_out() {
    let (scene, layout) = laid_out(
        r#"{"type": "rectangle", "id": "r", "width": 10, "height": 10, "children": [{"type": "rectangle", "id": "c", "width": 5, "height": 5}]}"#,
    );
    assert!(node_box(&scene, &layout, "r").is_some());
    assert!(node_box(&scene, &layout, "c").is_none());
}

#[test]
fn problems_name_overflow_clipping_overlap_and_zero_size() {
    let (scene, layout) = laid_out(
        r#"{"type": "frame", "id": "p", "layout": "none", "width": 100, "height": 100, "children": [
            {"type": "rectangle", "id": "wide", "x": 50, "y": 0, "width": 80, "height": 10},
            {"type": "rectangle", "id": "cross", "x": 60, "y": 5, "width": 20, "height": 20},
            {"type": "rectangle", "id": "flat", "x": 0, "y": 50, "width": 10, "height": 0}]},
         {"type": "frame", "id": "clip", "clip": true, "x": 80, "width": 50, "height": 20, "layout": "none", "children": [
            {"type": "rectangle", "id": "big", "width": 60, "height": 10},
            {"type": "rectangle", "id": "gone", "x": 0, "y": 30, "width": 10, "height": 10}]},
         {"type": "frame", "id": "bg", "layout": "none", "width": 100, "height": 100, "x": 500, "children": [
            {"type": "rectangle", "id": "back", "x": 0, "y": 0, "width": 100, "height": 100},
            {"type": "rectangle", "id": "front", "x": 10, "y": 10, "width": 20, "height": 20}]}"#,
    );
    let problems = find_problems(&scene, &layout, None).shown;
    let has = |node: &str, kind: ProblemKind| problems.iter().any(|p| p.node == node && p.kind == kind);
    assert!(has("wide", ProblemKind::Overflow), "{problems:#?}");
    assert!(problems.iter().any(|p| p.message.contains("by 30 px right")));
    assert!(has("cross", ProblemKind::Overlap));
    assert!(has("flat", ProblemKind::ZeroSize));
    assert!(!has("big", ProblemKind::Clipped), "a clip that cuts a child in part is what it is for");
    assert!(!has("big", ProblemKind::Overflow));
    assert!(has("gone", ProblemKind::Clipped), "a child the clip hides entirely is a problem");
    assert!(!has("front", ProblemKind::Overlap), "content on a background is layering, not an overlap");
    assert!(has("clip", ProblemKind::Overlap), "top-level nodes overlap on the canvas");
    let within = find_problems(&scene, &layout, scene.node_by_id("bg"));
    assert!(within.is_empty(), "{within:?}");
}

#[test]
fn missing_fonts_are_reported_once_per_family() {
    let (scene, layout) = laid_out(
        r#"{"type": "frame", "id": "p", "layout": "vertical", "children": [
            {"type": "text", "id": "a", "content": "A", "fontFamily": "Lobster"},
            {"type": "text", "id": "b", "content": "B", "fontFamily": "Lobster"},
            {"type": "text", "id": "c", "content": "C", "fontFamily": "Ubuntu Mono"},
            {"type": "text", "id": "d", "content": "D", "fontFamily": "Roboto"}]}"#,
    );
    let fonts: Vec<String> = find_problems(&scene, &layout, None)
        .shown
        .into_iter()
        .filter(|p| p.kind == ProblemKind::FontFallback)
        .map(|p| p.message)
        .collect();
    assert_eq!(fonts.len(), 2, "{fonts:?}");
    assert!(fonts[0].contains("'a'") && fonts[0].contains("1 other") && fonts[0].contains("Inter"), "{fonts:?}");
    assert!(fonts[1].contains("JetBrains Mono"), "a monospaced family gets a monospaced stand-in: {fonts:?}");
    assert!(fonts.iter().all(|f| !f.contains("Roboto")), "Roboto is bundled: {fonts:?}");
}

#[test]
fn a_relayout_after_an_edit_reuses_untouched_top_level_nodes() {
    let text = r#"{"version": "2.10", "children": [
        {"type": "frame", "id": "a", "children": [{"type": "text", "id": "ta", "content": "A"}]},
        {"type": "frame", "id": "b", "x": 200, "children": [{"type": "text", "id": "tb", "content": "B"}]}]}"#;
    let mut document = Document::load(text).expect("valid").document;
    let mut engine = engine();
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let layout = Layout::compute(&scene, &mut engine);
    let tb = document.node_by_id("tb").expect("tb");
    let mut edit = document.transaction();
    edit.set(tb, Key::FontSize, Some(Value::Number(VarOr::Value(40.0))));
    edit.commit();
    let scene2 = update_scene(Some(&scene), &document, &NoImports, SceneOptions::FULL);
    let layout2 = Layout::update(Some(&layout), &scene2, &mut engine);
    assert!(Arc::ptr_eq(&layout.parts()[0], &layout2.parts()[0]), "frame a is untouched");
    assert!(!Arc::ptr_eq(&layout.parts()[1], &layout2.parts()[1]));
    let height =
        |scene: &Scene, layout: &Layout| layout.node_box(scene.node_by_id("b").expect("b")).expect("box").height;
    assert_eq!(height(&scene, &layout), 17.0);
    assert!(height(&scene2, &layout2) > 40.0);
}

/// Reusing part layouts searched the previous layout once per part: 200,000 top-level nodes
/// took minutes to lay out again after an edit (about 40 s for 100,000 in a debug build).
#[test]
fn a_relayout_of_many_top_level_nodes_finds_each_part_at_once() {
    let children: Vec<String> = (0..200_000)
        .map(|i| format!(r#"{{"type": "rectangle", "id": "r{i}", "x": {i}, "width": 1, "height": 1}}"#))
        .collect();
    let text = format!(r#"{{"version": "2.10", "children": [{}]}}"#, children.join(", "));
    let mut document = Document::load(&text).expect("valid").document;
    let mut engine = engine();
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let layout = Layout::compute(&scene, &mut engine);
    let last = document.node_by_id("r199999").expect("r199999");
    let mut edit = document.transaction();
    edit.set(last, Key::Width, Some(Value::Size(VarOr::Value(crate::doc::values::Sizing::Fixed(5.0)))));
    edit.commit();
    let scene2 = update_scene(Some(&scene), &document, &NoImports, SceneOptions::FULL);
    let layout2 = Layout::update(Some(&layout), &scene2, &mut engine);
    assert!(Arc::ptr_eq(&layout.parts()[0], &layout2.parts()[0]));
    assert_eq!(layout2.parts()[199_999].node_box(0).map(|b| b.width), Some(5.0));
}

#[test]
fn a_snapshot_of_a_frame_with_too_many_children_elides_them_and_says_so() {
    use super::snapshot::{Children, MAX_SNAPSHOT_NODES, SnapshotRequest, snapshot};
    let rows: Vec<String> = (0..MAX_SNAPSHOT_NODES + 1)
        .map(|i| format!(r#"{{"type": "rectangle", "id": "r{i}", "width": 1, "height": 1}}"#))
        .collect();
    let (scene, layout) =
        laid_out(&format!(r#"{{"type": "frame", "id": "f", "layout": "vertical", "children": [{}]}}"#, rows.join(",")));
    let request = SnapshotRequest { parent: None, max_depth: 1, images: None };
    let shot = snapshot(&scene, &layout, request);
    assert_eq!(shot.nodes[0].children, Children::Elided(MAX_SNAPSHOT_NODES + 1));
    assert!(shot.note.as_deref().is_some_and(|n| n.contains("parentId")), "{:?}", shot.note);
    // What fits is listed as before.
    let (scene, layout) = laid_out(&format!(
        r#"{{"type": "frame", "id": "f", "layout": "vertical", "children": [{}]}}"#,
        rows[..3].join(",")
    ));
    let shot = snapshot(&scene, &layout, request);
    assert!(matches!(&shot.nodes[0].children, Children::Nodes(nodes) if nodes.len() == 3));
    assert_eq!(shot.note, None);
}

/// A scene of `document` (JSON) and its layout made from `previous` (any earlier layout with
/// the same fonts), and the layout made from scratch.
fn relaid(document: &serde_json::Value, previous: &Layout, engine: &mut TextEngine) -> (Scene, Layout, Layout) {
    let document = Document::load(&document.to_string()).expect("valid").document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let updated = Layout::update(Some(previous), &scene, engine);
    let fresh = Layout::compute(&scene, engine);
    (scene, updated, fresh)
}

/// The shaped text of node `id`.
fn shaped(scene: &Scene, layout: &Layout, id: &str) -> Arc<ShapedText> {
    Arc::clone(layout.shaped_text(scene.node_by_id(id).expect("the node")).expect("a text"))
}

/// Issue 31: a part resolved again after an edit that changes nothing the layout reads (here a
/// fill) keeps its boxes and shaped texts; one that does (the text's content) is laid out again.
#[test]
fn a_part_resolved_again_keeps_its_layout_when_no_layout_input_changed() {
    let mut document = serde_json::json!({"version": "2.10", "children": [
        {"type": "frame", "id": "card", "layout": "vertical", "gap": 8, "padding": 12, "children": [
          {"type": "text", "id": "title", "content": "Title", "fill": "#111111"},
          {"type": "rectangle", "id": "bar", "width": "fill_container", "height": 4, "fill": "#2563EB"}]}]});
    let mut engine = engine();
    let (_, layout, _) = relaid(&document, &Layout::default(), &mut engine);
    document["children"][0]["children"][1]["fill"] = "#E11D48".into();
    let (scene2, layout2, fresh2) = relaid(&document, &layout, &mut engine);
    assert!(Arc::ptr_eq(&layout.parts()[0].arranged, &layout2.parts()[0].arranged), "not laid out again");
    assert!(Arc::ptr_eq(layout2.parts()[0].part(), &scene2.parts()[0]), "the layout is of the new part");
    assert!(layout2.parts()[0].arranged == fresh2.parts()[0].arranged);
    document["children"][0]["children"][0]["content"] = "A longer title".into();
    let (scene3, layout3, fresh3) = relaid(&document, &layout2, &mut engine);
    assert!(!Arc::ptr_eq(&layout2.parts()[0].arranged, &layout3.parts()[0].arranged));
    assert_ne!(shaped(&scene2, &layout2, "title"), shaped(&scene3, &layout3, "title"));
    assert!(boxed(&scene3, &layout3, "card").2 > boxed(&scene2, &layout2, "card").2, "the card grew with its title");
    assert!(layout3.parts()[0].arranged == fresh3.parts()[0].arranged);
}

/// Issue 31: over random edits of layout and paint properties, text, visibility and the tree,
/// a layout updated from the one before is the layout made from scratch, and the updates that
/// change no layout input reuse what they can.
#[test]
fn a_layout_updated_after_random_edits_is_the_layout_made_from_scratch() {
    let item = |n: usize| {
        serde_json::json!({"type": "frame", "id": format!("item{n}"), "layout": "horizontal", "gap": 6,
            "padding": [4, 8], "alignItems": "center", "fill": "#F1F5F9", "children": [
              {"type": "rectangle", "id": format!("dot{n}"), "width": 12, "height": 12, "fill": "#22C55E"},
              {"type": "text", "id": format!("label{n}"), "content": format!("Item {n}"), "fontSize": 14}]})
    };
    let mut document = serde_json::json!({"version": "2.10", "children": [
        {"type": "frame", "id": "list", "layout": "vertical", "width": 240, "gap": 4, "children": [item(0), item(1), item(2)]},
        {"type": "frame", "id": "free", "x": 300, "width": 200, "height": 120, "layout": "none", "children": [item(3)]},
        item(4)]});
    // The containers edits are made in, and the nodes edited in them, by JSON pointer.
    let nodes = [
        "/children/0",
        "/children/0/children/1",
        "/children/0/children/1/children/1",
        "/children/0/children/2/children/0",
        "/children/1/children/0",
        "/children/1/children/0/children/1",
        "/children/2",
        "/children/2/children/1",
    ];
    let mut dice = 0x2545_F491_4F6C_DD1D_u64;
    let mut roll = |n: usize| {
        dice ^= dice << 13;
        dice ^= dice >> 7;
        dice ^= dice << 17;
        (dice % n as u64) as usize
    };
    let mut engine = engine();
    let (_, mut layout, _) = relaid(&document, &Layout::default(), &mut engine);
    let (mut kept, mut redone) = (0, 0);
    for step in 0..150 {
        let node = document.pointer_mut(nodes[roll(nodes.len())]).expect("the node");
        let is_text = node["type"] == "text";
        let value = match roll(12) {
            0 | 1 => ("fill", serde_json::json!(["#0EA5E9", "#F43F5E", "#00000080"][roll(3)])),
            2 => ("opacity", serde_json::json!([0.4, 1.0][roll(2)])),
            3 => ("name", serde_json::json!(format!("renamed {step}"))),
            4 => (
                "width",
                serde_json::json!([serde_json::json!(90), "fill_container".into(), "fit_content".into()][roll(3)]),
            ),
            5 => ("gap", serde_json::json!(roll(16))),
            6 => ("padding", [serde_json::json!(0), serde_json::json!(4), serde_json::json!([2, 10])][roll(3)].clone()),
            7 => ("enabled", serde_json::json!(roll(3) > 0)),
            8 if is_text => ("content", serde_json::json!(["Hi", "A longer label that wraps", ""][roll(3)])),
            8 => ("layout", serde_json::json!(["vertical", "horizontal", "none"][roll(3)])),
            9 if is_text => ("fontSize", serde_json::json!([11, 14, 20][roll(3)])),
            9 => ("justifyContent", serde_json::json!(["start", "center", "space_between"][roll(3)])),
            10 => ("x", serde_json::json!(roll(40))),
            _ if node["children"].is_array() => {
                let children = node["children"].as_array_mut().expect("children");
                // Only nodes added here are removed, so that every pointer above stays valid.
                let added = children.last().is_some_and(|c| c["id"].as_str().is_some_and(|id| id.starts_with("new")));
                if added && roll(2) == 0 {
                    children.pop();
                } else {
                    children.push(
                        serde_json::json!({"type": "rectangle", "id": format!("new{step}"), "width": 8, "height": 8}),
                    );
                }
                ("", serde_json::Value::Null)
            }
            _ => ("strokeWidth", serde_json::json!(roll(3))),
        };
        if !value.0.is_empty() {
            node[value.0] = value.1;
        }
        let (_, updated, fresh) = relaid(&document, &layout, &mut engine);
        for (index, (updated, fresh)) in updated.parts().iter().zip(fresh.parts()).enumerate() {
            assert!(updated.arranged == fresh.arranged, "step {step}, part {index}: {document}");
            match layout.parts().get(index) {
                Some(before) if Arc::ptr_eq(&before.arranged, &updated.arranged) => kept += 1,
                _ => redone += 1,
            }
        }
        layout = updated;
    }
    // Each step leaves two of the three parts as they were (300 in all), and a paint edit the
    // third; the test shows nothing if no part was laid out again.
    assert!(kept > 320 && redone > 50, "{kept} parts kept their layout, {redone} were laid out again");
}
