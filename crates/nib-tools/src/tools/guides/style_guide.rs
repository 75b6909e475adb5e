//! get_style_guide_tags and get_style_guide: pick a visual direction by tags or by name, and
//! hand it over complete, with the set_variables payload that applies it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalog::{Catalog, DEFAULT_GUIDE, StyleGuide, catalog};
use super::payload;
use super::ranking::{normalize, rank, read_tags};
use crate::diagnostic::Diagnostic;
use crate::tools::ToolError;

/// How many runners-up an answer names.
const ALTERNATIVES: usize = 3;

/// Arguments of a tool that takes none.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// The tags, by category.
#[derive(Debug, Serialize)]
pub struct TagsAnswer {
    /// Categories in vocabulary order.
    pub categories: Vec<CategoryTags>,
    /// How many guides there are.
    pub guides: usize,
    /// Other words read as a tag (`fintech` → `finance`).
    pub synonyms: Value,
    /// How to use the tags.
    pub hint: &'static str,
}

/// One category and its tags.
#[derive(Debug, Serialize)]
pub struct CategoryTags {
    /// Its name.
    pub category: &'static str,
    /// The question it answers.
    pub about: &'static str,
    /// Its tags with how many guides carry each.
    pub tags: Vec<TagCount>,
}

/// A tag and how many guides carry it.
#[derive(Debug, Serialize)]
pub struct TagCount {
    /// The tag.
    pub tag: &'static str,
    /// Guides carrying it.
    pub guides: usize,
}

/// The tags a style guide can be picked by, grouped by category, with how many guides carry each.
pub fn get_style_guide_tags(_args: NoArgs) -> Result<TagsAnswer, ToolError> {
    let catalog = catalog()?;
    let categories = catalog
        .vocabulary
        .categories
        .iter()
        .map(|c| CategoryTags {
            category: &c.name,
            about: &c.about,
            tags: c
                .tags
                .iter()
                .map(|t| TagCount { tag: t, guides: catalog.guides.iter().filter(|g| g.tags.contains(t)).count() })
                .collect(),
        })
        .collect();
    Ok(TagsAnswer {
        categories,
        guides: catalog.guides.len(),
        synonyms: serde_json::to_value(&catalog.vocabulary.synonyms).unwrap_or_default(),
        hint: "pass a few tags (one or two per category you care about) to get_style_guide, e.g. \
               {\"tags\": [\"calm\", \"finance\", \"light\"]}; or a name",
    })
}

/// get_style_guide's arguments.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StyleGuideArgs {
    /// Tags to match (see get_style_guide_tags). A single string is read as a comma-separated
    /// list, since agents sometimes send `"calm, finance"`.
    #[serde(default, deserialize_with = "tag_list")]
    pub tags: Vec<String>,
    /// A guide's name: picks it directly.
    pub name: Option<String>,
}

fn tag_list<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Tags {
        List(Vec<String>),
        Text(String),
    }
    Ok(match Option::<Tags>::deserialize(deserializer)? {
        None => Vec::new(),
        Some(Tags::List(list)) => list,
        Some(Tags::Text(text)) => text.split(',').map(str::to_owned).collect(),
    })
}

/// A style guide and why it was chosen.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StyleGuideAnswer {
    /// The guide: name, palette, type scale, radii, spacing, shadows, components, do/don't.
    #[serde(flatten)]
    pub guide: &'static StyleGuide,
    /// Requested tags the guide carries.
    pub matched_tags: Vec<&'static str>,
    /// Requested tags it does not carry.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_tags: Vec<&'static str>,
    /// Requested words that are not tags (they played no part).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_tags: Vec<String>,
    /// The next best guides for the tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<Alternative>,
    /// Every guide's name and summary, when neither tags nor a name were given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub all_guides: Vec<Alternative>,
    /// The `variables` argument of set_variables that applies the guide.
    pub variables: Value,
    /// How to apply it.
    pub apply: String,
    /// What the agent should know about how the answer was chosen.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Diagnostic>,
}

/// Another guide.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Alternative {
    /// Its name.
    pub name: &'static str,
    /// What it is.
    pub summary: &'static str,
    /// Requested tags it carries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matched_tags: Vec<&'static str>,
}

/// The guide named `name`, else the best match for `tags`, else the default guide.
pub fn get_style_guide(args: StyleGuideArgs) -> Result<StyleGuideAnswer, ToolError> {
    let catalog = catalog()?;
    let read = read_tags(catalog, &args.tags);
    let mut notes: Vec<Diagnostic> = read
        .read_as
        .iter()
        .map(|(given, tag)| Diagnostic::note("tag-read-as", format!("read '{given}' as '{tag}'")))
        .collect();
    if !read.unknown.is_empty() {
        let words: Vec<String> = read
            .unknown
            .iter()
            .map(|(word, close)| match close {
                Some(close) => format!("'{word}' (did you mean '{close}'?)"),
                None => format!("'{word}'"),
            })
            .collect();
        if read.known.is_empty() && args.name.is_none() {
            return Err(ToolError::new(format!("no known tags: {}", words.join(", ")))
                .with_hint(format!("the tags are {}", valid_tags(catalog))));
        }
        let message = format!("not tags, ignored: {}; the tags are {}", words.join(", "), valid_tags(catalog));
        notes.push(Diagnostic::warning("tag-unknown", message));
    }
    let unknown_tags = read.unknown.iter().map(|(word, _)| word.clone()).collect();
    let ranked = rank(catalog, &read.known);
    let (guide, all_guides) = match (&args.name, read.known.is_empty()) {
        (Some(name), _) => (by_name(catalog, name)?, Vec::new()),
        (None, false) => (ranked[0].guide, Vec::new()),
        (None, true) => {
            let guide = catalog.guide(DEFAULT_GUIDE).unwrap_or(&catalog.guides[0]);
            notes.push(Diagnostic::note(
                "default-guide",
                format!(
                    "no tags or name given: this is the default guide, {}; pick another by name or tags",
                    guide.name
                ),
            ));
            let all = catalog.guides.iter().map(|g| Alternative {
                name: &g.name,
                summary: &g.summary,
                matched_tags: Vec::new(),
            });
            (guide, all.collect())
        }
    };
    let matched_tags: Vec<&'static str> =
        read.known.iter().copied().filter(|t| guide.tags.iter().any(|g| g == t)).collect();
    let unmatched_tags = read.known.iter().copied().filter(|t| !matched_tags.contains(t)).collect();
    let alternatives = ranked
        .iter()
        .filter(|r| !r.matched.is_empty() && r.guide.name != guide.name)
        .take(ALTERNATIVES)
        .map(|r| Alternative { name: &r.guide.name, summary: &r.guide.summary, matched_tags: r.matched.clone() })
        .collect();
    let apply = if payload::is_themed(guide) {
        "call set_variables with {\"filePath\": …, \"variables\": <variables>}; the colors are themed by \
         Mode (Light first, the default): set theme {\"Mode\": \"Dark\"} on a frame for the dark palette. \
         Then write \"$--primary\", \"$--radius-md\", \"$--space-lg\", \"$--font-heading\" in properties"
    } else {
        "call set_variables with {\"filePath\": …, \"variables\": <variables>}, then write \"$--primary\", \
         \"$--radius-md\", \"$--space-lg\", \"$--font-heading\" in properties"
    };
    Ok(StyleGuideAnswer {
        guide,
        matched_tags,
        unmatched_tags,
        unknown_tags,
        alternatives,
        all_guides,
        variables: payload::variables(guide),
        apply: apply.to_owned(),
        notes,
    })
}

fn by_name(catalog: &'static Catalog, given: &str) -> Result<&'static StyleGuide, ToolError> {
    let word = normalize(given);
    if let Some(guide) = catalog.guides.iter().find(|g| g.name == word || normalize(&g.title) == word) {
        return Ok(guide);
    }
    let names = catalog.names();
    let listed = names.join(", ");
    let hint = match crate::doc::suggest(&word, &names) {
        Some(close) => format!("did you mean '{close}'? the guides are: {listed}"),
        None => format!("the guides are: {listed}"),
    };
    Err(ToolError::new(format!("there is no style guide '{given}'")).with_hint(hint))
}

/// `mood: calm, playful…; industry: …`.
fn valid_tags(catalog: &Catalog) -> String {
    let categories: Vec<String> =
        catalog.vocabulary.categories.iter().map(|c| format!("{}: {}", c.name, c.tags.join(", "))).collect();
    categories.join("; ")
}
