//! Reading `.pen` files and writing them so that a failure never loses the old file.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::document::{Document, Loaded, MAX_FILE_BYTES};
use super::error::LoadError;

/// Why a file could not be read as a document.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file was read but is not a valid document.
    #[error("{}:{error}", path.display())]
    Load {
        /// The file.
        path: PathBuf,
        /// What is wrong and where.
        error: LoadError,
    },
}

/// Reads and loads the document at `path`. Files larger than [`MAX_FILE_BYTES`] are refused
/// before they are read.
pub fn read_file(path: &Path) -> Result<Loaded, FileError> {
    let io_error = |source| FileError::Io { path: path.to_owned(), source };
    let size = fs::metadata(path).map_err(io_error)?.len();
    if size > MAX_FILE_BYTES as u64 {
        return Err(io_error(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the file is {size} bytes; the limit is {MAX_FILE_BYTES} bytes"),
        )));
    }
    let bytes = fs::read(path).map_err(io_error)?;
    Document::load_bytes(&bytes).map_err(|error| FileError::Load { path: path.to_owned(), error })
}

/// Saves `document` to `path` atomically (see [`write_atomic`]).
pub fn save_file(document: &Document, path: &Path) -> io::Result<()> {
    let text = document.to_pen_string();
    write_atomic(path, text.as_bytes())
}

/// Replaces the file at `path` with `bytes` so that readers see either the old file or the
/// complete new one, never a truncated mix, and a failure leaves the old file untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// Like [`write_atomic`], with the content produced by `write` into the temporary file.
///
/// The content goes to a temporary file in the same folder (so the final rename cannot cross
/// file systems), is flushed to disk, and is renamed over the target; then the folder is synced
/// so the rename itself survives a crash. A symlink is followed and its target replaced, and an
/// existing file keeps its permissions. If anything fails the temporary file is removed.
pub fn write_atomic_with(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let target = match fs::canonicalize(path) {
        Ok(resolved) => resolved,
        Err(e) if e.kind() == io::ErrorKind::NotFound => path.to_owned(),
        Err(e) => return Err(e),
    };
    let folder = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "document".into());
    let mut temp = tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(".tmp").tempfile_in(&folder)?;
    write(temp.as_file_mut())?;
    temp.as_file().sync_all()?;
    let permissions = match fs::metadata(&target) {
        Ok(existing) => Some(existing.permissions()),
        Err(_) => default_permissions(),
    };
    if let Some(permissions) = permissions {
        temp.as_file().set_permissions(permissions)?;
    }
    temp.persist(&target).map_err(|e| e.error)?;
    sync_folder(&folder)
}

#[cfg(unix)]
fn default_permissions() -> Option<fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    // Temporary files are created 0600; a new document should be readable like any new file.
    Some(fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<fs::Permissions> {
    None
}

#[cfg(unix)]
fn sync_folder(folder: &Path) -> io::Result<()> {
    File::open(folder)?.sync_all()
}

#[cfg(not(unix))]
fn sync_folder(_folder: &Path) -> io::Result<()> {
    Ok(())
}
