//! Every top-level frame of the corpus (`tests/fixtures/pen`), rendered warm, one at a time:
//! p50, p95, max and the five slowest frames (budgets: p50 ≤ 5 ms, every frame up to
//! 1440 × 1000 px ≤ 15 ms); then the whole `nib render --node` process on one frame of the
//! largest file (budget ≤ 40 ms). `cargo bench --bench corpus`.
//!
//! Not a criterion bench: the figure that matters is the distribution over frames, each
//! measured as the best of a few warm runs.
//!
//! `NIB_BENCH_FRAME=FILE:ID cargo bench --bench corpus` draws that one frame over and over
//! instead (for a profiler: `perf record` the bench binary), printing its best and median time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use nib::compile::{CompileOptions, Compiled, compile};
use nib::doc::Document;
use nib::host::{DiskHost, FolderImages};
use nib::layout::Layout;
use nib::render::{RenderOptions, RenderTarget, encode_png, render};
use nib::resolve::Scene;
use nib::text::{FontOptions, TextEngine};

/// Warm runs per frame; the best one counts (the others absorb a busy machine's noise).
const RUNS: usize = 5;

/// The frame whose whole-process time is measured, in the largest corpus file.
const PROCESS_FILE: &str = "LIU9293__cirrus__design.pen";
const PROCESS_NODE: &str = "TBCqR";

struct Timed {
    file: String,
    id: String,
    size: (u32, u32),
    time: Duration,
}

fn main() {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("the corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pen"))
        .collect();
    files.sort();
    if let Ok(frame) = std::env::var("NIB_BENCH_FRAME") {
        one_frame(&folder, &frame);
        return;
    }
    let mut timed = Vec::new();
    let started = Instant::now();
    for file in &files {
        timed.extend(frames_of(file));
    }
    let total = started.elapsed();
    timed.sort_by_key(|t| t.time);
    let at = |q: f64| timed[((timed.len() - 1) as f64 * q).round() as usize].time;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "corpus: {} frames of {} files (wall {:.1} s with {RUNS} runs each)",
        timed.len(),
        files.len(),
        total.as_secs_f64()
    );
    println!(
        "paint + PNG, warm, best of {RUNS}: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        ms(at(0.5)),
        ms(at(0.95)),
        ms(at(1.0))
    );
    let within: Vec<&Timed> = timed.iter().filter(|t| t.size.0 <= 1440 && t.size.1 <= 1000).collect();
    let worst = within.last().map(|t| t.time).unwrap_or_default();
    let over = within.iter().filter(|t| ms(t.time) > 15.0).count();
    println!(
        "frames up to 1440 × 1000: {} frames, {} over 15 ms, max {:.2} ms; the five slowest of them:",
        within.len(),
        over,
        ms(worst)
    );
    for t in within.iter().rev().take(5) {
        println!("  {:7.2} ms  {} × {}  {} {}", ms(t.time), t.size.0, t.size.1, t.file, t.id);
    }
    println!("five slowest:");
    for t in timed.iter().rev().take(5) {
        println!("  {:7.2} ms  {} × {}  {} {}", ms(t.time), t.size.0, t.size.1, t.file, t.id);
    }
    cache_hit_time(&folder);
    process_time(&folder);
    render_all_time(&files);
}

/// `nib render FILE --all` over every corpus file, as whole processes: the total.
fn render_all_time(files: &[PathBuf]) {
    let binary = env!("CARGO_BIN_EXE_nib");
    let out = std::env::temp_dir().join(format!("nib-corpus-bench-all-{}", std::process::id()));
    let start = Instant::now();
    for file in files {
        let output =
            Command::new(binary).arg("render").arg(file).arg("--all").arg("-o").arg(&out).output().expect("nib runs");
        // A file whose frames cannot all be drawn still counts its time; the others are checked.
        std::hint::black_box(output.status);
    }
    let total = start.elapsed();
    let _ = std::fs::remove_dir_all(&out);
    println!("`nib render FILE --all` over the {} corpus files: {:.2} s in total", files.len(), total.as_secs_f64());
}

/// A repeated get_screenshot of an unchanged frame, answered from the render cache (budget
/// ≤ 1 ms), against the first one that draws it.
fn cache_hit_time(folder: &Path) {
    let mut workspace = nib::tools::Workspace::new(folder);
    let args = serde_json::json!({"filePath": PROCESS_FILE, "nodeId": PROCESS_NODE});
    let start = Instant::now();
    nib::tools::call(&mut workspace, "get_screenshot", args.clone()).expect("a screenshot");
    let first = start.elapsed();
    let mut hits: Vec<Duration> = (0..21)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(
                nib::tools::call(&mut workspace, "get_screenshot", args.clone()).expect("a screenshot"),
            );
            start.elapsed()
        })
        .collect();
    hits.sort();
    println!(
        "get_screenshot {PROCESS_NODE}: first (open, resolve and lay out its part, draw) {:.1} ms; again, from the cache: median {:.3} ms",
        first.as_secs_f64() * 1000.0,
        hits[hits.len() / 2].as_secs_f64() * 1000.0
    );
}

/// A corpus file resolved and laid out, ready to draw its frames.
struct Prepared {
    scene: std::sync::Arc<Scene>,
    layout: std::sync::Arc<Layout>,
    engine: TextEngine,
    options: RenderOptions,
    images: FolderImages,
}

/// `file` read, resolved and laid out; `None` when it does not load.
fn prepared(file: &Path) -> Option<Prepared> {
    let text = std::fs::read_to_string(file).ok()?;
    let document = Document::load(&text).ok()?.document;
    let host = DiskHost::new(file, FontOptions::default());
    let Compiled { scene, layout, text, .. } = compile(&host, &document, &CompileOptions::default()).ok()?;
    let engine = text.owned()?;
    let images = FolderImages::new(Some(host.folder().to_owned()), None);
    Some(Prepared { scene, layout, engine, options: RenderOptions::default(), images })
}

/// Every top-level frame of `file`, each rendered once to warm up and then timed.
fn frames_of(file: &Path) -> Vec<Timed> {
    let Some(Prepared { scene, layout, mut engine, options, mut images }) = prepared(file) else { return Vec::new() };
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut timed = Vec::new();
    for key in scene.roots() {
        if layout.node_box(key).is_none() {
            continue;
        }
        let target = RenderTarget::Node(key);
        let Ok(first) = render(&scene, &layout, &mut engine, &mut images, target, &options) else { continue };
        let size = (first.pixmap.width(), first.pixmap.height());
        let best = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let rendered =
                    render(&scene, &layout, &mut engine, &mut images, target, &options).expect("rendered once");
                std::hint::black_box(encode_png(&rendered.pixmap));
                start.elapsed()
            })
            .min()
            .unwrap_or_default();
        timed.push(Timed { file: name.clone(), id: scene.node(key).id.clone(), size, time: best });
    }
    timed
}

/// `FILE:ID` drawn and encoded 200 times, warm: the best and the median time.
fn one_frame(folder: &Path, frame: &str) {
    let Some((file, id)) = frame.rsplit_once(':') else {
        eprintln!("NIB_BENCH_FRAME is FILE:ID, for example {PROCESS_FILE}:{PROCESS_NODE}");
        std::process::exit(2);
    };
    let Some(Prepared { scene, layout, mut engine, options, mut images }) = prepared(&folder.join(file)) else {
        eprintln!("{file} is not a corpus file nib loads");
        std::process::exit(2);
    };
    let Some(key) = scene.node_by_id(id) else {
        eprintln!("{file} has no node '{id}'");
        std::process::exit(2);
    };
    let target = RenderTarget::Node(key);
    let mut times: Vec<Duration> = (0..200)
        .map(|_| {
            let start = Instant::now();
            let rendered = render(&scene, &layout, &mut engine, &mut images, target, &options).expect("rendered");
            std::hint::black_box(encode_png(&rendered.pixmap));
            start.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "{frame}: best {:.2} ms, median {:.2} ms over {} runs",
        times[0].as_secs_f64() * 1000.0,
        times[times.len() / 2].as_secs_f64() * 1000.0,
        times.len()
    );
}

/// The median of whole `nib render FILE --node ID` processes (the release binary cargo built
/// for this bench).
fn process_time(folder: &Path) {
    let binary = env!("CARGO_BIN_EXE_nib");
    let out = std::env::temp_dir().join(format!("nib-corpus-bench-{}.png", std::process::id()));
    let mut times: Vec<Duration> = (0..11)
        .map(|_| {
            let start = Instant::now();
            let status = Command::new(binary)
                .arg("render")
                .arg(folder.join(PROCESS_FILE))
                .args(["--node", PROCESS_NODE, "-o"])
                .arg(&out)
                .output()
                .expect("nib runs");
            assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
            start.elapsed()
        })
        .collect();
    let _ = std::fs::remove_file(&out);
    times.sort();
    println!(
        "whole process `nib render {PROCESS_FILE} --node {PROCESS_NODE}`: median {:.1} ms (min {:.1}, max {:.1}) over {} runs",
        times[times.len() / 2].as_secs_f64() * 1000.0,
        times[0].as_secs_f64() * 1000.0,
        times[times.len() - 1].as_secs_f64() * 1000.0,
        times.len()
    );
}
