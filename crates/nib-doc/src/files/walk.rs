//! Finding the files of one kind under a folder: entries sorted by name so every run finds them
//! in the same order, hidden entries and the named folders skipped below the start, links
//! followed (a linked folder of designs is walked like a real one) with loops cut. On walkdir,
//! which handles loops, depth and sorting as well as this needs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::FileError;

/// What a path is, following links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    /// A regular file.
    File,
    /// A folder.
    Folder,
    /// Anything else (a FIFO, a device, a socket).
    Other,
}

/// What `path` is, following links.
pub fn path_kind(path: &Path) -> Result<PathKind, FileError> {
    let metadata = std::fs::metadata(path).map_err(|e| FileError::io(path, e))?;
    Ok(if metadata.is_file() {
        PathKind::File
    } else if metadata.is_dir() {
        PathKind::Folder
    } else {
        PathKind::Other
    })
}

/// `path` with every link resolved, when it exists.
pub fn canonical(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// The folder a server serves, with every link resolved: what its documents must lie in.
pub fn canonical_root(path: &Path) -> std::io::Result<PathBuf> {
    std::fs::canonicalize(path)
}

/// True when nothing is at `path` (links followed) or an empty file is: where a new document
/// may be made. A folder, a device or a file with bytes is something to read (or refuse).
pub fn is_missing_or_empty(path: &Path) -> bool {
    std::fs::metadata(path).map_or(true, |metadata| metadata.is_file() && metadata.len() == 0)
}

/// How far [`list_unlinked`] looks.
#[derive(Debug, Clone, Copy)]
pub struct ListLimits {
    /// Folders below the start it enters at most.
    pub max_depth: usize,
    /// Folders it reads at most.
    pub max_folders: usize,
    /// Files it lists at most.
    pub max_files: usize,
}

/// The files under `root` that `wanted` keeps, as paths relative to it with `/` (sorted),
/// skipping hidden entries and never following a link (a listing a page shows must not reach
/// out of its folder); false when a limit cut the list short. Folders that cannot be read are
/// passed over.
pub fn list_unlinked(root: &Path, wanted: fn(&Path) -> bool, limits: ListLimits) -> (Vec<String>, bool) {
    let mut found = Vec::new();
    let mut folders = vec![(root.to_owned(), 0usize)];
    let mut visited = 0;
    let mut complete = true;
    'walk: while let Some((folder, depth)) = folders.pop() {
        visited += 1;
        if visited > limits.max_folders {
            complete = false;
            break;
        }
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            // The entry's own kind: a link is neither a folder nor a file here.
            let Ok(kind) = entry.file_type() else { continue };
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            if kind.is_dir() && depth < limits.max_depth {
                folders.push((path, depth + 1));
            } else if kind.is_file() && wanted(&path) {
                if found.len() >= limits.max_files {
                    complete = false;
                    break 'walk;
                }
                let relative = path.strip_prefix(root).unwrap_or(&path);
                found
                    .push(relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
            }
        }
    }
    found.sort();
    (found, complete)
}

/// How to walk.
#[derive(Debug, Clone, Copy)]
pub struct WalkRules<'a> {
    /// The files looked for, by their path (`.pen` files; font files).
    pub wanted: fn(&Path) -> bool,
    /// Folder names never entered below the start (a start with such a name is walked).
    pub skipped_folders: &'a [&'a str],
    /// Leave out entries whose name starts with a dot (below the start).
    pub skip_hidden: bool,
    /// How many folders deep the walk goes.
    pub max_depth: usize,
    /// Most files found; the walk stops there.
    pub max_files: usize,
    /// What below the start cannot be read, and folders deeper than `max_depth`, are errors;
    /// otherwise they are passed over (a font folder pointed at a home folder must not fail on
    /// a folder it may not read). The start itself must always be readable.
    pub strict: bool,
}

/// A file found by [`find_files`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    /// Its path, starting with the folder walked.
    pub path: PathBuf,
    /// Its path relative to that folder, with `/` between folders.
    pub relative: String,
}

/// Why a walk stopped.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// A folder could not be read, or a link that claims to be a wanted file leads nowhere.
    #[error("{0}")]
    File(#[from] FileError),
    /// Folders nested deeper than the rules allow.
    #[error("{} is more than {max_depth} folders deep", path.display())]
    TooDeep {
        /// The first folder too deep.
        path: PathBuf,
        /// The limit.
        max_depth: usize,
    },
}

/// The files the rules want under `folder`, in name order, each file once across walks that
/// share `seen` (canonical paths): a file reached again (through a link, or by another walk) is
/// left out.
pub fn find_files(
    folder: &Path,
    rules: WalkRules<'_>,
    seen: &mut HashSet<PathBuf>,
) -> Result<Vec<FoundFile>, WalkError> {
    let wanted = rules.wanted;
    let walk = walkdir::WalkDir::new(folder)
        .follow_links(true)
        .sort_by_file_name()
        .min_depth(1)
        .max_depth(rules.max_depth.saturating_add(1))
        .into_iter()
        // The start itself is walked whatever its name (walkdir asks about it too).
        .filter_entry(|entry| {
            if entry.depth() == 0 {
                return true;
            }
            let name = entry.file_name().to_string_lossy();
            let skipped_folder = entry.file_type().is_dir() && rules.skipped_folders.contains(&name.as_ref());
            let hidden = rules.skip_hidden && name.starts_with('.');
            !(hidden || skipped_folder)
        });
    let mut found = Vec::new();
    for entry in walk {
        let entry = match entry {
            Ok(entry) => entry,
            // A link back up: the folder is being walked already.
            Err(error) if error.loop_ancestor().is_some() => continue,
            Err(error) => {
                let below_start = error.depth() > 0;
                let path = error.path().unwrap_or(folder).to_owned();
                let io = error.into_io_error().unwrap_or_else(|| std::io::Error::other("the walk failed"));
                // A dangling link is no wanted file unless it claims to be one.
                let dangling = io.kind() == std::io::ErrorKind::NotFound && !wanted(&path);
                if below_start && (dangling || !rules.strict) {
                    continue;
                }
                return Err(FileError::io(path, io).into());
            }
        };
        if entry.file_type().is_dir() {
            if entry.depth() > rules.max_depth && rules.strict {
                return Err(WalkError::TooDeep { path: entry.into_path(), max_depth: rules.max_depth });
            }
            continue;
        }
        if !entry.file_type().is_file() || !wanted(entry.path()) {
            continue;
        }
        let path = entry.into_path();
        if seen.insert(canonical(&path).unwrap_or_else(|| path.clone())) {
            let relative = path.strip_prefix(folder).unwrap_or(&path);
            let relative = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            found.push(FoundFile { path, relative });
            if found.len() >= rules.max_files {
                break;
            }
        }
    }
    Ok(found)
}

/// Marks the file at `path` as found (a file given by name rather than walked to): false when
/// it was found before.
pub fn first_sight(path: &Path, seen: &mut HashSet<PathBuf>) -> bool {
    seen.insert(canonical(path).unwrap_or_else(|| path.to_owned()))
}
