//! Resolving documents into Scenes (budget: the largest corpus file ≤ 10 ms).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use nib::doc::Document;
use nib::resolve::{NoImports, SceneOptions, build_scene};

fn load(name: &str) -> Document {
    let path = format!("{}/tests/fixtures/pen/{name}", env!("CARGO_MANIFEST_DIR"));
    Document::load(&std::fs::read_to_string(path).expect("fixture")).expect("loads").document
}

fn resolve(c: &mut Criterion) {
    let largest = load("LIU9293__cirrus__design.pen");
    let instances = load("open-pencil__open-pencil__tests__fixtures__pencil_file.pen");
    let mut group = c.benchmark_group("resolve");
    group.bench_function("largest_3.6k_nodes", |b| {
        b.iter(|| build_scene(black_box(&largest), &NoImports, SceneOptions::FULL).len())
    });
    group.bench_function("kit_102_instances", |b| {
        b.iter(|| build_scene(black_box(&instances), &NoImports, SceneOptions::FULL).len())
    });
    group.finish();
}

criterion_group!(benches, resolve);
criterion_main!(benches);
