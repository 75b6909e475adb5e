//! The diff as JSON for scripts. The schema (`"schema": "nib.diff/1"`) is described in the
//! README; values are the JSON the documents hold, and a value that is absent on one side has
//! no `old` or `new` member (a `null` there is a `null` in the document).

use serde::Serialize;
use serde_json::Value;

use super::{FrameImages, Report};
use crate::review::diff::{
    ChangeKind, ComponentChange, FrameChange, NodeChange, NodeChangeKind, NodeLabel, Place, PropertyChange, Summary,
    ThemeChange, VariableChange,
};

/// The name and version of the schema written.
pub(crate) const SCHEMA: &str = "nib.diff/1";

/// The report as a JSON value. Objects come out with their keys sorted, as serde_json's map
/// keeps them; the structs below say what each holds, not the order it is written in.
pub fn json(report: &Report<'_>) -> Value {
    let diff = report.diff;
    let out = DiffJson {
        schema: SCHEMA,
        old: report.old,
        new: report.new,
        same: diff.is_empty(),
        summary: SummaryJson::from(diff.summary()),
        document: diff.document.iter().map(Property::from).collect(),
        respelled: &diff.respelled,
        frames: diff
            .frames
            .iter()
            .enumerate()
            .map(|(index, frame)| FrameJson::new(frame, report.images_of(index)))
            .collect(),
        nodes: diff.nodes.iter().map(NodeJson::from).collect(),
        components: diff.components.iter().map(ComponentJson::from).collect(),
        variables: diff.variables.iter().map(VariableJson::from).collect(),
        themes: diff.themes.iter().map(ThemeJson::from).collect(),
    };
    // Plain structs of strings, numbers and lists: serializing them into a value cannot fail.
    serde_json::to_value(out).expect("the diff report is plain data")
}

#[derive(Serialize)]
struct DiffJson<'a> {
    schema: &'static str,
    old: &'a str,
    new: &'a str,
    same: bool,
    summary: SummaryJson,
    document: Vec<Property<'a>>,
    respelled: &'a [String],
    frames: Vec<FrameJson<'a>>,
    nodes: Vec<NodeJson<'a>>,
    components: Vec<ComponentJson<'a>>,
    variables: Vec<VariableJson<'a>>,
    themes: Vec<ThemeJson<'a>>,
}

#[derive(Serialize)]
struct SummaryJson {
    added: usize,
    removed: usize,
    moved: usize,
    changed: usize,
    components: usize,
    variables: usize,
    themes: usize,
    frames: usize,
}

impl From<Summary> for SummaryJson {
    fn from(s: Summary) -> Self {
        let Summary { added, removed, moved, changed, components, variables, themes, frames } = s;
        SummaryJson { added, removed, moved, changed, components, variables, themes, frames }
    }
}

/// `{"id", "type", "name"?, "text"?}`.
#[derive(Serialize)]
struct Label<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    node_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

impl<'a> From<&'a NodeLabel> for Label<'a> {
    fn from(label: &'a NodeLabel) -> Self {
        Label { id: &label.id, node_type: &label.node_type, name: label.name.as_deref(), text: label.text.as_deref() }
    }
}

/// `{"parent": id or null, "index", "frame"}`.
#[derive(Serialize)]
struct PlaceJson<'a> {
    parent: Option<&'a str>,
    index: usize,
    frame: &'a str,
}

impl<'a> From<&'a Place> for PlaceJson<'a> {
    fn from(place: &'a Place) -> Self {
        PlaceJson { parent: place.parent.as_ref().map(|p| p.id.as_str()), index: place.index, frame: &place.frame }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameJson<'a> {
    #[serde(flatten)]
    label: Label<'a>,
    change: &'static str,
    in_old: bool,
    in_new: bool,
    node_changes: usize,
    components: &'a [String],
    variables: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    images: Option<ImagesJson<'a>>,
}

impl<'a> FrameJson<'a> {
    fn new(frame: &'a FrameChange, images: Option<&'a FrameImages>) -> Self {
        FrameJson {
            label: Label::from(&frame.frame),
            change: kind(frame.kind),
            in_old: frame.in_old,
            in_new: frame.in_new,
            node_changes: frame.changes,
            components: &frame.components,
            variables: &frame.variables,
            images: images.map(ImagesJson::from),
        }
    }
}

/// The pictures of a frame; `resized` is there only beside `differingPixels`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ImagesJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    old: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    difference: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    differing_pixels: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resized: Option<bool>,
    problems: &'a [crate::diagnostic::Diagnostic],
}

impl<'a> From<&'a FrameImages> for ImagesJson<'a> {
    fn from(images: &'a FrameImages) -> Self {
        ImagesJson {
            old: images.old.as_deref(),
            new: images.new.as_deref(),
            difference: images.difference.as_deref(),
            differing_pixels: images.differing,
            resized: images.differing.map(|_| images.resized),
            problems: &images.problems,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeJson<'a> {
    change: &'static str,
    #[serde(flatten)]
    label: Label<'a>,
    #[serde(flatten)]
    at: PlaceJson<'a>,
    nodes: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    moved_from: Option<PlaceJson<'a>>,
    properties: Vec<Property<'a>>,
}

impl<'a> From<&'a NodeChange> for NodeJson<'a> {
    fn from(change: &'a NodeChange) -> Self {
        NodeJson {
            change: match change.kind {
                NodeChangeKind::Added => "added",
                NodeChangeKind::Removed => "removed",
                NodeChangeKind::Changed => "changed",
            },
            label: Label::from(&change.node),
            at: PlaceJson::from(&change.at),
            nodes: change.nodes,
            moved_from: change.moved_from.as_ref().map(PlaceJson::from),
            properties: change.properties.iter().map(Property::from).collect(),
        }
    }
}

#[derive(Serialize)]
struct ComponentJson<'a> {
    #[serde(flatten)]
    label: Label<'a>,
    direct: bool,
    through: &'a [String],
    instances: &'a [String],
}

impl<'a> From<&'a ComponentChange> for ComponentJson<'a> {
    fn from(change: &'a ComponentChange) -> Self {
        ComponentJson {
            label: Label::from(&change.component),
            direct: change.direct,
            through: &change.through,
            instances: &change.instances,
        }
    }
}

#[derive(Serialize)]
struct VariableJson<'a> {
    name: &'a str,
    change: &'static str,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    var_type: Option<OldNew<&'a str>>,
    values: Vec<ThemedValue<'a>>,
}

impl<'a> From<&'a VariableChange> for VariableJson<'a> {
    fn from(change: &'a VariableChange) -> Self {
        VariableJson {
            name: &change.name,
            change: kind(change.kind),
            var_type: change.var_type.as_ref().map(|(old, new)| OldNew { old: old.as_deref(), new: new.as_deref() }),
            values: change.values.iter().map(ThemedValue::from).collect(),
        }
    }
}

#[derive(Serialize)]
struct ThemeJson<'a> {
    axis: &'a str,
    #[serde(flatten)]
    values: OldNew<&'a [String]>,
}

impl<'a> From<&'a ThemeChange> for ThemeJson<'a> {
    fn from(change: &'a ThemeChange) -> Self {
        ThemeJson { axis: &change.axis, values: OldNew { old: change.old.as_deref(), new: change.new.as_deref() } }
    }
}

/// A value on either side; the side where it is absent has no member (a `null` there is a
/// `null` in the document).
#[derive(Serialize)]
struct OldNew<T> {
    #[serde(skip_serializing_if = "Option::is_none")]
    old: Option<T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<T>,
}

/// `{"key", "old"?, "new"?}`: a changed property, its values as the JSON the documents hold.
#[derive(Serialize)]
struct Property<'a> {
    key: &'a str,
    #[serde(flatten)]
    values: OldNew<Value>,
}

/// `{"theme", "old"?, "new"?}`: a variable's value under one theme.
#[derive(Serialize)]
struct ThemedValue<'a> {
    theme: &'a str,
    #[serde(flatten)]
    values: OldNew<Value>,
}

impl<'a> From<&'a PropertyChange> for Property<'a> {
    fn from(change: &'a PropertyChange) -> Self {
        Property { key: &change.key, values: values(change) }
    }
}

impl<'a> From<&'a PropertyChange> for ThemedValue<'a> {
    fn from(change: &'a PropertyChange) -> Self {
        ThemedValue { theme: &change.key, values: values(change) }
    }
}

/// The change's sides as JSON values; text that is no JSON stays a string.
fn values(change: &PropertyChange) -> OldNew<Value> {
    let value = |text: &str| serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.to_owned()));
    OldNew { old: change.old.as_deref().map(value), new: change.new.as_deref().map(value) }
}

fn kind(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Changed => "changed",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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
