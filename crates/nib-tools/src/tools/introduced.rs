//! What a write broke: the layout problems a document has after a batch_design or execute call
//! and did not have before it, said in that call's answer (a call that made circular
//! sizing answered success, and only snapshot_layout told).
//!
//! A document's problems are taken whole (the same finder snapshot_layout uses, every problem
//! built) and kept with the revision they belong to, so the next call's "before" is the last
//! call's "after" and costs nothing. A problem is known by its kind, node and words: one that
//! an earlier call made and this one left as it was is not said again; one whose numbers
//! changed (an overflow that grew) is.

use std::collections::HashSet;
use std::sync::Arc;

use super::workspace::OpenDocument;
use crate::compile::Compiler;
use crate::diagnostic::Diagnostic;
use crate::doc::Document;
use crate::host::image_files::missing_images;
use crate::layout::{LayoutProblem, ProblemKind, UnreadableImage, every_problem};

/// Most new layout problems one answer lists; the others are counted in a last line.
pub const MAX_SAID_PROBLEMS: usize = 10;

/// The layout problems of one revision of a document, by what identifies them.
#[derive(Debug)]
pub struct KnownProblems {
    revision: u64,
    keys: HashSet<(ProblemKind, String, String)>,
    /// The problems themselves, in document order.
    problems: Vec<LayoutProblem>,
}

impl KnownProblems {
    fn of(revision: u64, problems: Vec<LayoutProblem>) -> KnownProblems {
        let keys = problems.iter().map(key).collect();
        KnownProblems { revision, keys, problems }
    }
}

/// What identifies a problem between two states: its kind, its node and its words, less the
/// layer names in them (renaming a node does not make its problems new: `'Card' (c1)` is read
/// as `(c1)`) and less the count of uses a variable's problem ends with (one more use of a
/// variable already undefined is not a new problem; batch_design's own check names the write).
fn key(problem: &LayoutProblem) -> (ProblemKind, String, String) {
    let message = match problem.message.rfind(" (") {
        Some(at) if problem.message.ends_with(" uses)") => &problem.message[..at],
        _ => &problem.message,
    };
    (problem.kind, problem.node.clone(), without_names(message))
}

/// `message` with each `'Name' (id)` written `(id)`.
fn without_names(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(end) = rest.find("' (") {
        match rest[..end].rfind('\'') {
            Some(start) => {
                out.push_str(&rest[..start]);
                rest = &rest[end + 2..];
            }
            None => {
                out.push_str(&rest[..end + 3]);
                rest = &rest[end + 3..];
            }
        }
    }
    out.push_str(rest);
    out
}

impl KnownProblems {
    /// The layout problems of `document` as it is now, laid out by `compiler` (which reuses
    /// what it laid out before). `None` when the document cannot be laid out (past its
    /// budget), where nothing can be compared.
    pub fn take(compiler: &mut Compiler, document: &Document) -> Option<KnownProblems> {
        let (scene, layout) = compiler.layout(document).ok()?;
        let unreadable: Vec<UnreadableImage> = missing_images(&scene, scene.walk(), compiler.host())
            .map(|missing| UnreadableImage {
                node: missing.node,
                message: missing.to_string(),
                outside: missing.outside(),
            })
            .collect();
        let found = every_problem(&scene, &layout, &unreadable);
        Some(KnownProblems::of(document.revision(), found.shown))
    }

    /// The problems `after` has that these did not, in document order.
    pub fn added_in(&self, after: &KnownProblems) -> Vec<LayoutProblem> {
        if self.revision == after.revision {
            return Vec::new();
        }
        after.problems.iter().filter(|problem| !self.keys.contains(&key(problem))).cloned().collect()
    }
}

impl OpenDocument {
    /// The layout problems of the document as it is now: kept from the last time they were
    /// taken when the document has not changed since, else taken (see [`KnownProblems::take`]).
    pub(crate) fn known_problems(&mut self) -> Option<Arc<KnownProblems>> {
        let revision = self.document.revision();
        if let Some(known) = self.known_problems.as_ref().filter(|known| known.revision == revision) {
            return Some(Arc::clone(known));
        }
        let known = Arc::new(KnownProblems::take(&mut self.compiler, &self.document)?);
        self.known_problems = Some(Arc::clone(&known));
        Some(known)
    }

    /// The layout problems the document has now that it did not have in `before` (none when
    /// either state could not be laid out).
    pub(crate) fn problems_since(&mut self, before: Option<&KnownProblems>) -> Vec<LayoutProblem> {
        let Some(before) = before else { return Vec::new() };
        if before.revision == self.document.revision() {
            return Vec::new();
        }
        self.known_problems().map(|after| before.added_in(&after)).unwrap_or_default()
    }
}

/// The new layout problems as an answer's issues, at most [`MAX_SAID_PROBLEMS`] and a count of
/// the rest, each a warning about its node (code `layout-` and its kind). A problem the
/// answer's own issues already name (the same node and kind, or an undefined variable it
/// named) is left out.
pub fn said(problems: &[LayoutProblem], issues: &[Diagnostic]) -> Vec<Diagnostic> {
    let fresh: Vec<&LayoutProblem> = problems.iter().filter(|problem| !already_said(problem, issues)).collect();
    let mut said: Vec<Diagnostic> = fresh
        .iter()
        .take(MAX_SAID_PROBLEMS)
        .map(|problem| {
            let message = crate::printable::one_line(&problem.message);
            Diagnostic::warning(layout_code(problem.kind), message).at_node(problem.node.clone())
        })
        .collect();
    if fresh.len() > MAX_SAID_PROBLEMS {
        said.push(Diagnostic::note(
            "layout-more",
            format!(
                "… and {} more new layout problems (snapshot_layout with problemsOnly: true lists them all).",
                fresh.len() - MAX_SAID_PROBLEMS
            ),
        ));
    }
    said
}

/// True when the answer's own checks said this problem already: batch_design's check of the
/// same kind on the same node, or a variable it (or set_variables) named.
fn already_said(problem: &LayoutProblem, issues: &[Diagnostic]) -> bool {
    let names = |codes: &[&str]| {
        issues.iter().any(|issue| issue.node.as_deref() == Some(problem.node.as_str()) && codes.contains(&issue.code))
    };
    match problem.kind {
        ProblemKind::CircularSizing => names(&["circular-sizing"]),
        ProblemKind::FillOutsideFlex => names(&["fill-outside-layout"]),
        ProblemKind::FitContentWithoutContent => names(&["fit-without-children", "fit-without-layout"]),
        ProblemKind::MissingIcon => names(&["icon-missing"]),
        ProblemKind::FontFallback => names(&["font-invalid", "font-substituted"]),
        ProblemKind::Unresolved => issues.iter().any(|issue| {
            // batch_design's check (`Variable '$--x' on node …`) or set_variables' warning of a
            // variable its `replace` removed (`… removed the variable --x, still used …`).
            let named = match issue.code {
                "undefined-variable" => {
                    issue.message.strip_prefix("Variable '$").and_then(|rest| rest.split('\'').next())
                }
                "variable-removed" => {
                    issue.message.split_once("removed the variable ").and_then(|(_, rest)| rest.split(',').next())
                }
                _ => None,
            };
            named.is_some_and(|name| problem.message.starts_with(&format!("variable '{name}'")))
        }),
        _ => false,
    }
}

/// The code of a layout problem a call added: `layout-` and its kind as snapshot_layout
/// names it (`circular_sizing` is `layout-circular-sizing`).
fn layout_code(kind: ProblemKind) -> &'static str {
    match kind {
        ProblemKind::Overflow => "layout-overflow",
        ProblemKind::Clipped => "layout-clipped",
        ProblemKind::Overlap => "layout-overlap",
        ProblemKind::ZeroSize => "layout-zero-size",
        ProblemKind::TextOverflow => "layout-text-overflow",
        ProblemKind::FillOutsideFlex => "layout-fill-outside-flex",
        ProblemKind::FitContentWithoutContent => "layout-fit-content-without-content",
        ProblemKind::CircularSizing => "layout-circular-sizing",
        ProblemKind::FontFallback => "layout-font-fallback",
        ProblemKind::Unresolved => "layout-unresolved",
        ProblemKind::MissingImage => "layout-missing-image",
        ProblemKind::MissingIcon => "layout-missing-icon",
        ProblemKind::Placeholder => "layout-placeholder",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(kind: ProblemKind, node: &str, message: &str) -> LayoutProblem {
        LayoutProblem { node: node.into(), kind, message: message.into() }
    }

    #[test]
    fn a_variable_used_once_more_is_the_same_problem() {
        let one = problem(ProblemKind::Unresolved, "row", "variable '--x' is not defined");
        let two = problem(ProblemKind::Unresolved, "row", "variable '--x' is not defined (2 uses)");
        assert_eq!(key(&one), key(&two));
        let grew = problem(ProblemKind::Overflow, "c", "'c' overflows its parent 'p' by 4 px right (a b)");
        assert_eq!(key(&grew).2, grew.message);
        let named = problem(ProblemKind::Overflow, "c1", "'Card' (c1) overflows its parent 'Row' (r1) by 4 px");
        assert_eq!(key(&named).2, "(c1) overflows its parent (r1) by 4 px");
    }

    #[test]
    fn what_batch_design_said_in_its_words_is_not_said_twice() {
        let issues = vec![
            Diagnostic::warning("circular-sizing", "Circular layout sizing detected on node 'f1': the node has 'fit_content' sizing but all children have 'fill_container' sizing on the horizontal axis.").at_node("f1"),
            Diagnostic::warning("undefined-variable", "Variable '$--radius-xl' on node 'row' ('cornerRadius') is not defined, so it is not applied.").at_node("row"),
        ];
        let problems = [
            problem(ProblemKind::CircularSizing, "f1", "'f1' hugs its children's width"),
            problem(ProblemKind::Unresolved, "row", "variable '--radius-xl' is not defined"),
            problem(
                ProblemKind::Overflow,
                "c1",
                "'c1' overflows its parent 'f1' by 3 px right: make the parent larger",
            ),
            problem(ProblemKind::CircularSizing, "f2", "'f2' hugs its children's height"),
        ];
        let said = said(&problems, &issues);
        let lines: Vec<String> = said.iter().map(crate::script::layout_line).collect();
        assert_eq!(
            lines,
            [
                "overflow: 'c1' overflows its parent 'f1' by 3 px right: make the parent larger",
                "circular_sizing: 'f2' hugs its children's height",
            ]
        );
        let nodes: Vec<Option<&str>> = said.iter().map(|d| d.node.as_deref()).collect();
        assert_eq!(nodes, [Some("c1"), Some("f2")], "each new problem names its node");
        assert!(said.iter().all(|d| d.severity == crate::diagnostic::Severity::Warning));
    }

    #[test]
    fn many_new_problems_are_counted() {
        let problems: Vec<LayoutProblem> =
            (0..13).map(|i| problem(ProblemKind::ZeroSize, &format!("n{i}"), "has no width")).collect();
        let lines = said(&problems, &[]);
        assert_eq!(lines.len(), MAX_SAID_PROBLEMS + 1);
        assert_eq!(lines[MAX_SAID_PROBLEMS].code, "layout-more");
        assert!(lines[MAX_SAID_PROBLEMS].message.starts_with("… and 3 more new layout problems"));
    }

    #[test]
    fn a_layout_code_is_the_kind_snapshot_layout_names() {
        use ProblemKind::*;
        let kinds = [
            Overflow,
            Clipped,
            Overlap,
            ZeroSize,
            TextOverflow,
            FillOutsideFlex,
            FitContentWithoutContent,
            CircularSizing,
            FontFallback,
            Unresolved,
            MissingImage,
            MissingIcon,
            Placeholder,
        ];
        for kind in kinds {
            let spelled = serde_json::to_value(kind).unwrap().as_str().unwrap().replace('_', "-");
            assert_eq!(layout_code(kind), format!("layout-{spelled}"));
        }
    }
}
