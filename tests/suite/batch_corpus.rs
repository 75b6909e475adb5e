//! Every real batch_design script of the corpus, against a kit document that has the components
//! and nodes the scripts address: valid ones run (and undo back to the original bytes), invalid
//! ones fail with a positioned error and change nothing.
//!
//! Many scripts come from Pencil's guides and use bindings an earlier call would have made
//! (`container`, `page`); they run after a prelude that creates those bindings.

use std::path::{Path, PathBuf};

use nib::doc::Document;
use nib::images::OfflineImages;
use nib::resolve::NoImports;
use nib::script::{Context, OpResult, Options, Outcome, parse, run};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scripts")
}

/// What running a script must give.
enum Expect {
    /// Every statement runs; `results` operation results.
    Runs { results: usize },
    /// The script does not parse: the error is at line/column and names the token.
    ParseError { line: u32, column: u32, found: &'static str },
    /// Statement `statement` (0-based, in the script as published) fails with a message
    /// containing `says`.
    Fails { statement: usize, says: &'static str },
}

use Expect::*;

const EXPECTATIONS: &[(&str, Expect)] = &[
    ("001", ParseError { line: 2, column: 85, found: "..." }),
    ("002", Runs { results: 2 }),
    ("003", Fails { statement: 1, says: "Node '" }),
    ("004", Runs { results: 7 }),
    ("005", Runs { results: 4 }),
    ("006", Runs { results: 6 }),
    ("007", Runs { results: 9 }),
    ("008", Runs { results: 6 }),
    ("009", Runs { results: 3 }),
    ("010", Runs { results: 3 }),
    ("011", Runs { results: 3 }),
    ("012", Runs { results: 4 }),
    ("013", Runs { results: 8 }),
    ("014", Runs { results: 7 }),
    ("015", Runs { results: 5 }),
    ("016", Runs { results: 3 }),
    ("017", Runs { results: 3 }),
    ("018", Runs { results: 1 }),
    ("019", Runs { results: 11 }),
    ("020", Runs { results: 5 }),
    ("021", Runs { results: 3 }),
    ("022", Runs { results: 3 }),
    ("023", Runs { results: 1 }),
    ("024", Runs { results: 8 }),
    ("025", Runs { results: 3 }),
    ("026", Runs { results: 2 }),
    ("027", Runs { results: 2 }),
    ("028", ParseError { line: 2, column: 41, found: "..." }),
    ("029", Runs { results: 3 }),
    ("030", Fails { statement: 3, says: "Invalid properties" }),
    ("031", Fails { statement: 2, says: "Invalid properties" }),
    ("032", Fails { statement: 9, says: "No such node to move with id 'nodeId'!" }),
    ("033", Runs { results: 4 }),
    ("034", Runs { results: 2 }),
    ("035", Fails { statement: 1, says: "/Label' not found" }),
    ("036", Runs { results: 3 }),
    ("037", Runs { results: 2 }),
    ("038", Fails { statement: 0, says: "Invalid properties" }),
    ("039", Fails { statement: 0, says: "Component '<组件ID>' not found" }),
    ("040", Runs { results: 1 }),
    ("041", Runs { results: 2 }),
    ("042", ParseError { line: 1, column: 72, found: "<卡片padding>" }),
    ("043", Fails { statement: 0, says: "Invalid properties" }),
    ("044", Fails { statement: 0, says: "Invalid properties" }),
    ("045", ParseError { line: 1, column: 19, found: "..." }),
];

/// Statements that create the bindings a guide snippet assumes, as frames.
fn prelude_for(script: &str) -> String {
    let mut prelude = String::new();
    while let Err(e) = parse(&format!("{prelude}{script}"), 100) {
        if !e.message.ends_with("is not defined in this call") {
            break;
        }
        prelude.push_str(&format!(
            "{0}=I(document, {{type: \"frame\", name: \"{0}\", layout: \"vertical\", width: 1200, height: \"fit_content(800)\"}})\n",
            e.found
        ));
    }
    prelude
}

fn run_script(document: &mut Document, source: &str, folder: &Path) -> Outcome {
    let context = Context {
        library: &NoImports,
        images: &OfflineImages,
        folder: Some(folder),
        confinement: None,
        canvas: None,
        options: Options { max_statements: 40, id_seed: Some(11) },
    };
    run(document, source, &context)
}

#[test]
fn every_corpus_script_runs_or_fails_as_expected() {
    let kit = std::fs::read_to_string(fixtures().join("kit.pen")).expect("kit");
    let folder = tempfile::tempdir().expect("temp folder");
    let mut checked = 0;
    for (name, expect) in EXPECTATIONS {
        let script = std::fs::read_to_string(fixtures().join(format!("{name}.txt"))).expect("script");
        let prelude = prelude_for(&script);
        let prelude_statements = prelude.lines().count();
        let mut document = Document::load(&kit).expect("kit loads").document;
        let outcome = run_script(&mut document, &format!("{prelude}{script}"), folder.path());
        match expect {
            Runs { results } => {
                assert!(outcome.success, "{name}: {}", outcome.text());
                assert_eq!(outcome.results.len() - prelude_statements, *results, "{name}");
                assert_eq!(outcome.revision, 1);
                // What was saved is a valid document; undo restores the original bytes.
                let saved = document.to_pen_string();
                Document::load(&saved).unwrap_or_else(|e| panic!("{name}: saved output is invalid: {e}"));
                assert!(document.undo());
                assert_eq!(document.to_pen_string(), kit, "{name}: undo restores the file");
                assert!(document.redo());
                assert_eq!(document.to_pen_string(), saved, "{name}: redo restores the result");
            }
            ParseError { line, column, found } => {
                let failure = outcome.failure.as_ref().unwrap_or_else(|| panic!("{name} should fail"));
                assert_eq!(prelude_statements, 0, "{name}");
                assert_eq!((failure.line, failure.column), (*line, *column), "{name}: {}", failure.message);
                assert!(failure.message.contains(&format!("`{found}`")), "{name}: {}", failure.message);
                assert!(failure.hint.as_deref().is_some_and(|h| h.contains("placeholder")), "{name}");
                assert_eq!(document.to_pen_string(), kit, "{name}: nothing changes");
            }
            Fails { statement, says } => {
                let failure = outcome.failure.as_ref().unwrap_or_else(|| panic!("{name} should fail"));
                assert_eq!(failure.statement, Some(statement + prelude_statements), "{name}: {}", failure.message);
                assert!(failure.message.contains(says), "{name}: {}", failure.message);
                assert!(failure.hint.is_some(), "{name}: failures carry a hint");
                assert!(outcome.text().contains("All operations in this block have been rolled back."));
                assert_eq!(document.to_pen_string(), kit, "{name}: everything is rolled back");
                assert_eq!(outcome.revision, 0);
            }
        }
        checked += 1;
    }
    let on_disk = std::fs::read_dir(fixtures())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "txt"))
        .count();
    assert_eq!(checked, on_disk, "every script has an expectation");
}

#[test]
fn invalid_properties_are_all_named_with_their_alternatives() {
    let kit = std::fs::read_to_string(fixtures().join("kit.pen")).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let mut document = Document::load(&kit).unwrap().document;
    let script = r##"btn=I("parent", { type: "frame", width: "hug_contents", fill: "transparent", stroke: "$--border", strokeThickness: 1, textAlignHorizontal: "center", alignItems: "flex_start", padding: {left: 24}, style: {backgroundColor: "#fff"} })"##;
    let outcome = run_script(&mut document, script, folder.path());
    let failure = outcome.failure.expect("fails");
    let listed: Vec<(&str, Option<&str>)> =
        failure.invalid.iter().map(|i| (i.pointer.as_str(), i.hint.as_deref())).collect();
    assert_eq!(listed.len(), 7, "{listed:#?}");
    let hint = |pointer: &str| listed.iter().find(|(p, _)| *p == pointer).and_then(|(_, h)| *h).unwrap_or_default();
    assert!(hint("/width").contains("fit_content"));
    assert!(hint("/fill").contains("transparent hex color") || hint("/fill").contains("null"));
    assert!(hint("/strokeThickness").contains("thickness"));
    assert!(hint("/textAlignHorizontal").contains("textAlign"));
    assert!(hint("/alignItems").contains("start"));
    assert!(hint("/padding").contains("[top, right, bottom, left]"));
    assert!(hint("/style").contains("no style object"));
    assert_eq!(document.to_pen_string(), kit);
}

#[test]
fn a_failure_names_the_operation_as_pencil_does() {
    let kit = std::fs::read_to_string(fixtures().join("kit.pen")).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let mut document = Document::load(&kit).unwrap().document;
    let outcome =
        run_script(&mut document, "a=I(\"parent\", {type: \"frame\"})\nU(\"instanceId/JND89\", {})", folder.path());
    let text = outcome.text();
    assert!(
        text.starts_with("## Failure during operation execution\n\nFailed to execute the operation: `{\"callee\":\"U\",\"arguments\":[\"instanceId/JND89\",{}]}`: Error: Node 'instanceId/JND89' not found!"),
        "{text}"
    );
    assert!(text.contains("At statement 2 (line 2, column 3). Hint: ids under `instanceId`: "), "{text}");
    assert!(text.contains("childId"));
}

#[test]
fn a_success_answer_lists_results_bindings_and_issues() {
    let kit = std::fs::read_to_string(fixtures().join("kit.pen")).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let mut document = Document::load(&kit).unwrap().document;
    let outcome = run_script(
        &mut document,
        "box=I(document, {type: \"frame\", layout: \"none\", width: \"fit_content\"})\nlabel=I(box, {type: \"text\", content: \"Hi\"})",
        folder.path(),
    );
    let text = outcome.text();
    let OpResult::Inserted { id, node } = &outcome.results[0] else { panic!() };
    assert!(node.starts_with(&format!("{{\"type\":\"frame\",\"id\":\"{id}\",\"x\":")), "{node}");
    assert!(node.contains("\"name\":\"box\""));
    assert!(text.contains("## The following bindings are NO LONGER AVAILABLE to use:\n`box`, `label`\n"), "{text}");
    assert!(
        text.contains(&format!("- Node '{id}' has 'fit_content' sizing but does not have flexbox layout enabled.")),
        "{text}"
    );
    assert!(text.contains("has no fill, so it is invisible"), "{text}");
    assert_eq!(outcome.bindings.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["box", "label"]);
}
