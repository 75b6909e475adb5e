//! nib: a headless canvas engine for `.pen` design files.
//!
//! The pipeline (see DESIGN.md): `.pen` JSON is loaded into a [`doc::Document`], the single
//! source of truth that is edited and saved losslessly.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod compile;
pub mod diagnostic;
pub(crate) mod display;
pub mod doc;
pub mod export;
pub mod files;
pub mod geometry;
pub mod hash;
pub mod host;
#[cfg(any(feature = "network-images", feature = "network-fonts"))]
pub mod http;
pub mod images;
pub mod js;
pub mod layout;
pub mod markup;
pub mod mcp;
pub mod numbers;
pub mod printable;
pub mod random;
pub mod render;
pub mod resolve;
pub mod review;
pub mod script;
pub mod serve;
pub mod text;
pub mod tools;
