//! stdout hygiene of `nib mcp`: with every log level on, a panicking tool, a screenshot and a
//! line that is not JSON, everything the server writes to stdout is a JSON-RPC message, and
//! every request gets its answer (the line that is not JSON a parse error).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

#[test]
fn stdout_carries_only_json_rpc_messages() {
    let root = tempfile::tempdir().unwrap();
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/documents/showcase.pen"),
        root.path().join("showcase.pen"),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["mcp", "--root"])
        .arg(root.path())
        .env("RUST_LOG", "trace")
        .env("NIB_IMAGES", "offline")
        .env("NIB_MCP_TEST_PANIC", "get_variables")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nib mcp starts");
    let call = |id: u64, name: &str, arguments: Value| json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": arguments } });
    let messages = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "test", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }),
        call(3, "open_document", json!({ "filePathOrTemplate": "showcase.pen" })),
        call(4, "get_screenshot", json!({ "filePath": "showcase.pen" })),
        call(5, "get_variables", json!({ "filePath": "showcase.pen" })),
        call(6, "batch_design", json!({ "filePath": "showcase.pen", "operations": "this is not a script" })),
        call(7, "snapshot_layout", json!({ "filePath": "showcase.pen", "problemsOnly": true })),
    ];
    // Trace logs are plenty: read them all the time so the server never blocks on a full pipe.
    let mut stderr = child.stderr.take().unwrap();
    let logs = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
        text
    });
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut answered = std::collections::BTreeSet::new();
    let mut parse_errors = 0;
    let mut lines = stdout.lines();
    for message in &messages {
        if message["id"] == 2 {
            // A line that is not JSON is answered with a parse error; the server goes on.
            writeln!(stdin, "this is not JSON").unwrap();
        }
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
        // Wait for this request's answer before the next, as a client would.
        let Some(id) = message.get("id").and_then(Value::as_u64) else { continue };
        while !answered.contains(&id) {
            let line = lines.next().expect("the server answers").expect("utf-8 line");
            let parsed: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            assert_eq!(parsed["jsonrpc"], "2.0", "{line}");
            assert!(parsed.get("result").is_some() || parsed.get("error").is_some() || parsed.get("method").is_some());
            if let Some(answer) = parsed.get("id").and_then(Value::as_u64) {
                answered.insert(answer);
            }
            if parsed["id"].is_null() && parsed["error"]["code"] == -32700 {
                parse_errors += 1;
            }
        }
    }
    drop(stdin);
    for line in lines {
        let line = line.unwrap();
        let parsed: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_eq!(parsed["jsonrpc"], "2.0", "{line}");
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "the server ends cleanly when stdin closes");
    let logs = logs.join().unwrap();
    assert!(logs.contains("nib mcp serving on stdio"), "logs go to stderr: {logs}");
    assert!(logs.contains("a tool panicked"), "{logs}");
    assert_eq!(answered.len(), 7);
    assert_eq!(parse_errors, 1, "the line that is not JSON is answered once");
}

/// A screenshot's answer is hundreds of KB: the pipe it goes through is widened so the server
/// writes it in one go instead of 64 KiB at a time (src/cli/stdout_pipe.rs).
#[cfg(target_os = "linux")]
#[test]
fn the_pipe_on_stdout_is_widened() {
    use std::os::fd::AsRawFd;
    let root = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["mcp", "--root"])
        .arg(root.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("nib mcp starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "test", "version": "1" } } });
    writeln!(stdin, "{initialize}").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("\"result\""), "{line}");
    // SAFETY: F_GETPIPE_SZ takes no argument; the descriptor is the pipe's read end, open here.
    let size = unsafe { libc::fcntl(stdout.get_ref().as_raw_fd(), libc::F_GETPIPE_SZ) };
    let limit: i32 = std::fs::read_to_string("/proc/sys/fs/pipe-max-size").unwrap().trim().parse().unwrap();
    // 64 KiB when the server leaves it alone.
    assert_eq!(size, limit.min(1 << 20), "the size of the pipe the server writes its answers to");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
