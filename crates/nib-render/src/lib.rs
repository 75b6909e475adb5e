//! nib's pictures. `compile(&host, &document)` takes a document through the stages below
//! (resolve, layout, the display list) with everything it needs from a [`host::Host`]: imports,
//! fonts and images, read beside the file and never outside its confinement, or from memory.
//! `render` paints the display list to pixels and PNG within one memory budget; it opens no
//! file and cannot fail on input.

#![forbid(unsafe_code)]
// No `missing_docs` here: this crate is one of nib's stages, used by nib's own crates only; the
// API is the `nib` crate's (src/lib.rs), which keeps the lint. Modules and types say why they
// exist; the lint asked for a line on every field, which got filler, not documentation.

// The stages below, under the names this crate's modules use for them.
#[cfg(test)]
use nib_doc::random;
use nib_doc::{diagnostic, doc, files, geometry, hash};
use nib_scene::{display, layout, resolve, text};

pub mod compile;
pub mod host;
#[cfg(feature = "fetch")]
pub mod http;
pub mod render;
