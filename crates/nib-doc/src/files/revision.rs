//! A file's revision: a short name for the exact bytes a document file holds, which a writer
//! quotes to say which version it built on (`--if-revision`, `ifRevision`). The in-memory
//! revision counter of an open document says how often it changed in one process; this one
//! is the same in every process and on every machine for the same bytes.

use std::fmt;

use crate::hash::WordHash;

/// How many hexadecimal digits a revision has: 48 bits, so two versions of a document share
/// one by chance once in 2^48 (git's short hashes are shorter). Not a defence against someone
/// making a collision on purpose: it guards a writer against building on a version it did not
/// see, not against an attacker who may write the file anyway.
pub const REVISION_DIGITS: usize = 12;

/// The revision of a file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Revision(u64);

impl Revision {
    /// The revision of `bytes`.
    pub fn of(bytes: &[u8]) -> Revision {
        let mut hash = WordHash::default();
        hash.add(bytes);
        Revision::of_hash(&hash)
    }

    /// The revision of the bytes `hash` took in (as they were read or written, in pieces).
    pub fn of_hash(hash: &WordHash) -> Revision {
        Revision(hash.finish() >> (64 - 4 * REVISION_DIGITS))
    }

    /// Reads a revision as [`Revision`]'s `Display` writes it (letter case aside); `None` for
    /// anything else.
    pub fn parse(text: &str) -> Option<Revision> {
        let text = text.trim();
        if text.len() != REVISION_DIGITS || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(text, 16).ok().map(Revision)
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:0width$x}", self.0, width = REVISION_DIGITS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revision_names_the_bytes_and_reads_back() {
        let one = Revision::of(b"{\"version\": \"2.6\", \"children\": []}");
        let mut pieces = WordHash::default();
        pieces.add(b"{\"version\": \"2.6\", ");
        pieces.add(b"\"children\": []}");
        assert_eq!(Revision::of_hash(&pieces), one, "read in pieces or whole");
        assert_ne!(Revision::of(b"{\"version\": \"2.6\", \"children\": [ ]}"), one);
        let shown = one.to_string();
        assert_eq!(shown.len(), REVISION_DIGITS);
        assert_eq!(Revision::parse(&shown), Some(one));
        assert_eq!(Revision::parse(&shown.to_uppercase()), Some(one));
        assert_eq!(Revision::parse("xyz"), None);
        assert_eq!(Revision::parse(&format!("{shown}0")), None);
    }
}
