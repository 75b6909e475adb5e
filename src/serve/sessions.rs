//! MCP sessions over HTTP, bounded. Every `initialize` makes a session that holds a worker and
//! its channels (about 120 KB): 20,000 of them over one connection took `nib serve` to 2.38 GB,
//! and the SDK's own manager expires a session after 300 s idle without ever forgetting it.
//! This wraps the SDK's [`LocalSessionManager`] with a cap and a shorter life:
//!
//! - at most [`MAX_SESSIONS`] at once; when full, the session unused longest gives way if it has
//!   been idle [`MIN_IDLE_TO_EVICT`] (one that never made a request after `initialize` first),
//!   otherwise the new `initialize` is refused with a JSON-RPC error saying why;
//! - a session idle for [`SESSION_IDLE`] ends (the client starts a new one on its next call, as
//!   the protocol asks of a client that gets 404), and is forgotten — unless it holds a claim:
//!   then it lives, idle, until its claims end (an agent that thinks for three minutes keeps
//!   the frame it claimed);
//! - when a session ends, however it ends, its claims are released (the workspace's
//!   [`Board`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::server_side_http::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, LocalSessionManagerError};
use tokio_stream::Stream;

use crate::tools::Board;

/// Most MCP sessions at once. Fifty agents at work, each with a session or two, fit with room;
/// 128 idle sessions take about 15 MB.
pub const MAX_SESSIONS: usize = 128;

/// A session unused this long ends. Agents call every few seconds while they work; one that
/// thinks longer reconnects transparently.
pub const SESSION_IDLE: Duration = Duration::from_secs(120);

/// When every place is taken, a session idle at least this long gives way to a new one.
pub const MIN_IDLE_TO_EVICT: Duration = Duration::from_secs(10);

/// What the refusal says, and how [`super::mcp_errors`] recognizes it in the SDK's answer.
pub const FULL: &str = "too many MCP sessions";

/// Why a session could not be made or used.
#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    /// The SDK's manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    /// Every place is taken by a session in use.
    #[error(
        "{FULL}: {MAX_SESSIONS} are open and each was used in the last {} s; close clients you no longer use (a client ends its session with DELETE /mcp) or try again shortly",
        MIN_IDLE_TO_EVICT.as_secs()
    )]
    Full,
}

/// When a session was last used, and whether it ever made a request.
#[derive(Debug, Clone, Copy)]
struct Use {
    last: Instant,
    requested: bool,
}

/// The SDK's session manager with a cap and idle expiry.
pub struct BoundedSessions {
    inner: LocalSessionManager,
    uses: Mutex<HashMap<SessionId, Use>>,
    cap: usize,
    idle: Duration,
    /// The claims sessions hold: they keep a session alive, and end with it.
    board: Board,
}

impl BoundedSessions {
    /// A manager of at most `cap` sessions, each ending after `idle` unused unless it holds
    /// one of `board`'s claims.
    pub fn new(cap: usize, idle: Duration, board: Board) -> BoundedSessions {
        let mut inner = LocalSessionManager::default();
        // Sessions are ended here (idle, evicted, closed), not by the SDK's own timer, which
        // would end one that holds a claim.
        inner.session_config.keep_alive = None;
        BoundedSessions { inner, uses: Mutex::new(HashMap::new()), cap: cap.max(1), idle, board }
    }

    /// True while a session may still be used: used in the last `idle`, or holding a claim.
    fn alive(&self, id: &SessionId, session: &Use, now: Instant) -> bool {
        now.duration_since(session.last) < self.idle || self.holds_claims(id, now)
    }

    fn holds_claims(&self, id: &SessionId, now: Instant) -> bool {
        self.board.claims_held_until(id).is_some_and(|until| until > now)
    }

    /// Ends `id` in the SDK's manager and releases its claims.
    async fn end(&self, id: &SessionId) -> Result<(), SessionsError> {
        let released = self.board.session_ended(id);
        if released > 0 {
            tracing::info!(session = %id, released, "claims released: their session ended");
        }
        Ok(self.inner.close_session(id).await?)
    }

    fn touch(&self, id: &SessionId, requested: bool) {
        let mut uses = self.uses.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(session) = uses.get_mut(id) {
            session.last = Instant::now();
            session.requested |= requested;
        }
    }

    /// Sessions to end now: those past their idle time, and when the cap is reached the one
    /// that gives way; `Err` when the cap is reached and none may.
    fn to_close(&self) -> Result<Vec<SessionId>, SessionsError> {
        let mut uses = self.uses.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let mut closing: Vec<SessionId> =
            uses.iter().filter(|(id, u)| !self.alive(id, u, now)).map(|(id, _)| id.clone()).collect();
        for id in &closing {
            uses.remove(id);
        }
        if uses.len() >= self.cap {
            let victim = uses
                .iter()
                .filter(|(id, u)| now.duration_since(u.last) >= MIN_IDLE_TO_EVICT && !self.holds_claims(id, now))
                .min_by_key(|(_, u)| (u.requested, u.last))
                .map(|(id, _)| id.clone())
                .ok_or(SessionsError::Full)?;
            uses.remove(&victim);
            closing.push(victim);
        }
        Ok(closing)
    }
}

impl SessionManager for BoundedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        for id in self.to_close()? {
            tracing::info!(session = %id, "MCP session ended (idle, or giving way to a new one)");
            self.end(&id).await?;
        }
        let (id, transport) = self.inner.create_session().await?;
        self.uses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), Use { last: Instant::now(), requested: false });
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id, false);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        // A session past its idle time is gone even before a new one sweeps it away.
        let known = self.uses.lock().unwrap_or_else(|e| e.into_inner()).get(id).copied();
        let alive = known.is_some_and(|session| self.alive(id, &session, Instant::now()));
        Ok(alive && self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.uses.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
        self.end(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id, true);
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.touch(id, false);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id, true);
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id, true);
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}

/// Sessions a test can count: how many the wrapped manager holds.
#[cfg(test)]
impl BoundedSessions {
    async fn held(&self) -> usize {
        self.inner.sessions.read().await.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn past_the_cap_a_busy_set_refuses_and_an_idle_one_gives_way() {
        let sessions = BoundedSessions::new(3, Duration::from_secs(600), Board::default());
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(sessions.create_session().await.unwrap().0);
        }
        let refused = sessions.create_session().await.map(|_| ()).unwrap_err();
        assert!(refused.to_string().contains(FULL), "{refused}");
        assert_eq!(sessions.held().await, 3);
        // The oldest becomes idle long enough: it gives way.
        sessions.uses.lock().unwrap().get_mut(&ids[0]).unwrap().last -= MIN_IDLE_TO_EVICT;
        sessions.create_session().await.unwrap();
        assert_eq!(sessions.held().await, 3);
        assert!(!sessions.has_session(&ids[0]).await.unwrap());
    }

    #[tokio::test]
    async fn a_session_holding_a_claim_outlives_its_idle_time_and_its_claims_end_with_it() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(
            folder.path().join("d.pen"),
            r#"{"version": "2.6", "children": [{"type": "frame", "id": "f"}]}"#,
        )
        .unwrap();
        let mut workspace = crate::tools::Workspace::new(folder.path());
        let board = workspace.board();
        let sessions = BoundedSessions::new(100, Duration::from_secs(60), board.clone());
        let (holder, idle) = (sessions.create_session().await.unwrap().0, sessions.create_session().await.unwrap().0);
        let caller = crate::tools::Caller::new(holder.to_string(), "agent", "nib serve");
        let claim = serde_json::json!({"filePath": "d.pen", "nodeIds": ["f"], "minutes": 5});
        crate::tools::call_as(&mut workspace, &caller, "claim", claim).unwrap();
        for id in [&holder, &idle] {
            sessions.uses.lock().unwrap().get_mut(id).unwrap().last -= Duration::from_secs(61);
        }
        assert!(sessions.has_session(&holder).await.unwrap(), "its claim keeps it");
        assert!(!sessions.has_session(&idle).await.unwrap());
        sessions.create_session().await.unwrap();
        assert_eq!(sessions.held().await, 2, "the idle one was swept, the holder kept");
        sessions.close_session(&holder).await.unwrap();
        assert_eq!(board.claims_held_until(&holder), None, "its claim ended with it");
    }

    #[tokio::test]
    async fn sessions_past_their_idle_time_are_forgotten() {
        let sessions = BoundedSessions::new(100, Duration::from_secs(60), Board::default());
        let old = sessions.create_session().await.unwrap().0;
        sessions.uses.lock().unwrap().get_mut(&old).unwrap().last -= Duration::from_secs(61);
        assert!(!sessions.has_session(&old).await.unwrap());
        sessions.create_session().await.unwrap();
        assert_eq!(sessions.held().await, 1, "the expired session was removed, not kept as a dead handle");
    }
}
