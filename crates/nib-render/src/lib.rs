//! nib's pictures. `compile(&host, &document)` takes a document through the stages below
//! (resolve, layout, the display list) with everything it needs from a [`host::Host`]: imports,
//! fonts and images, read beside the file and never outside its confinement, or from memory.
//! `render` paints the display list to pixels and PNG within one memory budget; it opens no
//! file and cannot fail on input.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The stages below, under the names this crate's modules use for them.
#[cfg(test)]
use nib_doc::random;
use nib_doc::{diagnostic, doc, files, geometry, hash};
use nib_scene::{display, layout, resolve, text};

pub mod compile;
pub mod host;
pub mod render;
