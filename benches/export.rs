//! Code export at scale, as a user runs it: the whole `nib export --format react` process over
//! a generated document of 50,000 reusable components of one name (100,000 nodes, the budget:
//! ≤ 10 s) and of 10,000 and 20,000 (the growth: linear, where it was quadratic — 8.3 s and
//! 34.6 s on 2026-12-06), and the same 100,000 nodes as HTML; and the largest corpus file
//! (`tests/fixtures/pen`, 3,613 nodes) as React, the app's files included (budget: ≤ 200 ms).
//! `cargo bench --bench export`.
//!
//! Not a criterion bench: one run of a process that writes tens of thousands of files is the
//! figure, and a few seconds each.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// A document of `count` top-level components, all named "Card", each a frame with a text.
fn same_named_components(count: usize) -> String {
    let nodes: Vec<String> = (0..count)
        .map(|i| {
            format!(
                r##"{{"type": "frame", "id": "c{i}", "name": "Card", "reusable": true, "x": {}, "y": {}, "width": 240, "height": 120, "fill": "#FFFFFF", "layout": "vertical", "children": [{{"type": "text", "id": "t{i}", "name": "Title", "content": "Card {i}", "fill": "#111111"}}]}}"##,
                (i % 100) * 300,
                (i / 100) * 200
            )
        })
        .collect();
    format!(r#"{{"version": "2.20", "children": [{}]}}"#, nodes.join(","))
}

fn export(binary: &str, file: &Path, format: &str, out: &Path) -> f64 {
    let start = Instant::now();
    let output = Command::new(binary)
        .arg("export")
        .arg(file)
        .args(["--format", format, "-o"])
        .arg(out)
        .env("NIB_IMAGES", "offline")
        .output()
        .expect("nib runs");
    let seconds = start.elapsed().as_secs_f64();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    seconds
}

/// The largest corpus file.
const LARGEST: &str = "LIU9293__cirrus__design.pen";

fn main() {
    let binary = env!("CARGO_BIN_EXE_nib");
    let folder = tempfile::tempdir().expect("a temporary folder");
    // The fastest of five runs, each into a new folder (so the app's files are written too): the
    // others measure the machine's other work as much as the export.
    let largest = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen").join(LARGEST);
    let runs: Vec<f64> =
        (0..5).map(|run| export(binary, &largest, "react", &folder.path().join(format!("largest-{run}")))).collect();
    let best = runs.iter().copied().fold(f64::INFINITY, f64::min);
    println!("export --format react: {LARGEST}: {:.0} ms (fastest of 5; budget 200 ms)", best * 1000.0);
    for (count, format) in [(10_000, "react"), (20_000, "react"), (50_000, "react"), (50_000, "html")] {
        let file = folder.path().join(format!("same-{count}.pen"));
        if !file.exists() {
            std::fs::write(&file, same_named_components(count)).expect("written");
        }
        let out = folder.path().join(format!("out-{count}-{format}"));
        let seconds = export(binary, &file, format, &out);
        println!("export --format {format}: {count} components ({} nodes): {seconds:.2} s", count * 2);
    }
}
