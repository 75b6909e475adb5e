//! What execute keeps between calls and the bounds of one call: the snippets a workspace ran,
//! by `editId`, so a failed one can be retried by patching it (an agent sends a few
//! find/replace pairs instead of the whole snippet again), and the limits of a call. The
//! workspace carries both and execute reads them; they live here, apart from the tool, so that
//! the workspace imports no tool.

use std::collections::VecDeque;
use std::time::Duration;

use serde::Deserialize;

use crate::tools::ToolError;

/// The most wall time one call may take, the operations it asks for included. Pen allows 55 s;
/// nib stops a call at 10 s because the call holds the workspace, which `nib serve` shares
/// between sessions: another agent's call waits for it. Measured: a 500-node page built,
/// pictured and walked in one call takes 0.2–0.4 s, the most writes a call may make 2.2 s
/// (DECISIONS.md, execute).
pub const CALL_LIMIT: Duration = Duration::from_secs(10);

/// The most writes (Insert, Copy, Update, Replace, Move, Delete, Generate, SetVariables) one
/// call may make: twenty batch_design calls' worth. A loop past it is a loop that lost its
/// way, or work to split over calls (each call is its own undo step).
pub const MAX_CALL_WRITES: usize = 10_000;

/// The most nodes one call may add to the document (one Insert may hold many): a sixth of the
/// most a document may hold, more than the largest real documents hold in all.
pub const MAX_CALL_NODES: usize = 50_000;

/// The most files one call's Exports may write: every top-level frame of the largest real
/// documents, several times.
pub const MAX_CALL_EXPORTED_FILES: usize = 500;

/// The bounds of one execute call; a workspace carries them so a test can make them small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecuteLimits {
    /// The wall time of the whole call.
    pub call: Duration,
    /// Writes one call may make.
    pub writes: usize,
    /// Nodes one call may add.
    pub nodes: usize,
    /// Files one call's Exports may write.
    pub exported_files: usize,
}

impl ExecuteLimits {
    /// The limits every server and `nib exec` use.
    pub const DEFAULT: ExecuteLimits = ExecuteLimits {
        call: CALL_LIMIT,
        writes: MAX_CALL_WRITES,
        nodes: MAX_CALL_NODES,
        exported_files: MAX_CALL_EXPORTED_FILES,
    };
}

impl Default for ExecuteLimits {
    fn default() -> ExecuteLimits {
        ExecuteLimits::DEFAULT
    }
}

/// How many snippets are kept for retries; older ones are forgotten.
pub const KEPT_SNIPPETS: usize = 32;

/// The longest snippet a call takes (bytes): a design snippet is a few KB; more is a snippet
/// that embeds data it should not.
pub const MAX_SNIPPET_BYTES: usize = 256 * 1024;

/// One find/replace patch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    /// Text that occurs exactly once in the snippet.
    pub find: String,
    /// What it becomes.
    pub replace: String,
}

/// Snippets by editId, the newest last.
#[derive(Debug, Default)]
pub(crate) struct Snippets {
    kept: VecDeque<(String, String)>,
    made: u64,
}

impl Snippets {
    /// The snippet a call runs — `input`, or the kept snippet `edit_id` with `edits` applied —
    /// kept under a new editId, which is answered with it.
    pub(crate) fn take_call(
        &mut self,
        input: Option<String>,
        edit_id: Option<&str>,
        edits: &[Patch],
    ) -> Result<(String, String), ToolError> {
        let snippet = match (input, edit_id) {
            (Some(_), Some(_)) => {
                return Err(ToolError::new("give input or editId with edits, not both")
                    .with_hint("a retry sends editId and edits: [{find, replace}] without input"));
            }
            (None, None) => {
                return Err(ToolError::new("execute needs input: the JavaScript snippet to run").with_hint(
                    "e.g. {\"input\": \"const card = Insert(document, {type: 'frame', width: 320}); return card;\"}",
                ));
            }
            (Some(input), None) if !edits.is_empty() => {
                let _ = input;
                return Err(ToolError::new("edits patch a snippet sent before: give its editId, not input"));
            }
            (Some(input), None) => input,
            (None, Some(id)) => self.patched(id, edits)?,
        };
        if snippet.len() > MAX_SNIPPET_BYTES {
            return Err(ToolError::new(format!(
                "the snippet is {} bytes; a call takes at most {MAX_SNIPPET_BYTES}",
                snippet.len()
            ))
            .with_hint("split the work over several calls, and loop over data instead of writing every node out"));
        }
        self.made += 1;
        let id = format!("e{}", self.made);
        self.kept.push_back((id.clone(), snippet.clone()));
        while self.kept.len() > KEPT_SNIPPETS {
            self.kept.pop_front();
        }
        Ok((id, snippet))
    }

    fn patched(&self, id: &str, edits: &[Patch]) -> Result<String, ToolError> {
        let Some((_, snippet)) = self.kept.iter().find(|(kept, _)| kept == id) else {
            let newest = self.kept.back().map_or(String::new(), |(id, _)| format!(" (the newest is {id})"));
            return Err(ToolError::new(format!("there is no snippet '{id}' to patch{newest}")).with_hint(format!(
                "the last {KEPT_SNIPPETS} snippets of this session are kept; send the whole snippet as input"
            )));
        };
        if edits.is_empty() {
            return Err(ToolError::new("editId was given without edits").with_hint(
                "send edits: [{\"find\": \"text in the snippet\", \"replace\": \"what it becomes\"}] to change it",
            ));
        }
        let mut snippet = snippet.clone();
        for (index, patch) in edits.iter().enumerate() {
            let found = if patch.find.is_empty() { 0 } else { snippet.matches(patch.find.as_str()).count() };
            match found {
                1 => snippet = snippet.replacen(patch.find.as_str(), &patch.replace, 1),
                0 => {
                    return Err(ToolError::new(format!(
                        "edits[{index}]: {:?} does not occur in snippet {id}",
                        patch.find
                    ))
                    .with_hint("find must be text copied exactly from the snippet, spaces included"));
                }
                many => {
                    return Err(ToolError::new(format!(
                        "edits[{index}]: {:?} occurs {many} times in snippet {id}",
                        patch.find
                    ))
                    .with_hint("make find longer, with text around it, so it occurs once"));
                }
            }
        }
        Ok(snippet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(find: &str, replace: &str) -> Patch {
        Patch { find: find.into(), replace: replace.into() }
    }

    #[test]
    fn a_kept_snippet_is_patched_once_per_find() {
        let mut snippets = Snippets::default();
        let (id, _) = snippets.take_call(Some("Insert('a', {x: 1}); Insert('b', {x: 1});".into()), None, &[]).unwrap();
        let (again, patched) = snippets.take_call(None, Some(&id), &[patch("'a'", "'c'")]).unwrap();
        assert_eq!(patched, "Insert('c', {x: 1}); Insert('b', {x: 1});");
        assert_ne!(again, id);
        let twice = snippets.take_call(None, Some(&id), &[patch("{x: 1}", "{}")]).unwrap_err();
        assert!(twice.message.contains("occurs 2 times"), "{twice}");
        let missing = snippets.take_call(None, Some(&id), &[patch("zzz", "")]).unwrap_err();
        assert!(missing.message.contains("does not occur"), "{missing}");
        assert!(snippets.take_call(None, Some("e99"), &[patch("a", "b")]).is_err());
    }
}
