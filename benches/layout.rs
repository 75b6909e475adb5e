//! Layout (budgets: a full layout of 10k nodes ≤ 8 ms; a relayout after one U() ≤ 1 ms; a
//! `layout: "none"` frame of 299,000 children laid out with its problems ≤ 2 s), and the same
//! update after a U() of a fill, which changes nothing the layout reads.
//!
//! `warm` runs keep the text engine between iterations, as an open document does: text already
//! measured is a cache hit. `cold` runs start from a new engine every time.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use nib::doc::values::{Color, Fill, Fills};
use nib::doc::{Document, Key, Value, VarOr};
use nib::layout::{Layout, find_problems};
use nib::resolve::{NoImports, Scene, SceneOptions, build_scene, update_scene};
use nib::text::{FontBook, FontOptions, TextEngine};

use nib_test_support::load;

/// 20 screens × 50 rows of a list: each row a horizontal frame with an avatar, a text column
/// (a title, a wrapping subtitle, an icon and a time) and a badge — 10,020 nodes.
fn generated() -> Document {
    let mut screens = Vec::new();
    for s in 0..20 {
        let mut rows = Vec::new();
        for r in 0..50 {
            rows.push(format!(
                r##"{{"type": "frame", "id": "r{s}_{r}", "width": "fill_container", "gap": 12, "padding": [8, 16], "alignItems": "center", "children": [
                  {{"type": "ellipse", "id": "av{s}_{r}", "width": 40, "height": 40}},
                  {{"type": "frame", "id": "col{s}_{r}", "layout": "vertical", "width": "fill_container", "gap": 2, "children": [
                    {{"type": "text", "id": "t{s}_{r}", "content": "Row {r} of screen {s}", "fontSize": 15, "fontWeight": "600"}},
                    {{"type": "text", "id": "st{s}_{r}", "content": "A subtitle that is long enough to wrap inside its column at this width", "textGrowth": "fixed-width", "width": "fill_container", "fontSize": 13, "lineHeight": 1.4}},
                    {{"type": "frame", "id": "m{s}_{r}", "gap": 6, "alignItems": "center", "children": [
                      {{"type": "icon_font", "id": "mi{s}_{r}", "iconFontFamily": "lucide", "iconFontName": "clock", "width": 12, "height": 12}},
                      {{"type": "text", "id": "mt{s}_{r}", "content": "{r} min ago", "fontSize": 11}}]}}]}},
                  {{"type": "frame", "id": "b{s}_{r}", "padding": [2, 8], "cornerRadius": 10, "children": [
                    {{"type": "text", "id": "bt{s}_{r}", "content": "{r}", "fontSize": 12}}]}}]}}"##
            ));
        }
        screens.push(format!(
            r#"{{"type": "frame", "id": "s{s}", "x": {x}, "y": 0, "width": 390, "layout": "vertical", "children": [{rows}]}}"#,
            x = s * 500,
            rows = rows.join(",")
        ));
    }
    let text = format!(r#"{{"version": "2.10", "children": [{}]}}"#, screens.join(","));
    Document::load(&text).expect("generated document").document
}

fn engine() -> TextEngine {
    TextEngine::new(FontBook::new(FontOptions::default()))
}

fn full(c: &mut Criterion, name: &str, document: &Document) {
    let scene = build_scene(document, &NoImports, SceneOptions::FULL);
    eprintln!("{name}: {} nodes in the scene", scene.len());
    let mut warm = engine();
    c.bench_function(&format!("layout/{name}/warm"), |b| b.iter(|| Layout::compute(black_box(&scene), &mut warm)));
    c.bench_function(&format!("layout/{name}/cold"), |b| {
        b.iter(|| {
            let mut cold = engine();
            Layout::compute(black_box(&scene), &mut cold)
        })
    });
}

/// One U() on a text in one top-level frame (of its font size, or with `paint_only` of its
/// fill), then the scene and the layout brought up to date.
fn relayout(c: &mut Criterion, name: &str, mut document: Document, text_id: &str, paint_only: bool) {
    let mut engine = engine();
    let mut scene: Scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let mut layout = Layout::compute(&scene, &mut engine);
    let key = document.node_by_id(text_id).expect("text node");
    let mut round = 0u32;
    let what = if paint_only { "fill" } else { "font_size" };
    c.bench_function(&format!("relayout_after_one_update/{name}/{what}"), |b| {
        b.iter(|| {
            round += 1;
            let (key_set, value) = if paint_only {
                let colour = Color::from_rgba([(round % 200) as u8, 40, 90, 255]);
                (Key::Fill, Value::Fills(Fills::One(Fill::Solid(VarOr::Value(colour)))))
            } else {
                (Key::FontSize, Value::Number(VarOr::Value(f64::from(12 + round % 8))))
            };
            let mut edit = document.transaction();
            edit.set(key, key_set, Some(value));
            edit.commit();
            scene = update_scene(Some(&scene), &document, &NoImports, SceneOptions::FULL);
            layout = Layout::update(Some(&layout), &scene, &mut engine);
        })
    });
}

/// A `layout: "none"` frame smaller than its 299,000 rectangles (with the frame, just within a
/// document's 300,000 nodes), scattered (deterministically)
/// so that each overlaps about twenty others and most stick out: millions of problems, of
/// which a request lists 200 and counts the rest.
fn scattered_siblings() -> Document {
    let mut seed = 1u32;
    let mut next = |range: u32| {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (seed >> 8) % range
    };
    let children: Vec<String> = (0..299_000)
        .map(|i| {
            format!(
                r#"{{"type": "rectangle", "id": "r{i}", "x": {}, "y": {}, "width": {}, "height": {}}}"#,
                next(6_000),
                next(6_000),
                10 + next(30),
                10 + next(30)
            )
        })
        .collect();
    let text = format!(
        r#"{{"version": "2.10", "children": [{{"type": "frame", "id": "F", "layout": "none", "width": 3000, "height": 3000, "children": [{}]}}]}}"#,
        children.join(",")
    );
    Document::load(&text).expect("generated document").document
}

/// Laying out a frame of 299,000 children and finding its problems, as `nib layout --problems`
/// does (the file loaded and resolved once).
fn siblings_with_problems(c: &mut Criterion) {
    let document = scattered_siblings();
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let mut warm = engine();
    let layout = Layout::compute(&scene, &mut warm);
    let found = find_problems(&scene, &layout, None);
    eprintln!(
        "299k_siblings: {} problems listed, {} more{}",
        found.shown.len(),
        found.more_count(),
        if found.at_least() { " at least" } else { "" }
    );
    let mut group = c.benchmark_group("layout_with_problems");
    group.sample_size(10);
    group.bench_function("299k_siblings", |b| {
        b.iter(|| {
            let layout = Layout::compute(black_box(&scene), &mut warm);
            find_problems(&scene, &layout, None)
        })
    });
    group.bench_function("299k_siblings/problems_only", |b| b.iter(|| find_problems(black_box(&scene), &layout, None)));
    group.finish();
}

fn benches(c: &mut Criterion) {
    let largest = load("LIU9293__cirrus__design.pen");
    let generated = generated();
    full(c, "largest_corpus_file", &largest);
    full(c, "generated_10k", &generated);
    let text_in_largest = largest
        .tree()
        .walk()
        .find(|k| largest.tree().node(*k).node_type() == nib::doc::NodeType::Text)
        .map(|k| largest.tree().node(k).id().to_owned())
        .expect("a text");
    for paint_only in [false, true] {
        relayout(c, "largest_corpus_file", largest.clone(), &text_in_largest, paint_only);
        relayout(c, "generated_10k", generated.clone(), "t7_25", paint_only);
    }
    siblings_with_problems(c);
}

criterion_group!(layout, benches);
criterion_main!(layout);
