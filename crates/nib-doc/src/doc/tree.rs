//! The node arena: nodes in a `Vec`, addressed by stable keys, with parent and children links.

use super::node::{NodeTree, NodeType};
use super::props::Props;

/// A stable handle to a node of one [`Tree`]. Keys are never reused while the tree lives, so a
/// key kept in an undo log still names the same node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeKey(u32);

impl NodeKey {
    /// The key's position in the arena (stable; useful as a dense index for side tables).
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The key at position `index` of the arena.
    pub(crate) fn at(index: u32) -> NodeKey {
        NodeKey(index)
    }
}

/// A node in the arena.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The node's properties in file order.
    pub props: Props,
    parent: Option<NodeKey>,
    children: Vec<NodeKey>,
}

impl Node {
    /// The node type (every node in a tree has one; the loader checks it).
    pub fn node_type(&self) -> NodeType {
        self.props.node_type().unwrap_or(NodeType::Frame)
    }

    /// The node id (every node in a tree has one; the loader checks it).
    pub fn id(&self) -> &str {
        self.props.id().unwrap_or_default()
    }

    /// The parent, or `None` for a top-level node.
    pub fn parent(&self) -> Option<NodeKey> {
        self.parent
    }

    /// The children in paint order (first at the bottom).
    pub fn children(&self) -> &[NodeKey] {
        &self.children
    }
}

/// All nodes of a document; top-level nodes are the roots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tree {
    nodes: Vec<Node>,
    roots: Vec<NodeKey>,
}

impl Tree {
    /// The node behind `key`.
    ///
    /// Keys come from this tree, so the lookup cannot miss; a key from another tree is a bug.
    pub fn node(&self, key: NodeKey) -> &Node {
        &self.nodes[key.index()]
    }

    /// The node behind `key`, mutably (its properties; structure changes go through the tree).
    pub(crate) fn node_mut(&mut self, key: NodeKey) -> &mut Node {
        &mut self.nodes[key.index()]
    }

    /// The top-level nodes in canvas order.
    pub fn roots(&self) -> &[NodeKey] {
        &self.roots
    }

    /// The children of `parent`, or the roots for `None`.
    pub fn children_of(&self, parent: Option<NodeKey>) -> &[NodeKey] {
        match parent {
            Some(key) => &self.node(key).children,
            None => &self.roots,
        }
    }

    /// Makes room for `additional` more nodes, so that loading a document sizes the arena once.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.nodes.reserve_exact(additional);
    }

    /// Appends a node as the last child of `parent` (a root for `None`).
    pub fn push(&mut self, props: Props, parent: Option<NodeKey>) -> NodeKey {
        let key = self.add_detached(props);
        let end = self.children_of(parent).len();
        self.link(key, parent, end);
        key
    }

    /// Adds a node that is not linked anywhere yet.
    pub(crate) fn add_detached(&mut self, props: Props) -> NodeKey {
        let key = NodeKey(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
        self.nodes.push(Node { props, parent: None, children: Vec::new() });
        key
    }

    /// Builds `tree` from detached nodes and returns its root, not yet linked.
    pub(crate) fn add_tree(&mut self, tree: NodeTree) -> NodeKey {
        let root = self.add_detached(tree.props);
        for child in tree.children {
            let child = self.add_tree(child);
            self.link(child, Some(root), usize::MAX);
        }
        root
    }

    /// Links the detached node `key` as child `index` of `parent` (clamped to the end).
    pub(crate) fn link(&mut self, key: NodeKey, parent: Option<NodeKey>, index: usize) {
        self.nodes[key.index()].parent = parent;
        let siblings = match parent {
            Some(parent) => &mut self.nodes[parent.index()].children,
            None => &mut self.roots,
        };
        siblings.insert(index.min(siblings.len()), key);
    }

    /// Unlinks `key` from its parent; the node and its subtree stay in the arena, detached.
    /// Returns where it was.
    pub(crate) fn unlink(&mut self, key: NodeKey) -> (Option<NodeKey>, usize) {
        let parent = self.nodes[key.index()].parent.take();
        let siblings = match parent {
            Some(parent) => &mut self.nodes[parent.index()].children,
            None => &mut self.roots,
        };
        let index = siblings.iter().position(|k| *k == key).unwrap_or(siblings.len());
        if index < siblings.len() {
            siblings.remove(index);
        }
        (parent, index)
    }

    /// The JSON pointer of a node in the file: `/children/0/children/3`.
    pub fn pointer(&self, key: NodeKey) -> String {
        let mut indices: Vec<usize> =
            std::iter::successors(Some(key), |k| self.node(*k).parent()).map(|k| self.index_in_parent(k)).collect();
        indices.reverse();
        indices.iter().map(|index| format!("/children/{index}")).collect()
    }

    /// The position of `key` among its siblings.
    pub fn index_in_parent(&self, key: NodeKey) -> usize {
        self.children_of(self.node(key).parent).iter().position(|k| *k == key).unwrap_or(0)
    }

    /// True when `ancestor` is `key` or one of its ancestors.
    pub fn is_ancestor(&self, ancestor: NodeKey, key: NodeKey) -> bool {
        std::iter::successors(Some(key), |k| self.node(*k).parent).any(|k| k == ancestor)
    }

    /// A detached copy of the subtree under `key`.
    pub fn to_node_tree(&self, key: NodeKey) -> NodeTree {
        let node = self.node(key);
        NodeTree { props: node.props.clone(), children: node.children.iter().map(|c| self.to_node_tree(*c)).collect() }
    }

    /// `key` and everything below it, parents before children, in document order.
    pub fn subtree(&self, key: NodeKey) -> Subtree<'_> {
        Subtree { tree: self, stack: vec![key] }
    }

    /// Every node in document order.
    pub fn walk(&self) -> impl Iterator<Item = NodeKey> + '_ {
        self.roots.iter().flat_map(|root| self.subtree(*root))
    }

    /// The top-level ancestor of `key` (`key` itself when it is top-level; for a detached
    /// subtree, its topmost node).
    pub fn root_of(&self, key: NodeKey) -> NodeKey {
        std::iter::successors(Some(key), |k| self.node(*k).parent).last().unwrap_or(key)
    }

    /// Depth of `key`: 0 for a top-level node.
    pub fn depth(&self, key: NodeKey) -> usize {
        std::iter::successors(self.node(key).parent, |p| self.node(*p).parent).count()
    }
}

/// Deepest node level an edit may create (0: top level). A node and its `children` array are two
/// JSON levels, and a node's own values nest a few more; 60 node levels stay inside the
/// reader's [`MAX_DEPTH`](super::json::MAX_DEPTH) of 128, so every saved file opens again.
pub const MAX_NODE_DEPTH: usize = 60;

/// Pre-order iterator over a subtree.
pub struct Subtree<'a> {
    tree: &'a Tree,
    stack: Vec<NodeKey>,
}

impl Iterator for Subtree<'_> {
    type Item = NodeKey;

    fn next(&mut self) -> Option<NodeKey> {
        let key = self.stack.pop()?;
        self.stack.extend(self.tree.node(key).children.iter().rev());
        Some(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::props::{Key, Value};

    fn props(id: &str) -> Props {
        let mut p = Props::default();
        p.set(Key::Type, Value::NodeType(NodeType::Frame));
        p.set(Key::Id, Value::Text(id.into()));
        p
    }

    #[test]
    fn links_and_walks() {
        let mut tree = Tree::default();
        let a = tree.push(props("a"), None);
        let b = tree.push(props("b"), Some(a));
        let c = tree.push(props("c"), Some(b));
        let d = tree.push(props("d"), Some(a));
        let e = tree.push(props("e"), None);
        assert_eq!(tree.roots(), &[a, e]);
        assert_eq!(tree.node(b).parent(), Some(a));
        assert_eq!(tree.children_of(Some(a)), &[b, d]);
        let order: Vec<&str> = tree.walk().map(|k| tree.node(k).id()).collect();
        assert_eq!(order, ["a", "b", "c", "d", "e"]);
        assert_eq!(tree.depth(c), 2);
        assert_eq!(tree.subtree(b).count(), 2);
    }
}
