//! Talking to the real `nib mcp` binary with rmcp's own client, as MCP clients do: shared by the
//! MCP integration tests (include with `#[path = "common/mcp_client.rs"] mod mcp_client;`).

#![allow(dead_code)]

use std::path::Path;
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

/// A connected client.
pub type Client = RunningService<RoleClient, ()>;

/// The `nib mcp` command serving `root`, offline, quiet, and panicking in the tool
/// `panic_on` (the test hook).
pub fn command(root: &Path, panic_on: Option<&str>) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_nib"));
    command.arg("mcp").arg("--root").arg(root).env("RUST_LOG", "warn").env("NIB_IMAGES", "offline");
    if let Some(tool) = panic_on {
        command.env("NIB_MCP_TEST_PANIC", tool);
    }
    command
}

/// A client connected to a new server for `root`.
pub async fn connect(root: &Path) -> Client {
    connect_with(root, None).await
}

/// A client connected to a new server for `root` that panics in `panic_on`.
pub async fn connect_with(root: &Path, panic_on: Option<&str>) -> Client {
    let (transport, _) =
        TokioChildProcess::builder(command(root, panic_on)).stderr(Stdio::null()).spawn().expect("nib mcp starts");
    ().serve(transport).await.expect("initialize handshake")
}

/// A client connected to a new server for `root` serving the tools of `tools` (`--tools`).
pub async fn connect_serving(root: &Path, tools: &str) -> Client {
    let mut command = command(root, None);
    command.arg("--tools").arg(tools);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("nib mcp starts");
    ().serve(transport).await.expect("initialize handshake")
}

/// Calls `tool`; the transport must answer (an error answer is still an answer).
pub async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)).await.expect("an answer")
}

/// The answer of a successful JSON tool: its text, which is the JSON (for batch_design, the
/// facts on the last line of Pencil's text). Each payload comes once: no structuredContent.
pub fn structured(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{}", text(result));
    assert!(result.structured_content.is_none(), "the payload once, as text");
    let text = text(result);
    serde_json::from_str(&text).unwrap_or_else(|_| {
        let last = text.lines().last().unwrap_or_default();
        serde_json::from_str(last).unwrap_or_else(|e| panic!("the answer or its last line is JSON ({e}): {text}"))
    })
}

/// The text blocks of an answer, joined.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of an answer that must be an error.
pub fn error_text(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "expected an error answer: {}", text(result));
    text(result)
}
