//! Who wrote a document file's bytes: a writer that names itself (`--as NAME`, an MCP client's
//! name) leaves its name on the file it saves, so that a server holding the document in memory
//! can say who changed it instead of "another writer".
//!
//! The name is an extended attribute of the file (`user.nib.writer`), set on the temporary file
//! before it is renamed over the document, so it arrives with the bytes in one step; it holds
//! the revision of those bytes, and is believed only while the file still has them (an editor
//! that rewrites the file in place keeps the attribute, and then the bytes differ). No file is
//! made beside the document, and a file system without extended attributes only loses the name.

use std::path::Path;

use super::Revision;

/// The attribute's name.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "ios"))]
const ATTRIBUTE: &str = "user.nib.writer";

/// Most characters of a writer's name: a person's or a program's name, not a message.
pub const MAX_WRITER_NAME_CHARS: usize = 64;

/// Most bytes of the attribute read back (a name, a program, a revision).
#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "ios"))]
const MAX_ATTRIBUTE_BYTES: usize = 1024;

/// A writer as it names itself: `alice`, through `nib apply`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Writer {
    /// The name it gave (`--as`, an MCP client's name), cleaned for display.
    pub name: String,
    /// The program it wrote through: `nib apply`, `nib serve`.
    pub via: String,
}

impl Writer {
    /// A writer called `name` writing through `via`: control characters become spaces, the name
    /// is trimmed and cut to [`MAX_WRITER_NAME_CHARS`]; an empty name is `unnamed`.
    pub fn new(name: &str, via: &str) -> Writer {
        Writer { name: clean(name, "unnamed"), via: clean(via, "nib") }
    }

    /// How answers name it: `alice (nib apply)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, self.via)
    }
}

fn clean(text: &str, otherwise: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .chars()
        .take(MAX_WRITER_NAME_CHARS)
        .collect();
    if cleaned.is_empty() { otherwise.to_owned() } else { cleaned }
}

/// Leaves `writer`'s name on `file` (the temporary file of a save, before its rename), with
/// the `revision` of the bytes written. A file system that keeps no extended attributes (or
/// refuses this one) keeps the save as it is: the name is a courtesy, never a reason to fail.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "ios"))]
pub fn mark_written(file: &std::fs::File, writer: &Writer, revision: Revision) {
    let value = serde_json::json!({ "name": writer.name, "via": writer.via, "revision": revision.to_string() });
    let value = value.to_string();
    // A failure is not the save's (a file system without user attributes, a full attribute
    // block): the file is saved all the same, only nameless.
    let _ = rustix::fs::fsetxattr(file, ATTRIBUTE, value.as_bytes(), rustix::fs::XattrFlags::empty());
}

/// Elsewhere there are no extended attributes: nothing is left.
#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "ios")))]
pub fn mark_written(_file: &std::fs::File, _writer: &Writer, _revision: Revision) {}

/// Who wrote the file at `path`, when it named itself and the file still holds the bytes of
/// `revision` (those it wrote); `None` otherwise.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "ios"))]
pub fn written_by(path: &Path, revision: Revision) -> Option<Writer> {
    let mut buffer = vec![0u8; MAX_ATTRIBUTE_BYTES];
    let read = rustix::fs::getxattr(path, ATTRIBUTE, &mut buffer[..]).ok()?;
    let value: serde_json::Value = serde_json::from_slice(buffer.get(..read)?).ok()?;
    let recorded = Revision::parse(value.get("revision")?.as_str()?)?;
    if recorded != revision {
        return None;
    }
    Some(Writer::new(value.get("name")?.as_str()?, value.get("via")?.as_str()?))
}

/// Elsewhere no writer is known.
#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "ios")))]
pub fn written_by(_path: &Path, _revision: Revision) -> Option<Writer> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cleaned_and_bounded() {
        assert_eq!(Writer::new("  alice\n", "nib apply").label(), "alice (nib apply)");
        assert_eq!(Writer::new("\u{1b}[31m", "nib exec").name, "[31m");
        assert_eq!(Writer::new("", "nib call").name, "unnamed");
        assert_eq!(Writer::new(&"x".repeat(500), "nib").name.chars().count(), MAX_WRITER_NAME_CHARS);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_name_is_believed_only_while_the_file_holds_the_bytes_it_wrote() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("d.pen");
        std::fs::write(&path, b"one").unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let writer = Writer::new("alice", "nib apply");
        mark_written(&file, &writer, Revision::of(b"one"));
        if rustix::fs::getxattr(&path, ATTRIBUTE, &mut [0u8; MAX_ATTRIBUTE_BYTES][..]).is_err() {
            return; // this file system keeps no user attributes: nothing to look at
        }
        assert_eq!(written_by(&path, Revision::of(b"one")), Some(writer));
        assert_eq!(written_by(&path, Revision::of(b"two")), None, "the bytes changed since");
    }
}
