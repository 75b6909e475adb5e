//! nib's exports: SVG (a `match` over the display list, as the PNG painter is), PDF (krilla
//! drawing that SVG, text kept as text), HTML/CSS pages where the design fits the web's boxes,
//! design tokens, and JPEG/WebP. The export run takes its pictures from a compiled document
//! and its files from the host; it writes only where its caller confined it.

#![forbid(unsafe_code)]
// No `missing_docs` here: this crate is one of nib's stages, used by nib's own crates only; the
// API is the `nib` crate's (src/lib.rs), which keeps the lint. Modules and types say why they
// exist; the lint asked for a line on every field, which got filler, not documentation.

// The stages below, under the names this crate's modules use for them.
use nib_doc::{diagnostic, doc, files, geometry, hash, markup};
use nib_render::{compile, host, render};
use nib_scene::{display, layout, resolve, text};

pub mod export;
