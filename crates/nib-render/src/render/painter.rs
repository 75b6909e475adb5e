//! The painter: walks the laid-out Scene and paints each node (spec §4b): background blur, drop
//! shadows, fills in list order, inner shadows, then — without clip — the stroke and the
//! children on top, or — with clip — the children clipped to the shape and the stroke above
//! them. Opacity and layer blur paint the node into a layer as big as what it covers.

use tiny_skia::{
    BlendMode, Color as SkColor, FillRule, LineCap, LineJoin, Paint as SkPaint, Path, Rect, Shader, Transform,
};

use super::effects::{background_blur, device_sigma, inner_shadow, outer_shadow};
use super::kept::Kept;
use super::paint::{Paint, Ramp, fill_rect_ramp, fill_rect_solid, image_shader, tiny_paints};
use super::surface::Surface;
use super::timings::{Kind, PaintTimings};
use crate::display::geometry::Shape;
use crate::display::paint::image_placement;
use crate::display::slot::{SLOT_INK, SlotPlaceholder};
use crate::display::stroke::{Keep, StrokeOutline, stroke_outline};
use crate::display::{Content, DisplayList, DisplayNode, TextRun, UNRESOLVED_DASH, UNRESOLVED_INK};
use crate::text::{IconDrawing, LUCIDE_STROKE_WIDTH};

/// Walks a display list and paints.
pub(crate) struct Painter<'a> {
    pub list: &'a DisplayList,
    /// Draw a marker where an image is missing (otherwise nothing is drawn there).
    pub mark_missing: bool,
    /// Drop shadows and glyphs drawn so far, for the nodes that draw the same again.
    pub kept: &'a Kept,
    /// The render's share of the memory pool.
    pub memory: std::sync::Arc<super::memory::Account>,
    /// The node being painted when the memory ran out.
    pub memory_node: Option<String>,
    /// For a repaint: the nodes that do not reach the damaged rectangle are left out.
    pub cull: Option<Cull<'a>>,
    /// How many layer blurs the node being painted is inside: a blur spreads what is outside
    /// the damage into it, so nothing under one is left out.
    pub whole: u32,
    /// Where the time goes, when it is measured (`None` costs nothing).
    pub timings: Option<&'a mut PaintTimings>,
    /// Nothing is painted on the surface yet and it is transparent (no background): a target
    /// drawn through a layer can be painted on it directly and faded in place (see
    /// [`Surface::fade`]).
    pub untouched: bool,
}

/// What a repaint paints: the nodes whose bounds reach the damaged rectangle.
pub(crate) struct Cull<'a> {
    /// The damaged rectangle, in the picture's pixels.
    pub rect: Rect,
    /// Each node's bounds with its children in the picture, by index in the list.
    pub bounds: &'a [Option<Rect>],
}

impl Painter<'_> {
    /// Paints node `index` and its subtree onto `surface`, in the coordinates of `parent`; a
    /// target (`as_target`) goes at its canvas position, any other node at its place in its
    /// parent.
    pub fn paint(&mut self, surface: &mut Surface, index: usize, parent: Transform, as_target: bool) {
        // Out of memory: the render stops (it is an error, not a picture with holes).
        if self.memory.failed() {
            return;
        }
        let list = self.list;
        let node = list.node(index);
        if node.opacity <= 0.0 {
            return;
        }
        if let Some(cull) = &self.cull
            && self.whole == 0
            && cull.bounds.get(index).copied().flatten().is_some_and(|bounds| bounds.intersect(&cull.rect).is_none())
        {
            return;
        }
        let opacity = node.opacity;
        let transform = list.transform(index, parent, as_target);
        let untouched = as_target && std::mem::take(&mut self.untouched);
        if node.effects.layer_blur <= 0.0 && (opacity >= 1.0 || node.single_paint) {
            self.paint_content(surface, node, transform, opacity);
            self.out_of_memory(node);
            return;
        }
        let Some(bounds) = list.subtree_bounds(index, transform) else { return };
        let Some(area) = surface.clip_area(bounds) else { return };
        // The first target on a transparent surface it covers whole, extent and all: its layer
        // would be the surface itself, so it is painted there and faded in place.
        if untouched
            && node.effects.layer_blur <= 0.0
            && area == surface.area
            && surface.reach_area(bounds) == Some(surface.extent)
        {
            self.paint_content(surface, node, transform, 1.0);
            surface.fade(opacity);
            self.out_of_memory(node);
            return;
        }
        // A layer kept from the picture before, where nothing on it changed.
        let extent = surface.reach_area(bounds).unwrap_or(area);
        let layers = self.kept.layers.as_ref().filter(|_| node.effects.layer_blur <= 0.0);
        if let Some(kept) = layers.and_then(|layers| layers.kept(&node.id, area, extent)) {
            surface.draw_pixels(kept.as_ref().as_ref(), area, opacity, BlendMode::SourceOver);
            return;
        }
        // (No band's edge cuts through a layer blur: the layer holds all the blur reads.)
        let Some(mut layer) = surface.layer_over(bounds) else { return self.out_of_memory(node) };
        let blurred = u32::from(node.effects.layer_blur > 0.0);
        self.whole += blurred;
        self.paint_content(&mut layer, node, transform, 1.0);
        self.whole -= blurred;
        if node.effects.layer_blur > 0.0 {
            // The blur's buffer, as large as the pixels it blurs.
            let Ok(_scratch) = layer.scratch(layer.pixmap.data().len() as u64) else { return self.out_of_memory(node) };
            let started = PaintTimings::start(&mut self.timings);
            super::blur::blur(
                layer.pixmap.as_mut(),
                device_sigma(node.effects.layer_blur, transform),
                super::blur::Edges::Transparent,
            );
            PaintTimings::charge(&mut self.timings, Kind::Blur, started);
        }
        surface.draw(&layer, opacity, BlendMode::SourceOver);
        self.out_of_memory(node);
        if let Some(layers) = layers
            && self.painted_whole(area)
        {
            layers.keep(&node.id, area, extent, layer.into_pixmap());
        }
    }

    /// Whether a layer over `area` was painted with everything in it: nothing was left out
    /// for lying outside a repaint's damage, and the memory held out.
    fn painted_whole(&self, area: tiny_skia::IntRect) -> bool {
        let inside = |cull: &Cull<'_>| {
            let rect = cull.rect;
            rect.left() <= area.left() as f32
                && rect.top() <= area.top() as f32
                && rect.right() >= area.right() as f32
                && rect.bottom() >= area.bottom() as f32
        };
        !self.memory.failed() && (self.whole > 0 || self.cull.as_ref().is_none_or(inside))
    }

    /// Notes `node` as where the render ran out of memory, when it did and no node deeper down
    /// was noted first (the innermost node whose layer did not fit is the one to name).
    fn out_of_memory(&mut self, node: &DisplayNode) {
        if self.memory.refused_here() && self.memory_node.is_none() {
            self.memory_node = Some(node.id.clone());
        }
    }

    /// Paints the node itself and its children, with `alpha` applied to its paints.
    pub(crate) fn paint_content(
        &mut self,
        surface: &mut Surface,
        node: &DisplayNode,
        transform: Transform,
        alpha: f32,
    ) {
        let size = (node.width, node.height);
        let effects = &node.effects;
        let shape = node.shape.as_ref();
        if let Some(shape) = shape {
            if effects.background_blur > 0.0 {
                let started = PaintTimings::start(&mut self.timings);
                background_blur(surface, shape, effects.background_blur, transform);
                PaintTimings::charge(&mut self.timings, Kind::Blur, started);
            }
            if node.fills_visible {
                for shadow in effects.shadows.iter().filter(|s| !s.inner) {
                    let started = PaintTimings::start(&mut self.timings);
                    outer_shadow(surface, shape, size.0, size.1, shadow, transform, &self.kept.shadows);
                    PaintTimings::charge(&mut self.timings, Kind::Shadows, started);
                }
            }
        }
        let paints = tiny_paints(&node.fills);
        match &node.content {
            Content::Text(run) => {
                let started = PaintTimings::start(&mut self.timings);
                if !self.draw_glyphs(surface, run, &paints, transform, alpha, size) {
                    for path in run.paths() {
                        self.fill(surface, Outline::new(&path, FillRule::Winding), &paints, transform, alpha, size);
                    }
                }
                PaintTimings::charge(&mut self.timings, Kind::Text, started);
            }
            Content::Icon { drawing, placed } => {
                self.paint_icon(surface, drawing, *placed, &paints, transform, alpha, size)
            }
            Content::MissingIcon => {
                if let Some(outline) =
                    crate::geometry::rounded_rect(0.0, 0.0, size.0, size.1, [size.0.min(size.1) / 6.0; 4])
                {
                    self.paint_dashed_outline(surface, &outline, transform);
                }
            }
            Content::Annotation { color, text } => {
                self.paint_annotation(surface, *color, text.as_ref(), shape, transform, alpha);
            }
            Content::Unresolved => {
                if let Some(shape) = shape {
                    self.paint_dashed_outline(surface, &shape.path, transform);
                }
            }
            Content::Fill | Content::EmptySlot(_) => {
                if let Some(shape) = shape.filter(|s| s.closed) {
                    let outline = Outline {
                        path: &shape.path,
                        fill_rule: shape.fill_rule,
                        inside: shape.inner_rect(size.0, size.1),
                    };
                    self.fill(surface, outline, &paints, transform, alpha, size);
                }
                if let Content::EmptySlot(placeholder) = &node.content {
                    self.paint_slot_placeholder(surface, placeholder, transform, alpha);
                }
            }
            Content::Nothing => {}
        }
        if let Some(shape) = shape {
            for shadow in effects.shadows.iter().filter(|s| s.inner) {
                let started = PaintTimings::start(&mut self.timings);
                inner_shadow(surface, shape, size.0, size.1, shadow, transform);
                PaintTimings::charge(&mut self.timings, Kind::Shadows, started);
            }
        }
        match shape.filter(|_| node.clip) {
            Some(shape) => {
                self.paint_children_clipped(surface, node, shape, transform);
                self.paint_stroke(surface, node, shape, transform, alpha);
            }
            None => {
                if let Some(shape) = shape {
                    self.paint_stroke(surface, node, shape, transform, alpha);
                }
                self.paint_children(surface, node, transform);
            }
        }
    }

    fn paint_children(&mut self, surface: &mut Surface, node: &DisplayNode, transform: Transform) {
        for &child in &node.children {
            self.paint(surface, child, transform, false);
        }
    }

    /// Paints the children inside the shape only. When everything lies well inside the shape
    /// (the usual case), there is nothing to cut and no layer is made.
    fn paint_children_clipped(
        &mut self,
        surface: &mut Surface,
        node: &DisplayNode,
        shape: &Shape,
        transform: Transform,
    ) {
        if node.children_inside {
            self.paint_children(surface, node, transform);
            return;
        }
        let Some(bounds) = shape.path.bounds().transform(transform) else { return };
        let Some(area) = surface.clip_area(bounds) else { return };
        // A rectangle on whole pixels clips by the layer's own edges: no mask to fill or apply.
        let pixels = axis_aligned_rect(&shape.path, transform).and_then(whole_pixels);
        if pixels.is_some_and(|pixels| pixels.contains(&surface.extent)) {
            // The rectangle holds the whole surface (a clipping frame rendered as the target):
            // the surface's own edges clip, no layer needed. (Its extent, not its band: every
            // band decides as the whole picture does.)
            self.paint_children(surface, node, transform);
            return;
        }
        let rectangle = pixels.and_then(|pixels| pixels.intersect(&surface.area)) == Some(area);
        let Some(mut layer) = surface.layer_over(bounds) else { return self.out_of_memory(node) };
        self.paint_children(&mut layer, node, transform);
        match layer.mask(&shape.path, shape.fill_rule, transform).filter(|_| !rectangle) {
            Some(mask) => surface.draw_masked(&mut layer, &mask, BlendMode::SourceOver),
            None => surface.draw(&layer, 1.0, BlendMode::SourceOver),
        }
    }

    /// Draws `run` glyph by glyph from the glyph coverages the render keeps (see
    /// [`super::glyphs`]), and its underline and strike-through bars; false, drawing nothing,
    /// when the text is not one solid color drawn source-over or is not placed by scale and
    /// translation alone (it is then filled as outlines).
    fn draw_glyphs(
        &mut self,
        surface: &mut Surface,
        run: &TextRun,
        paints: &[Paint],
        transform: Transform,
        alpha: f32,
        size: (f32, f32),
    ) -> bool {
        let [Paint::Shader(Shader::SolidColor(color), BlendMode::SourceOver, _)] = paints else { return false };
        let mut color = *color;
        color.apply_opacity(alpha);
        if !super::glyphs::draw_glyphs(surface, run, transform, color, &self.kept.glyphs) {
            return false;
        }
        if let Some(bars) = run.bars_path() {
            self.fill(surface, Outline::new(&bars, FillRule::Winding), paints, transform, alpha, size);
        }
        true
    }

    /// Fills `outline` with each paint in order.
    fn fill(
        &mut self,
        surface: &mut Surface,
        outline: Outline<'_>,
        paints: &[Paint],
        transform: Transform,
        alpha: f32,
        size: (f32, f32),
    ) {
        let Outline { path, fill_rule, inside } = outline;
        let local = surface.local(transform);
        for paint in paints {
            // Solid colours are the rest of the paint; the other fills are timed by kind.
            let kind = match paint {
                Paint::Shader(Shader::SolidColor(_), ..) => None,
                Paint::Shader(..) | Paint::Mesh(..) => Some(Kind::Gradients),
                Paint::Image { .. } => Some(Kind::Images),
            };
            let started = kind.and_then(|_| PaintTimings::start(&mut self.timings));
            self.fill_one(surface, paint, path, fill_rule, inside, local, transform, alpha, size);
            if let Some(kind) = kind {
                PaintTimings::charge(&mut self.timings, kind, started);
            }
        }
    }

    /// Fills `path` with one paint.
    #[allow(clippy::too_many_arguments, reason = "the outline's parts and where it is drawn")]
    fn fill_one(
        &mut self,
        surface: &mut Surface,
        paint: &Paint,
        path: &Path,
        fill_rule: FillRule,
        inside: Option<Rect>,
        local: Transform,
        transform: Transform,
        alpha: f32,
        size: (f32, f32),
    ) {
        match paint {
            Paint::Shader(shader, blend, ramp) => {
                // A transparent color drawn over changes nothing (`#00000000` fills are
                // common): tiny-skia would still scan the whole shape.
                if let (Shader::SolidColor(color), BlendMode::SourceOver) = (shader, blend)
                    && (color.alpha() * alpha <= 0.0)
                {
                    return;
                }
                let rect = axis_aligned_rect(path, local);
                if *blend == BlendMode::SourceOver {
                    // Colors and gradients on whole-pixel rectangles (backgrounds) fill row
                    // by row, on every core for large ones.
                    if let Some(area) = rect.and_then(whole_pixels)
                        && fill_area(surface, area, shader, ramp.as_deref(), local, alpha)
                    {
                        return;
                    }
                    // So do the whole pixels of a large rectangle inside a rounded card or
                    // an oval; tiny-skia draws the rest, that rectangle cut out (its edges
                    // on pixel boundaries, so no pixel is covered twice or half).
                    if rect.is_none()
                        && let Some(inside) = inside
                        && fill_around_inside(surface, path, inside, shader, ramp.as_deref(), local, alpha)
                    {
                        return;
                    }
                }
                let mut shader = shader.clone();
                shader.apply_opacity(alpha);
                // Axis-aligned rectangles (most backgrounds) skip the path scan converter.
                if let Some(rect) = rect {
                    shader.transform(local);
                    surface.pixmap.as_mut().fill_rect(rect, &sk_paint(shader, *blend), Transform::identity(), None);
                    return;
                }
                let paint = sk_paint(shader, *blend);
                surface.pixmap.as_mut().fill_path(path, &paint, fill_rule, local, None);
            }
            Paint::Image { url, mode, crop, opacity, blend } => match self.list.picture(url) {
                Some(Ok(image)) => {
                    let (width, height) = size;
                    let placed =
                        image_placement(*mode, *crop, image.width() as f32, image.height() as f32, width, height);
                    let shader = image_shader(image, placed.transform, opacity * alpha);
                    let paint = sk_paint(shader, *blend);
                    match placed.area {
                        // Only where the image is: the rest of the shape stays as it was.
                        Some(area) => {
                            let mask = surface.mask(path, fill_rule, transform);
                            let rect = tiny_skia::PathBuilder::from_rect(area);
                            surface.pixmap.as_mut().fill_path(&rect, &paint, FillRule::Winding, local, mask.as_ref());
                        }
                        None => surface.pixmap.as_mut().fill_path(path, &paint, fill_rule, local, None),
                    }
                }
                _ => {
                    if self.mark_missing {
                        self.paint_missing_image(surface, path, fill_rule, transform, size);
                    }
                }
            },
            Paint::Mesh(mesh, blend) => {
                // Drawn at about the box's device size (smaller past a few hundred pixels:
                // it is smooth), then scaled onto the shape.
                let (width, height) = size;
                let device = (local.sx.hypot(local.ky), local.kx.hypot(local.sy));
                let Some(raster) = mesh.rasterize(width * device.0, height * device.1) else { return };
                let to_box = Transform::from_scale(width / raster.width() as f32, height / raster.height() as f32);
                let shader = tiny_skia::Pattern::new(
                    raster.as_ref(),
                    tiny_skia::SpreadMode::Pad,
                    tiny_skia::FilterQuality::Bicubic,
                    alpha,
                    to_box,
                );
                surface.pixmap.as_mut().fill_path(path, &sk_paint(shader, *blend), fill_rule, local, None);
            }
        }
    }

    /// A light box with an image icon where an image could not be drawn.
    fn paint_missing_image(
        &mut self,
        surface: &mut Surface,
        path: &Path,
        fill_rule: FillRule,
        transform: Transform,
        size: (f32, f32),
    ) {
        // Through `fill`, so a rectangle (the usual image box) is a plain row fill.
        let background =
            Paint::Shader(Shader::SolidColor(SkColor::from_rgba8(229, 231, 235, 255)), BlendMode::SourceOver, None);
        self.fill(surface, Outline::new(path, fill_rule), &[background], transform, 1.0, size);
        let local = surface.local(transform);
        let (width, height) = size;
        let Some(drawing) = self.list.missing_image_icon() else { return };
        let side = width.min(height) * 0.4;
        let scale = side / drawing.view;
        let placed = local.pre_translate((width - side) / 2.0, (height - side) / 2.0).pre_scale(scale, scale);
        let ink = SkPaint {
            shader: Shader::SolidColor(SkColor::from_rgba8(156, 163, 175, 255)),
            anti_alias: true,
            ..SkPaint::default()
        };
        if let Some(stroke) = &drawing.stroke {
            surface.pixmap.as_mut().stroke_path(stroke, &ink, &icon_stroke(), placed, None);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn paint_icon(
        &mut self,
        surface: &mut Surface,
        drawing: &IconDrawing,
        placed: Transform,
        paints: &[Paint],
        transform: Transform,
        alpha: f32,
        size: (f32, f32),
    ) {
        if let Some(fill) = &drawing.fill
            && let Some(path) = fill.clone().transform(placed)
        {
            self.fill(surface, Outline::new(&path, FillRule::Winding), paints, transform, alpha, size);
        }
        if let Some(stroke) = &drawing.stroke {
            // The stroke is computed in the icon's grid, then placed: its width scales with it.
            let Some(outline) =
                stroked(stroke, &icon_stroke(), transform.pre_concat(placed)).and_then(|p| p.transform(placed))
            else {
                return;
            };
            self.fill(surface, Outline::new(&outline, FillRule::Winding), paints, transform, alpha, size);
        }
    }

    fn paint_annotation(
        &mut self,
        surface: &mut Surface,
        color: [u8; 4],
        text: Option<&TextRun>,
        shape: Option<&Shape>,
        transform: Transform,
        alpha: f32,
    ) {
        let local = surface.local(transform);
        let background = SkColor::from_rgba8(color[0], color[1], color[2], (f32::from(color[3]) * alpha) as u8);
        if let Some(shape) = shape {
            let paint = SkPaint { shader: Shader::SolidColor(background), anti_alias: true, ..SkPaint::default() };
            surface.pixmap.as_mut().fill_path(&shape.path, &paint, shape.fill_rule, local, None);
        }
        let [r, g, b, a] = crate::display::ANNOTATION_INK;
        let ink = SkPaint {
            shader: Shader::SolidColor(SkColor::from_rgba8(r, g, b, (f32::from(a) * alpha) as u8)),
            anti_alias: true,
            ..SkPaint::default()
        };
        for path in text.into_iter().flat_map(TextRun::paths) {
            surface.pixmap.as_mut().fill_path(&path, &ink, FillRule::Winding, local, None);
        }
    }

    /// Pen's placeholder in an empty slot: its outlines filled with the slot ink.
    fn paint_slot_placeholder(
        &mut self,
        surface: &mut Surface,
        placeholder: &SlotPlaceholder,
        transform: Transform,
        alpha: f32,
    ) {
        let [r, g, b, a] = SLOT_INK;
        let ink = SkPaint {
            shader: Shader::SolidColor(SkColor::from_rgba8(r, g, b, (f32::from(a) * alpha).round() as u8)),
            anti_alias: true,
            ..SkPaint::default()
        };
        for outline in placeholder.outlines() {
            let local = surface.local(transform);
            surface.pixmap.as_mut().fill_path(outline, &ink, FillRule::Winding, local, None);
        }
    }

    fn paint_dashed_outline(&mut self, surface: &mut Surface, path: &Path, transform: Transform) {
        let [r, g, b, a] = UNRESOLVED_INK;
        let red = SkPaint {
            shader: Shader::SolidColor(SkColor::from_rgba8(r, g, b, a)),
            anti_alias: true,
            ..SkPaint::default()
        };
        let stroke = tiny_skia::Stroke {
            width: 1.0,
            dash: tiny_skia::StrokeDash::new(UNRESOLVED_DASH.to_vec(), 0.0),
            ..tiny_skia::Stroke::default()
        };
        let local = surface.local(transform);
        surface.pixmap.as_mut().stroke_path(path, &red, &stroke, local, None);
    }

    fn paint_stroke(
        &mut self,
        surface: &mut Surface,
        node: &DisplayNode,
        shape: &Shape,
        transform: Transform,
        alpha: f32,
    ) {
        let Some(stroke) = &node.stroke else { return };
        let spec = &stroke.spec;
        let size = (node.width, node.height);
        let paints = tiny_paints(&stroke.paints);
        match stroke_outline(shape, spec, size.0, size.1) {
            None => {}
            Some(StrokeOutline::Ring(ring)) => {
                self.fill(surface, Outline::new(&ring, FillRule::EvenOdd), &paints, transform, alpha, size)
            }
            Some(StrokeOutline::Cut { width: stroke_width, keep }) => {
                let Some(outline) = stroked(&shape.path, &spec.tiny_stroke(stroke_width), transform) else { return };
                if keep == Keep::All {
                    self.fill(surface, Outline::new(&outline, FillRule::Winding), &paints, transform, alpha, size);
                    return;
                }
                let Some(bounds) = outline.bounds().transform(transform) else { return };
                let Some(area) = surface.clip_area(bounds) else { return };
                let Some(mut layer) = surface.layer(area) else { return };
                self.fill(&mut layer, Outline::new(&outline, FillRule::Winding), &paints, transform, alpha, size);
                if let Some(mut mask) = layer.mask(&shape.path, shape.fill_rule, transform) {
                    if keep == Keep::Outside {
                        mask.invert();
                    }
                    surface.draw_masked(&mut layer, &mask, BlendMode::SourceOver);
                }
            }
        }
    }
}

/// The device rectangle `path` covers under `transform` when it is a plain rectangle and the
/// transform only scales and moves it.
fn axis_aligned_rect(path: &Path, transform: Transform) -> Option<Rect> {
    use tiny_skia::PathSegment::{Close, LineTo, MoveTo};
    if transform.has_skew() || path.len() != 5 {
        return None;
    }
    let mut corners = [tiny_skia::Point::zero(); 4];
    for (index, segment) in path.segments().enumerate() {
        match (index, segment) {
            (0, MoveTo(p)) | (1..=3, LineTo(p)) => corners[index] = p,
            (4, Close) => {}
            _ => return None,
        }
    }
    let [a, b, c, d] = corners;
    let aligned = (a.y == b.y && b.x == c.x && c.y == d.y && d.x == a.x)
        || (a.x == b.x && b.y == c.y && c.x == d.x && d.y == a.y);
    if !aligned {
        return None;
    }
    path.bounds().transform(transform)
}

/// The pixels `rect` covers exactly, when its edges lie on pixel boundaries.
fn whole_pixels(rect: Rect) -> Option<tiny_skia::IntRect> {
    let near = |v: f32| (v - v.round()).abs() < 0.01;
    if !(near(rect.left()) && near(rect.top()) && near(rect.right()) && near(rect.bottom())) {
        return None;
    }
    tiny_skia::IntRect::from_ltrb(
        rect.left().round() as i32,
        rect.top().round() as i32,
        rect.right().round() as i32,
        rect.bottom().round() as i32,
    )
}

/// What a fill covers: a path and its fill rule, and for simple outlines (rounded rectangles,
/// ovals) a rectangle (node coordinates) inside it whose whole pixels fill row by row.
#[derive(Clone, Copy)]
struct Outline<'p> {
    path: &'p Path,
    fill_rule: FillRule,
    inside: Option<Rect>,
}

impl<'p> Outline<'p> {
    fn new(path: &'p Path, fill_rule: FillRule) -> Outline<'p> {
        Outline { path, fill_rule, inside: None }
    }
}

/// Fills the whole-pixel `area` of `surface` with a color or a gradient row by row, source-over;
/// false when `shader` is neither (an image pattern).
fn fill_area(
    surface: &mut Surface,
    area: tiny_skia::IntRect,
    shader: &Shader<'_>,
    ramp: Option<&Ramp>,
    local: Transform,
    alpha: f32,
) -> bool {
    match (shader, ramp) {
        (Shader::SolidColor(color), _) => {
            let mut color = *color;
            color.apply_opacity(alpha);
            fill_rect_solid(surface.pixmap.as_mut(), area, color.premultiply().to_color_u8());
            true
        }
        (_, Some(ramp)) => {
            fill_rect_ramp(surface.pixmap.as_mut(), area, ramp, local, alpha);
            true
        }
        _ => false,
    }
}

/// The whole pixels inside `rect` (node coordinates) under `transform` (node → surface pixels,
/// scale and translation only), when they are enough to be worth filling apart.
fn pixels_within(rect: Rect, transform: Transform) -> Option<tiny_skia::IntRect> {
    if transform.has_skew() {
        return None;
    }
    let device = rect.transform(transform)?;
    let area = tiny_skia::IntRect::from_ltrb(
        device.left().ceil() as i32,
        device.top().ceil() as i32,
        device.right().floor() as i32,
        device.bottom().floor() as i32,
    )?;
    (u64::from(area.width()) * u64::from(area.height()) >= 4096).then_some(area)
}

/// Fills `path` (a simple outline, `local` its transform to surface pixels) with a color or a
/// gradient, source-over: the whole pixels of `inside` (a rectangle within it) row by row, the
/// rest through tiny-skia. False, with nothing drawn, when that does not apply (too small a
/// rectangle, a rotation, an image pattern).
fn fill_around_inside(
    surface: &mut Surface,
    path: &Path,
    inside: Rect,
    shader: &Shader<'_>,
    ramp: Option<&Ramp>,
    local: Transform,
    alpha: f32,
) -> bool {
    let Some(band) = pixels_within(inside, local) else { return false };
    let Some(rest) = path_around(path, local, band) else { return false };
    if !fill_area(surface, band, shader, ramp, local, alpha) {
        return false;
    }
    let mut shader = shader.clone();
    shader.apply_opacity(alpha);
    shader.transform(local);
    let paint = sk_paint(shader, BlendMode::SourceOver);
    surface.pixmap.as_mut().fill_path(&rest, &paint, FillRule::EvenOdd, Transform::identity(), None);
    true
}

/// `path` under `transform` with the pixels `hole` cut out, to fill even-odd.
fn path_around(path: &Path, transform: Transform, hole: tiny_skia::IntRect) -> Option<Path> {
    let mut builder = tiny_skia::PathBuilder::new();
    builder.push_path(&path.clone().transform(transform)?);
    builder.push_rect(hole.to_rect());
    builder.finish()
}

/// A paint with anti-aliasing. Blend modes other than source-over run in tiny-skia's
/// floating-point pipeline: its 16-bit one overflows on some of them (overlay).
fn sk_paint(shader: Shader<'_>, blend_mode: BlendMode) -> SkPaint<'_> {
    let force_hq_pipeline = blend_mode != BlendMode::SourceOver;
    SkPaint { shader, blend_mode, anti_alias: true, force_hq_pipeline, ..SkPaint::default() }
}

/// The outline of `path` stroked with `stroke` (dashes first), flattened finely enough for
/// `transform` (local → device) to keep curves smooth when scaled up.
fn stroked(path: &Path, stroke: &tiny_skia::Stroke, transform: Transform) -> Option<Path> {
    let (sx, sy) = transform.get_scale();
    let resolution = (sx * sy).abs().sqrt().max(0.01);
    match &stroke.dash {
        Some(dash) => path.dash(dash, resolution)?.stroke(stroke, resolution),
        None => path.stroke(stroke, resolution),
    }
}

/// lucide's stroke: 2 units wide, round ends and joins.
pub(crate) fn icon_stroke() -> tiny_skia::Stroke {
    tiny_skia::Stroke {
        width: LUCIDE_STROKE_WIDTH,
        line_cap: LineCap::Round,
        line_join: LineJoin::Round,
        ..tiny_skia::Stroke::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::paint::{GradientGeometry, GradientSpec};
    use crate::render::paint::gradient_shader;

    /// A rounded card or an oval fills its inner rectangle row by row and the rest
    /// through tiny-skia; the picture is tiny-skia's fill of the whole outline, within the
    /// rounding of a blend (colors) or of the gradient table (gradients).
    #[test]
    fn an_outline_filled_around_its_inner_rectangle_matches_one_fill() {
        let (width, height) = (150.0, 110.0);
        let rounded = Shape {
            path: crate::geometry::rounded_rect(0.0, 0.0, width, height, [18.0, 6.0, 24.0, 0.0]).expect("path"),
            fill_rule: FillRule::Winding,
            closed: true,
            radii: Some([18.0, 6.0, 24.0, 0.0]),
            oval: false,
        };
        let oval = Shape {
            path: tiny_skia::PathBuilder::from_oval(Rect::from_xywh(0.0, 0.0, width, height).expect("rect"))
                .expect("path"),
            fill_rule: FillRule::Winding,
            closed: true,
            radii: None,
            oval: true,
        };
        let color = Shader::SolidColor(SkColor::from_rgba8(200, 80, 30, 190));
        let radial = gradient_shader(&GradientSpec {
            geometry: GradientGeometry::Radial {
                transform: Transform::from_translate(width / 2.0, height / 2.0).pre_scale(width, height),
            },
            stops: vec![(0.0, [212, 132, 94, 90]), (1.0, [212, 132, 94, 0])],
        })
        .expect("a gradient");
        let linear = gradient_shader(&GradientSpec {
            geometry: GradientGeometry::Linear { start: (0.0, 0.0), end: (width, height) },
            stops: vec![(0.0, [20, 200, 90, 255]), (1.0, [10, 10, 250, 120])],
        })
        .expect("a gradient");
        let paints = [(color, None, 1), (radial.0, radial.1, 3), (linear.0, linear.1, 3)];
        let area = tiny_skia::IntRect::from_xywh(0, 0, 260, 200).expect("area");
        for shape in [&rounded, &oval] {
            for local in [Transform::from_translate(10.0, 12.0), Transform::from_row(1.5, 0.0, 0.0, 1.5, 7.3, 4.6)] {
                for (shader, ramp, tolerance) in &paints {
                    let mut ours = Surface::new(area).expect("surface");
                    ours.pixmap.as_mut().fill(SkColor::from_rgba8(40, 90, 200, 160));
                    let mut theirs = Surface::of(ours.pixmap.as_ref().to_owned(), area);
                    let inside = shape.inner_rect(width, height).expect("an inner rectangle");
                    assert!(fill_around_inside(&mut ours, &shape.path, inside, shader, ramp.as_ref(), local, 0.8));
                    let mut alone = shader.clone();
                    alone.apply_opacity(0.8);
                    let paint = sk_paint(alone, BlendMode::SourceOver);
                    theirs.pixmap.as_mut().fill_path(&shape.path, &paint, FillRule::Winding, local, None);
                    let most = ours.pixmap.data().iter().zip(theirs.pixmap.data()).map(|(a, b)| a.abs_diff(*b)).max();
                    assert!(most <= Some(*tolerance), "oval {}, {local:?}: {most:?} levels apart", shape.oval);
                }
            }
        }
        // Too small an inner rectangle is left to tiny-skia.
        let mut surface = Surface::new(area).expect("surface");
        let small = Rect::from_xywh(0.0, 0.0, 30.0, 30.0).expect("rect");
        assert!(!fill_around_inside(&mut surface, &oval.path, small, &paints[0].0, None, Transform::identity(), 1.0));
    }
}
