//! batch_design: the mini-script that edits a document in one transaction.
//!
//! [`parse`] turns text into statements (the grammar is `grammar/batch.pest`), [`run`] executes
//! them against a document (all or nothing), and [`Outcome::text`] words the answer as Pencil
//! does.

pub mod ast;
pub(crate) mod dialect;
mod exec;
pub mod issues;
pub(crate) mod normalise;
pub mod parse;
mod references;
pub mod report;
pub mod validate;

pub use ast::{Expr, ExprKind, Operation, Property, Script, Span, Statement};
pub use exec::place::CanvasBoxes;
pub(crate) use exec::session::Finished;
pub use exec::session::Session;
pub use exec::{Context, Options, run};
pub use parse::{DEFAULT_MAX_STATEMENTS, MAX_NESTING, MAX_SCRIPT_BYTES, parse};
pub use report::{
    Binding, Failure, LAYOUT_CODE_PREFIX, LAYOUT_HEADER, OpResult, Outcome, is_layout_problem, layout_line,
};
