//! Every real `.pen` file loads and saves back: byte-identical where Pencil wrote it
//! (`JSON.stringify(doc, null, 2)` reproduces the file), the same JSON otherwise.

use std::path::{Path, PathBuf};

use nib::doc::json;
use nib::doc::values::{Fills, Stroke};
use nib::doc::{Document, Key, NodeType, ProblemKind, Value};

/// The corpus files that are not in Pencil's canonical form: hand-written JSON with inline
/// objects or a trailing newline. Every other file must save byte-identical.
const NOT_CANONICAL: &[&str] = &[
    "PKUbuntu__pen-viewer__sample.pen",
    "Pregum__pencil_viewer__public__samples__components.pen",
    "Pregum__pencil_viewer__public__samples__dashboard.pen",
    "Pregum__pencil_viewer__public__samples__gradient.pen",
    "Pregum__pencil_viewer__public__samples__layout.pen",
    "Pregum__pencil_viewer__public__samples__mobile-app.pen",
    "Pregum__pencil_viewer__public__samples__rotation.pen",
    "Pregum__pencil_viewer__public__samples__shapes.pen",
    "Pregum__pencil_viewer__public__samples__variables.pen",
];

fn corpus() -> Vec<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("fixtures folder")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "pen"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 44, "the corpus has 44 files");
    files
}

fn name(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or_default()
}

fn load(path: &Path) -> (String, Document) {
    let text = std::fs::read_to_string(path).expect("readable");
    let loaded = Document::load(&text).unwrap_or_else(|e| panic!("{}: {e}", name(path)));
    (text, loaded.document)
}

#[test]
fn canonical_files_save_byte_identical() {
    let mut identical = 0;
    for path in corpus().iter().filter(|p| !NOT_CANONICAL.contains(&name(p))) {
        let (text, document) = load(path);
        let saved = document.to_pen_string();
        if saved != text {
            let at = saved.bytes().zip(text.bytes()).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{} differs at byte {at}: saved {:?}",
                name(path),
                &saved[at.saturating_sub(30)..(at + 30).min(saved.len())]
            );
        }
        identical += 1;
    }
    assert_eq!(identical, 35);
}

#[test]
fn hand_written_files_round_trip_semantically() {
    for path in corpus().iter().filter(|p| NOT_CANONICAL.contains(&name(p))) {
        let (text, document) = load(path);
        let saved = document.to_pen_string();
        assert_ne!(saved, text, "{} is listed as not canonical", name(path));
        let before = json::parse(&text).expect("valid").value;
        let after = json::parse(&saved).expect("valid").value;
        assert_eq!(before, after, "{} changed meaning", name(path));
        // The saved form is canonical: saving it again changes nothing.
        let again = Document::load(&saved).expect("reloads").document.to_pen_string();
        assert_eq!(again, saved, "{}", name(path));
    }
}

#[test]
fn every_node_is_indexed_by_id_with_consistent_links() {
    for path in corpus() {
        let (_, document) = load(&path);
        let tree = document.tree();
        let mut count = 0;
        for key in tree.walk() {
            count += 1;
            let node = tree.node(key);
            assert_eq!(document.node_by_id(node.id()), Some(key), "{}: id {}", name(&path), node.id());
            for child in node.children() {
                assert_eq!(tree.node(*child).parent(), Some(key));
            }
        }
        assert_eq!(count, document.node_count(), "{}", name(&path));
    }
}

#[test]
fn node_counts_match_the_corpus_inventory() {
    // Totals from the corpus inventory (SOURCES.md), which counts override content too.
    let expected = [
        ("LIU9293__cirrus__design.pen", 3613),
        ("Achelous1__smalti__docs__design__design.pen", 3612),
        ("Changan-Su__Apple-Style-Website-Editor__pencil-shadcn.pen", 284),
        ("open-pencil__open-pencil__tests__fixtures__pencil_file.pen", 446),
        ("leandrohsilveira__ems__specs__bank-account__design.pen", 293),
    ];
    for (file, total) in expected {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen").join(file);
        let counts = load(&path).1.node_counts();
        let sum: usize = counts.tree.values().chain(counts.overrides.values()).sum();
        assert_eq!(sum, total, "{file}");
    }
}

/// The same design saved by Pencil 2.11 and 2.13: strokes and icons change spelling, and the
/// typed model reads both.
#[test]
fn the_2_11_and_2_13_spellings_are_both_typed() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen");
    let (_, old) = load(&folder.join("Achelous1__smalti__docs__design__design@93099a4_v2.11.pen"));
    let (_, new) = load(&folder.join("Achelous1__smalti__docs__design__design.pen"));

    let strokes = |document: &Document| -> (usize, usize) {
        let tree = document.tree();
        tree.walk().fold((0, 0), |(objects, paints), key| match tree.node(key).props.get(&Key::Stroke) {
            Some(Value::Stroke(Stroke::Object(_))) => (objects + 1, paints),
            Some(Value::Stroke(Stroke::Paint(_))) => (objects, paints + 1),
            _ => (objects, paints),
        })
    };
    let (old_objects, old_paints) = strokes(&old);
    let (new_objects, new_paints) = strokes(&new);
    assert!(old_objects > 300 && old_paints == 0, "2.11 uses stroke objects: {old_objects}/{old_paints}");
    assert!(new_paints > 300 && new_objects == 0, "2.13 uses flat strokes: {new_objects}/{new_paints}");

    let old_counts = old.node_counts().tree;
    let new_counts = new.node_counts().tree;
    assert!(old_counts.get(&NodeType::IconFont).is_some_and(|n| *n > 0));
    assert!(!old_counts.contains_key(&NodeType::Icon));
    assert!(new_counts.get(&NodeType::Icon).is_some_and(|n| *n > 0));
    assert!(!new_counts.contains_key(&NodeType::IconFont));
}

#[test]
fn typed_values_cover_the_corpus() {
    // Each property of each node is typed (no known key falls back to raw JSON), and the
    // shapes the format allows all occur somewhere.
    let mut saw_gradient = false;
    let mut saw_image = false;
    let mut saw_variable_fill = false;
    for path in corpus() {
        let (_, document) = load(&path);
        let tree = document.tree();
        for key in tree.walk() {
            for (k, value) in tree.node(key).props.iter() {
                if let Value::Json(_) = value {
                    assert!(matches!(k, Key::Metadata | Key::Other(_)), "{}: {k:?} kept as raw JSON", name(&path));
                }
                if let Value::Fills(fills) = value {
                    for fill in fills_of(fills) {
                        saw_gradient |= matches!(fill, nib::doc::values::Fill::Gradient(_));
                        saw_image |= matches!(fill, nib::doc::values::Fill::Image(_));
                        saw_variable_fill |= matches!(fill, nib::doc::values::Fill::Solid(nib::doc::VarOr::Var(_)));
                    }
                }
            }
        }
    }
    assert!(saw_gradient && saw_image && saw_variable_fill);
}

fn fills_of(fills: &Fills) -> &[nib::doc::values::Fill] {
    fills.as_slice()
}

#[test]
fn real_files_have_only_real_problems() {
    // Pencil itself wrote "transparent" into the shadcn kit; the loader keeps it, paints nothing
    // for it and says so. No other Pencil-written file has a problem.
    for path in corpus().iter().filter(|p| !NOT_CANONICAL.contains(&name(p))) {
        let text = std::fs::read_to_string(path).expect("readable");
        let problems = Document::load(&text).expect("loads").problems;
        for problem in &problems {
            assert!(
                matches!(&problem.kind, ProblemKind::ColorKeyword { text } if text == "transparent"),
                "{}: {problem}",
                name(path)
            );
        }
    }
}
