//! Reading `.pen` files and writing them so that a failure never loses the old file. The care
//! for special files, sizes, permissions and owners is [`crate::files`]'s; this adds the
//! document on top.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::document::{Document, Loaded, MAX_FILE_BYTES};
use super::error::LoadError;
use crate::files::{self, Confinement};

/// Why a file could not be read as a document.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read: missing, not a regular file, too large, unreadable.
    #[error("{0}")]
    File(#[from] files::FileError),
    /// The file was read but is not a valid document.
    #[error("{}:{error}", path.display())]
    Load {
        /// The file.
        path: PathBuf,
        /// What is wrong and where.
        error: LoadError,
    },
}

/// Reads and loads the document at `path`: a regular file of at most [`MAX_FILE_BYTES`] (a
/// larger file is refused before it is read, a FIFO or device before it is opened).
pub fn read_file(path: &Path) -> Result<Loaded, ReadError> {
    let bytes = read_document_bytes(path)?;
    Document::load_bytes(&bytes).map_err(|error| ReadError::Load { path: path.to_owned(), error })
}

/// Reads from the document at `path` only what drawing the nodes `ids` needs (see
/// [`Document::load_excerpt`]), with the checks of [`read_file`].
pub fn read_excerpt(path: &Path, ids: &[String]) -> Result<Loaded, ReadError> {
    let bytes = read_document_bytes(path)?;
    let text = std::str::from_utf8(&bytes).ok();
    match text {
        Some(text) => Document::load_excerpt(text, ids),
        // Not UTF-8: the full load says where.
        None => Document::load_bytes(&bytes),
    }
    .map_err(|error| ReadError::Load { path: path.to_owned(), error })
}

/// The bytes of the document file at `path`, with the same checks as [`read_file`].
pub fn read_document_bytes(path: &Path) -> Result<Vec<u8>, files::FileError> {
    files::read_regular(path, MAX_FILE_BYTES as u64)
}

/// The bytes of the document file at `path`, read through `confinement`'s open root when one
/// is given (so a folder swapped for a link cannot lead the read outside).
pub fn read_document_bytes_within(
    path: &Path,
    confinement: Option<&files::Confinement>,
) -> Result<Vec<u8>, files::FileError> {
    match confinement {
        Some(confinement) => confinement.read(path, MAX_FILE_BYTES as u64),
        None => read_document_bytes(path),
    }
}

/// Saves `document` to `path` atomically (see [`write_atomic`]), writing the text as it is
/// printed rather than holding it whole.
pub fn save_file(document: &Document, path: &Path) -> Result<(), files::FileError> {
    save_file_by(document, path, None).map(drop)
}

/// [`save_file`], leaving `writer`'s name on the file (see [`files::mark_written`]); answers
/// the revision of the bytes saved.
pub fn save_file_by(
    document: &Document,
    path: &Path,
    writer: Option<&files::Writer>,
) -> Result<files::Revision, files::FileError> {
    if document.is_excerpt() {
        // Writing it would drop the top-level nodes it was read without.
        let refusal = "this document was read in part (Document::load_excerpt) and is never saved";
        return Err(files::FileError::Io {
            path: path.to_owned(),
            source: io::Error::new(io::ErrorKind::InvalidInput, refusal),
        });
    }
    let mut revision = None;
    write_atomic_with(path, |file| {
        revision = Some(write_document_into(file, document, writer)?);
        Ok(())
    })?;
    Ok(files::Revision::of_hash(&revision.unwrap_or_default()))
}

/// Writes `document` into `file` (a save's temporary file) as it is printed, never holding the
/// text whole, and leaves `writer`'s name on it; answers the hash of the bytes written (their
/// [`files::Revision`]).
pub fn write_document_into(
    file: &mut File,
    document: &Document,
    writer: Option<&files::Writer>,
) -> io::Result<crate::hash::WordHash> {
    let mut out = Hashing { out: io::BufWriter::new(&mut *file), hash: crate::hash::WordHash::default() };
    document.write_pen(&mut out)?;
    io::Write::flush(&mut out)?;
    let hash = out.hash;
    drop(out);
    if let Some(writer) = writer {
        files::mark_written(file, writer, files::Revision::of_hash(&hash));
    }
    Ok(hash)
}

/// Passes what is written on and hashes it.
struct Hashing<W> {
    out: W,
    hash: crate::hash::WordHash,
}

impl<W: io::Write> io::Write for Hashing<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.out.write(bytes)?;
        self.hash.add(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Replaces the file at `path` with `bytes` so that readers see either the old file or the
/// complete new one, never a truncated mix; a failure leaves the old file untouched. Special
/// files and read-only files are refused (see [`files::write_atomic_with`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), files::FileError> {
    files::write_atomic(path, bytes, None)
}

/// Like [`write_atomic`], with the content produced by `write` into the temporary file.
pub fn write_atomic_with(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> Result<(), files::FileError> {
    files::write_atomic_with(path, None, write)
}

/// Like [`write_atomic`], refusing paths that lead outside `confinement` when one is given.
pub fn write_atomic_within(
    path: &Path,
    bytes: &[u8],
    confinement: Option<&Confinement>,
) -> Result<(), files::FileError> {
    files::write_atomic(path, bytes, confinement)
}
