//! nib: a headless canvas engine for `.pen` design files.
//!
//! # The API
//!
//! A document goes one way (DESIGN.md): loaded into a [`Document`], compiled over a [`Host`]
//! (where imports, fonts and images come from) into a [`Compiled`] document, then drawn,
//! exported or edited through the design tools. What is found on the way is a [`Diagnostic`].
//!
//! - [`Document::load`] / [`read_file`], [`save_file`]: lossless `.pen` JSON.
//! - [`compile()`] over a [`DiskHost`] (a file and the folder around it, confined when asked) or a
//!   [`MemoryHost`] (everything in memory) → [`Compiled`] { scene, layout, text, images }, the
//!   one result painting, every export and every screenshot read ([`CompileOptions`] asks for a
//!   theme, a few top-level parts, or the Scene with variables kept for the code exports).
//! - [`Compiled::render`] → pixels, [`encode_png`] → bytes; [`Compiled::diagnostics`] of a target.
//! - [`export_run`]: SVG, PDF, HTML/CSS, design tokens and raster files of a compiled document.
//! - [`call_tool`] on a [`Workspace`]: the design tools an MCP client calls, by name, with JSON.
//!
//! ```
//! use nib::{CompileOptions, MemoryHost, RenderOptions, RenderTarget};
//!
//! let text = r##"{"version":"2.10","children":[
//!     {"type":"frame","id":"card","width":40,"height":20,"fill":"#2563EB"}]}"##;
//! let document = nib::Document::load(text).expect("a valid document").document;
//! let host = MemoryHost::new();
//! let mut compiled = nib::compile(&host, &document, &CompileOptions::default()).expect("compiles");
//! assert!(compiled.diagnostics(RenderTarget::Canvas).is_empty());
//! let rendered = compiled.render(RenderTarget::Canvas, &RenderOptions::default()).expect("draws");
//! let png = nib::encode_png(&rendered.pixmap);
//! assert!(png.starts_with(b"\x89PNG"));
//! ```
//!
//! # The stages
//!
//! The modules below (`doc`, `resolve`, `text`, `layout`, `display`, `render`, `export`,
//! `review`, `tools`, …) are the pipeline's stages, crates of their own re-exported under the
//! names nib has always used. nib's binary, tests and benches reach into them; they are not
//! the API, and change with the pipeline (hidden from this documentation for that reason).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use nib_doc::diagnostic::{Diagnostic, Severity, Span};
pub use nib_doc::doc::Document;
pub use nib_doc::doc::io::{read_file, save_file};
pub use nib_export::export::job::{ExportReport, ExportSettings, run as export_run};
pub use nib_render::compile::{CompileOptions, Compiled, compile};
pub use nib_render::host::{DiskHost, Host, MemoryHost};
pub use nib_render::render::{RenderOptions, RenderTarget, Rendered, encode_png};
pub use nib_tools::tools::{Workspace, call as call_tool};

#[doc(hidden)]
pub use nib_doc::{diagnostic, doc, files, geometry, hash, markup, numbers, printable, random};
#[doc(hidden)]
pub use nib_export::export;
#[doc(hidden)]
pub use nib_js::js;
#[cfg(any(feature = "network-images", feature = "network-fonts"))]
#[doc(hidden)]
pub use nib_render::http;
#[doc(hidden)]
pub use nib_render::{compile, host, render};
#[doc(hidden)]
pub use nib_review::review;
#[doc(hidden)]
pub use nib_scene::{display, layout, resolve, text};
#[doc(hidden)]
pub use nib_tools::{images, script, tools};

#[doc(hidden)]
pub mod mcp;
#[doc(hidden)]
pub mod serve;
