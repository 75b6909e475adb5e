//! The documents commands work on: read (whole, as an excerpt, or with what it imports) and
//! held under their lock while a command changes them, why a save failed or is refused, and
//! the scripts and snippets run against them.

use std::path::Path;
use std::process::ExitCode;

use super::warn;

/// Takes the lock of the document at `file` for a command's whole read → change → write, so it
/// changes the file as the last writer left it (DESIGN.md, "Writers take turns"); when another
/// writer holds it past the wait, says so and answers exit 2.
pub fn lock_document(file: &Path) -> Result<nib::files::DocumentLock, ExitCode> {
    nib::files::DocumentLock::acquire(file).map_err(|error| {
        tell!("nib: {error}");
        ExitCode::from(2)
    })
}

/// The exit code of a document that could not be read: 1 when it was read and is not a valid
/// document (its content is refused), 2 when the file itself could not be read.
pub fn read_failure_code(error: &nib::doc::io::ReadError) -> u8 {
    match error {
        nib::doc::io::ReadError::Load { .. } => 1,
        nib::doc::io::ReadError::File(_) => 2,
    }
}

/// The exit code of a save that failed: 1 when the document would go past one of nib's limits
/// (the change is refused), 2 when the file could not be written.
pub fn save_failure_code(error: &nib::files::FileError) -> u8 {
    if over_limit(error).is_some() { 1 } else { 2 }
}

/// Reads the document `file`; with `parts`, only what drawing those nodes needs (an excerpt,
/// see `Document::load_excerpt`).
pub fn read_document(file: &Path, parts: Option<&[String]>) -> Result<nib::doc::Document, ExitCode> {
    let read = match parts {
        Some(ids) => nib::doc::io::read_excerpt(file, ids),
        None => nib::doc::io::read_file(file),
    };
    read.map(|loaded| {
        // What a newer Pen wrote and nib keeps but does not draw, and what a save would change,
        // is said once, whatever the command (nib check lists every problem itself).
        for problem in loaded.problems.iter().filter(|p| p.kind.is_said_everywhere()) {
            warn(&format!("{}:{problem}", file.display()));
        }
        loaded.document
    })
    .map_err(|error| {
        tell!("nib: {error}");
        ExitCode::from(read_failure_code(&error))
    })
}

/// Reads `file` and the documents it imports (their problems printed as warnings).
pub fn read_with_imports(
    file: &Path,
    fonts: &nib::text::FontOptions,
) -> Result<(nib::doc::Document, nib::compile::Compiler<'static>), ExitCode> {
    let document = read_document(file, None)?;
    let host = nib::host::DiskHost::new(file, fonts.clone());
    let mut compiler = nib::compile::Compiler::shared(std::sync::Arc::new(host));
    for diagnostic in compiler.import_diagnostics(&document) {
        warn(&diagnostic);
    }
    Ok((document, compiler))
}

/// A batch_design script or an execute snippet (`what` names it) from a file, a pipe such as
/// `<(…)`, or standard input (`-`), refused as soon as it passes `limit` bytes, so an endless
/// stream cannot fill memory. Devices (`/dev/zero`), sockets and folders are refused before
/// they are read, as the document reader refuses them; a pipe is read (a shell's `<(…)` is
/// one), within the same limit.
pub fn read_script_text(path: &Path, limit: usize, what: &str) -> Result<String, nib::diagnostic::Diagnostic> {
    use nib::diagnostic::Diagnostic;
    use nib::files::{FileError, LimitedRead, read_limited, read_regular};
    let shown = if path == Path::new("-") { "standard input".to_owned() } else { path.display().to_string() };
    let error = |message: String| Diagnostic::error("script-file", message);
    let too_large = || {
        error(format!("the {what} in {shown} is larger than {limit} bytes, the most one call takes"))
            .with_hint("split the work over several calls")
    };
    let limited = |read: Result<Vec<u8>, LimitedRead>| {
        read.map_err(|e| match e {
            LimitedRead::Io(failure) => error(format!("reading the {what} from {shown}: {failure}")),
            LimitedRead::TooLarge => too_large(),
        })
    };
    let bytes = if path == Path::new("-") {
        limited(read_limited(std::io::stdin().lock(), limit as u64, 0))?
    } else if is_pipe(path) {
        let file = std::fs::File::open(path).map_err(|e| error(format!("the {what} {shown}: {e}")))?;
        limited(read_limited(file, limit as u64, 0))?
    } else {
        read_regular(path, limit as u64).map_err(|e| match e {
            FileError::TooLarge { .. } => too_large(),
            FileError::NotRegular { kind, .. } => error(format!("the {what} {shown} is {kind}"))
                .with_hint("give a file, a pipe such as <(…), or - for standard input"),
            other => error(format!("the {what}: {other}")),
        })?
    };
    String::from_utf8(bytes)
        .map_err(|e| error(format!("the {what} in {shown} is not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))
}

/// True for a pipe (a shell's `<(…)`, a FIFO).
fn is_pipe(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Why a document could not be saved, for a person: the limit it would go past and what to do,
/// when that is the reason (the file is then as it was).
pub fn save_error_text(error: &nib::files::FileError) -> String {
    match over_limit(error) {
        Some(over) => format!("{over}; the file is unchanged\n  hint: {}", over.hint()),
        None => error.to_string(),
    }
}

/// The limit a failed save would have gone past, when that is why it failed.
fn over_limit(error: &nib::files::FileError) -> Option<nib::doc::json::OverLimit> {
    match error {
        nib::files::FileError::Io { source, .. } => nib::doc::over_limit(source),
        _ => None,
    }
}

/// The refusal of a changed `document` that holds more nodes than a file may, or whose instances
/// expand past the document's budget, so that `nib check` would call the saved file invalid
/// (the other limits of the reader are counted as the file is written). A document already past the budget
/// before the change (`before`: the file as it is on disk) may still be saved, so it can be
/// repaired a step at a time, as the MCP tools allow (DECISIONS.md, Limits).
pub fn past_limits_refusal(
    document: &nib::doc::Document,
    host: &dyn nib::host::Host,
    before: impl FnOnce() -> Option<nib::doc::Document>,
) -> Option<String> {
    use nib::resolve::SceneOptions;
    if let Some(over) = document.past_node_limit() {
        return Some(format!("{over}; the file is unchanged\n  hint: {}", over.hint()));
    }
    let after = nib::compile::Compiler::new(host).partial_scene(document, SceneOptions::FULL);
    let error = after.error()?;
    let refusal = format!("{error}\n  hint: {}", error.hint());
    drop(after);
    let earlier = before()?;
    match nib::compile::Compiler::new(host).partial_scene(&earlier, SceneOptions::FULL).error() {
        Some(_) => None,
        None => Some(refusal),
    }
}
