//! Writing files so that a failure never loses the old one: the content goes to a temporary
//! file in the same folder, is flushed, and is renamed over the target. Only regular files are
//! replaced, read-only files are left alone, and a replaced file keeps its mode and owner.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{Confinement, DocumentLock, Durability, FileError, Links, Tree, kind_of};

/// Replaces the file at `path` with `bytes` (see [`write_atomic_with`]).
pub fn write_atomic(path: &Path, bytes: &[u8], confinement: Option<&Confinement>) -> Result<(), FileError> {
    write_atomic_with(path, confinement, |file| file.write_all(bytes))
}

/// Replaces the file at `path` with `bytes` as [`write_atomic`] does, without waiting for the
/// disk ([`Durability::Replaceable`]): for images and exports that the next run makes again.
/// Under a confinement a symbolic link as the file itself is refused ([`Links::InsideNotFile`]):
/// an output is a new picture, never a write through a link to somewhere else.
pub fn write_output(path: &Path, bytes: &[u8], confinement: Option<&Confinement>) -> Result<(), FileError> {
    replace(path, confinement, Durability::Replaceable, Links::InsideNotFile, |file| file.write_all(bytes))
}

/// Replaces the file at `path` with what `write` puts into a temporary file, so that readers see
/// either the old file or the complete new one, and a failure leaves the old file untouched and
/// no debris.
///
/// Before anything is written: with a `confinement`, the path (symbolic links resolved now)
/// must lead inside it; an existing target must be a regular file (a symbolic link is followed
/// and its target replaced) that is writable by its mode bits — root is refused too, because a
/// read-only file says it should not change. The new file gets the old one's permissions, owner
/// and group; a new file is readable by all (0644).
///
/// The write holds the file's [`DocumentLock`] (taken here unless the caller holds it already,
/// as a command does for its whole read → change → write), waiting for another writer of the
/// same file to finish, and is refused when a program that takes no lock changed the file since
/// the lock was taken.
pub fn write_atomic_with(
    path: &Path,
    confinement: Option<&Confinement>,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), FileError> {
    let locked = Confinement::apply(confinement, path)?;
    let _lock = DocumentLock::acquire(&locked)?;
    replace(path, confinement, Durability::Durable, Links::Inside, write)
}

fn replace(
    path: &Path,
    confinement: Option<&Confinement>,
    durability: Durability,
    links: Links,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), FileError> {
    if let Some(confinement) = confinement {
        // Through the root opened once: a folder swapped for a link meanwhile cannot redirect it.
        let relative = confinement.relative(path)?;
        return confinement.tree()?.write(&relative, links, durability, write);
    }
    // Links are followed to the file they lead to (a document may be a link to another file),
    // which is then written through its folder like any other.
    let target = target_of(path)?;
    let folder = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    let name = target.file_name().ok_or_else(|| FileError::NotRegular { path: path.to_owned(), kind: "a folder" })?;
    Tree::open(&folder)?.write(Path::new(name), links, durability, write)
}

/// Writes an output file (a report, a picture) at `path` the user named, refusing it when it is
/// a symbolic link: in a checkout others control, `junit.xml` committed as a link to a file
/// elsewhere must not turn a report into a write there. The folder is created when missing.
pub fn write_unlinked(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(Path::new)
        .ok_or_else(|| FileError::NotRegular { path: path.to_owned(), kind: "a folder" })?;
    super::Tree::create(folder)?.write(name, Links::Never, Durability::Replaceable, |file| file.write_all(bytes))
}

/// Creates `folder` and the folders above it that are missing, refusing (before creating
/// anything) a place outside the confinement; returns it with symbolic links resolved.
pub fn create_folder(folder: &Path, confinement: Option<&Confinement>) -> Result<PathBuf, FileError> {
    if let Some(confinement) = confinement {
        // The root itself is there already (a file exported straight into it).
        if super::confine::lexical_normal(folder) == confinement.root() {
            return Ok(confinement.root().to_owned());
        }
        let relative = confinement.relative(folder)?;
        confinement.tree()?.create_folder(&relative, Links::Inside)?;
        return confinement.check(folder);
    }
    let resolved = Confinement::apply(confinement, folder)?;
    fs::create_dir_all(&resolved).map_err(|e| FileError::io(folder, e))?;
    // A link created meanwhile is caught here, before anything is written into the folder.
    Confinement::apply(confinement, &resolved)
}

/// Where a write to `path` lands: the file a symbolic link leads to.
fn target_of(path: &Path) -> Result<PathBuf, FileError> {
    match fs::canonicalize(path) {
        Ok(resolved) => Ok(resolved),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(path.to_owned()),
        Err(e) => Err(FileError::io(path, e)),
    }
}

/// Refuses what a write must not replace: anything but a regular file, and a file without write
/// permission in its mode bits.
pub(super) fn refuse_unless_writable(path: &Path, target: &Path, metadata: &fs::Metadata) -> Result<(), FileError> {
    if !metadata.is_file() {
        return Err(FileError::NotRegular { path: target.to_owned(), kind: kind_of(metadata.file_type()) });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = metadata.permissions().mode();
        if mode & 0o222 == 0 {
            return Err(FileError::ReadOnly { path: path.to_owned(), mode: mode & 0o7777 });
        }
    }
    #[cfg(not(unix))]
    if metadata.permissions().readonly() {
        return Err(FileError::ReadOnly { path: path.to_owned(), mode: 0o444 });
    }
    Ok(())
}

#[cfg(unix)]
pub(super) fn keep_mode_and_owner(temp: &File, existing: Option<&fs::Metadata>) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let Some(existing) = existing else {
        // Temporary files are created 0600; a new document should be readable like any new file.
        return temp.set_permissions(fs::Permissions::from_mode(0o644));
    };
    let made = temp.metadata()?;
    if (made.uid(), made.gid()) != (existing.uid(), existing.gid()) {
        std::os::unix::fs::fchown(temp, Some(existing.uid()), Some(existing.gid())).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "cannot keep its owner {}:{} ({e}), and replacing it would change that; write it as its owner",
                    existing.uid(),
                    existing.gid()
                ),
            )
        })?;
    }
    // After the owner, which may clear set-id bits.
    temp.set_permissions(fs::Permissions::from_mode(existing.permissions().mode() & 0o7777))
}

#[cfg(not(unix))]
pub(super) fn keep_mode_and_owner(temp: &File, existing: Option<&fs::Metadata>) -> io::Result<()> {
    match existing {
        Some(existing) => temp.set_permissions(existing.permissions()),
        None => Ok(()),
    }
}

/// Removes a file nib wrote that is no longer wanted (an image or an export of a call that was
/// undone): true when it was there and is gone. A file already gone is not an error; one that
/// cannot be removed is left, and false says so.
pub fn remove_unwanted(path: &Path) -> bool {
    fs::remove_file(path).is_ok()
}
