//! The snippets a workspace ran, by `editId`, so a failed one can be retried by patching it:
//! an agent sends a few find/replace pairs instead of the whole snippet again.

use std::collections::VecDeque;

use serde::Deserialize;

use crate::tools::ToolError;

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
