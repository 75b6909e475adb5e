//! What a batch_design call answers: Pencil's text (agents and skills are written against its
//! shape) and the same facts as a structured value.

use std::fmt::Write;

use serde::Serialize;

use super::validate::Invalid;
use crate::diagnostic::Diagnostic;

/// The result of one batch_design call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// True when every statement ran and the changes were committed.
    pub success: bool,
    /// What each statement did, in order (empty on failure: everything was rolled back).
    pub results: Vec<OpResult>,
    /// The node each binding named, in the order they were created.
    pub bindings: Vec<Binding>,
    /// Potential problems in the result, worded as Pencil words them (the layout problems the
    /// call added are those of code [`LAYOUT_CODE`]).
    pub issues: Vec<Diagnostic>,
    /// The document's revision after the call.
    pub revision: u64,
    /// Why the call failed, when it did.
    pub failure: Option<Failure>,
    /// Image files G() wrote in this call that were not there before. A failed call has
    /// removed them already; a caller that does not keep a successful change (its save failed)
    /// removes them with [`Outcome::discard_created_files`].
    #[serde(skip)]
    pub created_files: Vec<std::path::PathBuf>,
}

/// A binding and the path of the node it named.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Binding {
    /// The binding's name.
    pub name: String,
    /// The node id, or `instance/id` for a node inside an instance.
    pub id: String,
}

/// What one statement did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum OpResult {
    /// I(): a node was inserted.
    Inserted {
        /// Its id (or instance path).
        id: String,
        /// Its saved form, compact, two levels of children.
        node: String,
    },
    /// C(): a node was copied.
    Copied {
        /// The copy's id.
        id: String,
        /// Its saved form.
        node: String,
    },
    /// R(): a node was replaced.
    Replaced {
        /// The replaced node's id.
        old: String,
        /// The new node's id.
        new: String,
        /// The new node's saved form.
        node: String,
    },
    /// M(): a node was moved.
    Moved {
        /// Its id.
        id: String,
        /// The new parent's id, or "document".
        parent: String,
    },
    /// D(): a node was deleted.
    Deleted {
        /// Its id.
        id: String,
    },
    /// D() of a node that does not exist: nothing to do (not an error, as in Pen).
    AlreadyAbsent {
        /// The path given.
        id: String,
    },
    /// U(): properties were updated.
    Updated {
        /// The node's id or instance path.
        id: String,
    },
    /// G(): an image fill was added.
    ImageAdded {
        /// The node's id or instance path.
        id: String,
        /// The prompt.
        prompt: String,
        /// The image's path relative to the document.
        url: String,
        /// A remark from the image provider.
        note: Option<String>,
    },
}

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// 0-based index of the failing statement, when one failed (not for syntax errors).
    pub statement: Option<usize>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// The operation as Pencil shows it: `{"callee":"U","arguments":[...]}`.
    pub call: Option<String>,
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// Each invalid property, when that is why.
    pub invalid: Vec<InvalidProperty>,
}

/// An invalid property in a failure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvalidProperty {
    /// JSON pointer inside the argument.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
    /// What to write instead.
    pub hint: Option<String>,
}

impl From<Invalid> for InvalidProperty {
    fn from(invalid: Invalid) -> Self {
        InvalidProperty { pointer: invalid.pointer, message: invalid.message, hint: invalid.hint }
    }
}

impl Outcome {
    /// Removes the image files this call created: the change they were for is not kept.
    pub fn discard_created_files(&mut self) {
        for path in self.created_files.drain(..) {
            crate::files::remove_unwanted(&path);
        }
    }

    /// The answer text in Pencil's shape.
    pub fn text(&self) -> String {
        match &self.failure {
            Some(failure) => failure_text(failure),
            None => success_text(self),
        }
    }
}

fn success_text(outcome: &Outcome) -> String {
    let mut text = String::from("# Successfully executed all operations.\n\n## Operation results:\n");
    for result in &outcome.results {
        let _ = match result {
            OpResult::Inserted { id, node } => writeln!(text, "- Inserted node `{id}`: `{node}`"),
            OpResult::Copied { id, node } => writeln!(text, "- Copied node `{id}`: `{node}`"),
            OpResult::Replaced { old, new, node } => {
                writeln!(text, "- Replaced node `{old}` with `{new}`, replaced node data: `{node}`")
            }
            OpResult::Moved { id, parent } => writeln!(text, "- Moved node `{id}` under `{parent}`"),
            OpResult::Deleted { id } => writeln!(text, "- Deleted node `{id}`"),
            OpResult::AlreadyAbsent { id } => writeln!(text, "- Node `{id}` does not exist; nothing was deleted"),
            OpResult::Updated { id } => writeln!(text, "- Updated properties of node `{id}`"),
            OpResult::ImageAdded { id, prompt, note, .. } => {
                let _ = writeln!(text, "- Added image to node `{id}` with prompt: `{prompt}`");
                match note {
                    Some(note) => writeln!(text, "  ({note})"),
                    None => Ok(()),
                }
            }
        };
    }
    if !outcome.bindings.is_empty() {
        let names: Vec<String> = outcome.bindings.iter().map(|b| format!("`{}`", b.name)).collect();
        let _ = write!(text, "\n## The following bindings are NO LONGER AVAILABLE to use:\n{}\n", names.join(", "));
    }
    // Pencil's own section holds the issues in its words, as Pencil frames them; the layout
    // problems a call added are nib's and follow in a section of their own, framed in a line,
    // so that an answer grows by little more than what it reports.
    let (layout, pencils): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
        outcome.issues.iter().partition(|issue| is_layout_problem(issue));
    if !pencils.is_empty() {
        text.push_str("\n## Potential issues detected:\n");
        for issue in pencils {
            let _ = writeln!(text, "- {}", issue.message);
        }
        text.push_str("\n\nReview these potential issues and attempt to resolve them in subsequent calls.\n");
    }
    if !layout.is_empty() {
        text.push_str(LAYOUT_HEADER);
        for problem in layout {
            let _ = writeln!(text, "- {}", layout_line(problem));
        }
    }
    text
}

/// How the code of a layout problem a call added starts, in [`Outcome::issues`] and execute's
/// `issues`: `layout-` and its kind as snapshot_layout names it (`layout-circular-sizing`);
/// `layout-more` counts the ones not listed.
pub const LAYOUT_CODE_PREFIX: &str = "layout-";

/// True for a layout problem the call added (said in a section of its own).
pub fn is_layout_problem(issue: &Diagnostic) -> bool {
    issue.code.starts_with(LAYOUT_CODE_PREFIX)
}

/// A layout problem as a line of the answer's section: its kind as snapshot_layout spells it,
/// then its message (`circular_sizing: …`); the count of the others as it is.
pub fn layout_line(problem: &Diagnostic) -> String {
    match problem.code.strip_prefix(LAYOUT_CODE_PREFIX) {
        Some("more") | None => problem.message.clone(),
        Some(kind) => format!("{}: {}", kind.replace('-', "_"), problem.message),
    }
}

/// The heading of the answer's section of layout problems the call added (`- overflow: …`).
pub const LAYOUT_HEADER: &str = "\n## New layout problems:\n";

fn failure_text(failure: &Failure) -> String {
    let mut text = String::from("## Failure during operation execution\n\n");
    match &failure.call {
        Some(call) => {
            let _ = write!(text, "Failed to execute the operation: `{call}`: Error: {}", failure.message);
        }
        None => {
            let _ = write!(text, "Failed to parse the operations: Error: {}", failure.message);
        }
    }
    for invalid in &failure.invalid {
        let _ = write!(text, "\n - {} {}", display_pointer(&invalid.pointer), invalid.message);
        if let Some(hint) = &invalid.hint {
            let _ = write!(text, " ({hint})");
        }
    }
    let place = match failure.statement {
        Some(index) => format!("statement {} (line {}, column {})", index + 1, failure.line, failure.column),
        None => format!("line {}, column {}", failure.line, failure.column),
    };
    let _ = write!(text, "\n\nAt {place}.");
    if let Some(hint) = &failure.hint {
        let _ = write!(text, " Hint: {hint}");
    }
    text.push_str(
        "\n\nAll operations in this block have been rolled back. Fix the issue and run `batch_design` again.\n",
    );
    text
}

fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_text_has_pencils_sections() {
        let outcome = Outcome {
            success: true,
            results: vec![
                OpResult::Inserted { id: "k8eKw".into(), node: "{\"type\":\"frame\",\"id\":\"k8eKw\"}".into() },
                OpResult::Updated { id: "k8eKw".into() },
            ],
            bindings: vec![Binding { name: "colorFrame".into(), id: "k8eKw".into() }],
            issues: vec![Diagnostic::warning("fit-without-layout", "Node 'k8eKw' has 'fit_content' sizing but does not have flexbox layout enabled. Set 'layout' property to enable layout.").at_node("k8eKw")],
            revision: 1,
            failure: None,
            created_files: Vec::new(),
        };
        let text = outcome.text();
        assert!(text.starts_with("# Successfully executed all operations.\n\n## Operation results:\n- Inserted node `k8eKw`: `{\"type\":\"frame\",\"id\":\"k8eKw\"}`\n- Updated properties of node `k8eKw`\n"));
        assert!(text.contains("## The following bindings are NO LONGER AVAILABLE to use:\n`colorFrame`\n"));
        assert!(text.contains("## Potential issues detected:\n- Node 'k8eKw' has 'fit_content'"));
        assert!(text.ends_with("\n\nReview these potential issues and attempt to resolve them in subsequent calls.\n"));
    }

    #[test]
    fn failure_text_names_the_operation_and_the_rollback() {
        let failure = Failure {
            statement: Some(2),
            line: 3,
            column: 1,
            call: Some("{\"callee\":\"U\",\"arguments\":[\"ats0g/JND89\",{}]}".into()),
            message: "Node 'ats0g/JND89' not found!".into(),
            hint: Some("ids inside `ats0g`: a, b".into()),
            invalid: Vec::new(),
        };
        let outcome = Outcome {
            success: false,
            results: vec![],
            bindings: vec![],
            issues: vec![],
            revision: 0,
            failure: Some(failure),
            created_files: Vec::new(),
        };
        let text = outcome.text();
        assert!(text.starts_with("## Failure during operation execution\n\nFailed to execute the operation: `{\"callee\":\"U\",\"arguments\":[\"ats0g/JND89\",{}]}`: Error: Node 'ats0g/JND89' not found!"));
        assert!(text.contains("At statement 3 (line 3, column 1). Hint: ids inside `ats0g`: a, b"));
        assert!(text.ends_with(
            "All operations in this block have been rolled back. Fix the issue and run `batch_design` again.\n"
        ));
    }
}
