//! Load and save of the largest corpus file (budget: load + index ≤ 15 ms, save ≤ 10 ms), the
//! excerpt a one-frame render reads, and what sharing a file with other writers costs a write
//! (budget: the lock ≤ 1 ms): taking and letting go of a document's lock, and a whole save to
//! disk (lock, temporary file, the look for a lock-less writer, rename, sweep) next to the same
//! bytes written without a lock.

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

    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("design.pen");
    std::fs::write(&path, &text).expect("written");
    let mut group = c.benchmark_group("writers");
    group.bench_function("lock_and_release", |b| {
        b.iter(|| drop(nib::files::DocumentLock::acquire(black_box(&path)).expect("free")))
    });
    // Outputs are written the same way without the lock and the checks around the rename.
    group.bench_function("write_1.7MB_without_lock", |b| {
        b.iter(|| nib::files::write_output(black_box(&path), text.as_bytes(), None).expect("written"))
    });
    group.bench_function("save_1.7MB_to_disk_with_lock", |b| {
        b.iter(|| nib::doc::io::save_file(black_box(&document), &path).expect("saved"))
    });
    group.finish();
}

criterion_group!(benches, io);
criterion_main!(benches);
