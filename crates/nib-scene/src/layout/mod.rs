//! Layout: the box of every visible node of a [`Scene`], computed with taffy's flexbox over the
//! format's sizing rules ([`rules`]), with text measured by cosmic-text.
//!
//! Each top-level node is laid out on its own ([`PartLayout`]) and placed at its x/y on the
//! canvas. [`Layout::update`] reuses the part layouts whose resolved part did not change, so a
//! relayout after an edit costs the top-level frames the edit touched, not the whole canvas.

mod canvas;
pub mod fonts;
mod overlaps;
mod problems;
mod reuse;
pub mod rules;
pub mod snapshot;
pub mod space;
mod tree;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use crate::resolve::{Scene, SceneKey, ScenePart};
use crate::text::{ShapedText, TextEngine};
pub use canvas::LaidOutCanvas;
pub use problems::{LayoutProblem, MAX_PROBLEMS, MoreProblems, ProblemKind, Problems, UnreadableImage, find_problems};
pub use rules::{Axis, SizingNote};
use rules::{Kind, Plan, plan_part, taffy_style};
use tree::{PartTree, TreeNode};

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
}

impl NodeBox {
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
            let mut tree_node = TreeNode::new(style, start..child_list.len() as u32, plan.kind != Kind::Leaf);
            tree_node.places_absolute_children = matches!(plan.kind, Kind::Flex(_))
                && node.children_local().any(|c| plans[c].as_ref().is_some_and(|p| p.absolute));
            nodes.push(tree_node);
        }
        let mut tree = PartTree { nodes, child_list: &child_list, plans: &plans, text };
        tree.compute();
        let mut boxes: Vec<Option<NodeBox>> = Vec::with_capacity(tree.nodes.len());
        for (index, node) in tree.nodes.iter().enumerate() {
            if plans[index].is_none() {
                boxes.push(None);
                continue;
            }
            let (x, y) = (node.location.x, node.location.y);
            let (left, top) = match part.node(index).parent_local().and_then(|p| boxes[p]) {
                Some(parent) => (parent.left + x, parent.top + y),
                None => (x, y),
            };
            let (width, height) = (node.size.width.max(0.0), node.size.height.max(0.0));
            boxes.push(Some(NodeBox { x, y, left, top, width, height }));
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

    /// How the node at `index` lays out its children; `None` when it is hidden.
    pub(crate) fn kind(&self, index: usize) -> Option<Kind> {
        self.arranged.kinds.get(index).copied().flatten()
    }

    /// What the sizing rules noticed, by node index.
    pub fn notes(&self) -> &[(usize, SizingNote)] {
        &self.arranged.notes
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
}
