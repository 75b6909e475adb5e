//! Layout against Pen's own engine: the boxes in tests/fixtures/pen_layout/expected are those
//! Pen reports for the documents in cases/ (each rule's source in that folder's README.md and in
//! DECISIONS.md, Layout). Boxes are Pen's: the bounds of a turned node, relative to its parent's
//! x/y. The pictures must agree with the boxes: what a turned or mirrored node draws lies in its
//! box.

use std::path::{Path, PathBuf};

use nib::doc::Document;
use nib::render::RenderTarget;
use nib::{CompileOptions, MemoryHost, RenderOptions, compile};

const TOLERANCE: f32 = 0.5;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen_layout")
}

fn cases() -> Vec<(String, Document, serde_json::Value)> {
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(folder().join("cases")).expect("cases folder") {
        let path = entry.expect("entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("name").to_owned();
        let document = Document::load(&std::fs::read_to_string(&path).expect("case")).expect("valid case").document;
        let expected =
            std::fs::read_to_string(folder().join("expected").join(format!("{name}.json"))).expect("expected");
        cases.push((name, document, serde_json::from_str(&expected).expect("json")));
    }
    // Pen's own boards copied from woodcase, with the boxes Pen reported for them.
    let woodcase = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/woodcase");
    for entry in std::fs::read_dir(&woodcase).expect("woodcase folder") {
        let path = entry.expect("entry").path();
        let Some(name) = path.file_name().and_then(|s| s.to_str()).and_then(|s| s.strip_suffix(".layout.json")) else {
            continue;
        };
        let text = std::fs::read_to_string(woodcase.join(format!("{name}.pen"))).expect("board");
        let document = Document::load(&text).expect("valid board").document;
        let expected = std::fs::read_to_string(&path).expect("boxes");
        cases.push((format!("woodcase {name}"), document, serde_json::from_str(&expected).expect("json")));
    }
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    cases
}

#[test]
fn boxes_match_the_boxes_pen_reports_within_half_a_pixel() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, document, expected) in cases() {
        let host = MemoryHost::new();
        let compiled = compile(&host, &document, &CompileOptions::default()).expect("compiles");
        for (id, want) in expected.as_object().expect("object") {
            let Some(got) = compiled.scene.node_by_id(id).and_then(|key| compiled.layout.reported(key)) else {
                failures.push(format!("{name}: {id} has no box"));
                continue;
            };
            checked += 1;
            let want = |k: &str| want[k].as_f64().expect("number") as f32;
            let pairs = [("x", got.x, want("x")), ("y", got.y, want("y")), ("width", got.width, want("width"))];
            let wrong: Vec<String> = pairs
                .iter()
                .chain(&[("height", got.height, want("height"))])
                .filter(|(_, g, w)| (g - w).abs() > TOLERANCE)
                .map(|(k, g, w)| format!("{k} {g} (Pen {w})"))
                .collect();
            if !wrong.is_empty() {
                failures.push(format!("{name}: {id}: {}", wrong.join(", ")));
            }
        }
    }
    assert!(checked >= 70, "only {checked} boxes checked");
    assert!(failures.is_empty(), "{} of {checked} boxes differ from Pen's:\n{}", failures.len(), failures.join("\n"));
}

/// The opaque pixels a node draws, as a box on the canvas: (left, top, right, bottom).
fn drawn_extent(document: &Document, id: &str) -> (f32, f32, f32, f32) {
    let host = MemoryHost::new();
    let mut compiled = compile(&host, document, &CompileOptions::default()).expect("compiles");
    let key = compiled.scene.node_by_id(id).expect("node");
    let rendered = compiled.render(RenderTarget::Node(key), &RenderOptions::default()).expect("renders");
    let (width, height) = (rendered.pixmap.width(), rendered.pixmap.height());
    let (mut min, mut max) = ((u32::MAX, u32::MAX), (0, 0));
    for (i, pixel) in rendered.pixmap.pixels().iter().enumerate() {
        if pixel.alpha() > 128 {
            let (x, y) = (i as u32 % width, i as u32 / width);
            min = (min.0.min(x), min.1.min(y));
            max = (max.0.max(x + 1), max.1.max(y + 1));
        }
    }
    assert!(min.0 < width && min.1 < height, "{id} draws nothing");
    let (ox, oy) = rendered.origin;
    (ox + min.0 as f32, oy + min.1 as f32, ox + max.0 as f32, oy + max.1 as f32)
}

#[test]
fn turned_and_mirrored_nodes_draw_inside_the_boxes_layout_reports() {
    let cases = cases();
    for (case, id) in [
        ("turned_in_flex", "halfTurned"),
        ("turned_in_flex", "colTurned"),
        ("turned_in_flex", "fillTurned"),
        ("turned_boxes", "flipped"),
        ("turned_boxes", "flipTurned"),
        ("turned_boxes", "freeTurned"),
        ("turned_boxes", "absTurned"),
        ("turned_boxes", "grpTurned"),
    ] {
        let (_, document, _) = cases.iter().find(|(name, ..)| name == case).expect("case");
        let host = MemoryHost::new();
        let compiled = compile(&host, document, &CompileOptions::default()).expect("compiles");
        let key = compiled.scene.node_by_id(id).expect("node");
        let reported = compiled.layout.reported(key).expect("box");
        let drawn = drawn_extent(document, id);
        let wanted = (reported.left, reported.top, reported.left + reported.width, reported.top + reported.height);
        let inside = drawn.0 >= wanted.0 - 1.0
            && drawn.1 >= wanted.1 - 1.0
            && drawn.2 <= wanted.2 + 1.0
            && drawn.3 <= wanted.3 + 1.0;
        assert!(inside, "{case} {id}: drawn at {drawn:?}, outside its box {wanted:?}");
        // A shape fills its box; a group's box is its union's turned bounds, which its
        // children's turned shapes need not reach.
        let near = |a: f32, b: f32| (a - b).abs() <= 1.0;
        let fills =
            near(drawn.0, wanted.0) && near(drawn.1, wanted.1) && near(drawn.2, wanted.2) && near(drawn.3, wanted.3);
        assert!(fills || id == "grpTurned", "{case} {id}: drawn at {drawn:?}, its box is {wanted:?}");
    }
}
