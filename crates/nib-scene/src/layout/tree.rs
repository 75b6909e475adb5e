//! taffy's tree traits implemented over one resolved top-level part: flex containers go to
//! taffy's flexbox algorithm, layout-none containers and groups to [`compute_free_layout`] (the
//! children at their x/y), text boxes to cosmic-text measuring, and everything else is sized by
//! its own numbers. No TaffyTree copy: the nodes are the part's, addressed by their index.

use std::cell::RefCell;
use std::sync::Arc;

use taffy::{
    AvailableSpace, Cache, CacheTree, Layout, LayoutInput, LayoutOutput, LayoutPartialTree, Line, NodeId, RunMode,
    Size, SizingMode, Style, compute_cached_layout, compute_flexbox_layout, compute_leaf_layout, compute_oof_layout,
    tree::RequestedAxis,
};

use super::rules::{Axis, AxisSize, Kind, Plan, TextLeaf};
use super::turn::{Bounds, Turn};
use crate::text::{ShapedText, TextEngine};

/// One node as layout sees it (its plan is in [`PartTree::plans`] at the same index).
pub(crate) struct TreeNode {
    pub style: Style,
    /// Where the visible children (in paint order) are in [`PartTree::child_list`].
    children: std::ops::Range<u32>,
    /// taffy's results by input, for containers and text (400 bytes: a leaf sized by its own
    /// numbers is cheaper to lay out again than to remember, and most nodes are leaves).
    cache: Option<Box<Cache>>,
    /// Position relative to the parent (the canvas for the top-level node), unrounded.
    pub location: taffy::Point<f32>,
    /// Size, unrounded.
    pub size: Size<f32>,
    /// For groups: where the union of the children starts, relative to the group's x/y.
    pub union_origin: (f32, f32),
    /// The node's rotation and flips about its x/y.
    pub turn: Turn,
    /// Where the bounds of the turned box start, relative to the box's corner (0, 0 unturned).
    pub bounds_offset: (f32, f32),
    /// A turned node's size fixed by a first pass (a turned fill: Pen gives the share to the
    /// unturned box, then lays out its bounds).
    pub fixed_size: Size<Option<f32>>,
    /// How a turned node's parent sees it: as big as its turned bounds, neither growing nor
    /// shrinking. Set for the nodes laid out turned ([`TreeNode::is_turned`]).
    item_style: Option<Box<Style>>,
    /// The text as laid out in the final box.
    pub shaped: Option<Arc<ShapedText>>,
    /// True for a flex container with absolutely positioned children to place.
    pub places_absolute_children: bool,
    /// Shapes of this node's text by wrapping width: taffy measures a node several times.
    measured: RefCell<Vec<Measured>>,
}

impl TreeNode {
    /// A node whose children are `children` of the tree's child list; `cached` when taffy's
    /// results for it are worth keeping.
    pub fn new(style: Style, children: std::ops::Range<u32>, cached: bool) -> TreeNode {
        TreeNode {
            style,
            children,
            cache: cached.then(|| Box::new(Cache::new())),
            location: taffy::Point { x: 0.0, y: 0.0 },
            size: Size { width: 0.0, height: 0.0 },
            union_origin: (0.0, 0.0),
            turn: Turn::default(),
            bounds_offset: (0.0, 0.0),
            fixed_size: Size::NONE,
            item_style: None,
            shaped: None,
            measured: RefCell::new(Vec::new()),
            places_absolute_children: false,
        }
    }

    /// Lays the node out turned from now on: its parent places the bounds of the turned box
    /// ([`Turn`]), `location` is their corner and `size` stays the node's own.
    pub(crate) fn lay_out_turned(&mut self) {
        self.item_style = Some(Box::new(turned_item_style(&self.style)));
    }

    /// True when the node is laid out turned (see [`TreeNode::lay_out_turned`]).
    pub(crate) fn is_turned(&self) -> bool {
        self.item_style.is_some()
    }
}

/// A top-level part ready for taffy.
pub(crate) struct PartTree<'a, 't> {
    pub nodes: Vec<TreeNode>,
    /// The visible children of every node, one run per node (see [`TreeNode::new`]).
    pub child_list: &'t [u32],
    /// What the rules decided per node; `None` for hidden nodes.
    pub plans: &'t [Option<Plan<'a>>],
    pub text: &'t mut TextEngine,
}

impl PartTree<'_, '_> {
    /// The visible children of the node at `index`.
    fn children_of(&self, index: usize) -> &[u32] {
        let range = &self.nodes[index].children;
        &self.child_list[range.start as usize..range.end as usize]
    }

    /// Lays out the part: node 0 sized by its own rules and placed at its x/y on the canvas.
    pub fn compute(&mut self) {
        if self.plans.first().is_none_or(Option::is_none) {
            return;
        }
        let output =
            self.compute_child_layout(NodeId::from(0usize), free_child_input(RunMode::PerformLayout, Size::NONE));
        let (x, y) = self.placement(0);
        let node = &mut self.nodes[0];
        node.location = taffy::Point { x: x + node.bounds_offset.0, y: y + node.bounds_offset.1 };
        if !node.is_turned() {
            node.size = output.size;
        }
    }

    /// Makes the node at `index` a turned one whose own size is `size` (see
    /// [`TreeNode::fixed_size`]), and forgets what taffy remembered for the first pass.
    pub(crate) fn fix_turned(&mut self, index: usize, size: Size<f32>) {
        let node = &mut self.nodes[index];
        node.fixed_size = Size { width: Some(size.width), height: Some(size.height) };
        node.lay_out_turned();
    }

    /// Keeps the size a fill at `index` was given on `axis` (its parent's main axis) in a
    /// second pass, instead of sharing the room again.
    pub(crate) fn fix_share(&mut self, index: usize, axis: Axis, size: Size<f32>) {
        let style = &mut self.nodes[index].style;
        style.flex_grow = 0.0;
        style.flex_basis = taffy::Dimension::auto();
        self.fix_axis(index, axis, size);
    }

    /// Keeps the size of the node at `index` on `axis` in a second pass.
    pub(crate) fn fix_axis(&mut self, index: usize, axis: Axis, size: Size<f32>) {
        let style = &mut self.nodes[index].style;
        match axis {
            Axis::Horizontal => style.size.width = taffy::Dimension::length(size.width),
            Axis::Vertical => style.size.height = taffy::Dimension::length(size.height),
        }
    }

    /// Forgets every node's remembered layouts, for a second pass.
    pub(crate) fn clear_caches(&mut self) {
        for node in &mut self.nodes {
            if let Some(cache) = &mut node.cache {
                cache.clear();
            }
        }
    }

    /// Where the box of a child of a layout-none container (or of a top-level node) starts:
    /// its x/y, moved to the start of its children's union for groups.
    fn placement(&self, index: usize) -> (f32, f32) {
        let node = &self.nodes[index];
        let (x, y) = self.plans[index].as_ref().map_or((0.0, 0.0), |p| (p.x, p.y));
        (x + node.union_origin.0, y + node.union_origin.1)
    }

    /// Lays out a turned node as its own rules size it, unturned (its children in its own
    /// box), and answers the size of its turned bounds: what its parent places.
    fn compute_turned(&mut self, index: usize, inputs: LayoutInput) -> LayoutOutput {
        let own_inputs = LayoutInput {
            known_dimensions: self.nodes[index].fixed_size,
            ..free_child_input(inputs.run_mode, inputs.parent_size)
        };
        let size = self.compute_unturned(NodeId::from(index), own_inputs).size;
        let node = &mut self.nodes[index];
        let (ox, oy) = node.union_origin;
        let bounds = node.turn.bounds(Bounds { x: ox, y: oy, width: size.width, height: size.height });
        node.bounds_offset = (bounds.x - ox, bounds.y - oy);
        if inputs.run_mode == RunMode::PerformLayout {
            node.size = size;
        }
        LayoutOutput::from_outer_size(Size { width: bounds.width, height: bounds.height })
    }

    /// A node laid out as its parent asks, through taffy's cache.
    fn compute_unturned(&mut self, node: NodeId, mut inputs: LayoutInput) -> LayoutOutput {
        // No size in a .pen document depends on the height available: text wraps by width only,
        // hugging is max-content and nothing is a percentage. Forgetting it lets taffy's cache
        // answer the many passes that differ only there.
        if inputs.known_dimensions.height.is_none() {
            inputs.available_space.height = AvailableSpace::MaxContent;
        }
        compute_cached_layout(self, node, inputs, |tree, node, inputs| {
            let index = usize::from(node);
            let kind = tree.plans[index].as_ref().map(|p| p.kind);
            let mut output = match kind {
                Some(Kind::Flex(_)) => compute_flexbox_layout(tree, node, inputs),
                Some(Kind::Free { group }) => compute_free_layout(tree, index, inputs, group),
                Some(Kind::Text) => tree.compute_text(index, inputs),
                Some(Kind::Leaf) => {
                    compute_leaf_layout(inputs, &tree.nodes[index].style, |_, _| 0.0, |_, _| Size::ZERO)
                }
                None => LayoutOutput::HIDDEN,
            };
            // Absolute children of a flex container are placed by it, their containing block.
            if inputs.run_mode == RunMode::PerformLayout && tree.nodes[index].places_absolute_children {
                compute_oof_layout(tree, node, &mut output);
            }
            output
        })
    }

    fn compute_text(&mut self, index: usize, inputs: LayoutInput) -> LayoutOutput {
        let PartTree { nodes, plans, text, .. } = self;
        let node = &nodes[index];
        let Some(plan) = plans[index].as_ref() else {
            return LayoutOutput::HIDDEN;
        };
        let Some(leaf) = plan.text.as_ref() else {
            return LayoutOutput::HIDDEN;
        };
        let mut shaped = |wrap: Option<f32>| shaped_memoized(text, leaf, &node.measured, wrap);
        let output = compute_leaf_layout(
            inputs,
            &node.style,
            |_, _| 0.0,
            |known, available| {
                // taffy passes a fixed width as available space, not as a known dimension.
                let width = known.width.or(match (plan.width, available.width) {
                    (AxisSize::Fixed(width), _) => Some(width),
                    // Filling, before the final width is known: as wide as the text, at most the room.
                    (AxisSize::Fill, AvailableSpace::Definite(room)) => Some(shaped(None).whole_width().min(room)),
                    _ => None,
                });
                // An unknown width is the widest line rounded up to a whole pixel (Pen's auto
                // width); an unknown height is the lines, wrapped at the width when the text wraps.
                let width = width.unwrap_or_else(|| shaped(None).whole_width());
                let height = known.height.unwrap_or_else(|| shaped(leaf.wraps.then_some(width)).height());
                Size { width, height }
            },
        );
        if inputs.run_mode == RunMode::PerformLayout {
            let wrap = leaf.wraps.then_some(output.size.width);
            let key = wrap.map(f32::to_bits);
            let memoized = node.measured.borrow().iter().find(|m| m.wrap == key).map(|m| Arc::clone(&m.shaped));
            let shaped = memoized.unwrap_or_else(|| text.shape_prepared(&leaf.prepared, wrap));
            nodes[index].shaped = Some(shaped);
        }
        output
    }
}

/// A text box's text shaped at a wrapping width, from the node's memo or the engine.
fn shaped_memoized(
    engine: &mut TextEngine,
    leaf: &TextLeaf<'_>,
    memo: &RefCell<Vec<Measured>>,
    wrap: Option<f32>,
) -> Arc<ShapedText> {
    let key = wrap.map(f32::to_bits);
    if let Some(found) = memo.borrow().iter().find(|m| m.wrap == key) {
        return Arc::clone(&found.shaped);
    }
    let shaped = engine.shape_prepared(&leaf.prepared, wrap);
    memo.borrow_mut().push(Measured { wrap: key, shaped: Arc::clone(&shaped) });
    shaped
}

/// A text shaped at a wrapping width.
#[derive(Debug, Clone)]
pub(crate) struct Measured {
    wrap: Option<u32>,
    shaped: Arc<ShapedText>,
}

/// The input a layout-none container gives each child: no constraint, the child's own rules.
fn free_child_input(run_mode: RunMode, parent_size: Size<Option<f32>>) -> LayoutInput {
    LayoutInput {
        run_mode,
        sizing_mode: SizingMode::InherentSize,
        axis: RequestedAxis::Both,
        known_dimensions: Size::NONE,
        known_dimensions_are_definite: Size { width: true, height: true },
        parent_size,
        available_space: Size { width: AvailableSpace::MaxContent, height: AvailableSpace::MaxContent },
        vertical_margins_are_collapsible: Line::FALSE,
    }
}

/// Layout none: every child at its x/y from the container's corner (padding does not move
/// them). The container keeps its own size; a group is the union of its children.
fn compute_free_layout(tree: &mut PartTree<'_, '_>, index: usize, inputs: LayoutInput, group: bool) -> LayoutOutput {
    let fixed = |size: AxisSize| match size {
        AxisSize::Fixed(n) => Some(n),
        AxisSize::Hug | AxisSize::Fill => None,
    };
    let own_style =
        tree.plans[index].as_ref().map_or(Size::NONE, |p| Size { width: fixed(p.width), height: fixed(p.height) });
    let own = match inputs.sizing_mode {
        SizingMode::InherentSize => inputs.known_dimensions.or(own_style),
        SizingMode::ContentSize => inputs.known_dimensions,
    };
    if inputs.run_mode == RunMode::ComputeSize
        && let (Some(width), Some(height)) = (own.width, own.height)
    {
        return LayoutOutput::from_outer_size(Size { width, height });
    }
    let run_mode =
        if inputs.run_mode == RunMode::PerformLayout { RunMode::PerformLayout } else { RunMode::ComputeSize };
    let range = tree.nodes[index].children.clone();
    let mut placed = Vec::with_capacity(range.len());
    let (mut min, mut max) = ((f32::INFINITY, f32::INFINITY), (f32::NEG_INFINITY, f32::NEG_INFINITY));
    for position in range {
        let child = tree.child_list[position as usize] as usize;
        let output = tree.compute_child_layout(NodeId::from(child), free_child_input(run_mode, own));
        // The union is of the children's turned bounds (Pen's group box).
        let (x, y) = tree.placement(child);
        let (x, y) = (x + tree.nodes[child].bounds_offset.0, y + tree.nodes[child].bounds_offset.1);
        min = (min.0.min(x), min.1.min(y));
        max = (max.0.max(x + output.size.width), max.1.max(y + output.size.height));
        placed.push((child, x, y, output.size));
    }
    let origin = if group && !placed.is_empty() { min } else { (0.0, 0.0) };
    let union = if placed.is_empty() {
        Size { width: 0.0, height: 0.0 }
    } else {
        Size { width: max.0 - origin.0, height: max.1 - origin.1 }
    };
    let size = Size {
        width: own.width.unwrap_or(if group { union.width } else { 0.0 }),
        height: own.height.unwrap_or(if group { union.height } else { 0.0 }),
    };
    tree.nodes[index].union_origin = origin;
    if run_mode == RunMode::PerformLayout {
        for (order, (child, x, y, child_size)) in placed.into_iter().enumerate() {
            let location = taffy::Point { x: x - origin.0, y: y - origin.1 };
            let layout = Layout { location, size: child_size, ..Layout::with_order(order as u32) };
            tree.set_unrounded_layout(NodeId::from(child), &layout);
        }
    }
    LayoutOutput::from_outer_size(size)
}

/// Children of a node, as taffy iterates them.
pub(crate) struct ChildIter<'a>(std::slice::Iter<'a, u32>);

impl Iterator for ChildIter<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        self.0.next().map(|c| NodeId::from(*c as usize))
    }
}

impl taffy::TraversePartialTree for PartTree<'_, '_> {
    type ChildIter<'a>
        = ChildIter<'a>
    where
        Self: 'a;

    fn child_ids(&self, node: NodeId) -> ChildIter<'_> {
        ChildIter(self.children_of(usize::from(node)).iter())
    }

    fn child_count(&self, node: NodeId) -> usize {
        self.children_of(usize::from(node)).len()
    }

    fn get_child_id(&self, node: NodeId, index: usize) -> NodeId {
        NodeId::from(self.children_of(usize::from(node))[index] as usize)
    }
}

impl taffy::TraverseTree for PartTree<'_, '_> {}

impl LayoutPartialTree for PartTree<'_, '_> {
    type CoreContainerStyle<'a>
        = &'a Style
    where
        Self: 'a;

    type CustomIdent = String;

    fn get_core_container_style(&self, node: NodeId) -> &Style {
        &self.nodes[usize::from(node)].style
    }

    fn set_unrounded_layout(&mut self, node: NodeId, layout: &Layout) {
        let node = &mut self.nodes[usize::from(node)];
        node.location = layout.location;
        // The parent placed the turned bounds; the node keeps its own size.
        if !node.is_turned() {
            node.size = layout.size;
        }
    }

    fn compute_child_layout(&mut self, node: NodeId, inputs: LayoutInput) -> LayoutOutput {
        if self.nodes[usize::from(node)].is_turned() {
            return self.compute_turned(usize::from(node), inputs);
        }
        self.compute_unturned(node, inputs)
    }
}

impl taffy::LayoutContainingBlock for PartTree<'_, '_> {
    type OofItemStyle<'a>
        = &'a Style
    where
        Self: 'a;

    fn get_oof_item_style(&self, node: NodeId) -> &Style {
        let node = &self.nodes[usize::from(node)];
        node.item_style.as_deref().unwrap_or(&node.style)
    }

    // The lists of absolutely positioned boxes are for taffy's rounding pass, which nib does
    // not run (boxes stay unrounded); absolute children are found through the scene instead.
    fn clear_hoisted_children(&mut self, _node: NodeId) {}

    fn add_hoisted_children(&mut self, _node: NodeId, _hoisted: &[NodeId]) {}
}

impl CacheTree for PartTree<'_, '_> {
    fn cache_get(&mut self, node: NodeId, inputs: &LayoutInput) -> Option<LayoutOutput> {
        self.nodes[usize::from(node)].cache.as_mut()?.get(inputs)
    }

    fn cache_store(&mut self, node: NodeId, inputs: &LayoutInput, output: LayoutOutput) {
        if let Some(cache) = &mut self.nodes[usize::from(node)].cache {
            cache.store(inputs, output);
        }
    }

    fn cache_clear(&mut self, node: NodeId) {
        if let Some(cache) = &mut self.nodes[usize::from(node)].cache {
            cache.clear();
        }
    }
}

impl taffy::LayoutFlexboxContainer for PartTree<'_, '_> {
    type FlexboxContainerStyle<'a>
        = &'a Style
    where
        Self: 'a;

    type FlexboxItemStyle<'a>
        = &'a Style
    where
        Self: 'a;

    fn get_flexbox_container_style(&self, node: NodeId) -> &Style {
        &self.nodes[usize::from(node)].style
    }

    fn get_flexbox_child_style(&self, child: NodeId) -> &Style {
        let node = &self.nodes[usize::from(child)];
        node.item_style.as_deref().unwrap_or(&node.style)
    }
}

/// How a flex parent sees a turned child: a box as big as the child's turned bounds (what
/// [`PartTree::compute_turned`] answers), placed by alignment, never grown or shrunk. An
/// absolute child keeps its position.
fn turned_item_style(style: &Style) -> Style {
    let zero = taffy::LengthPercentageAuto::length(0.0);
    Style {
        size: Size::auto(),
        min_size: Size { width: zero, height: zero },
        max_size: Size::auto(),
        flex_grow: 0.0,
        flex_shrink: 0.0,
        flex_basis: taffy::Dimension::auto(),
        align_self: None,
        ..style.clone()
    }
}
