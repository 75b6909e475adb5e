//! The integration tests, one executable: each file of this folder is a module (they ran as
//! 34 executables of about 120 MB each, linked one by one and run one after another). The
//! memory budget stays its own executable (`tests/memory.rs`): it counts the allocations of
//! the whole process.

mod common;

mod atomic_write;
mod batch_corpus;
mod batch_ops;
mod batch_props;
mod cli;
mod corpus;
mod corpus_pixels;
mod excerpt;
mod execute;
mod export;
#[cfg(unix)]
mod export_outputs;
mod export_react;
mod fonts;
mod fuzz_budget;
mod fuzz_load;
mod fuzz_merge;
mod fuzz_tools;
mod guides;
#[cfg(unix)]
mod hostile_files;
mod layers;
mod layout_corpus;
mod layout_expected;
mod lint;
mod load_errors;
mod mcp;
mod mcp_answers;
mod mcp_execute;
mod mcp_framing;
#[cfg(unix)]
mod mcp_hostile;
mod mcp_stdout;
mod newer_pen;
mod pen_current;
mod pen_layout;
mod pen_pictures;
mod pencil_conformance;
mod pencil_order;
mod render_snapshots;
mod resolve;
mod review_diff;
mod review_git;
mod review_snapshot;
mod save_limits;
mod schema;
mod serve;
mod text_conformance;
mod tools;
#[cfg(unix)]
mod writers;
