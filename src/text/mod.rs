//! Fonts and icons: which families and icon names exist (the catalog); shaping and measuring
//! come with layout.

pub mod catalog;

pub use catalog::{IconSet, is_known_family, suggest_family};
