//! What looks wrong in a layout: children that overflow (or are clipped by) their parent,
//! siblings that overlap where nothing lays them out, nodes with no area, text cut off by its
//! box, and the findings of the sizing rules (fill_container outside flex, fit_content with
//! nothing to hug, circular sizing, replaced fonts).

use serde::Serialize;

use super::rules::{Axis, Kind, SizingNote};
use super::{Layout, NodeBox, PartLayout};
use crate::doc::values::TextGrowth;
use crate::doc::{Key, NodeType};
use crate::resolve::{Scene, SceneKey, ScenePart};

/// Differences below this many pixels are float noise, not problems.
const SLACK: f32 = 0.5;

/// Most problems reported for one request; the rest are counted.
pub const MAX_PROBLEMS: usize = 200;

/// The kinds of layout problems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// A child sticks out of its parent.
    Overflow,
    /// A child sticks out of a parent with `clip: true`: the part outside is not drawn.
    Clipped,
    /// Two siblings in a parent without layout (or two top-level nodes) overlap.
    Overlap,
    /// A visible node with no width or no height.
    ZeroSize,
    /// A fixed-size text box is too small for its lines.
    TextOverflow,
    /// `fill_container` without a flex parent.
    FillOutsideFlex,
    /// `fit_content` with nothing to hug.
    FitContentWithoutContent,
    /// Every child fills a parent that hugs them.
    CircularSizing,
    /// The font family is not available and another is used.
    FontFallback,
    /// An instance, override or variable that did not resolve: what is laid out is not what
    /// the design means.
    Unresolved,
    /// An image fill whose file is not there: a render draws a placeholder.
    MissingImage,
}

/// One problem, for the node it concerns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayoutProblem {
    /// The node's id (or instance path).
    pub node: String,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// What is wrong, with numbers, and what to do.
    pub message: String,
}

/// The problems of the nodes under `within` (the whole canvas when `None`), in document order.
pub fn find_problems(scene: &Scene, layout: &Layout, within: Option<SceneKey>) -> Vec<LayoutProblem> {
    let mut problems: Vec<LayoutProblem> = scene
        .problems
        .iter()
        .filter(|p| within.is_none_or(|key| in_subtree(scene, key, &p.node)))
        .map(|p| LayoutProblem { node: p.node.clone(), kind: ProblemKind::Unresolved, message: p.message.clone() })
        .collect();
    let parts: Vec<usize> = match within {
        Some(key) => vec![key.part()],
        None => (0..scene.parts().len()).collect(),
    };
    for index in parts {
        let (Some(part), Some(part_layout)) = (scene.parts().get(index), layout.parts().get(index)) else { continue };
        let nodes: Vec<usize> = match within {
            Some(key) => scene.subtree(key).map(|k| k.local()).collect(),
            None => (0..part.nodes().len()).collect(),
        };
        let mut finder = Finder { part, layout: part_layout, problems: &mut problems };
        for node in nodes {
            finder.check(node);
        }
    }
    if within.is_none() {
        canvas_overlaps(scene, layout, &mut problems);
    }
    font_fallbacks(scene, layout, within, &mut problems);
    problems
}

/// One problem per replaced font family: its first node and how many text nodes use it.
fn font_fallbacks(scene: &Scene, layout: &Layout, within: Option<SceneKey>, problems: &mut Vec<LayoutProblem>) {
    // (requested, used, first node's id, its description, uses)
    let mut families: Vec<(&str, &str, &str, String, usize)> = Vec::new();
    let scope: Option<std::collections::HashSet<usize>> =
        within.map(|key| scene.subtree(key).map(|k| k.local()).collect());
    for (part_index, part_layout) in layout.parts().iter().enumerate() {
        if within.is_some_and(|key| key.part() != part_index) {
            continue;
        }
        for (index, note) in part_layout.notes() {
            let SizingNote::FontReplaced { requested, used } = note else { continue };
            if scope.as_ref().is_some_and(|scope| !scope.contains(index)) {
                continue;
            }
            match families.iter_mut().find(|(r, ..)| r == requested) {
                Some((.., count)) => *count += 1,
                None => {
                    let part = part_layout.part();
                    families.push((requested, used, &part.node(*index).id, describe(part, *index), 1));
                }
            }
        }
    }
    for (requested, used, id, first, count) in families {
        let others = if count > 1 { format!(" and {} other text nodes use", count - 1) } else { " uses".to_owned() };
        problems.push(LayoutProblem {
            node: id.to_owned(),
            kind: ProblemKind::FontFallback,
            message: format!(
                "{first}{others} font family '{requested}', which nib does not have: it is measured and drawn with {used} (sizes may differ from the real font)"
            ),
        });
    }
}

/// Image fills under `within` whose files are not in `folder` (the document's folder).
pub fn missing_images(scene: &Scene, within: Option<SceneKey>, folder: &std::path::Path) -> Vec<LayoutProblem> {
    crate::images::missing_image_files(scene, folder)
        .into_iter()
        .filter(|(node, _)| within.is_none_or(|key| in_subtree(scene, key, node)))
        .map(|(node, message)| LayoutProblem {
            node,
            kind: ProblemKind::MissingImage,
            message: format!("{message}: a placeholder is drawn; put the file there or fix the url"),
        })
        .collect()
}

/// True when the node `id` is `key` or below it.
fn in_subtree(scene: &Scene, key: SceneKey, id: &str) -> bool {
    scene.node_by_id(id).is_some_and(|found| {
        found.part() == key.part() && std::iter::successors(Some(found), |k| scene.parent(*k)).any(|k| k == key)
    })
}

struct Finder<'a> {
    part: &'a ScenePart,
    layout: &'a PartLayout,
    problems: &'a mut Vec<LayoutProblem>,
}

impl Finder<'_> {
    fn push(&mut self, index: usize, kind: ProblemKind, message: String) {
        self.problems.push(LayoutProblem { node: self.part.node(index).id.clone(), kind, message });
    }

    fn check(&mut self, index: usize) {
        let Some(own) = self.layout.node_box(index) else { return };
        let node = self.part.node(index);
        let name = describe(self.part, index);
        for (noted, note) in self.layout.notes() {
            // Replaced fonts are reported once per family, for the whole request.
            if *noted == index
                && let Some((kind, message)) = describe_note(note, &name)
            {
                self.push(index, kind, message);
            }
        }
        if let Some(parent) = node.parent_local() {
            self.check_overflow(index, own, parent, &name);
        }
        self.check_zero_size(index, own, &name);
        self.check_text(index, own, &name);
        self.check_overlaps(index);
    }

    fn check_overflow(&mut self, index: usize, own: NodeBox, parent: usize, name: &str) {
        let Some(outer) = self.layout.node_box(parent) else { return };
        if self.part.node(parent).node_type() == NodeType::Group {
            return;
        }
        let sides = [
            ("left", outer.left - own.left),
            ("top", outer.top - own.top),
            ("right", own.right() - outer.right()),
            ("bottom", own.bottom() - outer.bottom()),
        ];
        let over: Vec<String> =
            sides.iter().filter(|(_, by)| *by > SLACK).map(|(side, by)| format!("{} px {side}", round(*by))).collect();
        if over.is_empty() {
            return;
        }
        let parent_name = describe(self.part, parent);
        let clipped = self.part.node(parent).props.literal::<bool>(&Key::Clip) == Some(true);
        let (kind, verb, hint) = if clipped {
            (
                ProblemKind::Clipped,
                "is clipped by",
                "the hidden part is not drawn; make the parent larger or the child smaller",
            )
        } else {
            (
                ProblemKind::Overflow,
                "overflows",
                "make the parent larger (or fit_content), the child smaller, or use fill_container",
            )
        };
        self.push(index, kind, format!("{name} {verb} its parent {parent_name} by {}: {hint}", over.join(", ")));
    }

    fn check_zero_size(&mut self, index: usize, own: NodeBox, name: &str) {
        let node_type = self.part.node(index).node_type();
        let (no_width, no_height) = (own.width < 0.01, own.height < 0.01);
        // A line is drawn corner to corner: one flat side is a horizontal or vertical line.
        let empty = if node_type == NodeType::Line { no_width && no_height } else { no_width || no_height };
        if !empty {
            return;
        }
        let which = match (no_width, no_height) {
            (true, true) => "no width and no height",
            (true, false) => "no width",
            _ => "no height",
        };
        self.push(index, ProblemKind::ZeroSize, format!("{name} has {which} and cannot be seen: give it a size"));
    }

    fn check_text(&mut self, index: usize, own: NodeBox, name: &str) {
        let Some(shaped) = self.layout.shaped_text(index) else { return };
        let growth = self.part.node(index).props.literal::<TextGrowth>(&Key::TextGrowth);
        if growth != Some(TextGrowth::FixedWidthHeight) || shaped.height() <= own.height + SLACK {
            return;
        }
        let visible = (own.height / shaped.line_height.max(1.0)).floor() as usize;
        let cut = shaped.lines.len().saturating_sub(visible);
        self.push(
            index,
            ProblemKind::TextOverflow,
            format!(
                "{name} needs {} px for {} but its box is {} px tall ({} cut off): use textGrowth \"fixed-width\" or make it taller",
                round(shaped.height()),
                count(shaped.lines.len(), "line"),
                round(own.height),
                count(cut, "line"),
            ),
        );
    }

    /// Overlapping visible children of a node that does not lay them out.
    fn check_overlaps(&mut self, index: usize) {
        let node = self.part.node(index);
        if !matches!(self.layout.kind(index), Some(Kind::Free { .. })) {
            return;
        }
        let children: Vec<(usize, NodeBox)> =
            node.children_local().filter_map(|c| self.layout.node_box(c).map(|b| (c, b))).collect();
        for (i, (a, box_a)) in children.iter().enumerate() {
            for (b, box_b) in &children[i + 1..] {
                if let Some(area) = overlap(box_a, box_b).filter(|_| !contains(box_a, box_b)) {
                    let message = format!(
                        "{} overlaps {} by {area} (their parent {} has no layout): move one of them, or give the parent a layout",
                        describe(self.part, *b),
                        describe(self.part, *a),
                        describe(self.part, index)
                    );
                    self.push(*b, ProblemKind::Overlap, message);
                }
            }
        }
    }
}

/// Overlapping top-level nodes.
fn canvas_overlaps(scene: &Scene, layout: &Layout, problems: &mut Vec<LayoutProblem>) {
    let roots: Vec<(usize, NodeBox)> = (0..scene.parts().len())
        .filter_map(|i| layout.parts().get(i).and_then(|p| p.node_box(0)).map(|b| (i, b)))
        .collect();
    for (i, (a, box_a)) in roots.iter().enumerate() {
        for (b, box_b) in &roots[i + 1..] {
            if let Some(area) = overlap(box_a, box_b).filter(|_| !contains(box_a, box_b)) {
                let (part_a, part_b) = (&scene.parts()[*a], &scene.parts()[*b]);
                problems.push(LayoutProblem {
                    node: part_b.node(0).id.clone(),
                    kind: ProblemKind::Overlap,
                    message: format!(
                        "{} overlaps {} by {area} on the canvas: move it (find_empty_space_on_canvas finds room)",
                        describe(part_b, 0),
                        describe(part_a, 0)
                    ),
                });
            }
        }
    }
}

/// True when `outer` contains `inner`: content drawn on a background, which is layering on
/// purpose, not an overlap to report.
fn contains(outer: &NodeBox, inner: &NodeBox) -> bool {
    inner.left >= outer.left - SLACK
        && inner.top >= outer.top - SLACK
        && inner.right() <= outer.right() + SLACK
        && inner.bottom() <= outer.bottom() + SLACK
}

/// Nodes thinner than this are lines and dividers: crossing something is how they are drawn.
const HAIRLINE: f32 = 2.0;

/// The overlap of two boxes as "W × H px", when both sides exceed the slack and neither box
/// is a hairline.
fn overlap(a: &NodeBox, b: &NodeBox) -> Option<String> {
    if [a.width, a.height, b.width, b.height].iter().any(|side| *side <= HAIRLINE) {
        return None;
    }
    let width = a.right().min(b.right()) - a.left.max(b.left);
    let height = a.bottom().min(b.bottom()) - a.top.max(b.top);
    (width > SLACK && height > SLACK).then(|| format!("{} × {} px", round(width), round(height)))
}

/// The problem a sizing note stands for; replaced fonts are reported per family instead.
fn describe_note(note: &SizingNote, name: &str) -> Option<(ProblemKind, String)> {
    let axis = |axis: &Axis| axis.size_key();
    Some(match note {
        SizingNote::FillOutsideFlex(a) => (
            ProblemKind::FillOutsideFlex,
            format!(
                "{name} has {} fill_container but its parent does not lay out children (layout none, absolute position or top level), so it is 0: give it a number, or the parent a layout",
                axis(a)
            ),
        ),
        SizingNote::FitContentWithoutContent(a) => (
            ProblemKind::FitContentWithoutContent,
            format!(
                "{name} has {} fit_content but nothing to hug (no visible children in a flex layout), so it is 0: give it a number or a fallback such as \"fit_content(100)\"",
                axis(a)
            ),
        ),
        SizingNote::CircularSizing(a) => (
            ProblemKind::CircularSizing,
            format!(
                "{name} hugs its children's {} (fit_content) while every child fills it (fill_container): give the parent or one child a fixed {}",
                axis(a),
                axis(a)
            ),
        ),
        SizingNote::FontReplaced { .. } => return None,
    })
}

/// `'Name' (id)`, or the id alone.
pub(crate) fn describe(part: &ScenePart, index: usize) -> String {
    let node = part.node(index);
    match node.props.name() {
        Some(name) if !name.is_empty() => format!("'{name}' ({})", node.id),
        _ => format!("'{}'", node.id),
    }
}

/// A length for messages: whole pixels when whole, else two decimals.
pub(crate) fn round(value: f32) -> String {
    let rounded = (f64::from(value) * 100.0).round() / 100.0;
    if rounded.fract() == 0.0 { format!("{}", rounded as i64) } else { format!("{rounded}") }
}

/// "1 line", "3 lines".
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}
