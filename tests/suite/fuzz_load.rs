//! The loader never panics, whatever it is fed: arbitrary bytes, corrupted real files, and real
//! files with values swapped for random JSON. Whatever loads saves to a canonical fixpoint, and
//! resolves, lays out, reports its problems and renders without a panic.

use std::path::Path;

use nib::doc::{Document, LoadError};
use nib::host::FolderImages;
use nib::layout::Layout;
use nib::render::{RenderOptions, RenderTarget, render};
use nib::resolve::{NoImports, SceneOptions, build_scene};
use nib::text::{FontBook, FontOptions, TextEngine};
use proptest::prelude::*;
use serde_json::Value as SerdeValue;

/// Small real documents that together use every kind of value (variables with themes, refs and
/// descendants, gradients, strokes in both spellings, effects, icons).
const SEEDS: &[&str] = &[
    "open-pencil__open-pencil__tests__fixtures__pencil_button.pen",
    "Pregum__pencil_viewer__public__samples__components.pen",
    "Pregum__pencil_viewer__public__samples__gradient.pen",
    "Pregum__pencil_viewer__public__samples__shapes.pen",
    "Lenindesign__cd-mmp__pencil-new.pen",
    "klrs__riichi-app__designs__design.pen",
];

fn seed(index: usize) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen").join(SEEDS[index % SEEDS.len()]);
    std::fs::read_to_string(path).expect("seed readable")
}

/// Loads, and when that succeeds checks the invariants every loaded document has.
fn check(bytes: &[u8]) -> Result<(), LoadError> {
    let document = Document::load_bytes(bytes)?.document;
    let saved = document.to_pen_string();
    let reloaded = Document::load(&saved).unwrap_or_else(|e| panic!("saved output does not reload: {e}\n{saved}"));
    assert_eq!(reloaded.document.to_pen_string(), saved, "saving is not a fixpoint");
    assert_eq!(reloaded.document.node_count(), document.node_count());
    for key in document.tree().walk() {
        assert_eq!(document.node_by_id(document.tree().node(key).id()), Some(key));
    }
    Ok(())
}

/// Errors always have a plausible location.
fn check_error(bytes: &[u8], error: &LoadError) {
    assert!(error.location.line >= 1 && error.location.column >= 1);
    let lines = bytes.iter().filter(|b| **b == b'\n').count() as u32 + 1;
    assert!(error.location.line <= lines, "line {} of {lines}", error.location.line);
    assert!(!error.to_string().is_empty());
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Bytes that matter to JSON are more likely than arbitrary ones.
    let byte = prop_oneof![
        3 => prop::sample::select(b"{}[]\",:0123456789-.eE+/*\\ \ntrufalsn#$".to_vec()),
        1 => any::<u8>(),
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(at, b)| Mutation::Flip(at, b)),
        (any::<usize>(), byte).prop_map(|(at, b)| Mutation::Insert(at, b)),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, mutation: &Mutation) {
    let len = bytes.len().max(1);
    match *mutation {
        Mutation::Flip(at, b) => {
            if !bytes.is_empty() {
                bytes[at % len] = b;
            }
        }
        Mutation::Insert(at, b) => bytes.insert(at % (bytes.len() + 1), b),
        Mutation::Delete(at) => {
            if !bytes.is_empty() {
                bytes.remove(at % len);
            }
        }
        Mutation::Truncate(at) => bytes.truncate(at % len),
    }
}

/// Random JSON biased towards what documents contain: property names, colors, sizing words,
/// variables, node types.
fn json_value() -> impl Strategy<Value = SerdeValue> {
    let words = prop::sample::select(vec![
        "frame",
        "text",
        "ref",
        "rectangle",
        "group",
        "icon_font",
        "icon",
        "#fff",
        "#1535850",
        "#FF000080",
        "transparent",
        "$--primary",
        "$",
        "fit_content",
        "fill_container(20)",
        "fit_content(",
        "vertical",
        "center",
        "gradient",
        "color",
        "image",
        "shadow",
        "a/b",
        "",
        "normal",
        "700",
        "semibold",
        "inside",
        "inner",
        "2.13",
    ]);
    let leaf = prop_oneof![
        Just(SerdeValue::Null),
        any::<bool>().prop_map(SerdeValue::Bool),
        (-1e6f64..1e6).prop_map(|n| serde_json::json!(n)),
        prop::sample::select(vec![0.0, -1.0, 1e300, -1e300, 1e-300, 4294967296.0]).prop_map(|n| serde_json::json!(n)),
        any::<i32>().prop_map(|n| serde_json::json!(n)),
        words.prop_map(|w| SerdeValue::String(w.to_owned())),
        "[a-z#$()0-9/ ]{0,12}".prop_map(SerdeValue::String),
    ];
    let keys = prop::sample::select(vec![
        "type",
        "id",
        "fill",
        "stroke",
        "children",
        "width",
        "height",
        "padding",
        "cornerRadius",
        "effect",
        "colors",
        "color",
        "position",
        "descendants",
        "theme",
        "value",
        "thickness",
        "fontWeight",
        "content",
        "gradientType",
        "layout",
        "x",
        "unknownKey",
        "strokeWidth",
        "slot",
    ]);
    leaf.prop_recursive(4, 32, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(SerdeValue::Array),
            prop::collection::vec((keys.clone(), inner), 0..6).prop_map(|members| {
                SerdeValue::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// Replaces the `target`-th value (in pre-order, modulo the count) of `root` with `with`.
fn replace_nth(root: &mut SerdeValue, target: usize, with: SerdeValue) {
    fn count(value: &SerdeValue) -> usize {
        1 + match value {
            SerdeValue::Array(items) => items.iter().map(count).sum(),
            SerdeValue::Object(members) => members.values().map(count).sum(),
            _ => 0,
        }
    }
    fn walk(value: &mut SerdeValue, target: &mut usize, with: &mut Option<SerdeValue>) {
        if *target == 0 {
            if let Some(new) = with.take() {
                *value = new;
            }
            return;
        }
        *target -= 1;
        match value {
            SerdeValue::Array(items) => items.iter_mut().for_each(|v| walk(v, target, with)),
            SerdeValue::Object(members) => members.values_mut().for_each(|v| walk(v, target, with)),
            _ => {}
        }
    }
    let mut target = target % count(root);
    walk(root, &mut target, &mut Some(with));
}

/// What a loaded document goes through in the engine: resolution, layout, its problems and a
/// small render of the canvas and of every top-level node. Errors are fine; panics are not.
fn run_engine(document: &Document, text: &mut TextEngine) {
    let scene = build_scene(document, &NoImports, SceneOptions::FULL);
    let layout = Layout::compute(&scene, text);
    let _ = nib::layout::find_problems(&scene, &layout, None);
    let _ = nib::layout::snapshot::snapshot(
        &scene,
        &layout,
        nib::layout::snapshot::SnapshotRequest { parent: None, max_depth: 3, images: None },
    );
    let options = RenderOptions { scale: 0.05, ..RenderOptions::default() };
    let mut images = FolderImages::default();
    let targets = std::iter::once(RenderTarget::Canvas).chain(scene.roots().into_iter().map(RenderTarget::Node));
    for target in targets {
        let _ = render(&scene, &layout, text, &mut images, target, &options);
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(1024)
}

proptest! {
    // 1024 cases by default; PROPTEST_CASES raises it for a long local run.
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if let Err(error) = check(&bytes) {
            check_error(&bytes, &error);
        }
    }

    #[test]
    fn json_like_text_never_panics(text in "[\\[\\]{}\",:0-9a-z#$\\- \\n/*.]{0,300}") {
        if let Err(error) = check(text.as_bytes()) {
            check_error(text.as_bytes(), &error);
        }
    }

    #[test]
    fn corrupted_real_files_never_panic(which in 0..SEEDS.len(), mutations in prop::collection::vec(mutation(), 1..8)) {
        let mut bytes = seed(which).into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        if let Err(error) = check(&bytes) {
            check_error(&bytes, &error);
        }
    }

    #[test]
    fn real_files_with_random_values_never_panic(which in 0..SEEDS.len(), target in any::<usize>(), value in json_value()) {
        let mut root: SerdeValue = serde_json::from_str(&seed(which)).expect("seed is JSON");
        replace_nth(&mut root, target, value);
        let text = serde_json::to_string_pretty(&root).expect("serializes");
        if let Err(error) = check(text.as_bytes()) {
            check_error(text.as_bytes(), &error);
        }
    }

    #[test]
    fn real_files_with_random_values_never_panic_the_engine(which in 0..SEEDS.len(), target in any::<usize>(), value in json_value()) {
        let mut root: SerdeValue = serde_json::from_str(&seed(which)).expect("seed is JSON");
        replace_nth(&mut root, target, value);
        let text = serde_json::to_string_pretty(&root).expect("serializes");
        if let Ok(loaded) = Document::load(&text) {
            thread_local! {
                static ENGINE: std::cell::RefCell<TextEngine> =
                    std::cell::RefCell::new(TextEngine::new(FontBook::new(FontOptions::default())));
            }
            ENGINE.with(|engine| run_engine(&loaded.document, &mut engine.borrow_mut()));
        }
    }
}
