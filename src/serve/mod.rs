//! `nib serve`: one process serving one workspace to MCP clients over streamable HTTP (`/mcp`)
//! and to people in a browser (`/`): a live canvas of the documents under the root, drawn by
//! nib itself, whose selection is what get_editor_state reports.
//!
//! This room hosts [`crate::mcp`] and the page and owns no document logic: every answer the
//! page gets comes from the tools over the same shared [`Workspace`], so a person and every
//! agent see one state. Each request passes `access` first (Host, Origin, token, body size).

mod access;
mod api;
mod connections;
mod events;
mod mcp_errors;
mod page;
mod sessions;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

pub use access::{MAX_API_BODY_BYTES, MIN_TOKEN_CHARS};
pub use connections::{BODY_BYTES_PER_SECOND, BODY_READ_TIMEOUT, HEADER_READ_TIMEOUT, MAX_CONNECTIONS, MAX_PER_PEER};
pub use events::{Change, MAX_EVENT_STREAMS};
pub use sessions::{MAX_SESSIONS, SESSION_IDLE};

use crate::mcp::NibServer;
use crate::tools::Workspace;

/// Where `nib serve` listens when not told: loopback only, so nothing else on the network can
/// reach the documents.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7777";

/// How long a stop waits for open requests to finish before it drops them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// What `nib serve` is asked to do.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The folder documents must be in.
    pub root: PathBuf,
    /// The address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// The token clients must present; required beyond loopback (generated when absent).
    pub token: Option<String>,
    /// More `Host` names to answer to (e.g. a machine's DNS name when listening beyond loopback).
    pub allowed_hosts: Vec<String>,
    /// More browser origins allowed to call (e.g. `http://localhost:6274` for an MCP inspector).
    pub allowed_origins: Vec<String>,
    /// The fonts text is measured and drawn with (`--font-dir`, `NIB_FONT_DIRS`…).
    pub fonts: crate::text::FontOptions,
    /// Which tools MCP clients see (`--tools`).
    pub tools: crate::mcp::ToolSet,
    /// How long a request body may take to arrive, beyond a second for every
    /// [`BODY_BYTES_PER_SECOND`] of it (`--body-timeout`; [`BODY_READ_TIMEOUT`] unless told).
    pub body_timeout: Duration,
}

/// Why `nib serve` could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The root folder is missing or unreadable.
    #[error("the root folder {}: {source} (hint: pass --root with an existing folder)", path.display())]
    Root {
        /// The folder given.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The address could not be bound.
    #[error(
        "cannot listen on {address}: {source} (hint: another program may use that port; pass --listen 127.0.0.1:0 for any free port)"
    )]
    Listen {
        /// The address asked for.
        address: SocketAddr,
        /// What the system said.
        source: std::io::Error,
    },
    /// A `--token` too short to resist guessing.
    #[error(
        "the token has {chars} characters; at least {MIN_TOKEN_CHARS} are needed (hint: omit --token and nib generates one)"
    )]
    WeakToken {
        /// Its length.
        chars: usize,
    },
    /// The operating system gave no randomness for a token.
    #[error("cannot generate a token: {0} (hint: pass --token with a secret of your own)")]
    Random(String),
    /// Anything else the runtime or the server reported.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// A server that is running: where it is, how to get in, and how to stop it.
pub struct Running {
    /// The address it listens on (with the real port when 0 was asked).
    pub address: SocketAddr,
    /// The token MCP clients send as `Authorization: Bearer …`, when one is required.
    pub token: Option<String>,
    /// The page's address; with a token, a one-time link that logs the browser in.
    pub page_url: String,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
    _watcher: events::Watcher,
}

impl Running {
    /// The MCP endpoint's address.
    pub fn mcp_url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    /// Stops serving: open requests get [`SHUTDOWN_GRACE`] to finish, event streams end.
    pub async fn stop(self) {
        self.stop.cancel();
        let mut task = self.task;
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut task).await.is_err() {
            task.abort();
        }
    }

    /// Serves until the process is interrupted (Ctrl-C), then stops.
    pub async fn until_interrupted(self) -> std::io::Result<()> {
        tokio::signal::ctrl_c().await?;
        self.stop().await;
        Ok(())
    }
}

/// What every request handler shares.
#[derive(Clone)]
struct AppState {
    /// Runs tools as MCP calls do; holds the one workspace.
    server: NibServer,
    /// Committed changes, for the page's event streams.
    changes: tokio::sync::broadcast::Sender<Change>,
    /// Open event streams, to refuse more than [`MAX_EVENT_STREAMS`].
    streams: Arc<std::sync::atomic::AtomicUsize>,
    /// Cancelled when the server stops.
    stop: CancellationToken,
    /// Who may talk to the server.
    access: Arc<access::Access>,
    /// The claims in force, as the page shows them (updated when they change or end).
    claims: tokio::sync::watch::Receiver<serde_json::Value>,
}

/// Binds, starts the file watcher and serves in the background of the current Tokio runtime.
pub async fn start(options: ServeOptions) -> Result<Running, ServeError> {
    let root = crate::files::canonical_root(&options.root)
        .map_err(|source| ServeError::Root { path: options.root.clone(), source })?;
    if !root.is_dir() {
        let source = std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder");
        return Err(ServeError::Root { path: options.root.clone(), source });
    }
    if let Some(token) = &options.token
        && token.chars().count() < MIN_TOKEN_CHARS
    {
        return Err(ServeError::WeakToken { chars: token.chars().count() });
    }
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(|source| ServeError::Listen { address: options.listen, source })?;
    let address = listener.local_addr()?;
    let access = Arc::new(access::Access::new(&options, address)?);

    let server = NibServer::with_fonts(root.clone(), options.fonts.clone())?.serving(options.tools);
    let workspace: Arc<Mutex<Workspace>> = Arc::clone(server.workspace());
    let board = workspace.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).board();
    // Claims bind the sessions of this server: the claim tools say so.
    board.set_shared(true);
    let stop = CancellationToken::new();
    let (changes, _) = tokio::sync::broadcast::channel(events::CHANGE_BACKLOG);
    let watcher = events::Watcher::start(&root, Arc::clone(&workspace), changes.clone());
    let claims = events::watch_claims(board.clone(), root.clone(), stop.child_token());
    let state = AppState {
        server: server.clone(),
        changes,
        streams: Arc::default(),
        stop: stop.clone(),
        access: Arc::clone(&access),
        claims,
    };

    let config = StreamableHttpServerConfig::default()
        // Host and Origin are checked in front of every route by `access`, with the same rules
        // for the page and for MCP (rmcp's own list would not know --allow-host).
        .disable_allowed_hosts()
        .with_max_request_body_bytes(crate::mcp::MAX_MESSAGE_BYTES)
        .with_cancellation_token(stop.child_token());
    let mcp = StreamableHttpService::new(
        {
            let tools = options.tools;
            // Each session is numbered, so two sessions of one client are told apart.
            let sessions = std::sync::atomic::AtomicU64::new(0);
            move || {
                let number = sessions.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                Ok(NibServer::sharing(Arc::clone(&workspace)).serving(tools).for_session(number))
            }
        },
        Arc::new(sessions::BoundedSessions::new(MAX_SESSIONS, SESSION_IDLE, board)),
        config,
    );

    let router = page::routes()
        .merge(api::routes())
        .merge(events::routes())
        .merge(access::routes())
        .nest_service("/mcp", mcp)
        .fallback(page::not_found)
        .layer(axum::middleware::from_fn_with_state(state.clone(), access::guard))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_API_BODY_BYTES))
        .with_state(state);

    let page_url = access.page_url();
    let token = access.token().map(str::to_owned);
    let shutdown = stop.clone();
    let task = tokio::spawn(connections::serve(listener, router, options.body_timeout, shutdown));
    Ok(Running { address, token, page_url, stop, task, _watcher: watcher })
}

/// `nib serve`: starts, prints where to connect, and serves until Ctrl-C.
pub fn serve(options: ServeOptions) -> Result<(), ServeError> {
    crate::mcp::init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let running = start(options).await?;
        // stdout, so that a script can read where the server is; logs go to stderr.
        println!("nib serve: MCP endpoint {}", running.mcp_url());
        println!("nib serve: page {}", running.page_url);
        if let Some(token) = &running.token {
            println!("nib serve: token {token} (MCP clients send it as the header Authorization: Bearer {token})");
            println!("nib serve: the page link above logs one browser in, once; others use the token at /login");
        }
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        running.until_interrupted().await?;
        Ok(())
    })
}
