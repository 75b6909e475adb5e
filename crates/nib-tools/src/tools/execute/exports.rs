//! The files one call's `Export`s wrote: counted against the call's limit, listed compactly in
//! its answer, and — when the call is undone — the ones it created removed, so an undone call
//! leaves the folder as it found it where it can. A file that replaced one already there is
//! kept (the one it replaced is gone either way) and listed as kept.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::tools::WrittenFile;

/// How many files an answer lists by name; the rest are counted.
pub const MAX_LISTED_FILES: usize = 10;

/// The files a call's exports wrote, in order.
#[derive(Default)]
pub(super) struct Exports {
    files: Vec<WrittenFile>,
    /// Paths (as answered) whose first write in this call created them.
    created: Vec<String>,
    seen: HashSet<String>,
}

impl Exports {
    /// How many files were written (a file written twice counts twice: it was work done twice).
    pub(super) fn count(&self) -> usize {
        self.files.len()
    }

    /// Notes the files one `Export` wrote.
    pub(super) fn add(&mut self, files: &[WrittenFile]) {
        for file in files {
            if self.seen.insert(file.path.clone()) && !file.replaced {
                self.created.push(file.path.clone());
            }
            self.files.push(file.clone());
        }
    }

    /// The first files written, for an answer, and how many there were when that is more.
    pub(super) fn listed(&mut self) -> (Vec<WrittenFile>, Option<usize>) {
        let count = self.files.len();
        let mut files = std::mem::take(&mut self.files);
        files.truncate(MAX_LISTED_FILES);
        (files, (count > MAX_LISTED_FILES).then_some(count))
    }

    /// Removes the files the call created (its answer's paths are against `root`, or
    /// absolute) and says what was removed and what was kept, for the error of an undone call.
    pub(super) fn undo(&mut self, root: &Path) -> Option<(String, Value)> {
        if self.files.is_empty() {
            return None;
        }
        let created: HashSet<&str> = self.created.iter().map(String::as_str).collect();
        let mut removed = 0usize;
        for path in &self.created {
            if crate::files::remove_unwanted(&absolute(root, path)) {
                removed += 1;
            }
        }
        let mut kept: Vec<&str> = Vec::new();
        for file in &self.files {
            if !created.contains(file.path.as_str()) && !kept.contains(&file.path.as_str()) {
                kept.push(&file.path);
            }
        }
        let mut said = String::new();
        if removed > 0 {
            said.push_str(&format!("\nThe {removed} files its exports created were removed."));
        }
        if !kept.is_empty() {
            said.push_str(&format!(
                "\n{} files its exports wrote over files already there were kept (what they replaced is gone): {}",
                kept.len(),
                names(&kept)
            ));
        }
        let shown: Vec<&str> = kept.iter().take(MAX_LISTED_FILES).copied().collect();
        let data = json!({ "removed": removed, "kept": kept.len(), "keptFiles": shown });
        self.files.clear();
        Some((said, data))
    }
}

fn absolute(root: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() { path.to_owned() } else { root.join(path) }
}

/// The first few names and how many more: `a.png, b.png (+3 more)`.
pub(super) fn names(paths: &[&str]) -> String {
    let mut text = paths.iter().take(MAX_LISTED_FILES).copied().collect::<Vec<_>>().join(", ");
    if paths.len() > MAX_LISTED_FILES {
        text.push_str(&format!(" (+{} more)", paths.len() - MAX_LISTED_FILES));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, replaced: bool) -> WrittenFile {
        WrittenFile { path: path.into(), bytes: 1, node_id: None, replaced }
    }

    #[test]
    fn created_files_are_removed_and_replaced_ones_kept_and_named() {
        let folder = tempfile::tempdir().unwrap();
        for name in ["new.png", "old.png"] {
            std::fs::write(folder.path().join(name), b"x").unwrap();
        }
        let mut exports = Exports::default();
        // Written twice: the second write found the call's own file; it is still the call's.
        exports.add(&[file("new.png", false), file("old.png", true), file("new.png", true)]);
        assert_eq!(exports.count(), 3);
        let (said, data) = exports.undo(folder.path()).unwrap();
        assert!(!folder.path().join("new.png").exists());
        assert!(folder.path().join("old.png").exists());
        assert!(said.contains("The 1 files its exports created were removed"), "{said}");
        assert!(said.contains("1 files its exports wrote over files already there were kept"), "{said}");
        assert_eq!(data["keptFiles"], json!(["old.png"]));
    }

    #[test]
    fn an_answer_lists_the_first_files_and_counts_them_all() {
        let mut exports = Exports::default();
        let many: Vec<WrittenFile> = (0..25).map(|i| file(&format!("{i}.png"), false)).collect();
        exports.add(&many);
        let (listed, count) = exports.listed();
        assert_eq!((listed.len(), count), (MAX_LISTED_FILES, Some(25)));
        let paths: Vec<&str> = many.iter().map(|f| f.path.as_str()).collect();
        assert!(names(&paths).ends_with("(+15 more)"));
    }
}
