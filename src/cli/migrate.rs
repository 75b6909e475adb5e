//! `nib migrate`: move documents to another format version, as the current Pen app does when it
//! opens an older file (and back, where nothing is lost). Every change is listed.

use std::path::PathBuf;
use std::process::ExitCode;

use nib::diagnostic::Diagnostic;
use nib::doc::format::Version;
use nib::doc::io::{read_document_bytes, save_file};
use nib::doc::migrate::{MigrateError, migrate};
use nib::doc::{Document, ProblemKind};
use nib::printable::one_line;

/// The examples `nib migrate --help` ends with.
pub const EXAMPLES: &str = "Examples:
  nib migrate design.pen                      to 2.20, as the current Pen app would
  nib migrate --check designs/*.pen           list what would change; exit 1 if anything would
  nib migrate --to 2.13 design.pen            back to 2.13 when nothing is lost";

/// `nib migrate`'s arguments.
#[derive(Debug, clap::Args)]
pub struct MigrateArgs {
    /// The files to migrate.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The version to move to.
    #[arg(long, default_value_t = nib::doc::format::Version::NEWEST, value_parser = parse_version)]
    to: nib::doc::format::Version,
    /// Do not write; list the changes and exit 1 if a file is not at that version.
    #[arg(long)]
    check: bool,
}

impl MigrateArgs {
    /// Migrates the files.
    pub fn run(self) -> ExitCode {
        run(&self.files, self.to, self.check)
    }
}

/// Parses `--to`: a version nib reads and writes.
pub fn parse_version(text: &str) -> Result<Version, Diagnostic> {
    match Version::parse(text) {
        Some(version) if version.is_known() => Ok(version),
        _ => Err(super::argument_error(format!(
            "'{}' is not a format version nib writes; use one of 2.6 to {}",
            one_line(text),
            Version::NEWEST
        ))),
    }
}

/// Migrates each file to `to`; with `check_only`, writes nothing and fails when a file is not
/// at `to` yet. Exit 1 when a file does not load, cannot move without loss, or (with --check)
/// would change; 2 when a file cannot be read or written.
pub fn run(files: &[PathBuf], to: Version, check_only: bool) -> ExitCode {
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
        let shown = path.display();
        let loaded = match read_document_bytes(path) {
            Ok(bytes) => Document::load_bytes(&bytes).map_err(|error| (format!("{shown}:{error}"), 1)),
            Err(error) => Err((error.to_string(), 2)),
        };
        let mut loaded = match loaded {
            Ok(loaded) => loaded,
            Err((error, failed)) => {
                tell!("nib: {error}");
                code = code.max(failed);
                continue;
            }
        };
        let changes = match migrate(&mut loaded.document, to) {
            Ok(changes) => changes,
            Err(error @ MigrateError::Lossy { .. }) => {
                tell!("nib: {shown}: {error}");
                tell!("  hint: keep the file at its version, or remove what is listed and migrate again");
                code = code.max(1);
                continue;
            }
            Err(error) => {
                tell!("nib: {shown}: {error}");
                code = code.max(2);
                continue;
            }
        };
        if changes.is_empty() {
            say!("{shown}: already at {to}");
            continue;
        }
        // The first change is the version itself; the rest are the nodes'.
        let node_changes = changes.len() - 1;
        say!("{shown}: {}, {node_changes} node change{}", changes[0].what, plural(node_changes));
        for change in &changes[1..] {
            say!("  node '{}': {}", one_line(&change.node), one_line(&change.what));
        }
        if check_only {
            say!("  not written (--check)");
            code = code.max(1);
            continue;
        }
        if loaded.problems.iter().any(|p| p.kind == ProblemKind::Comments) {
            say!("  note: comments are removed");
        }
        match save_file(&loaded.document, path) {
            Ok(()) => say!("  saved"),
            Err(error) => {
                tell!("nib: {shown}: not migrated: {}", super::documents::save_error_text(&error));
                code = code.max(super::documents::save_failure_code(&error));
            }
        }
    }
    ExitCode::from(code)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
