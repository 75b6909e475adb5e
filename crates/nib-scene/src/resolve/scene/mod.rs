//! The Scene: the document with every instance expanded and every variable replaced by its
//! value under the themes in force, ready to lay out and paint. Derived, read-only, rebuilt per
//! document revision.
//!
//! Nodes inside an instance get path ids (`inst/child`, `inst/nested/child`). Overrides of an
//! instance apply to the nodes of its component, through nested instances; outer instances win
//! over the overrides a component sets on its own nested instances. Whatever cannot be resolved
//! (a missing component or variable, a cycle, an override that matches no node) is reported in
//! [`Scene::problems`] with the node it concerns; the node is still there.
//!
//! What expansion creates is counted against a [`Budget`]; a document that needs more gets a
//! partial Scene and [`Scene::error`] says where it stopped (see [`super::budget`]).
//!
//! This file holds the model and its lookups; `incremental.rs` decides which parts to build or
//! reuse and gathers their problems, and `build/` builds one part.

mod build;
mod incremental;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use super::budget::{Budget, ResolveError};
use crate::diagnostic::{Diagnostic, Severity};
use crate::doc::ids::IdTable;
use crate::doc::{Key, NodeKey, NodeType, Props, Value};

pub(super) use build::NodeInScope;
pub(crate) use build::key_in_force;
pub use incremental::{build_scene, part_root, update_scene, update_scene_of, update_scene_within};

/// What to resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SceneOptions {
    /// Replace `ref` nodes by their components' content.
    pub expand_instances: bool,
    /// Replace `$variables` by their values.
    pub substitute_variables: bool,
}

impl SceneOptions {
    /// Everything resolved: what layout and rendering need.
    pub const FULL: SceneOptions = SceneOptions { expand_instances: true, substitute_variables: true };
}

/// A handle to a node of one [`Scene`]: the top-level part it belongs to and its place there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SceneKey {
    part: u32,
    node: u32,
}

impl SceneKey {
    /// The index of the top-level part in [`Scene::parts`].
    pub fn part(self) -> usize {
        self.part as usize
    }

    /// The node's index inside its part (a dense index for per-part side tables).
    pub fn local(self) -> usize {
        self.node as usize
    }
}

/// A resolved node.
#[derive(Debug, Clone)]
pub struct SceneNode {
    /// The id, or the path through instances (`inst/child`).
    pub id: String,
    /// The properties after overrides, with variables replaced (when asked).
    pub props: Props,
    /// The document node this comes from, when it is one (not for nodes inside instances).
    pub source: Option<NodeKey>,
    /// True for content the Scene made for a node (a browser's window, a script's drawing):
    /// it is drawn, but it is no part of the design to check or edit.
    pub generated: bool,
    parent: Option<u32>,
    children: Vec<u32>,
}

impl SceneNode {
    /// The node type (an expanded instance has its component's type).
    pub fn node_type(&self) -> NodeType {
        self.props.node_type().unwrap_or(NodeType::Frame)
    }

    /// False when `enabled: false` hides the node.
    pub fn is_enabled(&self) -> bool {
        !matches!(self.props.get(&Key::Enabled), Some(Value::Bool(crate::doc::VarOr::Value(false))))
    }

    /// The parent's index in the same part; `None` for the part's root.
    pub fn parent_local(&self) -> Option<usize> {
        self.parent.map(|p| p as usize)
    }

    /// The children's indices in the same part, in paint order.
    pub fn children_local(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.children.iter().map(|c| *c as usize)
    }
}

/// One top-level node of the document, resolved: built, cached and shared on its own, so an edit
/// rebuilds only the parts it touches. Node 0 is the top-level node; nodes are in document order.
#[derive(Debug, Clone)]
pub struct ScenePart {
    root: NodeKey,
    nodes: Vec<SceneNode>,
    ids: IdTable,
    problems: Vec<Diagnostic>,
    /// Each variable's problem (its name, the message, and the import alias when the problem is
    /// that the import is not loaded) with its first node and how many uses it has.
    variable_problems: BTreeMap<(String, String, Option<String>), (String, usize)>,
    /// Other top-level nodes of the document whose components this part uses.
    depends_on: Vec<NodeKey>,
    /// Set when a reference did not resolve: whatever changes may make it resolve.
    depends_on_everything: bool,
    /// The document revision this was built at.
    built_at: u64,
    /// The document's budget and what was left of it for this part when it was built.
    budget: Budget,
    allowance: Budget,
    /// What this part spent of its allowance.
    spent: Budget,
    /// Why expansion stopped before the part was complete.
    error: Option<ResolveError>,
}

impl ScenePart {
    /// The document's top-level node this part resolves.
    pub fn source_root(&self) -> NodeKey {
        self.root
    }

    /// The id of the top-level node this part resolves; `None` for a part with no nodes.
    pub fn root_id(&self) -> Option<&str> {
        self.nodes.first().map(|node| node.id.as_str())
    }

    /// The nodes, the top-level one first, in document order.
    pub fn nodes(&self) -> &[SceneNode] {
        &self.nodes
    }

    /// The node at `index`.
    pub fn node(&self, index: usize) -> &SceneNode {
        &self.nodes[index]
    }

    /// The index of the node with this id or instance path.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.ids.get(id, |i| &self.nodes[i as usize].id).map(|i| i as usize)
    }

    /// Why this part is incomplete: expansion went over the document's budget here.
    pub fn error(&self) -> Option<&ResolveError> {
        self.error.as_ref()
    }

    /// What building this part spent of the document's budget.
    pub fn spent(&self) -> Budget {
        self.spent
    }
}

/// The resolved document: one [`ScenePart`] per top-level node.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    parts: Vec<Arc<ScenePart>>,
    options: Option<SceneOptions>,
    /// What could not be resolved (`unresolved` warnings) and what is drawn in place of what
    /// nib cannot draw (`placeholder` notes), each about its node.
    pub problems: Vec<Diagnostic>,
}

/// The error of looking up a node no node of the document has: `Node 'id' not found`, with
/// where ids come from. Every tool that takes a node id answers it (some with a hint of their
/// own: where their argument comes from).
pub fn node_not_found(id: &str) -> Diagnostic {
    Diagnostic::new(Severity::Error, "node-not-found", format!("Node '{id}' not found"))
        .at_node(id)
        .with_hint("use an id from batch_get or get_editor_state; nodes inside instances are 'instance/child'")
}

impl Scene {
    /// The node behind `key`.
    pub fn node(&self, key: SceneKey) -> &SceneNode {
        &self.parts[key.part()].nodes[key.local()]
    }

    /// The top-level parts, in document order.
    pub fn parts(&self) -> &[Arc<ScenePart>] {
        &self.parts
    }

    /// The top-level nodes.
    pub fn roots(&self) -> Vec<SceneKey> {
        (0..self.parts.len()).map(|part| SceneKey { part: part as u32, node: 0 }).collect()
    }

    /// The children of `key`, in paint order.
    pub fn children(&self, key: SceneKey) -> impl ExactSizeIterator<Item = SceneKey> + '_ {
        self.node(key).children.iter().map(move |c| SceneKey { part: key.part, node: *c })
    }

    /// The parent of `key`; `None` for a top-level node.
    pub fn parent(&self, key: SceneKey) -> Option<SceneKey> {
        self.node(key).parent.map(|p| SceneKey { part: key.part, node: p })
    }

    /// The node with this id or instance path.
    pub fn node_by_id(&self, id: &str) -> Option<SceneKey> {
        self.parts
            .iter()
            .enumerate()
            .find_map(|(part, p)| p.index_of(id).map(|node| SceneKey { part: part as u32, node: node as u32 }))
    }

    /// The node with this id or instance path, or the error that no node has it
    /// ([`node_not_found`]).
    pub fn find(&self, id: &str) -> Result<SceneKey, Box<Diagnostic>> {
        self.node_by_id(id).ok_or_else(|| Box::new(node_not_found(id)))
    }

    /// Why the Scene is incomplete: resolving the document goes over its [`Budget`]. The
    /// first part that went over says where; parts after it may be incomplete too.
    pub fn error(&self) -> Option<&ResolveError> {
        self.parts.iter().find_map(|part| part.error.as_ref())
    }

    /// What resolving spent of the document's budget.
    pub fn spent(&self) -> Budget {
        self.parts.iter().fold(Budget::NONE, |total, part| total.plus(part.spent))
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.nodes.len()).sum()
    }

    /// True when the scene has no nodes.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// `key` and everything below it, parents first, in document order.
    pub fn subtree(&self, key: SceneKey) -> impl Iterator<Item = SceneKey> + '_ {
        let mut stack = vec![key];
        std::iter::from_fn(move || {
            let key = stack.pop()?;
            stack.extend(self.node(key).children.iter().rev().map(|c| SceneKey { part: key.part, node: *c }));
            Some(key)
        })
    }

    /// Every node in document order.
    pub fn walk(&self) -> impl Iterator<Item = SceneKey> + '_ {
        (0..self.parts.len() as u32).flat_map(move |part| {
            (0..self.parts[part as usize].nodes.len() as u32).map(move |node| SceneKey { part, node })
        })
    }

    /// The node as compact JSON in saved form; children deeper than `depth` are `"..."`.
    pub fn node_to_json(&self, key: SceneKey, depth: usize) -> String {
        let mut w = crate::doc::json::JsonWriter::compact();
        self.write_node(key, depth, &mut w);
        w.finish()
    }

    fn write_node(&self, key: SceneKey, depth: usize, w: &mut crate::doc::json::JsonWriter) {
        let node = self.node(key);
        let mut props = node.props.clone();
        props.set(Key::Id, Value::Text(node.id.clone()));
        props.write(w, !node.children.is_empty(), &mut |w| {
            if depth == 0 {
                w.string("...");
                return;
            }
            w.begin_array();
            for child in self.children(key) {
                self.write_node(child, depth - 1, w);
            }
            w.end_array();
        });
    }
}
