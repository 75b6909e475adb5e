//! nib's design tools: the batch_design language (parsed, validated and run in one transaction
//! with undo), G() image providers, and the tools agents call (batch_design, batch_get,
//! get_screenshot, snapshot_layout, variables, export, …) over a workspace of open documents.
//! With the host below it, `tools` is the only code that touches the files of a workspace.

#![forbid(unsafe_code)]
// No `missing_docs` here: this crate is one of nib's stages, used by nib's own crates only; the
// API is the `nib` crate's (src/lib.rs), which keeps the lint. Modules and types say why they
// exist; the lint asked for a line on every field, which got filler, not documentation.

// The stages below, under the names this crate's modules use for them.
use nib_doc::{diagnostic, doc, files, hash, numbers, printable, random};
use nib_export::export;
use nib_js::js;
#[cfg(feature = "network-images")]
use nib_render::http;
use nib_render::{compile, host, render};
use nib_review::review;
use nib_scene::{display, layout, resolve, text};

pub mod images;
pub mod script;
pub mod tools;
