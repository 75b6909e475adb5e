//! What can be wrong with a `.pen` file: fatal load errors and non-fatal problems, each with a
//! location (line, column, JSON pointer, enclosing node id) and a hint an agent can act on.

use std::borrow::Cow;
use std::fmt;

use crate::diagnostic::{Diagnostic, Severity, Span};

/// Why a document could not be loaded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    /// The text is not JSON (with comments).
    #[error("{message}")]
    Syntax {
        /// What the reader found.
        message: String,
    },
    /// The bytes are not UTF-8.
    #[error("the file is not valid UTF-8")]
    NotUtf8,
    /// The file exceeds [`crate::doc::MAX_FILE_BYTES`].
    #[error("the file is {size} bytes; the limit is {limit} bytes")]
    TooLarge {
        /// Size of the file.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The document has more nodes than [`crate::doc::MAX_NODES`].
    #[error("the document has more than {limit} nodes")]
    TooManyNodes {
        /// The limit.
        limit: usize,
    },
    /// The document has more keys nib does not know than
    /// [`MAX_UNKNOWN_KEYS`](crate::doc::MAX_UNKNOWN_KEYS).
    #[error("the document has more than {limit} properties nib does not know")]
    TooManyUnknownKeys {
        /// The limit.
        limit: usize,
    },
    /// A value has the wrong JSON type.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// What was expected ("a number or a \"$variable\"").
        expected: Cow<'static, str>,
        /// What was found ("a string").
        found: &'static str,
    },
    /// A color string that is neither hex nor a variable.
    #[error("invalid color {text:?}: expected #RGB, #RRGGBB, #RRGGBBAA or a \"$variable\"")]
    InvalidColor {
        /// The text found.
        text: String,
    },
    /// A string that is not one of the words a key accepts.
    #[error("invalid {what} {got:?}: expected one of {}", quoted_list(.valid))]
    InvalidKeyword {
        /// The key or value kind ("alignItems").
        what: &'static str,
        /// The text found.
        got: String,
        /// The accepted words.
        valid: &'static [&'static str],
    },
    /// A node whose `type` is not a node type.
    #[error("unknown node type {got:?}: expected one of {}", quoted_list(.valid))]
    UnknownNodeType {
        /// The type found.
        got: String,
        /// The node types.
        valid: &'static [&'static str],
    },
    /// A fill or effect object whose `type` is unknown.
    #[error("unknown {what} type {got:?}: expected one of {}", quoted_list(.valid))]
    UnknownVariant {
        /// "fill" or "effect".
        what: &'static str,
        /// The type found.
        got: String,
        /// The accepted types.
        valid: &'static [&'static str],
    },
    /// A width or height that is not a size.
    #[error(
        "invalid size {got:?}: expected a number, \"fit_content\", \"fill_container\" (optionally with a fallback such as \"fit_content(100)\") or a \"$variable\""
    )]
    InvalidSizing {
        /// The text found.
        got: String,
    },
    /// A font weight that is not a weight.
    #[error(
        "invalid font weight {got:?}: expected \"normal\", \"bold\", a keyword such as \"semibold\", or \"100\"…\"900\""
    )]
    InvalidFontWeight {
        /// The text found.
        got: String,
    },
    /// A required key is absent.
    #[error("{what} has no \"{key}\"")]
    MissingKey {
        /// What lacks the key ("a node", "a fill object").
        what: &'static str,
        /// The key.
        key: &'static str,
    },
    /// An id that cannot be used.
    #[error("invalid id {id:?}: {reason}")]
    InvalidId {
        /// The id.
        id: String,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// Two nodes with the same id.
    #[error("duplicate id {id:?}{}", first_use(.first_line))]
    DuplicateId {
        /// The id.
        id: String,
        /// Line of the first node with this id, when known.
        first_line: Option<u32>,
    },
    /// A list with the wrong number of entries.
    #[error("{what} must have {expected} entries, found {got}")]
    WrongLength {
        /// What the list is ("padding").
        what: &'static str,
        /// The accepted counts ("1, 2 or 4").
        expected: &'static str,
        /// The count found.
        got: usize,
    },
    /// A number outside the range its key accepts.
    #[error("{what} must be {range}, found {}", super::json::js_number(*.got))]
    OutOfRange {
        /// The key.
        what: &'static str,
        /// The accepted range in words.
        range: &'static str,
        /// The number found.
        got: f64,
    },
    /// A `descendants` key that is not a path of ids.
    #[error("invalid override path {path:?}: {reason}")]
    InvalidOverridePath {
        /// The path.
        path: String,
        /// Why it is invalid.
        reason: &'static str,
    },
}

fn quoted_list(valid: &[&str]) -> String {
    valid.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", ")
}

fn first_use(line: &Option<u32>) -> String {
    match line {
        Some(line) => format!(" (first used on line {line})"),
        None => String::new(),
    }
}

/// A position in the source text: 1-based line and column (in characters), the JSON pointer of
/// the value, and the id of the innermost node that contains it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Location {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in Unicode characters.
    pub column: u32,
    /// RFC 6901 pointer to the value, e.g. `/children/0/fill/1/color`; empty for the root.
    pub pointer: String,
    /// The id of the innermost node around the value, when there is one.
    pub node_id: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)?;
        let pointer = if self.pointer.is_empty() { "/" } else { &self.pointer };
        write!(f, " (at {pointer}")?;
        if let Some(id) = &self.node_id {
            write!(f, ", node '{id}'")?;
        }
        write!(f, ")")
    }
}

/// A document that could not be loaded: what, where, and how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    /// What is wrong.
    pub kind: ErrorKind,
    /// Where (boxed: errors travel through `Result`s, and should stay small).
    pub location: Box<Location>,
    /// What usually fixes it.
    pub hint: Option<String>,
}

impl LoadError {
    /// An error at `location`.
    pub fn new(kind: ErrorKind, location: Location, hint: Option<String>) -> LoadError {
        LoadError { kind, location: Box::new(location), hint }
    }

    /// The error as a diagnostic (code `load`) about its node, at its pointer with line and
    /// column, with its hint; `file`, when given, starts its message as the one-line form
    /// names it (`d.pen:3:5 (at /children/0): …`).
    pub fn diagnostic(&self, file: Option<&std::path::Path>) -> Diagnostic {
        let message = match file {
            Some(file) => format!("{}:{self_line}", file.display(), self_line = self.one_line()),
            None => self.one_line(),
        };
        Diagnostic {
            severity: crate::diagnostic::Severity::Error,
            code: "load",
            node: self.location.node_id.clone(),
            span: Some(Box::new(Span {
                pointer: self.location.pointer.clone(),
                line_column: Some((self.location.line as usize, self.location.column as usize)),
            })),
            message,
            hints: self.hint.iter().cloned().collect(),
        }
    }

    /// Where and what, without the hint.
    fn one_line(&self) -> String {
        format!("{}: {}", self.location, self.kind)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.kind)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Most problems one load reports: the first ones in the file, then one that counts the rest.
/// Real files have at most 61; a file with a million unknown keys would otherwise keep a million
/// messages, each with its location, taking more memory than the document.
pub const MAX_PROBLEMS: usize = 1_000;

/// Something worth telling about a document that still loads.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProblemKind {
    /// A key occurs twice in one object; the last value is used.
    #[error("the key \"{key}\" occurs twice in this object; the last value is used")]
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// The version is missing or not one this engine knows.
    #[error("{}", version_message(.found))]
    UnknownVersion {
        /// The version found, if any.
        found: Option<String>,
    },
    /// A color keyword Pen writes but does not define; it paints nothing.
    #[error("color {text:?} is not a hex color; it paints nothing")]
    ColorKeyword {
        /// The keyword.
        text: String,
    },
    /// A `#` color that is not valid hex, kept as written (Pen saved it) and read as Pen reads it.
    #[error(
        "color {text:?} is not a valid hex color ({hint}); it is kept as written and drawn as {drawn_as}, as Pen reads it"
    )]
    ColorTolerated {
        /// The text.
        text: String,
        /// How it paints: a hex color, or "nothing".
        drawn_as: String,
        /// What is wrong with it.
        hint: String,
    },
    /// A key this engine does not know; it is kept as is.
    #[error("unknown property \"{key}\"{}; it is kept as is but has no effect", did_you_mean(.suggestion))]
    UnknownKey {
        /// The key.
        key: String,
        /// A known key it may have meant.
        suggestion: Option<&'static str>,
    },
    /// The text has comments, which saving drops (`.pen` files written by Pen have none).
    #[error("the file has comments; saving it (nib fmt, any edit) drops them")]
    Comments,
    /// A real character of the private-use range nib keeps half UTF-16 pairs in
    /// (`json::surrogates`): saving writes it as the half it stands for.
    #[error(
        "a string holds a character of U+10F800–U+10FFFF (private use), which nib uses for halves of UTF-16 pairs; saving writes it as such a half (\\udXXX), not as itself"
    )]
    StandInCharacter,
    /// More problems than [`MAX_PROBLEMS`]: this one stands for the rest, from where the first
    /// of them is.
    #[error("{count} more problems from here on are not listed (only the first {shown} are)")]
    MoreProblems {
        /// Problems not listed.
        count: usize,
        /// Problems listed before this one.
        shown: usize,
    },
    /// A node type nib does not know (a newer Pen's, or a typo), kept as written: laid out as
    /// an empty box of its width and height, not drawn, and its children neither laid out nor
    /// drawn.
    #[error(
        "node type {got:?} is not one nib knows{}; the node is kept as written and laid out as an empty box of its width and height, but nib draws nothing for it{}",
        did_you_mean(.suggestion),
        if *.children { " nor for its children" } else { "" }
    )]
    NodeTypeKept {
        /// The type found.
        got: String,
        /// A node type it may mean.
        suggestion: Option<&'static str>,
        /// The node has a `children` key.
        children: bool,
    },
    /// A fill or effect whose `type` nib does not know, kept as written and not drawn.
    #[error("{what} type {got:?} is not one nib knows{}; it is kept as written but not drawn", did_you_mean(.suggestion))]
    PaintTypeKept {
        /// "fill" or "effect".
        what: &'static str,
        /// The type found.
        got: String,
        /// A type it may mean.
        suggestion: Option<&'static str>,
    },
    /// A value in an instance override that nib cannot read for its key, kept as written and
    /// not applied (the component's value shows).
    #[error("the override of \"{key}\" is kept as written but not applied ({reason}); the component's own value shows")]
    OverrideKept {
        /// The key.
        key: String,
        /// Why it cannot be read.
        reason: String,
    },
    /// A node inside an instance override without an id, kept as written: nib cannot address
    /// it, so it is neither laid out nor drawn.
    #[error(
        "this node in an instance override has no \"id\"; it is kept as written, but nib can neither address, lay out nor draw it"
    )]
    OverrideNodeWithoutId,
    /// A font weight named with a CSS word Pen's files never hold ("heavy", "light"): nib
    /// draws it at its number, Pen may not.
    #[error(
        "font weight {got:?} is not one Pen writes (\"normal\", \"medium\", \"semibold\", \"bold\" or \"100\"…\"900\"); nib draws it as {weight}, Pen may not: write \"{weight}\""
    )]
    WeightNotPens {
        /// The name found.
        got: &'static str,
        /// The weight nib reads it as.
        weight: u16,
    },
    /// A known key on a node type that does not use it.
    #[error("\"{key}\" has no effect on {node_type} nodes")]
    KeyNotUsedByType {
        /// The key.
        key: String,
        /// The node type.
        node_type: &'static str,
    },
}

impl ProblemKind {
    /// A stable name of the kind, for scripts that match on it (diagnostics' `code`).
    pub fn code(&self) -> &'static str {
        match self {
            ProblemKind::DuplicateKey { .. } => "duplicate-key",
            ProblemKind::UnknownVersion { .. } => "unknown-version",
            ProblemKind::ColorKeyword { .. } => "color-keyword",
            ProblemKind::ColorTolerated { .. } => "color-tolerated",
            ProblemKind::UnknownKey { .. } => "unknown-key",
            ProblemKind::Comments => "comments",
            ProblemKind::StandInCharacter => "stand-in-character",
            ProblemKind::MoreProblems { .. } => "more-problems",
            ProblemKind::NodeTypeKept { .. } => "node-type-kept",
            ProblemKind::PaintTypeKept { .. } => "paint-type-kept",
            ProblemKind::OverrideKept { .. } => "override-kept",
            ProblemKind::OverrideNodeWithoutId => "override-without-id",
            ProblemKind::KeyNotUsedByType { .. } => "key-not-used",
            ProblemKind::WeightNotPens { .. } => "font-weight-name",
        }
    }

    /// How much it matters: a color Pen saved and reads its own way is said, but it is Pen's
    /// file as Pen wrote it, no reason to fail `--strict` (a note); the rest are warnings.
    pub fn severity(&self) -> Severity {
        match self {
            ProblemKind::ColorTolerated { .. } => Severity::Note,
            _ => Severity::Warning,
        }
    }

    /// True for what every command that reads the file says, not only `nib check`: what a
    /// newer Pen may have written that nib keeps as written but does not draw (node, fill and
    /// effect types, override values and nodes it cannot read), and a character a save would
    /// change.
    pub fn is_said_everywhere(&self) -> bool {
        matches!(
            self,
            ProblemKind::NodeTypeKept { .. }
                | ProblemKind::PaintTypeKept { .. }
                | ProblemKind::OverrideKept { .. }
                | ProblemKind::OverrideNodeWithoutId
                | ProblemKind::StandInCharacter
        )
    }
}

fn version_message(found: &Option<String>) -> String {
    match found {
        Some(v) => {
            format!("version \"{v}\" is not one nib knows (2.6 to 2.20); the file is read as the nearest known version")
        }
        None => "the document has no \"version\"; it is read as 2.11 and saved without one".into(),
    }
}

fn did_you_mean(s: &Option<&'static str>) -> String {
    match s {
        Some(s) => format!(" (did you mean \"{s}\"?)"),
        None => String::new(),
    }
}

/// A non-fatal finding with its location.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// What was found.
    pub kind: ProblemKind,
    /// Where.
    pub location: Location,
}

impl Problem {
    /// The problem as a diagnostic: its severity and code, its node, its pointer with line
    /// and column.
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic {
            severity: self.kind.severity(),
            code: self.kind.code(),
            node: self.location.node_id.clone(),
            span: Some(Box::new(Span {
                pointer: self.location.pointer.clone(),
                line_column: Some((self.location.line as usize, self.location.column as usize)),
            })),
            message: self.kind.to_string(),
            hints: Vec::new(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.kind)
    }
}

/// An error before it is placed: the byte offset of the value it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueError {
    /// Byte offset of the value in the text it was read from.
    pub offset: u32,
    /// What is wrong with it.
    pub kind: ErrorKind,
    /// What to write instead, when nib can tell.
    pub hint: Option<String>,
}

impl ValueError {
    /// An error about the value at `offset`, without a hint yet.
    pub fn new(offset: u32, kind: ErrorKind) -> ValueError {
        ValueError { offset, kind, hint: None }
    }

    /// The same error with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> ValueError {
        self.hint = Some(hint.into());
        self
    }

    /// The same error with `hint` when there is one.
    pub fn with_optional_hint(mut self, hint: Option<String>) -> ValueError {
        self.hint = hint;
        self
    }
}

/// A problem before it is placed.
#[derive(Debug, Clone, PartialEq)]
pub struct RawProblem {
    /// Byte offset of the value in the text it was read from.
    pub offset: u32,
    /// What was found.
    pub kind: ProblemKind,
}
