//! What Pen's own exported pictures showed nib drawing otherwise: themes chosen on an imported
//! library's axis (`{"c:Mode": "Dark"}`), Pen's bundled libraries (`pencil:lunaris.lib.pen`)
//! found where the user keeps a copy and said once when missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LIBRARY: &str = r##"{"version": "2.15", "themes": {"Mode": ["Light", "Dark"]}, "variables": {
  "--background": {"type": "color", "value": [{"value": "#FFFFFF", "theme": {"Mode": "Light"}}, {"value": "#0A0A0A", "theme": {"Mode": "Dark"}}]},
  "--card": {"type": "color", "value": [{"value": "#F4F4F5", "theme": {"Mode": "Light"}}, {"value": "#18181B", "theme": {"Mode": "Dark"}}]}},
 "children": [{"type": "frame", "id": "Card", "reusable": true, "width": 40, "height": 40, "fill": "$--card"}]}"##;

/// A dashboard built on the library: the page picks the library's dark theme, the document's
/// own variable is themed on the library's axis, and it uses a component and a variable of it.
const DASHBOARD: &str = r##"{"version": "2.15", "imports": {"c": "pencil:lunaris.lib.pen"}, "variables": {
  "--text": {"type": "color", "value": [{"value": "#111111", "theme": {"c:Mode": "Light"}}, {"value": "#EEEEEE", "theme": {"c:Mode": "Dark"}}]}},
 "children": [{"type": "frame", "id": "page", "x": 0, "y": 0, "width": 100, "height": 60, "fill": "$c:--background", "theme": {"c:Mode": "Dark"}, "layout": "horizontal", "gap": 10, "padding": 10, "children": [
   {"type": "rectangle", "id": "own", "width": 40, "height": 40, "fill": "$--text"},
   {"type": "ref", "id": "card", "ref": "c:Card"},
   {"type": "ref", "id": "card2", "ref": "c:Card"}]}]}"##;

fn nib(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(args)
        .env("NIB_IMAGES", "offline")
        .env_remove("NIB_LIBRARY_DIRS")
        .envs(env.iter().copied())
        .output()
        .expect("nib runs")
}

fn said(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// A folder with the dashboard, and another holding the library as Pen bundles it.
fn folders() -> (tempfile::TempDir, PathBuf, tempfile::TempDir) {
    let documents = tempfile::tempdir().unwrap();
    let path = documents.path().join("dashboard.pen");
    std::fs::write(&path, DASHBOARD).unwrap();
    let libraries = tempfile::tempdir().unwrap();
    std::fs::write(libraries.path().join("lunaris.lib.pen"), LIBRARY).unwrap();
    (documents, path, libraries)
}

/// A decoded RGBA picture.
struct Picture {
    width: u32,
    rgba: Vec<u8>,
}

impl Picture {
    fn read(png: &Path) -> Picture {
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut rgba).unwrap();
        Picture { width: info.width, rgba }
    }

    fn at(&self, x: u32, y: u32) -> [u8; 4] {
        let at = ((y * self.width + x) * 4) as usize;
        [self.rgba[at], self.rgba[at + 1], self.rgba[at + 2], self.rgba[at + 3]]
    }
}

fn pixel(png: &Path, x: u32, y: u32) -> [u8; 4] {
    Picture::read(png).at(x, y)
}

#[test]
fn a_theme_chosen_on_a_librarys_axis_draws_the_library_and_the_document_in_it() {
    let (documents, path, libraries) = folders();
    let out = documents.path().join("page.png");
    let output = nib(
        &[
            "render",
            path.to_str().unwrap(),
            "--node",
            "page",
            "-o",
            out.to_str().unwrap(),
            "--library-dir",
            libraries.path().to_str().unwrap(),
        ],
        &[],
    );
    assert!(output.status.success(), "{}", said(&output));
    assert!(!said(&output).contains("warning"), "{}", said(&output));
    assert_eq!(pixel(&out, 5, 5), [0x0A, 0x0A, 0x0A, 255], "the library's dark background");
    assert_eq!(pixel(&out, 20, 20), [0xEE, 0xEE, 0xEE, 255], "the document's variable themed on c:Mode");
    assert_eq!(pixel(&out, 70, 20), [0x18, 0x18, 0x1B, 255], "the library's component, dark");
    // A picture under the library's other theme, as the tools take it.
    let light = documents.path().join("light.png");
    let arguments = serde_json::json!({
        "filePath": "dashboard.pen", "nodeId": "page", "theme": {"c:Mode": "Light"}, "outputPath": "light.png"
    });
    let output = nib(
        &["call", "--root", documents.path().to_str().unwrap(), "get_screenshot", "--args", &arguments.to_string()],
        &[("NIB_LIBRARY_DIRS", libraries.path().to_str().unwrap())],
    );
    assert!(output.status.success(), "{}", said(&output));
    assert_eq!(pixel(&light, 5, 5), [0xFF, 0xFF, 0xFF, 255], "the library's light background");
    assert_eq!(pixel(&light, 20, 20), [0x11, 0x11, 0x11, 255]);
}

#[test]
fn a_bundled_library_nib_cannot_find_is_said_once_with_where_to_put_it() {
    let (documents, path, libraries) = folders();
    let out = documents.path().join("page.png");
    let output = nib(&["render", path.to_str().unwrap(), "--node", "page", "-o", out.to_str().unwrap()], &[]);
    let text = said(&output);
    assert!(output.status.success(), "{text}");
    let warnings: Vec<&str> = text.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "one warning for the library, not one per use: {text}");
    let warning = warnings[0];
    assert!(warning.contains("import 'c' is pencil:lunaris.lib.pen, a library the Pen app bundles"), "{warning}");
    assert!(warning.contains("dashed outlines") && warning.contains("(used 3 times)"), "{warning}");
    let check = nib(&["check", path.to_str().unwrap()], &[]);
    assert!(said(&check).contains("--library-dir DIR or NIB_LIBRARY_DIRS"), "{}", said(&check));
    // Beside the document, it is found there.
    std::fs::copy(libraries.path().join("lunaris.lib.pen"), documents.path().join("lunaris.lib.pen")).unwrap();
    let output = nib(&["render", path.to_str().unwrap(), "--node", "page", "-o", out.to_str().unwrap()], &[]);
    assert!(!said(&output).contains("warning"), "{}", said(&output));
    assert_eq!(pixel(&out, 5, 5), [0x0A, 0x0A, 0x0A, 255]);
}

#[test]
fn check_and_lint_name_a_theme_axis_that_selects_nothing() {
    let (documents, path, libraries) = folders();
    std::fs::write(&path, DASHBOARD.replace("\"theme\": {\"c:Mode\": \"Dark\"}", "\"theme\": {\"c:Mood\": \"Dark\"}"))
        .unwrap();
    let dirs = [("NIB_LIBRARY_DIRS", libraries.path().to_str().unwrap())];
    let check = nib(&["check", path.to_str().unwrap()], &dirs);
    let text = said(&check);
    assert!(text.contains("node 'page': its theme selects nothing: the theme axis 'c:Mood' is defined neither by the document nor by an import: c:Mode (Light, Dark)"), "{text}");
    let lint = nib(&["lint", path.to_str().unwrap()], &dirs);
    assert_eq!(lint.status.code(), Some(1), "{}", said(&lint));
    assert!(said(&lint).contains("the theme axis 'c:Mood'"), "{}", said(&lint));
    drop(documents);
}

/// nib's PNG export of public frames against the PNG the Pen app exported of each
/// (`tests/fixtures/pen_pictures`): the same size, and an SSIM no lower than the pair's floor
/// (what nib reached when it was added, less 0.01). Browser-free.
#[test]
fn exports_look_like_pens_own_pictures() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen_pictures");
    let pairs: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(folder.join("pairs.json")).unwrap()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut scores = Vec::new();
    for pair in &pairs {
        let (document, node) = (folder.join(pair["document"].as_str().unwrap()), pair["node"].as_str().unwrap());
        let scale = pair["scale"].as_u64().unwrap().to_string();
        let made = out.path().join(format!("{node}.png"));
        let output = nib(
            &[
                "export",
                document.to_str().unwrap(),
                "--format",
                "png",
                "--node",
                node,
                "--scale",
                &scale,
                "-o",
                made.to_str().unwrap(),
            ],
            &[("NIB_FONTS", "offline")],
        );
        assert!(output.status.success(), "{node}: {}", said(&output));
        let pens = tiny_skia::Pixmap::load_png(folder.join(pair["picture"].as_str().unwrap())).unwrap();
        let nibs = tiny_skia::Pixmap::load_png(&made).unwrap();
        let score = nib::review::ssim::ssim(&pens, &nibs);
        scores.push(score);
        let floor = pair["floor"].as_f64().unwrap_or(1.0);
        eprintln!(
            "{} {node}: {}×{} (Pen {}×{}), SSIM {score:.4} (floor {floor})",
            pair["repo"],
            nibs.width(),
            nibs.height(),
            pens.width(),
            pens.height()
        );
        // A known difference is written down with the pair (and why), so it cannot grow unseen.
        let expected = match pair["nib_size"].as_array() {
            Some(size) => (size[0].as_u64().unwrap() as u32, size[1].as_u64().unwrap() as u32),
            None => (pens.width(), pens.height()),
        };
        if (nibs.width(), nibs.height()) != expected {
            failures.push(format!(
                "{node}: {}×{} where Pen's is {}×{} (expected {}×{})",
                nibs.width(),
                nibs.height(),
                pens.width(),
                pens.height(),
                expected.0,
                expected.1
            ));
        }
        if score < floor {
            failures.push(format!("{node}: SSIM {score:.4} below its floor {floor}"));
        }
    }
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    eprintln!("{} pairs, mean SSIM {mean:.4}", scores.len());
    assert!(failures.is_empty(), "{failures:#?}");
}

fn png_size(path: &Path) -> (u32, u32) {
    let pixmap = tiny_skia::Pixmap::load_png(path).unwrap();
    (pixmap.width(), pixmap.height())
}

/// A node's exported picture holds its own drop shadow as Pen's export does (sizes measured on
/// Pen's PNGs: a 2.15 dashboard's dialogs reach exactly their blur, a 2.17 file's dialog the
/// whole blur and a pixel); `nib render --node` keeps to the node's box.
#[test]
fn an_exported_picture_grows_by_its_nodes_shadow_as_pens_does() {
    let folder = tempfile::tempdir().unwrap();
    let dialog = |version: &str, width: u32, height: u32, shadow: &str| {
        let path = folder.path().join(format!("dialog-{version}.pen"));
        std::fs::write(
            &path,
            format!(
                r##"{{"version": "{version}", "children": [{{"type": "frame", "id": "dlg", "x": 40, "y": 40, "width": {width}, "height": {height},
                  "fill": "#FFFFFF", "cornerRadius": 12, "effect": {shadow}}}]}}"##
            ),
        )
        .unwrap();
        path
    };
    let cases = [
        // Gameplane's dialogs (2.14/2.15): offset (0, 12), blur 32, spread −8 → 32, 20, 32, 44.
        (
            dialog(
                "2.15",
                480,
                316,
                r##"{"type": "shadow", "shadowType": "outer", "color": "#00000080", "offset": {"x": 0, "y": 12}, "blur": 32, "spread": -8}"##,
            ),
            1,
            (544, 380),
        ),
        (
            dialog(
                "2.15",
                480,
                316,
                r##"{"type": "shadow", "shadowType": "outer", "color": "#00000080", "offset": {"x": 0, "y": 12}, "blur": 32, "spread": -8}"##,
            ),
            2,
            (1088, 760),
        ),
        // Its toasts: offset (0, 4), blur 12 → 12, 8, 12, 16.
        (
            dialog(
                "2.14",
                220,
                133,
                r##"{"type": "shadow", "shadowType": "outer", "color": "#00000059", "offset": {"x": 0, "y": 4}, "blur": 12, "spread": -2}"##,
            ),
            2,
            (488, 314),
        ),
        // omp-switch's confirm dialog (2.17): offset (0, 8), blur 24 → 73, 57, 73, 89 px at 2×.
        (
            dialog(
                "2.17",
                520,
                171,
                r##"{"type": "shadow", "shadowType": "outer", "color": "#0F172A1F", "offset": {"x": 0, "y": 8}, "blur": 24}"##,
            ),
            2,
            (1186, 488),
        ),
        // An inner shadow adds nothing.
        (
            dialog(
                "2.20",
                100,
                50,
                r##"{"type": "shadow", "shadowType": "inner", "color": "#00000080", "offset": {"x": 0, "y": 4}, "blur": 8}"##,
            ),
            1,
            (100, 50),
        ),
    ];
    for (path, scale, expected) in cases {
        let out = folder.path().join("out.png");
        let scale_text = scale.to_string();
        let output = nib(
            &[
                "export",
                path.to_str().unwrap(),
                "--format",
                "png",
                "--node",
                "dlg",
                "--scale",
                &scale_text,
                "-o",
                out.to_str().unwrap(),
            ],
            &[],
        );
        assert!(output.status.success(), "{}", said(&output));
        assert_eq!(png_size(&out), expected, "{} at {scale}×", path.display());
        let rendered = folder.path().join("render.png");
        let output = nib(
            &[
                "render",
                path.to_str().unwrap(),
                "--node",
                "dlg",
                "--scale",
                &scale_text,
                "-o",
                rendered.to_str().unwrap(),
            ],
            &[],
        );
        assert!(output.status.success(), "{}", said(&output));
        let (width, height) = png_size(&rendered);
        assert!(width < expected.0 || expected == (100, 50), "render --node keeps the node's box: {width}×{height}");
    }
}

/// Pen's 2.14 and 2.15 saves hold line caps, joins and a path's viewBox: nib takes them as
/// that version's keys, without a word.
#[test]
fn a_pen_2_14_file_with_line_joins_and_a_view_box_is_clean() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("saved.pen");
    std::fs::write(
        &path,
        r##"{"version": "2.14", "children": [{"type": "frame", "id": "f", "width": 100, "height": 24, "children": [
          {"type": "path", "id": "spark", "width": 100, "height": 24, "viewBox": [0, 0, 100, 24], "geometry": "M0 21l12-1 13 1 12-2 13 1", "stroke": "#22C55E", "strokeWidth": 2, "strokeLinecap": "round", "strokeLinejoin": "round"}]}]}"##,
    )
    .unwrap();
    let output = nib(&["check", "--strict", path.to_str().unwrap()], &[]);
    assert!(output.status.success(), "{}", said(&output));
    assert!(!said(&output).contains("new in format"), "{}", said(&output));
    let old = folder.path().join("old.pen");
    std::fs::write(&old, std::fs::read_to_string(&path).unwrap().replace("\"2.14\"", "\"2.13\"")).unwrap();
    let output = nib(&["check", "--strict", old.to_str().unwrap()], &[]);
    assert!(said(&output).contains("\"strokeLinejoin\" is new in format 2.14"), "{}", said(&output));
}

/// Pen's exports of components draw an empty slot of the component's own frame as a violet
/// outlined, hatched box 10 px inside the slot; a filled slot and an instance's empty slot show
/// nothing of it.
#[test]
fn an_empty_slot_of_a_component_is_drawn_as_pens_placeholder() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("header.pen");
    std::fs::write(
        &path,
        r##"{"version": "2.15", "children": [
          {"type": "frame", "id": "hdr", "x": 0, "y": 0, "reusable": true, "width": 300, "height": 60, "fill": "#FFFFFF", "layout": "horizontal", "padding": 10, "gap": 0, "children": [
            {"type": "frame", "id": "actions", "slot": [], "width": 140, "height": 40},
            {"type": "frame", "id": "filled", "slot": false, "width": 140, "height": 40, "children": [
              {"type": "frame", "id": "nested", "slot": [], "width": 100, "height": 40, "children": [
                {"type": "rectangle", "id": "r", "width": 100, "height": 40, "fill": "#EEEEEE"}]}]}]},
          {"type": "ref", "id": "use", "ref": "hdr", "x": 0, "y": 100}]}"##,
    )
    .unwrap();
    let out = folder.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let output = nib(
        &[
            "export",
            path.to_str().unwrap(),
            "--node",
            "hdr",
            "--node",
            "use",
            "--format",
            "png",
            "--scale",
            "2",
            "-o",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert!(output.status.success(), "{}", said(&output));
    const INK: [u8; 4] = [0xD4, 0x80, 0xFF, 0xFF];
    let component = Picture::read(&out.join("hdr.png"));
    // The slot's box is (10, 10)–(150, 50); the placeholder's line runs along (20, 20)–(140, 40),
    // one pixel wide: two pixels at 2×.
    for (x, y) in [(100, 39), (100, 40), (39, 60), (280, 79)] {
        assert_eq!(component.at(x, y), INK, "the placeholder's frame at ({x}, {y})");
    }
    let violet = |picture: &Picture, from: (u32, u32), to: (u32, u32)| {
        let mut count = 0;
        for y in from.1..to.1 {
            for x in from.0..to.0 {
                let [r, g, b, _] = picture.at(x, y);
                count += usize::from(r > 150 && b > 200 && g < 180);
            }
        }
        count
    };
    let hatched = violet(&component, (42, 42), (278, 78));
    assert!(hatched > 1500 && hatched < 6000, "the hatching covers part of the inside: {hatched} violet pixels");
    assert_eq!(violet(&component, (300, 0), (600, 120)), 0, "a filled slot shows no placeholder");
    let instance = Picture::read(&out.join("use.png"));
    assert_eq!(violet(&instance, (0, 0), (600, 120)), 0, "an instance's empty slot shows no placeholder");
    let svg = folder.path().join("hdr.svg");
    let output =
        nib(&["export", path.to_str().unwrap(), "--node", "hdr", "--format", "svg", "-o", svg.to_str().unwrap()], &[]);
    assert!(output.status.success(), "{}", said(&output));
    assert_eq!(
        std::fs::read_to_string(&svg).unwrap().matches("fill=\"#D480FF\"").count(),
        2,
        "the SVG has the frame and the hatching"
    );
}
