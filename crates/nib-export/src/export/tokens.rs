//! Design tokens: the document's variables and themes as code — CSS custom properties with a
//! rule per theme, W3C design-tokens JSON, and a Tailwind theme.
//!
//! Themes become attribute selectors: every theme axis is a `data-` attribute (`Mode` →
//! `data-mode`), and each combination of axis values that changes a variable gets a rule
//! naming all axes (`[data-mode="Dark"][data-accent="Red"]`). An element that selects a theme
//! carries every axis attribute, so the rule that matches it is exactly the combination nib
//! resolves there, and custom properties inherit into its subtree as themes do.
//!
//! Values are resolved with nib's own variable lookup for every combination; a variable that is
//! only another variable (`"$--base"`) stays a reference (`var(--base)`, `{base}`). Numbers
//! stay unitless in CSS (`--gap: 8`): multiply by `1px` where a length is needed.

use std::collections::HashSet;
use std::fmt::Write;

use crate::diagnostic::Diagnostic;
use crate::doc::Document;
use crate::doc::values::{VariableScalar, VariableType, VariableValue};
use crate::resolve::{Library, ThemeContext, lookup, theme_axes};

/// Most theme combinations written: the product of the axes' values grows fast, and a
/// stylesheet with more rules than this is no longer something a person reads.
pub(crate) const MAX_THEME_COMBINATIONS: usize = 256;

/// A resolved variable value.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenValue {
    /// A color, as the document spells it.
    Color(String),
    /// A number.
    Number(f64),
    /// A string (font families, labels).
    String(String),
    /// A boolean.
    Boolean(bool),
}

/// One variable with its value in every theme combination.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// The name as the document writes it (`--primary`).
    pub name: String,
    /// The custom property it becomes (`--primary`), unique in the set.
    pub property: String,
    /// The declared type.
    pub kind: VariableType,
    /// The variable it is an alias of, when its whole value is a reference to another one of
    /// the document's variables.
    pub alias: Option<String>,
    /// The value in each of [`TokenSet::combinations`], in order; `None` where it has none.
    pub values: Vec<Option<TokenValue>>,
}

/// A combination of one value per theme axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Combination {
    /// `(axis, value)` for every axis, in the document's order.
    pub values: Vec<(String, String)>,
    /// The theme context nib resolves variables under.
    pub context: ThemeContext,
}

impl Combination {
    /// The attribute selector matching an element that carries this combination.
    pub fn selector(&self) -> String {
        self.values
            .iter()
            .map(|(axis, value)| format!("[{}=\"{}\"]", theme_attribute(axis), css_string(value)))
            .collect()
    }

    /// `Mode=Dark, Accent=Red`.
    pub fn label(&self) -> String {
        self.values.iter().map(|(a, v)| format!("{a}={v}")).collect::<Vec<_>>().join(", ")
    }
}

/// The document's variables and themes, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenSet {
    /// Theme axes and their values, in the document's order.
    pub axes: Vec<(String, Vec<String>)>,
    /// Every combination of axis values (the defaults first), at most
    /// [`MAX_THEME_COMBINATIONS`].
    pub combinations: Vec<Combination>,
    /// The variables in the document's order.
    pub tokens: Vec<Token>,
    /// What could not be resolved or written.
    pub warnings: Vec<Diagnostic>,
}

impl TokenSet {
    /// The variables of `document` (imports through `library`) in every theme combination.
    pub fn of(document: &Document, library: &dyn Library) -> TokenSet {
        // The document's axes and its imports' (`c:Mode` → `data-c-mode`): a frame choosing a
        // library's theme is a page under that library's attribute.
        let axes = theme_axes(document, library);
        let mut warnings = Vec::new();
        let combinations = combinations(document, &axes, &mut warnings);
        let mut used = HashSet::new();
        let mut tokens = Vec::new();
        for (name, variable) in document.variables().map(|v| v.iter().collect::<Vec<_>>()).unwrap_or_default() {
            let kind = variable.var_type.unwrap_or(VariableType::String);
            let alias = match &variable.value {
                Some(VariableValue::Plain(VariableScalar::Var(target)))
                    if document.variables().is_some_and(|v| v.get(target.name()).is_some()) =>
                {
                    Some(target.name().to_owned())
                }
                _ => None,
            };
            let values = combinations
                .iter()
                .map(|combination| {
                    let reference = crate::doc::VarRef(name.to_owned());
                    match lookup(document, None, document, library, &reference, &combination.context) {
                        Ok(found) => Some(token_value(found.value)),
                        Err(error) => {
                            let message = Diagnostic::warning("unresolved", format!("variable '{name}': {error}"));
                            if !warnings.contains(&message) {
                                warnings.push(message);
                            }
                            None
                        }
                    }
                })
                .collect();
            let property = unique(custom_property(name), &mut used);
            tokens.push(Token { name: name.to_owned(), property, kind, alias, values });
        }
        TokenSet { axes, combinations, tokens, warnings }
    }

    /// The custom property of the variable `name`, when the document has it.
    pub fn property(&self, name: &str) -> Option<&str> {
        self.tokens.iter().find(|t| t.name == name).map(|t| t.property.as_str())
    }

    /// `:root` with every variable's default value, then a rule per theme combination with
    /// the variables that differ from the defaults there. `root` is the selector of the
    /// defaults (`:root` for a stylesheet of its own).
    pub fn css(&self, root: &str) -> String {
        let mut css = String::new();
        if self.tokens.is_empty() {
            return css;
        }
        let _ = writeln!(css, "{root} {{");
        for token in &self.tokens {
            if let Some(value) = self.css_value(token, 0) {
                let _ = writeln!(css, "  {}: {value};", token.property);
            }
        }
        css.push_str("}\n");
        for (index, combination) in self.combinations.iter().enumerate().skip(1) {
            let changed: Vec<(&Token, String)> = self
                .tokens
                .iter()
                .filter(|t| t.alias.is_none() && t.values[index] != t.values[0])
                .filter_map(|t| Some((t, self.css_value(t, index)?)))
                .collect();
            if changed.is_empty() {
                continue;
            }
            let _ = writeln!(css, "\n/* {} */\n{} {{", css_comment(&combination.label()), combination.selector());
            for (token, value) in changed {
                let _ = writeln!(css, "  {}: {value};", token.property);
            }
            css.push_str("}\n");
        }
        css
    }

    /// A token's CSS value in combination `index`.
    fn css_value(&self, token: &Token, index: usize) -> Option<String> {
        if let Some(alias) = token.alias.as_deref().and_then(|a| self.property(a)) {
            return Some(format!("var({alias})"));
        }
        token.values.get(index)?.as_ref().map(css_value)
    }

    /// W3C design tokens (DTCG) JSON: one token per variable with `$type` and the default
    /// theme's `$value`, aliases as `{name}`, and the values of the other theme combinations
    /// under `$extensions` (`"com.nib.themes"`, keyed `Mode=Dark`).
    pub fn json(&self) -> String {
        let mut root = serde_json::Map::new();
        for token in &self.tokens {
            let mut entry = serde_json::Map::new();
            let key = token_key(&token.property);
            match token.kind {
                VariableType::Color => {
                    entry.insert("$type".into(), "color".into());
                }
                VariableType::Number => {
                    entry.insert("$type".into(), "number".into());
                }
                VariableType::String if looks_like_font(&token.name) => {
                    entry.insert("$type".into(), "fontFamily".into());
                }
                VariableType::String | VariableType::Boolean => {}
            }
            let value = match token.alias.as_deref().and_then(|a| self.property(a)) {
                Some(alias) => serde_json::Value::String(format!("{{{}}}", token_key(alias))),
                None => token.values.first().cloned().flatten().map_or(serde_json::Value::Null, json_value),
            };
            entry.insert("$value".into(), value);
            let mut themes = serde_json::Map::new();
            if token.alias.is_none() {
                for (index, combination) in self.combinations.iter().enumerate().skip(1) {
                    if token.values[index] != token.values[0]
                        && let Some(value) = token.values[index].clone()
                    {
                        themes.insert(combination.label().replace(", ", ","), json_value(value));
                    }
                }
            }
            let mut extensions = serde_json::Map::new();
            extensions.insert("name".into(), token.name.clone().into());
            if !themes.is_empty() {
                extensions.insert("themes".into(), themes.into());
            }
            if matches!(token.kind, VariableType::String | VariableType::Boolean) {
                extensions.insert("type".into(), token.kind.as_str().into());
            }
            entry.insert("$extensions".into(), serde_json::json!({ "com.nib": extensions }));
            root.insert(key, entry.into());
        }
        if !self.axes.is_empty() {
            let axes: serde_json::Map<String, serde_json::Value> =
                self.axes.iter().map(|(axis, values)| (axis.clone(), values.clone().into())).collect();
            root.insert("$extensions".into(), serde_json::json!({ "com.nib": { "themeAxes": axes } }));
        }
        let mut text = serde_json::to_string_pretty(&serde_json::Value::Object(root)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// A Tailwind theme (`tailwind.config.js`, `theme.extend`): colors, spacing, radii, font
    /// sizes, weights and families, each `var(--token, default)` so the values follow the
    /// themes when the token stylesheet is loaded and stand alone when it is not.
    pub fn tailwind(&self) -> String {
        let mut groups: Vec<(&str, Vec<String>)> = Vec::new();
        let mut unplaced = Vec::new();
        for token in &self.tokens {
            let value = token.values.first().cloned().flatten();
            let group = match (token.kind, &value) {
                (VariableType::Color, _) => "colors",
                (VariableType::Number, _) => number_group(&token.name),
                (VariableType::String, _) if looks_like_font(&token.name) => "fontFamily",
                (VariableType::String, _) => "content",
                (VariableType::Boolean, _) => {
                    unplaced.push(format!("{} = {}", token.name, value.as_ref().map(css_value).unwrap_or_default()));
                    continue;
                }
            };
            let fallback = match (&value, group) {
                (Some(TokenValue::Number(n)), "fontWeight" | "opacity") => crate::doc::json::js_number(*n),
                (Some(TokenValue::Number(n)), _) => format!("{}px", crate::doc::json::js_number(*n)),
                (Some(other), _) => css_value(other),
                (None, _) => String::new(),
            };
            let reference = match (token.kind, group) {
                (VariableType::Number, "fontWeight" | "opacity") => format!("var({}, {fallback})", token.property),
                (VariableType::Number, _) => {
                    format!("calc(var({}, {}) * 1px)", token.property, fallback.trim_end_matches("px"))
                }
                _ => format!("var({}, {fallback})", token.property),
            };
            let entry = format!("{}: {}", js_string(&token_key(&token.property)), js_string(&reference));
            match groups.iter_mut().find(|(name, _)| *name == group) {
                Some((_, entries)) => entries.push(entry),
                None => groups.push((group, vec![entry])),
            }
        }
        let mut js = String::from(
            "/** Generated by nib from the document's variables. Load the token stylesheet (nib export --format tokens-css)\n * to switch themes with data attributes; without it every value is the default theme's. */\n/** @type {import('tailwindcss').Config} */\nmodule.exports = {\n  theme: {\n    extend: {\n",
        );
        for (group, entries) in groups {
            let _ = writeln!(js, "      {group}: {{");
            for entry in entries {
                let _ = writeln!(js, "        {entry},");
            }
            js.push_str("      },\n");
        }
        js.push_str("    },\n  },\n");
        if !self.axes.is_empty() {
            let axes: Vec<String> = self
                .axes
                .iter()
                .map(|(axis, values)| format!("{} ({})", theme_attribute(axis), values.join(", ")))
                .collect();
            let _ = writeln!(js, "  // Theme attributes: {}.", axes.join("; "));
        }
        for line in unplaced {
            let _ = writeln!(js, "  // {line} (a boolean: Tailwind has no key for it).");
        }
        js.push_str("};\n");
        js
    }
}

/// Every combination of axis values, the defaults first, at most [`MAX_THEME_COMBINATIONS`].
fn combinations(
    document: &Document,
    axes: &[(String, Vec<String>)],
    warnings: &mut Vec<Diagnostic>,
) -> Vec<Combination> {
    let mut all: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (axis, values) in axes.iter().filter(|(_, values)| !values.is_empty()) {
        let mut next = Vec::with_capacity(all.len() * values.len());
        for partial in &all {
            for value in values {
                if next.len() >= MAX_THEME_COMBINATIONS {
                    break;
                }
                let mut combination = partial.clone();
                combination.push((axis.clone(), value.clone()));
                next.push(combination);
            }
        }
        all = next;
    }
    let total: usize = axes.iter().map(|(_, v)| v.len().max(1)).product();
    if total > MAX_THEME_COMBINATIONS {
        warnings.push(Diagnostic::warning(
            "budget",
            format!("the themes combine into {total} variants; the first {MAX_THEME_COMBINATIONS} are written"),
        ));
    }
    let defaults = ThemeContext::defaults(document);
    all.into_iter()
        .map(|values| {
            let mut context = defaults.clone();
            for (axis, value) in &values {
                let mut selection = crate::doc::values::ThemeSelection::default();
                selection.entries.push((axis.clone(), value.clone()));
                context = context.with(&selection);
            }
            Combination { values, context }
        })
        .collect()
}

fn token_value(value: VariableScalar) -> TokenValue {
    match value {
        VariableScalar::Color(color) => TokenValue::Color(color.as_str().to_owned()),
        VariableScalar::Number(n) => TokenValue::Number(n),
        VariableScalar::String(s) => TokenValue::String(s),
        VariableScalar::Boolean(b) => TokenValue::Boolean(b),
        // lookup follows references to the end.
        VariableScalar::Var(var) => TokenValue::String(format!("${}", var.name())),
    }
}

/// A value as CSS writes it: colors as the document spells them, numbers unitless, strings
/// quoted.
pub(crate) fn css_value(value: &TokenValue) -> String {
    match value {
        TokenValue::Color(color) if color.starts_with('#') => color.clone(),
        TokenValue::Color(_) => "transparent".to_owned(),
        TokenValue::Number(n) => crate::doc::json::js_number(*n),
        TokenValue::String(s) => format!("\"{}\"", css_string(s)),
        TokenValue::Boolean(b) => b.to_string(),
    }
}

fn json_value(value: TokenValue) -> serde_json::Value {
    match value {
        TokenValue::Color(c) => c.into(),
        TokenValue::Number(n) => serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, Into::into),
        TokenValue::String(s) => s.into(),
        TokenValue::Boolean(b) => b.into(),
    }
}

/// The custom property a variable name becomes: `--` followed by the name's letters, digits,
/// `-` and `_`, anything else as `-` (`color.primary` → `--color-primary`).
pub(crate) fn custom_property(name: &str) -> String {
    let bare = name.trim_start_matches('-');
    let mut property = String::from("--");
    for c in bare.chars() {
        property.push(if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '-' });
    }
    if property.len() == 2 {
        property.push_str("var");
    }
    property
}

/// `property`, or `property-2`, `-3`… when an earlier variable took it.
fn unique(property: String, used: &mut HashSet<String>) -> String {
    let mut candidate = property.clone();
    let mut n = 2;
    while !used.insert(candidate.clone()) {
        candidate = format!("{property}-{n}");
        n += 1;
    }
    candidate
}

/// The data attribute of a theme axis: `Mode` → `data-mode`, `Brand Color` → `data-brand-color`.
pub(crate) fn theme_attribute(axis: &str) -> String {
    let mut name = String::from("data-");
    let mut dash = false;
    for c in axis.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && !name.ends_with('-') {
                name.push('-');
            }
            name.push(c.to_ascii_lowercase());
            dash = false;
        } else {
            dash = true;
        }
    }
    if name.len() == 5 {
        name.push_str("theme");
    }
    name
}

/// Text safe inside a double-quoted CSS string, also when the CSS is inside an HTML `<style>`
/// element: `<` and `>` are written as CSS escapes, so a document's string (a font family, a
/// theme value, an image address) can never spell `</style>` and end the element early (a
/// family `x'</style><script>…` ran its script when the page was opened).
pub(crate) fn css_string(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => escaped.push_str("\\\""),
            '\\' => escaped.push_str("\\\\"),
            '\n' => escaped.push_str("\\a "),
            '<' => escaped.push_str("\\3c "),
            '>' => escaped.push_str("\\3e "),
            c if c.is_control() => {}
            c => escaped.push(c),
        }
    }
    escaped
}

/// Text safe inside a CSS comment, also inside an HTML `<style>` element: nothing in it ends
/// the comment (`*/`) or the element (`<`).
pub(crate) fn css_comment(text: &str) -> String {
    text.replace("*/", "* /").replace('<', "\u{2039}").chars().filter(|c| !c.is_control()).collect()
}

/// A token's key in JSON and Tailwind: the property without its leading dashes.
fn token_key(property: &str) -> String {
    property.trim_start_matches('-').to_owned()
}

fn js_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

fn looks_like_font(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower.contains("font") || lower.contains("family") || lower.contains("typeface")
}

/// Where a number variable goes in a Tailwind theme, by what its name says it is.
fn number_group(name: &str) -> &'static str {
    let lower = name.to_lowercase();
    if lower.contains("radius") || lower.contains("rounded") || lower.contains("corner") {
        "borderRadius"
    } else if lower.contains("weight") {
        "fontWeight"
    } else if lower.contains("opacity") || lower.contains("alpha") {
        "opacity"
    } else if lower.contains("font") || lower.contains("text") || lower.contains("size") && !lower.contains("space") {
        "fontSize"
    } else {
        "spacing"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::NoImports;

    const KIT: &str = r##"{"version": "2.8", "themes": {"Mode": ["Light", "Dark"], "Brand Color": ["Blue", "Red"]}, "variables": {
        "--primary": {"type": "color", "value": [
            {"value": "#2563EB", "theme": {"Mode": "Light"}},
            {"value": "#60A5FA", "theme": {"Mode": "Dark"}},
            {"value": "#DC2626", "theme": {"Mode": "Light", "Brand Color": "Red"}}]},
        "--link": {"type": "color", "value": "$--primary"},
        "--radius-md": {"type": "number", "value": 8},
        "font.body": {"type": "string", "value": "Inter"},
        "--compact": {"type": "boolean", "value": false}
    }, "children": []}"##;

    fn set() -> TokenSet {
        TokenSet::of(&Document::load(KIT).expect("valid").document, &NoImports)
    }

    #[test]
    fn every_theme_combination_is_an_attribute_selector_with_what_changes() {
        let set = set();
        assert_eq!(set.combinations.len(), 4);
        let css = set.css(":root");
        assert!(css.starts_with(":root {\n  --primary: #2563EB;\n  --link: var(--primary);\n"), "{css}");
        assert!(css.contains("--radius-md: 8;") && css.contains("--font-body: \"Inter\";"), "{css}");
        assert!(css.contains("[data-mode=\"Dark\"][data-brand-color=\"Blue\"] {\n  --primary: #60A5FA;\n}"), "{css}");
        assert!(css.contains("[data-mode=\"Light\"][data-brand-color=\"Red\"] {\n  --primary: #DC2626;\n}"), "{css}");
        assert!(!css.contains("--link: #"), "an alias stays a reference: {css}");
    }

    #[test]
    fn json_and_tailwind_carry_every_variable() {
        let set = set();
        let json: serde_json::Value = serde_json::from_str(&set.json()).expect("json");
        assert_eq!(json["primary"]["$type"], "color");
        assert_eq!(json["primary"]["$value"], "#2563EB");
        assert_eq!(json["primary"]["$extensions"]["com.nib"]["themes"]["Mode=Dark,Brand Color=Blue"], "#60A5FA");
        assert_eq!(json["link"]["$value"], "{primary}");
        assert_eq!(json["font-body"]["$type"], "fontFamily");
        assert_eq!(json["$extensions"]["com.nib"]["themeAxes"]["Mode"][1], "Dark");
        let tailwind = set.tailwind();
        assert!(tailwind.contains("\"primary\": \"var(--primary, #2563EB)\""), "{tailwind}");
        assert!(
            tailwind.contains("borderRadius: {\n        \"radius-md\": \"calc(var(--radius-md, 8) * 1px)\""),
            "{tailwind}"
        );
        assert!(tailwind.contains("fontFamily: {\n        \"font-body\""), "{tailwind}");
        assert!(tailwind.contains("--compact = false"), "{tailwind}");
    }

    #[test]
    fn names_become_valid_css_identifiers() {
        assert_eq!(custom_property("--primary"), "--primary");
        assert_eq!(custom_property("color.primary/500"), "--color-primary-500");
        assert_eq!(theme_attribute("Brand Color"), "data-brand-color");
        assert_eq!(theme_attribute("!!"), "data-theme");
        let mut used = HashSet::new();
        assert_eq!(unique("--a".into(), &mut used), "--a");
        assert_eq!(unique("--a".into(), &mut used), "--a-2");
    }
}
