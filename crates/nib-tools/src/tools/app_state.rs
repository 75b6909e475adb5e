//! get_app_state: what get_editor_state knows, in the shape of Pen's current surface — the
//! active file, the open ones, the selection as a list — with the families nib draws, so an
//! agent sees its type choices without another call.

use serde::Serialize;
use serde_json::Value;

use super::ToolError;
use super::editor::{StateArgs, get_editor_state};
use super::guides::NoArgs;
use super::workspace::Workspace;
use crate::text::{FontBook, FontOptions};

/// What get_app_state answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppState {
    /// The document execute works on when no filePath is given.
    pub active_file: Option<String>,
    /// Every open document.
    pub open_files: Vec<String>,
    /// The nodes a person selected on the canvas of `nib serve`, `{id, type, name}`; empty when
    /// there is no selection.
    pub selection: Vec<Value>,
    /// The active document: format version, revision, file revision, top-level nodes,
    /// components.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<Value>,
    /// The claims in force in `nib serve` (node, holder, yours, end): other sessions' changes
    /// inside a claimed node are refused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<Value>,
    /// The font families nib draws with its own faces (others are substituted, and said so).
    pub fonts: Vec<&'static str>,
    /// Where to go next.
    pub next: &'static str,
}

/// The application's state.
pub fn get_app_state(workspace: &mut Workspace, _args: NoArgs) -> Result<AppState, ToolError> {
    let state = get_editor_state(workspace, StateArgs::default())?;
    let selection = match state.selection {
        Value::Array(nodes) => nodes,
        _ => Vec::new(),
    };
    let document = state.current_document.as_ref().map(|_| {
        serde_json::json!({
            "version": state.format_version,
            "revision": state.revision,
            "fileRevision": state.file_revision,
            "topLevelNodes": state.top_level_nodes,
            "components": state.reusable_components,
        })
    });
    Ok(AppState {
        active_file: state.current_document,
        open_files: state.open_documents,
        selection,
        document,
        claims: state.claims,
        fonts: FontBook::new(FontOptions::default()).text_families().collect(),
        next: "read_skill (no path) lists the skills; read `execute` before the first snippet, then edit and read with execute",
    })
}
