//! Fonts end to end: every bundled family shapes with its own faces and metrics, the corpus
//! needs no substitution but its closed families (which are said), and a string mixing scripts,
//! symbols and emoji has no missing-glyph box and the same faces when measured and painted.

use crate::common;
use std::collections::BTreeSet;

use nib::doc::values::{TextAlign, TextAlignVertical};
use nib::host::FolderImages;
use nib::layout::Layout;
use nib::render::{RenderOptions, RenderTarget, render};
use nib::resolve::{SceneOptions, build_scene};
use nib::text::{FontBook, FontOptions, Origin, TextEngine, TextStyle};

fn style(family: &str, weight: u16, italic: bool) -> TextStyle {
    TextStyle {
        family: family.into(),
        size: 16.0,
        weight,
        italic,
        letter_spacing: 0.0,
        line_height: 0.0,
        align: TextAlign::Left,
        vertical_align: TextAlignVertical::Top,
    }
}

/// What a family is shown with: Latin, or the characters a fallback family is for.
fn sample(family: &str) -> &'static str {
    match family {
        "Noto Emoji" => "😀🎉📊👍",
        "Noto Sans Math" => "∑∫√∞≤≥⊂⊕",
        "Noto Sans Symbols 2" => "◍▣⯑⮕⬢♛",
        "Noto Sans JP" | "Noto Serif JP" => "日本語のテキスト、カタカナ",
        "Noto Sans SC" => "我们这个数据集为例",
        "Noto Sans KR" => "한국어 텍스트 확인",
        "Noto Sans Thai" => "สวัสดีครับ",
        _ => "Hamburgefonstiv 0123",
    }
}

/// Characters of the corpus that no face nib bundles draws (a missing-glyph box is the honest
/// answer there): U+2315 TELEPHONE RECORDER, which Noto Sans Symbols 2's slice declares but does
/// not have. (U+2387 ALTERNATIVE KEY SYMBOL, which Google's Inter subsets lack, comes from the
/// whole Inter 4.001 since issue 57.)
const NO_OPEN_FACE: &[char] = &['⌕'];

/// How many characters of the text node `key` no open font has.
fn without_open_face(scene: &nib::resolve::Scene, key: nib::resolve::SceneKey) -> usize {
    match scene.node(key).props.get(&nib::doc::Key::Content) {
        Some(nib::doc::Value::Content(nib::doc::values::TextContent::Plain(text))) => {
            text.chars().filter(|c| NO_OPEN_FACE.contains(c)).count()
        }
        _ => 0,
    }
}

#[test]
fn every_bundled_family_shapes_with_its_own_faces_and_metrics() {
    let book = FontBook::new(FontOptions::default());
    let mut engine = TextEngine::new(book.clone());
    let families: Vec<&str> = book.text_families().collect();
    assert!(families.len() >= 50, "{families:?}");
    for family in families {
        for (weight, italic) in [(400, false), (700, false), (400, true)] {
            let text = sample(family);
            let shaped = engine.shape(text, &style(family, weight, italic), None);
            assert_eq!(shaped.family, family);
            assert_eq!(shaped.missing_glyphs, 0, "{family} {weight} {italic}: {text}");
            let glyphs: Vec<_> = shaped.lines.iter().flat_map(|l| shaped.glyphs(l)).collect();
            for glyph in &glyphs {
                let font = engine.font_of(glyph.font).expect("a registered face");
                assert_eq!(
                    (font.family.as_str(), font.origin),
                    (family, Origin::Bundled),
                    "{family}: glyph from {font:?}"
                );
            }
            if sample(family) == sample("Inter") && family != "Inter" {
                // Glyph by glyph: two faces can end up with the same total width by chance.
                let inter = engine.shape(text, &style("Inter", weight, italic), None);
                let places = |shaped: &nib::text::ShapedText| -> Vec<f32> {
                    shaped.lines.iter().flat_map(|l| shaped.glyphs(l)).map(|g| g.x).collect()
                };
                let apart = places(&shaped).iter().zip(places(&inter)).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
                assert!(
                    apart > 0.5,
                    "{family} {weight} {italic} places its glyphs as Inter does: its own metrics are not used"
                );
            }
        }
    }
}

#[test]
fn weights_of_a_variable_family_measure_and_draw_differently() {
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let widths: Vec<f32> = [300, 500, 800]
        .iter()
        .map(|w| engine.shape("Hamburgefonstiv", &style("DM Sans", *w, false), None).width)
        .collect();
    assert!(widths[0] < widths[1] && widths[1] < widths[2], "{widths:?}");
    let light = engine.shape("H", &style("DM Sans", 300, false), None);
    let heavy = engine.shape("H", &style("DM Sans", 800, false), None);
    let area = |engine: &mut TextEngine, shaped: &nib::text::ShapedText| {
        let glyph = shaped.glyphs(&shaped.lines[0]).next().expect("a glyph");
        let path = engine.glyph_outline(glyph.font, glyph.glyph).path.clone().expect("an outline");
        let b = path.bounds();
        b.width() * b.height()
    };
    assert!(area(&mut engine, &light) < area(&mut engine, &heavy), "the outline follows the weight axis");
}

#[test]
fn the_corpus_lays_out_and_renders_with_no_substitution_but_its_closed_families_which_are_said() {
    let closed: BTreeSet<&str> = ["Courier New", "SF Pro Display"].into_iter().collect();
    let mut replaced = BTreeSet::new();
    for entry in std::fs::read_dir(common::fixtures()).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "pen") {
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).expect("a name").to_owned();
        let (document, imports) = common::load_with_imports(&name);
        let scene = build_scene(&document, &imports, SceneOptions::FULL);
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let layout = Layout::compute(&scene, &mut engine);
        assert_eq!(layout.parts().len(), scene.parts().len());
        // No missing-glyph box anywhere in the corpus's text.
        for root in scene.roots() {
            for key in scene.subtree(root) {
                if let Some(shaped) = layout.shaped_text(key) {
                    let id = &scene.node(key).id;
                    let expected = without_open_face(&scene, key);
                    assert_eq!(shaped.missing_glyphs, expected, "{name}: {id} has characters no face draws");
                }
            }
        }
        // It renders: the whole canvas, small (the pixels are the snapshot tests' business).
        let extent = scene
            .roots()
            .iter()
            .filter_map(|root| layout.node_box(*root))
            .fold(1.0f32, |m, b| m.max(b.left.abs() + b.width).max(b.top.abs() + b.height));
        let options = RenderOptions { scale: (256.0 / extent).min(1.0), ..RenderOptions::default() };
        render(&scene, &layout, &mut engine, &mut FolderImages::default(), RenderTarget::Canvas, &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for family in nib::layout::fonts::families_used(&scene, None, &mut engine) {
            match &family.reason {
                None => assert!(!closed.contains(family.requested.as_str()), "{name}: {family:?}"),
                Some(reason) => {
                    assert!(
                        closed.contains(family.requested.as_str()),
                        "{name}: {} is replaced: {reason}",
                        family.requested
                    );
                    replaced.insert((family.requested.clone(), family.used.clone()));
                }
            }
        }
    }
    let expected: BTreeSet<(String, String)> = [("Courier New", "Liberation Mono"), ("SF Pro Display", "Inter")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(replaced, expected);
}

#[test]
fn a_mixed_string_has_no_missing_glyph_and_is_measured_and_painted_with_the_same_faces() {
    let mixed = "Hello ◍ ▣ ⋯ ✓ → ⇄ ∑ √ ≠ สวัสดี 😀 👍🏽 日本 我们 한국";
    let text = format!(
        r##"{{"version":"2.10","children":[{{"type":"frame","id":"f","width":900,"height":80,"fill":"#FFFFFF","children":[{{"type":"text","id":"t","content":"{mixed}","fontSize":24,"fill":"#000000"}}]}}]}}"##
    );
    let document = nib::doc::Document::load(&text).expect("valid").document;
    let scene = build_scene(&document, &nib::resolve::NoImports, SceneOptions::FULL);
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let layout = Layout::compute(&scene, &mut engine);
    let style = TextStyle { size: 24.0, ..style("Inter", 400, false) };
    let measured = engine.shape(mixed, &style, None);
    let missing: Vec<&str> = measured
        .lines
        .iter()
        .flat_map(|l| measured.glyphs(l))
        .filter(|g| g.glyph == 0)
        .map(|g| &mixed[g.start..g.end])
        .collect();
    assert!(missing.is_empty(), "no face for {missing:?}");
    assert_eq!(measured.missing_glyphs, 0, "every character has a face");
    // The painting threads fork the engine: a fork names the same faces and chooses the same ones.
    let mut painter = engine.fork();
    let painted = painter.shape(mixed, &style, None);
    let faces = |engine: &TextEngine, shaped: &nib::text::ShapedText| -> Vec<(String, u16)> {
        shaped
            .lines
            .iter()
            .flat_map(|l| shaped.glyphs(l))
            .map(|g| (engine.font_of(g.font).expect("a face").file, g.glyph))
            .collect()
    };
    assert_eq!(faces(&engine, &measured), faces(&painter, &painted));
    assert_eq!(measured.width, painted.width);
    let used: BTreeSet<String> = faces(&engine, &measured).into_iter().map(|(file, _)| file).collect();
    for wanted in ["inter/", "noto-sans-thai/", "noto-emoji/", "noto-sans-jp/", "noto-sans-sc/", "noto-sans-kr/"] {
        assert!(used.iter().any(|f| f.starts_with(wanted)), "{wanted} not used: {used:?}");
    }
    // Every glyph but the spaces has an outline the painter draws.
    for glyph in measured.lines.iter().flat_map(|l| measured.glyphs(l)) {
        let character = &mixed[glyph.start..glyph.end];
        if character.trim().is_empty() {
            continue;
        }
        assert!(engine.glyph_outline(glyph.font, glyph.glyph).path.is_some(), "no outline for {character:?}");
    }
    let root = scene.roots()[0];
    let rendered = render(
        &scene,
        &layout,
        &mut engine,
        &mut FolderImages::default(),
        RenderTarget::Node(root),
        &RenderOptions::default(),
    )
    .expect("rendered");
    assert!(rendered.warnings.is_empty(), "{:?}", rendered.warnings);
}
