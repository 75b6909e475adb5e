//! The claim tool (and execute's `Claim` and `Release`): a session of a shared server says
//! which frames it works on, for how long, and when it is done (claims.rs keeps them and
//! checks changes against them). One tool claims and releases: a tool of its own for release
//! cost the tool list 650 bytes of the 16 KB every session reads.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolError;
use super::claims::{DEFAULT_CLAIM, MAX_CLAIM};
use super::workspace::Workspace;

/// claim's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClaimArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// The nodes to claim, each with everything below it (to release: every claim of this
    /// session in the document when absent).
    pub node_ids: Option<Vec<String>>,
    /// How long, in minutes (fractions allowed); [`DEFAULT_CLAIM`] when absent.
    pub minutes: Option<f64>,
    /// Release the nodes instead of claiming them.
    #[serde(default)]
    pub release: bool,
}

/// What claim answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Claimed {
    /// The claims made or renewed: node, holder, end.
    pub claimed: Vec<Value>,
    /// What a claim does here.
    pub note: String,
}

/// What release answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Released {
    /// The nodes released.
    pub released: Vec<String>,
    /// Said when there was nothing to release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a claim does in a workspace only one session uses.
const ALONE: &str = "claimed, but no one else is bound here: only the other sessions of a `nib serve` are refused changes inside a claim, never command-line writers or another server";

/// What a claim does in a shared server.
const SHARED: &str = "other sessions' changes inside these nodes are refused until the claim ends; claim them again to renew it, and release them (release: true) when you are done";

/// The length `minutes` asks for: a number of minutes above 0, at most [`MAX_CLAIM`].
pub(crate) fn claim_length(minutes: Option<f64>) -> Result<Duration, ToolError> {
    let Some(minutes) = minutes else { return Ok(DEFAULT_CLAIM) };
    let most = MAX_CLAIM.as_secs_f64() / 60.0;
    if !minutes.is_finite() || minutes <= 0.0 || minutes > most {
        return Err(ToolError::new(format!(
            "claim: minutes is {minutes}; a claim lasts more than 0 and at most {most} minutes"
        ))
        .with_hint("claim again before it ends to renew it"));
    }
    Ok(Duration::from_secs_f64(minutes * 60.0))
}

/// Claims nodes of a document for the calling session, or (with `release`) releases them.
pub fn claim(workspace: &mut Workspace, args: ClaimArgs) -> Result<Value, ToolError> {
    let answer = if args.release {
        serde_json::to_value(release_nodes(workspace, args.file_path.as_deref(), args.node_ids.as_deref())?)
    } else {
        let length = claim_length(args.minutes)?;
        let ids = args.node_ids.unwrap_or_default();
        serde_json::to_value(claim_nodes(workspace, args.file_path.as_deref(), &ids, length)?)
    };
    answer.map_err(|e| ToolError::new(e.to_string()))
}

/// Claims `ids` of the document at `file_path` for the running call's caller, for `length`.
pub(crate) fn claim_nodes(
    workspace: &mut Workspace,
    file_path: Option<&str>,
    ids: &[String],
    length: Duration,
) -> Result<Claimed, ToolError> {
    let caller = workspace.caller().clone();
    let board = workspace.board();
    let (open, _) = workspace.document(file_path)?;
    let now = Instant::now();
    let mut state = board.lock();
    let made = state.claims.claim(&caller, &open.path, &open.document, ids, length, now)?;
    let shown = open.path.display().to_string();
    let claimed = made.iter().map(|claim| claim.view(&caller, &shown, now)).collect();
    let note = if state.shared { SHARED } else { ALONE };
    Ok(Claimed { claimed, note: note.to_owned() })
}

/// Releases the running call's caller's claims on `ids` (all of them in the document when
/// `None`).
pub(crate) fn release_nodes(
    workspace: &mut Workspace,
    file_path: Option<&str>,
    ids: Option<&[String]>,
) -> Result<Released, ToolError> {
    let caller = workspace.caller().clone();
    let board = workspace.board();
    let (open, _) = workspace.document(file_path)?;
    let released = board.lock().claims.release(&caller, &open.path, ids, Instant::now())?;
    let note = released.is_empty().then(|| format!("you held no claim of these nodes in {}", open.path.display()));
    Ok(Released { released, note })
}

/// Every claim in force, as get_editor_state and get_app_state list them for the caller.
pub(crate) fn listed(workspace: &Workspace) -> Vec<Value> {
    let now = Instant::now();
    let caller = workspace.caller().clone();
    let board = workspace.board();
    let mut state = board.lock();
    state.claims.all(now).iter().map(|claim| claim.view(&caller, &claim.path.display().to_string(), now)).collect()
}
