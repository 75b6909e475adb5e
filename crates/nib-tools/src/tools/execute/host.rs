//! What answers a snippet's calls: each API function is one of nib's operations on the open
//! document, and the call's changes are gathered into one undo step as they are made.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{ExecuteAnswer, snippet_error};
use crate::doc::HistoryMark;
use crate::images::ImageProvider;
use crate::js::{HostCall, HostRefusal, JsError};
use crate::layout::LaidOutCanvas;
use crate::resolve::SceneOptions;
use crate::script::{Context, Failure, OpResult, Operation, Options, Session, Span};
use crate::tools::{ToolError, Workspace};

/// Most nodes one `Get(visitor)` walks: the largest corpus document has about 3,000; a walk of
/// more is answered with an error that says to start lower or go less deep.
pub const MAX_WALKED_NODES: usize = 20_000;

/// Most characters `Print` keeps for one call; the rest is dropped with a note.
pub const MAX_PRINTED_CHARS: usize = 64 * 1024;

/// The state of one execute call.
pub(super) struct Host {
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
    warnings: Vec<String>,
    screenshots: Vec<crate::tools::Screenshot>,
    exported: Vec<crate::tools::WrittenFile>,
}

impl Host {
    pub(super) fn new(mut workspace: Workspace, path: PathBuf, edit_id: String, snippet: &str) -> Host {
        let images = workspace.images.clone();
        let (mark, revision_before) = match workspace.document(Some(&path.to_string_lossy())) {
            Ok((open, _)) => (open.document.history_mark(), open.document.revision()),
            Err(_) => (crate::doc::Document::default().history_mark(), 0),
        };
        Host {
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
            warnings: Vec::new(),
            screenshots: Vec::new(),
            exported: Vec::new(),
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
        let answered = match call.name.as_str() {
            "insert" => self.write(Operation::Insert, &arguments, at, "Insert"),
            "copy" => self.write(Operation::Copy, &arguments, at, "Copy"),
            "update" => self.write(Operation::Update, &arguments, at, "Update"),
            "replace" => self.write(Operation::Replace, &arguments, at, "Replace"),
            "move" => {
                // A negative index means the end, as in Pen.
                let mut arguments = arguments.clone();
                if arguments.get(2).and_then(Value::as_f64).is_some_and(|i| i < 0.0) {
                    arguments[2] = Value::Null;
                }
                self.write(Operation::Move, &arguments, at, "Move")
            }
            "delete" => self.write(Operation::Delete, &arguments, at, "Delete"),
            "generate" if arguments.get(1).and_then(Value::as_str) == Some("svg") => self.generate_svg(&arguments, at),
            "generate" => self.write(Operation::Generate, &arguments, at, "Generate"),
            "setVariables" => self.set_variables(argument(0), argument(1)),
            "getVariables" => self
                .read(|w, file| super::super::get_variables(w, super::super::FileArgs { file_path: Some(file) }))
                .map(|answer| json!({ "themes": answer["themes"], "variables": answer["variables"] })),
            "get" => self.get(argument(0), argument(1)),
            "tree" => self.tree(argument(0), argument(1)),
            "findEmptySpace" => self.find_empty_space(argument(0)),
            "screenshot" => self.screenshot(argument(0), argument(1)),
            "export" => self.export(argument(0), argument(1), argument(2)),
            "print" => {
                self.print(argument(0));
                Ok(Value::Null)
            }
            other => Err(ToolError::new(format!("there is no operation '{other}'"))),
        };
        answered.map_err(|error| {
            self.refused = Some(error.clone());
            HostRefusal { message: error.message, hint: error.hint }
        })
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
        let session = &mut self.session;
        let mark = &self.mark;
        let (stepped, last) = in_context(&mut self.workspace, &self.file_path, &self.images, |document, context| {
            let session = session.get_or_insert_with(|| Session::new(document, context));
            let stepped = session.step(document, context, operation, arguments, at);
            document.join_since(mark);
            (stepped, session.last_result().cloned())
        })?;
        let path = match stepped {
            Ok(path) => path,
            Err(failure) => {
                let error = ToolError::new(failure.message.clone()).with_optional_hint(failure.hint.clone());
                self.failure = Some(failure);
                return Err(error);
            }
        };
        match last {
            Some(OpResult::AlreadyAbsent { id }) => {
                self.warnings.push(format!("Delete: there is no node '{id}'; nothing was deleted"));
                return Ok(Value::Bool(false));
            }
            Some(OpResult::ImageAdded { note: Some(note), id, .. }) => {
                self.warnings.push(format!("Generate on '{id}': {note}"));
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
        let fonts = self.workspace.fonts.clone();
        let (open, _) = self.workspace.document(Some(&self.file_path))?;
        let version = crate::doc::format::Version::read_as(open.document.version());
        let (scene, layout) = open.layout(&fonts)?;
        let (width, height) = scene
            .node_by_id(target)
            .and_then(|key| layout.node_box(key))
            .map_or((0.0, 0.0), |b| (f64::from(b.width), f64::from(b.height)));
        let converted = super::svg::convert(markup, width, height, version)?;
        for note in converted.notes {
            self.warnings.push(format!("Generate svg: {note}"));
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

    fn set_variables(&mut self, variables: Value, options: Value) -> Result<Value, ToolError> {
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
        let fonts = self.workspace.fonts.clone();
        let (open, _) = self.workspace.document(Some(&self.file_path))?;
        let (laid_scene, layout) = open.layout(&fonts)?;
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
            Some(id) => vec![scene.node_by_id(id).ok_or_else(|| {
                ToolError::new(format!("Node '{id}' not found"))
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
            let bounds = laid_scene.node_by_id(id).and_then(|k| layout.node_box(k)).map(|b| {
                json!({ "x": crate::tools::number(f64::from(b.left)), "y": crate::tools::number(f64::from(b.top)),
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

    fn screenshot(&mut self, node: Value, options: Value) -> Result<Value, ToolError> {
        let mut args = options_object(options, "TakeScreenshot")?;
        args.insert("filePath".into(), Value::String(self.file_path.clone()));
        if let Some(id) = node.as_str() {
            args.insert("nodeId".into(), Value::String(id.to_owned()));
        }
        if args.contains_key("outputPath") {
            return Err(ToolError::new("TakeScreenshot answers the picture; it writes no file")
                .with_hint("use Export(node, \"png\", {outputPath}) to write one"));
        }
        let parsed: super::super::ScreenshotArgs = super::super::parse("TakeScreenshot", Value::Object(args))?;
        let shot = super::super::get_screenshot(&mut self.workspace, parsed)?;
        let said =
            json!({ "width": shot.width, "height": shot.height, "bytes": shot.bytes, "index": self.screenshots.len() });
        self.screenshots.push(shot);
        Ok(said)
    }

    fn export(&mut self, nodes: Value, format: Value, options: Value) -> Result<Value, ToolError> {
        let mut args = options_object(options, "Export")?;
        let format = match format.as_str().map(str::to_ascii_lowercase).as_deref() {
            Some("html-css") => "html".to_owned(),
            Some("html-tailwind") => {
                return Err(ToolError::new("nib does not write HTML with Tailwind classes").with_hint(
                    "export \"html-css\" (HTML with its own CSS) and \"tailwind\" (the variables as a Tailwind theme)",
                ));
            }
            Some(format) => format.to_owned(),
            None => return Err(ToolError::new("Export needs a format: png, jpeg, webp, pdf, svg, html-css, …")),
        };
        args.insert("format".into(), Value::String(format));
        args.insert("filePath".into(), Value::String(self.file_path.clone()));
        if !nodes.is_null() {
            args.insert("nodeIds".into(), nodes);
        }
        let parsed: super::super::ExportArgs = super::super::parse("Export", Value::Object(args))?;
        let answer = super::super::export(&mut self.workspace, parsed)?;
        self.exported.extend(answer.files.iter().cloned());
        for warning in &answer.warnings {
            self.warnings.push(format!("Export: {warning}"));
        }
        serde_json::to_value(answer).map_err(|e| ToolError::new(e.to_string()))
    }

    fn print(&mut self, values: Value) {
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
        ran: Result<Value, JsError>,
        partial: bool,
        note: Option<String>,
    ) -> Result<ExecuteAnswer, ToolError> {
        let failure = self.failure.take();
        let error: Option<ToolError> = match (&ran, &failure) {
            (_, Some(failure)) => Some(failure_error(failure, &self.edit_id)),
            (Err(error), None) => Some(snippet_error(error, &self.edit_id, self.refused.as_ref())),
            (Ok(_), None) => None,
        };
        let finished = self.finish_session();
        let keep = error.is_none() || partial;
        let (open, _) = self.workspace.document(Some(&self.file_path))?;
        if !keep {
            open.document.undo_since(self.mark.clone());
            remove_created(finished.created_files);
            let error = error.unwrap_or_else(|| ToolError::new("the snippet failed"));
            return Err(with_exported(error, &self.exported));
        }
        if open.document.revision() != self.revision_before
            && let Err(saving) = open.save()
        {
            open.document.undo_since(self.mark.clone());
            remove_created(finished.created_files);
            return Err(saving);
        }
        let revision = open.document.revision();
        Ok(ExecuteAnswer {
            success: error.is_none(),
            edit_id: self.edit_id.clone(),
            result: ran.unwrap_or(Value::Null),
            ids: std::mem::take(&mut self.ids),
            printed: std::mem::take(&mut self.printed),
            issues: finished.issues,
            warnings: std::mem::take(&mut self.warnings),
            screenshots: std::mem::take(&mut self.screenshots),
            exported: std::mem::take(&mut self.exported),
            revision,
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
    let fonts = workspace.fonts.clone();
    let max_statements = workspace.max_statements;
    let confinement = workspace.confinement().cloned();
    let open = workspace
        .already_open(Path::new(file_path))
        .ok_or_else(|| ToolError::new(format!("{file_path} was closed during the call")))?;
    let folder = open.folder().to_owned();
    let engine = open.take_text_engine(&fonts);
    let canvas = LaidOutCanvas::new(&open.imports, open.last_full_scene(), engine);
    let context = Context {
        library: &open.imports,
        images: images.as_ref(),
        folder: Some(&folder),
        confinement: confinement.as_ref(),
        canvas: Some(&canvas),
        options: Options { max_statements, id_seed: None },
    };
    let done = work(&mut open.document, &context);
    open.return_text_engine(canvas.into_text_engine());
    Ok(done)
}

/// A failed operation as the tool's error: where in the snippet, what, and how to retry.
fn failure_error(failure: &Failure, edit_id: &str) -> ToolError {
    let mut message = format!("line {}, column {}: {}", failure.line, failure.column, failure.message);
    for invalid in &failure.invalid {
        message.push_str(&format!("\n- {}: {}", invalid.pointer, invalid.message));
    }
    let retry = format!(
        "fix it and send {{\"editId\": \"{edit_id}\", \"edits\": [{{\"find\": …, \"replace\": …}}]}}; nothing was changed"
    );
    let hint = match &failure.hint {
        Some(hint) => format!("{hint}; {retry}"),
        None => retry,
    };
    let data = json!({ "editId": edit_id, "line": failure.line, "column": failure.column, "call": failure.call, "invalid": failure.invalid });
    ToolError { message, hint: Some(hint), data: Some(data) }
}

/// Image files the call's Generate wrote that nothing refers to once it is undone. (Exported
/// files stay: an export may have replaced a file the user had, and removing it would lose it;
/// the error lists them instead.)
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

/// The error of an undone call, with the files its exports wrote before it failed.
fn with_exported(mut error: ToolError, exported: &[crate::tools::WrittenFile]) -> ToolError {
    if exported.is_empty() {
        return error;
    }
    let paths: Vec<&str> = exported.iter().map(|f| f.path.as_str()).collect();
    error.message.push_str(&format!("\nFiles exported before the failure were kept: {}", paths.join(", ")));
    if let Some(Value::Object(data)) = &mut error.data {
        data.insert("exported".into(), json!(paths));
    }
    error
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
