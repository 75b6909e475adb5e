//! Command-line commands. Each command lives in its own module and returns the process exit
//! code: 0 success, 1 invalid input (a file that does not load, a file that is not formatted),
//! 2 a usage or I/O problem.

mod check;
mod fmt;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A headless canvas engine for .pen design files.
#[derive(Debug, Parser)]
#[command(name = "nib", version, about, long_about = None)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate .pen files: node counts per type, version, problems. Exits 1 if a file is invalid.
    Check {
        /// The files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also fail (exit 1) on warnings.
        #[arg(long)]
        strict: bool,
        /// Print only problems and the summary.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Rewrite .pen files in the canonical form Pencil saves (2-space JSON, no comments).
    Fmt {
        /// The files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Do not write; exit 1 if a file is not already canonical.
        #[arg(long)]
        check: bool,
    },
}

/// Runs the parsed command.
pub fn run(args: Args) -> std::io::Result<ExitCode> {
    match args.command {
        Command::Check { files, strict, quiet } => Ok(check::run(&files, check::Options { strict, quiet })),
        Command::Fmt { files, check } => Ok(fmt::run(&files, check)),
    }
}
