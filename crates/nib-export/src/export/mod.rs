//! Exports: other outputs of the laid-out Scene that [`crate::render`] paints — SVG, PDF,
//! HTML/CSS, raster formats and the document's variables as design tokens. Every format reads
//! the same Scene, boxes, shaped text and paint geometry the painter uses, so what an export
//! shows is what `nib render` shows.

mod html;
pub mod job;
pub mod options;
pub mod pdf;
pub mod raster;
mod source;
pub mod svg;
pub mod tokens;
mod wedges;

use crate::display::TargetError;
use crate::render::RenderError;

/// Why an export could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExportError {
    /// The target has nothing to show, is hidden, or the scale is unusable.
    #[error(transparent)]
    Target(#[from] RenderError),
    /// The PDF writer refused the drawing.
    #[error("the PDF could not be written: {0}")]
    Pdf(String),
    /// An image encoder failed.
    #[error("the {format} image could not be encoded: {reason}")]
    Encode {
        /// The format asked for.
        format: &'static str,
        /// What the encoder said.
        reason: String,
    },
    /// Self-contained output asked of html-tailwind or react, whose classes Tailwind compiles.
    #[error(
        "html-tailwind pages and react components link the stylesheet Tailwind compiles from their classes, so they cannot be self-contained (embed); export html for self-contained pages"
    )]
    EmbeddedCode,
    /// A code export of a document compiled without the Scene that keeps variables (a caller's
    /// mistake: compile with `CompileOptions::keep_variables` for the page formats).
    #[error("the code export needs the document compiled with its variables kept (CompileOptions::keep_variables)")]
    VariablesNotKept,
    /// `--quality` outside 1–100.
    #[error("quality must be a whole number from 1 to 100; got {0}")]
    BadQuality(u8),
}

impl From<TargetError> for ExportError {
    fn from(error: TargetError) -> ExportError {
        ExportError::Target(error.into())
    }
}
