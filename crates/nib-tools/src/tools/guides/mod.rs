//! The content tools: get_guidelines (how to build a kind of screen with .pen nodes),
//! get_style_guide_tags and get_style_guide (a complete visual direction, ready to apply with
//! set_variables). The content is the team's own, embedded from `assets/guides/` and
//! `assets/style-guides/`; these tools need no document.

mod catalog;
mod payload;
mod ranking;
mod skills;
mod snippet_form;
mod style_guide;
mod topics;

pub use catalog::DEFAULT_GUIDE;
pub use skills::{get_style, read_skill};
pub(crate) use style_guide::NoArgs;
pub use style_guide::{get_style_guide, get_style_guide_tags};
pub use topics::{TOPICS, get_guidelines};
