//! The libraries Pen bundles with its app, which files import as `pencil:NAME`
//! (`{"c": "pencil:lunaris.lib.pen"}`). nib cannot ship them, but it finds a copy the user has:
//! beside the document (`lunaris.lib.pen`), then in the library folders the user names —
//! `--library-dir DIR` (the binary hands them over with [`set_library_dirs`]) and
//! `NIB_LIBRARY_DIRS` (separated like `PATH`). Only a plain file name is looked up: `pencil:`
//! names no path.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// The prefix of a library Pen bundles.
pub const BUNDLED_PREFIX: &str = "pencil:";

/// The folders `--library-dir` named, in order.
static LIBRARY_DIRS: RwLock<Vec<PathBuf>> = RwLock::new(Vec::new());

/// Sets the folders named on the command line (`--library-dir`), looked in before those of
/// `NIB_LIBRARY_DIRS`.
pub fn set_library_dirs(dirs: Vec<PathBuf>) {
    *LIBRARY_DIRS.write().unwrap_or_else(|e| e.into_inner()) = dirs;
}

/// The library folders: `--library-dir`'s, then `NIB_LIBRARY_DIRS`'.
pub fn library_dirs() -> Vec<PathBuf> {
    let mut dirs = LIBRARY_DIRS.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(listed) = std::env::var_os("NIB_LIBRARY_DIRS") {
        dirs.extend(std::env::split_paths(&listed).filter(|dir| !dir.as_os_str().is_empty()));
    }
    dirs
}

/// Where a bundled library was looked for, when no copy was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NotFound {
    /// The library's file name (`lunaris.lib.pen`).
    pub name: String,
    /// The folders looked in, in order (the document's first).
    pub searched: Vec<PathBuf>,
    /// Why the name itself was refused (a path instead of a file name).
    pub refused: Option<&'static str>,
}

/// The copy of the bundled library `name` (what follows `pencil:`), looked for beside the
/// document (in `folder`) and then in the library folders: its path, and whether it was found
/// in a library folder (read outside any confinement: the user named that folder).
pub(super) fn find(name: &str, folder: &Path) -> Result<(PathBuf, bool), NotFound> {
    let refused = if name.is_empty() || name == "." || name == ".." {
        Some("it names no file")
    } else if name.contains(['/', '\\']) || Path::new(name).components().count() != 1 {
        Some("it is a path, and pencil: names a library by its file name")
    } else {
        None
    };
    let dirs = library_dirs();
    let folder = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
    let mut searched = vec![folder.to_owned()];
    searched.extend(dirs.iter().cloned());
    if refused.is_some() {
        return Err(NotFound { name: name.to_owned(), searched: Vec::new(), refused });
    }
    if folder.join(name).is_file() {
        return Ok((folder.join(name), false));
    }
    for dir in &dirs {
        let path = dir.join(name);
        if path.is_file() {
            return Ok((path, true));
        }
    }
    Err(NotFound { name: name.to_owned(), searched, refused: None })
}

impl NotFound {
    /// The warning's sentence for the import `alias`.
    pub(super) fn message(&self, alias: &str) -> String {
        if let Some(refused) = self.refused {
            return format!("import '{alias}' (pencil:{}) was not loaded: {refused}", self.name);
        }
        let searched: Vec<String> = self.searched.iter().map(|p| p.display().to_string()).collect();
        format!(
            "import '{alias}' is pencil:{name}, a library the Pen app bundles, which nib does not ship; no copy of {name} was found (looked in {}): its components are drawn as dashed outlines and its variables paint nothing",
            searched.join(", "),
            name = self.name
        )
    }

    /// What to do about it.
    pub(super) fn hint(&self) -> String {
        format!(
            "copy {name} from a Pen installation beside the document, or into a folder given with --library-dir DIR or NIB_LIBRARY_DIRS",
            name = self.name
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundled_library_is_found_beside_the_document_then_in_the_library_folders() {
        let document = tempfile::tempdir().unwrap();
        let libraries = tempfile::tempdir().unwrap();
        std::fs::write(libraries.path().join("lunaris.lib.pen"), "{}").unwrap();
        let missing = find("lunaris.lib.pen", document.path()).unwrap_err();
        assert_eq!(missing.searched.first().map(PathBuf::as_path), Some(document.path()));
        assert!(missing.message("c").contains("a library the Pen app bundles"), "{}", missing.message("c"));
        set_library_dirs(vec![libraries.path().to_owned()]);
        assert_eq!(find("lunaris.lib.pen", document.path()).unwrap(), (libraries.path().join("lunaris.lib.pen"), true));
        std::fs::write(document.path().join("lunaris.lib.pen"), "{}").unwrap();
        assert_eq!(find("lunaris.lib.pen", document.path()).unwrap(), (document.path().join("lunaris.lib.pen"), false));
        for path in ["../lunaris.lib.pen", "/etc/passwd", "a/b.lib.pen", ".."] {
            assert!(find(path, document.path()).unwrap_err().refused.is_some(), "{path}");
        }
        set_library_dirs(Vec::new());
    }
}
