//! A node's properties as the units a diff compares and a merge takes one at a time: every
//! property of the node itself, and inside an instance's `descendants` every property of each
//! override path, a replaced node as a whole, and the children given to a slot. Two people who
//! override different properties of the same nested node then touch different units.

use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::doc::{Key, NodeTree, Props, Value};

use super::values::{compact, same, same_json};

/// Which unit of a node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum UnitKey {
    /// A property of the node itself (never `id` or `children`: those are its identity and
    /// its place in the tree).
    Prop(Key),
    /// `descendants[path]` replacing the node at `path` with a new subtree.
    Replacement(String),
    /// One property of the override at `path`; `Key::Children` is the children given to a slot.
    Override(String, Key),
}

impl fmt::Display for UnitKey {
    /// `fill`, `descendants[row/icon]`, `descendants[label].content`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnitKey::Prop(key) => f.write_str(key.name()),
            UnitKey::Replacement(path) => write!(f, "descendants[{path}]"),
            UnitKey::Override(path, key) => write!(f, "descendants[{path}].{}", key.name()),
        }
    }
}

/// The value of a unit.
#[derive(Debug, Clone, Copy)]
pub(crate) enum UnitValue<'a> {
    /// A property value.
    Value(&'a Value),
    /// A replacement subtree.
    Tree(&'a NodeTree),
    /// The children of a slot override.
    Children(&'a [NodeTree]),
}

impl UnitValue<'_> {
    /// The value as compact JSON, as saved.
    pub(crate) fn json(&self) -> String {
        match self {
            UnitValue::Value(value) => compact(*value),
            UnitValue::Tree(tree) => tree.to_json(usize::MAX),
            UnitValue::Children(children) => {
                let items: Vec<String> = children.iter().map(|child| child.to_json(usize::MAX)).collect();
                format!("[{}]", items.join(","))
            }
        }
    }

    /// True when both say the same (key order inside objects aside).
    pub(crate) fn same(&self, other: &UnitValue<'_>) -> bool {
        match (self, other) {
            (UnitValue::Value(a), UnitValue::Value(b)) => same(*a, *b),
            (UnitValue::Tree(a), UnitValue::Tree(b)) => a == b || same_json(&self.json(), &other.json()),
            (UnitValue::Children(a), UnitValue::Children(b)) => a == b || same_json(&self.json(), &other.json()),
            _ => false,
        }
    }
}

/// The units of a node's properties, in the order they are written.
pub(crate) fn units(props: &Props) -> Vec<(UnitKey, UnitValue<'_>)> {
    let mut units = Vec::with_capacity(props.len());
    for (key, value) in props.iter() {
        match (key, value) {
            (Key::Id | Key::Children, _) => {}
            (Key::Descendants, Value::Descendants(descendants)) => {
                for (path, tree) in descendants.0.iter() {
                    if tree.is_replacement() {
                        units.push((UnitKey::Replacement(path.to_owned()), UnitValue::Tree(tree)));
                        continue;
                    }
                    for (key, value) in tree.props.iter() {
                        let unit = match key {
                            Key::Children => UnitValue::Children(&tree.children),
                            _ => UnitValue::Value(value),
                        };
                        units.push((UnitKey::Override(path.to_owned(), key.clone()), unit));
                    }
                }
            }
            _ => units.push((UnitKey::Prop(key.clone()), UnitValue::Value(value))),
        }
    }
    units
}

/// One unit that differs between two versions of a node: `None` where it is absent.
pub(crate) struct UnitChange<'a> {
    /// Which unit.
    pub key: UnitKey,
    /// Before.
    pub old: Option<UnitValue<'a>>,
    /// After.
    pub new: Option<UnitValue<'a>>,
}

/// The units that differ from `old` to `new`: in `new`'s order, then those only `old` has.
pub(crate) fn changed_units<'a>(old: &'a Props, new: &'a Props) -> Vec<UnitChange<'a>> {
    let old_units = units(old);
    let new_units = units(new);
    // An instance can hold hundreds of override units: look them up, do not scan.
    let old_index: HashMap<&UnitKey, UnitValue<'a>> = old_units.iter().map(|(k, v)| (k, *v)).collect();
    let new_keys: HashSet<&UnitKey> = new_units.iter().map(|(k, _)| k).collect();
    let mut changes = Vec::new();
    for (key, value) in &new_units {
        match old_index.get(key) {
            Some(before) if before.same(value) => {}
            before => changes.push(UnitChange { key: key.clone(), old: before.copied(), new: Some(*value) }),
        }
    }
    for (key, value) in &old_units {
        if !new_keys.contains(key) {
            changes.push(UnitChange { key: key.clone(), old: Some(*value), new: None });
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Document;

    fn props(document: &Document, id: &str) -> Props {
        document.tree().node(document.node_by_id(id).unwrap()).props.clone()
    }

    #[test]
    fn overrides_compare_per_path_and_property() {
        let old = Document::load(
            r##"{"version": "2.11", "children": [{"type": "ref", "id": "i", "ref": "c", "x": 1,
                "descendants": {"label": {"content": "Hi", "fill": "#000"}, "icon": {"type": "text", "id": "t", "content": "a"}}}]}"##,
        )
        .unwrap()
        .document;
        let new = Document::load(
            r##"{"version": "2.11", "children": [{"type": "ref", "id": "i", "x": 2, "ref": "c",
                "descendants": {"label": {"fill": "#000", "content": "Hello"}, "slot": {"children": [{"type": "frame", "id": "f"}]}}}]}"##,
        )
        .unwrap()
        .document;
        let (old, new) = (props(&old, "i"), props(&new, "i"));
        let changes = changed_units(&old, &new);
        let shown: Vec<String> = changes
            .iter()
            .map(|c| {
                format!(
                    "{} {} → {}",
                    c.key,
                    c.old.map_or("-".into(), |v| v.json()),
                    c.new.map_or("-".into(), |v| v.json())
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "x 1 → 2",
                "descendants[label].content \"Hi\" → \"Hello\"",
                "descendants[slot].children - → [{\"type\":\"frame\",\"id\":\"f\"}]",
                "descendants[icon] {\"type\":\"text\",\"id\":\"t\",\"content\":\"a\"} → -",
            ]
        );
    }
}
