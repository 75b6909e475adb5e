//! A document as it looks under a theme chosen from outside it — get_screenshot's and export's
//! `theme`, `nib render --theme`, a snapshot test's theme — without copying screens: a copy of
//! the document whose top-level nodes select the theme, which is what a themed instance of the
//! screen would show. The document itself is not touched. Every caller goes through here, so
//! the axes, their values and the errors are the same on every surface.

use crate::diagnostic::{Diagnostic, Severity};
use crate::doc::values::ThemeSelection;
use crate::doc::{Document, Key, NodeKey, Value};

use super::{Library, node_not_found, part_root, theme_axes};

/// A copy of `document` whose top-level nodes holding `ids` (every top-level node when `ids` is
/// empty) have `wanted` (axis, value) merged into their own theme. Each axis must be one the
/// document defines, or an import's as `alias:Axis`, and each value one of that axis; otherwise
/// the error names the axes and values there are.
pub fn themed(
    document: &Document,
    library: &dyn Library,
    ids: &[&str],
    wanted: &[(String, String)],
) -> Result<Document, Box<Diagnostic>> {
    let wanted = selection(document, library, wanted)?;
    let roots: Vec<NodeKey> = if ids.is_empty() {
        document.tree().roots().to_vec()
    } else {
        let mut roots = Vec::new();
        for id in ids {
            let root = part_root(document, id).ok_or_else(|| Box::new(node_not_found(id)))?;
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
            Some(Value::Theme(own)) => own.clone(),
            _ => ThemeSelection::default(),
        };
        for (axis, value) in &wanted.entries {
            match merged.entries.iter_mut().find(|(a, _)| a == axis) {
                Some(slot) => slot.1 = value.clone(),
                None => merged.entries.push((axis.clone(), value.clone())),
            }
        }
        tx.set(root, Key::Theme, Some(Value::Theme(merged)));
    }
    tx.commit();
    Ok(copy)
}

/// What the document's themes are, for an error's hint: `Mode: Light, Dark; c:Mode: …`.
pub fn themes_listed(document: &Document, library: &dyn Library) -> String {
    let axes: Vec<String> =
        theme_axes(document, library).iter().map(|(axis, values)| format!("{axis}: {}", values.join(", "))).collect();
    if axes.is_empty() {
        "the document and its imports define no themes: give variables themed values with set_variables first"
            .to_owned()
    } else {
        format!("the themes the document can use are {}", axes.join("; "))
    }
}

/// `wanted` as a selection the document can draw, or an error naming what it defines.
fn selection(
    document: &Document,
    library: &dyn Library,
    wanted: &[(String, String)],
) -> Result<ThemeSelection, Box<Diagnostic>> {
    let refused = |message: String| {
        Box::new(Diagnostic::new(Severity::Error, "theme", message).with_hint(themes_listed(document, library)))
    };
    if wanted.is_empty() {
        return Err(refused("theme names no axis".to_owned()));
    }
    let defined = theme_axes(document, library);
    let mut selection = ThemeSelection::default();
    for (axis, value) in wanted {
        let Some((_, values)) = defined.iter().find(|(a, _)| a == axis) else {
            return Err(refused(format!("the document has no theme axis '{axis}'")));
        };
        if !values.iter().any(|v| v == value) {
            return Err(refused(format!("'{value}' is not a value of the theme axis '{axis}'")));
        }
        selection.entries.push((axis.clone(), value.clone()));
    }
    Ok(selection)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::NoImports;

    fn document() -> Document {
        let json = r#"{"version":"2.10","themes":{"Mode":["Light","Dark"]},"children":[
            {"type":"frame","id":"a","theme":{"Mode":"Light"},"width":10,"height":10},
            {"type":"frame","id":"b","width":10,"height":10}]}"#;
        Document::load_bytes(json.as_bytes()).expect("loads").document
    }

    #[test]
    fn every_top_level_node_selects_the_theme_when_no_node_is_named() {
        let doc = document();
        let copy = themed(&doc, &NoImports, &[], &[("Mode".into(), "Dark".into())]).expect("themed");
        for id in ["a", "b"] {
            let key = copy.node_by_id(id).expect("there");
            let Some(Value::Theme(theme)) = copy.tree().node(key).props.get(&Key::Theme) else { panic!("{id}") };
            assert_eq!(theme.entries, vec![("Mode".to_owned(), "Dark".to_owned())]);
        }
        assert!(doc.tree().node(doc.node_by_id("b").unwrap()).props.get(&Key::Theme).is_none(), "untouched");
    }

    #[test]
    fn an_unknown_axis_or_value_names_the_ones_there_are() {
        let doc = document();
        let axis = themed(&doc, &NoImports, &[], &[("Colour".into(), "Dark".into())]).expect_err("no axis");
        assert!(
            axis.message.contains("no theme axis 'Colour'") && axis.hints[0].contains("Mode: Light, Dark"),
            "{axis:?}"
        );
        let value = themed(&doc, &NoImports, &[], &[("Mode".into(), "Dim".into())]).expect_err("no value");
        assert!(value.message.contains("'Dim' is not a value of the theme axis 'Mode'"), "{value:?}");
        assert_eq!(value.code, "theme");
    }
}
