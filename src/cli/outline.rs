//! `nib outline FILE`: the document as one line per node, for `git diff` (textconv).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::doc::io::read_file;
use nib::review::outline::outline;

/// `nib outline`'s arguments.
#[derive(Debug, clap::Args)]
pub struct OutlineArgs {
    /// The .pen file.
    file: PathBuf,
}

impl OutlineArgs {
    /// Prints the outline.
    pub fn run(self) -> ExitCode {
        run(&self.file)
    }
}

pub fn run(file: &Path) -> ExitCode {
    match read_file(file) {
        Ok(loaded) => {
            say_part!("{}", outline(&loaded.document));
            ExitCode::SUCCESS
        }
        Err(error) => {
            tell!("nib: {error}");
            ExitCode::from(super::documents::read_failure_code(&error))
        }
    }
}
