//! Reviewing changes to `.pen` documents: what changed between two versions, as a person sees
//! it in a pull request (structure and pictures), and whether renders still match their
//! approved images.
//!
//! [`diff`] compares two documents by node id; [`outline`] writes a document as one line per
//! node for `git diff`; [`merge`] merges two branches of a document by node id and property;
//! [`report`] writes a diff as text, JSON, Markdown or HTML and [`pictures`] draws the frames it
//! touches. [`frames`] renders every top-level frame of a document; [`pixels`] compares two
//! renders perceptually and draws where they differ; [`ssim`] scores how alike two renders look
//! (export checks); [`snapshot`] checks renders against
//! approved images stored beside the designs.

pub mod diff;
pub mod lint;
pub mod merge;
pub mod outline;
pub mod pictures;
pub mod pixels;
mod placement;
pub mod report;
pub mod snapshot;
pub mod ssim;
mod units;
mod values;
