//! What looks wrong in a layout: children that overflow (or are clipped by) their parent,
//! siblings that overlap where nothing lays them out, nodes with no area, text cut off by its
//! box, and the findings of the sizing rules (fill_container outside flex, fit_content with
//! nothing to hug, circular sizing, replaced fonts).
//!
//! A request lists at most [`MAX_PROBLEMS`] and counts the rest by cause ([`Problems`]):
//! nothing is built for a problem that is not shown, and overlaps are found with a sweep, so a
//! frame of 300,000 children costs about as much as laying it out.

mod consequences;
mod list;
mod siblings;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use consequences::Consequences;
pub(crate) use list::thousands;
use list::{Cause, Collector};
pub use list::{MoreProblems, Problems};
use siblings::{OVERLAP_PAIRS_PER_REQUEST, overlapping_siblings, same_place};

use super::rules::{Axis, Kind, SizingNote};
use super::{Layout, NodeBox, PartLayout};
use crate::doc::values::{Fill, is_placeholder_image};
use crate::doc::values::{LayoutPosition, TextGrowth};
use crate::doc::{Key, NodeType, Value};
use crate::resolve::{Scene, SceneKey, ScenePart};

/// Differences below this many pixels are float noise, not problems.
const SLACK: f32 = 0.5;

/// The kinds of layout problems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// A child sticks out of its parent.
    Overflow,
    /// A child placed by hand wholly outside a parent with `clip: true`, so none of it is drawn
    /// (a child the clip cuts in part, or content a layout runs past it, is what a clip is for).
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
    /// An icon nib does not have (or a set it does not have): a render draws a placeholder.
    MissingIcon,
    /// What is drawn stands in for something nib cannot draw headless (a browser's live page,
    /// a script's drawing): the picture is not what Pen shows.
    Placeholder,
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

/// Most problems reported for one request; the rest are counted by cause. An agent reads
/// them all: a few hundred sentences is what a model can act on in one turn.
pub const MAX_PROBLEMS: usize = 200;

/// The problems of the nodes under `within` (the whole canvas when `None`), in document order:
/// at most [`MAX_PROBLEMS`] built, the others counted.
pub fn find_problems(scene: &Scene, layout: &Layout, within: Option<SceneKey>) -> Problems {
    let mut list = Collector::new(MAX_PROBLEMS);
    collect(scene, layout, within, &mut list);
    list.finish(scene)
}

/// Most problems built to compare two states of a document ([`every_problem`]): past it the
/// rest are counted, and a write cannot tell which of them it made.
pub const MAX_COMPARED_PROBLEMS: usize = 20_000;

/// The problems of the whole canvas, image files the host could not read among them, for
/// comparing two states of a document (what a write brought is what the state after it has and
/// the one before did not): up to [`MAX_COMPARED_PROBLEMS`] built in full.
pub fn every_problem(scene: &Scene, layout: &Layout, unreadable: &[UnreadableImage]) -> Problems {
    collect_with_images(scene, layout, None, unreadable, MAX_COMPARED_PROBLEMS)
}

/// [`find_problems`], and image fills whose file is not in the document's folder.
pub(crate) fn find_problems_and_missing_images(
    scene: &Scene,
    layout: &Layout,
    within: Option<SceneKey>,
    unreadable: &[UnreadableImage],
) -> Problems {
    collect_with_images(scene, layout, within, unreadable, MAX_PROBLEMS)
}

fn collect_with_images(
    scene: &Scene,
    layout: &Layout,
    within: Option<SceneKey>,
    unreadable: &[UnreadableImage],
    limit: usize,
) -> Problems {
    let mut list = Collector::new(limit);
    collect(scene, layout, within, &mut list);
    for missing in unreadable {
        let hint = if missing.outside {
            "copy it next to the document and use a relative url"
        } else {
            "put the file there or fix the url"
        };
        list.add(Cause::Kind(ProblemKind::MissingImage), || LayoutProblem {
            node: scene.node(missing.node).id.clone(),
            kind: ProblemKind::MissingImage,
            message: format!("{}: nothing is drawn for it; {hint}", missing.message),
        });
    }
    list.finish(scene)
}

/// An image fill whose file the host could not read: found by the host (layout reads no
/// files) and listed with the layout problems.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableImage {
    /// The node with the fill.
    pub node: SceneKey,
    /// What is wrong, naming the url and where it was looked for.
    pub message: String,
    /// True when the file is outside the folder files may be read from.
    pub outside: bool,
}

fn collect(scene: &Scene, layout: &Layout, within: Option<SceneKey>, list: &mut Collector) {
    // Scene problems name their node by id: compare with the ids under `within` once.
    let scope: Option<HashSet<&str>> = within
        .filter(|_| !scene.problems.is_empty())
        .map(|key| scene.subtree(key).map(|k| scene.node(k).id.as_str()).collect());
    for problem in &scene.problems {
        let node = problem.node.as_deref().unwrap_or_default();
        if scope.as_ref().is_some_and(|ids| !ids.contains(node)) {
            continue;
        }
        let kind = if problem.code == "placeholder" { ProblemKind::Placeholder } else { ProblemKind::Unresolved };
        list.add(Cause::Kind(kind), || LayoutProblem { node: node.to_owned(), kind, message: problem.message.clone() });
    }
    let mut budget = OVERLAP_PAIRS_PER_REQUEST;
    let parts: Vec<usize> = match within {
        Some(key) => vec![key.part()],
        None => (0..scene.parts().len()).collect(),
    };
    for index in parts {
        let (Some(part), Some(part_layout)) = (scene.parts().get(index), layout.parts().get(index)) else { continue };
        // Content the Scene made (a browser's window) is no part of the design to check.
        let scope: Vec<usize> = match within {
            Some(key) => scene.subtree(key).map(|k| k.local()).collect(),
            None => (0..part.nodes().len()).collect(),
        };
        let scope: Vec<usize> = scope.into_iter().filter(|node| !part.node(*node).generated).collect();
        let mut finder = Finder::new(index, part, part_layout, &scope, list, &mut budget);
        scope.iter().for_each(|node| finder.check(*node));
    }
    if within.is_none() {
        canvas_overlaps(scene, layout, list, &mut budget);
    }
    font_fallbacks(scene, layout, within, list);
    substitutions(scene, within, list);
}

/// What a picture shows in place of what the design names, wherever the node comes from (a
/// component, an override, a plain node), in one walk of the nodes: every visible icon nib
/// cannot draw, and every image fill that is a placeholder nib drew offline for a G() prompt
/// (listed so an agent finds it again once an image provider is configured).
fn substitutions(scene: &Scene, within: Option<SceneKey>, list: &mut Collector) {
    for key in nodes_within(scene, within) {
        let node = scene.node(key);
        if matches!(node.node_type(), NodeType::IconFont | NodeType::Icon)
            && let Some(missing) = crate::text::missing_icon(&node.props)
            && visible(scene, key)
        {
            list.add(Cause::Kind(ProblemKind::MissingIcon), || LayoutProblem {
                node: node.id.clone(),
                kind: ProblemKind::MissingIcon,
                message: format!("{missing} A placeholder is drawn in its place."),
            });
        }
        let Some(Value::Fills(fills)) = node.props.get(&Key::Fill) else { continue };
        let placeholders = fills.as_slice().iter().filter_map(|fill| match fill {
            Fill::Image(image) => image.url.as_deref().filter(|url| is_placeholder_image(url)),
            _ => None,
        });
        for url in placeholders {
            list.add(Cause::Kind(ProblemKind::Placeholder), || LayoutProblem {
                node: node.id.clone(),
                kind: ProblemKind::Placeholder,
                message: format!(
                    "its image {url} is a placeholder nib drew offline for a G() prompt (no image provider was configured): run G() on it again once one is, or use an image of your own"
                ),
            });
        }
    }
}

/// The nodes under `within` (all of them when `None`), in document order.
fn nodes_within(scene: &Scene, within: Option<SceneKey>) -> Vec<SceneKey> {
    match within {
        Some(key) => scene.subtree(key).collect(),
        None => scene.walk().collect(),
    }
}

/// True when the node and all its ancestors are enabled (a disabled one is not drawn).
fn visible(scene: &Scene, key: SceneKey) -> bool {
    let mut at = Some(key);
    while let Some(key) = at {
        if !scene.node(key).is_enabled() {
            return false;
        }
        at = scene.parent(key);
    }
    true
}

/// One problem per replaced font family: its first node and how many text nodes use it.
fn font_fallbacks(scene: &Scene, layout: &Layout, within: Option<SceneKey>, list: &mut Collector) {
    struct Family<'a> {
        requested: &'a str,
        reason: &'a str,
        part: &'a ScenePart,
        first: usize,
        uses: usize,
    }
    let mut families: Vec<Family> = Vec::new();
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    let scope: Option<HashSet<usize>> = within.map(|key| scene.subtree(key).map(|k| k.local()).collect());
    for (part_index, part_layout) in layout.parts().iter().enumerate() {
        if within.is_some_and(|key| key.part() != part_index) {
            continue;
        }
        for (index, note) in part_layout.notes() {
            let SizingNote::FontReplaced { requested, reason, .. } = note else { continue };
            if scope.as_ref().is_some_and(|scope| !scope.contains(index)) {
                continue;
            }
            match by_name.get(requested.as_str()) {
                Some(found) => families[*found].uses += 1,
                None => {
                    by_name.insert(requested, families.len());
                    families.push(Family { requested, reason, part: part_layout.part(), first: *index, uses: 1 });
                }
            }
        }
    }
    for family in families {
        list.add(Cause::Kind(ProblemKind::FontFallback), || {
            let Family { requested, reason, part, first, uses } = family;
            let others = if uses > 1 { format!(" and {} other text nodes use", uses - 1) } else { " uses".to_owned() };
            LayoutProblem {
                node: part.node(first).id.clone(),
                kind: ProblemKind::FontFallback,
                message: format!("{}{others} font family '{requested}': {reason}", describe(part, first)),
            }
        });
    }
}

struct Finder<'a> {
    part_index: usize,
    part: &'a ScenePart,
    layout: &'a PartLayout,
    /// Positions in `layout.notes()`, ordered by node (then as noted).
    notes: Vec<usize>,
    list: &'a mut Collector,
    overlap_budget: &'a mut u64,
    /// Overflow and zero size caused by an ancestor's own sizing, counted on its line.
    consequences: Consequences,
    /// The node whose first line is still to be written (it carries the consequences).
    first_line: Option<usize>,
}

impl<'a> Finder<'a> {
    fn new(
        part_index: usize,
        part: &'a ScenePart,
        layout: &'a PartLayout,
        scope: &[usize],
        list: &'a mut Collector,
        overlap_budget: &'a mut u64,
    ) -> Finder<'a> {
        let mut notes: Vec<usize> = (0..layout.notes().len()).collect();
        notes.sort_by_key(|n| layout.notes()[*n].0);
        let consequences = Consequences::find(part, layout, scope);
        Finder { part_index, part, layout, notes, list, overlap_budget, consequences, first_line: None }
    }

    fn add(&mut self, index: usize, cause: Cause, kind: ProblemKind, message: impl FnOnce() -> String) {
        let part = self.part;
        // A cause's first line also says what follows from it.
        let suffix = if self.first_line == Some(index) {
            self.first_line = None;
            self.consequences.suffix(index)
        } else {
            None
        };
        self.list.add(cause, || LayoutProblem {
            node: part.node(index).id.clone(),
            kind,
            message: message() + suffix.as_deref().unwrap_or_default(),
        });
    }

    fn check(&mut self, index: usize) {
        self.first_line = Some(index);
        let Some(own) = self.layout.bounds(index) else { return };
        let part = self.part;
        let notes = self.layout.notes();
        let first = self.notes.partition_point(|n| notes[*n].0 < index);
        let count = self.notes[first..].partition_point(|n| notes[*n].0 == index);
        for position in first..first + count {
            let note = &notes[self.notes[position]].1;
            // Replaced fonts are reported once per family, for the whole request.
            if let Some(kind) = note_kind(note) {
                self.add(index, Cause::Kind(kind), kind, || describe_note(note, &describe(part, index)));
            }
        }
        let folded = self.consequences.is_folded(index);
        if let Some(parent) = part.node(index).parent_local()
            && !folded
        {
            self.check_overflow(index, own, parent);
        }
        if !folded && !self.consequences.is_noted(index) {
            self.check_zero_size(index, own);
        }
        self.check_text(index, own);
        self.check_overlaps(index);
    }

    fn check_overflow(&mut self, index: usize, own: NodeBox, parent: usize) {
        let Some(outer) = self.layout.bounds(parent) else { return };
        let part = self.part;
        if part.node(parent).node_type() == NodeType::Group {
            return;
        }
        let sides = [
            ("left", outer.left - own.left),
            ("top", outer.top - own.top),
            ("right", own.right() - outer.right()),
            ("bottom", own.bottom() - outer.bottom()),
        ];
        if !sides.iter().any(|(_, by)| *by > SLACK) {
            return;
        }
        let clipped = part.node(parent).props.literal::<bool>(&Key::Clip) == Some(true);
        let (kind, verb, hint) = if clipped {
            // A clip the designer set cuts children on purpose — a scrolling list past its
            // viewport, a cropped photo: information, not a problem. Only a child placed by hand
            // (no layout) wholly outside it is one: it is never seen.
            let hidden = own.right() <= outer.left
                || own.left >= outer.right()
                || own.bottom() <= outer.top
                || own.top >= outer.bottom();
            let placed_by_hand = matches!(self.layout.kind(parent), Some(Kind::Free { .. }));
            if !(hidden && placed_by_hand) {
                return;
            }
            (
                ProblemKind::Clipped,
                "is hidden entirely by",
                "it is never drawn: move it inside the parent, make the parent larger, or remove it",
            )
        } else {
            (
                ProblemKind::Overflow,
                "overflows",
                "make the parent larger (or fit_content), the child smaller, or use fill_container",
            )
        };
        self.add(index, Cause::Children(kind, self.part_index, parent), kind, || {
            let over: Vec<String> = sides
                .iter()
                .filter(|(_, by)| *by > SLACK)
                .map(|(side, by)| format!("{} px {side}", round(*by)))
                .collect();
            format!(
                "{} {verb} its parent {} by {}: {hint}",
                describe(part, index),
                describe(part, parent),
                over.join(", ")
            )
        });
    }

    fn check_zero_size(&mut self, index: usize, own: NodeBox) {
        if !consequences::empty(self.part, index, own) {
            return;
        }
        let (no_width, no_height) = (own.width < 0.01, own.height < 0.01);
        let which = match (no_width, no_height) {
            (true, true) => "no width and no height",
            (true, false) => "no width",
            _ => "no height",
        };
        let part = self.part;
        self.add(index, Cause::Kind(ProblemKind::ZeroSize), ProblemKind::ZeroSize, || {
            format!("{} has {which} and cannot be seen: give it a size", describe(part, index))
        });
    }

    fn check_text(&mut self, index: usize, own: NodeBox) {
        let Some(shaped) = self.layout.shaped_text(index) else { return };
        let growth = self.part.node(index).props.literal::<TextGrowth>(&Key::TextGrowth);
        if growth != Some(TextGrowth::FixedWidthHeight) || shaped.height() <= own.height + SLACK {
            return;
        }
        let part = self.part;
        self.add(index, Cause::Kind(ProblemKind::TextOverflow), ProblemKind::TextOverflow, || {
            let visible = (own.height / shaped.line_height.max(1.0)).floor() as usize;
            let cut = shaped.lines.len().saturating_sub(visible);
            format!(
                "{} needs {} px for {} but its box is {} px tall ({} cut off): use textGrowth \"fixed-width\" or make it taller",
                describe(part, index),
                round(shaped.height()),
                count(shaped.lines.len(), "line"),
                round(own.height),
                count(cut, "line"),
            )
        });
    }

    /// Overlapping visible children of a node that does not lay them out, and the absolutely
    /// placed children of one that does (the layout places the others, never on each other).
    fn check_overlaps(&mut self, index: usize) {
        let part = self.part;
        let placed_by_hand = |child: usize| match self.layout.kind(index) {
            Some(Kind::Free { .. }) => true,
            Some(Kind::Flex(_)) => {
                part.node(child).props.literal::<LayoutPosition>(&Key::LayoutPosition) == Some(LayoutPosition::Absolute)
            }
            _ => false,
        };
        let children: Vec<(usize, NodeBox)> = part
            .node(index)
            .children_local()
            .filter(|c| placed_by_hand(*c))
            .filter_map(|c| self.layout.bounds(c).map(|b| (c, b)))
            .collect();
        if children.len() < 2 {
            return;
        }
        let same_kind = |a: usize, b: usize| part.node(a).node_type() == part.node(b).node_type();
        let found = overlapping_siblings(&children, self.overlap_budget, self.list.room(), &same_kind);
        let flex = matches!(self.layout.kind(index), Some(Kind::Flex(_)));
        for (a, b, size) in &found.shown {
            let stacked = match (self.layout.bounds(*a), self.layout.bounds(*b)) {
                (Some(box_a), Some(box_b)) => same_place(&box_a, &box_b),
                _ => false,
            };
            self.add(*b, Cause::Children(ProblemKind::Overlap, self.part_index, index), ProblemKind::Overlap, || {
                let (b, a, parent) = (describe(part, *b), describe(part, *a), describe(part, index));
                match (stacked, flex) {
                    (true, _) => format!(
                        "{b} lies exactly on {a} (same type, size and place: a copy left where it was made?) in {parent}: move one of them, or delete it"
                    ),
                    (false, true) => format!(
                        "{b} overlaps {a} by {size}; both are placed absolutely in {parent}, so its layout does not keep them apart: move one of them"
                    ),
                    (false, false) => format!(
                        "{b} overlaps {a} by {size} (their parent {parent} has no layout): move one of them, or give the parent a layout"
                    ),
                }
            });
        }
        if found.more > 0 || !found.complete {
            self.list.omit(
                Cause::Children(ProblemKind::Overlap, self.part_index, index),
                found.more,
                found.complete,
                children.len(),
            );
        }
    }
}

/// Overlapping top-level nodes.
fn canvas_overlaps(scene: &Scene, layout: &Layout, list: &mut Collector, budget: &mut u64) {
    let roots: Vec<(usize, NodeBox)> = (0..scene.parts().len())
        .filter_map(|i| layout.parts().get(i).and_then(|p| p.bounds(0)).map(|b| (i, b)))
        .collect();
    let same_kind = |a: usize, b: usize| scene.parts()[a].node(0).node_type() == scene.parts()[b].node(0).node_type();
    let found = overlapping_siblings(&roots, budget, list.room(), &same_kind);
    for (a, b, size) in found.shown {
        list.add(Cause::Canvas, || {
            let (part_a, part_b) = (&scene.parts()[a], &scene.parts()[b]);
            LayoutProblem {
                node: part_b.node(0).id.clone(),
                kind: ProblemKind::Overlap,
                message: format!(
                    "{} overlaps {} by {size} on the canvas: move it (find_empty_space_on_canvas finds room)",
                    describe(part_b, 0),
                    describe(part_a, 0)
                ),
            }
        });
    }
    if found.more > 0 || !found.complete {
        list.omit(Cause::Canvas, found.more, found.complete, roots.len());
    }
}

/// The kind of problem a sizing note stands for; replaced fonts are reported per family instead.
fn note_kind(note: &SizingNote) -> Option<ProblemKind> {
    match note {
        SizingNote::FillOutsideFlex(_) | SizingNote::FillAtTopLevel(_) => Some(ProblemKind::FillOutsideFlex),
        SizingNote::FitContentWithoutContent(_) => Some(ProblemKind::FitContentWithoutContent),
        SizingNote::CircularSizing(_) => Some(ProblemKind::CircularSizing),
        SizingNote::FontReplaced { .. } => None,
    }
}

/// What a sizing note means for the node `name`, and what to do.
fn describe_note(note: &SizingNote, name: &str) -> String {
    let axis = |axis: &Axis| axis.size_key();
    match note {
        SizingNote::FillOutsideFlex(a) => format!(
            "{name} has {} fill_container but its parent does not lay out children (layout none, absolute position or top level), so it is 0: give it a number, or the parent a layout",
            axis(a)
        ),
        SizingNote::FillAtTopLevel(a) => format!(
            "{name} has {} fill_container at the top level, where there is no parent to fill, so it hugs its content as fit_content does: give it a number (the screen's {}) or fit_content",
            axis(a),
            axis(a)
        ),
        SizingNote::FitContentWithoutContent(a) => format!(
            "{name} has {} fit_content but nothing to hug (no visible children in a flex layout), so it is 0: give it a number or a fallback such as \"fit_content(100)\"",
            axis(a)
        ),
        SizingNote::CircularSizing(a) => format!(
            "{name} hugs its children's {} (fit_content) while every child fills it (fill_container): give the parent or one child a fixed {}",
            axis(a),
            axis(a)
        ),
        SizingNote::FontReplaced { requested, reason, .. } => {
            format!("{name} uses font family '{requested}': {reason}")
        }
    }
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
    crate::numbers::pixels_text(value)
}

/// "1 line", "3 lines".
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}
