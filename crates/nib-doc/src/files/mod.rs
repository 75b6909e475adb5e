//! Files on disk, handled the same way by every part of nib that reads or writes them: only
//! regular files, sizes bounded while reading, writes that are atomic and keep the file's mode
//! and owner, and a [`Confinement`] that keeps paths inside one folder, checked when the file is
//! used (not once when it is named).
//!
//! Special files are refused before anything else happens: opening a FIFO would block, reading
//! `/dev/zero` would never end, and replacing a device with a regular file destroys it.

mod confine;
mod lock;
mod output;
mod read;
mod revision;
mod temporary;
mod tree;
mod walk;
mod write;
mod writer;

use std::path::PathBuf;

pub use confine::{Confinement, lexical_normal, resolve_links};
pub use lock::{DocumentLock, LOCK_WAIT, lock_wait};
pub use output::{MAX_SCANNED_ENTRIES, OutputFolder, OutputGuard, Standing, glance_into};
pub use read::{LimitedRead, read_limited, read_regular, read_regular_in_chunks};
pub use revision::{REVISION_DIGITS, Revision};
pub use tree::{Links, Tree};
pub use walk::{
    ListLimits, PathKind, WalkError, WalkRules, canonical, canonical_root, find_files, first_sight,
    is_missing_or_empty, list_unlinked, path_kind,
};
pub use write::{create_folder, remove_unwanted, write_atomic, write_atomic_with, write_output, write_unlinked};
pub use writer::{MAX_WRITER_NAME_CHARS, Writer, mark_written, written_by};

/// Whether a write waits until the disk holds the new file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Documents and anything only nib holds: flushed before the rename, the folder after it.
    Durable,
    /// Outputs made from the documents again at will: readers still see the old file or the
    /// whole new one; only a power cut right after may lose the new one. Waiting for the disk
    /// (two fsyncs) took 17 of the 64 ms of a whole `nib render --node` process.
    Replaceable,
}

/// Why a file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The operating system refused or failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A FIFO, device, socket or folder where a regular file was expected.
    #[error(
        "{} is {kind}, not a regular file: nib reads and writes only regular files (give the path of a .pen file)",
        path.display()
    )]
    NotRegular {
        /// The path as given (or the file a symbolic link leads to).
        path: PathBuf,
        /// What it is instead, e.g. "a FIFO (named pipe)".
        kind: &'static str,
    },
    /// Larger than the caller reads.
    #[error("{} is {} bytes; the limit is {limit} bytes", path.display(), size.map_or_else(|| "more than the limit of".to_owned(), |s| s.to_string()))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, when the system knew it before reading.
        size: Option<u64>,
        /// The most that is read.
        limit: u64,
    },
    /// The file has no write permission; nib respects that instead of replacing it.
    #[error(
        "{} is read-only (mode {mode:o}); nib does not overwrite it: make it writable (chmod u+w) if it should change",
        path.display()
    )]
    ReadOnly {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// An output path that would replace a document, or does not name a file of the format.
    #[error("{} cannot be written: {reason}", path.display())]
    OutputRefused {
        /// The output path as given.
        path: PathBuf,
        /// Why, with what to write instead.
        reason: String,
    },
    /// A symbolic link where nib writes into a tree it does not follow links in (the goldens
    /// and diff images of `nib snapshot`, the pictures of `nib diff -o`): such a tree holds
    /// files a contributor controls, and a link could send a write anywhere.
    #[error(
        "{} is a symbolic link, and nib follows no link here: these files are under others' control (remove the link, or point the option at a real folder)",
        path.display()
    )]
    Link {
        /// The link.
        path: PathBuf,
    },
    /// Something in an output folder an export must not write through or over: a symbolic
    /// link (it could send the write anywhere), a FIFO, a device or a socket.
    #[error(
        "{} is {kind} in the output folder {}: an export writes no file through a link or over a special file (remove it, or export into another folder)",
        path.display(),
        folder.display()
    )]
    InOutputFolder {
        /// What is in the way.
        path: PathBuf,
        /// What it is, in words.
        kind: &'static str,
        /// The output folder.
        folder: PathBuf,
    },
    /// Another writer held the document's lock for as long as this one waits.
    #[error(
        "{} is being changed by another nib process (a command, a server or an agent's session); nib waited {:.0} s for it to finish, and nothing was done: try again when it has finished (NIB_LOCK_WAIT=SECONDS waits longer)",
        path.display(),
        waited.as_secs_f64()
    )]
    Busy {
        /// The document.
        path: PathBuf,
        /// How long this writer waited.
        waited: std::time::Duration,
    },
    /// A program that takes no lock (an editor, the Pen app) changed the document while this
    /// writer held it.
    #[error(
        "{} was changed by a program that does not take nib's lock (an editor, the Pen app) while nib was changing it; nothing was saved, so that change is kept: run this again to change the file as it is now",
        path.display()
    )]
    ChangedMeanwhile {
        /// The document.
        path: PathBuf,
    },
    /// The path, with symbolic links resolved at the moment of use, leads outside the folder
    /// nib may use.
    #[error(
        "{} is outside the folder nib works in ({}): use a path inside it (symbolic links that lead out are not followed)",
        path.display(),
        root.display()
    )]
    Outside {
        /// The path as given.
        path: PathBuf,
        /// The folder everything must stay in.
        root: PathBuf,
    },
}

impl FileError {
    /// The I/O error for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> FileError {
        FileError::Io { path: path.into(), source }
    }

    /// True when the file (or a folder on the way) does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// What a file that is not regular is, in words (for cap-std's metadata).
fn kind_of_cap(metadata: &cap_std::fs::Metadata) -> &'static str {
    let file_type = metadata.file_type();
    #[cfg(unix)]
    {
        use cap_std::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// What a file that is not regular is, in words.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}
