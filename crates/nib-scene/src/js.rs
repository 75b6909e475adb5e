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

use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Runtime};

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
    /// The whole call (the snippet and the operations it asked for) took longer than allowed.
    #[error("stopped after {}, the most one call may take", duration(*.0))]
    CallLimit(Duration),
    /// The engine could not start, or the result is not JSON.
    #[error("{0}")]
    Engine(String),
}

/// `55 s`, or `700 ms` under a second.
fn duration(d: Duration) -> String {
    if d >= Duration::from_secs(1) { format!("{} s", d.as_secs()) } else { format!("{} ms", d.as_millis()) }
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
    run(&source, Offset { lines: 0, columns: wrapper.len() as u32 }, globals, limits, None)
}

/// One call a snippet made to its host: an API function's name, its arguments as JSON, and
/// where in the snippet the call is (1-based), when the engine said.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCall {
    /// The operation (`insert`, `get`, …), as the API's JavaScript names it.
    pub name: String,
    /// Its arguments.
    pub arguments: serde_json::Value,
    /// The line of the call in the snippet.
    pub line: Option<u32>,
    /// Its column.
    pub column: Option<u32>,
}

/// Why the host refused a call: the snippet sees it thrown as an `Error` with this message
/// (and a `hint` property).
#[derive(Debug, Clone, PartialEq)]
pub struct HostRefusal {
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// The global function through which a snippet's API reaches its host:
/// `__nib_host(name, argumentsJson, stack)` answers `{"ok": value}` or `{"error": {message, hint}}`
/// as JSON text.
pub const HOST_FUNCTION: &str = "__nib_host";

/// What answers a snippet's calls.
pub type Host = Box<dyn FnMut(HostCall) -> Result<serde_json::Value, HostRefusal>>;

/// Runs a snippet: `api` (JavaScript that defines the functions the snippet calls, each
/// reaching the host through [`HOST_FUNCTION`]) then `body` as the body of an async function,
/// so it may `return` its result and `await` (agents write `await TakeScreenshot(…)` out of
/// habit; the API answers at once, so an `await` only waits for the job queue, which the run
/// drives to its end). Every call the API makes is answered by `host` while the snippet
/// waits, on this thread (a thread of its own cost two task switches per call, three times the
/// work of a typical call). Time spent in the host does not count against the deadline, which
/// is for the snippet's own running; the whole call, host time included, is stopped after
/// `call_limit`.
pub fn run_snippet(
    api: &str,
    body: &str,
    limits: Limits,
    call_limit: Duration,
    host: Host,
) -> Result<serde_json::Value, JsError> {
    let api = api.trim_end_matches('\n');
    let offset = Offset { lines: api.lines().count() as u32 + 1, columns: 0 };
    let source = format!("{api}\n(async function () {{\n{body}\n}})()");
    run(&source, offset, &[], limits, Some(Bridge { host, call_limit }))
}

/// A snippet's host and the time its call may take.
struct Bridge {
    host: Host,
    call_limit: Duration,
}

/// The [`HOST_FUNCTION`] of a snippet: asks the host, and counts the time it took.
fn host_function<'js>(ctx: Ctx<'js>, host: Host, offset: Offset, clock: Rc<Clock>) -> rquickjs::Result<Function<'js>> {
    let host = std::cell::RefCell::new(host);
    Function::new(ctx, move |name: String, arguments: String, stack: rquickjs::Coerced<String>| -> String {
        let refused = |message: &str| serde_json::json!({ "error": { "message": message } }).to_string();
        if clock.over_call_limit() {
            return refused(&JsError::CallLimit(clock.call_limit).to_string());
        }
        let arguments = match serde_json::from_str(&arguments) {
            Ok(arguments) => arguments,
            Err(error) => return refused(&format!("the arguments are not JSON: {error}")),
        };
        let (line, column) = place(&stack.0, offset);
        let asked = Instant::now();
        let Ok(mut host) = host.try_borrow_mut() else { return refused("the host is busy") };
        let answer = host(HostCall { name, arguments, line, column });
        clock.waited.set(clock.waited.get() + asked.elapsed());
        let envelope = match answer {
            Ok(value) => serde_json::json!({ "ok": value }),
            Err(refusal) => serde_json::json!({ "error": { "message": refusal.message, "hint": refusal.hint } }),
        };
        envelope.to_string()
    })
}

/// A run's time: since it started, and spent waiting for its host.
struct Clock {
    started: Instant,
    waited: Cell<Duration>,
    call_limit: Duration,
}

impl Clock {
    fn over_call_limit(&self) -> bool {
        self.started.elapsed() > self.call_limit
    }
}

/// Where the caller's source starts in the source the engine runs: after `lines` whole lines
/// the caller did not write, and `columns` characters into the first line of its own.
#[derive(Debug, Clone, Copy)]
struct Offset {
    lines: u32,
    columns: u32,
}

/// Runs `source` and answers its value as JSON.
fn run(
    source: &str,
    offset: Offset,
    globals: &[(&str, serde_json::Value)],
    limits: Limits,
    bridge: Option<Bridge>,
) -> Result<serde_json::Value, JsError> {
    let runtime = Runtime::new().map_err(|e| JsError::Engine(format!("the JavaScript engine did not start: {e}")))?;
    runtime.set_memory_limit(limits.heap_bytes);
    runtime.set_max_stack_size(limits.stack_bytes);
    let call_limit = bridge.as_ref().map_or(Duration::MAX, |b| b.call_limit);
    let clock = Rc::new(Clock { started: Instant::now(), waited: Cell::new(Duration::ZERO), call_limit });
    let interrupted = Rc::new(Cell::new(None::<JsError>));
    {
        let interrupted = Rc::clone(&interrupted);
        let clock = Rc::clone(&clock);
        let deadline = limits.deadline;
        runtime.set_interrupt_handler(Some(Box::new(move || {
            if clock.over_call_limit() {
                interrupted.set(Some(JsError::CallLimit(clock.call_limit)));
                return true;
            }
            // Time spent waiting for the host does not count: the deadline is for the script.
            let late = clock.started.elapsed().saturating_sub(clock.waited.get()) > deadline;
            if late {
                interrupted.set(Some(JsError::Deadline(deadline)));
            }
            late
        })));
    }
    let context =
        Context::full(&runtime).map_err(|e| JsError::Engine(format!("the JavaScript engine did not start: {e}")))?;
    let result = context.with(|ctx| -> Result<serde_json::Value, JsError> {
        let fail = |ctx: &Ctx, error: rquickjs::Error| caught(ctx, error, offset);
        ctx.eval::<(), _>(PRELUDE).map_err(|e| fail(&ctx, e))?;
        let global_object = ctx.globals();
        for (name, value) in globals {
            let parsed = ctx.json_parse(value.to_string()).map_err(|e| fail(&ctx, e))?;
            global_object.set(*name, parsed).map_err(|e| fail(&ctx, e))?;
        }
        if let Some(bridge) = bridge {
            let host = host_function(ctx.clone(), bridge.host, offset, Rc::clone(&clock)).map_err(|e| fail(&ctx, e))?;
            global_object.set(HOST_FUNCTION, host).map_err(|e| fail(&ctx, e))?;
        }
        let mut options = rquickjs::context::EvalOptions::default();
        options.strict = false;
        let value: rquickjs::Value = ctx.eval_with_options(source, options).map_err(|e| fail(&ctx, e))?;
        let value = settled(&ctx, value).map_err(|e| fail(&ctx, e))?;
        let text = ctx.json_stringify(value).map_err(|e| fail(&ctx, e))?;
        let text = match text {
            Some(text) => text.to_string().map_err(|e| JsError::Engine(e.to_string()))?,
            None => return Ok(serde_json::Value::Null),
        };
        serde_json::from_str(&text).map_err(|e| JsError::Engine(format!("the result is not JSON: {e}")))
    });
    // An interruption ends the run even when what it cut short was a job left behind after the
    // run's value was settled.
    if let Some(reason) = interrupted.take() {
        return Err(reason);
    }
    // The host refused a call because the time was up; the snippet saw that as a throw.
    if result.is_err() && clock.over_call_limit() {
        return Err(JsError::CallLimit(call_limit));
    }
    match result {
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

/// What a run's value settles to: a promise's result once the job queue has run (a rejection
/// is thrown, as an uncaught error would be), anything else as it is. Nothing outside the run
/// can settle a promise (there are no timers, files or network), so one still pending when the
/// queue is empty never will be: that is an error, not a wait. The queue is run to its end
/// either way, so a `.then` the run left behind does its work before the run is judged.
fn settled<'js>(ctx: &Ctx<'js>, value: rquickjs::Value<'js>) -> rquickjs::Result<rquickjs::Value<'js>> {
    let settled = match value.as_promise() {
        None => Ok(value),
        Some(promise) => match promise.finish::<rquickjs::Value>() {
            Err(rquickjs::Error::WouldBlock) => Err(rquickjs::Exception::throw_message(
                ctx,
                "the run awaits a promise that nothing settles (a run has no timers, files or network)",
            )),
            other => other,
        },
    };
    while ctx.execute_pending_job() {}
    settled
}

/// The error a failed call left in the engine, with its place in the source.
fn caught(ctx: &Ctx, error: rquickjs::Error, offset: Offset) -> JsError {
    let caught = Err::<(), _>(error).catch(ctx);
    let Err(caught) = caught else { return JsError::Engine("an error without a reason".into()) };
    match caught {
        CaughtError::Exception(exception) => {
            let message = exception.message().unwrap_or_default();
            let name: Option<String> = exception.get("name").ok();
            let stack = exception.stack().unwrap_or_default();
            let (line, column) = place(&stack, offset);
            // A syntax error has no stack, only the place the parser stopped.
            let line_number: Option<u32> = exception.get("lineNumber").ok();
            let column_number: Option<u32> = exception.get("columnNumber").ok();
            let (line, column) = match (line, line_number) {
                (Some(line), _) => (Some(line), column),
                (None, Some(number)) if number > offset.lines => {
                    let line = number - offset.lines;
                    (Some(line), column_number.map(|c| shift(line, c, offset)))
                }
                _ => (None, None),
            };
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

/// The first `eval_script:LINE:COLUMN` of a stack that is in the caller's source (frames in
/// the lines nib put before it, the API's own functions, are skipped), as a place in it.
fn place(stack: &str, offset: Offset) -> (Option<u32>, Option<u32>) {
    for frame in stack.lines() {
        let Some(at) = frame.find("eval_script:") else { continue };
        let rest = &frame[at + "eval_script:".len()..];
        let mut numbers = rest.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
        let Some(line) = numbers.next().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if line <= offset.lines {
            continue;
        }
        let line = line - offset.lines;
        let column = numbers.next().and_then(|n| n.parse::<u32>().ok());
        return (Some(line), column.map(|column| shift(line, column, offset)));
    }
    (None, None)
}

/// A column of the wrapped source as a column of the caller's: the first line is shifted.
fn shift(line: u32, column: u32, offset: Offset) -> u32 {
    if line == 1 { column.saturating_sub(offset.columns).max(1) } else { column }
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

    const API: &str = "function Twice(n) {\n  const r = JSON.parse(__nib_host('twice', JSON.stringify([n]), new Error().stack));\n  if (r.error) throw new Error(r.error.message);\n  return r.ok;\n}\n";

    #[test]
    fn a_snippet_calls_its_host_and_the_host_sees_where() {
        type Calls = Rc<std::cell::RefCell<Vec<(String, Option<u32>, bool)>>>;
        let calls: Calls = Rc::default();
        let host = |calls: Calls| -> Host {
            Box::new(move |call: HostCall| {
                calls.borrow_mut().push((call.name.clone(), call.line, call.column.is_some()));
                let n = call.arguments[0].as_f64().unwrap_or(0.0);
                if n < 0.0 {
                    return Err(HostRefusal { message: "negative".into(), hint: None });
                }
                Ok(json!(n * 2.0))
            })
        };
        let long = Duration::from_secs(55);
        let value =
            run_snippet(API, "const a = Twice(2);\nreturn [a, Twice(a)];", Limits::PEN, long, host(Rc::clone(&calls)))
                .unwrap();
        assert_eq!(value, json!([4, 8]));
        assert_eq!(*calls.borrow(), vec![("twice".into(), Some(1), true), ("twice".into(), Some(2), true)]);
        let refused =
            run_snippet(API, "let x = 1;\n  Twice(-1);", Limits::PEN, long, host(Rc::clone(&calls))).unwrap_err();
        assert!(matches!(&refused, JsError::Thrown { line: Some(2), column: Some(3), .. }), "{refused:?}");
        let syntax = run_snippet(API, "let x = ;", Limits::PEN, long, host(Rc::clone(&calls))).unwrap_err();
        assert!(matches!(&syntax, JsError::Syntax { line: 1, .. }), "{syntax:?}");
    }

    #[test]
    fn a_snippet_may_await_and_its_errors_keep_their_place() {
        let quick =
            || -> Host { Box::new(|call: HostCall| Ok(json!(call.arguments[0].as_f64().unwrap_or(0.0) * 2.0))) };
        let long = Duration::from_secs(55);
        let value = run_snippet(
            API,
            "const a = await Twice(2);\nreturn [a, await Promise.resolve(Twice(a))];",
            Limits::PEN,
            long,
            quick(),
        )
        .unwrap();
        assert_eq!(value, json!([4, 8]));
        // Without an await, a snippet runs as it always did.
        assert_eq!(run_snippet(API, "return Twice(3);", Limits::PEN, long, quick()).unwrap(), json!(6));
        let thrown = run_snippet(API, "await null;\nnull.x;", Limits::PEN, long, quick()).unwrap_err();
        assert!(matches!(&thrown, JsError::Thrown { line: Some(2), .. }), "{thrown:?}");
        assert!(thrown.to_string().contains("TypeError"), "{thrown}");
        let rejected =
            run_snippet(API, "await Promise.reject(new RangeError('no'));", Limits::PEN, long, quick()).unwrap_err();
        assert!(
            matches!(&rejected, JsError::Thrown { message, line: Some(1), .. } if message == "RangeError: no"),
            "{rejected:?}"
        );
        let forever = run_snippet(API, "await new Promise(() => {});", Limits::PEN, long, quick()).unwrap_err();
        assert!(forever.to_string().contains("nothing settles"), "{forever}");
        let limits = Limits { deadline: Duration::from_millis(200), ..Limits::PEN };
        let spinning = run_snippet(API, "while (true) await null;", limits, long, quick()).unwrap_err();
        assert_eq!(spinning, JsError::Deadline(Duration::from_millis(200)));
        // Work a snippet leaves queued when it returns is done, not dropped; a queue that never
        // empties is stopped by the deadline.
        let calls = Rc::new(Cell::new(0));
        let counted = Rc::clone(&calls);
        let counting: Host = Box::new(move |_: HostCall| {
            counted.set(counted.get() + 1);
            Ok(json!(0))
        });
        let value = run_snippet(API, "Promise.resolve().then(() => Twice(5));\nreturn 1;", Limits::PEN, long, counting)
            .unwrap();
        assert_eq!((value, calls.get()), (json!(1), 1));
        let endless =
            run_snippet(API, "const f = () => Promise.resolve().then(f);\nf();\nreturn 1;", limits, long, quick())
                .unwrap_err();
        assert_eq!(endless, JsError::Deadline(Duration::from_millis(200)));
    }

    #[test]
    fn time_in_the_host_does_not_count_against_the_deadline_but_against_the_call() {
        let limits = Limits { deadline: Duration::from_millis(300), ..Limits::PEN };
        let slow = || -> Host {
            Box::new(|_: HostCall| {
                std::thread::sleep(Duration::from_millis(200));
                Ok(json!(1))
            })
        };
        let value = run_snippet(API, "return Twice(1) + Twice(1) + Twice(1);", limits, Duration::from_secs(55), slow())
            .unwrap();
        assert_eq!(value, json!(3));
        let stopped =
            run_snippet(API, "while (true) Twice(1);", limits, Duration::from_millis(700), slow()).unwrap_err();
        assert_eq!(stopped, JsError::CallLimit(Duration::from_millis(700)));
        let quick: Host = Box::new(|_: HostCall| Ok(json!(1)));
        let looped = run_snippet(API, "while (true) {}", limits, Duration::from_secs(55), quick).unwrap_err();
        assert_eq!(looped, JsError::Deadline(Duration::from_millis(300)));
    }
}
