//! Checking and typing the property objects a script writes.
//!
//! Stricter than loading a file: an unknown property name, a property the node type does not
//! use, or a color keyword is an error here, because an agent wrote it just now and can fix it.
//! Every invalid property is listed, each with its JSON path, what was expected and a hint.

use crate::doc::convert::ReadContext;
use crate::doc::error::{ProblemKind, RawProblem};
use crate::doc::format::{self, Version};
use crate::doc::json::{Json, JsonValue, escape_pointer_token};
use crate::doc::spelling::{rename_icon_keys, set_flat_stroke, set_object_stroke};
use crate::doc::values::{Fill, ImageMode, LineCap, Stroke, StrokeCap, StrokeObject};
use crate::doc::{Descendants, Key, NodeTree, NodeType, OrderedMap, Props, Value, VarOr, suggest};

/// One invalid property.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// JSON pointer inside the argument, e.g. `/children/0/fill`.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
    /// What to write instead.
    pub hint: Option<String>,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pointer = if self.pointer.is_empty() { "/" } else { &self.pointer };
        write!(f, "{pointer} {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

/// What an update asks for: properties to set, properties to remove, and structural changes.
#[derive(Debug, Default)]
pub struct Update {
    /// Properties to set, in the order written.
    pub set: Props,
    /// Properties set to `null`: removed.
    pub remove: Vec<Key>,
    /// `children`: the new children.
    pub children: Option<Vec<NodeTree>>,
    /// `descendants`: overrides to merge into an instance.
    pub descendants: Option<Descendants>,
    /// `type` was given: the update is a replacement with this node.
    pub replacement: Option<NodeTree>,
}

/// Reads script values into typed properties.
pub struct Validator {
    /// The document's format version: what it may hold and how strokes and icons are spelled.
    pub version: Version,
    /// Everything found wrong so far.
    pub errors: Vec<Invalid>,
}

impl Validator {
    /// A validator for a document of the given version.
    pub fn new(version: Option<&str>) -> Validator {
        Validator { version: Version::read_as(version), errors: Vec::new() }
    }

    /// True when the document spells strokes flat and icons as `icon` (2.13 and later).
    pub fn flat_strokes(&self) -> bool {
        self.version.flat_strokes()
    }

    /// Reads a new node tree. User ids are kept in the props (the caller replaces them by fresh
    /// ids and remembers them as aliases).
    pub fn node(&mut self, json: Json, pointer: &str) -> Option<NodeTree> {
        let members = self.members(json, pointer, "a node object {type: ..., ...}")?;
        let node_type = self.node_type(&members, pointer);
        let mut props = Props::default();
        let mut children = Vec::new();
        for (key_name, value) in members {
            let at = format!("{pointer}/{}", escape_pointer_token(&key_name));
            match Key::from_name(&key_name) {
                Key::Children => {
                    children = self.children(value, &at)?;
                    props.set(Key::Children, Value::Children);
                }
                Key::Descendants => {
                    if let Some(d) = self.descendants(value, &at) {
                        props.set(Key::Descendants, Value::Descendants(d));
                    }
                }
                key => {
                    if matches!(value.value, JsonValue::Null) {
                        continue;
                    }
                    if let Some(value) = self.value(&key, node_type, value, &at) {
                        props.set(key, value);
                    }
                }
            }
        }
        node_type?;
        // After the spelling of the version is applied (icon_font ↔ icon).
        self.normalize(&mut props, None, pointer);
        let node_type = props.node_type();
        if let Some(Err(not)) = node_type.map(|t| format::check_type(self.version, t)) {
            self.error(&format!("{pointer}/type"), &not.to_string(), Some(not.hint()));
        }
        self.version_rules(&props, node_type, pointer);
        Some(NodeTree { props, children })
    }

    /// Reads the properties of an update of a node of `node_type` (`None` when unknown).
    pub fn update(&mut self, json: Json, node_type: Option<NodeType>, existing: Option<&Props>) -> Option<Update> {
        if json.get("type").is_some() {
            return self.node(json, "").map(|tree| Update { replacement: Some(tree), ..Update::default() });
        }
        let members = self.members(json, "", "an object of properties {name: value, ...}")?;
        let mut update = Update::default();
        for (key_name, value) in members {
            let at = format!("/{}", escape_pointer_token(&key_name));
            match Key::from_name(&key_name) {
                Key::Id => {
                    self.error(&at, "ids cannot change", Some("give the new id to a new node, or keep this one".into()))
                }
                Key::Ref => self.error(
                    &at,
                    "unexpected property, got \"ref\"",
                    Some("an instance's component cannot change: replace the instance, R(path, {type: \"ref\", ref: \"<component id>\"})".into()),
                ),
                Key::Children => update.children = self.children(value, &at),
                Key::Descendants => update.descendants = self.descendants(value, &at),
                key if matches!(value.value, JsonValue::Null) => {
                    if let Key::Other(name) = &key {
                        self.unknown_key(name, node_type, &at);
                    } else {
                        update.remove.push(key);
                    }
                }
                key => {
                    if let Some(value) = self.value(&key, node_type, value, &at) {
                        update.set.set(key, value);
                    }
                }
            }
        }
        let existing_stroke = existing.and_then(|props| match props.get(&Key::Stroke) {
            Some(Value::Stroke(Stroke::Object(stroke))) => Some(stroke.as_ref()),
            _ => None,
        });
        self.normalize(&mut update.set, existing_stroke, "");
        self.version_rules(&update.set, node_type, "");
        Some(update)
    }

    /// Reads `descendants`: override keys to property overrides or replacement nodes.
    pub fn descendants(&mut self, json: Json, pointer: &str) -> Option<Descendants> {
        let members = self.members(json, pointer, "an object mapping id paths to overrides")?;
        let mut map = OrderedMap::default();
        for (path, value) in members {
            let at = format!("{pointer}/{}", escape_pointer_token(&path));
            if path.is_empty() || path.split('/').any(str::is_empty) {
                self.error(
                    &at,
                    "is not a path of ids",
                    Some("override keys are ids inside the component: \"label\", \"row/icon\"".into()),
                );
                continue;
            }
            let tree =
                if value.get("type").is_some() { self.node(value, &at) } else { self.override_props(value, &at) };
            if let Some(tree) = tree {
                map.entries.push((path, tree));
            }
        }
        Some(Descendants(map))
    }

    /// A property override inside `descendants`: any node property, and `children`.
    fn override_props(&mut self, json: Json, pointer: &str) -> Option<NodeTree> {
        let members = self.members(json, pointer, "an object of property overrides")?;
        let mut tree = NodeTree::default();
        for (key_name, value) in members {
            let at = format!("{pointer}/{}", escape_pointer_token(&key_name));
            match Key::from_name(&key_name) {
                Key::Children => {
                    tree.children = self.children(value, &at)?;
                    tree.props.set(Key::Children, Value::Children);
                }
                Key::Id | Key::Ref | Key::Descendants => {
                    self.error(&at, "cannot be overridden inside an instance", None);
                }
                key => {
                    if let Some(value) = self.value(&key, None, value, &at) {
                        tree.props.set(key, value);
                    }
                }
            }
        }
        self.normalize(&mut tree.props, None, pointer);
        self.version_rules(&tree.props, None, pointer);
        Some(tree)
    }

    fn children(&mut self, json: Json, pointer: &str) -> Option<Vec<NodeTree>> {
        let JsonValue::Array(items) = json.value else {
            self.error(
                pointer,
                "must be a list of nodes",
                Some("write children: [{type: \"text\", content: \"…\"}]".into()),
            );
            return None;
        };
        let mut children = Vec::with_capacity(items.len());
        for (index, item) in items.into_iter().enumerate() {
            let at = format!("{pointer}/{index}");
            if let JsonValue::String(text) = &item.value {
                self.error(
                    &at,
                    "children are nodes, not strings",
                    Some(format!("write {{type: \"text\", content: \"{text}\", fill: \"#000000\"}}")),
                );
                continue;
            }
            if let Some(child) = self.node(item, &at) {
                children.push(child);
            }
        }
        Some(children)
    }

    fn members(&mut self, json: Json, pointer: &str, expected: &str) -> Option<Vec<(String, Json)>> {
        match json.value {
            JsonValue::Object(members) => Some(members.into_iter().map(|m| (m.key, m.value)).collect()),
            _ => {
                self.error(pointer, &format!("expected {expected}, found {}", json.kind_name()), None);
                None
            }
        }
    }

    fn node_type(&mut self, members: &[(String, Json)], pointer: &str) -> Option<NodeType> {
        let Some((_, json)) = members.iter().find(|(k, _)| k == "type") else {
            self.error(
                pointer,
                "has no type",
                Some("every node needs a type: \"frame\", \"text\", \"rectangle\", \"ref\"…".into()),
            );
            return None;
        };
        match crate::doc::props::Value::read_for(&Key::Type, json.clone(), &mut ReadContext::default()) {
            Ok(Value::NodeType(t)) => Some(t),
            Ok(_) => None,
            Err(e) => {
                self.errors.push(Invalid {
                    pointer: format!("{pointer}/type"),
                    message: e.kind.to_string(),
                    hint: e.hint,
                });
                None
            }
        }
    }

    /// Types the value of a known key, checking the node type uses it.
    fn value(&mut self, key: &Key, node_type: Option<NodeType>, json: Json, pointer: &str) -> Option<Value> {
        if let Key::Other(name) = key {
            self.unknown_key(name, node_type, pointer);
            return None;
        }
        // The other spelling of an icon's keys names the same thing: it is respelled for the
        // version when the node is normalized.
        let icon_key = matches!(key, Key::IconFontName | Key::IconFontFamily | Key::Icon | Key::Library);
        if let Some(node_type) = node_type
            && !(icon_key && matches!(node_type, NodeType::Icon | NodeType::IconFont))
            && !node_type.uses(key)
        {
            let hint = misplaced_key_hint(key, node_type);
            self.error(pointer, &format!("is not a property of {} nodes", node_type.as_str()), hint);
            return None;
        }
        let copy = json.clone();
        let mut cx = ReadContext::default();
        match Value::read_for(key, json, &mut cx) {
            Ok(value) => {
                let mut ok = true;
                for problem in cx.problems {
                    ok = false;
                    self.problem(&copy, problem, pointer);
                }
                if let Some((got, range)) = out_of_range(key, &value) {
                    ok = false;
                    self.error(pointer, &format!("is {got}; {} is {range}", key.name()), Some(range_hint(key).into()));
                }
                ok.then_some(value)
            }
            Err(e) => {
                let inner = inner_pointer(&copy, e.offset);
                let (message, hint) = match pencil_wording(key, &copy, inner.is_empty()) {
                    // Pencil's words first (agents are written against them), nib's after.
                    Some(words) => (words, Some(e.hint.map_or(e.kind.to_string(), |h| format!("{}; {h}", e.kind)))),
                    None => (e.kind.to_string(), e.hint),
                };
                self.errors.push(Invalid { pointer: format!("{pointer}{inner}"), message, hint });
                None
            }
        }
    }

    fn problem(&mut self, value: &Json, problem: RawProblem, pointer: &str) {
        let at = format!("{pointer}{}", inner_pointer(value, problem.offset));
        match problem.kind {
            ProblemKind::ColorKeyword { text } => self.error(
                &at,
                &format!("color \"{text}\" is not a hex color"),
                Some("to paint nothing remove the paint (set it to null), or use a transparent hex color such as \"#FFFFFF00\"".into()),
            ),
            ProblemKind::UnknownKey { key, suggestion } => self.error(
                &at,
                &format!("has an unknown key \"{key}\""),
                suggestion.map(|s| format!("did you mean \"{s}\"?")),
            ),
            // Read as a number by nib, but a word Pen's files never hold: the agent can write
            // the number, which both draw the same.
            ProblemKind::WeightNotPens { got, weight } => self.error(
                &at,
                &format!("font weight \"{got}\" is not one Pen knows"),
                Some(format!(
                    "write \"{weight}\"; weights are \"normal\", \"medium\", \"semibold\", \"bold\" or \"100\"…\"900\""
                )),
            ),
            other => self.error(&at, &other.to_string(), None),
        }
    }

    fn unknown_key(&mut self, name: &str, node_type: Option<NodeType>, pointer: &str) {
        let hint = agent_key_hint(name, node_type, self.flat_strokes())
            .or_else(|| suggest(name, Key::KNOWN).map(|s| format!("did you mean \"{s}\"?")));
        let on = node_type.map(|t| format!(" on {} nodes", t.as_str())).unwrap_or_default();
        self.error(pointer, &format!("is not a known property{on}"), hint);
    }

    fn error(&mut self, pointer: &str, message: &str, hint: Option<String>) {
        self.errors.push(Invalid { pointer: pointer.into(), message: message.into(), hint });
    }

    /// Writes strokes and icons in the spelling of the document's version: ≤ 2.11 keeps a
    /// `stroke` object {align, thickness, fill}; 2.13 spreads it over `stroke` (the paint),
    /// `strokeWidth` and `strokeAlignment`, and calls `icon_font` nodes `icon`; 2.17 adds
    /// `strokeLinecap` and `strokeLinejoin` for the object's `cap` and `join`.
    fn normalize(&mut self, props: &mut Props, existing: Option<&StrokeObject>, pointer: &str) {
        // An image mode is written in the version's word: the same mode (2.20 renamed fill to
        // cover and fit to contain).
        let covers = self.version.cover_contain_images();
        for key in [Key::Fill, Key::Stroke] {
            if let Some(Value::Fills(fills) | Value::Stroke(Stroke::Paint(fills))) = props.get_mut(&key) {
                for fill in fills.as_mut_slice() {
                    if let Fill::Image(image) = fill {
                        image.mode = image.mode.map(|mode| match (mode, covers) {
                            (ImageMode::Fill, true) => ImageMode::Cover,
                            (ImageMode::Fit, true) => ImageMode::Contain,
                            (ImageMode::Cover, false) => ImageMode::Fill,
                            (ImageMode::Contain, false) => ImageMode::Fit,
                            (mode, _) => mode,
                        });
                    }
                }
            }
        }
        if self.flat_strokes() {
            if let Some(Value::Stroke(Stroke::Object(stroke))) = props.get(&Key::Stroke).cloned() {
                let ends = stroke.join.is_some() || stroke.cap.is_some();
                if stroke.dash_pattern.is_some()
                    || stroke.miter_angle.is_some()
                    || (ends && self.version < Version::V2_17)
                {
                    let (what, instead) = if ends && self.version < Version::V2_17 {
                        (
                            "join, cap, dash or miter settings",
                            "write stroke (the paint), strokeWidth and strokeAlignment",
                        )
                    } else {
                        (
                            "dash or miter settings",
                            "leave dashPattern and miterAngle out: strokes have neither since 2.13",
                        )
                    };
                    self.error(
                        &format!("{pointer}/stroke"),
                        &format!("has {what}, which {} documents cannot store", self.version),
                        Some(instead.into()),
                    );
                }
                let (join, cap) = (stroke.join, stroke.cap);
                set_flat_stroke(props, *stroke);
                if self.version >= Version::V2_17 {
                    if let Some(join) = join {
                        props.set(Key::StrokeLinejoin, Value::LineJoin(VarOr::Value(join)));
                    }
                    if let Some(cap) = cap {
                        let cap = match cap {
                            StrokeCap::None => LineCap::Butt,
                            StrokeCap::Round => LineCap::Round,
                            StrokeCap::Square => LineCap::Square,
                        };
                        props.set(Key::StrokeLinecap, Value::LineCap(VarOr::Value(cap)));
                    }
                }
            }
            rename_icon_keys(props, true);
        } else {
            set_object_stroke(props, existing);
            rename_icon_keys(props, false);
        }
    }

    /// Refuses what the document's version cannot hold — keys, values and objects that came
    /// later or were removed — each with what to write instead.
    fn version_rules(&mut self, props: &Props, node_type: Option<NodeType>, pointer: &str) {
        for (at, not) in format::check_props(self.version, node_type.or(props.node_type()), props) {
            self.errors.push(Invalid {
                pointer: format!("{pointer}{at}"),
                message: not.to_string(),
                hint: Some(not.hint()),
            });
        }
    }
}

/// The first literal number of `value` outside the range its key allows, with the range in
/// words. A file may hold such a number (it loads as written); a write may not, because the
/// renderer would draw it clamped or not at all and the agent could not see why.
fn out_of_range(key: &Key, value: &Value) -> Option<(f64, &'static str)> {
    let (low, high, words) = match key {
        Key::Opacity => (0.0, 1.0, "from 0 (transparent) to 1 (opaque)"),
        Key::InnerRadius => (0.0, 1.0, "from 0 to 1 (a part of the radius)"),
        Key::Width
        | Key::Height
        | Key::FontSize
        | Key::LineHeight
        | Key::CornerRadius
        | Key::Padding
        | Key::StrokeWidth => (0.0, f64::INFINITY, "0 or more"),
        _ => return None,
    };
    value.lengths().into_iter().find(|n| !(low..=high).contains(n)).map(|n| (n, words))
}

/// What to write instead of a number out of its range.
fn range_hint(key: &Key) -> &'static str {
    match key {
        Key::Opacity => "0.5 is half transparent; to hide a node use enabled: false",
        Key::InnerRadius => "0 is a full ellipse, 0.5 a ring half the radius wide",
        Key::LineHeight => "a line height is a multiple of the font size: 1.5, or 0 for the font's own",
        _ => {
            "sizes, font sizes, radii, padding and stroke widths are pixels, 0 or more; to overlap children use a negative gap"
        }
    }
}

/// The pointer of the value starting at `offset` inside `value` ("" for `value` itself).
fn inner_pointer(value: &Json, offset: u32) -> String {
    crate::doc::locate::pointer_in(value, offset).unwrap_or_default()
}

/// What agents mean by property names borrowed from CSS, Figma or other tools.
fn agent_key_hint(name: &str, node_type: Option<NodeType>, flat_strokes: bool) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let advice = match lower.as_str() {
        "textcolor" | "color" | "fontcolor" => "use 'fill': a text's color is its fill",
        "backgroundcolor" | "background" | "bg" | "backgroundfill" | "fillcolor" => "use 'fill'",
        "borderradius" | "radius" | "rounded" | "corner" => "use 'cornerRadius'",
        "strokethickness" | "borderwidth" | "strokeweight" | "linewidth" if flat_strokes => "use 'strokeWidth'",
        "strokethickness" | "borderwidth" | "strokeweight" | "linewidth" => {
            "use stroke: {thickness: 1, fill: \"#E5E5E5\"} (or 'strokeWidth', which nib converts)"
        }
        "strokecolor" | "bordercolor" | "border" => "use 'stroke'",
        "textalignhorizontal" | "horizontalalign" => "use 'textAlign'",
        "verticalalign" | "textalignvert" => "use 'textAlignVertical'",
        "style" | "styles" | "css" => {
            "there is no style object: set fill, cornerRadius, stroke, padding, fontSize… directly on the node"
        }
        "font" => "use 'fontFamily', 'fontSize' and 'fontWeight'",
        "direction" | "flexdirection" | "layoutmode" => "use layout: \"horizontal\" or \"vertical\"",
        "spacing" | "itemspacing" | "space" => "use 'gap'",
        "justify" | "mainaxisalignment" | "primaryaxisalignitems" => "use 'justifyContent'",
        "align" | "crossaxisalignment" | "counteraxisalignitems" => "use 'alignItems'",
        "shadow" | "boxshadow" | "shadows" | "dropshadow" => {
            "use effect: {type: \"shadow\", offset: {x: 0, y: 4}, blur: 12, color: \"#0000001A\"}"
        }
        "text" | "label" | "value" | "characters" => "use 'content'",
        "visible" | "hidden" | "display" => "use enabled: false to hide a node",
        "src" | "image" | "imageurl" | "backgroundimage" => "use fill: {type: \"image\", url: \"…\", mode: \"fill\"}",
        "rotate" => "use 'rotation' (degrees)",
        "left" => "use 'x'",
        "top" => "use 'y'",
        "w" => "use 'width'",
        "h" => "use 'height'",
        "component" | "componentid" => "use ref: \"<component id>\" on a node of type \"ref\"",
        "hug_contents" | "hug" => "sizes are values: width: \"fit_content\"",
        "icon" | "iconname" if node_type == Some(NodeType::IconFont) => "use 'iconFontName'",
        "iconset" | "family" if node_type == Some(NodeType::IconFont) => "use 'iconFontFamily'",
        _ => return None,
    };
    Some(advice.into())
}

/// Hints for known keys on a node type that does not use them.
/// How Pencil words an invalid value, where its recorded answers show it: a fill that is not a
/// color or paint, and a null where an object belongs. `whole` is true when the error is about
/// the value itself rather than something inside it.
fn pencil_wording(key: &Key, value: &Json, whole: bool) -> Option<String> {
    if !whole {
        return None;
    }
    let got = {
        let mut w = crate::doc::json::JsonWriter::compact();
        value.write(&mut w);
        w.finish()
    };
    match (key, &value.value) {
        (Key::Fill, JsonValue::String(_)) => Some(format!(
            "expected one of: color hex string (#RRGGBBAA, #RRGGBB or #RGB), \"$variable\", {{type: \"color\"}}, {{type: \"gradient\"}}, {{type: \"image\"}}, {{type: \"mesh_gradient\"}}, got {got}"
        )),
        (Key::Stroke | Key::Effect, JsonValue::Null) => Some(format!("expected object, got {got}")),
        _ => None,
    }
}

fn misplaced_key_hint(key: &Key, node_type: NodeType) -> Option<String> {
    Some(match (key, node_type) {
        (Key::Fill | Key::Stroke | Key::CornerRadius, NodeType::Group) => {
            "groups paint nothing themselves: use a frame".into()
        }
        (Key::Layout | Key::Gap | Key::Padding | Key::Children, _) => "only frames and groups lay out children".into(),
        (Key::Content | Key::FontSize | Key::FontFamily | Key::FontWeight, NodeType::Frame) => {
            "put text in a child: {type: \"text\", content: \"…\"}".into()
        }
        (Key::CornerRadius, NodeType::Text) => "put the text in a frame with cornerRadius".into(),
        (Key::Stroke, NodeType::Text | NodeType::Icon | NodeType::IconFont) => "text and icons have no stroke".into(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::values::{StrokeAlign, Thickness};

    fn json(text: &str) -> Json {
        crate::doc::json::parse(text).unwrap().value.unwrap()
    }

    fn node(version: &str, text: &str) -> Result<NodeTree, Vec<Invalid>> {
        let mut v = Validator::new(Some(version));
        let tree = v.node(json(text), "");
        if v.errors.is_empty() { Ok(tree.unwrap()) } else { Err(v.errors) }
    }

    #[test]
    fn valid_nodes_are_typed() {
        let tree = node("2.8", r##"{"type": "frame", "width": "fill_container", "children": [{"type": "text", "content": "a", "fill": "#000"}]}"##).unwrap();
        assert_eq!(tree.props.node_type(), Some(NodeType::Frame));
        assert_eq!(tree.children.len(), 1);
    }

    #[test]
    fn every_invalid_property_is_listed() {
        let errors = node(
            "2.8",
            r##"{"type": "frame", "width": "hug_contents", "fill": "transparent", "strokeThickness": 1, "style": {}, "padding": {"left": 24}, "alignItems": "flex_start", "fontSize": 12, "children": ["Click me", {"type": "text", "fill": "#1535850", "textColor": "#fff"}]}"##,
        )
        .unwrap_err();
        let pointers: Vec<&str> = errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/width",
                "/fill",
                "/strokeThickness",
                "/style",
                "/padding",
                "/alignItems",
                "/fontSize",
                "/children/0",
                "/children/1/fill",
                "/children/1/textColor"
            ]
        );
        let text = |p: &str| errors.iter().find(|e| e.pointer == p).unwrap().to_string();
        assert!(text("/width").contains("did you mean \"fit_content\"?"));
        assert!(text("/strokeThickness").contains("thickness"));
        assert!(text("/style").contains("no style object"));
        assert!(text("/alignItems").contains("did you mean \"start\"?"));
        assert!(text("/children/1/textColor").contains("use 'fill'"));
        assert!(text("/children/1/fill").contains("#1535850"));
    }

    #[test]
    fn weights_pen_does_not_know_are_refused_with_the_number() {
        let errors = node("2.20", r#"{"type": "text", "content": "a", "fontWeight": "heavy"}"#).unwrap_err();
        assert_eq!(
            errors.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
            [
                "/fontWeight font weight \"heavy\" is not one Pen knows (write \"900\"; weights are \"normal\", \"medium\", \"semibold\", \"bold\" or \"100\"…\"900\")"
            ]
        );
        let mut v = Validator::new(Some("2.20"));
        v.update(json(r#"{"fontWeight": "light"}"#), Some(NodeType::Text), None);
        assert_eq!(v.errors.len(), 1);
        assert!(node("2.20", r#"{"type": "text", "content": "a", "fontWeight": "semibold"}"#).is_ok());
        assert!(node("2.20", r#"{"type": "text", "content": "a", "fontWeight": "800"}"#).is_ok());
    }

    #[test]
    fn strokes_follow_the_document_version() {
        let old =
            node("2.11", r##"{"type": "frame", "stroke": "#E5E5E5", "strokeWidth": 1, "strokeAlignment": "outer"}"##)
                .unwrap();
        assert!(
            matches!(old.props.get(&Key::Stroke), Some(Value::Stroke(Stroke::Object(s))) if s.align == Some(StrokeAlign::Outside))
        );
        assert!(!old.props.contains(&Key::StrokeWidth));

        let new = node(
            "2.13",
            r##"{"type": "frame", "stroke": {"align": "inside", "thickness": {"bottom": 1}, "fill": "$--border"}}"##,
        )
        .unwrap();
        assert!(matches!(new.props.get(&Key::Stroke), Some(Value::Stroke(Stroke::Paint(_)))));
        assert!(matches!(new.props.get(&Key::StrokeWidth), Some(Value::StrokeWidth(Thickness::Sides(_)))));
        assert!(new.props.contains(&Key::StrokeAlignment));
    }

    #[test]
    fn icons_follow_the_document_version() {
        let icon =
            node("2.13", r#"{"type": "icon_font", "iconFontFamily": "lucide", "iconFontName": "settings"}"#).unwrap();
        assert_eq!(icon.props.node_type(), Some(NodeType::Icon));
        assert!(icon.props.contains(&Key::Library) && icon.props.contains(&Key::Icon));
        let font = node("2.8", r#"{"type": "icon", "library": "lucide", "icon": "x"}"#).unwrap();
        assert_eq!(font.props.node_type(), Some(NodeType::IconFont));
    }

    #[test]
    fn numbers_out_of_their_range_are_refused() {
        let mut v = Validator::new(Some("2.20"));
        v.update(
            json(r#"{"opacity": 1.5, "width": -5, "cornerRadius": [4, -1, 4, 4], "gap": -1, "x": -40}"#),
            Some(NodeType::Frame),
            None,
        );
        let said: Vec<String> = v.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            said,
            [
                "/opacity is 1.5; opacity is from 0 (transparent) to 1 (opaque) (0.5 is half transparent; to hide a node use enabled: false)",
                "/width is -5; width is 0 or more (sizes, font sizes, radii, padding and stroke widths are pixels, 0 or more; to overlap children use a negative gap)",
                "/cornerRadius is -1; cornerRadius is 0 or more (sizes, font sizes, radii, padding and stroke widths are pixels, 0 or more; to overlap children use a negative gap)",
            ]
        );
        let errors =
            node("2.20", r#"{"type": "text", "content": "a", "fontSize": -1, "lineHeight": 1.4}"#).unwrap_err();
        assert_eq!(errors.iter().map(|e| e.pointer.as_str()).collect::<Vec<_>>(), ["/fontSize"]);
        assert!(node("2.20", r#"{"type": "frame", "opacity": 0, "width": 0, "padding": [0, 8]}"#).is_ok());
    }

    #[test]
    fn updates_split_structure_from_properties() {
        let mut v = Validator::new(Some("2.8"));
        let update = v
            .update(
                json(r#"{"gap": 4, "name": null, "children": [], "descendants": {"label": {"content": "x"}}}"#),
                Some(NodeType::Frame),
                None,
            )
            .unwrap();
        assert!(v.errors.is_empty(), "{:?}", v.errors);
        assert_eq!(update.set.len(), 1);
        assert_eq!(update.remove, vec![Key::Name]);
        assert_eq!(update.children.map(|c| c.len()), Some(0));
        assert!(update.descendants.is_some());
        let mut v = Validator::new(Some("2.8"));
        v.update(json(r#"{"id": "x", "ref": "y"}"#), Some(NodeType::Ref), None);
        assert_eq!(v.errors.len(), 2);
    }
}
