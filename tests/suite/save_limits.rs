//! Every write path refuses a change that would save a document nib then refuses to open: past
//! the reader's limits (size, nodes, nesting, unknown keys) or past the instance expansion
//! budget `nib check` holds a document to. The refusal names the limit and the file stays
//! byte-identical (issue 46, item 1).

use std::fs;
use std::process::Command;

use nib::tools::{Workspace, call};
use serde_json::{Value, json};

/// A document whose frame `f0` holds `rectangles` rectangles.
fn frame_of_rectangles(rectangles: usize) -> String {
    let children: Vec<Value> =
        (0..rectangles).map(|i| json!({"type": "rectangle", "id": format!("r{i}"), "width": 4, "height": 4})).collect();
    json!({"version": "2.20", "children": [
        {"type": "frame", "id": "f0", "layout": "none", "width": 100, "height": 100, "children": children}
    ]})
    .to_string()
}

/// A batch_design script that copies `f0` into a new frame twice, that frame twice into the
/// next, `levels` times: the document doubles with each level.
fn doubling(levels: usize) -> String {
    let mut script = String::new();
    let mut previous = "\"f0\"".to_owned();
    for level in 1..=levels {
        script.push_str(&format!(
            "d{level}=I(document, {{type: \"frame\", layout: \"none\"}})\nC({previous}, d{level}, {{}})\nC({previous}, d{level}, {{}})\n"
        ));
        previous = format!("d{level}");
    }
    script
}

/// Components `A0` (a rectangle) to `A{levels}`, each holding `fan` instances of the one
/// before: one instance of the last expands to about `fan^levels` nodes.
fn nested_components(levels: usize, fan: usize) -> Value {
    let mut children =
        vec![json!({"type": "rectangle", "id": "A0", "reusable": true, "width": 2, "height": 2, "x": 0, "y": 0})];
    for level in 1..=levels {
        let instances: Vec<Value> = (0..fan)
            .map(|i| json!({"type": "ref", "id": format!("a{level}_{i}"), "ref": format!("A{}", level - 1)}))
            .collect();
        children.push(json!({
            "type": "frame", "id": format!("A{level}"), "reusable": true, "layout": "none",
            "x": 0, "y": 100 * level, "width": 50, "height": 50, "children": instances
        }));
    }
    json!({"version": "2.20", "children": children})
}

struct Folder {
    folder: tempfile::TempDir,
    workspace: Workspace,
}

impl Folder {
    fn with(name: &str, text: &str) -> Folder {
        let folder = tempfile::tempdir().unwrap();
        fs::write(folder.path().join(name), text).unwrap();
        let workspace = Workspace::new(folder.path());
        Folder { folder, workspace }
    }

    fn read(&self, name: &str) -> String {
        fs::read_to_string(self.folder.path().join(name)).unwrap()
    }

    fn path(&self, name: &str) -> std::path::PathBuf {
        self.folder.path().join(name)
    }
}

#[test]
fn batch_design_refuses_a_change_past_the_node_limit_and_leaves_the_file() {
    // 21 nodes doubled 13 times: 21 × 2^14 ≈ 344,000 nodes in all, past 300,000.
    let text = frame_of_rectangles(20);
    let mut f = Folder::with("d.pen", &text);
    let error = call(&mut f.workspace, "batch_design", json!({"filePath": "d.pen", "operations": doubling(13)}))
        .expect_err("over the node limit");
    assert!(error.message.contains("more than 300000 nodes"), "{error}");
    assert!(error.message.contains("the file is unchanged"), "{error}");
    assert!(error.hint.as_deref().unwrap_or_default().contains("split the design"), "{error:?}");
    assert_eq!(f.read("d.pen"), text, "byte-identical");
    // The workspace holds what the file holds: the next call works on the document as it was.
    let state = call(&mut f.workspace, "batch_get", json!({"filePath": "d.pen", "patterns": [{"type": "frame"}]}))
        .expect("batch_get");
    assert_eq!(state["nodes"].as_array().map(Vec::len), Some(1), "{state}");
    // Within the limit, the same kind of change is saved and opens again.
    call(&mut f.workspace, "batch_design", json!({"filePath": "d.pen", "operations": doubling(3)})).expect("saved");
    assert!(nib::doc::Document::load(&f.read("d.pen")).is_ok());
}

#[test]
fn a_change_that_makes_instances_expand_past_the_budget_is_refused() {
    // A4 expands to about 11,000 nodes; twenty instances of it go past 200,000.
    let text = nested_components(4, 10).to_string();
    let mut f = Folder::with("c.pen", &text);
    let mut script = String::from("page=I(document, {type: \"frame\", layout: \"none\", x: 0, y: 1000})\n");
    for _ in 0..20 {
        script.push_str("I(page, {type: \"ref\", ref: \"A4\"})\n");
    }
    let error = call(&mut f.workspace, "batch_design", json!({"filePath": "c.pen", "operations": script.clone()}))
        .expect_err("over the expansion budget");
    assert!(error.message.contains("expand to more than 200000 nodes"), "{error}");
    assert!(error.message.contains("it was undone, and the file is unchanged"), "{error}");
    assert!(error.hint.as_deref().unwrap_or_default().contains("flatten it or split it"), "{error:?}");
    assert_eq!(f.read("c.pen"), text, "byte-identical");
    // Over execute the same.
    let snippet = "const page = Insert(document, {type: \"frame\", layout: \"none\", x: 0, y: 1000});\nfor (let i = 0; i < 20; i++) Insert(page, {type: \"ref\", ref: \"A4\"});";
    let error = call(&mut f.workspace, "execute", json!({"filePath": "c.pen", "input": snippet}))
        .expect_err("over the expansion budget");
    assert!(error.message.contains("expand to more than 200000 nodes"), "{error}");
    assert_eq!(f.read("c.pen"), text, "byte-identical");

    // Through the command line too.
    let script_path = f.path("s.txt");
    fs::write(&script_path, &script).unwrap();
    let output = nib(&["apply", &f.path("c.pen").to_string_lossy(), &script_path.to_string_lossy()]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("expand to more than 200000 nodes") && said.contains("hint:"), "{said}");
    assert_eq!(f.read("c.pen"), text, "byte-identical");
}

#[test]
fn a_document_already_past_the_budget_can_be_repaired_a_step_at_a_time() {
    // Made elsewhere: twenty instances of A4 in the file itself.
    let mut document = nested_components(4, 10);
    let instances: Vec<Value> = (0..20).map(|i| json!({"type": "ref", "id": format!("p{i}"), "ref": "A4"})).collect();
    document["children"].as_array_mut().unwrap().push(json!({
        "type": "frame", "id": "page", "layout": "none", "x": 0, "y": 1000, "children": instances
    }));
    let mut f = Folder::with("over.pen", &document.to_string());
    // A change that does not bring it under the budget is still saved (with the file opening
    // as before), and the ones that remove instances bring it back.
    call(
        &mut f.workspace,
        "batch_design",
        json!({"filePath": "over.pen", "operations": "U(\"page\", {name: \"Page\"})"}),
    )
    .expect("saved");
    assert!(f.read("over.pen").contains("\"name\": \"Page\""));
    let deletions: String = (0..10).map(|i| format!("D(\"p{i}\")\n")).collect();
    call(&mut f.workspace, "batch_design", json!({"filePath": "over.pen", "operations": deletions})).expect("saved");
    let output = nib(&["check", &f.path("over.pen").to_string_lossy()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn nib_apply_refuses_a_change_past_the_node_limit() {
    let text = frame_of_rectangles(20);
    let f = Folder::with("d.pen", &text);
    let script_path = f.path("s.txt");
    fs::write(&script_path, doubling(13)).unwrap();
    let output = nib(&["apply", &f.path("d.pen").to_string_lossy(), &script_path.to_string_lossy()]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("more than 300000 nodes") && said.contains("the file is unchanged"), "{said}");
    assert!(said.contains("hint:"), "{said}");
    assert_eq!(f.read("d.pen"), text, "byte-identical");
    let leftovers: Vec<_> = fs::read_dir(f.folder.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 2, "no temporary file is left: {leftovers:?}");
}

fn nib(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_nib")).env("NIB_IMAGES", "offline").args(args).output().expect("nib runs")
}
