//! Sharing documents with other writers: a call that changes a document holds the document's
//! lock from the moment it looks at the file until it has saved it, so it always works on the
//! file as the last writer left it; and when that is not what this session last read or wrote,
//! the answer says what the other writer changed.

use std::path::Path;

use super::ToolError;
use super::journal::Written;
use crate::doc::{Document, LastStep};
use crate::files::DocumentLock;

/// The tools that change documents: their calls hold the lock of each document they use.
pub(crate) const WRITING_TOOLS: &[&str] =
    &["open_document", "batch_design", "set_variables", "replace_all_matching_properties", "undo", "redo", "execute"];

/// The locks the running call holds.
#[derive(Debug, Default)]
pub(crate) struct CallLocks {
    /// Whether the running call changes documents (and so takes their locks).
    writing: bool,
    /// Whether it applies operations (an open_document only reads or creates).
    operations: bool,
    locks: Vec<DocumentLock>,
}

impl CallLocks {
    /// A call starts: it takes locks when it is a call of a writing tool.
    pub(crate) fn begin(&mut self, tool: &str) {
        self.locks.clear();
        self.writing = WRITING_TOOLS.contains(&tool);
        self.operations = self.writing && tool != "open_document";
    }

    /// Whether the running call applies operations to documents.
    pub(crate) fn applies_operations(&self) -> bool {
        self.operations
    }

    /// Whether the running call may change documents (and so must stay out of claims).
    pub(crate) fn writes(&self) -> bool {
        self.writing
    }

    /// The call ended (or failed, or panicked): every lock it took is let go.
    pub(crate) fn end(&mut self) {
        self.locks.clear();
        self.writing = false;
        self.operations = false;
    }

    /// Takes the lock of the document at `path` for the rest of the call, when the call writes
    /// and does not hold it yet. Waiting for another writer is not counted against the call's
    /// own time limits: nothing of the call has run yet.
    pub(crate) fn hold(&mut self, path: &Path) -> Result<(), ToolError> {
        if !self.writing || self.locks.iter().any(|lock| lock.path() == path) {
            return Ok(());
        }
        match DocumentLock::acquire(path) {
            Ok(lock) => self.locks.push(lock),
            Err(error @ crate::files::FileError::Busy { .. }) => {
                return Err(ToolError::new(error.to_string())
                    .with_hint("nothing was changed; call the tool again once the other writer has finished")
                    .caused_by(&error));
            }
            // A path that cannot be locked cannot be read either: reading it says why.
            Err(_) => {}
        }
        Ok(())
    }
}

/// What another writer changed in a document between this session's last look and now:
/// `3 nodes added, 1 node changed`, and the same counted for the journal.
pub(crate) fn what_changed(before: &Document, now: &Document, path: &Path) -> (String, Written) {
    let summary = crate::review::diff::diff(before, now).summary();
    let mut parts = Vec::new();
    let mut count = |n: usize, one: &str, many: &str| {
        if n > 0 {
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    };
    count(summary.added, "node added", "nodes added");
    count(summary.removed, "node removed", "nodes removed");
    count(summary.changed, "node changed", "nodes changed");
    count(summary.moved, "node moved", "nodes moved");
    count(summary.variables, "variable changed", "variables changed");
    count(summary.themes, "theme axis changed", "theme axes changed");
    let what = if parts.is_empty() { "no change to its content".to_owned() } else { parts.join(", ") };
    let written = Written {
        path: path.to_owned(),
        added: summary.added,
        changed: summary.changed,
        removed: summary.removed,
        moved: summary.moved,
        variables: summary.variables + summary.themes > 0,
        roots: Vec::new(),
        step: None,
    };
    (what, written)
}

/// What the step just saved did to `document`, counted for the journal, with the top-level
/// nodes it touched named as `'Hero' (hero)`.
pub(crate) fn what_was_written(document: &Document, last: LastStep, path: &Path) -> Written {
    let counts = document.last_step_counts(last);
    let tree = document.tree();
    let roots = counts
        .roots
        .iter()
        .map(|key| {
            let node = tree.node(*key);
            match node.props.name() {
                Some(name) => format!("'{name}' ({})", node.id()),
                None => format!("'{}'", node.id()),
            }
        })
        .collect();
    Written {
        path: path.to_owned(),
        added: counts.added,
        changed: counts.changed,
        removed: counts.removed,
        moved: counts.moved,
        variables: counts.header,
        roots,
        step: None,
    }
}

/// The sentence an answer carries when the file changed on disk since this session last read
/// or wrote it: what the other writer changed (`what`), who (`author`: its name when it left
/// one), and that the call worked on the file as it is now.
pub(crate) fn outside_change_note(path: &Path, what: &str, author: &str, writing: bool) -> String {
    let then = if writing {
        "your operations were applied to the current document"
    } else {
        "this answer shows the current document"
    };
    format!(
        "{} changed on disk since your last call: {what}, by {author}; {then} (undo does not go back past that change).",
        path.display()
    )
}
