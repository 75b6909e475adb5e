//! Text boxes against the browser: tests/fixtures/text/expected.json holds the box headless
//! Chromium gives every text of tests/fixtures/text/cases.pen (the corpus's literal texts and
//! generated ones in every bundled family; tests/fixtures/text/generate.py), snapped to whole
//! pixels as Pencil snaps text boxes, and where its last line's baseline is. nib does not build
//! them all as the browser does yet, so this is a ratchet: tests/fixtures/text/floor.json records,
//! per family, the cases nib gets within half a pixel in width, height and baseline, and nib must
//! not get fewer. `NIB_BLESS=1 cargo test --test suite text_conformance` rewrites the floor.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use nib::doc::Document;
use nib::layout::Layout;
use nib::resolve::{NoImports, SceneOptions, build_scene};
use nib::text::{FontBook, FontOptions, TextEngine};

/// The layout fixtures' tolerance: Chromium works in 1/64 px and expected.json keeps 2 decimals.
const TOLERANCE: f32 = 0.5;

/// Enough cases that one family's share means something.
const MIN_CASES: usize = 2_000;

/// Every bundled text family has at least this many cases.
const MIN_PER_FAMILY: usize = 10;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/text")
}

fn read_json(name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(folder().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// How far nib's box of one case is from Chromium's (nib minus Chromium): width, height, and
/// the last line's baseline (where the glyphs are drawn).
struct Outcome {
    id: String,
    family: String,
    dw: f32,
    dh: f32,
    db: f32,
}

impl Outcome {
    fn within(&self) -> bool {
        self.worst() <= TOLERANCE
    }

    fn worst(&self) -> f32 {
        self.dw.abs().max(self.dh.abs()).max(self.db.abs())
    }
}

/// Every case laid out by nib and compared with Chromium's box, in the order of cases.pen.
fn outcomes() -> Vec<Outcome> {
    let text = std::fs::read_to_string(folder().join("cases.pen")).expect("cases.pen");
    let document = Document::load(&text).expect("cases.pen is a valid document").document;
    // The family of each case as written (the scene's style would say what it resolved to).
    let nodes: serde_json::Value = serde_json::from_str(&text).expect("cases.pen is JSON");
    let expected = read_json("expected.json");
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let layout = Layout::compute(&scene, &mut engine);
    let mut outcomes = Vec::new();
    let mut missing_glyphs = Vec::new();
    for node in nodes["children"].as_array().expect("children") {
        let id = node["id"].as_str().expect("id");
        let family = node["fontFamily"].as_str().expect("every case names its family");
        let key = scene.node_by_id(id).unwrap_or_else(|| panic!("{id} is not in the scene"));
        let got = layout.node_box(key).unwrap_or_else(|| panic!("{id} has no box"));
        let shaped = layout.shaped_text(key).unwrap_or_else(|| panic!("{id} has no shaped text"));
        if shaped.missing_glyphs > 0 {
            missing_glyphs.push(id.to_owned());
        }
        let baseline = shaped.lines.last().expect("a text has a line").baseline;
        let want = |k: &str| expected[id][k].as_f64().unwrap_or_else(|| panic!("no expected {k} for {id}")) as f32;
        outcomes.push(Outcome {
            id: id.to_owned(),
            family: family.to_owned(),
            dw: got.width - want("width"),
            dh: got.height - want("height"),
            db: baseline - want("baseline"),
        });
    }
    // Chromium only saw bundled faces; a box drawn where nib has none would compare nothing.
    assert!(
        missing_glyphs.is_empty(),
        "cases with characters no bundled face draws (generate.py should have left them out): {missing_glyphs:?}"
    );
    assert_eq!(outcomes.len(), expected.as_object().expect("object").len(), "cases.pen and expected.json differ");
    outcomes
}

/// The per-family table compare.py prints too: cases, within the tolerance, share, worst.
fn table(by_family: &BTreeMap<&str, Vec<&Outcome>>, all: &[Outcome]) -> String {
    let line = |name: &str, group: &[&Outcome]| {
        let within = group.iter().filter(|o| o.within()).count();
        let worst = group.iter().map(|o| o.worst()).fold(0.0, f32::max);
        let share = 100.0 * within as f32 / group.len() as f32;
        format!("{name:<22} {:>6} {within:>7} {share:>6.1} {worst:>8.2}\n", group.len())
    };
    let mut out = format!("{:<22} {:>6} {:>7} {:>6} {:>8}\n", "family", "cases", "within", "%", "worst");
    for (family, group) in by_family {
        out.push_str(&line(family, group));
    }
    out.push_str(&line("all", &all.iter().collect::<Vec<_>>()));
    out
}

#[test]
fn text_boxes_agree_with_chromium_at_least_as_often_as_the_floor_records() {
    let outcomes = outcomes();
    let mut by_family: BTreeMap<&str, Vec<&Outcome>> = BTreeMap::new();
    for outcome in &outcomes {
        by_family.entry(outcome.family.as_str()).or_default().push(outcome);
    }
    println!(
        "nib against Chromium, boxes within {TOLERANCE} px in width and height:\n{}",
        table(&by_family, &outcomes)
    );

    assert!(outcomes.len() >= MIN_CASES, "only {} cases", outcomes.len());
    let book = FontBook::new(FontOptions::default());
    let thin: Vec<String> = book
        .text_families()
        .map(|family| (family, by_family.get(family).map_or(0, Vec::len)))
        .filter(|(_, count)| *count < MIN_PER_FAMILY)
        .map(|(family, count)| format!("{family} ({count})"))
        .collect();
    assert!(thin.is_empty(), "bundled families with fewer than {MIN_PER_FAMILY} cases: {}", thin.join(", "));

    if std::env::var_os("NIB_BLESS").is_some() {
        std::fs::write(folder().join("floor.json"), floor_text(&by_family)).expect("floor.json written");
        return;
    }
    let floor = read_json("floor.json");
    let floor = floor.as_object().expect("floor.json is an object");
    let mut regressions = Vec::new();
    let mut raised = Vec::new();
    for (family, group) in &by_family {
        let within = group.iter().filter(|o| o.within()).count();
        let entry = floor.get(*family);
        let least = entry.and_then(|e| e["within"].as_u64()).unwrap_or(0) as usize;
        let passing: BTreeSet<&str> = entry
            .and_then(|e| e["passing"].as_array())
            .map(|ids| ids.iter().filter_map(|id| id.as_str()).collect())
            .unwrap_or_default();
        // The cases the floor counted that nib no longer gets within the tolerance.
        let lost: Vec<String> = group
            .iter()
            .filter(|o| passing.contains(o.id.as_str()) && !o.within())
            .map(|o| format!("{} (width {:+.2}, height {:+.2})", o.id, o.dw, o.dh))
            .collect();
        if within < least {
            regressions.push(format!(
                "{family}: {within} cases within {TOLERANCE} px, the floor is {least}; no longer within: {}",
                lost.join(", ")
            ));
        } else if within > least || !lost.is_empty() {
            let moved = if lost.is_empty() { String::new() } else { format!(" (lost {})", lost.join(", ")) };
            raised.push(format!("{family}: {within} within, the floor is {least}{moved}"));
        }
    }
    let gone: Vec<&String> = floor.keys().filter(|family| !by_family.contains_key(family.as_str())).collect();
    if !raised.is_empty() {
        println!(
            "nib gets more cases within {TOLERANCE} px than floor.json records; raise the floor with \
             `NIB_BLESS=1 cargo test --test suite text_conformance`:\n  {}",
            raised.join("\n  ")
        );
    }
    assert!(gone.is_empty(), "floor.json names families without cases (rewrite it with NIB_BLESS=1): {gone:?}");
    assert!(
        regressions.is_empty(),
        "nib builds fewer text boxes as Chromium does than floor.json records:\n{}",
        regressions.join("\n")
    );
}

/// floor.json: per family, the cases within the tolerance ("passing", sorted) and their number.
fn floor_text(by_family: &BTreeMap<&str, Vec<&Outcome>>) -> String {
    let floor: BTreeMap<&str, serde_json::Value> = by_family
        .iter()
        .map(|(family, group)| {
            let mut passing: Vec<&str> = group.iter().filter(|o| o.within()).map(|o| o.id.as_str()).collect();
            passing.sort_unstable();
            let within = passing.len();
            (*family, serde_json::json!({ "passing": passing, "within": within }))
        })
        .collect();
    serde_json::to_string_pretty(&floor).expect("JSON") + "\n"
}
