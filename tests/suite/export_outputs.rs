//! What an export writes and where: never through a link or over a special file in its output
//! folder, never two files under one name (letter case aside, as macOS and Windows compare
//! them), and `--check` says what stands where a file should be. A refusal leaves every file
//! as it was.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn nib(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nib")).args(args).env("NIB_IMAGES", "offline").output().expect("nib runs")
}

fn said(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// A document with two components (`Card` and `CARD`), a page using both, and frames whose ids
/// clean to the same file name.
fn design(folder: &Path) -> PathBuf {
    let path = folder.join("h.pen");
    let frame = |id: &str, x: u32| {
        format!(
            r##"{{"type": "frame", "id": {id:?}, "x": {x}, "y": 300, "width": 40, "height": 40, "fill": "#3366FF",
              "children": [{{"type": "text", "id": "{id}-t", "content": "T", "fill": "#FFFFFF"}}]}}"##
        )
    };
    let frames: Vec<String> = ["a-b", "a b", "a_b", "a.b", "A", "a", "..", "."]
        .iter()
        .enumerate()
        .map(|(i, id)| frame(id, i as u32 * 50))
        .collect();
    fs::write(
        &path,
        format!(
            r##"{{"version": "2.20", "children": [
  {{"type": "frame", "id": "card1", "name": "Card", "reusable": true, "x": 0, "y": 0, "width": 120, "height": 40, "fill": "#FFFFFF",
    "children": [{{"type": "text", "id": "c1t", "name": "Title", "content": "One", "fill": "#111111"}}]}},
  {{"type": "frame", "id": "card2", "name": "CARD", "reusable": true, "x": 0, "y": 60, "width": 120, "height": 40, "fill": "#EEEEEE",
    "children": [{{"type": "text", "id": "c2t", "name": "Title", "content": "Two", "fill": "#111111"}}]}},
  {{"type": "frame", "id": "page", "name": "Page", "x": 200, "y": 0, "width": 300, "height": 120, "layout": "vertical",
    "children": [{{"type": "ref", "id": "r1", "ref": "card1"}}, {{"type": "ref", "id": "r2", "ref": "card2"}}]}},
  {}]}}"##,
            frames.join(",\n  ")
        ),
    )
    .unwrap();
    path
}

/// Every regular file below `root` with its bytes (links and special files listed as such).
fn snapshot(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = fs::read_dir(&folder) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            let kind = fs::symlink_metadata(&path).unwrap().file_type();
            let name = path.strip_prefix(root).unwrap().display().to_string();
            if kind.is_symlink() {
                files.insert(name, format!("link to {}", fs::read_link(&path).unwrap().display()).into_bytes());
            } else if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                files.insert(name, fs::read(&path).unwrap());
            } else {
                files.insert(name, b"special".to_vec());
            }
        }
    }
    files
}

#[test]
fn an_export_writes_nothing_through_a_link_in_its_output_folder() {
    let folder = tempfile::tempdir().unwrap();
    let file = design(folder.path());
    let outside = folder.path().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("victim.txt"), "keep me").unwrap();
    let cases: [(&str, &[&str], &str); 4] = [
        ("react", &["--format", "react"], "components/Card.tsx"),
        ("html", &["--format", "html", "--all"], "fonts"),
        ("png", &["--format", "png", "--all"], "01-Card.png"),
        ("svg", &["--format", "svg", "--node", "page", "--node", "card1"], "page.svg"),
    ];
    for (name, args, planted) in cases {
        let out = folder.path().join(format!("out-{name}"));
        fs::create_dir_all(out.join("components")).unwrap();
        fs::write(out.join("index.ts"), "// mine\n").unwrap();
        let target = if planted == "fonts" { outside.clone() } else { outside.join("victim.txt") };
        symlink(&target, out.join(planted)).unwrap();
        let before = snapshot(folder.path());
        let mut full = vec!["export", file.to_str().unwrap(), "-o", out.to_str().unwrap()];
        full.extend_from_slice(args);
        let output = nib(&full);
        let text = said(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {text}");
        assert!(text.contains(&format!("{planted} is a symbolic link in the output folder")), "{name}: {text}");
        assert_eq!(snapshot(folder.path()), before, "{name}: every file as it was");
        // --check reads through no link either, and says what stands there.
        full.push("--check");
        let checked = nib(&full);
        if name == "react" {
            assert_eq!(checked.status.code(), Some(1), "{}", said(&checked));
            assert!(
                said(&checked).contains("a symbolic link stands where the export writes a file"),
                "{}",
                said(&checked)
            );
        }
        assert_eq!(snapshot(folder.path()), before, "{name}: --check writes nothing");
    }
    // The export tool refuses the same way (the MCP root is the folder).
    let output = nib(&[
        "call",
        "--root",
        folder.path().to_str().unwrap(),
        "export",
        "--args",
        r#"{"filePath": "h.pen", "format": "react", "outputPath": "out-react"}"#,
    ]);
    assert!(!output.status.success());
    assert!(said(&output).contains("is a symbolic link in the output folder"), "{}", said(&output));
    assert_eq!(fs::read_to_string(outside.join("victim.txt")).unwrap(), "keep me");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 1, "nothing written into the linked folder");
}

#[test]
fn check_says_what_stands_where_a_file_should_be() {
    let folder = tempfile::tempdir().unwrap();
    let file = design(folder.path());
    let out = folder.path().join("out");
    let export = |check: bool| {
        let mut args = vec!["export", file.to_str().unwrap(), "--format", "react", "-o", out.to_str().unwrap()];
        if check {
            args.push("--check");
        }
        nib(&args)
    };
    assert!(export(false).status.success());
    fs::remove_file(out.join("index.ts")).unwrap();
    assert!(Command::new("mkfifo").arg(out.join("index.ts")).status().unwrap().success());
    fs::remove_file(out.join("theme.css")).unwrap();
    fs::create_dir(out.join("theme.css")).unwrap();
    fs::remove_file(out.join("pages/Page.tsx")).unwrap();
    symlink(folder.path().join("h.pen"), out.join("pages/Page.tsx")).unwrap();
    let before = snapshot(folder.path());
    let output = export(true);
    let text = said(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("index.ts: a FIFO (named pipe) stands where the export writes a file"), "{text}");
    assert!(text.contains("theme.css: a folder stands where the export writes a file"), "{text}");
    assert!(text.contains("pages/Page.tsx: a symbolic link stands where the export writes a file"), "{text}");
    assert!(!text.contains("missing"), "{text}");
    assert_eq!(snapshot(folder.path()), before);
    // Without --check the FIFO is refused before anything is written (no hang on opening it).
    let output = export(false);
    assert_eq!(output.status.code(), Some(2), "{}", said(&output));
    assert_eq!(snapshot(folder.path()), before);
}

#[test]
fn nodes_whose_files_would_share_a_name_are_refused_naming_both() {
    let folder = tempfile::tempdir().unwrap();
    let file = design(folder.path());
    let out = folder.path().join("out");
    let cases: [(&[&str], &str, &str, &str); 5] = [
        (&["export", "--format", "png"], "a-b", "a b", "a-b.png"),
        (&["export", "--format", "svg"], "..", ".", "node.svg"),
        (&["export", "--format", "html"], "A", "a", "A.html"),
        (&["render"], "a b", "a.b", "a-b.png"),
        (&["render"], "A", "a", "A.png"),
    ];
    for (command, first, second, shared) in cases {
        let mut args = vec![command[0], file.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend_from_slice(&command[1..]);
        args.extend(["--node", "a_b", "--node", first, "--node", second]);
        let output = nib(&args);
        let text = said(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {text}");
        assert!(
            text.contains(&format!("nodes '{first}' and '{second}' would both be written to {shared}")),
            "{args:?}: {text}"
        );
        assert!(snapshot(&out).is_empty(), "{args:?}: nothing written");
    }
    // Distinct names pass, and `_` is not `-`.
    let output = nib(&[
        "export",
        file.to_str().unwrap(),
        "--format",
        "png",
        "-o",
        out.to_str().unwrap(),
        "--node",
        "a_b",
        "--node",
        "a-b",
    ]);
    assert!(output.status.success(), "{}", said(&output));
    assert_eq!(snapshot(&out).keys().cloned().collect::<Vec<_>>(), ["a-b.png", "a_b.png"]);
}

#[test]
fn react_component_files_are_unique_without_letter_case() {
    let folder = tempfile::tempdir().unwrap();
    let file = design(folder.path());
    let out = folder.path().join("out");
    let output = nib(&["export", file.to_str().unwrap(), "--format", "react", "-o", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", said(&output));
    let files: Vec<String> = snapshot(&out).into_keys().collect();
    let mut folded: Vec<String> = files.iter().map(|f| f.to_lowercase()).collect();
    folded.sort();
    folded.dedup();
    assert_eq!(folded.len(), files.len(), "{files:?}");
    assert!(
        files.contains(&"components/Card.tsx".to_owned()) && files.contains(&"components/CARD2.tsx".to_owned()),
        "{files:?}"
    );
    let page = fs::read_to_string(out.join("pages/Page.tsx")).unwrap();
    assert!(page.contains("import { CARD2 }") || page.contains("CARD2"), "{page}");
}

#[test]
fn render_writes_no_picture_through_a_link() {
    let folder = tempfile::tempdir().unwrap();
    let file = design(folder.path());
    fs::write(folder.path().join("victim.txt"), "keep me").unwrap();
    let frames = folder.path().join("frames");
    fs::create_dir(&frames).unwrap();
    symlink(folder.path().join("victim.txt"), frames.join("01-Card.png")).unwrap();
    symlink(folder.path().join("victim.txt"), folder.path().join("shot.png")).unwrap();
    let before = snapshot(folder.path());
    let file = file.to_str().unwrap();
    for args in [
        vec!["render", file, "--all", "-o", frames.to_str().unwrap()],
        vec!["render", file, "--node", "page", "--node", "card1", "-o", frames.to_str().unwrap()],
        vec!["render", file, "--node", "page", "-o", folder.path().join("shot.png").to_str().unwrap()],
    ] {
        let output = nib(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", said(&output));
        assert!(said(&output).contains("is a symbolic link in the output folder"), "{}", said(&output));
        assert_eq!(snapshot(folder.path()), before, "{args:?}");
    }
}
