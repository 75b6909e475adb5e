//! Every top-level frame of every corpus file renders without an error or a panic, and what
//! cannot be drawn (missing images, unknown icons) comes back as warnings naming the node.

use crate::common::{fixtures, load_with_imports};
use nib::layout::Layout;
use nib::render::{ImageCache, RenderOptions, RenderTarget, render};
use nib::resolve::{SceneOptions, build_scene};
use nib::text::{FontBook, FontOptions, TextEngine};

#[test]
fn every_top_level_frame_of_the_corpus_renders() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .expect("fixtures")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pen"))
        .collect();
    names.sort();
    let mut text = TextEngine::new(FontBook::new(FontOptions::default()));
    let (mut frames, mut warnings) = (0, 0);
    for name in names {
        let (document, imports) = load_with_imports(&name);
        let scene = build_scene(&document, &imports, SceneOptions::FULL);
        let layout = Layout::compute(&scene, &mut text);
        let mut images = ImageCache::default();
        // A quarter of the size: every node is still painted, with fewer pixels to fill.
        let options = RenderOptions { scale: 0.25, folder: Some(fixtures()), ..RenderOptions::default() };
        for root in scene.roots() {
            if layout.node_box(root).is_none() {
                continue;
            }
            let rendered = render(&scene, &layout, &mut text, &mut images, RenderTarget::Node(root), &options)
                .unwrap_or_else(|e| panic!("{name}: {}: {e}", scene.node(root).id));
            assert!(rendered.pixmap.width() > 0 && rendered.pixmap.height() > 0);
            assert!(rendered.warnings.iter().all(|w| w.starts_with("node '")), "{name}: {:?}", rendered.warnings);
            warnings += rendered.warnings.len();
            frames += 1;
        }
    }
    assert!(frames > 400, "{frames} frames rendered");
    assert!(warnings > 0, "the corpus has missing images and remote ones: they must be reported");
}
