//! The display list: a laid-out Scene resolved into what every output draws (as usvg resolves an
//! SVG before resvg paints it). Each visible node of the target becomes a [`DisplayNode`] with
//! its placement, opacity, effects, outline, paints, content (a fill, glyphs, an icon, a note)
//! and stroke, every property read and every image and glyph looked up once, here. The PNG
//! painter and the SVG writer (and through it the PDF) are each a walk over it with a `match`
//! per content; neither reads a property, a file or a font.
//!
//! What cannot be drawn as written (a missing image, an unknown icon, a colour keyword, a
//! shader) is found while building and said in [`DisplayList::warnings`], once per node.

mod backdrop;
pub mod effects;
pub mod geometry;
pub mod intent;
pub mod mesh;
pub mod paint;
pub mod pictures;
mod same;
pub mod slot;
pub mod stroke;
pub mod text;

pub use backdrop::backdrop;

use std::collections::HashMap;
use std::sync::Arc;

use tiny_skia::{Path, Pixmap, Rect, Transform};

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::doc::values::Fill;
use crate::doc::{Key, NodeType, Props, Value};
use crate::layout::{Layout, NodeBox};
use crate::resolve::{Scene, SceneKey};
use crate::text::{IconDrawing, ShapedText, TextEngine, TextStyle};
use effects::{Effects, effects_of};
use geometry::{Shape, shape_of};
use paint::{PaintIssue, PaintSpec, any_visible, paint_specs};
use pictures::{ImageError, Pictures};
use stroke::{StrokeSpec, stroke_spec};
use text::{GLYPHS_PER_PATH, Outlines, Paths, PlacedGlyph};

/// Colors of the canvas annotations: background and text.
const NOTE_COLORS: [(NodeType, [u8; 4]); 3] = [
    (NodeType::Note, [254, 243, 199, 255]),
    (NodeType::Prompt, [224, 231, 255, 255]),
    (NodeType::Context, [220, 252, 231, 255]),
];

/// Space between a canvas annotation's edge and its text.
pub(crate) const ANNOTATION_PADDING: f32 = 12.0;

/// Color of a canvas annotation's text.
pub const ANNOTATION_INK: [u8; 4] = [31, 41, 55, 255];

/// Color of the dashed outline drawn where an instance or icon could not be resolved.
pub const UNRESOLVED_INK: [u8; 4] = [220, 38, 38, 255];

/// Dashes of that outline: on, off (pixels).
pub const UNRESOLVED_DASH: [f32; 2] = [4.0, 3.0];

/// Longest side of a rendered image, in pixels.
pub const MAX_SIDE: u32 = 16_384;

/// Most pixels in a rendered image (a 256 MB pixmap).
pub const MAX_PIXELS: u64 = 64 * 1024 * 1024;

/// What to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderTarget {
    /// Every visible top-level node, in the bounding box of them all.
    Canvas,
    /// One node, in its own box.
    Node(SceneKey),
}

/// Why nothing can be drawn for a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// No visible node to render.
    #[error("there is nothing to render: the document has no visible top-level node")]
    Empty,
    /// The node is hidden.
    #[error("the node is hidden (it or an ancestor has enabled: false) and has no box to render")]
    Hidden,
}

/// A target resolved for drawing: its nodes, the images they show, and what could not be drawn
/// as written.
pub struct DisplayList {
    nodes: Vec<DisplayNode>,
    roots: Vec<usize>,
    /// The canvas rectangle the target covers, unscaled.
    pub bounds: Rect,
    pictures: HashMap<String, Result<Arc<Pixmap>, ImageError>>,
    /// The icon drawn on a placeholder where an image is missing.
    missing_image_icon: Option<Arc<IconDrawing>>,
    /// What could not be drawn as written, each naming its node, in the order of their text.
    pub warnings: Vec<Diagnostic>,
}

impl std::fmt::Debug for DisplayList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DisplayList").field("nodes", &self.nodes.len()).field("bounds", &self.bounds).finish()
    }
}

/// One visible node, resolved.
pub struct DisplayNode {
    /// The node's id or instance path.
    pub id: String,
    /// Its type (an expanded instance has its component's).
    pub node_type: NodeType,
    /// Its box size.
    pub width: f32,
    /// Its box size.
    pub height: f32,
    /// Where it goes.
    pub placement: Placement,
    /// 0–1; nodes at 0 are left out of the list.
    pub opacity: f32,
    /// Shadows and blurs.
    pub effects: Effects,
    /// Its outline, for the types that have one.
    pub shape: Option<Shape>,
    /// True when a fill would show (shadows need one).
    pub fills_visible: bool,
    /// Its fills, resolved, in paint order.
    pub fills: Vec<PaintSpec>,
    /// What it draws with its fills.
    pub content: Content,
    /// Its stroke and the stroke's paints.
    pub stroke: Option<DisplayStroke>,
    /// Its children are clipped to its outline.
    pub clip: bool,
    /// One paint and nothing else: its opacity can go into that paint (no layer).
    pub single_paint: bool,
    /// For a clipping node: everything below lies well inside its outline (away from rounded
    /// corners, not rotated, reaching out with no effect or stroke, no text larger than its
    /// box), so there is nothing to cut.
    pub children_inside: bool,
    /// Its visible children, in paint order (indices in the list).
    pub children: Vec<usize>,
}

/// Where a node's own coordinates go in its parent's: moved to its place, mirrored, then
/// turned counter-clockwise by its rotation, both about its anchor (its x/y: the box's top-left
/// corner, or a group's x/y inside the union of its children), as Pen does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Left edge in the parent.
    pub x: f32,
    /// Top edge in the parent.
    pub y: f32,
    /// Left edge on the canvas (where a drawn target starts).
    pub left: f32,
    /// Top edge on the canvas.
    pub top: f32,
    /// Degrees counter-clockwise.
    pub rotation: f32,
    /// Mirrored left to right.
    pub flip_x: bool,
    /// Mirrored top to bottom.
    pub flip_y: bool,
    /// The anchor relative to the box's corner (see [`NodeBox::pivot`]).
    pub pivot: (f32, f32),
}

/// A node's stroke, resolved.
pub struct DisplayStroke {
    /// Widths, alignment, ends and corners.
    pub spec: StrokeSpec,
    /// Its paints, in order.
    pub paints: Vec<PaintSpec>,
}

/// What a node draws with its fills.
pub enum Content {
    /// Nothing (groups, lines, nodes without an outline).
    Nothing,
    /// Its closed outline, filled.
    Fill,
    /// Glyphs.
    Text(TextRun),
    /// An icon: its drawing placed in the box.
    Icon {
        /// The icon's outlines in its view square.
        drawing: Arc<IconDrawing>,
        /// The view square → the box.
        placed: Transform,
    },
    /// An icon nib does not have: a dashed placeholder is drawn.
    MissingIcon,
    /// A canvas note, prompt or context: a card with its text.
    Annotation {
        /// The card's colour.
        color: [u8; 4],
        /// The text, laid out inside the padding.
        text: Option<TextRun>,
    },
    /// An instance whose component is missing: a dashed outline.
    Unresolved,
    /// An empty slot of a component's own frame: its outline filled as [`Content::Fill`], then
    /// Pen's placeholder over it (see [`slot`]).
    EmptySlot(slot::SlotPlaceholder),
}

/// Laid-out text: its glyph outlines placed in the box, and what live text needs.
pub struct TextRun {
    /// The outline of each glyph it draws (see [`TextRun::glyphs`]).
    outlines: Outlines,
    /// Underline and strike-through bars.
    pub bars: Vec<Rect>,
    /// The lines as shaped.
    pub shaped: Arc<ShapedText>,
    /// The style asked for.
    pub style: TextStyle,
    /// The text.
    pub content: String,
    /// Drawn underlined.
    pub underline: bool,
    /// Drawn struck through.
    pub strikethrough: bool,
    /// Where the box of these lines starts in the node (the padding of a note).
    pub at: (f32, f32),
    /// The box the lines are in.
    pub size: (f32, f32),
}

impl TextRun {
    /// The glyphs that draw something, placed in the box of the lines (which is at
    /// [`TextRun::at`] in the node), in line order.
    pub fn glyphs(&self) -> impl Iterator<Item = PlacedGlyph<'_>> {
        self.placed().map(|(_, glyph)| glyph)
    }

    fn placed(&self) -> impl Iterator<Item = (usize, PlacedGlyph<'_>)> {
        text::placed(&self.shaped, &self.outlines, &self.style, self.size.0, self.size.1)
    }

    /// The glyphs and bars as one outline in the node's box.
    pub fn path(&self) -> Option<Path> {
        Paths::new(self.placed(), &self.bars, self.at, usize::MAX).next()
    }

    /// The glyphs and bars as outlines in the node's box, a path for every
    /// [`GLYPHS_PER_PATH`] glyphs or so (one path for a text of ordinary length): what a
    /// painter fills one after the other.
    pub fn paths(&self) -> impl Iterator<Item = Path> {
        Paths::new(self.placed(), &self.bars, self.at, GLYPHS_PER_PATH)
    }

    /// The underline and strike-through bars alone, as one outline in the node's box (for a
    /// painter that draws the glyphs another way).
    pub fn bars_path(&self) -> Option<Path> {
        Paths::new(std::iter::empty(), &self.bars, self.at, usize::MAX).next()
    }
}

impl Placement {
    /// The transform of the node's own coordinates for a parent whose coordinates go through
    /// `parent`; `as_target` places it at its canvas position (a drawn target), otherwise at its
    /// place in the parent.
    pub fn transform(&self, parent: Transform, as_target: bool) -> Transform {
        let origin = if as_target { (self.left, self.top) } else { (self.x, self.y) };
        let mut transform = parent.pre_translate(origin.0, origin.1);
        if self.rotation == 0.0 && !self.flip_x && !self.flip_y {
            return transform;
        }
        let (px, py) = self.pivot;
        transform = transform.pre_translate(px, py);
        if self.rotation != 0.0 {
            // Counter-clockwise on a screen whose y axis points down.
            transform = transform.pre_rotate(-self.rotation);
        }
        let mirror = (if self.flip_x { -1.0 } else { 1.0 }, if self.flip_y { -1.0 } else { 1.0 });
        transform.pre_scale(mirror.0, mirror.1).pre_translate(-px, -py)
    }
}

impl DisplayList {
    /// The node at `index`.
    pub fn node(&self, index: usize) -> &DisplayNode {
        &self.nodes[index]
    }

    /// How many nodes the list has.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the list has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The nodes drawn at the top: the target node, or every top-level node of the canvas.
    pub fn roots(&self) -> &[usize] {
        &self.roots
    }

    /// The decoded image of an image fill (built only for the fills that are drawn).
    pub fn picture(&self, url: &str) -> Option<&Result<Arc<Pixmap>, ImageError>> {
        self.pictures.get(url)
    }

    /// The icon drawn on a placeholder where an image is missing.
    pub fn missing_image_icon(&self) -> Option<&Arc<IconDrawing>> {
        self.missing_image_icon.as_ref()
    }

    /// The transform of node `index` in its parent's coordinates (`parent`), as a drawn target
    /// when it is one of the roots.
    pub fn transform(&self, index: usize, parent: Transform, as_target: bool) -> Transform {
        let node = &self.nodes[index];
        node.placement.transform(parent, as_target)
    }

    /// The bounds under `transform` (the node's own coordinates → the target's) of everything
    /// node `index` paints, effects and strokes included; clipping nodes end the walk at their
    /// box.
    pub fn subtree_bounds(&self, index: usize, transform: Transform) -> Option<Rect> {
        let node = &self.nodes[index];
        let local = Rect::from_xywh(0.0, 0.0, node.width.max(1.0), node.height.max(1.0))?;
        let reach = node.effects.extent() + node.stroke.as_ref().map_or(0.0, |s| s.spec.outer_extent()) + 2.0;
        let mut bounds = local.outset(reach, reach)?.transform(transform)?;
        if node.clip {
            return Some(bounds);
        }
        for &child in &node.children {
            let child_transform = self.transform(child, transform, false);
            if let Some(child_bounds) = self.subtree_bounds(child, child_transform) {
                bounds = bounds.join(&child_bounds).unwrap_or(bounds);
            }
        }
        Some(bounds)
    }
}

/// The background colour of a canvas annotation (note, prompt, context).
pub(crate) fn annotation_color(node_type: NodeType) -> [u8; 4] {
    NOTE_COLORS.iter().find(|(t, _)| *t == node_type).map_or([254, 243, 199, 255], |(_, c)| *c)
}

/// A node's fills as the document writes them, in paint order.
pub fn fills(props: &Props) -> &[Fill] {
    match props.get(&Key::Fill) {
        Some(Value::Fills(fills)) => fills.as_slice(),
        _ => &[],
    }
}

/// Where a node's own coordinates go: its box's corner moved to `origin` in its parent, then
/// mirrored and turned about its anchor (see [`Placement`]).
pub fn node_transform(node_box: NodeBox, parent: Transform, origin: (f32, f32)) -> Transform {
    let mut placed = placement(node_box);
    (placed.x, placed.y) = origin;
    placed.transform(parent, false)
}

/// The placement of a node laid out in `node_box`: layout read its turn (so the two agree).
fn placement(node_box: NodeBox) -> Placement {
    Placement {
        x: node_box.x,
        y: node_box.y,
        left: node_box.left,
        top: node_box.top,
        rotation: node_box.turn.rotation,
        flip_x: node_box.turn.flip_x,
        flip_y: node_box.turn.flip_y,
        pivot: node_box.pivot,
    }
}

/// The canvas rectangle `target` covers, unscaled.
pub fn target_bounds(scene: &Scene, layout: &Layout, target: RenderTarget) -> Result<Rect, TargetError> {
    let bounds_of = |key: SceneKey| {
        let node_box = layout.node_box(key)?;
        let local = Rect::from_xywh(0.0, 0.0, node_box.width.max(1.0), node_box.height.max(1.0))?;
        let transform = placement(node_box).transform(Transform::identity(), true);
        local.transform(transform)
    };
    match target {
        RenderTarget::Node(key) => bounds_of(key).ok_or(TargetError::Hidden),
        RenderTarget::Canvas => scene
            .roots()
            .into_iter()
            .filter_map(bounds_of)
            .reduce(|a, b| a.join(&b).unwrap_or(a))
            .ok_or(TargetError::Empty),
    }
}

/// How far a picture exported of a node reaches past its box for a drop shadow, as Pen's
/// exports measure it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShadowReach {
    /// The shadow's blur (Pen exporting documents up to 2.16: 25 dialogs and menus of a 2.14
    /// and 2.15 dashboard reach exactly their blur, the last faint tail cut off).
    Blur,
    /// The whole blur, three standard deviations (half the blur each), and a device pixel
    /// (Pen exporting 2.17 documents: a dialog with blur 24 reaches 73 px at 2×, its tail whole).
    WholeBlur,
}

/// The canvas rectangle a picture exported of the node `key` at `scale` covers: its box and
/// the reach of its own drop shadows — each shadow is the box moved by its offset and grown by
/// `reach` of its blur on every side; its spread is not counted (Pen draws none). Whole device
/// pixels, outward. Sources in DECISIONS.md ("Exports hold their node's shadow").
pub fn export_bounds(
    scene: &Scene,
    layout: &Layout,
    key: SceneKey,
    scale: f32,
    reach: ShadowReach,
) -> Result<Rect, TargetError> {
    let node_box = layout.node_box(key).ok_or(TargetError::Hidden)?;
    let (width, height) = (node_box.width.max(1.0), node_box.height.max(1.0));
    let mut local = Rect::from_xywh(0.0, 0.0, width, height).ok_or(TargetError::Hidden)?;
    let scale = if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
    for shadow in effects_of(&scene.node(key).props).shadows.iter().filter(|s| !s.inner && s.color[3] > 0) {
        if shadow.blur <= 0.0 && shadow.dx == 0.0 && shadow.dy == 0.0 {
            continue;
        }
        let grown = match reach {
            ShadowReach::Blur => (shadow.blur * scale).ceil(),
            ShadowReach::WholeBlur if shadow.blur > 0.0 => (shadow.blur * 1.5 * scale).ceil() + 1.0,
            ShadowReach::WholeBlur => 0.0,
        } / scale;
        let (dx, dy) = (shadow.dx, shadow.dy);
        if let Some(reach) = Rect::from_ltrb(dx - grown, dy - grown, width + dx + grown, height + dy + grown) {
            local = local.join(&reach).unwrap_or(local);
        }
    }
    let outward = |v: f32, up: bool| if up { (v * scale).ceil() / scale } else { (v * scale).floor() / scale };
    let whole = Rect::from_ltrb(
        outward(local.left(), false),
        outward(local.top(), false),
        outward(local.right(), true),
        outward(local.bottom(), true),
    )
    .unwrap_or(local);
    whole.transform(placement(node_box).transform(Transform::identity(), true)).ok_or(TargetError::Hidden)
}

/// `warnings` without those that follow from an import that is not loaded (an instance of one
/// of its components drawn as a dashed outline, one of its variables painting nothing): the
/// warning about the import says them once, with their count (`compile`).
fn without_import_uses(warnings: Vec<Diagnostic>, scene: &Scene) -> Vec<Diagnostic> {
    let uses: Vec<&Diagnostic> = scene.problems.iter().filter(|p| p.code == "import" && p.node.is_some()).collect();
    if uses.is_empty() {
        return warnings;
    }
    let nodes: std::collections::HashSet<&str> = uses.iter().filter_map(|p| p.node.as_deref()).collect();
    let aliases: Vec<String> = uses
        .iter()
        .filter_map(|p| p.span.as_ref()?.pointer.strip_prefix("/imports/"))
        .map(|alias| format!("'{}:", alias.replace("~1", "/").replace("~0", "~")))
        .collect();
    warnings
        .into_iter()
        .filter(|w| {
            w.code != "unresolved"
                || !(w.node.as_deref().is_some_and(|n| nodes.contains(n))
                    || aliases.iter().any(|alias| w.message.contains(alias.as_str())))
        })
        .collect()
}

/// Builds the display list of `target`: `text` must be the engine the layout was made with
/// (glyphs are named by its fonts); `pictures` gives the images of image fills.
pub fn build(
    scene: &Scene,
    layout: &Layout,
    text: &mut TextEngine,
    pictures: &mut dyn Pictures,
    target: RenderTarget,
) -> Result<DisplayList, TargetError> {
    let bounds = target_bounds(scene, layout, target)?;
    let mut builder = Builder {
        scene,
        layout,
        text,
        pictures,
        nodes: Vec::new(),
        map: HashMap::new(),
        warnings: Diagnostics::new(),
        missing_image: false,
    };
    let keys: Vec<SceneKey> = match target {
        RenderTarget::Node(key) => vec![key],
        RenderTarget::Canvas => scene.roots(),
    };
    let roots = keys.into_iter().filter_map(|key| builder.node(key, true)).collect();
    let missing_image_icon = if builder.missing_image { builder.text.icon("lucide", "image-off", None) } else { None };
    let pictures = builder.map;
    Ok(DisplayList {
        nodes: builder.nodes,
        roots,
        bounds,
        pictures,
        missing_image_icon,
        warnings: without_import_uses(builder.warnings.into_vec(), scene),
    })
}

/// How far past its box a node paints, for deciding that a clip cuts nothing: its shadows'
/// reach (`effect_extent`) or its stroke's past the outline, whichever is larger, and a pixel
/// more for the anti-aliased edge. A miter join reaches out up to the miter limit times half
/// the stroke, so the stroke counts that much. Nothing at all: 0, as the box itself.
fn paint_reach(effect_extent: f32, stroke: Option<&StrokeSpec>) -> f32 {
    let stroke = stroke
        .filter(|spec| spec.outer_extent() != 0.0)
        .map_or(0.0, |spec| spec.max_width().max(spec.outer_extent()) * spec.miter_limit.max(1.0));
    let reach = effect_extent.max(stroke);
    // NaN from a hostile value stays NaN (`max` would drop it): nothing is inside then.
    if effect_extent.is_nan() || stroke.is_nan() {
        return f32::NAN;
    }
    if reach == 0.0 { 0.0 } else { reach + 1.0 }
}

/// Where on the canvas a node of `kind` with box `b` and `props` paints: the rectangle of
/// [`painted_bounds`], or, for a square-cornered frame or rectangle that paints only a stroke
/// on some of its sides (a header's bottom rule, a footer's top rule) and `clips` nothing, a
/// strip along each of those sides, so a rule across a rounded card away from its corners is
/// not taken for something reaching into them. (One that clips holds its descendants anywhere
/// in its box; text, icons and notes paint more than their fills.) `None` for bounds that are
/// not finite.
fn painted_regions(
    kind: NodeType,
    b: NodeBox,
    props: &Props,
    effects: &Effects,
    stroke: Option<&StrokeSpec>,
    clips: bool,
) -> Option<Vec<Rect>> {
    let reach = paint_reach(effects.extent(), stroke);
    let rules_only = stroke.filter(|spec| {
        matches!(kind, NodeType::Frame | NodeType::Rectangle)
            && !clips
            && b.turn.is_identity()
            && spec.widths.contains(&0.0)
            && effects.shadows.is_empty()
            && effects.background_blur <= 0.0
            && !any_visible(fills(props))
            && geometry::corner_radii(props) == [0.0; 4]
    });
    let Some(spec) = rules_only else { return Some(vec![painted_bounds(b, reach)?]) };
    let [top, right, bottom, left] = spec.widths;
    let (l, t, r, btm) = (b.left - reach, b.top - reach, b.right() + reach, b.bottom() + reach);
    let sides = [
        (top, (l, t, r, b.top + top + reach)),
        (right, (b.right() - right - reach, t, r, btm)),
        (bottom, (l, b.bottom() - bottom - reach, r, btm)),
        (left, (l, t, b.left + left + reach, btm)),
    ];
    sides.into_iter().filter(|(width, _)| *width != 0.0).map(|(_, (l, t, r, b))| Rect::from_ltrb(l, t, r, b)).collect()
}

/// The canvas rectangle a node with box `b` paints within, `reach` past its box (see
/// [`paint_reach`]): the box itself grown by it, or for a turned node the bounds of that
/// grown box as it is turned (a pixel more for its slanted, anti-aliased edges). `None` for
/// bounds that are not finite.
fn painted_bounds(b: NodeBox, reach: f32) -> Option<Rect> {
    if b.turn.is_identity() {
        return Rect::from_ltrb(b.left - reach, b.top - reach, b.right() + reach, b.bottom() + reach);
    }
    let grown = Rect::from_ltrb(-reach, -reach, b.width + reach, b.height + reach)?;
    let bounds = grown.transform(placement(b).transform(Transform::identity(), true))?;
    Rect::from_ltrb(bounds.left() - 1.0, bounds.top() - 1.0, bounds.right() + 1.0, bounds.bottom() + 1.0)
}

/// Walks the scene as the painter walks it and resolves each node once.
struct Builder<'a> {
    scene: &'a Scene,
    layout: &'a Layout,
    text: &'a mut TextEngine,
    pictures: &'a mut dyn Pictures,
    nodes: Vec<DisplayNode>,
    map: HashMap<String, Result<Arc<Pixmap>, ImageError>>,
    warnings: Diagnostics,
    /// An image fill that is drawn has no image.
    missing_image: bool,
}

impl Builder<'_> {
    /// The node `key` and its subtree of nodes with a box; `None` when it has none. A node the
    /// painter will not paint (fully transparent, or under such a node) is kept for the bounds
    /// of its ancestors' layers, with nothing resolved for drawing.
    fn node(&mut self, key: SceneKey, drawn: bool) -> Option<usize> {
        let node_box = self.layout.node_box(key)?;
        let scene_node = self.scene.node(key);
        let props = &scene_node.props;
        let opacity =
            props.literal::<f64>(&Key::Opacity).filter(|o| o.is_finite()).map_or(1.0, |o| o.clamp(0.0, 1.0) as f32);
        let drawn = drawn && opacity > 0.0;
        let node_type = scene_node.node_type();
        let (width, height) = (node_box.width, node_box.height);
        let effects = effects_of(props);
        let raw_fills = fills(props);
        let id = scene_node.id.clone();
        let clip = props.literal::<bool>(&Key::Clip) == Some(true);
        let stroke_spec = stroke_spec(props);
        let index = self.nodes.len();
        self.nodes.push(DisplayNode {
            id,
            node_type,
            width,
            height,
            placement: placement(node_box),
            opacity: if drawn { opacity } else { 0.0 },
            fills_visible: any_visible(raw_fills),
            effects,
            shape: None,
            fills: Vec::new(),
            content: Content::Nothing,
            stroke: stroke_spec.clone().map(|spec| DisplayStroke { spec, paints: Vec::new() }),
            clip,
            single_paint: false,
            children_inside: false,
            children: Vec::new(),
        });
        if drawn {
            self.resolve(index, key, node_box, stroke_spec);
        }
        let children: Vec<usize> = self
            .scene
            .children(key)
            .collect::<Vec<_>>()
            .into_iter()
            .filter_map(|child| self.node(child, drawn))
            .collect();
        self.nodes[index].children = children;
        Some(index)
    }

    /// Resolves what node `index` (scene node `key`) draws.
    fn resolve(&mut self, index: usize, key: SceneKey, node_box: NodeBox, stroke_spec: Option<StrokeSpec>) {
        let props = &self.scene.node(key).props;
        let (width, height) = (node_box.width, node_box.height);
        let node_type = self.nodes[index].node_type;
        let id = self.nodes[index].id.clone();
        let shape = shape_of(node_type, props, width, height);
        let raw_fills = fills(props);
        let mut issues = Vec::new();
        let fill_specs = paint_specs(raw_fills, width, height, &mut issues);
        let content = match node_type {
            NodeType::Text => match self.layout.shaped_text(key).cloned() {
                Some(shaped) => Content::Text(self.text_run(shaped, props, (0.0, 0.0), (width, height))),
                None => Content::Nothing,
            },
            NodeType::IconFont | NodeType::Icon => match text::icon(self.text, props, width, height) {
                Some((drawing, placed)) => Content::Icon { drawing, placed },
                None => {
                    let name = props
                        .literal::<String>(&Key::IconFontName)
                        .or_else(|| props.literal::<String>(&Key::Icon))
                        .unwrap_or_default();
                    self.warnings.insert(
                        Diagnostic::note(
                            "icon-missing",
                            format!("icon '{name}' is not in the bundled icon sets; a placeholder is drawn"),
                        )
                        .at_node(id.to_string()),
                    );
                    Content::MissingIcon
                }
            },
            NodeType::Note | NodeType::Prompt | NodeType::Context => {
                let text = self.annotation_text(props, width, height);
                Content::Annotation { color: annotation_color(node_type), text }
            }
            NodeType::Ref => {
                self.warnings.insert(
                    Diagnostic::warning("unresolved", "its component could not be resolved; a dashed outline is drawn")
                        .at_node(id.to_string()),
                );
                Content::Unresolved
            }
            NodeType::Frame if self.is_empty_slot_of_component(key) => {
                match shape.as_ref().and_then(|s| slot::placeholder(width, height, s.radii.unwrap_or_default())) {
                    Some(placeholder) => Content::EmptySlot(placeholder),
                    None => Content::Fill,
                }
            }
            _ if shape.as_ref().is_some_and(|s| s.closed) => Content::Fill,
            _ => Content::Nothing,
        };
        // The images of the fills that are drawn: on the outline, the glyphs, the icon.
        let fills_drawn = match &content {
            Content::Fill | Content::EmptySlot(_) => true,
            Content::Text(run) => run.glyphs().next().is_some() || !run.bars.is_empty(),
            Content::Icon { drawing, .. } => drawing.fill.is_some() || drawing.stroke.is_some(),
            _ => false,
        };
        if fills_drawn {
            self.load_pictures(&id, &fill_specs);
        }
        self.report(&id, &issues);
        let stroke = match (&shape, stroke_spec.clone()) {
            (Some(shape), Some(spec)) => {
                let mut issues = Vec::new();
                let paints = paint_specs(&spec.fills, width, height, &mut issues);
                self.report(&id, &issues);
                if stroke::stroke_outline(shape, &spec, width, height).is_some() {
                    self.load_pictures(&id, &paints);
                }
                Some(DisplayStroke { spec, paints })
            }
            (None, Some(spec)) => Some(DisplayStroke { spec, paints: Vec::new() }),
            _ => None,
        };
        let visible_children = self.scene.children(key).any(|c| self.layout.node_box(c).is_some());
        let drawn_in_parts = matches!(
            node_type,
            NodeType::Icon | NodeType::IconFont | NodeType::Note | NodeType::Prompt | NodeType::Context
        );
        let effects = &self.nodes[index].effects;
        let single_paint = !visible_children
            && !drawn_in_parts
            && !matches!(content, Content::EmptySlot(_))
            && effects.shadows.is_empty()
            && effects.background_blur <= 0.0
            && stroke_spec.is_none()
            && raw_fills.len() <= 1;
        let children_inside =
            self.nodes[index].clip && shape.as_ref().is_some_and(|shape| self.children_inside(key, shape, node_box));
        let node = &mut self.nodes[index];
        node.shape = shape;
        node.fills = fill_specs;
        node.content = content;
        node.stroke = stroke;
        node.single_paint = single_paint;
        node.children_inside = children_inside;
    }

    /// True for a frame marked as a slot, with no child shown, in a component's own tree (not
    /// in an instance of it): where Pen draws its empty-slot placeholder.
    fn is_empty_slot_of_component(&self, key: SceneKey) -> bool {
        let node = self.scene.node(key);
        let marked = matches!(
            node.props.get(&Key::Slot),
            Some(Value::Slot(crate::doc::Slot::Components(_) | crate::doc::Slot::Flag(true)))
        );
        if !marked || self.scene.children(key).any(|child| self.layout.node_box(child).is_some()) {
            return false;
        }
        let mut at = Some(key);
        while let Some(current) = at {
            let node = self.scene.node(current);
            if node.source.is_none() {
                return false;
            }
            if node.props.literal::<bool>(&Key::Reusable) == Some(true) {
                return true;
            }
            at = self.scene.parent(current);
        }
        false
    }

    /// True when everything the descendants paint lies inside the shape's box, away from
    /// rounded corners, so the clip cuts nothing: what each descendant paints (its box turned
    /// as it is drawn, grown by how far its shadows and stroke reach) is inside, and none is
    /// blurred as a layer or text whose lines are larger than its box (they are drawn where
    /// they fall, outside it). Two kinds of descendant leave the walk early. One that clips to
    /// its own box holds its descendants within it, so they are not looked at (a shadowed card
    /// deep inside a clipped canvas does not make every clipping frame around it paint its
    /// children on a layer of its own). A container that paints nothing itself (no fill,
    /// stroke or effect) is not looked at, only what it holds (a row spanning a rounded card
    /// whose contents keep clear of the corners).
    fn children_inside(&self, key: SceneKey, shape: &Shape, node_box: NodeBox) -> bool {
        let Some(radii) = shape.radii else { return false };
        let radius = radii.iter().copied().fold(0.0, f32::max);
        let (left, top, right, bottom) = (node_box.left, node_box.top, node_box.right(), node_box.bottom());
        let mut todo: Vec<SceneKey> = self.scene.children(key).collect();
        while let Some(descendant) = todo.pop() {
            let Some(b) = self.layout.node_box(descendant) else { continue };
            let node = self.scene.node(descendant);
            let props = &node.props;
            let text_fits = self
                .layout
                .shaped_text(descendant)
                .is_none_or(|text| text.width <= b.width + 0.5 && text.height() <= b.height + 0.5);
            let effects = effects_of(props);
            if effects.layer_blur > 0.0 || !text_fits {
                return false;
            }
            let holds_any = self.scene.children(descendant).any(|child| self.layout.node_box(child).is_some());
            let clips = props.literal::<bool>(&Key::Clip) == Some(true)
                && shape_of(node.node_type(), props, b.width, b.height).is_some_and(|shape| shape.radii.is_some());
            let turned = !b.turn.is_identity();
            let stroke = stroke_spec(props);
            let paints_nothing = holds_any
                && !turned
                && !clips
                && matches!(node.node_type(), NodeType::Frame | NodeType::Group)
                && !any_visible(fills(props))
                && stroke.is_none()
                && effects.shadows.is_empty()
                && effects.background_blur <= 0.0;
            if !paints_nothing {
                // What a turned container holds turns with it, past its box.
                if turned && holds_any && !clips {
                    return false;
                }
                let Some(regions) = painted_regions(node.node_type(), b, props, &effects, stroke.as_ref(), clips)
                else {
                    return false;
                };
                let clear = |painted: &Rect| {
                    let inside = painted.left() >= left
                        && painted.top() >= top
                        && painted.right() <= right
                        && painted.bottom() <= bottom;
                    let clear_of_corners = radius <= 0.0
                        || (painted.left() >= left + radius && painted.right() <= right - radius)
                        || (painted.top() >= top + radius && painted.bottom() <= bottom - radius);
                    inside && clear_of_corners
                };
                if !regions.iter().all(clear) {
                    return false;
                }
            }
            // A descendant clipping to its box holds its own descendants within it.
            if !clips {
                todo.extend(self.scene.children(descendant));
            }
        }
        true
    }

    /// The glyphs of `shaped` for a node with `props`, in a box of `size` at `at`.
    fn text_run(&mut self, shaped: Arc<ShapedText>, props: &Props, at: (f32, f32), size: (f32, f32)) -> TextRun {
        let (outlines, bars) = text::outlines_and_bars(self.text, &shaped, props, size.0, size.1);
        TextRun {
            outlines,
            bars,
            shaped,
            style: TextStyle::of(props),
            content: crate::text::text_content(props).into_owned(),
            underline: props.literal::<bool>(&Key::Underline) == Some(true),
            strikethrough: props.literal::<bool>(&Key::Strikethrough) == Some(true),
            at,
            size,
        }
    }

    /// The text of a canvas annotation, wrapped inside its padding.
    fn annotation_text(&mut self, props: &Props, width: f32, height: f32) -> Option<TextRun> {
        let content = crate::text::text_content(props);
        if content.is_empty() {
            return None;
        }
        let style = TextStyle::of(props);
        let inner = ((width - 2.0 * ANNOTATION_PADDING).max(1.0), (height - 2.0 * ANNOTATION_PADDING).max(1.0));
        let shaped = self.text.shape(&content, &style, Some(inner.0));
        Some(self.text_run(shaped, props, (ANNOTATION_PADDING, ANNOTATION_PADDING), inner))
    }

    /// Reads the images of the image fills among `specs`, saying once per node what is missing
    /// or drawn from a reduced copy.
    fn load_pictures(&mut self, node: &str, specs: &[PaintSpec]) {
        for spec in specs {
            let PaintSpec::Image { url, .. } = spec else { continue };
            let picture = match self.map.get(url) {
                Some(found) => found.clone(),
                None => {
                    let picture = self.pictures.picture(url);
                    self.map.insert(url.clone(), picture.clone());
                    picture
                }
            };
            match picture {
                Ok(_) => {
                    if let Some(note) = self.pictures.note(url) {
                        self.warnings.insert(Diagnostic::note("image", note).at_node(node));
                    }
                }
                Err(error) => {
                    self.missing_image = true;
                    self.warnings.insert(Diagnostic::warning("image", error.to_string()).at_node(node));
                }
            }
        }
    }

    fn report(&mut self, node: &str, issues: &[PaintIssue]) {
        self.warnings.extend(issues.iter().map(|issue| issue.warning(node)));
    }
}
