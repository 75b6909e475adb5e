//! `nib serve` as its clients see it: rmcp's streamable-HTTP client on `/mcp`, the page's
//! requests, the access checks (Host, Origin, token, sizes) and files changed by other
//! processes — all on loopback, against a server started in this process on a free port.

use crate::common::mcp_client;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_client::{structured, text};
use nib::serve::{Running, ServeOptions};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A small document: one frame with a rectangle inside, quick to lay out and draw in debug.
const DOCUMENT: &str = r##"{"version": "2.6", "children": [
  {"type": "frame", "id": "screen", "name": "Screen", "x": 0, "y": 0, "width": 320, "height": 200, "fill": "#FFFFFF", "layout": "vertical", "padding": 20, "children": [
    {"type": "rectangle", "id": "card", "name": "Card", "width": 120, "height": 80, "fill": "#2563EB"}
  ]}
]}"##;

/// How long a test waits for something that should take milliseconds, before it fails.
const PATIENCE: Duration = Duration::from_secs(20);

type Client = RunningService<RoleClient, ()>;

fn root_with_document() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("design.pen"), DOCUMENT).unwrap();
    root
}

async fn start(root: &Path, token: Option<&str>) -> Running {
    start_with_body_timeout(root, token, nib::serve::BODY_READ_TIMEOUT).await
}

async fn start_with_body_timeout(root: &Path, token: Option<&str>, body_timeout: Duration) -> Running {
    let options = ServeOptions {
        root: root.to_owned(),
        listen: "127.0.0.1:0".parse().unwrap(),
        token: token.map(str::to_owned),
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        fonts: Default::default(),
        tools: Default::default(),
        body_timeout,
    };
    nib::serve::start(options).await.expect("nib serve starts")
}

async fn connect(server: &Running, token: Option<&str>) -> Result<Client, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(server.mcp_url());
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    ().serve(transport).await.map_err(|e| e.to_string())
}

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)).await.expect("an answer")
}

/// Sends `request` as raw bytes and answers the status code and the body.
async fn raw(server: &Running, request: &[u8]) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(server.address).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

/// A request with the right Host and `Connection: close`, plus `extra` header lines.
async fn get(server: &Running, path: &str, extra: &str) -> (u16, String) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}\r\n", server.address);
    raw(server, request.as_bytes()).await
}

async fn post(server: &Running, path: &str, body: &str) -> (u16, String) {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        server.address,
        body.len()
    );
    raw(server, request.as_bytes()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_client_lists_the_tools_designs_and_takes_a_screenshot() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let client = connect(&server, None).await.expect("connects over streamable HTTP");
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 18, "Pencil's 14 tools, undo, redo, export and claim");

    structured(&call(&client, "open_document", json!({"filePathOrTemplate": "design.pen"})).await);
    let design = call(&client, "batch_design", json!({"operations": "U(\"card\", {fill: \"#DC2626\"})"})).await;
    assert_ne!(design.is_error, Some(true), "{}", text(&design));
    let saved = std::fs::read_to_string(root.path().join("design.pen")).unwrap();
    assert!(saved.contains("#DC2626"), "the change is on disk before the answer");

    let shot = call(&client, "get_screenshot", json!({"nodeId": "screen"})).await;
    let image = shot.content.iter().find_map(|block| match block {
        ContentBlock::Image(image) => Some(image.data.clone()),
        _ => None,
    });
    assert!(image.is_some_and(|data| data.len() > 100), "a PNG comes back: {}", text(&shot));
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_current_surface_runs_snippets_over_http() {
    let root = root_with_document();
    let options = ServeOptions {
        root: root.path().to_owned(),
        listen: "127.0.0.1:0".parse().unwrap(),
        token: None,
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        fonts: Default::default(),
        tools: nib::mcp::ToolSet::Current,
        body_timeout: nib::serve::BODY_READ_TIMEOUT,
    };
    let server = nib::serve::start(options).await.expect("nib serve starts");
    let client = connect(&server, None).await.expect("connects over streamable HTTP");
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "execute") && tools.len() == 7);
    structured(&call(&client, "open_document", json!({"filePathOrTemplate": "design.pen"})).await);
    let before = std::fs::read_to_string(root.path().join("design.pen")).unwrap();
    let ran = call(&client, "execute", json!({"input": "Update(\"card\", {fill: \"#16A34A\"});\nTakeScreenshot(\"screen\");\nreturn Get(\"card\").fill;"})).await;
    let answer = structured(&ran);
    assert_eq!(answer["result"], json!("#16A34A"));
    assert!(ran.content.iter().any(|block| matches!(block, ContentBlock::Image(_))), "the picture comes back");
    assert!(std::fs::read_to_string(root.path().join("design.pen")).unwrap().contains("#16A34A"));
    let failed =
        call(&client, "execute", json!({"input": "Update(\"card\", {fill: \"#000000\"});\nthrow new Error(\"no\");"}))
            .await;
    assert_eq!(failed.is_error, Some(true));
    assert_ne!(std::fs::read_to_string(root.path().join("design.pen")).unwrap(), before);
    assert!(
        std::fs::read_to_string(root.path().join("design.pen")).unwrap().contains("#16A34A"),
        "the failed call left it"
    );
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_see_each_others_changes() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let first = connect(&server, None).await.unwrap();
    let second = connect(&server, None).await.unwrap();
    let operations = "U(\"card\", {name: \"Hello\"})";
    let design = call(&first, "batch_design", json!({"filePath": "design.pen", "operations": operations})).await;
    assert_ne!(design.is_error, Some(true), "{}", text(&design));
    let seen = structured(&call(&second, "batch_get", json!({"filePath": "design.pen", "nodeIds": ["card"]})).await);
    assert_eq!(seen["nodes"][0]["name"], "Hello", "{seen}");
    // And back: the second undoes, the first sees the old name.
    structured(&call(&second, "undo", json!({"filePath": "design.pen"})).await);
    let back = structured(&call(&first, "batch_get", json!({"filePath": "design.pen", "nodeIds": ["card"]})).await);
    assert_eq!(back["nodes"][0]["name"], "Card", "{back}");
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_origin_and_a_wrong_host_are_refused() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let request = |host: &str, origin: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{origin}Connection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{initialize}",
            initialize.len()
        )
    };
    let host = server.address.to_string();
    let (status, _) = raw(&server, request(&host, "").as_bytes()).await;
    assert_eq!(status, 200, "the same request from the right place is served");
    let (status, body) = raw(&server, request(&host, "Origin: https://evil.example\r\n").as_bytes()).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("--allow-origin"), "the refusal says what to do: {body}");
    let (status, body) = raw(&server, request("evil.example", "").as_bytes()).await;
    assert_eq!(status, 421, "a DNS-rebinding Host is refused: {body}");
    let (status, _) = raw(&server, request(&format!("localhost:{}", server.address.port()), "").as_bytes()).await;
    assert_eq!(status, 200, "localhost names the same server");
    // The page is refused the same way.
    let (status, _) = get(&server, "/api/files", "Sec-Fetch-Site: cross-site\r\n").await;
    assert_eq!(status, 403, "another site cannot read the documents through the browser");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_token_is_refused_when_one_is_required() {
    let root = root_with_document();
    let token = "a-long-enough-test-token";
    let server = start(root.path(), Some(token)).await;
    assert!(connect(&server, None).await.is_err(), "no token, no session");
    assert!(connect(&server, Some("a-wrong-token-of-some-length")).await.is_err());
    let client = connect(&server, Some(token)).await.expect("the token lets a client in");
    assert_eq!(client.list_all_tools().await.unwrap().len(), 18);
    client.cancel().await.unwrap();
    let (status, _) = get(&server, "/api/files", "").await;
    assert_eq!(status, 401, "the page needs the token too");
    let (status, _) = get(&server, "/", "").await;
    assert_eq!(status, 303, "a browser without the cookie is sent to the login form");
    let (status, body) = get(&server, "/login", "").await;
    assert!(status == 200 && body.contains("token"), "{status} {body}");
    // The one-time link logs a browser in once; its cookie opens the page.
    let link = server.page_url.clone();
    let path = &link[link.find("/login").unwrap()..];
    let request = format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", server.address);
    let mut stream = tokio::net::TcpStream::connect(server.address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 303"), "{answer}");
    let cookie = answer.lines().find_map(|l| l.strip_prefix("set-cookie: ")).expect("a cookie").to_owned();
    assert!(cookie.contains("HttpOnly"));
    let pair = cookie.split(';').next().unwrap();
    let (status, body) = get(&server, "/api/files", &format!("Cookie: {pair}\r\n")).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = get(&server, path, "").await;
    assert_eq!(status, 401, "the link works only once");
    // Another browser types the token into the form.
    let form = |token: &str| {
        let body = format!("token={token}");
        format!(
            "POST /login HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            server.address,
            body.len()
        )
    };
    let (status, _) = raw(&server, form("not-the-token-at-all").as_bytes()).await;
    assert_eq!(status, 401);
    let (status, _) = raw(&server, form(token).as_bytes()).await;
    assert_eq!(status, 303, "the right token logs the browser in");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_selection_is_get_editor_states_selection() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let (status, body) = get(&server, "/api/document?file=design.pen", "").await;
    assert_eq!(status, 200, "{body}");
    let document: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(document["nodes"][0]["id"], "screen");
    assert_eq!(document["nodes"][0]["children"][0]["id"], "card");
    let (status, body) = post(&server, "/api/select", r#"{"file": "design.pen", "ids": ["card"]}"#).await;
    assert_eq!(status, 200, "{body}");
    let client = connect(&server, None).await.unwrap();
    let state = structured(&call(&client, "get_editor_state", json!({})).await);
    assert_eq!(state["selection"], json!([{"id": "card", "type": "rectangle", "name": "Card"}]), "{state}");
    // A node that is not there is refused, and the page's own render is a PNG.
    let (status, body) = post(&server, "/api/select", r#"{"file": "design.pen", "ids": ["nope"]}"#).await;
    assert_eq!(status, 422, "{body}");
    let (status, body) = get(&server, "/api/render?file=design.pen&node=screen&scale=2", "").await;
    assert_eq!(status, 200);
    assert!(body.starts_with("\u{FFFD}PNG"), "a PNG");
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paths_outside_the_root_are_refused_as_by_nib_mcp() {
    let root = root_with_document();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.pen"), DOCUMENT).unwrap();
    let server = start(root.path(), None).await;
    let escape = format!("../{}/secret.pen", outside.path().file_name().unwrap().to_string_lossy());
    for path in [escape.as_str(), &outside.path().join("secret.pen").display().to_string()] {
        let (status, body) = get(&server, &format!("/api/document?file={}", encode(path)), "").await;
        assert_eq!(status, 422, "{path}: {body}");
        assert!(body.contains("outside the folder"), "{body}");
        let (status, _) = get(&server, &format!("/api/render?file={}", encode(path)), "").await;
        assert_eq!(status, 422);
    }
    server.stop().await;
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Counts panics on the server's threads (the runtime's workers and blocking threads) from the
/// moment it is called; a failing assertion in another test, on its own thread, is not counted.
fn count_panics() -> &'static AtomicUsize {
    static PANICS: AtomicUsize = AtomicUsize::new(0);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name().is_none_or(|name| name.starts_with("tokio")) {
            PANICS.fetch_add(1, Ordering::SeqCst);
        }
        previous(info);
    }));
    &PANICS
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_are_answered_without_a_panic() {
    let panics = count_panics();
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let host = server.address.to_string();
    let big = format!(
        "POST /api/select HTTP/1.1\r\nHost: {host}\r\nContent-Length: 999999999999\r\nConnection: close\r\n\r\n"
    );
    let (status, _) = raw(&server, big.as_bytes()).await;
    assert_eq!(status, 413, "a declared body past the limit is refused before it is read");
    let (status, _) = raw(
        &server,
        format!("POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Length: 99999999\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    )
    .await;
    assert_eq!(status, 413);
    let bodies = [
        "",
        "{",
        "null",
        "[]",
        r#"{"file": 1, "ids": "x"}"#,
        r#"{"file": "design.pen", "ids": [null]}"#,
        r#"{"file": "/dev/zero", "ids": []}"#,
        r#"{"file": "design.pen", "ids": [], "more": 1}"#,
        r#"{"file": "\u0000", "ids": []}"#,
    ];
    for body in bodies {
        for path in ["/api/select", "/api/undo", "/api/redo", "/mcp"] {
            let (status, answer) = post(&server, path, body).await;
            assert!((400..500).contains(&status) || status == 200, "{path} {body:?}: {status} {answer}");
        }
    }
    let queries = [
        "/api/document",
        "/api/document?file=",
        "/api/document?file=nope.pen",
        "/api/document?file=%FF%FE",
        "/api/render?file=design.pen&scale=NaN",
        "/api/render?file=design.pen&scale=-1",
        "/api/render?file=design.pen&scale=1e30",
        "/api/render?file=design.pen&node=nope",
        "/api/node?file=design.pen&id=",
        "/api/node?file=design.pen",
        "/nothing",
        "/api/../../etc/passwd",
        "/%00",
    ];
    for query in queries {
        let (status, body) = get(&server, query, "").await;
        assert!(status == 200 || (400..500).contains(&status), "{query}: {status} {body}");
    }
    // Garbage that is not HTTP at all, and random bytes.
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for round in 0..40 {
        let length = 1 + (round * 37) % 600;
        let bytes: Vec<u8> = (0..length)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        let mut request =
            if round % 2 == 0 { format!("GET / HTTP/1.1\r\nHost: {host}\r\n").into_bytes() } else { Vec::new() };
        request.extend(bytes);
        request.extend(b"\r\n\r\n");
        let _ = tokio::time::timeout(PATIENCE, raw(&server, &request)).await;
    }
    let (status, _) = get(&server, "/api/files", "").await;
    assert_eq!(status, 200, "the server still answers");
    assert_eq!(panics.load(Ordering::SeqCst), 0, "nothing panicked");
    server.stop().await;
}

/// Reads the page's event stream until a `change` for `file` arrives; `pending` keeps what was
/// read past it for the next call.
async fn next_change(stream: &mut tokio::net::TcpStream, pending: &mut String, file: &str) -> Value {
    let needle = format!("\"file\":\"{file}\"");
    let mut buffer = [0u8; 4096];
    loop {
        if let Some(at) = pending.find(&needle) {
            let line_start = pending[..at].rfind("data:").unwrap();
            let line_end = pending[at..].find('\n').map_or(pending.len(), |e| at + e);
            let change = serde_json::from_str(pending[line_start + 5..line_end].trim()).unwrap();
            pending.drain(..line_end);
            return change;
        }
        let read = tokio::time::timeout(PATIENCE, stream.read(&mut buffer)).await.expect("a change comes").unwrap();
        assert!(read > 0, "the stream stays open");
        pending.push_str(&String::from_utf8_lossy(&buffer[..read]));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_saved_by_another_process_reaches_the_page_and_the_tools() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let client = connect(&server, None).await.unwrap();
    structured(&call(&client, "open_document", json!({"filePathOrTemplate": "design.pen"})).await);
    let before = structured(&call(&client, "get_editor_state", json!({})).await)["revision"].as_u64().unwrap();

    let mut events = tokio::net::TcpStream::connect(server.address).await.unwrap();
    let request = format!("GET /api/events HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n", server.address);
    events.write_all(request.as_bytes()).await.unwrap();

    // `nib apply` in another process changes the file.
    let script = root.path().join("change.txt");
    std::fs::write(&script, "U(\"card\", {fill: \"#16A34A\"})").unwrap();
    let status = tokio::process::Command::new(env!("CARGO_BIN_EXE_nib"))
        .arg("apply")
        .arg(root.path().join("design.pen"))
        .arg(&script)
        .stdout(std::process::Stdio::null())
        .status()
        .await
        .unwrap();
    assert!(status.success());

    let (mut revision, mut pending) = (before, String::new());
    while revision <= before {
        let change = next_change(&mut events, &mut pending, "design.pen").await;
        revision = change["revision"].as_u64().expect("the open document's revision");
    }
    let state = structured(&call(&client, "get_editor_state", json!({})).await);
    assert_eq!(state["revision"].as_u64(), Some(revision), "{state}");
    let card = structured(&call(&client, "batch_get", json!({"nodeIds": ["card"]})).await);
    assert_eq!(card["nodes"][0]["fill"], "#16A34A", "the tools answer from the new file: {card}");
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_undo_and_redo_step_the_history_the_agents_share() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let client = connect(&server, None).await.unwrap();
    let design = call(
        &client,
        "batch_design",
        json!({"filePath": "design.pen", "operations": "U(\"card\", {name: \"Agent\"})"}),
    )
    .await;
    assert_ne!(design.is_error, Some(true), "{}", text(&design));
    let (status, body) = post(&server, "/api/undo", r#"{"file": "design.pen"}"#).await;
    assert_eq!(status, 200, "{body}");
    let name = |value: Value| value["nodes"][0]["name"].clone();
    let nodes = structured(&call(&client, "batch_get", json!({"filePath": "design.pen", "nodeIds": ["card"]})).await);
    assert_eq!(name(nodes), "Card", "the agent sees the person's undo");
    let (status, body) = post(&server, "/api/redo", r#"{"file": "design.pen"}"#).await;
    assert_eq!(status, 200, "{body}");
    let nodes = structured(&call(&client, "batch_get", json!({"filePath": "design.pen", "nodeIds": ["card"]})).await);
    assert_eq!(name(nodes), "Agent");
    let (status, body) = post(&server, "/api/redo", r#"{"file": "design.pen"}"#).await;
    assert_eq!(status, 422, "nothing more to redo is said, not hidden: {body}");
    client.cancel().await.unwrap();
    server.stop().await;
}

// Issue 25: what did not hold in the second round of hostile inputs.

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn mcp_post(host: &str, content_type: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: {content_type}\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Item 4: hundreds of idle and half-sent connections do not keep a client out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_half_sent_connections_do_not_lock_out_a_client() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let mut hogs = Vec::new();
    for n in 0..300 {
        let mut socket = tokio::net::TcpStream::connect(server.address).await.unwrap();
        if n % 2 == 1 {
            socket.write_all(b"GET /api/files HTTP/1.1\r\nHost: ").await.unwrap();
        }
        hogs.push(socket);
    }
    let started = std::time::Instant::now();
    let (status, body) = tokio::time::timeout(PATIENCE, get(&server, "/api/files", "")).await.expect("answered");
    assert_eq!(status, 200, "{body}");
    assert!(started.elapsed() < Duration::from_secs(5), "answered at once, in {:?}", started.elapsed());
    // A connection that sends nothing is closed after the header-read timeout: the server
    // reads EOF on it (checked on one that is still open, the last).
    let mut last = hogs.pop().unwrap();
    let mut byte = [0u8; 1];
    let wait = nib::serve::HEADER_READ_TIMEOUT + PATIENCE;
    let closed = tokio::time::timeout(wait, last.read(&mut byte)).await.expect("the server closed it");
    assert!(matches!(closed, Ok(0) | Err(_)), "{closed:?}");
    server.stop().await;
}

/// Item 4, beyond loopback: unauthenticated sockets give way to a client holding the token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unauthenticated_sockets_give_way_to_a_client_with_the_token() {
    let root = root_with_document();
    let token = "a-token-of-enough-length";
    let options = ServeOptions {
        root: root.path().to_owned(),
        listen: "0.0.0.0:0".parse().unwrap(),
        token: Some(token.to_owned()),
        allowed_hosts: vec!["127.0.0.1".into()],
        allowed_origins: Vec::new(),
        fonts: Default::default(),
        tools: Default::default(),
        body_timeout: nib::serve::BODY_READ_TIMEOUT,
    };
    let server = nib::serve::start(options).await.expect("nib serve starts");
    let port = server.address.port();
    let mut hogs = Vec::new();
    for n in 0..270 {
        let mut socket = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        if n % 3 == 0 {
            // A request without the token: refused, and the connection kept alive.
            let request = format!("GET /api/files HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
            socket.write_all(request.as_bytes()).await.unwrap();
        }
        hogs.push(socket);
    }
    let request = format!(
        "GET /api/files HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    );
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer)).await.expect("answered").unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    drop(hogs);
    server.stop().await;
}

/// Item 5: sessions are capped; past the cap `initialize` gets a JSON-RPC error saying why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_sessions_are_capped_with_a_clear_refusal() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let host = server.address.to_string();
    let mut opened = 0;
    let mut refusal = None;
    for _ in 0..nib::serve::MAX_SESSIONS + 20 {
        let (status, body) = raw(&server, mcp_post(&host, "application/json", INITIALIZE).as_bytes()).await;
        match status {
            200 => opened += 1,
            503 => refusal = Some(body),
            other => panic!("initialize answered {other}: {body}"),
        }
    }
    assert_eq!(opened, nib::serve::MAX_SESSIONS);
    let refusal: Value = serde_json::from_str(&refusal.expect("refused past the cap")).expect("JSON-RPC");
    assert_eq!(refusal["jsonrpc"], "2.0");
    let message = refusal["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("too many MCP sessions") && message.contains("DELETE /mcp"), "{refusal}");
    // The page and the rest still answer.
    assert_eq!(get(&server, "/api/files", "").await.0, 200);
    server.stop().await;
}

/// Also in issue 25: a chunked body past the limit is 413, malformed JSON-RPC a JSON-RPC error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_mcp_messages_get_json_rpc_errors() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let host = server.address.to_string();
    // 40 MiB in chunks, no length declared.
    let mut stream = tokio::net::TcpStream::connect(server.address).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let chunk = vec![b' '; 1 << 20];
    let mut sent = 0;
    for _ in 0..40 {
        let mut piece = format!("{:x}\r\n", chunk.len()).into_bytes();
        piece.extend_from_slice(&chunk);
        piece.extend_from_slice(b"\r\n");
        if stream.write_all(&piece).await.is_err() {
            break; // the server answered and closed early
        }
        sent += 1;
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    assert!(answer.starts_with("HTTP/1.1 413"), "after {sent} MiB: {answer}");
    let body: Value = serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).expect("a JSON-RPC error");
    assert!(body["error"]["message"].as_str().unwrap().contains("larger than"), "{body}");

    for (content_type, body, status, code) in [
        ("application/json", "{\"jsonrpc\": \"2.0\", ", 400, -32700),
        ("application/json", "[1, 2", 400, -32700),
        ("text/plain", INITIALIZE, 415, -32700),
        ("application/json", "{\"hello\": 1}", 400, -32600),
    ] {
        let (got, answer) = raw(&server, mcp_post(&host, content_type, body).as_bytes()).await;
        assert_eq!(got, status, "{content_type} {body:?}: {answer}");
        let answer: Value =
            serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{body:?}: not JSON ({e}): {answer}"));
        assert_eq!(
            (answer["jsonrpc"].as_str(), answer["error"]["code"].as_i64()),
            (Some("2.0"), Some(code)),
            "{answer}"
        );
    }
    server.stop().await;
}

/// Item 1 under `nib serve`: an output path naming the open document is refused, and the
/// document keeps its content and its history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_output_path_cannot_replace_an_open_document() {
    let root = root_with_document();
    let server = start(root.path(), None).await;
    let client = connect(&server, None).await.unwrap();
    let edited =
        call(&client, "batch_design", json!({"filePath": "design.pen", "operations": "U(\"card\", {width: 60})"}))
            .await;
    assert_ne!(edited.is_error, Some(true), "{}", text(&edited));
    let saved = std::fs::read_to_string(root.path().join("design.pen")).unwrap();
    let shot = call(&client, "get_screenshot", json!({"filePath": "design.pen", "outputPath": "design.pen"})).await;
    assert_eq!(shot.is_error, Some(true));
    assert!(text(&shot).contains("never replaces a document"), "{}", text(&shot));
    assert_eq!(std::fs::read_to_string(root.path().join("design.pen")).unwrap(), saved);
    let undone = call(&client, "undo", json!({"filePath": "design.pen"})).await;
    assert_ne!(undone.is_error, Some(true), "{}", text(&undone));
    let restored = std::fs::read_to_string(root.path().join("design.pen")).unwrap();
    assert!(restored.contains("\"width\": 120") && !restored.contains("\"width\": 60"), "{restored}");
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_the_design_lint() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("lint.pen"),
        r##"{"version": "2.10", "children": [{"type": "frame", "id": "page", "x": 0, "y": 0, "width": 300, "height": 100,
  "fill": "#FFFFFF", "layout": "vertical", "padding": 24,
  "children": [{"type": "text", "id": "faint", "content": "Read me", "fontSize": 10, "fill": "#CCCCCC"}]}]}"##,
    )
    .unwrap();
    let server = start(root.path(), None).await;
    let (status, body) = get(&server, "/api/lint?file=lint.pen", "").await;
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    let rules: Vec<&str> = answer["findings"].as_array().unwrap().iter().filter_map(|f| f["rule"].as_str()).collect();
    assert!(rules.contains(&"contrast") && rules.contains(&"small-text"), "{answer}");
    assert!(answer["findings"].as_array().unwrap().iter().all(|f| f["node"] == "faint"));
    let (status, page) = get(&server, "/", "").await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"lint\""), "the page has a place for the findings");
    let (_, script) = get(&server, "/app.js", "").await;
    assert!(script.contains("/api/lint?"), "and fetches them");
    server.stop().await;
}

// Issue 56: hostile inputs and faults, fourth round.

/// Headers of a POST of `length` bytes to `path` that waits for `100 Continue` before its body:
/// reading that answer tells that the server's route is reading the body.
fn continued_post(host: &str, path: &str, length: usize) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nExpect: 100-continue\r\nContent-Length: {length}\r\n\r\n"
    )
}

/// Opens a connection that sends the headers of a 1,000-byte body and 10 bytes of it, after the
/// server started reading it.
async fn stalled_body(server: &Running, path: &str) -> tokio::net::TcpStream {
    let mut stream = tokio::net::TcpStream::connect(server.address).await.unwrap();
    stream.write_all(continued_post(&server.address.to_string(), path, 1000).as_bytes()).await.unwrap();
    let mut head = [0u8; 25];
    tokio::time::timeout(PATIENCE, stream.read_exact(&mut head)).await.expect("100 Continue").unwrap();
    assert!(head.starts_with(b"HTTP/1.1 100 Continue\r\n\r\n"), "{}", String::from_utf8_lossy(&head));
    stream.write_all(b"{\"jsonrpc\"").await.unwrap();
    stream
}

/// Item 6: a request body that stops arriving is answered 408 once the body timeout is past —
/// a JSON-RPC error on /mcp, text for the page — and its connection is closed; clients get in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_stops_arriving_is_answered_408_and_its_connection_closed() {
    let root = root_with_document();
    let server = start_with_body_timeout(root.path(), None, Duration::from_millis(300)).await;
    let mut stalled = Vec::new();
    for path in ["/mcp", "/mcp", "/mcp", "/api/select"] {
        stalled.push((path, stalled_body(&server, path).await));
    }
    for (path, mut stream) in stalled {
        let mut answer = Vec::new();
        let read = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer)).await;
        assert!(read.is_ok(), "{path}: the server closed the connection");
        let answer = String::from_utf8_lossy(&answer).into_owned();
        assert!(answer.starts_with("HTTP/1.1 408"), "{path}: {answer}");
        assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer}");
        let body = answer.split_once("\r\n\r\n").map(|(_, body)| body).unwrap_or_default();
        assert!(body.contains("the request body stopped arriving (10 bytes"), "{path}: {body}");
        if path == "/mcp" {
            let error: Value = serde_json::from_str(body).expect("a JSON-RPC error");
            assert_eq!((error["jsonrpc"].as_str(), error["error"]["code"].as_i64()), (Some("2.0"), Some(-32000)));
        }
    }
    let client = connect(&server, None).await.expect("a new client initializes");
    client.cancel().await.unwrap();
    server.stop().await;
}

/// Item 6: when every place is taken by connections whose bodies stopped arriving (and the
/// body timeout is far away), a new client takes the place of the one stalled longest instead
/// of waiting for good (256 of them locked every client out before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_stalled_in_a_body_give_way_to_a_new_client() {
    let root = root_with_document();
    let server = start_with_body_timeout(root.path(), None, Duration::from_secs(3600)).await;
    let (closed_tx, mut closed) = tokio::sync::mpsc::unbounded_channel();
    for n in 0..nib::serve::MAX_CONNECTIONS {
        let mut stream = stalled_body(&server, "/mcp").await;
        let closed_tx = closed_tx.clone();
        tokio::spawn(async move {
            let mut rest = Vec::new();
            let _ = stream.read_to_end(&mut rest).await;
            let _ = closed_tx.send((n, rest));
        });
    }
    let client = tokio::time::timeout(PATIENCE, connect(&server, None))
        .await
        .expect("a new client gets a place while every other one is stalled in a body")
        .expect("and initializes");
    let (n, rest) = tokio::time::timeout(PATIENCE, closed.recv()).await.expect("a stalled one was closed").unwrap();
    assert_eq!(n, 0, "the one that received nothing for the longest gave way");
    assert!(rest.is_empty(), "it was closed without an answer: {}", String::from_utf8_lossy(&rest));
    client.cancel().await.unwrap();
    server.stop().await;
}

// ---- Agents side by side: claims, what the others changed, revisions ----

/// Two top-level frames, each with a card.
const TWO_FRAMES: &str = r##"{"version": "2.6", "children": [
  {"type": "frame", "id": "left", "name": "Left", "x": 0, "y": 0, "width": 200, "height": 100, "children": [
    {"type": "rectangle", "id": "left-card", "width": 50, "height": 50, "fill": "#2563EB"}
  ]},
  {"type": "frame", "id": "right", "name": "Right", "x": 300, "y": 0, "width": 200, "height": 100, "children": [
    {"type": "rectangle", "id": "right-card", "width": 50, "height": 50, "fill": "#2563EB"}
  ]}
]}"##;

type NamedClient = RunningService<RoleClient, rmcp::model::ClientConfig>;

/// A client that says its name is `name` (clientInfo), as agents' clients do.
/// A server over a folder holding `design.pen` (two frames), and two sessions named agent-a and
/// agent-b connected to it.
async fn two_agents_on_two_frames() -> (tempfile::TempDir, std::path::PathBuf, Running, NamedClient, NamedClient) {
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("design.pen");
    std::fs::write(&file, TWO_FRAMES).unwrap();
    let server = start(root.path(), None).await;
    let a = connect_as(&server, "agent-a").await;
    let b = connect_as(&server, "agent-b").await;
    (root, file, server, a, b)
}

async fn connect_as(server: &Running, name: &str) -> NamedClient {
    let transport =
        StreamableHttpClientTransport::from_config(StreamableHttpClientTransportConfig::with_uri(server.mcp_url()));
    let info = rmcp::model::ClientConfig::new(
        rmcp::model::ClientCapabilities::default(),
        rmcp::model::Implementation::new(name, "1.0"),
    );
    info.serve(transport).await.expect("connects")
}

async fn call_named(client: &NamedClient, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)).await.expect("an answer")
}

fn update(id: &str, fill: &str) -> Value {
    json!({"filePath": "design.pen", "operations": format!("U(\"{id}\", {{fill: \"{fill}\"}})")})
}

fn error_of(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "expected a refusal: {}", text(result));
    text(result)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_keeps_other_sessions_out_until_it_is_released_or_its_session_closes() {
    let (_root, file, server, a, b) = two_agents_on_two_frames().await;
    structured(&call_named(&b, "get_editor_state", json!({})).await);

    let claimed = structured(&call_named(&a, "claim", json!({"filePath": "design.pen", "nodeIds": ["left"]})).await);
    let holder = claimed["claimed"][0]["holder"].as_str().unwrap().to_owned();
    assert!(holder.starts_with("agent-a#"), "{claimed}");
    let until = claimed["claimed"][0]["until"].as_str().unwrap().to_owned();

    // B's change inside the claim is refused, naming A and when the claim ends; nothing saved.
    let before = std::fs::read(&file).unwrap();
    let refused = error_of(&call_named(&b, "batch_design", update("left-card", "#DC2626")).await);
    assert!(
        refused.contains(&format!("'left-card' is inside 'Left' (left), which {holder} has claimed until {until}")),
        "{refused}"
    );
    assert!(refused.contains("nothing was saved") && refused.contains("ask agent-a#"), "{refused}");
    assert_eq!(std::fs::read(&file).unwrap(), before, "the file is as it was");
    let around = error_of(&call_named(&b, "claim", json!({"filePath": "design.pen", "nodeIds": ["left-card"]})).await);
    assert!(around.contains(&holder), "{around}");
    // B works elsewhere; A hears of it in its next answer.
    structured(&call_named(&b, "batch_design", update("right-card", "#16A34A")).await);
    let state = structured(&call_named(&a, "get_editor_state", json!({})).await);
    let news = state["changedByOthers"].as_str().unwrap_or_else(|| panic!("A hears of B's change: {state}"));
    assert!(news.contains("agent-b#") && news.contains("1 node changed, in 'Right' (right)"), "{news}");
    assert_eq!(state["claims"][0]["nodeId"], "left", "{state}");
    assert_eq!(state["claims"][0]["yours"], true);
    // The holder's own change goes through, and B hears of it (a batch_design answer's last line).
    structured(&call_named(&a, "batch_design", update("left-card", "#DC2626")).await);
    let seen = structured(&call_named(&b, "batch_design", update("right-card", "#000000")).await);
    assert!(
        seen["changedByOthers"].as_str().is_some_and(|n| n.contains(&holder) && n.contains("in 'Left' (left)")),
        "{seen}"
    );
    let listed = structured(&call_named(&b, "get_editor_state", json!({})).await);
    assert_eq!(
        (listed["claims"][0]["holder"].as_str(), &listed["claims"][0]["yours"]),
        (Some(holder.as_str()), &json!(false))
    );
    assert!(listed.get("changedByOthers").is_none(), "told once: {listed}");

    // A's session ends: its claim goes with it, and B may change the frame.
    a.cancel().await.unwrap();
    structured(&call_named(&b, "batch_design", update("left-card", "#FFFFFF")).await);
    let after = structured(&call_named(&b, "get_editor_state", json!({})).await);
    assert!(after.get("claims").is_none(), "no claim is left: {after}");
    b.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_ends_by_itself_and_its_holder_may_release_it() {
    let (_root, _file, server, a, b) = two_agents_on_two_frames().await;
    // A short claim (3 s) on one frame, a default one on the other.
    let short = json!({"filePath": "design.pen", "nodeIds": ["right"], "minutes": 0.05});
    structured(&call_named(&a, "claim", short).await);
    structured(&call_named(&a, "claim", json!({"filePath": "design.pen", "nodeIds": ["left"]})).await);
    assert!(error_of(&call_named(&b, "batch_design", update("right-card", "#DC2626")).await).contains("agent-a#"));
    tokio::time::sleep(Duration::from_millis(3_300)).await;
    structured(&call_named(&b, "batch_design", update("right-card", "#DC2626")).await);
    // Released by its holder (another session may not).
    let release = json!({"filePath": "design.pen", "nodeIds": ["left"], "release": true});
    let not_yours = error_of(&call_named(&b, "claim", release).await);
    assert!(not_yours.contains("only its holder can release it"), "{not_yours}");
    let released = structured(&call_named(&a, "claim", json!({"filePath": "design.pen", "release": true})).await);
    assert_eq!(released["released"], json!(["left"]));
    structured(&call_named(&b, "batch_design", update("left-card", "#DC2626")).await);
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snippets_claim_and_are_refused_on_the_current_surface() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("design.pen"), TWO_FRAMES).unwrap();
    let options = ServeOptions {
        root: root.path().to_owned(),
        listen: "127.0.0.1:0".parse().unwrap(),
        token: None,
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        fonts: Default::default(),
        tools: nib::mcp::ToolSet::Current,
        body_timeout: nib::serve::BODY_READ_TIMEOUT,
    };
    let server = nib::serve::start(options).await.expect("nib serve starts");
    let a = connect_as(&server, "agent-a").await;
    let b = connect_as(&server, "agent-b").await;
    let run = |input: &str| json!({"filePath": "design.pen", "input": input});
    let claimed = structured(&call_named(&a, "execute", run("return Claim(\"left\", {minutes: 5});")).await);
    assert!(claimed["result"][0]["holder"].as_str().is_some_and(|h| h.starts_with("agent-a#")), "{claimed}");
    let before = std::fs::read(root.path().join("design.pen")).unwrap();
    let snippet = "Update(\"right-card\", {fill: \"#16A34A\"});\nUpdate(\"left-card\", {fill: \"#DC2626\"});";
    let refused = error_of(&call_named(&b, "execute", run(snippet)).await);
    assert!(
        refused.contains("line 2") && refused.contains("'left-card' is inside 'Left' (left), which agent-a#"),
        "{refused}"
    );
    assert_eq!(std::fs::read(root.path().join("design.pen")).unwrap(), before, "the whole call was undone");
    let state = structured(&call_named(&b, "get_app_state", json!({})).await);
    assert_eq!(state["claims"][0]["nodeId"], "left", "{state}");
    structured(&call_named(&a, "execute", run("return Release(\"left\");")).await);
    structured(&call_named(&b, "execute", run(snippet)).await);
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_states_its_revision_is_refused_once_the_file_moved_on() {
    let (_root, file, server, a, b) = two_agents_on_two_frames().await;
    structured(&call_named(&b, "open_document", json!({"filePathOrTemplate": "design.pen"})).await);
    let read = structured(&call_named(&b, "get_editor_state", json!({})).await);
    let revision = read["fileRevision"].as_str().unwrap().to_owned();
    assert_eq!(revision, nib::files::Revision::of(TWO_FRAMES.as_bytes()).to_string(), "the revision of the bytes");
    // A changes the file; B's change built on the old revision is refused, nothing saved.
    let written = structured(&call_named(&a, "batch_design", update("left-card", "#DC2626")).await);
    let now = written["fileRevision"].as_str().unwrap().to_owned();
    assert_eq!(now, nib::files::Revision::of(&std::fs::read(&file).unwrap()).to_string());
    let saved = std::fs::read(&file).unwrap();
    let mut stale = update("right-card", "#16A34A");
    stale["ifRevision"] = json!(revision);
    let refused = error_of(&call_named(&b, "batch_design", stale).await);
    assert!(refused.contains(&format!("is at revision {now}, not {revision} (ifRevision)")), "{refused}");
    assert!(refused.contains("nothing was changed"), "{refused}");
    assert_eq!(std::fs::read(&file).unwrap(), saved);
    for (tool, arguments) in [
        ("set_variables", json!({"filePath": "design.pen", "variables": {"x": {"type": "number", "value": 1}}})),
        (
            "replace_all_matching_properties",
            json!({"filePath": "design.pen", "properties": {"fillColor": [{"from": "#DC2626", "to": "#000000"}]}}),
        ),
    ] {
        let mut arguments = arguments;
        arguments["ifRevision"] = json!(revision);
        assert!(error_of(&call_named(&b, tool, arguments).await).contains("(ifRevision)"), "{tool}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), saved, "nothing was saved");
    // With the current revision it goes through.
    let mut fresh = update("right-card", "#16A34A");
    fresh["ifRevision"] = json!(now);
    structured(&call_named(&b, "batch_design", fresh).await);
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_hear_who_changed_the_file_from_the_command_line() {
    let (_root, file, server, a, b) = two_agents_on_two_frames().await;
    structured(&call_named(&a, "open_document", json!({"filePathOrTemplate": "design.pen"})).await);
    structured(&call_named(&b, "get_editor_state", json!({})).await);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["exec", file.to_str().unwrap(), "-", "--as", "alice"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"Update(\"right-card\", {fill: \"#000000\"});")?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
    // Whoever finds the change first (the watcher, or A's call) — B hears who made it.
    structured(&call_named(&a, "batch_design", update("left-card", "#DC2626")).await);
    let state = structured(&call_named(&b, "get_editor_state", json!({})).await);
    let news = state["changedByOthers"].as_str().unwrap_or_else(|| panic!("B hears of both changes: {state}"));
    assert!(news.contains("alice (nib exec) changed design.pen: 1 node changed"), "{news}");
    assert!(news.contains("agent-a#"), "{news}");
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
    server.stop().await;
}
