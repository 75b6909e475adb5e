//! Diagnostics: what compiling a document found, in one shape every front end prints — the CLI
//! as lines on standard error, `nib check` split by severity, JSON reports as objects — instead
//! of each caller formatting its own strings.
//!
//! The type sits below `doc` so loading can say what it found with it (`Problem::diagnostic`);
//! finding a pointer's line and column is the format's work (`Diagnostic::locate`, in
//! `doc/locate.rs`).
//!
//! A diagnostic says how serious it is, a stable code a script can match, the node it concerns,
//! where in the file it is (a JSON pointer, located to a line and column when the text is at
//! hand), the message, and hints an agent can act on.

use std::fmt;
use std::path::Path;

/// How much a diagnostic matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something nib draws in place of what the document asks for, through no fault of the
    /// document (a font family it does not have, a browser page): said, not a failure.
    Note,
    /// Something in the document that does not work as written (an import that is missing, a
    /// component that does not exist, an unreadable font file). `--strict` fails on these.
    Warning,
    /// The document cannot be compiled (over a resolve budget): nothing is drawn.
    Error,
}

/// Where in a document a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Span {
    /// The JSON pointer of the value (`/children/0/fill`).
    pub pointer: String,
    /// Its line and column in the file (from 1), when they were looked up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_column: Option<(usize, usize)>,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// How much it matters.
    pub severity: Severity,
    /// A stable name of the kind of finding (`import`, `font-file`, `font-substituted`,
    /// `unresolved`, `placeholder`, `budget`).
    pub code: &'static str,
    /// The node it concerns (id or instance path), when it concerns one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Where it is in the file (boxed: a diagnostic is the error of many stages' results, and
    /// the box keeps it small enough to return by value).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Box<Span>>,
    /// What was found, as a sentence.
    pub message: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
}

impl Diagnostic {
    /// A finding of `severity` and `code` saying `message`.
    pub fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity, code, node: None, span: None, message: message.into(), hints: Vec::new() }
    }

    /// A warning.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message)
    }

    /// An error: what was asked cannot be done (an argument nib does not take, a file it
    /// cannot read or write).
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message)
    }

    /// A note.
    pub fn note(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Note, code, message)
    }

    /// The same, about `node`.
    pub fn at_node(mut self, node: impl Into<String>) -> Diagnostic {
        self.node = Some(node.into());
        self
    }

    /// The same, at the value `pointer` names.
    pub fn at_pointer(mut self, pointer: impl Into<String>) -> Diagnostic {
        self.span = Some(Box::new(Span { pointer: pointer.into(), line_column: None }));
        self
    }

    /// The same, with `hint`.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hints.push(hint.into());
        self
    }

    /// The diagnostic as a person reads it about the file `path`: `path:line:column: ` first
    /// when its place is known, then the message, then each hint on its own line.
    pub fn to_text(&self, path: Option<&Path>) -> String {
        let place = match (path, self.span.as_ref().and_then(|span| span.line_column)) {
            (Some(path), Some((line, column))) => format!("{}:{line}:{column}: ", path.display()),
            (Some(path), None) if self.severity == Severity::Error => format!("{}: ", path.display()),
            _ => String::new(),
        };
        self.placed_text(&place, 2)
    }

    /// The diagnostic as an item of a list of findings in `path` (`nib check`): always the file,
    /// with line and column when known, and its hints `indent` spaces in.
    pub fn to_list_item(&self, path: &Path, indent: usize) -> String {
        let place = match self.span.as_ref().and_then(|span| span.line_column) {
            Some((line, column)) => format!("{}:{line}:{column}: ", path.display()),
            None => format!("{}: ", path.display()),
        };
        self.placed_text(&place, indent)
    }

    /// `place`, the one-line form, then each hint on its own line `indent` spaces in.
    fn placed_text(&self, place: &str, indent: usize) -> String {
        let mut text = format!("{place}{self}");
        for hint in &self.hints {
            text.push('\n');
            text.push_str(&" ".repeat(indent));
            text.push_str("hint: ");
            text.push_str(hint);
        }
        text
    }
}

/// The one-line form: `node 'id': message`, or the message alone (no place, no hints).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.node {
            Some(node) => write!(f, "node '{node}': {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A diagnostic is the error of whatever failed with it (a command-line argument, a file the
/// command line could not read): its one-line form, the hints left to [`Diagnostic::to_text`].
impl std::error::Error for Diagnostic {}

/// Findings gathered while building something, each said once and kept in the order of their
/// one-line form (node first), so the same document lists them the same way on every run.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    by_line: std::collections::BTreeMap<String, Diagnostic>,
}

impl Diagnostics {
    /// None yet.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Adds `diagnostic` unless one with the same one-line form is there.
    pub fn insert(&mut self, diagnostic: Diagnostic) {
        self.by_line.entry(diagnostic.to_string()).or_insert(diagnostic);
    }

    /// True when a finding reads `line` (its one-line form).
    pub fn says(&self, line: &str) -> bool {
        self.by_line.contains_key(line)
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.by_line.is_empty()
    }

    /// The findings, in order.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.by_line.into_values().collect()
    }
}

impl Extend<Diagnostic> for Diagnostics {
    fn extend<I: IntoIterator<Item = Diagnostic>>(&mut self, items: I) {
        for item in items {
            self.insert(item);
        }
    }
}

/// The one-line forms of `diagnostics`, in order.
pub fn lines(diagnostics: &[Diagnostic]) -> Vec<String> {
    diagnostics.iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_located_error_names_the_file_line_column_and_hints() {
        let text = "{\n  \"version\": \"2.9\",\n  \"children\": [\n    {\"id\": \"a\"}\n  ]\n}";
        let mut diagnostic = Diagnostic::new(Severity::Error, "budget", "too many nodes")
            .at_pointer("/children/0")
            .with_hint("split the file");
        diagnostic.locate(text);
        assert_eq!(diagnostic.to_text(Some(Path::new("d.pen"))), "d.pen:4:5: too many nodes\n  hint: split the file");
        // In a list of findings: the same sentence, the hint as deep as the list wants it.
        assert_eq!(
            diagnostic.to_list_item(Path::new("d.pen"), 6),
            "d.pen:4:5: too many nodes\n      hint: split the file"
        );
        // A warning without a place still names its file there (to_text leaves it out).
        let note = Diagnostic::new(Severity::Warning, "image", "missing").at_node("n");
        assert_eq!(note.to_list_item(Path::new("d.pen"), 4), "d.pen: node 'n': missing");
        assert_eq!(note.to_text(Some(Path::new("d.pen"))), "node 'n': missing");
    }

    #[test]
    fn a_node_warning_reads_as_before() {
        let diagnostic = Diagnostic::warning("unresolved", "component 'x' not found").at_node("card");
        assert_eq!(diagnostic.to_string(), "node 'card': component 'x' not found");
        assert_eq!(diagnostic.to_text(Some(Path::new("d.pen"))), "node 'card': component 'x' not found");
        let json = serde_json::to_value(&diagnostic).unwrap();
        assert_eq!(json["severity"], "warning");
        assert_eq!(json["code"], "unresolved");
        assert!(json.get("span").is_none());
    }
}
