//! Changing nodes in place: U() updates a node's properties, children or (for an instance) its
//! overrides, and R() replaces a node by a new one; either on a node of the document or on a
//! node inside an instance, through the instance's overrides.

use std::collections::HashSet;

use super::{ANSWER_DEPTH, apply_props, set_position};
use crate::doc::{Descendants, Key, NodeKey, NodeTree, NodeType, Value};
use crate::resolve::{InstanceNode, PathTarget};
use crate::script::ast::Expr;
use crate::script::exec::overrides::{check_container, merge, replace, target_tree};
use crate::script::exec::place::rect_of;
use crate::script::exec::{Runner, Step, StepError};
use crate::script::report::OpResult;
use crate::script::validate::Update;

impl Runner<'_, '_> {
    /// `U(path, props)`
    pub(in crate::script::exec) fn update(&mut self, path: &Expr, props: &Expr) -> Step<String> {
        let target = self.target(path)?;
        let mut json = self.object(props, "the properties")?;
        crate::script::normalise::properties(&mut json);
        match target {
            PathTarget::Node(key) => {
                let node = self.document().tree().node(key);
                let (node_type, existing) = (node.node_type(), node.props.clone());
                let mut validator = self.validator();
                let update = validator.update(json, Some(node_type), Some(&existing));
                self.check(validator, props)?;
                let Some(update) = update else { return Err(StepError::new("the properties are invalid").at(props)) };
                if let Some(replacement) = update.replacement {
                    return self.replace_node(key, replacement);
                }
                self.update_node(key, node_type, update).map_err(|e| e.at(props))
            }
            PathTarget::InInstance(target) => {
                let mut validator = self.validator();
                let update = validator.update(json, target.node_type, None);
                self.check(validator, props)?;
                let Some(update) = update else { return Err(StepError::new("the properties are invalid").at(props)) };
                self.update_in_instance(&target, update).map_err(|e| e.at(props))
            }
        }
    }

    /// `R(path, node)`
    pub(in crate::script::exec) fn replace(&mut self, path: &Expr, node: &Expr, binding: Option<&str>) -> Step<String> {
        let target = self.target(path)?;
        let mut tree = self.new_tree(node)?;
        Self::default_name(&mut tree, binding);
        match target {
            PathTarget::Node(key) => self.replace_node(key, tree),
            PathTarget::InInstance(target) => self.replace_in_instance(&target, tree),
        }
    }

    fn update_node(&mut self, key: NodeKey, node_type: NodeType, update: Update) -> Step<String> {
        if node_type == NodeType::Unknown {
            let node = self.document().tree().node(key);
            let type_name = node.props.type_name().map(|name| name.into_owned());
            let said = crate::script::issues::undrawn_keys(node.id(), type_name.as_deref(), &update.set);
            self.state.said.extend(said);
        }
        self.note_before(key);
        for name in update.remove {
            self.tx.set(key, name, None);
        }
        for (name, value) in update.set.iter() {
            if matches!(name, Key::X | Key::Y) {
                self.state.positioned.insert(key);
            }
            self.tx.set(key, name.clone(), Some(value.clone()));
        }
        let id = self.document().tree().node(key).id().to_owned();
        if let Some(children) = update.children {
            check_container(Some(node_type), &id)?;
            for child in self.document().tree().node(key).children().to_vec() {
                self.tx.remove(child);
            }
            for mut child in children {
                let mut taken = HashSet::new();
                self.assign_ids(&mut child, &mut taken);
                self.tx.insert(Some(key), usize::MAX, child).map_err(|e| StepError::new(e.to_string()))?;
            }
        }
        if let Some(incoming) = update.descendants {
            if node_type != NodeType::Ref {
                return Err(StepError::new(format!(
                    "'{id}' is {}, not an instance; descendants only apply to instances",
                    node_type.with_article()
                ))
                .hint("update the node's children directly with their own ids"));
            }
            let mut descendants = match self.document().tree().node(key).props.get(&Key::Descendants) {
                Some(Value::Descendants(d)) => d.clone(),
                _ => Descendants::default(),
            };
            let incoming = self.fresh_replacement_ids(incoming, &descendants);
            merge(&mut descendants, incoming, "");
            self.tx.set(key, Key::Descendants, Some(Value::Descendants(descendants)));
        }
        self.touch(key);
        self.state.results.push(OpResult::Updated { id: id.clone() });
        Ok(id)
    }

    fn update_in_instance(&mut self, target: &InstanceNode, update: Update) -> Step<String> {
        let path = format!("{}/{}", self.document().tree().node(target.instance).id(), target.override_key);
        if let Some(replacement) = update.replacement {
            return self.replace_in_instance(target, replacement);
        }
        let path_for_results = path.clone();
        self.edit_overrides(target, |runner, descendants, taken| {
            if let Some(incoming) = update.descendants.as_ref() {
                let mut incoming = incoming.clone();
                for (_, tree) in incoming.0.entries.iter_mut().filter(|(_, t)| t.is_replacement()) {
                    runner.assign_ids(tree, taken);
                }
                merge(descendants, incoming, &format!("{}/", target.override_key));
            }
            let tree = target_tree(descendants, target);
            if target.node_type == Some(NodeType::Unknown) {
                let type_name = tree.props.type_name().map(|name| name.into_owned());
                let said = crate::script::issues::undrawn_keys(&path, type_name.as_deref(), &update.set);
                runner.state.said.extend(said);
            }
            apply_props(&mut tree.props, &update);
            if let Some(children) = update.children.clone() {
                check_container(target.node_type, &path)?;
                tree.children.clear();
                tree.props.set(Key::Children, Value::Children);
                for mut child in children {
                    runner.assign_ids(&mut child, taken);
                    tree.children.push(child);
                }
            }
            Ok(())
        })?;
        self.state.results.push(OpResult::Updated { id: path_for_results.clone() });
        Ok(path_for_results)
    }

    /// Replacement nodes in `descendants` get fresh ids, like any new node.
    fn fresh_replacement_ids(&mut self, mut incoming: Descendants, existing: &Descendants) -> Descendants {
        let mut taken = HashSet::new();
        for (_, tree) in existing.0.iter() {
            if let Some(id) = tree.props.id() {
                taken.insert(id.to_owned());
            }
        }
        for (_, tree) in incoming.0.entries.iter_mut().filter(|(_, t)| t.is_replacement()) {
            self.assign_ids(tree, &mut taken);
        }
        incoming
    }

    fn replace_node(&mut self, key: NodeKey, mut tree: NodeTree) -> Step<String> {
        // What I() refuses, a replacement may not bring in either.
        let ancestors = self.document().tree().node(key).parent().map(|p| self.ancestor_ids(p)).unwrap_or_default();
        self.check_instances(&tree, &ancestors)?;
        let old = self.document().tree().node(key);
        let old_id = old.id().to_owned();
        let parent = old.parent();
        let index = self.document().tree().index_in_parent(key);
        if parent.is_none() && !tree.props.contains(&Key::X) && !tree.props.contains(&Key::Y) {
            // A replacement keeps the place of what it replaces.
            let rect = rect_of(&old.props);
            set_position(&mut tree.props, rect.x, rect.y);
        }
        self.tx.remove(key);
        let mut taken = HashSet::new();
        self.assign_ids(&mut tree, &mut taken);
        let new = self.tx.insert(parent, index, tree).map_err(|e| StepError::new(e.to_string()))?;
        self.touch(new);
        let new_id = self.document().tree().node(new).id().to_owned();
        self.state.results.push(OpResult::Replaced {
            old: old_id,
            new: new_id.clone(),
            node: self.document().node_to_json(new, ANSWER_DEPTH),
        });
        Ok(new_id)
    }

    fn replace_in_instance(&mut self, target: &InstanceNode, mut tree: NodeTree) -> Step<String> {
        self.check_instances(&tree, &self.ancestor_ids(target.instance))?;
        let instance_id = self.document().tree().node(target.instance).id().to_owned();
        let old = format!("{instance_id}/{}", target.override_key);
        let (new_path, json) = self.edit_overrides(target, |runner, descendants, taken| {
            runner.assign_ids(&mut tree, taken);
            let id = tree.props.id().unwrap_or_default().to_owned();
            let json = tree.to_json(ANSWER_DEPTH);
            replace(descendants, target, tree);
            Ok((format!("{instance_id}/{id}"), json))
        })?;
        self.state.results.push(OpResult::Replaced { old, new: new_path.clone(), node: json });
        Ok(new_path)
    }
}
