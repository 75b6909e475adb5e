//! Pen's current surface over MCP, with rmcp's own client and the real binary: `nib mcp --tools
//! current|all`, execute with snippets, get_app_state, read_skill, get_style; and `nib exec`.

use crate::common::mcp_client;

use mcp_client::{call, connect, connect_serving, error_text, structured, text};
use rmcp::model::ContentBlock;
use serde_json::{Value, json};

/// A server root with an empty document `d.pen`.
fn root_with_empty_document() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("d.pen"), "{\n  \"version\": \"2.10\",\n  \"children\": []\n}\n").unwrap();
    root
}

fn images(result: &rmcp::model::CallToolResult) -> usize {
    result.content.iter().filter(|block| matches!(block, ContentBlock::Image(_))).count()
}

#[tokio::test]
async fn the_current_surface_builds_reads_and_retries_with_snippets() {
    let root = root_with_empty_document();
    let file = root.path().join("d.pen");
    let client = connect_serving(root.path(), "current").await;
    let instructions = client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
    assert!(instructions.contains("execute") && instructions.contains("read_skill"), "{instructions}");
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["open_document", "undo", "redo", "execute", "get_app_state", "read_skill", "get_style"]);
    let listed = serde_json::to_string(&json!({ "tools": tools })).unwrap();
    eprintln!("tools/list (current): {} tools, {} bytes", tools.len(), listed.len());

    let state = structured(&call(&client, "get_app_state", json!({})).await);
    assert!(state["fonts"].as_array().is_some_and(|f| f.len() >= 50), "{state}");
    structured(&call(&client, "open_document", json!({ "filePathOrTemplate": "d.pen" })).await);
    let state = structured(&call(&client, "get_app_state", json!({})).await);
    assert!(state["activeFile"].as_str().is_some_and(|f| f.ends_with("d.pen")), "{state}");

    // A card component, three instances, read back with a visitor; a picture of the row.
    let snippet = format!("{}\nTakeScreenshot(Get().find((n) => n.name === \"Row\"));", crate::execute::CARDS);
    let snippet = snippet.replacen("return {card, seen};\n", "", 1) + "\nreturn {card, seen};";
    let built = call(&client, "execute", json!({ "input": snippet })).await;
    let answer = structured(&built);
    assert_eq!(answer["result"]["seen"].as_array().map(Vec::len), Some(3), "{answer}");
    assert_eq!(answer["ids"]["instance"].as_array().map(Vec::len), Some(3), "{answer}");
    assert_eq!(images(&built), 1, "the screenshot comes as an image");
    assert!(answer["screenshots"][0].get("data").is_none(), "and not again as text");
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("\"Three\""), "saved before the answer");

    // A failing snippet: an error naming line and column, the file byte-identical.
    let failed = call(
        &client,
        "execute",
        json!({ "input": "Insert(document, {type: \"frame\", name: \"Half\"});\nUpdate(\"missing\", {width: 10});" }),
    )
    .await;
    let said = error_text(&failed);
    assert!(said.starts_with("line 2, column "), "{said}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), saved, "byte-identical after a failure");
    let edit_id = failed.structured_content.as_ref().unwrap()["data"]["editId"].as_str().unwrap().to_owned();
    let card = answer["result"]["card"].as_str().unwrap();
    let retried = call(
        &client,
        "execute",
        json!({ "editId": edit_id, "edits": [{ "find": "\"missing\"", "replace": format!("\"{card}\"") }] }),
    )
    .await;
    structured(&retried);
    assert!(std::fs::read_to_string(&file).unwrap().contains("\"Half\""), "the patched snippet ran");

    // A loop is interrupted at the deadline and the server keeps answering.
    let started = std::time::Instant::now();
    let looped = call(&client, "execute", json!({ "input": "while (true) {}" })).await;
    assert!(error_text(&looped).contains("interrupted after 2000 ms"), "{}", text(&looped));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let grown = call(
        &client,
        "execute",
        json!({ "input": "const a = []; while (true) a.push(\"x\".repeat(1 << 20) + a.length);" }),
    )
    .await;
    assert!(error_text(&grown).contains("heap"), "{}", text(&grown));
    let next = structured(&call(&client, "execute", json!({ "input": "return Get().length;" })).await);
    assert_eq!(next["result"], json!(3));

    // One call is one undo step.
    structured(&call(&client, "undo", json!({})).await);
    let after_undo =
        structured(&call(&client, "execute", json!({ "input": "return Get().map((n) => n.name);" })).await);
    assert_eq!(after_undo["result"], json!(["Card", "Row"]));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn skills_and_styles_answer_every_path_and_a_style_applies() {
    let root = root_with_empty_document();
    let client = connect_serving(root.path(), "current").await;
    // Skills come as their Markdown; the index lists each path as "- `path`: what it covers".
    let index = text(&call(&client, "read_skill", json!({})).await);
    let paths: Vec<String> = index
        .lines()
        .filter_map(|line| {
            line.strip_prefix("- `").and_then(|rest| rest.split_once('`')).map(|(path, _)| path.to_owned())
        })
        .collect();
    assert!(
        paths.len() >= 13 && paths.contains(&"execute".to_owned()) && paths.contains(&"guides/mobile-app".to_owned())
    );
    for path in &paths {
        let skill = call(&client, "read_skill", json!({ "path": path })).await;
        assert_ne!(skill.is_error, Some(true));
        assert!(text(&skill).len() > 400, "{path}");
    }
    let wrong = call(&client, "read_skill", json!({ "path": "execut" })).await;
    assert!(error_text(&wrong).contains("execute"), "a suggestion: {}", text(&wrong));

    let styles = structured(&call(&client, "get_style", json!({})).await);
    let name = styles["styles"][0]["name"].as_str().unwrap().to_owned();
    let style = structured(&call(&client, "get_style", json!({ "name": name })).await);
    let variables = style["variables"].clone();
    structured(&call(&client, "open_document", json!({ "filePathOrTemplate": "d.pen" })).await);
    let applied = structured(
        &call(
            &client,
            "execute",
            json!({ "input": format!("SetVariables({variables});\nInsert(document, {{type: \"frame\", fill: \"$--primary\", width: 10, height: 10}});\nreturn Object.keys(GetVariables().variables).length;") }),
        )
        .await,
    );
    assert_eq!(applied["result"], json!(variables.as_object().unwrap().len()), "{applied}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn all_serves_both_surfaces_and_classic_refuses_execute_clearly() {
    let root = root_with_empty_document();
    let all = connect_serving(root.path(), "all").await;
    let tools = all.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 22);
    structured(&call(&all, "open_document", json!({ "filePathOrTemplate": "d.pen" })).await);
    let made = structured(
        &call(&all, "execute", json!({ "input": "return Insert(document, {type: \"frame\", name: \"F\"});" })).await,
    );
    let id = made["result"].as_str().unwrap();
    // Both surfaces share one document, one history.
    let read = structured(&call(&all, "batch_get", json!({ "nodeIds": [id] })).await);
    assert_eq!(read["nodes"][0]["name"], json!("F"));
    all.cancel().await.unwrap();

    let classic = connect(root.path()).await;
    let refused = call(&classic, "execute", json!({ "input": "return 1;" })).await;
    assert!(error_text(&refused).contains("--tools"), "{}", text(&refused));
    classic.cancel().await.unwrap();
}

fn nib_exec(folder: &std::path::Path, snippet: &str) -> (i32, Value) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["exec", "d.pen", "-"])
        .current_dir(folder)
        .env("NIB_IMAGES", "offline")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(snippet.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    (output.status.code().unwrap_or(-1), serde_json::from_slice(&output.stdout).unwrap_or(Value::Null))
}

#[test]
fn nib_exec_runs_a_snippet_and_saves_only_when_it_ran() {
    let root = root_with_empty_document();
    let file = root.path().join("d.pen");
    let (code, answer) = nib_exec(root.path(), crate::execute::CARDS);
    assert_eq!(code, 0, "{answer}");
    assert_eq!(answer["result"]["seen"].as_array().map(Vec::len), Some(3), "{answer}");
    let saved = std::fs::read(&file).unwrap();
    let (code, answer) = nib_exec(root.path(), "Insert(document, {type: \"frame\"});\nUpdate(\"nope\", {x: 1});");
    assert_eq!(code, 1);
    assert!(answer["error"].as_str().is_some_and(|e| e.starts_with("line 2")), "{answer}");
    assert_eq!(std::fs::read(&file).unwrap(), saved, "untouched after a failure");
    let (code, answer) = nib_exec(root.path(), "Export(null, \"png\", {outputPath: \"../escape.png\"});");
    assert_eq!(code, 1, "{answer}");
    assert!(!root.path().parent().unwrap().join("escape.png").exists());
}
