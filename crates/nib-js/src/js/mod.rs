//! JavaScript, as Pen runs it: script nodes (a file that returns the nodes it draws) and, above
//! this room, the `execute` tool's snippets. QuickJS (through rquickjs) is the engine Pen uses;
//! each run gets a fresh runtime with Pen's limits — heap, stack, an interrupt deadline — so a
//! snippet that loops or allocates without end is stopped with an error that names the limit,
//! and nothing is left behind for the next run.
//!
//! A run sees the language and what its caller puts in its globals: no file system, no network
//! (QuickJS's `std` and `os` modules are not part of rquickjs), no clock (`Date.now()` and
//! `performance.now()` are 0, `new Date()` is the epoch), local time in UTC whatever the
//! machine's time zone, and a seeded `Math.random`, so the same run gives the same result.
//!
//! The caller's source is the body of a function, and only that: it is compiled inside a
//! function expression, and the function's own source text (what `Function.prototype.toString`
//! answers) must be the whole body, so a body cannot close the function early and run code
//! of its own around it (`return 1 }); …; (function () {`).

mod place;
mod result;

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::function::This;
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Object, Runtime};

use place::{Offset, place, word_places};

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
    /// The source is not JavaScript (or not a function's body).
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
        /// What to do about it, when the engine layer knows better than the caller (a thrown
        /// value that is not an Error, a result that is not JSON).
        hint: Option<String>,
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
    /// The engine could not start.
    #[error("{0}")]
    Engine(String),
}

/// `55 s`, or `700 ms` under a second.
fn duration(d: Duration) -> String {
    if d >= Duration::from_secs(1) && d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

fn at(line: Option<u32>, column: Option<u32>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!(" (at line {line}, column {column})"),
        (Some(line), None) => format!(" (at line {line})"),
        _ => String::new(),
    }
}

/// What every run starts with: the clock stopped, local time in UTC and `Math.random` seeded,
/// so a script's drawing is the same on every machine, as Pen's is.
const PRELUDE: &str = include_str!("prelude.js");

/// What a snippet's run answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// What it returned, as JSON (`null` for nothing).
    pub value: serde_json::Value,
    /// Strings in it that held half of a UTF-16 pair, which no UTF-8 text can: each half was
    /// replaced by U+FFFD.
    pub repaired: usize,
}

/// Runs `body` as the body of a function (so it may `return` its result) with `globals` set
/// (each a JSON value), and answers what it returns as JSON (`null` for nothing).
pub fn run_function(
    body: &str,
    globals: &[(&str, serde_json::Value)],
    limits: Limits,
) -> Result<serde_json::Value, JsError> {
    run(&Script { api: "", kind: Kind::Plain, body }, globals, limits, None).map(|ran| ran.value)
}

/// One call a snippet made to its host: an API function's name, its arguments as JSON, and
/// where in the snippet the call is (1-based), when the engine said.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCall {
    /// The operation (`Insert`, `Get`, …), as the API's JavaScript names it.
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
pub(crate) const HOST_FUNCTION: &str = "__nib_host";

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
pub fn run_snippet(api: &str, body: &str, limits: Limits, call_limit: Duration, host: Host) -> Result<Ran, JsError> {
    run(&Script { api, kind: Kind::Async, body }, &[], limits, Some(Bridge { host, call_limit }))
}

/// A snippet's host and the time its call may take.
struct Bridge {
    host: Host,
    call_limit: Duration,
}

/// What the engine compiles: the API, then the body inside a function expression bound to
/// [`BODY_BINDING`].
struct Script<'a> {
    api: &'a str,
    kind: Kind,
    body: &'a str,
}

/// Whether the body is a plain function's or an async function's.
#[derive(Clone, Copy)]
enum Kind {
    Plain,
    Async,
}

/// The name the compiled body is bound to (a `const`: a body that closes its function early
/// cannot bind it again without a syntax error).
const BODY_BINDING: &str = "__nib_body";

impl Script<'_> {
    /// The function expression as its source text reads: what the compiled function's
    /// `toString()` must answer when the body is one function's body.
    fn function_text(&self) -> String {
        format!("{}{}\n}}", self.opening(), self.body)
    }

    fn opening(&self) -> &'static str {
        match self.kind {
            Kind::Plain => "function () {\n",
            Kind::Async => "async function () {\n",
        }
    }

    /// The script: the API, then `const __nib_body = <function>;`, the body on lines of its own.
    fn source(&self) -> String {
        let api = self.api.trim_end_matches('\n');
        let newline = if api.is_empty() { "" } else { "\n" };
        format!("{api}{newline}const {BODY_BINDING} = {};", self.function_text())
    }

    /// Lines of the script before the body's first.
    fn offset(&self) -> Offset {
        let api = self.api.trim_end_matches('\n');
        let api_lines = if api.is_empty() { 0 } else { api.lines().count() as u32 };
        Offset { lines: api_lines + 1 }
    }

    /// The error for a body whose function's source text is `compiled` instead of the whole
    /// body: the function ended early, at the `}` after what it holds.
    fn escaped(&self, compiled: &str) -> JsError {
        let held = compiled
            .strip_prefix(self.opening())
            .and_then(|rest| rest.strip_suffix('}'))
            .filter(|held| self.body.starts_with(held) && self.body[held.len()..].starts_with('}'));
        let (line, column) = match held {
            Some(held) => {
                let line = held.matches('\n').count() as u32 + 1;
                let column = held.rsplit('\n').next().map_or(0, |last| last.chars().count()) as u32 + 1;
                (line, column)
            }
            None => (1, 1),
        };
        JsError::Syntax {
            message: "this `}` closes the function the snippet is the body of; the code after it would run outside it"
                .into(),
            line,
            column,
        }
    }
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
            // The API marks every value JSON cannot carry; what is left is a property name.
            Err(error) if error.to_string().contains("surrogate") || error.to_string().contains("hex escape") => {
                return refused(&format!(
                    "{name}: a property name holds half of a UTF-16 pair (a lone surrogate such as \\uD800), which a snippet cannot write"
                ));
            }
            Err(error) => return refused(&format!("{name}: the arguments are not JSON: {error}")),
        };
        let (line, column) = place(&stack.0, offset, &[]);
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

/// Runs `script` and answers its body's value as JSON.
fn run(
    script: &Script,
    globals: &[(&str, serde_json::Value)],
    limits: Limits,
    bridge: Option<Bridge>,
) -> Result<Ran, JsError> {
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
    let offset = script.offset();
    let result = context.with(|ctx| -> Result<Ran, JsError> {
        let fail = |ctx: &Ctx, error: rquickjs::Error| caught(ctx, error, offset, script.body);
        ctx.eval::<(), _>(PRELUDE).map_err(|e| fail(&ctx, e))?;
        // Taken before the caller's code runs, so nothing it does can change them.
        let source_text: Function = ctx.eval("Function.prototype.toString").map_err(|e| fail(&ctx, e))?;
        let to_json: Function = ctx.eval(result::TO_JSON).map_err(|e| fail(&ctx, e))?;
        let global_object = ctx.globals();
        for (name, value) in globals {
            let parsed = ctx.json_parse(value.to_string()).map_err(|e| fail(&ctx, e))?;
            global_object.set(*name, parsed).map_err(|e| fail(&ctx, e))?;
        }
        let body = compile(&ctx, script, &source_text).map_err(|e| e.unwrap_or_else(|e| fail(&ctx, e)))?;
        // The host is reachable only once the body is known to be one function's body: code
        // a body ran outside its function (before that was found) could not reach nib.
        if let Some(bridge) = bridge {
            let host = host_function(ctx.clone(), bridge.host, offset, Rc::clone(&clock)).map_err(|e| fail(&ctx, e))?;
            global_object.set(HOST_FUNCTION, host).map_err(|e| fail(&ctx, e))?;
        }
        let value: rquickjs::Value = body.call(()).map_err(|e| fail(&ctx, e))?;
        let value = settled(&ctx, value).map_err(|e| fail(&ctx, e))?;
        as_json(&to_json, value, script.body).map_err(|e| e.unwrap_or_else(|e| fail(&ctx, e)))
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
        // `import()` asks for a module; a run has no loader, so nothing outside it can be read.
        Err(JsError::Thrown { message, line: None, .. }) if message.contains("could not load module") => {
            let imports = word_places(script.body, "import");
            let (line, column) = match imports.as_slice() {
                [(line, column)] => (Some(*line), Some(*column)),
                _ => (None, None),
            };
            Err(JsError::Thrown {
                message,
                line,
                column,
                hint: Some(
                    "a snippet cannot import modules: Insert, Get and the other operations are already defined, and nothing else can be loaded".into(),
                ),
            })
        }
        other => other,
    }
}

/// Compiles the script and answers the body's function, once its source text is known to be
/// the whole body. `Err(Ok(e))` is an error of nib's; `Err(Err(e))` one the engine threw.
fn compile<'js>(
    ctx: &Ctx<'js>,
    script: &Script,
    source_text: &Function<'js>,
) -> Result<Function<'js>, Result<JsError, rquickjs::Error>> {
    let mut options = rquickjs::context::EvalOptions::default();
    options.strict = false;
    let evaluated = ctx.eval_with_options::<(), _>(script.source(), options);
    // The binding is read even when the script threw: a body that closed its function early
    // and then threw is told as the early close, which is the mistake.
    let lookup = format!(
        "(() => {{ try {{ return typeof {BODY_BINDING} === 'function' ? {BODY_BINDING} : undefined; }} catch (e) {{ return undefined; }} }})()"
    );
    let compiled: Option<Function> = ctx.eval(lookup).ok().flatten();
    let Some(function) = compiled else {
        evaluated.map_err(Err)?;
        return Err(Ok(JsError::Engine("the snippet did not compile to a function".into())));
    };
    let text: String = source_text.call((This(function.clone()),)).map_err(Err)?;
    if text != script.function_text() {
        return Err(Ok(script.escaped(&text)));
    }
    evaluated.map_err(Err)?;
    Ok(function)
}

/// The value as JSON: a value JSON cannot hold is an error that names where in it, and a
/// string with half of a UTF-16 pair is repaired.
fn as_json<'js>(
    to_json: &Function<'js>,
    value: rquickjs::Value<'js>,
    body: &str,
) -> Result<Ran, Result<JsError, rquickjs::Error>> {
    let answer: Object = to_json.call((value,)).map_err(Err)?;
    if let Some(problem) = answer.get::<_, Option<String>>("problem").map_err(Err)? {
        // The engine keeps no place for a return; the body's only `return` is the one.
        let returns = word_places(body, "return");
        let (line, column) = match returns.as_slice() {
            [(line, column)] => (Some(*line), Some(*column)),
            _ => (None, None),
        };
        return Err(Ok(JsError::Thrown {
            message: format!("the returned value cannot be sent back as JSON: {problem}"),
            line,
            column,
            hint: Some("return plain data: strings, numbers, booleans, lists and objects of them".into()),
        }));
    }
    let Some(text) = answer.get::<_, Option<String>>("json").map_err(Err)? else {
        return Ok(Ran { value: serde_json::Value::Null, repaired: 0 });
    };
    let (text, repaired) = result::well_formed(&text);
    let value = serde_json::from_str(&text)
        .map_err(|e| Ok(JsError::Engine(format!("the returned value is not JSON nib can read: {e}"))))?;
    Ok(Ran { value, repaired })
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
fn caught(ctx: &Ctx, error: rquickjs::Error, offset: Offset, body: &str) -> JsError {
    let caught = Err::<(), _>(error).catch(ctx);
    let Err(caught) = caught else { return JsError::Engine("an error without a reason".into()) };
    match caught {
        CaughtError::Exception(exception) => {
            let message = exception.message().unwrap_or_default();
            let name: Option<String> = exception.get("name").ok();
            let constructors = constructor_names(exception.as_object());
            let stack = exception.stack().unwrap_or_default();
            // An error the API threw carries what to do about it.
            let hint: Option<String> = exception.get::<_, Option<String>>("hint").ok().flatten();
            let (line, column) = place(&stack, offset, &constructors);
            // A syntax error has no stack, only the place the parser stopped.
            let line_number: Option<u32> = exception.get("lineNumber").ok();
            let column_number: Option<u32> = exception.get("columnNumber").ok();
            let (line, column) = match (line, line_number) {
                (Some(line), _) => (Some(line), column),
                (None, Some(number)) if number > offset.lines => (Some(number - offset.lines), column_number),
                _ => (None, None),
            };
            // A class of the snippet's (`class Invalid extends Error {}`) keeps Error's name
            // unless it sets one: its own name says more.
            let name = match (name, constructors.first()) {
                (Some(name), Some(own)) if name == "Error" && own != "Error" && !own.is_empty() => Some(own.clone()),
                (name, _) => name,
            };
            match name.as_deref() {
                Some("SyntaxError") => {
                    JsError::Syntax { message, line: line.unwrap_or(1), column: column.unwrap_or(1) }
                }
                Some(name) => JsError::Thrown { message: format!("{name}: {message}"), line, column, hint },
                None => JsError::Thrown { message, line, column, hint },
            }
        }
        // QuickJS throws null when it cannot even make the "out of memory" error: a null the
        // body cannot have thrown itself (it has no `throw` and no `reject`) is that.
        CaughtError::Value(value)
            if value.is_null() && word_places(body, "throw").is_empty() && !body.contains("reject") =>
        {
            JsError::Thrown { message: "InternalError: out of memory".into(), line: None, column: None, hint: None }
        }
        CaughtError::Value(value) => {
            let text = ctx
                .json_stringify(value)
                .ok()
                .flatten()
                .and_then(|s| s.to_string().ok())
                .unwrap_or_else(|| "a value".to_owned());
            // The engine keeps a place only for Error objects: the body's `throw`s say where.
            let throws = word_places(body, "throw");
            let (line, column, message) = match throws.as_slice() {
                [(line, column)] => (Some(*line), Some(*column), format!("uncaught {text}")),
                [] => (None, None, format!("uncaught {text}")),
                many => {
                    let lines: Vec<String> = many.iter().map(|(line, _)| line.to_string()).collect();
                    (
                        None,
                        None,
                        format!("uncaught {text}, thrown by one of the `throw`s at lines {}", lines.join(", ")),
                    )
                }
            };
            JsError::Thrown {
                message,
                line,
                column,
                hint: Some(format!(
                    "throw an Error, not a bare value (throw new Error({text})): an Error carries the place it was made"
                )),
            }
        }
        CaughtError::Error(error) => JsError::Engine(error.to_string()),
    }
}

/// The names of the constructors an error was made by, its own first (`Invalid`, `Error`),
/// up to Error; empty when it is not an object with a prototype.
fn constructor_names(error: &Object) -> Vec<String> {
    let mut names = Vec::new();
    let mut prototype = error.get_prototype();
    while let Some(object) = prototype {
        if names.len() >= 16 {
            break;
        }
        let name: Option<String> =
            object.get::<_, Option<Object>>("constructor").ok().flatten().and_then(|c| c.get("name").ok());
        let Some(name) = name else { break };
        let end = name == "Error";
        names.push(name);
        if end {
            break;
        }
        prototype = object.get_prototype();
    }
    names
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
    fn a_snippet_reaches_nothing_outside_its_run() {
        let names = run(r#"const global = [].constructor.constructor("return this")();
            return [typeof require, typeof process, typeof fetch, typeof std, typeof os, typeof setTimeout,
                global === globalThis];"#)
        .unwrap();
        assert_eq!(names, json!(["undefined", "undefined", "undefined", "undefined", "undefined", "undefined", true]));
        for (body, at) in [("return import('os');", 1), ("let m = 1;\nreturn import('std').then((s) => s);", 2)] {
            match run(body) {
                Err(JsError::Thrown { message, line, hint, .. }) => {
                    assert!(message.contains("could not load module"), "{message}");
                    assert_eq!(line, Some(at), "{body}");
                    assert!(hint.unwrap().contains("cannot import modules"));
                }
                other => panic!("{body}: {other:?}"),
            }
        }
    }

    #[test]
    fn random_and_the_clock_are_the_same_every_time() {
        let first = run("return [Math.random(), Math.random(), Date.now(), new Date().getTime()];").unwrap();
        assert_eq!(first, run("return [Math.random(), Math.random(), Date.now(), new Date().getTime()];").unwrap());
        assert_eq!(first[2], json!(0));
    }

    #[test]
    fn no_clock_is_readable_and_dates_are_utc() {
        let read = run(r#"return [performance.now(), performance.timeOrigin, typeof crypto,
            new Date(2020, 0, 1).getTime() === Date.UTC(2020, 0, 1), new Date(0).getTimezoneOffset(),
            String(new Date(Date.UTC(2021, 5, 3, 14, 5, 9))), new Date(Date.UTC(2021, 5, 3, 14)).getHours(),
            Date.parse("2020-01-01T00:00") === Date.UTC(2020, 0, 1), Date.parse("2020-01-01T00:00+02:00"),
            new Date(86400000).toLocaleString(), new Date().constructor === Date];"#)
        .unwrap();
        assert_eq!(
            read,
            json!([
                0,
                0,
                "undefined",
                true,
                0,
                "Thu Jun 03 2021 14:05:09 GMT+0000",
                14,
                true,
                1577829600000i64,
                "01/02/1970, 12:00:00 AM",
                true
            ])
        );
    }

    #[test]
    fn a_body_cannot_close_its_function_and_run_code_outside_it() {
        let escaped = run("return 1 }; globalThis.ran = 1; const again = function () {").unwrap_err();
        assert_eq!(
            escaped,
            JsError::Syntax {
                message:
                    "this `}` closes the function the snippet is the body of; the code after it would run outside it"
                        .into(),
                line: 1,
                column: 10
            }
        );
        let calls = Rc::new(Cell::new(0));
        let counted = Rc::clone(&calls);
        let counting: Host = Box::new(move |_: HostCall| {
            counted.set(counted.get() + 1);
            Ok(json!(0))
        });
        let long = Duration::from_secs(55);
        let body = "let a = {};\n  return 1 }; Twice(1); const again = async function () {";
        let escaped = run_snippet(API, body, Limits::PEN, long, counting).unwrap_err();
        assert!(matches!(&escaped, JsError::Syntax { line: 2, column: 12, .. }), "{escaped:?}");
        assert_eq!(calls.get(), 0, "the code after the brace never reached the host");
        // Written for a wrapper of another shape, the same attempt is a syntax error.
        assert!(matches!(run("return 1 }); (function () {").unwrap_err(), JsError::Syntax { .. }));
        // Braces in strings, comments and nested functions are a body's own.
        assert_eq!(run("const f = () => { return '}'; }; // }\nreturn f();").unwrap(), json!("}"));
    }

    #[test]
    fn every_failure_has_its_place() {
        let thrown = run("let a = 1;\n  throw 42;").unwrap_err();
        assert!(matches!(&thrown, JsError::Thrown { line: Some(2), column: Some(3), hint: Some(_), .. }), "{thrown:?}");
        let classed =
            run("class Invalid extends Error {}\nfunction check() { return new Invalid('no'); }\nlet a = 1;\nthrow check();")
                .unwrap_err();
        assert!(
            matches!(&classed, JsError::Thrown { message, line: Some(2), .. } if message == "Invalid: no"),
            "{classed:?}"
        );
        let circular = run("const a = {list: [1]};\na.list.push(a);\nreturn a;").unwrap_err();
        assert!(
            matches!(&circular, JsError::Thrown { message, line: Some(3), hint: Some(_), .. } if message.contains("result.list[1] is an object that holds itself")),
            "{circular:?}"
        );
        let big = run("return {n: 10n};").unwrap_err();
        assert!(big.to_string().contains("result.n is a BigInt (10n)"), "{big}");
    }

    #[test]
    fn a_lone_surrogate_in_a_result_is_repaired_and_counted() {
        let quick: Host = Box::new(|_: HostCall| Ok(json!(0)));
        let ran =
            run_snippet(API, "return ['a\\uD800', {['k\\uDC00']: 1}];", Limits::PEN, Duration::from_secs(55), quick)
                .unwrap();
        assert_eq!(ran, Ran { value: json!(["a\u{FFFD}", {"k\u{FFFD}": 1}]), repaired: 2 });
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
                .unwrap()
                .value;
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
        .unwrap()
        .value;
        assert_eq!(value, json!([4, 8]));
        // Without an await, a snippet runs as it always did.
        assert_eq!(run_snippet(API, "return Twice(3);", Limits::PEN, long, quick()).unwrap().value, json!(6));
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
            .unwrap()
            .value;
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
            .unwrap()
            .value;
        assert_eq!(value, json!(3));
        let stopped =
            run_snippet(API, "while (true) Twice(1);", limits, Duration::from_millis(700), slow()).unwrap_err();
        assert_eq!(stopped, JsError::CallLimit(Duration::from_millis(700)));
        let quick: Host = Box::new(|_: HostCall| Ok(json!(1)));
        let looped = run_snippet(API, "while (true) {}", limits, Duration::from_secs(55), quick).unwrap_err();
        assert_eq!(looped, JsError::Deadline(Duration::from_millis(300)));
    }
}
