//! Reviewing changes to `.pen` documents: what changed between two versions, as a person sees
//! it in a pull request (structure and pictures), and whether renders still match their
//! approved images.
//!
//! [`frames`] renders every top-level frame of a document; [`pixels`] compares two renders
//! perceptually and draws where they differ; [`snapshot`] checks renders against approved images
//! stored beside the designs.

pub mod frames;
pub mod pixels;
pub mod snapshot;
