//! What each writer changed, so that every answer can tell a session what the others changed
//! since its last call: sessions of one server share its documents in memory, and without it
//! an agent learns of another's work only by reading the whole document again.
//!
//! Each committed write is one entry: the document, who made it, what it did counted (nodes
//! added, changed, removed, moved; variables), and the top-level nodes it touched. A change
//! another program made on disk is an entry too, when a session reloads the document. The
//! entries are kept in a ring; a session remembers the last one it was told of.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

/// Most writes remembered: a session that did not call while more were made is told that the
/// older ones are not listed.
pub const MAX_JOURNAL_ENTRIES: usize = 512;

/// Most characters of the summary one answer carries.
pub const MAX_SUMMARY_CHARS: usize = 800;

/// Most top-level nodes named per writer and document in a summary.
const NAMED_ROOTS: usize = 4;

/// One committed write (or a change found on disk), counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Written {
    /// The document (absolute path).
    pub path: PathBuf,
    /// Nodes added, subtrees counted whole.
    pub added: usize,
    /// Nodes whose properties changed.
    pub changed: usize,
    /// Nodes removed, subtrees counted whole.
    pub removed: usize,
    /// Nodes moved.
    pub moved: usize,
    /// Whether the variables, themes or imports changed.
    pub variables: bool,
    /// The top-level nodes touched, as `Hero (hero)`.
    pub roots: Vec<String>,
    /// An undo or redo, said as such.
    pub step: Option<&'static str>,
}

/// A write in the journal.
#[derive(Debug, Clone)]
struct Entry {
    number: u64,
    /// Who made it, as others see them.
    author: String,
    /// Its session (`None` for a change found on disk).
    session: Option<String>,
    /// The session that found a change on disk (its answer said so already).
    noticed_by: Option<String>,
    written: Written,
}

/// The writes of a server's sessions, and how far each session has been told.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    entries: VecDeque<Entry>,
    next: u64,
    /// Per session, the number of the next entry it has not been told of.
    told: HashMap<String, u64>,
}

impl Journal {
    /// Records a write `session` made as `author`.
    pub fn record(&mut self, session: &str, author: &str, written: Written) {
        self.push(Entry {
            number: self.next,
            author: author.to_owned(),
            session: Some(session.to_owned()),
            noticed_by: None,
            written,
        });
    }

    /// Records a change another program made on disk (`author`: its name when it left one),
    /// found by the session `noticed_by` (whose answer said so already), or by no session.
    pub fn record_outside(&mut self, author: &str, noticed_by: Option<&str>, written: Written) {
        self.push(Entry {
            number: self.next,
            author: author.to_owned(),
            session: None,
            noticed_by: noticed_by.map(str::to_owned),
            written,
        });
    }

    fn push(&mut self, entry: Entry) {
        self.next += 1;
        self.entries.push_back(entry);
        while self.entries.len() > MAX_JOURNAL_ENTRIES {
            self.entries.pop_front();
        }
    }

    /// Forgets how far `session` was told (it ended).
    pub fn forget(&mut self, session: &str) {
        self.told.remove(session);
    }

    /// What writers other than `session` changed since its last call, in one line (`None`
    /// when nothing); `shown` names a document as answers do. The session is told of
    /// everything up to now. Its first call starts the count.
    pub fn news_for(&mut self, session: &str, shown: impl Fn(&PathBuf) -> String) -> Option<String> {
        // A session's first call starts its count: it was told nothing before.
        let from = self.told.insert(session.to_owned(), self.next)?;
        let oldest = self.entries.front().map_or(self.next, |e| e.number);
        let news: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.number >= from)
            .filter(|e| e.session.as_deref() != Some(session) && e.noticed_by.as_deref() != Some(session))
            .collect();
        let lost = from < oldest;
        if news.is_empty() && !lost {
            return None;
        }
        // Gathered per writer and document, in the order they first wrote.
        let mut groups: Vec<(&str, &PathBuf, Vec<&Written>)> = Vec::new();
        for entry in &news {
            match groups.iter_mut().find(|(a, p, _)| *a == entry.author && **p == entry.written.path) {
                Some((_, _, list)) => list.push(&entry.written),
                None => groups.push((&entry.author, &entry.written.path, vec![&entry.written])),
            }
        }
        let mut line = String::from("Since your last call: ");
        let mut said = 0;
        for (author, path, writes) in &groups {
            let part = describe(author, &shown(path), writes);
            if said > 0 && line.len() + part.len() + 2 > MAX_SUMMARY_CHARS {
                break;
            }
            if said > 0 {
                line.push_str("; ");
            }
            line.push_str(&part);
            said += 1;
        }
        if said < groups.len() {
            line.push_str(&format!("; and {} more writers or documents", groups.len() - said));
        }
        if lost {
            if !news.is_empty() {
                line.push_str("; ");
            }
            line.push_str("older changes by others are not listed (more than ");
            line.push_str(&MAX_JOURNAL_ENTRIES.to_string());
            line.push_str(" writes since your last call)");
        }
        line.push('.');
        Some(line)
    }
}

/// `claude-code#1 changed design.pen (2 writes): 3 nodes added, 1 changed, in 'Hero' (hero)`.
fn describe(author: &str, document: &str, writes: &[&Written]) -> String {
    let sum = |f: fn(&Written) -> usize| writes.iter().map(|w| f(w)).sum::<usize>();
    let mut parts = Vec::new();
    let mut count = |n: usize, what: &str| {
        if n > 0 {
            parts.push(format!("{n} {}{what}", if n == 1 { "node " } else { "nodes " }));
        }
    };
    count(sum(|w| w.added), "added");
    count(sum(|w| w.changed), "changed");
    count(sum(|w| w.removed), "removed");
    count(sum(|w| w.moved), "moved");
    if writes.iter().any(|w| w.variables) {
        parts.push("variables or themes changed".to_owned());
    }
    let steps: Vec<&str> = writes.iter().filter_map(|w| w.step).collect();
    if !steps.is_empty() {
        let undos = steps.iter().filter(|s| **s == "undo").count();
        let redos = steps.len() - undos;
        if undos > 0 {
            parts.push(format!("{undos} undo{}", if undos == 1 { "" } else { "s" }));
        }
        if redos > 0 {
            parts.push(format!("{redos} redo{}", if redos == 1 { "" } else { "s" }));
        }
    }
    if parts.is_empty() {
        parts.push("no node changed".to_owned());
    }
    let mut roots: Vec<&str> = Vec::new();
    for root in writes.iter().flat_map(|w| &w.roots) {
        if !roots.contains(&root.as_str()) {
            roots.push(root);
        }
    }
    let mut text = format!(
        "{author} changed {document}{}: {}",
        if writes.len() > 1 { format!(" ({} writes)", writes.len()) } else { String::new() },
        parts.join(", ")
    );
    if !roots.is_empty() {
        let named: Vec<&str> = roots.iter().take(NAMED_ROOTS).copied().collect();
        text.push_str(&format!(", in {}", named.join(", ")));
        if roots.len() > NAMED_ROOTS {
            text.push_str(&format!(" and {} more", roots.len() - NAMED_ROOTS));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(added: usize, root: &str) -> Written {
        Written { path: "/d.pen".into(), added, roots: vec![root.to_owned()], ..Written::default() }
    }

    #[test]
    fn a_session_hears_of_the_others_writes_once_and_never_of_its_own() {
        let mut journal = Journal::default();
        let shown = |p: &PathBuf| p.display().to_string();
        assert_eq!(journal.news_for("b", shown), None, "the first call starts the count");
        journal.news_for("a", shown);
        journal.record("a", "agent-a", written(3, "'Hero' (hero)"));
        journal.record("a", "agent-a", written(1, "'Footer' (footer)"));
        journal.record("b", "agent-b", written(5, "'Other' (other)"));
        let news = journal.news_for("b", shown).unwrap();
        assert_eq!(
            news,
            "Since your last call: agent-a changed /d.pen (2 writes): 4 nodes added, in 'Hero' (hero), 'Footer' (footer)."
        );
        assert_eq!(journal.news_for("b", shown), None, "told once");
        assert!(journal.news_for("a", shown).unwrap().contains("agent-b changed /d.pen: 5 nodes added"));
        journal.record_outside("alice (nib apply)", Some("a"), written(1, "'X' (x)"));
        assert_eq!(journal.news_for("a", shown), None, "the session that found it was told in its note");
        assert!(journal.news_for("b", shown).unwrap().contains("alice (nib apply) changed /d.pen: 1 node added"));
    }

    #[test]
    fn a_summary_stays_short_and_says_what_it_left_out() {
        let mut journal = Journal::default();
        let shown = |p: &PathBuf| p.display().to_string();
        journal.news_for("b", shown);
        for writer in 0..(MAX_JOURNAL_ENTRIES + 10) {
            journal.record(
                &format!("s{writer}"),
                &format!("writer-with-a-long-name-{writer}"),
                written(1, "'Hero' (hero)"),
            );
        }
        let news = journal.news_for("b", shown).unwrap();
        assert!(news.len() <= MAX_SUMMARY_CHARS + 200, "{} characters", news.len());
        assert!(news.contains("more writers or documents") && news.contains("older changes by others are not listed"));
    }
}
