//! How the layout keys of `.pen` nodes become flexbox styles: the sizing rules of the format
//! (fixed, fit_content, fill_container and their fallbacks), flex containers, layout-none
//! containers whose children sit at their x/y, groups sized by their children, text boxes by
//! their growth mode, and the findings these rules produce (fill_container outside a flex parent,
//! fit_content with nothing to hug, circular sizing, replaced fonts).
//!
//! Everything here is decided per node from the node and its parent, top-down, before taffy
//! runs; see DECISIONS.md ("Layout") for the choices where Pen's behaviour is unknown.

use taffy::prelude::{
    AlignItems as TaffyAlign, Dimension, FlexDirection, FlexWrap, JustifyContent as TaffyJustify, LengthPercentage,
    LengthPercentageAuto, Position, Rect, Size, Style,
};

use crate::doc::values::{AlignItems, JustifyContent, Layout, LayoutPosition, Padding, Sizing, TextGrowth};
use crate::doc::{Key, NodeType, Props, Value, VarOr};
use crate::resolve::ScenePart;
use crate::text::{PreparedText, TextEngine, TextStyle, text_content};

use super::turn::{self, Turn};

/// An axis of the canvas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    /// Width.
    Horizontal,
    /// Height.
    Vertical,
}

impl Axis {
    /// The property that sizes this axis.
    pub(crate) fn size_key(self) -> &'static str {
        match self {
            Axis::Horizontal => "width",
            Axis::Vertical => "height",
        }
    }
}

/// How a node lays out its children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Flexbox along `Axis` (horizontal = row).
    Flex(Axis),
    /// Children at their x/y (layout none); a group is as big as the union of its children.
    Free { group: bool },
    /// A text box, measured by its text.
    Text,
    /// Anything else: sized by its own numbers.
    Leaf,
}

/// The size a node takes on one axis, after the format's rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AxisSize {
    /// This many pixels.
    Fixed(f32),
    /// As big as the content (children, text).
    Hug,
    /// The parent's free space (main axis) or the parent's size (cross axis).
    Fill,
}

/// Everything layout decided about one visible node before measuring.
#[derive(Debug, Clone)]
pub struct Plan<'a> {
    pub kind: Kind,
    pub width: AxisSize,
    pub height: AxisSize,
    /// As written, for the circular sizing check.
    pub raw_width: Sizing,
    pub raw_height: Sizing,
    /// Out of the parent's flex flow, placed at x/y.
    pub absolute: bool,
    /// x/y as written; used outside flex flows.
    pub x: f32,
    pub y: f32,
    /// Container keys: gap (may be negative), padding (top, right, bottom, left), alignment.
    pub gap: f32,
    pub padding: [f32; 4],
    pub justify: Option<JustifyContent>,
    pub align: Option<AlignItems>,
    /// The node's text and style, for text boxes (boxed: most nodes have none).
    pub text: Option<Box<TextLeaf<'a>>>,
    /// Its rotation and flips about its x/y.
    pub turn: Turn,
}

/// What a text box shows.
#[derive(Debug, Clone)]
pub struct TextLeaf<'a> {
    pub prepared: PreparedText<'a>,
    /// Lines wrap at the box width (fixed-width and fixed-width-height growth).
    pub wraps: bool,
}

impl Plan<'_> {
    pub fn size(&self, axis: Axis) -> AxisSize {
        match axis {
            Axis::Horizontal => self.width,
            Axis::Vertical => self.height,
        }
    }
}

/// A finding of the layout rules, attached to a node.
#[derive(Debug, Clone, PartialEq)]
pub enum SizingNote {
    /// `fill_container` without a flex parent to fill; the fallback (or 0) is used.
    FillOutsideFlex(Axis),
    /// `fill_container` on a top-level node, which has no parent to fill: it hugs its content,
    /// as a browser's flexbox and Yoga size a root without a definite size.
    FillAtTopLevel(Axis),
    /// `fit_content` with nothing to hug (no visible children, no flex layout); 0 is used.
    FitContentWithoutContent(Axis),
    /// Every visible child fills a parent that hugs them on this axis.
    CircularSizing(Axis),
    /// The font family is not available; another is used.
    FontReplaced {
        /// The family asked for.
        requested: String,
        /// The family used instead.
        used: String,
        /// Why, and by what (see [`crate::text::FamilyChoice::reason`]).
        reason: String,
    },
}

/// The layout keys of a node, read in one pass over its properties: layout reads them for every
/// node on every relayout, and one pass costs a fraction of a lookup per key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct LayoutKeys {
    pub(super) node_type: NodeType,
    enabled: bool,
    layout: Option<Layout>,
    absolute: bool,
    width: Option<Sizing>,
    height: Option<Sizing>,
    x: f32,
    y: f32,
    gap: f32,
    padding: [f32; 4],
    justify: Option<JustifyContent>,
    align: Option<AlignItems>,
    growth: TextGrowth,
    turn: Turn,
}

pub(super) fn read_keys(props: &Props) -> LayoutKeys {
    let mut keys = LayoutKeys {
        node_type: NodeType::Frame,
        enabled: true,
        layout: None,
        absolute: false,
        width: None,
        height: None,
        x: 0.0,
        y: 0.0,
        gap: 0.0,
        padding: [0.0; 4],
        justify: None,
        align: None,
        growth: TextGrowth::Auto,
        turn: Turn::default(),
    };
    let finite = |n: &f64| if n.is_finite() { *n as f32 } else { 0.0 };
    for (key, value) in props.iter() {
        match (key, value) {
            (Key::Type, Value::NodeType(t)) => keys.node_type = *t,
            // A type nib does not know, kept as written: an empty box of its size.
            (Key::Type, Value::Json(_)) => keys.node_type = NodeType::Unknown,
            (Key::Enabled, Value::Bool(VarOr::Value(enabled))) => keys.enabled = *enabled,
            (Key::Layout, Value::Layout(VarOr::Value(layout))) => keys.layout = Some(*layout),
            (Key::LayoutPosition, Value::LayoutPosition(VarOr::Value(p))) => {
                keys.absolute = *p == LayoutPosition::Absolute;
            }
            (Key::Width, Value::Size(VarOr::Value(sizing))) => keys.width = Some(*sizing),
            (Key::Height, Value::Size(VarOr::Value(sizing))) => keys.height = Some(*sizing),
            (Key::X, Value::Number(VarOr::Value(n))) => keys.x = finite(n),
            (Key::Y, Value::Number(VarOr::Value(n))) => keys.y = finite(n),
            (Key::Gap, Value::Number(VarOr::Value(n))) => keys.gap = finite(n),
            (Key::Padding, Value::Padding(padding)) => keys.padding = padding_sides(padding),
            (Key::JustifyContent, Value::JustifyContent(VarOr::Value(j))) => keys.justify = Some(*j),
            (Key::AlignItems, Value::AlignItems(VarOr::Value(a))) => keys.align = Some(*a),
            (Key::TextGrowth, Value::TextGrowth(VarOr::Value(g))) => keys.growth = *g,
            (Key::Rotation, Value::Number(VarOr::Value(degrees))) => keys.turn.rotation = turn::normalized(*degrees),
            (Key::FlipX, Value::Bool(VarOr::Value(flip))) => keys.turn.flip_x = *flip,
            (Key::FlipY, Value::Bool(VarOr::Value(flip))) => keys.turn.flip_y = *flip,
            _ => {}
        }
    }
    keys
}

/// Plans every node of `part`: `None` for hidden nodes (and nodes that cannot be laid out, such
/// as children of a leaf). Notes name nodes by their index in the part.
pub fn plan_part<'a>(part: &'a ScenePart, text: &mut TextEngine) -> (Vec<Option<Plan<'a>>>, Vec<(usize, SizingNote)>) {
    let mut keys = KEYS_BUFFER.with(|buffer| std::mem::take(&mut *buffer.borrow_mut()));
    keys.clear();
    keys.extend(part.nodes().iter().map(|node| read_keys(&node.props)));
    let mut plans: Vec<Option<Plan<'a>>> = Vec::with_capacity(part.nodes().len());
    let mut notes = Vec::new();
    for (index, node) in part.nodes().iter().enumerate() {
        let parent = node.parent_local().and_then(|p| plans[p].as_ref().map(|plan| (p, plan)));
        let hidden = !keys[index].enabled
            || match node.parent_local() {
                // Under a hidden node, or under a node that has no children to lay out.
                Some(_) => parent.is_none_or(|(_, p)| matches!(p.kind, Kind::Text | Kind::Leaf)),
                None => false,
            };
        if hidden {
            plans.push(None);
            continue;
        }
        let plan = plan_node(part, &keys, index, parent.map(|(_, p)| p), text, &mut notes);
        plans.push(Some(plan));
    }
    note_circular_sizing(part, &plans, &mut notes);
    KEYS_BUFFER.with(|buffer| *buffer.borrow_mut() = keys);
    (plans, notes)
}

thread_local! {
    /// The keys of the last part planned on this thread, kept for their memory (see
    /// `NODE_BUFFER` in the layout module).
    static KEYS_BUFFER: std::cell::RefCell<Vec<LayoutKeys>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn plan_node<'a>(
    part: &'a ScenePart,
    all_keys: &[LayoutKeys],
    index: usize,
    parent: Option<&Plan<'_>>,
    engine: &mut TextEngine,
    notes: &mut Vec<(usize, SizingNote)>,
) -> Plan<'a> {
    let node = part.node(index);
    let keys = &all_keys[index];
    let kind = match keys.node_type {
        NodeType::Frame | NodeType::Group => {
            let group = keys.node_type == NodeType::Group;
            match keys.layout.unwrap_or(if group { Layout::None } else { Layout::Horizontal }) {
                Layout::Horizontal => Kind::Flex(Axis::Horizontal),
                Layout::Vertical => Kind::Flex(Axis::Vertical),
                Layout::None => Kind::Free { group },
            }
        }
        NodeType::Text => Kind::Text,
        // Their content is the Scene's (resolve/generated.rs): a browser window stacks its
        // toolbar over its page; a script's nodes sit where they say.
        NodeType::Browser => Kind::Flex(Axis::Vertical),
        NodeType::Script => Kind::Free { group: false },
        _ => Kind::Leaf,
    };
    let parent_flex = parent.and_then(|p| match p.kind {
        Kind::Flex(axis) => Some(axis),
        _ => None,
    });
    let absolute = parent_flex.is_some() && keys.absolute;
    let in_flex_flow = parent_flex.filter(|_| !absolute);
    let default_size = match kind {
        Kind::Flex(_) | Kind::Free { .. } => Sizing::FitContent(None),
        _ => Sizing::Fixed(0.0),
    };
    let (mut raw_width, mut raw_height) = (keys.width.unwrap_or(default_size), keys.height.unwrap_or(default_size));
    if kind == Kind::Text {
        // Auto text hugs its lines whatever the numbers say; fixed-width text hugs its height.
        if keys.growth == TextGrowth::Auto {
            raw_width = Sizing::FitContent(None);
        }
        if keys.growth != TextGrowth::FixedWidthHeight {
            raw_height = Sizing::FitContent(None);
        }
    }
    let has_flow_children = node.children_local().any(|c| all_keys[c].enabled && !all_keys[c].absolute);
    let can_hug = match kind {
        Kind::Flex(_) => has_flow_children,
        Kind::Free { group } => group,
        Kind::Text => true,
        Kind::Leaf => false,
    };
    let context = AxisContext { kind, can_hug, in_flex_flow, parent };
    let width = resolve_axis(raw_width, Axis::Horizontal, &context, index, notes);
    let height = resolve_axis(raw_height, Axis::Vertical, &context, index, notes);
    let text = (kind == Kind::Text).then(|| {
        let prepared = engine.prepare(text_content(&node.props), &TextStyle::of(&node.props));
        let choice = prepared.family();
        if let Some(requested) = &choice.replaced {
            let reason = choice.reason().unwrap_or_default();
            notes.push((
                index,
                SizingNote::FontReplaced { requested: requested.clone(), used: choice.family.clone(), reason },
            ));
        }
        Box::new(TextLeaf { prepared, wraps: keys.growth != TextGrowth::Auto })
    });
    Plan {
        kind,
        width,
        height,
        raw_width,
        raw_height,
        absolute,
        x: keys.x,
        y: keys.y,
        gap: keys.gap,
        padding: keys.padding,
        justify: keys.justify,
        align: keys.align,
        text,
        turn: keys.turn,
    }
}

struct AxisContext<'a> {
    kind: Kind,
    can_hug: bool,
    in_flex_flow: Option<Axis>,
    parent: Option<&'a Plan<'a>>,
}

fn resolve_axis(
    sizing: Sizing,
    axis: Axis,
    context: &AxisContext<'_>,
    index: usize,
    notes: &mut Vec<(usize, SizingNote)>,
) -> AxisSize {
    match sizing {
        Sizing::Fixed(n) => AxisSize::Fixed(pixels(n)),
        Sizing::FitContent(fallback) => fit_content(fallback, axis, context, index, notes),
        Sizing::FillContainer(fallback) => match context.in_flex_flow {
            Some(main) => {
                let parent_hugs = context.parent.is_some_and(|p| p.size(axis) == AxisSize::Hug);
                if parent_hugs && axis == main {
                    // Nothing to fill in a parent that hugs its children: hug too (as Yoga does).
                    fit_content(fallback, axis, context, index, notes)
                } else {
                    AxisSize::Fill
                }
            }
            None if fallback.is_none() && context.parent.is_none() && hugs(context) => {
                notes.push((index, SizingNote::FillAtTopLevel(axis)));
                AxisSize::Hug
            }
            None => {
                if fallback.is_none() {
                    notes.push((index, SizingNote::FillOutsideFlex(axis)));
                }
                AxisSize::Fixed(fallback.map_or(0.0, pixels))
            }
        },
    }
}

/// True when a node sized fit_content without a fallback hugs something (its children, its
/// text, or the padding of an empty flex frame) rather than being 0.
fn hugs(context: &AxisContext<'_>) -> bool {
    context.can_hug || matches!(context.kind, Kind::Flex(_))
}

fn fit_content(
    fallback: Option<f64>,
    axis: Axis,
    context: &AxisContext<'_>,
    index: usize,
    notes: &mut Vec<(usize, SizingNote)>,
) -> AxisSize {
    if context.can_hug {
        return AxisSize::Hug;
    }
    match (fallback, context.kind) {
        (Some(fallback), _) => AxisSize::Fixed(pixels(fallback)),
        // An empty flex frame is as big as its padding, as in CSS.
        (None, Kind::Flex(_)) => AxisSize::Hug,
        (None, _) => {
            notes.push((index, SizingNote::FitContentWithoutContent(axis)));
            AxisSize::Fixed(0.0)
        }
    }
}

/// A usable size: finite and not negative.
fn pixels(n: f64) -> f32 {
    if n.is_finite() { n.max(0.0) as f32 } else { 0.0 }
}

fn note_circular_sizing(part: &ScenePart, plans: &[Option<Plan<'_>>], notes: &mut Vec<(usize, SizingNote)>) {
    for (index, plan) in plans.iter().enumerate() {
        let Some(plan @ Plan { kind: Kind::Flex(_), .. }) = plan else { continue };
        let flow: Vec<&Plan<'_>> =
            part.node(index).children_local().filter_map(|c| plans[c].as_ref()).filter(|c| !c.absolute).collect();
        if flow.is_empty() {
            continue;
        }
        for axis in [Axis::Horizontal, Axis::Vertical] {
            let fills = |c: &&Plan<'_>| {
                matches!(
                    match axis {
                        Axis::Horizontal => c.raw_width,
                        Axis::Vertical => c.raw_height,
                    },
                    Sizing::FillContainer(_)
                )
            };
            if plan.size(axis) == AxisSize::Hug && flow.iter().all(fills) {
                notes.push((index, SizingNote::CircularSizing(axis)));
            }
        }
    }
}

/// The least a `fill_container` child takes on its parent's main axis, however little room
/// its siblings leave (Pen's; woodcase's `flex-fill-squeeze` boxes).
pub const MIN_FILL: f32 = 1.0;

/// The taffy style of a planned node, given its parent's plan and properties. `first_in_flow`
/// is true for the first child of a flex parent that takes part in the flow (a negative gap
/// becomes a negative margin on the others: CSS has no negative gaps).
pub(crate) fn taffy_style(plan: &Plan<'_>, parent: Option<&Plan<'_>>, first_in_flow: bool) -> Style {
    // Items never shrink, so CSS's automatic minimum size (the min-content size) can never
    // apply; a zero minimum says so and spares taffy measuring min-content sizes.
    let zero = LengthPercentageAuto::length(0.0);
    let mut style = Style {
        flex_shrink: 0.0,
        position: Position::Relative,
        min_size: Size { width: zero, height: zero },
        ..Style::default()
    };
    style.size = Size { width: dimension(plan.width), height: dimension(plan.height) };
    if let Some(Plan { kind: Kind::Flex(main), gap, .. }) = parent {
        if plan.absolute {
            style.position = Position::Absolute;
            style.inset = Rect {
                left: LengthPercentageAuto::length(plan.x),
                top: LengthPercentageAuto::length(plan.y),
                right: LengthPercentageAuto::auto(),
                bottom: LengthPercentageAuto::auto(),
            };
        } else {
            for axis in [Axis::Horizontal, Axis::Vertical] {
                if plan.size(axis) != AxisSize::Fill {
                    continue;
                }
                if axis == *main {
                    style.flex_grow = 1.0;
                    style.flex_basis = Dimension::length(0.0);
                    // Pen gives a fill squeezed to nothing 1 px, and its siblings follow
                    // (DECISIONS.md, Layout: "A squeezed fill is 1 px").
                    let floor = LengthPercentageAuto::length(MIN_FILL);
                    match main {
                        Axis::Horizontal => style.min_size.width = floor,
                        Axis::Vertical => style.min_size.height = floor,
                    }
                } else {
                    style.align_self = Some(TaffyAlign::STRETCH);
                }
            }
            let gap = *gap;
            if gap < 0.0 && !first_in_flow {
                match main {
                    Axis::Horizontal => style.margin.left = LengthPercentageAuto::length(gap),
                    Axis::Vertical => style.margin.top = LengthPercentageAuto::length(gap),
                }
            }
        }
    }
    if let Kind::Flex(axis) = plan.kind {
        style.flex_direction = match axis {
            Axis::Horizontal => FlexDirection::Row,
            Axis::Vertical => FlexDirection::Column,
        };
        style.flex_wrap = FlexWrap::NoWrap;
        let gap = plan.gap.max(0.0);
        style.gap = Size { width: LengthPercentage::length(gap), height: LengthPercentage::length(gap) };
        let [top, right, bottom, left] = plan.padding;
        style.padding = Rect {
            top: LengthPercentage::length(top),
            right: LengthPercentage::length(right),
            bottom: LengthPercentage::length(bottom),
            left: LengthPercentage::length(left),
        };
        style.justify_content = match plan.justify {
            None | Some(JustifyContent::Start) => TaffyJustify::FLEX_START,
            Some(JustifyContent::Center) => TaffyJustify::CENTER,
            Some(JustifyContent::End) => TaffyJustify::FLEX_END,
            Some(JustifyContent::SpaceBetween) => TaffyJustify::SPACE_BETWEEN,
            Some(JustifyContent::SpaceAround) => TaffyJustify::SPACE_AROUND,
        };
        style.align_items = match plan.align {
            None | Some(AlignItems::Start) => TaffyAlign::FLEX_START,
            Some(AlignItems::Center) => TaffyAlign::CENTER,
            Some(AlignItems::End) => TaffyAlign::FLEX_END,
        };
    }
    style
}

fn dimension(size: AxisSize) -> Dimension {
    match size {
        AxisSize::Fixed(n) => Dimension::length(n),
        AxisSize::Hug | AxisSize::Fill => Dimension::auto(),
    }
}

/// Padding as `[top, right, bottom, left]`; variables that did not resolve count as 0.
fn padding_sides(padding: &Padding) -> [f32; 4] {
    let side = |v: &VarOr<f64>| v.value().copied().filter(|n| n.is_finite()).map_or(0.0, |n| n.max(0.0) as f32);
    match padding {
        Padding::Uniform(v) => [side(v); 4],
        Padding::Axes(axes) => {
            let (vertical, horizontal) = (side(&axes[0]), side(&axes[1]));
            [vertical, horizontal, vertical, horizontal]
        }
        Padding::Sides(sides) => [side(&sides[0]), side(&sides[1]), side(&sides[2]), side(&sides[3])],
    }
}
