//! A script run one statement at a time: the `execute` tool's snippets call I/C/U/R/M/D/G as
//! functions with JavaScript in between, so each call is a transaction of its own while the
//! ids given, the aliases and the copies of earlier calls carry over to later ones. The caller
//! groups the transactions into one undo step (see `Document::join_since`).

use crate::doc::Document;

use super::super::ast::{Expr, ExprKind, Operation, Property, Span, Statement};
use super::super::references::References;
use super::super::report::{Failure, OpResult};
use super::{Context, Runner, State};

/// The state of a script run statement by statement.
pub struct Session {
    /// Taken while a statement runs, put back after (also when it fails).
    state: Option<State>,
    /// What every instance referred to when the session started.
    references: References,
    /// Statements run so far, to number failures.
    statements: usize,
}

/// What a session did, when it ends.
pub struct Finished {
    /// What each statement did, in order.
    pub results: Vec<OpResult>,
    /// Potential problems in the result, worded as batch_design words them.
    pub issues: Vec<crate::diagnostic::Diagnostic>,
    /// Image files G() wrote that were not there before.
    pub created_files: Vec<std::path::PathBuf>,
}

impl Session {
    /// Starts a session on `document`.
    pub fn new(document: &Document, context: &Context) -> Session {
        Session {
            state: Some(State::new(&context.options)),
            references: References::of(document, context.library),
            statements: 0,
        }
    }

    /// Runs `operation` with JSON arguments (node paths as strings, node data as objects) in a
    /// transaction of its own, committed when it succeeds. Answers the path of the node it
    /// made, changed or moved (`None` for a deletion). `at` is the call's place, for messages.
    pub fn step(
        &mut self,
        document: &mut Document,
        context: &Context,
        operation: Operation,
        arguments: &[serde_json::Value],
        at: Span,
    ) -> Result<Option<String>, Failure> {
        let index = self.statements;
        self.statements += 1;
        let (fewest, most) = operation.arity();
        // Trailing nulls are arguments left out (`Move(id, parent)` sends no index).
        let given = arguments.iter().rposition(|a| !a.is_null()).map_or(0, |i| i + 1).max(fewest.min(arguments.len()));
        if given < fewest || given > most {
            return Err(Failure {
                statement: Some(index),
                line: at.line,
                column: at.column,
                call: None,
                message: format!(
                    "{} takes {} arguments, not {given}",
                    operation.letter(),
                    if fewest == most { fewest.to_string() } else { format!("{fewest} to {most}") }
                ),
                hint: Some(format!("call it as {}", operation.form())),
                invalid: Vec::new(),
            });
        }
        let statement = Statement {
            binding: None,
            operation,
            arguments: arguments[..given].iter().map(|a| expr(a, at)).collect(),
            span: at,
        };
        let state = self.state.take().unwrap_or_else(|| State::new(&context.options));
        let touched = state.touched.len();
        let results = state.results.len();
        let said = state.said.len();
        let mut runner = Runner::resume(document.transaction(), context, state);
        let ran = runner.statement(&statement).and_then(|bound| runner.check_depth(touched).map(|()| bound));
        match ran {
            Ok(bound) => {
                let Runner { tx, state, .. } = runner;
                tx.commit();
                self.state = Some(state);
                Ok(bound)
            }
            Err(error) => {
                let call = runner.describe_call(&statement);
                let Runner { tx, mut state, .. } = runner;
                drop(tx);
                // What the rolled-back statement touched and said is gone with it.
                state.touched.truncate(touched);
                state.results.truncate(results);
                state.said.truncate(said);
                self.state = Some(state);
                Err(error.into_failure(index, at, call))
            }
        }
    }

    /// What the last statement that succeeded did.
    pub(crate) fn last_result(&self) -> Option<&OpResult> {
        self.state.as_ref().and_then(|state| state.results.last())
    }

    /// Ends the session: what it did and the problems it left.
    pub fn finish(mut self, document: &Document, context: &Context) -> Finished {
        let state = self.state.take().unwrap_or_else(|| State::new(&context.options));
        let mut issues = state.said;
        issues.extend(super::super::issues::find(
            document,
            context.library,
            &state.touched,
            &state.positioned,
            context.canvas,
            &state.known,
        ));
        issues.extend(self.references.broken_since(&References::of(document, context.library)));
        Finished { results: state.results, issues, created_files: state.created }
    }
}

/// A JSON argument as the script's expression for it, placed at the call.
fn expr(value: &serde_json::Value, at: Span) -> Expr {
    use serde_json::Value as J;
    let kind = match value {
        J::Null => ExprKind::Null,
        J::Bool(b) => ExprKind::Bool(*b),
        J::Number(n) => ExprKind::Number(n.as_f64().unwrap_or(0.0)),
        J::String(text) => ExprKind::String(text.clone()),
        J::Array(items) => ExprKind::Array(items.iter().map(|item| expr(item, at)).collect()),
        J::Object(members) => ExprKind::Object(
            members
                .iter()
                .map(|(key, value)| Property { key: key.clone(), key_span: at, value: expr(value, at) })
                .collect(),
        ),
    };
    Expr { kind, span: at }
}
