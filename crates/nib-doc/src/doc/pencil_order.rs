//! The order in which Pen writes the keys of a node and of the objects inside it.
//!
//! Pen serialises every node with one fixed key order per node type, and every stroke, fill
//! and effect object with one per object kind. The tables below were learned from the 34
//! Pen-saved files and the recorded session in `tests/fixtures` (27,000 nodes, 3,000
//! objects): no node or object of those types departs from them
//! (`tests/suite/pencil_order.rs` holds them to it). Nodes nib creates take this order, so a file
//! edited by people in Pen and by agents in nib does not churn; nodes read from a file keep
//! theirs, so an unchanged node saves byte for byte.
//!
//! Instances (`ref`) are the exception in Pen itself: after `id, type, ref` their keys come
//! in the order they were set, `descendants` and `children` last.

use super::json::{Json, JsonValue, Member};
use super::node::NodeType;
use super::props::{Key, Props};

/// Keys of a node type in Pen's order.
fn node_keys(node_type: NodeType) -> &'static [&'static str] {
    match node_type {
        NodeType::Frame | NodeType::Group => &[
            "type",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "reusable",
            "opacity",
            "slot",
            "metadata",
            "theme",
            "clip",
            "rotation",
            "flipX",
            "flipY",
            "width",
            "height",
            "fill",
            "cornerRadius",
            "placeholder",
            "stroke",
            "strokeWidth",
            "strokeAlignment",
            "strokeLinecap",
            "strokeLinejoin",
            "effect",
            "layout",
            "gap",
            "padding",
            "justifyContent",
            "alignItems",
            "layoutIncludeStroke",
            "children",
        ],
        // The stroke keys come before `effect`, as on 2.13 frames: Pen 1.2.14's save of
        // render-shadows.pen (tests/fixtures/pen-current) shows it on rectangles; no save has
        // shown the other shapes with both, so they follow the rectangle.
        NodeType::Rectangle => &[
            "type",
            "cornerRadius",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "reusable",
            "rotation",
            "flipX",
            "flipY",
            "metadata",
            "theme",
            "opacity",
            "fill",
            "width",
            "height",
            "stroke",
            "strokeWidth",
            "strokeAlignment",
            "strokeLinecap",
            "strokeLinejoin",
            "effect",
        ],
        NodeType::Ellipse => &[
            "type",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "reusable",
            "innerRadius",
            "opacity",
            "rotation",
            "flipX",
            "flipY",
            "metadata",
            "theme",
            "startAngle",
            "sweepAngle",
            "fill",
            "width",
            "height",
            "stroke",
            "strokeWidth",
            "strokeAlignment",
            "strokeLinecap",
            "strokeLinejoin",
            "effect",
        ],
        NodeType::Polygon => &[
            "type",
            "polygonCount",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "reusable",
            "opacity",
            "rotation",
            "flipX",
            "flipY",
            "metadata",
            "theme",
            "fill",
            "width",
            "height",
            "cornerRadius",
            "stroke",
            "strokeWidth",
            "strokeAlignment",
            "strokeLinecap",
            "strokeLinejoin",
            "effect",
        ],
        NodeType::Line | NodeType::Path => &[
            "type",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "reusable",
            "opacity",
            "rotation",
            "flipX",
            "flipY",
            "metadata",
            "theme",
            "geometry",
            "viewBox",
            "fillRule",
            "fill",
            "width",
            "height",
            "stroke",
            "strokeWidth",
            "strokeAlignment",
            "strokeLinecap",
            "strokeLinejoin",
            "effect",
        ],
        NodeType::Text => &[
            "type",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "opacity",
            "reusable",
            "rotation",
            "flipX",
            "flipY",
            "metadata",
            "theme",
            "fill",
            "textGrowth",
            "width",
            "height",
            "stroke",
            "strokeWidth",
            "effect",
            "content",
            "lineHeight",
            "textAlign",
            "textAlignVertical",
            "fontFamily",
            "fontSize",
            "fontWeight",
            "fontStyle",
            "letterSpacing",
            "underline",
            "strikethrough",
            "href",
        ],
        NodeType::IconFont => &[
            "type",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "reusable",
            "opacity",
            "rotation",
            "flipX",
            "flipY",
            "metadata",
            "theme",
            "width",
            "height",
            "iconFontName",
            "iconFontFamily",
            "weight",
            "fill",
            "effect",
        ],
        NodeType::Icon => &[
            "type",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "reusable",
            "opacity",
            "rotation",
            "flipX",
            "flipY",
            "metadata",
            "theme",
            "width",
            "height",
            "icon",
            "library",
            // Pen 1.2.7's save of v2.17-parser-icon-font.pen: weight before fill, as icon_font.
            "weight",
            "fill",
            "effect",
        ],
        NodeType::Note | NodeType::Prompt | NodeType::Context => &[
            "type",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "enabled",
            "opacity",
            "rotation",
            "metadata",
            "model",
            "width",
            "height",
            "fill",
            "content",
            "fontFamily",
            "fontSize",
            "fontWeight",
        ],
        // Instances keep the order their keys were set in (see the module comment).
        NodeType::Ref => &["id", "type", "ref"],
        // Pen 1.2.14's saves (tests/fixtures/pen-current).
        NodeType::Script => &[
            "type",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "reusable",
            "opacity",
            "rotation",
            "flipX",
            "flipY",
            "metadata",
            "theme",
            "clip",
            "width",
            "height",
            "scriptUri",
            "inputs",
        ],
        // Pen saves `type, id, x, y, name, width, height, url`; where the other keys go is not
        // known from a save, so they follow in the schema's order.
        NodeType::Browser => &[
            "type",
            "id",
            "layoutPosition",
            "x",
            "y",
            "name",
            "context",
            "enabled",
            "reusable",
            "opacity",
            "rotation",
            "flipX",
            "flipY",
            "metadata",
            "theme",
            "width",
            "height",
            "url",
            "deviceId",
            "zoom",
            "scrollX",
            "scrollY",
            "cornerRadius",
            "stroke",
            "strokeWidth",
            "strokeAlignment",
            "strokeLinecap",
            "strokeLinejoin",
            "effect",
        ],
        NodeType::Connection => &[
            "type",
            "id",
            "name",
            "context",
            "enabled",
            "opacity",
            "metadata",
            "source",
            "target",
            "stroke",
            "strokeWidth",
            "strokeAlignment",
            "strokeLinecap",
            "strokeLinejoin",
        ],
        // Its order is the newer Pen's, unknown here: the common keys that lead every type,
        // the rest appended in the order they are set.
        NodeType::Unknown => &["type", "id", "layoutPosition", "x", "y", "name", "width", "height"],
    }
}

/// Where `key` goes among a node's keys, as a number to sort by: known keys by the table; keys
/// nib does not know (and an instance's overrides) after them, in the order they came, but
/// before `descendants` and `children`, which close a node.
fn slot(node_type: Option<NodeType>, key: &Key) -> usize {
    let table = node_keys(node_type.unwrap_or(NodeType::Frame));
    let name = key.name();
    let closing = |k: &str| matches!(k, "descendants" | "children");
    match table.iter().position(|k| *k == name) {
        Some(rank) if !closing(name) => 2 * rank,
        _ => match name {
            "descendants" => 2 * table.len() + 2,
            "children" => 2 * table.len() + 4,
            _ => 2 * table.len() + 1,
        },
    }
}

/// Sorts a new node's keys into Pen's order ([`slot`]); keys of equal slot keep their order.
pub fn sort_props(props: &mut Props) {
    let node_type = props.node_type();
    props.sort_by_key(|key| slot(node_type, key));
}

/// The index at which a key that `props` lacks goes: after the last key Pen writes before it,
/// so that setting a key on a node read from a file moves none of the others.
pub(crate) fn insertion_index(props: &Props, key: &Key) -> usize {
    let node_type = props.node_type();
    let mine = slot(node_type, key);
    props.iter().enumerate().filter(|(_, (k, _))| slot(node_type, k) <= mine).last().map_or(0, |(i, _)| i + 1)
}

/// Keys of the objects inside a node, by the key that holds them and their `type`.
fn object_keys(holder: &str, tag: Option<&str>) -> Option<&'static [&'static str]> {
    Some(match (holder, tag) {
        ("stroke", _) => &["align", "thickness", "join", "cap", "miterAngle", "dashPattern", "fill", "enabled"],
        ("thickness" | "strokeWidth", _) => &["top", "right", "bottom", "left"],
        ("fill", Some("color")) => &["type", "color", "enabled", "blendMode"],
        ("fill", Some("gradient")) => {
            &["type", "gradientType", "enabled", "opacity", "rotation", "size", "colors", "center", "blendMode"]
        }
        ("fill", Some("image")) => &["type", "enabled", "url", "mode", "opacity", "blendMode", "transform"],
        ("fill", Some("shader")) => &["type", "opacity", "enabled", "url", "uniforms", "blendMode"],
        ("fill", Some("mesh_gradient")) => {
            &["type", "enabled", "opacity", "columns", "rows", "colors", "points", "blendMode"]
        }
        ("effect", Some("shadow")) => {
            &["type", "shadowType", "enabled", "color", "offset", "blur", "spread", "blendMode"]
        }
        ("effect", Some(_)) => &["type", "enabled", "radius"],
        ("colors", _) => &["color", "position"],
        ("offset" | "center", _) => &["x", "y"],
        ("size", _) => &["width", "height"],
        _ => return None,
    })
}

/// Puts the objects inside a node written by an agent (its strokes, fills, effects, gradient
/// stops; its children's, recursively) in Pen's key order. The node's own keys are sorted
/// once it is built ([`sort_props`]); override objects in `descendants` keep theirs.
pub fn order_objects(json: &mut Json) {
    let JsonValue::Object(members) = &mut json.value else { return };
    for member in members.iter_mut() {
        match member.key.as_str() {
            "children" => {
                if let JsonValue::Array(children) = &mut member.value.value {
                    children.iter_mut().for_each(order_objects);
                }
            }
            "descendants" => {
                if let JsonValue::Object(overrides) = &mut member.value.value {
                    for o in overrides.iter_mut() {
                        order_objects(&mut o.value);
                    }
                }
            }
            key => order_value(key, &mut member.value),
        }
    }
}

/// Orders the object (or array of objects) held by `holder`, and the objects inside it.
fn order_value(holder: &str, value: &mut Json) {
    match &mut value.value {
        JsonValue::Array(items) => items.iter_mut().for_each(|item| order_value(holder, item)),
        JsonValue::Object(members) => {
            let tag = members.iter().find(|m| m.key == "type").and_then(|m| m.value.as_str()).map(str::to_owned);
            let Some(keys) = object_keys(holder, tag.as_deref()) else { return };
            sort_members(members, keys);
            for member in members.iter_mut() {
                let key = member.key.clone();
                order_value(&key, &mut member.value);
            }
        }
        _ => {}
    }
}

fn sort_members(members: &mut [Member], keys: &[&str]) {
    // A stable sort: keys the table does not know keep their order, after the known ones.
    members.sort_by_key(|m| keys.iter().position(|k| *k == m.key).unwrap_or(keys.len()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::json::{JsonWriter, parse};

    fn ordered(text: &str) -> String {
        let mut json = parse(text).expect("json").value.expect("a value");
        order_objects(&mut json);
        let mut w = JsonWriter::compact();
        json.write(&mut w);
        w.finish()
    }

    #[test]
    fn strokes_fills_and_effects_take_pencils_order_children_too() {
        assert_eq!(
            ordered(
                r##"{"type":"frame","stroke":{"fill":"#000","align":"inside","thickness":{"left":1,"top":2}},"children":[{"type":"rectangle","effect":{"blur":4,"type":"shadow","color":"#0004","offset":{"y":2,"x":0}}}]}"##
            ),
            r##"{"type":"frame","stroke":{"align":"inside","thickness":{"top":2,"left":1},"fill":"#000"},"children":[{"type":"rectangle","effect":{"type":"shadow","color":"#0004","offset":{"x":0,"y":2},"blur":4}}]}"##
        );
    }

    #[test]
    fn unknown_keys_of_an_object_stay_after_the_known_ones_in_their_order() {
        assert_eq!(
            ordered(r##"{"fill":[{"zeta":1,"color":"#fff","alpha":2,"type":"color"}]}"##),
            r##"{"fill":[{"type":"color","color":"#fff","zeta":1,"alpha":2}]}"##
        );
    }

    #[test]
    fn a_key_set_on_a_node_goes_where_pencil_writes_it_and_moves_no_other() {
        let document = crate::doc::Document::load(
            r#"{"version":"2.10","children":[{"name":"n","type":"frame","id":"a","layout":"vertical","width":10,"children":[]}]}"#,
        )
        .expect("loads")
        .document;
        let props = &document.tree().node(document.node_by_id("a").expect("a")).props;
        // [name, type, id, layout, width, children]: each new key goes after the last key that
        // Pen writes before it; the others stay where they are.
        assert_eq!(insertion_index(props, &Key::Gap), 5, "after width, the last key written before gap");
        assert_eq!(insertion_index(props, &Key::Height), 5, "after width");
        assert_eq!(insertion_index(props, &Key::Other("custom".into())), 5, "before children");
        assert_eq!(insertion_index(props, &Key::X), 3, "after id");
    }
}
