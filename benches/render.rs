//! Rendering (budget: a 1440×900 landing-page frame to PNG ≤ 12 ms).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use nib::doc::Document;
use nib::host::FolderImages;
use nib::layout::Layout;
use nib::render::{RenderOptions, RenderTarget, encode_png, render};
use nib::resolve::{NoImports, SceneOptions, build_scene};
use nib::text::{FontBook, FontOptions, TextEngine};

fn benches(c: &mut Criterion) {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen");
    let text =
        std::fs::read_to_string(folder.join("Changan-Su__Apple-Style-Website-Editor__PinS.pen")).expect("fixture");
    let document = Document::load(&text).expect("loads").document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let layout = Layout::compute(&scene, &mut engine);
    let frame = RenderTarget::Node(scene.node_by_id("Qm8KM").expect("the landing page frame"));
    let options = RenderOptions::default();
    let mut images = FolderImages::new(Some(folder), None);
    let pixmap = render(&scene, &layout, &mut engine, &mut images, frame, &options).expect("renders").pixmap;
    eprintln!("landing page: {} × {} pixels", pixmap.width(), pixmap.height());
    c.bench_function("render/landing_page_1440/paint", |b| {
        b.iter(|| render(black_box(&scene), &layout, &mut engine, &mut images, frame, &options).expect("renders"))
    });
    c.bench_function("render/landing_page_1440/png", |b| b.iter(|| encode_png(black_box(&pixmap))));
    c.bench_function("render/landing_page_1440/paint_and_png", |b| {
        b.iter(|| {
            let rendered =
                render(black_box(&scene), &layout, &mut engine, &mut images, frame, &options).expect("renders");
            encode_png(&rendered.pixmap)
        })
    });
}

criterion_group!(render_benches, benches);
criterion_main!(render_benches);
