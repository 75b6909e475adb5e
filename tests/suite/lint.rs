//! Design lint: each rule has a document that trips it and one that does not, checked through
//! `nib lint` and through snapshot_layout's `lint` option over MCP; the SARIF log validates
//! against the SARIF 2.1.0 schema.

use crate::common::mcp_client;

use std::path::Path;
use std::process::Command;

use mcp_client::{call, connect, structured};
use serde_json::{Value, json};

fn document(children: Value) -> String {
    json!({ "version": "2.10", "children": children }).to_string()
}

fn with_variables(children: Value) -> String {
    json!({ "version": "2.10", "variables": { "--primary": { "type": "color", "value": "#2563EB" } }, "children": children })
        .to_string()
}

fn texts(sizes: &[f64]) -> Value {
    let list: Vec<Value> = sizes
        .iter()
        .enumerate()
        .map(|(i, size)| json!({ "type": "text", "id": format!("t{i}"), "content": "Words", "fontSize": size, "fill": "#111111" }))
        .collect();
    json!([{ "type": "frame", "id": "page", "x": 0, "y": 0, "width": 600, "layout": "vertical", "gap": 8, "fill": "#FFFFFF", "children": list }])
}

/// (rule, a document that trips it, one that does not).
fn cases() -> Vec<(&'static str, String, String)> {
    let on_white = |fill: &str| {
        document(
            json!([{ "type": "frame", "id": "page", "x": 0, "y": 0, "width": 300, "height": 100, "fill": "#FFFFFF",
            "layout": "vertical", "padding": 24,
            "children": [{ "type": "text", "id": "label", "content": "Read me", "fontSize": 14, "fill": fill }] }]),
        )
    };
    let phone = |width: f64, height: f64| {
        document(
            json!([{ "type": "frame", "id": "screen", "x": 0, "y": 0, "width": 390, "height": 200, "fill": "#FFFFFF",
            "layout": "vertical", "padding": 16,
            "children": [{ "type": "frame", "id": "ok", "name": "Primary button", "width": width, "height": height, "fill": "#2563EB" }] }]),
        )
    };
    let filled = |fill: &str| {
        with_variables(
            json!([{ "type": "frame", "id": "card", "x": 0, "y": 0, "width": 100, "height": 100, "fill": fill }]),
        )
    };
    let gap = |gap: f64| {
        document(
            json!([{ "type": "frame", "id": "row", "x": 0, "y": 0, "layout": "horizontal", "gap": gap, "fill": "#FFFFFF",
            "children": [{ "type": "rectangle", "id": "a", "width": 20, "height": 20, "fill": "#111111" },
                         { "type": "rectangle", "id": "b", "width": 20, "height": 20, "fill": "#111111" }] }]),
        )
    };
    let stack = |text_first: bool| {
        let text = json!({ "type": "text", "id": "label", "x": 20, "y": 20, "content": "Hidden?", "fontSize": 16, "fill": "#111111" });
        let cover = json!({ "type": "rectangle", "id": "cover", "x": 0, "y": 0, "width": 200, "height": 100, "fill": "#E5E7EB" });
        let children = if text_first { json!([text, cover]) } else { json!([cover, text]) };
        document(
            json!([{ "type": "frame", "id": "box", "x": 0, "y": 0, "width": 200, "height": 100, "fill": "#FFFFFF", "layout": "none", "children": children }]),
        )
    };
    let hugging = |with_child: bool| {
        let children = if with_child {
            json!([{ "type": "text", "id": "t", "content": "Inside", "fontSize": 14, "fill": "#111111" }])
        } else {
            json!([])
        };
        document(
            json!([{ "type": "frame", "id": "page", "x": 0, "y": 0, "width": 300, "height": 200, "fill": "#FFFFFF", "layout": "vertical",
            "children": [{ "type": "frame", "id": "chip", "width": "fit_content", "height": "fit_content", "padding": 8, "layout": "horizontal", "fill": "#F3F4F6", "children": children }] }]),
        )
    };
    let text_fill = |fill: Option<&str>| {
        let mut text = json!({ "type": "text", "id": "label", "content": "Seen?", "fontSize": 16 });
        if let Some(fill) = fill {
            text["fill"] = json!(fill);
        }
        document(
            json!([{ "type": "frame", "id": "page", "x": 0, "y": 0, "width": 200, "height": 80, "fill": "#FFFFFF", "layout": "vertical", "children": [text] }]),
        )
    };
    // A component that contains an instance of itself (issue 46: lint said nothing of it).
    let components = |cyclic: bool| {
        let inner = if cyclic { "card" } else { "badge" };
        document(json!([
            { "type": "frame", "id": "badge", "reusable": true, "x": 0, "y": 0, "width": 40, "height": 40, "fill": "#2563EB" },
            { "type": "frame", "id": "card", "reusable": true, "x": 100, "y": 0, "width": 100, "height": 100, "fill": "#FFFFFF",
              "layout": "vertical", "children": [{ "type": "ref", "id": "inner", "ref": inner }] }
        ]))
    };
    // A badge over a card: placed absolutely inside the card's flex layout, or the card lays
    // nothing out and every child has its place.
    let overlay = |flex: bool| {
        let layout = if flex { "vertical" } else { "none" };
        let mut badge =
            json!({ "type": "frame", "id": "badge", "x": 80, "y": 8, "width": 12, "height": 12, "fill": "#DC2626" });
        if flex {
            badge["layoutPosition"] = json!("absolute");
        }
        document(json!([{ "type": "frame", "id": "card", "x": 0, "y": 0, "width": 100, "height": 60, "fill": "#FFFFFF",
            "layout": layout, "children": [
                { "type": "text", "id": "title", "x": 8, "y": 8, "content": "Inbox", "fontSize": 14, "fill": "#111111" }, badge] }]))
    };
    let mut scale = vec![16.0; 9];
    scale.extend([24.0, 24.0, 24.0]);
    let mut off_scale = scale.clone();
    off_scale.push(17.0);
    vec![
        ("contrast", on_white("#BBBBBB"), on_white("#333333")),
        ("touch-target", phone(80.0, 30.0), phone(120.0, 48.0)),
        ("small-text", document(texts(&[10.0])), document(texts(&[14.0]))),
        ("raw-color", filled("#2563EB"), filled("$--primary")),
        ("near-color", filled("#2664EB"), filled("#16A34A")),
        ("one-off-color", filled("#16A34A"), filled("$--primary")),
        ("absolute-in-flex", overlay(true), overlay(false)),
        ("off-scale-font-size", document(texts(&off_scale)), document(texts(&scale))),
        ("off-scale-spacing", gap(13.0), gap(12.0)),
        ("covered-text", stack(true), stack(false)),
        ("empty-fit-content", hugging(false), hugging(true)),
        ("invisible-text-fill", text_fill(None), text_fill(Some("#111111"))),
        ("unresolved", components(true), components(false)),
    ]
}

/// The rules `nib lint --preset strict --format json` reports for `file`, and its exit code.
fn cli_rules(file: &Path) -> (Vec<String>, i32) {
    let output = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["lint", "--preset", "strict", "--format", "json"])
        .arg(file)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    let rules = report["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect();
    (rules, output.status.code().unwrap_or(-1))
}

#[test]
fn every_rule_trips_on_its_document_and_not_on_the_fixed_one_through_the_cli() {
    let folder = tempfile::tempdir().unwrap();
    for (rule, trips, passes) in cases() {
        let bad = folder.path().join(format!("{rule}-trips.pen"));
        let good = folder.path().join(format!("{rule}-passes.pen"));
        std::fs::write(&bad, trips).unwrap();
        std::fs::write(&good, passes).unwrap();
        let (found, code) = cli_rules(&bad);
        assert!(found.iter().any(|r| r == rule), "{rule} trips: {found:?}");
        assert_eq!(code, 1, "{rule}: a failing finding fails the run");
        let (found, _) = cli_rules(&good);
        assert!(!found.iter().any(|r| r == rule), "{rule} stays quiet on the fixed document: {found:?}");
    }
}

#[tokio::test]
async fn every_rule_trips_through_snapshot_layout_over_mcp() {
    let root = tempfile::tempdir().unwrap();
    for (rule, trips, passes) in cases() {
        std::fs::write(root.path().join(format!("{rule}-trips.pen")), trips).unwrap();
        std::fs::write(root.path().join(format!("{rule}-passes.pen")), passes).unwrap();
    }
    let client = connect(root.path()).await;
    for (rule, _, _) in cases() {
        let rules_of = |answer: &Value| -> Vec<String> {
            answer["lint"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_owned()).collect()
        };
        let bad = structured(
            &call(
                &client,
                "snapshot_layout",
                json!({ "filePath": format!("{rule}-trips.pen"), "problemsOnly": true, "lint": "strict" }),
            )
            .await,
        );
        let found = rules_of(&bad);
        assert!(found.iter().any(|r| r == rule), "{rule} over MCP: {bad}");
        let finding = bad["lint"].as_array().unwrap().iter().find(|f| f["rule"] == rule).unwrap();
        assert!(
            finding["node"].is_string() && finding["fix"].is_string(),
            "each finding names its node and its fix: {finding}"
        );
        let good = structured(
            &call(
                &client,
                "snapshot_layout",
                json!({ "filePath": format!("{rule}-passes.pen"), "problemsOnly": true, "lint": "strict" }),
            )
            .await,
        );
        assert!(!rules_of(&good).iter().any(|r| r == rule), "{rule} quiet over MCP: {good}");
    }
    // Without `lint` the answer is as before.
    let plain = structured(
        &call(&client, "snapshot_layout", json!({ "filePath": "contrast-trips.pen", "problemsOnly": true })).await,
    );
    assert!(plain.get("lint").is_none());
    client.cancel().await.unwrap();
}

#[test]
fn the_sarif_log_validates_against_sarif_2_1_0_and_a_config_beside_the_files_applies() {
    let folder = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (rule, trips, _) in cases() {
        let path = folder.path().join(format!("{rule}.pen"));
        std::fs::write(&path, trips).unwrap();
        files.push(format!("{rule}.pen"));
    }
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_nib"))
            .arg("lint")
            .args(extra)
            .args(&files)
            .current_dir(folder.path())
            .output()
            .unwrap()
    };
    let output = run(&["--format", "sarif"]);
    let log: Value = serde_json::from_slice(&output.stdout).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() >= 10);
    assert!(
        results
            .iter()
            .all(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().is_some_and(|l| l > 0))
    );

    // nib-lint.json beside the files: a rule turned off is not reported.
    std::fs::write(folder.path().join("nib-lint.json"), r#"{"preset": "strict", "rules": {"contrast": "off"}}"#)
        .unwrap();
    let text = String::from_utf8(run(&[]).stdout).unwrap();
    assert!(!text.contains("[contrast]") && text.contains("error[small-text]"), "{text}");
    std::fs::write(folder.path().join("nib-lint.json"), r#"{"rules": {"contrst": "off"}}"#).unwrap();
    let refused = run(&[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("did you mean 'contrast'"));
}
