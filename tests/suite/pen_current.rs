//! Files of the current Pen app (format 2.17–2.20), read, checked, edited and drawn as Pen does
//! (issue 26; the rules and their evidence are in spec/pen-versions.md). The Pen saves are in
//! `tests/fixtures/pen-current` (SOURCES.md there); each rule also has a small document of its
//! own here, in the versions where it differs.

use std::path::{Path, PathBuf};
use std::process::Command;

use nib::doc::Document;
use nib::host::FolderImages;
use nib::layout::Layout;
use nib::render::{RenderOptions, RenderTarget, render};
use nib::resolve::{NoImports, SceneOptions, build_scene};
use nib::script::{Context, Options, run};
use nib::text::{FontBook, FontOptions, TextEngine};
use tiny_skia::Pixmap;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen-current")
}

/// The fixture files and whether Pen saved them (SOURCES.md).
fn fixtures() -> Vec<(PathBuf, bool)> {
    let sources = std::fs::read_to_string(folder().join("SOURCES.md")).expect("SOURCES.md");
    let files: Vec<(PathBuf, bool)> = sources
        .lines()
        .filter(|line| line.starts_with("| `"))
        .filter_map(|line| {
            let name = line.split('`').nth(1)?;
            Some((folder().join(name), line.contains("| pen |")))
        })
        .collect();
    assert!(files.len() >= 26, "{files:?}");
    files
}

fn nib(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_nib")).args(args).env("NIB_FONTS", "offline").output().expect("nib runs")
}

/// Renders the canvas of `text` (a document) at 1×, on a white background.
fn draw(text: &str) -> Pixmap {
    let document = Document::load(text).expect("loads").document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let layout = Layout::compute(&scene, &mut engine);
    let options = RenderOptions { background: Some([255, 255, 255, 255]), ..RenderOptions::default() };
    render(&scene, &layout, &mut engine, &mut FolderImages::default(), RenderTarget::Canvas, &options)
        .expect("renders")
        .pixmap
}

/// The straight RGB of a pixel.
fn rgb(pixmap: &Pixmap, x: u32, y: u32) -> [u8; 3] {
    let pixel = pixmap.pixel(x, y).expect("inside").demultiply();
    [pixel.red(), pixel.green(), pixel.blue()]
}

fn dark(pixmap: &Pixmap, x: u32, y: u32) -> bool {
    rgb(pixmap, x, y).iter().all(|c| *c < 80)
}

fn white(pixmap: &Pixmap, x: u32, y: u32) -> bool {
    rgb(pixmap, x, y).iter().all(|c| *c > 240)
}

/// A document of `version` holding `nodes` inside a white 200 × 100 frame at the origin.
fn page(version: &str, nodes: &str) -> String {
    format!(
        r##"{{"version": "{version}", "children": [{{"type": "frame", "id": "page", "x": 0, "y": 0, "width": 200, "height": 100, "fill": "#FFFFFF", "layout": "none", "children": [{nodes}]}}]}}"##
    )
}

#[test]
fn every_current_file_loads_and_every_pen_save_round_trips_byte_identical() {
    for (path, pen_saved) in fixtures() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let loaded = Document::load(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if pen_saved {
            assert_eq!(loaded.document.to_pen_string(), text, "{} changes when saved", path.display());
        }
    }
}

#[test]
fn every_pen_save_passes_check_strict() {
    for (path, pen_saved) in fixtures().into_iter().filter(|(_, saved)| *saved) {
        let output = nib(&["check", "--strict", path.to_str().expect("utf-8")]);
        let said = String::from_utf8_lossy(&output.stdout);
        // The viewBox probe names a script file its repository does not hold: that warning is
        // about a missing file (like a missing image), and the only one.
        if path.ends_with("v2.17-viewbox-experiment.pen") {
            assert_eq!(said.matches("warning").count(), 1, "{said}");
            assert!(said.contains("the script 'bars.js' cannot be read"), "{said}");
            continue;
        }
        assert!(output.status.success() && pen_saved, "{}: {said}", path.display());
        assert!(!said.contains("not one nib knows") && !said.contains("fileToken"), "{said}");
    }
}

// 1. An absent strokeAlignment means centre from 2.17 on, inside before.

#[test]
fn an_absent_stroke_alignment_is_centred_from_2_17_and_inside_before() {
    let nodes = r##"{"type": "line", "id": "l", "x": 20, "y": 20, "width": 160, "height": 0, "stroke": "#000000", "strokeWidth": 6},
        {"type": "rectangle", "id": "r", "x": 40, "y": 40, "width": 100, "height": 40, "stroke": "#000000", "strokeWidth": 10}"##;
    let current = draw(&page("2.19", nodes));
    // A 6 px line with no alignment draws, 3 px each side of it.
    assert!(dark(&current, 100, 20) && dark(&current, 100, 22) && white(&current, 100, 24));
    // The rectangle's 10 px stroke is 5 px outside and 5 px inside.
    assert!(dark(&current, 90, 36) && dark(&current, 90, 43) && white(&current, 90, 46) && white(&current, 90, 34));
    let older = draw(&page("2.13", nodes));
    assert!(white(&older, 100, 20), "an inside stroke on a line has no area");
    assert!(white(&older, 90, 37) && dark(&older, 90, 48), "inside: 10 px within the box");
}

// 2. script, browser and connection nodes.

#[test]
fn script_browser_and_connection_nodes_load_draw_and_edit() {
    let nodes = r##"{"type": "browser", "id": "b", "x": 10, "y": 10, "width": 180, "height": 80, "url": "example.com", "cornerRadius": 8}"##;
    let connection = r##",{"type": "connection", "id": "c", "source": {"path": "page", "anchor": "left"}, "target": {"path": "page", "anchor": "right"}, "stroke": "#000000", "strokeWidth": 2}"##;
    let text = format!(
        r##"{{"version": "2.19", "children": [{{"type": "frame", "id": "page", "x": 0, "y": 0, "width": 200, "height": 100, "fill": "#FFFFFF", "layout": "none", "children": [{nodes}]}}{connection}]}}"##
    );
    let document = Document::load(&text).expect("loads").document;
    assert_eq!(document.to_pen_string(), Document::load(&document.to_pen_string()).unwrap().document.to_pen_string());
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let said: Vec<String> = scene.problems.iter().map(|p| p.message.clone()).collect();
    assert!(said.iter().any(|m| m.contains("browser 'b' shows the live page 'example.com'")), "{said:?}");
    assert!(said.iter().any(|m| m.contains("Pen drops connections")), "{said:?}");
    assert!(scene.node_by_id("b/toolbar/address/url").is_some(), "the window the Scene gives a browser");
    let picture = draw(&text);
    assert!(
        rgb(&picture, 25, 24)[0] > 200 && rgb(&picture, 25, 24)[1] < 150,
        "the window's red dot: {:?}",
        rgb(&picture, 25, 24)
    );

    // A script node runs its file and draws what it returns, the same every time.
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(folder_file("script-bars.js"), folder.path().join("bars.js")).unwrap();
    std::fs::copy(folder_file("render-script-node.pen"), folder.path().join("s.pen")).unwrap();
    let text = std::fs::read_to_string(folder.path().join("s.pen")).unwrap().replace("script-bars.js", "bars.js");
    std::fs::write(folder.path().join("s.pen"), text).unwrap();
    let mut workspace = nib::tools::Workspace::new(folder.path());
    let shot = nib::tools::call(&mut workspace, "get_screenshot", serde_json::json!({"filePath": "s.pen"})).unwrap();
    let again =
        nib::tools::call(&mut workspace, "get_screenshot", serde_json::json!({"filePath": "s.pen", "scale": 1.0001}));
    assert!(shot["warnings"].as_array().is_none_or(|w| w.is_empty()), "{shot}");
    let bars = decode(&shot);
    assert_eq!(rgb(&bars, 15, 25), [255, 0, 0], "the first red bar");
    assert!(again.is_ok());
    let nodes =
        nib::tools::call(&mut workspace, "batch_get", serde_json::json!({"filePath": "s.pen", "nodeIds": ["lqsaj"]}))
            .unwrap();
    assert_eq!(nodes["nodes"][0]["type"], "script", "{nodes}");

    // batch_design writes them in a document of their version, and refuses them before it.
    let mut current = Document::load(&page("2.19", "")).unwrap().document;
    let outcome = run(
        &mut current,
        r#"b=I("page", {type: "browser", width: 100, height: 60, url: "pen.dev"})
s=I("page", {type: "script", width: 50, height: 50, scriptUri: "chart.js", inputs: {rows: 2}})"#,
        &Context::offline(Options::default()),
    );
    assert!(outcome.success, "{}", outcome.text());
    let mut older = Document::load(&page("2.13", "")).unwrap().document;
    let outcome = run(
        &mut older,
        r#"b=I("page", {type: "browser", width: 100, height: 60})"#,
        &Context::offline(Options::default()),
    );
    assert!(!outcome.success);
    assert!(
        outcome.text().contains("new in format 2.19") && outcome.text().contains("nib migrate"),
        "{}",
        outcome.text()
    );
}

fn folder_file(name: &str) -> PathBuf {
    folder().join(name)
}

fn decode(shot: &serde_json::Value) -> Pixmap {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD.decode(shot["data"].as_str().expect("an image")).unwrap();
    nib::render::decode_image(&bytes).expect("a PNG")
}

// 3. Image modes cover and contain (2.20), and the crop transform.

#[test]
fn images_take_cover_and_contain_and_their_crop() {
    let folder = tempfile::tempdir().unwrap();
    // Left half red, right half blue.
    let mut image = Pixmap::new(40, 20).unwrap();
    for y in 0..20 {
        for x in 0..40 {
            let color = if x < 20 {
                tiny_skia::Color::from_rgba8(255, 0, 0, 255)
            } else {
                tiny_skia::Color::from_rgba8(0, 0, 255, 255)
            };
            image.fill_rect(
                tiny_skia::Rect::from_xywh(x as f32, y as f32, 1.0, 1.0).unwrap(),
                &tiny_skia::Paint { shader: tiny_skia::Shader::SolidColor(color), ..Default::default() },
                tiny_skia::Transform::identity(),
                None,
            );
        }
    }
    std::fs::write(folder.path().join("halves.png"), nib::render::encode_png(&image)).unwrap();
    let doc = |fill: &str| {
        page(
            "2.20",
            &format!(
                r#"{{"type": "rectangle", "id": "r", "x": 0, "y": 0, "width": 200, "height": 100, "fill": {fill}}}"#
            ),
        )
    };
    let shoot = |text: String| {
        std::fs::write(folder.path().join("d.pen"), text).unwrap();
        let mut workspace = nib::tools::Workspace::new(folder.path());
        decode(
            &nib::tools::call(&mut workspace, "get_screenshot", serde_json::json!({"filePath": "d.pen", "scale": 1}))
                .unwrap(),
        )
    };
    // The right half only: blue everywhere.
    let cropped =
        shoot(doc(r#"{"type": "image", "url": "halves.png", "mode": "stretch", "transform": [2, 0, 0, 1, -1, 0]}"#));
    assert_eq!(rgb(&cropped, 10, 50), [0, 0, 255]);
    // Contain: a 2:1 image in a 2:1 box fills it; cover (the 2.20 default) too.
    let contained = shoot(doc(r#"{"type": "image", "url": "halves.png", "mode": "contain"}"#));
    assert_eq!((rgb(&contained, 10, 50), rgb(&contained, 190, 50)), ([255, 0, 0], [0, 0, 255]));
    let default = shoot(doc(r#"{"type": "image", "url": "halves.png"}"#));
    assert_eq!(rgb(&default, 10, 50), [255, 0, 0]);
    // Contain with the right half as the window: a square, centred (50 px on each side empty).
    let window = shoot(doc(
        r##"[{"type": "color", "color": "#FFFFFF"}, {"type": "image", "url": "halves.png", "mode": "contain", "transform": [2, 0, 0, 1, -1, 0]}]"##,
    ));
    assert_eq!(
        (rgb(&window, 20, 50), rgb(&window, 100, 50), rgb(&window, 180, 50)),
        ([255, 255, 255], [0, 0, 255], [255, 255, 255])
    );
}

// 4. Path geometry fits its box from 2.17 on, and viewBox maps a region onto it.

#[test]
fn path_geometry_fits_its_box_and_view_box_maps_a_region() {
    let path = |version: &str, view_box: &str| {
        page(
            version,
            &format!(
                r##"{{"type": "path", "id": "p", "x": 0, "y": 0, "width": 100, "height": 100, "geometry": "M 50 50 L 100 50 L 75 100 Z", "fill": "#000000"{view_box}}}"##
            ),
        )
    };
    let fitted = draw(&path("2.17", ""));
    assert!(dark(&fitted, 50, 5) && dark(&fitted, 5, 2), "the triangle's top edge spans the box from its corner");
    // Before 2.17 the geometry is scaled where it is: (50, 50)–(100, 100) becomes (100, 100)–
    // (200, 200), below the page.
    let in_place = draw(&path("2.13", ""));
    assert!(
        white(&in_place, 50, 5) && white(&in_place, 5, 2) && white(&in_place, 120, 95),
        "scaled in place, not moved"
    );
    let region = draw(&path("2.19", r#", "viewBox": [0, 0, 200, 200]"#));
    // The region 0–200 maps onto 0–100: the triangle sits at 25–50, 25–50.
    assert!(dark(&region, 30, 26) && white(&region, 10, 10) && white(&region, 60, 60));
    // The four triangles of Pen's own probe are four different pictures.
    let probe = std::fs::read_to_string(folder().join("v2.17-viewbox-experiment.pen")).unwrap();
    let document = Document::load(&probe).unwrap().document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let layout = Layout::compute(&scene, &mut engine);
    let mut pictures = Vec::new();
    for key in scene.walk().filter(|key| scene.node(*key).node_type() == nib::doc::NodeType::Path) {
        let shot = render(
            &scene,
            &layout,
            &mut engine,
            &mut FolderImages::default(),
            RenderTarget::Node(key),
            &RenderOptions::default(),
        )
        .expect("renders");
        pictures.push(nib::render::encode_png(&shot.pixmap));
    }
    assert_eq!(pictures.len(), 4);
    for (i, a) in pictures.iter().enumerate() {
        for b in &pictures[i + 1..] {
            assert_ne!(a, b, "two triangles draw the same");
        }
    }
}

// 5. strokeLinecap and strokeLinejoin.

#[test]
fn line_caps_and_joins_are_drawn_and_written() {
    let line = |cap: &str| {
        page(
            "2.19",
            &format!(
                r##"{{"type": "path", "id": "p", "x": 50, "y": 50, "width": 100, "height": 0, "geometry": "M 0 0 L 100 0", "stroke": "#000000", "strokeWidth": 10{cap}}}"##
            ),
        )
    };
    let butt = draw(&line(""));
    let round = draw(&line(r#", "strokeLinecap": "round""#));
    let square = draw(&line(r#", "strokeLinecap": "square""#));
    assert!(
        white(&butt, 47, 50) && dark(&round, 47, 50) && dark(&square, 46, 46),
        "past the end: only round and square"
    );
    assert!(!dark(&round, 46, 46), "a round cap is round");
    let mut document = Document::load(&page("2.19", "")).unwrap().document;
    let outcome = run(
        &mut document,
        r##"p=I("page", {type: "path", geometry: "M0 0 L10 10", width: 10, height: 10, stroke: "#000", strokeWidth: 2, strokeLinecap: "round", strokeLinejoin: "bevel"})"##,
        &Context::offline(Options::default()),
    );
    assert!(outcome.success, "{}", outcome.text());
    assert!(document.to_pen_string().contains("\"strokeLinecap\": \"round\""));
    let mut older = Document::load(&page("2.13", "")).unwrap().document;
    let outcome = run(
        &mut older,
        r##"p=I("page", {type: "path", geometry: "M0 0 L10 10", width: 10, height: 10, stroke: "#000", strokeWidth: 2, strokeLinecap: "round"})"##,
        &Context::offline(Options::default()),
    );
    assert!(!outcome.success && outcome.text().contains("new in format 2.14"), "{}", outcome.text());
}

// 6. Shader fills say what stands in for them; mesh gradients are drawn.

#[test]
fn shader_fills_are_never_silent_and_mesh_gradients_draw() {
    let shader = page(
        "2.19",
        r##"{"type": "rectangle", "id": "r", "x": 0, "y": 0, "width": 100, "height": 100, "fill": {"type": "shader", "url": "glow.frag", "uniforms": {"from": "#FF0000", "to": "#0000FF", "speed": 2}}}"##,
    );
    let document = Document::load(&shader).unwrap().document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let layout = Layout::compute(&scene, &mut engine);
    let rendered = render(
        &scene,
        &layout,
        &mut engine,
        &mut FolderImages::default(),
        RenderTarget::Canvas,
        &RenderOptions::default(),
    )
    .unwrap();
    assert!(
        rendered
            .warnings
            .iter()
            .any(|w| w.code == "shader" && w.message.contains("'glow.frag' is a GLSL program nib does not run")),
        "{:?}",
        rendered.warnings
    );
    assert!(rgb(&rendered.pixmap, 50, 2)[0] > 200 && rgb(&rendered.pixmap, 50, 97)[2] > 200, "its colors stand in");
    let mesh = page(
        "2.19",
        r##"{"type": "rectangle", "id": "m", "x": 0, "y": 0, "width": 100, "height": 100, "fill": {"type": "mesh_gradient", "columns": 2, "rows": 2, "colors": ["#FF0000", "#FF0000", "#0000FF", "#0000FF"], "points": [[0, 0], [1, 0], [0, 1], [1, 1]]}}"##,
    );
    let picture = draw(&mesh);
    assert!(rgb(&picture, 50, 3)[0] > 230 && rgb(&picture, 50, 97)[2] > 230, "red at the top, blue at the bottom");
    let middle = rgb(&picture, 50, 50);
    assert!(middle[0] > 80 && middle[2] > 80, "mixed in the middle: {middle:?}");
}

// 7. Inner shadows follow the version.

#[test]
fn inner_shadows_are_drawn_inside_from_2_19_and_outside_before() {
    let wide = r##"{"type": "rectangle", "id": "r", "x": 50, "y": 25, "width": 100, "height": 50, "fill": "#FFFFFF", "effect": {"type": "shadow", "shadowType": "inner", "color": "#000000", "offset": {"x": 0, "y": 0}, "blur": 20}}"##;
    let current = draw(&page("2.19", wide));
    let older = draw(&page("2.17", wide));
    assert!(
        rgb(&current, 100, 28)[0] < 200 && white(&current, 100, 18),
        "inside: dark within the edge, nothing outside"
    );
    assert!(white(&older, 100, 28) && rgb(&older, 100, 18)[0] < 250, "before 2.19: drawn outside, as Pen drew it");
}

// 9. What Pen saved, nib opens: colors Pen tolerates.

#[test]
fn colors_pen_tolerates_load_with_a_note_and_keep_their_bytes() {
    let text = std::fs::read_to_string(folder().join("render-mesh-colors.pen")).unwrap();
    let loaded = Document::load(&text).expect("loads");
    assert!(loaded.problems.iter().any(|p| p.to_string().contains("\"#GGGGGG\" is not a valid hex color")));
    assert_eq!(loaded.document.to_pen_string(), text);
    // An agent writing one is still told to fix it.
    let mut document = Document::load(&page("2.19", "")).unwrap().document;
    let outcome = run(
        &mut document,
        r##"r=I("page", {type: "rectangle", width: 5, height: 5, fill: "#GGGGGG"})"##,
        &Context::offline(Options::default()),
    );
    assert!(!outcome.success, "{}", outcome.text());
}

// 10. Writing the version's own format.

#[test]
fn writes_hold_only_what_the_documents_version_allows() {
    let attempts = [
        (
            r##"U("page", {effect: {type: "shadow", blur: 4, spread: 2, color: "#00000044"}})"##,
            "\"spread\" on a shadow effect was removed in format 2.19",
        ),
        (
            r#"g=I("page", {type: "group", layout: "vertical", children: []})"#,
            "\"layout\" on a group was removed in format 2.17",
        ),
        (
            r#"g=I("page", {type: "group", width: 100, children: []})"#,
            "\"width\" on a group was removed in format 2.17",
        ),
        (r#"t=I("page", {type: "text", content: [{text: "a"}]})"#, "styled text runs"),
        (
            r##"r=I("page", {type: "rectangle", width: 5, height: 5, stroke: {fill: "#000", thickness: 1, dashPattern: [2, 2]}})"##,
            "dash or miter settings",
        ),
    ];
    for (script, expected) in attempts {
        let mut document = Document::load(&page("2.19", "")).unwrap().document;
        let before = document.to_pen_string();
        let outcome = run(&mut document, script, &Context::offline(Options::default()));
        assert!(!outcome.success, "{script}: {}", outcome.text());
        assert!(outcome.text().contains(expected), "{script}: {}", outcome.text());
        assert!(outcome.text().contains("2.19"), "the version is named: {}", outcome.text());
        assert_eq!(document.to_pen_string(), before);
    }
    // The same in a 2.13 document is fine where 2.13 has it.
    let mut older = Document::load(&page("2.13", "")).unwrap().document;
    let outcome = run(
        &mut older,
        r##"U("page", {effect: {type: "shadow", blur: 4, spread: 2, color: "#00000044"}})"##,
        &Context::offline(Options::default()),
    );
    assert!(outcome.success, "{}", outcome.text());
    // check finds such keys in a file.
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("old-keys.pen");
    std::fs::write(
        &path,
        page(
            "2.19",
            r##"{"type": "rectangle", "id": "r", "width": 5, "height": 5, "effect": {"type": "shadow", "spread": 2}}"##,
        ),
    )
    .unwrap();
    let output = nib(&["check", "--strict", path.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("node 'r': /effect/spread: \"spread\" on a shadow effect was removed in format 2.19"),
        "{said}"
    );
    // A new document is written at the newest version.
    let workspace_folder = tempfile::tempdir().unwrap();
    let mut workspace = nib::tools::Workspace::new(workspace_folder.path());
    nib::tools::call(&mut workspace, "open_document", serde_json::json!({"filePathOrTemplate": "new.pen"})).unwrap();
    let saved = std::fs::read_to_string(workspace_folder.path().join("new.pen")).unwrap();
    assert!(saved.contains("\"version\": \"2.20\""), "{saved}");
}

// nib migrate.

/// A 2.11 document with every spelling 2.20 changed: a stroke object, an icon_font, an inner
/// shadow, an image in `fill` mode and one without a mode.
const OLD: &str = r##"{"version": "2.11", "children": [{"type": "frame", "id": "page", "x": 0, "y": 0, "width": 200, "height": 100, "fill": "#FFFFFF", "layout": "none", "children": [
  {"type": "rectangle", "id": "r", "x": 10, "y": 10, "width": 60, "height": 40, "fill": "#3366CC", "stroke": {"align": "inside", "thickness": 4, "fill": "#111111"}, "effect": {"type": "shadow", "shadowType": "inner", "offset": {"x": 0, "y": 4}, "blur": 6, "color": "#00000066"}},
  {"type": "icon_font", "id": "i", "x": 90, "y": 10, "width": 24, "height": 24, "iconFontName": "check", "iconFontFamily": "lucide", "fill": "#111111"},
  {"type": "rectangle", "id": "im", "x": 130, "y": 10, "width": 60, "height": 30, "fill": {"type": "image", "url": "images/uv-map.png", "mode": "fill"}},
  {"type": "rectangle", "id": "st", "x": 130, "y": 50, "width": 60, "height": 30, "fill": {"type": "image", "url": "images/uv-map.png"}}
]}]}"##;

#[test]
fn migrate_moves_a_document_up_as_pen_does_and_keeps_its_picture() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("images")).unwrap();
    std::fs::copy(folder().join("images/uv-map.png"), dir.path().join("images/uv-map.png")).unwrap();
    let path = dir.path().join("old.pen");
    std::fs::write(&path, OLD).unwrap();
    let file = path.to_str().unwrap();
    let png = |name: &str| {
        let out = dir.path().join(name);
        let output = nib(&["render", file, "--node", "page", "-o", out.to_str().unwrap()]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        std::fs::read(out).unwrap()
    };
    let before = png("before.png");

    // --check lists the changes, fails, and writes nothing.
    let checked = nib(&["migrate", "--check", file]);
    let said = String::from_utf8_lossy(&checked.stdout).into_owned();
    assert_eq!(checked.status.code(), Some(1), "{said}");
    assert!(said.contains("version 2.11 → 2.20") && said.contains("not written (--check)"), "{said}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), OLD);

    let moved = nib(&["migrate", file]);
    let said = String::from_utf8_lossy(&moved.stdout).into_owned();
    assert!(moved.status.success(), "{said}{}", String::from_utf8_lossy(&moved.stderr));
    for expected in ["node 'r'", "node 'i'", "node 'im'", "node 'st'", "saved"] {
        assert!(said.contains(expected), "{expected}: {said}");
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let node =
        |id: &str| json["children"][0]["children"].as_array().unwrap().iter().find(|n| n["id"] == id).unwrap().clone();
    assert_eq!(json["version"], "2.20");
    assert_eq!(node("r")["stroke"], "#111111");
    assert_eq!(node("r")["strokeWidth"], 4);
    assert_eq!(node("r")["strokeAlignment"], "inner");
    assert_eq!(node("r")["effect"]["shadowType"], "outer", "before 2.19 an inner shadow was drawn outside");
    assert_eq!(node("i")["type"], "icon");
    assert_eq!(node("i")["icon"], "check");
    assert_eq!(node("i")["library"], "lucide");
    assert_eq!(node("im")["fill"]["mode"], "cover");
    assert_eq!(node("st")["fill"]["mode"], "stretch", "no mode was stretch; in 2.20 no mode is cover");
    // The migrated document passes check --strict and draws the same picture.
    let strict = nib(&["check", "--strict", file]);
    assert!(strict.status.success(), "{}", String::from_utf8_lossy(&strict.stdout));
    assert_eq!(png("after.png"), before, "migration must not change the picture");

    // Again: nothing to do.
    let again = nib(&["migrate", "--check", file]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("already at 2.20"));
}

#[test]
fn migrate_moves_down_only_where_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let lossless = dir.path().join("plain.pen");
    std::fs::write(&lossless, page("2.20", r##"{"type": "rectangle", "id": "r", "width": 10, "height": 10, "fill": "#000000", "stroke": "#FF0000", "strokeWidth": 2}"##)).unwrap();
    let output = nib(&["migrate", "--to", "2.13", lossless.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(&lossless).unwrap();
    // 2.13 draws a stroke without an alignment inside: the centred one says so.
    assert!(text.contains("\"version\": \"2.13\"") && text.contains("\"strokeAlignment\": \"center\""), "{text}");

    let cropped = dir.path().join("cropped.pen");
    let original = page(
        "2.20",
        r##"{"type": "rectangle", "id": "c", "width": 10, "height": 10, "fill": {"type": "image", "url": "a.png", "mode": "cover", "transform": [2, 0, 0, 2, -0.5, -0.5]}}"##,
    );
    std::fs::write(&cropped, &original).unwrap();
    let output = nib(&["migrate", "--to", "2.19", cropped.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("would lose") && said.contains("node 'c'") && said.contains("hint:"), "{said}");
    assert_eq!(std::fs::read_to_string(&cropped).unwrap(), original, "a refused move writes nothing");

    let output = nib(&["migrate", "--to", "3.0", cropped.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("2.6 to 2.20"));
}

// 8. Known header keys: `fonts` is used, `fileToken` kept, every version up to 2.20 known.

#[test]
fn a_documents_fonts_are_used_and_its_file_token_kept_without_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let font = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/fonts/noto/NotoSans-Bold.ttf");
    std::fs::copy(font, dir.path().join("brand.ttf")).unwrap();
    let path = dir.path().join("fonts.pen");
    let text = r##"{"version": "2.19", "fonts": [{"name": "Brand Sans", "url": "brand.ttf"}], "children": [{"type": "text", "id": "t", "content": "Hello", "fontFamily": "Brand Sans", "fill": "#000000"}], "fileToken": "37f2ac7b-00a8-403d-9a8f-3303033990a4"}"##;
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    let check = nib(&["check", "--strict", file]);
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success() && !said.contains("warning") && !said.contains("note"), "{said}");
    let fonts = nib(&["fonts", file]);
    let said = String::from_utf8_lossy(&fonts.stdout);
    assert!(said.contains("Brand Sans: document") && said.contains("0 replaced"), "{said}");
    // fmt keeps the token where Pen writes it (last) and the fonts list as it is.
    let formatted = nib(&["fmt", file]);
    assert!(formatted.status.success());
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.trim_end().ends_with("\"fileToken\": \"37f2ac7b-00a8-403d-9a8f-3303033990a4\"\n}"), "{saved}");
    assert!(saved.contains("\"name\": \"Brand Sans\""), "{saved}");
}
