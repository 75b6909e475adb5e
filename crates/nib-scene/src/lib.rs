//! nib's middle stages, from a document to a paint-ready list: `resolve` (components,
//! variables, themes, imports → a Scene), `text` (fonts, shaping, icons), `layout` (taffy over
//! the Scene), and `display` (every visible node resolved once for the painter and the
//! exporters). Nothing here opens a file a caller did not hand it, and nothing here knows how a
//! picture is encoded or where it goes.

#![forbid(unsafe_code)]
// No `missing_docs` here: this crate is the inside of nib's pipeline, used by nib's own crates
// only. Every module and type says why it exists; a lint that wanted a line on every field of
// the display list asked for "/// Its x." filler, not for documentation.

// The stages below, under the names this crate's modules use for it.
use nib_doc::{diagnostic, doc, files, geometry, hash, numbers, printable};
use nib_js::js;

pub mod display;
pub mod layout;
pub mod resolve;
pub mod text;
