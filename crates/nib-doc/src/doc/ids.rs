//! Indexes from ids to the things that carry them: the nodes of a document tree, the nodes of
//! a Scene part.
//!
//! A `HashMap<String, _>` would hold every id twice (in the node and as the map's key), some
//! 60 bytes per node; these hold only the positions, hashed by the ids read back from the
//! nodes, in about 8 bytes per node.

use std::hash::{BuildHasher, RandomState};

use hashbrown::HashTable;

use super::tree::{NodeKey, Tree};

/// Positions (`u32`) by the id found at each; `id_of` reads that id.
#[derive(Debug, Clone, Default)]
pub struct IdTable {
    table: HashTable<u32>,
    state: RandomState,
}

impl IdTable {
    /// The position whose id is `id`.
    pub fn get<'s>(&self, id: &str, id_of: impl Fn(u32) -> &'s str) -> Option<u32> {
        self.table.find(self.state.hash_one(id), |at| id_of(*at) == id).copied()
    }

    /// Indexes `at` under its id. When another position has that id, `replace` decides which
    /// one stays; the other is returned.
    pub fn insert<'s>(&mut self, at: u32, id_of: impl Fn(u32) -> &'s str, replace: bool) -> Option<u32> {
        let id = id_of(at);
        let state = &self.state;
        let entry =
            self.table.entry(state.hash_one(id), |other| id_of(*other) == id, |other| state.hash_one(id_of(*other)));
        match entry {
            hashbrown::hash_table::Entry::Occupied(mut occupied) if replace => {
                Some(std::mem::replace(occupied.get_mut(), at))
            }
            hashbrown::hash_table::Entry::Occupied(_) => Some(at),
            hashbrown::hash_table::Entry::Vacant(vacant) => {
                vacant.insert(at);
                None
            }
        }
    }

    /// Drops the position indexed under `id`.
    pub fn remove<'s>(&mut self, id: &str, id_of: impl Fn(u32) -> &'s str) -> Option<u32> {
        let entry = self.table.find_entry(self.state.hash_one(id), |at| id_of(*at) == id).ok()?;
        Some(entry.remove().0)
    }

    /// Number of positions indexed.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether no position is indexed.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Makes room for `additional` more positions.
    pub fn reserve<'s>(&mut self, additional: usize, id_of: impl Fn(u32) -> &'s str) {
        let state = &self.state;
        self.table.reserve(additional, |at| state.hash_one(id_of(*at)));
    }
}

/// The nodes of a document tree by id. A node must be in the tree, with its id, while it is
/// indexed.
#[derive(Debug, Clone, Default)]
pub(crate) struct IdIndex(IdTable);

fn id_in<'t>(tree: &'t Tree) -> impl Fn(u32) -> &'t str {
    move |at| tree.node(NodeKey::at(at)).id()
}

impl IdIndex {
    /// The node with `id`.
    pub fn get(&self, tree: &Tree, id: &str) -> Option<NodeKey> {
        self.0.get(id, id_in(tree)).map(NodeKey::at)
    }

    /// Indexes `key` under its node's id, replacing (and returning) the node indexed under
    /// that id before.
    pub fn insert(&mut self, tree: &Tree, key: NodeKey) -> Option<NodeKey> {
        self.0.insert(key.index() as u32, id_in(tree), true).map(NodeKey::at)
    }

    /// Drops the node indexed under `id`.
    pub fn remove(&mut self, tree: &Tree, id: &str) -> Option<NodeKey> {
        self.0.remove(id, id_in(tree)).map(NodeKey::at)
    }

    /// Number of nodes indexed.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Makes room for `additional` more nodes of `tree`.
    pub fn reserve(&mut self, tree: &Tree, additional: usize) {
        self.0.reserve(additional, id_in(tree));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{Key, NodeType, Props, Value};

    fn node(tree: &mut Tree, id: &str) -> NodeKey {
        let mut props = Props::default();
        props.set(Key::Type, Value::NodeType(NodeType::Frame));
        props.set(Key::Id, Value::Text(id.into()));
        tree.push(props, None)
    }

    #[test]
    fn finds_nodes_by_the_ids_they_carry() {
        let mut tree = Tree::default();
        let mut index = IdIndex::default();
        let keys: Vec<NodeKey> = (0..1000).map(|i| node(&mut tree, &format!("n{i}"))).collect();
        for key in &keys {
            assert_eq!(index.insert(&tree, *key), None);
        }
        assert_eq!(index.len(), 1000);
        assert_eq!(index.get(&tree, "n417"), Some(keys[417]));
        assert_eq!(index.get(&tree, "n1000"), None);
        assert_eq!(index.remove(&tree, "n417"), Some(keys[417]));
        assert_eq!(index.get(&tree, "n417"), None);
        assert_eq!(index.len(), 999);
    }

    #[test]
    fn the_first_or_the_last_of_a_repeated_id_stays() {
        let ids = ["a", "b", "a"];
        let mut first = IdTable::default();
        let mut last = IdTable::default();
        for at in 0..3 {
            first.insert(at, |i| ids[i as usize], false);
            last.insert(at, |i| ids[i as usize], true);
        }
        assert_eq!(first.get("a", |i| ids[i as usize]), Some(0));
        assert_eq!(last.get("a", |i| ids[i as usize]), Some(2));
    }
}
