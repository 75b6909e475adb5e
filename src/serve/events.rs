//! Live updates: a watcher on the root notices every `.pen` file written — by an MCP call, the
//! page, `nib apply` in another process, an editor — reloads the open documents that changed
//! on disk (their revision goes up), and tells the page over Server-Sent Events.

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use notify::Watcher as _;
use serde::Serialize;
use tokio::sync::broadcast;

use super::AppState;
use crate::tools::Workspace;

/// Changes kept for a page that is slow to read them; one that falls further behind is told
/// to reload everything (a `lagged` change), so a burst never grows memory.
pub const CHANGE_BACKLOG: usize = 256;

/// Most event streams open at once: a page holds one; hundreds would only be a leak or abuse.
pub const MAX_EVENT_STREAMS: usize = 64;

/// How long the watcher gathers file events before acting: an atomic save is a create and a
/// rename, an editor's several writes; one reload serves them all, well within the half
/// second in which the page must show a change.
const SETTLE: Duration = Duration::from_millis(40);

/// Most paths gathered in one round; past it the round is acted on at once.
const MAX_PATHS_PER_ROUND: usize = 1_000;

/// How often open documents are compared with their files when the operating system's file
/// events are not available (too many folders for inotify, a file system without events).
const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// How often the claims are looked at for the page: a claim made, released or ended shows
/// within this (their ends are not events of their own).
const CLAIMS_INTERVAL: Duration = Duration::from_millis(250);

/// The claims in force as the page shows them, updated whenever they change (made, renewed,
/// released, ended) until `stop`.
pub fn watch_claims(
    board: crate::tools::Board,
    root: PathBuf,
    stop: tokio_util::sync::CancellationToken,
) -> tokio::sync::watch::Receiver<serde_json::Value> {
    let shown = move |path: &Path| relative(&root, path);
    let (sender, receiver) = tokio::sync::watch::channel(serde_json::Value::Array(board.claims_for_page(&shown)));
    tokio::spawn(async move {
        let mut seen = board.claims_generation();
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(CLAIMS_INTERVAL) => {}
            }
            let now = board.claims_generation();
            if now != seen {
                seen = now;
                sender.send_replace(serde_json::Value::Array(board.claims_for_page(&shown)));
            }
        }
    });
    receiver
}

/// A committed change the page should show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// The document's path relative to the root (`/` between folders).
    pub file: String,
    /// Its revision now, when it is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
}

/// Watches the root while it lives.
pub struct Watcher {
    _events: Option<Box<dyn notify::Watcher + Send>>,
    /// Tells the polling thread to end (dropped with the watcher).
    _stop: mpsc::Sender<PathBuf>,
}

impl Watcher {
    /// Starts watching `root`; when the system's file events are not available, polls the open
    /// documents instead (logged once).
    pub fn start(root: &Path, workspace: Arc<Mutex<Workspace>>, changes: broadcast::Sender<Change>) -> Watcher {
        let (sender, receiver) = mpsc::channel::<PathBuf>();
        let events = watch_events(root, sender.clone());
        let polling = events.is_none();
        let root = root.to_owned();
        let thread = std::thread::Builder::new()
            .name("nib-serve-watch".into())
            .spawn(move || relay(&root, &receiver, &workspace, &changes, polling));
        if let Err(error) = thread {
            tracing::warn!("cannot start the file watcher thread: {error}; the page will not update by itself");
        }
        Watcher { _events: events, _stop: sender }
    }
}

/// The operating system's file events under `root`, sent as paths; `None` when unavailable.
fn watch_events(root: &Path, sender: mpsc::Sender<PathBuf>) -> Option<Box<dyn notify::Watcher + Send>> {
    let handler = move |event: notify::Result<notify::Event>| {
        // Reading is not changing; and nib reads a file to fingerprint it after each event,
        // which would otherwise start the next round, for ever.
        if let Ok(event) = event
            && !event.kind.is_access()
        {
            for path in event.paths {
                let _ = sender.send(path);
            }
        }
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(watcher) => watcher,
        Err(error) => {
            tracing::warn!(
                "file events are not available ({error}); open documents are compared with their files every {POLL_INTERVAL:?}"
            );
            return None;
        }
    };
    if let Err(error) = watcher.watch(root, notify::RecursiveMode::Recursive) {
        tracing::warn!(
            "cannot watch {} ({error}); open documents are compared with their files every {POLL_INTERVAL:?}",
            root.display()
        );
        return None;
    }
    Some(Box::new(watcher))
}

/// Turns file events (or, when `polling`, the passing of time) into reloads and changes, until
/// the watcher is dropped.
fn relay(
    root: &Path,
    receiver: &mpsc::Receiver<PathBuf>,
    workspace: &Mutex<Workspace>,
    changes: &broadcast::Sender<Change>,
    polling: bool,
) {
    let mut seen: Vec<(PathBuf, Option<u64>)> = Vec::new();
    loop {
        let mut paths = BTreeSet::new();
        if polling {
            match receiver.recv_timeout(POLL_INTERVAL) {
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
                _ => {
                    let open = workspace
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .open_paths()
                        .into_iter()
                        .map(Path::to_owned)
                        .collect::<Vec<_>>();
                    paths.extend(open);
                }
            }
        } else {
            match receiver.recv() {
                Ok(path) => paths.insert(path),
                Err(_) => return,
            };
            while paths.len() < MAX_PATHS_PER_ROUND {
                match receiver.recv_timeout(SETTLE) {
                    Ok(path) => paths.insert(path),
                    Err(mpsc::RecvTimeoutError::Timeout) => break,
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                };
            }
        }
        for path in paths.into_iter().filter(|p| is_document(p)) {
            let revision = workspace.lock().unwrap_or_else(|p| p.into_inner()).refresh(&path);
            // An open document is reported when its revision moved; a file that is not open
            // has no revision to compare, and is reported at every write (the page's list).
            match seen.iter_mut().find(|(p, _)| *p == path) {
                Some((_, before)) if revision.is_some() && *before == revision => continue,
                Some((_, before)) => *before = revision,
                None => seen.push((path.clone(), revision)),
            }
            let file = relative(root, &path);
            tracing::debug!(%file, ?revision, "changed");
            let _ = changes.send(Change { file, revision });
        }
    }
}

/// True for `.pen` files (not the temporary files atomic writes make beside them).
fn is_document(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "pen")
}

/// `path` relative to `root`, with `/` between folders.
pub(super) fn relative(root: &Path, path: &Path) -> String {
    let inside = path.strip_prefix(root).unwrap_or(path);
    inside.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The event stream route.
pub fn routes() -> Router<AppState> {
    Router::new().route("/api/events", get(stream))
}

/// `GET /api/events`: `change` events as documents change, `claims` (every claim in force) at
/// the start and whenever they change, `ready` once at the start.
async fn stream(State(state): State<AppState>) -> Response {
    let open = state.streams.fetch_add(1, Ordering::SeqCst);
    if open >= MAX_EVENT_STREAMS {
        state.streams.fetch_sub(1, Ordering::SeqCst);
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{MAX_EVENT_STREAMS} event streams are open already; close other pages of this server"),
        )
            .into_response();
    }
    let mut subscription = state.changes.subscribe();
    let mut claims = state.claims.clone();
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Event, Infallible>>(16);
    let streams = Arc::clone(&state.streams);
    let stop = state.stop.clone();
    tokio::spawn(async move {
        let _ = sender.send(Ok(Event::default().event("ready").data("{}"))).await;
        let now = claims.borrow_and_update().clone();
        let _ = sender.send(Ok(Event::default().event("claims").json_data(&now).unwrap_or_default())).await;
        loop {
            let event = tokio::select! {
                _ = stop.cancelled() => break,
                _ = sender.closed() => break,
                changed = claims.changed() => match changed {
                    Ok(()) => {
                        let now = claims.borrow_and_update().clone();
                        Event::default().event("claims").json_data(&now).unwrap_or_default()
                    }
                    Err(_) => break,
                },
                received = subscription.recv() => match received {
                    Ok(change) => Event::default().event("change").json_data(&change).unwrap_or_default(),
                    Err(broadcast::error::RecvError::Lagged(_)) => Event::default().event("lagged").data("{}"),
                    Err(broadcast::error::RecvError::Closed) => break,
                },
            };
            if sender.send(Ok(event)).await.is_err() {
                break;
            }
        }
        streams.fetch_sub(1, Ordering::SeqCst);
    });
    Sse::new(tokio_stream::wrappers::ReceiverStream::new(receiver)).keep_alive(KeepAlive::default()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pen_files_are_documents() {
        assert!(is_document(Path::new("/r/a.pen")));
        assert!(!is_document(Path::new("/r/.a.pen.tmp123")) && !is_document(Path::new("/r/a")));
    }

    #[test]
    fn relative_paths_use_slashes() {
        assert_eq!(relative(Path::new("/r"), Path::new("/r/x/y.pen")), "x/y.pen");
    }
}
