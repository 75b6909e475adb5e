//! Where font files come from. The text engine describes and parses fonts but never opens a
//! file: a host lists font folders, reads font files, scans the system's fonts and writes
//! fetched faces into the cache for it, through [`FontFiles`]. nib's disk host is
//! `nib_render::host::DiskFonts`; a book made without one ([`NoFontFiles`]) has the bundled
//! families only and says so when it is asked for more.

use std::fmt;
use std::path::{Path, PathBuf};

use super::catalog::GoogleFamily;
use crate::files::FileError;

/// One face installed on the machine, as the host's scan saw it (names and style only: the file
/// is read when a text uses the face).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemFont {
    /// The family, as the font names it.
    pub family: String,
    /// The file.
    pub path: PathBuf,
    /// The face's index in a collection (0 otherwise).
    pub index: u32,
    /// Its weight (1–1000).
    pub weight: u16,
    /// Italic or oblique.
    pub italic: bool,
}

/// Why a host's fetch of a font family failed (the network, the answer, the cache folder).
pub type FetchFailed = Box<dyn std::error::Error + Send + Sync>;

/// The file access a [`FontBook`](super::FontBook) needs, given by the host that made it.
pub trait FontFiles: Send + Sync + fmt::Debug {
    /// A name telling implementations apart: books are shared per options and kind of access.
    fn kind(&self) -> &'static str;

    /// Every font file under `folder`, sub-folders included (within the limits of
    /// [`faces`](super::faces)), sorted so the same folder gives the same faces on every run.
    /// An error when `folder` itself cannot be read.
    fn font_files(&self, folder: &Path) -> std::io::Result<Vec<PathBuf>>;

    /// The files directly inside `folder`, sorted; empty when it does not exist or cannot be read.
    fn files_in(&self, folder: &Path) -> Vec<PathBuf>;

    /// The bytes of the regular file at `path`, refused above `limit` bytes.
    fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, FileError>;

    /// Writes `bytes` to `path` whole or not at all, making its folder first.
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), FileError>;

    /// Fetches every face of the Google Fonts `family` into the cache `folder`, written
    /// through these files; `None` when this host does not fetch fonts (no network here, or a
    /// build without it). The text stage asks; how the network is reached is the host's.
    fn fetch_family(&self, _family: &GoogleFamily, _folder: &Path) -> Option<Result<(), FetchFailed>> {
        None
    }

    /// The faces installed on this machine.
    fn system_fonts(&self) -> Vec<SystemFont>;
}

/// No file access: the bundled fonts only. Every read is refused with a reason, so a book made
/// without a host and asked for font folders says why they are not read.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NoFontFiles;

impl NoFontFiles {
    fn refused(path: &Path) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            format!(
                "{} is not read: these fonts were made without a host that reads files (use a DiskHost's fonts)",
                path.display()
            ),
        )
    }
}

impl FontFiles for NoFontFiles {
    fn kind(&self) -> &'static str {
        "none"
    }

    fn font_files(&self, folder: &Path) -> std::io::Result<Vec<PathBuf>> {
        Err(NoFontFiles::refused(folder))
    }

    fn files_in(&self, _folder: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    fn read(&self, path: &Path, _limit: u64) -> Result<Vec<u8>, FileError> {
        Err(FileError::io(path, NoFontFiles::refused(path)))
    }

    fn write(&self, path: &Path, _bytes: &[u8]) -> Result<(), FileError> {
        Err(FileError::io(path, NoFontFiles::refused(path)))
    }

    fn system_fonts(&self) -> Vec<SystemFont> {
        Vec::new()
    }
}

/// Font files held in memory under made-up paths: tests, and library users who keep fonts
/// elsewhere than on a disk. Writes (fetched faces) are kept too.
#[derive(Debug, Default)]
pub struct MemoryFontFiles {
    files: std::sync::Mutex<std::collections::BTreeMap<PathBuf, Vec<u8>>>,
}

impl MemoryFontFiles {
    /// No files yet.
    pub fn new() -> MemoryFontFiles {
        MemoryFontFiles::default()
    }

    /// The same with `bytes` at `path`.
    pub fn with(self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> MemoryFontFiles {
        self.lock().insert(path.into(), bytes.into());
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::BTreeMap<PathBuf, Vec<u8>>> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl FontFiles for MemoryFontFiles {
    fn kind(&self) -> &'static str {
        "memory"
    }

    fn font_files(&self, folder: &Path) -> std::io::Result<Vec<PathBuf>> {
        let files = self.lock();
        if !files.keys().any(|path| path.starts_with(folder)) {
            return Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder"));
        }
        let depth = folder.components().count() + super::faces::MAX_FONT_FOLDER_DEPTH + 1;
        Ok(files
            .keys()
            .filter(|path| path.starts_with(folder) && path.components().count() <= depth)
            .filter(|path| super::faces::is_font_file(path))
            .take(super::faces::MAX_FONT_FILES_PER_FOLDER)
            .cloned()
            .collect())
    }

    fn files_in(&self, folder: &Path) -> Vec<PathBuf> {
        self.lock().keys().filter(|path| path.parent() == Some(folder)).cloned().collect()
    }

    fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
        let files = self.lock();
        let bytes = files
            .get(path)
            .ok_or_else(|| FileError::io(path, std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")))?;
        if bytes.len() as u64 > limit {
            return Err(FileError::TooLarge { path: path.to_owned(), size: Some(bytes.len() as u64), limit });
        }
        Ok(bytes.clone())
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), FileError> {
        self.lock().insert(path.to_owned(), bytes.to_vec());
        Ok(())
    }

    fn system_fonts(&self) -> Vec<SystemFont> {
        Vec::new()
    }
}
