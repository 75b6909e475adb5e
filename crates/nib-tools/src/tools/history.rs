//! undo and redo over a document's transaction log: the only tools beyond Pencil's, because an
//! agent that made a wrong edit should be able to take it back without rewriting it by hand.
//! Each batch_design, set_variables or replace call is one step; the step is saved like any
//! other change.

use serde::Serialize;

use super::ToolError;
use super::variables::FileArgs;
use super::workspace::{Step, Workspace};
use crate::doc::Document;

/// What undo and redo answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stepped {
    /// The document.
    pub file_path: String,
    /// Its revision after the step.
    pub revision: u64,
    /// Whether another undo is possible.
    pub can_undo: bool,
    /// Whether a redo is possible.
    pub can_redo: bool,
    /// What undo took back, in a sentence (`inserted 3 nodes (a, b, c); changed fill on 1 node (d)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undid: Option<String>,
    /// What redo made again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redid: Option<String>,
    /// Which document was used, when no filePath was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The file's revision after the step (what `ifRevision` quotes).
    pub file_revision: String,
    /// The layout problems the step brought (back), as batch_design and execute say them
    /// (code `layout-circular-sizing` and so on; at most 10, then a count).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<crate::diagnostic::Diagnostic>,
}

/// Takes back the last change to the document and saves it.
pub fn undo(workspace: &mut Workspace, args: FileArgs) -> Result<Stepped, ToolError> {
    step(workspace, args, Direction::Back)
}

/// Makes the last undone change again and saves it.
pub fn redo(workspace: &mut Workspace, args: FileArgs) -> Result<Stepped, ToolError> {
    step(workspace, args, Direction::Forward)
}

#[derive(Clone, Copy)]
enum Direction {
    Back,
    Forward,
}

fn step(workspace: &mut Workspace, args: FileArgs, direction: Direction) -> Result<Stepped, ToolError> {
    let (open, note) = workspace.document(args.file_path.as_deref())?;
    type Move = fn(&mut Document) -> bool;
    let (stepped, opposite, word): (Move, Move, &str) = match direction {
        Direction::Back => (Document::undo, Document::redo, "undo"),
        Direction::Forward => (Document::redo, Document::undo, "redo"),
    };
    let what = open.document.describe_step(matches!(direction, Direction::Forward));
    let problems_before = open.known_problems();
    if !stepped(&mut open.document) {
        let hint = match direction {
            Direction::Back => {
                "undo history starts when nib opens or reloads a file; changes made before that cannot be undone here"
            }
            Direction::Forward => "redo is possible only right after an undo, before any new change",
        };
        // Another writer's change is a boundary: undo never takes it back, and says so.
        let message = match (&open.outside_change, direction) {
            (Some(change), Direction::Back) => format!(
                "there is nothing to undo in {}: undo stops where another writer changed the file ({change}), and never takes back someone else's change",
                open.path.display()
            ),
            _ => format!("there is nothing to {word} in {}", open.path.display()),
        };
        return Err(ToolError::new(message).with_hint(hint));
    }
    let (reverted, last, said) = match direction {
        Direction::Back => ("not undone", crate::doc::LastStep::Undone, "undo"),
        Direction::Forward => ("not redone", crate::doc::LastStep::Made, "redo"),
    };
    open.save_or_revert(Step { revert: opposite, again: stepped, reverted, last })?;
    if let Some(written) = open.written.last_mut() {
        written.step = Some(said);
    }
    let introduced = open.problems_since(problems_before.as_deref());
    let issues = super::introduced::said(&introduced, &[]);
    Ok(Stepped {
        file_path: open.path.display().to_string(),
        revision: open.document.revision(),
        can_undo: open.document.can_undo(),
        can_redo: open.document.can_redo(),
        undid: what.clone().filter(|_| matches!(direction, Direction::Back)),
        redid: what.filter(|_| matches!(direction, Direction::Forward)),
        note,
        file_revision: open.file_revision().to_string(),
        issues,
    })
}
