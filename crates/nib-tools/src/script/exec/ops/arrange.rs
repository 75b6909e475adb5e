//! Rearranging the document: M() moves a node to another parent or place (never into an
//! instance, nor an instance into its own component), D() deletes one (inside an instance only
//! what the instance's overrides hold).

use super::contains_itself;
use crate::doc::json::JsonValue;
use crate::doc::{Key, Value};
use crate::resolve::{InstanceNode, PathTarget};
use crate::script::ast::Expr;
use crate::script::exec::overrides::{check_container, remove_owned};
use crate::script::exec::{Parent, Runner, Step, StepError};
use crate::script::report::OpResult;

impl Runner<'_, '_> {
    /// `M(node, parent?, index?)`
    pub(in crate::script::exec) fn move_node(
        &mut self,
        node: &Expr,
        parent: Option<&Expr>,
        index: Option<&Expr>,
    ) -> Step<String> {
        let target = self.target(node).map_err(|mut e| {
            // Pencil's words for a node that is not there, nib's hint after them.
            if let (true, Ok(path)) = (e.message.ends_with("not found!"), self.text(node)) {
                e.message = format!("No such node to move with id '{path}'!");
            }
            e
        })?;
        let PathTarget::Node(key) = target else {
            return Err(StepError::new("nodes inside an instance cannot be moved")
                .hint("hide it with U(path, {enabled: false}) and insert a new node where you want it")
                .at(node));
        };
        let new_parent = match parent {
            None => self.document().tree().node(key).parent(),
            Some(expr) => match self.parent(expr)? {
                Parent::Root => None,
                Parent::Target(PathTarget::Node(parent_key)) => {
                    let parent_node = self.document().tree().node(parent_key);
                    check_container(Some(parent_node.node_type()), parent_node.id()).map_err(|e| e.at(expr))?;
                    Some(parent_key)
                }
                Parent::Target(PathTarget::InInstance(_)) => {
                    return Err(StepError::new("nodes cannot be moved into an instance")
                        .hint("copy the node into the slot with C(node, instance/slot) and delete the original")
                        .at(expr));
                }
            },
        };
        if let Some(new_parent) = new_parent {
            // Moving an instance into its own component would make it contain itself.
            let ancestors = self.ancestor_ids(new_parent);
            let tree = self.document().tree();
            if let Some(reference) = tree
                .subtree(key)
                .filter_map(|k| tree.node(k).props.text(&Key::Ref))
                .find(|reference| ancestors.iter().any(|a| a == reference))
            {
                return Err(contains_itself(reference).at(node));
            }
        }
        let index = match index {
            None => usize::MAX,
            Some(expr) => match self.json(expr)?.value {
                JsonValue::Number(n) if n >= 0.0 && n.fract() == 0.0 => n as usize,
                _ => return Err(StepError::new("the index must be a whole number, 0 or more").at(expr)),
            },
        };
        self.note_before(key);
        self.tx.move_node(key, new_parent, index).map_err(|e| StepError::new(e.to_string()).at(node))?;
        if new_parent.is_none() && !self.document().tree().node(key).props.contains(&Key::X) {
            self.place_top_level(key);
        }
        self.touch(key);
        let id = self.document().tree().node(key).id().to_owned();
        let parent_id =
            new_parent.map_or_else(|| "document".to_owned(), |p| self.document().tree().node(p).id().to_owned());
        self.state.results.push(OpResult::Moved { id: id.clone(), parent: parent_id });
        Ok(id)
    }

    /// `D(node)`. A node that does not exist is not an error: there is nothing to delete.
    pub(in crate::script::exec) fn delete(&mut self, node: &Expr) -> Step<()> {
        let path = self.text(node)?;
        let target = match self.resolve(&path) {
            Ok(target) => target,
            Err(_) => {
                self.state.results.push(OpResult::AlreadyAbsent { id: path });
                return Ok(());
            }
        };
        match target {
            PathTarget::Node(key) => {
                let id = self.document().tree().node(key).id().to_owned();
                self.tx.remove(key);
                self.state.results.push(OpResult::Deleted { id });
            }
            PathTarget::InInstance(target) if target.in_overrides => {
                self.edit_overrides(&target, |_, descendants, _| {
                    remove_owned(descendants, &target.id);
                    Ok(())
                })?;
                self.state.results.push(OpResult::Deleted { id: path });
            }
            // A replacement without an id (a file's: the node its key names, DECISIONS) is the
            // instance's own content like one with an id: deleting it removes the override,
            // and the component's node it replaced shows again, which the answer says.
            PathTarget::InInstance(target) if self.replaced_without_id(&target) => {
                self.edit_overrides(&target, |_, descendants, _| {
                    descendants.0.entries.retain(|(key, _)| *key != target.override_key);
                    Ok(())
                })?;
                self.state.results.push(OpResult::Deleted { id: path.clone() });
                let message = format!(
                    "Node '{path}' replaced the component's node '{}', which shows again now that the replacement is deleted. To show nothing there, hide it: U(\"{path}\", {{enabled: false}}).",
                    target.override_key
                );
                self.state
                    .said
                    .push(crate::diagnostic::Diagnostic::note("replacement-deleted", message).at_node(&path));
            }
            PathTarget::InInstance(_) => {
                return Err(StepError::new(format!("Node '{path}' is inside an instance and cannot be deleted"))
                    .hint(format!("hide it instead: U(\"{path}\", {{enabled: false}})"))
                    .at(node));
            }
        }
        Ok(())
    }

    /// True when `target` is named by its instance's replacement without an id (`"Lbl01":
    /// {"type": "rectangle", …}`): the replacement is the instance's own content.
    fn replaced_without_id(&self, target: &InstanceNode) -> bool {
        match self.document().tree().node(target.instance).props.get(&Key::Descendants) {
            Some(Value::Descendants(descendants)) => descendants
                .0
                .iter()
                .any(|(key, tree)| *key == target.override_key && tree.is_replacement() && tree.props.id().is_none()),
            _ => false,
        }
    }
}
