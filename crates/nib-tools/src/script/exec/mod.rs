//! Running a script: every statement in order inside one transaction; the first failure rolls
//! everything back and the document is exactly as before.

mod ops;
mod overrides;
pub mod place;
pub mod session;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::doc::json::{Json, JsonValue, JsonWriter, Member};
use crate::doc::{Document, Key, MAX_NODE_DEPTH, NodeKey, NodeTree, Props, Transaction, Value};
use crate::files::Confinement;
use crate::images::ImageProvider;
use crate::resolve::{Library, PathTarget, resolve_path};

use super::ast::{Expr, ExprKind, Operation, Script, Statement};
use super::parse::{DEFAULT_MAX_STATEMENTS, RECOMMENDED_STATEMENTS, ROOT_NAMES, ScriptError, parse};
use super::references::References;
use super::report::{Binding, Failure, OpResult, Outcome};
use super::validate::{Invalid, Validator};

/// Limits and settings of a call.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Most statements per call.
    pub max_statements: usize,
    /// Seed for new node ids (tests use a fixed one); `None` seeds from the clock.
    pub id_seed: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_statements: DEFAULT_MAX_STATEMENTS, id_seed: None }
    }
}

/// What a call may use besides the document.
pub struct Context<'a> {
    /// Documents imported by the document, for instances of imported components.
    pub library: &'a dyn Library,
    /// Where G() gets images.
    pub images: &'a dyn ImageProvider,
    /// The document's folder (images are stored below it); `None` for a document not on disk.
    pub folder: Option<&'a Path>,
    /// The folder every file G() writes must stay in (the MCP server's root); `None` writes
    /// wherever `folder` leads.
    pub confinement: Option<&'a Confinement>,
    /// Lays out the top-level nodes for placing new ones; `None` places by the document's
    /// numbers alone.
    pub canvas: Option<&'a dyn place::CanvasBoxes>,
    /// Limits and settings.
    pub options: Options,
}

impl Context<'static> {
    /// A context for a document that imports nothing and is not on disk, with no network:
    /// G() draws its deterministic stand-in images (tests, benches, scripted builds).
    pub fn offline(options: Options) -> Context<'static> {
        Context {
            library: &crate::resolve::NoImports,
            images: &crate::images::OfflineImages,
            folder: None,
            confinement: None,
            canvas: None,
            options,
        }
    }
}

/// Runs `source` against `document`. On success the changes are committed (undoable with
/// [`Document::undo`]); on failure nothing changes.
pub fn run(document: &mut Document, source: &str, context: &Context) -> Outcome {
    let script = match parse(source, context.options.max_statements) {
        Ok(script) => script,
        Err(error) => return parse_failure(document.revision(), error),
    };
    // What every instance refers to now, to say afterwards what this call left broken.
    let references = References::of(document, context.library);
    let mut runner = Runner::new(document.transaction(), context);
    if let Err((index, error)) = runner.run(&script) {
        let statement = &script.statements[index];
        let call = runner.describe_call(statement);
        let created = std::mem::take(&mut runner.state.created);
        drop(runner);
        let failure = error.into_failure(index, statement.span, call);
        let mut outcome = Outcome {
            success: false,
            results: Vec::new(),
            bindings: Vec::new(),
            issues: Vec::new(),
            revision: document.revision(),
            failure: Some(failure),
            created_files: created,
        };
        // Nothing refers to what the rolled-back statements stored.
        outcome.discard_created_files();
        return outcome;
    }
    let mut issues = std::mem::take(&mut runner.state.said);
    issues.extend(super::issues::find(
        runner.tx.document(),
        context.library,
        &runner.state.touched,
        &runner.state.positioned,
        context.canvas,
        &runner.state.known,
    ));
    issues.extend(references.broken_since(&References::of(runner.tx.document(), context.library)));
    if script.statements.len() > RECOMMENDED_STATEMENTS {
        issues.push(super::issues::long_batch(script.statements.len()));
    }
    let results = std::mem::take(&mut runner.state.results);
    let bindings = std::mem::take(&mut runner.state.binding_order);
    let created_files = std::mem::take(&mut runner.state.created);
    let revision = runner.tx.commit();
    Outcome { success: true, results, bindings, issues, revision, failure: None, created_files }
}

fn parse_failure(revision: u64, error: ScriptError) -> Outcome {
    let failure = Failure {
        statement: error.statement,
        line: error.line,
        column: error.column,
        call: None,
        message: error.message,
        hint: error.hint,
        invalid: Vec::new(),
    };
    Outcome {
        success: false,
        results: Vec::new(),
        bindings: Vec::new(),
        issues: Vec::new(),
        revision,
        failure: Some(failure),
        created_files: Vec::new(),
    }
}

/// Why a statement failed.
#[derive(Debug)]
pub(crate) struct StepError {
    message: String,
    hint: Option<String>,
    invalid: Vec<Invalid>,
    /// A more precise place than the statement's start, when known.
    at: Option<(u32, u32)>,
}

impl StepError {
    /// The failure of statement `index` (at `span`, unless the error knows a closer place),
    /// shown as `call`.
    fn into_failure(self, index: usize, span: super::ast::Span, call: String) -> Failure {
        let (line, column) = self.at.unwrap_or((span.line, span.column));
        Failure {
            statement: Some(index),
            line,
            column,
            call: Some(call),
            message: self.message,
            hint: self.hint,
            invalid: self.invalid.into_iter().map(Into::into).collect(),
        }
    }

    fn new(message: impl Into<String>) -> StepError {
        StepError { message: message.into(), hint: None, invalid: Vec::new(), at: None }
    }

    fn hint(mut self, hint: impl Into<String>) -> StepError {
        self.hint = Some(hint.into());
        self
    }

    fn at(mut self, expr: &Expr) -> StepError {
        self.at = Some((expr.span.line, expr.span.column));
        self
    }
}

type Step<T> = Result<T, StepError>;

/// Where a parent argument points.
pub(crate) enum Parent {
    /// The document root: top-level nodes.
    Root,
    /// A node, or a node inside an instance.
    Target(PathTarget),
}

/// The state of a running call.
pub(crate) struct Runner<'a, 'd> {
    tx: Transaction<'d>,
    context: &'a Context<'a>,
    state: State,
}

/// What a call keeps between its statements besides the transaction: the `execute` tool runs
/// each statement in a transaction of its own and carries this from one to the next.
pub(crate) struct State {
    /// Binding name → node path.
    bindings: HashMap<String, String>,
    binding_order: Vec<Binding>,
    /// Ids written by the agent in new nodes → the fresh ids they were given.
    aliases: HashMap<String, String>,
    /// Copies made by C() in this call: the copy's id → (an id in its source → the id the copy
    /// of that node got), so `copy/childId` finds the copied child as `instance/childId` does.
    copies: HashMap<String, HashMap<String, String>>,
    ids: IdGenerator,
    results: Vec<OpResult>,
    /// Nodes created or changed, for the potential-issue checks.
    touched: Vec<NodeKey>,
    /// Nodes whose x or y this call set.
    positioned: HashSet<NodeKey>,
    /// Nodes whose problems before the call are known: the new ones (they had none) and the
    /// ones [`Runner::note_before`] looked at before their first change.
    noted: HashSet<NodeKey>,
    /// The potential issues the changed nodes had before the call: not this call's to say.
    known: HashSet<String>,
    /// Potential issues a statement saw as it ran (the others are looked for after the call).
    said: Vec<crate::diagnostic::Diagnostic>,
    /// Image files G() wrote that were not there before.
    created: Vec<std::path::PathBuf>,
}

impl State {
    fn new(options: &Options) -> State {
        State {
            bindings: HashMap::new(),
            binding_order: Vec::new(),
            aliases: HashMap::new(),
            copies: HashMap::new(),
            ids: IdGenerator::new(options.id_seed),
            results: Vec::new(),
            touched: Vec::new(),
            positioned: HashSet::new(),
            noted: HashSet::new(),
            known: HashSet::new(),
            said: Vec::new(),
            created: Vec::new(),
        }
    }
}

impl<'a, 'd> Runner<'a, 'd> {
    fn new(tx: Transaction<'d>, context: &'a Context<'a>) -> Runner<'a, 'd> {
        Runner::resume(tx, context, State::new(&context.options))
    }

    /// A runner that goes on from what earlier statements left in `state`.
    fn resume(tx: Transaction<'d>, context: &'a Context<'a>, state: State) -> Runner<'a, 'd> {
        Runner { tx, context, state }
    }

    fn run(&mut self, script: &Script) -> Result<(), (usize, StepError)> {
        for (index, statement) in script.statements.iter().enumerate() {
            let touched_before = self.state.touched.len();
            let bound = self.statement(statement).map_err(|e| (index, e))?;
            self.check_depth(touched_before).map_err(|e| (index, e))?;
            if let (Some(name), Some(path)) = (&statement.binding, bound) {
                self.state.bindings.insert(name.clone(), path.clone());
                self.state.binding_order.retain(|b| b.name != *name);
                // Pencil lists the bindings of nodes a call made; one on U(), M() or D() names
                // a node that was already there (it still works within the call).
                if !matches!(statement.operation, Operation::Update | Operation::Move | Operation::Delete) {
                    self.state.binding_order.push(Binding { name: name.clone(), id: path });
                }
            }
        }
        Ok(())
    }

    /// Runs one statement; returns the path its binding names.
    fn statement(&mut self, statement: &Statement) -> Step<Option<String>> {
        use super::ast::Operation::*;
        let binding = statement.binding.as_deref();
        let args = &statement.arguments;
        match statement.operation {
            Insert => self.insert(&args[0], &args[1], binding).map(Some),
            Copy => self.copy(&args[0], &args[1], args.get(2), binding).map(Some),
            Update => self.update(&args[0], &args[1]).map(Some),
            Replace => self.replace(&args[0], &args[1], binding).map(Some),
            Move => self.move_node(&args[0], args.get(1), args.get(2)).map(Some),
            Delete => self.delete(&args[0]).map(|_| None),
            Generate => self.generate(&args[0], &args[1], &args[2]).map(Some),
        }
    }

    /// The statement as Pencil shows it in failures: `{"callee":"U","arguments":[...]}`.
    fn describe_call(&self, statement: &Statement) -> String {
        let mut w = JsonWriter::compact();
        w.begin_object();
        w.key("callee");
        w.string(statement.operation.letter());
        w.key("arguments");
        w.begin_array();
        for argument in &statement.arguments {
            match self.json(argument) {
                Ok(json) => json.write(&mut w),
                Err(_) => w.null(),
            }
        }
        w.end_array();
        w.end_object();
        w.finish()
    }

    fn document(&self) -> &Document {
        self.tx.document()
    }

    fn validator(&self) -> Validator {
        Validator::new(self.document().version())
    }

    // Arguments ------------------------------------------------------------------------------

    /// An argument as JSON, with bindings replaced by their node paths.
    fn json(&self, expr: &Expr) -> Step<Json> {
        let offset = expr.span.start as u32;
        let value = match &expr.kind {
            ExprKind::String(text) => JsonValue::String(text.clone()),
            ExprKind::Number(n) => JsonValue::Number(*n),
            ExprKind::Bool(b) => JsonValue::Bool(*b),
            ExprKind::Null | ExprKind::Undefined => JsonValue::Null,
            ExprKind::Reference(_) | ExprKind::Concat(_) => JsonValue::String(self.text(expr)?),
            ExprKind::Array(items) => JsonValue::Array(
                items.iter().filter(|i| i.kind != ExprKind::Undefined).map(|i| self.json(i)).collect::<Step<_>>()?,
            ),
            ExprKind::Object(properties) => JsonValue::Object(
                properties
                    .iter()
                    .filter(|p| p.value.kind != ExprKind::Undefined)
                    .map(|p| {
                        Ok(Member {
                            key: p.key.clone(),
                            key_offset: p.key_span.start as u32,
                            value: self.json(&p.value)?,
                        })
                    })
                    .collect::<Step<_>>()?,
            ),
        };
        Ok(Json { offset, value })
    }

    /// An argument that must be text: a string, a binding, or a concatenation of them.
    fn text(&self, expr: &Expr) -> Step<String> {
        match &expr.kind {
            ExprKind::String(text) => Ok(text.clone()),
            ExprKind::Number(n) => {
                let mut text = String::new();
                crate::doc::json::write_js_number(&mut text, *n);
                Ok(text)
            }
            ExprKind::Reference(name) if ROOT_NAMES.contains(&name.as_str()) => Ok("document".into()),
            ExprKind::Reference(name) => self
                .state
                .bindings
                .get(name)
                .cloned()
                .ok_or_else(|| StepError::new(format!("binding `{name}` is not defined")).at(expr)),
            ExprKind::Concat(parts) => parts.iter().map(|part| self.text(part)).collect(),
            _ => Err(StepError::new("expected a node id or path (a string or a binding)")
                .hint("write the id in quotes, e.g. \"k8eKw\", or use a binding")
                .at(expr)),
        }
    }

    /// A node path argument, resolved.
    fn target(&self, expr: &Expr) -> Step<PathTarget> {
        let path = self.text(expr)?;
        self.resolve(&path).map_err(|e| e.at(expr))
    }

    fn resolve(&self, path: &str) -> Step<PathTarget> {
        let path = path.strip_prefix('#').unwrap_or(path);
        let path = match path.split_once('/') {
            Some((first, rest)) => {
                let first = self.state.aliases.get(first).map_or(first, String::as_str);
                format!("{first}/{}", self.through_copy(first, rest))
            }
            None => self.state.aliases.get(path).cloned().unwrap_or_else(|| path.to_owned()),
        };
        let found = resolve_path(self.document(), self.context.library, &path).or_else(|e| {
            // Ids the agent wrote in nodes made by this call name those nodes inside instances
            // of them too (`I(row, {type: "ref", ref: card})` then `card2/title`).
            let segments: Vec<&str> = path.split('/').collect();
            if segments.len() > 1 && segments[1..].iter().any(|s| self.state.aliases.contains_key(*s)) {
                let aliased: Vec<&str> = segments
                    .iter()
                    .enumerate()
                    .map(|(i, s)| if i == 0 { s } else { self.state.aliases.get(*s).map_or(*s, String::as_str) })
                    .collect();
                if let Ok(found) = resolve_path(self.document(), self.context.library, &aliased.join("/")) {
                    return Ok(found);
                }
            }
            Err(e)
        });
        found.map_err(|e| {
            let hint = if e.names_the_component {
                format!(
                    "`{}` is the component itself: address nodes inside the instance by their ids in the component, e.g. {}/{}",
                    e.missing,
                    e.within,
                    e.available.first().map_or("childId", String::as_str)
                )
            } else if e.within.is_empty() {
                inside_instances_hint(self.document(), self.context.library, &e.missing).unwrap_or_else(|| {
                    format!(
                        "no node has the id `{}`; bindings do not outlive a call, so use ids from earlier answers",
                        e.missing
                    )
                })
            } else if e.available.is_empty() {
                format!("`{}` has no nodes that can be addressed", e.within)
            } else {
                format!("ids under `{}`: {}", e.within, e.available.join(", "))
            };
            StepError::new(e.to_string()).hint(hint)
        })
    }

    /// `rest` of a path starting at `first`, with the source ids of a copy made in this call
    /// turned into the ids its nodes got; segments past the copied nodes (inside an instance
    /// the copy holds, whose ids a copy keeps) stay as written.
    fn through_copy(&self, first: &str, rest: &str) -> String {
        let Some(renamed) = self.state.copies.get(first) else { return rest.to_owned() };
        let mut copied = true;
        rest.split('/')
            .map(|segment| match renamed.get(segment).filter(|_| copied) {
                Some(id) => id.as_str(),
                None => {
                    copied = false;
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// A parent argument: the document root or a node.
    fn parent(&self, expr: &Expr) -> Step<Parent> {
        let path = self.text(expr)?;
        if matches!(path.as_str(), "document" | "root" | "#document" | "") {
            return Ok(Parent::Root);
        }
        self.resolve(&path).map(Parent::Target).map_err(|e| e.at(expr))
    }

    /// An argument that must be an object literal.
    fn object(&self, expr: &Expr, what: &str) -> Step<Json> {
        let mut json = self.json(expr)?;
        if !matches!(json.value, JsonValue::Object(_)) {
            return Err(StepError::new(format!("expected {what} as an object, found {}", json.kind_name())).at(expr));
        }
        // Strokes, fills and effects are stored as they will be written: in Pen's order.
        crate::doc::pencil_order::order_objects(&mut json);
        Ok(json)
    }

    /// Fails with every invalid property the validator found.
    fn check(&self, validator: Validator, expr: &Expr) -> Step<()> {
        if validator.errors.is_empty() {
            return Ok(());
        }
        let count = validator.errors.len();
        let mut error = StepError::new("Invalid properties:").at(expr);
        error.hint = Some(match count {
            1 => "fix the property listed; nothing was changed".into(),
            _ => format!("fix each of the {count} properties listed; nothing was changed"),
        });
        error.invalid = validator.errors;
        Err(error)
    }

    // Ids ------------------------------------------------------------------------------------

    /// Gives every node of `tree` a fresh id (ids the agent wrote become aliases) and puts its
    /// keys in Pen's order, as every new node is written. `taken` holds ids that must be avoided besides the document's.
    fn assign_ids(&mut self, tree: &mut NodeTree, taken: &mut HashSet<String>) {
        let document = self.tx.document();
        let id = self.state.ids.next(|candidate| document.node_by_id(candidate).is_some() || taken.contains(candidate));
        taken.insert(id.clone());
        if let Some(written) = tree.props.id() {
            self.state.aliases.insert(written.to_owned(), id.clone());
        }
        tree.props = with_leading_id(std::mem::take(&mut tree.props), &id);
        for child in &mut tree.children {
            self.assign_ids(child, taken);
        }
    }

    /// A new node's name defaults to its binding.
    fn default_name(tree: &mut NodeTree, binding: Option<&str>) {
        if let Some(binding) = binding
            && !tree.props.contains(&Key::Name)
        {
            tree.props.set_in_pencil_order(Key::Name, Value::Text(binding.to_owned()));
        }
    }

    /// Nodes this statement placed deeper than a file can hold would make the saved file one
    /// that does not open again: the statement fails instead.
    fn check_depth(&self, touched_before: usize) -> Step<()> {
        let tree = self.tx.document().tree();
        let Some(deep) = self.state.touched[touched_before..].iter().find(|k| tree.depth(**k) >= MAX_NODE_DEPTH) else {
            return Ok(());
        };
        Err(StepError::new(format!(
            "this would put node '{}' {} levels deep; a .pen file holds at most {MAX_NODE_DEPTH}",
            tree.node(*deep).id(),
            tree.depth(*deep) + 1
        ))
        .hint(
            "flatten the structure: group fewer wrappers, or move part of it to its own top-level frame or component",
        ))
    }

    fn touch(&mut self, key: NodeKey) {
        let tree = self.tx.document().tree();
        self.state.touched.extend(tree.subtree(key));
        // A node made in this call had no problems before it.
        self.state.noted.extend(tree.subtree(key));
    }

    /// Notes the potential issues of `key` and the nodes below it as they are before this call
    /// first changes them, so the answer says only what the call brought (an issue of an
    /// earlier call is not repeated because a node was touched again). Costs what the checks
    /// after the call cost, for the nodes changed only.
    fn note_before(&mut self, key: NodeKey) {
        let document = self.tx.document();
        let fresh: Vec<NodeKey> = document.tree().subtree(key).filter(|k| !self.state.noted.contains(k)).collect();
        if fresh.is_empty() {
            return;
        }
        let mut parts = HashMap::new();
        for node in fresh {
            self.state.noted.insert(node);
            let found =
                super::issues::of_node(document, self.context.library, node, false, self.context.canvas, &mut parts);
            self.state.known.extend(found.iter().map(super::issues::Issue::key));
        }
    }
}

/// The hint for an id no node of the document tree has but nodes inside instances do (the
/// component's id of a node an agent saw in an instance): address it by its path. At most
/// three paths are named.
fn inside_instances_hint(document: &Document, library: &dyn Library, id: &str) -> Option<String> {
    const NAMED: usize = 3;
    let paths = crate::resolve::instance_paths_to(document, library, id, NAMED + 1);
    let first = paths.first()?;
    let mut hint =
        format!("`{id}` is a node inside an instance: address it by its path, the instance's id and its own: {first}");
    if paths.len() > 1 {
        let others: Vec<&str> = paths[1..paths.len().min(NAMED)].iter().map(String::as_str).collect();
        let more = if paths.len() > NAMED { " and more" } else { "" };
        hint.push_str(&format!(" (it is also in other instances: {}{more})", others.join(", ")));
    }
    Some(hint)
}

/// Rebuilds `props` as `type`, `id`, then the rest in order: how Pen writes new nodes.
fn with_leading_id(mut props: Props, id: &str) -> Props {
    props.set(Key::Id, Value::Text(id.to_owned()));
    crate::doc::pencil_order::sort_props(&mut props);
    props
}

/// Pen-style ids: five letters and digits, drawn from a seeded sequence.
struct IdGenerator(crate::random::Xorshift);

const ID_ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

impl IdGenerator {
    fn new(seed: Option<u64>) -> IdGenerator {
        let seed = seed.unwrap_or_else(|| {
            let nanos =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
            nanos ^ (u64::from(std::process::id()) << 32)
        });
        IdGenerator(crate::random::Xorshift::new(seed))
    }

    fn next(&mut self, taken: impl Fn(&str) -> bool) -> String {
        loop {
            let id: String = (0..5)
                .map(|_| {
                    let n = self.0.next_u64() >> 33;
                    ID_ALPHABET[(n % ID_ALPHABET.len() as u64) as usize] as char
                })
                .collect();
            if !taken(&id) {
                return id;
            }
        }
    }
}
