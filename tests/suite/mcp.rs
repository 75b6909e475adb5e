//! `nib mcp` as a client sees it: the real binary spawned over stdio and spoken to with rmcp's
//! own client, in both protocol eras (initialize, and server/discover).

use crate::common::mcp_client;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use mcp_client::{call, command, connect, connect_serving, connect_with, error_text, structured, text};
use rmcp::model::{ContentBlock, ProtocolVersion};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

const CORPUS_FILE: &str = "ChenNima__Gleaner__design.pen";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen").join(name)
}

/// The id batch_design's answer gives the binding `name`.
fn bound(answer: &Value, name: &str) -> String {
    let binding = answer["bindings"].as_array().and_then(|b| b.iter().find(|b| b["name"] == name));
    binding.and_then(|b| b["id"].as_str()).unwrap_or_else(|| panic!("no binding {name} in {answer}")).to_owned()
}

/// A folder holding a copy of a canonical corpus file, the server's root.
fn root_with_corpus_file() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::copy(fixture(CORPUS_FILE), root.path().join("design.pen")).unwrap();
    root
}

#[tokio::test]
async fn tools_are_listed_with_flat_schemas_and_annotations() {
    let root = root_with_corpus_file();
    let client = connect(root.path()).await;
    let info = client.peer_info().expect("server info");
    let server = info.server_info.clone().expect("server info");
    assert_eq!(server.name, "nib");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    assert!(info.instructions.as_deref().is_some_and(|i| i.contains("batch_design")));
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for pencil in [
        "get_editor_state",
        "open_document",
        "batch_get",
        "batch_design",
        "snapshot_layout",
        "get_screenshot",
        "get_variables",
        "set_variables",
        "replace_all_matching_properties",
        "search_all_unique_properties",
        "find_empty_space_on_canvas",
        "get_guidelines",
        "get_style_guide_tags",
        "get_style_guide",
        "undo",
        "redo",
        "export",
        "claim",
    ] {
        assert!(names.contains(&pencil), "{pencil} in {names:?}");
    }
    assert_eq!(tools.len(), 18, "Pencil's 14 tools, undo, redo, export and claim");
    assert!(tools.len() <= 20, "clients handle few tools well");
    let listed = serde_json::to_string(&serde_json::json!({ "tools": tools })).unwrap();
    eprintln!("tools/list: {} tools, {} bytes", tools.len(), listed.len());
    assert!(listed.len() <= 16 * 1024, "tools/list is {} bytes; keep it at most 16 KB", listed.len());
    for tool in &tools {
        let schema = serde_json::to_value(tool.input_schema.as_ref()).unwrap();
        assert_eq!(schema["type"], "object", "{}", tool.name);
        for combinator in ["oneOf", "anyOf", "allOf"] {
            assert!(schema.get(combinator).is_none(), "{} has {combinator}", tool.name);
        }
        let annotations = tool.annotations.as_ref().unwrap_or_else(|| panic!("{} has annotations", tool.name));
        assert!(annotations.read_only_hint.is_some() && annotations.destructive_hint.is_some());
        assert!(annotations.idempotent_hint.is_some() && annotations.open_world_hint.is_some());
        assert!(tool.description.as_ref().is_some_and(|d| d.len() > 40), "{} is described", tool.name);
    }
    let design = tools.iter().find(|t| t.name == "batch_design").unwrap();
    let description = design.description.as_deref().unwrap();
    for rule in ["25 operations", "Bindings", "fill", "fill_container"] {
        assert!(description.contains(rule), "batch_design says {rule}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_discover_era_serves_the_same_tools() {
    let root = root_with_corpus_file();
    let (transport, _) =
        TokioChildProcess::builder(command(root.path(), None)).stderr(Stdio::null()).spawn().expect("starts");
    let client = ()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
        )
        .await
        .expect("server/discover");
    let info = client.peer_info().expect("discovered");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "batch_design"));
    let opened = structured(&call(&client, "open_document", json!({ "filePathOrTemplate": "design.pen" })).await);
    assert!(opened["filePath"].as_str().unwrap().ends_with("design.pen"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_design_session_edits_saves_reads_lays_out_renders_and_undoes() {
    let root = root_with_corpus_file();
    let file = root.path().join("design.pen");
    let original = std::fs::read(&file).unwrap();
    let client = connect(root.path()).await;
    let opened = structured(&call(&client, "open_document", json!({ "filePathOrTemplate": "design.pen" })).await);
    assert_eq!(opened["created"], false);

    let script = "card=I(document, {type: \"frame\", name: \"MCP card\", x: 5000, y: 0, width: 320, layout: \"vertical\", padding: 24, gap: 8, fill: \"#FFFFFF\"})\n\
                  title=I(card, {type: \"text\", content: \"Hello from MCP\", fontSize: 20, fill: \"#111827\"})";
    let designed_result =
        call(&client, "batch_design", json!({ "filePath": "design.pen", "operations": script })).await;
    let designed = structured(&designed_result);
    let answer_text = text(&designed_result);
    assert!(answer_text.starts_with("# Successfully executed all operations."), "Pencil's answer text: {answer_text}");
    assert!(answer_text.contains("card"), "{answer_text}");
    let revision = designed["revision"].as_u64().expect("the revision");
    assert!(revision > 0);
    let card = designed["bindings"].as_array().unwrap().iter().find(|b| b["name"] == "card").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("Hello from MCP"), "saved before the answer");

    let read = structured(&call(&client, "batch_get", json!({ "nodeIds": [card] })).await);
    assert_eq!(read["nodes"][0]["name"], "MCP card");

    let layout = structured(&call(&client, "snapshot_layout", json!({ "parentId": card })).await);
    assert_eq!(layout["nodes"][0]["width"], 320);

    let shot = call(&client, "get_screenshot", json!({ "nodeId": card })).await;
    assert_ne!(shot.is_error, Some(true), "{}", text(&shot));
    assert_eq!(shot.content.len(), 1, "the image alone");
    let ContentBlock::Image(image) = &shot.content[0] else { panic!("an image: {:?}", shot.content[0]) };
    assert_eq!(image.mime_type, "image/png");
    let png = base64_decode(&image.data);
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let reader = decoder.read_info().expect("a PNG");
    assert_eq!(reader.info().width, 320);

    let undone = structured(&call(&client, "undo", json!({})).await);
    assert_eq!(undone["canRedo"], true);
    // The answer says what it took back (issue 29: it did not).
    let title = bound(&designed, "title");
    assert_eq!(undone["undid"], json!(format!("inserted 2 nodes ({card}, {title})")), "{undone}");
    assert_eq!(std::fs::read(&file).unwrap(), original, "undo restores the file byte for byte");
    let redone = structured(&call(&client, "redo", json!({ "filePath": "design.pen" })).await);
    assert_eq!(redone["canRedo"], false);
    assert_eq!(redone["redid"], undone["undid"]);
    assert!(std::fs::read_to_string(&file).unwrap().contains("Hello from MCP"));
    client.cancel().await.unwrap();
}

/// Issue 29, item 1: an agent that opens another document and comes back must still be able
/// to undo; only a file changed on disk starts the history over, and the answer says so.
#[tokio::test]
async fn reopening_an_open_document_keeps_its_undo_history() {
    let root = root_with_corpus_file();
    std::fs::copy(fixture(CORPUS_FILE), root.path().join("other.pen")).unwrap();
    let file = root.path().join("design.pen");
    let original = std::fs::read(&file).unwrap();
    let client = connect(root.path()).await;
    let open = |name: &str| json!({ "filePathOrTemplate": name });
    let insert = json!({ "filePath": "design.pen", "operations": "card=I(document, {type: \"frame\", name: \"Kept\", x: 9000, y: 0, width: 100, height: 100})" });

    structured(&call(&client, "open_document", open("design.pen")).await);
    structured(&call(&client, "batch_design", insert.clone()).await);
    structured(&call(&client, "open_document", open("other.pen")).await);
    let reopened = structured(&call(&client, "open_document", open("design.pen")).await);
    assert_eq!(reopened["created"], false);
    assert!(reopened.get("note").is_none(), "an unchanged document is kept as it is: {reopened}");
    let undone = structured(&call(&client, "undo", json!({})).await);
    assert_eq!(undone["canRedo"], true, "the edit made before switching documents is undone");
    assert_eq!(std::fs::read(&file).unwrap(), original, "undo restores the file byte for byte");

    // Changed by someone else while another document was current: read again, and said so.
    structured(&call(&client, "batch_design", insert).await);
    structured(&call(&client, "open_document", open("other.pen")).await);
    std::fs::write(&file, &original).unwrap();
    let reloaded = structured(&call(&client, "open_document", open("design.pen")).await);
    let note =
        reloaded["note"].as_str().unwrap_or_else(|| panic!("the answer says the file was read again: {reloaded}"));
    assert!(note.contains("changed on disk since your last call: 1 node removed, by another writer"), "{note}");
    assert!(
        note.contains("this answer shows the current document") && note.contains("undo does not go back"),
        "{note}"
    );
    let nothing = error_text(&call(&client, "undo", json!({})).await);
    assert!(
        nothing.contains("nothing to undo") && nothing.contains("never takes back someone else's change"),
        "{nothing}"
    );
    client.cancel().await.unwrap();
}

/// Issue 29, item 3: an instance read without resolveInstances shows the overrides its file
/// holds, so three cards from one component do not read as three bare copies of it.
#[tokio::test]
async fn batch_get_shows_the_overrides_of_an_instance() {
    let root = root_with_corpus_file();
    let client = connect(root.path()).await;
    let script = "card=I(document, {type: \"frame\", name: \"Card\", reusable: true, x: 9000, y: 0, width: 200, layout: \"vertical\"})\n\
                  label=I(card, {type: \"text\", content: \"Buy\"})\n\
                  pro=I(document, {type: \"ref\", ref: card, x: 9300, y: 0})\n\
                  U(pro+\"/\"+label, {content: \"Get started\"})";
    let designed =
        structured(&call(&client, "batch_design", json!({ "filePath": "design.pen", "operations": script })).await);
    let id = |name: &str| bound(&designed, name);
    let (pro, label) = (id("pro"), id("label"));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(root.path().join("design.pen")).unwrap()).unwrap();
    let held =
        saved["children"].as_array().unwrap().iter().find(|n| n["id"] == pro.as_str()).unwrap()["descendants"].clone();
    assert_eq!(held[&label]["content"], "Get started", "the file holds the override: {held}");

    let read = structured(&call(&client, "batch_get", json!({ "filePath": "design.pen", "nodeIds": [pro] })).await);
    let node = &read["nodes"][0];
    assert_eq!(node["type"], "ref");
    assert_eq!(node["descendants"], held, "batch_get answers what the file holds: {node}");
    let listed = structured(
        &call(
            &client,
            "batch_get",
            json!({ "filePath": "design.pen", "patterns": [{ "type": "ref" }], "searchDepth": 1 }),
        )
        .await,
    );
    let found = listed["nodes"].as_array().unwrap().iter().find(|n| n["id"] == pro.as_str()).expect("the instance");
    assert_eq!(found["descendants"], held, "found by a pattern, the same");
    client.cancel().await.unwrap();
}

/// Issue 29, item 2: an icon nib cannot draw, set through an instance override, is reported by
/// batch_design and snapshot_layout as it is on a plain node.
#[tokio::test]
async fn a_missing_icon_inside_an_instance_is_reported() {
    let root = root_with_corpus_file();
    let client = connect(root.path()).await;
    let script = "bar=I(document, {type: \"frame\", name: \"Bar\", reusable: true, x: 9000, y: 0, width: 200, height: 48, layout: \"horizontal\"})\n\
                  glyph=I(bar, {type: \"icon_font\", iconFontFamily: \"lucide\", iconFontName: \"house\", width: 24, height: 24})\n\
                  tab=I(document, {type: \"ref\", ref: bar, x: 9300, y: 0})";
    let designed_result =
        call(&client, "batch_design", json!({ "filePath": "design.pen", "operations": script })).await;
    let designed = structured(&designed_result);
    let issues = text(&designed_result);
    assert!(!issues.contains("was not found"), "a known icon is no issue: {issues}");
    let id = |name: &str| bound(&designed, name);
    let (tab, glyph) = (id("tab"), id("glyph"));
    let path = format!("{tab}/{glyph}");

    let overridden = call(
        &client,
        "batch_design",
        json!({ "filePath": "design.pen", "operations": format!("U(\"{path}\", {{iconFontName: \"no-such-glyph\"}})") }),
    )
    .await;
    structured(&overridden);
    // The issues are in Pencil's text, one per line.
    let issues: Vec<String> = text(&overridden).lines().map(str::to_owned).collect();
    assert!(
        issues
            .iter()
            .any(|i| i.contains(&path) && i.contains("Icon 'no-such-glyph' was not found in the 'lucide' icon set")),
        "batch_design names the icon and where it is: {issues:?}"
    );

    let layout = structured(
        &call(&client, "snapshot_layout", json!({ "filePath": "design.pen", "parentId": tab, "problemsOnly": true }))
            .await,
    );
    let missing: Vec<&Value> =
        layout["problems"].as_array().unwrap().iter().filter(|p| p["kind"] == "missing_icon").collect();
    assert_eq!(missing.len(), 1, "{layout}");
    assert_eq!(missing[0]["node"], path.as_str());
    assert!(missing[0]["message"].as_str().unwrap().contains("placeholder"), "{layout}");
    // The component itself draws its icon: nothing to report there.
    let component = structured(
        &call(
            &client,
            "snapshot_layout",
            json!({ "filePath": "design.pen", "parentId": id("bar"), "problemsOnly": true }),
        )
        .await,
    );
    assert!(!component.to_string().contains("missing_icon"), "{component}");
    client.cancel().await.unwrap();
}

/// Issue 29, item 4: in the call that made a copy, its children are reached by the ids they
/// have in the source, as children of an instance are.
#[tokio::test]
async fn children_of_a_copy_are_addressed_by_their_source_ids_in_the_same_call() {
    let root = root_with_corpus_file();
    let client = connect(root.path()).await;
    let made = structured(
        &call(
            &client,
            "batch_design",
            json!({ "filePath": "design.pen", "operations": "hdr=I(document, {type: \"frame\", name: \"Header\", x: 9000, y: 0, width: 300, height: 60})\ntitle=I(hdr, {type: \"text\", content: \"Home\"})" }),
        )
        .await,
    );
    let (header, title) = (bound(&made, "hdr"), bound(&made, "title"));
    let script = format!(
        "copy=C(\"{header}\", document, {{name: \"Header copy\"}})\nU(copy+\"/{title}\", {{content: \"Pricing\"}})"
    );
    let copied =
        structured(&call(&client, "batch_design", json!({ "filePath": "design.pen", "operations": script })).await);
    let copy = bound(&copied, "copy");
    let read = structured(
        &call(&client, "batch_get", json!({ "filePath": "design.pen", "nodeIds": [copy, header], "readDepth": 1 }))
            .await,
    );
    let nodes = read["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["children"][0]["content"], "Pricing", "the copy's child changed: {read}");
    assert_ne!(nodes[0]["children"][0]["id"], title.as_str(), "the copied child has an id of its own");
    assert_eq!(nodes[1]["children"][0]["content"], "Home", "the source's child did not: {read}");
    client.cancel().await.unwrap();
}

/// Issue 29, item 6: what the guidelines say nib draws comes from the font table, so an agent
/// reading any topic sees every bundled family.
#[tokio::test]
async fn the_guidelines_list_every_bundled_family() {
    let root = root_with_corpus_file();
    let client = connect(root.path()).await;
    let guide = call(&client, "get_guidelines", json!({ "topic": "landing-page" })).await;
    let text = text(&guide);
    assert!(!text.contains("{bundled-families}"), "the placeholder is filled in");
    let families: Vec<&str> = nib::text::FontBook::new(nib::text::FontOptions::default()).text_families().collect();
    assert!(families.len() >= 50, "{families:?}");
    for family in ["Inter", "Poppins", "Space Mono", "Noto Sans", "JetBrains Mono"] {
        assert!(families.contains(&family), "{family} is bundled");
    }
    for family in &families {
        assert!(text.contains(family), "the guidelines name {family}");
    }
    client.cancel().await.unwrap();
}

/// Issue 29, item 8: a scrolling feed the designer clipped is no problem, so `problemsOnly`
/// can be clean; a child placed by hand where the clip hides it entirely still is one.
#[tokio::test]
async fn an_intended_clip_is_not_a_problem() {
    let root = root_with_corpus_file();
    let client = connect(root.path()).await;
    let script = "feed=I(document, {type: \"frame\", name: \"Feed\", x: 9000, y: 0, width: 300, height: 250, clip: true, layout: \"vertical\", gap: 10})\n\
                  a=I(feed, {type: \"rectangle\", width: \"fill_container\", height: 100, fill: \"#DDDDDD\"})\n\
                  b=I(feed, {type: \"rectangle\", width: \"fill_container\", height: 100, fill: \"#CCCCCC\"})\n\
                  c=I(feed, {type: \"rectangle\", width: \"fill_container\", height: 100, fill: \"#BBBBBB\"})\n\
                  d=I(feed, {type: \"rectangle\", width: \"fill_container\", height: 100, fill: \"#AAAAAA\"})\n\
                  card=I(document, {type: \"frame\", name: \"Card\", x: 9400, y: 0, width: 100, height: 100, clip: true, layout: \"none\"})\n\
                  lost=I(card, {type: \"rectangle\", x: 0, y: 150, width: 20, height: 20, fill: \"#000000\"})";
    let designed =
        structured(&call(&client, "batch_design", json!({ "filePath": "design.pen", "operations": script })).await);
    let id = |name: &str| bound(&designed, name);
    let feed = structured(
        &call(
            &client,
            "snapshot_layout",
            json!({ "filePath": "design.pen", "parentId": id("feed"), "problemsOnly": true }),
        )
        .await,
    );
    assert_eq!(feed["problems"], json!([]), "content scrolling past a clip is intended: {feed}");
    let card = structured(
        &call(
            &client,
            "snapshot_layout",
            json!({ "filePath": "design.pen", "parentId": id("card"), "problemsOnly": true }),
        )
        .await,
    );
    let problems = card["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["kind"] == "clipped" && p["node"] == id("lost").as_str()),
        "a child the clip hides entirely is reported: {card}"
    );
    client.cancel().await.unwrap();
}

/// Issue 29, item 9: offline, G() draws the colours its prompt names, says so, and leaves a
/// placeholder snapshot_layout points at until a real image replaces it.
#[tokio::test]
async fn an_offline_image_follows_its_prompt_and_stays_findable() {
    let root = root_with_corpus_file();
    let client = connect(root.path()).await;
    let script = "hero=I(document, {type: \"rectangle\", name: \"Hero\", x: 9000, y: 0, width: 320, height: 200})\n\
                  G(hero, \"ai\", \"abstract hero background in indigo and white\")";
    let designed_result =
        call(&client, "batch_design", json!({ "filePath": "design.pen", "operations": script })).await;
    let designed = structured(&designed_result);
    let answer = text(&designed_result);
    assert!(answer.contains("indigo, white"), "the answer says which colours were drawn: {answer}");
    let hero = bound(&designed, "hero");
    let images: Vec<PathBuf> =
        std::fs::read_dir(root.path().join("images")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(images.len(), 1, "{images:?}");
    let name = images[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("placeholder-") && name.ends_with(".png"), "{name}");
    let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(&images[0]).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    let channels = frame.color_type.samples();
    let mut sum = [0u64; 3];
    for pixel in pixels[..frame.buffer_size()].chunks(channels) {
        (0..3).for_each(|i| sum[i] += u64::from(pixel[i]));
    }
    let [r, _, b] = sum;
    assert!(b > r + r / 10, "indigo and white draw blue-violet, not red-orange: {sum:?}");

    let layout = structured(
        &call(&client, "snapshot_layout", json!({ "filePath": "design.pen", "parentId": hero, "problemsOnly": true }))
            .await,
    );
    let problems = layout["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["kind"] == "placeholder" && p["node"] == hero.as_str()),
        "the placeholder is listed until it is replaced: {layout}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn errors_say_what_to_do() {
    let root = root_with_corpus_file();
    let outside = tempfile::tempdir().unwrap();
    std::fs::copy(fixture(CORPUS_FILE), outside.path().join("secret.pen")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.pen"), root.path().join("link.pen")).unwrap();
    let client = connect(root.path()).await;

    let failed = call(
        &client,
        "batch_design",
        json!({ "filePath": "design.pen", "operations": "x=I(document, {type: \"frame\", width: \"wide\"})" }),
    )
    .await;
    let message = error_text(&failed);
    assert!(message.contains("width"), "{message}");
    let details = failed.structured_content.expect("the outcome as data");
    assert_eq!(details["data"]["success"], false);
    assert_eq!(std::fs::read(root.path().join("design.pen")).unwrap(), std::fs::read(fixture(CORPUS_FILE)).unwrap());

    for escape in ["../secret.pen", outside.path().join("secret.pen").to_str().unwrap(), "link.pen", "sub/../../x.pen"]
    {
        let refused = call(&client, "open_document", json!({ "filePathOrTemplate": escape })).await;
        let message = error_text(&refused);
        assert!(message.contains("outside the folder"), "{escape}: {message}");
        assert!(message.contains("Hint:"), "{message}");
    }
    let unknown = call(&client, "batch_gett", json!({})).await;
    assert!(error_text(&unknown).contains("did you mean batch_get"), "{}", text(&unknown));
    let missing = call(&client, "batch_get", json!({ "filePath": "design.pen", "nodeIds": ["nope"] })).await;
    assert!(!text(&missing).is_empty());
    let bad_arguments = call(&client, "snapshot_layout", json!({ "filePath": "design.pen", "maxDepth": "deep" })).await;
    assert!(error_text(&bad_arguments).contains("invalid arguments"), "{}", text(&bad_arguments));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_and_the_server_goes_on() {
    let root = root_with_corpus_file();
    let client = connect_with(root.path(), Some("get_variables")).await;
    structured(&call(&client, "open_document", json!({ "filePathOrTemplate": "design.pen" })).await);
    let panicked = call(&client, "get_variables", json!({})).await;
    let message = error_text(&panicked);
    assert!(message.contains("get_variables failed inside nib"), "{message}");
    let state = structured(&call(&client, "get_editor_state", json!({})).await);
    assert!(state["currentDocument"].as_str().unwrap().ends_with("design.pen"), "{state}");
    let layout = structured(&call(&client, "snapshot_layout", json!({ "problemsOnly": true })).await);
    assert!(layout.is_object());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn concurrent_edits_of_one_document_never_interleave() {
    let root = tempfile::tempdir().unwrap();
    let client = connect(root.path()).await;
    structured(&call(&client, "open_document", json!({ "filePathOrTemplate": "board.pen" })).await);
    let created = structured(
        &call(
            &client,
            "batch_design",
            json!({ "operations": "board=I(document, {type: \"frame\", width: 800, height: 600, layout: \"vertical\"})" }),
        )
        .await,
    );
    let board = created["bindings"][0]["id"].as_str().unwrap().to_owned();
    let calls = (0..8).map(|i| {
        let script = format!(
            "row=I(\"{board}\", {{type: \"frame\", name: \"row {i}\", layout: \"horizontal\"}})\n\
             I(row, {{type: \"text\", content: \"first {i}\", fill: \"#000000\"}})\n\
             I(row, {{type: \"text\", content: \"second {i}\", fill: \"#000000\"}})"
        );
        call(&client, "batch_design", json!({ "filePath": "board.pen", "operations": script }))
    });
    let answers = futures_join(calls).await;
    let mut revisions: Vec<u64> = answers.iter().map(|a| structured(a)["revision"].as_u64().unwrap()).collect();
    revisions.sort_unstable();
    revisions.dedup();
    assert_eq!(revisions.len(), 8, "every call is its own transaction");
    let board = structured(&call(&client, "batch_get", json!({ "nodeIds": [board], "readDepth": 2 })).await);
    let rows = board["nodes"][0]["children"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    for row in rows {
        let number = row["name"].as_str().unwrap().trim_start_matches("row ");
        let texts: Vec<&str> =
            row["children"].as_array().unwrap().iter().map(|t| t["content"].as_str().unwrap()).collect();
        assert_eq!(texts, [format!("first {number}"), format!("second {number}")], "a row's children stay together");
    }
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(root.path().join("board.pen")).unwrap()).unwrap();
    assert_eq!(on_disk["children"][0]["children"].as_array().unwrap().len(), 8, "all saved");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn large_answers_are_bounded_with_a_note() {
    let root = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("LIU9293__cirrus__design.pen"), root.path().join("big.pen")).unwrap();
    let client = connect(root.path()).await;
    let everything = call(&client, "batch_get", json!({ "filePath": "big.pen", "readDepth": 50 })).await;
    let answer = structured(&everything);
    assert!(text(&everything).len() <= nib::mcp::MAX_ANSWER_CHARS + 1_000, "{}", text(&everything).len());
    assert!(answer["note"].as_str().is_some_and(|n| n.contains("Ask for less")), "{}", answer["note"]);
    client.cancel().await.unwrap();
}

/// Runs the futures at once on this task (the calls are in flight together).
async fn futures_join<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let handles: Vec<_> = futures.map(Box::pin).collect();
    let mut outputs = Vec::new();
    let mut pending: Vec<_> = handles.into_iter().map(Some).collect();
    let mut done: Vec<Option<F::Output>> = (0..pending.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut all = true;
        for (slot, future) in pending.iter_mut().enumerate() {
            if let Some(f) = future {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(output) => {
                        done[slot] = Some(output);
                        *future = None;
                    }
                    std::task::Poll::Pending => all = false,
                }
            }
        }
        if all { std::task::Poll::Ready(()) } else { std::task::Poll::Pending }
    })
    .await;
    outputs.extend(done.into_iter().map(|o| o.expect("finished")));
    outputs
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).expect("base64")
}

/// The issue's reproduction: get_screenshot of an instance bomb killed the server. Every tool
/// that needs the expanded document answers an error naming the chain; batch_design can still
/// take the bomb apart, and the server goes on serving this and other documents.
#[tokio::test]
async fn an_instance_bomb_is_an_error_answer_and_the_server_goes_on() {
    let root = root_with_corpus_file();
    let bomb = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile/instance-bomb.pen");
    std::fs::copy(bomb, root.path().join("bomb.pen")).unwrap();
    let client = connect(root.path()).await;
    structured(&call(&client, "open_document", json!({ "filePathOrTemplate": "bomb.pen" })).await);
    let refusals = [
        ("get_screenshot", json!({ "filePath": "bomb.pen" })),
        ("snapshot_layout", json!({ "filePath": "bomb.pen", "problemsOnly": true })),
        ("batch_get", json!({ "filePath": "bomb.pen", "resolveInstances": true })),
        (
            "find_empty_space_on_canvas",
            json!({ "filePath": "bomb.pen", "direction": "right", "width": 10, "height": 10 }),
        ),
        (
            "search_all_unique_properties",
            json!({ "filePath": "bomb.pen", "parents": ["A0"], "properties": ["fillColor"] }),
        ),
    ];
    for (tool, arguments) in refusals {
        let refused = call(&client, tool, arguments).await;
        let message = error_text(&refused);
        assert!(
            message.contains("the instances in 'c0_0' (at /children/0/children/0) expand to more than 200000 nodes"),
            "{tool}: {message}"
        );
        assert!(
            message.contains("c0_0 → A1 › c1_0 → A2") && message.contains("flatten it or split it"),
            "{tool}: {message}"
        );
        let details = refused.structured_content.expect("the details as data");
        assert_eq!(details["data"]["overBudget"]["pointer"], "/children/0/children/0", "{tool}");
    }
    // batch_design still works: a new top-level node is placed by the document's numbers, and
    // taking the instances out of A2 ends the bomb.
    let placed = call(
        &client,
        "batch_design",
        json!({ "filePath": "bomb.pen", "operations": "note=I(document, {type: \"frame\", width: 10, height: 10})" }),
    )
    .await;
    structured(&placed);
    let deletions: Vec<String> = (0..10).map(|j| format!("D(\"c2_{j}\")")).collect();
    structured(
        &call(&client, "batch_design", json!({ "filePath": "bomb.pen", "operations": deletions.join("\n") })).await,
    );
    let shot = call(&client, "get_screenshot", json!({ "filePath": "bomb.pen" })).await;
    assert_ne!(shot.is_error, Some(true), "{}", text(&shot));
    // Another document is served as before.
    let layout =
        structured(&call(&client, "snapshot_layout", json!({ "filePath": "design.pen", "problemsOnly": true })).await);
    assert!(layout["text"].is_string(), "{layout}");
    client.cancel().await.unwrap();
}

/// A chain of `count` components, each holding an instance of the next.
fn chain_of_components(count: usize) -> String {
    let components: Vec<Value> = (0..count)
        .map(|k| {
            let child = if k + 1 < count {
                json!({ "type": "ref", "id": format!("c{k}"), "ref": format!("A{}", k + 1) })
            } else {
                json!({ "type": "rectangle", "id": "leaf", "width": 1, "height": 1 })
            };
            json!({ "type": "frame", "id": format!("A{k}"), "reusable": true, "x": k * 20, "width": 10, "height": 10,
                "layout": "none", "children": [child] })
        })
        .collect();
    json!({ "version": "2.8", "children": components }).to_string()
}

/// Other documents that used to take the server down: chains of components nesting instances
/// hundreds and thousands deep (the stack overflowed), and a long path copied into more
/// instances than the byte budget allows. Each is answered, and the server goes on.
#[tokio::test]
async fn deep_chains_and_copied_values_are_answered_and_the_server_goes_on() {
    let root = root_with_corpus_file();
    std::fs::write(root.path().join("chain.pen"), chain_of_components(300)).unwrap();
    std::fs::write(root.path().join("long-chain.pen"), chain_of_components(3000)).unwrap();
    let geometry = format!("M0 0 {}Z", "L1 1 ".repeat(12_000));
    let mut copies = vec![json!({ "type": "frame", "id": "Icon", "reusable": true,
        "children": [{ "type": "path", "id": "p", "geometry": geometry }] })];
    copies.extend((0..1200).map(|i| json!({ "type": "ref", "id": format!("i{i}"), "ref": "Icon", "x": i * 20 })));
    std::fs::write(root.path().join("copies.pen"), json!({ "version": "2.8", "children": copies }).to_string())
        .unwrap();
    let client = connect(root.path()).await;

    let problems =
        structured(&call(&client, "snapshot_layout", json!({ "filePath": "chain.pen", "problemsOnly": true })).await);
    assert!(problems["text"].as_str().unwrap().contains("nest deeper than 128 levels"), "{problems}");
    let shot = call(&client, "get_screenshot", json!({ "filePath": "chain.pen", "nodeId": "A0" })).await;
    assert_ne!(shot.is_error, Some(true), "{}", text(&shot));

    let refused = call(&client, "get_screenshot", json!({ "filePath": "long-chain.pen" })).await;
    assert!(error_text(&refused).contains("the instances in 'c"), "{}", text(&refused));

    let refused = call(&client, "get_screenshot", json!({ "filePath": "copies.pen" })).await;
    let message = error_text(&refused);
    assert!(
        message.contains("copy more than 64 MiB of property values") && message.contains("i1116 → Icon"),
        "{message}"
    );

    let layout =
        structured(&call(&client, "snapshot_layout", json!({ "filePath": "design.pen", "problemsOnly": true })).await);
    assert!(layout["text"].is_string(), "{layout}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn pictures_take_a_theme_without_copying_the_screen() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("themed.pen"),
        r##"{"version": "2.10", "themes": {"Mode": ["Light", "Dark"]},
  "variables": {"--bg": {"type": "color", "value": [{"value": "#FFFFFF", "theme": {"Mode": "Light"}}, {"value": "#111111", "theme": {"Mode": "Dark"}}]}},
  "children": [{"type": "frame", "id": "screen", "x": 0, "y": 0, "width": 40, "height": 30, "fill": "$--bg"}]}"##,
    )
    .unwrap();
    let before = std::fs::read(root.path().join("themed.pen")).unwrap();
    let client = connect(root.path()).await;
    let image = |result: &rmcp::model::CallToolResult| {
        result.content.iter().find_map(|block| match block {
            ContentBlock::Image(image) => Some(image.data.clone()),
            _ => None,
        })
    };
    let shot = |theme: Value| {
        let client = &client;
        async move {
            let mut arguments = json!({ "filePath": "themed.pen", "nodeId": "screen" });
            if !theme.is_null() {
                arguments["theme"] = theme;
            }
            call(client, "get_screenshot", arguments).await
        }
    };
    let light = image(&shot(Value::Null).await).expect("a picture");
    let dark = image(&shot(json!({ "Mode": "Dark" })).await).expect("a dark picture");
    let light_again = image(&shot(json!({ "Mode": "Light" })).await).expect("a light picture");
    assert_ne!(light, dark, "the theme changes the picture");
    assert_eq!(light, light_again, "the document's first value is Light");
    let pixel = |data: &str| {
        let png = base64_decode(data);
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut buffer).unwrap();
        buffer[..3].to_vec()
    };
    assert_eq!(pixel(&dark), vec![0x11, 0x11, 0x11]);
    let wrong =
        call(&client, "get_screenshot", json!({ "filePath": "themed.pen", "theme": { "Colour": "Dark" } })).await;
    let said = error_text(&wrong);
    assert!(said.contains("no theme axis 'Colour'") && said.contains("Mode: Light, Dark"), "{said}");

    let exported = structured(
        &call(
            &client,
            "export",
            json!({ "filePath": "themed.pen", "format": "png", "nodeIds": ["screen"], "theme": { "Mode": "Dark" }, "outputPath": "dark.png" }),
        )
        .await,
    );
    assert_eq!(exported["files"][0]["path"], "dark.png");
    let written = std::fs::read(root.path().join("dark.png")).unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(written)).read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut buffer).unwrap();
    assert_eq!(buffer[..3], [0x11, 0x11, 0x11]);
    assert_eq!(std::fs::read(root.path().join("themed.pen")).unwrap(), before, "the document is not touched");

    let guide = call(&client, "get_guidelines", json!({ "topic": "mobile-app" })).await;
    assert!(text(&guide).contains("theme: {\"Mode\": \"Dark\"}}"), "the guidelines suggest themed pictures");
    client.cancel().await.unwrap();
}

/// Issue 29: a section's screenshot showed it on nothing (white in a viewer) instead of on its
/// page's background.
#[tokio::test]
async fn a_section_is_pictured_on_its_pages_background() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("page.pen"),
        r##"{"version": "2.10", "children": [{"type": "frame", "id": "page", "x": 0, "y": 0, "width": 200, "height": 200,
  "fill": "#0F172A", "layout": "vertical", "padding": 20,
  "children": [{"type": "frame", "id": "section", "width": 100, "height": 60, "padding": 8,
    "children": [{"type": "rectangle", "id": "dot", "width": 10, "height": 10, "fill": "#F8FAFC"}]}]}]}"##,
    )
    .unwrap();
    let client = connect(root.path()).await;
    let shot = call(&client, "get_screenshot", json!({ "filePath": "page.pen", "nodeId": "section" })).await;
    let ContentBlock::Image(image) = &shot.content[0] else { panic!("an image: {}", text(&shot)) };
    let mut reader = png::Decoder::new(std::io::Cursor::new(base64_decode(&image.data))).read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buffer).unwrap();
    let channels = frame.color_type.samples();
    let corner = &buffer[buffer.len() - channels..];
    assert_eq!(&corner[..3], &[0x0F, 0x17, 0x2A], "the page's background behind the section");
    if channels == 4 {
        assert_eq!(corner[3], 255);
    }
    client.cancel().await.unwrap();
}

/// What a write found reaches the client with its severity, code and node as the stages said
/// it, not flattened to text: batch_design's last line lists them in the order of Pen's text
/// (its sections unchanged), execute's JSON carries each diagnostic whole.
#[tokio::test]
async fn a_writes_diagnostics_reach_the_client_with_severity_code_and_node() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("d.pen"),
        r##"{"version": "2.20", "children": [
  {"type": "frame", "id": "page", "x": 0, "y": 0, "width": 400, "height": 300, "layout": "vertical", "children": [
    {"type": "frame", "id": "row", "layout": "horizontal", "children": [
      {"type": "text", "id": "t1", "content": "Hi", "fill": "#000000"}]}]}]}"##,
    )
    .unwrap();
    // Both surfaces: batch_design (the classic tools) and execute (the current ones).
    let client = connect_serving(root.path(), "all").await;
    structured(&call(&client, "open_document", json!({ "filePathOrTemplate": "d.pen" })).await);
    // A text without a fill (batch_design's own check, in Pen's words), and two layout problems
    // the call made: the row now hugs a child that fills it, and a rectangle is wider than its
    // page.
    let script = "label=I(\"page\", {type: \"text\", content: \"A\"})\n\
                  U(\"t1\", {width: \"fill_container\", textGrowth: \"fixed-width\"})\n\
                  wide=I(\"page\", {type: \"rectangle\", width: 600, height: 10, fill: \"#000000\"})";
    let designed = call(&client, "batch_design", json!({ "filePath": "d.pen", "operations": script })).await;
    let answer = text(&designed);
    assert!(answer.contains("## Potential issues detected:\n- Text node '"), "{answer}");
    assert!(answer.contains("## New layout problems:\n"), "{answer}");
    let facts = structured(&designed);
    let id =
        |name: &str| facts["bindings"].as_array().unwrap().iter().find(|b| b["name"] == name).unwrap()["id"].clone();
    let issues = facts["issues"].as_array().expect("the issues' facts").clone();
    let expected =
        [("text-without-fill", id("label")), ("layout-circular-sizing", json!("row")), ("layout-overflow", id("wide"))];
    for (code, node) in &expected {
        assert!(
            issues.iter().any(|i| i["severity"] == "warning" && i["code"] == *code && i["node"] == *node),
            "{code} on {node}: {issues:?}\n{answer}"
        );
    }
    // One for each issue line, in the order the text says them: Pen's section, then the layout
    // problems.
    assert_eq!(issues[0]["code"], "text-without-fill", "{issues:?}");
    let lines =
        answer.lines().filter(|l| l.starts_with("- ") && !l.starts_with("- Inserted") && !l.starts_with("- Updated"));
    assert_eq!(issues.len(), lines.count(), "{issues:?}\n{answer}");

    // execute answers JSON: each diagnostic whole, message and all.
    let label = id("label");
    let snippet = format!("Update(\"{}\", {{fill: \"$--nope\"}});", label.as_str().unwrap());
    let executed = structured(&call(&client, "execute", json!({ "filePath": "d.pen", "input": snippet })).await);
    let undefined = executed["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["code"] == "undefined-variable")
        .unwrap_or_else(|| panic!("{executed}"));
    assert_eq!(undefined["severity"], "warning");
    assert_eq!(undefined["node"], label);
    assert!(undefined["message"].as_str().unwrap().starts_with("Variable '$--nope' on node"), "{undefined}");
    client.cancel().await.unwrap();
}
