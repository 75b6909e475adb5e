//! PDF export: one page per exported node, drawn from nib's SVG export (live text, embedded
//! images) by krilla, which keeps paths as vectors, embeds each font as a subset and writes
//! text as text, so it can be selected and searched. Shadows and blurs become images, as PDF
//! has no blur.

use std::sync::Arc;

use krilla::Document;
use krilla::page::PageSettings;
use krilla_svg::{SurfaceExt, SvgSettings};

use super::ExportError;
use super::svg::Svg;

/// PDF points per CSS pixel (a PDF point is 1/72 inch, a CSS pixel 1/96).
pub(crate) const POINTS_PER_PIXEL: f32 = 0.75;

/// Pixels per inch filters (shadows, blurs) are rasterised at, relative to 72: sharp when the
/// page is printed or zoomed in, without making files large.
const FILTER_SCALE: f32 = 4.0;

/// One page: an SVG export (with live text) and the document title.
pub(crate) struct PdfPage<'a> {
    /// The drawing.
    pub svg: &'a Svg,
}

/// A PDF with `pages` in order. `fonts` must hold the faces the live text names (the text
/// engine's database); `title` goes into the document's metadata.
pub(crate) fn to_pdf(
    pages: &[PdfPage<'_>],
    fonts: &cosmic_text::fontdb::Database,
    title: &str,
) -> Result<Vec<u8>, ExportError> {
    let fonts = Arc::new(fonts.clone());
    let mut document = Document::new();
    document.set_metadata(krilla::metadata::Metadata::new().title(title.to_owned()));
    for page in pages {
        let options = usvg::Options { fontdb: Arc::clone(&fonts), ..usvg::Options::default() };
        let tree = usvg::Tree::from_str(&page.svg.markup, &options)
            .map_err(|e| ExportError::Pdf(format!("the page drawing could not be read back: {e}")))?;
        let (width, height) = (page.svg.width as f32, page.svg.height as f32);
        let settings = PageSettings::from_wh(width * POINTS_PER_PIXEL, height * POINTS_PER_PIXEL)
            .ok_or_else(|| ExportError::Pdf(format!("a page of {width} × {height} pixels is not possible")))?;
        let mut pdf_page = document.start_page_with(settings);
        let mut surface = pdf_page.surface();
        let size = krilla::geom::Size::from_wh(width * POINTS_PER_PIXEL, height * POINTS_PER_PIXEL)
            .ok_or_else(|| ExportError::Pdf("a page without size".to_owned()))?;
        surface.draw_svg(&tree, size, SvgSettings { embed_text: true, filter_scale: FILTER_SCALE });
        surface.finish();
        pdf_page.finish();
    }
    document.finish().map_err(|e| ExportError::Pdf(format!("{e:?}")))
}
