//! Counting what a writer prints against the limits the reader holds a document to, so that a
//! save never writes a file nib would then refuse to open.
//!
//! The reader refuses a text over its size, more `children` items than its node limit, nesting
//! deeper than [`super::MAX_DEPTH`] and more unknown keys than it keeps (`doc::Document::load`).
//! Edits can cross every one of these from a small, valid file: a `C()` doubling a long text
//! thirteen times made a 676 MB file that saved with success and then did not open. The meter
//! counts the same four amounts while the text is printed and stops the write at the first one
//! past its limit; the atomic write then leaves the old file as it was.

/// The amounts a saved document may reach: the reader's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriteLimits {
    /// Most bytes of text.
    pub bytes: u64,
    /// Most items of all `children` arrays together (nodes, those in overrides included).
    pub nodes: usize,
    /// Deepest nesting of arrays and objects.
    pub depth: usize,
    /// Most keys nib does not know.
    pub unknown_keys: usize,
}

/// The limit a write went past, with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OverLimit {
    /// The text would be larger than the reader reads.
    #[error("the document would be more than {limit} bytes ({}) as a file, the most nib reads", mib(*limit))]
    Bytes {
        /// The limit, in bytes.
        limit: u64,
    },
    /// More nodes than a document may hold.
    #[error("the document would hold more than {limit} nodes, the most one document may hold")]
    Nodes {
        /// The limit.
        limit: usize,
    },
    /// Nested deeper than the reader reads.
    #[error("the document would nest more than {limit} levels of JSON, the most nib reads")]
    Depth {
        /// The limit.
        limit: usize,
    },
    /// More unknown keys than the reader keeps.
    #[error("the document would hold more than {limit} keys nib does not know, the most one document may hold")]
    UnknownKeys {
        /// The limit.
        limit: usize,
    },
}

impl OverLimit {
    /// What to do about it, for an agent or a person.
    pub fn hint(&self) -> &'static str {
        match self {
            OverLimit::Bytes { .. } => {
                "the change copies too much (long texts, paths or large subtrees duplicated): copy less, shorten the long values, or split the design into several files (a library of components can be imported with \"imports\")"
            }
            OverLimit::Nodes { .. } => {
                "copy or insert fewer nodes, use instances of one component instead of copies, or split the design into several files"
            }
            OverLimit::Depth { .. } => "nest fewer levels: move deep content up, or make a component of it",
            OverLimit::UnknownKeys { .. } => {
                "the change copies nodes holding keys nib does not know; remove those keys (nib check lists them) before copying"
            }
        }
    }
}

/// `256 MiB`, or bytes when the limit is not whole mebibytes.
fn mib(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { format!("{} MiB", bytes >> 20) } else { format!("{bytes} bytes") }
}

/// The counts of one write. Kept by a [`super::JsonWriter`] made with limits.
#[derive(Debug)]
pub(super) struct Meter {
    limits: WriteLimits,
    /// Bytes passed on so far.
    bytes: u64,
    nodes: usize,
    unknown_keys: usize,
    /// For each open container, whether it is the array of a `children` key.
    children_arrays: Vec<bool>,
    /// The last key written was `children`: an array opened next holds nodes.
    after_children_key: bool,
    /// The first limit gone past.
    pub(super) over: Option<OverLimit>,
}

impl Meter {
    pub(super) fn new(limits: WriteLimits) -> Meter {
        Meter {
            limits,
            bytes: 0,
            nodes: 0,
            unknown_keys: 0,
            children_arrays: Vec::new(),
            after_children_key: false,
            over: None,
        }
    }

    fn stop(&mut self, over: OverLimit) {
        if self.over.is_none() {
            self.over = Some(over);
        }
    }

    /// A key was written (`quoted`: with its quotes, as raw keys come). The container opened
    /// next, if any, is its value; a scalar value is followed by another key or a close.
    pub(super) fn key(&mut self, key: &str, quoted: bool) {
        self.after_children_key = if quoted { key == "\"children\"" } else { key == "children" };
    }

    /// A key nib does not know was written.
    pub(super) fn unknown_key(&mut self) {
        self.unknown_keys += 1;
        if self.unknown_keys > self.limits.unknown_keys {
            self.stop(OverLimit::UnknownKeys { limit: self.limits.unknown_keys });
        }
    }

    /// A value starts: an item when the innermost container is a `children` array and the
    /// value is not a member's (`member` tells).
    pub(super) fn value(&mut self, member: bool) {
        if !member && self.children_arrays.last() == Some(&true) {
            self.nodes += 1;
            if self.nodes > self.limits.nodes {
                self.stop(OverLimit::Nodes { limit: self.limits.nodes });
            }
        }
    }

    /// A container opened (after [`Meter::value`]); `array` tells which kind.
    pub(super) fn open(&mut self, array: bool) {
        self.children_arrays.push(array && self.after_children_key);
        self.after_children_key = false;
        if self.children_arrays.len() > self.limits.depth {
            self.stop(OverLimit::Depth { limit: self.limits.depth });
        }
    }

    /// The innermost container closed.
    pub(super) fn close(&mut self) {
        self.children_arrays.pop();
        self.after_children_key = false;
    }

    /// `len` more bytes were passed on.
    pub(super) fn passed_on(&mut self, len: usize) {
        self.bytes = self.bytes.saturating_add(len as u64);
        if self.bytes > self.limits.bytes {
            self.stop(OverLimit::Bytes { limit: self.limits.bytes });
        }
    }
}
