//! Parse and run a 25-statement batch_design call on the largest corpus file (budget ≤ 1 ms),
//! transaction and rollback log included; and one content update through the batch_design tool
//! on that file (saved, answered with the layout problems it added): a write of an agent that
//! keeps the file open, and the first write after opening it (which lays the whole file out).

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use nib::doc::{Document, NodeType};
use nib::script::{Context, Options, parse, run};

/// The largest corpus file.
const LARGEST: &str = "LIU9293__cirrus__design.pen";

/// A typical agent call: inserts, updates, copies, moves, replacements and deletions spread over
/// the document.
fn script(document: &Document) -> String {
    let tree = document.tree();
    let of_type = |t: NodeType| -> Vec<String> {
        tree.walk().filter(|k| tree.node(*k).node_type() == t).map(|k| tree.node(k).id().to_owned()).collect()
    };
    let frames = of_type(NodeType::Frame);
    let texts = of_type(NodeType::Text);
    let screen = tree.node(tree.roots()[0]).id();
    let mut lines = vec![format!(
        "s=I(\"{screen}\", {{type: \"frame\", name: \"Section\", layout: \"vertical\", gap: 12, padding: [16, 24], width: \"fill_container\"}})"
    )];
    for i in 0..4 {
        lines.push(format!("t{i}=I(s, {{type: \"text\", content: \"Line {i}\", fill: \"#111111\", fontSize: 14, textGrowth: \"fixed-width\", width: \"fill_container\"}})"));
    }
    for (i, id) in texts.iter().step_by(97).take(5).enumerate() {
        lines.push(format!("U(\"{id}\", {{content: \"Updated {i}\", fill: \"$--text-primary\"}})"));
    }
    for id in frames.iter().skip(40).step_by(131).take(3) {
        lines.push(format!("C(\"{id}\", s)"));
    }
    lines.push("M(t3, s, 0)".into());
    lines.push("M(t2, s, 1)".into());
    lines.push("M(t0, s)".into());
    for id in texts.iter().skip(11).step_by(211).take(3) {
        lines.push(format!("R(\"{id}\", {{type: \"text\", content: \"Replaced\", fill: \"#222222\"}})"));
    }
    for id in texts.iter().skip(23).step_by(307).take(3) {
        lines.push(format!("D(\"{id}\")"));
    }
    for i in 0..3 {
        lines.push(format!("U(t{i}, {{fontWeight: \"600\", letterSpacing: 0.2}})"));
    }
    assert_eq!(lines.len(), 25);
    lines.join("\n")
}

fn batch(c: &mut Criterion) {
    let text = std::fs::read_to_string(nib_test_support::fixtures().join(LARGEST)).expect("fixture");
    let document = Document::load(&text).expect("loads").document;
    let source = script(&document);
    let context = Context::offline(Options { id_seed: Some(1), ..Options::default() });
    let check = run(&mut document.clone(), &source, &context);
    assert!(check.success, "{}", check.text());
    let mut group = c.benchmark_group("batch");
    group.bench_function("parse_25", |b| b.iter(|| parse(black_box(&source), 25).map(|s| s.statements.len())));
    group.bench_function("parse_and_run_25_on_1.7MB", |b| {
        b.iter_batched(
            || document.clone(),
            |mut d| run(&mut d, black_box(&source), &context).revision,
            BatchSize::LargeInput,
        )
    });
    group.finish();
    tool_writes(c, &text, &document);
}

/// One `U()` of a text's content through the batch_design tool, as an agent sends it.
fn tool_writes(c: &mut Criterion, text: &str, document: &Document) {
    let tree = document.tree();
    let id = tree.walk().find(|k| tree.node(*k).node_type() == NodeType::Text).map(|k| tree.node(k).id().to_owned());
    let id = id.expect("a text");
    let folder = tempfile::tempdir().expect("a folder");
    let file = folder.path().join("cirrus.pen");
    let mut count = 0_u64;
    let mut write = |workspace: &mut nib::tools::Workspace| {
        count += 1;
        let operations = format!("U(\"{id}\", {{content: \"Write {count}\"}})");
        let answer = nib::tools::call(
            workspace,
            "batch_design",
            serde_json::json!({"filePath": "cirrus.pen", "operations": operations}),
        );
        assert!(answer.is_ok(), "{answer:?}");
    };
    let mut group = c.benchmark_group("tool");
    group.sample_size(20);
    std::fs::write(&file, text).expect("written");
    let mut open = nib::tools::Workspace::new(folder.path());
    write(&mut open);
    group.bench_function("batch_design_one_update_on_1.7MB", |b| b.iter(|| write(&mut open)));
    group.bench_function("first_batch_design_after_opening_1.7MB", |b| {
        b.iter_batched(
            || {
                std::fs::write(&file, text).expect("written");
                nib::tools::Workspace::new(folder.path())
            },
            |mut workspace| write(&mut workspace),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, batch);
criterion_main!(benches);
