//! snapshot_layout: the computed boxes of a node and its descendants (or of the whole canvas) in
//! a stable, diffable form — JSON for agents, aligned text for people — with the layout problems
//! found there.

use serde::{Serialize, Serializer};

use super::problems::{
    LayoutProblem, MoreProblems, Problems, UnreadableImage, find_problems, find_problems_and_missing_images, round,
    thousands,
};
use super::{Layout, NodeBox};
use crate::resolve::{Scene, SceneKey};

/// What to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotRequest<'a> {
    /// The node to start from; the whole canvas (its top-level nodes) when `None`.
    pub parent: Option<SceneKey>,
    /// Levels of children shown below the starting nodes (0: the starting nodes only).
    pub max_depth: usize,
    /// The image files under the starting node that the host could not read, reported as
    /// problems (`None`: not checked).
    pub images: Option<&'a [UnreadableImage]>,
}

/// One node's box; positions are rounded to hundredths of a pixel.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotNode {
    /// The id (or instance path).
    pub id: String,
    /// The node type.
    #[serde(rename = "type")]
    pub node_type: String,
    /// The name, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Left edge relative to the parent (to the canvas for top-level nodes).
    #[serde(serialize_with = "pixels")]
    pub x: f32,
    /// Top edge relative to the parent.
    #[serde(serialize_with = "pixels")]
    pub y: f32,
    /// Left edge on the canvas.
    #[serde(serialize_with = "pixels")]
    pub absolute_x: f32,
    /// Top edge on the canvas.
    #[serde(serialize_with = "pixels")]
    pub absolute_y: f32,
    /// Width.
    #[serde(serialize_with = "pixels")]
    pub width: f32,
    /// Height.
    #[serde(serialize_with = "pixels")]
    pub height: f32,
    /// The visible children, or `"..."` when they are deeper than asked.
    #[serde(skip_serializing_if = "Children::is_none")]
    pub children: Children,
}

/// The children of a snapshot node.
#[derive(Debug, Clone, PartialEq)]
pub enum Children {
    /// No visible children.
    None,
    /// Deeper than asked: how many there are.
    Elided(usize),
    /// The children's boxes.
    Nodes(Vec<SnapshotNode>),
}

impl Children {
    fn is_none(&self) -> bool {
        matches!(self, Children::None)
    }
}

impl Serialize for Children {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Children::None => serializer.serialize_none(),
            Children::Elided(_) => serializer.serialize_str("..."),
            Children::Nodes(nodes) => nodes.serialize(serializer),
        }
    }
}

/// Writes whole pixels as integers (`16`, not `16.0`) and the rest to two decimals.
fn pixels<S: Serializer>(value: &f32, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::Serialize;
    crate::numbers::json_number(crate::numbers::hundredths(f64::from(*value))).serialize(serializer)
}

/// The boxes and problems.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// The starting nodes with their children.
    pub nodes: Vec<SnapshotNode>,
    /// Problems under the starting point, at most [`super::MAX_PROBLEMS`].
    pub problems: Vec<LayoutProblem>,
    /// How many problems were found beyond those listed (a lower bound when a cause says
    /// `atLeast`).
    #[serde(skip_serializing_if = "is_zero")]
    pub more_problems: usize,
    /// The problems beyond those listed, counted by cause.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_problems_by_cause: Vec<MoreProblems>,
    /// Said when the boxes asked for do not all fit in [`MAX_SNAPSHOT_NODES`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Most boxes one snapshot lists (as batch_get writes at most 10,000 nodes): a frame with a
/// million children would otherwise answer a million boxes, a gigabyte once made JSON.
/// Levels of children that do not fit are `"..."`; starting nodes beyond it are left out.
pub(crate) const MAX_SNAPSHOT_NODES: usize = 10_000;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The snapshot of `request`.
pub fn snapshot(scene: &Scene, layout: &Layout, request: SnapshotRequest) -> Snapshot {
    let mut starts: Vec<SceneKey> = match request.parent {
        Some(key) => vec![key],
        None => scene.roots(),
    };
    starts.retain(|key| layout.node_box(*key).is_some());
    let mut note = None;
    if starts.len() > MAX_SNAPSHOT_NODES {
        note = Some(format!(
            "{} more top-level nodes are not listed (at most {MAX_SNAPSHOT_NODES} boxes per answer); pass a parentId.",
            starts.len() - MAX_SNAPSHOT_NODES
        ));
        starts.truncate(MAX_SNAPSHOT_NODES);
    }
    let depth = levels_within(scene, layout, &starts, request.max_depth);
    if depth < request.max_depth && note.is_none() {
        note = Some(format!(
            "Children are \"...\" beyond the levels that fit in {MAX_SNAPSHOT_NODES} boxes; pass a parentId deeper down or a smaller maxDepth."
        ));
    }
    let nodes = starts.into_iter().filter_map(|key| entry(scene, layout, key, depth)).collect();
    let found = problems(scene, layout, request.parent, request.images);
    Snapshot {
        nodes,
        more_problems: found.more_count(),
        problems: found.shown,
        more_problems_by_cause: found.more,
        note,
    }
}

/// The most levels of children below `starts`, up to `max_depth`, whose boxes fit in
/// [`MAX_SNAPSHOT_NODES`] with the starting nodes.
fn levels_within(scene: &Scene, layout: &Layout, starts: &[SceneKey], max_depth: usize) -> usize {
    let mut count = starts.len();
    let mut level: Vec<SceneKey> = starts.to_vec();
    for depth in 0..max_depth {
        let next: Vec<SceneKey> = level
            .iter()
            .flat_map(|key| scene.children(*key))
            .filter(|child| layout.node_box(*child).is_some())
            .take(MAX_SNAPSHOT_NODES + 1 - count)
            .collect();
        if next.is_empty() {
            return max_depth;
        }
        count += next.len();
        if count > MAX_SNAPSHOT_NODES {
            return depth;
        }
        level = next;
    }
    max_depth
}

/// The problems under `parent` (everything when `None`): at most [`super::MAX_PROBLEMS`] listed, the
/// others counted by cause. The image files the host could not read are problems too.
pub fn problems(
    scene: &Scene,
    layout: &Layout,
    parent: Option<SceneKey>,
    images: Option<&[UnreadableImage]>,
) -> Problems {
    match images {
        Some(unreadable) => find_problems_and_missing_images(scene, layout, parent, unreadable),
        None => find_problems(scene, layout, parent),
    }
}

fn entry(scene: &Scene, layout: &Layout, key: SceneKey, depth: usize) -> Option<SnapshotNode> {
    let NodeBox { x, y, left, top, width, height, .. } = layout.reported(key)?;
    let node = scene.node(key);
    let visible: Vec<SceneKey> = scene.children(key).filter(|c| layout.node_box(*c).is_some()).collect();
    let children = match (visible.len(), depth) {
        (0, _) => Children::None,
        (count, 0) => Children::Elided(count),
        _ => Children::Nodes(visible.into_iter().filter_map(|c| entry(scene, layout, c, depth - 1)).collect()),
    };
    Some(SnapshotNode {
        id: node.id.clone(),
        node_type: node.props.type_name().unwrap_or_default().into_owned(),
        name: node.props.name().map(str::to_owned),
        x,
        y,
        absolute_x: left,
        absolute_y: top,
        width,
        height,
        children,
    })
}

/// The text people read: one line per node, indented by depth, then the problems.
pub fn snapshot_text(snapshot: &Snapshot) -> String {
    let mut text = String::new();
    for node in &snapshot.nodes {
        write_node(&mut text, node, 0);
    }
    if let Some(note) = &snapshot.note {
        text.push_str(note);
        text.push('\n');
    }
    if !snapshot.nodes.is_empty() {
        text.push('\n');
    }
    text.push_str(&problems_text(&snapshot.problems, &snapshot.more_problems_by_cause));
    text
}

/// The problems as text, with one line per cause of those not listed; `No layout problems.`
/// when there are none.
pub fn problems_text(problems: &[LayoutProblem], more: &[MoreProblems]) -> String {
    if problems.is_empty() && more.is_empty() {
        return "No layout problems.\n".to_owned();
    }
    let total = problems.len() + more.iter().map(|m| m.count).sum::<usize>();
    let at_least = if more.iter().any(|m| m.at_least) { "at least " } else { "" };
    let mut text = format!("{at_least}{} layout problem{}:\n", thousands(total), if total == 1 { "" } else { "s" });
    for problem in problems {
        let kind =
            serde_json::to_value(problem.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        text.push_str(&format!("- {kind}: {}\n", crate::printable::one_line(&problem.message)));
    }
    for cause in more {
        text.push_str(&format!("… and {}\n", crate::printable::one_line(&cause.message)));
    }
    if !more.is_empty() {
        text.push_str("(ask for a parent node to see the others)\n");
    }
    text
}

fn write_node(text: &mut String, node: &SnapshotNode, depth: usize) {
    let indent = "  ".repeat(depth);
    // The name and id are the author's: one line, no terminal commands.
    let name = node.name.as_deref().map(|n| format!(" '{}'", crate::printable::one_line(n))).unwrap_or_default();
    text.push_str(&format!(
        "{indent}{}{name} ({})  {} × {}  at {}, {}  (x {}, y {})\n",
        // A type nib does not know is the file's too.
        crate::printable::one_line(&node.node_type),
        crate::printable::one_line(&node.id),
        round(node.width),
        round(node.height),
        round(node.absolute_x),
        round(node.absolute_y),
        round(node.x),
        round(node.y),
    ));
    match &node.children {
        Children::None => {}
        Children::Elided(count) => {
            text.push_str(&format!("{indent}  … {count} child{}\n", if *count == 1 { "" } else { "ren" }));
        }
        Children::Nodes(children) => {
            for child in children {
                write_node(text, child, depth + 1);
            }
        }
    }
}
