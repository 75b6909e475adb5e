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

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use super::budget::{Budget, ChainLink, Limit, MAX_SCENE_DEPTH, OverBudget, ResolveError};
use super::components::{ComponentError, Library, MAX_INSTANCE_DEPTH, find_component};
use super::override_keys::{Ancestor, Identity, Writer};
use super::variables::{ThemeContext, lookup};
use crate::diagnostic::{Diagnostic, Severity};
use crate::doc::format::Version;
use crate::doc::ids::IdTable;
use crate::doc::values::{TextContent, VariableScalar};
use crate::doc::vars::VisitVars;
use crate::doc::{Descendants, Document, Key, MAX_LENGTH, NodeKey, NodeTree, NodeType, Props, Value, VarRef};

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

    /// True when a build with `remaining` of `budget` left would give this very part: a
    /// complete part fits in it, a stopped one was stopped by exactly that much.
    fn builds_the_same_with(&self, budget: Budget, remaining: Budget) -> bool {
        self.budget == budget
            && match self.error {
                None => self.spent.exceeded(remaining, budget).is_none(),
                Some(_) => self.allowance == remaining,
            }
    }

    fn is_current(&self, document: &Document) -> bool {
        if self.depends_on_everything {
            return document.revision() <= self.built_at;
        }
        document.changed_at(self.root) <= self.built_at
            && self.depends_on.iter().all(|dep| document.changed_at(*dep) <= self.built_at)
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

/// Resolves `document` (with its imports from `library`) within [`Budget::DOCUMENT`]. When
/// the document needs more, the Scene is partial and [`Scene::error`] says why.
pub fn build_scene(document: &Document, library: &dyn Library, options: SceneOptions) -> Scene {
    update_scene(None, document, library, options)
}

/// Resolves `document`, reusing the parts of `previous` whose top-level node, and the
/// components they use, did not change since. `previous` must come from the same document and
/// library (a changed import calls for a full build). Within [`Budget::DOCUMENT`], as
/// [`build_scene`].
pub fn update_scene(
    previous: Option<&Scene>,
    document: &Document,
    library: &dyn Library,
    options: SceneOptions,
) -> Scene {
    update_scene_within(previous, document, library, options, Budget::DOCUMENT)
}

/// [`update_scene`] with another budget than [`Budget::DOCUMENT`].
pub fn update_scene_within(
    previous: Option<&Scene>,
    document: &Document,
    library: &dyn Library,
    options: SceneOptions,
    budget: Budget,
) -> Scene {
    resolve_parts(previous, document, library, options, budget, None)
}

/// Resolves only the top-level parts whose roots are in `roots` (in document order), reusing
/// those of `previous` that are current: all that rendering or laying out one node needs, so
/// its cost follows the part and not the file. Instances inside a part are expanded into it,
/// so a part is whole on its own. Each part gets the budget it would have if it came first
/// (the parts before it are not built to know what they spent); a part within budget in the
/// full Scene is identical here.
pub fn update_scene_of(
    previous: Option<&Scene>,
    document: &Document,
    library: &dyn Library,
    options: SceneOptions,
    roots: &[NodeKey],
) -> Scene {
    resolve_parts(previous, document, library, options, Budget::DOCUMENT, Some(roots))
}

/// The top-level node whose part holds the Scene node `id` (an id or an instance path such as
/// `card/title`); `None` when the document has no node with its first id.
pub fn part_root(document: &Document, id: &str) -> Option<NodeKey> {
    let first = id.split('/').next()?;
    document.node_by_id(first).map(|key| document.tree().root_of(key))
}

fn resolve_parts(
    previous: Option<&Scene>,
    document: &Document,
    library: &dyn Library,
    options: SceneOptions,
    budget: Budget,
    only: Option<&[NodeKey]>,
) -> Scene {
    let reusable: HashMap<NodeKey, &Arc<ScenePart>> = previous
        .filter(|p| p.options == Some(options))
        .map(|p| p.parts.iter().filter(|part| part.is_current(document)).map(|part| (part.root, part)).collect())
        .unwrap_or_default();
    // Parts spend the budget in document order: each gets what the parts before it left.
    let mut remaining = budget;
    let parts: Vec<Arc<ScenePart>> = document
        .tree()
        .roots()
        .iter()
        .enumerate()
        .filter(|(_, root)| only.is_none_or(|only| only.contains(root)))
        .map(|(place, root)| {
            if only.is_some() {
                remaining = budget;
            }
            let part = match reusable.get(root) {
                Some(part) if part.builds_the_same_with(budget, remaining) => at_place(part, place),
                _ => Arc::new(build_part(document, library, options, *root, budget, remaining)),
            };
            remaining = remaining.minus(part.spent);
            part
        })
        .collect();
    let mut problems: Vec<Diagnostic> = parts.iter().flat_map(|p| p.problems.iter().cloned()).collect();
    // A variable problem is reported once for the document: its first node and all its uses.
    let mut variable_problems: BTreeMap<&(String, String, Option<String>), (&str, usize)> = BTreeMap::new();
    for part in &parts {
        for (key, (node, count)) in &part.variable_problems {
            variable_problems.entry(key).and_modify(|(_, total)| *total += count).or_insert((node, *count));
        }
    }
    for ((_, message, alias), (node, count)) in variable_problems {
        let more = if count > 1 { format!(" ({count} uses)") } else { String::new() };
        let problem = match alias {
            Some(alias) => import_not_loaded(node, alias, format!("{message}{more}")),
            None => unresolved(node, format!("{message}{more}")),
        };
        problems.push(problem);
    }
    Scene { parts, options: Some(options), problems }
}

/// `part`, reused as the top-level node at `place`: an error names its node by a JSON pointer
/// that starts with the part's place among the top-level nodes, which removing or moving an
/// earlier one shifts (the same Scene must come from the cache as rebuilt).
fn at_place(part: &Arc<ScenePart>, place: usize) -> Arc<ScenePart> {
    let Some(ResolveError::OverBudget(over)) = &part.error else { return Arc::clone(part) };
    let Some(after) = over.pointer.strip_prefix("/children/") else { return Arc::clone(part) };
    let (written, rest) = after.split_at(after.find('/').unwrap_or(after.len()));
    if written.parse::<usize>().ok() == Some(place) {
        return Arc::clone(part);
    }
    let mut moved = ScenePart::clone(part);
    let mut over = over.clone();
    over.pointer = format!("/children/{place}{rest}");
    moved.error = Some(ResolveError::OverBudget(over));
    Arc::new(moved)
}

fn build_part(
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
/// whole over it ([`super::override_keys`]). `None` when no key names the node, or when the
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
            by_last: Rc::new(super::override_keys::by_last_step(descendants)),
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
        super::format::apply(&mut props, Version::read_as(source.scope().document.version()));
        let generated = match props.node_type() {
            Some(NodeType::Browser) => {
                let url = props.text(&Key::Url).unwrap_or_default().to_owned();
                self.placeholder(
                    &scene_id,
                    format!("browser '{scene_id}' shows the live page '{url}'; nib loads no web pages and draws an empty browser window in its place"),
                );
                // Pen clips the page to the node's corners.
                props.set(Key::Clip, Value::Bool(crate::doc::VarOr::Value(true)));
                super::generated::browser_window(&props)
            }
            Some(NodeType::Script) => {
                // Pen clips a script's drawing to its box unless it says otherwise.
                if !props.contains(&Key::Clip) {
                    props.set(Key::Clip, Value::Bool(crate::doc::VarOr::Value(true)));
                }
                match super::generated::script_drawing(&props, self.library) {
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
    /// before) or any other Pen reads as naming it ([`super::override_keys`]). When several
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
                || super::override_keys::names(key, layer.scope.document, &layer.enters, layer.depth, writer, ancestors)
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

    /// Expands an instance: its component's content under the instance's overrides.
    fn expand(
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

    fn substitute(&mut self, props: &mut Props, context: &Context<'a>, node: &str) {
        if !self.options.substitute_variables {
            return;
        }
        let (root, library) = (self.root, self.library);
        // Text that is exactly "$name" of a string variable shows the variable's value; any
        // other text starting with "$" ("$ git status") is literal.
        if let Some(Value::Content(TextContent::Plain(text))) = props.get(&Key::Content)
            && let Some(name) = text.strip_prefix('$').filter(|n| !n.is_empty() && !n.contains(char::is_whitespace))
            && let Ok(found) = lookup(
                context.scope.document,
                context.scope.alias,
                root,
                library,
                &VarRef(name.to_owned()),
                &context.theme,
            )
            && let VariableScalar::String(value) = found.value
        {
            self.substituted += value.len();
            props.set(Key::Content, Value::Content(TextContent::Plain(value.into())));
        }
        let mut problems = Vec::new();
        let mut substituted = 0;
        props.visit_vars(&mut |slot| {
            let Some(reference) = slot.reference().cloned() else { return };
            match lookup(context.scope.document, context.scope.alias, root, library, &reference, &context.theme) {
                Ok(found) => {
                    if let VariableScalar::String(value) = &found.value {
                        substituted += value.len();
                    }
                    if let VariableScalar::Number(n) = found.value
                        && n.abs() > MAX_LENGTH
                    {
                        // Written in a node this would be refused; through a variable it must not
                        // lay out as infinity either. The property stays unresolved, reported.
                        problems.push((
                            reference.name().to_owned(),
                            format!(
                                "variable '{}' is {}, beyond the largest number nib lays out (±1000000); it is not used",
                                reference.name(),
                                crate::doc::json::js_number(n)
                            ),
                            None,
                        ));
                    } else if !slot.assign(&found.value) {
                        problems.push((
                            reference.name().to_owned(),
                            format!("variable '{}' has a value of the wrong type here", reference.name()),
                            None,
                        ));
                    } else if found.unmatched_theme {
                        problems.push((
                            reference.name().to_owned(),
                            format!(
                                "variable '{}' has no value for the theme {}; its first value is used",
                                reference.name(),
                                context.theme
                            ),
                            None,
                        ));
                    }
                }
                Err(error) => {
                    let alias = match &error {
                        super::variables::LookupError::ImportNotLoaded { alias, .. } => Some(alias.clone()),
                        _ => None,
                    };
                    problems.push((reference.name().to_owned(), error.to_string(), alias));
                }
            }
        });
        self.substituted += substituted;
        for (name, message, alias) in problems {
            self.part
                .variable_problems
                .entry((name, message, alias))
                .and_modify(|(_, count)| *count += 1)
                .or_insert((node.to_owned(), 1));
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
        if let Some(message) = super::shown_text::too_long(&props) {
            self.problem(&id, message);
        }
        if let Some(message) = super::shown_text::half_pairs(&props) {
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

    /// Says which axes or values of a node's `theme` (written in the file imported as `alias`)
    /// select nothing: Pen draws such a node with the axis's first value, so it looks untouched.
    fn check_theme(&mut self, selection: &crate::doc::values::ThemeSelection, alias: Option<&str>, node: &str) {
        for (axis, value) in selection.iter() {
            let axis = match alias {
                Some(alias) if !axis.contains(':') => format!("{alias}:{axis}"),
                _ => axis.to_owned(),
            };
            // Once per top-level part: a component's theme is seen in each of its instances.
            if !self.reported_axes.insert((axis.clone(), value.to_owned())) {
                continue;
            }
            if let Some(why) = super::variables::unresolved_axis(self.root, self.library, &axis, value) {
                self.part.problems.push(unresolved(node, format!("its theme selects nothing: {why}")).with_hint(
                    "name an axis the document or an import defines (an import's as alias:Axis, e.g. c:Mode)",
                ));
            }
        }
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
fn unresolved(node: &str, message: String) -> Diagnostic {
    Diagnostic::warning("unresolved", message).at_node(node)
}

/// What resolving says about a use at `node` of the import `alias`, which is not loaded: an
/// `import` finding at the import's entry, so the one warning about the import can stand for
/// every use of it (compile folds them in).
fn import_not_loaded(node: &str, alias: &str, message: String) -> Diagnostic {
    let escaped = alias.replace('~', "~0").replace('/', "~1");
    Diagnostic::warning("import", message).at_node(node).at_pointer(format!("/imports/{escaped}"))
}

/// A node's id and the document it belongs to: override keys written in another document name
/// it with the import alias (`h:sm4F5`).
#[derive(Clone, Copy)]
pub(super) struct NodeInScope<'a> {
    id: &'a str,
    scope: Scope<'a>,
}

impl NodeInScope<'_> {
    /// The id as a key written in `other` names it.
    pub(super) fn seen_from(&self, other: &Document) -> String {
        match self.scope.alias {
            Some(alias) if !std::ptr::eq(self.scope.document, other) => format!("{alias}:{}", self.id),
            _ => self.id.to_owned(),
        }
    }
}

/// An instance about to be expanded.
struct Instance<'a> {
    props: Props,
    overrides: Option<&'a Descendants>,
    own_children: Option<Vec<Source<'a>>>,
    node: NodeInScope<'a>,
    /// Bytes its properties copied from elsewhere (0 for a document node's own).
    copied: usize,
    /// Who wrote the instance node (and so its overrides).
    writer: Writer,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::NoImports;

    fn scene(text: &str) -> Scene {
        build_scene(&Document::load(text).expect("valid").document, &NoImports, SceneOptions::FULL)
    }

    fn json(scene: &Scene, id: &str) -> String {
        scene.node_to_json(scene.node_by_id(id).unwrap_or_else(|| panic!("no {id}")), 0)
    }

    const KIT: &str = r##"{"version": "2.8", "themes": {"Mode": ["Light", "Dark"]}, "variables": {
        "--fg": {"type": "color", "value": [{"value": "#000000", "theme": {"Mode": "Light"}}, {"value": "#FFFFFF", "theme": {"Mode": "Dark"}}]},
        "--gap": {"type": "number", "value": 8}
      }, "children": [
        {"type": "frame", "id": "Label", "reusable": true, "gap": "$--gap", "children": [{"type": "text", "id": "txt", "content": "L", "fill": "$--fg"}]},
        {"type": "frame", "id": "Card", "reusable": true, "width": 200, "children": [
          {"type": "text", "id": "title", "content": "Title", "fill": "$--fg"},
          {"type": "ref", "id": "lbl", "ref": "Label", "descendants": {"txt": {"content": "from card"}}},
          {"type": "frame", "id": "slot", "slot": [], "children": [{"type": "text", "id": "placeholder", "content": "…"}]}]},
        {"type": "ref", "id": "Fancy", "ref": "Card", "reusable": true, "descendants": {"title": {"content": "Fancy"}}},
        {"type": "frame", "id": "page", "theme": {"Mode": "Dark"}, "children": [
          {"type": "ref", "id": "c1", "ref": "Card", "width": 300, "descendants": {
            "lbl/txt": {"content": "outer wins"},
            "slot": {"children": [{"type": "text", "id": "mine", "content": "slot content", "fill": "$--fg"}]},
            "title": {"enabled": false}}},
          {"type": "ref", "id": "f1", "ref": "Fancy"}]}
      ]}"##;

    #[test]
    fn find_answers_a_node_or_the_one_not_found_error_with_its_hint() {
        let scene = scene(KIT);
        assert_eq!(scene.find("c1/lbl/txt").ok(), scene.node_by_id("c1/lbl/txt"));
        assert!(scene.find("c1/lbl/txt").is_ok());
        let missing = scene.find("c1/nope").unwrap_err();
        assert_eq!(missing.message, "Node 'c1/nope' not found");
        assert_eq!(missing.severity, Severity::Error);
        assert_eq!(missing.node.as_deref(), Some("c1/nope"));
        assert_eq!(
            missing.hints,
            ["use an id from batch_get or get_editor_state; nodes inside instances are 'instance/child'"]
        );
    }

    #[test]
    fn instances_expand_with_root_and_descendant_overrides() {
        let scene = scene(KIT);
        assert!(scene.problems.is_empty(), "{:?}", scene.problems);
        let c1 = json(&scene, "c1");
        assert!(c1.starts_with("{\"type\":\"frame\",\"id\":\"c1\""), "an instance takes its component's type: {c1}");
        assert!(c1.contains("\"width\":300"), "root overrides win: {c1}");
        assert!(!c1.contains("reusable"), "an instance is not a component: {c1}");
        assert!(
            json(&scene, "c1/lbl/txt").contains("outer wins"),
            "the outer instance beats the component's own override"
        );
        assert!(json(&scene, "c1/mine").contains("slot content"), "slot children replace the component's");
        assert!(scene.node_by_id("c1/placeholder").is_none());
        assert!(!scene.node(scene.node_by_id("c1/title").unwrap()).is_enabled(), "hidden nodes stay, hidden");
        assert!(json(&scene, "c1/lbl").contains("\"gap\":8"), "variables inside components resolve");
    }

    #[test]
    fn an_instances_own_children_are_document_nodes() {
        let scene = scene(
            r##"{"version": "2.8", "children": [
                {"type": "frame", "id": "Tabs", "reusable": true, "children": [{"type": "text", "id": "default", "content": "d"}]},
                {"type": "frame", "id": "Tab", "reusable": true, "children": [{"type": "text", "id": "label", "content": "Tab"}]},
                {"type": "ref", "id": "tabs", "ref": "Tabs", "children": [{"type": "ref", "id": "t1", "ref": "Tab", "descendants": {"label": {"content": "One"}}}]}
            ]}"##,
        );
        assert!(scene.problems.is_empty(), "{:?}", scene.problems);
        assert!(scene.node_by_id("tabs/default").is_none(), "own children replace the component's");
        assert!(scene.node(scene.node_by_id("t1").unwrap()).source.is_some());
        assert!(json(&scene, "t1/label").contains("\"content\":\"One\""));
    }

    /// Pen's files choose a library's theme on `alias:Axis` (`{"c:Mode": "Dark"}` for the
    /// `Mode` axis of the file imported as `c`, as a 2.15 dashboard built on Pen's lunaris does).
    #[test]
    fn a_theme_chosen_on_an_imported_librarys_axis_reaches_its_variables_and_the_documents() {
        struct Lunaris(Document);
        impl Library for Lunaris {
            fn imported(&self, alias: &str) -> Option<&Document> {
                (alias == "c").then_some(&self.0)
            }
        }
        let library = Document::load(
            r##"{"version": "2.15", "themes": {"Mode": ["Light", "Dark"]}, "variables": {
                "--bg": {"type": "color", "value": [{"value": "#FFFFFF", "theme": {"Mode": "Light"}}, {"value": "#0A0A0A", "theme": {"Mode": "Dark"}}]}
              }, "children": [
                {"type": "frame", "id": "Card", "reusable": true, "width": 10, "height": 10, "fill": "$--bg", "children": [
                  {"type": "frame", "id": "Light", "theme": {"Mode": "Light"}, "width": 5, "height": 5, "fill": "$--bg"}]}]}"##,
        )
        .unwrap()
        .document;
        let document = Document::load(
            r##"{"version": "2.15", "imports": {"c": "pencil:lunaris.lib.pen"}, "variables": {
                "--text": {"type": "color", "value": [{"value": "#111111", "theme": {"c:Mode": "Light"}}, {"value": "#EEEEEE", "theme": {"c:Mode": "Dark"}}]}
              }, "children": [
                {"type": "frame", "id": "dark", "theme": {"c:Mode": "Dark"}, "children": [
                  {"type": "rectangle", "id": "own", "fill": "$--text"},
                  {"type": "rectangle", "id": "lib", "fill": "$c:--bg"},
                  {"type": "ref", "id": "card", "ref": "c:Card"}]},
                {"type": "frame", "id": "plain", "children": [
                  {"type": "rectangle", "id": "own2", "fill": "$--text"},
                  {"type": "ref", "id": "card2", "ref": "c:Card"}]}]}"##,
        )
        .unwrap()
        .document;
        let scene = build_scene(&document, &Lunaris(library.clone()), SceneOptions::FULL);
        assert!(scene.problems.is_empty(), "{:?}", scene.problems);
        assert!(json(&scene, "own").contains("#EEEEEE"), "the document's variable themed on c:Mode");
        assert!(json(&scene, "lib").contains("#0A0A0A"), "the library's variable, themed on its Mode");
        assert!(json(&scene, "card").contains("#0A0A0A"), "the library's component");
        assert!(json(&scene, "card/c:Light").contains("#FFFFFF"), "the component's own Mode is the library's axis");
        assert!(json(&scene, "own2").contains("#111111"), "unselected: the library's first value");
        assert!(json(&scene, "card2").contains("#FFFFFF"));
        // An axis or value that selects nothing is said, once.
        let wrong = r##"{"type": "frame", "id": "wrong", "theme": {"Mood": "Dark", "c:Mode": "Dusk"}, "children": [{"type": "frame", "id": "again", "theme": {"Mood": "Dark"}}]}"##;
        let text = document.to_pen_string().replacen("\"children\": [", &format!("\"children\": [{wrong},"), 1);
        let document = Document::load(&text).unwrap().document;
        let scene = build_scene(&document, &Lunaris(library), SceneOptions::FULL);
        let said: Vec<String> = scene.problems.iter().map(|p| p.message.clone()).collect();
        assert!(
            said.iter()
                .any(|m| m.contains("the theme axis 'Mood' is defined neither by the document nor by an import")),
            "{said:?}"
        );
        assert_eq!(said.iter().filter(|m| m.contains("'Mood'")).count(), 1, "{said:?}");
        assert!(
            said.iter().any(|m| m.contains("'Dusk' is not a value of the theme axis 'c:Mode' (Light, Dark)")),
            "{said:?}"
        );
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        assert!(
            !scene.problems.iter().any(|p| p.message.contains("theme axis 'c:Mode'")),
            "an import that is not loaded is said where it is read"
        );
    }

    #[test]
    fn themes_reach_into_instances() {
        let scene = scene(KIT);
        assert!(json(&scene, "c1/mine").contains("#FFFFFF"), "the page is dark");
        assert!(json(&scene, "title").contains("\"#000000\""), "the component itself is light");
    }

    #[test]
    fn a_component_that_is_an_instance_adds_no_path_segment() {
        let scene = scene(KIT);
        assert!(json(&scene, "f1/title").contains("\"content\":\"Fancy\""));
        assert!(json(&scene, "f1/lbl/txt").contains("from card"));
    }

    #[test]
    fn unresolvable_things_are_reported_with_their_node() {
        let scene = scene(
            r##"{"version": "2.8", "variables": {"--n": {"type": "number", "value": 4}}, "children": [
                {"type": "frame", "id": "A", "reusable": true, "children": [{"type": "ref", "id": "inner", "ref": "A"}]},
                {"type": "ref", "id": "a1", "ref": "A"},
                {"type": "ref", "id": "ghost", "ref": "Nope"},
                {"type": "ref", "id": "b1", "ref": "A", "descendants": {"nothing": {"content": "x"}}},
                {"type": "frame", "id": "v", "fill": "$--missing", "gap": "$--n", "opacity": "$--missing"},
                {"type": "frame", "id": "w", "fill": "$--n"}
            ]}"##,
        );
        let messages: Vec<String> = scene
            .problems
            .iter()
            .map(|p| format!("{}: {}", p.node.as_deref().unwrap_or_default(), p.message))
            .collect();
        let has = |text: &str| messages.iter().any(|m| m.contains(text));
        assert!(has("a1/inner: component 'A' contains an instance of itself"), "{messages:#?}");
        assert!(has("ghost: component 'Nope' not found"), "{messages:#?}");
        assert!(has("b1: override 'nothing' matches no node of component 'A'"), "{messages:#?}");
        assert!(has("v: variable '--missing' is not defined (2 uses)"), "{messages:#?}");
        assert!(has("w: variable '--n' has a value of the wrong type here"), "{messages:#?}");
        assert!(json(&scene, "v").contains("\"gap\":4"));
        assert!(
            json(&scene, "v").contains("\"fill\":\"$--missing\""),
            "an unresolved reference stays visible, reported"
        );
    }

    #[test]
    fn options_leave_instances_or_variables_as_written() {
        let document = Document::load(KIT).unwrap().document;
        let plain =
            build_scene(&document, &NoImports, SceneOptions { expand_instances: false, substitute_variables: false });
        assert_eq!(plain.len(), document.node_count());
        assert!(plain.node_to_json(plain.node_by_id("c1").unwrap(), 0).contains("\"ref\":\"Card\""));
        let variables_only =
            build_scene(&document, &NoImports, SceneOptions { expand_instances: false, substitute_variables: true });
        assert!(variables_only.node_to_json(variables_only.node_by_id("Label").unwrap(), 0).contains("\"gap\":8"));
    }

    #[test]
    fn an_update_rebuilds_only_the_parts_an_edit_touched() {
        let mut document = Document::load(KIT).unwrap().document;
        let before = build_scene(&document, &NoImports, SceneOptions::FULL);
        let same = |a: &Scene, b: &Scene, index: usize| Arc::ptr_eq(&a.parts()[index], &b.parts()[index]);
        // The page (part 3) uses Card, Label and Fancy; editing the page touches only itself.
        let page = document.node_by_id("page").unwrap();
        let mut edit = document.transaction();
        edit.set(page, Key::Name, Some(Value::Text("Home".into())));
        edit.commit();
        let after = update_scene(Some(&before), &document, &NoImports, SceneOptions::FULL);
        assert!((0..3).all(|i| same(&before, &after, i)), "components are untouched");
        assert!(!same(&before, &after, 3));
        // Editing a component rebuilds the parts that use it, not the others.
        let txt = document.node_by_id("txt").unwrap();
        let mut edit = document.transaction();
        edit.set(txt, Key::Content, Some(Value::Content(crate::doc::values::TextContent::Plain("New".into()))));
        edit.commit();
        let last = update_scene(Some(&after), &document, &NoImports, SceneOptions::FULL);
        assert!(!same(&after, &last, 0), "Label itself");
        assert!(!same(&after, &last, 1) && !same(&after, &last, 2), "Card and Fancy contain a Label");
        assert!(!same(&after, &last, 3), "the page contains Cards");
        assert!(last.node_to_json(last.node_by_id("lbl/txt").unwrap(), 0).contains("from card"));
        assert!(last.node_to_json(last.node_by_id("Label").unwrap(), 1).contains("New"));
        // Nothing changed: everything is reused.
        let again = update_scene(Some(&last), &document, &NoImports, SceneOptions::FULL);
        assert!((0..4).all(|i| same(&last, &again, i)));
    }

    #[test]
    fn a_part_with_a_missing_component_is_rebuilt_when_it_appears() {
        let mut document = Document::load(
            r#"{"version": "2.8", "children": [{"type": "ref", "id": "r", "ref": "Later"}, {"type": "frame", "id": "home"}]}"#,
        )
        .unwrap()
        .document;
        let before = build_scene(&document, &NoImports, SceneOptions::FULL);
        assert_eq!(before.problems.len(), 1);
        let home = document.node_by_id("home").unwrap();
        let mut component = crate::doc::NodeTree::default();
        component.props.set(Key::Type, Value::NodeType(NodeType::Frame));
        component.props.set(Key::Id, Value::Text("Later".into()));
        component.props.set(Key::Reusable, Value::Bool(crate::doc::VarOr::Value(true)));
        let mut edit = document.transaction();
        edit.insert(Some(home), 0, component).unwrap();
        edit.commit();
        let after = update_scene(Some(&before), &document, &NoImports, SceneOptions::FULL);
        assert!(after.problems.is_empty(), "{:?}", after.problems);
    }

    #[test]
    fn a_number_variable_beyond_any_length_is_reported_not_laid_out_as_infinity() {
        let scene = scene(
            r##"{"version": "2.8", "variables": {"--w": {"type": "number", "value": 1e308}}, "children": [
                {"type": "frame", "id": "page", "width": "$--w", "x": "$--w"}
            ]}"##,
        );
        assert_eq!(scene.problems.len(), 1, "{:?}", scene.problems);
        assert_eq!(
            scene.problems[0].message,
            "variable '--w' is 1e+308, beyond the largest number nib lays out (±1000000); it is not used (2 uses)"
        );
        assert!(json(&scene, "page").contains("\"width\":\"$--w\""), "left unresolved");
    }

    #[test]
    fn text_that_names_a_string_variable_shows_its_value() {
        let scene = scene(
            r##"{"version": "2.8", "variables": {"--cta": {"type": "string", "value": "Get started"}}, "children": [
                {"type": "text", "id": "a", "content": "$--cta"},
                {"type": "text", "id": "b", "content": "$ git status"},
                {"type": "text", "id": "c", "content": "$--nope"}
            ]}"##,
        );
        assert!(json(&scene, "a").contains("\"content\":\"Get started\""));
        assert!(json(&scene, "b").contains("$ git status"));
        assert!(json(&scene, "c").contains("$--nope"), "not a variable: literal text");
        assert!(scene.problems.is_empty(), "{:?}", scene.problems);
    }

    /// Components `A0`…: each holds `fan_out` instances of the next, the last a rectangle (the
    /// issue's reproduction when `levels` is 8 and `fan_out` 10), after the top-level `before`.
    fn bomb(levels: usize, fan_out: usize, before: &str) -> String {
        let parts: Vec<String> = (0..levels)
            .map(|k| {
                let children: Vec<String> = if k + 1 < levels {
                    (0..fan_out).map(|j| format!(r#"{{"type": "ref", "id": "c{k}_{j}", "ref": "A{}"}}"#, k + 1)).collect()
                } else {
                    vec![r#"{"type": "rectangle", "id": "leaf", "width": 1, "height": 1}"#.to_owned()]
                };
                format!(
                    r#"{{"type": "frame", "id": "A{k}", "reusable": true, "x": {}, "layout": "none", "children": [{}]}}"#,
                    k * 20,
                    children.join(", ")
                )
            })
            .collect();
        let before = if before.is_empty() { String::new() } else { format!("{before}, ") };
        format!(r#"{{"version": "2.8", "children": [{before}{}]}}"#, parts.join(", "))
    }

    fn created(scene: &Scene) -> usize {
        scene.walk().filter(|key| scene.node(*key).source.is_none()).count()
    }

    fn over_budget(scene: &Scene) -> &OverBudget {
        match scene.error() {
            Some(ResolveError::OverBudget(over)) => over,
            None => panic!("the scene is complete: {} nodes", scene.len()),
        }
    }

    const SMALL: Budget = Budget { nodes: 100, bytes: crate::resolve::MAX_COPIED_BYTES };

    #[test]
    fn an_instance_bomb_stops_at_the_budget_and_names_its_chain() {
        let document = Document::load(&bomb(4, 10, "")).unwrap().document;
        let scene = update_scene_within(None, &document, &NoImports, SceneOptions::FULL, SMALL);
        let over = over_budget(&scene);
        assert_eq!(over.limit, Limit::Nodes(100));
        assert_eq!((over.node.as_str(), over.pointer.as_str()), ("c0_0", "/children/0/children/0"));
        assert_eq!(over.chain_text(), "c0_0 → A1 › c1_4 → A2 › c2_7 → A3");
        assert_eq!(over.stopped_at, "c0_0/c1_4/c2_7/leaf");
        assert_eq!(created(&scene), 100, "expansion stops at the budget, not after it");
        assert_eq!(scene.spent().nodes, 100);
        // Every part keeps its top-level node; the parts after the first spend what is left.
        assert_eq!(scene.parts().len(), 4);
        assert!(scene.parts()[3].error().is_none(), "A3 creates nothing");
        assert!(scene.parts()[1].error().is_some(), "A1 expands A2 with nothing left");
    }

    /// The same nodes and the same error per part.
    fn assert_same(a: &Scene, b: &Scene) {
        assert_eq!(a.error(), b.error());
        assert_eq!(a.parts().len(), b.parts().len());
        for (x, y) in a.parts().iter().zip(b.parts()) {
            let ids = |p: &ScenePart| p.nodes().iter().map(|n| n.id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(x), ids(y));
            assert_eq!((x.error(), x.spent()), (y.error(), y.spent()));
        }
    }

    #[test]
    fn a_bomb_resolves_the_same_from_the_cache_as_rebuilt() {
        let small = r#"{"type": "frame", "id": "small", "layout": "none", "children": [
            {"type": "ref", "id": "s1", "ref": "A2"}, {"type": "ref", "id": "s2", "ref": "A2"}]}"#;
        let mut document = Document::load(&bomb(4, 10, small)).unwrap().document;
        let fresh = |document: &Document| update_scene_within(None, document, &NoImports, SceneOptions::FULL, SMALL);
        let mut scene = fresh(&document);
        assert_eq!(over_budget(&scene).node, "c0_0");
        // Freeing budget before the bomb moves where it stops; a cached part is not reused
        // when it would come out differently.
        let s2 = document.node_by_id("s2").unwrap();
        let mut edit = document.transaction();
        edit.remove(s2);
        edit.commit();
        let updated = update_scene_within(Some(&scene), &document, &NoImports, SceneOptions::FULL, SMALL);
        assert_ne!(over_budget(&updated).stopped_at, over_budget(&scene).stopped_at);
        assert_same(&updated, &fresh(&document));
        scene = updated;
        // An edit before the bomb that spends the same leaves the stopped part as it was.
        let small = document.node_by_id("small").unwrap();
        let mut edit = document.transaction();
        edit.set(small, Key::Name, Some(Value::Text("Small".into())));
        edit.commit();
        let updated = update_scene_within(Some(&scene), &document, &NoImports, SceneOptions::FULL, SMALL);
        assert!(!Arc::ptr_eq(&updated.parts()[0], &scene.parts()[0]));
        assert!(Arc::ptr_eq(&updated.parts()[1], &scene.parts()[1]), "the stopped part is reused");
        assert_same(&updated, &fresh(&document));
        scene = updated;
        // Taking the bomb apart makes the document fit again.
        let mut edit = document.transaction();
        for k in 0..2 {
            for j in 1..10 {
                let key = edit.document().node_by_id(&format!("c{k}_{j}")).unwrap();
                edit.remove(key);
            }
        }
        edit.commit();
        let updated = update_scene_within(Some(&scene), &document, &NoImports, SceneOptions::FULL, SMALL);
        assert!(updated.error().is_none(), "{:?}", updated.error());
        assert_same(&updated, &fresh(&document));
    }

    #[test]
    fn nodes_of_the_document_itself_are_not_counted() {
        let children: Vec<String> =
            (0..500).map(|i| format!(r#"{{"type": "rectangle", "id": "r{i}", "width": 1, "height": 1}}"#)).collect();
        let text = format!(r#"{{"version": "2.8", "children": [{}]}}"#, children.join(", "));
        let document = Document::load(&text).unwrap().document;
        let scene = update_scene_within(None, &document, &NoImports, SceneOptions::FULL, Budget::NONE);
        assert!(scene.error().is_none());
        assert_eq!(scene.len(), 500);
    }

    #[test]
    fn a_long_value_copied_into_many_instances_is_over_the_byte_budget() {
        let geometry = format!("M0 0{}", " L1 1".repeat(2_000));
        let instances: Vec<String> =
            (0..100).map(|i| format!(r#"{{"type": "ref", "id": "i{i}", "ref": "Icon"}}"#)).collect();
        let text = format!(
            r#"{{"version": "2.8", "children": [
                {{"type": "frame", "id": "Icon", "reusable": true, "children": [{{"type": "path", "id": "p", "geometry": "{geometry}"}}]}},
                {{"type": "frame", "id": "page", "children": [{}]}}]}}"#,
            instances.join(", ")
        );
        let document = Document::load(&text).unwrap().document;
        let budget = Budget { nodes: 1_000, bytes: 200_000 };
        let scene = update_scene_within(None, &document, &NoImports, SceneOptions::FULL, budget);
        let over = over_budget(&scene);
        assert_eq!(over.limit, Limit::Bytes(200_000));
        assert_eq!(over.pointer, "/children/1/children/19", "each copy is 10 kB: the 20th goes over");
        assert!(scene.error().is_some_and(|e| e.hint().contains("large value")));
    }

    #[test]
    fn a_long_string_variable_used_by_many_nodes_is_over_the_byte_budget() {
        let texts: Vec<String> =
            (0..50).map(|i| format!(r#"{{"type": "text", "id": "t{i}", "content": "$--long"}}"#)).collect();
        let text = format!(
            r#"{{"version": "2.8", "variables": {{"--long": {{"type": "string", "value": "{}"}}}}, "children": [{}]}}"#,
            "x".repeat(10_000),
            texts.join(", ")
        );
        let document = Document::load(&text).unwrap().document;
        let scene =
            update_scene_within(None, &document, &NoImports, SceneOptions::FULL, Budget { nodes: 0, bytes: 95_000 });
        let over = over_budget(&scene);
        assert!(over.chain.is_empty());
        assert_eq!((over.node.as_str(), over.pointer.as_str()), ("t9", "/children/9"));
        assert!(over.to_string().contains("string variables"), "{over}");
        assert_eq!(scene.parts().len(), 50, "every part keeps its top-level node");
    }

    #[test]
    fn instances_nesting_deeper_than_a_scene_may_are_cut_and_reported() {
        // A chain of components, each holding one instance of the next: 300 levels.
        let document = Document::load(&bomb(300, 1, "")).unwrap().document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        assert!(scene.error().is_none());
        let depth = |key: SceneKey| std::iter::successors(Some(key), |k| scene.parent(*k)).count();
        assert_eq!(scene.walk().map(depth).max(), Some(crate::resolve::MAX_SCENE_DEPTH));
        let deep = scene.problems.iter().find(|p| p.message.contains("nest deeper than 128 levels"));
        assert!(
            deep.is_some_and(|p| p.node.as_deref().is_some_and(|node| node.starts_with("c0_0/c1_0/"))),
            "{:?}",
            &scene.problems[..1]
        );
    }
}
