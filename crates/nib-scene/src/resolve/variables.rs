//! Variable values under themes.
//!
//! A node's `theme` (e.g. `{"Mode": "Dark"}`) applies to its subtree; nearer selections win, and
//! an axis nobody selected takes its first value. A themed variable picks the entry matching the
//! most selected axes (an entry naming an axis value that is not selected does not match; on a
//! tie the later entry wins); an entry without `theme` is the fallback. Variables may name other
//! variables; `$h:--x` names the variable `--x` of the file imported as `h`.

use std::fmt;

use super::components::Library;
use crate::doc::values::{ThemeSelection, VariableScalar, VariableValue};
use crate::doc::{Document, VarRef};

/// How many variables may refer to one another before it counts as a cycle.
pub(crate) const MAX_VARIABLE_CHAIN: usize = 32;

/// The value selected on each theme axis at some place in the tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThemeContext {
    values: Vec<(String, String)>,
}

impl ThemeContext {
    /// The first value of each axis the document declares.
    pub fn defaults(document: &Document) -> ThemeContext {
        let values = document
            .themes()
            .map(|themes| {
                themes.iter().filter_map(|(axis, values)| Some((axis.to_owned(), values.first()?.clone()))).collect()
            })
            .unwrap_or_default();
        ThemeContext { values }
    }

    /// This context with the axes `selection` names set to its values.
    pub fn with(&self, selection: &ThemeSelection) -> ThemeContext {
        let mut values = self.values.clone();
        for (axis, value) in selection.iter() {
            match values.iter_mut().find(|(a, _)| a == axis) {
                Some(slot) => slot.1 = value.clone(),
                None => values.push((axis.to_owned(), value.clone())),
            }
        }
        ThemeContext { values }
    }

    /// The value selected on `axis`.
    pub fn value(&self, axis: &str) -> Option<&str> {
        self.values.iter().find(|(a, _)| a == axis).map(|(_, v)| v.as_str())
    }
}

impl fmt::Display for ThemeContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.values.iter().map(|(a, v)| format!("{a}={v}")).collect();
        f.write_str(&parts.join(", "))
    }
}

/// Why a variable has no value.
#[derive(Debug, Clone, PartialEq)]
pub enum LookupError {
    /// No variable has the name.
    Missing(String),
    /// The variable is in an import that is not loaded.
    ImportNotLoaded {
        /// The full name.
        name: String,
        /// The alias.
        alias: String,
    },
    /// Variables refer to each other in a circle.
    Cycle(Vec<String>),
    /// The variable has neither a value nor a fallback for the selected themes.
    Empty(String),
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::Missing(name) => write!(f, "variable '{name}' is not defined"),
            LookupError::ImportNotLoaded { name, alias } => {
                write!(f, "variable '{name}' is in the import '{alias}', which is not loaded")
            }
            LookupError::Cycle(chain) => write!(f, "variables refer to each other in a cycle: {}", chain.join(" → ")),
            LookupError::Empty(name) => write!(f, "variable '{name}' has no value"),
        }
    }
}

/// A variable's value, and a remark when the themes selected matched none of its entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Lookup {
    /// The value (never itself a reference).
    pub value: VariableScalar,
    /// Set when no entry matched the themes and the first one was used.
    pub unmatched_theme: bool,
}

/// Looks `reference` up in `scope` (the document whose variables unprefixed names mean).
pub fn lookup(
    scope: &Document,
    root: &Document,
    library: &dyn Library,
    reference: &VarRef,
    theme: &ThemeContext,
) -> Result<Lookup, LookupError> {
    let mut chain = Vec::new();
    let mut document = scope;
    let mut name = reference.name().to_owned();
    let mut unmatched_theme = false;
    loop {
        if chain.contains(&name) || chain.len() >= MAX_VARIABLE_CHAIN {
            chain.push(name);
            return Err(LookupError::Cycle(chain));
        }
        chain.push(name.clone());
        let (holder, local) = split_alias(document, root, library, &name)?;
        document = holder;
        let variable =
            document.variables().and_then(|v| v.get(local)).ok_or_else(|| LookupError::Missing(name.clone()))?;
        let value = variable.value.as_ref().ok_or_else(|| LookupError::Empty(name.clone()))?;
        let (scalar, matched) = select(value, theme, document).ok_or_else(|| LookupError::Empty(name.clone()))?;
        unmatched_theme |= !matched;
        match scalar {
            VariableScalar::Var(next) => name = next.name().to_owned(),
            other => return Ok(Lookup { value: other.clone(), unmatched_theme }),
        }
    }
}

/// `alias:name` names a variable of an imported document when `alias` is one of the imports.
fn split_alias<'d, 'n>(
    document: &'d Document,
    root: &'d Document,
    library: &'d dyn Library,
    name: &'n str,
) -> Result<(&'d Document, &'n str), LookupError> {
    if let Some((alias, local)) = name.split_once(':') {
        let imports = root.imports().or(document.imports());
        if imports.is_some_and(|i| i.get(alias).is_some()) {
            let imported = library
                .imported(alias)
                .ok_or_else(|| LookupError::ImportNotLoaded { name: name.to_owned(), alias: alias.to_owned() })?;
            return Ok((imported, local));
        }
    }
    Ok((document, name))
}

/// The entry for the selected themes: the one matching most axes (the later on a tie), else the
/// entry without a theme, else the first. The flag says whether the themes matched. An axis no
/// node selected has the first value `holder` (the variable's document) declares for it.
fn select<'a>(value: &'a VariableValue, theme: &ThemeContext, holder: &Document) -> Option<(&'a VariableScalar, bool)> {
    let selected = |axis: &str| -> Option<String> {
        theme.value(axis).map(str::to_owned).or_else(|| holder.themes()?.get(axis)?.first().cloned())
    };
    let entries = match value {
        VariableValue::Plain(scalar) => return Some((scalar, true)),
        VariableValue::Themed(entries) => entries,
    };
    let mut best: Option<(usize, &VariableScalar)> = None;
    let mut fallback = None;
    for entry in entries {
        let Some(scalar) = entry.value.as_ref() else { continue };
        let selection = entry.theme.as_ref().filter(|t| !t.is_empty());
        let Some(selection) = selection else {
            fallback = Some(scalar);
            continue;
        };
        let matches = selection.iter().all(|(axis, value)| selected(axis).as_deref() == Some(value.as_str()));
        if matches && best.is_none_or(|(count, _)| selection.len() >= count) {
            best = Some((selection.len(), scalar));
        }
    }
    if let Some((_, scalar)) = best {
        return Some((scalar, true));
    }
    if let Some(scalar) = fallback {
        return Some((scalar, true));
    }
    entries.iter().find_map(|e| e.value.as_ref()).map(|scalar| (scalar, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::NoImports;

    const DOC: &str = r##"{"version": "2.8", "themes": {"Mode": ["Light", "Dark"], "Accent": ["Blue", "Red"]}, "variables": {
        "--primary": {"type": "color", "value": [
            {"value": "#2563EB", "theme": {"Mode": "Light"}},
            {"value": "#60A5FA", "theme": {"Mode": "Dark"}},
            {"value": "#DC2626", "theme": {"Mode": "Light", "Accent": "Red"}},
            {"value": "#F87171", "theme": {"Mode": "Dark", "Accent": "Red"}}]},
        "--fallback": {"type": "color", "value": [{"value": "#111111", "theme": {"Mode": "Dark"}}, {"value": "#EEEEEE"}]},
        "--alias": {"type": "color", "value": "$--primary"},
        "--a": {"type": "number", "value": "$--b"},
        "--b": {"type": "number", "value": "$--a"},
        "--radius": {"type": "number", "value": 8}
    }, "children": []}"##;

    fn color(document: &Document, name: &str, theme: &ThemeContext) -> String {
        match lookup(document, document, &NoImports, &VarRef(name.into()), theme).unwrap().value {
            VariableScalar::Color(c) => c.as_str().to_owned(),
            other => panic!("{other:?}"),
        }
    }

    fn selection(pairs: &[(&str, &str)]) -> ThemeSelection {
        ThemeSelection { entries: pairs.iter().map(|(a, v)| (a.to_string(), v.to_string())).collect() }
    }

    #[test]
    fn themes_pick_the_best_matching_entry() {
        let document = Document::load(DOC).unwrap().document;
        let defaults = ThemeContext::defaults(&document);
        assert_eq!(defaults.to_string(), "Mode=Light, Accent=Blue");
        assert_eq!(color(&document, "--primary", &defaults), "#2563EB");
        let dark = defaults.with(&selection(&[("Mode", "Dark")]));
        assert_eq!(color(&document, "--primary", &dark), "#60A5FA");
        let dark_red = dark.with(&selection(&[("Accent", "Red")]));
        assert_eq!(color(&document, "--primary", &dark_red), "#F87171", "two matched axes beat one");
        assert_eq!(color(&document, "--fallback", &defaults), "#EEEEEE", "the entry without a theme is the fallback");
        assert_eq!(color(&document, "--fallback", &dark), "#111111");
    }

    #[test]
    fn variables_follow_references_and_report_cycles() {
        let document = Document::load(DOC).unwrap().document;
        let dark = ThemeContext::defaults(&document).with(&selection(&[("Mode", "Dark")]));
        assert_eq!(color(&document, "--alias", &dark), "#60A5FA");
        let e = lookup(&document, &document, &NoImports, &VarRef("--a".into()), &dark).unwrap_err();
        assert_eq!(e.to_string(), "variables refer to each other in a cycle: --a → --b → --a");
        let e = lookup(&document, &document, &NoImports, &VarRef("--nope".into()), &dark).unwrap_err();
        assert_eq!(e, LookupError::Missing("--nope".into()));
    }

    #[test]
    fn axes_nobody_selected_take_their_first_value() {
        let document = Document::load(DOC).unwrap().document;
        assert_eq!(color(&document, "--primary", &ThemeContext::default()), "#2563EB");
    }

    #[test]
    fn unknown_theme_values_fall_back_to_the_first_entry_and_say_so() {
        let document = Document::load(DOC).unwrap().document;
        let sepia = ThemeContext::defaults(&document).with(&selection(&[("Mode", "Sepia")]));
        let found = lookup(&document, &document, &NoImports, &VarRef("--primary".into()), &sepia).unwrap();
        assert!(found.unmatched_theme);
        assert_eq!(found.value, VariableScalar::Color(crate::doc::values::Color::parse("#2563EB").unwrap()));
    }
}
