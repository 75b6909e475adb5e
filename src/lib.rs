//! nib: a headless canvas engine for `.pen` design files.
//!
//! The pipeline (see DESIGN.md): `.pen` JSON is loaded into a [`doc::Document`], the single
//! source of truth that is edited and saved losslessly. The lower stages are crates of their own
//! (`nib-doc`, `nib-scene`, `nib-fonts`), re-exported here under the names nib has always used.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use nib_doc::{diagnostic, doc, files, geometry, hash, markup, numbers, printable, random};
#[cfg(any(feature = "network-images", feature = "network-fonts"))]
pub use nib_scene::http;
pub use nib_scene::{display, js, layout, resolve, text};

pub mod compile;
pub mod export;
pub mod host;
pub mod images;
pub mod mcp;
pub mod render;
pub mod review;
pub mod script;
pub mod serve;
pub mod tools;
