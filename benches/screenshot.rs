//! The agent's path to a picture: get_screenshot of every corpus frame up to
//! 1440 × 1000 as an MCP client sees it over stdio — the first picture of each frame in an open
//! document, a repeat (the render cache), the first after a one-property edit that changes
//! nothing visible (its name), after one that does (the fill of a leaf inside), after one
//! that changes every pixel (the frame's opacity), and after the opacity of the largest group
//! in the frame, from full and then from one translucent value to another (its kept layer
//! drawn again) — then the
//! same first pictures split by stage in this process (resolve the frame's part, lay it out,
//! build the display list, paint, encode the PNG, base64), so the next bottleneck is visible;
//! and the whole `nib render --node` process on one frame of the largest file.
//! `cargo bench --bench screenshot`. Budgets: first p50 ≤ 8 ms and max ≤ 30 ms,
//! after an edit p50 ≤ 4 ms, a repeat ≤ 1.5 ms, the whole process ≤ 30 ms.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine as _;
use nib::compile::{CompileOptions, compile};
use nib::doc::Document;
use nib::host::{DiskHost, Host as _};
use nib::render::{RenderOptions, RenderTarget, encode_rendered};
use nib::resolve::{SceneOptions, part_root, update_scene_of};
use nib::text::FontOptions;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

const LARGEST: &str = "LIU9293__cirrus__design.pen";
const LARGEST_FRAME: &str = "TBCqR";

/// A frame to picture.
struct Frame {
    file: String,
    id: String,
    /// A node without children inside it (not inside an instance), to edit visibly.
    leaf: Option<String>,
    /// The child of the frame holding the most nodes, to make translucent.
    group: Option<String>,
}

/// Timings of one frame.
#[derive(Default, Clone, Copy)]
struct Stages {
    first: Duration,
    repeat: Duration,
    edited: Duration,
    repainted: Duration,
    /// After an edit of the frame's own opacity: every pixel changes.
    whole: Duration,
    /// After a group's opacity lowered from full (its layer painted and kept).
    group_first: Duration,
    /// After the same group's opacity from one translucent value to another.
    group_again: Duration,
    compile: Duration,
    /// The imports and the part's resolution alone (timed apart; the compile is these, fonts
    /// and layout).
    resolve: Duration,
    display: Duration,
    paint: Duration,
    encode: Duration,
    base64: Duration,
    /// The PNG's size in bytes (the answer carries it in base64, a third more).
    png_bytes: usize,
}

fn main() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen");
    let root = tempfile::tempdir().expect("a folder");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("the corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pen"))
        .collect();
    files.sort();
    let mut frames = Vec::new();
    for file in &files {
        let name = file.file_name().expect("a name").to_string_lossy().into_owned();
        std::fs::copy(file, root.path().join(&name)).expect("copied");
        frames.extend(frames_of(file, &name));
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = runtime.block_on(connect(root.path()));
    let call = |tool: &str, arguments: Value| -> Duration {
        let Value::Object(arguments) = arguments else { unreachable!("objects") };
        let started = Instant::now();
        let result = runtime
            .block_on(client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)))
            .expect("an answer");
        let took = started.elapsed();
        assert_ne!(result.is_error, Some(true), "{tool}: {:?}", result.content);
        took
    };
    let mut timed: Vec<(usize, Stages)> = Vec::new();
    let mut opened = String::new();
    for (index, frame) in frames.iter().enumerate() {
        if frame.file != opened {
            call("open_document", json!({ "filePathOrTemplate": frame.file }));
            opened = frame.file.clone();
        }
        let shot = json!({ "filePath": frame.file, "nodeId": frame.id });
        let mut stages = Stages { first: call("get_screenshot", shot.clone()), ..Stages::default() };
        stages.repeat = call("get_screenshot", shot.clone());
        let edit = format!("U(\"{}\", {{name: \"edited {index}\"}})", frame.id);
        call("batch_design", json!({ "filePath": frame.file, "operations": edit }));
        stages.edited = call("get_screenshot", shot.clone());
        if let Some(leaf) = &frame.leaf {
            let colour = ["#E11D48", "#2563EB"][index % 2];
            let edit = format!("U(\"{leaf}\", {{fill: \"{colour}\"}})");
            call("batch_design", json!({ "filePath": frame.file, "operations": edit }));
            stages.repainted = call("get_screenshot", shot.clone());
        }
        let edit = format!("U(\"{}\", {{opacity: {}}})", frame.id, [0.9, 0.8][index % 2]);
        call("batch_design", json!({ "filePath": frame.file, "operations": edit }));
        stages.whole = call("get_screenshot", shot.clone());
        if let Some(group) = &frame.group {
            for (opacity, stage) in [(0.7, &mut stages.group_first), (0.5, &mut stages.group_again)] {
                let edit = format!("U(\"{group}\", {{opacity: {opacity}}})");
                call("batch_design", json!({ "filePath": frame.file, "operations": edit }));
                *stage = call("get_screenshot", shot.clone());
            }
        }
        in_process(&corpus.join(&frame.file), &frame.id, &mut stages);
        timed.push((index, stages));
    }
    runtime.block_on(client.cancel()).expect("closes");

    println!("get_screenshot over MCP (stdio), {} frames up to 1440 × 1000 of {} files:", timed.len(), files.len());
    let report = |what: &str, pick: fn(&Stages) -> Duration| {
        // A frame without a leaf to edit has no time for that edit.
        let mut times: Vec<Duration> = timed.iter().map(|(_, s)| pick(s)).filter(|t| !t.is_zero()).collect();
        times.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!("  {what:34} p50 {:6.2} ms  p95 {:6.2} ms  max {:6.2} ms", ms(at(0.5)), ms(at(0.95)), ms(at(1.0)));
    };
    report("first picture (open document)", |s| s.first);
    report("repeat (render cache)", |s| s.repeat);
    report("after a U() of its name", |s| s.edited);
    report("after a U() of a leaf's fill", |s| s.repainted);
    report("after a U() of the frame's opacity", |s| s.whole);
    report("after a group's opacity 1 → 0.7", |s| s.group_first);
    report("after a group's opacity 0.7 → 0.5", |s| s.group_again);
    println!("the first picture by stage, in this process (a fresh compile of the frame's part):");
    report("imports + resolve (part)", |s| s.resolve);
    report("fonts + layout (compile − resolve)", |s| s.compile.saturating_sub(s.resolve));
    report("display list", |s| s.display);
    report("paint", |s| s.paint);
    report("PNG encode", |s| s.encode);
    report("base64", |s| s.base64);
    report("transport and the rest (MCP − stages)", |s| {
        s.first.saturating_sub(s.compile + s.display + s.paint + s.encode + s.base64)
    });
    timed.sort_by_key(|(_, s)| s.first);
    println!("the five slowest first pictures:");
    for (index, stages) in timed.iter().rev().take(5) {
        let frame = &frames[*index];
        println!(
            "  {:6.2} ms  {} {} (compile {:.1}, display {:.1}, paint {:.1}, encode {:.1})",
            ms(stages.first),
            frame.file,
            frame.id,
            ms(stages.compile),
            ms(stages.display),
            ms(stages.paint),
            ms(stages.encode)
        );
    }
    // A cache hit costs what carrying the answer costs; the PNG's size tells a heavy answer
    // from a slow moment of the machine.
    timed.sort_by_key(|(_, s)| s.repeat);
    println!("the five slowest repeats:");
    for (index, stages) in timed.iter().rev().take(5) {
        let frame = &frames[*index];
        let kib = stages.png_bytes as f64 / 1024.0;
        println!("  {:6.2} ms  {} {} ({kib:.0} KiB of PNG)", ms(stages.repeat), frame.file, frame.id);
    }
    whole_process(&corpus.join(LARGEST));
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn connect(root: &Path) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_nib"));
    command.arg("mcp").arg("--root").arg(root).env("RUST_LOG", "error").env("NIB_IMAGES", "offline");
    let (transport, _) = TokioChildProcess::builder(command).spawn().expect("nib mcp starts");
    ().serve(transport).await.expect("handshake")
}

/// The top-level frames of `file` up to 1440 × 1000.
fn frames_of(file: &Path, name: &str) -> Vec<Frame> {
    let Some(document) = std::fs::read_to_string(file).ok().and_then(|t| Document::load(&t).ok()) else {
        return Vec::new();
    };
    let host = DiskHost::new(file, FontOptions::default());
    let Ok(compiled) = compile(&host, &document.document, &CompileOptions::default()) else { return Vec::new() };
    compiled
        .scene
        .roots()
        .into_iter()
        .filter(|key| {
            compiled.layout.node_box(*key).is_some_and(|b| b.width <= 1440.0 && b.height <= 1000.0 && b.width >= 1.0)
        })
        .map(|key| Frame {
            file: name.to_owned(),
            id: compiled.scene.node(key).id.clone(),
            leaf: leaf(&compiled.scene, key),
            group: group(&compiled.scene, key),
        })
        .collect()
}

/// The first node without children under `key`, depth first, outside instances.
fn leaf(scene: &nib::resolve::Scene, key: nib::resolve::SceneKey) -> Option<String> {
    scene.children(key).find_map(|child| {
        let id = &scene.node(child).id;
        if id.contains('/') {
            return None;
        }
        if scene.children(child).len() == 0 { Some(id.clone()) } else { leaf(scene, child) }
    })
}

/// The child of `key` holding the most nodes (at least one), outside instances.
fn group(scene: &nib::resolve::Scene, key: nib::resolve::SceneKey) -> Option<String> {
    fn count(scene: &nib::resolve::Scene, key: nib::resolve::SceneKey) -> usize {
        scene.children(key).map(|child| 1 + count(scene, child)).sum()
    }
    scene
        .children(key)
        .filter(|child| !scene.node(*child).id.contains('/'))
        .map(|child| (count(scene, child), child))
        .filter(|(nodes, _)| *nodes > 0)
        .max_by_key(|(nodes, _)| *nodes)
        .map(|(_, child)| scene.node(child).id.clone())
}

/// The first picture of `id` in this process, stage by stage.
fn in_process(file: &Path, id: &str, stages: &mut Stages) {
    let Some(document) = std::fs::read_to_string(file).ok().and_then(|t| Document::load(&t).ok()) else { return };
    let host = DiskHost::new(file, FontOptions::default());
    // The imports and the resolution of the part alone, for their share of the compile below.
    let started = Instant::now();
    let (imports, _) = host.imports(&document.document);
    if let Some(root) = part_root(&document.document, id) {
        std::hint::black_box(update_scene_of(None, &document.document, imports.as_ref(), SceneOptions::FULL, &[root]));
    }
    stages.resolve = started.elapsed();
    let started = Instant::now();
    let Ok(mut compiled) = compile(
        &host,
        &document.document,
        &CompileOptions { parts_of: Some(vec![id.to_owned()]), ..CompileOptions::default() },
    ) else {
        return;
    };
    stages.compile = started.elapsed();
    let Some(key) = compiled.scene.node_by_id(id) else { return };
    let target = RenderTarget::Node(key);
    let started = Instant::now();
    let display = compiled.display(target);
    stages.display = started.elapsed();
    std::hint::black_box(display.is_ok());
    let started = Instant::now();
    let Ok(rendered) = compiled.render(target, &RenderOptions::default()) else { return };
    // Rendering builds the display list again: the paint is what is beyond it.
    stages.paint = started.elapsed().saturating_sub(stages.display);
    let started = Instant::now();
    let png = encode_rendered(&rendered);
    stages.encode = started.elapsed();
    stages.png_bytes = png.len();
    let started = Instant::now();
    std::hint::black_box(base64::engine::general_purpose::STANDARD.encode(&png));
    stages.base64 = started.elapsed();
}

/// `nib render --node` of one frame of the largest file, whole processes: the median of 11.
fn whole_process(file: &Path) {
    let out = std::env::temp_dir().join(format!("nib-screenshot-bench-{}.png", std::process::id()));
    let mut times: Vec<Duration> = (0..11)
        .map(|_| {
            let started = Instant::now();
            let status = Command::new(env!("CARGO_BIN_EXE_nib"))
                .arg("render")
                .arg(file)
                .args(["--node", LARGEST_FRAME, "-o"])
                .arg(&out)
                .stdout(std::process::Stdio::null())
                .status()
                .expect("nib runs");
            assert!(status.success());
            started.elapsed()
        })
        .collect();
    times.sort();
    let _ = std::fs::remove_file(&out);
    println!("`nib render {LARGEST} --node {LARGEST_FRAME}`, whole process: median {:.1} ms", ms(times[5]));
}
