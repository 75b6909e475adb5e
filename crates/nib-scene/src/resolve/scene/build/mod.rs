//! Building one top-level part of the Scene: walking its source nodes with the overrides of the
//! instances around them applied, and adding each node against the part's budget. Expanding an
//! instance (`expand.rs`) and replacing variables (`substitute.rs`) are the builder's other two
//! jobs, each in its own file.

mod expand;
mod substitute;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use self::expand::Instance;
use super::{SceneNode, SceneOptions, ScenePart};
use crate::diagnostic::Diagnostic;
use crate::doc::format::Version;
use crate::doc::ids::IdTable;
use crate::doc::{Descendants, Document, Key, NodeKey, NodeTree, NodeType, Props, Value};
use crate::resolve::budget::{Budget, ChainLink, Limit, MAX_SCENE_DEPTH, OverBudget, ResolveError};
use crate::resolve::components::Library;
use crate::resolve::override_keys::{Ancestor, Identity, Writer};
use crate::resolve::variables::ThemeContext;
use crate::resolve::{format, generated, override_keys, shown_text};

pub(super) fn build_part(
    document: &Document,
    library: &dyn Library,
    options: SceneOptions,
    root: NodeKey,
    budget: Budget,
    allowance: Budget,
) -> ScenePart {
    let mut builder = Builder::new(document, library, options, root, budget, allowance);
    builder.build(Source::Tree(Scope { document, alias: None }, root), &Context::top(document), None);
    builder.part.nodes.shrink_to_fit();
    builder.part
}

/// The key of the overrides of `instance` (a node of `document`'s own tree) that applies to the
/// node nib spells `spelled` there (the ids of the instances between, then its own), when one
/// does: Pen's spelling of it (a bare id for slot content, `PF1/PX1`) where the file holds one,
/// so an edit through a path updates the key in force instead of adding one that would win
/// whole over it ([`override_keys`]). `None` when no key names the node, or when the
/// spelling names several nodes to which different keys apply.
pub(crate) fn key_in_force(
    document: &Document,
    library: &dyn Library,
    instance: NodeKey,
    spelled: &str,
) -> Option<String> {
    let Some(Value::Descendants(overrides)) = document.tree().node(instance).props.get(&Key::Descendants) else {
        return None;
    };
    let options = SceneOptions { expand_instances: true, substitute_variables: false };
    let mut builder = Builder::new(document, library, options, instance, Budget::DOCUMENT, Budget::DOCUMENT);
    builder.probe = Some(Probe { overrides, spelled: spelled.to_owned(), found: Vec::new() });
    builder.build(Source::Tree(Scope { document, alias: None }, instance), &Context::top(document), None);
    let found = builder.probe.map(|probe| probe.found).unwrap_or_default();
    let (first, rest) = found.split_first()?;
    rest.iter().all(|key| key == first).then_some(*first).flatten().map(str::to_owned)
}

impl<'a> Builder<'a> {
    fn new(
        document: &'a Document,
        library: &'a dyn Library,
        options: SceneOptions,
        root: NodeKey,
        budget: Budget,
        allowance: Budget,
    ) -> Builder<'a> {
        Builder {
            root: document,
            library,
            options,
            part: ScenePart {
                root,
                nodes: Vec::new(),
                ids: IdTable::default(),
                problems: Vec::new(),
                variable_problems: BTreeMap::new(),
                depends_on: Vec::new(),
                depends_on_everything: false,
                built_at: document.revision(),
                budget,
                allowance,
                spent: Budget::NONE,
                error: None,
            },
            used: HashSet::new(),
            next_layer: 0,
            chain: Vec::new(),
            weights: HashMap::new(),
            substituted: 0,
            reported_axes: HashSet::new(),
            probe: None,
        }
    }
}

impl<'a> Context<'a> {
    /// The context of a node of `document`'s own tree outside any instance.
    fn top(document: &'a Document) -> Context<'a> {
        Context {
            scope: Scope { document, alias: None },
            theme: ThemeContext::defaults(document),
            prefix: String::new(),
            layers: Vec::new(),
            components: Vec::new(),
            depth: 0,
            writer: Writer { component: None, in_overrides: false },
            ancestors: None,
        }
    }
}

/// A document and its import alias (`None` for the document being resolved).
#[derive(Clone, Copy)]
struct Scope<'a> {
    document: &'a Document,
    alias: Option<&'a str>,
}

/// Where a node's content comes from, and the document it belongs to (its variables and
/// components are the ones its names mean).
#[derive(Clone, Copy)]
enum Source<'a> {
    /// A node of a document tree (the document, or an imported one for its components).
    Tree(Scope<'a>, NodeKey),
    /// Override content (a replacement, slot children).
    Detached(Scope<'a>, &'a NodeTree),
}

impl<'a> Source<'a> {
    fn props(&self) -> &'a Props {
        match self {
            Source::Tree(scope, key) => &scope.document.tree().node(*key).props,
            Source::Detached(_, tree) => &tree.props,
        }
    }

    fn children(&self) -> Vec<Source<'a>> {
        match *self {
            Source::Tree(scope, key) => {
                scope.document.tree().node(key).children().iter().map(|c| Source::Tree(scope, *c)).collect()
            }
            Source::Detached(scope, tree) => tree.children.iter().map(|c| Source::Detached(scope, c)).collect(),
        }
    }

    fn scope(&self) -> Scope<'a> {
        match self {
            Source::Tree(scope, _) | Source::Detached(scope, _) => *scope,
        }
    }

    fn has_children_key(&self) -> bool {
        self.props().contains(&Key::Children)
    }
}

/// The overrides of one enclosing instance, seen from the current node: `prefix` is the part of
/// the override key between that instance and here ("" directly inside it).
#[derive(Clone)]
struct Layer<'a> {
    id: usize,
    descendants: &'a Descendants,
    prefix: String,
    /// The document the override content belongs to.
    scope: Scope<'a>,
    /// Its keys by the id they end with, in file order.
    by_last: Rc<HashMap<&'a str, Vec<&'a str>>>,
    /// Who wrote the overrides (and the content they hold): who wrote the instance.
    writer: Option<Identity>,
    /// The components the instance enters: a key's first step names a node one of them wrote.
    enters: Rc<[Identity]>,
    /// The instance's depth in the chain of ancestors ([`Ancestor::depth`]).
    depth: usize,
}

impl<'a> Layer<'a> {
    fn new(id: usize, descendants: &'a Descendants, scope: Scope<'a>, writer: Option<Identity>) -> Layer<'a> {
        Layer {
            id,
            descendants,
            prefix: String::new(),
            scope,
            by_last: Rc::new(override_keys::by_last_step(descendants)),
            writer,
            enters: Rc::from(Vec::new()),
            depth: 0,
        }
    }
}

#[derive(Clone)]
struct Context<'a> {
    /// The document whose variables and components unprefixed names mean.
    scope: Scope<'a>,
    theme: ThemeContext,
    /// Scene id prefix of nodes here ("inst/" inside an instance).
    prefix: String,
    /// Enclosing instances' overrides, outermost first.
    layers: Vec<Layer<'a>>,
    /// Components being expanded, to stop cycles.
    components: Vec<(usize, NodeKey)>,
    /// Levels above the node being built (0 for the top-level node).
    depth: usize,
    /// Who wrote the nodes built here (`None`: the document, outside components).
    writer: Writer,
    /// The nodes above the ones built here, nearest last.
    ancestors: Option<Rc<Ancestor<'a>>>,
}

struct Builder<'a> {
    root: &'a Document,
    library: &'a dyn Library,
    options: SceneOptions,
    part: ScenePart,
    /// (layer, key) of overrides that matched a node.
    used: HashSet<(usize, String)>,
    next_layer: usize,
    /// The instances being expanded, outermost first, to say where a budget ran out.
    chain: Vec<ChainEntry>,
    /// Compact JSON size of property bags seen, by address (they are borrowed for the whole
    /// build, so an address names one bag): each is measured once however often it is copied.
    weights: HashMap<usize, usize>,
    /// Bytes of string variables substituted into the node about to be pushed.
    substituted: usize,
    /// The theme axes and values already looked at (each said once per part).
    reported_axes: HashSet<(String, String)>,
    /// Set by [`key_in_force`]: which key applies where.
    probe: Option<Probe<'a>>,
}

/// Which key of one instance's overrides applies to the nodes nib spells `spelled` there.
struct Probe<'a> {
    overrides: &'a Descendants,
    spelled: String,
    /// The key that applied, for each node so spelled (`None`: none named it).
    found: Vec<Option<&'a str>>,
}

/// An instance being expanded.
struct ChainEntry {
    link: ChainLink,
    /// The instance's document node, when it is one.
    document_node: Option<NodeKey>,
}

impl<'a> Builder<'a> {
    fn build(&mut self, source: Source<'a>, context: &Context<'a>, parent: Option<u32>) {
        if self.part.error.is_some() {
            return;
        }
        // A node in an instance override without an id (a file's, kept as written) cannot be
        // addressed, so it is left out; the loader said so.
        let Some(id) = source.props().id() else { return };
        let node = NodeInScope { id, scope: source.scope() };
        let source_key = match source {
            // Outside instances nodes are addressed by their plain document id.
            Source::Tree(scope, key) if std::ptr::eq(scope.document, self.root) && context.prefix.is_empty() => {
                Some(key)
            }
            _ => None,
        };
        // A node that is not the document's own is a copy: what it copies counts.
        let mut copied = if source_key.is_none() { self.weight(source.props()) } else { 0 };
        let mut props = source.props().clone();
        let mut children = source.children();
        let mut own_children = source.has_children_key();
        let mut content_scope = source.scope();
        // The file whose terms the node's `theme` is written in: its unprefixed axes are that
        // file's (a library's `Mode` is `c:Mode` in the document).
        let mut theme_scope = source.scope();
        let mut segment = node.seen_from(self.root);
        // An instance's own overrides, borrowed from where its properties come from.
        let mut overrides = descendants_of(source.props());
        // Overrides from enclosing instances, innermost first so the outermost wins. After a
        // replacement, outer overrides address the node by its new id.
        let mut looked_up = node;
        // Who wrote the node, and who its children (an override's `children` are the
        // override's writer's).
        let mut writer = Writer {
            in_overrides: context.writer.in_overrides || matches!(source, Source::Detached(..)),
            ..context.writer
        };
        let mut children_writer = writer;
        for layer in context.layers.iter().rev() {
            let Some(key) = self.key_naming(layer, looked_up, writer, context.ancestors.as_ref()) else { continue };
            let layer_overrides: &'a Descendants = layer.descendants;
            let Some(tree) = layer_overrides.0.get(key) else { continue };
            let layer_writer = Writer { component: layer.writer, in_overrides: true };
            if tree.is_replacement() {
                writer = layer_writer;
                children_writer = layer_writer;
                copied = self.weight(&tree.props);
                props = tree.props.clone();
                overrides = descendants_of(&tree.props);
                children = tree.children.iter().map(|c| Source::Detached(layer.scope, c)).collect();
                own_children = true;
                content_scope = layer.scope;
                theme_scope = layer.scope;
                looked_up = NodeInScope { id: tree.props.id().unwrap_or(node.id), scope: layer.scope };
                segment = looked_up.seen_from(self.root);
                continue;
            }
            copied += self.weight(&tree.props);
            for (name, value) in tree.props.iter() {
                // A value kept as written because nib cannot read it for its key is not applied:
                // the component's own value shows (the loader said so).
                if *name != Key::Children && !value.is_kept_for(name) {
                    props.set(name.clone(), value.clone());
                    if *name == Key::Theme {
                        theme_scope = layer.scope;
                    }
                }
            }
            if tree.props.contains(&Key::Children) {
                children = tree.children.iter().map(|c| Source::Detached(layer.scope, c)).collect();
                own_children = true;
                children_writer = layer_writer;
            }
        }
        let scene_id = format!("{}{segment}", context.prefix);
        let theme = match props.get(&Key::Theme) {
            Some(Value::Theme(selection)) => {
                let theme = context.theme.with_in(selection, theme_scope.alias);
                self.check_theme(selection, theme_scope.alias, &scene_id);
                theme
            }
            _ => context.theme.clone(),
        };
        let mut inner = Context {
            scope: content_scope,
            theme,
            depth: context.depth + 1,
            writer: children_writer,
            ..context.clone()
        };
        if self.options.expand_instances && props.node_type() == Some(NodeType::Ref) {
            let instance = Instance {
                props,
                overrides,
                own_children: own_children.then_some(children),
                node: looked_up,
                copied,
                writer,
            };
            self.expand(instance, scene_id, &inner, parent, source_key);
            return;
        }
        if !children.is_empty() && !inner.layers.is_empty() {
            inner.ancestors = Some(Rc::new(Ancestor {
                node: looked_up,
                writer,
                enters: Rc::from(Vec::new()),
                depth: context.ancestors.as_ref().map_or(0, |a| a.depth) + 1,
                parent: context.ancestors.clone(),
            }));
        }
        self.substitute(&mut props, &inner, &scene_id);
        // What the node's own format version means by what it leaves out (resolve/format.rs).
        format::apply(&mut props, Version::read_as(source.scope().document.version()));
        let generated = match props.node_type() {
            Some(NodeType::Browser) => {
                let url = props.text(&Key::Url).unwrap_or_default().to_owned();
                self.placeholder(
                    &scene_id,
                    format!("browser '{scene_id}' shows the live page '{url}'; nib loads no web pages and draws an empty browser window in its place"),
                );
                // Pen clips the page to the node's corners.
                props.set(Key::Clip, Value::Bool(crate::doc::VarOr::Value(true)));
                generated::browser_window(&props)
            }
            Some(NodeType::Script) => {
                // Pen clips a script's drawing to its box unless it says otherwise.
                if !props.contains(&Key::Clip) {
                    props.set(Key::Clip, Value::Bool(crate::doc::VarOr::Value(true)));
                }
                match generated::script_drawing(&props, self.library) {
                    Ok(drawing) => Some((*drawing).clone()),
                    Err(reason) => {
                        let message = format!("script '{scene_id}' draws nothing: {}", reason.message);
                        self.part.problems.push(Diagnostic { message, ..reason }.at_node(&scene_id));
                        None
                    }
                }
            }
            Some(NodeType::Connection) => {
                self.placeholder(
                    &scene_id,
                    format!("connection '{scene_id}' is kept, but Pen drops connections when it opens a file, so it is not drawn"),
                );
                None
            }
            _ => None,
        };
        let Some(key) = self.push(scene_id.clone(), props, parent, source_key, copied) else { return };
        self.build_children(children, &inner, key);
        if let Some(generated) = generated {
            for root in generated.tree().roots().to_vec() {
                self.push_generated(&generated, root, key, &scene_id);
            }
        }
    }

    /// The key of `layer` that names the node `looked_up` (`writer` wrote it, below
    /// `ancestors`), if any: the key nib spells for it (the ids of the instances between, as
    /// before) or any other Pen reads as naming it ([`override_keys`]). When several
    /// do, the one written last wins whole (Pen's rule); each is used.
    fn key_naming(
        &mut self,
        layer: &Layer<'a>,
        looked_up: NodeInScope<'a>,
        writer: Writer,
        ancestors: Option<&Rc<Ancestor<'a>>>,
    ) -> Option<&'a str> {
        let last = looked_up.seen_from(layer.scope.document);
        let candidates = layer.by_last.get(last.as_str());
        if candidates.is_none() && self.probe.is_none() {
            return None;
        }
        let spelled = format!("{}{last}", layer.prefix);
        let mut chosen = None;
        for &key in candidates.into_iter().flatten() {
            if key == spelled
                || override_keys::names(key, layer.scope.document, &layer.enters, layer.depth, writer, ancestors)
            {
                self.used.insert((layer.id, key.to_owned()));
                chosen = Some(key);
            }
        }
        if let Some(probe) = self.probe.as_mut()
            && std::ptr::eq(probe.overrides, layer.descendants)
            && probe.spelled == spelled
        {
            probe.found.push(chosen);
        }
        chosen
    }

    /// Adds `node` of `generated` (content the Scene makes for a node, see `generated.rs`) and
    /// its subtree under `parent`, with ids under `prefix` (`browser/toolbar`).
    fn push_generated(&mut self, generated: &Document, node: NodeKey, parent: u32, prefix: &str) {
        let tree_node = generated.tree().node(node);
        let id = format!("{prefix}/{}", tree_node.id());
        let mut props = tree_node.props.clone();
        props.remove(&Key::Children);
        let Some(key) = self.push(id.clone(), props, Some(parent), None, 0) else { return };
        self.part.nodes[key as usize].generated = true;
        for child in tree_node.children().to_vec() {
            self.push_generated(generated, child, key, &id);
        }
    }

    /// Builds `children` under `parent`, unless they would nest deeper than a Scene may.
    fn build_children(&mut self, children: Vec<Source<'a>>, context: &Context<'a>, parent: u32) {
        if children.is_empty() {
            return;
        }
        if context.depth >= MAX_SCENE_DEPTH {
            let id = self.part.nodes[parent as usize].id.clone();
            let message = format!(
                "instances inside instances nest deeper than {MAX_SCENE_DEPTH} levels here: its {} children are left out",
                children.len()
            );
            self.problem(&id, message);
            return;
        }
        for child in children {
            self.build(child, context, Some(parent));
        }
    }

    /// Adds a node, charging the budget: a node that is not the document's own (`source` is
    /// `None`) counts as created, and what it copied (`copied` bytes, its id, the variables
    /// substituted into it) as copied. A node that does not fit is left out and stops the
    /// build; only a part's top-level node is still added, as the document has it, so that
    /// every part has its root.
    fn push(
        &mut self,
        id: String,
        mut props: Props,
        parent: Option<u32>,
        source: Option<NodeKey>,
        copied: usize,
    ) -> Option<u32> {
        let created = source.is_none();
        let ids = if created { 2 * id.len() } else { 0 };
        let cost = Budget { nodes: usize::from(created), bytes: copied + ids + std::mem::take(&mut self.substituted) };
        let spent = self.part.spent.plus(cost);
        if let Some(limit) = spent.exceeded(self.part.allowance, self.part.budget) {
            self.stop(limit, &id, source);
            let (None, Some(source)) = (parent, source) else { return None };
            props = self.root.tree().node(source).props.clone();
        } else {
            self.part.spent = spent;
        }
        let key = u32::try_from(self.part.nodes.len()).unwrap_or(u32::MAX);
        props.remove(&Key::Descendants);
        if let Some(message) = shown_text::too_long(&props) {
            self.problem(&id, message);
        }
        if let Some(message) = shown_text::half_pairs(&props) {
            self.problem(&id, message);
        }
        self.part.nodes.push(SceneNode { id, props, parent, children: Vec::new(), source, generated: false });
        // The first node with an id is the one found by it.
        let nodes = &self.part.nodes;
        self.part.ids.insert(key, |i| &nodes[i as usize].id, false);
        if let Some(parent) = parent {
            self.part.nodes[parent as usize].children.push(key);
        }
        self.part.error.is_none().then_some(key)
    }

    /// Ends the build at the node `id` (a document node when `source` is set), which would go
    /// over `limit`: the error names the document node it concerns and the instances from it
    /// down to here.
    fn stop(&mut self, limit: Limit, id: &str, source: Option<NodeKey>) {
        // The chain starts at the innermost instance that is a document node (an instance's
        // own children are document nodes too); a document node that is not an instance has
        // no chain.
        let start = self.chain.iter().rposition(|entry| entry.document_node.is_some());
        let (node, chain) = match (source, start) {
            (Some(node), Some(start)) if self.chain[start].document_node == Some(node) => (node, &self.chain[start..]),
            (Some(node), _) => (node, &self.chain[..0]),
            (None, Some(start)) => (self.chain[start].document_node.unwrap_or(self.part.root), &self.chain[start..]),
            (None, None) => (self.part.root, &self.chain[..]),
        };
        let over = OverBudget {
            limit,
            node: self.root.tree().node(node).id().to_owned(),
            pointer: pointer_of(self.root, node),
            chain: chain.iter().map(|entry| entry.link.clone()).collect(),
            stopped_at: id.to_owned(),
        };
        self.part.error = Some(ResolveError::OverBudget(Box::new(over)));
    }

    /// The compact JSON size of `props`, measured once per property bag.
    fn weight(&mut self, props: &'a Props) -> usize {
        *self.weights.entry(props as *const Props as usize).or_insert_with(|| {
            let mut w = crate::doc::json::JsonWriter::compact();
            props.write(&mut w, false, &mut |w| {
                w.begin_array();
                w.end_array();
            });
            w.finish().len()
        })
    }

    fn problem(&mut self, node: &str, message: String) {
        self.part.problems.push(unresolved(node, message));
    }

    /// Notes that what is drawn for `node` stands in for what nib cannot draw.
    fn placeholder(&mut self, node: &str, message: String) {
        self.part.problems.push(Diagnostic::note("placeholder", message).at_node(node));
    }
}

/// What resolving says about `node` that could not be resolved as written.
pub(super) fn unresolved(node: &str, message: String) -> Diagnostic {
    Diagnostic::warning("unresolved", message).at_node(node)
}

/// What resolving says about a use at `node` of the import `alias`, which is not loaded: an
/// `import` finding at the import's entry, so the one warning about the import can stand for
/// every use of it (compile folds them in).
pub(super) fn import_not_loaded(node: &str, alias: &str, message: String) -> Diagnostic {
    let escaped = alias.replace('~', "~0").replace('/', "~1");
    Diagnostic::warning("import", message).at_node(node).at_pointer(format!("/imports/{escaped}"))
}

/// A node's id and the document it belongs to: override keys written in another document name
/// it with the import alias (`h:sm4F5`).
#[derive(Clone, Copy)]
pub(in crate::resolve) struct NodeInScope<'a> {
    id: &'a str,
    scope: Scope<'a>,
}

impl NodeInScope<'_> {
    /// The id as a key written in `other` names it.
    pub(in crate::resolve) fn seen_from(&self, other: &Document) -> String {
        match self.scope.alias {
            Some(alias) if !std::ptr::eq(self.scope.document, other) => format!("{alias}:{}", self.id),
            _ => self.id.to_owned(),
        }
    }
}

/// The JSON pointer of a document node: `/children/0/children/3`.
fn pointer_of(document: &Document, key: NodeKey) -> String {
    document.tree().pointer(key)
}

/// The overrides an instance node carries.
fn descendants_of(props: &Props) -> Option<&Descendants> {
    match props.get(&Key::Descendants) {
        Some(Value::Descendants(descendants)) => Some(descendants),
        _ => None,
    }
}
