//! Random documents and random batch_design calls: whatever happens, ids stay unique, links stay
//! consistent, a failed call leaves the saved bytes unchanged, undo restores them, redo repeats
//! the call, and the saved text loads again. The parser never panics.

use std::collections::HashSet;

use nib::doc::Document;
use nib::images::OfflineImages;
use nib::resolve::NoImports;
use nib::script::{Context, Options, parse, run};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256)
}

/// A random node tree as JSON; ids are `n0`, `n1`… in creation order.
fn node(depth: u32) -> BoxedStrategy<Vec<String>> {
    let leaf = prop_oneof![
        Just(vec!["{\"type\": \"text\", \"id\": \"@\", \"content\": \"t\", \"fill\": \"#000000\"}".to_owned()]),
        Just(vec!["{\"type\": \"rectangle\", \"id\": \"@\", \"width\": 10, \"height\": 10}".to_owned()]),
        Just(vec!["{\"type\": \"ref\", \"id\": \"@\", \"ref\": \"Comp\"}".to_owned()]),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    prop_oneof![
        2 => leaf,
        1 => (prop::collection::vec(node(depth - 1), 0..4), prop::sample::select(vec!["none", "vertical", "horizontal"])).prop_map(|(children, layout)| {
            let inner: Vec<String> = children.into_iter().flatten().collect();
            vec![format!("{{\"type\": \"frame\", \"id\": \"@\", \"layout\": \"{layout}\", \"children\": [{}]}}", inner.join(", "))]
        }),
    ]
    .boxed()
}

/// A document with a component `Comp` (a frame with a slot and a label) and random content.
fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(node(3), 1..5).prop_map(|roots| {
        let roots: Vec<String> = roots.into_iter().flatten().collect();
        let mut text = format!(
            "{{\"version\": \"2.8\", \"children\": [{{\"type\": \"frame\", \"id\": \"Comp\", \"reusable\": true, \"layout\": \"vertical\", \"children\": [{{\"type\": \"text\", \"id\": \"label\", \"content\": \"L\", \"fill\": \"#000\"}}, {{\"type\": \"frame\", \"id\": \"slot\", \"slot\": []}}]}}, {}]}}",
            roots.join(", ")
        );
        let mut n = 0;
        while let Some(at) = text.find("\"@\"") {
            text.replace_range(at..at + 3, &format!("\"n{n}\""));
            n += 1;
        }
        text
    })
}

/// A random statement over ids `n0`…`n5`, the component, and instance paths. Most are valid,
/// some are not (unknown ids, bad values, a binding used before it exists), so both commits and
/// rollbacks are exercised.
fn statement() -> impl Strategy<Value = String> {
    let id = prop_oneof![
        12 => (0..6u32).prop_map(|n| format!("\"n{n}\"")),
        1 => Just("\"Comp\"".to_owned()),
        2 => (0..6u32).prop_map(|n| format!("\"n{n}/label\"")),
        2 => (0..6u32).prop_map(|n| format!("\"n{n}/slot\"")),
        1 => Just("b".to_owned()),
    ];
    let parent = prop_oneof![3 => id.clone(), 1 => Just("document".to_owned())];
    let new_node = prop_oneof![
        8 => prop::sample::select(vec![
            "{type: \"frame\", layout: \"vertical\", width: \"fill_container\", children: [{type: \"text\", content: \"x\", fill: \"#111\"}]}",
            "{type: \"text\", content: \"hello\", fill: \"$--fg\", textGrowth: \"fixed-width\", width: \"fill_container\"}",
            "{type: \"rectangle\", width: 20, height: 20, fill: \"#ABCDEF\", cornerRadius: [1, 2, 3, 4]}",
            "{type: \"ref\", ref: \"Comp\", descendants: {label: {content: \"Hi\"}}}",
            "{type: \"frame\", id: \"mine\", children: [{type: \"ellipse\", id: \"dot\", width: 4, height: 4}]}",
        ]),
        1 => prop::sample::select(vec![
            "{type: \"ref\", ref: \"Missing\"}",
            "{type: \"frame\", width: \"hug_contents\"}",
            "{type: \"text\", textColor: \"#fff\"}",
        ]),
    ];
    let props = prop_oneof![
        8 => prop::sample::select(vec![
            "{content: \"x\"}",
            "{fill: \"#abc\"}",
            "{width: \"fill_container\", height: 30}",
            "{layout: \"vertical\", gap: 4, padding: [1, 2]}",
            "{name: null}",
            "{x: 10, y: 20}",
            "{enabled: false}",
            "{children: [{type: \"text\", content: \"c\", fill: \"#000\"}]}",
            "{descendants: {label: {content: \"D\"}}}",
            "{type: \"ellipse\", width: 4, height: 4}",
        ]),
        1 => prop::sample::select(vec!["{fill: \"#12345\"}", "{id: \"x\"}"]),
    ];
    prop_oneof![
        (parent.clone(), new_node.clone()).prop_map(|(p, n)| format!("b=I({p}, {n})")),
        (id.clone(), props).prop_map(|(i, p)| format!("U({i}, {p})")),
        id.clone().prop_map(|i| format!("D({i})")),
        (id.clone(), parent.clone(), 0..4u32).prop_map(|(i, p, n)| format!("M({i}, {p}, {n})")),
        (id.clone(), parent).prop_map(|(i, p)| format!("b=C({i}, {p})")),
        (id, new_node).prop_map(|(i, n)| format!("b=R({i}, {n})")),
    ]
}

fn check_invariants(document: &Document) {
    let tree = document.tree();
    let mut ids = HashSet::new();
    let mut count = 0;
    for key in tree.walk() {
        count += 1;
        let node = tree.node(key);
        assert!(ids.insert(node.id().to_owned()), "duplicate id {}", node.id());
        assert_eq!(document.node_by_id(node.id()), Some(key), "index of {}", node.id());
        for child in node.children() {
            assert_eq!(tree.node(*child).parent(), Some(key), "parent link of {}", tree.node(*child).id());
        }
    }
    assert_eq!(count, document.node_count());
    let saved = document.to_pen_string();
    let reloaded = Document::load(&saved).unwrap_or_else(|e| panic!("saved output does not load: {e}\n{saved}"));
    assert_eq!(reloaded.document.node_count(), count);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_calls_keep_every_invariant(text in document(), calls in prop::collection::vec(prop::collection::vec(statement(), 1..6), 1..4)) {
        let folder = tempfile::tempdir().unwrap();
        let mut document = Document::load(&text).expect("generated documents are valid").document;
        for (n, statements) in calls.iter().enumerate() {
            let before = document.to_pen_string();
            let revision = document.revision();
            let context = Context { library: &NoImports, images: &OfflineImages, folder: Some(folder.path()), confinement: None, canvas: None, options: Options { id_seed: Some(n as u64 + 1), ..Options::default() } };
            let outcome = run(&mut document, &statements.join("\n"), &context);
            check_invariants(&document);
            let after = document.to_pen_string();
            if outcome.success && outcome.revision != revision {
                prop_assert!(document.undo());
                prop_assert_eq!(&document.to_pen_string(), &before, "undo restores the bytes");
                check_invariants(&document);
                prop_assert!(document.redo());
                prop_assert_eq!(&document.to_pen_string(), &after, "redo repeats the call");
            } else if outcome.success {
                prop_assert_eq!(&after, &before, "a call that commits nothing changes nothing");
            } else {
                prop_assert_eq!(&after, &before, "a failed call changes nothing: {}", outcome.text());
            }
        }
    }

    #[test]
    fn the_statement_limit_counts_the_statements_the_grammar_parses(
        statements in prop::collection::vec(statement(), 0..12),
        separators in prop::collection::vec(prop::sample::select(vec!["\n", ";", " ; ", "\n// a comment (\n", "\r\n/* ) */ ", ";\u{a0}\n"]), 13),
    ) {
        // `b` exists from the start, so every generated statement is one the grammar accepts.
        let text: String = std::iter::once("b=I(document, {type: \"frame\"})")
            .chain(statements.iter().map(String::as_str))
            .zip(&separators)
            .map(|(s, sep)| format!("{s}{sep}"))
            .collect();
        let parsed = parse(&text, usize::MAX).expect("generated statements parse");
        let count = statements.len() + 1;
        prop_assert_eq!(parsed.statements.len(), count);
        for limit in 0..count {
            let e = parse(&text, limit).expect_err("over the limit");
            let first_over = &parsed.statements[limit].span;
            prop_assert_eq!(e.statement, Some(limit));
            prop_assert_eq!((e.line, e.column), (first_over.line, first_over.column));
            prop_assert_eq!(e.message, format!("the script has {count} statements; at most {limit} run in one call"));
        }
    }

    #[test]
    fn arbitrary_text_never_panics_the_parser(text in any::<String>()) {
        let _ = parse(&text, 25);
    }

    #[test]
    fn script_like_text_never_panics_the_parser(text in "[a-zA-Z0-9_$ICURMDG(){}\\[\\],:;=+\"'`\\\\/*.\\- \\n<>…]{0,200}") {
        if let Err(e) = parse(&text, 25) {
            prop_assert!(e.line >= 1 && e.column >= 1);
        }
    }

    #[test]
    fn corrupted_real_scripts_never_panic(which in 1..46u32, cut in any::<usize>(), insert in any::<char>()) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/scripts/{which:03}.txt"));
        let mut text = std::fs::read_to_string(path).unwrap();
        let mut at = cut % (text.len() + 1);
        while !text.is_char_boundary(at) { at -= 1; }
        text.insert(at, insert);
        let _ = parse(&text, 25);
        let mut document = Document::new();
        let context = Context { library: &NoImports, images: &OfflineImages, folder: None, confinement: None, canvas: None, options: Options { id_seed: Some(1), ..Options::default() } };
        let _ = run(&mut document, &text, &context);
    }
}
