//! Adding nodes: I() inserts a new one, C() copies one (a component's copy is an instance of
//! it) with overrides, placed next to its source on the canvas.

use super::{Placement, apply_props, placed_absolutely};
use crate::doc::json::{Json, JsonValue};
use crate::doc::{Descendants, Key, NodeKey, NodeTree, NodeType, Props, Value, VarOr};
use crate::resolve::PathTarget;
use crate::script::ast::Expr;
use crate::script::exec::overrides::merge;
use crate::script::exec::place::Direction;
use crate::script::exec::{Parent, Runner, Step, StepError};
use crate::script::report::OpResult;
use crate::script::validate::Update;

impl Runner<'_, '_> {
    /// `I(parent, node)`
    pub(in crate::script::exec) fn insert(
        &mut self,
        parent: &Expr,
        node: &Expr,
        binding: Option<&str>,
    ) -> Step<String> {
        let parent_target = self.parent(parent)?;
        let mut tree = self.new_tree(node)?;
        Self::default_name(&mut tree, binding);
        let (id, json) = self.add_tree(parent_target, tree, None, true).map_err(|e| e.at(parent))?;
        self.state.results.push(OpResult::Inserted { id: id.clone(), node: json });
        Ok(id)
    }

    /// `C(source, parent, overrides?)`
    pub(in crate::script::exec) fn copy(
        &mut self,
        source: &Expr,
        parent: &Expr,
        overrides: Option<&Expr>,
        binding: Option<&str>,
    ) -> Step<String> {
        let source_target = self.target(source)?;
        let parent_target = self.parent(parent)?;
        let (mut tree, source_key) = self.copy_of(&source_target).map_err(|e| e.at(source))?;
        let mut placement_direction = Direction::Right;
        let mut padding = 0.0;
        let mut explicit_position = false;
        if let Some(expr) = overrides {
            let mut json = self.object(expr, "the overrides")?;
            crate::script::normalise::properties(&mut json);
            explicit_position = json.get("x").is_some() || json.get("y").is_some();
            if let Some(direction) = take_member(&mut json, "positionDirection") {
                let text = direction.as_str().unwrap_or_default();
                placement_direction = Direction::parse(text).ok_or_else(|| {
                    StepError::new(format!(
                        "positionDirection must be one of {}; found {text:?}",
                        Direction::ALL.join(", ")
                    ))
                    .at(expr)
                })?;
            }
            if let Some(value) = take_member(&mut json, "positionPadding") {
                padding = match value.value {
                    JsonValue::Number(n) if n >= 0.0 => n,
                    _ => return Err(StepError::new("positionPadding must be a number of pixels, 0 or more").at(expr)),
                };
            }
            let node_type = tree.props.node_type();
            let mut validator = self.validator();
            let update = validator.update(json, node_type, Some(&tree.props));
            self.check(validator, expr)?;
            if let Some(update) = update {
                if update.replacement.is_some() {
                    return Err(StepError::new("a copy's type cannot change")
                        .at(expr)
                        .hint("insert a new node with I() instead"));
                }
                self.apply_to_copy(&mut tree, update).map_err(|e| e.at(expr))?;
            }
        }
        let placement = source_key
            .filter(|key| self.document().tree().node(*key).parent().is_none())
            .map(|key| Placement { source: self.top_level_rect(key), direction: placement_direction, padding });
        if matches!(parent_target, Parent::Root) && !explicit_position {
            // A top-level copy goes into free space next to its source, not on top of it.
            tree.props.remove(&Key::X);
            tree.props.remove(&Key::Y);
        }
        if let Parent::Target(PathTarget::Node(parent_key)) = &parent_target
            && self.is_flex(*parent_key)
            && !placed_absolutely(&tree.props)
        {
            // Inside a flex layout x and y mean nothing; leaving them would only mislead. An
            // absolutely placed node keeps them: they are where it is (dropping them stacked
            // every copy at 0, 0).
            tree.props.remove(&Key::X);
            tree.props.remove(&Key::Y);
        }
        if let Some((id, type_name)) = unknown_type_in(&tree) {
            let source_id = tree.props.id().unwrap_or_default().to_owned();
            let which = if id == source_id { String::new() } else { format!("the node '{id}' inside it has ") };
            return Err(StepError::new(format!(
                "cannot copy '{source_id}': {which}unknown node type {type_name:?} (a newer Pen's, kept as written in the file); nib writes only the node types it knows"
            ))
            .hint(format!(
                "copy the parts of known types one by one, or insert a new node with I() of one of {}",
                NodeType::ALL.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(", ")
            ))
            .at(source));
        }
        if !tree.props.contains(&Key::Name) {
            Self::default_name(&mut tree, binding);
        }
        let source_ids = preorder_ids(&tree);
        let (id, json) = self.add_tree(parent_target, tree, placement, false).map_err(|e| e.at(parent))?;
        self.remember_copy(&id, source_ids);
        self.state.results.push(OpResult::Copied { id: id.clone(), node: json });
        Ok(id)
    }

    /// Remembers which node of the copy `id` each node of its source became (copies made inside
    /// an instance live in its overrides and are not tracked).
    fn remember_copy(&mut self, id: &str, source_ids: Vec<String>) {
        let Some(key) = self.document().node_by_id(id) else { return };
        let tree = self.document().tree();
        let copy_ids: Vec<String> = tree.subtree(key).map(|k| tree.node(k).id().to_owned()).collect();
        if copy_ids.len() != source_ids.len() {
            return;
        }
        let renamed = source_ids.into_iter().zip(copy_ids).skip(1).collect();
        self.state.copies.insert(id.to_owned(), renamed);
    }

    /// A copy of a node to insert elsewhere, and the node's key when it is in the document tree.
    fn copy_of(&self, source: &PathTarget) -> Step<(NodeTree, Option<NodeKey>)> {
        match source {
            PathTarget::Node(key) => {
                let node = self.document().tree().node(*key);
                if is_true(node.props.get(&Key::Reusable)) {
                    // Copying a component makes an instance of it.
                    let mut props = Props::default();
                    props.set(Key::Type, Value::NodeType(NodeType::Ref));
                    props.set(Key::Ref, Value::Text(node.id().to_owned()));
                    if let Some(x) = node.props.get(&Key::X) {
                        props.set(Key::X, x.clone());
                    }
                    if let Some(y) = node.props.get(&Key::Y) {
                        props.set(Key::Y, y.clone());
                    }
                    return Ok((NodeTree { props, children: Vec::new() }, Some(*key)));
                }
                Ok((self.document().tree().to_node_tree(*key), Some(*key)))
            }
            PathTarget::InInstance(target) if target.in_overrides => {
                let props = &self.document().tree().node(target.instance).props;
                let Some(Value::Descendants(descendants)) = props.get(&Key::Descendants) else {
                    return Err(StepError::new("the instance has no such node"));
                };
                crate::resolve::components::find_in_overrides(descendants, &target.id)
                    .cloned()
                    .map(|tree| (tree, None))
                    .ok_or_else(|| StepError::new("the instance has no such node"))
            }
            PathTarget::InInstance(target) => Err(StepError::new(format!(
                "'{}' is part of a component inside an instance; copying it is not supported",
                target.override_key
            ))
            .hint("copy the whole instance, or copy the node from the component itself")),
        }
    }

    /// Applies copy overrides: root properties, children, and `descendants` (for an instance
    /// copy, its overrides; for a plain copy, the copied nodes by their original ids).
    fn apply_to_copy(&mut self, tree: &mut NodeTree, update: Update) -> Step<()> {
        apply_props(&mut tree.props, &update);
        if let Some(children) = update.children {
            tree.children = children;
            tree.props.set(Key::Children, Value::Children);
        }
        let Some(incoming) = update.descendants else { return Ok(()) };
        if tree.props.node_type() == Some(NodeType::Ref) {
            let mut descendants = match tree.props.get(&Key::Descendants) {
                Some(Value::Descendants(d)) => d.clone(),
                _ => Descendants::default(),
            };
            merge(&mut descendants, incoming, "");
            tree.props.set(Key::Descendants, Value::Descendants(descendants));
            return Ok(());
        }
        for (path, override_tree) in incoming.0.entries {
            let (id, rest) = path.split_once('/').map_or((path.as_str(), None), |(a, b)| (a, Some(b)));
            let Some(node) = find_by_id_mut(tree, id) else {
                return Err(StepError::new(format!("the copied node has no descendant '{id}'"))
                    .hint("descendants of a copy are named by the original ids inside it"));
            };
            match rest {
                Some(rest) => {
                    let mut descendants = match node.props.get(&Key::Descendants) {
                        Some(Value::Descendants(d)) => d.clone(),
                        _ => Descendants::default(),
                    };
                    let mut nested = Descendants::default();
                    nested.0.entries.push((rest.to_owned(), override_tree));
                    merge(&mut descendants, nested, "");
                    node.props.set(Key::Descendants, Value::Descendants(descendants));
                }
                None if override_tree.is_replacement() => *node = override_tree,
                None => {
                    for (name, value) in override_tree.props.iter() {
                        if *name != Key::Children {
                            node.props.set(name.clone(), value.clone());
                        }
                    }
                    if override_tree.props.contains(&Key::Children) {
                        node.children = override_tree.children;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Removes a member from an object argument, returning its value.
fn take_member(json: &mut Json, key: &str) -> Option<Json> {
    let JsonValue::Object(members) = &mut json.value else { return None };
    let index = members.iter().position(|m| m.key == key)?;
    Some(members.remove(index).value)
}

fn is_true(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::Bool(VarOr::Value(true))))
}

fn find_by_id_mut<'a>(tree: &'a mut NodeTree, id: &str) -> Option<&'a mut NodeTree> {
    if tree.props.id() == Some(id) {
        return Some(tree);
    }
    tree.children.iter_mut().find_map(|child| find_by_id_mut(child, id))
}

/// The first node of `tree` whose type nib does not know — its children and the nodes in its
/// instance overrides included — as its id and its type as the file spells it: nib keeps such
/// nodes as read, but an agent's call writes only types nib can check.
fn unknown_type_in(tree: &NodeTree) -> Option<(String, String)> {
    if tree.props.node_type() == Some(NodeType::Unknown) {
        let type_name = tree.props.type_name().unwrap_or_default().into_owned();
        return Some((tree.props.id().unwrap_or_default().to_owned(), type_name));
    }
    if let Some(Value::Descendants(descendants)) = tree.props.get(&Key::Descendants)
        && let Some(found) = descendants.0.entries.iter().find_map(|(_, node)| unknown_type_in(node))
    {
        return Some(found);
    }
    tree.children.iter().find_map(unknown_type_in)
}

/// The ids of `tree`'s nodes, itself first, in document order.
fn preorder_ids(tree: &NodeTree) -> Vec<String> {
    let mut ids = vec![tree.props.id().unwrap_or_default().to_owned()];
    for child in &tree.children {
        ids.extend(preorder_ids(child));
    }
    ids
}
