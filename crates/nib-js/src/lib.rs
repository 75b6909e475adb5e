//! nib's JavaScript sandbox (`js`): QuickJS with Pen's limits — heap, stack, a deadline — for
//! script nodes (run by nib-scene's resolve) and the `execute` tool's snippets (nib-tools). It
//! names no other nib crate: a run takes JSON values and hands JSON back, and it opens no file.

#![forbid(unsafe_code)]
// No `missing_docs` here: this crate is one of nib's stages, used by nib's own crates only; the
// API is the `nib` crate's (src/lib.rs), which keeps the lint.

pub mod js;
