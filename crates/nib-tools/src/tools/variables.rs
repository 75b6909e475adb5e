//! get_variables and set_variables.

use serde::{Deserialize, Serialize};

use super::ToolError;
use super::workspace::Workspace;
use crate::diagnostic::Diagnostic;
use crate::doc::json::{self, JsonValue};
use crate::doc::values::{VariableValue, Variables};

/// Arguments naming only a document.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
}

/// Themes and variables as the file has them.
#[derive(Debug, Serialize)]
pub struct VariablesAnswer {
    /// Theme axes and their values.
    pub themes: serde_json::Value,
    /// Variables by name.
    pub variables: serde_json::Value,
    /// The document's revision.
    pub revision: u64,
    /// When no filePath was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The document's themes and variables.
pub fn get_variables(workspace: &mut Workspace, args: FileArgs) -> Result<VariablesAnswer, ToolError> {
    let (open, note) = workspace.document(args.file_path.as_deref())?;
    Ok(answer(&open.document, note))
}

fn answer(document: &crate::doc::Document, note: Option<String>) -> VariablesAnswer {
    let (themes, variables) = as_json(document);
    VariablesAnswer { themes, variables, revision: document.revision(), note }
}

/// The document's themes and variables as JSON, as the file has them.
pub(crate) fn as_json(document: &crate::doc::Document) -> (serde_json::Value, serde_json::Value) {
    let as_json = |text: Option<String>| {
        text.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_else(|| serde_json::json!({}))
    };
    (as_json(document.themes().map(write)), as_json(document.variables().map(write)))
}

fn write<T: crate::doc::convert::ToJson>(value: &T) -> String {
    let mut w = json::JsonWriter::compact();
    value.write_json(&mut w);
    w.finish()
}

/// set_variables' arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SetArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// Variables by name, as in a file: `{"--primary": {"type": "color", "value": "#2563EB"}}`.
    pub variables: serde_json::Value,
    /// Replace all variables instead of merging these into them.
    #[serde(default)]
    pub replace: bool,
    /// The file's revision the change was made against: refused, nothing done, when the file
    /// is at another.
    pub if_revision: Option<String>,
}

/// What set_variables answers: the variables it set as the file now has them, not every
/// variable again (get_variables lists them all), and the themes they may have added to.
#[derive(Debug, Serialize)]
pub struct SetAnswer {
    /// The variables this call set, by name, as stored.
    pub variables: serde_json::Value,
    /// How many variables the document has now.
    pub total: usize,
    /// Theme axes and their values.
    pub themes: serde_json::Value,
    /// The document's revision.
    pub revision: u64,
    /// The file's revision after the change (what `ifRevision` quotes).
    #[serde(rename = "fileRevision")]
    pub file_revision: String,
    /// What the change left behind: variables a `replace` removed that nodes still use.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Diagnostic>,
    /// The layout problems the change added, as batch_design and execute say them (code
    /// `layout-overflow` and so on; at most 10, then a count), besides a removal `warnings` names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<Diagnostic>,
    /// When no filePath was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Merges (or, with `replace`, sets) variables. Theme axes and values the new values use are
/// added to the document's themes.
pub fn set_variables(workspace: &mut Workspace, args: SetArgs) -> Result<SetAnswer, ToolError> {
    let (open, note) = workspace.document(args.file_path.as_deref())?;
    open.expect_revision(args.if_revision.as_deref())?;
    let problems_before = open.known_problems();
    let before = open.document.revision();
    let warnings = apply(&mut open.document, &args.variables, args.replace)?;
    if open.document.revision() != before {
        open.save()?;
    }
    let introduced = open.problems_since(problems_before.as_deref());
    let issues = super::introduced::said(&introduced, &warnings);
    let (themes, all) = as_json(&open.document);
    let given: Vec<&String> = args.variables.as_object().map(|m| m.keys().collect()).unwrap_or_default();
    let total = all.as_object().map_or(0, serde_json::Map::len);
    let variables = match all {
        serde_json::Value::Object(all) => {
            serde_json::Value::Object(all.into_iter().filter(|(name, _)| given.contains(&name)).collect())
        }
        other => other,
    };
    let file_revision = open.file_revision().to_string();
    Ok(SetAnswer {
        variables,
        total,
        themes,
        revision: open.document.revision(),
        file_revision,
        warnings,
        issues,
        note,
    })
}

/// Merges (or, with `replace`, sets) variables in one transaction, without saving. Answers a
/// warning for each variable a `replace` removed that nodes still use (they then draw without
/// it), so the agent learns it before the screenshot does.
pub(crate) fn apply(
    document: &mut crate::doc::Document,
    variables: &serde_json::Value,
    replace: bool,
) -> Result<Vec<Diagnostic>, ToolError> {
    let defined_names = |document: &crate::doc::Document| -> Vec<String> {
        document.variables().map(|v| v.entries.iter().map(|(name, _)| name.clone()).collect()).unwrap_or_default()
    };
    let defined_before = defined_names(document);
    let used_before = if replace { used_variables(document) } else { Vec::new() };
    let incoming = read_variables(variables)?;
    let mut tx = document.transaction();
    tx.edit_header(|header| {
        let variables = header.variables();
        if replace {
            variables.entries.clear();
        }
        let mut used_axes: Vec<(String, String)> = Vec::new();
        for (name, variable) in incoming.entries {
            if let Some(VariableValue::Themed(entries)) = &variable.value {
                for entry in entries {
                    for (axis, value) in entry.theme.iter().flat_map(|t| t.iter()) {
                        used_axes.push((axis.to_owned(), value.to_owned()));
                    }
                }
            }
            match variables.entries.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = variable,
                None => variables.entries.push((name, variable)),
            }
        }
        if !used_axes.is_empty() {
            let themes = header.themes();
            for (axis, value) in used_axes {
                match themes.entries.iter_mut().find(|(a, _)| *a == axis) {
                    Some((_, values)) if !values.contains(&value) => values.push(value),
                    Some(_) => {}
                    None => themes.entries.push((axis, vec![value])),
                }
            }
        }
    });
    tx.commit();
    let defined_after = defined_names(document);
    let warnings = used_before
        .into_iter()
        .filter(|(name, _)| defined_before.contains(name) && !defined_after.contains(name))
        .map(|(name, users)| {
            let shown: Vec<String> = users.iter().take(USERS_NAMED).map(|id| format!("'{id}'")).collect();
            let more = users.len().saturating_sub(USERS_NAMED);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            let count = if users.len() == 1 { "one node".to_owned() } else { format!("{} nodes", users.len()) };
            let message = format!(
                "replace removed the variable {name}, still used by {count} ({}{more}), which now draw without it: set it again, or update those nodes",
                shown.join(", ")
            );
            let diagnostic = Diagnostic::warning("variable-removed", message);
            match users.first() {
                Some(first) => diagnostic.at_node(first.clone()),
                None => diagnostic,
            }
        })
        .collect();
    Ok(warnings)
}

/// Nodes named for each variable a warning is about; the rest are counted.
const USERS_NAMED: usize = 5;

/// Every local variable the document's nodes (and the content of their overrides) refer to,
/// in order of first use, with the ids of the nodes that do. References into imported
/// documents (`alias:--name`) are theirs to keep, not this document's.
fn used_variables(document: &crate::doc::Document) -> Vec<(String, Vec<String>)> {
    use crate::doc::vars::VisitVars;
    let mut used: Vec<(String, Vec<String>)> = Vec::new();
    for key in document.tree().walk() {
        let node = document.tree().node(key);
        // Visiting takes the values mutably (it can also fill them in): a copy is visited.
        let mut props = node.props.clone();
        let mut names: Vec<String> = Vec::new();
        props.visit_vars(&mut |slot| {
            if let Some(reference) = slot.reference()
                && !reference.name().contains(':')
                && !names.iter().any(|n| n == reference.name())
            {
                names.push(reference.name().to_owned());
            }
        });
        for name in names {
            match used.iter_mut().find(|(n, _)| *n == name) {
                Some((_, users)) => users.push(node.id().to_owned()),
                None => used.push((name, vec![node.id().to_owned()])),
            }
        }
    }
    used
}

/// Reads variables given as JSON, with errors that point into the argument.
/// JSON text of `value` with the keys Pen writes first in its order (`type`, `value`,
/// `theme`: `{"type": "color", "value": …}`, `{"value": …, "theme": {…}}`), the others after them.
fn in_pencil_order(value: &serde_json::Value) -> String {
    const FIRST: [&str; 3] = ["type", "value", "theme"];
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by_key(|key| FIRST.iter().position(|first| first == key).unwrap_or(FIRST.len()));
            let members: Vec<String> = keys
                .into_iter()
                .map(|key| format!("{}: {}", serde_json::Value::String(key.clone()), in_pencil_order(&map[key])))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
        serde_json::Value::Array(items) => {
            format!("[{}]", items.iter().map(in_pencil_order).collect::<Vec<_>>().join(", "))
        }
        other => other.to_string(),
    }
}

fn read_variables(value: &serde_json::Value) -> Result<Variables, ToolError> {
    // Arguments arrive with their keys sorted; new variables are written in Pen's key order.
    let text = in_pencil_order(value);
    let parsed = json::parse(&text).map_err(|e| ToolError::new(format!("variables: {}", e.message)))?;
    let Some(root) = parsed.value else { return Err(ToolError::new("variables is empty")) };
    let JsonValue::Object(members) = &root.value else {
        return Err(ToolError::new("variables must be an object of variables by name")
            .with_hint("write {\"--primary\": {\"type\": \"color\", \"value\": \"#2563EB\"}}"));
    };
    if let Some(bad) = members.iter().find(|m| m.key.starts_with('$') || m.key.is_empty()) {
        return Err(ToolError::new(format!("variable names do not start with '$' and are not empty: {:?}", bad.key))
            .with_hint(format!(
                "name it {:?}; \"$\" is only how properties refer to it",
                bad.key.trim_start_matches('$')
            )));
    }
    let copy = root.clone();
    let mut cx = crate::doc::convert::ReadContext::default();
    let variables = <Variables as crate::doc::convert::FromJson>::from_json(root, &mut cx).map_err(|e| {
        let pointer = crate::doc::locate::pointer_in(&copy, e.offset).unwrap_or_default();
        ToolError::new(format!("variables{pointer}: {}", e.kind)).with_optional_hint(e.hint)
    })?;
    if let Some(problem) = cx.problems.first() {
        let pointer = crate::doc::locate::pointer_in(&copy, problem.offset).unwrap_or_default();
        return Err(ToolError::new(format!("variables{pointer}: {}", problem.kind)));
    }
    Ok(variables)
}
