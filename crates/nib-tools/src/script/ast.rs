//! The parsed form of a batch_design script.

use std::fmt;

/// A script: statements in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The statements.
    pub statements: Vec<Statement>,
}

/// `binding = OP(arguments)` or `OP(arguments)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The name the result is bound to, if any.
    pub binding: Option<String>,
    /// The operation.
    pub operation: Operation,
    /// The arguments.
    pub arguments: Vec<Expr>,
    /// Where the statement is.
    pub span: Span,
}

/// The seven operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// `I(parent, node)`: insert a new node tree.
    Insert,
    /// `C(source, parent, overrides?)`: copy a node.
    Copy,
    /// `U(path, props)`: update properties.
    Update,
    /// `R(path, node)`: replace a node.
    Replace,
    /// `M(node, parent?, index?)`: move a node.
    Move,
    /// `D(node)`: delete a node.
    Delete,
    /// `G(node, "ai" | "stock", prompt)`: give a node an image fill.
    Generate,
}

impl Operation {
    /// The operation's letter.
    pub fn letter(self) -> &'static str {
        match self {
            Operation::Insert => "I",
            Operation::Copy => "C",
            Operation::Update => "U",
            Operation::Replace => "R",
            Operation::Move => "M",
            Operation::Delete => "D",
            Operation::Generate => "G",
        }
    }

    /// The operation for a letter.
    pub(crate) fn from_letter(letter: &str) -> Option<Operation> {
        Some(match letter {
            "I" => Operation::Insert,
            "C" => Operation::Copy,
            "U" => Operation::Update,
            "R" => Operation::Replace,
            "M" => Operation::Move,
            "D" => Operation::Delete,
            "G" => Operation::Generate,
            _ => return None,
        })
    }

    /// How it is called, for messages.
    pub fn form(self) -> &'static str {
        match self {
            Operation::Insert => "binding=I(parent, {type: ..., ...})",
            Operation::Copy => "binding=C(source, parent, {overrides}?)",
            Operation::Update => "U(path, {properties})",
            Operation::Replace => "binding=R(path, {type: ..., ...})",
            Operation::Move => "M(node, parent?, index?)",
            Operation::Delete => "D(node)",
            Operation::Generate => "G(node, \"ai\" or \"stock\", \"prompt\")",
        }
    }

    /// The fewest and most arguments it takes.
    pub(crate) fn arity(self) -> (usize, usize) {
        match self {
            Operation::Insert | Operation::Update | Operation::Replace => (2, 2),
            Operation::Copy => (2, 3),
            Operation::Move => (1, 3),
            Operation::Delete => (1, 1),
            Operation::Generate => (3, 3),
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.letter())
    }
}

/// A place in the script: byte range and 1-based line and column of its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// Byte offset of the start.
    pub start: usize,
    /// Byte offset just past the end.
    pub end: usize,
    /// 1-based line of the start.
    pub line: u32,
    /// 1-based column of the start, in characters.
    pub column: u32,
}

/// An argument or property value.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

/// The kinds of expressions.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A string literal (escapes decoded).
    String(String),
    /// A number literal.
    Number(f64),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// `undefined`.
    Undefined,
    /// `{key: value, ...}`
    Object(Vec<Property>),
    /// `[value, ...]`
    Array(Vec<Expr>),
    /// A binding name, or `document` / `root`.
    Reference(String),
    /// `a + b + ...`: strings and bindings joined (paths such as `card+"/title"`).
    Concat(Vec<Expr>),
}

/// `key: value` in an object literal.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// The key (quotes removed).
    pub key: String,
    /// Where the key is.
    pub key_span: Span,
    /// The value.
    pub value: Expr,
}
