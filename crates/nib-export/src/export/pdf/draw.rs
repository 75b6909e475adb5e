//! The PDF writer's walk: each node of the display list drawn on a krilla surface in the
//! painter's order — shadows, fills, content, inner shadows, then the children (clipped or not)
//! and the stroke — in the node's own coordinates.

use std::collections::HashMap;
use std::sync::Arc;

use krilla::color::rgb;
use krilla::geom::Size;
use krilla::image::Image;
use krilla::mask::{Mask, MaskType};
use krilla::paint::{Fill, LinearGradient, Paint, RadialGradient, SpreadMethod, Stop, Stroke, StrokeDash};
use krilla::surface::Surface;
use tiny_skia::{FillRule, LineCap, LineJoin, Path, PathBuilder, Rect, Transform};

use super::glyphs::Fonts;
use super::{PdfPage, normalized, pdf_path, pdf_rule, pdf_transform};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::display::effects::{ShadowSpec, grown};
use crate::display::geometry::Shape;
use crate::display::mesh::MeshSpec;
use crate::display::paint::{GradientGeometry, GradientSpec, PaintSpec, image_placement};
use crate::display::slot::SLOT_INK;
use crate::display::stroke::{Keep, StrokeOutline, StrokeSpec, vector_stroke};
use crate::display::{ANNOTATION_INK, Content, DisplayNode, TextRun, UNRESOLVED_DASH, UNRESOLVED_INK};
use crate::doc::values::{BlendMode as PenBlend, ImageMode};
use crate::export::wedges::{Wedge, color_at, wedges};
use crate::render::alone::{Alone, effect_picture, straight_rgba};
use crate::text::{IconDrawing, LUCIDE_STROKE_WIDTH};

/// Draws the nodes of one page.
pub(super) struct Writer<'a> {
    page: &'a PdfPage,
    fonts: &'a mut Fonts,
    /// Pixels per canvas pixel that shadows and blurs are drawn at.
    effect_density: f32,
    /// Image fills made once per page, by URL (`None`: the file could not be embedded).
    images: HashMap<String, Option<Image>>,
    warnings: Diagnostics,
}

/// A stroke drawn by the PDF's own stroking: the outline stroked this wide, the part `keep`
/// kept, with the ends and corners of `spec` (or round ones for icons).
struct NativeStroke<'s> {
    width: f32,
    keep: Keep,
    spec: Option<&'s StrokeSpec>,
    round: bool,
}

impl<'a> Writer<'a> {
    pub fn new(page: &'a PdfPage, fonts: &'a mut Fonts, effect_density: f32) -> Writer<'a> {
        Writer { page, fonts, effect_density, images: HashMap::new(), warnings: Diagnostics::new() }
    }

    /// What could not be drawn as written: the display list's and the writer's.
    pub fn finish(self) -> Vec<Diagnostic> {
        let mut warnings = self.warnings;
        warnings.extend(self.page.list.warnings.iter().cloned());
        warnings.into_vec()
    }

    /// Draws node `index` and its subtree: a target (`as_target`) at its canvas position, any
    /// other node at its place in its parent.
    pub fn node(&mut self, surface: &mut Surface<'_>, index: usize, as_target: bool) {
        let list = &self.page.list;
        let node = list.node(index);
        if node.opacity <= 0.0 {
            return;
        }
        surface.push_transform(&pdf_transform(list.transform(index, Transform::identity(), as_target)));
        if node.opacity < 1.0 {
            surface.push_opacity(normalized(node.opacity));
        }
        if node.effects.layer_blur > 0.0 {
            // The node and everything below it, blurred: a picture the painter draws.
            self.effect(surface, index, Alone::LayerBlur, PenBlend::Normal);
        } else {
            self.content(surface, index);
        }
        if node.opacity < 1.0 {
            surface.pop();
        }
        surface.pop();
    }

    /// The node's own drawing, its children and its stroke, in its own coordinates.
    fn content(&mut self, surface: &mut Surface<'_>, index: usize) {
        let page = self.page;
        let node = page.list.node(index);
        let size = (node.width, node.height);
        let effects = &node.effects;
        let shape = node.shape.as_ref();
        if shape.is_some() {
            if effects.background_blur > 0.0 {
                self.warnings.insert(
                    Diagnostic::note(
                        "export",
                        "background blur has no PDF equivalent and is left out (the fills above it are kept)",
                    )
                    .at_node(node.id.clone()),
                );
            }
            if node.fills_visible {
                for (which, shadow) in effects.shadows.iter().enumerate().filter(|(_, s)| !s.inner) {
                    self.effect(surface, index, Alone::Shadow(which), shadow.blend);
                }
            }
        }
        let specs = &node.fills;
        match &node.content {
            Content::Text(run) => self.text(surface, run, specs, size, &node.id),
            Content::Icon { drawing, placed } => self.icon(surface, drawing, *placed, specs, size, &node.id),
            Content::MissingIcon => {
                let radius = size.0.min(size.1) / 6.0;
                if let Some(outline) = crate::geometry::rounded_rect(0.0, 0.0, size.0, size.1, [radius; 4]) {
                    dashed_outline(surface, &outline);
                }
            }
            Content::Annotation { color, text } => {
                if let Some(shape) = shape {
                    fill_color(surface, &shape.path, shape.fill_rule, *color);
                }
                if let Some(run) = text {
                    let ink = [PaintSpec::Solid { color: ANNOTATION_INK, blend: PenBlend::Normal }];
                    self.text(surface, run, &ink, size, &node.id);
                }
            }
            Content::Unresolved => {
                if let Some(shape) = shape {
                    dashed_outline(surface, &shape.path);
                }
            }
            Content::Fill | Content::EmptySlot(_) => {
                if let Some(shape) = shape.filter(|s| s.closed) {
                    self.fill(surface, &shape.path, shape.fill_rule, specs, size, &node.id);
                }
                if let Content::EmptySlot(placeholder) = &node.content {
                    for outline in placeholder.outlines() {
                        fill_color(surface, outline, FillRule::Winding, SLOT_INK);
                    }
                }
            }
            Content::Nothing => {}
        }
        if shape.is_some() {
            for (which, shadow) in effects.shadows.iter().enumerate().filter(|(_, s)| s.inner) {
                self.effect(surface, index, Alone::Shadow(which), shadow.blend);
            }
        }
        match shape.filter(|_| node.clip) {
            Some(shape) => {
                let clipped = with_clip(surface, &shape.path, shape.fill_rule);
                self.children(surface, node);
                if clipped {
                    surface.pop();
                }
                self.stroke(surface, node, shape);
            }
            None => {
                if let Some(shape) = shape {
                    self.stroke(surface, node, shape);
                }
                self.children(surface, node);
            }
        }
    }

    fn children(&mut self, surface: &mut Surface<'_>, node: &DisplayNode) {
        for &child in &node.children {
            self.node(surface, child, false);
        }
    }

    /// A shadow or a layer blur of node `index`: a shadow without blur is a crisp shape, drawn
    /// as vectors; a blurred one, and a layer blur, is drawn by the painter and placed as a
    /// picture.
    fn effect(&mut self, surface: &mut Surface<'_>, index: usize, what: Alone, blend: PenBlend) {
        let node = self.page.list.node(index);
        if let (Alone::Shadow(which), Some(shape)) = (what, node.shape.as_ref())
            && let Some(shadow) = node.effects.shadows.get(which).filter(|s| s.blur <= 0.0)
        {
            return with_blend(surface, blend, |surface| {
                sharp_shadow(surface, shape, (node.width, node.height), shadow)
            });
        }
        let Some(picture) = effect_picture(&self.page.list, index, what, self.effect_density) else { return };
        let Some(size) = Size::from_wh(picture.rect.width(), picture.rect.height()) else { return };
        let image = Image::from_rgba8(picture.rgba, picture.width, picture.height);
        surface.push_transform(&pdf_transform(Transform::from_translate(picture.rect.left(), picture.rect.top())));
        with_blend(surface, blend, |surface| surface.draw_image(image, size));
        surface.pop();
    }

    /// Fills `path` with each paint in order.
    fn fill(
        &mut self,
        surface: &mut Surface<'_>,
        path: &Path,
        rule: FillRule,
        specs: &[PaintSpec],
        size: (f32, f32),
        node: &str,
    ) {
        for spec in specs {
            match spec {
                PaintSpec::Gradient {
                    gradient: gradient @ GradientSpec { geometry: GradientGeometry::Angular { .. }, .. },
                    blend,
                } => self.angular(surface, path, rule, gradient, *blend, size),
                PaintSpec::Image { url, mode, crop, opacity, blend } => {
                    self.image(surface, path, rule, url, (*mode, *crop), *opacity, *blend, size, node);
                }
                PaintSpec::Mesh { mesh, blend } => mesh_fill(surface, path, rule, mesh, *blend, size),
                _ => {
                    let Some((paint, opacity)) = paint_of(spec) else { continue };
                    with_blend(surface, spec_blend(spec), |surface| fill_path(surface, path, rule, paint, opacity));
                }
            }
        }
    }

    /// An angular gradient inside `path`: its wedges (see [`crate::export::wedges`]; PDF's sweep
    /// shadings need a PostScript function, which not every viewer draws), clipped to the path.
    fn angular(
        &mut self,
        surface: &mut Surface<'_>,
        path: &Path,
        rule: FillRule,
        gradient: &GradientSpec,
        blend: PenBlend,
        size: (f32, f32),
    ) {
        let wedges = wedges(gradient, size);
        if wedges.is_empty() || !with_clip(surface, path, rule) {
            return;
        }
        with_blend(surface, blend, |surface| {
            for Wedge { corners: [center, a, b], color } in wedges {
                let mut builder = PathBuilder::new();
                builder.move_to(center.0, center.1);
                builder.line_to(a.0, a.1);
                builder.line_to(b.0, b.1);
                builder.close();
                if let Some(wedge) = builder.finish() {
                    fill_color(surface, &wedge, FillRule::Winding, color);
                }
            }
        });
        surface.pop();
    }

    /// An image fill: the image placed in the box by its mode and crop (as the painter places
    /// it), clipped to `path` and to the part of the box the image covers.
    #[allow(clippy::too_many_arguments)]
    fn image(
        &mut self,
        surface: &mut Surface<'_>,
        path: &Path,
        rule: FillRule,
        url: &str,
        (mode, crop): (ImageMode, Option<[f32; 6]>),
        opacity: f32,
        blend: PenBlend,
        size: (f32, f32),
        node: &str,
    ) {
        let Some(Ok(decoded)) = self.page.list.picture(url) else { return };
        let Some(image) = self.embedded(url, decoded, node) else { return };
        let (image_width, image_height) = (decoded.width() as f32, decoded.height() as f32);
        let placed = image_placement(mode, crop, image_width, image_height, size.0, size.1);
        let Some(image_size) = Size::from_wh(image_width, image_height) else { return };
        if !with_clip(surface, path, rule) {
            return;
        }
        let area = placed.area.map(PathBuilder::from_rect);
        let area_clipped = area.as_ref().is_some_and(|area| with_clip(surface, area, FillRule::Winding));
        with_blend(surface, blend, |surface| {
            if opacity < 1.0 {
                surface.push_opacity(normalized(opacity));
            }
            surface.push_transform(&pdf_transform(placed.transform));
            surface.draw_image(image, image_size);
            surface.pop();
            if opacity < 1.0 {
                surface.pop();
            }
        });
        if area_clipped {
            surface.pop();
        }
        surface.pop();
    }

    /// The image `url` as the PDF embeds it: the file's own bytes when krilla takes them (a JPEG
    /// stays a JPEG), otherwise the pixels nib decoded.
    fn embedded(&mut self, url: &str, decoded: &Arc<tiny_skia::Pixmap>, node: &str) -> Option<Image> {
        if let Some(made) = self.images.get(url) {
            return made.clone();
        }
        let from_file = match self.page.images.get(url) {
            Some(Ok((bytes, "image/jpeg"))) => Image::from_jpeg(bytes.clone().into(), true).ok(),
            Some(Ok((bytes, "image/png"))) => Image::from_png(bytes.clone().into(), true).ok(),
            Some(Ok((bytes, "image/gif"))) => Image::from_gif(bytes.clone().into(), true).ok(),
            Some(Err(error)) => {
                self.warnings.insert(Diagnostic::warning("image", error.to_string()).at_node(node));
                None
            }
            _ => None,
        };
        let made =
            from_file.or_else(|| Some(Image::from_rgba8(straight_rgba(decoded), decoded.width(), decoded.height())));
        self.images.insert(url.to_owned(), made.clone());
        made
    }

    /// Laid-out text in the node's paints: real text where the paint is a colour or a linear or
    /// radial gradient (PDF fills glyphs with those), the glyph outlines for the other paints.
    fn text(&mut self, surface: &mut Surface<'_>, run: &TextRun, specs: &[PaintSpec], size: (f32, f32), node: &str) {
        for spec in specs {
            match paint_of(spec) {
                Some((paint, opacity)) => with_blend(surface, spec_blend(spec), |surface| {
                    let fill = Fill { paint, opacity: normalized(opacity), rule: krilla::paint::FillRule::NonZero };
                    self.fonts.draw_run(surface, run, &self.page.faces, &fill);
                }),
                None => {
                    for path in run.paths() {
                        self.fill(surface, &path, FillRule::Winding, std::slice::from_ref(spec), size, node);
                    }
                }
            }
        }
    }

    /// An icon: its filled glyph and its lines, in the node's paints.
    fn icon(
        &mut self,
        surface: &mut Surface<'_>,
        drawing: &IconDrawing,
        placed: Transform,
        specs: &[PaintSpec],
        size: (f32, f32),
        node: &str,
    ) {
        if let Some(path) = drawing.fill.clone().and_then(|p| p.transform(placed)) {
            self.fill(surface, &path, FillRule::Winding, specs, size, node);
        }
        if let Some(path) = drawing.stroke.clone().and_then(|p| p.transform(placed)) {
            let stroke =
                NativeStroke { width: LUCIDE_STROKE_WIDTH * placed.sx, keep: Keep::All, spec: None, round: true };
            self.native_stroke(surface, &path, FillRule::Winding, &stroke, specs, size, node);
        }
    }

    /// The node's stroke: a filled ring when its sides differ, a native stroke otherwise.
    fn stroke(&mut self, surface: &mut Surface<'_>, node: &DisplayNode, shape: &Shape) {
        let Some(stroke) = &node.stroke else { return };
        let (spec, specs) = (&stroke.spec, &stroke.paints);
        let size = (node.width, node.height);
        let native = match vector_stroke(shape, spec, size.0, size.1) {
            None => return,
            Some(StrokeOutline::Ring(ring)) => {
                self.fill(surface, &ring, FillRule::EvenOdd, specs, size, &node.id);
                return;
            }
            Some(StrokeOutline::Cut { width, keep }) => NativeStroke { width, keep, spec: Some(spec), round: false },
        };
        self.native_stroke(surface, &shape.path, shape.fill_rule, &native, specs, size, &node.id);
    }

    /// Strokes `path` with each paint, keeping the part `stroke.keep` says.
    #[allow(clippy::too_many_arguments)]
    fn native_stroke(
        &mut self,
        surface: &mut Surface<'_>,
        path: &Path,
        rule: FillRule,
        stroke: &NativeStroke<'_>,
        specs: &[PaintSpec],
        size: (f32, f32),
        node: &str,
    ) {
        let Some(outline) = pdf_path(path) else { return };
        let (join, cap, miter, dash) = match stroke.spec {
            Some(spec) => (spec.join, spec.cap, spec.miter_limit, spec.dash.clone()),
            None if stroke.round => (LineJoin::Round, LineCap::Round, 4.0, None),
            None => (LineJoin::Miter, LineCap::Butt, 4.0, None),
        };
        let kept = match stroke.keep {
            Keep::All => true,
            Keep::Inside => with_clip(surface, path, rule),
            Keep::Outside => {
                let region = Rect::from_xywh(0.0, 0.0, size.0.max(1.0), size.1.max(1.0))
                    .and_then(|r| r.outset(stroke.width + 1.0, stroke.width + 1.0));
                match region {
                    Some(region) => outside_mask(surface, path, rule, region),
                    None => false,
                }
            }
        };
        if !kept {
            return;
        }
        for spec in specs {
            let paint = match spec {
                // A stroke has no wedges to cut: the middle colour stands in, as in SVG.
                PaintSpec::Gradient {
                    gradient: GradientSpec { geometry: GradientGeometry::Angular { .. }, stops },
                    ..
                } => Some((rgb_paint(color_at(stops, 0.5)), f32::from(color_at(stops, 0.5)[3]) / 255.0)),
                PaintSpec::Image { .. } | PaintSpec::Mesh { .. } => {
                    self.warnings.insert(
                        Diagnostic::note("export", "an image or mesh stroke has no PDF equivalent and is left out")
                            .at_node(node),
                    );
                    None
                }
                _ => paint_of(spec),
            };
            let Some((paint, opacity)) = paint else { continue };
            let pdf_stroke = Stroke {
                paint,
                width: stroke.width,
                miter_limit: miter,
                line_cap: match cap {
                    LineCap::Butt => krilla::paint::LineCap::Butt,
                    LineCap::Round => krilla::paint::LineCap::Round,
                    LineCap::Square => krilla::paint::LineCap::Square,
                },
                line_join: match join {
                    LineJoin::Round => krilla::paint::LineJoin::Round,
                    LineJoin::Bevel => krilla::paint::LineJoin::Bevel,
                    _ => krilla::paint::LineJoin::Miter,
                },
                opacity: normalized(opacity),
                dash: dash.clone().map(|array| StrokeDash { array, offset: 0.0 }),
            };
            with_blend(surface, spec_blend(spec), |surface| {
                surface.set_stroke(Some(pdf_stroke));
                surface.draw_path(&outline);
                surface.set_stroke(None);
            });
        }
        if stroke.keep != Keep::All {
            surface.pop();
        }
    }
}

/// A shadow without blur: the (spread, moved) shape outside the shape itself for a drop
/// shadow; for an inner one, everything outside the (shrunk, moved) shape, inside the shape.
fn sharp_shadow(surface: &mut Surface<'_>, shape: &Shape, size: (f32, f32), shadow: &ShadowSpec) {
    let moved = Transform::from_translate(shadow.dx, shadow.dy);
    if shadow.inner {
        let margin = shadow.dx.abs() + shadow.dy.abs() + shadow.spread.abs() + 1.0;
        let Some(outer) = shape.path.bounds().outset(margin, margin) else { return };
        let mut builder = PathBuilder::new();
        builder.push_rect(outer);
        if let Some(hole) = grown(shape, size.0, size.1, -shadow.spread).and_then(|hole| hole.transform(moved)) {
            builder.push_path(&hole);
        }
        let Some(ring) = builder.finish() else { return };
        if with_clip(surface, &shape.path, shape.fill_rule) {
            fill_color(surface, &ring, FillRule::EvenOdd, shadow.color);
            surface.pop();
        }
        return;
    }
    let Some(cast) = grown(shape, size.0, size.1, shadow.spread).and_then(|path| path.transform(moved)) else { return };
    let Some(region) = cast.bounds().join(&shape.path.bounds()).and_then(|r| r.outset(1.0, 1.0)) else { return };
    if outside_mask(surface, &shape.path, shape.fill_rule, region) {
        fill_color(surface, &cast, shape.fill_rule, shadow.color);
        surface.pop();
    }
}

/// A mesh gradient: no PDF shading draws one, so it is the picture nib draws (at the size the
/// painter uses), clipped to `path`.
fn mesh_fill(
    surface: &mut Surface<'_>,
    path: &Path,
    rule: FillRule,
    mesh: &MeshSpec,
    blend: PenBlend,
    size: (f32, f32),
) {
    let Some(raster) = mesh.rasterize(size.0, size.1) else { return };
    let Some(box_size) = Size::from_wh(size.0, size.1) else { return };
    let image = Image::from_rgba8(straight_rgba(&raster), raster.width(), raster.height());
    if !with_clip(surface, path, rule) {
        return;
    }
    with_blend(surface, blend, |surface| surface.draw_image(image, box_size));
    surface.pop();
}

/// The paint of a colour or a linear or radial gradient, with its opacity; `None` for the
/// paints a PDF fill cannot be (angular gradients, images, meshes) and gradients without stops.
fn paint_of(spec: &PaintSpec) -> Option<(Paint, f32)> {
    match spec {
        PaintSpec::Solid { color, .. } => Some((rgb_paint(*color), f32::from(color[3]) / 255.0)),
        PaintSpec::Gradient { gradient, .. } => {
            let stops: Vec<Stop> = gradient
                .stops
                .iter()
                .map(|(position, [r, g, b, a])| Stop {
                    offset: normalized(*position),
                    color: rgb::Color::new(*r, *g, *b).into(),
                    opacity: normalized(f32::from(*a) / 255.0),
                })
                .collect();
            if stops.is_empty() {
                return None;
            }
            let paint: Paint = match gradient.geometry {
                GradientGeometry::Linear { start, end } => LinearGradient {
                    x1: start.0,
                    y1: start.1,
                    x2: end.0,
                    y2: end.1,
                    transform: krilla::geom::Transform::identity(),
                    spread_method: SpreadMethod::Pad,
                    stops,
                    anti_alias: false,
                }
                .into(),
                GradientGeometry::Radial { transform } => RadialGradient {
                    fx: 0.0,
                    fy: 0.0,
                    fr: 0.0,
                    cx: 0.0,
                    cy: 0.0,
                    cr: 0.5,
                    transform: pdf_transform(transform),
                    spread_method: SpreadMethod::Pad,
                    stops,
                    anti_alias: false,
                }
                .into(),
                GradientGeometry::Angular { .. } => return None,
            };
            Some((paint, 1.0))
        }
        PaintSpec::Image { .. } | PaintSpec::Mesh { .. } => None,
    }
}

/// An opaque RGB paint of a straight RGBA colour (its alpha is the fill's opacity).
fn rgb_paint([r, g, b, _]: [u8; 4]) -> Paint {
    rgb::Color::new(r, g, b).into()
}

/// Fills `path` with one straight RGBA colour.
pub(super) fn fill_color(surface: &mut Surface<'_>, path: &Path, rule: FillRule, color: [u8; 4]) {
    fill_path(surface, path, rule, rgb_paint(color), f32::from(color[3]) / 255.0);
}

/// Fills `path` with `paint` at `opacity`, leaving no fill set for what is drawn next.
fn fill_path(surface: &mut Surface<'_>, path: &Path, rule: FillRule, paint: Paint, opacity: f32) {
    let Some(shape) = pdf_path(path) else { return };
    surface.set_fill(Some(Fill { paint, opacity: normalized(opacity), rule: pdf_rule(rule) }));
    surface.draw_path(&shape);
    surface.set_fill(None);
}

/// The red dashed outline marking what could not be resolved.
fn dashed_outline(surface: &mut Surface<'_>, path: &Path) {
    let Some(outline) = pdf_path(path) else { return };
    surface.set_stroke(Some(Stroke {
        paint: rgb_paint(UNRESOLVED_INK),
        width: 1.0,
        dash: Some(StrokeDash { array: UNRESOLVED_DASH.to_vec(), offset: 0.0 }),
        ..Stroke::default()
    }));
    surface.draw_path(&outline);
    surface.set_stroke(None);
}

/// Clips what follows to `path`; false (and nothing pushed) when the path is empty.
fn with_clip(surface: &mut Surface<'_>, path: &Path, rule: FillRule) -> bool {
    let Some(clip) = pdf_path(path) else { return false };
    surface.push_clip_path(&clip, &pdf_rule(rule));
    true
}

/// Masks what follows to `region` outside `path`; false (and nothing pushed) when the path is
/// empty.
fn outside_mask(surface: &mut Surface<'_>, path: &Path, rule: FillRule, region: Rect) -> bool {
    let Some(region_path) = pdf_path(&PathBuilder::from_rect(region)) else { return false };
    let Some(hole) = pdf_path(path) else { return false };
    let mut builder = surface.stream_builder();
    let mut mask = builder.surface();
    mask.set_fill(Some(Fill { paint: rgb_paint([255, 255, 255, 255]), ..Fill::default() }));
    mask.draw_path(&region_path);
    mask.set_fill(Some(Fill { paint: rgb_paint([0, 0, 0, 255]), rule: pdf_rule(rule), ..Fill::default() }));
    mask.draw_path(&hole);
    mask.finish();
    let stream = builder.finish();
    surface.push_mask(Mask::new(stream, MaskType::Luminosity));
    true
}

/// Draws with `blend` (normal blending pushes nothing).
fn with_blend(surface: &mut Surface<'_>, blend: PenBlend, draw: impl FnOnce(&mut Surface<'_>)) {
    match pdf_blend(blend) {
        None => draw(surface),
        Some(mode) => {
            surface.push_blend_mode(mode);
            draw(surface);
            surface.pop();
        }
    }
}

/// Pen's blend mode as PDF's; `None` for normal. PDF has no additive mode: linear dodge (plus
/// lighter) is drawn as screen, the nearest that brightens, and linear burn as multiply, as the
/// page's CSS does.
fn pdf_blend(blend: PenBlend) -> Option<krilla::blend::BlendMode> {
    use krilla::blend::BlendMode as B;
    Some(match blend {
        PenBlend::Normal => return None,
        PenBlend::Darken => B::Darken,
        PenBlend::Multiply | PenBlend::LinearBurn => B::Multiply,
        PenBlend::ColorBurn => B::ColorBurn,
        PenBlend::Light => B::Lighten,
        PenBlend::Screen | PenBlend::LinearDodge => B::Screen,
        PenBlend::ColorDodge => B::ColorDodge,
        PenBlend::Overlay => B::Overlay,
        PenBlend::SoftLight => B::SoftLight,
        PenBlend::HardLight => B::HardLight,
        PenBlend::Difference => B::Difference,
        PenBlend::Exclusion => B::Exclusion,
        PenBlend::Hue => B::Hue,
        PenBlend::Saturation => B::Saturation,
        PenBlend::Color => B::Color,
        PenBlend::Luminosity => B::Luminosity,
    })
}

/// The blend mode of a paint.
fn spec_blend(spec: &PaintSpec) -> PenBlend {
    match spec {
        PaintSpec::Solid { blend, .. }
        | PaintSpec::Gradient { blend, .. }
        | PaintSpec::Image { blend, .. }
        | PaintSpec::Mesh { blend, .. } => *blend,
    }
}
