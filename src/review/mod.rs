//! Reviewing changes to `.pen` documents: what changed between two versions, as a person sees
//! it in a pull request (structure and pictures), and whether renders still match their
//! approved images.
//!
//! [`frames`] renders every top-level frame of a document; [`pixels`] compares two renders
//! perceptually and draws where they differ.

pub mod frames;
pub mod pixels;
