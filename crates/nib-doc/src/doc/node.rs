//! Node types, which properties each type uses, component slots, and instance overrides.

use std::borrow::Cow;
use std::collections::HashSet;

use super::convert::{FromJson, OrderedMap, ReadContext, ToJson, wrong_type, wrong_type_expecting};
use super::error::{ErrorKind, ProblemKind, ValueError};
use super::json::{Json, JsonValue, JsonWriter, Member, RawJson};
use super::keyword::suggest;
use super::props::{Key, Props, Value};

/// The kind of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeType {
    /// A box that holds children, with optional flex layout.
    Frame,
    /// A container without paint of its own; its box is the union of its children.
    Group,
    /// A rectangle with optional corner radii.
    Rectangle,
    /// An ellipse, arc or ring.
    Ellipse,
    /// A straight line across its box.
    Line,
    /// A regular polygon.
    Polygon,
    /// An SVG path.
    Path,
    /// Text.
    Text,
    /// A sticky note on the canvas.
    Note,
    /// A prompt annotation on the canvas.
    Prompt,
    /// A context annotation on the canvas.
    Context,
    /// An icon from an icon font (≤ 2.11 spelling).
    IconFont,
    /// An icon from an icon set (2.13 spelling).
    Icon,
    /// An instance of a component.
    Ref,
    /// 2.17: a box drawn by a JavaScript file (`scriptUri`) that returns nodes.
    Script,
    /// 2.19: a live web page in a box (`url`).
    Browser,
    /// 2.17: a line from one node's anchor to another's (`source`, `target`); top level only.
    Connection,
    /// A type nib does not know (a newer Pen's): its `type` and every key are kept as written;
    /// it lays out as an empty box of its width and height and draws nothing. Files only: what
    /// an agent writes must name a known type.
    Unknown,
}

impl NodeType {
    /// Every node type's spelling.
    pub const ALL: &'static [&'static str] = &[
        "frame",
        "group",
        "rectangle",
        "ellipse",
        "line",
        "polygon",
        "path",
        "text",
        "note",
        "prompt",
        "context",
        "icon_font",
        "icon",
        "ref",
        "script",
        "browser",
        "connection",
    ];

    const VARIANTS: [NodeType; 17] = [
        NodeType::Frame,
        NodeType::Group,
        NodeType::Rectangle,
        NodeType::Ellipse,
        NodeType::Line,
        NodeType::Polygon,
        NodeType::Path,
        NodeType::Text,
        NodeType::Note,
        NodeType::Prompt,
        NodeType::Context,
        NodeType::IconFont,
        NodeType::Icon,
        NodeType::Ref,
        NodeType::Script,
        NodeType::Browser,
        NodeType::Connection,
    ];

    /// The type spelled `text`.
    pub fn parse(text: &str) -> Option<NodeType> {
        NodeType::ALL.iter().position(|t| *t == text).map(|i| NodeType::VARIANTS[i])
    }

    /// The spelling in files; `"unknown"` for [`NodeType::Unknown`], whose own spelling is in
    /// the node's `type` (see [`Props::type_name`]).
    pub fn as_str(self) -> &'static str {
        match NodeType::VARIANTS.iter().position(|t| *t == self) {
            Some(index) => NodeType::ALL[index],
            None => "unknown",
        }
    }

    /// The type with its article, for sentences: "a frame", "an ellipse", "an icon_font";
    /// "a node of a type nib does not know" for [`NodeType::Unknown`].
    pub fn with_article(self) -> &'static str {
        const WITH_ARTICLE: [&str; 17] = [
            "a frame",
            "a group",
            "a rectangle",
            "an ellipse",
            "a line",
            "a polygon",
            "a path",
            "a text",
            "a note",
            "a prompt",
            "a context",
            "an icon_font",
            "an icon",
            "a ref",
            "a script",
            "a browser",
            "a connection",
        ];
        match NodeType::VARIANTS.iter().position(|t| *t == self) {
            Some(index) => WITH_ARTICLE[index],
            None => "a node of a type nib does not know",
        }
    }

    /// True when nodes of this type may be given children (a node of an unknown type keeps
    /// the children it was read with, but gets no new ones).
    pub fn has_children(self) -> bool {
        matches!(self, NodeType::Frame | NodeType::Group | NodeType::Ref)
    }

    /// True when `key` means something on this node type. Instances accept every key: their
    /// root keys override the component's. A type nib does not know may use any key.
    pub fn uses(self, key: &Key) -> bool {
        use Key::*;
        if matches!(key, Other(_)) || matches!(self, NodeType::Ref | NodeType::Unknown) {
            return true;
        }
        let common = matches!(
            key,
            Type | Id
                | Name
                | Context
                | Reusable
                | Theme
                | Enabled
                | Opacity
                | Rotation
                | FlipX
                | FlipY
                | LayoutPosition
                | Metadata
                | X
                | Y
        );
        let size = matches!(key, Width | Height);
        let stroke = matches!(key, Stroke | StrokeWidth | StrokeAlignment | StrokeLinecap | StrokeLinejoin);
        let paint = stroke || matches!(key, Fill | Effect);
        let flex = matches!(key, Children | Layout | Gap | Padding | JustifyContent | AlignItems | LayoutIncludeStroke);
        let text_style = matches!(
            key,
            Content
                | FontFamily
                | FontSize
                | FontWeight
                | FontStyle
                | LetterSpacing
                | LineHeight
                | TextAlign
                | TextAlignVertical
                | Underline
                | Strikethrough
                | Href
        );
        common
            || match self {
                NodeType::Frame => size || paint || flex || matches!(key, CornerRadius | Clip | Placeholder | Slot),
                NodeType::Group => size || flex || matches!(key, Effect),
                NodeType::Rectangle => size || paint || matches!(key, CornerRadius),
                NodeType::Ellipse => size || paint || matches!(key, InnerRadius | StartAngle | SweepAngle),
                NodeType::Line => size || stroke || matches!(key, Effect),
                NodeType::Polygon => size || paint || matches!(key, PolygonCount | CornerRadius),
                NodeType::Path => size || paint || matches!(key, Geometry | FillRule | ViewBox),
                NodeType::Text => size || text_style || matches!(key, Fill | Effect | TextGrowth),
                NodeType::Note | NodeType::Context => size || text_style,
                NodeType::Prompt => size || text_style || matches!(key, Model),
                NodeType::IconFont => size || matches!(key, IconFontName | IconFontFamily | Weight | Fill | Effect),
                NodeType::Icon => size || matches!(key, Icon | Library | Weight | Fill | Effect),
                NodeType::Ref | NodeType::Unknown => true,
                NodeType::Script => size || matches!(key, ScriptUri | Inputs | Clip),
                NodeType::Browser => {
                    size || stroke || matches!(key, Effect | Url | DeviceId | Zoom | ScrollX | ScrollY | CornerRadius)
                }
                NodeType::Connection => stroke || matches!(key, Source | Target),
            }
    }
}

/// Hints for node types agents invent.
fn node_type_hint(got: &str) -> Option<String> {
    let lower = got.to_ascii_lowercase();
    if matches!(lower.as_str(), "image" | "img" | "picture" | "photo") {
        return Some(
            "images are fills: use a rectangle or frame with fill {\"type\": \"image\", \"url\": \"…\"}".into(),
        );
    }
    if matches!(lower.as_str(), "component" | "instance") {
        return Some("a component is a frame with \"reusable\": true; an instance is {\"type\": \"ref\", \"ref\": \"<component id>\"}".into());
    }
    suggest(&lower, NodeType::ALL).map(|s| format!("did you mean \"{s}\"?"))
}

impl FromJson for NodeType {
    fn expected() -> Cow<'static, str> {
        "a node type string".into()
    }

    fn from_json(json: Json, _cx: &mut ReadContext) -> Result<NodeType, ValueError> {
        let offset = json.offset;
        let text = super::convert::expect_string::<NodeType>(json)?;
        NodeType::parse(&text).ok_or_else(|| {
            let hint = node_type_hint(&text);
            ValueError::new(offset, ErrorKind::UnknownNodeType { got: text, valid: NodeType::ALL })
                .with_optional_hint(hint)
        })
    }
}

impl ToJson for NodeType {
    fn write_json(&self, w: &mut JsonWriter) {
        w.string(self.as_str());
    }
}

/// A frame's slot marker: `false`, or the ids of components recommended for the slot.
#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    /// `true` / `false`.
    Flag(bool),
    /// Recommended component ids (may be empty).
    Components(Vec<String>),
}

impl FromJson for Slot {
    fn expected() -> Cow<'static, str> {
        "false or a list of component ids".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Slot, ValueError> {
        match json.value {
            JsonValue::Bool(flag) => Ok(Slot::Flag(flag)),
            JsonValue::Array(_) => Vec::<String>::from_json(json, cx)
                .map(Slot::Components)
                .map_err(super::convert::restate_expected::<Slot>),
            _ => Err(wrong_type::<Slot>(&json)),
        }
    }
}

impl ToJson for Slot {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            Slot::Flag(flag) => w.bool(*flag),
            Slot::Components(ids) => ids.write_json(w),
        }
    }
}

/// A node with its subtree, outside the document tree: the content of instance overrides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeTree {
    /// The node's properties (with `Value::Children` where the `children` key sits).
    pub props: Props,
    /// The children, when the node has a `children` key.
    pub children: Vec<NodeTree>,
}

impl NodeTree {
    /// Writes the tree as a node object.
    pub(crate) fn write(&self, w: &mut JsonWriter) {
        self.props.write(w, !self.children.is_empty(), &mut |w| {
            w.begin_array();
            for child in &self.children {
                child.write(w);
            }
            w.end_array();
        });
    }

    /// The tree as compact JSON; children deeper than `depth` levels are written as `"..."`.
    pub fn to_json(&self, depth: usize) -> String {
        let mut w = JsonWriter::compact();
        self.write_to_depth(depth, &mut w);
        w.finish()
    }

    fn write_to_depth(&self, depth: usize, w: &mut JsonWriter) {
        self.props.write(w, !self.children.is_empty(), &mut |w| {
            if depth == 0 {
                w.string("...");
                return;
            }
            w.begin_array();
            for child in &self.children {
                child.write_to_depth(depth - 1, w);
            }
            w.end_array();
        });
    }

    /// True when this override replaces the node (it has a `type`) rather than editing it.
    pub fn is_replacement(&self) -> bool {
        self.props.contains(&Key::Type)
    }
}

/// Instance overrides: `{"<id path>": {...}}`. A value without `type` overrides properties (and
/// with `children` replaces the children, which fills slots); a value with `type` replaces the
/// node with a new subtree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Descendants(pub OrderedMap<NodeTree>);

impl FromJson for Descendants {
    fn expected() -> Cow<'static, str> {
        "an object mapping id paths to overrides".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Descendants, ValueError> {
        if !matches!(json.value, JsonValue::Object(_)) {
            return Err(wrong_type::<Descendants>(&json));
        }
        // Ids inside one instance's overrides address nodes as `instance/id`: they must not repeat.
        let mut ids = HashSet::new();
        let map = super::convert::read_map(json, "an object", cx, |path, value, cx| {
            check_override_path(path, value.offset)?;
            read_tree(value, NodeRole::Override, &mut ids, cx)
        })?;
        Ok(Descendants(map))
    }
}

impl ToJson for Descendants {
    fn write_json(&self, w: &mut JsonWriter) {
        w.begin_object();
        let entries = &self.0.entries;
        for i in super::json::js_enumeration_order(entries.iter().map(|(k, _)| k.as_str())) {
            w.key(&entries[i].0);
            entries[i].1.write(w);
        }
        w.end_object();
    }
}

fn check_override_path(path: &str, offset: u32) -> Result<(), ValueError> {
    let reason = if path.is_empty() {
        "it is empty"
    } else if path.split('/').any(str::is_empty) {
        "it has an empty segment"
    } else {
        return Ok(());
    };
    Err(ValueError::new(offset, ErrorKind::InvalidOverridePath { path: path.into(), reason }).with_hint(
        "override keys are node ids inside the component, joined by '/' for nested instances: \"label\", \"row/icon\"",
    ))
}

/// What a node object must contain where it occurs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeRole {
    /// A node of the document: `type` and `id` are required.
    Node,
    /// An override value: property overrides need neither; a replacement (with `type`) needs an
    /// id, except in a file, where one without is known by the node it replaces (the key's last
    /// id), as Pen draws and keeps it.
    Override,
    /// A node inside an override's content (`children`): `type` and `id` are required, but a
    /// file's node without an id is kept (it cannot be addressed, so it is not drawn).
    OverrideChild,
}

/// A node object read into properties, with its children still as JSON.
pub(crate) struct ReadNode {
    pub props: Props,
    /// The `children` array. Its items are there when it was read; the document loader reads
    /// them from the text at its offset instead (see [`super::json::outline`]).
    pub children: Option<Json>,
    /// Offset of the `id` value, for duplicate-id errors.
    pub id_offset: u32,
}

/// Reads a node object's properties and checks the keys its role requires.
pub(crate) fn read_node(json: Json, role: NodeRole, cx: &mut ReadContext) -> Result<ReadNode, ValueError> {
    let offset = json.offset;
    let members: Vec<Member> = match json.value {
        JsonValue::Object(members) => members,
        _ => {
            return Err(wrong_type_expecting(&json, "a node object {\"type\": …, \"id\": …}".into()));
        }
    };
    // Sized exactly: a document holds one of these per node.
    let mut props = Props::with_capacity(members.len());
    let mut children = None;
    let mut id_offset = offset;
    let mut key_offsets = Vec::with_capacity(members.len());
    // What a newer Pen may write is kept as written in files (see `ReadContext::keep_unknown`):
    // a node of a type nib does not know keeps every value, and a property override keeps a
    // value nib cannot read for its key. Both are rare, so only their values are copied first.
    let type_member = members.iter().find(|m| m.key == "type");
    let unknown_type = match type_member.map(|m| (&m.value.value, m.value.offset)) {
        Some((JsonValue::String(got), at)) if cx.keep_unknown && NodeType::parse(got).is_none() => {
            Some((at, got.clone()))
        }
        _ => None,
    };
    let property_override = role == NodeRole::Override && type_member.is_none();
    let lenient = cx.keep_unknown && (unknown_type.is_some() || property_override);
    for member in members {
        let key = Key::from_name(&member.key);
        key_offsets.push(member.key_offset);
        match key {
            Key::Children => match member.value.value {
                JsonValue::Array(_) => {
                    children = Some(member.value);
                    props.push_read(Key::Children, Value::Children);
                }
                _ => {
                    return Err(wrong_type_expecting(&member.value, "a list of child nodes".into()));
                }
            },
            Key::Id => {
                id_offset = member.value.offset;
                let id = String::from_json(member.value, cx)?;
                check_id(&id, id_offset)?;
                props.push_read(Key::Id, Value::Text(id));
            }
            Key::Other(ref name) => {
                let suggestion = cx.suggest_key(name, Key::KNOWN);
                cx.unknown_key(member.key_offset, name, suggestion)?;
                props.push_read(key, Value::Json(RawJson::from_json(&member.value)));
            }
            Key::Type if unknown_type.is_some() => {
                props.push_read(Key::Type, Value::Json(RawJson::from_json(&member.value)));
            }
            key if lenient => {
                let copy = member.value.clone();
                let value = Value::read_for(&key, member.value, cx).unwrap_or_else(|error| {
                    if property_override {
                        let reason = error.kind.to_string();
                        cx.report(copy.offset, ProblemKind::OverrideKept { key: key.name().into(), reason });
                    }
                    Value::Json(RawJson::from_json(&copy))
                });
                props.push_read(key, value);
            }
            key => {
                let value = Value::read_for(&key, member.value, cx)?;
                props.push_read(key, value);
            }
        }
    }
    let required: &[&'static str] = match (role, props.contains(&Key::Type)) {
        (NodeRole::Node | NodeRole::OverrideChild, _) => &["type", "id"],
        // Pen draws a file's replacement without an id in the place of the node its key names,
        // and saves it so (woodcase `slot-override-keys`, `bare-injected-replace`): resolve
        // gives it that node's id.
        (NodeRole::Override, true) if cx.keep_unknown => &[],
        (NodeRole::Override, true) => &["id"],
        (NodeRole::Override, false) => &[],
    };
    for key in required {
        if !props.contains(&Key::from_name(key)) {
            if *key == "id" && role == NodeRole::OverrideChild && cx.keep_unknown {
                // Kept for the file's sake; without an id it cannot be addressed, so resolve
                // leaves it out.
                cx.report(offset, ProblemKind::OverrideNodeWithoutId);
                continue;
            }
            let hint = match *key {
                "type" => "give the node a type such as \"frame\", \"text\" or \"rectangle\"",
                _ => "give every node a unique id without '/', e.g. \"k8eKw\"",
            };
            return Err(ValueError::new(offset, ErrorKind::MissingKey { what: "a node", key }).with_hint(hint));
        }
    }
    if let Some((at, got)) = unknown_type {
        let suggestion = suggest(&got.to_ascii_lowercase(), NodeType::ALL);
        cx.report(at, ProblemKind::NodeTypeKept { got, suggestion, children: children.is_some() });
    } else if let Some(node_type) = props.node_type() {
        if children.is_some() && !node_type.has_children() {
            // Kept (lossless), but a child list on a leaf means nothing.
            cx.report(offset, ProblemKind::KeyNotUsedByType { key: "children".into(), node_type: node_type.as_str() });
        }
        for ((key, _), key_offset) in props.iter().zip(&key_offsets) {
            if !node_type.uses(key) && *key != Key::Children {
                cx.report(
                    *key_offset,
                    ProblemKind::KeyNotUsedByType { key: key.name().into(), node_type: node_type.as_str() },
                );
            }
        }
    }
    Ok(ReadNode { props, children, id_offset })
}

fn check_id(id: &str, offset: u32) -> Result<(), ValueError> {
    let reason = if id.is_empty() {
        "ids cannot be empty"
    } else if id.contains('/') {
        "ids cannot contain '/', which separates ids in instance paths"
    } else {
        return Ok(());
    };
    Err(ValueError::new(offset, ErrorKind::InvalidId { id: id.into(), reason })
        .with_hint("use letters and digits, e.g. \"k8eKw\""))
}

/// Reads a detached node tree; ids must be unique within `ids`.
pub(crate) fn read_tree(
    json: Json,
    role: NodeRole,
    ids: &mut HashSet<String>,
    cx: &mut ReadContext,
) -> Result<NodeTree, ValueError> {
    let node = read_node(json, role, cx)?;
    if let Some(id) = node.props.id()
        && node.props.contains(&Key::Type)
        && !ids.insert(id.to_owned())
    {
        return Err(ValueError::new(node.id_offset, ErrorKind::DuplicateId { id: id.to_owned(), first_line: None })
            .with_hint("ids inside one instance's overrides must be unique; give this node a new id"));
    }
    let items = match node.children.map(|children| children.value) {
        Some(JsonValue::Array(items)) => items,
        _ => Vec::new(),
    };
    let children =
        items.into_iter().map(|child| read_tree(child, NodeRole::OverrideChild, ids, cx)).collect::<Result<_, _>>()?;
    Ok(NodeTree { props: node.props, children })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::*;

    #[test]
    fn node_types_take_the_article_their_spelling_asks_for() {
        for (spelling, variant) in NodeType::ALL.iter().zip(NodeType::VARIANTS) {
            let article = if spelling.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
            assert_eq!(variant.with_article(), format!("{article} {spelling}"));
        }
        assert_eq!(NodeType::Unknown.with_article(), "a node of a type nib does not know");
    }

    #[test]
    fn node_types_parse_and_hint() {
        for t in NodeType::ALL {
            assert_eq!(NodeType::parse(t).unwrap().as_str(), *t);
        }
        let e = read::<NodeType>("\"rect\"").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean \"rectangle\"?"));
        let e = read::<NodeType>("\"image\"").unwrap_err();
        assert!(e.hint.unwrap().contains("fill"));
        let e = read::<NodeType>("\"div\"").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean \"frame\"?"));
    }

    #[test]
    fn keys_per_type() {
        assert!(NodeType::Frame.uses(&Key::Layout));
        assert!(!NodeType::Text.uses(&Key::Layout));
        assert!(!NodeType::Group.uses(&Key::Fill));
        assert!(NodeType::Ref.uses(&Key::Fill));
        assert!(NodeType::Icon.uses(&Key::Library));
    }

    #[test]
    fn descendants_hold_property_overrides_and_replacements() {
        let d: Descendants = read(
            r#"{"label": {"content": "Hi"}, "icon": {"type": "text", "id": "n3w", "content": "x"}, "slot": {"children": [{"type": "frame", "id": "c1"}]}}"#,
        )
        .unwrap();
        assert!(!d.0.get("label").unwrap().is_replacement());
        assert!(d.0.get("icon").unwrap().is_replacement());
        assert_eq!(d.0.get("slot").unwrap().children.len(), 1);
    }

    #[test]
    fn override_errors() {
        let e = read::<Descendants>(r#"{"a//b": {}}"#).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::InvalidOverridePath { .. }));
        let e = read::<Descendants>(r#"{"a": {"type": "text"}}"#).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::MissingKey { key: "id", .. }));
        let e = read::<Descendants>(
            r#"{"a": {"type": "text", "id": "x"}, "b": {"children": [{"type": "text", "id": "x"}]}}"#,
        )
        .unwrap_err();
        assert!(matches!(e.kind, ErrorKind::DuplicateId { .. }));
        let e = read::<Descendants>(r#"{"a": {"children": [{"id": "x"}]}}"#).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::MissingKey { key: "type", .. }));
    }

    #[test]
    fn a_files_overrides_keep_what_nib_cannot_read() {
        let text = r##"{"label": {"content": {"runs": []}, "fill": "#FF0000"}, "slot": {"children": [{"type": "text", "content": "x"}]}, "icon": {"type": "sticker", "id": "s1", "emoji": "star"}}"##;
        let (descendants, problems) = read_as_file::<Descendants>(text);
        let descendants = descendants.unwrap();
        let label = &descendants.0.get("label").unwrap().props;
        assert!(label.get(&Key::Content).unwrap().is_kept_for(&Key::Content));
        assert!(!label.get(&Key::Fill).unwrap().is_kept_for(&Key::Fill));
        assert_eq!(descendants.0.get("icon").unwrap().props.node_type(), Some(NodeType::Unknown));
        assert_eq!(descendants.0.get("icon").unwrap().props.type_name().as_deref(), Some("sticker"));
        let kinds: Vec<&ProblemKind> = problems.iter().map(|p| &p.kind).collect();
        assert!(matches!(kinds[0], ProblemKind::OverrideKept { key, .. } if key == "content"), "{kinds:?}");
        assert_eq!(kinds[1], &ProblemKind::OverrideNodeWithoutId);
        assert!(kinds.iter().any(|k| matches!(k, ProblemKind::NodeTypeKept { got, .. } if got == "sticker")));
        // A file's replacement without an id is known by the node its key names.
        let (replacement, problems) = read_as_file::<Descendants>(r#"{"row/a": {"type": "text"}}"#);
        assert!(replacement.unwrap().0.get("row/a").unwrap().is_replacement());
        assert!(problems.is_empty(), "{problems:?}");
        // Corruption is still refused: a duplicate id.
        let duplicate = r#"{"a": {"type": "text", "id": "x"}, "b": {"children": [{"type": "text", "id": "x"}]}}"#;
        assert!(read_as_file::<Descendants>(duplicate).0.is_err());
        // What an agent writes is read strictly.
        assert!(read::<Descendants>(r#"{"label": {"content": {"runs": []}}}"#).is_err());
    }
}
