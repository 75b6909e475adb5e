//! `nib mcp` and `nib serve`: the design tools served to MCP clients, on stdin/stdout or on
//! HTTP beside a live canvas for people.

use std::path::PathBuf;
use std::process::ExitCode;

use nib::text::FontOptions;

/// The examples `nib serve --help` ends with.
pub const EXAMPLES: &str = "Examples:
  nib serve --root designs/                   MCP at http://127.0.0.1:7777/mcp, the page at http://127.0.0.1:7777/
  nib serve --listen 127.0.0.1:0              any free port (printed)
  nib serve --listen 0.0.0.0:7777             reachable from other machines: prints a token and a one-time page link
  claude mcp add --transport http nib http://127.0.0.1:7777/mcp";

/// `nib mcp`'s arguments.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// The folder documents are in and relative paths start from (default: the working
    /// directory).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Which tools to serve: Pencil's classic design tools, Pen's current surface (execute,
    /// get_app_state, read_skill, get_style), or all of them.
    #[arg(long, value_enum, default_value_t)]
    tools: nib::mcp::ToolSet,
}

impl McpArgs {
    /// Serves on stdin/stdout until the client leaves. `fonts` are read once the root is known,
    /// so a working directory that cannot be read stops nib before they are.
    pub fn run(self, fonts: impl FnOnce() -> FontOptions) -> std::io::Result<ExitCode> {
        super::allocator::for_a_server();
        super::stdout_pipe::widen();
        let root = match self.root {
            Some(root) => root,
            None => std::env::current_dir()?,
        };
        nib::mcp::serve_stdio_with(root, fonts(), self.tools)?;
        Ok(ExitCode::SUCCESS)
    }
}

/// `nib serve`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The folder documents are in and relative paths start from (default: the working
    /// directory).
    #[arg(long)]
    root: Option<PathBuf>,
    /// The address and port to listen on; port 0 picks a free one.
    #[arg(long, default_value = nib::serve::DEFAULT_LISTEN)]
    listen: std::net::SocketAddr,
    /// The token clients must present (at least 16 characters); generated when listening
    /// beyond loopback without one. Also read from NIB_SERVE_TOKEN.
    #[arg(long, env = "NIB_SERVE_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Another Host name to answer to, e.g. the machine's DNS name (repeatable).
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_host: Vec<String>,
    /// Another browser origin allowed to call, e.g. http://localhost:6274 (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// Which tools MCP clients see: classic, current or all (as `nib mcp --tools`).
    #[arg(long, value_enum, default_value_t)]
    tools: nib::mcp::ToolSet,
    /// Seconds a request body may take to arrive, plus one for every 64 KiB of it; a
    /// slower one is answered 408 and its connection closed.
    #[arg(long, value_name = "SECONDS", default_value_t = nib::serve::BODY_READ_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout: u64,
}

impl ServeArgs {
    /// Serves on HTTP until stopped; `fonts` are read once the root is known, as for `nib mcp`.
    pub fn run(self, fonts: impl FnOnce() -> FontOptions) -> std::io::Result<ExitCode> {
        let ServeArgs { root, listen, token, allow_host, allow_origin, tools, body_timeout } = self;
        super::allocator::for_a_server();
        let root = match root {
            Some(root) => root,
            None => std::env::current_dir()?,
        };
        let options = nib::serve::ServeOptions {
            root,
            listen,
            token,
            allowed_hosts: allow_host,
            allowed_origins: allow_origin,
            fonts: fonts(),
            tools,
            body_timeout: std::time::Duration::from_secs(body_timeout),
        };
        nib::serve::serve(options).map_err(std::io::Error::other)?;
        Ok(ExitCode::SUCCESS)
    }
}
