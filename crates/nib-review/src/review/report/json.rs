//! The diff as JSON for scripts. The schema (`"schema": "nib.diff/1"`) is described in the
//! README; values are the JSON the documents hold, and a value that is absent on one side has
//! no `old` or `new` member (a `null` there is a `null` in the document).

use serde_json::{Map, Value, json};

use super::Report;
use crate::review::diff::{ChangeKind, NodeChangeKind, NodeLabel, Place, PropertyChange};

/// The name and version of the schema written.
pub const SCHEMA: &str = "nib.diff/1";

/// The report as a JSON value.
pub fn json(report: &Report<'_>) -> Value {
    let diff = report.diff;
    let summary = diff.summary();
    let frames: Vec<Value> = diff
        .frames
        .iter()
        .enumerate()
        .map(|(index, frame)| {
            let mut object = label(&frame.frame);
            object.insert("change".into(), kind(frame.kind).into());
            object.insert("inOld".into(), frame.in_old.into());
            object.insert("inNew".into(), frame.in_new.into());
            object.insert("nodeChanges".into(), frame.changes.into());
            object.insert("components".into(), json!(frame.components));
            object.insert("variables".into(), json!(frame.variables));
            if let Some(images) = report.images_of(index) {
                let mut files = Map::new();
                for (key, file) in [("old", &images.old), ("new", &images.new), ("difference", &images.difference)] {
                    if let Some(file) = file {
                        files.insert(key.into(), file.clone().into());
                    }
                }
                if let Some(differing) = images.differing {
                    files.insert("differingPixels".into(), differing.into());
                    files.insert("resized".into(), images.resized.into());
                }
                files.insert("problems".into(), json!(images.problems));
                object.insert("images".into(), files.into());
            }
            object.into()
        })
        .collect();
    let nodes: Vec<Value> = diff
        .nodes
        .iter()
        .map(|change| {
            let mut object = Map::new();
            object.insert(
                "change".into(),
                match change.kind {
                    NodeChangeKind::Added => "added",
                    NodeChangeKind::Removed => "removed",
                    NodeChangeKind::Changed => "changed",
                }
                .into(),
            );
            object.extend(label(&change.node));
            object.extend(place(&change.at));
            object.insert("nodes".into(), change.nodes.into());
            if let Some(from) = &change.moved_from {
                object.insert("movedFrom".into(), place(from).into());
            }
            object.insert("properties".into(), properties(&change.properties, "key"));
            object.into()
        })
        .collect();
    let components: Vec<Value> = diff
        .components
        .iter()
        .map(|change| {
            let mut object = label(&change.component);
            object.insert("direct".into(), change.direct.into());
            object.insert("through".into(), json!(change.through));
            object.insert("instances".into(), json!(change.instances));
            object.into()
        })
        .collect();
    let variables: Vec<Value> = diff
        .variables
        .iter()
        .map(|change| {
            let mut object = Map::new();
            object.insert("name".into(), change.name.clone().into());
            object.insert("change".into(), kind(change.kind).into());
            if let Some((old, new)) = &change.var_type {
                let mut types = Map::new();
                if let Some(old) = old {
                    types.insert("old".into(), old.clone().into());
                }
                if let Some(new) = new {
                    types.insert("new".into(), new.clone().into());
                }
                object.insert("type".into(), types.into());
            }
            object.insert("values".into(), properties(&change.values, "theme"));
            object.into()
        })
        .collect();
    let themes: Vec<Value> = diff
        .themes
        .iter()
        .map(|change| {
            let mut object = Map::new();
            object.insert("axis".into(), change.axis.clone().into());
            if let Some(old) = &change.old {
                object.insert("old".into(), json!(old));
            }
            if let Some(new) = &change.new {
                object.insert("new".into(), json!(new));
            }
            object.into()
        })
        .collect();
    json!({
        "schema": SCHEMA,
        "old": report.old,
        "new": report.new,
        "same": diff.is_empty(),
        "summary": {
            "added": summary.added,
            "removed": summary.removed,
            "moved": summary.moved,
            "changed": summary.changed,
            "components": summary.components,
            "variables": summary.variables,
            "themes": summary.themes,
            "frames": summary.frames,
        },
        "document": properties(&diff.document, "key"),
        "respelled": diff.respelled,
        "frames": frames,
        "nodes": nodes,
        "components": components,
        "variables": variables,
        "themes": themes,
    })
}

fn kind(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Changed => "changed",
    }
}

/// `{"id", "type", "name"?, "text"?}`.
fn label(label: &NodeLabel) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("id".into(), label.id.clone().into());
    object.insert("type".into(), label.node_type.clone().into());
    if let Some(name) = &label.name {
        object.insert("name".into(), name.clone().into());
    }
    if let Some(text) = &label.text {
        object.insert("text".into(), text.clone().into());
    }
    object
}

/// `{"parent": id or null, "index", "frame"}`.
fn place(place: &Place) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("parent".into(), place.parent.as_ref().map(|p| p.id.clone()).into());
    object.insert("index".into(), place.index.into());
    object.insert("frame".into(), place.frame.clone().into());
    object
}

/// `[{"<name>": key, "old"?: value, "new"?: value}]`.
fn properties(changes: &[PropertyChange], name: &str) -> Value {
    let value = |text: &str| serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.to_owned()));
    changes
        .iter()
        .map(|change| {
            let mut object = Map::new();
            object.insert(name.into(), change.key.clone().into());
            if let Some(old) = &change.old {
                object.insert("old".into(), value(old));
            }
            if let Some(new) = &change.new {
                object.insert("new".into(), value(new));
            }
            Value::Object(object)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Document;
    use crate::review::diff::diff;

    #[test]
    fn values_are_json_and_absence_is_a_missing_member() {
        let old = Document::load(
            r##"{"version": "2.11", "children": [{"type": "frame", "id": "a", "padding": [1, 2], "fill": "#fff"}]}"##,
        )
        .unwrap()
        .document;
        let new =
            Document::load(r##"{"version": "2.11", "children": [{"type": "frame", "id": "a", "padding": [1, 3]}]}"##)
                .unwrap()
                .document;
        let result = diff(&old, &new);
        let value = json(&Report { old: "a", new: "b", diff: &result, images: None });
        assert_eq!(value["schema"], SCHEMA);
        assert_eq!(value["same"], false);
        assert_eq!(
            value["nodes"][0]["properties"],
            json!([{"key": "padding", "old": [1, 2], "new": [1, 3]}, {"key": "fill", "old": "#fff"}])
        );
        assert_eq!(value["nodes"][0]["parent"], Value::Null);
        assert_eq!(value["frames"][0]["id"], "a");
    }
}
