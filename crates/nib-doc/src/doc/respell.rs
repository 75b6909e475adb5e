//! The two spellings of strokes and icons: ≤ 2.11 writes a `stroke` object {align, thickness,
//! fill} and `icon_font` nodes; 2.13 spreads the stroke over `stroke`, `strokeWidth` and
//! `strokeAlignment` and calls the nodes `icon`. Pen respells a whole file when it saves it
//! in the newer version, so two versions of a document are compared (and merged) in one
//! spelling: otherwise an upgrade reads as hundreds of changes that change nothing.

use crate::doc::format::Version;
use crate::doc::spelling::{rename_icon_keys, set_object_stroke, upgrade_stroke};
use crate::doc::values::Stroke;
use crate::doc::{Document, Key, NodeTree, Props, Value};

/// True when documents of `version` spell strokes flat (2.13 and later).
pub fn is_flat(version: Option<&str>) -> bool {
    Version::read_as(version).flat_strokes()
}

/// Rewrites every node of `document`, and the overrides inside its instances, in the flat
/// (`flat`) or the object spelling; returns the ids of the nodes that changed, in document
/// order. Only lossless rewrites are made: a stroke object with join, cap, dash or miter
/// settings has no flat spelling and stays as it is, so the difference remains visible.
pub fn respell(document: &mut Document, flat: bool) -> Vec<String> {
    let keys: Vec<_> = document.tree.walk().collect();
    let mut changed = Vec::new();
    for key in keys {
        let props = &mut document.tree.node_mut(key).props;
        if respell_props(props, flat) {
            changed.push(props.id().unwrap_or_default().to_owned());
        }
    }
    changed
}

/// Respells one node's properties and its instance overrides; true when anything changed.
fn respell_props(props: &mut Props, flat: bool) -> bool {
    let before = props.clone();
    if flat {
        flatten_stroke(props);
    } else {
        set_object_stroke(props, None);
    }
    rename_icon_keys(props, flat);
    if let Some(Value::Descendants(descendants)) = props.get_mut(&Key::Descendants) {
        for (_, tree) in descendants.0.entries.iter_mut() {
            respell_tree(tree, flat);
        }
    }
    *props != before
}

fn respell_tree(tree: &mut NodeTree, flat: bool) {
    respell_props(&mut tree.props, flat);
    for child in &mut tree.children {
        respell_tree(child, flat);
    }
}

/// The 2.13 spelling of a stroke object, as Pen upgrades a file (`upgrade_stroke`); a
/// stroke with settings 2.13 cannot hold stays an object, so the difference remains visible.
fn flatten_stroke(props: &mut Props) {
    let Some(Value::Stroke(Stroke::Object(stroke))) = props.get(&Key::Stroke) else { return };
    let lossy = stroke.join.is_some()
        || stroke.cap.is_some()
        || stroke.dash_pattern.is_some()
        || stroke.miter_angle.is_some()
        || stroke.enabled.is_some();
    if !lossy {
        upgrade_stroke(props, (**stroke).clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Document {
        Document::load(text).unwrap().document
    }

    #[test]
    fn an_upgraded_file_reads_the_same_as_the_old_one_respelled() {
        let mut old = load(
            r##"{"version": "2.11", "children": [
                {"type": "frame", "id": "a", "stroke": {"align": "outside", "thickness": {"bottom": 1}, "fill": "$--border"}},
                {"type": "frame", "id": "b", "stroke": {"thickness": 0, "fill": "#000"}},
                {"type": "icon_font", "id": "c", "iconFontName": "home", "iconFontFamily": "lucide"},
                {"type": "rectangle", "id": "d", "stroke": {"thickness": 1, "fill": "#000", "dashPattern": [2, 2]}},
                {"type": "ref", "id": "e", "ref": "a", "descendants": {"x": {"stroke": {"align": "inside", "thickness": 2, "fill": "#fff"}}}}
            ]}"##,
        );
        let new = load(
            r##"{"version": "2.13", "children": [
                {"type": "frame", "id": "a", "stroke": "$--border", "strokeWidth": {"bottom": 1}, "strokeAlignment": "outer"},
                {"type": "frame", "id": "b", "stroke": "#000"},
                {"type": "icon", "id": "c", "icon": "home", "library": "lucide"},
                {"type": "rectangle", "id": "d", "stroke": "#000", "strokeWidth": 1},
                {"type": "ref", "id": "e", "ref": "a", "descendants": {"x": {"stroke": "#fff", "strokeWidth": 2, "strokeAlignment": "inner"}}}
            ]}"##,
        );
        assert_eq!(respell(&mut old, true), ["a", "b", "c", "e"]);
        for id in ["a", "b", "c", "e"] {
            let props = |d: &Document| d.tree().node(d.node_by_id(id).unwrap()).props.clone();
            let (mut o, mut n) = (
                props(&old).iter().map(|(k, v)| (k.clone(), v.clone())).collect::<Vec<_>>(),
                props(&new).iter().map(|(k, v)| (k.clone(), v.clone())).collect::<Vec<_>>(),
            );
            o.sort_by(|a, b| a.0.name().cmp(b.0.name()));
            n.sort_by(|a, b| a.0.name().cmp(b.0.name()));
            assert_eq!(o, n, "{id}");
        }
        // The dash pattern has no 2.13 spelling: the stroke stays an object and reads as changed.
        let d = old.node_by_id("d").unwrap();
        assert!(matches!(old.tree().node(d).props.get(&Key::Stroke), Some(Value::Stroke(Stroke::Object(_)))));
    }

    #[test]
    fn flat_strokes_gather_into_an_object_for_older_versions() {
        let mut new = load(
            r##"{"version": "2.13", "children": [{"type": "frame", "id": "a", "stroke": "#000", "strokeWidth": 2, "strokeAlignment": "outer"}]}"##,
        );
        assert_eq!(respell(&mut new, false), ["a"]);
        let a = new.node_by_id("a").unwrap();
        assert_eq!(
            new.node_to_json(a, 0),
            r##"{"type":"frame","id":"a","stroke":{"align":"outside","thickness":2,"fill":"#000"}}"##
        );
        assert!(respell(&mut new, false).is_empty());
    }
}
