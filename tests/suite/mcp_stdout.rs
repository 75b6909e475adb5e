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

/// A client that sends calls and stops reading the answers makes nib stop reading stdin, instead
/// of keeping every answer (issue 56: 1,500 unread screenshots held 1 GB, 9,000 held 4 GB).
/// Here 400 screenshots of about 0.8 MB each are sent unread: kept, they would take the server
/// past 380 MB; it stays far below 200 MB, and every call is answered once the client reads.
#[cfg(target_os = "linux")]
#[test]
fn a_client_that_stops_reading_makes_nib_stop_reading_not_buffer() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    const CALLS: u64 = 400;
    const BOUND_MB: u64 = 200;
    let root = tempfile::tempdir().unwrap();
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/documents/showcase.pen"),
        root.path().join("showcase.pen"),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["mcp", "--root"])
        .arg(root.path())
        .env("NIB_IMAGES", "offline")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("nib mcp starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let screenshot = |id: u64| json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "get_screenshot", "arguments": { "filePath": "showcase.pen" } } });
    let initialize = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "test", "version": "1" } } });
    writeln!(stdin, "{initialize}").unwrap();
    assert!(lines.next().unwrap().unwrap().contains("\"result\""));
    writeln!(stdin, "{}", json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).unwrap();
    writeln!(stdin, "{}", screenshot(1)).unwrap();
    let answer_bytes = lines.next().unwrap().unwrap().len();
    assert!(answer_bytes > 700_000, "each answer is large: {answer_bytes} bytes");

    // A client that writes every call before it reads anything.
    let written = Arc::new(AtomicBool::new(false));
    let writer = std::thread::spawn({
        let written = Arc::clone(&written);
        move || {
            for id in 2..CALLS + 2 {
                writeln!(stdin, "{}", screenshot(id)).unwrap();
            }
            stdin.flush().unwrap();
            written.store(true, Ordering::SeqCst);
            stdin
        }
    });
    let status = |field: &str| -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let line = text.lines().find(|line| line.starts_with(field)).unwrap_or_default();
        line.split_whitespace().nth(1).and_then(|kb| kb.parse().ok()).unwrap_or(0) / 1024
    };
    let cpu_ticks = || -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Fields 14 and 15 (user and system time) come after the parenthesised name.
        let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        after_name.split_whitespace().skip(11).take(2).filter_map(|t| t.parse::<u64>().ok()).sum()
    };
    // Let the server do all it will do unread: wait until it has used no CPU for a second.
    // (This only decides when to look; nothing here is timed.)
    let mut peak = 0;
    let (mut last_ticks, mut idle_samples) = (u64::MAX, 0);
    for _ in 0..2400 {
        std::thread::sleep(Duration::from_millis(250));
        peak = peak.max(status("VmRSS:"));
        let ticks = cpu_ticks();
        idle_samples = if ticks == last_ticks { idle_samples + 1 } else { 0 };
        last_ticks = ticks;
        if idle_samples >= 4 {
            break;
        }
    }
    assert!(
        peak < BOUND_MB,
        "with {CALLS} answers of {answer_bytes} bytes unread, nib's memory reached {peak} MB (all written before reading: {})",
        written.load(Ordering::SeqCst)
    );

    // The client reads again: every call is answered, and nib reads the rest.
    let mut answered = std::collections::BTreeSet::new();
    while answered.len() < CALLS as usize {
        let line = lines.next().expect("an answer").expect("a line");
        let parsed: Value = serde_json::from_str(&line).unwrap();
        assert!(parsed.get("result").is_some(), "{}", &line[..line.len().min(300)]);
        answered.insert(parsed["id"].as_u64().unwrap());
        if answered.len() % 50 == 0 {
            peak = peak.max(status("VmRSS:"));
        }
    }
    assert_eq!(answered.first().copied(), Some(2));
    assert!(peak < BOUND_MB, "reading, nib's memory reached {peak} MB");
    drop(writer.join().unwrap());
    assert!(child.wait().unwrap().success());
}
