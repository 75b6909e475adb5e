//! nib's exports: SVG (a `match` over the display list, as the PNG painter is), PDF (krilla
//! drawing that SVG, text kept as text), HTML/CSS pages where the design fits the web's boxes,
//! design tokens, and JPEG/WebP. The export run takes its pictures from a compiled document
//! and its files from the host; it writes only where its caller confined it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The stages below, under the names this crate's modules use for them.
use nib_doc::{diagnostic, doc, files, geometry, hash, markup};
use nib_render::{compile, host, render};
use nib_scene::{display, layout, resolve, text};

pub mod export;
