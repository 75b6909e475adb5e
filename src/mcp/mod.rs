//! `nib mcp`: the design tools over the Model Context Protocol (stdio), on the official `rmcp`
//! SDK. This layer only translates — tool definitions for clients, JSON in, results out; all
//! the work is done by [`crate::tools`].
//!
//! stdout carries protocol messages only: logs go to stderr (`RUST_LOG=nib=debug` for every
//! call), and nothing in the tools prints.

mod answer;
mod catalog;
mod server;
mod untyped;

use std::path::PathBuf;

pub use answer::{MAX_ANSWER_CHARS, bounded};
pub use server::NibServer;

/// Serves the tools on stdin/stdout until the client closes the connection, with `root` as the
/// only folder documents may be in.
pub fn serve_stdio(root: PathBuf) -> std::io::Result<()> {
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let server = NibServer::new(root)?;
        tracing::info!(root = %server.root().display(), "nib mcp serving on stdio");
        let service = rmcp::ServiceExt::serve(server, rmcp::transport::stdio())
            .await
            .map_err(|e| std::io::Error::other(format!("the MCP handshake failed: {e}")))?;
        let reason = service.waiting().await.map_err(std::io::Error::other)?;
        tracing::info!(?reason, "nib mcp stopped");
        Ok(())
    })
}

/// Logs to stderr, filtered by `RUST_LOG` (default: warnings, and nib's own info lines).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,nib=info"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).try_init();
}
