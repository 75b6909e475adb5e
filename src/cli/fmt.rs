//! `nib fmt`: rewrite documents in canonical form.

use std::path::PathBuf;
use std::process::ExitCode;

use nib::doc::ProblemKind;
use nib::doc::io::{read_file, write_atomic};

pub fn run(files: &[PathBuf], check_only: bool) -> ExitCode {
    let mut failed = false;
    for path in files {
        let loaded = match read_file(path) {
            Ok(loaded) => loaded,
            Err(error) => {
                // Nothing is written for a file that does not load.
                say!("{error}");
                failed = true;
                continue;
            }
        };
        let canonical = loaded.document.to_pen_string();
        let current = std::fs::read(path).unwrap_or_default();
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
                say!("{}: could not write: {error}", path.display());
                failed = true;
            }
        }
    }
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
