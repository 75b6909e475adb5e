//! Expanding an instance: finding what its component starts from (following components that
//! are themselves instances), stacking the overrides that apply inside it, and building its
//! content under them. The part of the Scene builder that knows about components.

use std::rc::Rc;

use super::{Builder, ChainEntry, Context, Layer, NodeInScope, Scope, Source, descendants_of, import_not_loaded};
use crate::doc::{Descendants, Document, Key, NodeKey, NodeType, Props, Value};
use crate::resolve::budget::ChainLink;
use crate::resolve::components::{ComponentError, MAX_INSTANCE_DEPTH, find_component};
use crate::resolve::override_keys::{Ancestor, Identity, Writer};

impl<'a> Builder<'a> {
    /// Expands an instance: its component's content under the instance's overrides.
    pub(super) fn expand(
        &mut self,
        instance: Instance<'a>,
        scene_id: String,
        context: &Context<'a>,
        parent: Option<u32>,
        source_key: Option<NodeKey>,
    ) {
        let reference = instance.props.text(&Key::Ref).unwrap_or_default().to_owned();
        let base = match self.component_base(context.scope, &reference, &context.components, 0) {
            Ok(base) => base,
            Err(error) => {
                match &error {
                    ComponentError::ImportNotLoaded { alias, .. } => {
                        let problem = import_not_loaded(&scene_id, alias, error.to_string());
                        self.part.problems.push(problem);
                    }
                    _ => self.problem(&scene_id, error.to_string()),
                }
                let mut props = instance.props;
                self.substitute(&mut props, context, &scene_id);
                self.push(scene_id, props, parent, source_key, instance.copied);
                return;
            }
        };
        let copied = instance.copied + base.copied;
        // The component root's properties, then the instance's own on top.
        let mut props = base.props;
        props.remove(&Key::Reusable);
        for (name, value) in instance.props.iter() {
            if !matches!(name, Key::Type | Key::Ref | Key::Descendants | Key::Children) {
                props.set(name.clone(), value.clone());
            }
        }
        // The instance's own theme is in `context` already; the component's is in its file's
        // terms.
        let theme = match props.get(&Key::Theme) {
            Some(Value::Theme(_)) if instance.props.contains(&Key::Theme) => context.theme.clone(),
            Some(Value::Theme(selection)) => context.theme.with_in(selection, base.scope.alias),
            _ => context.theme.clone(),
        };
        // Outermost first: enclosing instances (now one segment further away), this instance's
        // own overrides, then those of the components it is built from, nearest first.
        let mut layers: Vec<Layer<'a>> = context
            .layers
            .iter()
            .map(|layer| Layer {
                prefix: format!("{}{}/", layer.prefix, instance.node.seen_from(layer.scope.document)),
                ..layer.clone()
            })
            .collect();
        // The instance in the chain of ancestors: keys of its overrides (and of its
        // component's) are read from here down.
        let enters: Rc<[Identity]> = Rc::from(base.components.clone());
        let depth = context.ancestors.as_ref().map_or(0, |a| a.depth) + 1;
        let ancestor = Rc::new(Ancestor {
            node: instance.node,
            writer: instance.writer,
            enters: Rc::clone(&enters),
            depth,
            parent: context.ancestors.clone(),
        });
        let own_layer = instance.overrides.map(|descendants| {
            self.next_layer += 1;
            let mut layer = Layer::new(self.next_layer, descendants, context.scope, instance.writer.component);
            layer.enters = Rc::clone(&enters);
            layer.depth = depth;
            layer
        });
        layers.extend(own_layer.clone());
        layers.extend(base.layers.into_iter().rev().map(|layer| Layer { depth, ..layer }));
        let mut components = context.components.clone();
        components.extend(base.components);
        let inner = Context {
            scope: base.scope,
            theme,
            prefix: format!("{scene_id}/"),
            layers,
            components,
            depth: context.depth,
            writer: Writer { component: Some(base.children_writer), in_overrides: false },
            ancestors: Some(ancestor),
        };
        self.substitute(&mut props, &inner, &scene_id);
        self.chain.push(ChainEntry {
            link: ChainLink { instance: instance.node.seen_from(self.root), component: reference.clone() },
            document_node: source_key,
        });
        let Some(key) = self.push(scene_id.clone(), props, parent, source_key, copied) else { return };
        // Children an instance has in the document tree are document nodes: they keep their own
        // ids and are not under the instance's overrides.
        let (children, children_context) = match instance.own_children {
            Some(own) if source_key.is_some() => {
                (own, Context { prefix: String::new(), layers: Vec::new(), writer: context.writer, ..inner.clone() })
            }
            Some(own) => (own, Context { writer: context.writer, ..inner.clone() }),
            None => (base.children, inner.clone()),
        };
        self.build_children(children, &children_context, key);
        self.chain.pop();
        if self.part.error.is_some() {
            // Overrides further on were never reached: not reported as matching nothing.
            return;
        }
        if let Some(layer) = own_layer {
            for (path, _) in layer.descendants.0.iter() {
                if !self.used.contains(&(layer.id, path.to_owned())) {
                    self.problem(&scene_id, format!("override '{path}' matches no node of component '{reference}'"));
                }
            }
        }
    }

    /// What an instance of `reference` starts from: the component root's properties and
    /// children, following components that are themselves instances (which add no path segment
    /// but do add their overrides, innermost last).
    fn component_base(
        &mut self,
        scope: Scope<'a>,
        reference: &str,
        expanding: &[(usize, NodeKey)],
        depth: usize,
    ) -> Result<Base<'a>, ComponentError> {
        let component = match find_component(scope.document, self.library, reference) {
            Ok(component) => component,
            Err(error) => {
                // The component may appear anywhere later: any edit must rebuild this part.
                self.part.depends_on_everything = true;
                return Err(error);
            }
        };
        if std::ptr::eq(component.document, self.root) {
            let home = self.root.tree().root_of(component.key);
            if home != self.part.root && !self.part.depends_on.contains(&home) {
                self.part.depends_on.push(home);
            }
        }
        // A component found in an import is named with that import's alias; one found in an
        // imported document itself keeps that document's alias.
        let component_scope = Scope { document: component.document, alias: component.alias.or(scope.alias) };
        let identity = (component.document as *const Document as usize, component.key);
        if depth >= MAX_INSTANCE_DEPTH || expanding.contains(&identity) {
            return Err(ComponentError::ContainsItself(reference.to_owned()));
        }
        let root = &component.document.tree().node(component.key).props;
        let root_source = Source::Tree(component_scope, component.key);
        let copied = self.weight(root);
        if root.node_type() != Some(NodeType::Ref) {
            return Ok(Base {
                props: root.clone(),
                children: root_source.children(),
                layers: Vec::new(),
                scope: component_scope,
                components: vec![identity],
                copied,
                children_writer: identity,
            });
        }
        let mut expanding = expanding.to_vec();
        expanding.push(identity);
        let inner_reference = root.text(&Key::Ref).unwrap_or_default().to_owned();
        let mut base = self.component_base(component_scope, &inner_reference, &expanding, depth + 1)?;
        for (name, value) in root.iter() {
            if !matches!(name, Key::Type | Key::Ref | Key::Descendants | Key::Children | Key::Id) {
                base.props.set(name.clone(), value.clone());
            }
        }
        if let Some(descendants) = descendants_of(root) {
            self.next_layer += 1;
            let mut layer = Layer::new(self.next_layer, descendants, component_scope, Some(identity));
            layer.enters = Rc::from(base.components.clone());
            base.layers.push(layer);
        }
        if root.contains(&Key::Children) {
            base.children = root_source.children();
            base.children_writer = identity;
        }
        base.components.push(identity);
        base.copied += copied;
        Ok(base)
    }
}

/// An instance about to be expanded.
pub(super) struct Instance<'a> {
    pub(super) props: Props,
    pub(super) overrides: Option<&'a Descendants>,
    pub(super) own_children: Option<Vec<Source<'a>>>,
    pub(super) node: NodeInScope<'a>,
    /// Bytes its properties copied from elsewhere (0 for a document node's own).
    pub(super) copied: usize,
    /// Who wrote the instance node (and so its overrides).
    pub(super) writer: Writer,
}

/// What an instance starts from.
struct Base<'a> {
    props: Props,
    children: Vec<Source<'a>>,
    /// Overrides of the components it is built from, innermost first.
    layers: Vec<Layer<'a>>,
    scope: Scope<'a>,
    components: Vec<(usize, NodeKey)>,
    /// Bytes of the component roots its properties come from.
    copied: usize,
    /// The component whose tree `children` are.
    children_writer: Identity,
}
