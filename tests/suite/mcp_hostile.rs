//! `nib mcp` given hostile and odd files in its root: every call answers (an error where the
//! file cannot be used), nothing is written outside the root or over a read-only file, and the
//! server keeps serving the other documents.

use crate::common::mcp_client;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use mcp_client::{Client, call, connect, error_text, structured};
use serde_json::json;

const DOCUMENT: &str = r##"{"version": "2.8", "children": [{"type": "frame", "id": "page", "width": 100, "height": 100, "layout": "none", "fill": "#FFFFFF", "children": [{"type": "rectangle", "id": "box", "width": 10, "height": 10, "fill": "#FF0000"}]}]}"##;

fn root_with_document() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    fs::write(root.path().join("design.pen"), DOCUMENT).unwrap();
    root
}

fn mkfifo(path: &Path) {
    assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// A call must be answered promptly: a blocked worker would stall every later call.
async fn answered(client: &Client, tool: &str, arguments: serde_json::Value) -> rmcp::model::CallToolResult {
    tokio::time::timeout(Duration::from_secs(60), call(client, tool, arguments))
        .await
        .unwrap_or_else(|_| panic!("{tool} got no answer: the server is stuck"))
}

/// The server still does real work on the good document.
async fn still_serving(client: &Client) {
    let nodes = structured(&answered(client, "batch_get", json!({"filePath": "design.pen", "nodeIds": ["box"]})).await);
    assert_eq!(nodes["nodes"][0]["id"], "box", "{nodes}");
}

#[tokio::test]
async fn a_fifo_is_refused_at_once_and_other_documents_keep_working() {
    let root = root_with_document();
    mkfifo(&root.path().join("fifo.pen"));
    let client = connect(root.path()).await;
    let error = error_text(&answered(&client, "batch_get", json!({"filePath": "fifo.pen"})).await);
    assert!(error.contains("is a FIFO (named pipe), not a regular file"), "{error}");
    let error = error_text(&answered(&client, "open_document", json!({"filePathOrTemplate": "fifo.pen"})).await);
    assert!(error.contains("FIFO") || error.contains("already exists"), "{error}");
    still_serving(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_open_document_replaced_by_a_fifo_is_refused_not_read() {
    let root = root_with_document();
    let client = connect(root.path()).await;
    still_serving(&client).await;
    let path = root.path().join("design.pen");
    fs::remove_file(&path).unwrap();
    mkfifo(&path);
    let error = error_text(
        &answered(&client, "batch_design", json!({"filePath": "design.pen", "operations": "U(\"box\", {width: 20})"}))
            .await,
    );
    assert!(error.contains("can no longer be read"), "{error}");
    fs::remove_file(&path).unwrap();
    fs::write(&path, DOCUMENT).unwrap();
    still_serving(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_link_to_dev_zero_is_outside_the_root() {
    let root = root_with_document();
    std::os::unix::fs::symlink("/dev/zero", root.path().join("zero.pen")).unwrap();
    let client = connect(root.path()).await;
    let error = error_text(&answered(&client, "batch_get", json!({"filePath": "zero.pen"})).await);
    assert!(error.contains("outside the folder"), "{error}");
    still_serving(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn g_never_writes_through_an_images_link_that_leads_out_of_the_root() {
    let root = root_with_document();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), root.path().join("images")).unwrap();
    let client = connect(root.path()).await;
    let answer = answered(
        &client,
        "batch_design",
        json!({"filePath": "design.pen", "operations": "G(\"box\", \"ai\", \"a red apple on a table\")"}),
    )
    .await;
    let error = error_text(&answer);
    assert!(error.contains("outside the folder nib works in"), "{error}");
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0, "nothing was written outside the root");
    assert_eq!(fs::read_to_string(root.path().join("design.pen")).unwrap(), DOCUMENT);
    still_serving(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_read_only_document_is_not_overwritten_by_batch_design() {
    let root = root_with_document();
    let path = root.path().join("design.pen");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let client = connect(root.path()).await;
    let error = error_text(
        &answered(&client, "batch_design", json!({"filePath": "design.pen", "operations": "U(\"box\", {width: 20})"}))
            .await,
    );
    assert!(error.contains("is read-only (mode 444)"), "{error}");
    assert!(error.contains("the change was undone"), "{error}");
    assert_eq!(fs::read_to_string(&path).unwrap(), DOCUMENT);
    // What the server holds is what is on disk: the box kept its width.
    let nodes =
        structured(&answered(&client, "batch_get", json!({"filePath": "design.pen", "nodeIds": ["box"]})).await);
    assert_eq!(nodes["nodes"][0]["width"], 10, "{nodes}");
    client.cancel().await.unwrap();
}

/// Every hostile file of the issue, one after the other in one session: each call is answered
/// (an error where the file cannot be used) and the server goes on doing real work.
#[tokio::test]
async fn one_server_survives_every_hostile_file_in_turn() {
    let root = root_with_document();
    let dir = root.path();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile");
    fs::copy(fixtures.join("instance-bomb.pen"), dir.join("bomb.pen")).unwrap();
    mkfifo(&dir.join("fifo.pen"));
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.pen")).unwrap();
    fs::write(
        dir.join("huge-number.pen"),
        r##"{"version": "2.8", "children": [{"type": "frame", "id": "f", "width": 1e308}]}"##,
    )
    .unwrap();
    fs::write(dir.join("locked.pen"), DOCUMENT).unwrap();
    fs::set_permissions(dir.join("locked.pen"), fs::Permissions::from_mode(0o444)).unwrap();
    let deep = format!(
        r#"{{"version": "2.8", "children": [{}{}]}}"#,
        r#"{"type": "frame", "id": "d", "children": ["#.repeat(200),
        "]}".repeat(200)
    );
    fs::write(dir.join("deep.pen"), deep).unwrap();
    let client = connect(dir).await;
    let cases: [(&str, serde_json::Value, &str); 9] = [
        ("get_screenshot", json!({"filePath": "bomb.pen"}), "expand to more than"),
        ("snapshot_layout", json!({"filePath": "bomb.pen"}), "expand to more than"),
        (
            "batch_get",
            json!({"filePath": "bomb.pen", "patterns": [{"type": "ref"}], "resolveInstances": true}),
            "expand to more than",
        ),
        ("batch_get", json!({"filePath": "fifo.pen"}), "FIFO"),
        ("open_document", json!({"filePathOrTemplate": "zero.pen"}), "outside the folder"),
        ("get_screenshot", json!({"filePath": "huge-number.pen"}), "width must be between"),
        ("snapshot_layout", json!({"filePath": "deep.pen"}), "nesting deeper than"),
        ("batch_design", json!({"filePath": "locked.pen", "operations": "U(\"box\", {width: 20})"}), "read-only"),
        (
            "batch_design",
            json!({"filePath": "design.pen", "operations": "a=I(document, {});".repeat(10_000)}),
            "statements",
        ),
    ];
    for (tool, arguments, expected) in cases {
        let error = error_text(&answered(&client, tool, arguments.clone()).await);
        assert!(error.contains(expected), "{tool} {arguments}: {error}");
        still_serving(&client).await;
    }
    assert_eq!(fs::read_to_string(dir.join("locked.pen")).unwrap(), DOCUMENT);
    client.cancel().await.unwrap();
}

/// Before, snapshot_layout's missing-image problem told whether a file outside the root exists
/// ("not found" for one path, silence for another): now both are "outside", unread.
#[tokio::test]
async fn image_problems_never_tell_whether_a_file_outside_the_root_exists() {
    let root = root_with_document();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.png"), b"not really a png").unwrap();
    let relative = |name: &str| {
        let depth = root.path().canonicalize().unwrap().components().count();
        format!("{}{}", "../".repeat(depth), outside.path().canonicalize().unwrap().join(name).display())
    };
    let document = format!(
        r##"{{"version": "2.8", "children": [{{"type": "frame", "id": "page", "width": 100, "height": 100, "layout": "none", "children": [
            {{"type": "rectangle", "id": "real", "width": 10, "height": 10, "fill": {{"type": "image", "url": "{}"}}}},
            {{"type": "rectangle", "id": "ghost", "width": 10, "height": 10, "fill": {{"type": "image", "url": "{}"}}}}
        ]}}]}}"##,
        relative("secret.png"),
        relative("no-such-file.png")
    );
    fs::write(root.path().join("probe.pen"), document).unwrap();
    let client = connect(root.path()).await;
    let answer =
        structured(&answered(&client, "snapshot_layout", json!({"filePath": "probe.pen", "problemsOnly": true})).await);
    let messages: Vec<String> = answer["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "missing_image")
        .map(|p| p["message"].as_str().unwrap().replace("secret.png", "X").replace("no-such-file.png", "X"))
        .collect();
    assert_eq!(messages.len(), 2, "{answer}");
    assert_eq!(messages[0], messages[1], "the same words whether the file exists or not");
    assert!(messages[0].contains("is outside the folder nib serves"), "{}", messages[0]);
    client.cancel().await.unwrap();
}

/// Issue 25, item 1: outputPath naming the document (or any .pen file, or a file of another
/// format) is refused; the document, and its undo history, stay.
#[tokio::test]
async fn an_output_path_never_replaces_the_document() {
    let root = root_with_document();
    let client = connect(root.path()).await;
    let edited =
        answered(&client, "batch_design", json!({"filePath": "design.pen", "operations": "U(\"box\", {width: 20})"}))
            .await;
    assert_ne!(edited.is_error, Some(true), "{}", mcp_client::text(&edited));
    let saved = fs::read_to_string(root.path().join("design.pen")).unwrap();
    for (tool, arguments) in [
        ("get_screenshot", json!({"filePath": "design.pen", "outputPath": "design.pen"})),
        ("get_screenshot", json!({"filePath": "design.pen", "outputPath": "./x/../design.pen"})),
        ("get_screenshot", json!({"filePath": "design.pen", "outputPath": "other.pen"})),
        ("export", json!({"filePath": "design.pen", "format": "png", "nodeIds": ["page"], "outputPath": "design.pen"})),
        ("export", json!({"filePath": "design.pen", "format": "tokens-json", "outputPath": "design.pen"})),
    ] {
        let error = error_text(&answered(&client, tool, arguments.clone()).await);
        assert!(error.contains("never replaces a document"), "{tool} {arguments}: {error}");
    }
    let error = error_text(
        &answered(&client, "get_screenshot", json!({"filePath": "design.pen", "outputPath": "shot.jpg"})).await,
    );
    assert!(error.contains("name it e.g. shot.png"), "{error}");
    assert_eq!(fs::read_to_string(root.path().join("design.pen")).unwrap(), saved);
    assert!(!root.path().join("other.pen").exists() && !root.path().join("shot.jpg").exists());
    // The history is intact: the edit can still be undone.
    let undone = answered(&client, "undo", json!({"filePath": "design.pen"})).await;
    assert_ne!(undone.is_error, Some(true), "{}", mcp_client::text(&undone));
    let restored = fs::read_to_string(root.path().join("design.pen")).unwrap();
    assert!(restored.contains("\"width\": 10,") && !restored.contains("\"width\": 20"), "{restored}");
    client.cancel().await.unwrap();
}
