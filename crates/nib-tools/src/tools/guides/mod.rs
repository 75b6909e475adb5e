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

pub use catalog::{DEFAULT_GUIDE, MODE_AXIS};
pub use skills::{Skill, SkillArgs, SkillEntry, StyleAnswer, StyleArgs, get_style, read_skill, skill_paths};
pub use style_guide::{
    Alternative, CategoryTags, NoArgs, StyleGuideAnswer, StyleGuideArgs, TagCount, TagsAnswer, get_style_guide,
    get_style_guide_tags,
};
pub use topics::{Guidelines, GuidelinesArgs, TOPICS, get_guidelines};
