//! Moving a document to another format version, as the current Pen app does when it opens an
//! older file — and back, where that loses nothing. Every change is listed; a move that would
//! change the picture or drop what the document says is refused with the reasons.
//!
//! Up (the rules of `doc::format`, evidence in spec/pen-versions.md):
//! - to 2.13: `stroke` objects spread over `stroke`, `strokeWidth`, `strokeAlignment`;
//!   `icon_font` nodes become `icon` (`iconFontName` → `icon`, `iconFontFamily` → `library`);
//! - to 2.17: a stroke whose alignment was inside by default says `inner` (absent now means
//!   centre); the object's `join`/`cap` become `strokeLinejoin`/`strokeLinecap`; dashes and
//!   miter angles, which 2.17 cannot hold, are dropped and listed; groups lose their layout and
//!   size keys; styled text runs become their plain text; paths get the `viewBox` that keeps
//!   their picture (2.17 draws paths fitted to their box);
//! - to 2.19: inner shadows become outer ones (every Pen before 1.2.14 drew them so; 1.2.14 does
//!   this same rewrite when it opens an older file) and `spread` goes;
//! - to 2.20: image modes `fill`/`fit` become `cover`/`contain`, and an image without a mode
//!   says `stretch` (absent now means cover).
//!
//! Down, each step undone where it can be: a crop, an inner shadow drawn inside, a browser or
//! script node, a line cap in a 2.13–2.16 document, a `viewBox` have no older spelling.

use super::format::Version;
use super::spelling::{rename_icon_keys, set_object_stroke, upgrade_stroke};
use super::values::{
    Effect, Fill, ImageMode, LineCap, ShadowType, Stroke, StrokeAlign, StrokeAlignment, StrokeCap, TextContent,
    Thickness,
};
use super::{Document, Key, NodeTree, NodeType, Props, Value, VarOr};

/// One change a migration makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The node (id, or `instance/path` inside an override).
    pub node: String,
    /// What changed, in words.
    pub what: String,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "node '{}': {}", self.node, self.what)
    }
}

/// Why a document cannot move to a version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MigrateError {
    /// The target is not a version nib knows.
    #[error("{0} is not a format version nib knows (2.6 to 2.20)")]
    Unknown(String),
    /// Moving down would lose what the document says.
    #[error("moving from {from} to {to} would lose what the document says:\n{}", .reasons.iter().map(|r| format!("  {r}")).collect::<Vec<_>>().join("\n"))]
    Lossy {
        /// The document's version.
        from: Version,
        /// The version asked for.
        to: Version,
        /// What has no spelling there, node by node.
        reasons: Vec<Change>,
    },
}

/// Moves `document` to `to`, changing it in place; returns every change (none when it is at
/// `to` already). A move down that would lose anything changes nothing and says why.
pub fn migrate(document: &mut Document, to: Version) -> Result<Vec<Change>, MigrateError> {
    if !to.is_known() {
        return Err(MigrateError::Unknown(to.to_string()));
    }
    let from = Version::read_as(document.version());
    if from == to && document.version().is_some() {
        return Ok(Vec::new());
    }
    if to < from {
        let mut reasons = Vec::new();
        each_props(document, |node, props, node_type| reasons.extend(lossy_down(node, props, node_type, from, to)));
        if !reasons.is_empty() {
            return Err(MigrateError::Lossy { from, to, reasons });
        }
    }
    let mut changes = Vec::new();
    each_props_mut(document, |node, props, node_type| {
        let kept =
            unknown_parts(props).into_iter().map(|part| format!("{part} is kept as written (nib does not know it)"));
        changes.extend(kept.map(|what| Change { node: node.to_owned(), what }));
        let step = if to > from { up(props, node_type, from, to) } else { down(props, from, to) };
        changes.extend(step.into_iter().map(|what| Change { node: node.to_owned(), what }));
    });
    document.set_version(to.to_string());
    changes.insert(
        0,
        Change { node: "(document)".into(), what: format!("version {} → {to}", document_version_text(from)) },
    );
    Ok(changes)
}

fn document_version_text(from: Version) -> String {
    from.to_string()
}

/// Calls `visit` with every node's properties and every instance override's, in document order.
fn each_props(document: &Document, mut visit: impl FnMut(&str, &Props, Option<NodeType>)) {
    let tree = document.tree();
    for key in tree.walk() {
        let node = tree.node(key);
        visit(node.id(), &node.props, Some(node.node_type()));
        if let Some(Value::Descendants(descendants)) = node.props.get(&Key::Descendants) {
            for (path, override_tree) in descendants.0.entries.iter() {
                visit_tree(&format!("{}/{path}", node.id()), override_tree, &mut visit);
            }
        }
    }
}

fn visit_tree(node: &str, tree: &NodeTree, visit: &mut impl FnMut(&str, &Props, Option<NodeType>)) {
    visit(node, &tree.props, tree.props.node_type());
    for child in &tree.children {
        visit_tree(&format!("{node}/{}", child.props.id().unwrap_or_default()), child, visit);
    }
}

/// As [`each_props`], mutably.
fn each_props_mut(document: &mut Document, mut visit: impl FnMut(&str, &mut Props, Option<NodeType>)) {
    let keys: Vec<_> = document.tree.walk().collect();
    for key in keys {
        let node = document.tree.node_mut(key);
        let id = node.id().to_owned();
        let node_type = node.node_type();
        visit(&id, &mut node.props, Some(node_type));
        if let Some(Value::Descendants(descendants)) = node.props.get_mut(&Key::Descendants) {
            for (path, override_tree) in descendants.0.entries.iter_mut() {
                visit_tree_mut(&format!("{id}/{path}"), override_tree, &mut visit);
            }
        }
    }
}

fn visit_tree_mut(node: &str, tree: &mut NodeTree, visit: &mut impl FnMut(&str, &mut Props, Option<NodeType>)) {
    let node_type = tree.props.node_type();
    visit(node, &mut tree.props, node_type);
    for child in &mut tree.children {
        let id = child.props.id().unwrap_or_default().to_owned();
        visit_tree_mut(&format!("{node}/{id}"), child, visit);
    }
}

/// The changes moving one node's properties up from `from` to `to` makes.
fn up(props: &mut Props, node_type: Option<NodeType>, from: Version, to: Version) -> Vec<String> {
    let mut changes = Vec::new();
    let crosses = |version: Version| from < version && to >= version;
    if crosses(Version::V2_13) {
        if let Some(Value::Stroke(Stroke::Object(stroke))) = props.get(&Key::Stroke).cloned() {
            if matches!(stroke.enabled, Some(VarOr::Value(false))) {
                props.remove(&Key::Stroke);
                changes.push("its disabled stroke is removed (a flat stroke has no `enabled`)".to_owned());
            } else {
                let had_align = stroke.align.is_some();
                let (join, cap) = (stroke.join, stroke.cap);
                let dropped: Vec<&str> =
                    [("dashPattern", stroke.dash_pattern.is_some()), ("miterAngle", stroke.miter_angle.is_some())]
                        .into_iter()
                        .filter_map(|(name, present)| present.then_some(name))
                        .collect();
                let zero_width = matches!(stroke.thickness, Some(Thickness::Uniform(VarOr::Value(w))) if w == 0.0);
                upgrade_stroke(props, *stroke);
                // Absent meant inside, and still does in 2.13–2.16; from 2.17 it is said, right
                // after the width as Pen writes it.
                if !had_align && to >= Version::V2_17 {
                    let at = props.iter().position(|(key, _)| *key == Key::Stroke).map_or(props.len(), |i| i + 1)
                        + usize::from(props.contains(&Key::StrokeWidth));
                    props.insert_at(
                        at,
                        Key::StrokeAlignment,
                        Value::StrokeAlignment(VarOr::Value(StrokeAlignment::Inner)),
                    );
                }
                let removed = zero_width && to >= Version::V2_17;
                if removed {
                    // It draws nothing; left without a width, a 2.17 reader may give it one.
                    props.remove(&Key::Stroke);
                    props.remove(&Key::StrokeAlignment);
                    changes.push("its zero-width stroke is removed (it draws nothing)".to_owned());
                } else if zero_width {
                    changes.push("its zero stroke width is left out, as Pencil's upgrade leaves it".to_owned());
                }
                changes.push("stroke object → stroke, strokeWidth, strokeAlignment".to_owned());
                if !removed && to >= Version::V2_14 {
                    if let Some(join) = join {
                        props.set(Key::StrokeLinejoin, Value::LineJoin(VarOr::Value(join)));
                        changes.push(format!("stroke join → strokeLinejoin {}", join.as_str()));
                    }
                    if let Some(cap) = cap {
                        let cap = line_cap(cap);
                        props.set(Key::StrokeLinecap, Value::LineCap(VarOr::Value(cap)));
                        changes.push(format!("stroke cap → strokeLinecap {}", cap.as_str()));
                    }
                } else if !removed && (join.is_some() || cap.is_some()) {
                    changes.push(format!("stroke join and cap dropped: {to} cannot hold them"));
                }
                if !dropped.is_empty() {
                    changes.push(format!("{} dropped: strokes have none since 2.13", dropped.join(" and ")));
                }
            }
        }
        if props.node_type() == Some(NodeType::IconFont) || props.contains(&Key::IconFontName) {
            rename_icon_keys(props, true);
            changes.push("icon_font → icon (iconFontName → icon, iconFontFamily → library)".to_owned());
        }
    }
    if crosses(Version::V2_17) {
        if from >= Version::V2_13
            && matches!(props.get(&Key::Stroke), Some(Value::Stroke(Stroke::Paint(_))))
            && !props.contains(&Key::StrokeAlignment)
        {
            props.set(Key::StrokeAlignment, Value::StrokeAlignment(VarOr::Value(StrokeAlignment::Inner)));
            changes.push("strokeAlignment inner written (absent now means centre)".to_owned());
        }
        if node_type == Some(NodeType::Group) {
            for key in
                [Key::Layout, Key::Gap, Key::Padding, Key::JustifyContent, Key::AlignItems, Key::Width, Key::Height]
            {
                if props.remove(&key).is_some() {
                    changes.push(format!("{} removed: a group is a plain container since 2.17", key.name()));
                }
            }
        }
        if let Some(Value::Content(TextContent::Runs(runs))) = props.get(&Key::Content) {
            let text = run_text(runs.as_str());
            props.set(Key::Content, Value::Content(TextContent::Plain(text.into())));
            changes.push("styled text runs → their plain text (2.17 has no runs)".to_owned());
        }
        if node_type == Some(NodeType::Path)
            && !props.contains(&Key::ViewBox)
            && let Some(bounds) = props
                .text(&Key::Geometry)
                .and_then(crate::geometry::parse_svg_path)
                .and_then(|p| p.compute_tight_bounds())
            && (bounds.left() != 0.0 || bounds.top() != 0.0)
        {
            let view_box = [0.0, 0.0, f64::from(bounds.width()), f64::from(bounds.height())];
            props.set(Key::ViewBox, Value::Numbers(view_box.map(VarOr::Value).to_vec()));
            changes.push("viewBox written so the path keeps its picture (2.17 fits paths to their box)".to_owned());
        }
    }
    if crosses(Version::V2_19)
        && let Some(Value::Effects(effects)) = props.get_mut(&Key::Effect)
    {
        for effect in effects.as_mut_slice() {
            let Effect::Shadow(shadow) = effect else { continue };
            if shadow.shadow_type == Some(ShadowType::Inner) {
                shadow.shadow_type = Some(ShadowType::Outer);
                changes.push("inner shadow → outer (as Pen drew it before 2.19)".to_owned());
            }
            if shadow.spread.take().is_some() {
                changes.push("shadow spread removed (2.19 has none)".to_owned());
            }
        }
    }
    if crosses(Version::V2_20) {
        changes.extend(image_modes(props, true));
    }
    changes
}

/// What a node holds that nib does not know (a newer Pen's node, fill or effect types, and
/// override values nib cannot read), in words: migrations keep it as written, and say so.
fn unknown_parts(props: &Props) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(name) = props.type_name().filter(|_| props.node_type() == Some(NodeType::Unknown)) {
        parts.push(format!("the node type \"{name}\""));
    }
    let tag = |raw: &crate::doc::json::RawJson| match raw.to_json().value {
        crate::doc::json::JsonValue::Object(members) => members
            .into_iter()
            .find(|m| m.key == "type")
            .and_then(|m| match m.value.value {
                crate::doc::json::JsonValue::String(tag) => Some(tag),
                _ => None,
            })
            .unwrap_or_default(),
        _ => String::new(),
    };
    let mut fills: Vec<&Fill> = Vec::new();
    if let Some(Value::Fills(list)) = props.get(&Key::Fill) {
        fills.extend(list.as_slice());
    }
    match props.get(&Key::Stroke) {
        Some(Value::Stroke(Stroke::Paint(list))) => fills.extend(list.as_slice()),
        Some(Value::Stroke(Stroke::Object(stroke))) => fills.extend(stroke.fill.iter().flat_map(|f| f.as_slice())),
        _ => {}
    }
    for fill in fills {
        if let Fill::Unknown(raw) = fill {
            parts.push(format!("the fill type \"{}\"", tag(raw)));
        }
    }
    if let Some(Value::Effects(effects)) = props.get(&Key::Effect) {
        for effect in effects.as_slice() {
            if let Effect::Unknown(raw) = effect {
                parts.push(format!("the effect type \"{}\"", tag(raw)));
            }
        }
    }
    if props.node_type() != Some(NodeType::Unknown) {
        for (key, value) in props.iter() {
            if value.is_kept_for(key) {
                parts.push(format!("the value of \"{}\" nib cannot read", key.name()));
            }
        }
    }
    parts
}

/// Why moving one node's properties down from `from` to `to` would lose something.
fn lossy_down(node: &str, props: &Props, node_type: Option<NodeType>, from: Version, to: Version) -> Vec<Change> {
    let mut reasons = Vec::new();
    let mut lose = |what: String| reasons.push(Change { node: node.to_owned(), what });
    // nib cannot tell which version brought what it does not know, so it cannot tell whether
    // the older version holds it.
    for part in unknown_parts(props) {
        lose(format!("{part} is not one nib knows: it cannot tell whether {to} documents hold it"));
    }
    let crosses = |version: Version| from >= version && to < version;
    if crosses(Version::V2_20) {
        for fill in image_fills(props) {
            if fill.transform.is_some() {
                lose("an image crop (transform) has no spelling before 2.20".into());
            }
        }
    }
    if crosses(Version::V2_19) {
        if let Some(Value::Effects(effects)) = props.get(&Key::Effect)
            && effects
                .as_slice()
                .iter()
                .any(|e| matches!(e, Effect::Shadow(s) if s.shadow_type == Some(ShadowType::Inner)))
        {
            lose("an inner shadow is drawn outside before 2.19".into());
        }
        if node_type == Some(NodeType::Browser) {
            lose("browser nodes arrived in 2.19".into());
        }
    }
    if crosses(Version::V2_14)
        && to >= Version::V2_13
        && (props.contains(&Key::StrokeLinecap) || props.contains(&Key::StrokeLinejoin))
    {
        lose(format!("{to} documents cannot hold line caps and joins"));
    }
    if crosses(Version::V2_14) && props.contains(&Key::ViewBox) {
        lose("viewBox arrived in 2.14".into());
    }
    if crosses(Version::V2_17) {
        if matches!(node_type, Some(NodeType::Script | NodeType::Connection)) {
            lose(format!("{} nodes arrived in 2.17", node_type.map_or("", NodeType::as_str)));
        }

        if node_type == Some(NodeType::Path)
            && let Some(bounds) = props
                .text(&Key::Geometry)
                .and_then(crate::geometry::parse_svg_path)
                .and_then(|p| p.compute_tight_bounds())
            && (bounds.left() != 0.0 || bounds.top() != 0.0)
        {
            lose("the path would be drawn at its geometry's offset before 2.17 (its picture would move)".into());
        }
    }
    reasons
}

/// The changes moving one node's properties down from `from` to `to` makes (after
/// [`lossy_down`] found nothing lost).
fn down(props: &mut Props, from: Version, to: Version) -> Vec<String> {
    let mut changes = Vec::new();
    let crosses = |version: Version| from >= version && to < version;
    if crosses(Version::V2_20) {
        changes.extend(image_modes(props, false));
    }
    if crosses(Version::V2_17)
        && matches!(props.get(&Key::Stroke), Some(Value::Stroke(Stroke::Paint(_))))
        && !props.contains(&Key::StrokeAlignment)
    {
        props.set(Key::StrokeAlignment, Value::StrokeAlignment(VarOr::Value(StrokeAlignment::Center)));
        changes.push("strokeAlignment center written (absent meant inside before 2.17)".to_owned());
    }
    if crosses(Version::V2_13) {
        let join = props.remove(&Key::StrokeLinejoin).and_then(|(_, v)| match v {
            Value::LineJoin(VarOr::Value(join)) => Some(join),
            _ => None,
        });
        let cap = props.remove(&Key::StrokeLinecap).and_then(|(_, v)| match v {
            Value::LineCap(VarOr::Value(cap)) => Some(cap),
            _ => None,
        });
        if matches!(props.get(&Key::Stroke), Some(Value::Stroke(Stroke::Paint(_)))) {
            set_object_stroke(props, None);
            if let Some(Value::Stroke(Stroke::Object(stroke))) = props.get_mut(&Key::Stroke) {
                stroke.join = join;
                stroke.cap = cap.map(|cap| match cap {
                    LineCap::Butt => StrokeCap::None,
                    LineCap::Round => StrokeCap::Round,
                    LineCap::Square => StrokeCap::Square,
                });
                if stroke.align.is_none() {
                    stroke.align = Some(StrokeAlign::Inside);
                }
            }
            changes.push("stroke, strokeWidth, strokeAlignment → stroke object".to_owned());
        }
        if props.node_type() == Some(NodeType::Icon) || props.contains(&Key::Icon) {
            rename_icon_keys(props, false);
            changes.push("icon → icon_font (icon → iconFontName, library → iconFontFamily)".to_owned());
        }
    }
    changes
}

/// Image fills in 2.20's words (`up`) or older ones; an absent mode is written as what it meant.
fn image_modes(props: &mut Props, up: bool) -> Vec<String> {
    let mut changes = Vec::new();
    for key in [Key::Fill, Key::Stroke] {
        let fills = match props.get_mut(&key) {
            Some(Value::Fills(fills) | Value::Stroke(Stroke::Paint(fills))) => fills,
            _ => continue,
        };
        for fill in fills.as_mut_slice() {
            let Fill::Image(image) = fill else { continue };
            let (before, after) = match (image.mode, up) {
                (None, true) => (None, ImageMode::Stretch),
                (Some(ImageMode::Fill), true) => (Some(ImageMode::Fill), ImageMode::Cover),
                (Some(ImageMode::Fit), true) => (Some(ImageMode::Fit), ImageMode::Contain),
                (None | Some(ImageMode::Cover), false) => (image.mode, ImageMode::Fill),
                (Some(ImageMode::Contain), false) => (Some(ImageMode::Contain), ImageMode::Fit),
                _ => continue,
            };
            image.mode = Some(after);
            let before = before.map_or("(absent)", ImageMode::as_str);
            changes.push(format!("image mode {before} → {}", after.as_str()));
        }
    }
    changes
}

fn image_fills(props: &Props) -> Vec<&crate::doc::values::ImageFill> {
    let mut found = Vec::new();
    for key in [Key::Fill, Key::Stroke] {
        if let Some(Value::Fills(fills) | Value::Stroke(Stroke::Paint(fills))) = props.get(&key) {
            found.extend(fills.as_slice().iter().filter_map(|f| match f {
                Fill::Image(image) => Some(image.as_ref()),
                _ => None,
            }));
        }
    }
    found
}

fn line_cap(cap: StrokeCap) -> LineCap {
    match cap {
        StrokeCap::None => LineCap::Butt,
        StrokeCap::Round => LineCap::Round,
        StrokeCap::Square => LineCap::Square,
    }
}

/// The plain text of styled runs (`[{text: "a", …}, "b"]`), runs joined.
fn run_text(runs: &str) -> String {
    let Ok(serde_json::Value::Array(items)) = serde_json::from_str::<serde_json::Value>(runs) else {
        return String::new();
    };
    items
        .iter()
        .map(|item| match item {
            serde_json::Value::String(text) => text.clone(),
            serde_json::Value::Object(run) => {
                run.get("text").or_else(|| run.get("content")).and_then(|t| t.as_str()).unwrap_or_default().to_owned()
            }
            _ => String::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn migrated(text: &str, to: Version) -> (Document, Vec<String>) {
        let mut document = Document::load(text).expect("loads").document;
        let changes = migrate(&mut document, to).expect("migrates");
        (document, changes.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn an_old_document_moves_up_as_pen_upgrades_it() {
        let text = r##"{"version": "2.11", "children": [
            {"type": "rectangle", "id": "r", "width": 10, "height": 10, "stroke": {"thickness": 2, "fill": "#000000", "cap": "round", "dashPattern": [2, 2]},
             "effect": {"type": "shadow", "shadowType": "inner", "spread": 3, "blur": 4, "color": "#00000040"},
             "fill": {"type": "image", "url": "a.png", "mode": "fill"}},
            {"type": "group", "id": "g", "layout": "vertical", "gap": 4, "children": []},
            {"type": "icon_font", "id": "i", "iconFontName": "check", "iconFontFamily": "lucide"},
            {"type": "text", "id": "t", "content": [{"text": "Hello, "}, {"text": "world"}]}]}"##;
        let (document, changes) = migrated(text, Version::NEWEST);
        let saved = document.to_pen_string();
        assert!(saved.contains("\"version\": \"2.20\""));
        for expected in [
            "\"strokeWidth\": 2",
            "\"strokeAlignment\": \"inner\"",
            "\"strokeLinecap\": \"round\"",
            "\"shadowType\": \"outer\"",
            "\"mode\": \"cover\"",
            "\"type\": \"icon\"",
            "\"content\": \"Hello, world\"",
        ] {
            assert!(saved.contains(expected), "{expected}:\n{saved}");
        }
        assert!(!saved.contains("spread") && !saved.contains("dashPattern") && !saved.contains("\"gap\""), "{saved}");
        let said = changes.join("\n");
        assert!(
            said.contains("dashPattern dropped")
                && said.contains("gap removed")
                && said.contains("version 2.11 → 2.20"),
            "{said}"
        );
        // What it says it holds, it holds: the result passes its own version's rules.
        assert!(crate::doc::format::audit(&document).is_empty(), "{:?}", crate::doc::format::audit(&document));
    }

    #[test]
    fn moving_down_is_refused_where_it_loses_something_and_done_where_it_does_not() {
        let cropped = r#"{"version": "2.20", "children": [{"type": "rectangle", "id": "r", "width": 10, "height": 10, "fill": {"type": "image", "url": "a.png", "transform": [2, 0, 0, 1, -1, 0]}}]}"#;
        let mut document = Document::load(cropped).unwrap().document;
        let error = migrate(&mut document, Version::V2_19).unwrap_err().to_string();
        assert!(error.contains("an image crop (transform) has no spelling before 2.20"), "{error}");
        assert_eq!(document.version(), Some("2.20"), "nothing changed");
        let plain = r##"{"version": "2.20", "children": [{"type": "rectangle", "id": "r", "width": 10, "height": 10, "stroke": "#000000", "strokeWidth": 1, "fill": {"type": "image", "url": "a.png"}}]}"##;
        let (document, _) = migrated(plain, Version::V2_11);
        let saved = document.to_pen_string();
        assert!(saved.contains("\"mode\": \"fill\"") && saved.contains("\"align\": \"center\""), "{saved}");
        // And back up: the same picture.
        let (again, _) = migrated(&saved, Version::V2_20);
        assert!(again.to_pen_string().contains("\"mode\": \"cover\""));
    }
}
