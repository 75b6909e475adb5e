//! Node changes: added and removed subtrees, moves, and property changes by unit.

use std::collections::HashMap;

use crate::doc::{Document, NodeKey};

use super::{NodeChange, NodeChangeKind, NodeLabel, Place, PropertyChange};
use crate::review::placement::moved_nodes;
use crate::review::units::changed_units;

/// The node changes from `old` to `new`: the new document's order, then removed subtrees in
/// the old document's order.
pub(super) fn node_changes(old: &Document, new: &Document) -> Vec<NodeChange> {
    let moved = moved_nodes(old, new);
    let (old_indices, new_indices) = (sibling_indices(old), sibling_indices(new));
    let mut changes = Vec::new();
    for key in new.tree().walk() {
        let node = new.tree().node(key);
        let Some(old_key) = old.node_by_id(node.id()) else {
            if is_root_of_difference(new, old, key) {
                changes.push(subtree_change(new, &new_indices, old, key, NodeChangeKind::Added));
            }
            continue;
        };
        let properties: Vec<PropertyChange> = changed_units(&old.tree().node(old_key).props, &node.props)
            .into_iter()
            .map(|change| PropertyChange {
                key: change.key.to_string(),
                old: change.old.map(|v| v.json()),
                new: change.new.map(|v| v.json()),
            })
            .collect();
        let moved_from = moved.contains(node.id()).then(|| place(old, &old_indices, old_key));
        if !properties.is_empty() || moved_from.is_some() {
            changes.push(NodeChange {
                node: NodeLabel::of(new, key),
                kind: NodeChangeKind::Changed,
                nodes: 1,
                at: place(new, &new_indices, key),
                moved_from,
                properties,
            });
        }
    }
    for key in old.tree().walk() {
        if new.node_by_id(old.tree().node(key).id()).is_none() && is_root_of_difference(old, new, key) {
            changes.push(subtree_change(old, &old_indices, new, key, NodeChangeKind::Removed));
        }
    }
    changes
}

/// True when `key` of `document` is missing from `other` but its parent is not (or it is
/// top-level): the root of an added or removed subtree.
fn is_root_of_difference(document: &Document, other: &Document, key: NodeKey) -> bool {
    let tree = document.tree();
    match tree.node(key).parent() {
        None => true,
        Some(parent) => other.node_by_id(tree.node(parent).id()).is_some(),
    }
}

/// An added (or removed) subtree rooted at `key` of `document`, counting the nodes in it that
/// `other` lacks (a node moved into a new subtree is a move, not an addition).
fn subtree_change(
    document: &Document,
    indices: &HashMap<NodeKey, usize>,
    other: &Document,
    key: NodeKey,
    kind: NodeChangeKind,
) -> NodeChange {
    let tree = document.tree();
    let nodes = tree.subtree(key).filter(|k| other.node_by_id(tree.node(*k).id()).is_none()).count();
    NodeChange {
        node: NodeLabel::of(document, key),
        kind,
        nodes,
        at: place(document, indices, key),
        moved_from: None,
        properties: Vec::new(),
    }
}

/// The id of the top-level node `key` lies in.
pub(super) fn frame_of(document: &Document, key: NodeKey) -> String {
    document.tree().node(document.tree().root_of(key)).id().to_owned()
}

fn place(document: &Document, indices: &HashMap<NodeKey, usize>, key: NodeKey) -> Place {
    let tree = document.tree();
    Place {
        parent: tree.node(key).parent().map(|parent| NodeLabel::of(document, parent)),
        index: indices.get(&key).copied().unwrap_or(0),
        frame: frame_of(document, key),
    }
}

/// Every node's position among its siblings, to look up rather than search for: a parent can
/// have tens of thousands of children, and searching each of them would be quadratic.
fn sibling_indices(document: &Document) -> HashMap<NodeKey, usize> {
    let tree = document.tree();
    let mut indices = HashMap::with_capacity(document.node_count());
    indices.extend(tree.roots().iter().enumerate().map(|(index, key)| (*key, index)));
    for key in tree.walk() {
        indices.extend(tree.node(key).children().iter().enumerate().map(|(index, child)| (*child, index)));
    }
    indices
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Document {
        Document::load(text).unwrap().document
    }

    #[test]
    fn added_and_removed_subtrees_are_reported_once_at_their_root() {
        let old = load(
            r#"{"version": "2.11", "children": [{"type": "frame", "id": "a", "children": [
                {"type": "frame", "id": "gone", "children": [{"type": "text", "id": "g1"}, {"type": "text", "id": "kept"}]}]}]}"#,
        );
        let new = load(
            r#"{"version": "2.11", "children": [{"type": "frame", "id": "a", "children": [
                {"type": "frame", "id": "new", "name": "Card", "children": [{"type": "text", "id": "n1", "content": "Hi"}, {"type": "text", "id": "kept"}]}]}]}"#,
        );
        let changes = node_changes(&old, &new);
        let shown: Vec<(String, NodeChangeKind, usize, bool)> =
            changes.iter().map(|c| (c.node.to_string(), c.kind, c.nodes, c.moved_from.is_some())).collect();
        assert_eq!(
            shown,
            [
                ("frame 'Card' (new)".to_owned(), NodeChangeKind::Added, 2, false),
                ("text (kept)".to_owned(), NodeChangeKind::Changed, 1, true),
                ("frame (gone)".to_owned(), NodeChangeKind::Removed, 2, false),
            ]
        );
        let (from, to) = (changes[1].moved_from.as_ref().unwrap(), &changes[1].at);
        assert_eq!((from.parent.as_ref().unwrap().id.as_str(), from.index), ("gone", 1));
        assert_eq!((to.parent.as_ref().unwrap().id.as_str(), to.index, to.frame.as_str()), ("new", 1, "a"));
    }

    #[test]
    fn changed_properties_list_old_and_new_values() {
        let old =
            load(r##"{"version": "2.11", "children": [{"type": "frame", "id": "a", "padding": 32, "fill": "#fff"}]}"##);
        let new = load(r##"{"version": "2.11", "children": [{"type": "frame", "id": "a", "padding": 48, "gap": 4}]}"##);
        let changes = node_changes(&old, &new);
        assert_eq!(changes.len(), 1);
        let properties: Vec<(&str, Option<&str>, Option<&str>)> =
            changes[0].properties.iter().map(|p| (p.key.as_str(), p.old.as_deref(), p.new.as_deref())).collect();
        assert_eq!(
            properties,
            [("padding", Some("32"), Some("48")), ("gap", None, Some("4")), ("fill", Some("\"#fff\""), None)]
        );
    }
}
