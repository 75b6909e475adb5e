//! `nib fmt`: rewrite documents in canonical form.

use std::path::PathBuf;
use std::process::ExitCode;

use nib::doc::io::{read_document_bytes, write_atomic};
use nib::doc::{Document, ProblemKind};

pub fn run(files: &[PathBuf], check_only: bool) -> ExitCode {
    let mut failed = false;
    for path in files {
        // Only a regular file that loads is ever written: nothing else is touched.
        let loaded = match read_document_bytes(path) {
            Ok(bytes) => Document::load_bytes(&bytes)
                .map(|loaded| (bytes, loaded))
                .map_err(|error| format!("{}:{error}", path.display())),
            Err(error) => Err(error.to_string()),
        };
        let (current, loaded) = match loaded {
            Ok(read) => read,
            Err(error) => {
                eprintln!("nib: {error}");
                failed = true;
                continue;
            }
        };
        let canonical = loaded.document.to_pen_string();
        if current == canonical.as_bytes() {
            say!("{}: already canonical", path.display());
            continue;
        }
        if check_only {
            say!("{}: not canonical (nib fmt would rewrite it)", path.display());
            failed = true;
            continue;
        }
        if loaded.problems.iter().any(|p| p.kind == ProblemKind::Comments) {
            say!("{}: note: comments are removed", path.display());
        }
        match write_atomic(path, canonical.as_bytes()) {
            Ok(()) => say!("{}: formatted", path.display()),
            Err(error) => {
                eprintln!("nib: could not write: {error}");
                failed = true;
            }
        }
    }
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
