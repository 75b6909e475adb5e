//! Who makes a tool call: a session of a server (each MCP session of `nib serve`, the one of
//! `nib mcp`, the page) or a command (`nib apply --as alice`). Claims are held by a session,
//! and answers tell a session what the others changed since its last call.

use crate::files::Writer;

/// The session and name a tool call is made under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    /// The session, unique in the process: two sessions of one client are two callers.
    pub session: String,
    /// How it is named to others (`claude-code#2`, `alice`) and the program it calls through
    /// (`nib serve`, `nib apply`); saves leave this name on the file.
    pub writer: Writer,
}

impl Caller {
    /// The one caller of a process that tells no sessions apart: `nib` through `via`.
    pub fn anonymous(via: &str) -> Caller {
        Caller { session: String::new(), writer: Writer::new("nib", via) }
    }

    /// A caller of session `session`, called `name`, calling through `via`.
    pub fn new(session: impl Into<String>, name: &str, via: &str) -> Caller {
        Caller { session: session.into(), writer: Writer::new(name, via) }
    }

    /// The name others see: `claude-code#2`.
    pub fn name(&self) -> &str {
        &self.writer.name
    }
}
