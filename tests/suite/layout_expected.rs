//! Layout against CSS flexbox: the expected boxes in tests/fixtures/layout/expected were computed
//! by headless Chromium from an HTML rendering of each case (tests/fixtures/layout/generate.py).

use std::path::Path;

use nib::doc::Document;
use nib::layout::Layout;
use nib::resolve::{NoImports, SceneOptions, build_scene};
use nib::text::{FontBook, FontOptions, TextEngine, TextStyle};

const TOLERANCE: f32 = 0.5;

fn cases() -> Vec<(String, Document, serde_json::Value)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layout");
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(folder.join("cases")).expect("cases folder") {
        let path = entry.expect("entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("name").to_owned();
        let text = std::fs::read_to_string(&path).expect("case");
        let document = Document::load(&text).expect("valid case").document;
        let expected = std::fs::read_to_string(folder.join("expected").join(format!("{name}.json"))).expect("expected");
        cases.push((name, document, serde_json::from_str(&expected).expect("json")));
    }
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    cases
}

#[test]
fn boxes_match_chromium_flexbox_within_half_a_pixel() {
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, document, expected) in cases() {
        if name.starts_with("paragraphs") {
            continue;
        }
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        let layout = Layout::compute(&scene, &mut engine);
        for (id, want) in expected.as_object().expect("object") {
            let Some(key) = scene.node_by_id(id) else {
                failures.push(format!("{name}: {id} not in the scene"));
                continue;
            };
            let Some(got) = layout.node_box(key) else {
                failures.push(format!("{name}: {id} has no box"));
                continue;
            };
            checked += 1;
            // Where Pen and Chromium differ, Pen's box is the one wanted.
            let want = |k: &str| {
                PEN_DIFFERS
                    .iter()
                    .find(|(pen_id, field, ..)| pen_id == id && *field == k)
                    .map_or(want[k].as_f64().expect("number") as f32, |(_, _, pen, _)| *pen)
            };
            let pairs = [
                ("x", got.left, want("x")),
                ("y", got.top, want("y")),
                ("width", got.width, want("width")),
                ("height", got.height, want("height")),
            ];
            let wrong: Vec<String> = pairs
                .iter()
                .filter(|(_, g, w)| (g - w).abs() > TOLERANCE)
                .map(|(k, g, w)| format!("{k} {g} (want {w})"))
                .collect();
            if !wrong.is_empty() {
                failures.push(format!("{name}: {id}: {}", wrong.join(", ")));
            }
        }
    }
    assert!(checked > 300, "only {checked} boxes checked");
    assert!(failures.is_empty(), "{} of {checked} boxes differ:\n{}", failures.len(), failures.join("\n"));
}

/// Boxes where Pen's engine lays out otherwise than Chromium's flexbox, and Pen's value
/// (DECISIONS.md, Layout: Pen's own engine is the reference).
const PEN_DIFFERS: &[(&str, &str, f32, &str)] = &[
    ("fc_overflow_b", "width", 1.0, "a fill squeezed to nothing is 1 px in Pen (woodcase flex-fill-squeeze), 0 in CSS"),
    ("fc_overflow_c", "x", 5231.0, "it follows the 1 px fill before it"),
];

/// Paragraphs where nib's line breaking knowingly differs from Chromium's, and why.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[(
    "p03",
    "cosmic-text breaks lines by UAX #14, which allows a break after the `//` of a URL; \
     Chromium's ICU rules do not, so a URL moves to the next line whole there",
)];

/// The plain content of the text node `key`.
fn content_of(scene: &nib::resolve::Scene, key: nib::resolve::SceneKey) -> String {
    match scene.node(key).props.get(&nib::doc::Key::Content) {
        Some(nib::doc::Value::Content(nib::doc::values::TextContent::Plain(text))) => text.to_string(),
        _ => panic!("{key:?} has no content"),
    }
}

#[test]
fn paragraphs_wrap_into_the_same_lines_as_chromium() {
    let (_, document, expected) = cases().into_iter().find(|(name, ..)| name == "paragraphs").expect("paragraphs");
    same_lines_as_chromium(&document, &expected);
}

/// Paragraphs in bundled families other than Inter (Chromium loaded the same files with the same
/// unicode-range slices): each family's own advances decide the breaks.
#[test]
fn paragraphs_in_bundled_families_wrap_into_the_same_lines_as_chromium() {
    let (_, document, expected) =
        cases().into_iter().find(|(name, ..)| name == "paragraphs_families").expect("paragraphs_families");
    same_lines_as_chromium(&document, &expected);
    // The case is only worth something where the family's metrics matter: set in Inter, most
    // paragraphs would break elsewhere.
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let mut families = std::collections::BTreeSet::new();
    let mut differ = 0;
    let layout = Layout::compute(&scene, &mut engine);
    for id in expected.as_object().expect("object").keys() {
        let key = scene.node_by_id(id).expect("paragraph in the scene");
        let style = TextStyle::of(&scene.node(key).props);
        families.insert(style.family.clone());
        let width = layout.node_box(key).map(|b| b.width);
        let content = content_of(&scene, key);
        let own = engine.shape(&content, &style, width);
        let inter = engine.shape(&content, &TextStyle { family: "Inter".into(), ..style.clone() }, width);
        let lines = |shaped: &nib::text::ShapedText| -> Vec<String> {
            shaped.lines.iter().map(|l| content[l.text_range.clone()].trim_end().to_owned()).collect()
        };
        if lines(&own) != lines(&inter) {
            differ += 1;
        }
    }
    assert!(families.len() >= 8 && !families.contains("Inter"), "{families:?}");
    assert!(
        differ * 2 > expected.as_object().expect("object").len(),
        "only {differ} paragraphs break differently in Inter"
    );
}

fn same_lines_as_chromium(document: &Document, expected: &serde_json::Value) {
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let scene = build_scene(document, &NoImports, SceneOptions::FULL);
    let layout = Layout::compute(&scene, &mut engine);
    let mut failures = Vec::new();
    let expected = expected.as_object().expect("object");
    for (id, want) in expected {
        let key = scene.node_by_id(id).expect("paragraph in the scene");
        let shaped = layout.shaped_text(key).expect("shaped");
        let content = content_of(&scene, key);
        let got: Vec<&str> = shaped.lines.iter().map(|l| content[l.text_range.clone()].trim_end()).collect();
        let want_lines: Vec<&str> =
            want["lines"].as_array().expect("lines").iter().map(|l| l.as_str().expect("text")).collect();
        if KNOWN_DIFFERENCES.iter().any(|(known, _)| known == id) {
            assert_ne!(got, want_lines, "{id} now matches Chromium: drop it from KNOWN_DIFFERENCES");
            continue;
        }
        if got != want_lines {
            failures.push(format!("{id}: got {got:#?}\nwant {want_lines:#?}"));
        }
        let height = layout.node_box(key).expect("box").height;
        let want_height = want["height"].as_f64().expect("height") as f32;
        if (height - want_height).abs() > TOLERANCE {
            failures.push(format!("{id}: height {height}, want {want_height}"));
        }
    }
    assert!(expected.len() >= 8);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
