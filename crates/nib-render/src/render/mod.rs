//! Rendering: the laid-out Scene painted with tiny-skia (spec §4b) and encoded as PNG.
//!
//! [`render`] paints the whole canvas (the bounding box of the visible top-level nodes) or one
//! node into a pixmap at a scale; [`encode_png`] turns it into PNG bytes. The same document
//! gives the same bytes on every machine: fonts and icons are bundled and nothing is fetched.

pub mod alone;
mod bands;
mod blend;
mod blur;
mod damage;
mod effects;
mod glyphs;
mod kept;
mod layers;
pub mod memory;
mod paint;
mod painter;
mod png;
mod repeats;
mod rows;
mod shared_shadows;
mod surface;
pub mod timings;

use std::sync::Arc;

use tiny_skia::{IntRect, Transform};

pub use crate::display::pictures::{
    ImageError, MAX_DECODED_PIXELS, MAX_IMAGE_SIDE, MAX_JPEG_PIXELS, Pictures, decode as decode_image,
    dimensions as image_dimensions,
};
use crate::display::{DisplayList, TargetError};
pub use crate::display::{MAX_PIXELS, MAX_SIDE, RenderTarget, target_bounds};
pub use damage::Damage;
use glyphs::GlyphCache;
use kept::Kept;
pub use layers::KeptLayers;
use layers::Layers;
use painter::Cull;
pub use png::{demultiply, encode_painted, encode_png, encode_rendered};
use surface::Surface;
pub use timings::{PaintTimings, Timings};
/// The picture a render makes.
pub use tiny_skia::Pixmap;

use crate::layout::Layout;
use crate::resolve::Scene;
use crate::text::TextEngine;

/// How to render: the library's options, and (with the `clap` feature) the flags `nib render`
/// and `nib diff` flatten, so each is defined once.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct RenderOptions {
    /// Device pixels per canvas pixel.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1.0, value_parser = parse_scale))]
    pub scale: f32,
    /// Fill behind the design, e.g. "#FFFFFF" (straight RGBA; transparent by default).
    #[cfg_attr(feature = "clap", arg(long, value_parser = parse_background))]
    pub background: Option<[u8; 4]>,
    /// Draw a grey box with an image icon where an image file is missing (by default nothing
    /// is drawn there, and a warning names the file, instead of covering the design).
    #[cfg_attr(feature = "clap", arg(long))]
    pub mark_missing: bool,
}

/// A value given for a render option that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// A scale that is not a number above 0.
    #[error("'{0}' is not a scale; use a number above 0 such as 0.5, 1 or 2")]
    Scale(String),
    /// A background that is not a colour.
    #[error("'{text}' is not a color: {hint}")]
    Background {
        /// What was given.
        text: String,
        /// How a colour is written.
        hint: String,
    },
}

/// Reads a scale: a finite number above 0.
pub fn parse_scale(text: &str) -> Result<f32, OptionError> {
    match text.trim().parse::<f32>() {
        Ok(scale) if scale.is_finite() && scale > 0.0 => Ok(scale),
        _ => Err(OptionError::Scale(text.to_owned())),
    }
}

/// Reads `#RGB`, `#RRGGBB` or `#RRGGBBAA` as a background.
pub fn parse_background(text: &str) -> Result<[u8; 4], OptionError> {
    crate::doc::values::Color::parse(text.trim())
        .map(|c| c.rgba())
        .map_err(|e| OptionError::Background { text: text.to_owned(), hint: e.hint })
}

impl Default for RenderOptions {
    fn default() -> RenderOptions {
        RenderOptions { scale: 1.0, background: None, mark_missing: false }
    }
}

/// A rendered image.
#[derive(Debug)]
pub struct Rendered {
    /// The pixels (premultiplied RGBA).
    pub pixmap: Pixmap,
    /// The canvas point at the image's top-left corner.
    pub origin: (f32, f32),
    /// What could not be drawn as written (missing images, unknown icons, invalid colors).
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
    /// Every pixel is opaque (known from how it was painted): its PNG is written as it is,
    /// without reading every pixel first to find out (see [`encode_rendered`]).
    pub opaque: bool,
}

/// Why nothing was rendered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RenderError {
    /// No visible node to render.
    #[error("there is nothing to render: the document has no visible top-level node")]
    Empty,
    /// The node is hidden.
    #[error("the node is hidden (it or an ancestor has enabled: false) and has no box to render")]
    Hidden,
    /// The image would be too large.
    #[error(
        "the image would be {width} × {height} pixels; at most {MAX_SIDE} pixels a side and {MAX_PIXELS} pixels in all are rendered (use a smaller scale, or render single nodes)"
    )]
    TooLarge {
        /// Width in pixels.
        width: u64,
        /// Height in pixels.
        height: u64,
    },
    /// The scale is not a positive number.
    #[error("the scale must be a number above 0; got {0}")]
    BadScale(f32),
    /// The layers the picture needs at once do not fit in the memory renders may take.
    #[error(
        "rendering node '{node}' needs {} MB of layers at once (opacity, blurs, clips and shadows nest, each as large as what it covers), more than the {} MB a render may take: render at a smaller scale, a smaller node, or with fewer nested effects",
        needed / 1_000_000,
        memory::render_memory() / 1_000_000
    )]
    Memory {
        /// The node being painted when the memory ran out (the innermost one).
        node: String,
        /// The bytes it would have held at that moment.
        needed: u64,
    },
}

impl From<TargetError> for RenderError {
    fn from(error: TargetError) -> RenderError {
        match error {
            TargetError::Empty => RenderError::Empty,
            TargetError::Hidden => RenderError::Hidden,
        }
    }
}

/// Renders `target` of a laid-out scene: its display list built (`text` must be the engine the
/// layout was made with; `pictures`, the host's, gives the images) and painted.
pub fn render(
    scene: &Scene,
    layout: &Layout,
    text: &mut TextEngine,
    pictures: &mut dyn Pictures,
    target: RenderTarget,
    options: &RenderOptions,
) -> Result<Rendered, RenderError> {
    let list = crate::display::build(scene, layout, text, pictures, target)?;
    paint(&list, options)
}

/// Renders `target` as [`render`] does, adding the time the display list and the paint took
/// to `timings`. The picture is the same.
pub fn render_timed(
    scene: &Scene,
    layout: &Layout,
    text: &mut TextEngine,
    pictures: &mut dyn Pictures,
    target: RenderTarget,
    options: &RenderOptions,
    timings: &mut Timings,
) -> Result<Rendered, RenderError> {
    let started = std::time::Instant::now();
    let list = crate::display::build(scene, layout, text, pictures, target);
    timings.display += started.elapsed();
    let started = std::time::Instant::now();
    let rendered = paint_culled(&list?, options, None, Some(&mut timings.paint), None);
    timings.paint.finish(started.elapsed());
    rendered
}

/// Renders `target` as [`render`] does; given `previous`, the same target rendered before an
/// edit, only what the edit changed is painted again (see [`paint_after`]).
pub fn render_after(
    scene: &Scene,
    layout: &Layout,
    text: &mut TextEngine,
    pictures: &mut dyn Pictures,
    target: RenderTarget,
    options: &RenderOptions,
    previous: Option<Painted>,
) -> Result<(Painted, Damage), RenderError> {
    let list = crate::display::build(scene, layout, text, pictures, target)?;
    paint_after(list, options, previous)
}

/// Paints a display list.
pub fn paint(list: &DisplayList, options: &RenderOptions) -> Result<Rendered, RenderError> {
    paint_culled(list, options, None, None, None)
}

/// A picture kept with the display list and options it was painted with: what the next
/// picture of the same target is repainted from (see [`paint_after`]).
pub struct Painted {
    list: DisplayList,
    options: RenderOptions,
    rendered: Rendered,
    /// The layers of its translucent containers, for a repaint after an edit of their opacity.
    layers: KeptLayers,
    /// The glyphs it drew, for the text a repaint draws again.
    glyphs: Arc<GlyphCache>,
}

impl Painted {
    /// The picture.
    pub fn rendered(&self) -> &Rendered {
        &self.rendered
    }

    /// The display list it was painted from.
    pub fn list(&self) -> &DisplayList {
        &self.list
    }

    /// The pixels it holds: the picture's and its kept layers' (at most as many again).
    pub fn pixels(&self) -> u64 {
        let pixmap = &self.rendered.pixmap;
        u64::from(pixmap.width()) * u64::from(pixmap.height()) + self.layers.pixels()
    }

    /// The layers of translucent containers kept with it.
    pub fn layers(&self) -> &KeptLayers {
        &self.layers
    }

    /// Lets its kept layers go (a repaint then paints every container's children again).
    pub fn drop_layers(&mut self) {
        self.layers = KeptLayers::default();
    }
}

/// Paints `list`; given `previous`, the same target painted before an edit, only the pixels
/// the edit changed are painted again, into the previous picture. The picture is
/// the one a full paint makes, byte for byte: the damaged rectangle is painted on a surface of
/// the whole picture by every node that reaches it, exactly as a full paint paints it. Answers
/// the picture and what was painted again.
pub(crate) fn paint_after(
    list: DisplayList,
    options: &RenderOptions,
    previous: Option<Painted>,
) -> Result<(Painted, Damage), RenderError> {
    let Some(previous) = previous.filter(|p| p.options == *options) else {
        let glyphs = Arc::default();
        let (rendered, layers) = paint_keeping_layers(&list, options, None, KeptLayers::default(), &glyphs)?;
        return Ok((Painted { list, options: options.clone(), rendered, layers, glyphs }, Damage::Everything));
    };
    let Painted { list: old, rendered: mut picture, layers: old_layers, glyphs, .. } = previous;
    let area = IntRect::from_xywh(0, 0, picture.pixmap.width(), picture.pixmap.height());
    let device = device_transform(&list, options.scale);
    // The layers still alike: what a layer kept for any other node would no longer show (most
    // pictures keep none, and finding them walks both lists).
    let layers = match old_layers.is_empty() {
        true => KeptLayers::default(),
        false => old_layers.of(&damage::same_contents(&old, &list, device)),
    };
    // Only the target's opacity lowered from full (on a transparent picture): the old picture
    // faded is the new one.
    if let Some(area) = area
        && options.background.is_none()
        && let Some(opacity) = damage::faded_only(&old, &list, device, area)
    {
        let mut surface = Surface::of_picture(picture.pixmap, area);
        surface.fade(opacity);
        let rendered =
            Rendered { pixmap: surface.into_pixmap(), warnings: list.warnings.clone(), opaque: false, ..picture };
        return Ok((Painted { list, options: options.clone(), rendered, layers, glyphs }, Damage::Faded(opacity)));
    }
    let (damage, bounds) = match area {
        Some(area) => damage::damage(&old, &list, device, area),
        None => (Damage::Everything, Vec::new()),
    };
    let (repainted, layers) = match damage {
        Damage::Nothing => {
            picture.warnings = list.warnings.clone();
            (picture, layers)
        }
        Damage::Area(rect) => {
            let cull = Cull { rect: rect.to_rect(), bounds: &bounds };
            let (fresh, layers) = paint_keeping_layers(&list, options, Some(cull), layers, &glyphs)?;
            copy_area(&fresh.pixmap, &mut picture.pixmap, rect);
            // The list says whether it covers every pixel opaquely, not the old picture.
            (Rendered { warnings: fresh.warnings, opaque: fresh.opaque, ..picture }, layers)
        }
        // (`damage` says neither: a fade is answered above.)
        Damage::Everything | Damage::Faded(_) => paint_keeping_layers(&list, options, None, layers, &glyphs)?,
    };
    Ok((Painted { list, options: options.clone(), rendered: repainted, layers, glyphs }, damage))
}

/// Paints `list` (leaving out what `cull` says), drawing the layers `before` holds where they
/// are asked for and keeping the layers it paints whole, at most as many pixels as the picture;
/// glyphs are drawn from and kept into `glyphs`.
fn paint_keeping_layers(
    list: &DisplayList,
    options: &RenderOptions,
    cull: Option<Cull<'_>>,
    before: KeptLayers,
    glyphs: &Arc<GlyphCache>,
) -> Result<(Rendered, KeptLayers), RenderError> {
    let limit = (f64::from(list.bounds.width()) * f64::from(list.bounds.height()) * f64::from(options.scale).powi(2))
        .clamp(0.0, MAX_PIXELS as f64) as u64;
    let layers = Arc::new(Layers::new(before, limit));
    let rendered = paint_culled(list, options, cull, None, Some((&layers, glyphs)))?;
    // The painters are done: the layers are this one's alone.
    let kept = Arc::try_unwrap(layers).map(Layers::into_kept).unwrap_or_default();
    Ok((rendered, kept))
}

/// Copies the pixels of `rect` from `from` to `to` (of the same size).
fn copy_area(from: &Pixmap, to: &mut Pixmap, rect: IntRect) {
    if (from.width(), from.height()) != (to.width(), to.height()) {
        return;
    }
    let stride = from.width() as usize * 4;
    let (left, right) = (rect.left().max(0) as usize * 4, (rect.right().max(0) as usize * 4).min(stride));
    let rows = rect.top().max(0) as usize..(rect.bottom().max(0) as usize).min(from.height() as usize);
    let (source, target) = (from.data(), to.data_mut());
    for row in rows {
        let span = row * stride + left..row * stride + right;
        target[span.clone()].copy_from_slice(&source[span]);
    }
}

/// The target's canvas coordinates → the picture's pixels.
fn device_transform(list: &DisplayList, scale: f32) -> Transform {
    Transform::from_scale(scale, scale).pre_translate(-list.bounds.left(), -list.bounds.top())
}

/// Paints a display list, leaving out what `cull` says does not reach the damage.
fn paint_culled(
    list: &DisplayList,
    options: &RenderOptions,
    cull: Option<Cull<'_>>,
    mut timings: Option<&mut PaintTimings>,
    kept_with_picture: Option<(&Arc<Layers>, &Arc<GlyphCache>)>,
) -> Result<Rendered, RenderError> {
    // On a worker of the pool: the row loops it splits then start without waking the pool
    // from outside and waiting on it each time (Katsari 91XPP, median 27 → 21 ms).
    let account = memory::pool().open();
    loop {
        // A render started again is timed again from nothing.
        if let Some(timings) = timings.as_deref_mut() {
            *timings = PaintTimings::default();
        }
        let kept = match kept_with_picture {
            Some((layers, glyphs)) => {
                Kept { layers: Some(Arc::clone(layers)), glyphs: Arc::clone(glyphs), ..Kept::default() }
            }
            None => Kept::default(),
        };
        let mut run = Run { kept: &kept, memory: &account, timings: timings.as_deref_mut() };
        let cull = cull.as_ref().map(|cull| Cull { rect: cull.rect, bounds: cull.bounds });
        let rendered = rayon::scope(|_| paint_with(list, options, &mut run, cull));
        // Other renders held the memory: everything was given back; start again when there is
        // room (or when this is the oldest render, which then waits for memory instead).
        match account.shortfall() {
            Some(memory::Shortfall::Busy { asked }) => {
                drop(rendered);
                account.reset();
                account.wait_for_room(asked);
            }
            _ => return rendered,
        }
    }
}

/// What one attempt of a render keeps between its nodes: the shadows and glyphs drawn, and its
/// share of the memory pool.
struct Run<'a> {
    kept: &'a Kept,
    memory: &'a std::sync::Arc<memory::Account>,
    /// Where the paint's time goes, when it is measured.
    timings: Option<&'a mut PaintTimings>,
}

fn paint_with(
    list: &DisplayList,
    options: &RenderOptions,
    run: &mut Run<'_>,
    cull: Option<Cull<'_>>,
) -> Result<Rendered, RenderError> {
    let Run { kept, memory: account, timings } = run;
    let account = *account;
    let scale = options.scale;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(RenderError::BadScale(scale));
    }
    let bounds = list.bounds;
    let (width, height) = (
        (f64::from(bounds.width()) * f64::from(scale)).ceil().max(1.0),
        (f64::from(bounds.height()) * f64::from(scale)).ceil().max(1.0),
    );
    if width > f64::from(MAX_SIDE) || height > f64::from(MAX_SIDE) || width * height > MAX_PIXELS as f64 {
        return Err(RenderError::TooLarge { width: width as u64, height: height as u64 });
    }
    let area = IntRect::from_xywh(0, 0, width as u32, height as u32)
        .ok_or(RenderError::TooLarge { width: width as u64, height: height as u64 })?;
    let device = device_transform(list, scale);
    let picture = bands::Picture { list, options, account, device, area, kept };
    let bands = bands::bands(list, area, device);
    if bands.len() > 1 {
        let surface = bands::paint_in_bands(&picture, &bands, cull.as_ref(), timings.as_deref_mut())?;
        return Ok(finished(list, options, device, surface));
    }
    let Some(mut surface) = Surface::within(area, account) else {
        return Err(memory_error(account, bands::THE_PICTURE.to_owned(), width as u64, height as u64));
    };
    let memory_node = picture.paint_on(&mut surface, cull, timings.as_deref_mut());
    if account.failed() {
        let node = memory_node.unwrap_or_else(|| bands::THE_PICTURE.to_owned());
        return Err(memory_error(account, node, width as u64, height as u64));
    }
    Ok(finished(list, options, device, surface))
}

/// The rendered picture painted on `surface`.
fn finished(list: &DisplayList, options: &RenderOptions, device: Transform, surface: Surface<'static>) -> Rendered {
    let opaque =
        options.background.is_some_and(|[.., alpha]| alpha == 255) || covered_opaquely(list, device, surface.area);
    Rendered {
        pixmap: surface.into_pixmap(),
        origin: (list.bounds.left(), list.bounds.top()),
        warnings: list.warnings.clone(),
        opaque,
    }
}

/// True when the target's one root fills every pixel of `area` with an opaque colour before
/// anything else is painted: an unturned, unrounded, unblurred box at full opacity with an
/// opaque solid fill, whose edges lie on or beyond the picture's. Everything painted after it
/// keeps the pixels opaque (every blend mode nib paints with composites over them, and blurs
/// and layers of opaque pixels stay opaque).
fn covered_opaquely(list: &DisplayList, device: Transform, area: IntRect) -> bool {
    use crate::display::Content;
    use crate::display::paint::PaintSpec;
    let [root] = list.roots() else { return false };
    let node = list.node(*root);
    let Some(shape) = node.shape.as_ref() else { return false };
    let placement = node.placement;
    let plain = node.opacity >= 1.0
        && placement.rotation == 0.0
        && !placement.flip_x
        && !placement.flip_y
        && node.effects.layer_blur <= 0.0
        && shape.closed
        && !shape.oval
        && shape.radii.is_none_or(|radii| radii.iter().all(|r| *r == 0.0))
        && matches!(node.content, Content::Fill);
    let opaque_fill = node.fills.iter().any(|fill| {
        matches!(fill, PaintSpec::Solid { color: [.., 255], blend: crate::doc::values::BlendMode::Normal })
    });
    let transform = list.transform(*root, device, true);
    let covers = shape.path.bounds().transform(transform).is_some_and(|bounds| {
        bounds.left() <= area.left() as f32
            && bounds.top() <= area.top() as f32
            && bounds.right() >= area.right() as f32
            && bounds.bottom() >= area.bottom() as f32
    });
    plain && opaque_fill && covers
}

/// The error for a render whose memory was refused: out of memory for `node`, or, when the
/// pool was only busy, too large (the caller starts such a render again before this is seen).
fn memory_error(account: &memory::Account, node: String, width: u64, height: u64) -> RenderError {
    match account.shortfall() {
        Some(memory::Shortfall::Exceeded { asked, held }) => RenderError::Memory { node, needed: asked + held },
        _ => RenderError::TooLarge { width, height },
    }
}

#[cfg(test)]
mod tests {
    use super::painter::Painter;
    use super::*;
    use crate::doc::Document;
    use crate::host::Host;
    use crate::resolve::{NoImports, SceneOptions, build_scene};
    use crate::text::{FontBook, FontOptions};

    /// The display list of the node `page` of the document `text`, laid out with the bundled fonts
    /// (tests of painting build their pages so).
    pub(crate) fn list_of_page(text: &str) -> DisplayList {
        list_of_page_with(text, &mut TextEngine::new(crate::text::FontBook::new(crate::text::FontOptions::default())))
    }

    /// [`list_of_page`] laid out with `engine` (a test of what outlives one engine's glyphs).
    pub(crate) fn list_of_page_with(text: &str, engine: &mut TextEngine) -> DisplayList {
        use crate::host::Host as _;
        let document = crate::doc::Document::load(text).expect("valid").document;
        let scene =
            crate::resolve::build_scene(&document, &crate::resolve::NoImports, crate::resolve::SceneOptions::FULL);
        let layout = Layout::compute(&scene, engine);
        let key = scene.node_by_id("page").expect("a node 'page'");
        let host = crate::host::MemoryHost::new();
        crate::display::build(&scene, &layout, engine, host.pictures().as_mut(), RenderTarget::Node(key))
            .expect("a display list")
    }

    fn render_document(text: &str) -> Pixmap {
        let document = Document::load(text).expect("valid").document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let layout = Layout::compute(&scene, &mut engine);
        let options = RenderOptions { background: Some([255, 255, 255, 255]), ..RenderOptions::default() };
        render(
            &scene,
            &layout,
            &mut engine,
            &mut crate::host::MemoryHost::new().pictures(),
            RenderTarget::Canvas,
            &options,
        )
        .expect("renders")
        .pixmap
    }

    /// Cards that cast the same shadow reuse its blurred layer; the picture is the
    /// one drawn shadow by shadow.
    #[test]
    fn a_shadow_drawn_once_for_many_cards_gives_the_picture_of_each_drawn_alone() {
        let cards: Vec<String> = (0..6)
            .map(|i| format!(
                r##"{{"type": "frame", "id": "c{i}", "x": {}, "y": {}, "width": 80, "height": 50, "cornerRadius": 10, "fill": "#FFFFFF",
                   "effect": {{"type": "shadow", "shadowType": "outer", "color": "#00000055", "offset": {{"x": 0, "y": 6}}, "blur": 24, "spread": 2}}}}"##,
                60 + (i % 3) * 140,
                60 + (i / 3) * 130
            ))
            .collect();
        let text = format!(
            r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 520, "height": 340, "layout": "none", "fill": "#F0F0F0",
                "children": [{}]}}]}}"##,
            cards.join(",")
        );
        let document = Document::load(&text).expect("valid").document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let layout = Layout::compute(&scene, &mut engine);
        let options = RenderOptions::default();
        let host = crate::host::MemoryHost::new();
        let mut pictures = host.pictures();
        let list = crate::display::build(&scene, &layout, &mut engine, pictures.as_mut(), RenderTarget::Canvas)
            .expect("a display list");
        let draw = |kept: &Kept| {
            paint_with(&list, &options, &mut Run { kept, memory: &memory::pool().open(), timings: None }, None)
                .expect("renders")
                .pixmap
        };
        let cache = Kept::default();
        let reused = draw(&cache);
        // Six cards, one shadow: drawn once, reused five times (else this test shows nothing).
        assert_eq!(cache.shadows.reused(), 5);
        let each = draw(&Kept { shadows: effects::ShadowCache::off(), ..Kept::default() });
        let most = reused.data().iter().zip(each.data()).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
        assert!(most <= 1, "differs by {most} levels");
        // Under the fifth card (200, 190, 80 × 50) the shadow darkens the page.
        let below = reused.pixel(240, 250).expect("inside");
        assert!(below.red() < 0xF0, "{below:?}");
    }

    /// A translucent target painted first on a transparent picture is painted there and faded
    /// in place: the bytes of painting it on a layer and drawing that at its opacity.
    #[test]
    fn a_translucent_target_faded_in_place_is_its_layer_drawn_at_its_opacity() {
        for opacity in [0.0, 0.3, 0.5, 0.97, 0.999] {
            let text = format!(
                r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 160, "height": 120, "layout": "none",
                    "fill": "#F3F4F6", "opacity": {opacity}, "children": [
                    {{"type": "frame", "id": "card", "x": 20, "y": 14, "width": 90, "height": 60, "cornerRadius": 8, "fill": "#FFFFFF",
                     "effect": {{"type": "shadow", "shadowType": "outer", "color": "#00000066", "offset": {{"x": 0, "y": 4}}, "blur": 10}}}},
                    {{"type": "ellipse", "id": "dot", "x": 100, "y": 60, "width": 50, "height": 50, "fill": "#F59E0B80"}},
                    {{"type": "text", "id": "t", "x": 28, "y": 30.5, "fontSize": 13, "fill": "#111827", "content": "Faded"}}]}}]}}"##
            );
            let list = list_of_page(&text);
            let area = IntRect::from_xywh(0, 0, 160, 120).expect("an area");
            let device = device_transform(&list, 1.0);
            let paint = |untouched: bool| {
                let mut surface = Surface::new(area).expect("a surface");
                let kept = Kept::default();
                let mut painter = Painter {
                    list: &list,
                    mark_missing: false,
                    kept: &kept,
                    memory: memory::pool().open(),
                    memory_node: None,
                    cull: None,
                    whole: 0,
                    timings: None,
                    untouched,
                };
                painter.paint(&mut surface, list.roots()[0], device, true);
                surface.into_pixmap()
            };
            let (faded, layered) = (paint(true), paint(false));
            assert!(faded.data() == layered.data(), "opacity {opacity}: fading in place differs from the layer");
            assert_eq!(opacity == 0.0, faded.data().iter().all(|b| *b == 0), "opacity {opacity}");
        }
    }

    /// A picture whose root covers it with an opaque colour is known opaque, and its
    /// PNG is written without reading every pixel first — with the bytes of the PNG written
    /// after reading them. Rounded, translucent, blurred or part-pixel roots are not.
    #[test]
    fn a_picture_covered_by_an_opaque_root_is_known_opaque_and_encodes_to_the_same_bytes() {
        let frame = |extra: &str| {
            let document = Document::load(&format!(
                r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "f", "width": 60, "height": 40, "layout": "none",
                    "fill": "#336699"{extra}, "children": [
                    {{"type": "ellipse", "id": "e", "x": 10, "y": 5, "width": 30, "height": 30, "fill": "#FFFFFF80", "opacity": 0.5}}]}}]}}"##
            ))
            .expect("valid")
            .document;
            let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
            let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
            let layout = Layout::compute(&scene, &mut engine);
            let key = scene.node_by_id("f").expect("the frame");
            let host = crate::host::MemoryHost::new();
            let mut pictures = host.pictures();
            render(&scene, &layout, &mut engine, &mut *pictures, RenderTarget::Node(key), &RenderOptions::default())
                .expect("renders")
        };
        let plain = frame("");
        assert!(plain.opaque);
        assert_eq!(encode_rendered(&plain), encode_png(&plain.pixmap));
        for extra in [
            r#", "cornerRadius": 6"#,
            r##", "fill": "#33669980""##,
            r#", "opacity": 0.9"#,
            r#", "width": 60.5"#,
            r#", "rotation": 3"#,
            r#", "effect": {"type": "blur", "radius": 4}"#,
        ] {
            let rendered = frame(extra);
            assert!(!rendered.opaque, "{extra}");
            assert_eq!(encode_rendered(&rendered), encode_png(&rendered.pixmap), "{extra}");
        }
    }

    /// A clipping frame skipped its clip when every child's box fitted inside, and
    /// trusted the box of a text whose lines run past it, so the text escaped the clip.
    #[test]
    fn text_running_past_its_box_stays_inside_a_clipping_frame() {
        // Rounded (clipped through a mask), square on whole pixels (clipped by the layer's own
        // edges, no mask) and square between pixels (a mask again).
        for card in [r#""x": 10, "y": 10, "cornerRadius": 4"#, r#""x": 10, "y": 10"#, r#""x": 10.5, "y": 9.5"#] {
            let pixmap = render_document(&format!(
                r##"{{"version": "2.10", "children": [
                    {{"type": "frame", "id": "canvas", "width": 120, "height": 120, "layout": "none", "fill": "#FFFFFF", "children": [
                        {{"type": "frame", "id": "card", {card}, "width": 100, "height": 30, "clip": true,
                         "layout": "none", "children": [
                            {{"type": "text", "id": "long", "x": 10, "y": 6, "width": 80, "height": 18, "textGrowth": "fixed-width-height",
                             "fontSize": 14, "fill": "#000000", "content": "line one\nline two\nline three\nline four\nline five"}}
                        ]}}
                    ]}}
                ]}}"##
            ));
            // Below the card (y ≥ 40) nothing may be drawn: the lines beyond it are clipped.
            let below = (41..120u32).flat_map(|y| (0..120u32).map(move |x| (x, y)));
            let inked = below.filter(|(x, y)| pixmap.pixel(*x, *y).is_some_and(|p| p.red() < 200)).count();
            assert_eq!(inked, 0, "{card}: text escaped the clip");
            // Inside the card the text is drawn.
            let inside = (10..40u32).flat_map(|y| (10..110u32).map(move |x| (x, y)));
            assert!(inside.filter(|(x, y)| pixmap.pixel(*x, *y).is_some_and(|p| p.red() < 100)).count() > 20, "{card}");
        }
    }

    /// Whether a clipping frame paints its children on a layer to cut them: not when what they
    /// paint (shadows, strokes and turned corners included) stays inside it, nor for what a
    /// clipping child already holds within its own box, nor for a container that paints
    /// nothing itself or only rules on some sides away from the corners; yes when a shadow or
    /// a turned corner crosses its edge or a fill reaches into a rounded corner, and then the
    /// shadow is cut there.
    #[test]
    fn a_clip_cuts_only_what_reaches_past_it() {
        let card = |id: &str, x: u32, y: u32| {
            format!(
                r##"{{"type": "frame", "id": "{id}", "x": {x}, "y": {y}, "width": 60, "height": 40, "fill": "#FFFFFF",
                    "stroke": {{"align": "center", "thickness": 1, "fill": "#D1D5DB"}},
                    "effect": {{"type": "shadow", "shadowType": "outer", "color": "#00000080", "offset": {{"x": 0, "y": 4}}, "blur": 8}}}}"##
            )
        };
        let text = format!(
            r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 520, "height": 380, "layout": "none",
                "fill": "#F3F4F6", "children": [
                {{"type": "frame", "id": "roomy", "width": 120, "height": 100, "clip": true, "layout": "none", "children": [{}]}},
                {{"type": "frame", "id": "outer", "x": 130, "width": 120, "height": 100, "clip": true, "layout": "none", "children": [
                    {{"type": "frame", "id": "canvas", "x": 10, "y": 10, "width": 100, "height": 80, "clip": true, "layout": "none",
                     "children": [{}]}}]}},
                {{"type": "frame", "id": "tight", "x": 260, "width": 120, "height": 100, "clip": true, "layout": "none",
                 "children": [{}]}},
                {{"type": "frame", "id": "rounded", "y": 140, "width": 120, "height": 100, "clip": true, "layout": "none",
                 "cornerRadius": 12, "fill": "#FFFFFF", "children": [{{"type": "frame", "id": "row", "width": 120, "height": 30,
                 "layout": "none", "children": [{{"type": "rectangle", "id": "chip", "x": 20, "y": 8, "width": 80, "height": 14,
                 "fill": "#6366F1"}}]}}]}},
                {{"type": "frame", "id": "rounded-filled", "x": 130, "y": 140, "width": 120, "height": 100, "clip": true,
                 "layout": "none", "cornerRadius": 12, "children": [{{"type": "frame", "id": "filled-row", "width": 120,
                 "height": 30, "fill": "#E5E7EB", "layout": "none"}}]}},
                {{"type": "frame", "id": "dotted", "x": 260, "y": 140, "width": 120, "height": 100, "clip": true, "layout": "none",
                 "children": [{{"type": "rectangle", "id": "dot", "x": 50, "y": 40, "width": 8, "height": 8, "rotation": 45,
                 "fill": "#10B981"}}]}},
                {{"type": "frame", "id": "corner-out", "x": 390, "y": 140, "width": 120, "height": 100, "clip": true,
                 "layout": "none", "children": [{{"type": "rectangle", "id": "diamond", "x": 100, "y": 40, "width": 20,
                 "height": 20, "rotation": 45, "fill": "#10B981"}}]}},
                {{"type": "frame", "id": "ruled", "y": 270, "width": 120, "height": 100, "clip": true, "layout": "none",
                 "cornerRadius": 12, "fill": "#FFFFFF", "children": [{{"type": "frame", "id": "footer", "y": 60, "width": 120,
                 "height": 40, "layout": "none", "stroke": {{"align": "inside", "thickness": {{"top": 1}}, "fill": "#D1D5DB"}}}}]}},
                {{"type": "frame", "id": "boxed", "x": 130, "y": 270, "width": 120, "height": 100, "clip": true, "layout": "none",
                 "cornerRadius": 12, "fill": "#FFFFFF", "children": [{{"type": "frame", "id": "boxed-footer", "y": 60,
                 "width": 120, "height": 40, "layout": "none",
                 "stroke": {{"align": "inside", "thickness": {{"top": 1, "bottom": 1}}, "fill": "#D1D5DB"}}}}]}},
                {{"type": "frame", "id": "clipped-footer", "x": 260, "y": 270, "width": 120, "height": 100, "clip": true,
                 "layout": "none", "cornerRadius": 12, "fill": "#FFFFFF", "children": [{{"type": "frame", "id": "footer-clips",
                 "y": 60, "width": 120, "height": 40, "clip": true, "layout": "none",
                 "stroke": {{"align": "inside", "thickness": {{"top": 1}}, "fill": "#D1D5DB"}},
                 "children": [{{"type": "rectangle", "id": "button", "y": 20, "width": 120, "height": 20, "fill": "#6366F1"}}]}}]}}]}}]}}"##,
            card("well-inside", 30, 30),
            card("overflowing", 70, 60),
            card("near-the-edge", 30, 52),
        );
        let list = list_of_page(&text);
        let inside = |id: &str| {
            let index = (0..list.len()).find(|&i| list.node(i).id.as_str() == id).expect("the node");
            list.node(index).children_inside
        };
        assert!(inside("roomy"), "a card's shadow and stroke well inside its clipping frame cut nothing");
        assert!(!inside("canvas"), "a card hanging out of the canvas is cut");
        assert!(inside("outer"), "the canvas holds its card within its own box: the frame around it cuts nothing");
        assert!(!inside("tight"), "the card's shadow crosses the bottom edge");
        assert!(inside("rounded"), "a row painting nothing spans the rounded corners; its chip keeps clear of them");
        assert!(!inside("rounded-filled"), "a filled row reaches into the rounded corners");
        assert!(inside("dotted"), "a small turned square well inside");
        assert!(!inside("corner-out"), "a square touching the edge crosses it once turned");
        assert!(inside("ruled"), "a footer's top rule runs across the card away from its rounded corners");
        assert!(!inside("boxed"), "a bottom rule runs through the rounded corners");
        assert!(!inside("clipped-footer"), "a footer that clips holds a button anywhere in its box, corners too");
        // The shadow crossing the edge is cut: nothing darkens the page below the frame.
        let pixmap = render_document(&text);
        let below = (101..130u32).flat_map(|y| (260..380u32).map(move |x| (x, y)));
        let darkened = below.filter(|(x, y)| pixmap.pixel(*x, *y).is_some_and(|p| p.red() < 0xF3)).count();
        assert_eq!(darkened, 0, "the shadow crossing the frame's edge was drawn past it");
        let shaded = (92..100u32).flat_map(|y| (260..380u32).map(move |x| (x, y)));
        assert!(shaded.filter(|(x, y)| pixmap.pixel(*x, *y).is_some_and(|p| p.red() < 0xF0)).count() > 50);
    }

    /// A clipping rectangle that holds the whole surface (a clipping frame rendered
    /// as the target) clips by the surface's edges, without a layer; the picture is the frame's
    /// part of the page, where its clip needs a layer of its own.
    #[test]
    fn a_clipping_frame_rendered_alone_matches_its_part_of_the_page() {
        let document = Document::load(
            r##"{"version": "2.10", "children": [
                {"type": "frame", "id": "page", "width": 160, "height": 120, "layout": "none", "fill": "#FFFFFF", "children": [
                    {"type": "frame", "id": "card", "x": 20, "y": 10, "width": 100, "height": 80, "clip": true,
                     "layout": "none", "fill": "#204060", "children": [
                        {"type": "frame", "id": "photo", "x": -6, "y": 2, "width": 112, "height": 90, "fill": "#E5E7EBCC"},
                        {"type": "ellipse", "id": "dot", "x": 70, "y": 50, "width": 60, "height": 60, "fill": "#C4813A"}
                    ]}
                ]}
            ]}"##,
        )
        .expect("valid")
        .document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let layout = Layout::compute(&scene, &mut engine);
        let options = RenderOptions::default();
        let mut draw = |id: &str| {
            let key = scene.node_by_id(id).expect("in the scene");
            render(
                &scene,
                &layout,
                &mut engine,
                &mut crate::host::MemoryHost::new().pictures(),
                RenderTarget::Node(key),
                &options,
            )
            .expect("renders")
            .pixmap
        };
        let (alone, page) = (draw("card"), draw("page"));
        assert_eq!((alone.width(), alone.height()), (100, 80));
        let mut most = 0;
        for y in 0..80 {
            for x in 0..100 {
                let a = alone.pixel(x, y).expect("inside");
                let p = page.pixel(x + 20, y + 10).expect("inside");
                for (a, p) in [(a.red(), p.red()), (a.green(), p.green()), (a.blue(), p.blue()), (a.alpha(), p.alpha())]
                {
                    most = most.max(a.abs_diff(p));
                }
            }
        }
        assert!(most <= 1, "differs by {most} levels");
        // On the page, the photo and the dot stop at the card's edges.
        for (x, y) in [(17, 40), (125, 95), (100, 95), (130, 70)] {
            assert_eq!(page.pixel(x, y).expect("inside").red(), 255, "({x}, {y}) is outside the card");
        }
    }

    /// A note (a card and its text) and an icon (dots and lines) with their opacity
    /// folded into each part blended the parts twice where they overlap. At half opacity, every
    /// pixel must be half way between the opaque render and the white page.
    #[test]
    fn translucent_notes_and_icons_blend_once() {
        for node in [
            r##"{"type": "note", "id": "n", "x": 0, "y": 0, "width": 96, "height": 96, "content": "Remember the milk"OPACITY}"##,
            r##"{"type": "icon_font", "id": "i", "x": 0, "y": 0, "width": 96, "height": 96, "iconFontFamily": "lucide", "iconFontName": "circle-check", "fill": "#000000"OPACITY}"##,
        ] {
            let page = |opacity: &str| {
                render_document(&format!(
                    r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 96, "height": 96, "layout": "none", "fill": "#FFFFFF", "children": [{}]}}]}}"##,
                    node.replace("OPACITY", opacity)
                ))
            };
            let (opaque, half) = (page(""), page(r#", "opacity": 0.5"#));
            let worst = opaque
                .pixels()
                .iter()
                .zip(half.pixels())
                .map(|(o, h)| {
                    // Blue: the note's card is yellow, so a second blend shows most there.
                    let expected = (u16::from(o.blue()) + 255) / 2;
                    expected.abs_diff(u16::from(h.blue()))
                })
                .max()
                .unwrap_or(0);
            assert!(worst <= 2, "{node}: a pixel is {worst} levels off half way");
        }
    }
}
