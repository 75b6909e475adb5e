//! Reading files whole, safely: only regular files, and never more than a limit.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

use super::{FileError, kind_of};

/// The whole content of the regular file at `path` (symbolic links followed), at most `limit`
/// bytes. A FIFO, device, socket or folder is refused before it is opened for reading, so it
/// can neither block nor stream forever; the limit is enforced while reading too, because the
/// size the system reports can be wrong (procfs) or change while reading.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (file, size) = open_regular(path, limit)?;
    read_limited(file, limit, size).map_err(|e| match e {
        LimitedRead::Io(source) => FileError::io(path, source),
        LimitedRead::TooLarge => FileError::TooLarge { path: path.to_owned(), size: None, limit },
    })
}

/// Bytes [`read_regular_in_chunks`] reads at a time.
const CHUNK: usize = 64 * 1024;

/// Passes the content of the regular file at `path` to `each`, a chunk at a time, with the
/// checks of [`read_regular`]: for what needs to see every byte (a fingerprint) but not to
/// hold them all. Returns the size read.
pub fn read_regular_in_chunks(path: &Path, limit: u64, mut each: impl FnMut(&[u8])) -> Result<u64, FileError> {
    let (file, _) = open_regular(path, limit)?;
    let mut reader = file.take(limit.saturating_add(1));
    let mut buffer = vec![0; CHUNK];
    let mut total = 0u64;
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FileError::io(path, e)),
        };
        total += read as u64;
        if total > limit {
            return Err(FileError::TooLarge { path: path.to_owned(), size: None, limit });
        }
        each(&buffer[..read]);
    }
    Ok(total)
}

/// Opens the regular file at `path` for reading, refusing anything else and a size above
/// `limit` before reading; returns it with its size (capped at `limit`).
fn open_regular(path: &Path, limit: u64) -> Result<(File, usize), FileError> {
    let metadata = std::fs::metadata(path).map_err(|e| FileError::io(path, e))?;
    if !metadata.is_file() {
        return Err(FileError::NotRegular { path: path.to_owned(), kind: kind_of(metadata.file_type()) });
    }
    if metadata.len() > limit {
        return Err(FileError::TooLarge { path: path.to_owned(), size: Some(metadata.len()), limit });
    }
    let file = open_without_blocking(path).map_err(|e| FileError::io(path, e))?;
    // The path may have been swapped for something else since it was looked at.
    let opened = file.metadata().map_err(|e| FileError::io(path, e))?;
    if !opened.is_file() {
        return Err(FileError::NotRegular { path: path.to_owned(), kind: kind_of(opened.file_type()) });
    }
    let capacity = usize::try_from(opened.len().min(limit)).unwrap_or(0);
    Ok((file, capacity))
}

/// Why [`read_limited`] stopped.
#[derive(Debug)]
pub enum LimitedRead {
    /// Reading failed.
    Io(std::io::Error),
    /// There was more than the limit.
    TooLarge,
}

/// Everything `reader` gives, refused as soon as it passes `limit` bytes (a pipe or standard
/// input has no size to check first). `capacity` is the expected size, to allocate once.
pub fn read_limited(reader: impl Read, limit: u64, capacity: usize) -> Result<Vec<u8>, LimitedRead> {
    let mut bytes = Vec::with_capacity(capacity);
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(LimitedRead::Io)?;
    if bytes.len() as u64 > limit {
        return Err(LimitedRead::TooLarge);
    }
    Ok(bytes)
}

/// Opens for reading without waiting for a writer, should the path be a FIFO after all.
#[cfg(unix)]
fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)
}

#[cfg(not(unix))]
fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_folders_are_refused_before_reading() {
        let zero = read_regular(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(zero.to_string().contains("a character device"), "{zero}");
        let folder = tempfile::tempdir().unwrap();
        assert!(read_regular(folder.path(), 10).unwrap_err().to_string().contains("a folder"));
    }

    #[test]
    fn the_limit_holds_for_files_and_streams() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("a.pen");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_regular(&path, 10).unwrap(), b"0123456789");
        assert!(matches!(read_regular(&path, 9), Err(FileError::TooLarge { size: Some(10), limit: 9, .. })));
        assert!(matches!(read_limited(std::io::repeat(0), 1000, 0), Err(LimitedRead::TooLarge)));
        let mut seen = Vec::new();
        assert_eq!(read_regular_in_chunks(&path, 10, |chunk| seen.extend_from_slice(chunk)).unwrap(), 10);
        assert_eq!(seen, b"0123456789");
        assert!(matches!(read_regular_in_chunks(&path, 9, |_| {}), Err(FileError::TooLarge { size: Some(10), .. })));
    }
}
