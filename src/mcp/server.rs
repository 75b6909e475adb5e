//! The MCP server: lists the catalog and runs each call on a blocking thread against the one
//! workspace, so a call never interleaves with another (one writer per document), a panic
//! becomes an error answer, and the async runtime stays free to read the next message.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use super::catalog::ToolSet;
use super::{answer, catalog, untyped};
use crate::tools::{Caller, ToolError, Workspace};

/// What a client is told about working with nib, once, at the handshake.
const INSTRUCTIONS: &str = "nib edits and renders Pencil .pen design files headless; every change is saved to disk before the answer.\n\
Workflow: open_document (a path, or new:desktop / new:mobile) → get_editor_state (include_schema: true once) → for a new design get_guidelines and get_style_guide, then set_variables → build with batch_design, about 25 operations per call → after each call snapshot_layout with problemsOnly: true and fix what it reports → get_screenshot to look at the result. undo takes back the last change.\n\
Rules: bindings from one batch_design call do not exist in the next (use the returned ids); text needs a fill; fill_container needs a parent with layout horizontal or vertical; paths are relative to the server's folder.\n\
Others may work on the same document (nib serve): claim the frames you work on (claim), read changedByOthers in answers, and send ifRevision to write only on the version you read.";

/// What a client of the current surface (`--tools current`) is told.
const CURRENT_INSTRUCTIONS: &str = "nib edits and renders Pencil .pen design files headless; every change is saved to disk before the answer.\n\
Workflow: get_app_state → read_skill (no path: the index; read `execute` once) → open_document (a path, or new:desktop / new:mobile) → for a new design get_style, then SetVariables in a snippet → build and check with execute: Insert/Update/Copy to edit, Get with a visitor to read, TakeScreenshot to look. undo takes back the last call.\n\
Rules: a snippet's variables do not survive the call (use the ids in the answer); text needs a fill; fill_container needs a parent with layout horizontal or vertical; paths are relative to the server's folder.\n\
Others may work on the same document (nib serve): Claim the frames you work on, read changedByOthers in answers, and send ifRevision to write only on the version you read.";

/// Tool calls that panic on purpose when this environment variable names them: the hook the
/// integration tests use to check that a panic is answered as an error and the server goes on.
const PANIC_HOOK_VARIABLE: &str = "NIB_MCP_TEST_PANIC";

/// The nib MCP server.
#[derive(Clone)]
pub struct NibServer {
    workspace: Arc<Mutex<Workspace>>,
    root: PathBuf,
    panic_on: Option<String>,
    tools: ToolSet,
    /// Which session of a shared server this handler serves (`nib serve` numbers them in the
    /// order they start); `None` for the one session of `nib mcp`.
    session: Option<u64>,
}

/// How an MCP session is named to the others: its client's name (clientInfo), then its number
/// in `nib serve`, where two sessions of one client are two writers.
fn session_name(client: Option<&str>, number: Option<u64>) -> String {
    let client = client.map(str::trim).filter(|c| !c.is_empty()).unwrap_or("mcp-client");
    match number {
        Some(number) => format!("{client}#{number}"),
        None => client.to_owned(),
    }
}

impl NibServer {
    /// A server whose documents must lie in `root` (which must exist), with the fonts the
    /// environment gives (`NIB_FONT_DIRS`, `NIB_FONTS`, the cache folder).
    pub fn new(root: PathBuf) -> std::io::Result<NibServer> {
        let (fonts, warnings) = crate::host::user_font_options(false, Vec::new());
        for warning in &warnings {
            tracing::warn!("{warning}");
        }
        NibServer::with_fonts(root, fonts)
    }

    /// A server whose documents must lie in `root`, measuring and drawing text with `fonts`.
    pub fn with_fonts(root: PathBuf, fonts: crate::text::FontOptions) -> std::io::Result<NibServer> {
        let root = crate::files::canonical_root(&root)
            .map_err(|e| std::io::Error::new(e.kind(), format!("the root folder {}: {e}", root.display())))?;
        let mut workspace = Workspace::new(root.clone()).confined();
        // G() uses the image services configured in the environment (offline without keys).
        let images = crate::images::ImageSettings::from_env();
        for warning in &images.warnings {
            tracing::warn!("{warning}");
        }
        workspace.images = Arc::new(crate::images::ConfiguredImages::new(&images));
        for warning in crate::host::DiskFonts::book(fonts.clone()).warnings() {
            tracing::warn!("{warning}");
        }
        workspace.set_fonts(fonts);
        Ok(NibServer::sharing(Arc::new(Mutex::new(workspace))))
    }

    /// A server over a workspace shared with others (every MCP session of `nib serve` and its
    /// page): each call holds the workspace for its whole run, so calls never interleave.
    pub fn sharing(workspace: Arc<Mutex<Workspace>>) -> NibServer {
        let root = workspace.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).root().to_owned();
        NibServer {
            workspace,
            root,
            panic_on: std::env::var(PANIC_HOOK_VARIABLE).ok(),
            tools: ToolSet::default(),
            session: None,
        }
    }

    /// This server as the handler of session `number` of a shared server (`nib serve`).
    pub fn for_session(mut self, number: u64) -> NibServer {
        self.session = Some(number);
        self
    }

    /// This server listing and running the tools of `set`.
    pub fn serving(mut self, set: ToolSet) -> NibServer {
        self.tools = set;
        self
    }

    /// The folder documents must be in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The workspace this server works on.
    pub fn workspace(&self) -> &Arc<Mutex<Workspace>> {
        &self.workspace
    }

    /// Runs a tool on this thread as an MCP call does, holding the workspace; a panic is caught
    /// and answered.
    pub fn run(&self, name: &str, arguments: Value) -> Result<Value, ToolError> {
        self.run_as(&Caller::new("mcp", "mcp-client", "nib mcp"), name, arguments)
    }

    /// [`NibServer::run`] for `caller`: its claims, its name on what it saves, and what others
    /// changed since its last call.
    pub fn run_as(&self, caller: &Caller, name: &str, arguments: Value) -> Result<Value, ToolError> {
        let mut workspace = self.workspace.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            if self.panic_on.as_deref() == Some(name) {
                panic!("{PANIC_HOOK_VARIABLE} asked {name} to panic");
            }
            crate::tools::call_as(&mut workspace, caller, name, arguments)
        }));
        let result = match outcome {
            Ok(result) => result,
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_owned());
                tracing::error!(tool = name, panic = %what, "a tool panicked");
                // What was in memory may be half changed; what is on disk is the last saved
                // state, so start again from the files.
                workspace.reload_all();
                Err(ToolError::new(format!("{name} failed inside nib (a bug: {what}); nothing was saved by this call"))
                    .with_hint("the documents were reloaded from disk and undo history starts over; try again, or report the call that caused it"))
            }
        };
        tracing::debug!(tool = name, ms = started.elapsed().as_secs_f64() * 1000.0, ok = result.is_ok(), "call");
        result
    }
}

impl NibServer {
    /// Who makes a call: over HTTP the session its `Mcp-Session-Id` names, over stdio the one
    /// session; named after the client (clientInfo).
    fn caller(&self, context: &RequestContext<RoleServer>) -> Caller {
        let info = context.peer.peer_info();
        let client = info.as_ref().map(|info| info.client_info.name.as_str());
        let name = session_name(client, self.session);
        match self.session {
            Some(number) => {
                // The transport's session id, which `nib serve` ends claims by; the number
                // stands in when a request carries none.
                let id = context
                    .extensions
                    .get::<axum::http::request::Parts>()
                    .and_then(|parts| parts.headers.get("mcp-session-id"))
                    .and_then(|value| value.to_str().ok())
                    .map_or_else(|| format!("#{number}"), str::to_owned);
                Caller::new(id, &name, "nib serve")
            }
            None => Caller::new("mcp", &name, "nib mcp"),
        }
    }
}

impl ServerHandler for NibServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("nib", env!("CARGO_PKG_VERSION"))
                    .with_title("nib — headless .pen design engine")
                    .with_description("Pencil's design tools for .pen files, headless: edit, lay out, render."),
            )
            .with_instructions(match self.tools {
                ToolSet::Classic => INSTRUCTIONS.to_owned(),
                ToolSet::Current => CURRENT_INSTRUCTIONS.to_owned(),
                ToolSet::All => format!("{INSTRUCTIONS}\n\nPen's current surface is served too: execute runs JavaScript snippets (read_skill {{path: \"execute\"}})."),
            })
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(catalog::tools(self.tools)))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        catalog::find(self.tools, name)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let refusal = untyped::refusal(&request);
        tracing::debug!(method = %request.method, code = refusal.code.0, "{}", refusal.message);
        Err(refusal)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !catalog::has(self.tools, &name) {
            let error = if catalog::has(ToolSet::All, &name) {
                ToolError::new(
                    format!("{name} is not served by this server (it serves the {:?} tools)", self.tools)
                        .to_lowercase(),
                )
                .with_hint("start nib with --tools all (or current / classic) to serve it")
            } else {
                crate::tools::unknown_tool(&name)
            };
            return Ok(answer::failure(&error).into());
        }
        let arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let caller = self.caller(&context);
        let server = self.clone();
        let tool = name.clone();
        let result = tokio::task::spawn_blocking(move || server.run_as(&caller, &tool, arguments))
            .await
            .unwrap_or_else(|e| Err(ToolError::new(format!("{name} could not run: {e}"))));
        Ok(match result {
            Ok(value) => answer::success(&name, value),
            Err(error) => answer::failure(&error),
        }
        .into())
    }
}
