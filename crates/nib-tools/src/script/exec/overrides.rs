//! Edits inside instances. A node inside an instance is changed by writing the instance's
//! `descendants`: a property override keyed by the node's id path, a replacement node, or the
//! children of a slot. Content the instance already owns (a replacement, a slot's children) is
//! edited in place. Each edit is one recorded change of the instance's `descendants`.

use std::collections::HashSet;

use super::{Runner, Step, StepError};
use crate::doc::{Descendants, Key, NodeTree, Value};
use crate::resolve::InstanceNode;
use crate::resolve::components::find_in_overrides_mut;

impl Runner<'_, '_> {
    /// Runs `edit` on a copy of the instance's overrides, with the ids already taken there,
    /// then records the result as one change.
    pub(super) fn edit_overrides<T>(
        &mut self,
        target: &InstanceNode,
        edit: impl FnOnce(&mut Self, &mut Descendants, &mut HashSet<String>) -> Step<T>,
    ) -> Step<T> {
        self.note_before(target.instance);
        let props = &self.tx.document().tree().node(target.instance).props;
        let mut descendants = match props.get(&Key::Descendants) {
            Some(Value::Descendants(d)) => d.clone(),
            _ => Descendants::default(),
        };
        let mut taken = HashSet::new();
        for (_, tree) in descendants.0.iter() {
            collect_ids(tree, &mut taken);
        }
        let result = edit(self, &mut descendants, &mut taken)?;
        let value = (!descendants.0.is_empty()).then_some(Value::Descendants(descendants));
        self.tx.set(target.instance, Key::Descendants, value);
        self.touch(target.instance);
        Ok(result)
    }
}

fn collect_ids(tree: &NodeTree, ids: &mut HashSet<String>) {
    if let Some(id) = tree.props.id() {
        ids.insert(id.to_owned());
    }
    for child in &tree.children {
        collect_ids(child, ids);
    }
}

/// The tree an edit of `target` changes: the node itself when the instance owns it, else the
/// override entry for its key (created empty).
pub(super) fn target_tree<'a>(descendants: &'a mut Descendants, target: &InstanceNode) -> &'a mut NodeTree {
    // Found first as a path (no borrow held), then walked: a found-or-created choice on one
    // mutable borrow does not pass the borrow checker.
    let path = if target.in_overrides { path_in_overrides(descendants, &target.id) } else { None };
    let Some((first, rest)) = path.as_deref().and_then(<[usize]>::split_first) else {
        return entry(descendants, &target.override_key);
    };
    let mut tree = &mut descendants.0.entries[*first].1;
    for index in rest {
        tree = &mut tree.children[*index];
    }
    tree
}

/// Where the node `id` is in override content (as `find_in_overrides_mut` finds it): the index
/// of its entry, then the index of each child on the way down.
fn path_in_overrides(descendants: &Descendants, id: &str) -> Option<Vec<usize>> {
    fn search(tree: &NodeTree, id: &str, path: &mut Vec<usize>) -> bool {
        if tree.props.id() == Some(id) && tree.props.node_type().is_some() {
            return true;
        }
        for (index, child) in tree.children.iter().enumerate() {
            path.push(index);
            if search(child, id, path) {
                return true;
            }
            path.pop();
        }
        false
    }
    descendants.0.entries.iter().enumerate().find_map(|(index, (_, tree))| {
        let mut path = vec![index];
        search(tree, id, &mut path).then_some(path)
    })
}

/// The override entry for `key`, created empty when missing.
pub(super) fn entry<'a>(descendants: &'a mut Descendants, key: &str) -> &'a mut NodeTree {
    let entries = &mut descendants.0.entries;
    let index = match entries.iter().position(|(k, _)| k == key) {
        Some(index) => index,
        None => {
            entries.push((key.to_owned(), NodeTree::default()));
            entries.len() - 1
        }
    };
    &mut entries[index].1
}

/// Replaces the node the instance owns with id `id`, or the entry for `key`, by `tree`.
pub(super) fn replace(descendants: &mut Descendants, target: &InstanceNode, tree: NodeTree) {
    match find_in_overrides_mut(descendants, &target.id).filter(|_| target.in_overrides) {
        Some(existing) => *existing = tree,
        None => *entry(descendants, &target.override_key) = tree,
    }
}

/// Removes the instance-owned node `id`; false when there is none.
pub(super) fn remove_owned(descendants: &mut Descendants, id: &str) -> bool {
    fn remove_child(tree: &mut NodeTree, id: &str) -> bool {
        if let Some(index) =
            tree.children.iter().position(|c| c.props.id() == Some(id) && c.props.node_type().is_some())
        {
            tree.children.remove(index);
            return true;
        }
        tree.children.iter_mut().any(|child| remove_child(child, id))
    }
    let entries = &mut descendants.0.entries;
    if let Some(index) = entries.iter().position(|(_, t)| t.is_replacement() && t.props.id() == Some(id)) {
        entries.remove(index);
        return true;
    }
    entries.iter_mut().any(|(_, tree)| remove_child(tree, id))
}

/// Appends `child` to the children of `tree` (a slot: its children replace the component's).
pub(super) fn append_child(tree: &mut NodeTree, child: NodeTree) {
    if !tree.props.contains(&Key::Children) {
        tree.props.set(Key::Children, Value::Children);
    }
    tree.children.push(child);
}

/// Merges `incoming` overrides into `descendants`, under `prefix` (`""` or `"nested/"`).
/// Replacements replace; property overrides merge key by key; `children` replaces children.
pub(super) fn merge(descendants: &mut Descendants, incoming: Descendants, prefix: &str) {
    for (key, tree) in incoming.0.entries {
        let key = format!("{prefix}{key}");
        if tree.is_replacement() {
            *entry(descendants, &key) = tree;
            continue;
        }
        let existing = entry(descendants, &key);
        let has_children = tree.props.contains(&Key::Children);
        for (name, value) in tree.props.iter() {
            if *name != Key::Children {
                existing.props.set(name.clone(), value.clone());
            }
        }
        if has_children {
            existing.children = tree.children;
            if !existing.props.contains(&Key::Children) {
                existing.props.set(Key::Children, Value::Children);
            }
        }
    }
}

/// Fails unless a node of this type may hold children.
pub(super) fn check_container(node_type: Option<crate::doc::NodeType>, path: &str) -> Step<()> {
    match node_type {
        Some(crate::doc::NodeType::Unknown) => Err(StepError::new(format!(
            "Node '{path}' is of a type nib does not know (a newer Pen's), kept as written: nib puts nothing inside it"
        ))
        .hint("insert into a frame, a group or an instance's slot")),
        Some(t) if !t.has_children() => {
            Err(StepError::new(format!("Node '{path}' is {} and cannot have children", t.with_article()))
                .hint("insert into a frame, a group or an instance's slot"))
        }
        _ => Ok(()),
    }
}
