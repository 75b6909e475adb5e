//! JavaScript, as Pen runs it: script nodes (a file that returns the nodes it draws) and, above
//! this room, the `execute` tool's snippets. QuickJS (through rquickjs) is the engine Pen uses;
//! each run gets a fresh runtime with Pen's limits — heap, stack, an interrupt deadline — so a
//! snippet that loops or allocates without end is stopped with an error that names the limit,
//! and nothing is left behind for the next run.
//!
//! A run sees the language and what its caller puts in its globals: no file system, no network
//! (QuickJS's `std` and `os` modules are not part of rquickjs), no clock (`Date.now()` is 0 and
//! `new Date()` is the epoch) and a seeded `Math.random`, so the same run gives the same result.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Runtime};

/// The limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes the run's heap may hold.
    pub heap_bytes: usize,
    /// Most bytes of native stack the run may use (deep recursion).
    pub stack_bytes: usize,
    /// How long the run may take.
    pub deadline: Duration,
}

impl Limits {
    /// Pen's: a 256 MB heap, a 512 KB stack and a 2 s interrupt deadline.
    pub const PEN: Limits = Limits { heap_bytes: 256 << 20, stack_bytes: 512 << 10, deadline: Duration::from_secs(2) };
}

/// Why a run gave no result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JsError {
    /// The source is not JavaScript.
    #[error("SyntaxError at line {line}, column {column}: {message}")]
    Syntax {
        /// What the parser said.
        message: String,
        /// 1-based, in the source as given.
        line: u32,
        /// 1-based.
        column: u32,
    },
    /// The run threw.
    #[error("{message}{}", at(*line, *column))]
    Thrown {
        /// The error's name and message (`TypeError: x is not a function`).
        message: String,
        /// Where it was thrown, in the source as given, when the engine said.
        line: Option<u32>,
        /// See `line`.
        column: Option<u32>,
    },
    /// The run took longer than its deadline and was interrupted.
    #[error("interrupted after {} ms, the most a run may take", .0.as_millis())]
    Deadline(Duration),
    /// The run's heap went past its limit.
    #[error("out of memory: the run's heap reached its limit of {} MB", .0 >> 20)]
    Heap(usize),
    /// The run recursed past its stack limit.
    #[error("stack overflow: the run went deeper than its {} KB stack", .0 >> 10)]
    Stack(usize),
    /// The engine could not start, or the result is not JSON.
    #[error("{0}")]
    Engine(String),
}

fn at(line: Option<u32>, column: Option<u32>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!(" (at line {line}, column {column})"),
        (Some(line), None) => format!(" (at line {line})"),
        _ => String::new(),
    }
}

/// What every run starts with: the clock stopped and `Math.random` seeded (a mulberry32 of
/// seed 1), so a script's drawing is the same on every machine, as Pen's is.
const PRELUDE: &str = r#"(() => {
  let seed = 1;
  Math.random = function () {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const RealDate = Date;
  function StoppedDate(...args) {
    if (!new.target) return new RealDate(0).toString();
    return args.length === 0 ? new RealDate(0) : new RealDate(...args);
  }
  StoppedDate.prototype = RealDate.prototype;
  StoppedDate.now = () => 0;
  StoppedDate.UTC = RealDate.UTC;
  StoppedDate.parse = RealDate.parse;
  globalThis.Date = StoppedDate;
})();"#;

/// Runs `body` as the body of a function (so it may `return` its result) with `globals` set
/// (each a JSON value), and answers what it returns as JSON (`null` for nothing).
pub fn run_function(
    body: &str,
    globals: &[(&str, serde_json::Value)],
    limits: Limits,
) -> Result<serde_json::Value, JsError> {
    // The body starts on the wrapper's first line, so lines keep their numbers.
    let wrapper = "(function () {";
    let source = format!("{wrapper}{body}\n}})()");
    run(&source, wrapper.len() as u32, globals, limits)
}

/// Runs `source` (whose first line begins with `first_line_offset` characters the caller
/// added) and answers its value as JSON.
fn run(
    source: &str,
    first_line_offset: u32,
    globals: &[(&str, serde_json::Value)],
    limits: Limits,
) -> Result<serde_json::Value, JsError> {
    let runtime = Runtime::new().map_err(|e| JsError::Engine(format!("the JavaScript engine did not start: {e}")))?;
    runtime.set_memory_limit(limits.heap_bytes);
    runtime.set_max_stack_size(limits.stack_bytes);
    let started = Instant::now();
    let interrupted = Rc::new(Cell::new(false));
    {
        let interrupted = Rc::clone(&interrupted);
        let deadline = limits.deadline;
        runtime.set_interrupt_handler(Some(Box::new(move || {
            let late = started.elapsed() > deadline;
            if late {
                interrupted.set(true);
            }
            late
        })));
    }
    let context =
        Context::full(&runtime).map_err(|e| JsError::Engine(format!("the JavaScript engine did not start: {e}")))?;
    let result = context.with(|ctx| -> Result<serde_json::Value, JsError> {
        let fail = |ctx: &Ctx, error: rquickjs::Error| caught(ctx, error, first_line_offset);
        ctx.eval::<(), _>(PRELUDE).map_err(|e| fail(&ctx, e))?;
        let global_object = ctx.globals();
        for (name, value) in globals {
            let parsed = ctx.json_parse(value.to_string()).map_err(|e| fail(&ctx, e))?;
            global_object.set(*name, parsed).map_err(|e| fail(&ctx, e))?;
        }
        let mut options = rquickjs::context::EvalOptions::default();
        options.strict = false;
        let value: rquickjs::Value = ctx.eval_with_options(source, options).map_err(|e| fail(&ctx, e))?;
        let text = ctx.json_stringify(value).map_err(|e| fail(&ctx, e))?;
        let text = match text {
            Some(text) => text.to_string().map_err(|e| JsError::Engine(e.to_string()))?,
            None => return Ok(serde_json::Value::Null),
        };
        serde_json::from_str(&text).map_err(|e| JsError::Engine(format!("the result is not JSON: {e}")))
    });
    match result {
        Err(_) if interrupted.get() => Err(JsError::Deadline(limits.deadline)),
        Err(JsError::Thrown { message, .. }) if message.contains("out of memory") => {
            Err(JsError::Heap(limits.heap_bytes))
        }
        Err(JsError::Thrown { message, .. })
            if message.contains("stack overflow") || message.contains("Maximum call stack size exceeded") =>
        {
            Err(JsError::Stack(limits.stack_bytes))
        }
        other => other,
    }
}

/// The error a failed call left in the engine, with its place in the source.
fn caught(ctx: &Ctx, error: rquickjs::Error, first_line_offset: u32) -> JsError {
    let caught = Err::<(), _>(error).catch(ctx);
    let Err(caught) = caught else { return JsError::Engine("an error without a reason".into()) };
    match caught {
        CaughtError::Exception(exception) => {
            let message = exception.message().unwrap_or_default();
            let name: Option<String> = exception.get("name").ok();
            let stack = exception.stack().unwrap_or_default();
            let (line, column) = place(&stack, first_line_offset);
            let line_number: Option<u32> = exception.get("lineNumber").ok();
            let column_number: Option<u32> = exception.get("columnNumber").ok();
            let line = line.or(line_number);
            let column = column.or(column_number.map(|c| shift(line.unwrap_or(0), c, first_line_offset)));
            match name.as_deref() {
                Some("SyntaxError") => {
                    JsError::Syntax { message, line: line.unwrap_or(1), column: column.unwrap_or(1) }
                }
                Some(name) => JsError::Thrown { message: format!("{name}: {message}"), line, column },
                None => JsError::Thrown { message, line, column },
            }
        }
        CaughtError::Value(value) => {
            let text = ctx
                .json_stringify(value)
                .ok()
                .flatten()
                .and_then(|s| s.to_string().ok())
                .unwrap_or_else(|| "a value".to_owned());
            JsError::Thrown { message: format!("uncaught {text}"), line: None, column: None }
        }
        CaughtError::Error(error) => JsError::Engine(error.to_string()),
    }
}

/// The first `eval_script:LINE:COLUMN` of a stack, in the caller's source.
fn place(stack: &str, first_line_offset: u32) -> (Option<u32>, Option<u32>) {
    for frame in stack.lines() {
        let Some(at) = frame.find("eval_script:") else { continue };
        let rest = &frame[at + "eval_script:".len()..];
        let mut numbers = rest.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
        let line = numbers.next().and_then(|n| n.parse::<u32>().ok());
        let column = numbers.next().and_then(|n| n.parse::<u32>().ok());
        return (line, line.zip(column).map(|(line, column)| shift(line, column, first_line_offset)));
    }
    (None, None)
}

/// A column of the wrapped source as a column of the caller's: the first line is shifted.
fn shift(line: u32, column: u32, first_line_offset: u32) -> u32 {
    if line == 1 { column.saturating_sub(first_line_offset).max(1) } else { column }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(body: &str) -> Result<serde_json::Value, JsError> {
        run_function(body, &[("pencil", json!({"width": 100, "input": {"rows": 3}}))], Limits::PEN)
    }

    #[test]
    fn a_body_returns_json_and_sees_its_globals() {
        assert_eq!(run("return [pencil.width, pencil.input.rows * 2];").unwrap(), json!([100, 6]));
        assert_eq!(run("let x = 1;").unwrap(), json!(null));
    }

    #[test]
    fn random_and_the_clock_are_the_same_every_time() {
        let first = run("return [Math.random(), Math.random(), Date.now(), new Date().getTime()];").unwrap();
        assert_eq!(first, run("return [Math.random(), Math.random(), Date.now(), new Date().getTime()];").unwrap());
        assert_eq!(first[2], json!(0));
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let thrown = run("let a = 1;\nnull.x;").unwrap_err();
        assert!(matches!(thrown, JsError::Thrown { line: Some(2), .. }), "{thrown:?}");
        assert!(thrown.to_string().contains("TypeError"), "{thrown}");
        let syntax = run("let a = ;").unwrap_err();
        assert!(matches!(syntax, JsError::Syntax { line: 1, .. }), "{syntax:?}");
    }

    #[test]
    fn runs_past_their_limits_stop_with_the_limit_named() {
        let limits = Limits { deadline: Duration::from_millis(200), ..Limits::PEN };
        let started = Instant::now();
        let looped = run_function("while (true) {}", &[], limits).unwrap_err();
        assert_eq!(looped, JsError::Deadline(Duration::from_millis(200)));
        assert!(started.elapsed() < Duration::from_secs(10));
        let small = Limits { heap_bytes: 16 << 20, ..Limits::PEN };
        let grown = run_function("let a = []; while (true) a.push(new Array(1000).fill(1));", &[], small).unwrap_err();
        assert_eq!(grown, JsError::Heap(16 << 20), "{grown}");
        let deep = run_function("function f(n) { return f(n + 1) + 1; } return f(0);", &[], Limits::PEN).unwrap_err();
        assert_eq!(deep, JsError::Stack(512 << 10), "{deep}");
    }

    #[test]
    fn no_file_system_network_or_process_is_reachable() {
        let reachable = run_function(
            "return [typeof require, typeof std, typeof os, typeof fetch, typeof process, typeof XMLHttpRequest];",
            &[],
            Limits::PEN,
        )
        .unwrap();
        assert_eq!(reachable, json!(["undefined", "undefined", "undefined", "undefined", "undefined", "undefined"]));
    }
}
