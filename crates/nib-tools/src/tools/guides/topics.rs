//! get_guidelines: the team's own guidance for one kind of work, as Markdown an agent reads
//! before it designs. Each topic ends with the rules every screen shares (`common.md`), so an
//! agent that reads only one topic still gets them.

use serde::{Deserialize, Serialize};

use super::ranking::normalize;
use crate::text::{FontBook, FontOptions};
use crate::tools::ToolError;

/// The topics, in Pen's order.
pub const TOPICS: &[&str] =
    &["code", "table", "tailwind", "landing-page", "design-system", "mobile-app", "web-app", "slides"];

const TEXTS: &[(&str, &str)] = &[
    ("code", include_str!("../../../../../assets/guides/code.md")),
    ("table", include_str!("../../../../../assets/guides/table.md")),
    ("tailwind", include_str!("../../../../../assets/guides/tailwind.md")),
    ("landing-page", include_str!("../../../../../assets/guides/landing-page.md")),
    ("design-system", include_str!("../../../../../assets/guides/design-system.md")),
    ("mobile-app", include_str!("../../../../../assets/guides/mobile-app.md")),
    ("web-app", include_str!("../../../../../assets/guides/web-app.md")),
    ("slides", include_str!("../../../../../assets/guides/slides.md")),
];

const COMMON: &str = include_str!("../../../../../assets/guides/common.md");

/// get_guidelines' arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuidelinesArgs {
    /// One of [`TOPICS`].
    pub topic: Option<String>,
}

/// A topic's guidance.
#[derive(Debug, Serialize)]
pub struct Guidelines {
    /// The topic.
    pub topic: &'static str,
    /// Markdown: the topic, then the rules every screen shares.
    pub text: String,
}

/// The guidance for a topic. An unknown or missing topic is an error that lists the topics.
pub fn get_guidelines(args: GuidelinesArgs) -> Result<Guidelines, ToolError> {
    let listed = || format!("the topics are: {}", TOPICS.join(", "));
    let Some(given) = args.topic else {
        return Err(ToolError::new("get_guidelines needs a topic").with_hint(listed()));
    };
    let word = normalize(&given);
    let Some((topic, text)) = TEXTS.iter().find(|(t, _)| *t == word) else {
        let hint = match crate::doc::suggest(&word, TOPICS) {
            Some(close) => format!("did you mean '{close}'? {}", listed()),
            None => listed(),
        };
        return Err(ToolError::new(format!("there is no guideline topic '{given}'")).with_hint(hint));
    };
    Ok(Guidelines { topic, text: format!("{}\n\n{}", text.trim_end(), common()) })
}

/// The rules every screen shares, with the facts that come from the code filled in: the
/// bundled families, listed from the font table itself so the text cannot fall behind it.
fn common() -> String {
    let families: Vec<&str> = FontBook::new(FontOptions::default()).text_families().collect();
    COMMON.trim_end().replace("{bundled-families}", &families.join(", "))
}
