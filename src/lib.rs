//! nib: a headless canvas engine for `.pen` design files.
//!
//! The pipeline (see DESIGN.md): `.pen` JSON is loaded into a [`doc::Document`], the single
//! source of truth that is edited and saved losslessly. The lower stages are crates of their own
//! (`nib-doc`, `nib-scene`, `nib-fonts`), re-exported here under the names nib has always used.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use nib_doc::{diagnostic, doc, files, geometry, hash, markup, numbers, printable, random};
pub use nib_export::export;
pub use nib_render::{compile, host, render};
pub use nib_review::review;
#[cfg(any(feature = "network-images", feature = "network-fonts"))]
pub use nib_scene::http;
pub use nib_scene::{display, js, layout, resolve, text};
pub use nib_tools::{images, script, tools};

pub mod mcp;
pub mod serve;
