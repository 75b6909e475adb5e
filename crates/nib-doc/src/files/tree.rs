//! A folder opened once, with every file below it reached through that open folder: the
//! writes of a confined workspace and of the trees a snapshot run or a review writes into.
//!
//! Checking a path and then using it leaves a window: another process can swap a folder on
//! the way for a symbolic link between the two, and the write lands wherever the link points
//! (7 of 936 screenshots did). Here the folder is opened first and every later step
//! (opening the folders below, creating the temporary file, renaming it into place) happens
//! relative to that open handle through cap-std, which resolves paths beneath it only (with
//! `openat2(RESOLVE_BENEATH)` where the kernel has it): a link that leads out fails, whenever
//! it appears.
//!
//! Two ways to treat links below the folder, chosen per call ([`Links`]): a confined workspace
//! follows links that stay inside (a document may be a link to another file of the root), while
//! the trees of `nib snapshot` and `nib diff -o` are made of files a contributor controls, so no
//! link is followed there at all: a planted link is refused, and named in the error.

use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};

use super::lock::{Identity, Stamp};
use super::{Durability, FileError, kind_of_cap};

/// How symbolic links below a [`Tree`]'s folder are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Followed while they stay inside the folder; one leading out is refused.
    Inside,
    /// As [`Links::Inside`] for the folders on the way; a link as the file itself is refused
    /// (outputs: a link named `shot.png` must not turn a picture into a write elsewhere).
    InsideNotFile,
    /// Never followed: a link anywhere on the way, or as the file itself, is refused.
    Never,
}

/// A folder opened once; see the module's documentation.
#[derive(Debug)]
pub struct Tree {
    dir: Dir,
    path: PathBuf,
}

impl Tree {
    /// Opens the folder at `path` (links in `path` itself are followed: the caller named it).
    pub fn open(path: &Path) -> Result<Tree, FileError> {
        let dir = Dir::open_ambient_dir(path, cap_std::ambient_authority()).map_err(|e| FileError::io(path, e))?;
        Ok(Tree { dir, path: path.to_owned() })
    }

    /// Creates the folder at `path` and those above it when missing, then opens it.
    pub fn create(path: &Path) -> Result<Tree, FileError> {
        std::fs::create_dir_all(path).map_err(|e| FileError::io(path, e))?;
        Tree::open(path)
    }

    /// Creates the folder at `path` (and those above it) and opens it, refusing it when it is
    /// itself a symbolic link: for output folders in a tree others control (a `review/` or
    /// `snapshot-diffs/` committed as a link would send every picture elsewhere).
    pub fn create_unlinked(path: &Path) -> Result<Tree, FileError> {
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(FileError::Link { path: path.to_owned() });
        }
        Tree::create(path)
    }

    /// The folder at `relative` below this one, opened (and created when `create` says so) with
    /// links on the way treated as `links` says.
    pub fn subtree(&self, relative: &Path, links: Links, create: bool) -> Result<Tree, FileError> {
        let dir = self.folder(relative, links, create)?;
        Ok(Tree { dir, path: self.path.join(relative) })
    }

    /// The same folder, shown as `path` in errors and paths.
    pub(super) fn named(self, path: &Path) -> Tree {
        Tree { dir: self.dir, path: path.to_owned() }
    }

    /// The open folder.
    pub(super) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The folder, as it was named.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `path` relative to the folder, `.` and `..` taken away without touching the disk;
    /// `None` when it names a place outside (or the folder itself).
    pub fn relative(&self, path: &Path) -> Option<PathBuf> {
        let normal = super::lexical_normal(path);
        let folder = super::lexical_normal(&self.path);
        let below = if normal.is_absolute() == folder.is_absolute() {
            normal.strip_prefix(&folder).ok()?.to_owned()
        } else {
            return None;
        };
        (!below.as_os_str().is_empty()).then_some(below)
    }

    /// Replaces the file at `relative` with what `write` puts into a temporary file beside it,
    /// created and renamed through the open folder. Folders on the way are created. An
    /// existing file must be a regular, writable file; it keeps its mode and owner. Under
    /// [`Links::Inside`] a link as the file itself is followed (inside) and its target replaced;
    /// under [`Links::Never`] it is refused.
    pub fn write(
        &self,
        relative: &Path,
        links: Links,
        durability: Durability,
        write: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
    ) -> Result<(), FileError> {
        let shown = self.path.join(relative);
        let (parent, name) = split(relative).ok_or_else(|| not_a_file(&shown))?;
        let mut folder = self.folder(&parent, links, true)?;
        let mut name = name;
        let mut target_shown = shown.clone();
        if let Ok(metadata) = folder.symlink_metadata(&name)
            && metadata.file_type().is_symlink()
        {
            if links != Links::Inside {
                return Err(FileError::Link { path: shown });
            }
            // Followed inside the folder only: canonicalize resolves beneath it or fails.
            let resolved = self.dir.canonicalize(relative).map_err(|e| self.error(&shown, e))?;
            let (parent, resolved_name) = split(&resolved).ok_or_else(|| not_a_file(&shown))?;
            folder = self.folder(&parent, Links::Inside, false)?;
            name = resolved_name;
            target_shown = self.path.join(&resolved);
        }
        let existing = existing_file(&folder, &name, &target_shown, &shown)?;
        let io = |e| FileError::io(&shown, e);
        let (temp_name, mut file) = super::temporary::create(&folder, &name).map_err(io)?;
        let written = (|| -> Result<Option<(Option<Stamp>, Identity)>, FileError> {
            let io = |e| FileError::io(&shown, e);
            write(&mut file).map_err(io)?;
            file.flush().map_err(io)?;
            if durability == Durability::Durable {
                file.sync_all().map_err(io)?;
            }
            super::write::keep_mode_and_owner(&file, existing.as_ref()).map_err(io)?;
            if durability == Durability::Replaceable {
                return Ok(None);
            }
            // A document's save: as close to the rename as can be, the file must be as this
            // process's lock on it saw it (a writer that takes no lock may have changed it).
            let folder_identity = identity_of(&folder).map_err(io)?;
            let now = stamp_in(&folder, &name).map_err(io)?;
            super::lock::check_before_replacing(now, folder_identity, name.as_os_str(), &shown)?;
            Ok(Some((now, folder_identity)))
        })();
        let replaced = match written {
            Ok(replaced) => replaced,
            Err(error) => {
                let _ = folder.remove_file(&temp_name);
                return Err(error);
            }
        };
        // Renamed while still locked: a sweep never takes a file that is about to be the
        // document, and the document's lock moves over to it.
        if let Err(e) = folder.rename(&temp_name, &folder, &name) {
            let _ = folder.remove_file(&temp_name);
            return Err(io(e));
        }
        let Some((replaced, folder_identity)) = replaced else { return Ok(()) };
        super::lock::after_replacing(replaced, folder_identity, name.as_os_str(), file);
        // A folder handle of cap-std may be a path-only descriptor: open it for reading.
        folder.open(".").and_then(|dot| dot.into_std().sync_all()).map_err(io)?;
        // A document's save clears what killed saves of it left (outputs are many files in
        // one folder, and looking through it for each would cost a listing per file).
        super::temporary::sweep(&folder, name.as_os_str());
        Ok(())
    }

    /// Creates the folder at `relative` and those on the way, refusing links as `links` says.
    pub fn create_folder(&self, relative: &Path, links: Links) -> Result<(), FileError> {
        self.folder(relative, links, true).map(drop)
    }

    /// The content of the regular file at `relative`, at most `limit` bytes.
    pub fn read(&self, relative: &Path, links: Links, limit: u64) -> Result<Vec<u8>, FileError> {
        let shown = self.path.join(relative);
        let (parent, name) = split(relative).ok_or_else(|| not_a_file(&shown))?;
        let folder = self.folder(&parent, links, false)?;
        let mut options = OpenOptions::new();
        options.read(true);
        if links != Links::Inside {
            options.follow(FollowSymlinks::No);
            if folder.symlink_metadata(&name).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(FileError::Link { path: shown });
            }
        }
        nonblocking(&mut options);
        let file = folder.open_with(&name, &options).map_err(|e| self.error(&shown, e))?;
        let metadata = file.metadata().map_err(|e| FileError::io(&shown, e))?;
        if !metadata.is_file() {
            return Err(FileError::NotRegular { path: shown, kind: kind_of_cap(&metadata) });
        }
        if metadata.len() > limit {
            return Err(FileError::TooLarge { path: shown, size: Some(metadata.len()), limit });
        }
        let capacity = usize::try_from(metadata.len()).unwrap_or(0);
        let mut bytes = Vec::with_capacity(capacity);
        file.into_std().take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| FileError::io(&shown, e))?;
        if bytes.len() as u64 > limit {
            return Err(FileError::TooLarge { path: shown, size: None, limit });
        }
        Ok(bytes)
    }

    /// Removes the file (or link: the link, never what it points to) at `relative`; a file
    /// that is not there is no error.
    pub fn remove_file(&self, relative: &Path, links: Links) -> Result<(), FileError> {
        let shown = self.path.join(relative);
        let (parent, name) = split(relative).ok_or_else(|| not_a_file(&shown))?;
        let folder = match self.folder(&parent, links, false) {
            Ok(folder) => folder,
            Err(error) if error.is_not_found() => return Ok(()),
            Err(error) => return Err(error),
        };
        match folder.symlink_metadata(&name) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(FileError::io(&shown, e)),
            Ok(metadata) if metadata.is_dir() => {
                return Err(FileError::NotRegular { path: shown, kind: "a folder" });
            }
            Ok(_) => {}
        }
        match folder.remove_file(&name) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(FileError::io(&shown, e)),
            _ => Ok(()),
        }
    }

    /// Removes the folder at `relative` when it is empty (and not a link); true when it did.
    pub fn remove_empty_folder(&self, relative: &Path) -> bool {
        let Some((parent, name)) = split(relative) else { return false };
        let Ok(folder) = self.folder(&parent, Links::Never, false) else { return false };
        match folder.symlink_metadata(&name) {
            Ok(metadata) if metadata.is_dir() => folder.remove_dir(&name).is_ok(),
            _ => false,
        }
    }

    /// The names of the entries of the folder at `relative` (empty for the folder itself),
    /// each with whether it is a symbolic link.
    pub fn entries(&self, relative: &Path, links: Links) -> Result<Vec<(String, bool)>, FileError> {
        let shown = self.path.join(relative);
        let folder = if relative.as_os_str().is_empty() {
            self.dir.try_clone().map_err(|e| FileError::io(&shown, e))?
        } else {
            self.folder(relative, links, false)?
        };
        let mut names = Vec::new();
        for entry in folder.entries().map_err(|e| self.error(&shown, e))? {
            let entry = entry.map_err(|e| FileError::io(&shown, e))?;
            let link = entry.file_type().is_ok_and(|t| t.is_symlink());
            names.push((entry.file_name().to_string_lossy().into_owned(), link));
        }
        Ok(names)
    }

    /// The open folder at `relative` below this one (itself when empty), created when
    /// `create` says so.
    fn folder(&self, relative: &Path, links: Links, create: bool) -> Result<Dir, FileError> {
        let shown = self.path.join(relative);
        let mut folder = self.dir.try_clone().map_err(|e| FileError::io(&shown, e))?;
        if relative.as_os_str().is_empty() {
            return Ok(folder);
        }
        if links != Links::Never {
            if create {
                match folder.create_dir_all(relative) {
                    // Something in the way that is no folder inside: opening it says what.
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    other => other.map_err(|e| self.error(&shown, e))?,
                }
            }
            return folder.open_dir(relative).map_err(|e| self.error(&shown, e));
        }
        let mut walked = self.path.clone();
        for part in relative.components() {
            let Component::Normal(part) = part else { return Err(self.outside(&shown)) };
            walked.push(part);
            // Opened first (one call for a folder that is there, as it is for every file of
            // an export after the first); a link is never opened, only named in the error.
            let opened = match folder.open_dir_nofollow(part) {
                Err(e) if create && e.kind() == io::ErrorKind::NotFound => match folder.create_dir(part) {
                    Ok(()) => folder.open_dir_nofollow(part),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => folder.open_dir_nofollow(part),
                    Err(e) => return Err(FileError::io(&walked, e)),
                },
                other => other,
            };
            folder = match opened {
                Ok(opened) => opened,
                Err(_) if folder.symlink_metadata(part).is_ok_and(|m| m.file_type().is_symlink()) => {
                    return Err(FileError::Link { path: walked });
                }
                Err(e) => return Err(self.error(&walked, e)),
            };
        }
        Ok(folder)
    }

    /// The error for `e` at `path`: cap-std's refusal of a path that leads out of the folder
    /// becomes [`FileError::Outside`].
    fn error(&self, path: &Path, e: io::Error) -> FileError {
        if e.kind() == io::ErrorKind::PermissionDenied && e.to_string().contains("outside of the filesystem") {
            return self.outside(path);
        }
        FileError::io(path, e)
    }

    fn outside(&self, path: &Path) -> FileError {
        FileError::Outside { path: path.to_owned(), root: self.path.clone() }
    }
}

/// `relative` as its folder and its file name; `None` for an empty path or one ending in `..`.
fn split(relative: &Path) -> Option<(PathBuf, PathBuf)> {
    let name = match relative.components().next_back()? {
        Component::Normal(name) => PathBuf::from(name),
        _ => return None,
    };
    Some((relative.parent().map(Path::to_owned).unwrap_or_default(), name))
}

fn not_a_file(path: &Path) -> FileError {
    FileError::NotRegular { path: path.to_owned(), kind: "a folder" }
}

/// The metadata of the file `name` in `folder` that a write replaces, after checking it may be
/// replaced (regular, writable); `None` when there is none.
fn existing_file(
    folder: &Dir,
    name: &Path,
    target: &Path,
    shown: &Path,
) -> Result<Option<std::fs::Metadata>, FileError> {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    nonblocking(&mut options);
    let file = match folder.open_with(name, &options) {
        Ok(file) => file.into_std(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            // A folder or special file opened for reading fails differently per system.
            return match folder.symlink_metadata(name) {
                Ok(metadata) if !metadata.is_file() => {
                    Err(FileError::NotRegular { path: target.to_owned(), kind: kind_of_cap(&metadata) })
                }
                _ => Err(FileError::io(shown, e)),
            };
        }
    };
    let metadata = file.metadata().map_err(|e| FileError::io(shown, e))?;
    super::write::refuse_unless_writable(shown, target, &metadata)?;
    // Write bits for someone else: this user may still not write it.
    let mut writable = OpenOptions::new();
    writable.write(true).follow(FollowSymlinks::No);
    nonblocking(&mut writable);
    folder.open_with(name, &writable).map_err(|e| FileError::io(shown, e))?;
    Ok(Some(metadata))
}

/// Which file the open folder is.
fn identity_of(folder: &Dir) -> io::Result<Identity> {
    Ok(Stamp::of(&folder.try_clone()?.into_std_file().metadata()?).identity())
}

/// The stamp of the file `name` in `folder` now (not following a link); `None` when missing.
fn stamp_in(folder: &Dir, name: &Path) -> io::Result<Option<Stamp>> {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    nonblocking(&mut options);
    match folder.open_with(name, &options) {
        Ok(file) => Ok(Some(Stamp::of(&file.into_std().metadata()?))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opening never waits for a writer, should the file turn out to be a FIFO.
#[cfg(unix)]
fn nonblocking(options: &mut OpenOptions) {
    use cap_std::fs::OpenOptionsExt;
    options.custom_flags(libc::O_NONBLOCK);
}

#[cfg(not(unix))]
fn nonblocking(_options: &mut OpenOptions) {}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn write(tree: &Tree, path: &str, links: Links) -> Result<(), FileError> {
        tree.write(Path::new(path), links, Durability::Replaceable, |f| f.write_all(b"new"))
    }

    #[test]
    fn writes_create_folders_and_replace_files() {
        let root = tempfile::tempdir().unwrap();
        let tree = Tree::open(root.path()).unwrap();
        write(&tree, "a/b/c.png", Links::Never).unwrap();
        assert_eq!(std::fs::read(root.path().join("a/b/c.png")).unwrap(), b"new");
        std::fs::write(root.path().join("a/b/c.png"), b"old").unwrap();
        write(&tree, "a/b/c.png", Links::Inside).unwrap();
        assert_eq!(std::fs::read(root.path().join("a/b/c.png")).unwrap(), b"new");
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(root.path().join("a/b")).unwrap().count(), 1);
    }

    #[test]
    fn links_are_never_followed_where_the_tree_says_so() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("config.txt"), b"keep").unwrap();
        symlink(outside.path().join("config.txt"), root.path().join("golden.png")).unwrap();
        symlink(outside.path(), root.path().join("snapshots")).unwrap();
        let tree = Tree::open(root.path()).unwrap();
        for path in ["golden.png", "snapshots/f1.png"] {
            let error = write(&tree, path, Links::Never).unwrap_err();
            assert!(error.to_string().contains("symbolic link"), "{error}");
        }
        assert!(matches!(tree.read(Path::new("golden.png"), Links::Never, 100), Err(FileError::Link { .. })));
        assert_eq!(std::fs::read(outside.path().join("config.txt")).unwrap(), b"keep");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
        // Removing a link removes the link, not its target.
        tree.remove_file(Path::new("golden.png"), Links::Never).unwrap();
        assert!(outside.path().join("config.txt").exists());
    }

    #[test]
    fn links_inside_are_followed_and_links_out_refused() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("real")).unwrap();
        std::fs::write(root.path().join("real/d.pen"), b"old").unwrap();
        symlink("real/d.pen", root.path().join("d.pen")).unwrap();
        symlink(outside.path(), root.path().join("out")).unwrap();
        let tree = Tree::open(root.path()).unwrap();
        write(&tree, "d.pen", Links::Inside).unwrap();
        assert!(std::fs::symlink_metadata(root.path().join("d.pen")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(root.path().join("real/d.pen")).unwrap(), b"new");
        let error = write(&tree, "out/x.png", Links::Inside).unwrap_err();
        assert!(matches!(error, FileError::Outside { .. }), "{error}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn relative_paths_stay_below_the_folder() {
        let tree = Tree::open(Path::new("/")).unwrap();
        assert_eq!(tree.relative(Path::new("/a/../b/c")), Some(PathBuf::from("b/c")));
        let tree = Tree { dir: tree.dir, path: PathBuf::from("/srv/root") };
        assert_eq!(tree.relative(Path::new("/srv/root/x/y.png")), Some(PathBuf::from("x/y.png")));
        assert_eq!(tree.relative(Path::new("/srv/root/../other/y.png")), None);
        assert_eq!(tree.relative(Path::new("/srv/root")), None);
    }
}
