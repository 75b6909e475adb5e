//! `nib merge-driver BASE OURS THEIRS [PATH]`: git's merge driver contract (`%O %A %B %P`).
//! A clean merge overwrites OURS with the result and exits 0; a conflict writes nothing, lists
//! the places and exits 1 (git then keeps OURS as the working file and marks it conflicted);
//! a file that cannot be read exits 2, also without writing.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::doc::Document;
use nib::doc::io::{read_document_bytes, write_atomic};
use nib::review::merge::merge;

/// `nib merge-driver`'s arguments, in the order git's %O %A %B %P gives them.
#[derive(Debug, clap::Args)]
pub struct MergeDriverArgs {
    /// The common ancestor (git's %O).
    base: PathBuf,
    /// Our version, overwritten with the result (git's %A).
    ours: PathBuf,
    /// Their version (git's %B).
    theirs: PathBuf,
    /// The file's name in the repository, for messages (git's %P).
    name: Option<String>,
}

impl MergeDriverArgs {
    /// Merges the three versions into OURS.
    pub fn run(self) -> ExitCode {
        let MergeDriverArgs { base, ours, theirs, name } = self;
        run(&base, &ours, &theirs, name.as_deref())
    }
}

pub fn run(base: &Path, ours: &Path, theirs: &Path, name: Option<&str>) -> ExitCode {
    let name = name.map_or_else(|| ours.display().to_string(), str::to_owned);
    // Ours is read and replaced under its lock.
    let _lock = match super::documents::lock_document(ours) {
        Ok(lock) => lock,
        Err(code) => return code,
    };
    let read = |path: &Path| -> Result<(Vec<u8>, Document), nib::diagnostic::Diagnostic> {
        let bytes = read_document_bytes(path).map_err(|e| nib::diagnostic::Diagnostic::error("file", e.to_string()))?;
        let document = Document::load_bytes(&bytes).map_err(|e| e.diagnostic(Some(path)))?.document;
        Ok((bytes, document))
    };
    let (base, ours_read, theirs_read) = match (read(base), read(ours), read(theirs)) {
        (Ok(base), Ok(ours), Ok(theirs)) => (base, ours, theirs),
        (Err(error), ..) | (_, Err(error), _) | (.., Err(error)) => {
            tell!("nib: {name}: cannot merge: {}", super::printable_lines(&error.to_text(None)));
            return ExitCode::from(2);
        }
    };
    // Only one side changed (or both the same way): that side's bytes are the result, exactly.
    if theirs_read.0 == base.0 || theirs_read.0 == ours_read.0 {
        return ExitCode::SUCCESS;
    }
    if ours_read.0 == base.0 {
        return write(ours, &theirs_read.0, &name);
    }
    match merge(&base.1, &ours_read.1, &theirs_read.1) {
        Ok(merged) if merged.taken == 0 => {
            say!("nib: {name}: merged (nothing to take from theirs)");
            ExitCode::SUCCESS
        }
        Ok(merged) => {
            // Neither side may have gone past the expansion budget alone, and yet both together.
            let host = nib::host::DiskHost::new(ours, nib::text::FontOptions::default());
            if let Some(refusal) = super::documents::past_limits_refusal(&merged.document, &host, || Some(ours_read.1))
            {
                say!("nib: {name}: 1 conflict; the file is left as ours:");
                say!("  document: the merged document would not resolve: {refusal}");
                return ExitCode::from(1);
            }
            let code = write(ours, merged.document.to_pen_string().as_bytes(), &name);
            if code == ExitCode::SUCCESS {
                say!(
                    "nib: {name}: merged ({} change{} taken from theirs)",
                    merged.taken,
                    if merged.taken == 1 { "" } else { "s" }
                );
            }
            code
        }
        Err(conflicts) => {
            say!(
                "nib: {name}: {} conflict{}; the file is left as ours:",
                conflicts.len(),
                if conflicts.len() == 1 { "" } else { "s" }
            );
            for conflict in conflicts {
                say!("  {conflict}");
            }
            ExitCode::from(1)
        }
    }
}

fn write(path: &Path, bytes: &[u8], name: &str) -> ExitCode {
    match write_atomic(path, bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tell!("nib: {name}: cannot write the merged file: {error}");
            ExitCode::from(2)
        }
    }
}
