//! `nib fmt`: rewrite documents in canonical form.

use std::path::PathBuf;
use std::process::ExitCode;

use nib::doc::io::{read_document_bytes, save_file};
use nib::doc::{Document, ProblemKind};

/// `nib fmt`'s arguments.
#[derive(Debug, clap::Args)]
pub struct FmtArgs {
    /// The files to format.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Do not write; exit 1 if a file is not already canonical.
    #[arg(long)]
    check: bool,
}

impl FmtArgs {
    /// Formats the files.
    pub fn run(self) -> ExitCode {
        run(&self.files, self.check)
    }
}

/// Compares what is written with `expected`, holding nothing.
struct Compare<'a> {
    expected: &'a [u8],
    /// Bytes matched so far; `None` once something differs.
    matched: Option<usize>,
}

impl std::io::Write for Compare<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Some(at) = self.matched {
            self.matched = (self.expected.get(at..at + bytes.len()) == Some(bytes)).then_some(at + bytes.len());
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// True when `document` prints exactly as `current`.
fn is_canonical(document: &Document, current: &[u8]) -> bool {
    let mut compare = Compare { expected: current, matched: Some(0) };
    document.write_pen(&mut compare).is_ok() && compare.matched == Some(current.len())
}

/// Exit 1 when a file does not load or (with --check) is not canonical, 2 when one cannot be
/// read or saved.
pub fn run(files: &[PathBuf], check_only: bool) -> ExitCode {
    let mut code = 0u8;
    for path in files {
        // Read and rewritten under the document's lock (a check writes nothing).
        let _lock = match (!check_only).then(|| super::documents::lock_document(path)).transpose() {
            Ok(lock) => lock,
            Err(_) => {
                code = 2;
                continue;
            }
        };
        // Only a regular file that loads is ever written: nothing else is touched.
        let loaded = match read_document_bytes(path) {
            Ok(bytes) => Document::load_bytes(&bytes)
                .map(|loaded| (bytes, loaded))
                .map_err(|error| (format!("{}:{error}", path.display()), 1)),
            Err(error) => Err((error.to_string(), 2)),
        };
        let (current, loaded) = match loaded {
            Ok(read) => read,
            Err((error, failed)) => {
                tell!("nib: {error}");
                code = code.max(failed);
                continue;
            }
        };
        // Printed and compared as it goes: a document can print far larger than it reads.
        if is_canonical(&loaded.document, &current) {
            say!("{}: already canonical", path.display());
            continue;
        }
        if check_only {
            say!("{}: not canonical (nib fmt would rewrite it)", path.display());
            code = code.max(1);
            continue;
        }
        if loaded.problems.iter().any(|p| p.kind == ProblemKind::Comments) {
            say!("{}: note: comments are removed", path.display());
        }
        drop(current);
        match save_file(&loaded.document, path) {
            Ok(()) => say!("{}: formatted", path.display()),
            Err(error) => {
                tell!("nib: {}: not formatted: {}", path.display(), super::documents::save_error_text(&error));
                code = code.max(super::documents::save_failure_code(&error));
            }
        }
    }
    ExitCode::from(code)
}
