//! The `nib` command line.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc keeps freed memory for the next allocation instead of returning large blocks to
/// the system, where every later layer of a render would fault its pages in again (glibc's
/// default): a few milliseconds of a `nib render --node` process. The library leaves the
/// choice of allocator to its users.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("nib: {error}");
            ExitCode::from(2)
        }
    }
}
