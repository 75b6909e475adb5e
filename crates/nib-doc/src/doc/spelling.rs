//! The two spellings of strokes and icons, and the moves between them: ≤ 2.11 writes a `stroke`
//! object {align, thickness, fill, join, cap, …} and `icon_font` nodes; 2.13 spreads the stroke
//! over `stroke` (the paint), `strokeWidth` and `strokeAlignment` and calls the nodes `icon`.
//! Writing (batch_design), comparing (review) and migrating documents all spell through here.

use super::values::{Fills, Stroke, StrokeAlign, StrokeAlignment, StrokeObject, Thickness};
use super::{Key, NodeType, Props, Value, VarOr};

/// Gathers 2.13 flat stroke keys (`stroke` as a paint, `strokeWidth`, `strokeAlignment`) into
/// a ≤ 2.11 `stroke` object, on top of `existing` (the node's current stroke, for updates).
pub fn set_object_stroke(props: &mut Props, existing: Option<&StrokeObject>) {
    let flat_paint = match props.get(&Key::Stroke) {
        Some(Value::Stroke(Stroke::Paint(paint))) => Some(paint.clone()),
        _ => None,
    };
    let width = props.remove(&Key::StrokeWidth).map(|(_, v)| v);
    let alignment = props.remove(&Key::StrokeAlignment).map(|(_, v)| v);
    if flat_paint.is_some() || width.is_some() || alignment.is_some() {
        let mut stroke = existing.cloned().unwrap_or_default();
        if let Some(paint) = flat_paint {
            stroke.fill = Some(paint);
        }
        if let Some(Value::StrokeWidth(thickness)) = width {
            stroke.thickness = Some(thickness);
        }
        if let Some(Value::StrokeAlignment(VarOr::Value(alignment))) = alignment {
            stroke.align = Some(match alignment {
                StrokeAlignment::Inner => StrokeAlign::Inside,
                StrokeAlignment::Center => StrokeAlign::Center,
                StrokeAlignment::Outer => StrokeAlign::Outside,
            });
        }
        props.set(Key::Stroke, Value::Stroke(Stroke::Object(Box::new(stroke))));
    }
}

/// Spreads a ≤ 2.11 `stroke` object over the 2.13 keys `stroke`, `strokeWidth` and
/// `strokeAlignment`.
pub fn set_flat_stroke(props: &mut Props, stroke: StrokeObject) {
    let paint: Fills = stroke.fill.unwrap_or(Fills::List(Vec::new()));
    props.set(Key::Stroke, Value::Stroke(Stroke::Paint(paint)));
    if let Some(thickness) = stroke.thickness {
        props.set(Key::StrokeWidth, Value::StrokeWidth(thickness));
    }
    let alignment = match stroke.align.unwrap_or(StrokeAlign::Inside) {
        StrokeAlign::Inside => StrokeAlignment::Inner,
        StrokeAlign::Center => StrokeAlignment::Center,
        StrokeAlign::Outside => StrokeAlignment::Outer,
    };
    props.set(Key::StrokeAlignment, Value::StrokeAlignment(VarOr::Value(alignment)));
}

/// Spreads a stroke object over the flat keys the way Pen wrote them when it upgraded a file
/// to 2.13 (the corpus holds a file saved both ways): `strokeWidth` and `strokeAlignment` right
/// after the paint, an absent `align` stays absent (both versions read it as inside), and a zero
/// width is left out (no width draws no stroke in both).
pub(crate) fn upgrade_stroke(props: &mut Props, stroke: StrokeObject) {
    let had_align = stroke.align.is_some();
    set_flat_stroke(props, stroke);
    if !had_align {
        props.remove(&Key::StrokeAlignment);
    }
    if let Some(Value::StrokeWidth(Thickness::Uniform(VarOr::Value(width)))) = props.get(&Key::StrokeWidth)
        && *width == 0.0
    {
        props.remove(&Key::StrokeWidth);
    }
    let moved: Vec<(Key, Value)> = [Key::StrokeWidth, Key::StrokeAlignment]
        .into_iter()
        .filter_map(|key| props.remove(&key).map(|(_, value)| (key, value)))
        .collect();
    let after_paint = props.iter().position(|(key, _)| *key == Key::Stroke).map_or(props.len(), |i| i + 1);
    for (at, (key, value)) in (after_paint..).zip(moved) {
        props.insert_at(at, key, value);
    }
}

/// `icon_font {iconFontName, iconFontFamily}` ↔ `icon {icon, library}`.
pub fn rename_icon_keys(props: &mut Props, to_icon: bool) {
    let (from_type, to_type, pairs) = if to_icon {
        (NodeType::IconFont, NodeType::Icon, [(Key::IconFontName, Key::Icon), (Key::IconFontFamily, Key::Library)])
    } else {
        (NodeType::Icon, NodeType::IconFont, [(Key::Icon, Key::IconFontName), (Key::Library, Key::IconFontFamily)])
    };
    if props.node_type() == Some(from_type) {
        props.set(Key::Type, Value::NodeType(to_type));
    }
    for (from, to) in pairs {
        if let Some((index, value)) = props.remove(&from) {
            props.insert_at(index, to, value);
        }
    }
}
