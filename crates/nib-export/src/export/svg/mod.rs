//! SVG export: a laid-out node (or the canvas) as a vector drawing that matches its PNG.
//!
//! Each node becomes a group (`data-pen-id` names it) placed by its transform, with its fills,
//! shadows, text, icon, children and stroke in the painter's order. What SVG has no primitive
//! for is approximated, and said here:
//! - angular (conic) gradients are drawn as wedges around the center (see
//!   [`crate::export::wedges`]);
//! - background blur (a frosted backdrop) has no SVG equivalent that renderers support: it is
//!   left out, with a warning;
//! - strokes whose sides differ in width are filled rings, the others native strokes (inside
//!   strokes clipped to the shape, outside ones masked outside it).
//!
//! Output is deterministic: the same document gives the same bytes (ids are numbered in
//! drawing order, numbers printed with fixed precision).

mod markup;
pub(crate) mod walk;

use std::path::PathBuf;

pub(crate) use markup::{color as svg_color, escape, number, number_with};
use walk::Writer;

use super::ExportError;
use crate::display::pictures::Pictures;
use crate::display::{DisplayList, RenderTarget};
use crate::layout::Layout;
use crate::render::RenderError;
use crate::resolve::Scene;
use crate::text::TextEngine;

/// How text is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum TextMode {
    /// Glyph outlines (paths): exact on every machine, not editable as text.
    #[default]
    Outlines,
    /// `<text>` with family names, size, weight and one line per `<tspan>`: selectable and
    /// editable, drawn with whatever fonts the viewer has.
    Live,
}

/// How image fills are referenced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ImageRefs {
    /// The image file's bytes inside the SVG as a `data:` URI (self-contained).
    #[default]
    Embed,
    /// A link to the image file, relative to `from` (the folder the SVG is written to) when
    /// given, otherwise as the document wrote it. Network addresses are linked as they are.
    Link {
        /// The folder links are relative to.
        from: Option<PathBuf>,
        /// The folder relative paths (`from`, the image files) are read from: the command line's
        /// working directory. Empty: relative paths are compared as they are, which is right
        /// when both are relative to the same folder. The caller decides it; the writer never
        /// asks the process.
        working_folder: PathBuf,
    },
}

/// How to export.
#[derive(Debug, Clone, PartialEq)]
pub struct SvgOptions {
    /// Output pixels per canvas pixel (> 0): the `width` and `height` of the SVG.
    pub scale: f32,
    /// Text as outlines or live text.
    pub text: TextMode,
    /// Images embedded or linked.
    pub images: ImageRefs,
    /// Fill behind everything (straight RGBA); transparent when `None`.
    pub background: Option<[u8; 4]>,
}

impl Default for SvgOptions {
    fn default() -> SvgOptions {
        SvgOptions { scale: 1.0, text: TextMode::Outlines, images: ImageRefs::Embed, background: None }
    }
}

/// An exported SVG document.
#[derive(Debug, Clone)]
pub struct Svg {
    /// The markup (UTF-8).
    pub markup: String,
    /// Width in output pixels (the canvas width times the scale, rounded up).
    pub width: u32,
    /// Height in output pixels.
    pub height: u32,
    /// What could not be exported as written (missing images, unknown icons, background blur).
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
}

/// Exports `target` of a laid-out scene as SVG. `text` must be the engine the layout was made
/// with; `pictures`, the host's, gives the images.
pub fn to_svg(
    scene: &Scene,
    layout: &Layout,
    text: &mut TextEngine,
    pictures: &mut dyn Pictures,
    target: RenderTarget,
    options: &SvgOptions,
) -> Result<Svg, ExportError> {
    let list = crate::display::build(scene, layout, text, pictures, target)?;
    write(&list, pictures, options)
}

/// Writes a display list as SVG; `pictures` gives the bytes of embedded images and the files of
/// linked ones.
pub(crate) fn write(list: &DisplayList, pictures: &mut dyn Pictures, options: &SvgOptions) -> Result<Svg, ExportError> {
    let scale = options.scale;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(RenderError::BadScale(scale).into());
    }
    let bounds = list.bounds;
    let width = (f64::from(bounds.width()) * f64::from(scale)).ceil().max(1.0);
    let height = (f64::from(bounds.height()) * f64::from(scale)).ceil().max(1.0);
    if width > f64::from(u32::MAX) || height > f64::from(u32::MAX) {
        return Err(RenderError::TooLarge { width: width as u64, height: height as u64 }.into());
    }
    let view = (bounds.left(), bounds.top(), (width / f64::from(scale)) as f32, (height / f64::from(scale)) as f32);
    let mut writer = Writer::new(list, pictures, options);
    if let Some(background) = options.background {
        let (fill, opacity) = markup::color(background);
        writer.body.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"{}/>",
            number(view.0),
            number(view.1),
            number(view.2),
            number(view.3),
            opacity.map(|o| format!(" fill-opacity=\"{o}\"")).unwrap_or_default()
        ));
    }
    for &root in list.roots() {
        writer.node(root, true);
    }
    let (defs, body, warnings) = writer.finish();
    let mut markup = String::with_capacity(defs.len() + body.len() + 256);
    markup.push_str(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"{} {} {} {}\">",
        width as u32,
        height as u32,
        number(view.0),
        number(view.1),
        number(view.2),
        number(view.3)
    ));
    if !defs.is_empty() {
        markup.push_str("<defs>");
        markup.push_str(&defs);
        markup.push_str("</defs>");
    }
    markup.push_str(&body);
    markup.push_str("</svg>\n");
    Ok(Svg { markup, width: width as u32, height: height as u32, warnings })
}
