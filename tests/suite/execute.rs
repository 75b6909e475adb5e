//! The execute tool (Pen's current surface) over a workspace: snippets that build and read,
//! one undo step per call, failures that leave the file as it was, retries by patch, limits.

use std::fs;

use nib::tools::{Workspace, call};
use serde_json::{Value, json};

struct Session {
    folder: tempfile::TempDir,
    workspace: Workspace,
}

impl Session {
    /// A session with an empty document `d.pen` open, confined to its folder as the MCP
    /// server's workspace is.
    fn new() -> Session {
        let folder = tempfile::tempdir().unwrap();
        let mut workspace = Workspace::new(folder.path()).confined();
        call(&mut workspace, "open_document", json!({ "filePathOrTemplate": "d.pen" })).unwrap();
        Session { folder, workspace }
    }

    fn run(&mut self, snippet: &str) -> Result<Value, nib::tools::ToolError> {
        call(&mut self.workspace, "execute", json!({ "filePath": "d.pen", "input": snippet }))
    }

    fn ok(&mut self, snippet: &str) -> Value {
        self.run(snippet).unwrap_or_else(|e| panic!("{snippet}\n→ {e}"))
    }

    fn file(&self) -> String {
        fs::read_to_string(self.folder.path().join("d.pen")).unwrap()
    }
}

/// A component card, a row of three instances with their own titles, read back by a visitor.
pub const CARDS: &str = r##"const card = Insert(document, {type: "frame", name: "Card", reusable: true, layout: "vertical",
  width: 240, padding: 16, gap: 8, fill: "#FFFFFF",
  children: [{type: "text", id: "title", content: "Title", fontSize: 18}, {type: "text", id: "body", content: "Body"}]});
const row = Insert(document, {type: "frame", name: "Row", layout: "horizontal", gap: 16, x: 0, y: 400});
const titles = ["One", "Two", "Three"];
for (const title of titles) {
  const instance = Insert(row, {type: "ref", ref: card});
  Update(instance + "/title", {content: title});
}
const seen = Get(row, (ctx) => ctx.node.type === "ref"
  ? {id: ctx.node.id, width: ctx.bounds.width, depth: ctx.depth, parent: ctx.parentCtx.node.name}
  : undefined);
Print("made", seen.length, "cards");
return {card, seen};
"##;

#[test]
fn a_snippet_builds_a_component_and_instances_and_reads_them_with_a_visitor() {
    let mut session = Session::new();
    let answer = session.ok(CARDS);
    let card = answer["result"]["card"].as_str().unwrap().to_owned();
    let seen = answer["result"]["seen"].as_array().unwrap();
    assert_eq!(seen.len(), 3, "{answer}");
    for entry in seen {
        assert_eq!(entry["width"], json!(240));
        assert_eq!(entry["depth"], json!(1));
        assert_eq!(entry["parent"], json!("Row"));
    }
    assert_eq!(answer["ids"]["card"], json!(card), "the snippet's names map to the new ids: {answer}");
    assert_eq!(answer["ids"]["instance"].as_array().map(Vec::len), Some(3), "{answer}");
    assert_eq!(answer["printed"], json!(["made 3 cards"]));
    let file = session.file();
    for title in ["One", "Two", "Three"] {
        assert!(file.contains(&format!("\"content\": \"{title}\"")), "the override is saved: {file}");
    }
    // One call is one undo step.
    let undone = call(&mut session.workspace, "undo", json!({ "filePath": "d.pen" })).unwrap();
    assert!(undone.to_string().contains("revision"), "{undone}");
    assert!(!session.file().contains(&card), "undo removed everything the call made");
    assert!(call(&mut session.workspace, "undo", json!({ "filePath": "d.pen" })).is_err(), "and only that");
}

#[test]
fn a_failing_snippet_leaves_the_file_byte_identical_and_names_the_place() {
    let mut session = Session::new();
    session.ok(r#"Insert(document, {type: "frame", name: "Kept", width: 10, height: 10});"#);
    let before = session.file();
    let error = session
        .run("const a = Insert(document, {type: \"frame\", width: 100});\nSetVariables({\"--x\": {type: \"number\", value: 3}});\n  Update(\"nope\", {width: 3});\nreturn a;")
        .unwrap_err();
    assert!(error.message.starts_with("line 3, column "), "{error}");
    assert!(error.message.contains("nope"), "{error}");
    assert!(error.hint.as_deref().unwrap_or_default().contains("editId"), "{error:?}");
    assert_eq!(session.file(), before, "the file is byte-identical");
    // The document in memory is as before too: nothing of the call is left, nothing to undo of it.
    let read = session.ok("return [Get().length, Object.keys(GetVariables().variables).length];");
    assert_eq!(read["result"], json!([1, 0]));
    // A thrown error is the same: undone, with its place.
    let thrown = session.run("Insert(document, {type: \"frame\"});\nthrow new Error(\"stop here\");").unwrap_err();
    assert!(thrown.message.starts_with("line 2"), "{thrown}");
    let syntax = session.run("let x = ;").unwrap_err();
    assert!(syntax.message.starts_with("line 1, column"), "{syntax}");
    assert_eq!(session.file(), before);
    // Catching the error does not keep the half-done call.
    let caught = session
        .run("try { Update(\"nope\", {width: 1}); } catch (e) {}\nInsert(document, {type: \"frame\"});")
        .unwrap_err();
    assert!(caught.message.contains("nope"), "{caught}");
    assert_eq!(session.file(), before);
}

#[test]
fn a_snippet_written_with_await_runs_and_fails_as_one_without() {
    let mut session = Session::new();
    let answer =
        session.ok(r##"const box = await Insert(document, {type: "frame", name: "Awaited", width: 100, height: 50});
await Update(box, {fill: "#2563EB"});
return (await Get(box)).fill;"##);
    assert_eq!(answer["result"], json!("#2563EB"), "{answer}");
    let id = answer["ids"]["box"].as_str().unwrap_or_else(|| panic!("names map to ids: {answer}")).to_owned();
    assert!(session.file().contains(&id));
    let before = session.file();
    let failed =
        session.run("await Insert(document, {type: \"frame\"});\nawait Update(\"nope\", {width: 3});").unwrap_err();
    assert!(failed.message.starts_with("line 2"), "{failed}");
    assert!(failed.message.contains("nope"), "{failed}");
    assert_eq!(session.file(), before, "undone, the file byte-identical");
}

#[test]
fn a_failed_snippet_is_retried_with_one_patch() {
    let mut session = Session::new();
    let error = session
        .run("const box = Insert(document, {type: \"frame\", width: 100, height: 50});\nUpdate(box, {widht: 120});\nreturn box;")
        .unwrap_err();
    let edit_id = error.data.as_ref().unwrap()["editId"].as_str().unwrap().to_owned();
    let retried = call(
        &mut session.workspace,
        "execute",
        json!({ "filePath": "d.pen", "editId": edit_id, "edits": [{ "find": "widht", "replace": "width" }] }),
    )
    .unwrap();
    let id = retried["result"].as_str().unwrap();
    assert!(session.file().contains("\"width\": 120"), "{}", session.file());
    assert!(session.file().contains(id));
    assert_ne!(retried["editId"].as_str(), Some(edit_id.as_str()));
}

#[test]
fn pens_quirks_a_negative_move_index_and_deleting_a_missing_node() {
    let mut session = Session::new();
    let answer = session.ok(r#"const row = Insert(document, {type: "frame", layout: "horizontal"});
const a = Insert(row, {type: "frame", name: "a"});
const b = Insert(row, {type: "frame", name: "b"});
Move(a, row, -1);
const gone = Delete("not-there");
return [Get(row, {depth: 1}).children.map((c) => c.name), gone];"#);
    assert_eq!(answer["result"], json!([["b", "a"], false]), "{answer}");
    assert!(answer["warnings"][0]["message"].as_str().unwrap().contains("not-there"), "{answer}");
    assert_eq!(answer["warnings"][0]["code"], "already-absent", "{answer}");
    assert_eq!(answer["warnings"][0]["node"], "not-there", "{answer}");
}

#[test]
fn runaway_snippets_stop_at_their_limits_and_the_workspace_goes_on() {
    let mut session = Session::new();
    let before = session.file();
    let started = std::time::Instant::now();
    let looped = session.run("Insert(document, {type: \"frame\"});\nwhile (true) {}").unwrap_err();
    assert!(looped.message.contains("interrupted after 2000 ms"), "{looped}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let grown = session.run("const a = []; while (true) a.push(\"x\".repeat(1 << 20) + a.length);").unwrap_err();
    assert!(grown.message.contains("heap"), "{grown}");
    assert_eq!(session.file(), before);
    assert_eq!(session.ok("return 1 + 1;")["result"], json!(2), "the next call runs");
}

#[test]
fn reads_screenshots_and_variables_inside_one_call() {
    let mut session = Session::new();
    let answer = session.ok(r##"SetVariables({"--brand": {type: "color", value: "#2563EB"}});
const f = Insert(document, {type: "frame", width: 120, height: 80, fill: "$--brand"});
const shot = TakeScreenshot(f);
const space = FindEmptySpace({direction: "right", width: 100, height: 100, padding: 20, nodeId: f});
return {shot, vars: Object.keys(GetVariables().variables), space: typeof space.x};"##);
    assert_eq!(answer["result"]["shot"]["width"], json!(120), "{answer}");
    assert_eq!(answer["result"]["vars"], json!(["--brand"]));
    assert_eq!(answer["screenshots"].as_array().map(Vec::len), Some(1));
    assert!(answer["screenshots"][0]["data"].as_str().unwrap().len() > 100);
    assert!(session.file().contains("--brand"));
}

#[test]
fn no_file_system_network_or_clock_from_a_snippet() {
    let mut session = Session::new();
    let answer = session.ok("return [typeof require, typeof fetch, typeof std, typeof os, Date.now()];");
    assert_eq!(answer["result"], json!(["undefined", "undefined", "undefined", "undefined", 0]));
    let escaped = session
        .run("Insert(document, {type: \"frame\", width: 10, height: 10});\nExport(null, \"png\", {outputPath: \"../outside.png\"});")
        .unwrap_err();
    assert!(escaped.message.starts_with("line 2, column"), "{escaped}");
    assert!(escaped.message.contains("outside"), "{escaped}");
    assert!(escaped.hint.is_some(), "the operation's own hint: {escaped:?}");
    assert!(!session.folder.path().parent().unwrap().join("outside.png").exists());
}

#[test]
fn partial_keeps_what_ran_before_the_failure_and_globals_do_not_survive_a_call() {
    let mut session = Session::new();
    let answer = call(
        &mut session.workspace,
        "execute",
        json!({ "filePath": "d.pen", "partial": true,
                "input": "globalThis.kept = 1;\nInsert(document, {type: \"frame\", name: \"First\"});\nUpdate(\"nope\", {x: 1});\nInsert(document, {type: \"frame\", name: \"Never\"});" }),
    )
    .unwrap();
    assert_eq!(answer["success"], json!(false), "{answer}");
    assert!(answer["error"]["error"].as_str().unwrap().starts_with("line 3"), "{answer}");
    let file = session.file();
    assert!(file.contains("\"First\"") && !file.contains("\"Never\""), "{file}");
    assert_eq!(session.ok("return typeof kept;")["result"], json!("undefined"), "each call starts afresh");
}

#[test]
fn generate_with_svg_draws_the_markup_as_path_nodes_in_the_node() {
    let mut session = Session::new();
    let answer = session.ok(
        r##"const box = Insert(document, {type: "frame", width: 48, height: 48});
const drawn = Generate(box, "svg", '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M4 4h16v16H4z" fill="#16A34A"/><text x="2" y="20">A</text></svg>');
return Get(drawn, {depth: 1});"##,
    );
    let frame = &answer["result"];
    assert_eq!(frame["type"], "frame", "{answer}");
    assert_eq!(frame["children"][0]["type"], "path");
    assert_eq!(frame["children"][0]["fill"], "#16A34A");
    assert_eq!(frame["children"][0]["width"], 32);
    assert!(answer["warnings"][0]["message"].as_str().unwrap().contains("text inside the SVG"), "{answer}");
    assert_eq!(answer["warnings"][0]["severity"], "note", "{answer}");
    let bad =
        session.run("const b = Insert(document, {type: \"frame\"});\nGenerate(b, \"svg\", \"<svg\");").unwrap_err();
    assert!(bad.message.starts_with("line 2") && bad.message.contains("SVG could not be read"), "{bad}");
}

/// A session with a 100 × 80 frame `f` (its id in the answer) saved in `d.pen`.
fn session_with_a_frame() -> (Session, String) {
    let mut session = Session::new();
    let made = session.ok(
        r#"return Insert(document, {type: "frame", name: "F", width: 100, height: 80, opacity: 0.5, layout: "vertical",
  children: [{type: "text", content: "Hi", fontSize: 14}]});"#,
    );
    (session, made["result"].as_str().unwrap().to_owned())
}

#[test]
fn nan_infinity_undefined_and_out_of_range_numbers_are_refused_naming_the_property() {
    let (mut session, f) = session_with_a_frame();
    let before = session.file();
    let refused = [
        (format!("Update(\"{f}\", {{width: Infinity}});"), "Update: properties.width is Infinity"),
        (format!("Update(\"{f}\", {{opacity: NaN}});"), "Update: properties.opacity is NaN"),
        (format!("let o;\nUpdate(\"{f}\", {{opacity: o}});"), "Update: properties.opacity is undefined"),
        (
            format!("Insert(\"{f}\", {{type: \"frame\", children: [{{type: \"frame\", height: 1 / 0}}]}});"),
            "Insert: node.children[0].height is Infinity",
        ),
        (format!("Move(\"{f}\", document, NaN);"), "Move: index is NaN"),
        (format!("TakeScreenshot(\"{f}\", {{scale: NaN}});"), "TakeScreenshot: options.scale is NaN"),
        (
            "FindEmptySpace({direction: \"right\", width: -Infinity, height: 10, padding: 0});".into(),
            "FindEmptySpace: options.width is -Infinity",
        ),
        // Out of range: refused by the validator batch_design shares.
        (format!("Update(\"{f}\", {{opacity: 2}});"), "/opacity: is 2; opacity is from 0 (transparent) to 1 (opaque)"),
        (format!("Update(\"{f}\", {{width: -5}});"), "/width: is -5; width is 0 or more"),
        (
            format!("Update(Get(\"{f}\", {{depth: 1}}).children[0], {{fontSize: -1}});"),
            "/fontSize: is -1; fontSize is 0 or more",
        ),
        // Caught by the snippet, a refused write still fails the call.
        (
            format!("try {{ Update(\"{f}\", {{opacity: NaN}}); }} catch (e) {{}}\nreturn 1;"),
            "Update: properties.opacity is NaN",
        ),
    ];
    for (snippet, said) in refused {
        let error = session.run(&snippet).unwrap_err();
        assert!(error.message.starts_with("line "), "{snippet}\n→ {error}");
        assert!(error.message.contains(said), "{snippet}\n→ {error}");
        assert!(error.hint.as_deref().is_some_and(|h| h.contains("editId")), "{snippet}\n→ {error:?}");
        assert_eq!(session.file(), before, "{snippet}: the file is byte-identical");
    }
    // batch_design says the same of the same values.
    let design = call(
        &mut session.workspace,
        "batch_design",
        json!({ "filePath": "d.pen", "operations": format!("U(\"{f}\", {{opacity: 2, width: -5}})") }),
    );
    let said = match design {
        Ok(answer) => answer.to_string(),
        Err(error) => error.to_string(),
    };
    assert!(said.contains("opacity is from 0 (transparent) to 1 (opaque)"), "{said}");
    assert!(said.contains("width is 0 or more"), "{said}");
    assert_eq!(session.file(), before);
    // Within range, the same calls work; null still removes a property.
    session.ok(&format!("Update(\"{f}\", {{opacity: 1, width: 0}});\nUpdate(\"{f}\", {{opacity: null}});"));
    assert!(!session.file().contains("opacity"), "{}", session.file());
}

#[test]
fn a_snippet_cannot_close_its_function_and_every_error_has_a_place_and_a_hint() {
    let mut session = Session::new();
    let before = session.file();
    let escaped = session
        .run("return 1 }; Insert(document, {type: \"frame\", name: \"Escaped\"}); const x = async function () {");
    let escaped = escaped.unwrap_err();
    assert!(escaped.message.starts_with("line 1, column 10: SyntaxError: this `}` closes the function"), "{escaped}");
    assert_eq!(session.file(), before, "the code after the brace did not run");
    // The place is said once.
    let syntax = session.run("let x = 1;\nlet y = ;").unwrap_err();
    assert_eq!(syntax.message.matches("line 2").count(), 1, "{syntax}");
    assert!(syntax.message.starts_with("line 2, column ") && syntax.message.contains(": SyntaxError: "), "{syntax}");
    let thrown = session.run("let x = 1;\nthrow 42;").unwrap_err();
    assert!(thrown.message.starts_with("line 2, column 1: uncaught 42"), "{thrown}");
    assert!(thrown.hint.as_deref().is_some_and(|h| h.contains("throw new Error")), "{thrown:?}");
    let classed =
        session.run("class Invalid extends Error {}\nlet x = 1;\nif (x) throw new Invalid(\"x is set\");").unwrap_err();
    assert!(
        classed.message.starts_with("line 3, column ") && classed.message.ends_with(": Invalid: x is set"),
        "{classed}"
    );
    let circular = session.run("const a = {};\na.self = a;\nreturn a;").unwrap_err();
    assert!(
        circular.message.starts_with("line 3, column 1: the returned value cannot be sent back as JSON: result.self"),
        "{circular}"
    );
    assert!(circular.hint.as_deref().is_some_and(|h| h.contains("plain data") && h.contains("editId")), "{circular:?}");
    let big = session.run("return 2n ** 64n;").unwrap_err();
    assert!(big.message.contains("result is a BigInt (18446744073709551616n)"), "{big}");
    assert_eq!(session.file(), before);
    // A partial call's error says what was kept, not that nothing was.
    let answer = call(
        &mut session.workspace,
        "execute",
        json!({ "filePath": "d.pen", "partial": true,
                "input": "Insert(document, {type: \"frame\", name: \"Kept\"});\nUpdate(\"nope\", {x: 1});" }),
    )
    .unwrap();
    let hint = answer["error"]["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("was kept") && !hint.contains("nothing was changed"), "{answer}");
    let undone = session.run("Insert(document, {type: \"frame\"});\nUpdate(\"nope\", {x: 1});").unwrap_err();
    let hint = undone.hint.unwrap_or_default();
    assert_eq!(hint.matches("nothing was changed").count(), 1, "{hint}");
}

#[test]
fn lone_surrogates_the_document_object_and_clocks() {
    let (mut session, f) = session_with_a_frame();
    let before = session.file();
    let lone = session.run(&format!("Update(\"{f}\", {{name: \"a\\uD800b\"}});")).unwrap_err();
    assert!(lone.message.contains("Update: properties.name is a string with half of a UTF-16 pair"), "{lone}");
    let lone = session.run("Insert(document, {type: \"text\", content: \"\\uDC00\"});").unwrap_err();
    assert!(lone.message.contains("node.content is a string with half"), "{lone}");
    assert_eq!(session.file(), before);
    // Printed and returned, a lone half is shown as U+FFFD and said.
    let shown = session.ok("Print(\"p\\uD800\");\nreturn \"r\\uDC00\";");
    assert_eq!(shown["printed"], json!(["p\u{FFFD}"]));
    assert_eq!(shown["result"], json!("r\u{FFFD}"));
    assert_eq!(shown["warnings"].as_array().map(Vec::len), Some(2), "{shown}");
    for (snippet, verb) in [
        ("Update(document, {name: \"x\"});", "cannot be updated"),
        ("Delete(root);", "cannot be deleted"),
        ("Move(document, document);", "cannot be moved"),
    ] {
        let error = session.run(snippet).unwrap_err();
        assert!(error.message.contains("`document` is the top level of the file, not a node"), "{snippet} → {error}");
        assert!(error.message.contains(verb), "{snippet} → {error}");
        assert!(error.hint.as_deref().is_some_and(|h| h.contains("Insert(document")), "{error:?}");
    }
    assert_eq!(session.file(), before);
    let clocks = session.ok("return [performance.now(), performance.timeOrigin, Date.now(), typeof crypto];");
    assert_eq!(clocks["result"], json!([0, 0, 0, "undefined"]));
}

#[test]
fn a_call_is_bounded_in_writes_nodes_exported_files_and_time() {
    let (mut session, f) = session_with_a_frame();
    let before = session.file();
    session.workspace.execute_limits =
        nib::tools::ExecuteLimits { writes: 5, nodes: 10, exported_files: 3, ..nib::tools::ExecuteLimits::DEFAULT };
    let looped = session
        .run(&format!(
            "for (let i = 0; i < 100; i++) {{\n  try {{ Insert(\"{f}\", {{type: \"frame\"}}); }} catch (e) {{}}\n}}"
        ))
        .unwrap_err();
    assert!(looped.message.starts_with("line 2, column"), "{looped}");
    assert!(looped.message.contains("one call makes at most 5 writes"), "{looped}");
    assert!(looped.hint.as_deref().is_some_and(|h| h.contains("several calls")), "{looped:?}");
    let children = (0..12).map(|_| "{type: \"frame\"}").collect::<Vec<_>>().join(", ");
    let big = session.run(&format!("Insert(\"{f}\", {{type: \"frame\", children: [{children}]}});")).unwrap_err();
    assert!(big.message.contains("this call has added 13 nodes; one call adds at most 10"), "{big}");
    assert_eq!(session.file(), before);

    // Exports: the files a failed call created are removed, one it wrote over is kept and said.
    let out = session.folder.path().join("out");
    fs::create_dir(&out).unwrap();
    fs::write(out.join("old.png"), b"the user's").unwrap();
    let exported = session
        .run(&format!(
            "Export(\"{f}\", \"png\", {{outputPath: \"out/old.png\"}});\nfor (let i = 0; i < 10; i++) Export(\"{f}\", \"png\", {{outputPath: `out/${{i}}.png`}});"
        ))
        .unwrap_err();
    assert!(exported.message.starts_with("line 2"), "{exported}");
    assert!(exported.message.contains("one call writes at most 3 files"), "{exported}");
    assert!(exported.message.contains("The 2 files its exports created were removed"), "{exported}");
    assert!(exported.message.contains("1 files its exports wrote over files already there were kept"), "{exported}");
    assert!(exported.message.contains("out/old.png"), "{exported}");
    let left: Vec<_> = fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["old.png"], "only the file that was there before is left");
    assert!(exported.message.len() < 2000, "{exported}");
    assert_eq!(session.file(), before);

    // A call that succeeds lists the first files and counts them all.
    session.workspace.execute_limits = nib::tools::ExecuteLimits::DEFAULT;
    let many = session
        .ok(&format!("for (let i = 0; i < 12; i++) Export(\"{f}\", \"svg\", {{outputPath: `out/${{i}}.svg`}});"));
    assert_eq!(many["exported"].as_array().map(Vec::len), Some(nib::tools::MAX_LISTED_FILES), "{many}");
    assert_eq!(many["exportedCount"], json!(12));

    // The wall clock: with no time at all, the first operation is refused and nothing is kept.
    session.workspace.execute_limits =
        nib::tools::ExecuteLimits { call: std::time::Duration::ZERO, ..nib::tools::ExecuteLimits::DEFAULT };
    let late = session.run(&format!("Update(\"{f}\", {{name: \"late\"}});")).unwrap_err();
    assert!(late.message.contains("stopped after 0 ms, the most one call may take"), "{late}");
    assert!(late.hint.as_deref().is_some_and(|h| h.contains("split the work")), "{late:?}");
    assert_eq!(session.file(), before);
}

/// Item 2 of issue 47: a visitor's `bounds` are Pen's `ctx.bounds` — relative to the parent's
/// x/y, the turned box's bounds, a group's children in the group's own coordinates.
#[test]
fn a_visitors_bounds_are_pens_parent_local_turned_boxes() {
    let mut session = Session::new();
    let answer = session.ok(
        r##"const board = Insert(document, {type: "frame", layout: "none", x: 500, y: 300, width: 400, height: 400});
Insert(board, {type: "rectangle", id: "turned", x: 80, y: 60, width: 200, height: 60, rotation: -20, fill: "#000000"});
const group = Insert(board, {type: "group", x: 100, y: 250});
Insert(group, {type: "rectangle", id: "inGroup", x: -30, y: -20, width: 40, height: 40, fill: "#000000"});
Insert(group, {type: "rectangle", x: 20, y: 10, width: 40, height: 40, fill: "#000000"});
const boxes = {};
Get(board, (ctx) => { boxes[ctx.node.type + (ctx.node.rotation ? "Turned" : "") + ctx.depth] = ctx.bounds; });
return boxes;"##,
    );
    let boxes = &answer["result"];
    let close = |value: &Value, want: f64| (value.as_f64().unwrap() - want).abs() < 0.01;
    let turned = &boxes["rectangleTurned1"];
    assert!(close(&turned["x"], 59.48) && close(&turned["y"], 60.0), "{answer}");
    assert!(close(&turned["width"], 208.46) && close(&turned["height"], 124.79), "{answer}");
    assert_eq!(boxes["group1"], json!({"x": 70, "y": 230, "width": 90, "height": 70}), "{answer}");
    assert_eq!(boxes["frame0"]["x"], json!(500), "a top-level node is placed on the canvas: {answer}");
    assert!(boxes["rectangle2"]["x"] == json!(-30) || boxes["rectangle2"]["x"] == json!(20), "{answer}");
}

/// Pen's `Export(node, "html-tailwind", {includeHtmlScaffold, includeLayerNames,
/// includeLayerIds})` writes Tailwind pages (nib refused it before issue 49).
#[test]
fn export_writes_html_with_tailwind_classes_and_pens_options() {
    let mut session = Session::new();
    let frame = session.ok(
        "const f = Insert(document, {type: \"frame\", name: \"Card\", layout: \"vertical\", gap: 12, padding: 16, width: 240, fill: \"#FFFFFF\",\n  children: [{type: \"text\", name: \"Title\", content: \"Hello\", fontSize: 14, fill: \"#111111\"}]});",
    );
    let id = frame["ids"]["f"].as_str().map(str::to_owned).unwrap_or_else(|| panic!("{frame}"));
    session.ok(&format!(
        "Export(\"{id}\", \"html-tailwind\", {{outputPath: \"web/\", includeHtmlScaffold: false, includeLayerNames: true, includeLayerIds: false}});"
    ));
    let web = session.folder.path().join("web");
    let page = fs::read_dir(&web)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "html"))
        .expect("a page");
    let html = fs::read_to_string(page).unwrap();
    assert!(html.starts_with("<div class=\"pen-page ") && html.contains(" flex flex-col gap-3 p-4 "), "{html}");
    assert!(
        html.contains("data-name=\"Card\"") && html.contains("data-name=\"Title\"") && !html.contains("data-pen-id")
    );
    assert!(html.contains(" text-sm ") && html.contains(">Hello<"), "{html}");
    assert!(fs::read_to_string(web.join("tailwind.css")).unwrap().starts_with("@import \"tailwindcss\""));
}

/// `Export(node, "react", {outputPath})` writes the React files through the same export tool:
/// a component made in the snippet and the frame that uses it.
#[test]
fn export_writes_react_components_and_pages() {
    let mut session = Session::new();
    let made = session.ok(
        "const b = Insert(document, {type: \"frame\", name: \"Chip\", reusable: true, width: 80, height: 24, fill: \"#E0E7FF\",\n  children: [{type: \"text\", name: \"Label\", content: \"New\", fontSize: 12, fill: \"#3730A3\"}]});\nconst f = Insert(document, {type: \"frame\", name: \"Toolbar\", layout: \"horizontal\", gap: 8, width: 200, height: 40, x: 0, y: 100});\nInsert(f, {type: \"ref\", ref: b});",
    );
    let id = made["ids"]["f"].as_str().map(str::to_owned).unwrap_or_else(|| panic!("{made}"));
    let answer = session.ok(&format!("Export(\"{id}\", \"react\", {{outputPath: \"app/\"}});"));
    let app = session.folder.path().join("app");
    let chip = fs::read_to_string(app.join("components/Chip.tsx")).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert!(chip.contains("export function Chip(") && chip.contains("label?: string;"), "{chip}");
    let toolbar = fs::read_to_string(app.join("pages/Toolbar.tsx")).unwrap();
    assert!(
        toolbar.contains("import { Chip } from \"../components/Chip\";") && toolbar.contains("<Chip "),
        "{toolbar}"
    );
    assert!(fs::read_to_string(app.join("index.ts")).unwrap().contains("export { Toolbar }"));
}

/// A call whose save fails is taken back alone: the call before it stays, in memory and in the
/// next save (the save took the call's step back; undoing "since the call began" once more took
/// the step before it too, so the next save dropped it).
#[cfg(unix)]
#[test]
fn a_call_whose_save_fails_takes_back_only_its_own_step() {
    use std::os::unix::fs::PermissionsExt;
    let mut session = Session::new();
    session.ok(r#"Insert(document, {type: "frame", name: "Kept"});"#);
    let path = session.folder.path().join("d.pen");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let refused = session.run(r#"Insert(document, {type: "frame", name: "Refused"});"#).unwrap_err();
    assert!(refused.message.contains("read-only"), "{refused}");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    session.ok(r#"Insert(document, {type: "frame", name: "After"});"#);
    let file = session.file();
    assert!(file.contains("\"Kept\"") && file.contains("\"After\"") && !file.contains("Refused"), "{file}");
    let redo = call(&mut session.workspace, "redo", json!({ "filePath": "d.pen" }));
    assert!(redo.is_err(), "the refused call is not redone");
}

/// Issue 57, item 5: every TakeScreenshot carried its picture (482–505 KB for a page). With
/// `outputPath` it is written where get_screenshot would write it, the answer names the file
/// and stays small, the same paths are refused, and an undone call removes the file.
#[test]
fn a_screenshot_can_go_to_a_file_instead_of_the_answer() {
    let mut session = Session::new();
    let answer = session.ok(r##"const f = Insert(document, {type: "frame", width: 120, height: 80, fill: "#2563EB"});
return TakeScreenshot(f, {outputPath: "shots/f.png"});"##);
    assert_eq!(answer["result"]["path"], json!("shots/f.png"), "{answer}");
    assert_eq!(answer["result"]["width"], json!(120));
    assert!(answer.get("screenshots").is_none_or(|s| s.as_array().is_none_or(Vec::is_empty)), "no picture: {answer}");
    let written = fs::read(session.folder.path().join("shots/f.png")).unwrap();
    assert!(written.starts_with(b"\x89PNG"), "a PNG");
    assert_eq!(answer["result"]["bytes"], json!(written.len()));
    let size = answer.to_string().len();
    eprintln!("execute answer with TakeScreenshot to a file: {size} bytes");
    assert!(size < 1_000, "{size} bytes: {answer}");
    // get_screenshot's refusals: a document, a place outside the workspace, another extension.
    for (path, said) in [("d.pen", "document"), ("../outside.png", "outside"), ("shot.jpg", ".png")] {
        let snippet = format!("TakeScreenshot(null, {{outputPath: {path:?}}});");
        let refused = session.run(&snippet).unwrap_err();
        assert!(refused.message.contains(said), "{path}: {refused}");
    }
    assert!(!session.folder.path().parent().unwrap().join("outside.png").exists());
    // A call that fails after its screenshot takes the file it created away with it.
    let before = session.file();
    let failed = session.run(
        r##"TakeScreenshot(null, {outputPath: "shots/undone.png"});
Update("missing", {width: 10});"##,
    );
    assert!(failed.is_err());
    assert!(!session.folder.path().join("shots/undone.png").exists(), "removed with the call");
    assert_eq!(session.file(), before);
}

/// Issue 57, item 5: the skill's Export left out html-tailwind and react, which work.
#[test]
fn the_skill_lists_every_export_format() {
    let skill = include_str!("../../assets/skills/execute.md");
    let row = skill.lines().find(|l| l.starts_with("| `Export(")).unwrap();
    for format in [
        "png",
        "jpeg",
        "webp",
        "pdf",
        "svg",
        "html-css",
        "html-tailwind",
        "react",
        "tokens-css",
        "tokens-json",
        "tailwind",
    ] {
        assert!(row.contains(format), "{format}: {row}");
    }
    let row = skill.lines().find(|l| l.starts_with("| `TakeScreenshot(")).unwrap();
    assert!(row.contains("outputPath"), "{row}");
    let mut session = Session::new();
    let answer = session.ok(
        r##"const f = Insert(document, {type: "frame", name: "Hero", width: 120, height: 80, fill: "#2563EB"});
return [Export(f, "html-tailwind", {outputPath: "web/"}).files.length > 0, Export(f, "react", {outputPath: "src/"}).files.length > 0];"##,
    );
    assert_eq!(answer["result"], json!([true, true]), "{answer}");
}

#[test]
fn a_call_answers_the_problems_it_made_and_not_those_of_earlier_calls() {
    let mut session = Session::new();
    // A row that hugs its children, whose only child fills it: circular sizing, made by a
    // snippet that never wrote the sizing of the row itself in one statement.
    let made =
        session.ok(r##"const row = Insert(document, {type: "frame", name: "Row", layout: "horizontal", x: 0, y: 0,
  children: [{type: "text", content: "A", fill: "#000000"}]});
Update(Get(row, {depth: 1}).children[0].id, {width: "fill_container", textGrowth: "fixed-width"});
Update(row, {cornerRadius: "$--radius"});
return row;"##);
    let issues: Vec<(&str, &str)> = made["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["code"].as_str().unwrap(), i["message"].as_str().unwrap()))
        .collect();
    assert!(issues.iter().any(|(code, i)| *code == "layout-circular-sizing" && i.starts_with("'Row'")), "{issues:?}");
    assert!(
        issues.iter().any(|(code, i)| *code == "undefined-variable" && i.starts_with("Variable '$--radius' on node")),
        "{issues:?}"
    );
    // The variable's layout problem is not said a second time.
    assert!(!issues.iter().any(|(code, _)| *code == "layout-unresolved"), "{issues:?}");
    let row = made["result"].as_str().unwrap().to_owned();
    let again = session.ok(&format!("Update(\"{row}\", {{name: \"Row 2\"}});"));
    assert!(again.get("issues").is_none(), "{again}");
}

#[test]
fn a_font_weight_pen_does_not_know_is_refused_by_update() {
    let (mut session, f) = session_with_a_frame();
    let error = session
        .run(&format!("Insert(\"{f}\", {{type: \"text\", content: \"x\", fontWeight: \"black\"}});"))
        .unwrap_err();
    assert!(error.message.contains("font weight \"black\" is not one Pen knows (write \"900\";"), "{}", error.message);
}
