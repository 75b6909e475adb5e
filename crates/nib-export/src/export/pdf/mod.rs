//! PDF export: one page per exported node, drawn straight from its display list by krilla, as
//! the painter and the SVG writer draw it — a `match` per content. Paths stay vectors, text is
//! nib's own glyphs at nib's own positions in embedded, subset faces (so it can be selected and
//! searched, and breaks lines where the PNG does), images keep their file's encoding. Shadows and
//! layer blurs are pictures the painter draws (PDF has no blur).
//!
//! A page is prepared on the threads that export (its display list, the faces its glyphs name
//! and its images' bytes, each read from that thread's engine and host); the pages are then
//! written one after the other into one document.

mod draw;
mod glyphs;

use std::collections::HashMap;

use cosmic_text::fontdb;
use krilla::Document;
use krilla::geom::{Path as PdfPath, PathBuilder as PdfPathBuilder, Transform as PdfTransform};
use krilla::page::PageSettings;
use tiny_skia::{FillRule, Path, PathSegment, Transform};

use super::ExportError;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::display::paint::PaintSpec;
use crate::display::pictures::{ImageError, Pictures};
use crate::display::{Content, DisplayList, RenderTarget};
use crate::layout::Layout;
use crate::render::RenderError;
use crate::resolve::Scene;
use crate::text::{GlyphFace, TextEngine};

/// PDF points per CSS pixel (a PDF point is 1/72 inch, a CSS pixel 1/96).
pub(crate) const POINTS_PER_PIXEL: f32 = 0.75;

/// Pixels per PDF point that shadows and blurs are drawn at (288 per inch): sharp when the page
/// is printed or zoomed in, without making files large.
const EFFECT_PIXELS_PER_POINT: f32 = 4.0;

/// One page, ready to be written: what it draws and what its drawing needs from the thread's
/// engine and host.
pub(crate) struct PdfPage {
    list: DisplayList,
    /// The faces its glyphs name, by their entry in the engine that built the list.
    faces: HashMap<fontdb::ID, GlyphFace>,
    /// The files of its image fills, by URL, as the host holds them (or why not).
    images: HashMap<String, Result<(Vec<u8>, &'static str), ImageError>>,
}

impl PdfPage {
    /// The page of `target`: its display list, and the faces and image files it draws with.
    pub(crate) fn prepare(
        scene: &Scene,
        layout: &Layout,
        text: &mut TextEngine,
        pictures: &mut dyn Pictures,
        target: RenderTarget,
    ) -> Result<PdfPage, ExportError> {
        let list = crate::display::build(scene, layout, text, pictures, target)?;
        let (mut faces, mut images) = (HashMap::new(), HashMap::new());
        for index in 0..list.len() {
            let node = list.node(index);
            let runs = match &node.content {
                Content::Text(run) => Some(run),
                Content::Annotation { text: Some(run), .. } => Some(run),
                _ => None,
            };
            for line in runs.iter().flat_map(|run| run.shaped.lines.iter().map(move |line| (run, line))) {
                for glyph in line.0.shaped.glyphs(line.1) {
                    if let std::collections::hash_map::Entry::Vacant(entry) = faces.entry(glyph.font)
                        && let Some(face) = text.glyph_face(glyph.font)
                    {
                        entry.insert(face);
                    }
                }
            }
            let paints = node.fills.iter().chain(node.stroke.iter().flat_map(|stroke| stroke.paints.iter()));
            for paint in paints {
                if let PaintSpec::Image { url, .. } = paint
                    && matches!(list.picture(url), Some(Ok(_)))
                    && !images.contains_key(url)
                {
                    images.insert(url.clone(), pictures.encoded(url));
                }
            }
        }
        Ok(PdfPage { list, faces, images })
    }
}

/// A PDF of `pages` in order at `scale` (PDF points per canvas pixel: `scale` × 0.75), each on
/// `background` when given; `title` goes into the document's metadata. Answers the bytes and
/// what could not be drawn as written.
pub(crate) fn to_pdf(
    pages: &[PdfPage],
    scale: f32,
    background: Option<[u8; 4]>,
    title: &str,
) -> Result<(Vec<u8>, Vec<Diagnostic>), ExportError> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(RenderError::BadScale(scale).into());
    }
    let mut document = Document::new();
    document.set_metadata(krilla::metadata::Metadata::new().title(title.to_owned()));
    let mut fonts = glyphs::Fonts::default();
    let mut warnings = Diagnostics::new();
    for page in pages {
        let bounds = page.list.bounds;
        // The page is as large as the SVG and PNG of the node: whole pixels at the scale.
        let width = (bounds.width() * scale).ceil().max(1.0);
        let height = (bounds.height() * scale).ceil().max(1.0);
        let too_large = || ExportError::Pdf(format!("a page of {width} × {height} pixels is not possible"));
        let settings =
            PageSettings::from_wh(width * POINTS_PER_PIXEL, height * POINTS_PER_PIXEL).ok_or_else(too_large)?;
        let mut pdf_page = document.start_page_with(settings);
        let mut surface = pdf_page.surface();
        let points = POINTS_PER_PIXEL * scale;
        let page_transform = Transform::from_scale(points, points).pre_translate(-bounds.left(), -bounds.top());
        surface.push_transform(&pdf_transform(page_transform));
        if let Some(color) = background {
            let view = tiny_skia::Rect::from_xywh(bounds.left(), bounds.top(), width / scale, height / scale);
            if let Some(rect) = view.map(tiny_skia::PathBuilder::from_rect) {
                draw::fill_color(&mut surface, &rect, FillRule::Winding, color);
            }
        }
        let mut writer = draw::Writer::new(page, &mut fonts, EFFECT_PIXELS_PER_POINT * points);
        for &root in page.list.roots() {
            writer.node(&mut surface, root, true);
        }
        warnings.extend(writer.finish());
        surface.pop();
        surface.finish();
        pdf_page.finish();
    }
    warnings.extend(fonts.warnings());
    let bytes = document.finish().map_err(|e| ExportError::Pdf(format!("{e:?}")))?;
    Ok((bytes, warnings.into_vec()))
}

/// A tiny-skia path as krilla's; `None` for an empty one.
fn pdf_path(path: &Path) -> Option<PdfPath> {
    let mut builder = PdfPathBuilder::new();
    for segment in path.segments() {
        match segment {
            PathSegment::MoveTo(p) => builder.move_to(p.x, p.y),
            PathSegment::LineTo(p) => builder.line_to(p.x, p.y),
            PathSegment::QuadTo(a, p) => builder.quad_to(a.x, a.y, p.x, p.y),
            PathSegment::CubicTo(a, b, p) => builder.cubic_to(a.x, a.y, b.x, b.y, p.x, p.y),
            PathSegment::Close => builder.close(),
        }
    }
    builder.finish()
}

/// A tiny-skia transform as krilla's.
fn pdf_transform(t: Transform) -> PdfTransform {
    PdfTransform::from_row(t.sx, t.ky, t.kx, t.sy, t.tx, t.ty)
}

/// A fill rule as krilla's.
fn pdf_rule(rule: FillRule) -> krilla::paint::FillRule {
    match rule {
        FillRule::EvenOdd => krilla::paint::FillRule::EvenOdd,
        FillRule::Winding => krilla::paint::FillRule::NonZero,
    }
}

/// A number 0–1 as krilla's (out-of-range values clamped, NaN as 1).
fn normalized(value: f32) -> krilla::num::NormalizedF32 {
    krilla::num::NormalizedF32::new(value.clamp(0.0, 1.0)).unwrap_or(krilla::num::NormalizedF32::ONE)
}
