//! The execute tool's cost against batch_design's for the same work, in a workspace as the MCP
//! server holds it (each call saves the file; each iteration is undone so the document stays
//! the same size): an empty snippet (the engine's start, thread and answer), and 50 nodes made
//! by one snippet against the same 50 made by batch_design.

use criterion::{Criterion, criterion_group, criterion_main};
use nib::tools::{Workspace, call};
use serde_json::json;

/// 50 inserts: a section and 49 texts in it.
fn snippet() -> String {
    "const s = Insert(\"screen\", {type: \"frame\", layout: \"vertical\", gap: 8, width: \"fill_container\"});\n\
     for (let i = 0; i < 49; i++) Insert(s, {type: \"text\", content: \"Line \" + i, fill: \"#111111\", fontSize: 14});"
        .to_owned()
}

fn script() -> String {
    let mut lines =
        vec!["s=I(\"screen\", {type: \"frame\", layout: \"vertical\", gap: 8, width: \"fill_container\"})".to_owned()];
    for i in 0..49 {
        lines.push(format!("I(s, {{type: \"text\", content: \"Line {i}\", fill: \"#111111\", fontSize: 14}})"));
    }
    lines.join("\n")
}

fn benches(c: &mut Criterion) {
    let folder = tempfile::tempdir().expect("a folder");
    let mut workspace = Workspace::new(folder.path()).confined();
    workspace.max_statements = 100;
    call(&mut workspace, "open_document", json!({ "filePathOrTemplate": "new:desktop" })).expect("a document");
    let mut group = c.benchmark_group("execute");
    group.bench_function("empty snippet", |b| {
        b.iter(|| call(&mut workspace, "execute", json!({ "input": "" })).expect("runs"))
    });
    group.bench_function("50 host calls", |b| {
        b.iter(|| {
            call(&mut workspace, "execute", json!({ "input": "for (let i = 0; i < 50; i++) GetVariables();" }))
                .expect("runs")
        })
    });
    group.bench_function("50 nodes by execute", |b| {
        b.iter(|| {
            call(&mut workspace, "execute", json!({ "input": snippet() })).expect("runs");
            call(&mut workspace, "undo", json!({})).expect("undoes");
        })
    });
    group.bench_function("50 nodes by batch_design", |b| {
        b.iter(|| {
            call(&mut workspace, "batch_design", json!({ "operations": script() })).expect("runs");
            call(&mut workspace, "undo", json!({})).expect("undoes");
        })
    });
    group.finish();
}

criterion_group! {
    name = group;
    config = Criterion::default().sample_size(30);
    targets = benches
}
criterion_main!(group);
