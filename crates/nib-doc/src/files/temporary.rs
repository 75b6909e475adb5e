//! The temporary files a write makes beside its target, and the ones a killed write left.
//!
//! A write puts its content into `.NAME.HEX.tmp` in the target's folder and renames it over
//! `NAME`. A process killed between the two leaves that file behind, up to the size of the
//! document (25 of 300 kills left one of up to 28 MB; a server's folder held 417 MB after 40),
//! and nothing removed it. Now the writer holds an exclusive lock on its temporary file from the
//! moment it exists until it is renamed or removed, and every durable write of `NAME` (a
//! document's save) removes the temporary files of `NAME` that nobody holds: the lock dies with
//! its process, so a file no lock guards and older than [`GRACE`] is debris.
//!
//! Only nib's own names are touched: `.NAME.` then 6 to 16 letters and digits (16 hex digits
//! now; 6 were tempfile's, which nib used before) then `.tmp`, a regular file, not a link.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, File, OpenOptions};

/// How old a temporary file nobody locks must be before it is removed: a writer locks its file
/// microseconds after creating it, so a younger one may be a live writer's in that moment.
pub const GRACE: Duration = Duration::from_secs(2);

/// A new temporary file beside `name` in `folder`, locked by this process until it is
/// dropped, with its name. Its name is one no other writer uses.
pub(super) fn create(folder: &Dir, name: &Path) -> io::Result<(PathBuf, std::fs::File)> {
    let stem = name.to_string_lossy();
    let mut options = OpenOptions::new();
    options.write(true).create_new(true).follow(FollowSymlinks::No);
    for _ in 0..16 {
        let temp = PathBuf::from(format!(".{stem}.{:016x}.tmp", suffix()));
        match folder.open_with(&temp, &options) {
            Ok(file) => {
                let file = file.into_std();
                // A file system without locks (some network mounts) still gets the write; its
                // debris is then removed only by the grace's age and an unlocked probe.
                let _ = file.try_lock();
                return Ok((temp, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free name for a temporary file"))
}

/// Removes the temporary files of `name` in `folder` that a killed write left: nib's naming,
/// regular files, older than [`GRACE`], locked by no process. Returns how many were removed;
/// anything that cannot be read or removed is left as it is.
pub(super) fn sweep(folder: &Dir, name: &OsStr) -> usize {
    let Ok(entries) = folder.entries() else { return 0 };
    let name = name.to_string_lossy();
    let mut removed = 0;
    for entry in entries.flatten() {
        let candidate = entry.file_name();
        let Some(candidate) = candidate.to_str() else { continue };
        if is_temporary_of(candidate, &name) && remove_if_abandoned(folder, candidate) {
            removed += 1;
        }
    }
    removed
}

/// The name of the file whose temporary file `candidate` is, when it is named as nib names
/// them (`.NAME.HEX.tmp`).
pub(super) fn temporary_for(candidate: &str) -> Option<&str> {
    let rest = candidate.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (name, _) = rest.rsplit_once('.')?;
    (!name.is_empty() && is_temporary_of(candidate, name)).then_some(name)
}

/// Removes `candidate` in `folder` when no process holds it and it is old enough; true when it
/// did.
pub(super) fn remove_if_abandoned(folder: &Dir, candidate: &str) -> bool {
    is_abandoned(folder, candidate) && folder.remove_file(candidate).is_ok()
}

/// True when `candidate` is named as nib names the temporary files of `name`.
fn is_temporary_of(candidate: &str, name: &str) -> bool {
    let Some(middle) = candidate.strip_prefix('.').and_then(|rest| rest.strip_prefix(name)) else { return false };
    let Some(middle) = middle.strip_prefix('.').and_then(|rest| rest.strip_suffix(".tmp")) else { return false };
    (6..=16).contains(&middle.len()) && middle.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// True when the file is regular, old enough and no process holds its lock (taken here and
/// released when the file is closed).
fn is_abandoned(folder: &Dir, candidate: &str) -> bool {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    nonblocking(&mut options);
    let Ok(file) = folder.open_with(candidate, &options) else { return false };
    let file: File = file;
    let Ok(metadata) = file.metadata() else { return false };
    if !metadata.is_file() {
        return false;
    }
    let modified = metadata.modified().map(cap_std::time::SystemTime::into_std).unwrap_or_else(|_| SystemTime::now());
    let old = SystemTime::now().duration_since(modified).is_ok_and(|age| age >= GRACE);
    old && file.into_std().try_lock().is_ok()
}

/// A number no other temporary file of this or another process is likely to use.
fn suffix() -> u64 {
    static TAKEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let count = TAKEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    getrandom::u64().unwrap_or(0) ^ (u64::from(std::process::id()) << 32) ^ count
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
mod tests {
    use super::*;

    #[test]
    fn only_nibs_own_names_of_the_file_are_temporary() {
        assert!(is_temporary_of(".w.pen.0123456789abcdef.tmp", "w.pen"));
        assert!(is_temporary_of(".w.pen.Ab3xYz.tmp", "w.pen"), "tempfile's six characters, as nib wrote before");
        for other in [
            ".w.pen.tmp",
            ".w.pen..tmp",
            ".w.pen.abc.tmp",
            ".w.pen.0123456789abcdef0.tmp",
            ".w.pen.01234-6789.tmp",
            ".x.pen.0123456789abcdef.tmp",
            "w.pen.0123456789abcdef.tmp",
            ".w.pen.0123456789abcdef.tmp.png",
        ] {
            assert!(!is_temporary_of(other, "w.pen"), "{other}");
        }
    }

    #[test]
    fn the_file_a_temporary_file_is_for() {
        assert_eq!(temporary_for(".01-Card.png.0123456789abcdef.tmp"), Some("01-Card.png"));
        assert_eq!(temporary_for(".w.pen.Ab3xYz.tmp"), Some("w.pen"));
        assert_eq!(temporary_for(".0123456789abcdef.tmp"), None);
        assert_eq!(temporary_for("01-Card.png"), None);
    }

    #[test]
    fn debris_nobody_holds_is_swept_and_a_live_writers_file_is_not() {
        let root = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(root.path(), cap_std::ambient_authority()).unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        let age = |name: &str| {
            let file = std::fs::File::options().write(true).open(root.path().join(name)).unwrap();
            file.set_modified(old).unwrap();
        };
        for name in [".w.pen.00000000000000aa.tmp", ".w.pen.Ab3xYz.tmp", ".other.pen.00000000000000aa.tmp", "w.pen"] {
            std::fs::write(root.path().join(name), b"x").unwrap();
            age(name);
        }
        // A live writer's file: old, but locked.
        let (held, file) = create(&dir, Path::new("w.pen")).unwrap();
        age(&held.to_string_lossy());
        // A killed writer's file, but too young to be sure.
        std::fs::write(root.path().join(".w.pen.00000000000000bb.tmp"), b"x").unwrap();
        assert_eq!(sweep(&dir, OsStr::new("w.pen")), 2);
        let mut left: Vec<String> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected = vec![
            ".other.pen.00000000000000aa.tmp".to_owned(),
            ".w.pen.00000000000000bb.tmp".to_owned(),
            "w.pen".to_owned(),
        ];
        expected.push(held.to_string_lossy().into_owned());
        expected.sort();
        assert_eq!(left, expected);
        drop(file);
        assert_eq!(sweep(&dir, OsStr::new("w.pen")), 1, "its writer gone, the file is debris");
    }
}
