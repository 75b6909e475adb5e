//! Changes to the document-level keys: version, imports, unknown keys, variables and themes.

use crate::doc::Document;
use crate::doc::values::{ThemeSelection, Variable, VariableValue};

use super::{ChangeKind, PropertyChange, ThemeChange, VariableChange};
use crate::review::values::{compact, same, same_json};

/// Changes to `version`, `imports[alias]` and keys nib does not know.
pub(super) fn document_changes(old: &Document, new: &Document) -> Vec<PropertyChange> {
    let mut changes = Vec::new();
    if old.version() != new.version() {
        changes.push(PropertyChange {
            key: "version".into(),
            old: old.version().map(|v| compact(&v.to_owned())),
            new: new.version().map(|v| compact(&v.to_owned())),
        });
    }
    let imports = |document: &Document| -> Vec<(String, String)> {
        document
            .imports()
            .map(|i| i.iter().map(|(a, p)| (format!("imports[{a}]"), compact(p))).collect())
            .unwrap_or_default()
    };
    changes.extend(keyed_changes(&imports(old), &imports(new)));
    let unknown = |document: &Document| -> Vec<(String, String)> {
        document.unknown_keys().iter().map(|(k, v)| (k.clone(), compact(v))).collect()
    };
    changes.extend(keyed_changes(&unknown(old), &unknown(new)));
    changes
}

/// The changes between two keyed lists of compact JSON values: `new`'s order, then keys only
/// `old` has.
pub(super) fn keyed_changes(old: &[(String, String)], new: &[(String, String)]) -> Vec<PropertyChange> {
    let find = |list: &[(String, String)], key: &str| list.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let mut changes = Vec::new();
    for (key, value) in new {
        match find(old, key) {
            Some(before) if same_json(&before, value) => {}
            before => changes.push(PropertyChange { key: key.clone(), old: before, new: Some(value.clone()) }),
        }
    }
    for (key, value) in old {
        if find(new, key).is_none() {
            changes.push(PropertyChange { key: key.clone(), old: Some(value.clone()), new: None });
        }
    }
    changes
}

/// Variables and theme axes that changed.
pub(super) fn variable_changes(old: &Document, new: &Document) -> (Vec<VariableChange>, Vec<ThemeChange>) {
    let empty = Default::default();
    let (old_vars, new_vars) = (old.variables().unwrap_or(&empty), new.variables().unwrap_or(&empty));
    let mut variables = Vec::new();
    for (name, variable) in new_vars.iter() {
        match old_vars.get(name) {
            None => variables.push(variable_change(name, ChangeKind::Added, None, Some(variable))),
            Some(before) if !same(before, variable) => {
                variables.push(variable_change(name, ChangeKind::Changed, Some(before), Some(variable)));
            }
            Some(_) => {}
        }
    }
    for (name, variable) in old_vars.iter() {
        if new_vars.get(name).is_none() {
            variables.push(variable_change(name, ChangeKind::Removed, Some(variable), None));
        }
    }
    let empty = Default::default();
    let (old_axes, new_axes) = (old.themes().unwrap_or(&empty), new.themes().unwrap_or(&empty));
    let mut themes = Vec::new();
    for (axis, values) in new_axes.iter() {
        let before = old_axes.get(axis);
        if before != Some(values) {
            themes.push(ThemeChange { axis: axis.to_owned(), old: before.cloned(), new: Some(values.clone()) });
        }
    }
    for (axis, values) in old_axes.iter() {
        if new_axes.get(axis).is_none() {
            themes.push(ThemeChange { axis: axis.to_owned(), old: Some(values.clone()), new: None });
        }
    }
    (variables, themes)
}

fn variable_change(name: &str, kind: ChangeKind, old: Option<&Variable>, new: Option<&Variable>) -> VariableChange {
    let type_of = |v: Option<&Variable>| v.and_then(|v| v.var_type).map(|t| t.as_str().to_owned());
    let (old_type, new_type) = (type_of(old), type_of(new));
    let var_type = (old_type != new_type).then_some((old_type, new_type));
    let values = |v: Option<&Variable>| v.and_then(|v| v.value.as_ref()).map(themed_values).unwrap_or_default();
    VariableChange { name: name.to_owned(), kind, var_type, values: keyed_changes(&values(old), &values(new)) }
}

/// A variable's values keyed by the theme they apply under (`default` for none), as compact
/// JSON; a theme listed twice gets `#2`, `#3` after its key.
pub(crate) fn themed_values(value: &VariableValue) -> Vec<(String, String)> {
    match value {
        VariableValue::Plain(scalar) => vec![("default".to_owned(), compact(scalar))],
        VariableValue::Themed(entries) => {
            let mut keyed: Vec<(String, String)> = Vec::with_capacity(entries.len());
            for entry in entries {
                let mut key = entry.theme.as_ref().map(theme_key).unwrap_or_else(|| "default".to_owned());
                let repeats = keyed.iter().filter(|(k, _)| k == &key || k.starts_with(&format!("{key} #"))).count();
                if repeats > 0 {
                    key = format!("{key} #{}", repeats + 1);
                }
                keyed.push((key, entry.value.as_ref().map(compact).unwrap_or_else(|| "null".into())));
            }
            keyed
        }
    }
}

/// `Mode=Dark, Accent=Red`; `default` for an empty selection.
pub(crate) fn theme_key(selection: &ThemeSelection) -> String {
    if selection.is_empty() {
        return "default".into();
    }
    selection.iter().map(|(axis, value)| format!("{axis}={value}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_compare_per_theme_and_themes_per_axis() {
        let old = Document::load(
            r##"{"version": "2.11", "themes": {"Mode": ["Light", "Dark"]}, "variables": {
                "--primary": {"type": "color", "value": [{"value": "#2563EB", "theme": {"Mode": "Light"}}, {"value": "#60A5FA", "theme": {"Mode": "Dark"}}]},
                "--radius": {"type": "number", "value": 8}, "--gone": {"type": "string", "value": "x"}}, "children": []}"##,
        )
        .unwrap()
        .document;
        let new = Document::load(
            r##"{"version": "2.13", "themes": {"Mode": ["Light", "Dark", "Dim"]}, "variables": {
                "--radius": {"value": 8, "type": "number"},
                "--primary": {"type": "color", "value": [{"value": "#2563EB", "theme": {"Mode": "Light"}}, {"value": "#3B82F6", "theme": {"Mode": "Dark"}}]},
                "--new": {"type": "number", "value": 4}}, "children": []}"##,
        )
        .unwrap()
        .document;
        let (variables, themes) = variable_changes(&old, &new);
        let change = |key: &str, old: Option<&str>, new: Option<&str>| PropertyChange {
            key: key.into(),
            old: old.map(str::to_owned),
            new: new.map(str::to_owned),
        };
        let shown: Vec<(&str, ChangeKind, &[PropertyChange])> =
            variables.iter().map(|v| (v.name.as_str(), v.kind, v.values.as_slice())).collect();
        assert_eq!(
            shown,
            [
                (
                    "--primary",
                    ChangeKind::Changed,
                    &[change("Mode=Dark", Some("\"#60A5FA\""), Some("\"#3B82F6\""))][..]
                ),
                ("--new", ChangeKind::Added, &[change("default", None, Some("4"))][..]),
                ("--gone", ChangeKind::Removed, &[change("default", Some("\"x\""), None)][..]),
            ]
        );
        assert_eq!(variables[1].var_type, Some((None, Some("number".into()))));
        assert_eq!(
            themes,
            [ThemeChange {
                axis: "Mode".into(),
                old: Some(vec!["Light".into(), "Dark".into()]),
                new: Some(vec!["Light".into(), "Dark".into(), "Dim".into()])
            }]
        );
        let document = document_changes(&old, &new);
        assert_eq!(
            document,
            [PropertyChange { key: "version".into(), old: Some("\"2.11\"".into()), new: Some("\"2.13\"".into()) }]
        );
    }
}
