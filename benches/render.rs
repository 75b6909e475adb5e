//! Rendering (budget: a 1440×900 landing-page frame to PNG ≤ 12 ms).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use nib::render::{RenderOptions, RenderTarget, encode_png, render};

fn benches(c: &mut Criterion) {
    // Compiled as the tools compile it; the bench times the painting and the encoding.
    let fixture = nib_test_support::Fixture::corpus("Changan-Su__Apple-Style-Website-Editor__PinS.pen");
    let (scene, layout) = (&*fixture.compiled.scene, &*fixture.compiled.layout);
    let mut engine = fixture.compiled.text.fork();
    let frame = RenderTarget::Node(scene.node_by_id("Qm8KM").expect("the landing page frame"));
    let options = RenderOptions::default();
    let mut images = nib::host::Host::pictures(fixture.host.as_ref());
    let pixmap = render(scene, layout, &mut engine, &mut images, frame, &options).expect("renders").pixmap;
    eprintln!("landing page: {} × {} pixels", pixmap.width(), pixmap.height());
    c.bench_function("render/landing_page_1440/paint", |b| {
        b.iter(|| render(black_box(scene), layout, &mut engine, &mut images, frame, &options).expect("renders"))
    });
    c.bench_function("render/landing_page_1440/png", |b| b.iter(|| encode_png(black_box(&pixmap))));
    c.bench_function("render/landing_page_1440/paint_and_png", |b| {
        b.iter(|| {
            let rendered =
                render(black_box(scene), layout, &mut engine, &mut images, frame, &options).expect("renders");
            encode_png(&rendered.pixmap)
        })
    });
}

criterion_group!(render_benches, benches);
criterion_main!(render_benches);
