//! How a run can stop: shared by the run (job.rs) and the writers it drives (html/), so neither
//! has to reach back into the other.

use super::ExportError;

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
