//! Layout: the box of every visible node of a [`Scene`], computed with taffy's flexbox over the
//! format's sizing rules ([`rules`]), with text measured by cosmic-text.
//!
//! Each top-level node is laid out on its own ([`PartLayout`]) and placed at its x/y on the
//! canvas. [`Layout::update`] reuses the part layouts whose resolved part did not change, so a
//! relayout after an edit costs the top-level frames the edit touched, not the whole canvas.

pub mod fonts;
mod overlaps;
mod problems;
mod reuse;
pub mod rules;
pub mod snapshot;
pub mod space;
mod tree;
mod turn;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use crate::resolve::{Scene, SceneKey, ScenePart};
use crate::text::{ShapedText, TextEngine};
pub use problems::{
    LayoutProblem, MAX_COMPARED_PROBLEMS, MAX_PROBLEMS, MoreProblems, ProblemKind, Problems, UnreadableImage,
    every_problem, find_problems,
};
pub use rules::Axis;
pub(crate) use rules::SizingNote;
use rules::{AxisSize, Kind, Plan, plan_part, taffy_style};
use tree::{PartTree, TreeNode};
pub(crate) use turn::{Bounds, Turn};

/// The box of a node, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NodeBox {
    /// Left edge relative to the parent's left edge (the canvas for top-level nodes).
    pub x: f32,
    /// Top edge relative to the parent's top edge.
    pub y: f32,
    /// Left edge on the canvas.
    pub left: f32,
    /// Top edge on the canvas.
    pub top: f32,
    /// Width, ≥ 0.
    pub width: f32,
    /// Height, ≥ 0.
    pub height: f32,
    /// Its rotation and flips, about its anchor.
    pub turn: Turn,
    /// Its anchor (its x/y, what it turns about) relative to the box's corner: 0, 0 but for a
    /// group, whose box is the union of its children around its x/y.
    pub pivot: (f32, f32),
}

impl NodeBox {
    /// An unturned box at `x`, `y` in its parent and `left`, `top` on the canvas.
    pub fn plain(x: f32, y: f32, left: f32, top: f32, width: f32, height: f32) -> NodeBox {
        NodeBox { x, y, left, top, width, height, turn: Turn::default(), pivot: (0.0, 0.0) }
    }

    /// The bounds of the turned box relative to the box's corner: what the parent lays out
    /// and Pen reports (the box itself when the node is not turned).
    pub fn turned_offset(&self) -> Bounds {
        let (px, py) = self.pivot;
        let own = Bounds { x: -px, y: -py, width: self.width, height: self.height };
        let turned = self.turn.bounds(own);
        Bounds { x: turned.x + px, y: turned.y + py, ..turned }
    }

    /// The turned bounds as a box of their own, unturned.
    pub fn as_bounds(&self) -> NodeBox {
        if self.turn.is_identity() {
            return *self;
        }
        let offset = self.turned_offset();
        let (x, y) = (self.x + offset.x, self.y + offset.y);
        NodeBox::plain(x, y, self.left + offset.x, self.top + offset.y, offset.width, offset.height)
    }

    /// Right edge on the canvas.
    pub fn right(&self) -> f32 {
        self.left + self.width
    }

    /// Bottom edge on the canvas.
    pub fn bottom(&self) -> f32 {
        self.top + self.height
    }
}

/// The layout of one top-level node and everything in it.
#[derive(Debug)]
pub struct PartLayout {
    part: Arc<ScenePart>,
    arranged: Arc<Arranged>,
}

/// What laying out a part found, by node index: shared by the layouts of every resolution of
/// the part that lays out the same ([`reuse`]).
#[derive(Debug, PartialEq)]
struct Arranged {
    boxes: Vec<Option<NodeBox>>,
    texts: Vec<Option<Arc<ShapedText>>>,
    kinds: Vec<Option<Kind>>,
    notes: Vec<(usize, SizingNote)>,
}

impl PartLayout {
    /// Lays out `part`.
    pub fn compute(part: &Arc<ScenePart>, text: &mut TextEngine) -> PartLayout {
        let (plans, notes) = plan_part(part, text);
        let first_in_flow = first_in_flow(part, &plans);
        let kinds: Vec<Option<Kind>> = plans.iter().map(|p| p.as_ref().map(|p| p.kind)).collect();
        let mut nodes = NODE_BUFFER.with(|buffer| std::mem::take(&mut *buffer.borrow_mut()));
        nodes.clear();
        nodes.reserve(plans.len());
        let mut child_list: Vec<u32> = Vec::with_capacity(plans.len());
        let mut turned_fills: Vec<usize> = Vec::new();
        for (index, plan) in plans.iter().enumerate() {
            let node = part.node(index);
            let Some(plan) = plan else {
                nodes.push(TreeNode::new(taffy::Style::default(), 0..0, false));
                continue;
            };
            let parent = node.parent_local().and_then(|p| plans[p].as_ref());
            let style = taffy_style(plan, parent, first_in_flow[index]);
            let start = child_list.len() as u32;
            if matches!(plan.kind, Kind::Flex(_) | Kind::Free { .. }) {
                child_list.extend(node.children_local().filter(|c| plans[*c].is_some()).map(|c| c as u32));
            }
            let turned = !plan.turn.is_identity();
            let in_flow = matches!(parent.map(|p| p.kind), Some(Kind::Flex(_))) && !plan.absolute;
            let fills = plan.width == AxisSize::Fill || plan.height == AxisSize::Fill;
            let mut tree_node = TreeNode::new(style, start..child_list.len() as u32, plan.kind != Kind::Leaf);
            tree_node.places_absolute_children = matches!(plan.kind, Kind::Flex(_))
                && node.children_local().any(|c| plans[c].as_ref().is_some_and(|p| p.absolute));
            tree_node.turn = plan.turn;
            if turned && in_flow && fills {
                turned_fills.push(index);
            } else if turned {
                tree_node.lay_out_turned();
            }
            nodes.push(tree_node);
        }
        let mut tree = PartTree { nodes, child_list: &child_list, plans: &plans, text };
        tree.compute();
        // A turned fill takes its share unturned, then its parent lays out its turned bounds:
        // a second pass with the sizes the first gave (DECISIONS.md, Layout).
        if !turned_fills.is_empty() {
            for &index in &turned_fills {
                settle_turned_fill(part, &mut tree, index, &turned_fills);
            }
            tree.clear_caches();
            tree.compute();
        }
        let mut boxes: Vec<Option<NodeBox>> = Vec::with_capacity(tree.nodes.len());
        for (index, node) in tree.nodes.iter().enumerate() {
            if plans[index].is_none() {
                boxes.push(None);
                continue;
            }
            // The box's corner: where its parent placed its turned bounds, less their offset; an
            // absolute child of a flex frame has its anchor at its x/y, as in a layout-none one.
            let (x, y) = match &plans[index] {
                Some(plan) if plan.absolute => (plan.x + node.union_origin.0, plan.y + node.union_origin.1),
                _ => (node.location.x - node.bounds_offset.0, node.location.y - node.bounds_offset.1),
            };
            let (left, top) = match part.node(index).parent_local().and_then(|p| boxes[p]) {
                Some(parent) => (parent.left + x, parent.top + y),
                None => (x, y),
            };
            let (width, height) = (node.size.width.max(0.0), node.size.height.max(0.0));
            let pivot = (-node.union_origin.0, -node.union_origin.1);
            boxes.push(Some(NodeBox { x, y, left, top, width, height, turn: node.turn, pivot }));
        }
        let texts = tree.nodes.iter_mut().map(|n| n.shaped.take()).collect();
        let mut nodes = tree.nodes;
        nodes.clear();
        if nodes.capacity() <= KEPT_TREE_NODES {
            NODE_BUFFER.with(|buffer| *buffer.borrow_mut() = nodes);
        }
        PartLayout { part: Arc::clone(part), arranged: Arc::new(Arranged { boxes, texts, kinds, notes }) }
    }

    /// This layout for `part`, a resolution of the same node that lays out the same
    /// ([`reuse::same_inputs`]).
    fn for_part(&self, part: &Arc<ScenePart>) -> PartLayout {
        PartLayout { part: Arc::clone(part), arranged: Arc::clone(&self.arranged) }
    }

    /// The resolved part this lays out.
    pub fn part(&self) -> &Arc<ScenePart> {
        &self.part
    }

    /// The box of the node at `index` in the part; `None` when it is hidden.
    pub fn node_box(&self, index: usize) -> Option<NodeBox> {
        self.arranged.boxes.get(index).copied().flatten()
    }

    /// The laid-out text of a text node.
    pub fn shaped_text(&self, index: usize) -> Option<&Arc<ShapedText>> {
        self.arranged.texts.get(index).and_then(Option::as_ref)
    }

    /// The turned bounds of the node at `index` as an unturned box (the box itself for a node
    /// that is not turned): what overlaps, room on the canvas and problems measure.
    pub fn bounds(&self, index: usize) -> Option<NodeBox> {
        self.node_box(index).map(|b| b.as_bounds())
    }

    /// The box Pen reports for the node at `index` (snapshot_layout, `nib layout`, a
    /// visitor's bounds): its turned bounds ([`PartLayout::bounds`]) with `x`, `y` relative to
    /// its parent's x/y rather than its parent's box corner, so a group's children keep the
    /// coordinates they were given whatever the group's union.
    pub fn reported(&self, index: usize) -> Option<NodeBox> {
        let mut bounds = self.bounds(index)?;
        let parent = self.part.node(index).parent_local().and_then(|p| self.node_box(p));
        let (px, py) = parent.map_or((0.0, 0.0), |p| p.pivot);
        (bounds.x, bounds.y) = (bounds.x - px, bounds.y - py);
        Some(bounds)
    }

    /// How the node at `index` lays out its children; `None` when it is hidden.
    pub(crate) fn kind(&self, index: usize) -> Option<Kind> {
        self.arranged.kinds.get(index).copied().flatten()
    }

    /// What the sizing rules noticed, by node index.
    pub fn notes(&self) -> &[(usize, SizingNote)] {
        &self.arranged.notes
    }
}

/// Fixes what the first pass gave a turned fill at `index` for the second: its own size; the
/// shares of the fills beside it, which Pen does not share again (woodcase's `tf04`: the other
/// fill keeps its 85 px and the row overflows); and the size of a parent hugging an axis the
/// turned child fills, which Pen sizes without it (`tf12`: the row stays 60 px tall).
fn settle_turned_fill(part: &ScenePart, tree: &mut PartTree<'_, '_>, index: usize, turned_fills: &[usize]) {
    let size = tree.nodes[index].size;
    tree.fix_turned(index, size);
    let Some(parent) = part.node(index).parent_local() else { return };
    let Some(parent_plan) = tree.plans[parent].as_ref() else { return };
    let Kind::Flex(main) = parent_plan.kind else { return };
    for sibling in part.node(parent).children_local() {
        let fills_main = tree.plans[sibling].as_ref().is_some_and(|p| !p.absolute && p.size(main) == AxisSize::Fill);
        if fills_main && !turned_fills.contains(&sibling) {
            let share = tree.nodes[sibling].size;
            tree.fix_share(sibling, main, share);
        }
    }
    let Some(plan) = tree.plans[index].as_ref() else { return };
    for axis in [Axis::Horizontal, Axis::Vertical] {
        if plan.size(axis) == AxisSize::Fill && parent_plan.size(axis) == AxisSize::Hug {
            let own = tree.nodes[parent].size;
            tree.fix_axis(parent, axis, own);
        }
    }
}

/// Most tree nodes [`NODE_BUFFER`] keeps between layouts (about 5 MB): enough for any real part
/// (the largest has 1,800 nodes), while a part of a million nodes does not hold its memory for
/// the rest of the process.
const KEPT_TREE_NODES: usize = 16_384;

thread_local! {
    /// The tree nodes of the last layout on this thread, kept for their memory: a part's nodes
    /// take close to a kilobyte each, and fresh pages for every layout cost more than the work.
    static NODE_BUFFER: std::cell::RefCell<Vec<TreeNode>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// For each node: true when it is the first visible child of a flex parent that takes part in
/// the flow.
fn first_in_flow(part: &ScenePart, plans: &[Option<Plan<'_>>]) -> Vec<bool> {
    let mut first = vec![false; plans.len()];
    for (index, plan) in plans.iter().enumerate() {
        if let Some(Plan { kind: Kind::Flex(_), .. }) = plan
            && let Some(child) =
                part.node(index).children_local().find(|c| plans[*c].as_ref().is_some_and(|p| !p.absolute))
        {
            first[child] = true;
        }
    }
    first
}

/// The layout of a whole scene.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    parts: Vec<Arc<PartLayout>>,
}

impl Layout {
    /// Lays out every top-level node of `scene`.
    pub fn compute(scene: &Scene, text: &mut TextEngine) -> Layout {
        Layout::update(None, scene, text)
    }

    /// Lays out `scene`, reusing the part layouts of `previous` whose resolved part is the very
    /// same (unchanged since), or was resolved again with nothing the layout reads changed (an
    /// edit of a fill, say: see [`reuse`]). `previous` must have been made with the same fonts.
    pub fn update(previous: Option<&Layout>, scene: &Scene, text: &mut TextEngine) -> Layout {
        // By the resolved part's address: a search per part would be quadratic in the number of
        // top-level nodes, and a document can have hundreds of thousands.
        let old_parts = previous.map_or(&[][..], |p| &p.parts[..]);
        let reusable: HashMap<*const ScenePart, &Arc<PartLayout>> =
            old_parts.iter().map(|old| (Arc::as_ptr(&old.part), old)).collect();
        // The previous layout of the top-level node with the same id, looked up only when a
        // part was resolved again (an edit touches one or a few). By id, not by document key:
        // the layout of equal inputs is equal whichever document they come from.
        let mut by_root: Option<HashMap<&str, &Arc<PartLayout>>> = None;
        let parts = scene
            .parts()
            .iter()
            .map(|part| {
                if let Some(old) = reusable.get(&Arc::as_ptr(part)) {
                    return Arc::clone(old);
                }
                let by_root = by_root.get_or_insert_with(|| {
                    old_parts.iter().filter_map(|old| Some((old.part.root_id()?, old))).collect()
                });
                match part.root_id().and_then(|id| by_root.get(id)) {
                    Some(old) if reuse::same_inputs(&old.part, part) => Arc::new(old.for_part(part)),
                    _ => Arc::new(PartLayout::compute(part, text)),
                }
            })
            .collect();
        Layout { parts }
    }

    /// One part layout per top-level node, in document order.
    pub fn parts(&self) -> &[Arc<PartLayout>] {
        &self.parts
    }

    /// The box of a node; `None` when it is hidden.
    pub fn node_box(&self, key: SceneKey) -> Option<NodeBox> {
        self.parts.get(key.part())?.node_box(key.local())
    }

    /// The laid-out text of a text node.
    pub fn shaped_text(&self, key: SceneKey) -> Option<&Arc<ShapedText>> {
        self.parts.get(key.part())?.shaped_text(key.local())
    }

    /// The turned bounds of a node as an unturned box (see [`PartLayout::bounds`]).
    pub fn bounds(&self, key: SceneKey) -> Option<NodeBox> {
        self.parts.get(key.part())?.bounds(key.local())
    }

    /// The box Pen reports for a node (see [`PartLayout::reported`]); `None` when it is hidden.
    pub fn reported(&self, key: SceneKey) -> Option<NodeBox> {
        self.parts.get(key.part())?.reported(key.local())
    }
}
