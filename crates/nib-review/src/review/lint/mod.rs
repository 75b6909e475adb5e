//! Design lint: what a reviewer would flag in a design, as findings an agent or a person can fix
//! — each names the node, the measured value and what to do. Contrast is measured against what
//! is painted beneath the text (a render of the frame with its texts hidden), sizes against
//! the laid-out boxes, colours and scales against the document's own variables and habits.
//!
//! [`lint`] runs the rules a [`Config`] turns on (a preset, then per-rule levels from the
//! command line or a `nib-lint.json` beside the documents); the findings are [`Diagnostic`]s
//! whose code is the rule's id, written as text, JSON or SARIF ([`sarif`]) by the callers.

mod colors;
mod contrast;
mod rules;
/// SARIF output for code scanning.
pub mod sarif;

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::compile::{CompileOptions, compile};
use crate::diagnostic::{Diagnostic, Severity};
use crate::doc::Document;
use crate::host::Host;

/// The rules, by id, with what each checks.
pub const RULES: &[(&str, &str)] = &[
    (
        "contrast",
        "Text contrast below WCAG AA (4.5:1; 3:1 for text of 24 px, or 18.66 px bold) against what is painted beneath it",
    ),
    ("touch-target", "Controls smaller than 44 × 44 on screens up to 480 px wide"),
    ("small-text", "Text smaller than 12 px"),
    ("raw-color", "A literal colour equal to a colour variable's value"),
    ("near-color", "A literal colour within ΔE 3 of a colour variable's value"),
    (
        "one-off-color",
        "A literal colour no variable has that only one or two nodes use, in a document with colour variables (code gets a value no theme follows)",
    ),
    (
        "absolute-in-flex",
        "A child placed absolutely inside a flex layout (code gets fixed offsets that do not follow the content)",
    ),
    ("off-scale-font-size", "A font size only one or two texts use, off the document's type scale"),
    ("off-scale-spacing", "A gap or padding off the 4-px grid that only one or two frames use"),
    ("covered-text", "Text more than half covered by a layer painted over it"),
    ("empty-fit-content", "A frame that hugs its content but has none"),
    ("invisible-text-fill", "Text whose fills paint nothing"),
    (
        "unresolved",
        "An instance or variable that cannot be resolved (a missing component, a component that contains itself, a missing variable): drawn otherwise than written",
    ),
];

/// How much a rule's findings matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Not checked.
    Off,
    /// Said; never fails a run.
    Note,
    /// Fails `nib lint`.
    Warning,
    /// Fails `nib lint`.
    Error,
}

impl Level {
    /// The level called `name` (off, note, warning, error).
    pub fn parse(name: &str) -> Result<Level, ConfigError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "off" => Ok(Level::Off),
            "note" => Ok(Level::Note),
            "warning" => Ok(Level::Warning),
            "error" => Ok(Level::Error),
            other => Err(ConfigError::Level(other.to_owned())),
        }
    }

    fn severity(self) -> Option<Severity> {
        match self {
            Level::Off => None,
            Level::Note => Some(Severity::Note),
            Level::Warning => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

/// A starting set of levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// Every rule; the matters of taste (near colours, scales) as notes.
    #[default]
    Recommended,
    /// Every rule as an error.
    Strict,
    /// What keeps a design usable: contrast, touch targets, small and covered text.
    Accessibility,
}

impl Preset {
    /// The preset called `name`.
    pub fn parse(name: &str) -> Result<Preset, ConfigError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "recommended" => Ok(Preset::Recommended),
            "strict" => Ok(Preset::Strict),
            "accessibility" => Ok(Preset::Accessibility),
            other => Err(ConfigError::Preset(other.to_owned())),
        }
    }

    fn level(self, rule: &str) -> Level {
        match self {
            Preset::Strict => Level::Error,
            Preset::Accessibility => match rule {
                "contrast" | "touch-target" | "small-text" => Level::Error,
                "covered-text" | "invisible-text-fill" => Level::Warning,
                _ => Level::Off,
            },
            Preset::Recommended => match rule {
                "near-color" | "off-scale-font-size" | "off-scale-spacing" | "one-off-color" | "absolute-in-flex" => {
                    Level::Note
                }
                _ => Level::Warning,
            },
        }
    }
}

/// A lint configuration nib cannot use: each names what it found and what it takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("'{0}' is not a level; the levels are off, note, warning, error")]
    Level(String),
    #[error("there is no lint preset '{0}'; the presets are recommended, strict, accessibility")]
    Preset(String),
    /// Not the JSON of a configuration (the reader's own words).
    #[error(
        "{0} (write {{\"preset\": \"recommended\", \"rules\": {{\"contrast\": \"error\", \"off-scale-spacing\": \"off\"}}}}; levels are off, note, warning, error)"
    )]
    File(String),
    #[error("there is no lint rule '{rule}'{}; the rules are {}", .suggestion.map_or(String::new(), |c| format!(" (did you mean '{c}'?)")), RULES.iter().map(|(id, _)| *id).collect::<Vec<_>>().join(", "))]
    Rule { rule: String, suggestion: Option<&'static str> },
}

/// Which rules run, at what level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// The starting levels.
    pub preset: Preset,
    /// Levels that replace the preset's, by rule id.
    pub rules: BTreeMap<String, Level>,
}

/// The file a configuration is read from, beside the documents.
pub const CONFIG_FILE: &str = "nib-lint.json";

/// `nib-lint.json` as written: `{"preset": "strict", "rules": {"off-scale-spacing": "off"}}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    preset: Option<Preset>,
    #[serde(default)]
    rules: BTreeMap<String, Level>,
}

impl Config {
    /// The level of `rule`.
    pub fn level(&self, rule: &str) -> Level {
        self.rules.get(rule).copied().unwrap_or_else(|| self.preset.level(rule))
    }

    /// A configuration read from the text of a `nib-lint.json`; an unknown rule or level is an
    /// error that names it.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let file: ConfigFile = serde_json::from_str(text).map_err(|e| ConfigError::File(e.to_string()))?;
        let config = Config { preset: file.preset.unwrap_or_default(), rules: file.rules };
        config.check()?;
        Ok(config)
    }

    /// Sets `rule` to `level` (`--rule contrast=error`).
    pub fn set(&mut self, rule: &str, level: Level) -> Result<(), ConfigError> {
        self.rules.insert(rule.to_owned(), level);
        self.check()
    }

    fn check(&self) -> Result<(), ConfigError> {
        let ids: Vec<&'static str> = RULES.iter().map(|(id, _)| *id).collect();
        for rule in self.rules.keys() {
            if !ids.contains(&rule.as_str()) {
                return Err(ConfigError::Rule { rule: rule.clone(), suggestion: crate::doc::suggest(rule, &ids) });
            }
        }
        Ok(())
    }

    fn on(&self, rule: &str) -> Option<Severity> {
        self.level(rule).severity()
    }
}

/// A rule that reads the laid-out Scene.
type RuleCheck = fn(&rules::Input) -> Vec<rules::Finding>;

/// Most nodes a document may have to be linted as a whole: the rules that compare nodes with
/// each other (covered text) grow with the square of a frame's nodes.
pub const MAX_LINT_NODES: usize = 100_000;

/// The findings of the rules `config` turns on, in document order per rule. Each names its
/// node and the JSON pointer of the document node it comes from (`Diagnostic::locate` finds
/// the line). The error is the one that stops compiling (a resolve budget).
pub fn lint(host: &dyn Host, document: &Document, config: &Config) -> Result<Vec<Diagnostic>, Box<Diagnostic>> {
    let mut compiled = compile(host, document, &CompileOptions::default())?;
    if compiled.scene.len() > MAX_LINT_NODES {
        return Err(Box::new(Diagnostic::new(
            Severity::Error,
            "too-large",
            format!("the document resolves to {} nodes; lint checks at most {MAX_LINT_NODES}", compiled.scene.len()),
        )));
    }
    let mut found = Vec::new();
    let mut add = |rule: &'static str, finding: rules::Finding| {
        if let Some(severity) = config.on(rule) {
            found.push(finding.into_diagnostic(severity, rule, document, &compiled.scene));
        }
    };
    if config.on("contrast").is_some() {
        for finding in contrast::check(host, document, &compiled) {
            add("contrast", finding);
        }
    }
    let checks: [(&'static str, RuleCheck); 8] = [
        ("touch-target", rules::touch_targets),
        ("small-text", rules::small_text),
        ("off-scale-font-size", rules::off_scale_font_sizes),
        ("off-scale-spacing", rules::off_scale_spacing),
        ("covered-text", rules::covered_text),
        ("empty-fit-content", rules::empty_fit_content),
        ("invisible-text-fill", rules::invisible_text_fills),
        ("absolute-in-flex", rules::absolute_in_flex),
    ];
    let input = rules::Input { scene: &compiled.scene, layout: &compiled.layout };
    for (rule, check) in checks {
        if config.on(rule).is_some() {
            for finding in check(&input) {
                add(rule, finding);
            }
        }
    }
    if ["raw-color", "near-color", "one-off-color"].iter().any(|rule| config.on(rule).is_some()) {
        for (rule, finding) in colors::check(document, &compiled.scene) {
            add(rule, finding);
        }
    }
    // What cannot be resolved draws otherwise than the file says (or not at all): compile
    // found it, and a lint that passes such a document would say nothing is wrong.
    if let Some(severity) = config.on("unresolved") {
        let diagnostics = compiled.diagnostics(crate::render::RenderTarget::Canvas);
        for diagnostic in diagnostics.iter().filter(|d| d.code == "unresolved") {
            let mut finding = Diagnostic { severity, ..diagnostic.clone() };
            // A problem that says its own fix (a theme axis that selects nothing) keeps it alone.
            if finding.hints.is_empty() {
                finding = finding.with_hint(UNRESOLVED_FIX);
            }
            // The node may be one expansion stopped at (an instance of its own component): the
            // nearest node on its path that was resolved, or else the last of its ids the
            // document itself holds, is where to look.
            let path = diagnostic.node.as_deref().unwrap_or_default();
            let nearest = std::iter::successors(Some(path), |p| p.rsplit_once('/').map(|(head, _)| head))
                .find_map(|p| compiled.scene.node_by_id(p))
                .and_then(|key| compiled.scene.node(key).source)
                .or_else(|| path.rsplit('/').find_map(|id| document.node_by_id(id)));
            if let Some(source) = nearest {
                finding = finding.at_pointer(document.tree().pointer(source));
            }
            found.push(finding);
        }
    }
    Ok(found)
}

/// The fix of an `unresolved` finding.
const UNRESOLVED_FIX: &str = "point the instance at a component that exists and does not contain it, and define every variable the node uses (nib check lists each problem)";

/// True when a finding of this severity fails a lint run: warnings and errors do, notes do not.
pub fn fails(diagnostic: &Diagnostic) -> bool {
    diagnostic.severity >= Severity::Warning
}
