//! `nib mcp` over raw stdio against malformed and hostile input: every line gets the answer
//! JSON-RPC 2.0 asks for (or none, for notifications), and the server keeps serving.

use std::io::{BufRead, BufReader, Lines, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::thread::JoinHandle;

use serde_json::{Value, json};

/// A running `nib mcp` spoken to line by line.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    logs: Option<JoinHandle<String>>,
    /// Pings sent so far, to give each its own id.
    pings: u64,
    _root: tempfile::TempDir,
}

impl Raw {
    fn start() -> Raw {
        let root = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_nib"))
            .args(["mcp", "--root"])
            .arg(root.path())
            .env("RUST_LOG", "warn")
            .env("NIB_IMAGES", "offline")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nib mcp starts");
        let mut stderr = child.stderr.take().unwrap();
        let logs = std::thread::spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
            text
        });
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Raw { child, stdin, stdout, logs: Some(logs), pings: 0, _root: root }
    }

    /// A started server that has been through the handshake.
    fn initialized() -> Raw {
        Raw::initialized_on("2025-06-18")
    }

    /// A started server that has been through the handshake on protocol `version`.
    fn initialized_on(version: &str) -> Raw {
        let mut raw = Raw::start();
        let answer = raw.request(json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": "test", "version": "1" } } }));
        assert_eq!(answer["result"]["serverInfo"]["name"], "nib", "{answer}");
        assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
        raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string().as_bytes());
        raw
    }

    fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the server writes, which must be a JSON-RPC message.
    fn next(&mut self) -> Value {
        let message = self.next_json();
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        message
    }

    /// The next line the server writes, which must be JSON.
    fn next_json(&mut self) -> Value {
        let line = self.stdout.next().expect("the server answers").expect("a utf-8 line");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn request(&mut self, message: Value) -> Value {
        self.send(message.to_string().as_bytes());
        self.next()
    }

    /// Sends `line`, which the framing layer must refuse with `code` and `id`, and then a ping.
    /// The refusal is written before anything about later lines, so a line left unanswered
    /// fails here (the ping's answer comes first) instead of waiting forever. Returns the
    /// refusal's message.
    fn refused(&mut self, line: &[u8], code: i64, id: Value) -> String {
        self.send(line);
        self.pings += 1;
        let ping = format!("ping-{}", self.pings);
        self.send(json!({ "jsonrpc": "2.0", "id": ping, "method": "ping" }).to_string().as_bytes());
        let answer = self.next();
        let message = error_message(&answer, line, code, id);
        let pong = self.next();
        assert_eq!(pong["id"], ping.as_str(), "one answer per line: {pong}");
        message
    }

    /// Sends `line`, a request the MCP service must answer with error `code`; returns the
    /// error's message.
    fn rejected(&mut self, line: &[u8], code: i64, id: Value) -> String {
        self.send(line);
        let answer = self.next();
        error_message(&answer, line, code, id)
    }

    /// Checks that the server still does real work: opens a new document, edits and reads it.
    fn still_serves(&mut self, id: u64) {
        let call = |id: u64, name: &str, arguments: Value| json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": arguments } });
        let opened = self.request(call(id, "open_document", json!({ "filePathOrTemplate": "after.pen" })));
        assert_eq!(opened["id"], id);
        assert_ne!(opened["result"]["isError"], true, "{opened}");
        let edited = self.request(call(
            id + 1,
            "batch_design",
            json!({ "operations": "card=I(document, {type: \"frame\", name: \"still here\", width: 100, height: 50})" }),
        ));
        assert_eq!(edited["id"], id + 1);
        assert_ne!(edited["result"]["isError"], true, "{edited}");
        let read = self.request(call(id + 2, "batch_get", json!({ "patterns": [{ "name": "still here" }] })));
        assert_eq!(answer_json(&read)["nodes"][0]["name"], "still here", "{read}");
    }

    /// Closes stdin and waits for a clean exit; the server's log.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        for line in self.stdout.by_ref() {
            let line = line.unwrap();
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0");
        }
        let status = self.child.wait().unwrap();
        let logs = self.logs.take().unwrap().join().unwrap();
        assert!(status.success(), "the server ends cleanly when stdin closes: {logs}");
        logs
    }
}

/// The message of `answer`, which must be the error `code` with `id` answering `line`.
fn error_message(answer: &Value, line: &[u8], code: i64, id: Value) -> String {
    let shown = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
    assert_eq!(answer["error"]["code"], code, "{shown} → {answer}");
    let members = answer.as_object().unwrap();
    assert!(members.contains_key("id"), "an error answer always has an id, null when unknown: {answer}");
    assert_eq!(answer["id"], id, "{shown} → {answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "{answer}");
    message.to_owned()
}

fn tools_call(id: u64, params: Value) -> Vec<u8> {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }).to_string().into_bytes()
}

/// `[[[…]]]` nested `depth` levels.
fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_the_server_goes_on() {
    let mut raw = Raw::initialized();
    let message = raw.refused(b"this is not JSON", -32700, Value::Null);
    assert!(message.contains("column"), "the answer says where: {message}");
    raw.refused(br#"{"jsonrpc":"2.0","id":1,"method":"ping""#, -32700, Value::Null);
    raw.refused(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\xff\xfe\"}", -32700, Value::Null);
    raw.still_serves(10);
    raw.finish();
}

#[test]
fn invalid_request_objects_get_invalid_request_with_their_id() {
    let mut raw = Raw::initialized();
    raw.refused(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"x"}"#, -32600, json!(1));
    let message = raw.refused(br#"{"jsonrpc":"1.0","id":"two","method":"tools/list"}"#, -32600, json!("two"));
    assert!(message.contains("\"1.0\""), "{message}");
    raw.refused(br#"{"id":3,"method":"tools/list"}"#, -32600, json!(3));
    raw.refused(br#"{"jsonrpc":"2.0","id":4,"method":5}"#, -32600, json!(4));
    raw.refused(br#"{"jsonrpc":"2.0","id":5}"#, -32600, json!(5));
    raw.refused(br#"{"jsonrpc":"2.0","id":6,"method":"ping","result":{}}"#, -32600, json!(6));
    // An id of the wrong type cannot be echoed: the answer's id is null.
    for id in [r#"{"a":1}"#, "[7]", "null", "true", "7.5"] {
        raw.refused(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#).as_bytes(), -32600, Value::Null);
    }
    raw.refused(b"[]", -32600, Value::Null);
    raw.refused(br#"[{"jsonrpc":"2.0","id":8,"method":"ping"}]"#, -32600, Value::Null);
    raw.refused(b"42", -32600, Value::Null);
    raw.refused(b"{}", -32600, Value::Null);
    // The JSON-RPC 2.0 specification's own example: not a request object, so not a notification.
    raw.refused(br#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#, -32600, Value::Null);
    raw.refused(br#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":[]}"#, -32602, json!(9));
    raw.still_serves(10);
    raw.finish();
}

#[test]
fn tools_call_params_that_do_not_fit_are_invalid_params_not_method_not_found() {
    let mut raw = Raw::initialized();
    let message =
        raw.rejected(&tools_call(1, json!({ "name": "get_editor_state", "arguments": "x" })), -32602, json!(1));
    assert!(message.contains("tools/call"), "{message}");
    let message = raw.rejected(&tools_call(2, json!({ "arguments": {} })), -32602, json!(2));
    assert!(message.contains("name"), "{message}");
    raw.rejected(&tools_call(3, json!({ "name": 5 })), -32602, json!(3));
    raw.rejected(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#, -32602, json!(4));
    // An unknown method stays method not found.
    let message = raw.rejected(br#"{"jsonrpc":"2.0","id":5,"method":"tools/cal","params":{}}"#, -32601, json!(5));
    assert!(message.contains("tools/cal"), "{message}");
    // Arguments that do not fit the tool are a tool execution error the model can read and
    // correct (MCP 2025-11-25), not a protocol error.
    for (id, arguments) in [(6, json!({ "bogus": 1 })), (7, json!({ "include_schema": "yes" }))] {
        raw.send(&tools_call(id, json!({ "name": "get_editor_state", "arguments": arguments })));
        let answer = raw.next();
        assert_eq!(answer["id"], id);
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("invalid arguments"), "{text}");
    }
    raw.still_serves(10);
    raw.finish();
}

#[test]
fn deeply_nested_arguments_get_an_answer_not_a_crash() {
    let mut raw = Raw::initialized();
    let deep = nested(10_000);
    let id_first = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"get_editor_state","arguments":{{"a":{deep}}}}}}}"#
    );
    let message = raw.refused(id_first.as_bytes(), -32600, json!(1));
    assert!(message.contains("levels deep"), "{message}");
    let id_last = format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"a":{deep}}},"id":"last"}}"#);
    raw.refused(id_last.as_bytes(), -32600, json!("last"));
    // Deeper than serde_json's own limit of 128 but not absurd: the same answer.
    let id_200 = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"a":{}}}}}"#, nested(200));
    raw.refused(id_200.as_bytes(), -32600, json!(2));
    // A deep notification is still a notification: nothing is answered before the ping's answer.
    raw.send(format!(r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{{"a":{deep}}}}}"#).as_bytes());
    assert_eq!(raw.request(json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" }))["id"], 3);
    raw.still_serves(10);
    raw.finish();
}

#[test]
fn a_line_over_16_mib_is_skipped_and_answered_and_the_server_goes_on() {
    let mut raw = Raw::initialized();
    let padding = "a".repeat(nib::mcp::MAX_MESSAGE_BYTES);
    let id_first = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{{"a":"{padding}"}}}}}}"#
    );
    let message = raw.refused(id_first.as_bytes(), -32600, json!(1));
    assert!(message.contains("too large"), "{message}");
    let id_last = format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"a":"{padding}"}},"id":2}}"#);
    raw.refused(id_last.as_bytes(), -32600, Value::Null);
    // Not JSON at all, and no newline for 40 MiB.
    raw.refused(&vec![b'x'; 40 << 20], -32600, Value::Null);
    raw.still_serves(10);
    raw.finish();
}

#[test]
fn notifications_are_never_answered_even_when_their_method_or_params_are_wrong() {
    let mut raw = Raw::initialized();
    for notification in [
        json!({ "jsonrpc": "2.0", "method": "notifications/no_such_thing" }),
        json!({ "jsonrpc": "2.0", "method": "no/such/method", "params": { "a": 1 } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": {} } }),
        json!({ "jsonrpc": "2.0", "method": "tools/call", "params": [1, 2] }),
        json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": {} }),
    ] {
        raw.send(notification.to_string().as_bytes());
    }
    // Responses from the client to requests nib never sent are not answered either.
    raw.send(br#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    raw.send(br#"{"jsonrpc":"2.0","id":{},"error":{}}"#);
    // The first answer after all of them is the ping's: nothing was answered in between.
    let answer = raw.request(json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }));
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(answer.get("result").is_some(), "{answer}");
    raw.still_serves(10);
    raw.finish();
}

#[test]
fn a_2025_03_26_session_takes_batches_and_answers_each_in_one_array() {
    let mut raw = Raw::initialized_on("2025-03-26");
    let batch = json!([
        { "jsonrpc": "2.0", "id": 1, "method": "ping" },
        { "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "get_editor_state", "arguments": {} } },
        { "jsonrpc": "2.0", "method": "notifications/whatever" },
        { "jsonrpc": "2.0", "id": 3, "method": 5 },
        7,
        { "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": { "arguments": {} } },
    ]);
    raw.send(batch.to_string().as_bytes());
    let answers = raw.next_json();
    let answers = answers.as_array().unwrap_or_else(|| panic!("one array: {answers}"));
    let by_id = |id: Value| answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("{id} in {answers:?}"));
    assert_eq!(answers.len(), 5, "one answer per request, none for the notification: {answers:?}");
    assert!(by_id(json!(1)).get("result").is_some());
    assert!(answer_json(by_id(json!(2))).get("openDocuments").is_some(), "{answers:?}");
    assert_eq!(by_id(json!(3))["error"]["code"], -32600);
    assert_eq!(by_id(Value::Null)["error"]["code"], -32600);
    assert_eq!(by_id(json!(4))["error"]["code"], -32602);
    // A batch of notifications alone gets no answer at all: the next line is the ping's.
    raw.send(br#"[{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"2.0","method":"notifications/b"}]"#);
    assert_eq!(raw.request(json!({ "jsonrpc": "2.0", "id": 5, "method": "ping" }))["id"], 5);
    raw.refused(b"[]", -32600, Value::Null);
    raw.still_serves(10);
    raw.finish();
}

#[test]
fn a_notification_or_response_before_initialize_does_not_end_the_server() {
    let mut raw = Raw::start();
    raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    raw.send(br#"{"jsonrpc":"2.0","id":5,"result":{}}"#);
    raw.refused(b"not json before the handshake", -32700, Value::Null);
    let answer = raw.request(json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "test", "version": "1" } } }));
    assert_eq!(answer["result"]["serverInfo"]["name"], "nib", "{answer}");
    raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    raw.still_serves(10);
    let logs = raw.finish();
    assert!(logs.contains("handshake failed"), "{logs}");
}

/// What a hostile line gets.
enum Expect {
    /// An error answer from the framing layer: code and id.
    Refused(i64, Value),
    /// An error answer from the MCP service: code and id.
    Rejected(i64, Value),
    /// No answer.
    Nothing,
}

#[test]
fn the_server_survives_every_hostile_message_in_one_session() {
    let mut raw = Raw::initialized();
    let deep = nested(10_000);
    let huge =
        format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{{"a":"{}"}}}}"#, "b".repeat(17 << 20));
    let hostile: Vec<(Vec<u8>, Expect)> = vec![
        (b"not json".to_vec(), Expect::Refused(-32700, Value::Null)),
        (br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"x"}"#.to_vec(), Expect::Refused(-32600, json!(1))),
        (br#"{"jsonrpc":"1.0","id":2,"method":"tools/list"}"#.to_vec(), Expect::Refused(-32600, json!(2))),
        (br#"{"jsonrpc":"2.0","id":[3],"method":"tools/list"}"#.to_vec(), Expect::Refused(-32600, Value::Null)),
        (b"[]".to_vec(), Expect::Refused(-32600, Value::Null)),
        (br#"[{"jsonrpc":"2.0","id":4,"method":"ping"}]"#.to_vec(), Expect::Refused(-32600, Value::Null)),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"batch_get","arguments":{deep}}}}}"#
            )
            .into_bytes(),
            Expect::Refused(-32600, json!(5)),
        ),
        (huge.into_bytes(), Expect::Refused(-32600, json!(9))),
        (tools_call(6, json!({ "name": "batch_get", "arguments": 3 })), Expect::Rejected(-32602, json!(6))),
        (br#"{"jsonrpc":"2.0","id":7,"method":"resources/nope"}"#.to_vec(), Expect::Rejected(-32601, json!(7))),
        (br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}}"#.to_vec(), Expect::Nothing),
        (b"\xef\xbb\xbf\r".to_vec(), Expect::Nothing),
    ];
    for (line, expected) in &hostile {
        match expected {
            Expect::Refused(code, id) => drop(raw.refused(line, *code, id.clone())),
            Expect::Rejected(code, id) => drop(raw.rejected(line, *code, id.clone())),
            Expect::Nothing => raw.send(line),
        }
    }
    // A message ending in a carriage return is still a message.
    let answer = raw.request(json!({ "jsonrpc": "2.0", "id": 8, "method": "ping" }));
    assert_eq!((answer["id"].clone(), answer.get("result").is_some()), (json!(8), true), "{answer}");
    raw.send(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\r");
    assert_eq!(raw.next()["id"], 9);
    raw.still_serves(10);
    let logs = raw.finish();
    assert!(!logs.contains("panicked"), "{logs}");
}

/// The JSON a tool answered: the text of its first content block.
fn answer_json(response: &Value) -> Value {
    let text = response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text answer: {response}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("the answer is JSON ({e}): {text}"))
}
