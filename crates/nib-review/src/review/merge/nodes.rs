//! Merging the node trees: theirs' added subtrees, moves, deletions and property changes go
//! into ours, unless ours changed the same thing differently.

use std::collections::{HashMap, HashSet};

use crate::doc::{Descendants, Document, Key, NodeKey, NodeTree, Transaction, Value};

use super::{Conflict, Pick, three_way};
use crate::review::diff::NodeLabel;
use crate::review::placement::{moved_nodes, parent_id};
use crate::review::units::{UnitKey, UnitValue, changed_units, units};

/// The three documents, in one spelling.
struct Sides<'a> {
    base: &'a Document,
    ours: &'a Document,
    theirs: &'a Document,
    moved_ours: HashSet<String>,
    moved_theirs: HashSet<String>,
}

impl Sides<'_> {
    /// The label of `id` as ours has it, else theirs, else base.
    fn label(&self, id: &str) -> NodeLabel {
        [self.ours, self.theirs, self.base]
            .into_iter()
            .find_map(|document| document.node_by_id(id).map(|key| NodeLabel::of(document, key)))
            .unwrap_or_else(|| NodeLabel { id: id.to_owned(), node_type: "node".into(), name: None, text: None })
    }

    /// True when `side` changed the node `id` (present in base and in `side`): a property, an
    /// override, or its place.
    fn changed_by(&self, side: &Document, moved: &HashSet<String>, id: &str) -> bool {
        let (Some(before), Some(after)) = (self.base.node_by_id(id), side.node_by_id(id)) else { return false };
        moved.contains(id)
            || !changed_units(&self.base.tree().node(before).props, &side.tree().node(after).props).is_empty()
    }

    /// The first node ours changed that theirs' deletion of the base subtree `root` would take
    /// with it: a node of it ours changed or moved away, or a node ours added inside it.
    fn touched_by_ours(&self, root: NodeKey) -> Option<String> {
        let base = self.base.tree();
        for key in base.subtree(root) {
            let id = base.node(key).id();
            if self.theirs.node_by_id(id).is_none() && self.changed_by(self.ours, &self.moved_ours, id) {
                return Some(id.to_owned());
            }
        }
        let ours_root = self.ours.node_by_id(base.node(root).id())?;
        let ours = self.ours.tree();
        ours.subtree(ours_root)
            .map(|key| ours.node(key).id())
            .find(|id| self.base.node_by_id(id).is_none())
            .map(str::to_owned)
    }
}

/// Merges theirs' node changes into `tx` (which holds ours); returns how many were taken.
pub(super) fn merge_nodes(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    tx: &mut Transaction<'_>,
    conflicts: &mut Vec<Conflict>,
) -> usize {
    let sides =
        Sides { base, ours, theirs, moved_ours: moved_nodes(base, ours), moved_theirs: moved_nodes(base, theirs) };
    place_nodes(&sides, tx, conflicts) + delete_subtrees(&sides, tx, conflicts) + set_properties(&sides, tx, conflicts)
}

/// Inserts the subtrees theirs added and moves the nodes theirs moved, in theirs' document
/// order: each goes after the nearest preceding sibling (in theirs) that the result also has,
/// which by then already sits where theirs has it, so added and moved nodes keep their order
/// among each other.
fn place_nodes(sides: &Sides<'_>, tx: &mut Transaction<'_>, conflicts: &mut Vec<Conflict>) -> usize {
    let mut taken = 0;
    for key in sides.theirs.tree().walk() {
        let id = sides.theirs.tree().node(key).id();
        let placed = if sides.base.node_by_id(id).is_none() {
            add_subtree(sides, key, tx, conflicts)
        } else if sides.moved_theirs.contains(id) {
            move_node(sides, key, tx, conflicts)
        } else {
            false
        };
        taken += usize::from(placed);
    }
    taken
}

/// Inserts the subtree theirs added at `key` (not in base), unless it lies inside another
/// added subtree or ours added the same id; true when inserted.
fn add_subtree(sides: &Sides<'_>, key: NodeKey, tx: &mut Transaction<'_>, conflicts: &mut Vec<Conflict>) -> bool {
    let theirs = sides.theirs.tree();
    let id = theirs.node(key).id();
    if let Some(ours_key) = sides.ours.node_by_id(id) {
        // Added on both sides under the same id: fine when it is the same node in the same place.
        let same_place = parent_id(sides.ours, ours_key) == parent_id(sides.theirs, key);
        let same_props = changed_units(&sides.ours.tree().node(ours_key).props, &theirs.node(key).props).is_empty();
        if !(same_place && same_props) {
            conflicts.push(Conflict::on_node(
                &sides.label(id),
                None,
                "added on both sides with the same id but different content",
            ));
        }
        return false;
    }
    let parent = parent_id(sides.theirs, key);
    let inside_new = parent.is_some_and(|p| sides.base.node_by_id(p).is_none() && sides.ours.node_by_id(p).is_none());
    if inside_new {
        return false; // Part of a subtree inserted at its root.
    }
    let result_parent = match parent {
        None => None,
        Some(p) => match tx.document().node_by_id(p) {
            Some(parent) => Some(parent),
            None => {
                let reason = format!("added by theirs inside '{p}', which ours deleted");
                conflicts.push(Conflict::on_node(&sides.label(id), None, &reason));
                return false;
            }
        },
    };
    let index = insertion_index(sides.theirs, key, tx.document(), result_parent, None);
    match tx.insert(result_parent, index, new_part(sides, key)) {
        Ok(_) => true,
        Err(error) => {
            conflicts.push(Conflict::on_node(&sides.label(id), None, &format!("cannot be added: {error}")));
            false
        }
    }
}

/// The subtree theirs added at `key`, without the nodes that existed before or that ours has
/// too (those are moves, placed afterwards).
fn new_part(sides: &Sides<'_>, key: NodeKey) -> NodeTree {
    let theirs = sides.theirs.tree();
    let node = theirs.node(key);
    let children = node
        .children()
        .iter()
        .filter(|child| {
            let id = theirs.node(**child).id();
            sides.base.node_by_id(id).is_none() && sides.ours.node_by_id(id).is_none()
        })
        .map(|child| new_part(sides, *child))
        .collect();
    NodeTree { props: node.props.clone(), children }
}

/// Where the node `key` of `theirs` goes among the children of `parent` in `result`: after the
/// nearest sibling before it (in theirs) that sits under `parent` in the result, counted
/// without `moving` (a node being moved is taken out first).
fn insertion_index(
    theirs: &Document,
    key: NodeKey,
    result: &Document,
    parent: Option<NodeKey>,
    moving: Option<NodeKey>,
) -> usize {
    let tree = theirs.tree();
    let siblings = tree.children_of(tree.node(key).parent());
    let position = siblings.iter().position(|k| *k == key).unwrap_or(0);
    let placed = result.tree().children_of(parent);
    for sibling in siblings[..position].iter().rev() {
        let Some(found) = result.node_by_id(tree.node(*sibling).id()) else { continue };
        if let Some(at) = placed.iter().filter(|k| Some(**k) != moving).position(|k| *k == found) {
            return at + 1;
        }
    }
    0
}

/// Moves the node theirs moved at `key`, unless ours moved it elsewhere; true when moved.
fn move_node(sides: &Sides<'_>, key: NodeKey, tx: &mut Transaction<'_>, conflicts: &mut Vec<Conflict>) -> bool {
    let id = sides.theirs.tree().node(key).id();
    // Deleted by ours: a conflict found with the properties.
    let Some(node) = tx.document().node_by_id(id) else { return false };
    let target = parent_id(sides.theirs, key);
    if sides.moved_ours.contains(id) {
        let ours_parent = sides.ours.node_by_id(id).and_then(|k| parent_id(sides.ours, k));
        if ours_parent != target {
            let base_parent = sides.base.node_by_id(id).and_then(|k| parent_id(sides.base, k));
            let parent = |p: Option<&str>| Some(p.map_or_else(|| "(top level)".to_owned(), |p| format!("in '{p}'")));
            conflicts.push(
                Conflict::on_node(&sides.label(id), Some("place".into()), "moved to different places on both sides")
                    .with_values(parent(base_parent), parent(ours_parent), parent(target)),
            );
        }
        return false;
    }
    let parent = match target {
        None => None,
        Some(p) => match tx.document().node_by_id(p) {
            Some(parent) => Some(parent),
            None => {
                let reason = format!("moved by theirs into '{p}', which ours deleted");
                conflicts.push(Conflict::on_node(&sides.label(id), Some("place".into()), &reason));
                return false;
            }
        },
    };
    let index = insertion_index(sides.theirs, key, tx.document(), parent, Some(node));
    match tx.move_node(node, parent, index) {
        Ok(()) => true,
        Err(error) => {
            let reason = format!("cannot be moved: {error}");
            conflicts.push(Conflict::on_node(&sides.label(id), Some("place".into()), &reason));
            false
        }
    }
}

/// Removes the subtrees theirs removed, unless ours changed something in them.
fn delete_subtrees(sides: &Sides<'_>, tx: &mut Transaction<'_>, conflicts: &mut Vec<Conflict>) -> usize {
    let base = sides.base.tree();
    let mut taken = 0;
    for key in base.walk() {
        let id = base.node(key).id();
        let parent_gone = base.node(key).parent().is_some_and(|p| sides.theirs.node_by_id(base.node(p).id()).is_none());
        if sides.theirs.node_by_id(id).is_some() || parent_gone {
            continue;
        }
        let Some(node) = tx.document().node_by_id(id) else { continue }; // Deleted on both sides.
        if let Some(touched) = sides.touched_by_ours(key) {
            let reason = if touched == id {
                "deleted by theirs, changed by ours".to_owned()
            } else {
                format!("deleted by theirs, but ours changed '{touched}' inside it")
            };
            conflicts.push(Conflict::on_node(&sides.label(id), None, &reason));
            continue;
        }
        tx.remove(node);
        taken += 1;
    }
    taken
}

/// Sets the properties and overrides theirs changed, unless ours changed them differently.
fn set_properties(sides: &Sides<'_>, tx: &mut Transaction<'_>, conflicts: &mut Vec<Conflict>) -> usize {
    let mut taken = 0;
    for key in sides.theirs.tree().walk() {
        let theirs_node = sides.theirs.tree().node(key);
        let id = theirs_node.id();
        let Some(base_key) = sides.base.node_by_id(id) else { continue }; // Added: inserted whole.
        let Some(ours_key) = sides.ours.node_by_id(id) else {
            if sides.changed_by(sides.theirs, &sides.moved_theirs, id) {
                conflicts.push(Conflict::on_node(&sides.label(id), None, "deleted by ours, changed by theirs"));
            }
            continue;
        };
        let ours_units: HashMap<UnitKey, UnitValue<'_>> =
            units(&sides.ours.tree().node(ours_key).props).into_iter().collect();
        let mut take: Vec<(UnitKey, Option<UnitValue<'_>>)> = Vec::new();
        for change in changed_units(&sides.base.tree().node(base_key).props, &theirs_node.props) {
            let ours_value = ours_units.get(&change.key).copied();
            match three_way(change.old.as_ref(), ours_value.as_ref(), change.new.as_ref(), |a, b| a.same(b)) {
                Pick::Ours => {}
                Pick::Theirs => take.push((change.key, change.new)),
                Pick::Conflict => conflicts.push(
                    Conflict::on_node(&sides.label(id), Some(change.key.to_string()), "changed on both sides")
                        .with_values(
                            change.old.map(|v| v.json()),
                            ours_value.map(|v| v.json()),
                            change.new.map(|v| v.json()),
                        ),
                ),
            }
        }
        if take.is_empty() {
            continue;
        }
        let Some(node) = tx.document().node_by_id(id) else { continue };
        taken += take.len();
        let mut descendants: Option<Descendants> = None;
        for (unit, value) in take {
            match unit {
                UnitKey::Prop(key) => {
                    let value = value.and_then(|v| match v {
                        UnitValue::Value(value) => Some(value.clone()),
                        _ => None,
                    });
                    tx.set(node, key, value);
                }
                unit => {
                    let overrides = descendants.get_or_insert_with(|| {
                        match tx.document().tree().node(node).props.get(&Key::Descendants) {
                            Some(Value::Descendants(current)) => current.clone(),
                            _ => Descendants::default(),
                        }
                    });
                    set_override(overrides, unit, value);
                }
            }
        }
        if let Some(overrides) = descendants {
            let value = (!overrides.0.is_empty()).then_some(Value::Descendants(overrides));
            tx.set(node, Key::Descendants, value);
        }
    }
    taken
}

/// Writes one override unit into `descendants`; an override left empty is dropped.
fn set_override(descendants: &mut Descendants, unit: UnitKey, value: Option<UnitValue<'_>>) {
    let entries = &mut descendants.0.entries;
    match unit {
        UnitKey::Prop(_) => {}
        UnitKey::Replacement(path) => {
            let at = entries.iter().position(|(p, _)| *p == path);
            match (at, value) {
                (Some(at), Some(UnitValue::Tree(tree))) => entries[at].1 = tree.clone(),
                (None, Some(UnitValue::Tree(tree))) => entries.push((path, tree.clone())),
                (Some(at), None) => {
                    entries.remove(at);
                }
                _ => {}
            }
        }
        UnitKey::Override(path, key) => {
            let at = match entries.iter().position(|(p, _)| *p == path) {
                Some(at) => at,
                None if value.is_none() => return,
                None => {
                    entries.push((path, NodeTree::default()));
                    entries.len() - 1
                }
            };
            let tree = &mut entries[at].1;
            if tree.is_replacement() {
                // Ours replaced the node theirs overrides: found as a conflict before getting here.
                return;
            }
            match (key, value) {
                (Key::Children, Some(UnitValue::Children(children))) => {
                    tree.props.set(Key::Children, Value::Children);
                    tree.children = children.to_vec();
                }
                (Key::Children, _) => {
                    tree.props.remove(&Key::Children);
                    tree.children.clear();
                }
                (key, Some(UnitValue::Value(value))) => {
                    tree.props.set(key, value.clone());
                }
                (key, _) => {
                    tree.props.remove(&key);
                }
            }
            if tree.props.is_empty() && tree.children.is_empty() {
                entries.remove(at);
            }
        }
    }
}
