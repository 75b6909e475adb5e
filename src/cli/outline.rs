//! `nib outline FILE`: the document as one line per node, for `git diff` (textconv).

use std::path::Path;
use std::process::ExitCode;

use nib::doc::io::{FileError, read_file};
use nib::review::outline::outline;

pub fn run(file: &Path) -> ExitCode {
    match read_file(file) {
        Ok(loaded) => {
            say_part!("{}", outline(&loaded.document));
            ExitCode::SUCCESS
        }
        Err(error) => {
            tell!("nib: {error}");
            match error {
                FileError::Load { .. } => ExitCode::from(1),
                FileError::File(_) => ExitCode::from(2),
            }
        }
    }
}
