//! The page's requests, each answered by the tools over the shared workspace: the documents
//! under the root, a document's laid-out boxes and problems, frame images, a node's resolved
//! properties, the selection, undo and redo. A look does not change the agents' current
//! document; selecting, undoing and redoing do (the person points at that document).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::events::{Change, relative};
use crate::tools::{ScreenshotArgs, ToolError, Workspace, render_screenshot};

/// Most `.pen` files listed: a root with more is a home folder, not a project.
pub const MAX_LISTED_FILES: usize = 2_000;

/// Deepest folder level searched for `.pen` files.
pub const MAX_LIST_DEPTH: usize = 8;

/// Most folders looked into while listing, so a huge tree under the root costs a bounded walk.
pub const MAX_LIST_FOLDERS: usize = 5_000;

/// Largest scale the page may ask a frame image at (device pixels per canvas pixel); beyond
/// it the browser magnifies: 8× a 1440-pixel frame is already 11,520 pixels wide.
pub const MAX_RENDER_SCALE: f32 = 8.0;

/// Most pixels one frame image may have; a larger request is rendered at the scale that fits
/// (64 Mpx is 256 MB of RGBA while it is drawn).
pub const MAX_RENDER_PIXELS: f32 = 64_000_000.0;

/// The page's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/files", get(files))
        .route("/api/document", get(document))
        .route("/api/lint", get(lint))
        .route("/api/render", get(render))
        .route("/api/node", get(node))
        .route("/api/select", post(select))
        .route("/api/undo", post(undo))
        .route("/api/redo", post(redo))
}

/// A tool's refusal as the page gets it: JSON `{error, hint}` with status 422.
struct Failure(ToolError);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        (StatusCode::UNPROCESSABLE_ENTITY, Json(self.0.to_json())).into_response()
    }
}

/// Runs `work` on a blocking thread holding the workspace, as an MCP call runs: never at the
/// same time as another call, and a panic answered as an error (the documents are read again
/// from disk, as after a panicking tool).
async fn with_workspace<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&mut Workspace) -> Result<T, ToolError> + Send + 'static,
) -> Result<T, Failure> {
    let workspace = std::sync::Arc::clone(state.server.workspace());
    let outcome = tokio::task::spawn_blocking(move || {
        let mut workspace = workspace.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match catch_unwind(AssertUnwindSafe(|| work(&mut workspace))) {
            Ok(result) => result,
            Err(_) => {
                workspace.reload_all();
                Err(ToolError::new(
                    "the page's request failed inside nib (a bug); the documents were reloaded from disk",
                )
                .with_hint("reload the page; report what you did if it happens again"))
            }
        }
    })
    .await;
    outcome.unwrap_or_else(|e| Err(ToolError::new(format!("the request could not run: {e}")))).map_err(Failure)
}

/// A tool's JSON answer, run by name as over MCP, as the page's own session: other sessions'
/// claims bind the person's undo and redo too, and agents hear of what the person did.
fn tool(workspace: &mut Workspace, name: &str, arguments: Value) -> Result<Value, ToolError> {
    crate::tools::call_as(workspace, &page_caller(), name, arguments)
}

/// The session of the page (every browser on it is one person at the canvas).
fn page_caller() -> crate::tools::Caller {
    crate::tools::Caller::new("page", "the canvas page", "nib serve")
}

#[derive(Deserialize)]
struct FileQuery {
    file: String,
}

/// `GET /api/files`: the `.pen` files under the root, and the agents' current document.
async fn files(State(state): State<AppState>) -> Result<Json<Value>, Failure> {
    let root = state.server.root().to_owned();
    // The walk reads folders only: it runs without holding the workspace, so agents wait for
    // nothing while a large root is listed.
    let walked = root.clone();
    let (files, complete) = tokio::task::spawn_blocking(move || list_documents(&walked))
        .await
        .map_err(|e| Failure(ToolError::new(format!("the documents could not be listed: {e}"))))?;
    let shown = root.clone();
    let current =
        with_workspace(&state, move |workspace| Ok(workspace.current_path().map(|p| relative(&shown, p)))).await?;
    Ok(Json(json!({ "root": root.display().to_string(), "files": files, "complete": complete, "current": current })))
}

/// The `.pen` files under `root` (relative, sorted), skipping hidden folders and symbolic
/// links; false when a limit cut the list short.
fn list_documents(root: &Path) -> (Vec<String>, bool) {
    let limits = crate::files::ListLimits {
        max_depth: MAX_LIST_DEPTH,
        max_folders: MAX_LIST_FOLDERS,
        max_files: MAX_LISTED_FILES,
    };
    crate::files::list_unlinked(root, |path| path.extension().is_some_and(|e| e == "pen"), limits)
}

/// `GET /api/document?file=`: the laid-out boxes of every visible node, the layout problems,
/// the revision, the selection in this document, and whether undo and redo can step.
async fn document(State(state): State<AppState>, Query(query): Query<FileQuery>) -> Result<Json<Value>, Failure> {
    with_workspace(&state, move |workspace| {
        workspace.keeping_current(|workspace| {
            let arguments = json!({ "filePath": query.file, "maxDepth": crate::tools::MAX_SNAPSHOT_DEPTH });
            let mut snapshot = tool(workspace, "snapshot_layout", arguments)?;
            let (open, _) = workspace.document(Some(&query.file))?;
            let (path, revision) = (open.path.clone(), open.document.revision());
            let (can_undo, can_redo) = (open.document.can_undo(), open.document.can_redo());
            let selection: Vec<String> = match workspace.selection() {
                Some(selection) if selection.path == path => selection.ids.clone(),
                _ => Vec::new(),
            };
            snapshot["file"] = Value::String(query.file);
            snapshot["revision"] = json!(revision);
            snapshot["selection"] = json!(selection);
            snapshot["canUndo"] = json!(can_undo);
            snapshot["canRedo"] = json!(can_redo);
            let root = workspace.root().to_owned();
            let claims: Vec<Value> = workspace
                .board()
                .claims_for_page(|p| relative(&root, p))
                .into_iter()
                .filter(|claim| claim["file"] == snapshot["file"])
                .collect();
            snapshot["claims"] = json!(claims);
            Ok(Json(snapshot))
        })
    })
    .await
}

/// `GET /api/lint?file=`: the design lint's findings for the document, with `nib-lint.json`
/// beside it when there is one (asked apart from the boxes: it draws the frames to measure
/// contrast, and the page shows the boxes first).
async fn lint(State(state): State<AppState>, Query(query): Query<FileQuery>) -> Result<Json<Value>, Failure> {
    with_workspace(&state, move |workspace| {
        workspace.keeping_current(|workspace| {
            let arguments = json!({ "filePath": query.file, "problemsOnly": true, "lint": true });
            let answer = tool(workspace, "snapshot_layout", arguments)?;
            Ok(Json(json!({ "file": query.file, "findings": answer["lint"] })))
        })
    })
    .await
}

#[derive(Deserialize)]
struct RenderQuery {
    file: String,
    node: Option<String>,
    scale: Option<f32>,
}

/// `GET /api/render?file=&node=&scale=`: a PNG of a node (the whole canvas without `node`), as
/// get_screenshot draws it, at the page's zoom.
async fn render(State(state): State<AppState>, Query(query): Query<RenderQuery>) -> Result<Response, Failure> {
    let scale = query.scale.filter(|s| s.is_finite() && *s > 0.0).unwrap_or(1.0).min(MAX_RENDER_SCALE);
    let png = with_workspace(&state, move |workspace| {
        workspace.keeping_current(|workspace| {
            let fit = fitting_scale(workspace, &query.file, query.node.as_deref(), scale)?;
            let args = ScreenshotArgs {
                file_path: Some(query.file),
                node_id: query.node,
                scale: Some(fit),
                output_path: None,
                theme: None,
            };
            render_screenshot(workspace, args).map(|(png, _)| png)
        })
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "image/png"), (header::CACHE_CONTROL, "no-store")], png).into_response())
}

/// `scale`, lowered so that the image of the node has at most [`MAX_RENDER_PIXELS`].
fn fitting_scale(workspace: &mut Workspace, file: &str, node: Option<&str>, scale: f32) -> Result<f32, ToolError> {
    let (open, _) = workspace.document(Some(file))?;
    // One frame of the page needs only its own part laid out (get_screenshot reuses it).
    let (scene, layout) = match node {
        Some(id) => open.node_layout(id)?,
        None => open.layout()?,
    };
    let target = match node.and_then(|id| scene.node_by_id(id)) {
        Some(key) => crate::render::RenderTarget::Node(key),
        None => crate::render::RenderTarget::Canvas,
    };
    let Ok(bounds) = crate::render::target_bounds(&scene, &layout, target) else { return Ok(scale) };
    let area = (bounds.width() * bounds.height()).max(1.0);
    Ok(scale.min((MAX_RENDER_PIXELS / area).sqrt()))
}

#[derive(Deserialize)]
struct NodeQuery {
    file: String,
    id: String,
}

/// `GET /api/node?file=&id=`: the node as batch_get answers it, with variables and instances
/// resolved (what it draws with).
async fn node(State(state): State<AppState>, Query(query): Query<NodeQuery>) -> Result<Json<Value>, Failure> {
    with_workspace(&state, move |workspace| {
        workspace.keeping_current(|workspace| {
            let arguments = json!({
                "filePath": query.file, "nodeIds": [query.id], "readDepth": 0,
                "resolveVariables": true, "resolveInstances": true,
            });
            tool(workspace, "batch_get", arguments).map(Json)
        })
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SelectBody {
    file: String,
    ids: Vec<String>,
}

/// `POST /api/select {file, ids}`: what get_editor_state will report as the selection.
async fn select(State(state): State<AppState>, Json(body): Json<SelectBody>) -> Result<Json<Value>, Failure> {
    with_workspace(&state, move |workspace| {
        workspace.select(&body.file, body.ids)?;
        let ids = workspace.selection().map(|s| s.ids.clone()).unwrap_or_default();
        Ok(Json(json!({ "selection": ids })))
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileBody {
    file: String,
}

/// `POST /api/undo {file}`: undo on the shared history, as the undo tool does.
async fn undo(State(state): State<AppState>, Json(body): Json<FileBody>) -> Result<Json<Value>, Failure> {
    step(state, "undo", body.file).await
}

/// `POST /api/redo {file}`: redo on the shared history.
async fn redo(State(state): State<AppState>, Json(body): Json<FileBody>) -> Result<Json<Value>, Failure> {
    step(state, "redo", body.file).await
}

async fn step(state: AppState, name: &'static str, file: String) -> Result<Json<Value>, Failure> {
    let changes = state.changes.clone();
    with_workspace(&state, move |workspace| {
        let answer = tool(workspace, name, json!({ "filePath": file }))?;
        // The watcher will see the file written too; this makes the page's own step quick.
        let revision = answer.get("revision").and_then(Value::as_u64);
        let _ = changes.send(Change { file, revision });
        Ok(Json(answer))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_skips_hidden_folders_and_other_files() {
        let root = tempfile::tempdir().unwrap();
        for path in ["a.pen", "sub/b.pen", ".git/c.pen", "notes.txt", "sub/.d.pen.x.tmp"] {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "{}").unwrap();
        }
        assert_eq!(list_documents(root.path()), (vec!["a.pen".to_owned(), "sub/b.pen".to_owned()], true));
    }
}
