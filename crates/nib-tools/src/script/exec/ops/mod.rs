//! The seven operations: I, C, U, R, M, D, G.
//!
//! Each kind has its file: adding nodes (I and C, `add.rs`), changing them in place (U and R,
//! `change.rs`), moving and deleting them (M and D, `arrange.rs`) and generating an image fill
//! (G, `generate.rs`). This file holds the steps they share: reading a new node, adding it
//! under its parent (in free canvas space at the top level), and the checks on instances.

mod add;
mod arrange;
mod change;
mod generate;

use std::collections::HashSet;

use super::overrides::{append_child, check_container, target_tree};
use super::place::{Direction, Rect, rect_of, size_of, top_level_boxes};
use super::{Parent, Runner, Step, StepError};
use crate::doc::{Key, NodeKey, NodeTree, NodeType, Props, Value, VarOr};
use crate::layout::space::{free_spot, next_to};
use crate::resolve::PathTarget;
use crate::script::ast::Expr;
use crate::script::validate::Update;

/// How deep the node JSON in answers goes.
const ANSWER_DEPTH: usize = 2;

/// Where a copy goes relative to its source on the canvas.
struct Placement {
    source: Rect,
    direction: Direction,
    padding: f64,
}

/// A node's footprint: its own size, or (for an instance without one) its source's.
fn footprint(props: &crate::doc::Props, source: Rect) -> (f64, f64) {
    match size_of(props) {
        (0.0, 0.0) => (source.width, source.height),
        size => size,
    }
}

impl Runner<'_, '_> {
    // Shared steps ---------------------------------------------------------------------------

    /// Reads a new node tree from an argument.
    fn new_tree(&mut self, expr: &Expr) -> Step<NodeTree> {
        let mut json = self.object(expr, "the node")?;
        crate::script::normalise::new_node(&mut json);
        let mut validator = self.validator();
        let tree = validator.node(json, "");
        self.check(validator, expr)?;
        tree.ok_or_else(|| StepError::new("the node is invalid").at(expr))
    }

    /// Adds a new tree under `parent`; returns its path and its JSON for the answer.
    fn add_tree(
        &mut self,
        parent: Parent,
        mut tree: NodeTree,
        placement: Option<Placement>,
        aliases: bool,
    ) -> Step<(String, String)> {
        let ancestors = match &parent {
            Parent::Target(PathTarget::Node(key)) => self.ancestor_ids(*key),
            Parent::Target(PathTarget::InInstance(target)) => self.ancestor_ids(target.instance),
            Parent::Root => Vec::new(),
        };
        self.check_instances(&tree, &ancestors)?;
        let mut taken = HashSet::new();
        match parent {
            Parent::Root => {
                let has_position = tree.props.contains(&Key::X) || tree.props.contains(&Key::Y);
                self.assign(&mut tree, &mut taken, aliases);
                if !has_position {
                    let (x, y) = match placement {
                        Some(p) => {
                            let size = footprint(&tree.props, p.source);
                            next_to(&self.occupied(None), p.source, size, p.direction, p.padding)
                        }
                        None => free_spot(&self.occupied(None)),
                    };
                    set_position(&mut tree.props, x, y);
                }
                let key = self.tx.insert(None, usize::MAX, tree).map_err(|e| StepError::new(e.to_string()))?;
                self.touch(key);
                Ok((self.document().tree().node(key).id().to_owned(), self.document().node_to_json(key, ANSWER_DEPTH)))
            }
            Parent::Target(PathTarget::Node(parent_key)) => {
                let parent_node = self.document().tree().node(parent_key);
                check_container(Some(parent_node.node_type()), parent_node.id())?;
                let positioned = tree.props.contains(&Key::X) || tree.props.contains(&Key::Y);
                if positioned && !placed_absolutely(&tree.props) && self.is_flex(parent_key) {
                    // As Pen does: the layout places the node, so x and y would only mislead
                    // (the answer still says they were ignored).
                    tree.props.remove(&Key::X);
                    tree.props.remove(&Key::Y);
                }
                self.assign(&mut tree, &mut taken, aliases);
                let key =
                    self.tx.insert(Some(parent_key), usize::MAX, tree).map_err(|e| StepError::new(e.to_string()))?;
                if positioned {
                    self.state.positioned.insert(key);
                }
                self.touch(key);
                Ok((self.document().tree().node(key).id().to_owned(), self.document().node_to_json(key, ANSWER_DEPTH)))
            }
            Parent::Target(PathTarget::InInstance(target)) => {
                let instance_id = self.document().tree().node(target.instance).id().to_owned();
                check_container(target.node_type, &format!("{instance_id}/{}", target.override_key))?;
                self.edit_overrides(&target, |runner, descendants, taken| {
                    runner.assign(&mut tree, taken, aliases);
                    let id = tree.props.id().unwrap_or_default().to_owned();
                    let json = tree.to_json(ANSWER_DEPTH);
                    append_child(target_tree(descendants, &target), tree);
                    Ok((format!("{instance_id}/{id}"), json))
                })
            }
        }
    }

    /// Ids of `key` and its ancestors, plus the components of instances among them.
    fn ancestor_ids(&self, key: NodeKey) -> Vec<String> {
        let tree = self.document().tree();
        std::iter::successors(Some(key), |k| tree.node(*k).parent())
            .flat_map(|k| {
                let props = &tree.node(k).props;
                [props.id().map(str::to_owned), props.text(&Key::Ref).map(str::to_owned)]
            })
            .flatten()
            .collect()
    }

    /// Every instance in a new tree must name an existing component, and not one it is inside.
    fn check_instances(&self, tree: &NodeTree, ancestors: &[String]) -> Step<()> {
        if tree.props.node_type() == Some(NodeType::Ref) {
            let Some(reference) = tree.props.text(&Key::Ref) else {
                return Err(StepError::new("an instance needs `ref`: the id of its component")
                    .hint("write {type: \"ref\", ref: \"<component id>\"}"));
            };
            if let Err(e) = crate::resolve::find_component(self.document(), self.context.library, reference) {
                let hint = if reference.starts_with('<') {
                    "this looks like a placeholder: put the id of a reusable node here".to_owned()
                } else {
                    "use the id of a reusable node (reusable: true); get_editor_state lists them".to_owned()
                };
                return Err(StepError::new(format!("Component '{reference}' not found: {e}")).hint(hint));
            }
            if ancestors.iter().any(|a| a == reference) {
                return Err(contains_itself(reference));
            }
        }
        tree.children.iter().try_for_each(|child| self.check_instances(child, ancestors))
    }

    fn assign(&mut self, tree: &mut NodeTree, taken: &mut HashSet<String>, aliases: bool) {
        if aliases {
            self.assign_ids(tree, taken);
        } else {
            let saved = std::mem::take(&mut self.state.aliases);
            self.assign_ids(tree, taken);
            self.state.aliases = saved;
        }
    }

    /// The boxes of the visible top-level nodes but `except`, as laid out now.
    fn occupied(&self, except: Option<NodeKey>) -> Vec<Rect> {
        top_level_boxes(self.document(), self.context.canvas)
            .into_iter()
            .filter(|(key, _)| Some(*key) != except)
            .map(|(_, rect)| rect)
            .collect()
    }

    /// The box of a top-level node, laid out when possible.
    fn top_level_rect(&self, key: NodeKey) -> Rect {
        let laid_out = self.context.canvas.and_then(|canvas| canvas.top_level_boxes(self.document()));
        laid_out
            .and_then(|boxes| boxes.into_iter().find(|(k, _)| *k == key).map(|(_, rect)| rect))
            .unwrap_or_else(|| rect_of(&self.document().tree().node(key).props))
    }

    /// Puts a top-level node without a position into free canvas space.
    fn place_top_level(&mut self, key: NodeKey) {
        let (x, y) = free_spot(&self.occupied(Some(key)));
        self.tx.set(key, Key::X, Some(Value::Number(VarOr::Value(x))));
        self.tx.set(key, Key::Y, Some(Value::Number(VarOr::Value(y))));
    }

    /// True when `key` lays its children out with flexbox.
    pub(super) fn is_flex(&self, key: NodeKey) -> bool {
        crate::script::issues::lays_out_children(self.document(), key)
    }
}

fn apply_props(props: &mut Props, update: &Update) {
    for name in &update.remove {
        props.remove(name);
    }
    for (name, value) in update.set.iter() {
        props.set(name.clone(), value.clone());
    }
}

/// Sets x and y right after the id, where Pen writes them for new nodes.
fn set_position(props: &mut Props, x: f64, y: f64) {
    let after_id = props.iter().position(|(k, _)| *k == Key::Id).map_or(0, |i| i + 1);
    props.insert_at(after_id, Key::X, Value::Number(VarOr::Value(x)));
    props.insert_at(after_id + 1, Key::Y, Value::Number(VarOr::Value(y)));
}

/// The error for an instance placed inside its own component.
fn contains_itself(reference: &str) -> StepError {
    StepError::new(format!("an instance of '{reference}' cannot be placed inside '{reference}' itself"))
        .hint("a component that contains itself would never end")
}

/// True for a node with `layoutPosition: "absolute"`: its x and y place it even inside a flex
/// layout.
fn placed_absolutely(props: &crate::doc::Props) -> bool {
    matches!(
        props.get(&Key::LayoutPosition),
        Some(Value::LayoutPosition(crate::doc::VarOr::Value(crate::doc::values::LayoutPosition::Absolute)))
    )
}
