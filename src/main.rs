//! The `nib` command line.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    cli::allocator::keep_freed_memory();
    let args = cli::Args::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("nib: {error}");
            ExitCode::from(2)
        }
    }
}
