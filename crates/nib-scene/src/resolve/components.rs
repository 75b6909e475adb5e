//! Components and instance paths: which node a `ref` copies, and which node a path such as
//! `card/title` or `inst/row/icon` addresses inside an instance.
//!
//! Paths name nodes by id. Inside an instance, an id addresses a node of the component (however
//! deep) or of the instance's own override content; a nested instance adds a segment, a
//! component that is itself an instance does not.

use crate::diagnostic::Diagnostic;
use crate::doc::{Descendants, Document, Key, NodeKey, NodeTree, NodeType, Props, Value};

/// Deepest chain of instances followed (a component containing an instance of a component…).
/// Cycles are cut here instead of hanging.
pub(crate) const MAX_INSTANCE_DEPTH: usize = 32;

/// What a document refers to outside itself: documents imported by alias (`"imports": {"h":
/// "../lib.pen"}`) and the JavaScript files of its script nodes (`"scriptUri": "bars.js"`). The
/// host reads them (tools/workspace.rs); resolving only asks.
pub trait Library {
    /// The document imported as `alias`, if it is loaded.
    fn imported(&self, alias: &str) -> Option<&Document>;

    /// The source of the script file `uri` (as a script node writes it), or why there is none.
    fn script(&self, uri: &str) -> Result<std::sync::Arc<str>, Diagnostic> {
        Err(super::generated::script_problem(format!("the script '{uri}' was not read"))
            .with_hint("nib reads scripts beside the document it opens"))
    }
}

/// A library without imported documents.
pub struct NoImports;

impl Library for NoImports {
    fn imported(&self, _alias: &str) -> Option<&Document> {
        None
    }
}

/// A component: the document that holds it and its node there.
#[derive(Clone, Copy)]
pub struct Component<'a> {
    /// The document holding the component (the current one, or an imported one).
    pub document: &'a Document,
    /// The component's root node.
    pub key: NodeKey,
    /// The import alias of `document`, `None` for the current document.
    pub alias: Option<&'a str>,
}

impl<'a> Component<'a> {
    /// The component root's properties.
    pub fn props(&self) -> &'a Props {
        &self.document.tree().node(self.key).props
    }
}

/// Why a component could not be found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ComponentError {
    /// No node has the id.
    #[error("component '{0}' not found")]
    NotFound(String),
    /// The alias is not an import of the document, or the imported file is not loaded.
    #[error("component '{reference}' is in the import '{alias}', which is not loaded")]
    ImportNotLoaded {
        /// The full reference.
        reference: String,
        /// The alias.
        alias: String,
    },
    /// The component contains an instance of itself (or its chain of instances is deeper than
    /// [`MAX_INSTANCE_DEPTH`]).
    #[error("component '{0}' contains an instance of itself")]
    ContainsItself(String),
}

/// Finds the component a `ref` names: `"Cpvvc"` in `document`, `"h:Cpvvc"` in the import `h`.
pub fn find_component<'a>(
    document: &'a Document,
    library: &'a dyn Library,
    reference: &str,
) -> Result<Component<'a>, ComponentError> {
    if let Some((alias, id)) = reference.split_once(':')
        && let Some((alias, _)) = document.imports().and_then(|imports| imports.iter().find(|(a, _)| *a == alias))
    {
        let imported = library
            .imported(alias)
            .ok_or_else(|| ComponentError::ImportNotLoaded { reference: reference.into(), alias: alias.into() })?;
        return imported
            .node_by_id(id)
            .map(|key| Component { document: imported, key, alias: Some(alias) })
            .ok_or_else(|| ComponentError::NotFound(reference.into()));
    }
    document
        .node_by_id(reference)
        .map(|key| Component { document, key, alias: None })
        .ok_or_else(|| ComponentError::NotFound(reference.into()))
}

/// The paths (`instance/id`) that reach a node with the id `id` inside the document's
/// instances, at most `limit` of them, in document order: what an agent means who addressed a
/// node it saw inside an instance by its own id, which no node of the document tree has (the
/// id is the component's). Only nodes directly inside an instance's component are found, not
/// those inside an instance nested in it.
pub fn instance_paths_to(document: &Document, library: &dyn Library, id: &str, limit: usize) -> Vec<String> {
    if id.is_empty() || id.contains('/') {
        return Vec::new();
    }
    let tree = document.tree();
    tree.walk()
        .filter(|key| tree.node(*key).node_type() == NodeType::Ref)
        .map(|key| format!("{}/{id}", tree.node(key).id()))
        .filter(|path| matches!(resolve_path(document, library, path), Ok(PathTarget::InInstance(_))))
        .take(limit)
        .collect()
}

/// What a path addresses.
#[derive(Debug, Clone, PartialEq)]
pub enum PathTarget {
    /// A node of the document tree.
    Node(NodeKey),
    /// A node inside an instance.
    InInstance(InstanceNode),
}

/// A node inside an instance, addressed through the outermost instance in the document tree.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceNode {
    /// The instance in the document tree.
    pub instance: NodeKey,
    /// The `descendants` key that overrides this node: ids joined by `/` ("label", "row/icon").
    pub override_key: String,
    /// The node's type, when known.
    pub node_type: Option<NodeType>,
    /// True when the node is part of the instance's own override content (a replacement or a
    /// child supplied for a slot): it is edited in place there, by its id.
    pub in_overrides: bool,
    /// The id the path ends with.
    pub id: String,
}

/// Why a path does not address a node.
#[derive(Debug, Clone, PartialEq)]
pub struct PathError {
    /// The path as given.
    pub path: String,
    /// The segment that was not found.
    pub missing: String,
    /// The node in which it was looked for ("" at the top level).
    pub within: String,
    /// Ids that do exist there (at most [`PathError::LIST_LIMIT`]).
    pub available: Vec<String>,
    /// When the segment names the instance's component rather than a node inside it.
    pub names_the_component: bool,
    /// Something else went wrong (a missing component or import, a cycle).
    pub reason: Option<String>,
}

impl PathError {
    /// How many existing ids an error lists.
    pub(crate) const LIST_LIMIT: usize = 20;
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Node '{}' not found!", self.path)?;
        if let Some(reason) = &self.reason {
            write!(f, " {reason}")?;
        }
        Ok(())
    }
}

/// One instance on the way down a path: the `ref` node's properties and its component.
struct Level<'a> {
    props: &'a Props,
    component: Option<Component<'a>>,
    /// Override-key prefix of nodes inside this instance ("" for the outermost).
    prefix: String,
}

/// Resolves `path` (ids joined by `/`) in `document`.
pub fn resolve_path(document: &Document, library: &dyn Library, path: &str) -> Result<PathTarget, Box<PathError>> {
    let segments: Vec<&str> = path.split('/').collect();
    let error = |missing: &str, within: &str, available: Vec<String>| {
        Box::new(PathError {
            path: path.into(),
            missing: missing.into(),
            within: within.into(),
            available,
            names_the_component: false,
            reason: None,
        })
    };
    let Some(mut node) = document.node_by_id(segments[0]) else {
        return Err(error(segments[0], "", Vec::new()));
    };
    let mut rest = &segments[1..];
    // Through plain nodes of the document tree, a path may name any node below.
    while let Some(segment) = rest.first() {
        if document.tree().node(node).node_type() == NodeType::Ref {
            break;
        }
        match document.node_by_id(segment) {
            Some(below) if below != node && document.tree().is_ancestor(node, below) => {
                node = below;
                rest = &rest[1..];
            }
            _ => {
                let available = document.tree().subtree(node).skip(1).map(|k| document.tree().node(k).id().to_owned());
                return Err(error(
                    segment,
                    document.tree().node(node).id(),
                    available.take(PathError::LIST_LIMIT).collect(),
                ));
            }
        }
    }
    if rest.is_empty() {
        return Ok(PathTarget::Node(node));
    }
    let (last, through) = rest.split_last().unwrap_or((&"", &[]));
    if rest.len() > MAX_INSTANCE_DEPTH {
        let mut e = error(last, document.tree().node(node).id(), Vec::new());
        e.reason = Some(format!("Instances nest at most {MAX_INSTANCE_DEPTH} levels deep."));
        return Err(e);
    }
    let walk = InstanceWalk { document, library, instance: node };
    let top_props = &document.tree().node(node).props;
    let mut level =
        Level { props: top_props, component: component_of(document, None, library, top_props), prefix: String::new() };
    for segment in through {
        let found = walk.find_segment(&level, segment).map_err(|e| with_path(e, path))?;
        level = Level {
            props: found.props,
            component: component_of(found.document, found.alias, library, found.props),
            prefix: format!("{}{}/", level.prefix, found.name(segment)),
        };
    }
    let found = walk.find_segment(&level, last).map_err(|e| with_path(e, path))?;
    let id = found.name(last);
    let spelled = format!("{}{id}", level.prefix);
    // Another key may name the same node as Pen reads keys (a bare id for slot content): an
    // edit goes to the key in force, since a key added beside it would win whole over it and
    // hide what it sets.
    let other_key = descendants(top_props)
        .is_some_and(|d| d.0.iter().any(|(key, _)| *key != spelled && key.rsplit('/').next() == Some(id.as_str())));
    let override_key = match other_key && !found.in_overrides {
        true => super::scene::key_in_force(document, library, node, &spelled).unwrap_or(spelled),
        false => spelled,
    };
    Ok(PathTarget::InInstance(InstanceNode {
        instance: node,
        override_key,
        node_type: found.props.node_type(),
        in_overrides: found.in_overrides,
        id,
    }))
}

fn with_path(mut error: Box<PathError>, path: &str) -> Box<PathError> {
    error.path = path.into();
    error
}

/// The outermost instance a path enters, and where to look things up.
struct InstanceWalk<'a> {
    document: &'a Document,
    library: &'a dyn Library,
    instance: NodeKey,
}

/// A node found for a path segment.
struct Found<'a> {
    props: &'a Props,
    /// The document holding it (an imported one for imported components), and its alias.
    document: &'a Document,
    alias: Option<&'a str>,
    in_overrides: bool,
    /// Found in the document's own override content (its ids are the document's).
    in_document: bool,
}

impl Found<'_> {
    /// The name a path and an override key give the node found for `segment`: a node of an
    /// imported component is named with its alias (`kit:label`), as Pen writes descendant
    /// keys and as the Scene names it, however the path spelled it. An override keyed by the
    /// bare id would match nothing.
    fn name(&self, segment: &str) -> String {
        match self.alias {
            Some(alias) if !self.in_document && !segment.starts_with(&format!("{alias}:")) => {
                format!("{alias}:{segment}")
            }
            _ => segment.to_owned(),
        }
    }
}

impl<'a> InstanceWalk<'a> {
    /// Looks `segment` up at `level`: first in the outermost instance's own override content
    /// (edited in place), then in a nested instance's overrides, then in the component.
    fn find_segment(&self, level: &Level<'a>, segment: &str) -> Result<Found<'a>, Box<PathError>> {
        let top_overrides = descendants(&self.document.tree().node(self.instance).props);
        if let Some(tree) = top_overrides.and_then(|d| find_in_overrides(d, segment)) {
            return Ok(Found {
                props: &tree.props,
                document: self.document,
                alias: None,
                in_overrides: true,
                in_document: true,
            });
        }
        let nested_overrides = if level.prefix.is_empty() { None } else { descendants(level.props) };
        if let Some(tree) = nested_overrides.and_then(|d| find_in_overrides(d, segment)) {
            return Ok(Found {
                props: &tree.props,
                document: self.document,
                alias: None,
                in_overrides: false,
                in_document: true,
            });
        }
        if let Some((component, props)) = level.component.and_then(|c| find_in_component(self.library, c, segment)) {
            return Ok(Found {
                props,
                document: component.document,
                alias: component.alias,
                in_overrides: false,
                in_document: false,
            });
        }
        let within = format!("{}{}", self.document.tree().node(self.instance).id(), level.prefix_path());
        Err(Box::new(PathError {
            path: String::new(),
            missing: segment.into(),
            within,
            available: available_in(level, top_overrides, self.library),
            names_the_component: level.props.text(&Key::Ref) == Some(segment),
            reason: level
                .component
                .is_none()
                .then(|| missing_component_reason(self.document, self.library, level.props)),
        }))
    }
}

impl Level<'_> {
    fn prefix_path(&self) -> String {
        if self.prefix.is_empty() { String::new() } else { format!("/{}", self.prefix.trim_end_matches('/')) }
    }
}

fn descendants(props: &Props) -> Option<&Descendants> {
    match props.get(&Key::Descendants) {
        Some(Value::Descendants(d)) => Some(d),
        _ => None,
    }
}

/// The component of the instance `props`, which lives in `document` (imported as `alias`).
fn component_of<'a>(
    document: &'a Document,
    alias: Option<&'a str>,
    library: &'a dyn Library,
    props: &Props,
) -> Option<Component<'a>> {
    if props.node_type() != Some(NodeType::Ref) {
        return None;
    }
    let mut component = find_component(document, library, props.text(&Key::Ref)?).ok()?;
    // A component found in an imported document by a plain id keeps that document's alias.
    if component.alias.is_none() && std::ptr::eq(component.document, document) {
        component.alias = alias;
    }
    Some(component)
}

fn missing_component_reason(document: &Document, library: &dyn Library, props: &Props) -> String {
    match props.text(&Key::Ref) {
        None => "The node is not an instance.".into(),
        Some(reference) => match find_component(document, library, reference) {
            Err(e) => format!("The instance's {e}."),
            Ok(_) => String::new(),
        },
    }
}

/// A node with `id` in override content: a replacement root or a node supplied as children.
pub fn find_in_overrides<'a>(descendants: &'a Descendants, id: &str) -> Option<&'a NodeTree> {
    fn search<'a>(tree: &'a NodeTree, id: &str) -> Option<&'a NodeTree> {
        if tree.props.id() == Some(id) && tree.props.node_type().is_some() {
            return Some(tree);
        }
        tree.children.iter().find_map(|child| search(child, id))
    }
    descendants.0.iter().find_map(|(_, tree)| search(tree, id))
}

/// A node with `id` in override content, mutably.
pub fn find_in_overrides_mut<'a>(descendants: &'a mut Descendants, id: &str) -> Option<&'a mut NodeTree> {
    fn search<'a>(tree: &'a mut NodeTree, id: &str) -> Option<&'a mut NodeTree> {
        if tree.props.id() == Some(id) && tree.props.node_type().is_some() {
            return Some(tree);
        }
        tree.children.iter_mut().find_map(|child| search(child, id))
    }
    descendants.0.entries.iter_mut().find_map(|(_, tree)| search(tree, id))
}

/// A node with `id` inside `component`, not inside nested instances. A component that is itself
/// an instance is searched through to its own component, and its overrides' content (slot
/// children it supplies, replacements) counts as its own.
fn find_in_component<'a>(
    library: &'a dyn Library,
    component: Component<'a>,
    id: &str,
) -> Option<(Component<'a>, &'a Props)> {
    let mut current = component;
    for _ in 0..MAX_INSTANCE_DEPTH {
        let tree = current.document.tree();
        // Nodes of imported components are also named with the alias: "h:sm4F5".
        let local = current.alias.and_then(|alias| id.strip_prefix(alias)?.strip_prefix(':')).unwrap_or(id);
        if let Some(found) = current.document.node_by_id(local)
            && found != current.key
            && tree.is_ancestor(current.key, found)
            && !passes_through_instance(current, found)
        {
            return Some((current, &tree.node(found).props));
        }
        if let Some(tree) = descendants(current.props()).and_then(|d| find_in_overrides(d, local)) {
            return Some((current, &tree.props));
        }
        current = component_of(current.document, current.alias, library, current.props())?;
    }
    None
}

/// True when a `ref` lies strictly between the component root and `key`.
fn passes_through_instance(component: Component, key: NodeKey) -> bool {
    let tree = component.document.tree();
    std::iter::successors(tree.node(key).parent(), |k| tree.node(*k).parent())
        .take_while(|k| *k != component.key)
        .any(|k| tree.node(k).node_type() == NodeType::Ref)
}

/// Ids an agent could address at this level, for the not-found message.
fn available_in(level: &Level, top_overrides: Option<&Descendants>, library: &dyn Library) -> Vec<String> {
    let mut ids = Vec::new();
    if let Some(overrides) = top_overrides {
        for (_, tree) in overrides.0.iter() {
            collect_tree_ids(tree, &mut ids);
        }
    }
    let mut component = level.component;
    for _ in 0..MAX_INSTANCE_DEPTH {
        let Some(current) = component else { break };
        let tree = current.document.tree();
        // Nodes of an imported component are named with its alias, as paths should name them.
        let named = |id: &str| match current.alias {
            Some(alias) => format!("{alias}:{id}"),
            None => id.to_owned(),
        };
        ids.extend(
            tree.subtree(current.key)
                .skip(1)
                .filter(|k| !passes_through_instance(current, *k))
                .map(|k| named(tree.node(k).id())),
        );
        if let Some(overrides) = descendants(current.props()) {
            for (_, content) in overrides.0.iter() {
                collect_tree_ids(content, &mut ids);
            }
        }
        component = component_of(current.document, current.alias, library, current.props());
    }
    ids.dedup();
    ids.truncate(PathError::LIST_LIMIT);
    ids
}

fn collect_tree_ids(tree: &NodeTree, ids: &mut Vec<String>) {
    if let (Some(id), Some(_)) = (tree.props.id(), tree.props.node_type()) {
        ids.push(id.to_owned());
    }
    for child in &tree.children {
        collect_tree_ids(child, ids);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIT: &str = r#"{"version": "2.8", "children": [
        {"type": "frame", "id": "Card", "reusable": true, "children": [
            {"type": "text", "id": "title"},
            {"type": "frame", "id": "body", "children": [{"type": "text", "id": "deep"}]},
            {"type": "ref", "id": "btn", "ref": "Button"}
        ]},
        {"type": "frame", "id": "Button", "reusable": true, "children": [{"type": "text", "id": "label"}]},
        {"type": "ref", "id": "Fancy", "ref": "Card", "reusable": true},
        {"type": "frame", "id": "page", "children": [
            {"type": "ref", "id": "c1", "ref": "Card", "descendants": {"body": {"children": [{"type": "text", "id": "extra"}]}}},
            {"type": "ref", "id": "f1", "ref": "Fancy"},
            {"type": "text", "id": "plain"}
        ]},
        {"type": "ref", "id": "loop", "ref": "loop"}
    ]}"#;

    fn document() -> Document {
        Document::load(KIT).unwrap().document
    }

    fn target(document: &Document, path: &str) -> InstanceNode {
        match resolve_path(document, &NoImports, path) {
            Ok(PathTarget::InInstance(node)) => node,
            other => panic!("{path}: {other:?}"),
        }
    }

    #[test]
    fn plain_ids_and_paths_below_plain_nodes() {
        let document = document();
        assert_eq!(
            resolve_path(&document, &NoImports, "page"),
            Ok(PathTarget::Node(document.node_by_id("page").unwrap()))
        );
        assert_eq!(
            resolve_path(&document, &NoImports, "page/plain"),
            Ok(PathTarget::Node(document.node_by_id("plain").unwrap()))
        );
    }

    #[test]
    fn ids_inside_instances_at_any_depth() {
        let document = document();
        let title = target(&document, "c1/title");
        assert_eq!(
            (title.override_key.as_str(), title.node_type, title.in_overrides),
            ("title", Some(NodeType::Text), false)
        );
        assert_eq!(target(&document, "c1/deep").override_key, "deep");
        let label = target(&document, "c1/btn/label");
        assert_eq!(label.override_key, "btn/label");
        assert_eq!(label.node_type, Some(NodeType::Text));
    }

    #[test]
    fn slot_content_is_addressed_by_its_own_id() {
        let document = document();
        let extra = target(&document, "c1/extra");
        assert!(extra.in_overrides);
        assert_eq!(extra.node_type, Some(NodeType::Text));
    }

    #[test]
    fn a_component_that_is_an_instance_adds_no_segment() {
        let document = document();
        assert_eq!(target(&document, "f1/title").node_type, Some(NodeType::Text));
    }

    #[test]
    fn misses_list_what_exists() {
        let document = document();
        let e = resolve_path(&document, &NoImports, "c1/nope").unwrap_err();
        assert_eq!(e.within, "c1");
        assert!(e.available.contains(&"title".to_owned()) && e.available.contains(&"extra".to_owned()));
        assert!(!e.available.contains(&"label".to_owned()), "nested instance internals need their own segment");
        let e = resolve_path(&document, &NoImports, "c1/Card").unwrap_err();
        assert!(e.names_the_component);
        assert_eq!(e.to_string(), "Node 'c1/Card' not found!");
        assert!(resolve_path(&document, &NoImports, "ghost").is_err());
    }

    #[test]
    fn self_referencing_instances_do_not_hang() {
        let document = document();
        assert!(resolve_path(&document, &NoImports, "loop/x").is_err());
    }
}
