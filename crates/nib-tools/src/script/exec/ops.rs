//! The seven operations: I, C, U, R, M, D, G.

use std::collections::HashSet;

use super::overrides::{append_child, check_container, merge, remove_owned, replace, target_tree};
use super::place::{Direction, Rect, rect_of, size_of, top_level_boxes};
use super::{Parent, Runner, Step, StepError};
use crate::doc::json::{Json, JsonValue};
use crate::doc::values::{Fill, Fills, ImageFill, ImageMode};
use crate::doc::{Descendants, Key, NodeKey, NodeTree, NodeType, Props, Value, VarOr};
use crate::images::{ImageKind, ImageRequest, Orientation};
use crate::layout::space::{free_spot, next_to};
use crate::resolve::{InstanceNode, PathTarget};
use crate::script::ast::Expr;
use crate::script::report::OpResult;
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
    /// `I(parent, node)`
    pub(super) fn insert(&mut self, parent: &Expr, node: &Expr, binding: Option<&str>) -> Step<String> {
        let parent_target = self.parent(parent)?;
        let mut tree = self.new_tree(node)?;
        Self::default_name(&mut tree, binding);
        let (id, json) = self.add_tree(parent_target, tree, None, true).map_err(|e| e.at(parent))?;
        self.state.results.push(OpResult::Inserted { id: id.clone(), node: json });
        Ok(id)
    }

    /// `C(source, parent, overrides?)`
    pub(super) fn copy(
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

    /// `U(path, props)`
    pub(super) fn update(&mut self, path: &Expr, props: &Expr) -> Step<String> {
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
    pub(super) fn replace(&mut self, path: &Expr, node: &Expr, binding: Option<&str>) -> Step<String> {
        let target = self.target(path)?;
        let mut tree = self.new_tree(node)?;
        Self::default_name(&mut tree, binding);
        match target {
            PathTarget::Node(key) => self.replace_node(key, tree),
            PathTarget::InInstance(target) => self.replace_in_instance(&target, tree),
        }
    }

    /// `M(node, parent?, index?)`
    pub(super) fn move_node(&mut self, node: &Expr, parent: Option<&Expr>, index: Option<&Expr>) -> Step<String> {
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
    pub(super) fn delete(&mut self, node: &Expr) -> Step<()> {
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

    /// `G(node, "ai" | "stock", prompt)`
    pub(super) fn generate(&mut self, node: &Expr, kind: &Expr, prompt: &Expr) -> Step<String> {
        let kind_text = self.text(kind)?;
        let kind_value = ImageKind::parse(&kind_text).ok_or_else(|| {
            StepError::new(format!("the image source must be \"ai\" or \"stock\", found {kind_text:?}")).at(kind)
        })?;
        let prompt_text = self.text(prompt)?;
        if prompt_text.trim().is_empty() {
            return Err(StepError::new("the prompt is empty")
                .hint("describe the image, e.g. \"warm bakery interior\"")
                .at(prompt));
        }
        let target = self.target(node)?;
        let (node_type, path) = match &target {
            PathTarget::Node(key) => {
                (Some(self.document().tree().node(*key).node_type()), self.document().tree().node(*key).id().to_owned())
            }
            PathTarget::InInstance(t) => {
                (t.node_type, format!("{}/{}", self.document().tree().node(t.instance).id(), t.override_key))
            }
        };
        if let Some(node_type) = node_type
            && !matches!(node_type, NodeType::Frame | NodeType::Rectangle)
        {
            return Err(StepError::new(format!(
                "Only frames and rectangles take image fills; '{path}' is {}",
                node_type.with_article()
            ))
            .hint("G() a rectangle or frame, e.g. one inserted for the image")
            .at(node));
        }
        let folder = self.context.folder.ok_or_else(|| {
            StepError::new("the document is not stored in a folder, so the image has nowhere to go")
                .hint("open or save the document as a file first")
        })?;
        // The node's shape, when its own numbers give it, lets services pick a fitting picture.
        let orientation = match &target {
            PathTarget::Node(key) => {
                let (width, height) = super::place::size_of(&self.document().tree().node(*key).props);
                Orientation::of(width, height)
            }
            PathTarget::InInstance(_) => None,
        };
        let image = self
            .context
            .images
            .image(&ImageRequest {
                kind: kind_value,
                prompt: &prompt_text,
                folder,
                orientation,
                confinement: self.context.confinement,
            })
            .map_err(|e| StepError::new(format!("no image for the prompt: {e}")).at(prompt))?;
        self.state.created.extend(image.created.clone());
        let fill = ImageFill {
            enabled: Some(VarOr::Value(true)),
            url: Some(image.url.clone()),
            // Cover, in the word of the document's version (2.20 renamed fill to cover).
            mode: Some(if crate::doc::format::Version::read_as(self.document().version()).cover_contain_images() {
                ImageMode::Cover
            } else {
                ImageMode::Fill
            }),
            ..ImageFill::default()
        };
        let mut props = Props::default();
        props.set(Key::Fill, Value::Fills(Fills::One(Fill::Image(Box::new(fill)))));
        if let Some(metadata) =
            image.metadata.as_deref().and_then(|m| crate::doc::json::parse(m).ok()).and_then(|p| p.value)
        {
            props.set(Key::Metadata, Value::Json(crate::doc::json::RawJson::from_json(&metadata)));
        }
        match target {
            PathTarget::Node(key) => {
                self.note_before(key);
                for (name, value) in props.iter() {
                    self.tx.set(key, name.clone(), Some(value.clone()));
                }
                self.touch(key);
            }
            PathTarget::InInstance(target) => {
                self.edit_overrides(&target, |_, descendants, _| {
                    let tree = target_tree(descendants, &target);
                    for (name, value) in props.iter() {
                        tree.props.set(name.clone(), value.clone());
                    }
                    Ok(())
                })?;
            }
        }
        self.state.results.push(OpResult::ImageAdded {
            id: path.clone(),
            prompt: prompt_text,
            url: image.url,
            note: image.note,
        });
        Ok(path)
    }

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
                    // As Pencil does: the layout places the node, so x and y would only mislead
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

/// Removes a member from an object argument, returning its value.
fn take_member(json: &mut Json, key: &str) -> Option<Json> {
    let JsonValue::Object(members) = &mut json.value else { return None };
    let index = members.iter().position(|m| m.key == key)?;
    Some(members.remove(index).value)
}

fn is_true(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::Bool(VarOr::Value(true))))
}

fn apply_props(props: &mut Props, update: &Update) {
    for name in &update.remove {
        props.remove(name);
    }
    for (name, value) in update.set.iter() {
        props.set(name.clone(), value.clone());
    }
}

/// Sets x and y right after the id, where Pencil writes them for new nodes.
fn set_position(props: &mut Props, x: f64, y: f64) {
    let after_id = props.iter().position(|(k, _)| *k == Key::Id).map_or(0, |i| i + 1);
    props.insert_at(after_id, Key::X, Value::Number(VarOr::Value(x)));
    props.insert_at(after_id + 1, Key::Y, Value::Number(VarOr::Value(y)));
}

fn find_by_id_mut<'a>(tree: &'a mut NodeTree, id: &str) -> Option<&'a mut NodeTree> {
    if tree.props.id() == Some(id) {
        return Some(tree);
    }
    tree.children.iter_mut().find_map(|child| find_by_id_mut(child, id))
}

/// The error for an instance placed inside its own component.
fn contains_itself(reference: &str) -> StepError {
    StepError::new(format!("an instance of '{reference}' cannot be placed inside '{reference}' itself"))
        .hint("a component that contains itself would never end")
}

/// The ids of `tree`'s nodes, itself first, in document order.
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

fn preorder_ids(tree: &NodeTree) -> Vec<String> {
    let mut ids = vec![tree.props.id().unwrap_or_default().to_owned()];
    for child in &tree.children {
        ids.extend(preorder_ids(child));
    }
    ids
}

/// True for a node with `layoutPosition: "absolute"`: its x and y place it even inside a flex
/// layout.
fn placed_absolutely(props: &crate::doc::Props) -> bool {
    matches!(
        props.get(&Key::LayoutPosition),
        Some(Value::LayoutPosition(crate::doc::VarOr::Value(crate::doc::values::LayoutPosition::Absolute)))
    )
}
