//! What the export checks share (tests and the corpus script `examples/export_check.rs`): the
//! SVG of every top-level frame rasterised by resvg, an independent renderer, and scored with
//! SSIM against nib's own PNG of the frame.

use nib::compile::frames::frames;
use nib::export::svg::{SvgOptions, to_svg};
use nib::render::{RenderOptions, RenderTarget, render};
use nib::review::ssim::ssim;
use nib::text::TextEngine;
use tiny_skia::Pixmap;

use super::Fixture;

/// One frame's score.
pub struct FrameScore {
    /// The frame's id.
    pub id: String,
    /// SSIM of resvg's raster of the SVG against nib's PNG.
    pub ssim: f64,
}

/// `svg` rasterised by resvg at `width` × `height`, as nib's pixmap type. `fonts` is the font
/// database live text is drawn with.
pub fn rasterise_svg(svg: &str, width: u32, height: u32, fonts: &cosmic_text::fontdb::Database) -> Pixmap {
    let options = usvg::Options { fontdb: std::sync::Arc::new(fonts.clone()), ..usvg::Options::default() };
    let tree = usvg::Tree::from_str(svg, &options).expect("the exported SVG parses");
    let mut pixmap = resvg::tiny_skia::Pixmap::new(width, height).expect("pixmap");
    let scale = width as f32 / tree.size().width();
    resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    let size = tiny_skia::IntSize::from_wh(width, height).expect("size");
    Pixmap::from_vec(pixmap.take(), size).expect("same layout")
}

/// The scores of every visible top-level frame of `fixture`, in canvas order.
pub fn svg_scores(fixture: &Fixture) -> Vec<FrameScore> {
    let (scene, layout) = (&fixture.compiled.scene, &fixture.compiled.layout);
    let mut text = fixture.compiled.text.fork();
    let mut images = nib::host::Host::pictures(fixture.host.as_ref());
    let render_options = RenderOptions::default();
    let svg_options = SvgOptions::default();
    let mut scores = Vec::new();
    for frame in frames(scene, layout) {
        let target = RenderTarget::Node(frame.key);
        let Ok(png) = render(scene, layout, &mut text, &mut images, target, &render_options) else { continue };
        let svg = to_svg(scene, layout, &mut text, &mut images, target, &svg_options).expect("exports");
        assert_eq!((svg.width, svg.height), (png.pixmap.width(), png.pixmap.height()), "{}", frame.id);
        let raster = rasterise_svg(&svg.markup, svg.width, svg.height, &text_database(&text));
        scores.push(FrameScore { id: frame.id.clone(), ssim: ssim(&png.pixmap, &raster) });
    }
    scores
}

/// The font database of a text engine (bundled fonts, plus system fonts it loaded).
pub fn text_database(text: &TextEngine) -> cosmic_text::fontdb::Database {
    text.named_database()
}

/// The SVG markup of every visible top-level frame of `fixture`, in canvas order.
pub fn svg_markup(fixture: &Fixture) -> Vec<String> {
    let (scene, layout) = (&fixture.compiled.scene, &fixture.compiled.layout);
    let mut text = fixture.compiled.text.fork();
    let mut images = nib::host::Host::pictures(fixture.host.as_ref());
    let options = SvgOptions::default();
    frames(scene, layout)
        .into_iter()
        .map(|frame| {
            let target = RenderTarget::Node(frame.key);
            to_svg(scene, layout, &mut text, &mut images, target, &options).expect("exports").markup
        })
        .collect()
}

/// A PDF of every top-level frame, nib's PNG of each, and words the text of the first frame has.
pub struct Deck {
    /// The PDF bytes.
    pub pdf: Vec<u8>,
    /// nib's render of each page's frame, at PDF page size (1 px = 0.75 pt, 96 dpi).
    pub pages: Vec<Pixmap>,
    /// Words (letters only, four or more) of the first frame's text nodes.
    pub words: Vec<String>,
}

/// The deck of `fixture`'s frames, made as `nib export --format pdf --all` makes it.
pub fn pdf_deck(fixture: &Fixture) -> Deck {
    use nib::export::job::{ExportSettings, Format, Targets, run};
    let settings = ExportSettings::new(Format::Pdf, Targets::Frames);
    let pdf = std::sync::Mutex::new(Vec::new());
    let sink = |_: &str, bytes: &[u8]| -> Result<(), nib::export::job::SinkError> {
        *pdf.lock().expect("lock") = bytes.to_vec();
        Ok(())
    };
    run(&fixture.compiled, "deck", &settings, &sink, &|_, _| {}).expect("the PDF is made");
    let (scene, layout) = (&fixture.compiled.scene, &fixture.compiled.layout);
    let mut text = fixture.compiled.text.fork();
    let mut images = nib::host::Host::pictures(fixture.host.as_ref());
    let options = RenderOptions { background: Some([255, 255, 255, 255]), ..RenderOptions::default() };
    let found = frames(scene, layout);
    let pages = found
        .iter()
        .map(|frame| {
            render(scene, layout, &mut text, &mut images, RenderTarget::Node(frame.key), &options)
                .expect("renders")
                .pixmap
        })
        .collect();
    let mut words = Vec::new();
    if let Some(first) = found.first() {
        let mut stack = vec![first.key];
        while let Some(key) = stack.pop() {
            let node = scene.node(key);
            if node.node_type() == nib::doc::NodeType::Text {
                for word in nib::text::text_content(&node.props).split_whitespace() {
                    if word.len() >= 4
                        && word.chars().all(|c| c.is_ascii_alphabetic())
                        && !words.contains(&word.to_owned())
                    {
                        words.push(word.to_owned());
                    }
                }
            }
            stack.extend(scene.children(key));
        }
    }
    words.truncate(12);
    Deck { pdf: pdf.into_inner().expect("lock"), pages, words }
}

/// Checks that `css` is a stylesheet a browser reads without dropping anything: comments,
/// then rules of a selector and `--property: value;` declarations, braces balanced, strings
/// closed. Returns what is wrong and where.
pub fn check_css_parses(css: &str) -> Result<(), String> {
    let declaration = regex::Regex::new(r#"^--[A-Za-z0-9_-]+:\s*([^;{}"]|"([^"\\]|\\.)*")+;$"#).expect("regex");
    let selector = regex::Regex::new(r#"^(:root|(\[data-[a-z0-9-]+="([^"\\]|\\.)*"\])+)\s*\{$"#).expect("regex");
    let mut inside = false;
    let mut in_comment = false;
    for (number, line) in css.lines().enumerate() {
        let line = line.trim();
        let at = || format!("line {}: '{line}'", number + 1);
        if in_comment || line.starts_with("/*") {
            in_comment = !line.ends_with("*/");
            continue;
        }
        if line.is_empty() {
            continue;
        }
        match (inside, line) {
            (true, "}") => inside = false,
            (true, _) if declaration.is_match(line) => {}
            (false, _) if selector.is_match(line) => inside = true,
            _ => return Err(format!("not CSS a browser keeps, {}", at())),
        }
    }
    if inside || in_comment { Err("the stylesheet ends inside a rule or comment".to_owned()) } else { Ok(()) }
}

/// True when the W3C tokens `json` has a token whose nib name is `name`.
pub fn json_has_token(json: &serde_json::Value, name: &str) -> bool {
    json.as_object().is_some_and(|tokens| {
        tokens.values().any(|token| token["$extensions"]["com.nib"]["name"] == name && token.get("$value").is_some())
    })
}
