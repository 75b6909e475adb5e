//! Hostile and odd files given to the command line: special files are neither read nor
//! replaced, read-only files stay as they are, a replaced file keeps its owner, a failed call
//! leaves nothing behind, and errors go to standard error.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs nib (offline) and waits for it; a run that does not end within a minute is a hang,
/// killed and reported, so a regression fails instead of blocking the test suite.
fn nib(args: &[&str], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(args)
        .env("NIB_IMAGES", "offline")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nib runs");
    if let Some(text) = stdin {
        child.stdin.take().expect("stdin").write_all(text.as_bytes()).expect("written");
    }
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().expect("kill");
            panic!("nib {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

const SMALL: &str = r##"{"version": "2.8", "children": [{"type": "frame", "id": "page", "width": 100, "height": 100, "layout": "none", "children": [{"type": "rectangle", "id": "box", "width": 10, "height": 10, "fill": "#FF0000"}]}]}"##;

fn small_document() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("doc.pen");
    fs::write(&path, SMALL).unwrap();
    (folder, path)
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

fn image_files(folder: &Path) -> Vec<String> {
    match fs::read_dir(folder.join("images")) {
        Ok(entries) => entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn fmt_of_a_device_refuses_it_and_leaves_it_a_device() {
    let folder = tempfile::tempdir().unwrap();
    let device = folder.path().join("n");
    let made = Command::new("mknod").arg(&device).args(["c", "1", "3"]).stderr(Stdio::null()).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mknod needs root; skipped");
        return;
    }
    let output = nib(&["fmt", arg(&device)], None);
    assert_eq!(output.status.code(), Some(2), "a file that cannot be read");
    assert!(stderr(&output).contains("is a character device, not a regular file"), "{}", stderr(&output));
    assert!(fs::metadata(&device).unwrap().file_type().is_char_device(), "the device is still a device");
}

#[test]
fn check_of_a_fifo_answers_at_once_instead_of_hanging() {
    let folder = tempfile::tempdir().unwrap();
    let fifo = folder.path().join("f.pen");
    mkfifo(&fifo);
    let output = nib(&["check", arg(&fifo)], None);
    assert_eq!(output.status.code(), Some(2), "a file that cannot be read");
    assert!(stderr(&output).contains("is a FIFO (named pipe), not a regular file"), "{}", stderr(&output));
}

#[test]
fn check_of_dev_zero_is_refused_instead_of_reading_until_memory_runs_out() {
    let output = nib(&["check", "/dev/zero"], None);
    assert_eq!(output.status.code(), Some(2), "a file that cannot be read");
    assert!(stderr(&output).contains("/dev/zero is a character device"), "{}", stderr(&output));
}

#[test]
fn apply_to_a_read_only_file_is_refused_and_says_so_on_stderr() {
    let (folder, path) = small_document();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let script = "a=I(\"page\", {type: \"rectangle\", width: 5, height: 5})\nG(a, \"ai\", \"a red apple\")";
    let output = nib(&["apply", arg(&path), "-"], Some(script));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("is read-only (mode 444)"), "{}", stderr(&output));
    assert!(!stdout(&output).contains("Successfully"), "no success before the save: {}", stdout(&output));
    assert_eq!(fs::read_to_string(&path).unwrap(), SMALL);
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o444);
    assert_eq!(image_files(folder.path()), Vec::<String>::new(), "the image made for the unsaved change is gone");
}

#[test]
fn fmt_and_apply_keep_the_mode_and_group_of_the_file() {
    let (_folder, path) = small_document();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o664)).unwrap();
    // The issue's case: a file of group 'daemon' (gid 1 on Debian); choosing it needs root or
    // membership, so the check adapts to what this user could set up.
    let _ = Command::new("chgrp").arg("1").arg(&path).stderr(Stdio::null()).status();
    let before = fs::metadata(&path).unwrap();
    let output = nib(&["apply", arg(&path), "-"], Some("U(\"box\", {width: 20})"));
    assert!(output.status.success(), "{}", stderr(&output));
    let after = fs::metadata(&path).unwrap();
    assert!(fs::read_to_string(&path).unwrap().contains("\"width\": 20"));
    assert_eq!((after.uid(), after.gid(), after.mode() & 0o7777), (before.uid(), before.gid(), 0o664));
}

#[test]
fn a_failed_apply_leaves_no_generated_images_behind() {
    let (folder, path) = small_document();
    let script = "G(\"box\", \"ai\", \"a lighthouse at dusk\")\nU(\"nowhere\", {width: 1})";
    let output = nib(&["apply", arg(&path), "-"], Some(script));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(image_files(folder.path()), Vec::<String>::new());
    assert_eq!(fs::read_to_string(&path).unwrap(), SMALL);
    // The same G() in a script that succeeds keeps its image.
    let output = nib(&["apply", arg(&path), "-"], Some("G(\"box\", \"ai\", \"a lighthouse at dusk\")"));
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(image_files(folder.path()).len(), 1);
}

#[test]
fn a_script_or_snippet_from_a_device_or_an_endless_stream_is_refused_at_the_size_limit() {
    let (folder, path) = small_document();
    for (command, limit) in [("apply", nib::script::MAX_SCRIPT_BYTES), ("exec", nib::tools::MAX_SNIPPET_BYTES)] {
        // A device is refused before it is read (it read /dev/zero past 1 GB until killed).
        for device in ["/dev/zero", "/dev/urandom"] {
            let output = nib(&[command, arg(&path), device], None);
            let said = format!("{}{}", stdout(&output), stderr(&output));
            assert_eq!(output.status.code(), Some(2), "{command} {device}: {said}");
            assert!(said.contains("is a character device"), "{command} {device}: {said}");
        }
        // A file, standard input and a pipe that never ends: all cut at the same limit with the
        // same answer and exit code.
        let large = folder.path().join("large.txt");
        fs::write(&large, " ".repeat(limit + 1)).unwrap();
        let from_file = nib(&[command, arg(&path), arg(&large)], None);
        let from_stdin = nib(&[command, arg(&path), "-"], Some(&" ".repeat(limit + 1)));
        let fifo = folder.path().join("endless");
        mkfifo(&fifo);
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                use std::io::Write;
                let Ok(mut pipe) = fs::OpenOptions::new().write(true).open(&fifo) else { return };
                let block = [b' '; 65536];
                // Until the reader stops reading: an endless stream.
                while pipe.write_all(&block).is_ok() {}
            })
        };
        let from_pipe = nib(&[command, arg(&path), arg(&fifo)], None);
        writer.join().unwrap();
        fs::remove_file(&fifo).unwrap();
        for (source, output) in [("file", from_file), ("stdin", from_stdin), ("pipe", from_pipe)] {
            let said = format!("{}{}", stdout(&output), stderr(&output));
            assert_eq!(output.status.code(), Some(2), "{command} from {source}: {said}");
            assert!(said.contains(&format!("larger than {limit} bytes")), "{command} from {source}: {said}");
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), SMALL);
    }
}

#[test]
fn render_refuses_to_replace_a_fifo_with_an_image() {
    let (folder, path) = small_document();
    let out = folder.path().join("out.png");
    mkfifo(&out);
    let output = nib(&["render", arg(&path), "-o", arg(&out)], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("FIFO"), "{}", stderr(&output));
    assert!(fs::symlink_metadata(&out).unwrap().file_type().is_fifo());
}

// Issue 25, item 1: an output never replaces a document.

#[test]
fn no_output_replaces_the_document_or_takes_a_wrong_extension() {
    let (folder, path) = small_document();
    let doc = arg(&path);
    let spelled_other = folder.path().join("sub/../doc.pen");
    // nib call works inside its root (issue 46): the document's folder.
    let root = arg(folder.path()).to_owned();
    let call = |tool: &str, arguments: serde_json::Value| -> Vec<String> {
        vec!["call".into(), "--root".into(), root.clone(), tool.into(), "--args".into(), arguments.to_string()]
    };
    let other = arg(&spelled_other);
    let mut cases: Vec<Vec<String>> = [
        vec!["render", doc, "-o", doc],
        vec!["render", doc, "--node", "page", "-o", other],
        vec!["export", doc, "--format", "png", "--node", "page", "-o", doc],
        vec!["export", doc, "--format", "svg", "-o", doc],
        vec!["export", doc, "--format", "tokens-css", "-o", doc],
    ]
    .iter()
    .map(|args| args.iter().map(|a| a.to_string()).collect())
    .collect();
    cases.push(call("get_screenshot", serde_json::json!({"filePath": doc, "outputPath": doc})));
    cases.push(call("get_screenshot", serde_json::json!({"filePath": doc, "outputPath": other})));
    cases.push(call(
        "export",
        serde_json::json!({"filePath": doc, "format": "png", "nodeIds": ["page"], "outputPath": doc}),
    ));
    cases.push(call("export", serde_json::json!({"filePath": doc, "format": "pdf", "outputPath": doc})));
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = nib(&args, None);
        assert_ne!(output.status.code(), Some(0), "{args:?} succeeded: {}", stdout(&output));
        let said = format!("{}{}", stdout(&output), stderr(&output));
        assert!(said.contains("never replaces a document"), "{args:?}: {said}");
        assert_eq!(fs::read_to_string(&path).unwrap(), SMALL, "{args:?} changed the document");
    }
    // A name whose extension is not the format's is taken for a mistake, before anything is drawn.
    let text = folder.path().join("notes.txt");
    let shot = call("get_screenshot", serde_json::json!({"filePath": doc, "outputPath": arg(&text)}));
    for args in [
        vec!["render", doc, "-o", arg(&text)],
        vec!["export", doc, "--format", "jpeg", "--node", "page", "-o", arg(&text)],
        shot.iter().map(String::as_str).collect(),
    ] {
        let output = nib(&args, None);
        let said = format!("{}{}", stdout(&output), stderr(&output));
        assert!(said.contains("name it e.g. notes."), "{args:?}: {said}");
        assert!(!text.exists(), "{args:?} wrote {}", text.display());
    }
    // The right names still work.
    let shot = folder.path().join("shot.png");
    assert!(nib(&["render", doc, "-o", arg(&shot)], None).status.success());
    let jpeg = folder.path().join("page.JPEG");
    assert!(nib(&["export", doc, "--format", "jpeg", "--node", "page", "-o", arg(&jpeg)], None).status.success());
}

// Issue 25, item 2: the trees of snapshot runs and diff pictures never follow a planted link.

const CHANGED: &str = r##"{"version": "2.8", "children": [{"type": "frame", "id": "page", "width": 100, "height": 100, "layout": "none", "children": [{"type": "rectangle", "id": "box", "width": 10, "height": 10, "fill": "#0000FF"}]}]}"##;

/// A folder `designs/` holding doc.pen and a victim folder beside it with a file to protect.
fn planted() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let top = tempfile::tempdir().unwrap();
    let designs = top.path().join("designs");
    let victim = top.path().join("victim");
    fs::create_dir_all(&designs).unwrap();
    fs::create_dir_all(&victim).unwrap();
    fs::write(designs.join("doc.pen"), SMALL).unwrap();
    fs::write(victim.join("config.txt"), "keep me").unwrap();
    fs::create_dir_all(victim.join("doc")).unwrap();
    fs::write(victim.join("doc/page.png"), "not a golden").unwrap();
    fs::write(victim.join("doc/old.png"), "not a golden either").unwrap();
    (top, designs, victim)
}

fn untouched(victim: &Path) {
    assert_eq!(fs::read_to_string(victim.join("config.txt")).unwrap(), "keep me");
    assert_eq!(fs::read_to_string(victim.join("doc/page.png")).unwrap(), "not a golden");
    assert_eq!(fs::read_to_string(victim.join("doc/old.png")).unwrap(), "not a golden either");
}

#[test]
fn snapshot_update_does_not_follow_a_linked_snapshots_folder() {
    let (top, designs, victim) = planted();
    std::os::unix::fs::symlink("../victim", designs.join("__snapshots__")).unwrap();
    let output = nib(&["snapshot", "--update", "--diff-dir", arg(&top.path().join("diffs")), arg(&designs)], None);
    assert_eq!(output.status.code(), Some(2), "{}{}", stdout(&output), stderr(&output));
    assert!(stderr(&output).contains("symbolic link"), "{}", stderr(&output));
    untouched(&victim);
}

#[test]
fn snapshot_update_does_not_write_through_a_linked_golden() {
    let (top, designs, victim) = planted();
    fs::create_dir_all(designs.join("__snapshots__/doc")).unwrap();
    std::os::unix::fs::symlink(victim.join("config.txt"), designs.join("__snapshots__/doc/page.png")).unwrap();
    let output = nib(&["snapshot", "--update", "--diff-dir", arg(&top.path().join("diffs")), arg(&designs)], None);
    assert_eq!(output.status.code(), Some(2), "{}{}", stdout(&output), stderr(&output));
    assert!(stderr(&output).contains("symbolic link"), "{}", stderr(&output));
    untouched(&victim);
}

#[test]
fn snapshot_ci_does_not_write_renders_through_a_planted_link() {
    let (top, designs, victim) = planted();
    // A golden that differs, so the run writes the render and the diff image of the failure.
    assert!(nib(&["snapshot", arg(&designs)], None).status.success());
    fs::write(designs.join("doc.pen"), CHANGED).unwrap();
    let diffs = top.path().join("snapshot-diffs");
    fs::create_dir_all(diffs.join("doc")).unwrap();
    std::os::unix::fs::symlink(victim.join("config.txt"), diffs.join("doc/page.actual.png")).unwrap();
    std::os::unix::fs::symlink(victim.join("doc/page.png"), diffs.join("doc/page.diff.png")).unwrap();
    let output = nib(&["snapshot", "--ci", "--diff-dir", arg(&diffs), arg(&designs)], None);
    assert_eq!(output.status.code(), Some(2), "{}{}", stdout(&output), stderr(&output));
    assert!(stderr(&output).contains("symbolic link"), "{}", stderr(&output));
    untouched(&victim);
    // The diff folder itself as a link is refused too.
    fs::remove_dir_all(&diffs).unwrap();
    std::os::unix::fs::symlink(&victim, &diffs).unwrap();
    let output = nib(&["snapshot", "--ci", "--diff-dir", arg(&diffs), arg(&designs)], None);
    assert_eq!(output.status.code(), Some(2), "{}{}", stdout(&output), stderr(&output));
    assert_eq!(fs::read_dir(&victim).unwrap().count(), 2, "nothing new in the victim folder");
    untouched(&victim);
}

#[test]
fn diff_pictures_do_not_follow_a_planted_link() {
    let (top, designs, victim) = planted();
    let new = designs.join("new.pen");
    fs::write(&new, CHANGED).unwrap();
    let review = top.path().join("review");
    fs::create_dir_all(&review).unwrap();
    std::os::unix::fs::symlink(victim.join("config.txt"), review.join("01-page.diff.png")).unwrap();
    std::os::unix::fs::symlink(victim.join("doc/page.png"), review.join("diff.md")).unwrap();
    let output =
        nib(&["diff", arg(&designs.join("doc.pen")), arg(&new), "--format", "markdown", "-o", arg(&review)], None);
    assert_eq!(output.status.code(), Some(2), "{}{}", stdout(&output), stderr(&output));
    assert!(stderr(&output).contains("symbolic link"), "{}", stderr(&output));
    untouched(&victim);
}

// Issue 25, item 8: control characters in names never reach the terminal.

#[test]
fn names_with_terminal_commands_are_printed_escaped() {
    let folder = tempfile::tempdir().unwrap();
    let hostile = "\u{1b}]0;t\u{7}\u{1b}[2K\rFAKE\n- @everyone";
    let document = |width: u32| {
        serde_json::json!({"version": "2.8", "children": [{"type": "frame", "id": "page", "name": hostile, "width": width, "height": 100,
            "layout": "none", "children": [{"type": "text", "id": "t\u{1b}[31m", "name": hostile, "content": "x", "fill": "#000000"},
                {"type": "rectangle", "id": "r", "name": hostile, "x": 180, "width": 60, "height": 10, "fill": "#FF0000"}]}]})
        .to_string()
    };
    let old = folder.path().join("old.pen");
    let new = folder.path().join("new.pen");
    fs::write(&old, document(100)).unwrap();
    fs::write(&new, document(200)).unwrap();
    let runs = [
        nib(&["diff", arg(&old), arg(&new)], None),
        nib(&["diff", arg(&old), arg(&new), "--format", "markdown"], None),
        nib(&["layout", arg(&new)], None),
        nib(&["layout", arg(&new), "--problems"], None),
        nib(&["outline", arg(&new)], None),
    ];
    for output in &runs {
        let printed = format!("{}{}", stdout(output), stderr(output));
        assert!(printed.contains("FAKE"), "the name is shown: {printed}");
        assert!(!printed.contains('\u{1b}') && !printed.contains('\u{7}') && !printed.contains('\r'), "{printed:?}");
        for line in printed.lines() {
            assert!(!line.trim_start().starts_with("- @everyone"), "a name started a line of its own: {printed}");
        }
    }
    let markdown = stdout(&runs[1]);
    assert!(!markdown.contains(" @everyone"), "a name mentions nobody: {markdown}");

    // nib snapshot: the lines it prints (a new golden, then a failure) and its Markdown summary.
    let designs = folder.path().join("designs");
    fs::create_dir(&designs).unwrap();
    let design = designs.join("d.pen");
    fs::write(&design, document(200)).unwrap();
    let created = nib(&["snapshot", arg(&designs)], None);
    fs::write(&design, document(100)).unwrap();
    let summary = folder.path().join("summary.md");
    // Its diff pictures go to the test's folder, never to the folder the tests run in.
    let diffs = folder.path().join("diffs");
    let failed = nib(&["snapshot", "--ci", "--diff-dir", arg(&diffs), "--summary", arg(&summary), arg(&designs)], None);
    assert_eq!(failed.status.code(), Some(1), "{}", stdout(&failed));
    let summary = fs::read_to_string(&summary).unwrap();
    for printed in [
        format!("{}{}", stdout(&created), stderr(&created)),
        format!("{}{}", stdout(&failed), stderr(&failed)),
        summary.clone(),
    ] {
        assert!(printed.contains("FAKE"), "the name is shown: {printed}");
        assert!(!printed.chars().any(|c| c.is_control() && c != '\n'), "{printed:?}");
        for line in printed.lines() {
            assert!(!line.trim_start().starts_with("- @everyone"), "a name started a line of its own: {printed}");
        }
    }
    assert!(!summary.contains(" @everyone"), "a name mentions nobody: {summary}");
}

// Issue 25, item 7: a fetch never goes to this machine, whatever range its address is in.

#[test]
fn a_font_url_naming_this_machine_is_refused_without_connecting() {
    // Every address of this machine's interfaces, loopback included, with a listener on it.
    let mut listeners = Vec::new();
    for interface in if_addrs::get_if_addrs().expect("interfaces") {
        if let Ok(listener) = std::net::TcpListener::bind((interface.ip(), 0)) {
            listener.set_nonblocking(true).unwrap();
            listeners.push(listener);
        }
    }
    assert!(!listeners.is_empty());
    let folder = tempfile::tempdir().unwrap();
    let fonts: Vec<serde_json::Value> = listeners
        .iter()
        .enumerate()
        .map(|(n, listener)| {
            let address = listener.local_addr().unwrap();
            serde_json::json!({"name": format!("Brand {n}"), "url": format!("https://{address}/brand.ttf")})
        })
        .collect();
    let texts: Vec<serde_json::Value> = (0..fonts.len())
        .map(|n| serde_json::json!({"type": "text", "id": format!("t{n}"), "content": "Hi", "fontFamily": format!("Brand {n}"), "fill": "#000000"}))
        .collect();
    let document = serde_json::json!({"version": "2.10", "fonts": fonts, "children": [
        {"type": "frame", "id": "page", "width": 200, "height": 200, "layout": "vertical", "children": texts}]});
    let path = folder.path().join("doc.pen");
    fs::write(&path, document.to_string()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["render", arg(&path), "-o", arg(&folder.path().join("doc.png"))])
        .env_remove("NIB_FONTS")
        .output()
        .unwrap();
    let said = stderr(&output);
    for listener in &listeners {
        let address = listener.local_addr().unwrap();
        assert!(listener.accept().is_err(), "nib connected to {address}: {said}");
        assert!(said.contains(&format!("refused to contact {address}")), "{address}: {said}");
    }
}

// Issue 25, item 3: under a memory limit, a render that needs too much is an error, not an abort.

#[test]
fn a_render_past_the_memory_budget_fails_with_an_error_under_a_memory_limit() {
    let mut node =
        serde_json::json!({"type": "rectangle", "id": "core", "width": 8000, "height": 8000, "fill": "#3366FF"});
    for level in (0..30).rev() {
        node = serde_json::json!({"type": "frame", "id": format!("level{level}"), "width": 8000, "height": 8000,
            "layout": "none", "opacity": 0.9, "effect": {"type": "blur", "radius": 4},
            "children": [node, {"type": "rectangle", "id": format!("mark{level}"), "width": 10, "height": 10, "fill": "#FF0000"}]});
    }
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("nested.pen");
    fs::write(&path, serde_json::json!({"version": "2.11", "children": [node]}).to_string()).unwrap();
    let out = folder.path().join("nested.png");
    // 3 GB of address space, as the reproduction had: it aborted ("memory allocation of
    // 1073741824 bytes failed", signal 6).
    let script =
        format!("ulimit -v 3000000 && exec {} render {} -o {}", env!("CARGO_BIN_EXE_nib"), arg(&path), arg(&out));
    let output = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{:?}: {}", output.status, stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("rendering node 'level") && said.contains("a render may take"), "{said}");
    assert!(!out.exists(), "no picture with holes is written");
}

/// A document whose every string an author controls carries terminal commands (ESC, BEL, CR):
/// no command prints one to the terminal, on standard output or standard error.
#[test]
fn no_command_sends_a_documents_terminal_commands_to_the_terminal() {
    let folder = tempfile::tempdir().unwrap();
    let evil = r"\u001b]0;pwned\u0007\u001b[2J\rFAKE";
    let document = format!(
        r##"{{"version": "2.20", "themes": {{"Mode{evil}": ["Light{evil}", "Dark"]}},
  "imports": {{"lib{evil}": "missing{evil}.lib.pen"}},
  "variables": {{"--c{evil}": {{"type": "color", "value": "#112233"}}}},
  "children": [
    {{"type": "frame", "id": "page", "name": "Page{evil}", "width": 200, "height": 100, "layout": "vertical", "theme": {{"Mode{evil}": "Dark"}},
      "children": [
        {{"type": "text", "id": "t", "name": "Text{evil}", "content": "Hi{evil}", "fontFamily": "Font{evil}", "fill": "$--c{evil}"}},
        {{"type": "gizmo{evil}", "id": "g", "name": "Gizmo{evil}", "width": 10, "height": 10}},
        {{"type": "ref", "id": "r", "ref": "nowhere{evil}"}},
        {{"type": "rectangle", "id": "img", "width": 10, "height": 10, "fill": {{"type": "image", "url": "gone{evil}.png"}}}}]}}]}}"##
    );
    let path = folder.path().join("evil.pen");
    fs::write(&path, &document).unwrap();
    let old = folder.path().join("old.pen");
    fs::write(&old, SMALL).unwrap();
    let file = arg(&path);
    let out = folder.path().join("out");
    let out = arg(&out);
    let runs: Vec<Vec<&str>> = vec![
        vec!["check", file],
        vec!["check", "--strict", file],
        vec!["fmt", "--check", file],
        vec!["migrate", "--check", file],
        vec!["layout", file],
        vec!["layout", file, "--problems"],
        vec!["render", file, "-o", out],
        vec!["export", file, "--format", "html", "-o", out],
        vec!["export", file, "--format", "svg", "--node", "page", "-o", out],
        vec!["export", file, "--format", "tokens-css", "-o", out],
        vec!["lint", file],
        vec!["outline", file],
        vec!["diff", arg(&old), file],
        vec!["fonts", file],
        vec![
            "call",
            "--root",
            arg(folder.path()),
            "batch_get",
            "--args",
            r#"{"filePath": "evil.pen", "patterns": [{"type": "text"}]}"#,
        ],
        vec!["apply", file, "-", "--dry-run"],
        vec!["exec", file, "-"],
    ];
    for args in runs {
        let stdin = match args[0] {
            "apply" => Some("U(\"g\", {width: 20})\nU(\"t\", {content: \"x\\u001b]0;t\\u0007\"})"),
            "exec" => Some("Print(Get(\"t\").name); Update(\"t\", {fontFamily: \"F\\u001b[2J\"});"),
            _ => None,
        };
        let output = nib(&args, stdin);
        for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !bytes.iter().any(|b| matches!(b, 0x1b | 0x07 | b'\r')),
                "nib {args:?} sent a terminal command on {stream}: {text:?}"
            );
        }
    }
}
// Issue 56, item 3: a CMYK or YCCK JPEG (Photoshop's print exports) is drawn in the PNG as the
// SVG, PDF and HTML outputs show it, not left transparent without a word.

#[test]
fn cmyk_and_ycck_jpegs_are_drawn_in_their_colours() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/images");
    let folder = tempfile::tempdir().unwrap();
    let names = ["cmyk-quadrants.jpg", "cmyk-progressive-quadrants.jpg", "ycck-quadrants.jpg"];
    for name in names {
        fs::copy(fixtures.join(name), folder.path().join(name)).unwrap();
    }
    let path = folder.path().join("print.pen");
    fs::write(
        &path,
        r##"{"version": "2.10", "children": [{"type": "frame", "id": "page", "x": 0, "y": 0, "width": 48, "height": 16, "layout": "none", "fill": "#000000", "children": [
  {"type": "rectangle", "id": "cmyk", "x": 0, "y": 0, "width": 16, "height": 16, "fill": {"type": "image", "url": "./cmyk-quadrants.jpg", "mode": "stretch"}},
  {"type": "rectangle", "id": "progressive", "x": 16, "y": 0, "width": 16, "height": 16, "fill": {"type": "image", "url": "./cmyk-progressive-quadrants.jpg", "mode": "stretch"}},
  {"type": "rectangle", "id": "ycck", "x": 32, "y": 0, "width": 16, "height": 16, "fill": {"type": "image", "url": "./ycck-quadrants.jpg", "mode": "stretch"}}]}]}"##,
    )
    .unwrap();
    let out = folder.path().join("print.png");
    let output = nib(&["render", arg(&path), "--node", "page", "-o", arg(&out)], None);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stderr(&output).contains("warning"), "drawn as the file holds it: {}", stderr(&output));
    let picture = nib::render::decode_image(&fs::read(&out).unwrap()).expect("a PNG");
    let expected = [((4, 4), [255, 0, 0]), ((12, 4), [0, 255, 0]), ((4, 12), [0, 0, 255]), ((12, 12), [255, 255, 255])];
    for left in [0, 16, 32] {
        for ((x, y), [r, g, b]) in expected {
            let pixel = picture.pixel(left + x, y).expect("inside");
            let got = [pixel.red(), pixel.green(), pixel.blue(), pixel.alpha()];
            let close = got.iter().zip([r, g, b, 255]).all(|(got, want)| got.abs_diff(want) <= 8);
            assert!(close, "pixel ({}, {y}) is {got:?}, expected about {:?}", left + x, [r, g, b, 255]);
        }
    }
}

/// A JPEG kind the decoder still cannot read (here arithmetic coding, SOF9) is said, with what
/// is drawn instead.
#[test]
fn a_jpeg_that_cannot_be_decoded_is_named_with_what_is_drawn_instead() {
    let folder = tempfile::tempdir().unwrap();
    let mut bytes =
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/images/cmyk-quadrants.jpg")).unwrap();
    let sof = bytes.windows(2).position(|pair| pair == [0xFF, 0xC0]).expect("a baseline frame header");
    bytes[sof + 1] = 0xC9;
    fs::write(folder.path().join("arithmetic.jpg"), bytes).unwrap();
    let path = folder.path().join("print.pen");
    fs::write(
        &path,
        r##"{"version": "2.10", "children": [{"type": "rectangle", "id": "photo", "x": 0, "y": 0, "width": 16, "height": 16, "fill": ["#000000", {"type": "image", "url": "./arithmetic.jpg", "mode": "stretch"}]}]}"##,
    )
    .unwrap();
    let out = folder.path().join("print.png");
    let output = nib(&["render", arg(&path), "-o", arg(&out)], None);
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("image './arithmetic.jpg' cannot be decoded") && said.contains("left out"), "{said}");
}

// Issue 56, item 9a: half a UTF-16 pair in a string. Pen's JavaScript reads and saves it; nib
// refused the file as corruption.

const HALF_PAIRS: &str = r##"{
  "version": "2.20",
  "children": [
    {
      "type": "frame",
      "id": "page",
      "name": "\udc00 page",
      "width": 120,
      "height": 40,
      "layout": "none",
      "fill": "#FFFFFF",
      "children": [
        {
          "type": "text",
          "id": "t",
          "content": "a\ud800b",
          "fill": "#000000"
        },
        {
          "type": "rectangle",
          "id": "box",
          "x": 60,
          "width": 10,
          "height": 10,
          "fill": "#FF0000"
        }
      ]
    }
  ]
}"##;

#[test]
fn half_utf16_pairs_are_kept_drawn_as_a_replacement_and_said_once() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("halves.pen");
    fs::write(&path, HALF_PAIRS).unwrap();
    let checked = nib(&["check", arg(&path)], None);
    assert!(checked.status.success(), "{}{}", stdout(&checked), stderr(&checked));
    assert!(nib(&["fmt", "--check", arg(&path)], None).status.success(), "saved as it is");

    let out = folder.path().join("halves.png");
    let rendered = nib(&["render", arg(&path), "-o", arg(&out)], None);
    let said = stderr(&rendered);
    assert!(rendered.status.success(), "{said}");
    assert_eq!(said.matches("half of a UTF-16 pair").count(), 1, "said once, for the text: {said}");
    assert!(said.contains("node 't'") && said.contains("\\ud800") && said.contains("U+FFFD"), "{said}");
    for format in ["svg", "pdf", "html", "react"] {
        let exported = folder.path().join(if format == "pdf" { "out.pdf".to_owned() } else { format!("out-{format}") });
        let output = nib(&["export", arg(&path), "--format", format, "--all", "-o", arg(&exported)], None);
        assert!(output.status.success(), "{format}: {}", stderr(&output));
    }

    // An edit elsewhere saves the halves as they were.
    let applied = nib(&["apply", arg(&path), "-"], Some("U(\"box\", {width: 12})"));
    assert!(applied.status.success(), "{}", stderr(&applied));
    let expected = HALF_PAIRS.replacen("\"width\": 10,", "\"width\": 12,", 1);
    assert_eq!(fs::read_to_string(&path).unwrap(), expected);

    // A tool's answer carries the half as its stand-in character (JSON any reader takes), and
    // an agent that writes it back writes the same half.
    let mut workspace = nib::tools::Workspace::new(folder.path());
    let got = nib::tools::call(
        &mut workspace,
        "batch_get",
        serde_json::json!({"filePath": "halves.pen", "nodeIds": ["page"]}),
    )
    .expect("batch_get answers");
    let name = got["nodes"][0]["name"].as_str().expect("a name").to_owned();
    assert_eq!(name, "\u{10FC00} page", "{got}");
    let operations = format!("U(\"page\", {{name: {}}})", serde_json::to_string(&format!("{name}!")).unwrap());
    nib::tools::call(
        &mut workspace,
        "batch_design",
        serde_json::json!({"filePath": "halves.pen", "operations": operations}),
    )
    .expect("batch_design runs");
    let saved = fs::read_to_string(&path).unwrap();
    assert!(saved.contains("\"name\": \"\\udc00 page!\""), "{saved}");
    // A script's escape of half a pair is kept as JavaScript keeps it (it became U+FFFD).
    let applied = nib(&["apply", arg(&path), "-"], Some(r#"U("box", {name: "x\uD800", context: "\u{DFFF}"})"#));
    assert!(applied.status.success(), "{}", stderr(&applied));
    let saved = fs::read_to_string(&path).unwrap();
    assert!(saved.contains("\"name\": \"x\\ud800\"") && saved.contains("\"context\": \"\\udfff\""), "{saved}");
}
