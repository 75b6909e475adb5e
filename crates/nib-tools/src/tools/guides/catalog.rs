//! The style guides and their tag vocabulary, embedded as JSON (`assets/style-guides/`) so that
//! the content can be written and reviewed as data, and read once on first use.
//!
//! The field names of type styles and shadows are the `.pen` property names, so an agent can
//! paste a type style into a text node and a shadow into `effect` unchanged.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::tools::ToolError;

/// Every style guide file, in no particular order (answers sort by name).
const GUIDE_FILES: &[(&str, &str)] = &[
    ("aurora-glass", include_str!("../../../../../assets/style-guides/aurora-glass.json")),
    ("brutalist-mono", include_str!("../../../../../assets/style-guides/brutalist-mono.json")),
    ("calm-fintech", include_str!("../../../../../assets/style-guides/calm-fintech.json")),
    ("civic-clear", include_str!("../../../../../assets/style-guides/civic-clear.json")),
    ("clean-saas", include_str!("../../../../../assets/style-guides/clean-saas.json")),
    ("clinical-care", include_str!("../../../../../assets/style-guides/clinical-care.json")),
    ("dense-dashboard", include_str!("../../../../../assets/style-guides/dense-dashboard.json")),
    ("editorial-ink", include_str!("../../../../../assets/style-guides/editorial-ink.json")),
    ("fresh-kitchen", include_str!("../../../../../assets/style-guides/fresh-kitchen.json")),
    ("midnight-devtools", include_str!("../../../../../assets/style-guides/midnight-devtools.json")),
    ("neon-trading", include_str!("../../../../../assets/style-guides/neon-trading.json")),
    ("noir-luxury", include_str!("../../../../../assets/style-guides/noir-luxury.json")),
    ("nordic-calm", include_str!("../../../../../assets/style-guides/nordic-calm.json")),
    ("pastel-social", include_str!("../../../../../assets/style-guides/pastel-social.json")),
    ("playful-learning", include_str!("../../../../../assets/style-guides/playful-learning.json")),
    ("retail-pop", include_str!("../../../../../assets/style-guides/retail-pop.json")),
    ("soft-wellness", include_str!("../../../../../assets/style-guides/soft-wellness.json")),
    ("studio-dark", include_str!("../../../../../assets/style-guides/studio-dark.json")),
    ("sunset-travel", include_str!("../../../../../assets/style-guides/sunset-travel.json")),
];

const TAGS_FILE: &str = include_str!("../../../../../assets/style-guides/tags.json");

/// The guide answered when neither tags nor a name are given: a neutral direction that suits
/// most product screens.
pub const DEFAULT_GUIDE: &str = "clean-saas";

/// The theme axis of guides that have a light and a dark palette, with its values in order
/// (the first is what a node without a theme shows).
pub(crate) const MODE_AXIS: (&str, [&str; 2]) = ("Mode", ["Light", "Dark"]);

/// A complete visual direction.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StyleGuide {
    /// Kebab-case name, the file's name.
    pub name: String,
    /// Display name.
    pub title: String,
    /// One sentence: what it looks like and what it suits.
    pub summary: String,
    /// Tags from the vocabulary, any category.
    pub tags: Vec<String>,
    /// The families, all bundled with nib.
    pub fonts: Fonts,
    /// Colors by role; each becomes a `--name` color variable.
    pub palette: Vec<Swatch>,
    /// Text styles by role, as `.pen` text properties.
    pub type_scale: Vec<TypeStyle>,
    /// Corner radii.
    pub radii: Vec<Token>,
    /// Spacing steps (gaps and paddings).
    pub spacing: Vec<Token>,
    /// Elevation as `.pen` effects.
    pub shadows: Vec<Shadow>,
    /// How the common components look in this direction.
    pub components: Vec<String>,
    /// What keeps the direction coherent.
    #[serde(rename = "do")]
    pub dos: Vec<String>,
    /// What breaks it.
    #[serde(rename = "dont")]
    pub donts: Vec<String>,
}

/// The three families a guide uses.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Fonts {
    /// Headlines and titles.
    pub heading: String,
    /// Running text and UI labels.
    pub body: String,
    /// Code, figures, technical labels.
    pub mono: String,
}

/// One color role. Either `value` (one mode) or `light` and `dark` (themed by [`MODE_AXIS`]).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Swatch {
    /// The variable name, `--` included.
    pub variable: String,
    /// Where the color goes.
    pub role: String,
    /// The color of a single-mode guide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The color in the Light theme.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light: Option<String>,
    /// The color in the Dark theme.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dark: Option<String>,
}

/// A text style: its role and the `.pen` text properties that make it.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TypeStyle {
    /// `display`, `h1`… also the `--text-<role>` size variable.
    pub role: String,
    /// A bundled family.
    pub font_family: String,
    /// Pixels.
    #[serde(serialize_with = "plain_number")]
    pub font_size: f64,
    /// As `.pen` writes it: "400", "600"…
    pub font_weight: String,
    /// A multiple of the font size.
    #[serde(serialize_with = "plain_number")]
    pub line_height: f64,
    /// Pixels; negative tightens.
    #[serde(default, skip_serializing_if = "is_zero", serialize_with = "plain_number")]
    pub letter_spacing: f64,
    /// Where the style is used.
    #[serde(rename = "use")]
    pub usage: String,
}

fn is_zero(n: &f64) -> bool {
    *n == 0.0
}

/// `16`, not `16.0`: the way `.pen` files and the rest of the answers write numbers.
fn plain_number<S: serde::Serializer>(n: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    crate::tools::number(*n).serialize(serializer)
}

/// A named number: a radius or a spacing step.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Token {
    /// `sm`, `md`…; the variable is `--radius-<name>` or `--space-<name>`.
    pub name: String,
    /// Pixels.
    #[serde(serialize_with = "plain_number")]
    pub value: f64,
    /// Where it is used.
    #[serde(rename = "use", skip_serializing_if = "Option::is_none")]
    pub usage: Option<String>,
}

/// An elevation level.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Shadow {
    /// `card`, `popover`…
    pub name: String,
    /// Where it is used.
    #[serde(rename = "use")]
    pub usage: String,
    /// The `.pen` `effect` value: one effect or a list.
    pub effect: serde_json::Value,
}

/// The tag vocabulary: categories of tags, and words read as a tag.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Vocabulary {
    /// Categories in the order answers list them.
    pub categories: Vec<Category>,
    /// Other words agents use → the tag they mean (`fintech` → `finance`).
    pub synonyms: std::collections::BTreeMap<String, String>,
}

/// A group of tags that answer one question about a design.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Category {
    /// `mood`, `industry`…
    pub name: String,
    /// The question the category answers.
    pub about: String,
    /// Its tags, kebab-case.
    pub tags: Vec<String>,
}

/// All guides, sorted by name, and the vocabulary.
#[derive(Debug)]
pub(crate) struct Catalog {
    /// Sorted by name.
    pub guides: Vec<StyleGuide>,
    /// The tag vocabulary.
    pub vocabulary: Vocabulary,
}

impl Catalog {
    /// The guide called `name` (exactly).
    pub fn guide(&self, name: &str) -> Option<&StyleGuide> {
        self.guides.iter().find(|g| g.name == name)
    }

    /// Guide names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.guides.iter().map(|g| g.name.as_str()).collect()
    }

    /// Every tag, in vocabulary order.
    pub fn tags(&self) -> impl Iterator<Item = &str> {
        self.vocabulary.categories.iter().flat_map(|c| c.tags.iter().map(String::as_str))
    }

    /// The category of `tag`.
    pub(crate) fn category_of(&self, tag: &str) -> Option<&Category> {
        self.vocabulary.categories.iter().find(|c| c.tags.iter().any(|t| t == tag))
    }
}

/// The catalog, read on first use. The content is embedded and checked by tests, so a failure
/// here is a build mistake; it is still answered as an error, never a panic.
pub fn catalog() -> Result<&'static Catalog, ToolError> {
    static CATALOG: OnceLock<Result<Catalog, CatalogError>> = OnceLock::new();
    CATALOG.get_or_init(read).as_ref().map_err(|e| ToolError::new(format!("the embedded style guides are broken: {e}")))
}

/// Why the embedded catalog cannot be read (a build mistake the tests catch).
#[derive(Debug, thiserror::Error)]
enum CatalogError {
    /// A file is not the JSON its type wants.
    #[error("{file}.json: {source}")]
    Json {
        file: &'static str,
        #[source]
        source: serde_json::Error,
    },
    /// A guide's name is not its file's.
    #[error("{file}.json is named {name:?}")]
    Misnamed { file: &'static str, name: String },
}

fn read() -> Result<Catalog, CatalogError> {
    let vocabulary: Vocabulary =
        serde_json::from_str(TAGS_FILE).map_err(|source| CatalogError::Json { file: "tags", source })?;
    let mut guides = Vec::with_capacity(GUIDE_FILES.len());
    for (file, text) in GUIDE_FILES {
        let guide: StyleGuide = serde_json::from_str(text).map_err(|source| CatalogError::Json { file, source })?;
        if guide.name != *file {
            return Err(CatalogError::Misnamed { file, name: guide.name });
        }
        guides.push(guide);
    }
    guides.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Catalog { guides, vocabulary })
}
