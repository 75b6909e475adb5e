//! Every tool's answer over MCP carries its payload once: at most 1.5 times the size of what it
//! reports (the library's answer to the same call: its JSON, Pencil's text for batch_design,
//! the Markdown of a guide or skill, the picture's bytes). Sizes are printed for the record.

use crate::common::mcp_client;

use mcp_client::{call, connect_serving};
use nib::tools::Workspace;
use rmcp::model::ContentBlock;
use serde_json::{Value, json};

const LANDING_PAGE: &str = "Changan-Su__Apple-Style-Website-Editor__PinS.pen";

fn root_with_landing_page() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen").join(LANDING_PAGE);
    std::fs::copy(fixture, root.path().join("design.pen")).unwrap();
    root
}

/// A 1.9 KB batch_design script: a section of twelve texts, an update and a copy.
fn script() -> String {
    let mut lines = vec![
        "s=I(\"Qm8KM\", {type: \"frame\", name: \"Section\", layout: \"vertical\", gap: 16, padding: 24, width: \"fill_container\"})".to_owned(),
    ];
    for i in 0..12 {
        lines.push(format!("t{i}=I(s, {{type: \"text\", content: \"Feature number {i} explained in one sentence\", fill: \"#111111\", fontSize: 16, textGrowth: \"fixed-width\", width: \"fill_container\"}})"));
    }
    lines.push("U(s, {fill: \"#F8FAFC\", cornerRadius: 12})".into());
    lines.push("c=C(t0, s)".into());
    lines.join("\n")
}

fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("get_editor_state", json!({})),
        ("get_editor_state", json!({ "include_schema": true })),
        ("open_document", json!({ "filePathOrTemplate": "design.pen" })),
        ("batch_get", json!({ "filePath": "design.pen", "patterns": [{ "type": "frame" }], "readDepth": 2 })),
        ("batch_design", json!({ "filePath": "design.pen", "operations": script() })),
        ("batch_design", json!({ "filePath": "design.pen", "operations": "U(\"Qm8KM\", {name: \"Landing\"})" })),
        ("get_variables", json!({ "filePath": "design.pen" })),
        (
            "set_variables",
            json!({ "filePath": "design.pen", "variables": { "--brand": { "type": "color", "value": "#2563EB" }, "--gap": { "type": "number", "value": 16 } } }),
        ),
        (
            "search_all_unique_properties",
            json!({ "filePath": "design.pen", "parents": ["Qm8KM"], "properties": ["fillColor", "fontSize", "fontFamily"] }),
        ),
        (
            "replace_all_matching_properties",
            json!({ "filePath": "design.pen", "parents": ["Qm8KM"], "properties": { "fontSize": [{ "from": 16, "to": 17 }] } }),
        ),
        ("snapshot_layout", json!({ "filePath": "design.pen", "maxDepth": 2 })),
        ("snapshot_layout", json!({ "filePath": "design.pen", "problemsOnly": true })),
        (
            "find_empty_space_on_canvas",
            json!({ "filePath": "design.pen", "direction": "right", "width": 400, "height": 300, "padding": 40 }),
        ),
        ("get_screenshot", json!({ "filePath": "design.pen", "nodeId": "Qm8KM" })),
        ("export", json!({ "filePath": "design.pen", "format": "svg", "nodeIds": ["Qm8KM"] })),
        ("get_guidelines", json!({ "topic": "landing-page" })),
        ("get_style_guide_tags", json!({})),
        ("get_style_guide", json!({ "tags": ["calm", "finance"] })),
        ("undo", json!({ "filePath": "design.pen" })),
        ("redo", json!({ "filePath": "design.pen" })),
        (
            "execute",
            json!({ "filePath": "design.pen", "input": "const s = Insert(\"Qm8KM\", {type: \"frame\", layout: \"vertical\", gap: 8});\nfor (let i = 0; i < 5; i++) Insert(s, {type: \"text\", content: \"Row \" + i, fill: \"#111111\"});\nreturn Get(s, {depth: 1});" }),
        ),
        ("get_app_state", json!({})),
        ("read_skill", json!({ "path": "execute" })),
        ("read_skill", json!({})),
        ("get_style", json!({ "params": { "tags": ["calm", "finance"] } })),
    ]
}

/// The size of what a call reports, from the library's answer.
fn reported(tool: &str, value: &Value) -> usize {
    match tool {
        "get_screenshot" => value["data"].as_str().map_or(0, str::len),
        "batch_design" | "get_guidelines" | "read_skill" => value["text"].as_str().map_or(0, str::len),
        _ => value.to_string().len(),
    }
}

/// The size of an MCP answer: its text, its pictures' data and any structured content.
fn answered(result: &rmcp::model::CallToolResult) -> usize {
    let content: usize = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.len(),
            ContentBlock::Image(image) => image.data.len(),
            _ => 0,
        })
        .sum();
    content + result.structured_content.as_ref().map_or(0, |s| s.to_string().len())
}

#[tokio::test]
async fn every_answer_is_at_most_one_and_a_half_times_what_it_reports() {
    let served = root_with_landing_page();
    let alone = root_with_landing_page();
    let client = connect_serving(served.path(), "all").await;
    let mut workspace = Workspace::new(alone.path()).confined();
    for (tool, arguments) in calls() {
        let result = call(&client, tool, arguments.clone()).await;
        assert_ne!(result.is_error, Some(true), "{tool}: {:?}", result.content);
        let library = nib::tools::call(&mut workspace, tool, arguments).unwrap_or_else(|e| panic!("{tool}: {e}"));
        let (answer, report) = (answered(&result), reported(tool, &library));
        eprintln!("{tool:32} answer {answer:8} reports {report:8} ({:.2}×)", answer as f64 / report.max(1) as f64);
        assert!(answer * 2 <= report * 3, "{tool}: an answer of {answer} bytes for {report} bytes of payload");
    }
    client.cancel().await.unwrap();
}
