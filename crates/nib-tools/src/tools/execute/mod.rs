//! execute: a JavaScript snippet against a document, as Pen's current MCP server takes them.
//!
//! The snippet runs in QuickJS (see `js`) with Pen's limits and calls `Insert`, `Update`, `Get`,
//! `TakeScreenshot`… (api.js). Each of those is answered here by the operation nib already has
//! for it — the batch_design interpreter for writes, batch_get, the variables, screenshot and
//! export tools for the rest — so both surfaces share wording, validation and limits. One call
//! is one undo step; any error undoes the whole call and leaves the file as it was, unless the
//! caller asked for `partial`. Snippets are kept by `editId` so a failed one can be retried with
//! find/replace patches instead of being sent again.

mod arguments;
mod exports;
mod host;
mod svg;

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolError;
pub use super::execute_state::{
    CALL_LIMIT, ExecuteLimits, KEPT_SNIPPETS, MAX_CALL_EXPORTED_FILES, MAX_CALL_NODES, MAX_CALL_WRITES,
    MAX_SNIPPET_BYTES, Patch,
};
use super::export::WrittenFile;
use super::workspace::Workspace;
use crate::diagnostic::Diagnostic;
use crate::js::{JsError, Limits};
pub use exports::MAX_LISTED_FILES;
use host::SnippetCall;
pub use host::{MAX_PRINTED_CHARS, MAX_WALKED_NODES};
pub use svg::{MAX_SVG_BYTES, MAX_SVG_SHAPES};

/// The functions a snippet calls.
const API: &str = include_str!("api.js");

/// execute's arguments.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExecuteArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// The snippet: the body of an async function, so it may `return` what the answer should
    /// show (and `await`, which nothing needs).
    pub input: Option<String>,
    /// A snippet sent before (its answer's `editId`), to run again with `edits` applied.
    pub edit_id: Option<String>,
    /// Find/replace patches applied to the snippet named by `editId`.
    #[serde(default)]
    pub edits: Vec<Patch>,
    /// Keep the changes made before a failing operation instead of undoing the whole call.
    #[serde(default)]
    pub partial: bool,
    /// The file's revision the snippet was written against: refused, nothing run, when the
    /// file is at another.
    pub if_revision: Option<String>,
}

/// What execute answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteAnswer {
    /// True when the snippet ran to its end (false only for a `partial` call that failed).
    pub success: bool,
    /// Names this snippet for a retry with find/replace `edits`.
    pub edit_id: String,
    /// What the snippet returned (`null` for nothing).
    pub result: Value,
    /// The snippet's variables bound to nodes it made (`const card = Insert(…)`) → their ids;
    /// a list when one name was bound several times (in a loop).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub ids: serde_json::Map<String, Value>,
    /// What `Print` (and `console.log`) printed, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub printed: Vec<String>,
    /// Potential problems in the result, as batch_design words them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<Diagnostic>,
    /// What nib did differently from what was asked (a missing node deleted, a substitution).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Diagnostic>,
    /// Pictures `TakeScreenshot` took, in order (an MCP client gets them as images).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub screenshots: Vec<super::Screenshot>,
    /// Files `Export` wrote: the first [`MAX_LISTED_FILES`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exported: Vec<WrittenFile>,
    /// How many files `Export` wrote, when that is more than `exported` lists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exported_count: Option<usize>,
    /// The document's revision after the call.
    pub revision: u64,
    /// The file's revision after the call (what `ifRevision` quotes).
    pub file_revision: String,
    /// Why a `partial` call stopped early; what ran before it was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Said when no filePath was given, or the document was reloaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Runs a snippet against a document and saves it when it changed.
pub fn execute(workspace: &mut Workspace, args: ExecuteArgs) -> Result<ExecuteAnswer, ToolError> {
    let (edit_id, snippet) = workspace.snippets.take_call(args.input, args.edit_id.as_deref(), &args.edits)?;
    let (open, note) = workspace.document(args.file_path.as_deref())?;
    open.expect_revision(args.if_revision.as_deref())?;
    let path = open.path.clone();
    // The snippet's functions are answered from inside the engine, which keeps them for as long
    // as it lives: the workspace is lent to the call and comes back when the call ends, also
    // when it unwinds.
    let limits = workspace.execute_limits;
    let lent = Lent::new(workspace, |workspace| SnippetCall::new(workspace, path, edit_id, &snippet));
    let answering = Rc::clone(&lent.host);
    let ran = crate::js::run_snippet(
        API,
        &snippet,
        Limits::PEN,
        limits.call,
        Box::new(move |call| match answering.try_borrow_mut() {
            Ok(mut host) => host.answer(call),
            Err(_) => Err(crate::js::HostRefusal { message: "nib is busy with another operation".into(), hint: None }),
        }),
    );
    let answer = match lent.host.try_borrow_mut() {
        Ok(mut host) => host.end(ran, args.partial, note),
        Err(_) => Err(ToolError::new("the call could not finish: its operations were still running")),
    };
    drop(lent);
    answer
}

/// A workspace lent to a call's host; given back when dropped. The one left in its place has
/// the same settings (root, confinement, fonts, images), so even a call that unwinds leaves a
/// workspace that refuses what the real one refuses.
struct Lent<'a> {
    home: &'a mut Workspace,
    host: Rc<RefCell<SnippetCall>>,
}

impl<'a> Lent<'a> {
    fn new(home: &'a mut Workspace, host: impl FnOnce(Workspace) -> SnippetCall) -> Lent<'a> {
        let stand_in = home.stand_in();
        let real = std::mem::replace(home, stand_in);
        Lent { home, host: Rc::new(RefCell::new(host(real))) }
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Ok(mut host) = self.host.try_borrow_mut() {
            std::mem::swap(self.home, &mut host.workspace);
        }
    }
}

/// A run's error as the tool's: where in the snippet, what, and how to fix and retry. `refused`
/// is the last operation nib refused: when that is what the snippet threw, its hint is the one
/// to give. `kept` says the call's earlier changes were kept (`partial`).
fn snippet_error(error: &JsError, edit_id: &str, refused: Option<&ToolError>, kept: bool) -> ToolError {
    let (line, column) = match error {
        JsError::Syntax { line, column, .. } => (Some(*line), Some(*column)),
        JsError::Thrown { line, column, .. } => (*line, *column),
        _ => (None, None),
    };
    let place = match (line, column) {
        (Some(line), Some(column)) => format!("line {line}, column {column}: "),
        (Some(line), None) => format!("line {line}: "),
        _ => String::new(),
    };
    // What nib refused, the snippet threw on: said as nib said it, with its hint.
    let refused = match (error, refused) {
        (JsError::Thrown { message, .. }, Some(refused))
            if message.strip_prefix("Error: ") == Some(&refused.message) =>
        {
            Some(refused)
        }
        _ => None,
    };
    // The place is said once, before what went wrong.
    let said = match (error, refused) {
        (_, Some(refused)) => refused.message.clone(),
        (JsError::Syntax { message, .. }, None) => format!("SyntaxError: {message}"),
        (JsError::Thrown { message, .. }, None) => message.clone(),
        (other, None) => other.to_string(),
    };
    let refused_hint = refused.and_then(|refused| refused.hint.clone());
    let hint = refused_hint.or_else(|| match error {
        JsError::Thrown { hint, .. } => hint.clone(),
        JsError::Syntax { .. } => {
            Some("the snippet is the body of a function: check the brackets, quotes and commas near that place".into())
        }
        JsError::Deadline(_) => Some(
            "a snippet may run 2 s of its own JavaScript (time in nib's operations does not count): look for a loop that does not end".into(),
        ),
        JsError::CallLimit(limit) => Some(format!(
            "one call may take {} s in all, nib's operations included: split the work over several calls",
            limit.as_secs_f64()
        )),
        JsError::Heap(_) => {
            Some("a snippet's heap holds 256 MB: build less at once, or split the work over several calls".into())
        }
        JsError::Stack(_) => Some("a recursion went too deep: walk with Get(visitor) or a loop instead".into()),
        JsError::Engine(_) => None,
    });
    let retry = retry(edit_id, kept);
    let hint = match hint {
        Some(hint) => format!("{hint}; {retry}"),
        None => retry,
    };
    let data = serde_json::json!({ "editId": edit_id, "line": line, "column": column });
    ToolError {
        message: format!("{place}{said}"),
        hint: Some(hint),
        data: Some(data),
        cause: crate::tools::Cause::Call,
    }
}

/// How to retry a failed call, and what became of its changes.
fn retry(edit_id: &str, kept: bool) -> String {
    let patch = format!("{{\"editId\": \"{edit_id}\", \"edits\": [{{\"find\": …, \"replace\": …}}]}}");
    if kept {
        format!(
            "what ran before this was kept and saved (partial): patch the snippet to do only the rest and send {patch}, or undo to take the kept part back"
        )
    } else {
        format!("nothing was changed: fix the snippet and send {patch} to patch it, or send it again whole")
    }
}
