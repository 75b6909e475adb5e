//! read_skill and get_style: the content tools of Pen's current MCP surface. The skill bundle
//! is an index and topic files an agent reads before it works — the schema, the `execute`
//! snippet API, images, script nodes and shaders, components, and the guides by kind of work —
//! in the team's own words: the guides are get_guidelines' topics, the rest `assets/skills/`.
//! get_style hands over a style guide as variables a snippet's `SetVariables` applies.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalog::catalog;
use super::payload;
use super::ranking::normalize;
use super::snippet_form::for_snippets;
use super::style_guide::{StyleGuideAnswer, StyleGuideArgs, get_style_guide};
use super::topics::{GuidelinesArgs, TOPICS, get_guidelines};
use crate::doc::format::{Version, describe_version};
use crate::tools::ToolError;

/// The skill files written for the current surface; the guides are listed after them.
const SKILLS: &[(&str, &str, &str)] = &[
    ("schema", "the .pen format: nodes, properties, layout, variables, and what each version holds", ""),
    (
        "execute",
        "the snippet API: Insert, Update, Copy, Get with a visitor, screenshots, limits",
        include_str!("../../../../../assets/skills/execute.md"),
    ),
    (
        "generate",
        "image fills: Generate with stock photos or made images, and offline placeholders",
        include_str!("../../../../../assets/skills/generate.md"),
    ),
    (
        "scripts-and-shaders",
        "script nodes (JavaScript that draws) and shader fills",
        include_str!("../../../../../assets/skills/scripts-and-shaders.md"),
    ),
    (
        "components",
        "components, instances, overrides and themed instances",
        include_str!("../../../../../assets/skills/components.md"),
    ),
];

/// What each guide is for, in the order of [`TOPICS`].
const GUIDES: &[(&str, &str)] = &[
    ("code", "turning a design into code that matches it"),
    ("table", "data tables: columns, rows, states"),
    ("tailwind", "designs that map onto Tailwind's scale"),
    ("landing-page", "marketing pages: hero, features, pricing, footer"),
    ("design-system", "variables, type scale, components of a system"),
    ("mobile-app", "phone screens: safe areas, touch targets, navigation"),
    ("web-app", "dashboards and app screens: sidebars, forms, density"),
    ("slides", "presentation slides"),
];

/// What a guide read here says first: its examples are snippets.
const SNIPPETS: &str = "> Each example below is one `execute` snippet; run them in order on a new document. \
Keep a snippet to a section or two (about 25 operations), as the examples do.\n\n";

/// read_skill's arguments.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillArgs {
    /// A path from the index (`execute`, `guides/landing-page`); the index when absent.
    pub path: Option<String>,
}

/// One entry of the index.
#[derive(Debug, Serialize)]
pub struct SkillEntry {
    /// Its path.
    pub path: String,
    /// What it covers.
    pub about: &'static str,
}

/// A skill file, or the index.
#[derive(Debug, Serialize)]
pub struct Skill {
    /// The path answered (`index` for the index).
    pub path: String,
    /// Markdown.
    pub text: String,
    /// Every path, with the index.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<SkillEntry>,
}

/// Every path of the bundle.
pub(crate) fn skill_paths() -> Vec<SkillEntry> {
    let skills = SKILLS.iter().map(|(path, about, _)| SkillEntry { path: (*path).to_owned(), about });
    let guides = GUIDES.iter().map(|(topic, about)| SkillEntry { path: format!("guides/{topic}"), about });
    skills.chain(guides).collect()
}

/// The index, or the skill file at `path`.
pub fn read_skill(args: SkillArgs) -> Result<Skill, ToolError> {
    let Some(given) = args.path.filter(|p| !p.trim().is_empty()) else { return Ok(index()) };
    let path = given.trim().trim_start_matches('/').trim_end_matches(".md").to_ascii_lowercase();
    let path = if path == "skill" || path == "index" { return Ok(index()) } else { path };
    if path == "schema" {
        let text = format!("{}\n{}", crate::tools::RULES, describe_version(Version::NEWEST));
        return Ok(Skill { path, text, paths: Vec::new() });
    }
    if let Some((_, _, text)) = SKILLS.iter().find(|(p, ..)| *p == path) {
        return Ok(Skill { path, text: (*text).to_owned(), paths: Vec::new() });
    }
    let topic = normalize(path.strip_prefix("guides/").unwrap_or(&path));
    if TOPICS.contains(&topic.as_str()) {
        let guide = get_guidelines(GuidelinesArgs { topic: Some(topic.clone()) })?;
        return Ok(Skill {
            path: format!("guides/{topic}"),
            text: format!("{SNIPPETS}{}", for_snippets(&guide.text)),
            paths: Vec::new(),
        });
    }
    let mut names: Vec<&'static str> = SKILLS.iter().map(|(p, ..)| *p).collect();
    names.extend(TOPICS);
    let hint = match crate::doc::suggest(&path, &names) {
        Some(close) if TOPICS.contains(&close) => {
            format!("did you mean 'guides/{close}'? read_skill without a path lists them all")
        }
        Some(close) => format!("did you mean '{close}'? read_skill without a path lists them all"),
        None => "read_skill without a path lists them all".to_owned(),
    };
    Err(ToolError::new(format!("there is no skill '{given}'")).with_hint(hint))
}

fn index() -> Skill {
    let paths = skill_paths();
    let mut text = String::from(
        "# nib's skills\n\nRead `execute` before your first snippet and `schema` for the format; read the guide for \
         the kind of work before you design it. Pick a visual direction with get_style.\n\n",
    );
    for entry in &paths {
        text.push_str(&format!("- `{}`: {}\n", entry.path, entry.about));
    }
    Skill { path: "index".into(), text, paths }
}

/// get_style's arguments.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StyleArgs {
    /// A style's name; the list of styles when absent (and no tags are given).
    pub name: Option<String>,
    /// `tags` (pick the style that carries most of them) and `mode` (`light` or `dark`: the
    /// colours of that mode only, without themes).
    pub params: Option<Value>,
}

/// What get_style answers.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum StyleAnswer {
    /// The styles to choose from.
    List {
        /// Each style's name, summary and tags.
        styles: Vec<Value>,
        /// How to get one.
        hint: &'static str,
    },
    /// One style, with the variables that apply it.
    Style(Box<StyleGuideAnswer>),
}

/// The styles, or one with the `SetVariables` argument that applies it.
pub fn get_style(args: StyleArgs) -> Result<StyleAnswer, ToolError> {
    let params = match args.params {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(map)) => map,
        Some(_) => return Err(ToolError::new("params is an object: {\"tags\": [...], \"mode\": \"dark\"}")),
    };
    for key in params.keys() {
        if key != "tags" && key != "mode" {
            return Err(
                ToolError::new(format!("get_style has no param '{key}'")).with_hint("the params are tags and mode")
            );
        }
    }
    let tags: Vec<String> = match params.get("tags") {
        None => Vec::new(),
        Some(Value::String(text)) => text.split(',').map(str::to_owned).collect(),
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        Some(_) => return Err(ToolError::new("params.tags is a list of tags")),
    };
    let mode = match params.get("mode").map(|m| m.as_str().map(str::to_ascii_lowercase)) {
        None => None,
        Some(Some(mode)) if mode == "light" || mode == "dark" => Some(mode),
        Some(_) => return Err(ToolError::new("params.mode is \"light\" or \"dark\"")),
    };
    if args.name.is_none() && tags.is_empty() {
        let styles = catalog()?
            .guides
            .iter()
            .map(|g| serde_json::json!({ "name": g.name, "summary": g.summary, "tags": g.tags }))
            .collect();
        return Ok(StyleAnswer::List {
            styles,
            hint: "get_style {name} answers the style with `variables`; apply them with SetVariables(variables) in execute",
        });
    }
    let mut answer = get_style_guide(StyleGuideArgs { tags, name: args.name })?;
    if let Some(mode) = mode {
        answer.variables = payload::one_mode(&answer.variables, &mode);
    }
    answer.apply = if payload::is_themed(answer.guide) && answer.variables.to_string().contains("\"theme\"") {
        "in execute: SetVariables(variables); the colours are themed by Mode (Light by default): give a frame \
         theme: {Mode: \"Dark\"} for the dark ones. Then write \"$--primary\", \"$--radius-md\", \"$--space-lg\" in properties"
            .to_owned()
    } else {
        "in execute: SetVariables(variables), then write \"$--primary\", \"$--radius-md\", \"$--space-lg\" in properties"
            .to_owned()
    };
    Ok(StyleAnswer::Style(Box::new(answer)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_of_the_index_answers() {
        let index = read_skill(SkillArgs::default()).unwrap();
        assert!(index.paths.len() >= 13);
        for entry in &index.paths {
            let skill = read_skill(SkillArgs { path: Some(entry.path.clone()) }).unwrap();
            assert!(skill.text.len() > 400, "{} is {} characters", entry.path, skill.text.len());
            assert!(index.text.contains(&entry.path));
        }
        assert!(read_skill(SkillArgs { path: Some("guides/landing".into()) }).is_err());
        assert_eq!(read_skill(SkillArgs { path: Some("/execute.md".into()) }).unwrap().path, "execute");
    }

    #[test]
    fn a_style_lists_and_answers_variables() {
        let StyleAnswer::List { styles, .. } = get_style(StyleArgs::default()).unwrap() else { panic!("a list") };
        let name = styles[0]["name"].as_str().unwrap().to_owned();
        let StyleAnswer::Style(style) = get_style(StyleArgs { name: Some(name), params: None }).unwrap() else {
            panic!("a style")
        };
        assert!(style.variables.get("--primary").is_some(), "{}", style.variables);
        let dark = serde_json::json!({ "mode": "dark" });
        let StyleAnswer::Style(dark) = get_style(StyleArgs {
            name: None,
            params: Some(serde_json::json!({"tags": ["dark"], "mode": dark["mode"]})),
        })
        .unwrap() else {
            panic!("a style")
        };
        assert!(!dark.variables.to_string().contains("\"theme\""), "one mode has no themes: {}", dark.variables);
    }
}
