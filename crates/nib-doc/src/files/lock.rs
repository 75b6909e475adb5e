//! One writer at a time per document: every read → change → write of a `.pen` file holds an
//! exclusive advisory lock on it, so a writer always changes the file as the last one left it.
//!
//! Four `nib apply` loops on one file acknowledged 200 inserts and kept 61; a server and the
//! command line overwrote each other's saves although the server looked for outside changes
//! (the look and the rename were two steps). Now:
//!
//! - The lock is `flock` on the document file itself (std's [`std::fs::File::lock`]), so no
//!   lock file is left beside the document and a killed holder's lock goes with its process.
//!   A save replaces the file (a new inode): the writer carries its lock over to the new file
//!   (it holds the temporary file's lock from its creation, see `temporary.rs`) and lets the
//!   old one go; a waiter that wakes on the old file sees the path names another file now and
//!   waits again, on that one. A document that does not exist yet is locked through its folder
//!   until it does.
//! - A writer waits its turn up to [`lock_wait`] (30 s, `NIB_LOCK_WAIT` seconds), then gives
//!   up with [`FileError::Busy`] naming the file.
//! - Writers that know nothing of the lock (an editor, the Pen app) are caught right before the
//!   rename: the file's identity, size and times are those seen when the lock was taken, or the
//!   write is refused ([`FileError::ChangedMeanwhile`]). What remains is the moment between that
//!   look and the rename.
//! - Within one process the lock is taken again freely by the thread that holds it (a command
//!   holds it for its whole run, and the save inside takes it too); other threads wait.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, MutexGuard};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use super::FileError;

/// How long a writer waits for another to finish with the same document by default.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

/// How long a writer waits: [`LOCK_WAIT`], or `NIB_LOCK_WAIT` seconds (`0.5`, `120`).
pub fn lock_wait() -> Duration {
    std::env::var("NIB_LOCK_WAIT")
        .ok()
        .and_then(|value| value.trim().trim_end_matches('s').parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
        .map_or(LOCK_WAIT, |seconds| Duration::from_secs_f64(seconds.min(86_400.0)))
}

/// Which file a handle or a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Identity {
    device: u64,
    inode: u64,
}

/// Which file, its size and its times: what an outside writer changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    identity: Identity,
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Stamp {
    #[cfg(unix)]
    pub(super) fn of(metadata: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            identity: Identity { device: metadata.dev(), inode: metadata.ino() },
            len: metadata.len(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }

    /// Elsewhere a file is known by its size and modification time only.
    #[cfg(not(unix))]
    pub(super) fn of(metadata: &std::fs::Metadata) -> Stamp {
        let modified = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or((0, 0), |d| (d.as_secs() as i64, i64::from(d.subsec_nanos())));
        Stamp { identity: Identity { device: 0, inode: 0 }, len: metadata.len(), modified, changed: modified }
    }

    pub(super) fn identity(&self) -> Identity {
        self.identity
    }
}

/// A lock this process holds.
struct Held {
    /// The thread that took it (others wait).
    owner: ThreadId,
    /// How many guards of that thread hold it.
    depth: usize,
    /// The locked handle: the document, or its folder while the document does not exist.
    file: std::fs::File,
    /// Which file is locked, and how it was when it was locked or last written by us; `None`
    /// for a folder lock.
    stamp: Option<Stamp>,
    /// The folder's identity for a folder lock.
    folder: Option<Identity>,
}

/// The locks this process holds, by the document's absolute path (links resolved).
fn held() -> MutexGuard<'static, HashMap<PathBuf, Held>> {
    static HELD: LazyLock<Mutex<HashMap<PathBuf, Held>>> = LazyLock::new(Mutex::default);
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// An exclusive hold on one document for a read → change → write; released when dropped.
#[derive(Debug)]
#[must_use = "the lock is released when this is dropped"]
pub struct DocumentLock {
    path: PathBuf,
}

impl DocumentLock {
    /// Takes the lock on the document at `path`, waiting up to [`lock_wait`] for another
    /// writer to finish. The thread that holds it already gets it again at once.
    pub fn acquire(path: &Path) -> Result<DocumentLock, FileError> {
        DocumentLock::acquire_within(path, lock_wait())
    }

    /// [`DocumentLock::acquire`], waiting at most `wait`.
    pub fn acquire_within(path: &Path, wait: Duration) -> Result<DocumentLock, FileError> {
        let key = super::output::absolute_resolved(path);
        let started = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match try_take(&key, path)? {
                Taken::Yes => return Ok(DocumentLock { path: key }),
                Taken::Busy if started.elapsed() >= wait => {
                    return Err(FileError::Busy { path: path.to_owned(), waited: started.elapsed() });
                }
                Taken::Busy => {}
                // The file changed under the lock (replaced, or created): look again at once.
                Taken::Moved => continue,
            }
            std::thread::sleep(pause.min(wait.saturating_sub(started.elapsed())));
            pause = (pause * 2).min(Duration::from_millis(25));
        }
    }

    /// The document's absolute path (links resolved).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DocumentLock {
    fn drop(&mut self) {
        let mut held = held();
        if let Some(entry) = held.get_mut(&self.path) {
            entry.depth = entry.depth.saturating_sub(1);
            if entry.depth == 0 {
                // Closing the handle lets the lock go.
                held.remove(&self.path);
            }
        }
    }
}

enum Taken {
    Yes,
    Busy,
    Moved,
}

/// One attempt at the lock of the document `key` (as given: `shown`).
fn try_take(key: &Path, shown: &Path) -> Result<Taken, FileError> {
    let me = std::thread::current().id();
    {
        let mut held = held();
        if let Some(entry) = held.get_mut(key) {
            if entry.owner != me {
                return Ok(Taken::Busy);
            }
            entry.depth += 1;
            return Ok(Taken::Yes);
        }
    }
    let (file, stamp, folder) = match open_document(key, shown)? {
        Some((file, stamp)) => (file, Some(stamp), None),
        None => {
            let parent = key.parent().unwrap_or(Path::new("/"));
            let file = std::fs::File::open(parent).map_err(|e| FileError::io(parent, e))?;
            let identity = Stamp::of(&file.metadata().map_err(|e| FileError::io(parent, e))?).identity;
            (file, None, Some(identity))
        }
    };
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(Taken::Busy),
        Err(std::fs::TryLockError::Error(e)) => return Err(FileError::io(shown, e)),
    }
    // Locked: is the path still that file (or still missing, for a folder lock)?
    let now = match std::fs::metadata(key) {
        Ok(metadata) => Some(Stamp::of(&metadata)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(FileError::io(shown, e)),
    };
    if now.map(|s| s.identity) != stamp.map(|s| s.identity) {
        return Ok(Taken::Moved);
    }
    let mut held = held();
    if held.contains_key(key) {
        // Another thread of this process took it meanwhile (the flock is per handle).
        return Ok(Taken::Busy);
    }
    held.insert(key.to_owned(), Held { owner: me, depth: 1, file, stamp: now, folder });
    Ok(Taken::Yes)
}

/// The document at `key` opened for locking with its stamp, or `None` when it does not exist.
fn open_document(key: &Path, shown: &Path) -> Result<Option<(std::fs::File, Stamp)>, FileError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Never waits for a writer, should the path turn out to be a FIFO.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = match options.open(key) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(FileError::io(shown, e)),
    };
    let metadata = file.metadata().map_err(|e| FileError::io(shown, e))?;
    if !metadata.is_file() {
        return Err(FileError::NotRegular { path: shown.to_owned(), kind: super::kind_of(metadata.file_type()) });
    }
    Ok(Some((file, Stamp::of(&metadata))))
}

/// Whether the lock `entry` of the document `key` is the lock of the file named `name` in the
/// folder `folder`, which is `existing` now (`None`: missing).
fn locks(key: &Path, entry: &Held, existing: Option<Stamp>, folder: Identity, name: &OsStr) -> bool {
    match entry.stamp {
        Some(locked) => existing.is_some_and(|now| now.identity == locked.identity),
        None => entry.folder == Some(folder) && key.file_name() == Some(name),
    }
}

/// Right before a write replaces the file `name` in the folder `folder` (which is `existing`
/// now; `None`: missing): refused when this process holds the document's lock and the file is
/// not as it was when the lock was taken or this process last wrote it — a writer that takes
/// no lock changed it meanwhile (or made it, when it was locked missing).
pub(super) fn check_before_replacing(
    existing: Option<Stamp>,
    folder: Identity,
    name: &OsStr,
    shown: &Path,
) -> Result<(), FileError> {
    let held = held();
    let changed = held.iter().any(|(key, entry)| {
        locks(key, entry, existing, folder, name)
            && match entry.stamp {
                Some(locked) => existing != Some(locked),
                None => existing.is_some(),
            }
    });
    if changed {
        return Err(FileError::ChangedMeanwhile { path: shown.to_owned() });
    }
    Ok(())
}

/// After a write renamed `new_file` over the file `name` in the folder `folder` (which was
/// `replaced`; `None`: it made the file): the document's lock, when this process holds it,
/// moves to the new file (locked since it was made as a temporary file), and the old handle is
/// closed, which lets waiters on it look again. Otherwise `new_file` is just closed.
pub(super) fn after_replacing(replaced: Option<Stamp>, folder: Identity, name: &OsStr, new_file: std::fs::File) {
    let Ok(metadata) = new_file.metadata() else { return };
    let mut held = held();
    let entry = held.iter_mut().find(|(key, entry)| locks(key, entry, replaced, folder, name)).map(|(_, e)| e);
    if let Some(entry) = entry {
        entry.file = new_file;
        entry.stamp = Some(Stamp::of(&metadata));
        entry.folder = None;
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_holding_thread_takes_it_again_and_another_waits_until_it_is_let_go() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("d.pen");
        std::fs::write(&path, "{}").unwrap();
        let outer = DocumentLock::acquire(&path).unwrap();
        let inner = DocumentLock::acquire(&path).expect("the same thread again");
        drop(inner);
        let other = std::thread::spawn({
            let path = path.clone();
            move || DocumentLock::acquire_within(&path, Duration::from_millis(100)).map(drop)
        });
        let refused = other.join().unwrap().unwrap_err();
        assert!(matches!(refused, FileError::Busy { .. }), "{refused}");
        assert!(refused.to_string().contains("d.pen"), "{refused}");
        drop(outer);
        let other = std::thread::spawn(move || DocumentLock::acquire_within(&path, Duration::from_secs(5)).map(drop));
        other.join().unwrap().expect("free once let go");
    }

    #[test]
    fn a_missing_document_is_locked_through_its_folder() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("new.pen");
        let lock = DocumentLock::acquire(&path).unwrap();
        assert!(!path.exists(), "nothing is created");
        drop(lock);
        assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 0, "no lock file is left");
    }
}
