//! Claims: a session of a shared server says "I am working on this frame" for a while, and
//! another session's change inside it is refused, naming the holder and when the claim ends.
//!
//! A claim holds a node of a document by id, with everything below it. It ends when its time
//! is up, when its holder releases it, or when the holder's session ends. Claims live in the
//! server's memory: they bind the sessions of that process (and its page), not other programs
//! (command-line writers, editors), which the document's lock already makes take turns.
//!
//! A change is checked after it is made and before it is saved, node by node
//! ([`Fence::refusal`]): a property set on a node inside another session's claim, a node
//! linked into one or taken out of one, the claimed node itself or one above it moved or
//! removed. The refused change is taken back and nothing is saved.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::ToolError;
use super::caller::Caller;
use crate::doc::{Document, NodeKey, Touch};

/// How long a claim lasts when no time is asked: long enough for a few rounds of edits and
/// screenshots; the holder renews it by claiming again.
pub const DEFAULT_CLAIM: Duration = Duration::from_secs(10 * 60);

/// The longest time one claim may be asked for. Renewing is one call, so a longer claim only
/// keeps others waiting after its holder forgot it (or crashed without ending its session).
pub const MAX_CLAIM: Duration = Duration::from_secs(60 * 60);

/// The shortest claim: a shorter time is taken as this (a test's claims run out in seconds).
const MIN_CLAIM: Duration = Duration::from_millis(100);

/// Most claims one session holds at once: a claim is a frame or a component being worked on,
/// not a lock on every node.
pub const MAX_CLAIMS_PER_SESSION: usize = 32;

/// Most claims a server holds at once, every session together (bounded memory).
pub const MAX_CLAIMS: usize = 1_024;

/// One claim.
#[derive(Debug, Clone)]
pub(crate) struct Claim {
    /// The document (absolute path).
    pub path: PathBuf,
    /// The claimed node's id.
    pub id: String,
    /// Its name when it was claimed (shown in listings and refusals).
    pub name: Option<String>,
    /// Who holds it.
    pub holder: Caller,
    /// When it ends.
    pub until: Instant,
    /// When it ends, on the wall clock (what answers show).
    pub until_wall: SystemTime,
}

impl Claim {
    /// `'Hero' (hero)`, or `hero` for a node without a name.
    pub fn node_label(&self) -> String {
        match &self.name {
            Some(name) => format!("'{name}' ({})", self.id),
            None => format!("'{}'", self.id),
        }
    }

    /// The claim as an answer lists it, for `caller`: the node, its holder, when it ends.
    pub fn view(&self, caller: &Caller, shown_path: &str, now: Instant) -> serde_json::Value {
        serde_json::json!({
            "filePath": shown_path,
            "nodeId": self.id,
            "name": self.name,
            "holder": self.holder.name(),
            "yours": self.holder.session == caller.session,
            "until": utc(self.until_wall),
            "endsIn": span(self.until.saturating_duration_since(now)),
        })
    }
}

/// Every claim of a server.
#[derive(Debug, Default)]
pub(crate) struct Claims {
    list: Vec<Claim>,
    /// Rises at every change of the list (a claim, a release, an end), so the page can tell
    /// when to draw them again.
    generation: u64,
}

impl Claims {
    /// Forgets claims whose time is up.
    pub fn expire(&mut self, now: Instant) {
        let before = self.list.len();
        self.list.retain(|claim| claim.until > now);
        if self.list.len() != before {
            self.generation += 1;
        }
    }

    /// A number that changes whenever the claims do.
    pub fn generation(&mut self, now: Instant) -> u64 {
        self.expire(now);
        self.generation
    }

    /// The claims in force, in the order they were made.
    pub fn all(&mut self, now: Instant) -> &[Claim] {
        self.expire(now);
        &self.list
    }

    /// Claims `ids` of the document at `path` for `caller`, for `length` (all of them, or none
    /// when one cannot be). A node the caller holds already is renewed.
    pub fn claim(
        &mut self,
        caller: &Caller,
        path: &Path,
        document: &Document,
        ids: &[String],
        length: Duration,
        now: Instant,
    ) -> Result<Vec<Claim>, ToolError> {
        self.expire(now);
        if ids.is_empty() {
            return Err(ToolError::new("claim: nodeIds is empty").with_hint("name the frames or components to claim"));
        }
        let length = length.clamp(MIN_CLAIM, MAX_CLAIM);
        let mut wanted: Vec<(String, NodeKey)> = Vec::new();
        for id in ids {
            let Some(key) = document.node_by_id(id) else {
                let hint = if id.contains('/') {
                    "a node inside an instance is claimed with its instance: claim the instance (or the component), by its own id"
                } else {
                    "claim nodes that exist, by id (get_editor_state lists the top-level ones)"
                };
                return Err(
                    ToolError::new(format!("claim: there is no node '{id}' in {}", path.display())).with_hint(hint)
                );
            };
            let others = self.list.iter().filter(|c| c.path == path && c.holder.session != caller.session);
            for other in others {
                let Some(held) = document.node_by_id(&other.id) else { continue };
                let tree = document.tree();
                let relation = if held == key {
                    Relation::Same
                } else if tree.is_ancestor(held, key) {
                    Relation::Inside(id)
                } else if tree.is_ancestor(key, held) {
                    Relation::Holds(id)
                } else {
                    continue;
                };
                return Err(held_by_another(other, relation, now, "it cannot be claimed by you"));
            }
            if !wanted.iter().any(|(seen, _)| seen == id) {
                wanted.push((id.clone(), key));
            }
        }
        let held = self.list.iter().filter(|c| c.holder.session == caller.session).count();
        let new = wanted
            .iter()
            .filter(|(id, _)| {
                !self.list.iter().any(|c| c.path == path && c.id == *id && c.holder.session == caller.session)
            })
            .count();
        if held + new > MAX_CLAIMS_PER_SESSION {
            return Err(ToolError::new(format!(
                "claim: a session holds at most {MAX_CLAIMS_PER_SESSION} claims; you hold {held} and asked for {new} more"
            ))
            .with_hint("claim the frames that hold what you work on instead of their parts, or release what you are done with"));
        }
        if self.list.len() + new > MAX_CLAIMS {
            return Err(ToolError::new(format!("claim: this server holds {MAX_CLAIMS} claims already, its most"))
                .with_hint("try again when some have ended, or ask the other sessions to release theirs"));
        }
        let until = now + length;
        let until_wall = SystemTime::now() + length;
        let mut made = Vec::new();
        for (id, key) in wanted {
            let name = document.tree().node(key).props.name().map(str::to_owned);
            let claim =
                match self.list.iter_mut().find(|c| c.path == path && c.id == id && c.holder.session == caller.session)
                {
                    Some(renewed) => {
                        renewed.until = until;
                        renewed.until_wall = until_wall;
                        renewed.name = name;
                        renewed.clone()
                    }
                    None => {
                        let claim =
                            Claim { path: path.to_owned(), id, name, holder: caller.clone(), until, until_wall };
                        self.list.push(claim.clone());
                        claim
                    }
                };
            made.push(claim);
        }
        self.generation += 1;
        Ok(made)
    }

    /// Releases `caller`'s claims on `ids` of the document at `path` (all of its claims there
    /// when `ids` is `None`); answers the ids released. A node another session holds is
    /// refused, naming the holder.
    pub fn release(
        &mut self,
        caller: &Caller,
        path: &Path,
        ids: Option<&[String]>,
        now: Instant,
    ) -> Result<Vec<String>, ToolError> {
        self.expire(now);
        if let Some(ids) = ids
            && let Some(other) =
                self.list.iter().find(|c| c.path == path && c.holder.session != caller.session && ids.contains(&c.id))
        {
            return Err(held_by_another(other, Relation::Same, now, "only its holder can release it").with_hint(
                format!("only its holder releases a claim; it ends by itself at {}", utc(other.until_wall)),
            ));
        }
        let mut released = Vec::new();
        self.list.retain(|claim| {
            let mine = claim.path == path
                && claim.holder.session == caller.session
                && ids.is_none_or(|ids| ids.contains(&claim.id));
            if mine {
                released.push(claim.id.clone());
            }
            !mine
        });
        if !released.is_empty() {
            self.generation += 1;
        }
        Ok(released)
    }

    /// Releases every claim of `session` (it ended); answers how many there were.
    pub fn release_session(&mut self, session: &str) -> usize {
        let before = self.list.len();
        self.list.retain(|claim| claim.holder.session != session);
        let released = before - self.list.len();
        if released > 0 {
            self.generation += 1;
        }
        released
    }

    /// When the last claim of `session` ends, if it holds any.
    pub fn held_until(&mut self, session: &str, now: Instant) -> Option<Instant> {
        self.expire(now);
        self.list.iter().filter(|c| c.holder.session == session).map(|c| c.until).max()
    }

    /// The claims of other sessions than `caller`'s on the document at `path`, found in
    /// `document` as it is now: what a change `caller` makes must stay out of.
    pub fn fence(&mut self, caller: &Caller, path: &Path, document: &Document, now: Instant) -> Fence {
        self.expire(now);
        let tree = document.tree();
        let mut fence = Fence::default();
        for claim in self.list.iter().filter(|c| c.path == path && c.holder.session != caller.session) {
            let Some(key) = document.node_by_id(&claim.id) else { continue };
            let index = fence.claims.len();
            fence.claimed.insert(key, index);
            for above in std::iter::successors(Some(key), |k| tree.node(*k).parent()) {
                fence.holding.entry(above).or_insert(index);
            }
            fence.claims.push(claim.clone());
        }
        fence
    }
}

/// How a node a refusal names stands to a claim.
enum Relation<'a> {
    /// It is the claimed node.
    Same,
    /// It lies inside the claimed subtree.
    Inside(&'a str),
    /// It holds the claimed node.
    Holds(&'a str),
    /// It was linked into the claimed subtree or taken out of it.
    Across(&'a str),
}

/// The refusal of what `relation` says because `claim` holds it: `refused` ends the sentence.
fn held_by_another(claim: &Claim, relation: Relation<'_>, now: Instant, refused: &str) -> ToolError {
    let (label, holder) = (claim.node_label(), claim.holder.name());
    let subject = match relation {
        Relation::Same => format!("{label} is claimed by {holder}"),
        Relation::Inside(id) => format!("'{id}' is inside {label}, which {holder} has claimed"),
        Relation::Holds(id) => format!("'{id}' holds {label}, which {holder} has claimed"),
        Relation::Across(id) => {
            format!("'{id}' would be placed into or taken out of {label}, which {holder} has claimed")
        }
    };
    ToolError::new(format!("{subject} until {} ({}); {refused}", utc(claim.until_wall), ends_in(claim, now)))
        .with_hint(format!(
            "work on other nodes (get_editor_state lists the claims), wait until the claim ends, or ask {holder} to release it"
        ))
}

/// `in 4 min 10 s`.
fn ends_in(claim: &Claim, now: Instant) -> String {
    format!("in {}", span(claim.until.saturating_duration_since(now)))
}

/// Other sessions' claims on one document, found in the document a call works on: a change
/// must not reach into them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fence {
    claims: Vec<Claim>,
    /// Each claimed node → its claim.
    claimed: HashMap<NodeKey, usize>,
    /// Each claimed node and every node above it → a claim below it.
    holding: HashMap<NodeKey, usize>,
}

impl Fence {
    /// True when no other session holds a claim in the document.
    pub fn is_empty(&self) -> bool {
        self.claims.is_empty()
    }

    /// The refusal of a change made of `touches` to `document` (as it is after the change), when
    /// one of them reaches into a claim: the node it touched, the claim, its holder and end.
    pub fn refusal(&self, document: &Document, touches: &[Touch]) -> Option<ToolError> {
        if self.is_empty() {
            return None;
        }
        let tree = document.tree();
        let inside = |key: NodeKey| {
            std::iter::successors(Some(key), |k| tree.node(*k).parent()).find_map(|k| self.claimed.get(&k).copied())
        };
        let now = Instant::now();
        for touch in touches {
            let (index, relation) = match *touch {
                Touch::Set(node) => match inside(node) {
                    Some(index) if self.claimed.get(&node) == Some(&index) => (index, Relation::Same),
                    Some(index) => (index, Relation::Inside(tree.node(node).id())),
                    None => continue,
                },
                Touch::Placed { node, parent } => match self.holding.get(&node) {
                    Some(&index) if self.claimed.get(&node) == Some(&index) => (index, Relation::Same),
                    Some(&index) => (index, Relation::Holds(tree.node(node).id())),
                    None => match parent.and_then(&inside) {
                        Some(index) => (index, Relation::Across(tree.node(node).id())),
                        None => continue,
                    },
                },
                Touch::Header => continue,
            };
            return Some(held_by_another(&self.claims[index], relation, now, "this change was refused"));
        }
        None
    }
}

/// A wall-clock time as UTC in RFC 3339: `2026-12-06T14:32:05Z`.
pub(crate) fn utc(time: SystemTime) -> String {
    let seconds = time.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3_600, rest % 3_600 / 60, rest % 60)
}

/// A duration as a person says it: `4 min 10 s`, `35 s`, `0.4 s`.
pub(crate) fn span(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0 => format!("{:.1} s", duration.as_secs_f64()),
        1..60 => format!("{seconds} s"),
        _ if seconds % 60 == 0 => format!("{} min", seconds / 60),
        _ => format!("{} min {} s", seconds / 60, seconds % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"{"version": "2.6", "children": [
      {"type": "frame", "id": "page", "children": [
        {"type": "frame", "id": "hero", "name": "Hero", "children": [{"type": "text", "id": "title"}]},
        {"type": "frame", "id": "footer"}
      ]},
      {"type": "frame", "id": "other"}
    ]}"#;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn utc_times_and_spans_read_as_people_write_them() {
        assert_eq!(utc(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(utc(SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_567_525)), "2026-12-06T14:32:05Z");
        assert_eq!(utc(SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(span(Duration::from_secs(250)), "4 min 10 s");
        assert_eq!(span(Duration::from_secs(600)), "10 min");
        assert_eq!(span(Duration::from_millis(400)), "0.4 s");
    }

    #[test]
    fn a_claim_keeps_others_out_of_its_subtree_and_lets_its_holder_renew_it() {
        let document = Document::load(TEXT).unwrap().document;
        let path = Path::new("/d.pen");
        let (a, b) = (Caller::new("a", "agent-a", "nib serve"), Caller::new("b", "agent-b", "nib serve"));
        let mut claims = Claims::default();
        let now = Instant::now();
        claims.claim(&a, path, &document, &ids(&["hero"]), Duration::from_secs(60), now).unwrap();
        for (node, why) in [("title", "inside"), ("page", "around"), ("hero", "the same")] {
            let refused = claims.claim(&b, path, &document, &ids(&[node]), DEFAULT_CLAIM, now).unwrap_err();
            assert!(refused.message.contains("agent-a") && refused.message.contains("until"), "{why}: {refused}");
        }
        claims.claim(&b, path, &document, &ids(&["footer", "other"]), DEFAULT_CLAIM, now).unwrap();
        let renewed = claims.claim(&a, path, &document, &ids(&["hero"]), Duration::from_secs(120), now).unwrap();
        assert_eq!(renewed[0].until, now + Duration::from_secs(120));
        assert_eq!(claims.all(now).len(), 3, "renewed, not doubled");
        assert!(claims.release(&b, path, Some(&ids(&["hero"])), now).is_err(), "not b's to release");
        assert_eq!(claims.release(&a, path, None, now).unwrap(), ["hero"]);
        assert_eq!(claims.release_session("b"), 2);
        assert!(claims.all(now).is_empty());
    }

    #[test]
    fn claims_end_with_their_time_and_missing_nodes_are_refused() {
        let document = Document::load(TEXT).unwrap().document;
        let path = Path::new("/d.pen");
        let a = Caller::new("a", "agent-a", "nib serve");
        let mut claims = Claims::default();
        let now = Instant::now();
        claims.claim(&a, path, &document, &ids(&["hero"]), Duration::from_secs(1), now).unwrap();
        assert_eq!(claims.held_until("a", now), Some(now + Duration::from_secs(1)));
        assert!(claims.all(now + Duration::from_secs(2)).is_empty());
        let refused = claims.claim(&a, path, &document, &ids(&["card/title"]), DEFAULT_CLAIM, now).unwrap_err();
        assert!(refused.hint.unwrap().contains("instance"));
        let many: Vec<String> = (0..=MAX_CLAIMS_PER_SESSION).map(|_| "hero".to_owned()).collect();
        assert!(
            claims.claim(&a, path, &document, &many, DEFAULT_CLAIM, now).is_ok(),
            "one node asked often is one claim"
        );
    }

    #[test]
    fn a_fence_refuses_changes_inside_around_and_into_a_claim() {
        let mut document = Document::load(TEXT).unwrap().document;
        let path = Path::new("/d.pen");
        let (a, b) = (Caller::new("a", "agent-a", "nib serve"), Caller::new("b", "agent-b", "nib serve"));
        let mut claims = Claims::default();
        let now = Instant::now();
        claims.claim(&a, path, &document, &ids(&["hero"]), DEFAULT_CLAIM, now).unwrap();
        assert!(claims.fence(&a, path, &document, now).is_empty(), "the holder is not fenced");
        let fence = claims.fence(&b, path, &document, now);
        let key = |document: &Document, id: &str| document.node_by_id(id).unwrap();
        let (title, hero, page, footer) =
            (key(&document, "title"), key(&document, "hero"), key(&document, "page"), key(&document, "footer"));
        let refused = |touches: &[Touch]| fence.refusal(&document, touches).map(|e| e.message);
        assert!(
            refused(&[Touch::Set(title)])
                .is_some_and(|m| m.contains("'title' is inside 'Hero' (hero), which agent-a has claimed until"))
        );
        assert!(refused(&[Touch::Set(hero)]).is_some());
        assert!(refused(&[Touch::Placed { node: page, parent: None }]).is_some(), "removing what holds it");
        assert!(refused(&[Touch::Placed { node: footer, parent: Some(hero) }]).is_some(), "moving into it");
        assert!(refused(&[Touch::Set(page), Touch::Set(footer), Touch::Header]).is_none(), "around it is free");
        // The fence is found again in a document read anew (keys differ, ids do not).
        document = Document::load(TEXT).unwrap().document;
        let fence = claims.fence(&b, path, &document, now);
        assert!(fence.refusal(&document, &[Touch::Set(document.node_by_id("title").unwrap())]).is_some());
    }
}
