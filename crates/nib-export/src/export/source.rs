//! What an export reads from and how a run can stop: shared by the run (job.rs) and the
//! writers it drives (html/), so neither has to reach back into the other.

use crate::doc::Document;
use crate::host::Host;
use crate::layout::Layout;
use crate::resolve::{Library, Scene};
use crate::text::TextEngine;

use super::ExportError;

/// What to export from.
pub struct Source<'a> {
    /// The document (its variables, for tokens).
    pub document: &'a Document,
    /// Its imports.
    pub library: &'a (dyn Library + Sync),
    /// Its resolved Scene.
    pub scene: &'a Scene,
    /// The Scene's layout.
    pub layout: &'a Layout,
    /// The engine the layout was made with.
    pub text: &'a TextEngine,
    /// Where its image files come from.
    pub host: &'a dyn Host,
    /// The document's name, for titles and file names.
    pub title: String,
}

/// Why an export run stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    /// Making a file failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Two nodes asked for would be written to one file.
    #[error(transparent)]
    NameClash(#[from] crate::compile::frames::NameClash),
    /// Two files of one run have names that differ only in letter case (one file on macOS and
    /// Windows): refused before the second is written.
    #[error(
        "the export made two files named {first} and {second}, which are one file where letter case is ignored (macOS, Windows); nothing after the first was written"
    )]
    SameFile {
        /// The name written first.
        first: String,
        /// The name refused.
        second: String,
    },
    /// The sink could not take a file.
    #[error("cannot write {name}: {reason}")]
    Write {
        /// The file.
        name: String,
        /// Why.
        reason: String,
    },
}
