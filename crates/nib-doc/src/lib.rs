//! nib's lowest stage: the `.pen` document. It loads and saves the format losslessly (every
//! version Pen has written, respelled where versions differ), edits it with an undo history,
//! and reads and writes files only where a caller confines it. It knows nothing of scenes,
//! layout or pictures: those are the stages above (`nib-scene`, `nib`).

#![forbid(unsafe_code)]
// No `missing_docs` here: this crate is one of nib's stages, used by nib's own crates only; the
// API is the `nib` crate's (src/lib.rs), which keeps the lint. Modules and types say why they
// exist; the lint asked for a line on every field, which got filler, not documentation.

pub mod diagnostic;
pub mod doc;
pub mod files;
pub mod geometry;
pub mod hash;
pub mod markup;
pub mod numbers;
pub mod printable;
pub mod random;
