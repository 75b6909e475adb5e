//! `nib mcp`: the design tools over the Model Context Protocol (stdio), on the official `rmcp`
//! SDK. This layer only translates — tool definitions for clients, JSON in, results out; all
//! the work is done by [`crate::tools`].
//!
//! stdout carries protocol messages only: logs go to stderr (`RUST_LOG=nib=debug` for every
//! call), and nothing in the tools prints. stdin is framed here rather than by rmcp (`stdio.rs`,
//! `framing.rs`), so that every line gets the answer JSON-RPC 2.0 asks for, whatever it holds.

mod answer;
mod backlog;
mod batch;
mod catalog;
mod envelope;
mod framing;
mod lines;
mod outgoing;
mod server;
mod shallow;
mod stdio;
mod untyped;

use std::path::PathBuf;

pub use answer::{MAX_ANSWER_CHARS, bounded};
pub use backlog::MAX_UNWRITTEN_ANSWERS;
pub use catalog::{ToolSet, tool_names};
pub use framing::MAX_NESTING;
pub use lines::MAX_MESSAGE_BYTES;
pub use server::NibServer;

use stdio::Stdio;

/// Serves the tools on stdin/stdout until the client closes the connection, with `root` as the
/// only folder documents may be in. Every line of stdin gets the answer JSON-RPC 2.0 asks for,
/// and no line, however malformed, long or deep, ends the server.
pub fn serve_stdio(root: PathBuf) -> std::io::Result<()> {
    serve_stdio_with_fonts(root, crate::host::user_font_options(false, Vec::new()).0)
}

/// [`serve_stdio`] with text measured and drawn with `fonts` (`nib mcp --font-dir …`).
pub fn serve_stdio_with_fonts(root: PathBuf, fonts: crate::text::FontOptions) -> std::io::Result<()> {
    serve_stdio_with(root, fonts, ToolSet::default())
}

/// [`serve_stdio_with_fonts`] listing the tools of `tools` (`nib mcp --tools current`).
pub fn serve_stdio_with(root: PathBuf, fonts: crate::text::FontOptions, tools: ToolSet) -> std::io::Result<()> {
    init_logging();
    let server = NibServer::with_fonts(root, fonts)?.serving(tools);
    tracing::info!(root = %server.root().display(), "nib mcp serving on stdio");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let stdio = Stdio::start()?;
    let outcome = runtime.block_on(serve_sessions(server, &stdio));
    // The runtime's tasks hold the last senders to stdout: end them, then let the writer finish.
    drop(runtime);
    stdio.finish();
    outcome
}

/// Runs MCP sessions on `stdio` until one ends: a handshake that fails (a notification before
/// initialize, say) is logged and the next message may start another.
async fn serve_sessions(server: NibServer, stdio: &Stdio) -> std::io::Result<()> {
    loop {
        match rmcp::ServiceExt::serve(server.clone(), stdio.transport()).await {
            Ok(service) => {
                let reason = service.waiting().await.map_err(std::io::Error::other)?;
                tracing::info!(?reason, "nib mcp stopped");
                return Ok(());
            }
            Err(error) if stdio.ended().await => {
                return Err(std::io::Error::other(format!("the MCP handshake failed: {error}")));
            }
            Err(error) => tracing::warn!("the MCP handshake failed, waiting for another: {error}"),
        }
    }
}

/// Logs to stderr, filtered by `RUST_LOG` (default: warnings, and nib's own info lines).
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,nib=info"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).try_init();
}
