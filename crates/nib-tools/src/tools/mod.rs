//! The design tools as plain functions over a [`Workspace`] of open documents, with the
//! parameter names of Pencil's tools. This is the only part of nib that knows about files on
//! disk and open documents; the CLI (`nib call`) and the MCP server call [`call`].

mod app_state;
mod batch_get;
mod board;
mod caller;
mod claim;
mod claims;
mod design;
mod editor;
mod execute;
mod execute_state;
mod export;
mod guides;
mod history;
pub mod introduced;
mod journal;
mod layout;
mod lint;
mod properties;
pub mod render_cache;
mod screenshot;
mod sharing;
mod summary;
mod theme;
mod variables;
pub mod workspace;

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use app_state::{AppState, get_app_state};
pub(crate) use batch_get::BatchGetArgs;
pub use batch_get::{MAX_WRITTEN_NODES, Nodes, Pattern, batch_get};
pub use board::Board;
pub use caller::Caller;
pub use claim::claim;
pub use claims::{DEFAULT_CLAIM, MAX_CLAIM, MAX_CLAIMS, MAX_CLAIMS_PER_SESSION};
pub use design::batch_design;
pub use editor::{Opened, RULES, get_editor_state, open_document};
pub use execute::{
    CALL_LIMIT, ExecuteLimits, KEPT_SNIPPETS, MAX_CALL_EXPORTED_FILES, MAX_CALL_NODES, MAX_CALL_WRITES,
    MAX_LISTED_FILES, MAX_PRINTED_CHARS, MAX_SNIPPET_BYTES, MAX_SVG_BYTES, MAX_SVG_SHAPES, MAX_WALKED_NODES, Patch,
    execute,
};
pub use export::export;
pub(crate) use export::{ExportArgs, WrittenFile};
pub use guides::{DEFAULT_GUIDE, TOPICS, get_guidelines, get_style, get_style_guide, get_style_guide_tags, read_skill};
pub use history::{redo, undo};
pub use journal::{MAX_JOURNAL_ENTRIES, MAX_SUMMARY_CHARS};
pub(crate) use layout::SpaceArgs;
pub use layout::{
    LaidOut, MAX_SNAPSHOT_DEPTH, SnapshotAnswer, SnapshotArgs, find_empty_space_on_canvas, snapshot_layout,
};
pub use properties::{PROPERTIES, Replaced, replace_all_matching_properties, search_all_unique_properties};
pub use screenshot::{MAX_SCREENSHOT_BYTES, Screenshot, ScreenshotArgs, get_screenshot, render_screenshot};
pub(crate) use variables::FileArgs;
pub use variables::{get_variables, set_variables};
pub use workspace::{MAX_SELECTED, Selection, Workspace};

/// Why a tool call failed: a message an agent can act on, a hint, and structured data when the
/// tool has some (batch_design's outcome).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// Structured details.
    pub data: Option<Value>,
    /// What stopped the call: what it asked, or a file that could not be read or written.
    pub cause: Cause,
}

/// What stopped a tool call, for callers that tell them apart (the command line exits 1 for
/// the one and 2 for the other: README, "Exit codes").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Cause {
    /// The call was refused or failed for what it asked (or the document holds).
    #[default]
    Call,
    /// A file could not be read or written (a save that failed, a document that cannot be
    /// read): the call may succeed as it is once the file can be.
    Files,
}

impl Cause {
    /// What a failure to read or write a file means for a call (see [`ToolError::caused_by`]).
    pub(crate) fn of(error: &crate::files::FileError) -> Cause {
        use crate::files::FileError;
        match error {
            FileError::Outside { .. }
            | FileError::Link { .. }
            | FileError::InOutputFolder { .. }
            | FileError::OutputRefused { .. } => Cause::Call,
            FileError::Io { .. }
            | FileError::NotRegular { .. }
            | FileError::TooLarge { .. }
            | FileError::ReadOnly { .. }
            | FileError::Busy { .. }
            | FileError::ChangedMeanwhile { .. } => Cause::Files,
        }
    }
}

impl ToolError {
    /// An error with a message.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError { message: message.into(), hint: None, data: None, cause: Cause::Call }
    }

    /// The same error, caused by `error`: a path nib refuses (outside the workspace, through a
    /// link, an output that would replace a document) is the call's doing; any other failure
    /// to read or write is the file system's.
    pub(crate) fn caused_by(mut self, error: &crate::files::FileError) -> ToolError {
        self.cause = Cause::of(error);
        self
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> ToolError {
        self.hint = Some(hint.into());
        self
    }

    /// Adds a hint when there is one.
    pub fn with_optional_hint(mut self, hint: Option<String>) -> ToolError {
        self.hint = hint;
        self
    }

    /// The error as JSON: `{"error": …, "hint": …, "data": …}`.
    pub fn to_json(&self) -> Value {
        let mut value = serde_json::json!({ "error": self.message });
        if let Some(hint) = &self.hint {
            value["hint"] = Value::String(hint.clone());
        }
        if let Some(data) = &self.data {
            value["data"] = data.clone();
        }
        value
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\nHint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ToolError {}

/// A diagnostic as a tool answers it: its message, and its hints as the hint.
impl From<crate::diagnostic::Diagnostic> for ToolError {
    fn from(diagnostic: crate::diagnostic::Diagnostic) -> ToolError {
        let hint = (!diagnostic.hints.is_empty()).then(|| diagnostic.hints.join("; "));
        ToolError::new(diagnostic.message).with_optional_hint(hint)
    }
}

impl From<Box<crate::diagnostic::Diagnostic>> for ToolError {
    fn from(diagnostic: Box<crate::diagnostic::Diagnostic>) -> ToolError {
        ToolError::from(*diagnostic)
    }
}

/// A Scene that could not be resolved in full: the message and hint, and the details as data
/// (`overBudget`: the limit, the node, its JSON pointer, the chain of instances).
impl From<&crate::resolve::ResolveError> for ToolError {
    fn from(error: &crate::resolve::ResolveError) -> ToolError {
        let crate::resolve::ResolveError::OverBudget(over) = error;
        let (limit, value) = match over.limit {
            crate::resolve::Limit::Nodes(value) => ("nodes", value),
            crate::resolve::Limit::Bytes(value) => ("bytes", value),
        };
        let chain: Vec<Value> = over
            .chain
            .iter()
            .map(|link| serde_json::json!({ "instance": link.instance, "component": link.component }))
            .collect();
        let data = serde_json::json!({ "overBudget": {
            "limit": limit,
            "max": value,
            "node": over.node,
            "pointer": over.pointer,
            "chain": chain,
            "stoppedAt": over.stopped_at,
        }});
        ToolError {
            message: error.to_string(),
            hint: Some(error.hint().to_owned()),
            data: Some(data),
            cause: Cause::Call,
        }
    }
}

/// The tools [`call`] runs, by name.
pub const TOOLS: &[&str] = &[
    "get_editor_state",
    "open_document",
    "batch_get",
    "batch_design",
    "get_variables",
    "set_variables",
    "search_all_unique_properties",
    "replace_all_matching_properties",
    "snapshot_layout",
    "find_empty_space_on_canvas",
    "get_screenshot",
    "export",
    "get_guidelines",
    "get_style_guide_tags",
    "get_style_guide",
    "undo",
    "redo",
    "claim",
    "execute",
    "get_app_state",
    "read_skill",
    "get_style",
];

/// Runs the tool `name` with JSON arguments (as an MCP client sends them) and answers JSON, for
/// a caller that tells no sessions apart (a library user, a test).
pub fn call(workspace: &mut Workspace, name: &str, arguments: Value) -> Result<Value, ToolError> {
    call_as(workspace, &Caller::anonymous("nib"), name, arguments)
}

/// Runs the tool `name` for `caller`: its claims are its own, other sessions' claims fence its
/// changes, its saves carry its name, and its answer says what others changed since its last
/// call (`changedByOthers`).
pub fn call_as(workspace: &mut Workspace, caller: &Caller, name: &str, arguments: Value) -> Result<Value, ToolError> {
    workspace.caller = caller.clone();
    // A call that changes a document holds its lock from its first look at the file until the
    // call ends (sharing.rs); every lock is let go here, whatever the outcome.
    workspace.locks.begin(name);
    let result = dispatch(workspace, name, arguments);
    workspace.locks.end();
    workspace.end_call();
    let mut value = result?;
    if let Some(news) = workspace.news()
        && let Value::Object(map) = &mut value
    {
        map.insert("changedByOthers".into(), Value::String(news));
    }
    Ok(value)
}

fn dispatch(workspace: &mut Workspace, name: &str, arguments: Value) -> Result<Value, ToolError> {
    match name {
        "get_editor_state" => answer(get_editor_state(workspace, parse(name, arguments)?)),
        "open_document" => answer(open_document(workspace, parse(name, arguments)?)),
        "batch_get" => answer(batch_get(workspace, parse(name, arguments)?)),
        "batch_design" => {
            let (outcome, note, file_revision) = batch_design(workspace, parse(name, arguments)?)?;
            let mut value = serde_json::to_value(&outcome).map_err(|e| ToolError::new(e.to_string()))?;
            value["text"] = Value::String(outcome.text());
            if let Some(note) = note {
                value["note"] = Value::String(note);
            }
            value["fileRevision"] = Value::String(file_revision);
            Ok(value)
        }
        "execute" => answer(execute(workspace, parse(name, arguments)?)),
        "get_app_state" => answer(get_app_state(workspace, parse(name, arguments)?)),
        "read_skill" => answer(read_skill(parse(name, arguments)?)),
        "get_style" => answer(get_style(parse(name, arguments)?)),
        "get_variables" => answer(get_variables(workspace, parse(name, arguments)?)),
        "set_variables" => answer(set_variables(workspace, parse(name, arguments)?)),
        "search_all_unique_properties" => answer(search_all_unique_properties(workspace, parse(name, arguments)?)),
        "replace_all_matching_properties" => {
            answer(replace_all_matching_properties(workspace, parse(name, arguments)?))
        }
        "snapshot_layout" => answer(snapshot_layout(workspace, parse(name, arguments)?)),
        "find_empty_space_on_canvas" => answer(find_empty_space_on_canvas(workspace, parse(name, arguments)?)),
        "get_screenshot" => answer(get_screenshot(workspace, parse(name, arguments)?)),
        "export" => answer(export(workspace, parse(name, arguments)?)),
        "undo" => answer(undo(workspace, parse(name, arguments)?)),
        "redo" => answer(redo(workspace, parse(name, arguments)?)),
        "claim" => answer(claim(workspace, parse(name, arguments)?)),
        "get_guidelines" => answer(get_guidelines(parse(name, arguments)?)),
        "get_style_guide_tags" => answer(get_style_guide_tags(parse(name, arguments)?)),
        "get_style_guide" => answer(get_style_guide(parse(name, arguments)?)),
        _ => Err(unknown_tool(name)),
    }
}

/// The error for a tool name nib does not have, with the nearest name or the list.
pub fn unknown_tool(name: &str) -> ToolError {
    let hint = crate::doc::suggest(name, TOOLS)
        .map_or_else(|| format!("the tools are: {}", TOOLS.join(", ")), |s| format!("did you mean {s}?"));
    ToolError::new(format!("there is no tool '{name}'")).with_hint(hint)
}

pub(crate) use crate::numbers::json_number as number;

fn parse<T: DeserializeOwned>(tool: &str, arguments: Value) -> Result<T, ToolError> {
    let arguments = if arguments.is_null() { Value::Object(Default::default()) } else { arguments };
    serde_json::from_value(arguments).map_err(|e| {
        ToolError::new(format!("{tool}: invalid arguments: {e}"))
            .with_hint("check the parameter names and types in the tool's schema")
    })
}

fn answer<T: serde::Serialize>(result: Result<T, ToolError>) -> Result<Value, ToolError> {
    serde_json::to_value(result?).map_err(|e| ToolError::new(e.to_string()))
}
