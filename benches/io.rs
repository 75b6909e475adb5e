//! Load and save of the largest corpus file (budget: load + index ≤ 15 ms, save ≤ 10 ms), and
//! the excerpt a one-frame render reads.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nib::doc::Document;

/// The largest corpus file.
const LARGEST: &str = "LIU9293__cirrus__design.pen";

fn io(c: &mut Criterion) {
    let text = std::fs::read_to_string(nib_test_support::fixtures().join(LARGEST)).expect("fixture present");
    let document = Document::load(&text).expect("fixture loads").document;
    let mut group = c.benchmark_group("io");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group
        .bench_function("load_1.7MB", |b| b.iter(|| Document::load(black_box(&text)).map(|l| l.document.node_count())));
    // What `nib render --node` reads of it: one frame's part, the rest checked and skipped.
    let frame = ["TBCqR".to_string()];
    group.bench_function("excerpt_1.7MB", |b| {
        b.iter(|| Document::load_excerpt(black_box(&text), &frame).map(|l| l.document.node_count()))
    });
    group.bench_function("save_1.7MB", |b| b.iter(|| black_box(&document).to_pen_string().len()));
    group.finish();
}

criterion_group!(benches, io);
criterion_main!(benches);
