//! The `nib` binary: check and fmt, their output and exit codes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, kept offline: a developer's image service keys must not make tests reach the
/// network.
fn nib_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nib"));
    command.env("NIB_IMAGES", "offline");
    command
}

fn nib(args: &[&str]) -> Output {
    nib_command().args(args).output().expect("nib runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Errors go to standard error, results to standard output.
fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen").join(name)
}

fn copy_to_temp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(name);
    fs::copy(fixture(name), &path).unwrap();
    (folder, path)
}

#[test]
fn check_describes_a_valid_file() {
    let path = fixture("open-pencil__open-pencil__tests__fixtures__pencil_file.pen");
    let output = nib(&["check", path.to_str().unwrap()]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains(": ok"), "{text}");
    assert!(text.contains("version 2.8"), "{text}");
    assert!(text.contains("353 nodes (frame 127,"), "{text}");
    assert!(text.contains("93 in instance overrides"), "{text}");
    assert!(text.contains("themes Mode [Light, Dark]"), "{text}");
}

#[test]
fn check_fails_on_an_invalid_file_with_its_location() {
    let folder = tempfile::tempdir().unwrap();
    let bad = folder.path().join("bad.pen");
    fs::write(
        &bad,
        "{\"version\": \"2.8\", \"children\": [\n  {\"type\": \"frame\", \"id\": \"a\", \"fill\": \"#1535850\"}\n]}",
    )
    .unwrap();
    let good = fixture("Changan-Su__Apple-Style-Website-Editor__PS2.pen");
    let output = nib(&["check", bad.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let errors = stderr(&output);
    assert!(errors.contains("bad.pen:2:40 (at /children/0/fill, node 'a'): invalid color \"#1535850\""), "{errors}");
    assert!(errors.contains("hint: a hex color has 3, 6 or 8 digits"), "{errors}");
    let text = stdout(&output);
    assert!(text.contains("2 files checked: 1 valid, 1 invalid"), "{text}");
}

#[test]
fn check_reports_warnings_and_strict_fails_on_them() {
    let path = fixture("Changan-Su__Apple-Style-Website-Editor__pencil-shadcn.pen");
    let output = nib(&["check", path.to_str().unwrap()]);
    assert!(output.status.success());
    assert!(stdout(&output).contains("warning"));
    assert!(stdout(&output).contains("\"transparent\""));
    let strict = nib(&["check", "--strict", path.to_str().unwrap()]);
    assert_eq!(strict.status.code(), Some(1));
}

#[test]
fn check_of_a_missing_file_says_so() {
    let output = nib(&["check", "/nonexistent/x.pen"]);
    assert_eq!(output.status.code(), Some(2), "a file that cannot be read");
    assert!(stderr(&output).contains("/nonexistent/x.pen: No such file"), "{}", stderr(&output));
}

#[test]
fn fmt_rewrites_hand_written_files_into_canonical_form() {
    let (_folder, path) = copy_to_temp("Pregum__pencil_viewer__public__samples__shapes.pen");
    let before = fs::read_to_string(&path).unwrap();
    let output = nib(&["fmt", path.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(stdout(&output).contains("formatted"));
    let after = fs::read_to_string(&path).unwrap();
    assert_ne!(before, after);
    assert!(after.starts_with("{\n  \"version\": \"2.10\",\n  \"children\": [\n    {\n"));
    assert!(!after.ends_with('\n'));
    let again = nib(&["fmt", "--check", path.to_str().unwrap()]);
    assert!(again.status.success());
    assert!(stdout(&again).contains("already canonical"));
}

#[test]
fn fmt_check_does_not_write() {
    let (_folder, path) = copy_to_temp("Pregum__pencil_viewer__public__samples__layout.pen");
    let before = fs::read(&path).unwrap();
    let output = nib(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("not canonical"));
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
fn fmt_never_writes_a_file_it_cannot_load() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("broken.pen");
    let broken = "{\"version\": \"2.8\", \"children\": [{\"type\": \"frame\", \"id\": \"a\"";
    fs::write(&path, broken).unwrap();
    let output = nib(&["fmt", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("truncated"), "{}", stderr(&output));
    assert_eq!(fs::read_to_string(&path).unwrap(), broken);
}

#[test]
fn fmt_leaves_canonical_files_alone() {
    let (_folder, path) = copy_to_temp("open-pencil__open-pencil__tests__fixtures__pencil_button.pen");
    let before = fs::read(&path).unwrap();
    let output = nib(&["fmt", path.to_str().unwrap()]);
    assert!(output.status.success());
    assert!(stdout(&output).contains("already canonical"));
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
fn usage_errors_exit_with_2() {
    let output = nib(&["check"]);
    assert_eq!(output.status.code(), Some(2));
}

fn nib_with_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = nib_command()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("nib runs");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("written");
    child.wait_with_output().expect("nib ends")
}

fn kit_copy() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("kit.pen");
    fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scripts/kit.pen"), &path).unwrap();
    (folder, path)
}

#[test]
fn apply_saves_a_successful_script() {
    let (folder, path) = kit_copy();
    let script = folder.path().join("s.txt");
    fs::write(&script, "card=I(\"Casf3fX\", {type: \"ref\", ref: \"CardComp\"})\nU(card+\"/title\", {content: \"Account\"})\nG(card+\"/contentSlot\", \"ai\", \"mountains\")").unwrap();
    let output = nib(&["apply", path.to_str().unwrap(), script.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(stdout(&output).starts_with("# Successfully executed all operations."));
    let saved = fs::read_to_string(&path).unwrap();
    assert!(saved.contains("\"content\": \"Account\""));
    assert!(fs::read_dir(folder.path().join("images")).unwrap().count() == 1);
    let check = nib(&["check", path.to_str().unwrap()]);
    assert!(check.status.success());
}

#[test]
fn apply_leaves_the_file_alone_when_the_script_fails() {
    let (_folder, path) = kit_copy();
    let before = fs::read(&path).unwrap();
    let output = nib_with_stdin(
        &["apply", path.to_str().unwrap(), "-"],
        "a=I(\"parent\", {type: \"frame\"})\nU(\"nowhere\", {gap: 1})",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("All operations in this block have been rolled back."));
    assert!(!stdout(&output).contains("Successfully"), "{}", stdout(&output));
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
fn apply_dry_run_writes_nothing() {
    let (folder, path) = kit_copy();
    let before = fs::read(&path).unwrap();
    let output =
        nib_with_stdin(&["apply", "--dry-run", path.to_str().unwrap(), "-"], "G(\"frameId\", \"stock\", \"bread\")");
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(fs::read(&path).unwrap(), before);
    assert!(!folder.path().join("images").exists(), "a dry run stores no images either");
}

#[test]
fn apply_says_when_images_are_offline_and_warns_about_unknown_settings() {
    let (folder, path) = kit_copy();
    let offline =
        nib_with_stdin(&["apply", "--dry-run", path.to_str().unwrap(), "-"], "G(\"frameId\", \"ai\", \"bread\")");
    assert!(stdout(&offline).contains("Images are offline (NIB_IMAGES=offline)"), "{}", stdout(&offline));
    let mut odd = nib_command();
    odd.env("NIB_IMAGES", "sometimes")
        .env_remove("UNSPLASH_ACCESS_KEY")
        .env_remove("NIB_IMAGE_API_KEY")
        .env_remove("OPENAI_API_KEY");
    let script = folder.path().join("frame.txt");
    fs::write(&script, "x=I(document, {type: \"frame\", width: 10, height: 10})").unwrap();
    let output = odd.args(["apply", "--dry-run", path.to_str().unwrap(), script.to_str().unwrap()]).output().unwrap();
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("NIB_IMAGES is \"sometimes\""));
}

#[test]
fn apply_answers_json_on_request() {
    let (_folder, path) = kit_copy();
    let output = nib_with_stdin(
        &["apply", "--json", "--dry-run", path.to_str().unwrap(), "-"],
        "x=I(document, {type: \"frame\", width: 10, height: 10})",
    );
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(answer["success"], true);
    assert_eq!(answer["bindings"][0]["name"], "x");
    assert_eq!(answer["results"][0]["op"], "inserted");
}

#[test]
fn call_runs_a_tool_with_json_arguments() {
    let (folder, _) = kit_copy();
    let output = nib_command()
        .current_dir(folder.path())
        .args(["call", "batch_get", "--args", "{\"filePath\": \"kit.pen\", \"nodeIds\": [\"parent\"]}"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stdout(&output));
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["nodes"][0]["id"], "parent");
    let failed = nib_command()
        .current_dir(folder.path())
        .args([
            "call",
            "batch_design",
            "--args",
            "{\"filePath\": \"kit.pen\", \"operations\": \"U(\\\"ghost\\\", {gap: 1})\"}",
        ])
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(1));
    let error: serde_json::Value = serde_json::from_slice(&failed.stdout).unwrap();
    assert!(error["error"].as_str().unwrap().contains("Node 'ghost' not found!"));
    assert_eq!(error["data"]["success"], false);
    let bad = nib(&["call", "batch_get", "--args", "{not json"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn call_works_inside_its_root_as_over_mcp() {
    let (outer, _) = kit_copy();
    let inner = outer.path().join("project");
    fs::create_dir(&inner).unwrap();
    fs::copy(outer.path().join("kit.pen"), inner.join("kit.pen")).unwrap();
    let call = |folder: &Path, args: &[&str]| {
        let mut command = nib_command();
        command.current_dir(folder).arg("call").args(args);
        command.output().unwrap()
    };
    let outside = outer.path().join("kit.pen");
    let before = fs::read(&outside).unwrap();
    // Reads outside the folder: through .., by an absolute path.
    for path in ["../kit.pen".to_owned(), outside.display().to_string(), "/etc/passwd".to_owned()] {
        let args = serde_json::json!({"filePath": path, "nodeIds": ["parent"]}).to_string();
        let output = call(&inner, &["batch_get", "--args", &args]);
        assert_eq!(output.status.code(), Some(1), "{path}: {}", stdout(&output));
        assert!(stdout(&output).contains("is outside the folder"), "{path}: {}", stdout(&output));
    }
    // Writes outside it: an export's outputPath, a batch_design on the document above.
    let export = r#"{"filePath": "kit.pen", "format": "svg", "nodeIds": ["parent"], "outputPath": "../x.svg"}"#;
    let output = call(&inner, &["export", "--args", export]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(!outer.path().join("x.svg").exists());
    let design = r#"{"filePath": "../kit.pen", "operations": "U(\"parent\", {gap: 3})"}"#;
    assert_eq!(call(&inner, &["batch_design", "--args", design]).status.code(), Some(1));
    assert_eq!(fs::read(&outside).unwrap(), before, "the file outside the root is untouched");
    // Inside the folder every path works, and --root names another folder.
    let inside = call(&inner, &["export", "--args", &export.replace("../x.svg", "x.svg")]);
    assert!(inside.status.success(), "{}", stdout(&inside));
    assert!(inner.join("x.svg").is_file());
    let rooted = call(
        outer.path(),
        &["--root", "project", "batch_get", "--args", r#"{"filePath": "kit.pen", "nodeIds": ["parent"]}"#],
    );
    assert!(rooted.status.success(), "{}", stdout(&rooted));
    let missing = call(outer.path(), &["--root", "nowhere", "get_editor_state"]);
    assert_eq!(missing.status.code(), Some(2), "{}", stdout(&missing));
}

#[test]
fn call_exits_1_when_the_answer_says_it_failed() {
    let (folder, _) = kit_copy();
    // execute with partial: the answer is not an error, but its success is false.
    let args = r#"{"filePath": "kit.pen", "partial": true, "input": "Update(\"parent\", {gap: 5});\nthrow new Error(\"stop\")"}"#;
    let output = nib_command().current_dir(folder.path()).args(["call", "execute", "--args", args]).output().unwrap();
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(answer["success"], false, "{answer}");
    assert_eq!(output.status.code(), Some(1), "{answer}");
}

#[test]
fn layout_prints_boxes_and_problems() {
    let path = fixture("Pregum__pencil_viewer__public__samples__dashboard.pen");
    let output = nib(&["layout", path.to_str().unwrap(), "--depth", "2"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.starts_with("frame 'Dashboard' (dash)  1200 × 700  at 0, 0  (x 0, y 0)\n"), "{text}");
    // "📊 Analytics": the emoji is drawn (and measured) with the first bundled face that has it,
    // no missing-glyph box, 106 wide as Chromium gives it with those faces; 31 tall, the union
    // of Inter and Noto Emoji rounded once as Pen rounds a line (Chromium rounds each: 30).
    assert!(text.contains("\n    text (logo)  106 × 31  at 16, 24  (x 16, y 24)\n"), "{text}");
    assert!(text.contains("      … 2 children\n"), "{text}");
    assert!(text.ends_with("No layout problems.\n"), "{text}");
    let json = nib(&["layout", path.to_str().unwrap(), "--node", "sidebar", "--depth", "0", "--json"]);
    let answer: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(answer["nodes"][0]["width"], 240);
    assert_eq!(answer["nodes"][0]["children"], "...");
}

#[test]
fn layout_problems_fail_like_a_linter() {
    let path = fixture("PKUbuntu__pen-viewer__sample.pen");
    let output = nib(&["layout", "--problems", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.starts_with("5 layout problems:\n- fill_outside_flex: 'Dashboard' (main-frame) has width fill_container at the top level"),
        "{text}"
    );
    let clean =
        nib(&["layout", "--problems", fixture("Pregum__pencil_viewer__public__samples__shapes.pen").to_str().unwrap()]);
    assert!(clean.status.success());
    assert_eq!(stdout(&clean), "No layout problems.\n");
    let missing = nib(&["layout", "nowhere.pen"]);
    assert_eq!(missing.status.code(), Some(2), "a file that cannot be read");
    assert!(stderr(&missing).contains("cannot read"), "{}", stderr(&missing));
}

fn png_size(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(fs::File::open(path).expect("png written")));
    let mut reader = decoder.read_info().expect("a png");
    let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/documents/showcase.pen")
}

#[test]
fn render_draws_the_canvas_and_the_same_bytes_every_time() {
    let folder = tempfile::tempdir().unwrap();
    let first = folder.path().join("first.png");
    let second = folder.path().join("second.png");
    for out in [&first, &second] {
        let output = nib(&["render", sample().to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(stdout(&output).contains("(1200 × 800)"), "{}", stdout(&output));
    }
    assert_eq!(fs::read(&first).unwrap(), fs::read(&second).unwrap(), "rendering is deterministic");
    let (width, height, _) = png_size(&first);
    assert_eq!((width, height), (1200, 800));
}

/// `NIB_RENDER_MEMORY` (README, Limits) is the command line's: the binary reads it and hands the
/// budget to the render stage, which reads no environment.
#[test]
fn render_memory_comes_from_the_environment_of_the_command_line() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("layers.pen");
    // A 1000 × 1000 frame with opacity paints into a layer of 5 MB.
    fs::write(
        &file,
        r##"{"version": "2.10", "children": [{"type": "frame", "id": "veil", "width": 1000, "height": 1000, "opacity": 0.5, "fill": "#2563EB",
          "children": [{"type": "rectangle", "id": "dot", "width": 10, "height": 10, "fill": "#FFFFFF"}]}]}"##,
    )
    .unwrap();
    let out = folder.path().join("out.png");
    let render = |budget: &str| {
        nib_command()
            .env("NIB_RENDER_MEMORY", budget)
            .args(["render", file.to_str().unwrap(), "-o", out.to_str().unwrap()])
            .output()
            .expect("nib runs")
    };
    let small = render("1MB");
    assert!(!small.status.success(), "{}", stdout(&small));
    assert!(stderr(&small).contains("more than the 1 MB a render may take"), "{}", stderr(&small));
    let enough = render("512MB");
    assert!(enough.status.success(), "{}", stderr(&enough));
    let nonsense = render("lots");
    assert_eq!(nonsense.status.code(), Some(2));
    assert!(stderr(&nonsense).contains("NIB_RENDER_MEMORY=\"lots\" is not a size"), "{}", stderr(&nonsense));
}

#[test]
fn render_scales_and_fills_the_background() {
    let folder = tempfile::tempdir().unwrap();
    let document = folder.path().join("dot.pen");
    fs::write(
        &document,
        r##"{"version": "2.10", "children": [
  {"type": "ellipse", "id": "dot", "x": 10, "y": 10, "width": 20, "height": 20, "fill": "#ff0000"}
]}"##,
    )
    .unwrap();
    let out = folder.path().join("dot.png");
    let output = nib(&[
        "render",
        document.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--scale",
        "2",
        "--background",
        "#0000ff",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (width, height, pixels) = png_size(&out);
    assert_eq!((width, height), (40, 40), "the canvas is the ellipse's box, doubled");
    let pixel = |x: u32, y: u32| &pixels[((y * width + x) * 4) as usize..][..4];
    assert_eq!(pixel(20, 20), [255, 0, 0, 255], "the centre is the fill");
    assert_eq!(pixel(0, 0), [0, 0, 255, 255], "the corner outside the circle is the background");
}

#[test]
fn render_timings_say_every_stage_and_change_no_pixel() {
    // A frame with text, gradients, shadows and a blur, so every kind of paint is there.
    let path = fixture("ChenNima__Gleaner__design.pen");
    let folder = tempfile::tempdir().unwrap();
    let (plain, timed) = (folder.path().join("plain.png"), folder.path().join("timed.png"));
    let file = path.to_str().unwrap();
    let output = nib(&["render", file, "--node", "S2x2C", "-o", plain.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let output = nib(&["render", file, "--node", "S2x2C", "--timings", "--json", "-o", timed.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(fs::read(&plain).unwrap(), fs::read(&timed).unwrap(), "measuring changes no byte of the PNG");

    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("one JSON report");
    let pictures = report["timings"].as_array().expect("timings");
    assert_eq!(pictures.len(), 1, "{pictures:?}");
    let picture = &pictures[0];
    let stages = picture["stages"].as_object().expect("stages");
    let names = [
        "read",
        "resolve",
        "text",
        "layout",
        "display",
        "paint.text",
        "paint.blur",
        "paint.shadows",
        "paint.images",
        "paint.gradients",
        "paint.other",
        "encode",
    ];
    let ms = |value: &serde_json::Value| value.as_f64().expect("a number of milliseconds");
    for name in names {
        assert!(ms(&stages[name]) >= 0.0, "{name}: {stages:?}");
    }
    assert_eq!(stages.len(), names.len(), "{stages:?}");
    let kinds: f64 = names.iter().filter(|n| n.starts_with("paint.")).map(|n| ms(&stages[*n])).sum();
    let sum: f64 = names.iter().map(|n| ms(&stages[*n])).sum();
    // Floating-point sums: a microsecond of slack for their rounding.
    assert!(kinds <= ms(&picture["paint"]) + 1e-3, "{kinds} > paint {picture}");
    assert!(sum <= ms(&picture["total"]) + 1e-3, "{sum} > total {picture}");

    // Without --json the same stages are a table on stderr.
    let output = nib(&["render", file, "--node", "S2x2C", "--timings", "-o", timed.to_str().unwrap()]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    for row in ["read", "resolve", "layout", "display", "paint", "shadows", "gradients", "encode", "total"] {
        assert!(stderr.lines().any(|line| line.trim_start().starts_with(row)), "{row}: {stderr}");
    }
}

#[test]
fn render_one_node_or_every_frame_into_a_folder() {
    let path = fixture("Pregum__pencil_viewer__public__samples__dashboard.pen");
    let folder = tempfile::tempdir().unwrap();
    let sidebar = folder.path().join("sidebar.png");
    let output = nib(&["render", path.to_str().unwrap(), "--node", "sidebar", "-o", sidebar.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(png_size(&sidebar).0, 240, "the sidebar is 240 wide");

    let frames = folder.path().join("frames");
    let path = fixture("LIU9293__cirrus__design.pen");
    let output = nib(&["render", path.to_str().unwrap(), "--all", "-o", frames.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut written: Vec<String> =
        fs::read_dir(&frames).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    written.sort();
    assert_eq!(written.len(), 30, "{written:?}");
    assert!(written[0].starts_with("01-") && written[0].ends_with(".png"), "{written:?}");
    assert_eq!(stdout(&output).lines().count(), 30, "one line per frame");
    for name in &written {
        let (width, height, _) = png_size(&frames.join(name));
        assert!(width > 0 && height > 0);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Issue 13: the brand icons lucide 1.x dropped draw again; nothing in this file is missing.
    assert!(!stderr.contains("icon 'github'"), "{stderr}");
}

#[test]
fn render_reports_what_it_cannot_draw() {
    let folder = tempfile::tempdir().unwrap();
    let document = folder.path().join("photo.pen");
    fs::write(
        &document,
        r##"{"version": "2.10", "children": [
  {"type": "rectangle", "id": "photo", "width": 64, "height": 48,
   "fill": {"type": "image", "url": "./images/missing.png", "mode": "fill"}}
]}"##,
    )
    .unwrap();
    let out = folder.path().join("photo.png");
    let output = nib(&["render", document.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(output.status.success(), "a missing image is a warning, not a failure");
    let warnings = stderr(&output);
    assert!(warnings.contains("warning: node 'photo'") && warnings.contains("missing.png"), "{warnings}");
    assert_eq!(png_size(&out).0, 64);

    let unknown = nib(&["render", document.to_str().unwrap(), "--node", "nope", "-o", out.to_str().unwrap()]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(stderr(&unknown).contains("node 'nope' not found"), "{}", stderr(&unknown));
    assert!(stderr(&unknown).contains("hint:"), "{}", stderr(&unknown));

    let broken = folder.path().join("broken.pen");
    fs::write(&broken, "{\"version\": \"2.10\", \"children\": [").unwrap();
    let output = nib(&["render", broken.to_str().unwrap(), "-o", folder.path().join("b.png").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("broken.pen:1:"), "{}", stderr(&output));
    assert!(!folder.path().join("b.png").exists(), "nothing is written for a file that does not load");

    let bad_scale = nib(&["render", document.to_str().unwrap(), "--scale", "0"]);
    assert_eq!(bad_scale.status.code(), Some(2));
}

#[test]
fn apply_with_a_seed_gives_the_same_ids_every_time() {
    let (first_folder, first) = kit_copy();
    let (_second_folder, second) = kit_copy();
    let script = first_folder.path().join("s.txt");
    fs::write(&script, "card=I(\"Casf3fX\", {type: \"frame\", layout: \"vertical\"})\nI(card, {type: \"text\", content: \"Hi\", fill: \"#000000\"})").unwrap();
    for file in [&first, &second] {
        let output = nib(&["apply", "--seed", "7", file.to_str().unwrap(), script.to_str().unwrap()]);
        assert!(output.status.success(), "{}", stdout(&output));
    }
    assert_eq!(fs::read(&first).unwrap(), fs::read(&second).unwrap());
    let (_third_folder, third) = kit_copy();
    nib(&["apply", "--seed", "8", third.to_str().unwrap(), script.to_str().unwrap()]);
    assert_ne!(fs::read(&first).unwrap(), fs::read(&third).unwrap(), "another seed, other ids");
}

#[test]
fn check_reports_what_a_file_refers_to_but_is_not_there() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("refs.pen");
    fs::write(
        &path,
        r##"{"version": "2.10", "children": [
  {"type": "frame", "id": "card", "reusable": true, "width": 100, "height": 50, "children": [
    {"type": "text", "id": "title", "content": "Hi", "fill": "#000000"}]},
  {"type": "ref", "id": "one", "ref": "card", "x": 200, "descendants": {"subtitle": {"content": "x"}}},
  {"type": "ref", "id": "two", "ref": "gone", "x": 400},
  {"type": "rectangle", "id": "photo", "x": 600, "width": 10, "height": 10,
   "fill": {"type": "image", "url": "./images/hero.png", "mode": "fill"}}
]}"##,
    )
    .unwrap();
    let output = nib(&["check", path.to_str().unwrap()]);
    let text = stdout(&output);
    assert!(output.status.success(), "warnings do not fail without --strict: {text}");
    assert!(text.contains("node 'two'") && text.contains("gone"), "{text}");
    assert!(text.contains("subtitle"), "an override that matches nothing: {text}");
    assert!(text.contains("node 'photo': image './images/hero.png' not found at"), "{text}");
    let strict = nib(&["check", "--strict", path.to_str().unwrap()]);
    assert_eq!(strict.status.code(), Some(1));
    fs::create_dir(folder.path().join("images")).unwrap();
    fs::write(folder.path().join("images/hero.png"), b"any bytes").unwrap();
    assert!(!stdout(&nib(&["check", path.to_str().unwrap()])).contains("hero.png"));
}

/// `nib check` says what it found by severity, not by where it was found: the error first (on
/// standard error), then the warnings, then the notes, though loading said the note first.
#[test]
fn check_groups_its_findings_by_severity() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("all.pen");
    let bomb =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile/instance-bomb.pen"))
            .unwrap();
    let extra = r##"{"type": "rectangle", "id": "tolerated", "width": 10, "height": 10, "fill": "#GG0000"}, {"type": "rectangle", "id": "keyword", "width": 10, "height": 10, "fill": "transparent"}, "##;
    let text = bomb.replacen("\"children\": [", &format!("\"children\": [{extra}"), 1);
    assert_ne!(text, bomb);
    fs::write(&path, text).unwrap();
    let output = nib(&["check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "an error fails without --strict");
    let errors = stderr(&output);
    assert!(errors.contains("expand to more than 200000 nodes"), "{errors}");
    let said = stdout(&output);
    let lines: Vec<&str> = said.lines().collect();
    let warning = lines.iter().position(|l| l.starts_with("  warning ") && l.contains("\"transparent\""));
    let note = lines.iter().position(|l| l.starts_with("  note ") && l.contains("\"#GG0000\""));
    let (Some(warning), Some(note)) = (warning, note) else { panic!("a warning and a note: {said}") };
    assert!(warning < note, "warnings before notes: {said}");
    let last_warning = lines.iter().rposition(|l| l.starts_with("  warning ")).unwrap();
    let first_note = lines.iter().position(|l| l.starts_with("  note ")).unwrap();
    assert!(last_warning < first_note, "grouped: {said}");
    assert!(said.contains("0 valid, 1 invalid, 1 warning\n"), "the note is not counted: {said}");

    // Without the error, warnings still fail only --strict and notes never do.
    let fine = folder.path().join("fine.pen");
    fs::write(
        &fine,
        r##"{"version": "2.8", "children": [{"type": "rectangle", "id": "tolerated", "width": 10, "height": 10, "fill": "#GG0000"}]}"##,
    )
    .unwrap();
    let strict = nib(&["check", "--strict", fine.to_str().unwrap()]);
    assert!(strict.status.success(), "a note does not fail --strict: {}", stdout(&strict));
    assert!(stdout(&strict).contains("  note "), "{}", stdout(&strict));
}

#[test]
fn a_closed_output_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    let path = fixture("LIU9293__cirrus__design.pen");
    let mut child = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["layout", "--depth", "50", path.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("nib runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("frame "), "{first}");
    // The reader is gone (dropped above), as with `nib layout … | head -1`.
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.status.success(), "{:?}", output.status);
}

/// The issue's reproduction: `nib check` aborted on allocation failure. Now every command that
/// resolves the file refuses it with the place and the chain of instances.
#[test]
fn an_instance_bomb_is_an_error_with_its_place_not_a_crash() {
    let bomb = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile/instance-bomb.pen");
    let bomb = bomb.to_str().unwrap();
    let check = nib(&["check", bomb]);
    assert_eq!(check.status.code(), Some(1));
    let errors = stderr(&check);
    assert!(
        errors.contains("instance-bomb.pen:1:155: the instances in 'c0_0' (at /children/0/children/0) expand to more than 200000 nodes"),
        "{errors}"
    );
    assert!(
        errors.contains("c0_0 → A1 › c1_0 → A2 › ") && errors.contains("hint: a component contains many instances"),
        "{errors}"
    );
    assert!(stdout(&check).contains("0 valid, 1 invalid"), "{}", stdout(&check));
    let out = tempfile::tempdir().unwrap();
    let png = out.path().join("bomb.png");
    for args in
        [vec!["render", bomb, "-o", png.to_str().unwrap()], vec!["layout", bomb], vec!["layout", "--problems", bomb]]
    {
        let output = nib(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let errors = stderr(&output);
        assert!(errors.contains("instance-bomb.pen:1:155: the instances in 'c0_0'"), "{args:?}: {errors}");
        assert!(errors.contains("hint: "), "{args:?}: {errors}");
    }
    assert!(!png.exists());
}

/// Issue 13's frame that turned from near-black to grey: a missing background photo over a dark
/// fill. The fill stays; only `--mark-missing` draws the grey box.
#[test]
fn a_missing_image_draws_nothing_over_the_design_unless_marked() {
    let folder = tempfile::tempdir().unwrap();
    let document = folder.path().join("dark.pen");
    fs::write(
        &document,
        r##"{"version": "2.10", "children": [
  {"type": "frame", "id": "hero", "width": 40, "height": 30,
   "fill": ["#101014", {"type": "image", "url": "./images/background.jpg", "mode": "fill"}]}
]}"##,
    )
    .unwrap();
    let out = folder.path().join("dark.png");
    let output = nib(&["render", document.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(output.status.success());
    assert!(stderr(&output).contains("background.jpg"), "the warning stays: {}", stderr(&output));
    let (_, _, pixels) = png_size(&out);
    assert_eq!(&pixels[..4], &[16, 16, 20, 255], "the dark fill below is untouched");
    let marked = nib(&["render", document.to_str().unwrap(), "--mark-missing", "-o", out.to_str().unwrap()]);
    assert!(marked.status.success());
    let (_, _, pixels) = png_size(&out);
    assert_eq!(&pixels[..4], &[229, 231, 235, 255], "asked for: the grey marker");
}

/// Issue 13: `nib render --all` wrote a 73-byte PNG for the top-level 'Dashboard' frame sized
/// fill_container, which has no parent to fill. It hugs its content now, and says so once.
#[test]
fn a_top_level_fill_container_frame_hugs_its_content_instead_of_rendering_empty() {
    let out = tempfile::tempdir().unwrap();
    let path = fixture("PKUbuntu__pen-viewer__sample.pen");
    let output = nib(&["render", "--all", path.to_str().unwrap(), "-o", out.path().to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let frame = out.path().join("01-Dashboard.png");
    assert!(fs::metadata(&frame).unwrap().len() > 10_000);
    let (width, height, _) = png_size(&frame);
    assert_eq!((width, height), (1132, 596));
    let problems = stdout(&nib(&["layout", "--problems", path.to_str().unwrap()]));
    assert_eq!(problems.matches("fill_container at the top level").count(), 2, "once per axis: {problems}");
}

/// A document asking for a closed family with an open twin, a Google Fonts family nib does not
/// bundle (Lobster, a display face; Cutive Mono, monospaced) and a bundled one, twice each.
fn fonts_document(folder: &Path) -> PathBuf {
    let text = |id: &str, family: &str| {
        format!(
            r##"{{"type":"text","id":"{id}","content":"Hello","fontFamily":"{family}","fontSize":16,"fill":"#000000"}}"##
        )
    };
    let children = [
        text("c1", "Courier New"),
        text("c2", "Courier New"),
        text("l1", "Lobster"),
        text("l2", "Lobster"),
        text("m1", "Cutive Mono"),
        text("d1", "DM Sans"),
    ]
    .join(",");
    let path = folder.join("fonts.pen");
    fs::write(
        &path,
        format!(
            r##"{{"version":"2.10","children":[{{"type":"frame","id":"f","width":300,"height":200,"layout":"vertical","fill":"#FFFFFF","children":[{children}]}}]}}"##
        ),
    )
    .unwrap();
    path
}

/// Offline with an empty cache: nothing can be fetched, so every substitution is said.
fn nib_offline(cache: &Path, args: &[&str]) -> Output {
    nib_command().env("NIB_FONTS", "offline").env("NIB_FONT_CACHE", cache).args(args).output().expect("nib runs")
}

#[test]
fn check_and_render_say_every_substitution_once_per_family_with_its_stand_in() {
    let folder = tempfile::tempdir().unwrap();
    let file = fonts_document(folder.path());
    let cache = folder.path().join("cache");
    for args in [vec!["check"], vec!["render", "-o", folder.path().join("out.png").to_str().unwrap()]] {
        let mut args = args.clone();
        args.push(file.to_str().unwrap());
        let output = nib_offline(&cache, &args);
        // `nib check` reports its warnings with the rest of its report (standard output, and
        // `--strict` fails on them); `nib render` says them on standard error.
        let err = format!("{}{}", stdout(&output), stderr(&output));
        assert_eq!(err.matches("'Courier New'").count(), 1, "{args:?}: {err}");
        assert!(err.contains("metric-compatible open twin Liberation Mono"), "{args:?}: {err}");
        assert_eq!(err.matches("'Lobster' (Google Fonts, display)").count(), 1, "{args:?}: {err}");
        assert!(err.contains("'Cutive Mono' (Google Fonts, monospace)"), "{args:?}: {err}");
        assert!(!err.contains("'DM Sans'"), "a bundled family is not a substitution: {err}");
        // A monospaced family never stands in with a proportional face.
        let mono = err.lines().find(|l| l.contains("'Cutive Mono'")).unwrap();
        assert!(mono.contains("drawn with JetBrains Mono") || mono.contains("drawn with Liberation Mono"), "{mono}");
    }
}

#[test]
fn render_json_lists_the_font_files_used() {
    let folder = tempfile::tempdir().unwrap();
    let file = fonts_document(folder.path());
    let out = folder.path().join("out.png");
    let output = nib_offline(
        &folder.path().join("cache"),
        &["render", file.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"],
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let files: Vec<&str> = report["fonts"].as_array().unwrap().iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert!(files.iter().any(|f| f.starts_with("liberation/LiberationMono")), "{files:?}");
    assert!(files.iter().any(|f| f.starts_with("dm-sans/")), "{files:?}");
    assert!(report["fonts"].as_array().unwrap().iter().all(|f| f["origin"] == "bundled"), "{report}");
}

#[test]
fn fonts_lists_what_a_document_needs_and_fails_when_one_is_replaced() {
    let folder = tempfile::tempdir().unwrap();
    let file = fonts_document(folder.path());
    let cache = folder.path().join("cache");
    let output = nib_offline(&cache, &["fonts", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("DM Sans: bundled (1 text node)"), "{text}");
    assert!(text.contains("Courier New: replaced by Liberation Mono (2 text nodes)"), "{text}");
    assert!(text.contains("4 families, 3 replaced"), "{text}");
    // The list names the bundled families and where the cache is.
    let list = stdout(&nib_offline(&cache, &["fonts"]));
    for family in ["Inter  (bundled", "Noto Sans SC  (bundled", "Playfair Display  (bundled"] {
        assert!(list.contains(family), "{family}: {list}");
    }
    assert!(list.contains("fetching is off"), "{list}");
    // Fetching offline is refused with the reason, before any connection.
    let fetch = nib_offline(&cache, &["fonts", "fetch", "Lobster"]);
    assert_eq!(fetch.status.code(), Some(2));
    assert!(stderr(&fetch).contains("NIB_FONTS=offline"), "{}", stderr(&fetch));
}

/// The table of bundled fonts was a `const`: every function reading it got its own copy of all
/// the font bytes, and the binary carried each font twice (30 MB more than the fonts). Since
/// issue 31 a WOFF2 file is embedded decoded (its face once, the WOFF2 bytes not at all).
#[test]
fn the_bundled_fonts_are_embedded_once_in_the_binary() {
    let binary = fs::read(env!("CARGO_BIN_EXE_nib")).unwrap();
    let fonts = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/fonts");
    let copies = |bytes: &[u8]| {
        let probe = &bytes[bytes.len() / 2..bytes.len() / 2 + 256];
        (0..binary.len() - probe.len()).filter(|&i| binary[i] == probe[0] && binary[i..].starts_with(probe)).count()
    };
    for file in [
        "dm-sans/dm-sans-latin-wght-normal.woff2",
        "inter/inter-latin-wght-normal.woff2",
        "jetbrains-mono/JetBrainsMono-Regular.ttf",
        "noto-emoji/noto-emoji-0-wght-normal.woff2",
    ] {
        let bytes = fs::read(fonts.join(file)).unwrap();
        if file.ends_with(".woff2") {
            assert_eq!(copies(&bytes), 0, "{file} is in the binary as WOFF2");
            let face = wuff::decompress_woff2(&bytes).unwrap();
            assert_eq!(copies(&face), 1, "{file}'s face is in the binary {} times", copies(&face));
        } else {
            assert_eq!(copies(&bytes), 1, "{file} is in the binary {} times", copies(&bytes));
        }
    }
}

#[test]
fn export_writes_one_file_a_folder_of_frames_or_a_deck() {
    let (folder, path) = copy_to_temp("Pregum__pencil_viewer__public__samples__mobile-app.pen");
    let file = path.to_str().unwrap();
    let out = folder.path().join("out");
    let svg = out.join("home.svg");
    let done = nib(&["export", file, "--format", "svg", "--node", "s1", "-o", svg.to_str().unwrap()]);
    assert!(done.status.success(), "{}", stderr(&done));
    assert!(fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    let frames = out.join("frames");
    let done = nib(&["export", file, "--format", "png", "--all", "-o", frames.to_str().unwrap()]);
    assert!(done.status.success(), "{}", stderr(&done));
    assert!(frames.join("03-Home.png").exists(), "{}", stdout(&done));
    let done = nib(&["export", file, "--format", "webp", "--all", "--quality", "0"]);
    assert!(!done.status.success() && stderr(&done).contains("quality"), "{}", stderr(&done));
}

#[test]
fn export_into_a_folder_named_with_a_slash_writes_the_file_inside_it() {
    // `-o out/` for a one-file export once tried to write a file called `out/`.
    let (folder, path) = copy_to_temp("Pregum__pencil_viewer__public__samples__mobile-app.pen");
    let out = format!("{}/decks/", folder.path().display());
    let done = nib(&["export", path.to_str().unwrap(), "--format", "pdf", "--all", "-o", &out]);
    assert!(done.status.success(), "{}", stderr(&done));
    let written: Vec<_> = fs::read_dir(&out).unwrap().filter_map(|e| e.ok()).collect();
    assert_eq!(written.len(), 1, "{}", stdout(&done));
    assert!(fs::read(written[0].path()).unwrap().starts_with(b"%PDF"));
}

/// A snippet's dates are the same whatever the machine's time zone (a POSIX TZ string needs
/// no time zone database, so the test cannot pass for want of one).
#[test]
fn exec_dates_do_not_depend_on_the_time_zone() {
    let folder = tempfile::tempdir().unwrap();
    let document = folder.path().join("d.pen");
    fs::write(&document, "{\n  \"version\": \"2.20\",\n  \"children\": []\n}\n").unwrap();
    let snippet = folder.path().join("dates.js");
    fs::write(
        &snippet,
        "return [new Date(2020, 0, 1).getTime(), new Date(0).getHours(), String(new Date(0)), Date.parse('2020-01-01T00:00'), new Date(0).getTimezoneOffset()];",
    )
    .unwrap();
    let mut answers = Vec::new();
    for zone in ["UTC0", "IST-5:30", "EST5EDT"] {
        let done = nib_command()
            .env("TZ", zone)
            .args(["exec", &document.to_string_lossy(), &snippet.to_string_lossy()])
            .output()
            .expect("nib runs");
        assert!(done.status.success(), "{}", stderr(&done));
        let answer: serde_json::Value = serde_json::from_str(&stdout(&done)).unwrap();
        answers.push(answer["result"].clone());
    }
    assert_eq!(
        answers[0],
        serde_json::json!([1577836800000i64, 0, "Thu Jan 01 1970 00:00:00 GMT+0000", 1577836800000i64, 0])
    );
    assert_eq!(answers[1], answers[0], "India");
    assert_eq!(answers[2], answers[0], "New York");
}

/// The README's table of limits states the values the code has.
#[test]
fn the_readme_states_the_limits_the_code_has() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README");
    let table = readme.split("## Limits").nth(1).and_then(|rest| rest.split("\n## ").next()).expect("a Limits section");
    let mib = |bytes: u64| format!("{} MiB", bytes >> 20);
    let expected = [
        mib(nib::doc::MAX_FILE_BYTES as u64),
        format!("{} nodes", nib::doc::MAX_NODES),
        format!("{} unknown keys", nib::doc::MAX_UNKNOWN_KEYS),
        format!("JSON nested {} deep", nib::doc::json::MAX_DEPTH),
        format!("{} KiB of script", nib::script::MAX_SCRIPT_BYTES >> 10),
        format!("| {} KiB, read from a file, a pipe or standard input", nib::tools::MAX_SNIPPET_BYTES >> 10),
        format!("{} nodes created", nib::resolve::MAX_EXPANDED_NODES),
        format!("{} of values copied", mib(nib::resolve::MAX_COPIED_BYTES as u64)),
        format!("{} characters laid out and drawn", nib::resolve::MAX_TEXT_CHARS),
        format!("{} statements", nib::script::DEFAULT_MAX_STATEMENTS),
        format!(
            "{} potential issues, {} new layout problems",
            nib::script::issues::MAX_ISSUES,
            nib::tools::introduced::MAX_SAID_PROBLEMS
        ),
        format!("{} layout problems compared", nib::layout::MAX_COMPARED_PROBLEMS),
        format!("{} px a side, {} pixels", nib::render::MAX_SIDE, nib::render::MAX_PIXELS),
        format!("at most {} pixels each", nib::render::alone::MAX_EFFECT_PIXELS),
        format!("{} for all renders", mib(nib::render::memory::RENDER_MEMORY)),
        format!("files up to {}", mib(nib::host::MAX_IMAGE_BYTES)),
        format!("within {} pixels", nib::render::MAX_DECODED_PIXELS),
        format!("JPEG up to {} pixels", nib::render::MAX_JPEG_PIXELS),
        format!("{} per document", mib(nib::host::IMAGE_CACHE_BYTES)),
        format!("script files up to {}", mib(nib::host::MAX_SCRIPT_FILE_BYTES)),
        format!(
            "{} MB of heap, {} KiB of stack, {} s",
            nib::js::Limits::PEN.heap_bytes >> 20,
            nib::js::Limits::PEN.stack_bytes >> 10,
            nib::js::Limits::PEN.deadline.as_secs()
        ),
        format!("{} nodes drawn", nib::resolve::MAX_SCRIPT_NODES),
        format!("{} KiB of snippet", nib::tools::MAX_SNIPPET_BYTES >> 10),
        format!("{} KiB of markup and {} shapes", nib::tools::MAX_SVG_BYTES >> 10, nib::tools::MAX_SVG_SHAPES),
        format!("{} nodes a document", nib::review::lint::MAX_LINT_NODES),
        format!("{} s per call", nib::tools::CALL_LIMIT.as_secs()),
        format!("{} writes and {} new nodes per call", nib::tools::MAX_CALL_WRITES, nib::tools::MAX_CALL_NODES),
        format!("{} exported files per call", nib::tools::MAX_CALL_EXPORTED_FILES),
        format!("the first {} files listed", nib::tools::MAX_LISTED_FILES),
        format!("{} nodes per `Get(visitor)` walk", nib::tools::MAX_WALKED_NODES),
        format!("{} characters of `Print`", nib::tools::MAX_PRINTED_CHARS),
        format!("the last {} snippets kept", nib::tools::KEPT_SNIPPETS),
        format!("{} MB a file", nib::review::snapshot::MAX_GOLDEN_BYTES / 1_000_000),
        format!("{} of PNG", mib(nib::tools::MAX_SCREENSHOT_BYTES as u64)),
        format!(
            "{} a document and {} of PNG",
            nib::tools::render_cache::MAX_ENTRIES,
            mib(nib::tools::render_cache::MAX_BYTES as u64)
        ),
        format!(
            "the last {} drawn also unencoded, up to {} pixels",
            nib::tools::render_cache::MAX_KEPT_PICTURES,
            nib::tools::render_cache::MAX_KEPT_PIXELS
        ),
        format!("the first {} entries are", nib::files::MAX_SCANNED_ENTRIES),
        format!("| {} s (`NIB_LOCK_WAIT=SECONDS`)", nib::files::LOCK_WAIT.as_secs()),
        mib(nib::mcp::MAX_MESSAGE_BYTES as u64),
        format!("{} requests read ahead of the answers", nib::mcp::MAX_UNWRITTEN_ANSWERS),
        format!("{} open, {} per remote address", nib::serve::MAX_CONNECTIONS, nib::serve::MAX_PER_PEER),
        format!("headers {} s to arrive", nib::serve::HEADER_READ_TIMEOUT.as_secs()),
        format!(
            "a request body {} s plus 1 s for every {} KiB",
            nib::serve::BODY_READ_TIMEOUT.as_secs(),
            nib::serve::BODY_BYTES_PER_SECOND >> 10
        ),
        format!("{} at once; a session idle {} s", nib::serve::MAX_SESSIONS, nib::serve::SESSION_IDLE.as_secs()),
        format!(
            "{} KiB request bodies, {} event streams",
            nib::serve::MAX_API_BODY_BYTES >> 10,
            nib::serve::MAX_EVENT_STREAMS
        ),
        format!(
            "{} min unless asked, at most {} min a claim; {} claims a session, {} in a server",
            nib::tools::DEFAULT_CLAIM.as_secs() / 60,
            nib::tools::MAX_CLAIM.as_secs() / 60,
            nib::tools::MAX_CLAIMS_PER_SESSION,
            nib::tools::MAX_CLAIMS
        ),
        format!(
            "the last {} writes remembered; {} characters an answer",
            nib::tools::MAX_JOURNAL_ENTRIES,
            nib::tools::MAX_SUMMARY_CHARS
        ),
        format!("| {} characters; control characters become spaces", nib::files::MAX_WRITER_NAME_CHARS),
    ];
    assert_eq!(
        nib::script::MAX_SCRIPT_BYTES,
        nib::tools::MAX_SNIPPET_BYTES,
        "the row of script and snippet files states one size for both"
    );
    for value in expected {
        assert!(table.contains(&value), "the Limits table does not say {value:?}");
    }
}

/// Every command `nib --help` lists has a copy-paste example in a shell block of the README.
#[test]
fn the_readme_has_an_example_of_every_command() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README");
    let examples: Vec<&str> = readme
        .split("```sh\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .flat_map(str::lines)
        .map(str::trim_start)
        .collect();
    let help = nib(&["--help"]);
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .and_then(|rest| rest.split("Options:").next())
        .expect("a command list")
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(commands.len() >= 15, "{commands:?}");
    let missing: Vec<&&str> =
        commands.iter().filter(|name| !examples.iter().any(|line| line.starts_with(&format!("nib {name} ")))).collect();
    assert!(missing.is_empty(), "commands without an example in the README: {missing:?}");
}

/// `nib export --format react`: the same design gives the same bytes, and `--check` says
/// whether a folder holds what the export would write (changed, missing and left-over files),
/// writing nothing.
#[test]
fn react_export_is_deterministic_and_checked_against_a_folder() {
    let folder = tempfile::tempdir().unwrap();
    let design = folder.path().join("shop.pen");
    fs::write(
        &design,
        r##"{"version": "2.10", "children": [
  {"type": "frame", "id": "btn", "name": "Button", "reusable": true, "x": 0, "y": 0, "width": 140, "height": 40,
    "layout": "horizontal", "justifyContent": "center", "alignItems": "center", "fill": "#1E40AF",
    "children": [{"type": "text", "id": "label", "name": "Label", "content": "Go", "fill": "#FFFFFF"}]},
  {"type": "frame", "id": "page", "name": "Checkout", "x": 0, "y": 100, "width": 320, "height": 128, "layout": "vertical",
    "gap": 16, "padding": 16, "children": [
    {"type": "ref", "id": "buy", "ref": "btn", "descendants": {"label": {"content": "Buy now"}}},
    {"type": "ref", "id": "back", "ref": "btn", "descendants": {"label": {"enabled": false}}}]}]}"##,
    )
    .unwrap();
    let read_all = |root: &Path| -> std::collections::BTreeMap<String, Vec<u8>> {
        let mut files = std::collections::BTreeMap::new();
        let mut stack = vec![root.to_owned()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    files.insert(path.strip_prefix(root).unwrap().display().to_string(), fs::read(&path).unwrap());
                }
            }
        }
        files
    };
    let (a, b) = (folder.path().join("a"), folder.path().join("b"));
    for out in [&a, &b] {
        let output = nib(&["export", design.to_str().unwrap(), "--format", "react", "-o", out.to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let files = read_all(&a);
    assert_eq!(files, read_all(&b), "the same design, the same bytes");
    for name in ["components/Button.tsx", "pages/Checkout.tsx", "index.ts", "theme.css", "tailwind.css"] {
        assert!(files.contains_key(name), "{name} in {:?}", files.keys().collect::<Vec<_>>());
    }
    let page = String::from_utf8_lossy(&files["pages/Checkout.tsx"]).into_owned();
    // At its component's own size an instance passes no size (issue 58, item 3).
    assert!(page.contains("<Button label={\"Buy now\"} />"), "{page}");
    assert!(page.contains("showLabel={false}"), "{page}");
    let check = |expect_ok: bool| {
        let output =
            nib(&["export", design.to_str().unwrap(), "--format", "react", "-o", a.to_str().unwrap(), "--check"]);
        assert_eq!(output.status.success(), expect_ok, "{}{}", stdout(&output), stderr(&output));
        stdout(&output)
    };
    assert!(check(true).contains("files are as the export writes them"));
    fs::write(a.join("components/Button.tsx"), "// edited by hand\n").unwrap();
    fs::remove_file(a.join("index.ts")).unwrap();
    fs::write(a.join("pages/Old.tsx"), "export {};\n").unwrap();
    let said = check(false);
    assert!(said.contains("components/Button.tsx: differs"), "{said}");
    assert!(said.contains("index.ts: missing"), "{said}");
    assert!(said.contains("pages/Old.tsx: not written by the export"), "{said}");
    assert_eq!(fs::read_to_string(a.join("components/Button.tsx")).unwrap(), "// edited by hand\n", "nothing written");
    assert!(!a.join("index.ts").exists());
}

/// Themes reach React components as props: a prop per theme axis, typed with its values, set
/// where an instance chooses a theme and otherwise inherited from the page.
#[test]
fn react_components_take_their_theme_as_a_prop() {
    let folder = tempfile::tempdir().unwrap();
    let design = folder.path().join("themed.pen");
    fs::write(
        &design,
        r##"{"version": "2.10", "themes": {"Mode": ["Light", "Dark"]},
 "variables": {"--bg": {"type": "color", "value": [{"value": "#FFFFFF"}, {"value": "#111111", "theme": {"Mode": "Dark"}}]}},
 "children": [
  {"type": "frame", "id": "card", "name": "Card", "reusable": true, "x": 0, "y": 0, "width": 100, "height": 40, "fill": "$--bg",
   "children": [{"type": "text", "id": "t", "name": "Title", "content": "Hi", "fill": "#888888"}]},
  {"type": "frame", "id": "page", "name": "Page", "x": 0, "y": 100, "width": 300, "height": 100, "layout": "vertical", "theme": {"Mode": "Dark"},
   "children": [{"type": "ref", "id": "c1", "ref": "card"}, {"type": "ref", "id": "c2", "ref": "card", "theme": {"Mode": "Light"}}]}]}"##,
    )
    .unwrap();
    let out = folder.path().join("out");
    let output = nib(&["export", design.to_str().unwrap(), "--format", "react", "-o", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let card = fs::read_to_string(out.join("components/Card.tsx")).unwrap();
    assert!(card.contains("mode?: \"Light\" | \"Dark\";") && card.contains("data-mode={mode}"), "{card}");
    let page = fs::read_to_string(out.join("pages/Page.tsx")).unwrap();
    // The page's theme is its prop, the design's by default (issue 58, item 1).
    assert!(page.contains("mode = \"Dark\"") && page.contains("data-mode={mode}"), "{page}");
    assert!(page.contains("<Card />"), "{page}");
    assert!(page.contains("<Card mode=\"Light\" />"), "{page}");
    assert!(fs::read_to_string(out.join("theme.css")).unwrap().contains("--bg"));
}

/// Children an instance gives a component's frame (Pen's slots) become the component's
/// `children`, and a part an instance restyles gets a class prop the instance fills with
/// utilities that win: neither writes the instance out in place any more.
#[test]
fn react_slots_are_children_and_restyled_parts_take_classes() {
    let folder = tempfile::tempdir().unwrap();
    let design = folder.path().join("slots.pen");
    fs::write(
        &design,
        r##"{"version": "2.10", "children": [
  {"type": "frame", "id": "card", "name": "Card", "reusable": true, "x": 0, "y": 0, "width": 160, "height": 80, "layout": "vertical", "fill": "#FFFFFF",
   "children": [{"type": "text", "id": "title", "name": "Title", "content": "Title", "fill": "#111111"},
                {"type": "frame", "id": "body", "name": "Body", "slot": [], "width": 140, "height": 40,
                 "children": [{"type": "text", "id": "hint", "name": "Hint", "content": "Empty", "fill": "#888888"}]}]},
  {"type": "frame", "id": "page", "name": "Page", "x": 0, "y": 100, "width": 400, "height": 200, "layout": "vertical",
   "children": [
     {"type": "ref", "id": "filled", "ref": "card", "descendants": {"body": {"children": [
        {"type": "rectangle", "id": "bar", "name": "Bar", "width": 100, "height": 8, "fill": "#2563EB"}]}}},
     {"type": "ref", "id": "red", "ref": "card", "fill": "#FEE2E2", "descendants": {"title": {"fill": "#B91C1C"}}},
     {"type": "ref", "id": "plain", "ref": "card"}]}]}"##,
    )
    .unwrap();
    let out = folder.path().join("out");
    let output = nib(&["export", design.to_str().unwrap(), "--format", "react", "--ids", "-o", out.to_str().unwrap()]);
    let said = stderr(&output);
    assert!(output.status.success(), "{said}");
    assert!(!said.contains("written out in place"), "every instance is the component with props: {said}");
    let card = fs::read_to_string(out.join("components/Card.tsx")).unwrap();
    assert!(card.contains("import type { ReactNode } from \"react\";"), "{card}");
    assert!(card.contains("children?: ReactNode;") && card.contains("titleClassName?: string;"), "{card}");
    assert!(card.contains("{children ?? ("), "the slot keeps its own content by default: {card}");
    let page = fs::read_to_string(out.join("pages/Page.tsx")).unwrap();
    let filled = page.lines().position(|l| l.contains("<Card ") && l.contains("penId=\"filled\"")).expect("filled");
    let lines: Vec<&str> = page.lines().collect();
    assert!(
        lines[filled].trim_end().ends_with('>') && lines[filled + 1].contains("data-pen-id=\"filled/bar\""),
        "{page}"
    );
    assert!(lines[filled + 2].trim() == "</Card>", "{page}");
    let red = lines.iter().find(|l| l.contains("penId=\"red\"")).expect("red");
    assert!(red.contains("bg-[#FEE2E2]!") && red.contains("titleClassName=\"text-[#B91C1C]!\""), "{red}");
    assert!(lines.iter().any(|l| l.contains("<Card ") && l.contains("penId=\"plain\" />")), "{page}");
}

/// An instance that shows another image in its component's image fill gets it as a typed
/// image prop (its URL), not as a restyling: the component keeps the fill's size and position.
#[test]
fn react_images_an_instance_changes_are_props() {
    let folder = tempfile::tempdir().unwrap();
    for (name, color) in
        [("jane.png", tiny_skia::Color::from_rgba8(200, 40, 40, 255)), ("joe.png", tiny_skia::Color::BLACK)]
    {
        let mut picture = tiny_skia::Pixmap::new(8, 8).unwrap();
        picture.fill(color);
        fs::write(folder.path().join(name), nib::render::encode_png(&picture)).unwrap();
    }
    let design = folder.path().join("avatars.pen");
    fs::write(
        &design,
        r##"{"version": "2.10", "children": [
  {"type": "frame", "id": "avatar", "name": "Avatar", "reusable": true, "x": 0, "y": 0, "width": 48, "height": 48, "cornerRadius": 24,
   "children": [{"type": "rectangle", "id": "photo", "name": "Photo", "width": 48, "height": 48,
                 "fill": {"type": "image", "url": "jane.png", "mode": "fill"}}]},
  {"type": "frame", "id": "page", "name": "Team", "x": 0, "y": 100, "width": 200, "height": 60, "layout": "horizontal",
   "children": [{"type": "ref", "id": "a1", "ref": "avatar"},
                {"type": "ref", "id": "a2", "ref": "avatar", "descendants": {"photo": {"fill": {"type": "image", "url": "joe.png", "mode": "fill"}}}}]}]}"##,
    )
    .unwrap();
    let out = folder.path().join("out");
    let output = nib(&["export", design.to_str().unwrap(), "--format", "react", "--ids", "-o", out.to_str().unwrap()]);
    let said = stderr(&output);
    assert!(output.status.success() && !said.contains("written out in place"), "{said}");
    let avatar = fs::read_to_string(out.join("components/Avatar.tsx")).unwrap();
    assert!(avatar.contains("photoImage?: string;") && avatar.contains("photoImage = \"images/"), "{avatar}");
    assert!(
        avatar.contains("style={{ background: `url(${JSON.stringify(photoImage)}) center / cover no-repeat` }}"),
        "{avatar}"
    );
    let page = fs::read_to_string(out.join("pages/Team.tsx")).unwrap();
    let second = page.lines().find(|l| l.contains("penId=\"a2\"")).expect("a2");
    assert!(second.contains("photoImage=\"images/") && !second.contains("bg-"), "{second}");
    assert!(page.lines().any(|l| l.contains("penId=\"a1\" />")), "the first shows the default: {page}");
}

/// An instance of a component in an imported file cannot be written as that component (it is
/// not in this document's Scene): it is written out in place, and the run says so.
#[test]
fn react_says_instances_of_imported_components_are_written_out_in_place() {
    let folder = tempfile::tempdir().unwrap();
    fs::write(
        folder.path().join("kit.pen"),
        r##"{"version": "2.10", "children": [{"type": "frame", "id": "chip", "name": "Chip", "reusable": true, "width": 60, "height": 20, "fill": "#E0E7FF"}]}"##,
    )
    .unwrap();
    let design = folder.path().join("app.pen");
    fs::write(
        &design,
        r##"{"version": "2.10", "imports": {"kit": "kit.pen"}, "children": [
  {"type": "frame", "id": "page", "name": "Page", "width": 200, "height": 60, "children": [{"type": "ref", "id": "c", "ref": "kit:chip"}]}]}"##,
    )
    .unwrap();
    let out = folder.path().join("out");
    let output = nib(&["export", design.to_str().unwrap(), "--format", "react", "--ids", "-o", out.to_str().unwrap()]);
    let said = stderr(&output);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("instance 'c' of 'kit:chip' is written out in place"), "{said}");
    let page = fs::read_to_string(out.join("pages/Page.tsx")).unwrap();
    assert!(page.contains("data-pen-id=\"c\"") && page.contains("bg-[#E0E7FF]"), "{page}");
}

/// What a document names (a font family, an image URL) reaches the warnings of `nib export`
/// and `nib check`; a terminal's escape sequence in it is shown escaped, never sent raw.
#[test]
fn warnings_never_send_a_documents_control_characters_to_the_terminal() {
    let folder = tempfile::tempdir().unwrap();
    let design = folder.path().join("esc.pen");
    fs::write(
        &design,
        r##"{"version": "2.10", "children": [{"type": "frame", "id": "f", "width": 100, "height": 40, "children": [
  {"type": "text", "id": "t", "content": "Hi", "fontFamily": "Fam\u001b[31mRED"},
  {"type": "rectangle", "id": "p", "width": 20, "height": 20, "fill": {"type": "image", "url": "b\u001b[2J.png", "mode": "fill"}}]}]}"##,
    )
    .unwrap();
    let out = folder.path().join("out");
    for args in [
        vec!["export", design.to_str().unwrap(), "--format", "react", "-o", out.to_str().unwrap()],
        vec!["check", design.to_str().unwrap()],
    ] {
        let output = nib(&args);
        let said = format!("{}{}", stderr(&output), stdout(&output));
        assert!(said.contains("Fam\\u{1b}[31mRED"), "the family is named, escaped: {said}");
        assert!(!said.contains('\u{1b}'), "{args:?}: {said:?}");
    }
}

/// Issue 56, item 9f: one table of exit codes. `nib apply` and `nib exec` exit the same on
/// each row: done, a script that fails, a change past a limit, a document that does not load,
/// a document or script that cannot be read, a save that fails (a read-only file: 2 from both;
/// apply said 2 and exec 1), a wrong command line.
#[test]
fn apply_and_exec_exit_alike_on_every_row_of_the_table() {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let small = r##"{"version": "2.8", "children": [{"type": "frame", "id": "page", "width": 100, "height": 100, "layout": "none", "children": [{"type": "rectangle", "id": "box", "width": 10, "height": 10, "fill": "#FF0000"}]}]}"##;
    let run = |args: &[&str], stdin: &str| -> Option<i32> {
        let mut child = nib_command()
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("nib runs");
        // A run refused before it reads standard input closes it: that is no failure here.
        let _ = child.stdin.take().expect("stdin").write_all(stdin.as_bytes());
        child.wait().expect("exit").code()
    };
    let doc = folder.path().join("d.pen");
    let path = doc.to_str().unwrap();
    let (update, failing) = (
        ("U(\"box\", {width: 20})", "Update(\"box\", {width: 20});"),
        ("U(\"nowhere\", {width: 1})", "Update(\"nowhere\", {width: 1});"),
    );
    // A change past a limit: components that each hold 64 instances of the one before, 64^3
    // nodes once expanded (the budget is 200000).
    let component = |of: &str| {
        format!(
            "{{type: \"frame\", reusable: true, children: [{}]}}",
            vec![format!("{{type: \"ref\", ref: {of}}}"); 64].join(", ")
        )
    };
    let mut script = String::from("c0=I(document, {type: \"frame\", reusable: true, width: 1, height: 1})\n");
    for level in 1..=3 {
        script.push_str(&format!("c{level}=I(document, {})\n", component(&format!("c{}", level - 1))));
    }
    let snippet = format!(
        "let c = Insert(document, {{type: \"frame\", reusable: true, width: 1, height: 1}});\nfor (let i = 0; i < 3; i++) {{ c = Insert(document, {}); }}",
        component("c")
    );
    let past_limit = (script, snippet);
    // (row, the document, (the script, the snippet), the exit code of both)
    type Row<'a> = (&'a str, &'a str, (String, String), Option<i32>);
    let cases: Vec<Row> = vec![
        ("done", small, (update.0.into(), update.1.into()), Some(0)),
        ("a script that fails", small, (failing.0.into(), failing.1.into()), Some(1)),
        ("a change past a limit", small, past_limit, Some(1)),
        (
            "a document that does not load",
            "{\"version\": \"2.8\", \"children\": [",
            (update.0.into(), update.1.into()),
            Some(1),
        ),
    ];
    for (row, content, (script, snippet), expected) in &cases {
        fs::write(&doc, content).unwrap();
        let applied = run(&["apply", path, "-"], script);
        fs::write(&doc, content).unwrap();
        let executed = run(&["exec", path, "-"], snippet);
        assert_eq!((applied, executed), (*expected, *expected), "{row}: apply, exec");
    }
    // A save that fails: the document is read-only.
    fs::write(&doc, small).unwrap();
    fs::set_permissions(&doc, fs::Permissions::from_mode(0o444)).unwrap();
    let applied = run(&["apply", path, "-"], update.0);
    let executed = run(&["exec", path, "-"], update.1);
    assert_eq!((applied, executed), (Some(2), Some(2)), "a failed save: apply, exec");
    assert_eq!(fs::read_to_string(&doc).unwrap(), small);
    fs::set_permissions(&doc, fs::Permissions::from_mode(0o644)).unwrap();
    // A document, or a script, that cannot be read; a wrong command line.
    let missing = folder.path().join("missing.pen");
    let gone = missing.to_str().unwrap();
    assert_eq!((run(&["apply", gone, "-"], update.0), run(&["exec", gone, "-"], update.1)), (Some(2), Some(2)));
    assert_eq!((run(&["apply", path, gone], ""), run(&["exec", path, gone], "")), (Some(2), Some(2)));
    assert_eq!((run(&["apply", path], ""), run(&["exec", path], "")), (Some(2), Some(2)));
    assert_eq!(fs::read_to_string(&doc).unwrap(), small, "nothing but the first row changed it");
}

/// The README's "Exit codes" table says what `nib --help` says, row by row.
#[test]
fn the_readme_and_the_help_give_the_same_exit_codes() {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README");
    let section =
        readme.split("## Exit codes\n").nth(1).and_then(|rest| rest.split("\n## ").next()).expect("a section");
    let help = stdout(&nib(&["--help"]));
    let table = help.split("Exit codes (every command):\n").nth(1).expect("the help's table");
    for code in ["0", "1", "2"] {
        let line = table.lines().find(|line| line.trim_start().starts_with(&format!("{code}  "))).expect(code);
        let meaning = line.trim_start()[3..].trim_start().split(':').next().expect("a meaning");
        let row = section.lines().find(|row| row.starts_with(&format!("| {code} |"))).expect(code);
        assert!(row.contains(&format!("**{meaning}**")), "{code}: help says {meaning:?}, README {row}");
    }
}

/// A page whose fill is a themed variable, in its own file and an imported library's (`c`).
fn themed_project() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    fs::write(
        folder.path().join("lib.pen"),
        r##"{"version": "2.10", "themes": {"Tone": ["Warm", "Cool"]},
 "variables": {"--ink": {"type": "color", "value": [{"value": "#0000FF"}, {"value": "#FFFF00", "theme": {"Tone": "Cool"}}]}},
 "children": []}"##,
    )
    .unwrap();
    fs::write(
        folder.path().join("page.pen"),
        r##"{"version": "2.10", "imports": {"c": "lib.pen"}, "themes": {"Mode": ["Light", "Dark"]},
 "variables": {"--bg": {"type": "color", "value": [{"value": "#FFFFFF"}, {"value": "#000000", "theme": {"Mode": "Dark"}}]}},
 "children": [{"type": "frame", "id": "page", "x": 0, "y": 0, "width": 20, "height": 10, "layout": "none", "fill": "$--bg",
   "children": [{"type": "rectangle", "id": "dot", "x": 10, "y": 0, "width": 10, "height": 10, "fill": "$c:--ink"}]}]}"##,
    )
    .unwrap();
    folder
}

/// The colour at (x, y) of the PNG file `path`.
fn rgb_at(path: &str, x: u32, y: u32) -> [u8; 3] {
    let image = nib::render::decode_image(&fs::read(path).expect("png written")).expect("a png");
    let pixel = image.pixel(x, y).expect("inside");
    [pixel.red(), pixel.green(), pixel.blue()]
}

/// Issue 57, item 7: get_screenshot took a theme and the command line could not. `--theme
/// AXIS=VALUE` (repeatable; `c:Tone` for an import's axis) draws `nib render` and `nib export`
/// under it; an axis or value the file does not define is refused naming those it does.
#[test]
fn render_and_export_draw_under_a_theme_given_on_the_command_line() {
    let folder = themed_project();
    let page = folder.path().join("page.pen");
    let page = page.to_str().unwrap();
    let out = |name: &str| folder.path().join(name).to_str().unwrap().to_owned();
    let looks = [
        (vec![], "own.png", [255, 255, 255], [0, 0, 255]),
        (vec!["--theme", "Mode=Dark"], "dark.png", [0, 0, 0], [0, 0, 255]),
        (vec!["--theme", "Mode=Dark", "--theme", "c:Tone=Cool"], "both.png", [0, 0, 0], [255, 255, 0]),
    ];
    for (theme, name, background, dot) in looks {
        let mut args = vec!["render", page, "--node", "page", "-o"];
        let file = out(name);
        args.push(&file);
        args.extend(theme.iter().copied());
        let rendered = nib(&args);
        assert!(rendered.status.success(), "{args:?}: {}", stderr(&rendered));
        assert_eq!((rgb_at(&file, 2, 5), rgb_at(&file, 15, 5)), (background, dot), "{args:?}");
    }
    let exported = out("export.png");
    let export = nib(&["export", page, "--format", "png", "--node", "page", "-o", &exported, "--theme", "Mode=Dark"]);
    assert!(export.status.success(), "{}", stderr(&export));
    assert_eq!(rgb_at(&exported, 2, 5), [0, 0, 0]);
    for (theme, said) in
        [("Colour=Dark", "no theme axis 'Colour'"), ("Mode=Dim", "'Dim' is not a value of the theme axis 'Mode'")]
    {
        let refused = nib(&["render", page, "-o", &out("x.png"), "--theme", theme]);
        assert_eq!(refused.status.code(), Some(2), "{theme}");
        let text = stderr(&refused);
        assert!(text.contains(said) && text.contains("Mode: Light, Dark; c:Tone: Warm, Cool"), "{text}");
    }
    let malformed = nib(&["render", page, "--theme", "Dark"]);
    assert_eq!(malformed.status.code(), Some(2));
    assert!(stderr(&malformed).contains("AXIS=VALUE"), "{}", stderr(&malformed));
}
