//! The `theme` argument of get_screenshot and export: a picture of nodes as they look under a
//! theme (`{"Mode": "Dark"}`) without copying screens. The nodes' top-level frames are given
//! the theme in a copy of the document, which is what a themed instance of the screen would
//! show; the document itself is not touched.

use serde_json::Value;

use super::ToolError;
use crate::doc::values::ThemeSelection;
use crate::doc::{Document, Key, NodeKey, Value as Prop};
use crate::resolve::{Library, node_not_found, part_root, theme_axes};

/// A copy of `document` whose top-level nodes holding `ids` (every top-level node when `ids` is
/// empty) have `theme` merged into their own. Each axis and value must be one the document
/// defines.
pub(super) fn themed(
    document: &Document,
    library: &dyn Library,
    ids: &[&str],
    theme: &Value,
) -> Result<Document, ToolError> {
    let wanted = selection(document, library, theme)?;
    let roots: Vec<NodeKey> = if ids.is_empty() {
        document.tree().roots().to_vec()
    } else {
        let mut roots = Vec::new();
        for id in ids {
            let root = part_root(document, id).ok_or_else(|| ToolError::from(node_not_found(id)))?;
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
        roots
    };
    let mut copy = document.clone();
    let mut tx = copy.transaction();
    for root in roots {
        let mut merged: ThemeSelection = match tx.document().tree().node(root).props.get(&Key::Theme) {
            Some(Prop::Theme(own)) => own.clone(),
            _ => ThemeSelection::default(),
        };
        for (axis, value) in &wanted.entries {
            match merged.entries.iter_mut().find(|(a, _)| a == axis) {
                Some(slot) => slot.1 = value.clone(),
                None => merged.entries.push((axis.clone(), value.clone())),
            }
        }
        tx.set(root, Key::Theme, Some(Prop::Theme(merged)));
    }
    tx.commit();
    Ok(copy)
}

/// `theme` as a selection the document can draw (its own axes, and its imports' as
/// `alias:Axis`), or an error naming what it defines.
fn selection(document: &Document, library: &dyn Library, theme: &Value) -> Result<ThemeSelection, ToolError> {
    let defined = theme_axes(document, library);
    let listed = || {
        let axes: Vec<String> = defined.iter().map(|(axis, values)| format!("{axis}: {}", values.join(", "))).collect();
        if axes.is_empty() {
            "the document and its imports define no themes: give variables themed values with set_variables first"
                .to_owned()
        } else {
            format!("the themes the document can use are {}", axes.join("; "))
        }
    };
    let Value::Object(map) = theme else {
        return Err(
            ToolError::new("theme is an object of axis and value, e.g. {\"Mode\": \"Dark\"}").with_hint(listed())
        );
    };
    if map.is_empty() {
        return Err(ToolError::new("theme names no axis").with_hint(listed()));
    }
    let mut wanted = ThemeSelection::default();
    for (axis, value) in map {
        let Some((_, values)) = defined.iter().find(|(a, _)| a == axis) else {
            return Err(ToolError::new(format!("the document has no theme axis '{axis}'")).with_hint(listed()));
        };
        let Some(value) = value.as_str().filter(|v| values.iter().any(|d| d == v)) else {
            return Err(
                ToolError::new(format!("'{value}' is not a value of the theme axis '{axis}'")).with_hint(listed())
            );
        };
        wanted.entries.push((axis.clone(), value.to_owned()));
    }
    Ok(wanted)
}
