//! What answers a snippet's calls: each API function is one of nib's operations on the open
//! document, and the call's changes are gathered into one undo step as they are made.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::exports::Exports;
use super::{ExecuteAnswer, ExecuteLimits, arguments, retry, snippet_error};
use crate::diagnostic::Diagnostic;
use crate::doc::HistoryMark;
use crate::images::ImageProvider;
use crate::js::{HostCall, HostRefusal, JsError, Ran};
use crate::resolve::SceneOptions;
use crate::script::{Context, Failure, OpResult, Operation, Options, Session, Span};
use crate::tools::{ToolError, Workspace};

/// Most nodes one `Get(visitor)` walks: the largest corpus document has about 3,000; a walk of
/// more is answered with an error that says to start lower or go less deep.
pub const MAX_WALKED_NODES: usize = 20_000;

/// Most characters `Print` keeps for one call; the rest is dropped with a note.
pub const MAX_PRINTED_CHARS: usize = 64 * 1024;

/// The code of a text that held half of a UTF-16 pair, shown with U+FFFD in its place.
const LONE_SURROGATE: &str = "lone-surrogate";

/// One execute call: the snippet's functions answered against the workspace lent to it (named
/// apart from the compiler's `Host`, which gives a compile its files).
pub(super) struct SnippetCall {
    /// The workspace, lent to the call (see `execute`).
    pub(super) workspace: Workspace,
    /// The document, as the tools take it.
    file_path: String,
    edit_id: String,
    snippet_lines: Vec<String>,
    /// Where the call's history starts: its changes join into one step after it.
    mark: HistoryMark,
    revision_before: u64,
    images: Arc<dyn ImageProvider + Send + Sync>,
    /// Started at the first write.
    session: Option<Session>,
    /// The first operation that failed: the call fails with it even if the snippet caught it.
    failure: Option<Failure>,
    /// The last refusal of a read, whose hint the call's error carries when the snippet did not
    /// catch it.
    refused: Option<ToolError>,
    ids: Map<String, Value>,
    printed: Vec<String>,
    printed_chars: usize,
    /// Texts `Print` showed with U+FFFD for half of a UTF-16 pair.
    printed_repaired: usize,
    warnings: Vec<Diagnostic>,
    screenshots: Vec<crate::tools::Screenshot>,
    exports: Exports,
    limits: ExecuteLimits,
    /// Writes made so far.
    writes: usize,
    /// The document's node count when the call started.
    nodes_before: usize,
    /// The layout problems before the call's first write, to answer with the ones it adds
    /// (`None` until it writes, or when the document could not be laid out).
    problems_before: Option<Option<Arc<crate::tools::introduced::KnownProblems>>>,
}

impl SnippetCall {
    pub(super) fn new(mut workspace: Workspace, path: PathBuf, edit_id: String, snippet: &str) -> SnippetCall {
        let images = workspace.images.clone();
        let limits = workspace.execute_limits;
        let (mark, revision_before, nodes_before) = match workspace.document(Some(&path.to_string_lossy())) {
            Ok((open, _)) => (open.document.history_mark(), open.document.revision(), open.document.node_count()),
            Err(_) => (crate::doc::Document::default().history_mark(), 0, 0),
        };
        SnippetCall {
            workspace,
            file_path: path.to_string_lossy().into_owned(),
            edit_id,
            snippet_lines: snippet.lines().map(str::to_owned).collect(),
            mark,
            revision_before,
            images,
            session: None,
            failure: None,
            refused: None,
            ids: Map::new(),
            printed: Vec::new(),
            printed_chars: 0,
            printed_repaired: 0,
            warnings: Vec::new(),
            screenshots: Vec::new(),
            exports: Exports::default(),
            limits,
            writes: 0,
            nodes_before,
            problems_before: None,
        }
    }

    /// Answers one call of the snippet.
    pub(super) fn answer(&mut self, call: HostCall) -> Result<Value, HostRefusal> {
        if let Some(failure) = &self.failure {
            // After a failed operation the call will be undone: nothing more runs.
            return Err(HostRefusal {
                message: format!("an earlier operation failed (line {}): {}", failure.line, failure.message),
                hint: failure.hint.clone(),
            });
        }
        let at = Span { start: 0, end: 0, line: call.line.unwrap_or(1), column: call.column.unwrap_or(1) };
        let arguments = match call.arguments {
            Value::Array(arguments) => arguments,
            other => vec![other],
        };
        let argument = |i: usize| arguments.get(i).cloned().unwrap_or(Value::Null);
        let marked = arguments::find(&call.name, &arguments);
        let answered = if !marked.is_empty() {
            Err(self.not_json(&call.name, &marked, at))
        } else {
            match call.name.as_str() {
                "Insert" => self.write(Operation::Insert, &arguments, at, "Insert"),
                "Copy" => self.write(Operation::Copy, &arguments, at, "Copy"),
                "Update" => self.write(Operation::Update, &arguments, at, "Update"),
                "Replace" => self.write(Operation::Replace, &arguments, at, "Replace"),
                "Move" => {
                    // A negative index means the end, as in Pen.
                    let mut arguments = arguments.clone();
                    if arguments.get(2).and_then(Value::as_f64).is_some_and(|i| i < 0.0) {
                        arguments[2] = Value::Null;
                    }
                    self.write(Operation::Move, &arguments, at, "Move")
                }
                "Delete" => self.write(Operation::Delete, &arguments, at, "Delete"),
                "Generate" if arguments.get(1).and_then(Value::as_str) == Some("svg") => {
                    self.generate_svg(&arguments, at)
                }
                "Generate" => self.write(Operation::Generate, &arguments, at, "Generate"),
                "SetVariables" => self.set_variables(argument(0), argument(1), at),
                "GetVariables" => self
                    .read(|w, file| super::super::get_variables(w, super::super::FileArgs { file_path: Some(file) }))
                    .map(|answer| json!({ "themes": answer["themes"], "variables": answer["variables"] })),
                "Get" => self.get(argument(0), argument(1)),
                "Get(visitor)" => self.tree(argument(0), argument(1)),
                "FindEmptySpace" => self.find_empty_space(argument(0)),
                "TakeScreenshot" => self.screenshot(argument(0), argument(1), at),
                "Export" => self.export(argument(0), argument(1), argument(2), at),
                "Print" => {
                    self.print(argument(0), argument(1).as_u64().unwrap_or(0) as usize);
                    Ok(Value::Null)
                }
                "Claim" => self.claim(argument(0), argument(1)),
                "Release" => self.release(argument(0)),
                other => Err(ToolError::new(format!("there is no operation '{other}'"))),
            }
        };
        answered.map_err(|error| {
            self.refused = Some(error.clone());
            HostRefusal { message: error.message, hint: error.hint }
        })
    }

    // Refusals ---------------------------------------------------------------------------------

    /// Fails the call with `message`: a write that cannot be made is not half-done work for the
    /// snippet to catch and build on, so the call fails even if the snippet catches it.
    fn fail(&mut self, at: Span, message: String, hint: String) -> ToolError {
        let error = ToolError::new(message.clone()).with_hint(hint.clone());
        self.failure.get_or_insert(Failure {
            statement: None,
            line: at.line,
            column: at.column,
            call: None,
            message,
            hint: Some(hint),
            invalid: Vec::new(),
        });
        error
    }

    /// The refusal of a call that passed values JSON cannot carry (NaN, undefined…): nothing
    /// of it is done, and a write's refusal fails the call.
    fn not_json(&mut self, function: &str, marked: &[arguments::NotJson], at: Span) -> ToolError {
        let (message, hint) = arguments::refusal(function, marked);
        if !is_write(function) {
            return ToolError::new(message).with_hint(hint);
        }
        // The message names each value already; a list of them would say it twice.
        self.fail(at, message, hint)
    }

    /// Counts one write against the call's limit.
    fn count_write(&mut self, function: &str, at: Span) -> Result<(), ToolError> {
        self.writes += 1;
        if self.writes <= self.limits.writes {
            return Ok(());
        }
        let limit = self.limits.writes;
        Err(self.fail(
            at,
            format!("{function}: one call makes at most {limit} writes (Insert, Copy, Update, Replace, Move, Delete, Generate, SetVariables)"),
            "split the work over several calls (each is its own undo step), or give a node its children in one Insert".into(),
        ))
    }

    /// Checks the nodes the call has added against its limit.
    fn count_nodes(&mut self, function: &str, at: Span) -> Result<(), ToolError> {
        let Ok((open, _)) = self.workspace.document(Some(&self.file_path)) else { return Ok(()) };
        let added = open.document.node_count().saturating_sub(self.nodes_before);
        if added <= self.limits.nodes {
            return Ok(());
        }
        let limit = self.limits.nodes;
        Err(self.fail(
            at,
            format!("{function}: this call has added {added} nodes; one call adds at most {limit}"),
            "build the design over several calls (each is its own undo step), or reuse a component with instances instead of copies".into(),
        ))
    }

    /// `Update(document, …)`: `document` is where top-level nodes go, not a node to change.
    fn refuse_document_as_node(
        &mut self,
        operation: Operation,
        arguments: &[Value],
        at: Span,
        function: &str,
    ) -> Result<(), ToolError> {
        let takes_a_node = matches!(
            operation,
            Operation::Update
                | Operation::Replace
                | Operation::Move
                | Operation::Delete
                | Operation::Copy
                | Operation::Generate
        );
        if !takes_a_node || arguments.first().and_then(Value::as_str) != Some("document") {
            return Ok(());
        }
        // A node may be called `document` by its own id: then it is that node.
        if let Ok((open, _)) = self.workspace.document(Some(&self.file_path))
            && open.document.node_by_id("document").is_some()
        {
            return Ok(());
        }
        let what = match operation {
            Operation::Update => "updated",
            Operation::Replace => "replaced",
            Operation::Move => "moved",
            Operation::Delete => "deleted",
            Operation::Copy => "copied",
            _ => "given an image",
        };
        Err(self.fail(
            at,
            format!("{function}: `document` is the top level of the file, not a node: it cannot be {what}"),
            "pass a node: an id an Insert returned, or a node from Get() (the top-level nodes); `document` is only a parent (Insert(document, …)); variables change with SetVariables".into(),
        ))
    }

    // Writes -----------------------------------------------------------------------------------

    /// One write through the batch_design interpreter, in a transaction joined to the call's.
    fn write(
        &mut self,
        operation: Operation,
        arguments: &[Value],
        at: Span,
        function: &str,
    ) -> Result<Value, ToolError> {
        self.count_write(function, at)?;
        self.refuse_document_as_node(operation, arguments, at, function)?;
        if self.problems_before.is_none() {
            let before = self.workspace.already_open(Path::new(&self.file_path)).and_then(|open| open.known_problems());
            self.problems_before = Some(before);
        }
        let session = &mut self.session;
        let mark = &self.mark;
        // Other sessions' claims, found when the call looked at the document.
        let fence = self.workspace.already_open(Path::new(&self.file_path)).map(|open| open.fence.clone());
        let (stepped, last) = in_context(&mut self.workspace, &self.file_path, &self.images, |document, context| {
            let session = session.get_or_insert_with(|| Session::new(document, context));
            let before = document.revision();
            let mut stepped = session.step(document, context, operation, arguments, at);
            // A write into another session's claim is taken back at once, so that a `partial`
            // call keeps only what came before it.
            if stepped.is_ok()
                && document.revision() != before
                && let Some(refusal) = fence
                    .as_ref()
                    .and_then(|fence| fence.refusal(document, &document.last_touches(crate::doc::LastStep::Made)))
            {
                document.discard_last();
                stepped = Err(Failure {
                    statement: None,
                    line: at.line,
                    column: at.column,
                    call: None,
                    message: refusal.message,
                    hint: refusal.hint,
                    invalid: Vec::new(),
                });
            }
            document.join_since(mark);
            (stepped, session.last_result().cloned())
        })?;
        let path = match stepped {
            Ok(path) => path,
            Err(mut failure) => {
                // batch_design's failures name no function: the snippet's call does.
                failure.message = format!("{function}: {}", failure.message);
                let error = ToolError::new(failure.message.clone()).with_optional_hint(failure.hint.clone());
                self.failure = Some(failure);
                return Err(error);
            }
        };
        self.count_nodes(function, at)?;
        match last {
            Some(OpResult::AlreadyAbsent { id }) => {
                let message = format!("Delete: there is no node '{id}'; nothing was deleted");
                self.warnings.push(Diagnostic::note("already-absent", message).at_node(id));
                return Ok(Value::Bool(false));
            }
            Some(OpResult::ImageAdded { note: Some(note), id, .. }) => {
                let message = format!("Generate on '{id}': {note}");
                self.warnings.push(Diagnostic::note("image-substituted", message).at_node(id));
            }
            _ => {}
        }
        let Some(path) = path else { return Ok(Value::Bool(true)) };
        if matches!(operation, Operation::Insert | Operation::Copy | Operation::Replace)
            && let Some(name) = self.bound_name(at, function)
        {
            match self.ids.get_mut(&name) {
                Some(Value::Array(list)) => list.push(Value::String(path.clone())),
                Some(earlier) => *earlier = json!([earlier.clone(), path]),
                None => {
                    self.ids.insert(name, Value::String(path.clone()));
                }
            }
        }
        Ok(Value::String(path))
    }

    /// `Generate(node, "svg", markup)`: the markup's shapes as path nodes in a frame inserted
    /// into the node, fitted to its box.
    fn generate_svg(&mut self, arguments: &[Value], at: Span) -> Result<Value, ToolError> {
        let (Some(target), Some(markup)) =
            (arguments.first().and_then(Value::as_str), arguments.get(2).and_then(Value::as_str))
        else {
            return Err(ToolError::new("Generate(node, \"svg\", markup) takes a node and the SVG markup as a string"));
        };
        let (open, _) = self.workspace.document(Some(&self.file_path))?;
        let version = crate::doc::format::Version::read_as(open.document.version());
        let (scene, layout) = open.layout()?;
        let (width, height) = scene
            .node_by_id(target)
            .and_then(|key| layout.node_box(key))
            .map_or((0.0, 0.0), |b| (f64::from(b.width), f64::from(b.height)));
        let converted = super::svg::convert(markup, width, height, version)?;
        for mut note in converted.notes {
            note.message = format!("Generate svg: {}", note.message);
            self.warnings.push(note.at_node(target));
        }
        self.write(Operation::Insert, &[Value::String(target.to_owned()), converted.frame], at, "Generate")
    }

    /// The snippet's variable a call's result is assigned to: `name` in `const name = Insert(`
    /// (or `= await Insert(`).
    fn bound_name(&self, at: Span, function: &str) -> Option<String> {
        let line = self.snippet_lines.get(at.line.checked_sub(1)? as usize)?;
        // The engine places a call at its name or just after it: look up to the name's end.
        let end: usize = line.char_indices().nth(at.column as usize + function.len()).map_or(line.len(), |(i, _)| i);
        let before = &line[..line[..end].rfind(function)?];
        // `const name = await Insert(` binds the same node (a snippet is an async function's body).
        let before = before.trim_end();
        let before = before
            .strip_suffix("await")
            .filter(|b| !b.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(before);
        let before = before.trim_end().strip_suffix('=')?.trim_end();
        if before.ends_with(['=', '!', '<', '>', '+', '-', '*', '/']) {
            return None;
        }
        let name: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let starts_well = name.chars().next().is_some_and(|c| !c.is_ascii_digit());
        (starts_well && !name.is_empty()).then_some(name)
    }

    fn set_variables(&mut self, variables: Value, options: Value, at: Span) -> Result<Value, ToolError> {
        self.count_write("SetVariables", at)?;
        let replace = match options.get("replace") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(replace)) => *replace,
            Some(_) => return Err(ToolError::new("SetVariables: replace must be true or false")),
        };
        let (open, _) = self.workspace.document(Some(&self.file_path))?;
        let warnings = super::super::variables::apply(&mut open.document, &variables, replace)?;
        self.warnings.extend(warnings);
        open.document.join_since(&self.mark);
        let (themes, variables) = super::super::variables::as_json(&open.document);
        Ok(json!({ "themes": themes, "variables": variables }))
    }

    // Claims -----------------------------------------------------------------------------------

    /// `Claim(nodes, {minutes})`: the claims made or renewed, as the claim tool lists them.
    fn claim(&mut self, nodes: Value, options: Value) -> Result<Value, ToolError> {
        let ids = node_list(nodes, "Claim")?.unwrap_or_default();
        let options = options_object(options, "Claim")?;
        let minutes = match options.get("minutes") {
            None | Some(Value::Null) => None,
            Some(value) => {
                Some(value.as_f64().ok_or_else(|| ToolError::new("Claim: minutes is a number, e.g. {minutes: 15}"))?)
            }
        };
        if let Some(unknown) = options.keys().find(|key| *key != "minutes") {
            return Err(ToolError::new(format!("Claim: there is no option '{unknown}'; the one option is minutes")));
        }
        let length = super::super::claim::claim_length(minutes)?;
        let claimed = super::super::claim::claim_nodes(&mut self.workspace, Some(&self.file_path), &ids, length)?;
        Ok(Value::Array(claimed.claimed))
    }

    /// `Release(nodes)`: the ids released (every claim of this session in the document without
    /// nodes).
    fn release(&mut self, nodes: Value) -> Result<Value, ToolError> {
        let ids = node_list(nodes, "Release")?;
        let released = super::super::claim::release_nodes(&mut self.workspace, Some(&self.file_path), ids.as_deref())?;
        Ok(json!(released.released))
    }

    // Reads ------------------------------------------------------------------------------------

    /// A tool's answer as JSON, for the call's document.
    fn read<T: serde::Serialize>(
        &mut self,
        tool: impl FnOnce(&mut Workspace, String) -> Result<T, ToolError>,
    ) -> Result<Value, ToolError> {
        let answer = tool(&mut self.workspace, self.file_path.clone())?;
        serde_json::to_value(answer).map_err(|e| ToolError::new(e.to_string()))
    }

    /// `Get(ids, options)`: the nodes as batch_get reads them, `null` for one that is not there.
    fn get(&mut self, ids: Value, options: Value) -> Result<Value, ToolError> {
        let mut args = options_object(options, "Get")?;
        if let Some(depth) = args.remove("depth") {
            args.insert("readDepth".into(), depth);
        }
        args.insert("filePath".into(), Value::String(self.file_path.clone()));
        let wanted: Option<Vec<String>> = match &ids {
            Value::Null => None,
            Value::Array(list) => Some(
                list.iter()
                    .map(|id| {
                        id.as_str()
                            .map(str::to_owned)
                            .ok_or_else(|| ToolError::new("Get: a node is an id or path string"))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(ToolError::new("Get: give a node id, a list of them, or a visitor function")),
        };
        if let Some(wanted) = &wanted {
            args.insert("nodeIds".into(), json!(wanted));
        }
        let parsed: super::super::BatchGetArgs = super::super::parse("Get", Value::Object(args))?;
        let found = super::super::batch_get(&mut self.workspace, parsed)?;
        let Some(wanted) = wanted else { return Ok(Value::Array(found.nodes)) };
        Ok(Value::Array(
            wanted
                .iter()
                .map(|id| {
                    found.nodes.iter().find(|n| n["id"].as_str() == Some(id.as_str())).cloned().unwrap_or(Value::Null)
                })
                .collect(),
        ))
    }

    /// The tree a `Get(visitor)` walks: each node as saved (without its children), its box on
    /// the canvas, its layout problems, and its children.
    fn tree(&mut self, start: Value, options: Value) -> Result<Value, ToolError> {
        let options = options_object(options, "Get")?;
        let flag = |name: &str| options.get(name).and_then(Value::as_bool).unwrap_or(false);
        for key in options.keys() {
            if !["depth", "resolveVariables", "resolveInstances", "includePathGeometry"].contains(&key.as_str()) {
                return Err(ToolError::new(format!("Get: there is no option '{key}'"))
                    .with_hint("the options are depth, resolveVariables, resolveInstances, includePathGeometry"));
            }
        }
        let depth = options.get("depth").and_then(Value::as_u64).map_or(usize::MAX, |d| d as usize);
        let scene_options =
            SceneOptions { expand_instances: flag("resolveInstances"), substitute_variables: flag("resolveVariables") };
        let geometry = flag("includePathGeometry");
        let (open, _) = self.workspace.document(Some(&self.file_path))?;
        let (laid_scene, layout) = open.layout()?;
        let scene = open.scene(scene_options)?;
        let found = crate::layout::snapshot::problems(&laid_scene, &layout, None, None);
        let mut problems: std::collections::HashMap<&str, Vec<Value>> = std::collections::HashMap::new();
        for problem in &found.shown {
            problems
                .entry(problem.node.as_str())
                .or_default()
                .push(json!({ "kind": problem.kind, "message": problem.message }));
        }
        let starts = match start.as_str() {
            None => scene.roots(),
            Some(id) => vec![scene.find(id).map_err(|missing| {
                ToolError::from(missing)
                    .with_hint("use an id from Get() or an instance path with resolveInstances: true")
            })?],
        };
        let mut walked = 0usize;
        let mut entry = |key| -> Result<Value, ToolError> {
            walked += 1;
            if walked > MAX_WALKED_NODES {
                return Err(ToolError::new(format!("Get(visitor) walks at most {MAX_WALKED_NODES} nodes"))
                    .with_hint("start at a node (Get(id, visitor)) or give a depth"));
            }
            let mut node: Value =
                serde_json::from_str(&scene.node_to_json(key, 0)).map_err(|e| ToolError::new(e.to_string()))?;
            if let Value::Object(map) = &mut node {
                map.remove("children");
                if !geometry {
                    map.remove("geometry");
                }
            }
            let id = scene.node(key).id.as_str();
            // Pen's bounds: the turned box, relative to the parent's x/y.
            let bounds = laid_scene.node_by_id(id).and_then(|k| layout.reported(k)).map(|b| {
                json!({ "x": crate::tools::number(f64::from(b.x)), "y": crate::tools::number(f64::from(b.y)),
                        "width": crate::tools::number(f64::from(b.width)), "height": crate::tools::number(f64::from(b.height)) })
            });
            Ok(json!({ "node": node, "bounds": bounds, "problems": problems.get(id).cloned().unwrap_or_default() }))
        };
        // Depth-first with an explicit stack: a deep document must not exhaust the native stack.
        let mut roots = Vec::new();
        let mut stack: Vec<(crate::resolve::SceneKey, usize, Vec<usize>)> = Vec::new();
        for (i, key) in starts.iter().enumerate() {
            roots.push(entry(*key)?);
            stack.push((*key, 0, vec![i]));
        }
        while let Some((key, level, place)) = stack.pop() {
            if level >= depth {
                continue;
            }
            let children: Vec<_> = scene.children(key).collect();
            let mut listed = Vec::with_capacity(children.len());
            for child in &children {
                listed.push(entry(*child)?);
            }
            if let Some(slot) = locate(&mut roots, &place) {
                slot["children"] = Value::Array(listed);
            }
            for (i, child) in children.into_iter().enumerate() {
                let mut at = place.clone();
                at.push(i);
                stack.push((child, level + 1, at));
            }
        }
        Ok(Value::Array(roots))
    }

    fn find_empty_space(&mut self, options: Value) -> Result<Value, ToolError> {
        let mut args = options_object(options, "FindEmptySpace")?;
        args.insert("filePath".into(), Value::String(self.file_path.clone()));
        let parsed: super::super::SpaceArgs = super::super::parse("FindEmptySpace", Value::Object(args))?;
        self.read(|w, _| super::super::find_empty_space_on_canvas(w, parsed))
    }

    fn screenshot(&mut self, node: Value, options: Value, at: Span) -> Result<Value, ToolError> {
        let mut args = options_object(options, "TakeScreenshot")?;
        args.insert("filePath".into(), Value::String(self.file_path.clone()));
        if let Some(id) = node.as_str() {
            args.insert("nodeId".into(), Value::String(id.to_owned()));
        }
        let to_file = args.contains_key("outputPath");
        if to_file {
            self.room_for_a_file("TakeScreenshot", at)?;
        }
        let parsed: super::super::ScreenshotArgs = super::super::parse("TakeScreenshot", Value::Object(args))?;
        let shot = super::super::get_screenshot(&mut self.workspace, parsed)?;
        if let Some(path) = &shot.path {
            // Written as get_screenshot writes it: the answer names the file, and an undone
            // call removes it as it removes an Export's.
            let file = super::super::WrittenFile {
                path: path.clone(),
                bytes: shot.bytes,
                node_id: node.as_str().map(str::to_owned),
                replaced: shot.replaced,
            };
            self.exports.add(std::slice::from_ref(&file));
            return Ok(json!({ "width": shot.width, "height": shot.height, "bytes": shot.bytes, "path": path }));
        }
        let said =
            json!({ "width": shot.width, "height": shot.height, "bytes": shot.bytes, "index": self.screenshots.len() });
        self.screenshots.push(shot);
        Ok(said)
    }

    /// Refuses another file when the call has written as many as it may.
    fn room_for_a_file(&mut self, function: &str, at: Span) -> Result<(), ToolError> {
        let limit = self.limits.exported_files;
        if self.exports.count() >= limit {
            return Err(self.fail(
                at,
                format!(
                    "{function}: one call writes at most {limit} files, and this one has written {}",
                    self.exports.count()
                ),
                "export fewer nodes per call, or export a folder of frames once with all: true in a call of its own"
                    .into(),
            ));
        }
        Ok(())
    }

    fn export(&mut self, nodes: Value, format: Value, options: Value, at: Span) -> Result<Value, ToolError> {
        self.room_for_a_file("Export", at)?;
        let limit = self.limits.exported_files;
        let mut args = options_object(options, "Export")?;
        let format = match format.as_str().map(str::to_ascii_lowercase).as_deref() {
            Some("html-css") => "html".to_owned(),
            Some(format) => format.to_owned(),
            None => {
                return Err(ToolError::new(
                    "Export needs a format: png, jpeg, webp, pdf, svg, html-css, html-tailwind, react, tokens-css, tokens-json or tailwind",
                ));
            }
        };
        args.insert("format".into(), Value::String(format));
        args.insert("filePath".into(), Value::String(self.file_path.clone()));
        if !nodes.is_null() {
            args.insert("nodeIds".into(), nodes);
        }
        let parsed: super::super::ExportArgs = super::super::parse("Export", Value::Object(args))?;
        let answer = super::super::export(&mut self.workspace, parsed)?;
        self.exports.add(&answer.files);
        for warning in &answer.warnings {
            let mut warning = warning.clone();
            warning.message = format!("Export: {}", warning.message);
            self.warnings.push(warning);
        }
        if self.exports.count() > limit {
            return Err(self.fail(
                at,
                format!(
                    "Export: one call writes at most {limit} files; this export took the call to {}",
                    self.exports.count()
                ),
                "export fewer nodes per call: the call is undone and the files it created are removed".into(),
            ));
        }
        serde_json::to_value(answer).map_err(|e| ToolError::new(e.to_string()))
    }

    fn print(&mut self, values: Value, repaired: usize) {
        self.printed_repaired += repaired;
        let line = match values {
            Value::Array(values) => values
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(" "),
            other => other.to_string(),
        };
        if self.printed_chars >= MAX_PRINTED_CHARS {
            return;
        }
        self.printed_chars += line.len();
        if self.printed_chars >= MAX_PRINTED_CHARS {
            self.printed.push(format!("… Print keeps {MAX_PRINTED_CHARS} characters per call; the rest was left out"));
        } else {
            self.printed.push(line);
        }
    }

    // The end ----------------------------------------------------------------------------------

    /// The call's answer: saved and answered when the snippet ran, undone and an error when it
    /// did not (with `partial`, what ran before the error is kept and saved).
    pub(super) fn end(
        &mut self,
        ran: Result<Ran, JsError>,
        partial: bool,
        note: Option<String>,
    ) -> Result<ExecuteAnswer, ToolError> {
        let failure = self.failure.take();
        let error: Option<ToolError> = match (&ran, &failure) {
            (_, Some(failure)) => Some(failure_error(failure, &self.edit_id, partial)),
            (Err(error), None) => Some(snippet_error(error, &self.edit_id, self.refused.as_ref(), partial)),
            (Ok(_), None) => None,
        };
        let finished = self.finish_session();
        let keep = error.is_none() || partial;
        let root = self.workspace.root().to_owned();
        let (open, _) = self.workspace.document(Some(&self.file_path))?;
        if !keep {
            open.document.undo_since(self.mark.clone());
            remove_created(finished.created_files);
            let error = error.unwrap_or_else(|| ToolError::new("the snippet failed"));
            return Err(with_exports(error, self.exports.undo(&root)));
        }
        // Only the call's own step is saved: a write refused and taken back leaves none.
        if open.document.revision() != self.revision_before
            && open.document.committed_since(&self.mark)
            && let Err(saving) = open.save()
        {
            // The save took the call's step back already (an undo): it is only forgotten, so
            // that neither a redo brings it back nor the step before it is undone too.
            open.document.forget_undone(self.mark.clone());
            remove_created(finished.created_files);
            return Err(with_exports(saving, self.exports.undo(&root)));
        }
        let mut issues = finished.issues;
        let introduced = open.problems_since(self.problems_before.take().flatten().as_deref());
        issues.extend(crate::tools::introduced::said(&introduced, &issues));
        let revision = open.document.revision();
        let file_revision = open.file_revision().to_string();
        let (result, repaired) = match ran {
            Ok(Ran { value, repaired }) => (value, repaired),
            Err(_) => (Value::Null, 0),
        };
        if repaired > 0 {
            self.warnings.push(Diagnostic::note(
                LONE_SURROGATE,
                format!(
                    "{repaired} strings of the returned value held half of a UTF-16 pair (a lone surrogate); each half is shown as U+FFFD"
                ),
            ));
        }
        if self.printed_repaired > 0 {
            self.warnings.push(Diagnostic::note(
                LONE_SURROGATE,
                format!(
                    "{} printed texts held half of a UTF-16 pair (a lone surrogate); each half is shown as U+FFFD",
                    self.printed_repaired
                ),
            ));
        }
        let (exported, exported_count) = self.exports.listed();
        Ok(ExecuteAnswer {
            success: error.is_none(),
            edit_id: self.edit_id.clone(),
            result,
            ids: std::mem::take(&mut self.ids),
            printed: std::mem::take(&mut self.printed),
            issues,
            warnings: std::mem::take(&mut self.warnings),
            screenshots: std::mem::take(&mut self.screenshots),
            exported,
            exported_count,
            revision,
            file_revision,
            error: error.map(|e| e.to_json()),
            note,
        })
    }

    fn finish_session(&mut self) -> crate::script::Finished {
        let nothing = || crate::script::Finished { results: Vec::new(), issues: Vec::new(), created_files: Vec::new() };
        let Some(session) = self.session.take() else { return nothing() };
        in_context(&mut self.workspace, &self.file_path, &self.images, |document, context| {
            session.finish(document, context)
        })
        .unwrap_or_else(|_| nothing())
    }
}

/// Runs `work` on the document with the context batch_design's operations need (its imports,
/// folder, image provider and laid-out canvas), built for this one step.
fn in_context<T>(
    workspace: &mut Workspace,
    file_path: &str,
    images: &Arc<dyn ImageProvider + Send + Sync>,
    work: impl FnOnce(&mut crate::doc::Document, &Context) -> T,
) -> Result<T, ToolError> {
    let max_statements = workspace.max_statements;
    let confinement = workspace.confinement().cloned();
    let open = workspace
        .already_open(Path::new(file_path))
        .ok_or_else(|| ToolError::new(format!("{file_path} was closed during the call")))?;
    let folder = open.folder().to_owned();
    let imports = open.compiler.imports(&open.document);
    let canvas = open.compiler.canvas(&open.document);
    let context = Context {
        library: imports.as_ref(),
        images: images.as_ref(),
        folder: Some(&folder),
        confinement: confinement.as_ref(),
        canvas: Some(&canvas),
        options: Options { max_statements, id_seed: None },
    };
    let done = work(&mut open.document, &context);
    drop(canvas);
    Ok(done)
}

/// A failed operation as the tool's error: where in the snippet, what, and how to fix and
/// retry. `kept` says the call's earlier changes were kept (`partial`).
fn failure_error(failure: &Failure, edit_id: &str, kept: bool) -> ToolError {
    let mut message = format!("line {}, column {}: {}", failure.line, failure.column, failure.message);
    for invalid in &failure.invalid {
        message.push_str(&format!("\n- {}: {}", invalid.pointer, invalid.message));
        // What to write instead (the words a property takes, the weight to write).
        if let Some(hint) = &invalid.hint {
            message.push_str(&format!(" ({hint})"));
        }
    }
    let retry = retry(edit_id, kept);
    // batch_design's hints end by saying nothing was changed; the retry says what became of
    // the call's changes, once.
    let hint = match failure.hint.as_deref().map(|h| h.trim_end_matches("; nothing was changed")) {
        Some(hint) if !hint.is_empty() => format!("{hint}; {retry}"),
        _ => retry,
    };
    let data = json!({ "editId": edit_id, "line": failure.line, "column": failure.column, "call": failure.call, "invalid": failure.invalid });
    ToolError { message, hint: Some(hint), data: Some(data), cause: crate::tools::Cause::Call }
}

/// Image files the call's Generate wrote that nothing refers to once it is undone.
fn remove_created(created: Vec<PathBuf>) {
    let mut outcome = crate::script::Outcome {
        success: false,
        results: Vec::new(),
        bindings: Vec::new(),
        issues: Vec::new(),
        revision: 0,
        failure: None,
        created_files: created,
    };
    outcome.discard_created_files();
}

/// The error of an undone call, with what became of the files its exports wrote.
fn with_exports(mut error: ToolError, exports: Option<(String, Value)>) -> ToolError {
    let Some((said, data)) = exports else { return error };
    error.message.push_str(&said);
    if let Some(Value::Object(map)) = &mut error.data {
        map.insert("exported".into(), data);
    }
    error
}

/// True for the functions that change the document.
fn is_write(function: &str) -> bool {
    matches!(function, "Insert" | "Copy" | "Update" | "Replace" | "Move" | "Delete" | "Generate" | "SetVariables")
}

/// A list of node ids (a single id is a list of one); `None` for nothing.
fn node_list(nodes: Value, function: &str) -> Result<Option<Vec<String>>, ToolError> {
    let wrong = || ToolError::new(format!("{function}: give a node id, a node from Get, or a list of them"));
    match nodes {
        Value::Null => Ok(None),
        Value::String(id) => Ok(Some(vec![id])),
        Value::Array(list) => list
            .into_iter()
            .map(|id| id.as_str().map(str::to_owned).ok_or_else(wrong))
            .collect::<Result<_, _>>()
            .map(Some),
        _ => Err(wrong()),
    }
}

/// An options argument: an object, or nothing.
fn options_object(options: Value, function: &str) -> Result<Map<String, Value>, ToolError> {
    match options {
        Value::Null => Ok(Map::new()),
        Value::Object(map) => Ok(map),
        other => Err(ToolError::new(format!("{function}: the options are an object, not {other}"))),
    }
}

/// The entry at `place` (indices from the roots down) of a tree being built.
fn locate<'v>(roots: &'v mut [Value], place: &[usize]) -> Option<&'v mut Value> {
    let (first, rest) = place.split_first()?;
    let mut entry = roots.get_mut(*first)?;
    for index in rest {
        entry = entry.get_mut("children")?.get_mut(*index)?;
    }
    Some(entry)
}
