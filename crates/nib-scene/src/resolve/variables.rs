//! Variable values under themes.
//!
//! A node's `theme` (e.g. `{"Mode": "Dark"}`) applies to its subtree; nearer selections win, and
//! an axis nobody selected takes its first value. A themed variable picks the entry matching the
//! most selected axes (an entry naming an axis value that is not selected does not match; on a
//! tie the later entry wins); an entry without `theme` is the fallback. Variables may name other
//! variables; `$h:--x` names the variable `--x` of the file imported as `h`.
//!
//! Axes of an imported library are named with its alias (`c:Mode` for the axis `Mode` of the
//! file imported as `c`), as Pen's files write them: a frame's `{"c:Mode": "Dark"}` selects the
//! library's dark values, for the library's own variables (themed on `Mode` inside it) and for
//! the document's variables themed on `c:Mode`. Inside the library's components an unprefixed
//! axis is the library's own, so it is kept as `c:Mode` in the context too; an axis nobody
//! selected takes the first value its declaring file gives it.

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
        self.with_in(selection, None)
    }

    /// This context with the axes `selection` names set to its values, the selection written in
    /// the file imported as `alias` (`None`: the document itself): its unprefixed axes are that
    /// file's, `alias:Axis` in the document's terms.
    pub fn with_in(&self, selection: &ThemeSelection, alias: Option<&str>) -> ThemeContext {
        let mut values = self.values.clone();
        for (axis, value) in selection.iter() {
            let axis = qualified(axis, alias);
            match values.iter_mut().find(|(a, _)| *a == axis) {
                Some(slot) => slot.1 = value.clone(),
                None => values.push((axis.into_owned(), value.clone())),
            }
        }
        ThemeContext { values }
    }

    /// The value selected on `axis`.
    pub fn value(&self, axis: &str) -> Option<&str> {
        self.values.iter().find(|(a, _)| a == axis).map(|(_, v)| v.as_str())
    }
}

/// `axis` of the file imported as `alias` in the document's terms: `alias:axis` (an axis that
/// names an alias already, or one of the document itself, stays as it is).
fn qualified<'a>(axis: &'a str, alias: Option<&str>) -> std::borrow::Cow<'a, str> {
    match alias {
        Some(alias) if !axis.contains(':') => std::borrow::Cow::Owned(format!("{alias}:{axis}")),
        _ => std::borrow::Cow::Borrowed(axis),
    }
}

impl fmt::Display for ThemeContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.values.iter().map(|(a, v)| format!("{a}={v}")).collect();
        f.write_str(&parts.join(", "))
    }
}

/// The theme axes a node of `document` can select, with their values: the document's own, then
/// each loaded import's as `alias:Axis`. Imports that are not loaded are left out (their
/// absence is said where they are read).
pub fn theme_axes(document: &Document, library: &dyn Library) -> Vec<(String, Vec<String>)> {
    let mut axes: Vec<(String, Vec<String>)> = document.themes().map(|t| t.entries.clone()).unwrap_or_default();
    if let Some(imports) = document.imports() {
        for (alias, _) in imports.iter() {
            let Some(imported) = library.imported(alias) else { continue };
            for (axis, values) in imported.themes().map(|t| t.entries.clone()).unwrap_or_default() {
                axes.push((format!("{alias}:{axis}"), values));
            }
        }
    }
    axes
}

/// Why the axis `axis` (in the document's terms) selected as `value` selects nothing, or
/// `None` when it does (or names an import that is not loaded, said elsewhere).
pub fn unresolved_axis(document: &Document, library: &dyn Library, axis: &str, value: &str) -> Option<String> {
    if let Some((alias, _)) = axis.split_once(':')
        && document.imports().is_some_and(|i| i.get(alias).is_some())
        && library.imported(alias).is_none()
    {
        return None;
    }
    let axes = theme_axes(document, library);
    let listed = || {
        let all: Vec<String> = axes.iter().map(|(axis, values)| format!("{axis} ({})", values.join(", "))).collect();
        if all.is_empty() { "the document and its imports define no theme axis".to_owned() } else { all.join("; ") }
    };
    match axes.iter().find(|(a, _)| a == axis) {
        None => {
            Some(format!("the theme axis '{axis}' is defined neither by the document nor by an import: {}", listed()))
        }
        Some((_, values)) if !values.iter().any(|v| v == value) => {
            Some(format!("'{value}' is not a value of the theme axis '{axis}' ({})", values.join(", ")))
        }
        Some(_) => None,
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

/// Looks `reference` up in `scope` (the document whose variables unprefixed names mean: the
/// document itself, or the file it imports as `scope_alias`).
pub fn lookup(
    scope: &Document,
    scope_alias: Option<&str>,
    root: &Document,
    library: &dyn Library,
    reference: &VarRef,
    theme: &ThemeContext,
) -> Result<Lookup, LookupError> {
    let mut chain = Vec::new();
    let mut document = scope;
    let mut alias = scope_alias.map(str::to_owned);
    let mut name = reference.name().to_owned();
    let mut unmatched_theme = false;
    loop {
        if chain.contains(&name) || chain.len() >= MAX_VARIABLE_CHAIN {
            chain.push(name);
            return Err(LookupError::Cycle(chain));
        }
        chain.push(name.clone());
        let (holder, holder_alias, local) = split_alias(document, root, library, &name)?;
        document = holder;
        if let Some(holder_alias) = holder_alias {
            alias = Some(holder_alias.to_owned());
        }
        let variable =
            document.variables().and_then(|v| v.get(local)).ok_or_else(|| LookupError::Missing(name.clone()))?;
        let value = variable.value.as_ref().ok_or_else(|| LookupError::Empty(name.clone()))?;
        let holder = Holder { document, alias: alias.as_deref(), root, library };
        let (scalar, matched) = select(value, theme, &holder).ok_or_else(|| LookupError::Empty(name.clone()))?;
        unmatched_theme |= !matched;
        match scalar {
            VariableScalar::Var(next) => name = next.name().to_owned(),
            other => return Ok(Lookup { value: other.clone(), unmatched_theme }),
        }
    }
}

/// `alias:name` names a variable of an imported document when `alias` is one of the imports;
/// the document, its alias when it is an import, and the name there.
fn split_alias<'d, 'n>(
    document: &'d Document,
    root: &'d Document,
    library: &'d dyn Library,
    name: &'n str,
) -> Result<(&'d Document, Option<&'n str>, &'n str), LookupError> {
    if let Some((alias, local)) = name.split_once(':') {
        let imports = root.imports().or(document.imports());
        if imports.is_some_and(|i| i.get(alias).is_some()) {
            let imported = library
                .imported(alias)
                .ok_or_else(|| LookupError::ImportNotLoaded { name: name.to_owned(), alias: alias.to_owned() })?;
            return Ok((imported, Some(alias), local));
        }
    }
    Ok((document, None, name))
}

/// The document a variable belongs to, with what its theme axes mean.
struct Holder<'d> {
    document: &'d Document,
    /// Its import alias (`None`: the document itself).
    alias: Option<&'d str>,
    root: &'d Document,
    library: &'d dyn Library,
}

impl Holder<'_> {
    /// The value selected on the holder's axis `axis`: what the context selects on it in the
    /// document's terms (`c:Mode` for the library `c`'s `Mode`; a library's variables also
    /// follow an unprefixed selection of the same axis, as they did before), else the first
    /// value the file declaring the axis gives it.
    fn selected(&self, theme: &ThemeContext, axis: &str) -> Option<String> {
        let qualified = qualified(axis, self.alias);
        if let Some(value) = theme.value(&qualified) {
            return Some(value.to_owned());
        }
        if self.alias.is_some()
            && let Some(value) = theme.value(axis)
        {
            return Some(value.to_owned());
        }
        let declared_in = |document: &Document, axis: &str| document.themes()?.get(axis)?.first().cloned();
        match qualified.split_once(':') {
            Some((alias, local)) if self.root.imports().is_some_and(|i| i.get(alias).is_some()) => {
                self.library.imported(alias).and_then(|library| declared_in(library, local))
            }
            _ => declared_in(self.document, axis),
        }
    }
}

/// The entry for the selected themes: the one matching most axes (the later on a tie), else the
/// entry without a theme, else the first. The flag says whether the themes matched. An axis no
/// node selected has the first value the file declaring it gives it.
fn select<'a>(
    value: &'a VariableValue,
    theme: &ThemeContext,
    holder: &Holder<'_>,
) -> Option<(&'a VariableScalar, bool)> {
    let selected = |axis: &str| -> Option<String> { holder.selected(theme, axis) };
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
        match lookup(document, None, document, &NoImports, &VarRef(name.into()), theme).unwrap().value {
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
        let e = lookup(&document, None, &document, &NoImports, &VarRef("--a".into()), &dark).unwrap_err();
        assert_eq!(e.to_string(), "variables refer to each other in a cycle: --a → --b → --a");
        let e = lookup(&document, None, &document, &NoImports, &VarRef("--nope".into()), &dark).unwrap_err();
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
        let found = lookup(&document, None, &document, &NoImports, &VarRef("--primary".into()), &sepia).unwrap();
        assert!(found.unmatched_theme);
        assert_eq!(found.value, VariableScalar::Color(crate::doc::values::Color::parse("#2563EB").unwrap()));
    }
}
