//! Editing a Document: transactions of primitive changes, each with its inverse, and the undo
//! history built from them.
//!
//! Every edit is one of three primitives: link a subtree under a parent, unlink it, or set a
//! property. Removed nodes stay in the arena, detached, so the keys in the log keep naming them;
//! undoing a removal links the very same nodes back. Rolling back costs as much as the changes
//! made, never a copy of the document.

use super::document::{Document, Header};
use super::node::NodeTree;
use super::props::{Key, Value};
use super::tree::NodeKey;

/// Most transactions kept for undo.
pub(crate) const HISTORY_LIMIT: usize = 200;

/// Why an edit was refused. Nothing was changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EditError {
    /// A node would be moved into its own subtree.
    #[error("node '{0}' cannot be moved into its own subtree")]
    Cycle(String),
    /// A new node's id is already used.
    #[error("the id '{0}' is already used by another node")]
    DuplicateId(String),
    /// A node without an id or type cannot enter the tree.
    #[error("a node needs a type and an id to enter the document")]
    Incomplete,
}

/// One primitive change, with what is needed to apply it in either direction.
#[derive(Debug, Clone)]
pub(crate) enum Change {
    /// `node` (with its subtree) was linked as child `index` of `parent`.
    Link { node: NodeKey, parent: Option<NodeKey>, index: usize },
    /// `node` was unlinked from child `index` of `parent`.
    Unlink { node: NodeKey, parent: Option<NodeKey>, index: usize },
    /// A property of `node` changed; `before` keeps the old position to restore key order.
    SetProp { node: NodeKey, key: Key, before: Option<(usize, Value)>, after: Option<Value> },
    /// The document-level keys changed (variables, themes, imports).
    SetHeader { before: Box<Header>, after: Box<Header> },
}

/// The undo and redo stacks of a document.
#[derive(Debug, Clone, Default)]
pub(crate) struct History {
    done: Vec<Vec<Change>>,
    undone: Vec<Vec<Change>>,
    /// Transactions committed since loading, to find the ones after a [`HistoryMark`].
    commits: u64,
}

/// The point in a document's history where a group of transactions starts: see
/// [`Document::join_since`] and [`Document::undo_since`].
#[derive(Debug, Clone)]
pub struct HistoryMark {
    commits: u64,
    /// The redo stack as it was: the group's first commit clears it, and undoing the group
    /// gives it back.
    undone: Vec<Vec<Change>>,
}

/// When each top-level subtree and the document-level keys last changed, so that data derived
/// per top-level node (resolved scene parts, layouts) is rebuilt only where something changed.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChangeMarks {
    roots: std::collections::HashMap<NodeKey, u64>,
    header: u64,
}

/// Which step [`Document::last_touches`] and [`Document::last_step_counts`] look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastStep {
    /// The step made last: a commit, or a redo.
    Made,
    /// The step undone last.
    Undone,
}

/// One node-level change of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// A property of the node changed.
    Set(NodeKey),
    /// The node, with its subtree, was linked under `parent` or unlinked from it (`None`: the
    /// top level).
    Placed {
        /// The node.
        node: NodeKey,
        /// Where it was linked or unlinked.
        parent: Option<NodeKey>,
    },
    /// The variables, themes or imports changed.
    Header,
}

/// What a step did, counted (see [`Document::last_step_counts`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StepCounts {
    /// Nodes added, subtrees counted whole.
    pub added: usize,
    /// Nodes removed, subtrees counted whole.
    pub removed: usize,
    /// Nodes whose properties changed (not counting nodes the step added).
    pub changed: usize,
    /// Nodes moved to another parent or place.
    pub moved: usize,
    /// Whether the variables, themes or imports changed.
    pub header: bool,
    /// The top-level nodes the step touched, in the order first touched (a removed top-level
    /// node is named by its own key: it stays in the arena).
    pub roots: Vec<NodeKey>,
}

/// A group of edits that takes effect together. Dropping it without [`Transaction::commit`]
/// rolls every change back, leaving the document exactly as it was.
pub struct Transaction<'a> {
    document: &'a mut Document,
    log: Vec<Change>,
    committed: bool,
}

impl Document {
    /// Starts a transaction.
    pub fn transaction(&mut self) -> Transaction<'_> {
        Transaction { document: self, log: Vec::new(), committed: false }
    }

    /// Counts committed changes: it rises with every commit, undo and redo. Derived data
    /// (resolved scenes, layouts) is cached per revision.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Makes this document, read again from disk, continue the revision count of the one it
    /// replaces: whoever cached an answer at the old revision (the page of `nib serve`, an agent
    /// comparing answers) sees a new one.
    pub fn follow_revision_of(&mut self, replaced: &Document) {
        self.revision = replaced.revision + 1;
    }

    /// The revision at which the top-level subtree `root` last changed (its nodes, its place
    /// among the top-level nodes) or the document-level keys (variables, themes, imports) did,
    /// whichever is later. 0 for what has not changed since loading.
    pub fn changed_at(&self, root: NodeKey) -> u64 {
        self.changes.roots.get(&root).copied().unwrap_or(0).max(self.changes.header)
    }

    /// True when there is a transaction to undo.
    pub fn can_undo(&self) -> bool {
        !self.history.done.is_empty()
    }

    /// True when there is an undone transaction to redo.
    pub fn can_redo(&self) -> bool {
        !self.history.undone.is_empty()
    }

    /// Marks where a group of transactions (one `execute` call) starts.
    pub fn history_mark(&self) -> HistoryMark {
        HistoryMark { commits: self.history.commits, undone: self.history.undone.clone() }
    }

    /// True when a transaction was committed since `mark` (and not discarded).
    pub fn committed_since(&self, mark: &HistoryMark) -> bool {
        self.history.commits > mark.commits
    }

    /// Folds every transaction committed since `mark` into one undo step. Called after each
    /// transaction of a group, the group never holds more than one entry of the history, so
    /// the history's limit cannot cut it in two.
    pub fn join_since(&mut self, mark: &HistoryMark) {
        let history = &mut self.history;
        let since = (history.commits.saturating_sub(mark.commits) as usize).min(history.done.len());
        if since < 2 {
            return;
        }
        // The newer logs are appended to the group's first: collecting the whole group into a
        // new list on every call made a call of n operations cost n² (87 % of a 30,000-insert
        // snippet's time).
        let newer = history.done.split_off(history.done.len() - since + 1);
        if let Some(first) = history.done.last_mut() {
            first.extend(newer.into_iter().flatten());
        }
        history.commits = mark.commits + 1;
    }

    /// Undoes every transaction committed since `mark` and forgets it (it cannot be redone);
    /// the redo stack is as it was at the mark.
    pub fn undo_since(&mut self, mark: HistoryMark) {
        let since = (self.history.commits.saturating_sub(mark.commits) as usize).min(self.history.done.len());
        if since == 0 {
            return;
        }
        for _ in 0..since {
            let Some(log) = self.history.done.pop() else { break };
            for change in log.into_iter().rev() {
                self.apply(change, Direction::Backward);
            }
        }
        self.history.commits = mark.commits;
        self.history.undone = mark.undone;
        self.revision += 1;
    }

    /// What the step `undo` would take back (or, with `redo`, the step redo would make again)
    /// did, in a sentence: `inserted 3 nodes (a, b, c); changed fill on 1 node (d)`.
    pub fn describe_step(&self, redo: bool) -> Option<String> {
        let log = if redo { self.history.undone.last()? } else { self.history.done.last()? };
        Some(self.describe(log))
    }

    fn describe(&self, log: &[Change]) -> String {
        let mut linked: Vec<NodeKey> = Vec::new();
        let mut unlinked: Vec<NodeKey> = Vec::new();
        let mut keys: Vec<&str> = Vec::new();
        let mut changed: Vec<NodeKey> = Vec::new();
        let mut header = false;
        for change in log {
            match change {
                Change::Link { node, .. } => linked.push(*node),
                Change::Unlink { node, .. } => unlinked.push(*node),
                // A children list set is how linking records itself in some cases: said as such.
                Change::SetProp { key: Key::Children, .. } => {}
                Change::SetProp { node, key, .. } => {
                    if !keys.contains(&key.name()) {
                        keys.push(key.name());
                    }
                    if !changed.contains(node) {
                        changed.push(*node);
                    }
                }
                Change::SetHeader { .. } => header = true,
            }
        }
        let mut moved: Vec<NodeKey> = linked.iter().filter(|k| unlinked.contains(k)).copied().collect();
        moved.dedup();
        let only = |list: &[NodeKey]| -> Vec<NodeKey> {
            let mut kept: Vec<NodeKey> = Vec::new();
            for key in list.iter().filter(|k| !moved.contains(k)) {
                if !kept.contains(key) {
                    kept.push(*key);
                }
            }
            kept
        };
        let (inserted, removed) = (only(&linked), only(&unlinked));
        // Properties set on nodes the step inserted are part of inserting them.
        let changed: Vec<NodeKey> = changed.into_iter().filter(|k| !inserted.contains(k)).collect();
        let named = |keys: &[NodeKey]| -> String {
            let ids: Vec<&str> = keys.iter().take(5).map(|k| self.tree().node(*k).id()).collect();
            let more = if keys.len() > 5 { format!(", and {} more", keys.len() - 5) } else { String::new() };
            let plural = if keys.len() == 1 { "" } else { "s" };
            format!("{} node{plural} ({}{more})", keys.len(), ids.join(", "))
        };
        let mut parts = Vec::new();
        if !inserted.is_empty() {
            parts.push(format!("inserted {}", named(&inserted)));
        }
        if !removed.is_empty() {
            parts.push(format!("deleted {}", named(&removed)));
        }
        if !moved.is_empty() {
            parts.push(format!("moved {}", named(&moved)));
        }
        if !changed.is_empty() {
            parts.push(format!("changed {} on {}", keys.join(", "), named(&changed)));
        }
        if header {
            parts.push("changed the variables, themes or imports".to_owned());
        }
        if parts.is_empty() { "changed nothing".to_owned() } else { parts.join("; ") }
    }

    /// What the last step changed, node by node: the step made last (a commit or a redo) or the
    /// step undone last. Claims are checked against it before a save, and the summaries other
    /// writers get are counted from it.
    pub fn last_touches(&self, which: LastStep) -> Vec<Touch> {
        let log = match which {
            LastStep::Made => self.history.done.last(),
            LastStep::Undone => self.history.undone.last(),
        };
        log.into_iter()
            .flatten()
            .filter_map(|change| match change {
                // Linking records a `children` key on a parent that had none: the link says it.
                Change::SetProp { key: Key::Children, .. } => None,
                Change::SetProp { node, .. } => Some(Touch::Set(*node)),
                Change::Link { node, parent, .. } | Change::Unlink { node, parent, .. } => {
                    Some(Touch::Placed { node: *node, parent: *parent })
                }
                Change::SetHeader { .. } => Some(Touch::Header),
            })
            .collect()
    }

    /// What the last step did, counted: nodes added and removed (whole subtrees), changed and
    /// moved, whether the variables, themes or imports changed, and the top-level nodes it
    /// touched (in the order first touched).
    pub fn last_step_counts(&self, which: LastStep) -> StepCounts {
        let log = match which {
            LastStep::Made => self.history.done.last(),
            LastStep::Undone => self.history.undone.last(),
        };
        // An undone step's links are unlinks now, and the other way round.
        let undone = matches!(which, LastStep::Undone);
        let mut linked: Vec<NodeKey> = Vec::new();
        let mut unlinked: Vec<NodeKey> = Vec::new();
        let mut set: Vec<NodeKey> = Vec::new();
        let mut counts = StepCounts::default();
        let root = |key: NodeKey, roots: &mut Vec<NodeKey>| {
            let top = self.tree.root_of(key);
            if !roots.contains(&top) {
                roots.push(top);
            }
        };
        for change in log.into_iter().flatten() {
            match change {
                Change::SetProp { key: Key::Children, .. } => {}
                Change::SetProp { node, .. } => {
                    set.push(*node);
                    root(*node, &mut counts.roots);
                }
                Change::Link { node, parent, .. } | Change::Unlink { node, parent, .. } => {
                    let is_link = matches!(change, Change::Link { .. }) != undone;
                    if is_link {
                        linked.push(*node)
                    } else {
                        unlinked.push(*node)
                    }
                    root(parent.unwrap_or(*node), &mut counts.roots);
                }
                Change::SetHeader { .. } => counts.header = true,
            }
        }
        let moved: std::collections::HashSet<NodeKey> =
            linked.iter().filter(|k| unlinked.contains(k)).copied().collect();
        // The nodes of the subtrees under `keys`, without nodes moved into them (counted apart).
        let nodes = |keys: &[NodeKey]| -> std::collections::HashSet<NodeKey> {
            let mut found = std::collections::HashSet::new();
            let mut stack: Vec<NodeKey> = keys.iter().filter(|k| !moved.contains(k)).copied().collect();
            while let Some(key) = stack.pop() {
                if found.insert(key) {
                    stack.extend(self.tree.node(key).children().iter().filter(|c| !moved.contains(c)));
                }
            }
            found
        };
        let inserted = nodes(&linked);
        counts.added = inserted.len();
        counts.removed = nodes(&unlinked).len();
        counts.moved = moved.len();
        let mut changed: Vec<NodeKey> = set.into_iter().filter(|k| !inserted.contains(k)).collect();
        changed.sort_unstable();
        changed.dedup();
        counts.changed = changed.len();
        counts
    }

    /// Takes back the last committed transaction and forgets it: it cannot be redone, and the
    /// redo stack stays as it was. For a change refused after it was made (a claimed node it
    /// touched) that must leave no trace in the history.
    pub fn discard_last(&mut self) -> bool {
        let Some(log) = self.history.done.pop() else { return false };
        for change in log.into_iter().rev() {
            self.apply(change, Direction::Backward);
        }
        self.history.commits = self.history.commits.saturating_sub(1);
        self.revision += 1;
        true
    }

    /// After a group of transactions since `mark` (joined into one step) was taken back with
    /// [`Document::undo`] — a save that failed reverts its step that way — forgets it: it cannot
    /// be redone, and the redo stack is as it was at the mark.
    pub fn forget_undone(&mut self, mark: HistoryMark) {
        self.history.commits = mark.commits;
        self.history.undone = mark.undone;
    }

    /// Undoes the last committed transaction. Returns false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(log) = self.history.done.pop() else { return false };
        for change in log.iter().rev() {
            self.apply(change.clone(), Direction::Backward);
        }
        self.history.undone.push(log);
        self.revision += 1;
        true
    }

    /// Redoes the last undone transaction. Returns false when there is none.
    pub fn redo(&mut self) -> bool {
        let Some(log) = self.history.undone.pop() else { return false };
        for change in &log {
            self.apply(change.clone(), Direction::Forward);
        }
        self.history.done.push(log);
        self.revision += 1;
        true
    }

    fn apply(&mut self, change: Change, direction: Direction) {
        self.mark(&change, direction);
        // The id index reads ids from the nodes: a node whose id changes is indexed again.
        let reindex = match &change {
            Change::SetProp { node, key: Key::Id, .. } if self.is_linked(*node) => Some(*node),
            _ => None,
        };
        if let Some(node) = reindex {
            self.ids.remove(&self.tree, self.tree.node(node).id());
        }
        self.apply_to_tree(change, direction);
        if let Some(node) = reindex {
            self.ids.insert(&self.tree, node);
        }
    }

    /// True when `node` is in the document tree (not detached, as removed nodes are).
    fn is_linked(&self, node: NodeKey) -> bool {
        self.tree.roots().contains(&self.tree.root_of(node))
    }

    fn apply_to_tree(&mut self, change: Change, direction: Direction) {
        match (change, direction) {
            (Change::Link { node, parent, index }, Direction::Forward)
            | (Change::Unlink { node, parent, index }, Direction::Backward) => self.link_subtree(node, parent, index),
            (Change::Link { node, .. }, Direction::Backward) | (Change::Unlink { node, .. }, Direction::Forward) => {
                self.unlink_subtree(node);
            }
            (Change::SetProp { node, key, after, .. }, Direction::Forward) => {
                let props = &mut self.tree.node_mut(node).props;
                match after {
                    Some(value) => {
                        props.set_in_pencil_order(key, value);
                    }
                    None => {
                        props.remove(&key);
                    }
                }
            }
            (Change::SetProp { node, key, before, .. }, Direction::Backward) => {
                let props = &mut self.tree.node_mut(node).props;
                match before {
                    Some((index, value)) => match props.get_mut(&key) {
                        Some(slot) => *slot = value,
                        None => props.insert_at(index, key, value),
                    },
                    None => {
                        props.remove(&key);
                    }
                }
            }
            (Change::SetHeader { after, .. }, Direction::Forward) => self.header = *after,
            (Change::SetHeader { before, .. }, Direction::Backward) => self.header = *before,
        }
    }

    /// Notes which top-level subtree `change` touches, as changed in the revision it belongs to
    /// (a rolled-back change marks it too: a cache then rebuilds once more than needed).
    fn mark(&mut self, change: &Change, direction: Direction) {
        let stamp = self.revision + 1;
        let touched = match (change, direction) {
            (Change::SetHeader { .. }, _) => {
                self.changes.header = stamp;
                return;
            }
            (Change::SetProp { node, .. }, _) => self.tree.root_of(*node),
            // Linking: the subtree joins its parent's root, or becomes a root itself.
            (Change::Link { node, parent, .. }, Direction::Forward)
            | (Change::Unlink { node, parent, .. }, Direction::Backward) => {
                parent.map_or(*node, |parent| self.tree.root_of(parent))
            }
            // Unlinking: the root the subtree leaves (itself when it is top-level).
            (Change::Link { node, .. }, Direction::Backward) | (Change::Unlink { node, .. }, Direction::Forward) => {
                self.tree.root_of(*node)
            }
        };
        self.changes.roots.insert(touched, stamp);
    }

    /// Links `node` and indexes the ids of its subtree.
    fn link_subtree(&mut self, node: NodeKey, parent: Option<NodeKey>, index: usize) {
        self.tree.link(node, parent, index);
        let keys: Vec<NodeKey> = self.tree.subtree(node).collect();
        for key in keys {
            self.ids.insert(&self.tree, key);
        }
    }

    /// Unlinks `node` and drops the ids of its subtree from the index.
    fn unlink_subtree(&mut self, node: NodeKey) -> (Option<NodeKey>, usize) {
        for key in self.tree.subtree(node) {
            self.ids.remove(&self.tree, self.tree.node(key).id());
        }
        self.tree.unlink(node)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Direction {
    Forward,
    Backward,
}

impl Transaction<'_> {
    /// The document as the transaction has changed it so far.
    pub fn document(&self) -> &Document {
        self.document
    }

    /// True when nothing has changed yet.
    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
    }

    fn record(&mut self, change: Change) {
        self.document.apply(change.clone(), Direction::Forward);
        self.log.push(change);
    }

    /// Inserts `tree` as child `index` of `parent` (`None`: top level; the index is clamped,
    /// `usize::MAX` appends). Every node needs a type and an id, and ids must be new.
    pub fn insert(&mut self, parent: Option<NodeKey>, index: usize, tree: NodeTree) -> Result<NodeKey, EditError> {
        let mut seen = std::collections::HashSet::new();
        check_new_ids(&tree, self.document, &mut seen)?;
        let node = self.document.tree.add_tree(tree);
        self.link(node, parent, index);
        Ok(node)
    }

    /// Links a detached node; a parent that gains its first child gets a `children` key where
    /// JavaScript would put it: last.
    fn link(&mut self, node: NodeKey, parent: Option<NodeKey>, index: usize) {
        if let Some(parent) = parent
            && !self.document.tree.node(parent).props.contains(&Key::Children)
        {
            self.set(parent, Key::Children, Some(Value::Children));
        }
        let index = index.min(self.document.tree.children_of(parent).len());
        self.record(Change::Link { node, parent, index });
    }

    /// Removes `node` and its subtree.
    pub fn remove(&mut self, node: NodeKey) {
        let parent = self.document.tree.node(node).parent();
        let index = self.document.tree.index_in_parent(node);
        self.record(Change::Unlink { node, parent, index });
    }

    /// Moves `node` to child `index` of `parent` (clamped; `usize::MAX` appends). The index
    /// counts the new siblings without the node itself.
    pub fn move_node(&mut self, node: NodeKey, parent: Option<NodeKey>, index: usize) -> Result<(), EditError> {
        if let Some(parent) = parent
            && self.document.tree.is_ancestor(node, parent)
        {
            return Err(EditError::Cycle(self.document.tree.node(node).id().to_owned()));
        }
        let tree = &self.document.tree;
        let current = tree.index_in_parent(node);
        let last = tree.children_of(parent).len().saturating_sub(1);
        if tree.node(node).parent() == parent && index.min(last) == current {
            // Already there: recording it would leave an undo step that does nothing.
            return Ok(());
        }
        self.remove(node);
        self.link(node, parent, index);
        Ok(())
    }

    /// Sets (`Some`) or removes (`None`) a property of `node`; returns the previous value.
    /// `type`, `id` and `children` are structural and are changed by replacing nodes instead.
    pub fn set(&mut self, node: NodeKey, key: Key, value: Option<Value>) -> Option<Value> {
        let props = &self.document.tree.node(node).props;
        let before = props.iter().enumerate().find(|(_, (k, _))| **k == key).map(|(i, (_, v))| (i, v.clone()));
        if before.as_ref().map(|(_, v)| v) == value.as_ref() {
            // Nothing changes: recording it would leave an undo step that does nothing.
            return before.map(|(_, v)| v);
        }
        let previous = before.as_ref().map(|(_, v)| v.clone());
        self.record(Change::SetProp { node, key, before, after: value });
        previous
    }

    /// Replaces the document-level keys (variables, themes, imports) through `edit`.
    pub fn edit_header(&mut self, edit: impl FnOnce(&mut HeaderEdit<'_>)) {
        let before = Box::new(self.document.header.clone());
        let mut after = before.clone();
        edit(&mut HeaderEdit { header: &mut after });
        self.record(Change::SetHeader { before, after });
    }

    /// Makes the changes permanent and undoable; returns the new revision.
    pub fn commit(mut self) -> u64 {
        self.committed = true;
        let log = std::mem::take(&mut self.log);
        if !log.is_empty() {
            let history = &mut self.document.history;
            history.undone.clear();
            history.done.push(log);
            history.commits += 1;
            if history.done.len() > HISTORY_LIMIT {
                history.done.remove(0);
            }
            self.document.revision += 1;
        }
        self.document.revision
    }

    /// Undoes every change of this transaction.
    pub fn rollback(self) {
        // Dropping does it.
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        for change in std::mem::take(&mut self.log).into_iter().rev() {
            self.document.apply(change, Direction::Backward);
        }
    }
}

/// Mutable access to the document-level keys inside [`Transaction::edit_header`].
pub struct HeaderEdit<'a> {
    header: &'a mut Header,
}

impl HeaderEdit<'_> {
    /// The variables, created empty if the document has none.
    pub fn variables(&mut self) -> &mut super::values::Variables {
        self.header.variables_mut()
    }

    /// The theme axes, created empty if the document has none.
    pub fn themes(&mut self) -> &mut super::values::Themes {
        self.header.themes_mut()
    }

    /// The import aliases, created empty if the document has none.
    pub fn imports(&mut self) -> &mut super::values::Imports {
        self.header.imports_mut()
    }

    /// Sets the version string written at the top of the file (`None` removes it).
    pub fn set_version(&mut self, version: Option<String>) {
        self.header.set_version(version);
    }
}

fn check_new_ids(
    tree: &NodeTree,
    document: &Document,
    seen: &mut std::collections::HashSet<String>,
) -> Result<(), EditError> {
    let (Some(id), Some(_)) = (tree.props.id(), tree.props.node_type()) else {
        return Err(EditError::Incomplete);
    };
    if document.node_by_id(id).is_some() || !seen.insert(id.to_owned()) {
        return Err(EditError::DuplicateId(id.to_owned()));
    }
    tree.children.iter().try_for_each(|child| check_new_ids(child, document, seen))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::NodeType;
    use crate::doc::convert::VarOr;

    const TEXT: &str = "{\n  \"version\": \"2.8\",\n  \"children\": [\n    {\n      \"type\": \"frame\",\n      \"id\": \"a\",\n      \"width\": 10,\n      \"children\": [\n        {\n          \"type\": \"text\",\n          \"id\": \"b\"\n        }\n      ]\n    },\n    {\n      \"type\": \"frame\",\n      \"id\": \"c\"\n    }\n  ]\n}";

    fn node(node_type: NodeType, id: &str) -> NodeTree {
        let mut tree = NodeTree::default();
        tree.props.set(Key::Type, Value::NodeType(node_type));
        tree.props.set(Key::Id, Value::Text(id.into()));
        tree
    }

    fn edit_everything(document: &mut Document) -> Transaction<'_> {
        let a = document.node_by_id("a").unwrap();
        let b = document.node_by_id("b").unwrap();
        let c = document.node_by_id("c").unwrap();
        let mut tx = document.transaction();
        tx.set(a, Key::Width, None);
        tx.set(a, Key::Height, Some(Value::Number(VarOr::Value(4.0))));
        tx.set(c, Key::Name, Some(Value::Text("x".into())));
        tx.remove(b);
        let mut new = node(NodeType::Frame, "n");
        new.children.push(node(NodeType::Text, "m"));
        let n = tx.insert(Some(c), usize::MAX, new).unwrap();
        tx.move_node(a, Some(n), 0).unwrap();
        tx
    }

    #[test]
    fn an_id_set_as_a_property_is_found_by_it_and_undone() {
        let mut document = Document::load(TEXT).unwrap().document;
        let b = document.node_by_id("b").unwrap();
        let mut tx = document.transaction();
        tx.set(b, Key::Id, Some(Value::Text("renamed".into())));
        tx.commit();
        assert_eq!((document.node_by_id("renamed"), document.node_by_id("b")), (Some(b), None));
        document.undo();
        assert_eq!((document.node_by_id("renamed"), document.node_by_id("b")), (None, Some(b)));
    }

    #[test]
    fn rollback_restores_the_exact_bytes() {
        let mut document = Document::load(TEXT).unwrap().document;
        let tx = edit_everything(&mut document);
        assert_ne!(tx.document().to_pen_string(), TEXT);
        drop(tx);
        assert_eq!(document.to_pen_string(), TEXT);
        assert_eq!(document.node_by_id("n"), None);
        assert!(document.node_by_id("b").is_some());
        assert_eq!(document.revision(), 0);
    }

    #[test]
    fn undo_and_redo_walk_the_history() {
        let mut document = Document::load(TEXT).unwrap().document;
        let revision = edit_everything(&mut document).commit();
        assert_eq!(revision, 1);
        let edited = document.to_pen_string();
        assert!(edited.contains("\"id\": \"n\""));
        assert!(document.undo());
        assert_eq!(document.to_pen_string(), TEXT);
        assert!(!document.undo());
        assert!(document.redo());
        assert_eq!(document.to_pen_string(), edited);
        assert_eq!(document.revision(), 3);
        assert_eq!(document.node_by_id("m").map(|k| document.tree().node(k).id()), Some("m"));
    }

    #[test]
    fn the_last_step_is_counted_both_ways_and_names_what_it_touched() {
        let mut document = Document::load(TEXT).unwrap().document;
        edit_everything(&mut document).commit();
        let c = document.node_by_id("c").unwrap();
        let made = document.last_step_counts(LastStep::Made);
        assert_eq!((made.added, made.removed, made.changed, made.moved, made.header), (2, 1, 2, 1, false));
        assert_eq!(made.roots, [c], "everything ended up in c");
        let touches = document.last_touches(LastStep::Made);
        assert!(touches.contains(&Touch::Set(document.node_by_id("a").unwrap())));
        assert!(touches.contains(&Touch::Placed { node: document.node_by_id("n").unwrap(), parent: Some(c) }));
        document.undo();
        let undone = document.last_step_counts(LastStep::Undone);
        assert_eq!((undone.added, undone.removed, undone.changed, undone.moved), (1, 2, 2, 1));
        assert!(document.last_touches(LastStep::Made).is_empty());
    }

    #[test]
    fn a_discarded_step_leaves_no_trace_and_a_forgotten_group_cannot_be_redone() {
        let mut document = Document::load(TEXT).unwrap().document;
        let a = document.node_by_id("a").unwrap();
        let mut tx = document.transaction();
        tx.set(a, Key::Name, Some(Value::Text("kept".into())));
        tx.commit();
        let mark = document.history_mark();
        let mut tx = document.transaction();
        tx.set(a, Key::Name, Some(Value::Text("refused".into())));
        tx.commit();
        assert!(document.discard_last());
        assert!(document.to_pen_string().contains("kept") && !document.can_redo());
        document.join_since(&mark);
        // A group made after the mark, undone by a failed save, then forgotten.
        let mut tx = document.transaction();
        tx.set(a, Key::Name, Some(Value::Text("group".into())));
        tx.commit();
        document.join_since(&mark);
        document.undo();
        document.forget_undone(mark);
        assert!(!document.can_redo(), "the forgotten group is not redone");
        assert!(document.to_pen_string().contains("kept"), "and the step before it stays");
        assert!(document.undo() && !document.to_pen_string().contains("kept"));
    }

    #[test]
    fn a_new_commit_clears_redo() {
        let mut document = Document::load(TEXT).unwrap().document;
        let a = document.node_by_id("a").unwrap();
        let mut tx = document.transaction();
        tx.set(a, Key::Name, Some(Value::Text("one".into())));
        tx.commit();
        document.undo();
        let mut tx = document.transaction();
        tx.set(a, Key::Name, Some(Value::Text("two".into())));
        tx.commit();
        assert!(!document.can_redo());
    }

    #[test]
    fn refused_edits_change_nothing() {
        let mut document = Document::load(TEXT).unwrap().document;
        let a = document.node_by_id("a").unwrap();
        let b = document.node_by_id("b").unwrap();
        let mut tx = document.transaction();
        assert_eq!(tx.move_node(a, Some(b), 0), Err(EditError::Cycle("a".into())));
        assert_eq!(tx.insert(None, 0, node(NodeType::Frame, "c")), Err(EditError::DuplicateId("c".into())));
        assert_eq!(tx.insert(None, 0, NodeTree::default()), Err(EditError::Incomplete));
        assert!(tx.is_empty());
    }

    #[test]
    fn changes_to_the_same_state_are_not_recorded() {
        let mut document = Document::load(TEXT).unwrap().document;
        let a = document.node_by_id("a").unwrap();
        let c = document.node_by_id("c").unwrap();
        let mut tx = document.transaction();
        tx.set(a, Key::Width, Some(Value::Size(VarOr::Value(crate::doc::values::Sizing::Fixed(10.0)))));
        tx.set(a, Key::Height, None);
        tx.move_node(c, None, 1).unwrap();
        tx.move_node(c, None, 7).unwrap();
        assert!(tx.is_empty());
        assert_eq!(tx.commit(), 0);
        assert!(!document.can_undo());
    }

    #[test]
    fn a_leaf_that_gains_children_gets_a_children_key() {
        let mut document = Document::load(TEXT).unwrap().document;
        let c = document.node_by_id("c").unwrap();
        let mut tx = document.transaction();
        tx.insert(Some(c), 0, node(NodeType::Text, "t")).unwrap();
        tx.commit();
        assert!(document.to_pen_string().contains("\"id\": \"c\",\n      \"children\": [\n        {"));
    }

    #[test]
    fn a_group_of_transactions_is_one_undo_step_or_undone_whole() {
        let mut document = Document::load(TEXT).unwrap().document;
        let a = document.node_by_id("a").unwrap();
        let c = document.node_by_id("c").unwrap();
        let width = |w: f64| Some(Value::Number(VarOr::Value(w)));
        let mut earlier = document.transaction();
        earlier.set(c, Key::Name, Some(Value::Text("earlier".into())));
        earlier.commit();
        let before_group = document.to_pen_string();
        let mark = document.history_mark();
        for w in [2.0, 3.0, 4.0] {
            let mut tx = document.transaction();
            tx.set(a, Key::Width, width(w));
            tx.commit();
            document.join_since(&mark);
        }
        let after_group = document.to_pen_string();
        assert!(document.undo());
        assert_eq!(document.to_pen_string(), before_group, "one step undid the whole group and nothing before it");
        assert!(document.redo());
        assert_eq!(document.to_pen_string(), after_group);
        let mark = document.history_mark();
        for w in [5.0, 6.0] {
            let mut tx = document.transaction();
            tx.set(a, Key::Width, width(w));
            tx.commit();
            document.join_since(&mark);
        }
        document.undo_since(mark);
        assert_eq!(document.to_pen_string(), after_group);
        assert!(document.undo());
        assert_eq!(document.to_pen_string(), before_group);
    }

    #[test]
    fn a_step_says_what_it_did() {
        let mut document = Document::load(TEXT).unwrap().document;
        edit_everything(&mut document).commit();
        let said = document.describe_step(false).unwrap();
        assert_eq!(
            said,
            "inserted 1 node (n); deleted 1 node (b); moved 1 node (a); changed width, height, name on 2 nodes (a, c)"
        );
        document.undo();
        assert_eq!(document.describe_step(true).as_deref(), Some(said.as_str()), "redo would make the same step");
    }
}
