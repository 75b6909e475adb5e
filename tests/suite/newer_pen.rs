//! Files from newer Pens are read, not refused (issue 47, rule 6): node, fill and effect types
//! nib does not know, override values it cannot read and override nodes without an id are
//! kept as written (a save is byte-identical), laid out as Pen places them where nib can
//! tell (an unknown node is an empty box of its size), drawn as nothing, and said once as a
//! warning with the node. `nib check` passes on them, `--strict` does not. The documents in
//! `tests/fixtures/newer-pen` are nib's own, one per format version, each holding every case.

use std::path::{Path, PathBuf};
use std::process::Command;

use nib::doc::{Document, ProblemKind};
use nib::host::FolderImages;
use nib::layout::Layout;
use nib::render::{RenderOptions, RenderTarget, render};
use nib::resolve::{NoImports, SceneOptions, build_scene};
use nib::script::{Context, Options, run};
use nib::text::{FontBook, FontOptions, TextEngine};
use serde_json::{Value, json};

const VERSIONS: [&str; 3] = ["2.17", "2.19", "2.20"];

fn fixture(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/newer-pen/v{version}-newer-parts.pen"))
}

fn text_of(version: &str) -> String {
    std::fs::read_to_string(fixture(version)).expect("fixture")
}

fn nib(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_nib")).args(args).env("NIB_FONTS", "offline").output().expect("nib runs")
}

/// The boxes (left, top, width, height) by id, and the canvas drawn at 1×.
fn draw(text: &str) -> (std::collections::HashMap<String, Option<[f32; 4]>>, tiny_skia::Pixmap) {
    let document = Document::load(text).expect("loads").document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let layout = Layout::compute(&scene, &mut engine);
    let mut boxes = std::collections::HashMap::new();
    for id in
        ["board", "left", "clip", "clipChild", "gizmo", "right", "loose", "inst/slot", "inst/filled", "inst2/sticker"]
    {
        let found = scene.node_by_id(id).map(|key| layout.node_box(key).map(|b| [b.left, b.top, b.width, b.height]));
        boxes.insert(id.to_owned(), found.flatten());
    }
    let options = RenderOptions { background: Some([255, 255, 255, 255]), ..RenderOptions::default() };
    let pixmap = render(&scene, &layout, &mut engine, &mut FolderImages::default(), RenderTarget::Canvas, &options)
        .expect("renders")
        .pixmap;
    (boxes, pixmap)
}

/// The fixture as nib draws it: every unknown node an empty frame of its size, every unknown
/// fill and effect, unreadable override value and override node without an id removed.
fn without_unknown_parts(text: &str) -> String {
    fn known_paint(item: &Value, types: &[&str]) -> bool {
        item.get("type").and_then(Value::as_str).is_none_or(|t| types.contains(&t))
    }
    fn strip(node: &mut Value) {
        let Some(object) = node.as_object_mut() else { return };
        let node_type = object.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        if ["video_clip", "gizmo", "sticker"].contains(&node_type.as_str()) {
            object.retain(|key, _| ["id", "x", "y", "name", "width", "height"].contains(&key.as_str()));
            object.insert("type".into(), json!("frame"));
            object.insert("layout".into(), json!("none"));
            return;
        }
        for key in ["fill", "stroke"] {
            if let Some(Value::Array(list)) = object.get_mut(key) {
                list.retain(|f| known_paint(f, &["color", "gradient", "image"]));
            }
        }
        if let Some(Value::Array(list)) = object.get_mut("effect") {
            list.retain(|e| known_paint(e, &["shadow", "blur", "background_blur"]));
        }
        if let Some(Value::Object(overrides)) = object.get_mut("descendants") {
            for (_, value) in overrides.iter_mut() {
                if value.get("content").is_some_and(Value::is_object) {
                    value.as_object_mut().unwrap().remove("content");
                }
                if let Some(Value::Array(children)) = value.get_mut("children") {
                    children.retain(|child| child.get("id").is_some());
                }
                strip(value);
            }
        }
        if let Some(Value::Array(children)) = object.get_mut("children") {
            children.iter_mut().for_each(strip);
        }
    }
    let mut json: Value = serde_json::from_str(text).unwrap();
    json["children"].as_array_mut().unwrap().iter_mut().for_each(strip);
    serde_json::to_string_pretty(&json).unwrap()
}

#[test]
fn files_with_parts_nib_does_not_know_load_and_save_byte_identical() {
    for version in VERSIONS {
        let text = text_of(version);
        let loaded = Document::load(&text).unwrap_or_else(|e| panic!("{version}: {e}"));
        assert_eq!(loaded.document.to_pen_string(), text, "{version} changes when saved");
        let said = |wanted: &dyn Fn(&ProblemKind) -> bool| {
            loaded.problems.iter().filter(|p| wanted(&p.kind)).map(|p| p.location.node_id.clone().unwrap()).collect()
        };
        let types: Vec<String> = said(&|k| matches!(k, ProblemKind::NodeTypeKept { .. }));
        assert_eq!(types, ["clip", "gizmo", "loose", "sticker"], "{version}");
        let paints: Vec<String> = said(&|k| matches!(k, ProblemKind::PaintTypeKept { .. }));
        assert_eq!(paints, ["board", "board", "board", "clip", "right", "inst"], "{version}");
        let overrides: Vec<String> = said(&|k| matches!(k, ProblemKind::OverrideKept { .. }));
        assert_eq!(overrides, ["inst"], "{version}");
        let without_id: Vec<String> = said(&|k| matches!(k, ProblemKind::OverrideNodeWithoutId));
        assert_eq!(without_id, ["inst"], "{version}");
        let kept = loaded.problems.iter().find(|p| matches!(p.kind, ProblemKind::OverrideKept { .. })).unwrap();
        assert_eq!(kept.location.pointer, "/children/3/descendants/title/content");
        let clip = loaded.problems.iter().find(|p| matches!(p.kind, ProblemKind::NodeTypeKept { .. })).unwrap();
        assert!(clip.to_string().contains("\"video_clip\"") && clip.to_string().contains("its children"), "{clip}");
    }
}

#[test]
fn check_passes_with_one_warning_per_part_and_strict_fails() {
    for version in VERSIONS {
        let path = fixture(version);
        let file = path.to_str().unwrap();
        let output = nib(&["check", file]);
        let said = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(output.status.success(), "{version}: {said}{}", String::from_utf8_lossy(&output.stderr));
        for (what, node) in [
            ("node type \"video_clip\"", "node 'clip'"),
            ("node type \"gizmo\"", "node 'gizmo'"),
            ("effect type \"glow\"", "node 'board'"),
            ("fill type \"aurora\"", "node 'board'"),
            ("fill type \"poster\"", "node 'clip'"),
            ("the override of \"content\"", "node 'inst'"),
            ("has no \"id\"", "node 'inst'"),
        ] {
            let warned =
                said.lines().any(|line| line.contains("warning") && line.contains(what) && line.contains(node));
            assert!(warned, "{what} on {node}: {said}");
        }
        assert_eq!(said.matches("\"video_clip\"").count(), 1, "said once: {said}");
        assert_eq!(said.matches("\"hologram\"").count(), 2, "once per fill: {said}");
        let strict = nib(&["check", "--strict", file]);
        assert_eq!(strict.status.code(), Some(1), "{}", String::from_utf8_lossy(&strict.stdout));
    }
}

#[test]
fn unknown_nodes_are_empty_boxes_of_their_size_and_nothing_unknown_is_drawn() {
    for version in VERSIONS {
        let text = text_of(version);
        let (boxes, picture) = draw(&text);
        let at = |id: &str| boxes[id].unwrap_or_else(|| panic!("{version}: {id} has no box"));
        // A horizontal flex row with gap 10: the siblings stay where Pen puts them.
        assert_eq!(at("left"), [0.0, 0.0, 40.0, 40.0]);
        assert_eq!(at("clip"), [50.0, 0.0, 120.0, 80.0], "a number size");
        assert_eq!(
            at("gizmo"),
            [180.0, 0.0, 170.0, 30.0],
            "fill_container takes the free space; fit_content(30) its fallback"
        );
        assert_eq!(at("right"), [360.0, 0.0, 40.0, 40.0]);
        assert_eq!(at("loose"), [500.0, 0.0, 60.0, 60.0], "at top level, at its x and y");
        assert_eq!(at("inst2/sticker"), [600.0, 200.0, 50.0, 20.0], "a replacement of an unknown type");
        assert_eq!(boxes["clipChild"], None, "what an unknown node holds is not laid out");
        // The override child with an id fills the slot; the one without is left out.
        assert_eq!(at("inst/filled"), [300.0, 217.0, 30.0, 30.0]);
        assert_eq!(at("inst/slot")[3], 30.0);
        // The picture is the document's without what nib does not know, pixel for pixel.
        let stripped = without_unknown_parts(&text);
        let (stripped_boxes, expected) = draw(&stripped);
        assert_eq!(boxes["right"], stripped_boxes["right"]);
        assert!(picture.data() == expected.data(), "{version}: something unknown was drawn");
        // The board's white fill shows where the clip is; its green child is not drawn.
        let pixel = picture.pixel(52, 2).unwrap().demultiply();
        assert_eq!([pixel.red(), pixel.green(), pixel.blue()], [255, 255, 255]);
    }
}

#[test]
fn the_tools_read_edit_and_draw_such_a_file_and_keep_what_they_do_not_know() {
    let folder = tempfile::tempdir().unwrap();
    let original = text_of("2.19");
    std::fs::write(folder.path().join("n.pen"), &original).unwrap();
    let mut workspace = nib::tools::Workspace::new(folder.path());
    let mut call = |name: &str, arguments: Value| {
        nib::tools::call(&mut workspace, name, arguments).unwrap_or_else(|e| panic!("{name}: {e:?}"))
    };
    let opened = call("open_document", json!({"filePathOrTemplate": "n.pen"}));
    let problems: Vec<&str> =
        opened["problems"].as_array().unwrap().iter().filter_map(|p| p["message"].as_str()).collect();
    let problems = problems.join("\n");
    assert!(problems.contains("\"video_clip\"") && problems.contains("\"glow\""), "{problems}");

    // batch_get shows the unknown node as saved, children included.
    let got = call("batch_get", json!({"filePath": "n.pen", "nodeIds": ["clip"], "readDepth": 2}));
    let clip = &got["nodes"][0];
    assert_eq!(clip["type"], "video_clip", "{got}");
    assert_eq!(clip["videoUrl"], "https://example.com/clip.mp4");
    assert_eq!(clip["fill"], json!({"type": "poster", "url": "poster.png"}));
    assert_eq!(clip["children"][0]["id"], "clipChild");

    // snapshot_layout gives its box.
    let layout = call("snapshot_layout", json!({"filePath": "n.pen", "parentId": "board"}));
    let children = layout["nodes"][0]["children"].as_array().unwrap();
    let clip = children.iter().find(|c| c["id"] == "clip").unwrap();
    assert_eq!(
        (clip["type"].as_str(), clip["x"].as_f64(), clip["width"].as_f64()),
        (Some("video_clip"), Some(50.0), Some(120.0))
    );
    let shot = call("get_screenshot", json!({"filePath": "n.pen", "nodeId": "board"}));
    assert!(shot["data"].as_str().is_some_and(|png| png.len() > 100), "a picture: {shot}");

    // Editing a sibling changes that key alone: the unknown parts are saved as written.
    call("batch_design", json!({"filePath": "n.pen", "operations": "U(\"left\", {width: 44})"}));
    let saved = std::fs::read_to_string(folder.path().join("n.pen")).unwrap();
    let expected = original.replacen(
        "\"id\": \"left\",\n          \"width\": 40,",
        "\"id\": \"left\",\n          \"width\": 44,",
        1,
    );
    assert_ne!(expected, original);
    assert_eq!(saved, expected);

    // Editing the unknown node: its known keys change, its own content stays.
    call("batch_design", json!({"filePath": "n.pen", "operations": "U(\"clip\", {name: \"Trailer\", width: 100})"}));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(folder.path().join("n.pen")).unwrap()).unwrap();
    let clip = &saved["children"][0]["children"][1];
    assert_eq!(clip["type"], "video_clip");
    assert_eq!((clip["name"].as_str(), clip["width"].as_f64()), (Some("Trailer"), Some(100.0)));
    assert_eq!(clip["videoUrl"], "https://example.com/clip.mp4");
    assert_eq!(clip["loop"], true);
    assert_eq!(clip["children"][0]["id"], "clipChild");
    let layout = call("snapshot_layout", json!({"filePath": "n.pen", "parentId": "board"}));
    let gizmo =
        layout["nodes"][0]["children"].as_array().unwrap().iter().find(|c| c["id"] == "gizmo").cloned().unwrap();
    // left is 44 wide now and the clip 100: the gizmo's free space grew by 16.
    assert_eq!(gizmo["x"].as_f64(), Some(164.0), "{gizmo}");
    assert_eq!(gizmo["width"].as_f64(), Some(186.0), "{gizmo}");

    // Nothing is put inside it: nib does not know what it holds.
    let refused = nib::tools::call(
        &mut workspace,
        "batch_design",
        json!({"filePath": "n.pen", "operations": "x=I(\"clip\", {type: \"rectangle\", width: 5, height: 5})"}),
    );
    let answer = format!("{refused:?}");
    assert!(answer.contains("a type nib does not know"), "{answer}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(folder.path().join("n.pen")).unwrap()).unwrap();
    assert_eq!(saved["children"][0]["children"][1]["children"].as_array().unwrap().len(), 1);
}

#[test]
fn what_an_agent_writes_must_still_name_known_types() {
    let mut document = Document::load(&text_of("2.20")).unwrap().document;
    for script in [
        "x=I(\"board\", {type: \"video_clip\", width: 10, height: 10})",
        "U(\"left\", {fill: {type: \"hologram\"}})",
        "U(\"left\", {effect: {type: \"glow\", radius: 2}})",
    ] {
        let outcome = run(&mut document, script, &Context::offline(Options::default()));
        assert!(!outcome.success, "{script}: {}", outcome.text());
    }
    assert_eq!(document.to_pen_string(), text_of("2.20"), "nothing changed");
}

#[test]
fn the_commands_work_on_such_a_file_and_migrate_keeps_or_refuses_clearly() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("n.pen");
    std::fs::write(&path, text_of("2.17")).unwrap();
    let file = path.to_str().unwrap();
    let png = folder.path().join("n.png");
    let rendered = nib(&["render", file, "-o", png.to_str().unwrap()]);
    let warned = String::from_utf8_lossy(&rendered.stderr).into_owned();
    assert!(rendered.status.success(), "{warned}");
    assert_eq!(warned.matches("\"video_clip\"").count(), 1, "said once, with the node: {warned}");
    assert!(warned.contains("node 'clip'"), "{warned}");
    let layout = nib(&["layout", "--json", file]);
    assert!(layout.status.success());
    let boxes: Value = serde_json::from_slice(&layout.stdout).unwrap();
    assert_eq!(boxes["nodes"][0]["children"][1]["type"], "video_clip", "{boxes}");
    assert_eq!(boxes["nodes"][0]["children"][1]["width"].as_f64(), Some(120.0));
    let lint = nib(&["lint", file]);
    assert!(lint.status.code().is_some_and(|code| code <= 1), "{}", String::from_utf8_lossy(&lint.stderr));
    for format in ["svg", "html"] {
        let out = folder.path().join(format!("out.{format}"));
        let exported = nib(&["export", file, "--format", format, "-o", out.to_str().unwrap()]);
        assert!(exported.status.success(), "{format}: {}", String::from_utf8_lossy(&exported.stderr));
    }

    // Up: what nib does not know is kept as written, and listed.
    let moved = nib(&["migrate", file]);
    let said = String::from_utf8_lossy(&moved.stdout).into_owned();
    assert!(moved.status.success(), "{said}{}", String::from_utf8_lossy(&moved.stderr));
    assert!(said.contains("node 'clip': the node type \"video_clip\" is kept as written"), "{said}");
    assert!(said.contains("node 'board': the effect type \"glow\" is kept as written"), "{said}");
    assert!(said.contains("node 'inst/title': the value of \"content\" nib cannot read is kept as written"), "{said}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, text_of("2.17").replacen("\"version\": \"2.17\"", "\"version\": \"2.20\"", 1));

    // Down: nib cannot tell whether the older version holds them, so it refuses, naming them.
    let down = nib(&["migrate", "--to", "2.17", file]);
    let said = format!("{}{}", String::from_utf8_lossy(&down.stdout), String::from_utf8_lossy(&down.stderr));
    assert!(!down.status.success(), "{said}");
    assert!(said.contains("\"video_clip\" is not one nib knows") && said.contains("node 'loose'"), "{said}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "a refused move writes nothing");
}

/// Issue 56, item 9d: a refusal naming a node's type reads as English ("'clip' is a unknown"
/// was the answer), for an unknown type and for known types spelled with a vowel.
#[test]
fn refusals_name_a_type_with_its_article() {
    let mut document = Document::load(&text_of("2.20")).unwrap().document;
    for (script, said) in [
        (
            "U(\"clip\", {descendants: {clipChild: {width: 3}}})",
            "'clip' is a node of a type nib does not know, not an instance",
        ),
        ("G(\"clip\", \"stock\", \"a cat\")", "'clip' is a node of a type nib does not know"),
        ("e=I(\"board\", {type: \"ellipse\", width: 5, height: 5})\nG(e, \"stock\", \"a cat\")", "is an ellipse"),
        (
            "e=I(\"board\", {type: \"ellipse\", width: 5, height: 5})\nI(e, {type: \"frame\"})",
            "is an ellipse and cannot have children",
        ),
    ] {
        let outcome = run(&mut document, script, &Context::offline(Options::default()));
        let text = outcome.text();
        assert!(!outcome.success && text.contains(said), "{script}: {text}");
        assert!(!text.contains(" a unknown") && !text.contains(" a ellipse"), "{text}");
    }
}

/// Issue 56, item 9b: C() and execute's Copy() of a node of a type nib does not know (or of a
/// node holding one, among its children or in its instance overrides) would write that type;
/// they are refused as I() refuses it, with the types an agent can write.
#[test]
fn a_copy_cannot_write_a_type_nib_does_not_know() {
    let original = text_of("2.20");
    let mut document = Document::load(&original).unwrap().document;
    for (script, said) in [
        ("x=C(\"clip\", \"board\")", "cannot copy 'clip': unknown node type \"video_clip\""),
        (
            "x=C(\"board\", document)",
            "cannot copy 'board': the node 'clip' inside it has unknown node type \"video_clip\"",
        ),
        ("x=C(\"inst2\", document)", "the node 'sticker' inside it has unknown node type \"sticker\""),
    ] {
        let outcome = run(&mut document, script, &Context::offline(Options::default()));
        let text = outcome.text();
        assert!(!outcome.success && text.contains(said), "{script}: {text}");
        assert!(text.contains("insert a new node with I() of one of \"frame\""), "with a hint: {text}");
    }
    assert_eq!(document.to_pen_string(), original, "nothing changed");
    // A node of a known type beside them still copies.
    let outcome = run(&mut document, "x=C(\"left\", \"board\")", &Context::offline(Options::default()));
    assert!(outcome.success, "{}", outcome.text());

    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("n.pen"), &original).unwrap();
    let mut workspace = nib::tools::Workspace::new(folder.path());
    let refused = nib::tools::call(
        &mut workspace,
        "execute",
        json!({"filePath": "n.pen", "input": "Copy(\"clip\", \"board\");"}),
    );
    let answer = format!("{refused:?}");
    assert!(answer.contains("cannot copy 'clip': unknown node type"), "{answer}");
    assert_eq!(std::fs::read_to_string(folder.path().join("n.pen")).unwrap(), original);
}

/// Issue 56, item 9c: U() of a node of a type nib does not know saves keys nib then neither
/// lays out nor draws; the answer says so (its place and size still count, without a word).
#[test]
fn an_update_of_a_node_nib_does_not_know_says_what_will_not_show() {
    let mut document = Document::load(&text_of("2.20")).unwrap().document;
    let outcome = run(
        &mut document,
        "U(\"clip\", {fill: \"#FF0000\", cornerRadius: 4, width: 90})",
        &Context::offline(Options::default()),
    );
    assert!(outcome.success, "{}", outcome.text());
    let said = outcome.issues.iter().map(|i| i.message.as_str()).collect::<Vec<_>>().join("\n");
    assert!(outcome.issues.iter().any(|i| i.code == "undrawn-keys" && i.node.as_deref() == Some("clip")));
    assert!(
        said.contains("Node 'clip' is of a type nib does not know (\"video_clip\")")
            && said.contains("'fill', 'cornerRadius' are saved on it, but nib draws nothing for such a node"),
        "{said}"
    );
    assert!(!said.contains("'width'"), "its size counts: {said}");
    let placed = run(&mut document, "U(\"clip\", {width: 100, x: 3})", &Context::offline(Options::default()));
    assert!(
        placed.success && placed.issues.iter().all(|i| !i.message.contains("does not know")),
        "{:?}",
        placed.issues
    );

    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("n.pen"), text_of("2.20")).unwrap();
    let mut workspace = nib::tools::Workspace::new(folder.path());
    let answer = nib::tools::call(
        &mut workspace,
        "execute",
        json!({"filePath": "n.pen", "input": "Update(\"clip\", {opacity: 0.5});"}),
    )
    .unwrap();
    assert!(answer.to_string().contains("'opacity' is saved on it, but nib draws nothing"), "{answer}");
}

/// A public Pen test file (bensyverson/woodcase, copied in `tests/fixtures/woodcase`).
fn woodcase(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/woodcase/{name}.pen"));
    std::fs::read_to_string(path).expect("fixture")
}

/// Pen's files may replace a node (a `descendants` value with a `type`) without giving the
/// replacement an id: Pen draws it in the place of the node its key names and saves it as
/// written (woodcase `slot-override-keys`, row `bare-injected-replace`). nib refused both
/// files that hold one; now they load without a word, save byte-identical, and the
/// replacement is known by the key's node.
#[test]
fn a_replacement_without_an_id_is_known_by_the_node_its_key_names() {
    for name in ["override-value-rejected", "slot-override-keys"] {
        let text = woodcase(name);
        let loaded = Document::load(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Woodcase writes Pen's form with a closing newline, which Pen leaves out.
        assert_eq!(loaded.document.to_pen_string() + "\n", text, "{name} changes when saved");
        assert!(
            !loaded.problems.iter().any(|p| matches!(p.kind, ProblemKind::OverrideNodeWithoutId)),
            "{name}: {:?}",
            loaded.problems
        );
    }
    // `Rf003` replaces its component's label by a black 10 × 10 rectangle with no id.
    let text = woodcase("override-value-rejected");
    let document = Document::load(&text).unwrap().document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let key = scene.node_by_id("Rf003/Lbl01").expect("the replacement is the key's node");
    assert_eq!(scene.node(key).props.node_type(), Some(nib::doc::NodeType::Rectangle));
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let layout = Layout::compute(&scene, &mut engine);
    let b = layout.node_box(key).expect("laid out");
    assert_eq!([b.left, b.top, b.width, b.height], [150.0, 10.0, 10.0, 10.0]);
    let options = RenderOptions { background: Some([255, 255, 255, 255]), ..RenderOptions::default() };
    let picture = render(&scene, &layout, &mut engine, &mut FolderImages::default(), RenderTarget::Canvas, &options)
        .expect("renders")
        .pixmap;
    let pixel = picture.pixel(155, 15).unwrap().demultiply();
    assert_eq!([pixel.red(), pixel.green(), pixel.blue()], [0, 0, 0], "the replacement is drawn");
    // An edit through the path changes the replacement in place, which keeps having no id.
    let (folder, mut workspace) = workspace_with(&text);
    let answer = design(&mut workspace, r##"U("Rf003/Lbl01", {fill: "#FF0000"})"##).unwrap();
    assert!(!answer.to_string().contains("rror"), "{answer}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(folder.path().join("w.pen")).unwrap()).unwrap();
    let replacement = &saved["children"][0]["children"][2]["descendants"]["Lbl01"];
    assert_eq!(replacement, &json!({"type": "rectangle", "width": 10, "height": 10, "fill": "#FF0000"}));
}

/// A replacement without an id is the instance's own content, as one with an id is: D() of its
/// path removes it (issue 57: it was refused with a "hide it" hint), the component's node shows
/// again (the answer says so), and the rest of the file is saved as it was, byte for byte.
#[test]
fn a_replacement_without_an_id_is_deleted_and_the_rest_saved_as_it_was() {
    let text = woodcase("override-value-rejected");
    let (folder, mut workspace) = workspace_with(&text);
    let answer = design(&mut workspace, r#"D("Rf003/Lbl01")"#).unwrap();
    let said = answer["text"].as_str().unwrap();
    assert!(said.contains("- Deleted node `Rf003/Lbl01`"), "{said}");
    assert!(said.contains("replaced the component's node 'Lbl01', which shows again"), "{said}");
    let replacement = ",\n          \"descendants\": {\n            \"Lbl01\": {\n              \"type\": \"rectangle\",\n              \"width\": 10,\n              \"height\": 10,\n              \"fill\": \"#000000\"\n            }\n          }";
    assert_eq!(text.matches(replacement).count(), 1);
    let saved = std::fs::read_to_string(folder.path().join("w.pen")).unwrap();
    assert_eq!(saved + "\n", text.replace(replacement, ""));
    // The path names the component's own label again, which an instance cannot lose.
    let again = design(&mut workspace, r#"D("Rf003/Lbl01")"#).unwrap_err();
    assert!(again.message.contains("is inside an instance and cannot be deleted"), "{}", again.message);
}

/// The Scene nib resolves for woodcase's `slot-override-keys`, with the override warnings it
/// gives.
fn slot_override_keys() -> nib::resolve::Scene {
    let document = Document::load(&woodcase("slot-override-keys")).unwrap().document;
    build_scene(&document, &NoImports, SceneOptions::FULL)
}

/// What Pen draws for a board of woodcase's `slot-override-keys` (its CLI export of each board,
/// read in `project/2026-09-26-slot-override-keys.md`): the injected node's colour — red as the
/// component made it, blue where a bare key applied, green where a path did.
const PEN_BOARDS: [(&str, &str, &str); 22] = [
    ("bare-injected", "To000/Ins0A/Inj1", "#0000FF"),
    ("path-injected", "To001/Ins0A/Inj1", "#00FF00"),
    ("bare-and-path", "To002/Ins0A/Inj1", "#00FF00"),
    ("bare-and-path-no-merge", "To003/Ins0A/Inj1", "#00FF00"),
    ("bare-nested-plain", "To004/Ins0A/Pln01", "#FF0000"),
    ("bare-injected-deep", "To005/Ins0A/Deep", "#0000FF"),
    ("bare-injected-ref", "To006/Ins0A/InsB", "#0000FF"),
    ("bare-injected-twice", "To007/Ins0A/InsB/Inj3", "#0000FF"),
    ("bare-injected-replace", "To008/Ins0A/Deep", "#0000FF"),
    ("path-injected-twice", "To009/Ins0A/InsB/Inj3", "#00FF00"),
    ("path-skips-injected-ref", "To010/Ins0A/InsB/Inj3", "#00FF00"),
    ("path-from-injected-ref", "To011/Ins0A/InsB/Inj3", "#00FF00"),
    ("path-injected-deep", "To012/Ins0A/Deep", "#00FF00"),
    ("path-through-injected-frame", "To013/Ins0A/Deep", "#00FF00"),
    ("path-ref-injected-frame", "To014/Ins0A/Deep", "#00FF00"),
    ("path-ref-then-slot", "To015/Ins0A/Inj1", "#00FF00"),
    ("path-slot-first", "To016/Ins0A/Inj1", "#FF0000"),
    ("path-plain-frame", "To017/PX1", "#00FF00"),
    ("outer-bare", "To018/Mid01/Ins2A/Inj2", "#FF0000"),
    ("outer-short-path", "To019/Mid01/Ins2A/Inj2", "#FF0000"),
    ("outer-full-path", "To020/Mid01/Ins2A/Inj2", "#00FF00"),
    ("bare-ref-children", "To021/RtA/RtC", "#0000FF"),
];

fn fill_of(scene: &nib::resolve::Scene, path: &str) -> String {
    let key = scene.node_by_id(path).unwrap_or_else(|| panic!("{path} is in the scene"));
    let json: Value = serde_json::from_str(&scene.node_to_json(key, 0)).unwrap();
    json["fill"].as_str().unwrap_or_default().to_owned()
}

/// Pen's rule for which node a `descendants` key names (DECISIONS.md): every one of the 22
/// boards draws its injected node in the colour Pen's export shows (nib drew 10 before).
#[test]
fn every_slot_override_keys_board_draws_as_pen_exports_it() {
    let scene = slot_override_keys();
    let wrong: Vec<String> = PEN_BOARDS
        .iter()
        .filter(|(_, path, pen)| fill_of(&scene, path) != *pen)
        .map(|(board, path, pen)| format!("{board}: {path} is {} in nib, {pen} in Pen", fill_of(&scene, path)))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Rule 1: a key's first step names any node the instance's component wrote, however deep,
/// also content it writes into a nested instance's slot (`Inj1`, `Deep`, `InsB`, `Inj3`) or as
/// a nested instance's own `children` (`RtC`); a node a nested component wrote is not named by
/// a bare id (`Pln01`, Slot1's; `Inj2`, written by Scr02 inside Scr03).
#[test]
fn a_bare_key_names_what_the_instances_component_wrote_however_deep() {
    let scene = slot_override_keys();
    for path in ["To000/Ins0A/Inj1", "To005/Ins0A/Deep", "To006/Ins0A/InsB", "To007/Ins0A/InsB/Inj3", "To021/RtA/RtC"] {
        assert_eq!(fill_of(&scene, path), "#0000FF", "{path}");
    }
    let replaced = scene.node_by_id("To008/Ins0A/Deep").unwrap();
    assert_eq!(scene.node(replaced).props.node_type(), Some(nib::doc::NodeType::Ellipse));
    assert_eq!(fill_of(&scene, "To004/Ins0A/Pln01"), "#FF0000");
    assert_eq!(fill_of(&scene, "To018/Mid01/Ins2A/Inj2"), "#FF0000");
    // What Pen drops is said to match no node; what it applies is not.
    let said: Vec<String> = scene.problems.iter().map(|d| d.message.clone()).collect();
    for key in ["'Pln01'", "'Inj2'", "'Hole1/Inj1'", "'Mid01/Inj2'"] {
        assert!(said.iter().any(|m| m.contains(&format!("override {key} matches no node"))), "{key}: {said:#?}");
    }
    for key in ["'Inj1'", "'Deep'", "'InsB'", "'Inj3'", "'RtC'", "'PF1/PX1'", "'InjF/Deep'"] {
        assert!(!said.iter().any(|m| m.contains(&format!("override {key} matches"))), "{key}: {said:#?}");
    }
}

/// Rule 2: each later step names a node below the previous one that a component the key has
/// entered wrote (plain frames, injected frames and instances may be stepped through or
/// skipped), or, after an instance, a node of that instance's component's own tree, which
/// enters it (`Ins0A/Hole1/Inj1`, `Mid01/Ins2A/Inj2`); a first step in a nested component's
/// tree (`Hole1/Inj1`) or content a nested component wrote reached past its instance only
/// (`Mid01/Inj2`) names nothing.
#[test]
fn a_path_key_steps_through_what_the_components_it_entered_wrote() {
    let scene = slot_override_keys();
    for path in [
        "To010/Ins0A/InsB/Inj3",
        "To011/Ins0A/InsB/Inj3",
        "To013/Ins0A/Deep",
        "To014/Ins0A/Deep",
        "To015/Ins0A/Inj1",
        "To017/PX1",
        "To020/Mid01/Ins2A/Inj2",
    ] {
        assert_eq!(fill_of(&scene, path), "#00FF00", "{path}");
    }
    assert_eq!(fill_of(&scene, "To016/Ins0A/Inj1"), "#FF0000");
    assert_eq!(fill_of(&scene, "To019/Mid01/Ins2A/Inj2"), "#FF0000");
}

/// Rule 4: two keys that name one node do not merge: the one written last applies, whole
/// (`Inj1` height 10, then `Ins0A/Inj1` green: green at the component's height 20).
#[test]
fn of_two_keys_naming_one_node_the_last_written_applies_whole() {
    let scene = slot_override_keys();
    assert_eq!(fill_of(&scene, "To002/Ins0A/Inj1"), "#00FF00");
    let key = scene.node_by_id("To003/Ins0A/Inj1").unwrap();
    let json: Value = serde_json::from_str(&scene.node_to_json(key, 0)).unwrap();
    assert_eq!((json["fill"].as_str(), json["height"].as_f64()), (Some("#00FF00"), Some(20.0)));
}

/// A workspace over a folder holding `text` as `w.pen`.
fn workspace_with(text: &str) -> (tempfile::TempDir, nib::tools::Workspace) {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("w.pen"), text).unwrap();
    let workspace = nib::tools::Workspace::new(folder.path());
    (folder, workspace)
}

/// batch_design's answer to `operations` on `w.pen`.
fn design(workspace: &mut nib::tools::Workspace, operations: &str) -> Result<Value, nib::tools::ToolError> {
    nib::tools::call(workspace, "batch_design", json!({"filePath": "w.pen", "operations": operations}))
}

/// Runs `operations` through batch_design on `text` saved as a file, and returns the saved
/// file's JSON and its Scene.
fn edit_saved(text: &str, operations: &str) -> (Value, nib::resolve::Scene) {
    let (folder, mut workspace) = workspace_with(text);
    design(&mut workspace, operations).unwrap();
    let saved = std::fs::read_to_string(folder.path().join("w.pen")).unwrap();
    let document = Document::load(&saved).unwrap().document;
    (serde_json::from_str(&saved).unwrap(), build_scene(&document, &NoImports, SceneOptions::FULL))
}

/// The `descendants` of the board `id` of a saved slot-override-keys file.
fn overrides_of<'v>(saved: &'v Value, id: &str) -> &'v Value {
    fn find<'v>(node: &'v Value, id: &str) -> Option<&'v Value> {
        if node["id"] == id {
            return Some(&node["descendants"]);
        }
        node["children"].as_array()?.iter().find_map(|child| find(child, id))
    }
    find(saved, id).unwrap_or_else(|| panic!("{id} is in the file"))
}

/// An edit through a path updates the key that already names the node, in Pen's spelling
/// (`Inj1` for `To000/Ins0A/Inj1`), instead of adding nib's (`Ins0A/Inj1`) beside it: the
/// added key, written later, would apply whole and hide the fill the file set.
#[test]
fn an_edit_through_a_path_updates_the_key_in_force() {
    let (saved, scene) = edit_saved(&woodcase("slot-override-keys"), r#"U("To000/Ins0A/Inj1", {height: 33})"#);
    assert_eq!(overrides_of(&saved, "To000"), &json!({"Inj1": {"fill": "#0000FF", "height": 33}}));
    let key = scene.node_by_id("To000/Ins0A/Inj1").unwrap();
    let json: Value = serde_json::from_str(&scene.node_to_json(key, 0)).unwrap();
    assert_eq!((json["fill"].as_str(), json["height"].as_f64()), (Some("#0000FF"), Some(33.0)));
    // Where nib's spelling is the key in force (written last), the edit goes there; the
    // earlier bare key stays as the file wrote it.
    let (saved, _) = edit_saved(&woodcase("slot-override-keys"), r#"U("To003/Ins0A/Inj1", {width: 5})"#);
    assert_eq!(
        overrides_of(&saved, "To003"),
        &json!({"Inj1": {"height": 10}, "Ins0A/Inj1": {"fill": "#00FF00", "width": 5}})
    );
    // And where nib's spelling comes first and Pen's bare key last, the bare key is the one
    // drawn, so the edit goes to it (it went to the hidden one).
    let text = woodcase("slot-override-keys").replacen(
        r##""Inj1": {
              "fill": "#0000FF"
            },
            "Ins0A/Inj1": {
              "fill": "#00FF00"
            }"##,
        r##""Ins0A/Inj1": {
              "fill": "#00FF00"
            },
            "Inj1": {
              "fill": "#0000FF"
            }"##,
        1,
    );
    assert_ne!(text, woodcase("slot-override-keys"), "the fixture holds To002's two keys as written here");
    let (saved, scene) = edit_saved(&text, r#"U("To002/Ins0A/Inj1", {height: 33})"#);
    assert_eq!(
        overrides_of(&saved, "To002"),
        &json!({"Ins0A/Inj1": {"fill": "#00FF00"}, "Inj1": {"fill": "#0000FF", "height": 33}})
    );
    let key = scene.node_by_id("To002/Ins0A/Inj1").unwrap();
    let json: Value = serde_json::from_str(&scene.node_to_json(key, 0)).unwrap();
    assert_eq!((json["fill"].as_str(), json["height"].as_f64()), (Some("#0000FF"), Some(33.0)));
}
