//! nib's review of designs in git and CI: a structural diff and outline of documents, the
//! three-way merge driver, pictures of every top-level frame compared perceptually, snapshot
//! tests with goldens, and their reports (text, JSON, HTML, JUnit).

#![forbid(unsafe_code)]
// No `missing_docs` here: this crate is one of nib's stages, used by nib's own crates only; the
// API is the `nib` crate's (src/lib.rs), which keeps the lint. Modules and types say why they
// exist; the lint asked for a line on every field, which got filler, not documentation.

// The stages below, under the names this crate's modules use for them.
use nib_doc::{diagnostic, doc, files, hash, markup, printable};
use nib_render::{compile, host, render};
#[cfg(test)]
use nib_scene::text;
use nib_scene::{layout, resolve};

pub mod review;
