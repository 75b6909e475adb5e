//! What the sessions of one server share besides the documents: the claims they hold and the
//! journal of who changed what. It sits beside the workspace, under a lock of its own, so a
//! server can end a session's claims (or ask how long they last) without waiting for a tool
//! call that holds the workspace.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::claims::Claims;
use super::journal::Journal;

/// A handle on the claims and the journal of a workspace (cloning it shares them).
#[derive(Clone, Default)]
pub struct Board {
    inner: Arc<Mutex<State>>,
}

#[derive(Default)]
pub(crate) struct State {
    pub claims: Claims,
    pub journal: Journal,
    /// Whether several sessions share the workspace (`nib serve`): a claim binds only them.
    pub shared: bool,
}

impl Board {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Says that several sessions share this workspace (`nib serve`), so the claim tools stop
    /// telling their callers that a claim binds no one here.
    pub fn set_shared(&self, shared: bool) {
        self.lock().shared = shared;
    }

    /// The session `session` ended: its claims are released and the journal forgets how far it
    /// was told. Answers how many claims it held.
    pub fn session_ended(&self, session: &str) -> usize {
        let mut state = self.lock();
        state.journal.forget(session);
        state.claims.release_session(session)
    }

    /// When the last claim `session` holds ends, if it holds one: a server keeps such a
    /// session alive while it is idle.
    pub fn claims_held_until(&self, session: &str) -> Option<Instant> {
        self.lock().claims.held_until(session, Instant::now())
    }

    /// A number that changes whenever the claims do (a claim made, renewed, released or ended),
    /// so a page knows when to draw them again.
    pub fn claims_generation(&self) -> u64 {
        self.lock().claims.generation(Instant::now())
    }

    /// Every claim in force, as a page shows them: `{file (the path as `shown` writes it), nodeId, name,
    /// holder, until, endsInMs}`.
    pub fn claims_for_page(&self, shown: impl Fn(&std::path::Path) -> String) -> Vec<serde_json::Value> {
        let now = Instant::now();
        let mut state = self.lock();
        state
            .claims
            .all(now)
            .iter()
            .map(|claim| {
                serde_json::json!({
                    "file": shown(&claim.path),
                    "nodeId": claim.id,
                    "name": claim.name,
                    "holder": claim.holder.name(),
                    "until": super::claims::utc(claim.until_wall),
                    "endsInMs": claim.until.saturating_duration_since(now).as_millis() as u64,
                })
            })
            .collect()
    }
}
