//! nib's review of designs in git and CI: a structural diff and outline of documents, the
//! three-way merge driver, pictures of every top-level frame compared perceptually, snapshot
//! tests with goldens, and their reports (text, JSON, HTML, JUnit).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The stages below, under the names this crate's modules use for them.
use nib_doc::{diagnostic, doc, files, hash, markup, printable};
use nib_render::{compile, host, render};
#[cfg(test)]
use nib_scene::text;
use nib_scene::{layout, resolve};

pub mod review;
