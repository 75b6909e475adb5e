//! snapshot_layout and find_empty_space_on_canvas.

use serde::{Deserialize, Serialize};

use super::ToolError;
use super::workspace::Workspace;
use crate::host::image_files::missing_images;
use crate::layout::snapshot::{Snapshot, SnapshotRequest, problems, problems_text, snapshot};
use crate::layout::space::{Direction, Rect, beside_everything, next_to};
use crate::layout::{Layout, LayoutProblem, MoreProblems, UnreadableImage};
use crate::numbers::hundredths;
use crate::resolve::{Scene, SceneKey};

/// Most levels of children a snapshot shows.
pub const MAX_SNAPSHOT_DEPTH: usize = 64;

/// snapshot_layout's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SnapshotArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// The node to show (the whole canvas when absent).
    pub parent_id: Option<String>,
    /// Levels of children below the shown nodes (default 1: their direct children).
    pub max_depth: Option<usize>,
    /// Only the problems.
    #[serde(default)]
    pub problems_only: bool,
    /// Also run the design lint: `true` (the recommended preset, or `nib-lint.json` beside the
    /// document), a preset name (`"strict"`, `"accessibility"`), or
    /// `{"preset": …, "rules": {"contrast": "error", …}}`.
    pub lint: Option<serde_json::Value>,
}

/// snapshot_layout's answer: the boxes or problems, and the lint's findings when asked.
#[derive(Debug, Serialize)]
pub struct LaidOut {
    /// The boxes and problems.
    #[serde(flatten)]
    pub layout: SnapshotAnswer,
    /// Design lint findings, each `{rule, level, node, message, fix, line}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lint: Option<Vec<serde_json::Value>>,
}

/// What snapshot_layout answers.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum SnapshotAnswer {
    /// Boxes and problems.
    Full(Snapshot),
    /// Problems only, with the same text `nib layout --problems` prints.
    Problems {
        /// The problems.
        problems: Vec<LayoutProblem>,
        /// How many problems were found beyond those listed (a lower bound when a cause says
        /// `atLeast`).
        #[serde(rename = "moreProblems")]
        more_problems: usize,
        /// The problems beyond those listed, counted by cause.
        #[serde(rename = "moreProblemsByCause", skip_serializing_if = "Vec::is_empty")]
        more_problems_by_cause: Vec<MoreProblems>,
        /// The problems as text; `No layout problems.` when there are none.
        text: String,
    },
}

/// The computed boxes under a node (or of the whole canvas) and the layout problems there, and
/// the design lint's findings when asked.
pub fn snapshot_layout(workspace: &mut Workspace, args: SnapshotArgs) -> Result<LaidOut, ToolError> {
    let lint = match &args.lint {
        None | Some(serde_json::Value::Bool(false)) | Some(serde_json::Value::Null) => None,
        Some(asked) => {
            Some(super::lint::findings(workspace, args.file_path.as_deref(), args.parent_id.as_deref(), asked)?)
        }
    };
    let layout = boxes_and_problems(workspace, args)?;
    Ok(LaidOut { layout, lint })
}

fn boxes_and_problems(workspace: &mut Workspace, args: SnapshotArgs) -> Result<SnapshotAnswer, ToolError> {
    let (open, _) = workspace.document(args.file_path.as_deref())?;
    // Under one node only its top-level part needs resolving and laying out.
    let (scene, layout) = match args.parent_id.as_deref() {
        Some(id) => open.node_layout(id)?,
        None => open.layout()?,
    };
    let parent = args.parent_id.as_deref().map(|id| find_visible(&scene, &layout, id)).transpose()?;
    // The image files are asked of the host here; layout only lists the findings.
    let nodes: Box<dyn Iterator<Item = SceneKey>> = match parent {
        Some(key) => Box::new(scene.subtree(key)),
        None => Box::new(scene.walk()),
    };
    let unreadable: Vec<UnreadableImage> = missing_images(&scene, nodes, open.compiler.host())
        .map(|missing| UnreadableImage { node: missing.node, message: missing.to_string(), outside: missing.outside() })
        .collect();
    let images = Some(unreadable.as_slice());
    if args.problems_only {
        let found = problems(&scene, &layout, parent, images);
        let text = problems_text(&found.shown, &found.more);
        return Ok(SnapshotAnswer::Problems {
            more_problems: found.more_count(),
            problems: found.shown,
            more_problems_by_cause: found.more,
            text,
        });
    }
    let max_depth = args.max_depth.unwrap_or(1).min(MAX_SNAPSHOT_DEPTH);
    Ok(SnapshotAnswer::Full(snapshot(&scene, &layout, SnapshotRequest { parent, max_depth, images })))
}

/// The node `id`, which must be visible to have a box.
fn find_visible(scene: &Scene, layout: &Layout, id: &str) -> Result<SceneKey, ToolError> {
    let key = scene.find(id)?;
    if layout.node_box(key).is_none() {
        return Err(ToolError::new(format!(
            "Node '{id}' is hidden (it or an ancestor has enabled: false) and has no layout"
        ))
        .with_hint("set enabled: true on it (and its ancestors) to lay it out"));
    }
    Ok(key)
}

/// find_empty_space_on_canvas's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SpaceArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// Which side to look on: top, right, bottom or left.
    pub direction: String,
    /// Width of the space needed.
    pub width: f64,
    /// Height of the space needed.
    pub height: f64,
    /// Distance to keep from everything.
    #[serde(default)]
    pub padding: f64,
    /// The node to look next to (everything on the canvas when absent).
    pub node_id: Option<String>,
}

/// Where the free space starts.
#[derive(Debug, Serialize)]
pub struct Spot {
    /// Left edge on the canvas.
    pub x: serde_json::Value,
    /// Top edge on the canvas.
    pub y: serde_json::Value,
}

/// A free rectangle of the requested size next to a node or the whole canvas.
pub fn find_empty_space_on_canvas(workspace: &mut Workspace, args: SpaceArgs) -> Result<Spot, ToolError> {
    let direction = Direction::parse(args.direction.trim()).ok_or_else(|| {
        ToolError::new(format!("direction must be one of {}; found '{}'", Direction::ALL.join(", "), args.direction))
    })?;
    for (name, value) in [("width", args.width), ("height", args.height), ("padding", args.padding)] {
        if !value.is_finite() || value < 0.0 {
            return Err(ToolError::new(format!("{name} must be a number of pixels, 0 or more; found {value}")));
        }
    }
    let (open, _) = workspace.document(args.file_path.as_deref())?;
    let (scene, layout) = open.layout()?;
    let occupied: Vec<Rect> = layout.parts().iter().filter_map(|p| p.bounds(0)).map(rect).collect();
    let size = (args.width, args.height);
    let (x, y) = match &args.node_id {
        Some(id) => {
            let key = find_visible(&scene, &layout, id)?;
            let anchor = layout.bounds(key).map(rect).unwrap_or(Rect { x: 0.0, y: 0.0, width: 0.0, height: 0.0 });
            next_to(&occupied, anchor, size, direction, args.padding)
        }
        None => beside_everything(&occupied, size, direction, args.padding),
    };
    Ok(Spot { x: super::number(hundredths(x)), y: super::number(hundredths(y)) })
}

fn rect(b: crate::layout::NodeBox) -> Rect {
    Rect { x: f64::from(b.left), y: f64::from(b.top), width: f64::from(b.width), height: f64::from(b.height) }
}
