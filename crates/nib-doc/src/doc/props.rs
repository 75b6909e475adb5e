//! Node properties: the table of known keys, their typed values, and the ordered property bag
//! every node carries.
//!
//! A key's value type depends on the key alone, never on the node type, so the same reader
//! serves nodes, instance overrides (`descendants`) and, later, batch_design updates.

use super::convert::{FromJson, ReadContext, ToJson, VarOr};
use super::error::{ErrorKind, ValueError};
use super::json::{Json, JsonWriter, RawJson, is_array_index};
use super::node::{Descendants, NodeType, Slot};
use super::values::*;

/// The kinds of values, one per distinct type of property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    NodeType,
    Text,
    TextOrVar,
    Number,
    Bool,
    Layout,
    JustifyContent,
    AlignItems,
    LayoutPosition,
    TextAlign,
    TextAlignVertical,
    TextGrowth,
    FontStyle,
    FontWeight,
    FillRule,
    StrokeAlignment,
    LineCap,
    LineJoin,
    Numbers,
    Size,
    Padding,
    CornerRadius,
    Fills,
    Stroke,
    StrokeWidth,
    Effects,
    Theme,
    Slot,
    Content,
    Descendants,
    Json,
    Children,
}

/// Declares [`Key`] from a table of `Variant = "jsonName" => ValueKind`.
macro_rules! keys {
    ($( $(#[$meta:meta])* $variant:ident = $name:literal => $kind:ident, )*) => {
        /// A property name. Known names are variants; anything else is kept as [`Key::Other`].
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum Key {
            $( $(#[$meta])* $variant, )*
            /// A key nib does not know; its value is kept verbatim.
            Other(Box<str>),
        }

        impl Key {
            /// Every known property name.
            pub const KNOWN: &'static [&'static str] = &[$($name),*];

            /// The key for a JSON name.
            pub fn from_name(name: &str) -> Key {
                match name {
                    $( $name => Key::$variant, )*
                    _ => Key::Other(name.into()),
                }
            }

            /// The JSON name.
            pub fn name(&self) -> &str {
                match self {
                    $( Key::$variant => $name, )*
                    Key::Other(name) => name,
                }
            }

            fn kind(&self) -> Option<ValueKind> {
                match self {
                    $( Key::$variant => Some(ValueKind::$kind), )*
                    Key::Other(_) => None,
                }
            }
        }
    };
}

keys! {
    /// The node type.
    Type = "type" => NodeType,
    /// The node id, unique in the document, without `/`.
    Id = "id" => Text,
    /// A display name.
    Name = "name" => Text,
    /// Free-form context for agents.
    Context = "context" => Text,
    /// `true` makes the node a component.
    Reusable = "reusable" => Bool,
    /// Theme axis values for the subtree.
    Theme = "theme" => Theme,
    /// `false` hides the node.
    Enabled = "enabled" => Bool,
    /// 0–1.
    Opacity = "opacity" => Number,
    /// Degrees, counter-clockwise, around the top-left corner.
    Rotation = "rotation" => Number,
    /// Mirror horizontally inside the box.
    FlipX = "flipX" => Bool,
    /// Mirror vertically inside the box.
    FlipY = "flipY" => Bool,
    /// `absolute` takes the node out of its parent's flex flow.
    LayoutPosition = "layoutPosition" => LayoutPosition,
    /// `{type, ...}` data attached by tools (e.g. image attribution).
    Metadata = "metadata" => Json,
    /// Position relative to the parent (or the canvas for top-level nodes).
    X = "x" => Number,
    /// Position relative to the parent (or the canvas for top-level nodes).
    Y = "y" => Number,
    /// Width.
    Width = "width" => Size,
    /// Height.
    Height = "height" => Size,
    /// Paints.
    Fill = "fill" => Fills,
    /// A ≤ 2.11 stroke object, or a 2.13 stroke paint.
    Stroke = "stroke" => Stroke,
    /// 2.13 stroke width.
    StrokeWidth = "strokeWidth" => StrokeWidth,
    /// 2.13 stroke alignment.
    StrokeAlignment = "strokeAlignment" => StrokeAlignment,
    /// 2.17 stroke ends: butt, round, square.
    StrokeLinecap = "strokeLinecap" => LineCap,
    /// 2.17 stroke corners: miter, bevel, round.
    StrokeLinejoin = "strokeLinejoin" => LineJoin,
    /// Shadows and blurs.
    Effect = "effect" => Effects,
    /// Corner radii.
    CornerRadius = "cornerRadius" => CornerRadius,
    /// Clip children to the box.
    Clip = "clip" => Bool,
    /// Marks a frame as a placeholder being designed.
    Placeholder = "placeholder" => Bool,
    /// Marks a frame as a slot: `false` or the ids of recommended components.
    Slot = "slot" => Slot,
    /// Where the `children` key sits; the children themselves live in the tree.
    Children = "children" => Children,
    /// none / vertical / horizontal.
    Layout = "layout" => Layout,
    /// Space between children (negative overlaps).
    Gap = "gap" => Number,
    /// Inner spacing.
    Padding = "padding" => Padding,
    /// Main-axis distribution.
    JustifyContent = "justifyContent" => JustifyContent,
    /// Cross-axis alignment.
    AlignItems = "alignItems" => AlignItems,
    /// Whether strokes take space in layout.
    LayoutIncludeStroke = "layoutIncludeStroke" => Bool,
    /// Ring ratio of an ellipse, 0–1.
    InnerRadius = "innerRadius" => Number,
    /// Arc start, degrees counter-clockwise from the right.
    StartAngle = "startAngle" => Number,
    /// Arc length in degrees (360 = full).
    SweepAngle = "sweepAngle" => Number,
    /// Vertex count of a polygon.
    PolygonCount = "polygonCount" => Number,
    /// SVG path data.
    Geometry = "geometry" => Text,
    /// nonzero / evenodd.
    FillRule = "fillRule" => FillRule,
    /// 2.17 path coordinate space `[x, y, width, height]` mapped onto the node's box.
    ViewBox = "viewBox" => Numbers,
    /// 2.17 script node: the JavaScript file that draws it.
    ScriptUri = "scriptUri" => Text,
    /// 2.17 script node: values for the script's `@input`s.
    Inputs = "inputs" => Json,
    /// 2.19 browser node: the page shown.
    Url = "url" => Text,
    /// 2.19 browser node: the device whose viewport the page gets.
    DeviceId = "deviceId" => Text,
    /// 2.19 browser node: page zoom (1 = 100 %).
    Zoom = "zoom" => Number,
    /// 2.19 browser node: horizontal scroll of the page.
    ScrollX = "scrollX" => Number,
    /// 2.19 browser node: vertical scroll of the page.
    ScrollY = "scrollY" => Number,
    /// 2.17 connection: where it starts, `{path, anchor}`.
    Source = "source" => Json,
    /// 2.17 connection: where it ends, `{path, anchor}`.
    Target = "target" => Json,
    /// Text of text-like nodes.
    Content = "content" => Content,
    /// How a text box sizes itself.
    TextGrowth = "textGrowth" => TextGrowth,
    /// Font family name.
    FontFamily = "fontFamily" => TextOrVar,
    /// Font size in pixels.
    FontSize = "fontSize" => Number,
    /// Font weight.
    FontWeight = "fontWeight" => FontWeight,
    /// normal / italic.
    FontStyle = "fontStyle" => FontStyle,
    /// Extra space after every character, in pixels.
    LetterSpacing = "letterSpacing" => Number,
    /// Line height as a multiple of the font size (0 = the font's own).
    LineHeight = "lineHeight" => Number,
    /// Horizontal alignment of lines.
    TextAlign = "textAlign" => TextAlign,
    /// Vertical alignment of the text block.
    TextAlignVertical = "textAlignVertical" => TextAlignVertical,
    /// Underline the text.
    Underline = "underline" => Bool,
    /// Strike the text through.
    Strikethrough = "strikethrough" => Bool,
    /// Link target of the text.
    Href = "href" => Text,
    /// The model a prompt node targets.
    Model = "model" => Text,
    /// Icon name of an icon_font node.
    IconFontName = "iconFontName" => TextOrVar,
    /// Icon set of an icon_font node.
    IconFontFamily = "iconFontFamily" => TextOrVar,
    /// Weight of a variable icon font (100–700).
    Weight = "weight" => Number,
    /// Icon name of a 2.13 icon node.
    Icon = "icon" => TextOrVar,
    /// Icon set of a 2.13 icon node.
    Library = "library" => TextOrVar,
    /// The component an instance copies.
    Ref = "ref" => Text,
    /// Overrides of nodes inside an instance, by id path.
    Descendants = "descendants" => Descendants,
}

/// The largest length or position, in pixels, a document may state (x, y, sizes, gap,
/// padding, radii, stroke widths, letter spacing, line height, font size): ten times the
/// largest coordinate seen in real files (91,461), and small enough for f32 layout to keep
/// sub-pixel precision. Larger numbers (1e308) would lay out as infinity.
pub const MAX_LENGTH: f64 = 1_000_000.0;

/// [`MAX_LENGTH`] in words, for errors.
const LENGTH_RANGE: &str = "between -1000000 and 1000000 (pixels)";

impl Key {
    /// The name of a key whose numbers are lengths or positions (bounded by [`MAX_LENGTH`]).
    fn length_name(&self) -> Option<&'static str> {
        Some(match self {
            Key::X => "x",
            Key::Y => "y",
            Key::Width => "width",
            Key::Height => "height",
            Key::Gap => "gap",
            Key::Padding => "padding",
            Key::CornerRadius => "cornerRadius",
            Key::StrokeWidth => "strokeWidth",
            Key::LetterSpacing => "letterSpacing",
            Key::LineHeight => "lineHeight",
            Key::FontSize => "fontSize",
            _ => return None,
        })
    }
}

/// A typed property value. Which variant a key holds is fixed by the key.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `type`
    NodeType(NodeType),
    /// Plain strings: id, name, geometry, ref, …
    Text(String),
    /// Strings that may name a variable: fontFamily, icon names.
    TextOrVar(VarOr<String>),
    /// Numbers.
    Number(VarOr<f64>),
    /// Booleans.
    Bool(VarOr<bool>),
    /// `layout`
    Layout(VarOr<Layout>),
    /// `justifyContent`
    JustifyContent(VarOr<JustifyContent>),
    /// `alignItems`
    AlignItems(VarOr<AlignItems>),
    /// `layoutPosition`
    LayoutPosition(VarOr<LayoutPosition>),
    /// `textAlign`
    TextAlign(VarOr<TextAlign>),
    /// `textAlignVertical`
    TextAlignVertical(VarOr<TextAlignVertical>),
    /// `textGrowth`
    TextGrowth(VarOr<TextGrowth>),
    /// `fontStyle`
    FontStyle(VarOr<FontStyle>),
    /// `fontWeight`
    FontWeight(VarOr<FontWeight>),
    /// `fillRule`
    FillRule(VarOr<FillRule>),
    /// `strokeAlignment`
    StrokeAlignment(VarOr<StrokeAlignment>),
    /// `strokeLinecap`
    LineCap(VarOr<LineCap>),
    /// `strokeLinejoin`
    LineJoin(VarOr<StrokeJoin>),
    /// A list of numbers: `viewBox`.
    Numbers(Vec<VarOr<f64>>),
    /// `width`, `height`
    Size(VarOr<Sizing>),
    /// `padding`
    Padding(Padding),
    /// `cornerRadius`
    CornerRadius(CornerRadius),
    /// `fill`
    Fills(Fills),
    /// `stroke`
    Stroke(Stroke),
    /// `strokeWidth`
    StrokeWidth(Thickness),
    /// `effect`
    Effects(Effects),
    /// `theme`
    Theme(ThemeSelection),
    /// `slot`
    Slot(Slot),
    /// `content`
    Content(TextContent),
    /// `descendants`
    Descendants(Descendants),
    /// `metadata`, and every unknown key: kept verbatim.
    Json(RawJson),
    /// Marks where the `children` key sits; the children live in the tree.
    Children,
}

impl Value {
    /// Reads the value of a known key.
    fn read(kind: ValueKind, json: Json, cx: &mut ReadContext) -> Result<Value, ValueError> {
        fn typed<T: FromJson>(json: Json, cx: &mut ReadContext, wrap: fn(T) -> Value) -> Result<Value, ValueError> {
            T::from_json(json, cx).map(wrap)
        }
        match kind {
            ValueKind::NodeType => typed(json, cx, Value::NodeType),
            ValueKind::Text => typed(json, cx, Value::Text),
            ValueKind::TextOrVar => typed(json, cx, Value::TextOrVar),
            ValueKind::Number => typed(json, cx, Value::Number),
            ValueKind::Bool => typed(json, cx, Value::Bool),
            ValueKind::Layout => typed(json, cx, Value::Layout),
            ValueKind::JustifyContent => typed(json, cx, Value::JustifyContent),
            ValueKind::AlignItems => typed(json, cx, Value::AlignItems),
            ValueKind::LayoutPosition => typed(json, cx, Value::LayoutPosition),
            ValueKind::TextAlign => typed(json, cx, Value::TextAlign),
            ValueKind::TextAlignVertical => typed(json, cx, Value::TextAlignVertical),
            ValueKind::TextGrowth => typed(json, cx, Value::TextGrowth),
            ValueKind::FontStyle => typed(json, cx, Value::FontStyle),
            ValueKind::FontWeight => typed(json, cx, Value::FontWeight),
            ValueKind::FillRule => typed(json, cx, Value::FillRule),
            ValueKind::StrokeAlignment => typed(json, cx, Value::StrokeAlignment),
            ValueKind::LineCap => typed(json, cx, Value::LineCap),
            ValueKind::LineJoin => typed(json, cx, Value::LineJoin),
            ValueKind::Numbers => typed(json, cx, Value::Numbers),
            ValueKind::Size => typed(json, cx, Value::Size),
            ValueKind::Padding => typed(json, cx, Value::Padding),
            ValueKind::CornerRadius => typed(json, cx, Value::CornerRadius),
            ValueKind::Fills => typed(json, cx, Value::Fills),
            ValueKind::Stroke => typed(json, cx, Value::Stroke),
            ValueKind::StrokeWidth => typed(json, cx, Value::StrokeWidth),
            ValueKind::Effects => typed(json, cx, Value::Effects),
            ValueKind::Theme => typed(json, cx, Value::Theme),
            ValueKind::Slot => typed(json, cx, Value::Slot),
            ValueKind::Content => typed(json, cx, Value::Content),
            ValueKind::Descendants => typed(json, cx, Value::Descendants),
            ValueKind::Json => Ok(Value::Json(RawJson::from_json(&json))),
            // Children are read by the tree builder; reaching this is a caller's mistake.
            ValueKind::Children => Ok(Value::Children),
        }
    }

    /// Reads the value of `key`, keeping unknown keys verbatim. Lengths beyond [`MAX_LENGTH`]
    /// are refused where they are written.
    pub fn read_for(key: &Key, json: Json, cx: &mut ReadContext) -> Result<Value, ValueError> {
        match key.kind() {
            Some(kind) => {
                let offset = json.offset;
                let value = Value::read(kind, json, cx)?;
                if let Some(what) = key.length_name()
                    && let Some(got) = value.lengths().into_iter().find(|n| n.abs() > MAX_LENGTH)
                {
                    return Err(ValueError::new(offset, ErrorKind::OutOfRange { what, range: LENGTH_RANGE, got })
                        .with_hint(
                            "lengths and positions are pixels on the canvas: use a number of a realistic size",
                        ));
                }
                Ok(value)
            }
            None => Ok(Value::Json(RawJson::from_json(&json))),
        }
    }

    /// The literal numbers of a number, size, padding, radius or stroke width (variables are
    /// checked where they are defined); empty for any other value.
    pub fn lengths(&self) -> Vec<f64> {
        fn literal(values: &[VarOr<f64>]) -> Vec<f64> {
            values.iter().filter_map(|v| v.value().copied()).collect()
        }
        match self {
            Value::Number(VarOr::Value(n)) => vec![*n],
            Value::Size(VarOr::Value(
                Sizing::Fixed(n) | Sizing::FitContent(Some(n)) | Sizing::FillContainer(Some(n)),
            )) => vec![*n],
            Value::Padding(padding) => match padding {
                Padding::Uniform(n) => literal(std::slice::from_ref(n)),
                Padding::Axes(values) => literal(&values[..]),
                Padding::Sides(values) => literal(&values[..]),
            },
            Value::CornerRadius(radius) => match radius {
                CornerRadius::Uniform(n) => literal(std::slice::from_ref(n)),
                CornerRadius::Corners(values) => literal(&values[..]),
            },
            Value::StrokeWidth(thickness) => match thickness {
                Thickness::Uniform(n) => literal(std::slice::from_ref(n)),
                Thickness::Sides(sides) => [&sides.top, &sides.right, &sides.bottom, &sides.left]
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.value().copied())
                    .collect(),
            },
            _ => Vec::new(),
        }
    }

    fn write(&self, w: &mut JsonWriter) {
        match self {
            Value::NodeType(v) => v.write_json(w),
            Value::Text(v) => w.string(v),
            Value::TextOrVar(v) => v.write_json(w),
            Value::Number(v) => v.write_json(w),
            Value::Bool(v) => v.write_json(w),
            Value::Layout(v) => v.write_json(w),
            Value::JustifyContent(v) => v.write_json(w),
            Value::AlignItems(v) => v.write_json(w),
            Value::LayoutPosition(v) => v.write_json(w),
            Value::TextAlign(v) => v.write_json(w),
            Value::TextAlignVertical(v) => v.write_json(w),
            Value::TextGrowth(v) => v.write_json(w),
            Value::FontStyle(v) => v.write_json(w),
            Value::FontWeight(v) => v.write_json(w),
            Value::FillRule(v) => v.write_json(w),
            Value::StrokeAlignment(v) => v.write_json(w),
            Value::LineCap(v) => v.write_json(w),
            Value::LineJoin(v) => v.write_json(w),
            Value::Numbers(v) => v.write_json(w),
            Value::Size(v) => v.write_json(w),
            Value::Padding(v) => v.write_json(w),
            Value::CornerRadius(v) => v.write_json(w),
            Value::Fills(v) => v.write_json(w),
            Value::Stroke(v) => v.write_json(w),
            Value::StrokeWidth(v) => v.write_json(w),
            Value::Effects(v) => v.write_json(w),
            Value::Theme(v) => v.write_json(w),
            Value::Slot(v) => v.write_json(w),
            Value::Content(v) => v.write_json(w),
            Value::Descendants(v) => v.write_json(w),
            Value::Json(v) => v.write(w),
            Value::Children => w.null(),
        }
    }
}

impl Value {
    /// True when this is a value of a known key kept as written because nib could not read it
    /// for that key (an instance override of a newer Pen, or a key of a node type nib does
    /// not know): it must not be applied, only saved.
    pub fn is_kept_for(&self, key: &Key) -> bool {
        matches!(self, Value::Json(_)) && key.kind().is_some_and(|kind| kind != ValueKind::Json)
    }
}

impl ToJson for Value {
    fn write_json(&self, w: &mut JsonWriter) {
        self.write(w);
    }
}

/// A type a property value can be read as, when it is a literal (not a `$variable`).
pub trait Literal: Sized {
    /// The literal in `value`, when `value` holds this type.
    fn from_value(value: &Value) -> Option<Self>;
}

macro_rules! literals {
    ($($variant:ident => $ty:ty,)*) => {
        $(
            impl Literal for $ty {
                fn from_value(value: &Value) -> Option<$ty> {
                    match value {
                        Value::$variant(VarOr::Value(v)) => Some(v.clone()),
                        _ => None,
                    }
                }
            }
        )*
    };
}

literals! {
    Number => f64,
    Bool => bool,
    TextOrVar => String,
    Layout => Layout,
    JustifyContent => JustifyContent,
    AlignItems => AlignItems,
    LayoutPosition => LayoutPosition,
    TextAlign => TextAlign,
    TextAlignVertical => TextAlignVertical,
    TextGrowth => TextGrowth,
    FontStyle => FontStyle,
    FontWeight => FontWeight,
    FillRule => FillRule,
    StrokeAlignment => StrokeAlignment,
    LineCap => LineCap,
    LineJoin => StrokeJoin,
    Size => Sizing,
}

/// A node's properties in file order. Setting an existing key replaces its value in place; a
/// new key goes last, as on a JavaScript object, which is how Pen orders keys it adds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Props {
    entries: Vec<(Key, Value)>,
}

impl Props {
    /// Empty properties with room for `capacity` keys.
    pub(crate) fn with_capacity(capacity: usize) -> Props {
        Props { entries: Vec::with_capacity(capacity) }
    }

    /// The value of `key`.
    pub fn get(&self, key: &Key) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The literal value of `key` as `T`: `None` when absent, a `$variable`, or another type.
    pub fn literal<T: Literal>(&self, key: &Key) -> Option<T> {
        self.get(key).and_then(T::from_value)
    }

    /// The value of `key`, mutably.
    pub fn get_mut(&mut self, key: &Key) -> Option<&mut Value> {
        self.entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// True when `key` is present.
    pub fn contains(&self, key: &Key) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }

    /// Sets `key`, returning the previous value.
    pub fn set(&mut self, key: Key, value: Value) -> Option<Value> {
        match self.get_mut(&key) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key`, returning its position and value (to restore it exactly on undo).
    pub fn remove(&mut self, key: &Key) -> Option<(usize, Value)> {
        let index = self.entries.iter().position(|(k, _)| k == key)?;
        Some((index, self.entries.remove(index).1))
    }

    /// Puts a removed entry back at `index` (clamped to the end).
    pub fn insert_at(&mut self, index: usize, key: Key, value: Value) {
        let index = index.min(self.entries.len());
        self.entries.insert(index, (key, value));
    }

    /// Sorts the keys by `rank`, keeping the order of keys of equal rank.
    pub(crate) fn sort_by_key(&mut self, mut rank: impl FnMut(&Key) -> usize) {
        self.entries.sort_by_key(|(k, _)| rank(k));
    }

    /// Sets `key`; a key the node lacks goes where Pen writes it, the others stay in place.
    pub fn set_in_pencil_order(&mut self, key: Key, value: Value) -> Option<Value> {
        match self.get_mut(&key) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            None => {
                let index = super::pencil_order::insertion_index(self, &key);
                self.entries.insert(index, (key, value));
                None
            }
        }
    }

    /// The values, mutably, in order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// Entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The node type, when `type` is present: [`NodeType::Unknown`] for a type nib does not
    /// know, which a file keeps as written.
    pub fn node_type(&self) -> Option<NodeType> {
        match self.get(&Key::Type) {
            Some(Value::NodeType(t)) => Some(*t),
            Some(Value::Json(_)) => Some(NodeType::Unknown),
            _ => None,
        }
    }

    /// The node type as the file spells it (`"video_clip"` for a type nib does not know).
    pub fn type_name(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self.get(&Key::Type) {
            Some(Value::NodeType(t)) => Some(t.as_str().into()),
            Some(Value::Json(raw)) => match raw.to_json().value {
                super::json::JsonValue::String(name) => Some(name.into()),
                _ => Some(raw.as_str().into()),
            },
            _ => None,
        }
    }

    /// The id, when present.
    pub fn id(&self) -> Option<&str> {
        self.text(&Key::Id)
    }

    /// The name, when present.
    pub fn name(&self) -> Option<&str> {
        self.text(&Key::Name)
    }

    /// The value of a plain-string key.
    pub fn text(&self, key: &Key) -> Option<&str> {
        match self.get(key) {
            Some(Value::Text(text)) => Some(text),
            _ => None,
        }
    }

    pub(crate) fn push_read(&mut self, key: Key, value: Value) {
        self.entries.push((key, value));
    }

    /// Writes the properties as an object; `write_children` writes the value of `children`.
    /// A node that gained children without a `children` key gets one at the end.
    pub fn write(&self, w: &mut JsonWriter, has_children: bool, write_children: &mut dyn FnMut(&mut JsonWriter)) {
        w.begin_object();
        // JavaScript enumerates array-index keys first; only unknown keys can look like that.
        let index_like = |k: &Key| matches!(k, Key::Other(name) if is_array_index(name));
        if self.entries.iter().any(|(k, _)| index_like(k)) {
            let mut first: Vec<&(Key, Value)> = self.entries.iter().filter(|(k, _)| index_like(k)).collect();
            first.sort_by_key(|(k, _)| k.name().parse::<u64>().unwrap_or(0));
            for (key, value) in first {
                w.unknown_key(key.name());
                value.write(w);
            }
        }
        for (key, value) in self.entries.iter().filter(|(k, _)| !index_like(k)) {
            match key {
                Key::Other(name) => w.unknown_key(name),
                known => w.key(known.name()),
            }
            match value {
                Value::Children => write_children(w),
                other => other.write(w),
            }
        }
        if has_children && !self.contains(&Key::Children) {
            w.key(Key::Children.name());
            write_children(w);
        }
        w.end_object();
    }
}
