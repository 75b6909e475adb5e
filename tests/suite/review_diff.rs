//! `nib diff` on a real document's history: the two versions of Achelous1/smalti's design file in
//! the fixtures (2.11 at commit 93099a4, and the later 2.13 file), the library's diff checked
//! against changes read out of both files by hand, and the command's reports, pictures and exit
//! codes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use nib::doc::Document;
use nib::review::diff::{ChangeKind, NodeChangeKind, PropertyChange, diff};

const OLD: &str = "Achelous1__smalti__docs__design__design@93099a4_v2.11.pen";
const NEW: &str = "Achelous1__smalti__docs__design__design.pen";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen").join(name)
}

fn load(name: &str) -> Document {
    nib::doc::io::read_file(&fixture(name)).unwrap().document
}

fn nib(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nib")).env("NIB_IMAGES", "offline").args(args).output().expect("nib runs")
}

fn change(key: &str, old: Option<&str>, new: Option<&str>) -> PropertyChange {
    PropertyChange { key: key.into(), old: old.map(str::to_owned), new: new.map(str::to_owned) }
}

/// Read by hand from the two files (python's json module): the version went from 2.11 to 2.13,
/// four frames were appended at the top level, and 361 nodes changed only the spelling of their
/// strokes (328) and icons (33); variables and themes are the same.
#[test]
fn the_real_pair_lists_the_version_the_four_new_frames_and_nothing_else() {
    let result = diff(&load(OLD), &load(NEW));
    assert_eq!(result.document, [change("version", Some("\"2.11\""), Some("\"2.13\""))]);
    let added: Vec<(&str, &str, usize, Option<&str>, usize)> = result
        .nodes
        .iter()
        .map(|n| {
            assert_eq!(n.kind, NodeChangeKind::Added, "{n:?}");
            (n.node.id.as_str(), n.node.node_type.as_str(), n.nodes, n.node.name.as_deref(), n.at.index)
        })
        .collect();
    assert_eq!(
        added,
        [
            ("iPz7H", "frame", 130, Some("smalti — Command Palette (Hybrid)"), 38),
            ("RBXhj", "frame", 103, Some("smalti — Preset Manager (Hybrid)"), 39),
            ("e94iKi", "frame", 95, Some("smalti — Preset Edit (Hybrid)"), 40),
            ("b0EBR", "frame", 130, Some("smalti — Command Palette (Hybrid · Light)"), 41),
        ]
    );
    assert!(result.nodes.iter().all(|n| n.at.parent.is_none()));
    // TitleBar's {align: inside, thickness: {bottom: 1}, fill} and the icon_font darkWs are
    // respelled, not changed.
    assert_eq!(result.respelled.len(), 361);
    assert!(result.respelled.iter().any(|id| id == "2uMDs") && result.respelled.iter().any(|id| id == "nyMCP"));
    assert!(result.variables.is_empty() && result.themes.is_empty() && result.components.is_empty());
    let frames: Vec<(&str, ChangeKind, bool, bool)> =
        result.frames.iter().map(|f| (f.frame.id.as_str(), f.kind, f.in_old, f.in_new)).collect();
    assert_eq!(
        frames,
        [
            ("iPz7H", ChangeKind::Added, false, true),
            ("RBXhj", ChangeKind::Added, false, true),
            ("e94iKi", ChangeKind::Added, false, true),
            ("b0EBR", ChangeKind::Added, false, true),
        ]
    );
}

/// The newer file with edits made through the library, each of a kind the real pair lacks.
fn edited() -> Document {
    let text = fs::read_to_string(fixture(NEW)).unwrap();
    let text = text.replacen(
        "\"name\": \"TitleBar\",\n          \"width\": \"fill_container\",\n          \"height\": 40,",
        "\"name\": \"TitleBar\",\n          \"width\": \"fill_container\",\n          \"height\": 56,",
        1,
    );
    let mut document = Document::load(&text).unwrap().document;
    let title = document.node_by_id("ayVUV").unwrap();
    let idle = document.node_by_id("TCeqP").unwrap();
    let rise = document.node_by_id("ye43j").unwrap();
    let mut tx = document.transaction();
    tx.remove(title);
    tx.move_node(idle, Some(rise), 0).unwrap();
    tx.commit();
    document
}

#[test]
fn edits_on_the_real_file_read_as_changed_removed_and_moved_nodes_of_their_frame() {
    let result = diff(&load(NEW), &edited());
    let shown: Vec<String> = result
        .nodes
        .iter()
        .map(|n| {
            let moved = n.moved_from.as_ref().map(|from| format!(" from #{}", from.index)).unwrap_or_default();
            format!("{:?} {}{moved} {:?}", n.kind, n.node, n.properties)
        })
        .collect();
    assert_eq!(
        shown,
        [
            format!("Changed frame 'TitleBar' (2uMDs) {:?}", [change("height", Some("40"), Some("56"))]),
            "Changed ellipse 'StatusIdle' (TCeqP) from #1 []".to_owned(),
            "Removed text 'titleText' (ayVUV) []".to_owned(),
        ]
    );
    assert_eq!(result.frames.len(), 1);
    assert_eq!((result.frames[0].frame.id.as_str(), result.frames[0].changes), ("PEZED", 3));
}

#[test]
fn a_changed_variable_is_listed_per_theme_with_every_frame_that_uses_it() {
    let text = fs::read_to_string(fixture(NEW)).unwrap();
    let at = text.find("\"--accent\": {").unwrap();
    let mut edited = text.clone();
    edited.replace_range(at..at + 200, &text[at..at + 200].replacen("#10B981", "#FF0000", 1));
    let result = diff(&Document::load(&text).unwrap().document, &Document::load(&edited).unwrap().document);
    assert_eq!(result.variables.len(), 1);
    assert_eq!(result.variables[0].name, "--accent");
    assert_eq!(result.variables[0].values, [change("mode=dark", Some("\"#10B981\""), Some("\"#FF0000\""))]);
    assert!(result.nodes.is_empty());
    // The top-level frames that mention "$--accent" anywhere, found with python.
    let frames: Vec<&str> = result.frames.iter().map(|f| f.frame.id.as_str()).collect();
    assert_eq!(
        frames,
        [
            "PEZED", "5t0ix", "ErC6W", "ZbNIR", "mmWQ4", "AttXY", "2HJ7z", "m4oT1", "Zsw52", "DWA6o", "fsbt4", "6oncG",
            "TP9X5", "8v3pa", "Mhbpt", "RQVT1", "0xQBJ"
        ]
    );
    assert!(result.frames.iter().all(|f| f.variables == ["--accent"] && f.changes == 0));
}

fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

#[test]
fn the_command_writes_old_new_and_difference_pictures_of_a_changed_frame() {
    let folder = tempfile::tempdir().unwrap();
    let edited_path = folder.path().join("edited.pen");
    fs::write(&edited_path, edited().to_pen_string()).unwrap();
    let pictures = folder.path().join("pictures");
    let new = fixture(NEW);
    let output = nib(&["diff", new.to_str().unwrap(), edited_path.to_str().unwrap(), "-o", pictures.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("~ frame 'TitleBar' (2uMDs)\n      height 40 → 56\n"), "{text}");
    let (old_width, old_height, old_pixels) = decode(&pictures.join("01-AIDE-Dark-Theme.old.png"));
    let (new_width, new_height, new_pixels) = decode(&pictures.join("01-AIDE-Dark-Theme.new.png"));
    let (diff_width, diff_height, _) = decode(&pictures.join("01-AIDE-Dark-Theme.diff.png"));
    assert_eq!((old_width, old_height), (1440, 900));
    assert_eq!((new_width, new_height, diff_width, diff_height), (1440, 900, 1440, 900));
    // The title bar grew from 40 to 56 pixels: the row at y = 45 was body, now is title bar.
    let row = |pixels: &[u8], y: usize| pixels[y * 1440 * 4..(y + 1) * 1440 * 4].to_vec();
    assert_ne!(row(&old_pixels, 45), row(&new_pixels, 45));
    assert_eq!(row(&old_pixels, 899), row(&new_pixels, 899), "the status bar at the bottom stays");
}

#[test]
fn the_real_pair_writes_pictures_of_the_new_frames_only() {
    let folder = tempfile::tempdir().unwrap();
    let (old, new) = (fixture(OLD), fixture(NEW));
    let output = nib(&["diff", old.to_str().unwrap(), new.to_str().unwrap(), "-o", folder.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let mut files: Vec<String> =
        fs::read_dir(folder.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "01-smalti-Command-Palette-Hybrid.new.png",
            "02-smalti-Preset-Manager-Hybrid.new.png",
            "03-smalti-Preset-Edit-Hybrid.new.png",
            "04-smalti-Command-Palette-Hybrid-Light.new.png"
        ]
    );
    assert_eq!(decode(&folder.path().join(&files[0])).0, 1440);
}

#[test]
fn markdown_links_the_pictures_html_is_balanced_and_json_matches_the_library() {
    let folder = tempfile::tempdir().unwrap();
    let edited_path = folder.path().join("edited.pen");
    fs::write(&edited_path, edited().to_pen_string()).unwrap();
    let new = fixture(NEW);
    let out = folder.path().join("report");
    let run = |format: &str| {
        let output = nib(&[
            "diff",
            new.to_str().unwrap(),
            edited_path.to_str().unwrap(),
            "--format",
            format,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let markdown = run("markdown");
    assert!(markdown.contains("| ![old](01-AIDE-Dark-Theme.old.png) | ![new](01-AIDE-Dark-Theme.new.png) | ![difference](01-AIDE-Dark-Theme.diff.png) |"), "{markdown}");
    assert!(markdown.contains("  - height 40 → 56"), "{markdown}");
    assert_eq!(fs::read_to_string(out.join("diff.md")).unwrap(), markdown);

    let printed = run("html");
    assert_eq!(printed.trim(), out.join("index.html").display().to_string());
    let page = fs::read_to_string(out.join("index.html")).unwrap();
    assert_balanced(&page);
    for file in ["01-AIDE-Dark-Theme.old.png", "01-AIDE-Dark-Theme.new.png", "01-AIDE-Dark-Theme.diff.png"] {
        assert!(page.contains(&format!("<img src=\"{file}\"")), "{file}");
    }
    assert!(
        !page.contains("http://") && !page.contains("https://") && !page.contains("<script"),
        "no external resources"
    );

    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let result = diff(&load(NEW), &edited());
    assert_eq!(json["schema"], "nib.diff/1");
    assert_eq!(json["summary"]["changed"], result.summary().changed);
    assert_eq!(json["summary"]["removed"], 1);
    let ids: Vec<&str> = json["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    assert_eq!(ids, result.nodes.iter().map(|n| n.node.id.as_str()).collect::<Vec<_>>());
    assert_eq!(json["nodes"][0]["properties"][0], serde_json::json!({"key": "height", "old": 40, "new": 56}));
    assert_eq!(json["nodes"][1]["movedFrom"], serde_json::json!({"parent": "ye43j", "index": 1, "frame": "PEZED"}));
    assert_eq!(json["frames"][0]["images"]["old"], "01-AIDE-Dark-Theme.old.png");
}

/// Every element opened is closed in order (void elements aside).
fn assert_balanced(page: &str) {
    const VOID: &[&str] = &["meta", "img", "br", "hr", "link", "input"];
    let mut open: Vec<String> = Vec::new();
    let mut rest = page;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("tag ends") + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        let name: String = tag.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        if VOID.contains(&name.as_str()) {
            continue;
        }
        if tag.starts_with('/') {
            assert_eq!(open.pop().as_deref(), Some(name.as_str()), "closing </{name}>");
        } else {
            open.push(name);
        }
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
}

#[test]
fn exit_codes_are_0_for_the_same_1_for_different_and_2_for_a_missing_file() {
    let new = fixture(NEW);
    let same = nib(&["diff", new.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).ends_with(": no changes\n"));
    let old = fixture(OLD);
    assert_eq!(nib(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]).status.code(), Some(1));
    let missing = nib(&["diff", "/nonexistent/nothing.pen", new.to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    let message = String::from_utf8_lossy(&missing.stderr);
    assert!(message.starts_with("nib: ") && message.contains("nothing.pen"), "{message}");
}

/// Respelling the 2.11 file gives, node for node, what Pencil wrote when it saved it as 2.13: the
/// diff hides nothing but spelling, and a merge with an upgraded branch writes Pencil's layout.
#[test]
fn respelling_the_old_file_writes_every_respelled_node_as_pencil_did() {
    let (mut old, new) = (load(OLD), load(NEW));
    let respelled = nib::doc::respell::respell(&mut old, true);
    assert_eq!(respelled.len(), 361);
    for id in &respelled {
        let json = |document: &Document| document.node_to_json(document.node_by_id(id).unwrap(), 0);
        assert_eq!(json(&old), json(&new), "{id}");
    }
}

/// A node's index among its siblings was searched for, once per change: a parent with 200,000
/// changed children took 2·10¹⁰ steps. Indices are looked up now.
#[test]
fn a_parent_with_200000_changed_children_is_diffed_without_searching_its_children() {
    let document = |width: u32| {
        let children: Vec<String> =
            (0..200_000).map(|i| format!(r#"{{"type":"rectangle","id":"r{i}","width":{width}}}"#)).collect();
        let text = format!(
            r#"{{"version":"2.11","children":[{{"type":"frame","id":"p","children":[{}]}}]}}"#,
            children.join(",")
        );
        Document::load(&text).unwrap().document
    };
    let result = diff(&document(1), &document(2));
    assert_eq!(result.nodes.len(), 200_000);
    assert_eq!(
        (result.nodes[199_999].at.index, result.nodes[199_999].properties[0].new.as_deref()),
        (199_999, Some("2"))
    );
}
