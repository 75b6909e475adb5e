//! A diff written for people and programs: [`text`] for a terminal, [`markdown`] for a pull
//! request comment, [`html`] for a page to open, [`json`] for scripts. The sentences are made
//! here once and gathered into one model (`model.rs`) that the three writers for people lay
//! out, so every format says the same thing.

pub mod html;
pub mod json;
pub mod markdown;
mod model;
pub mod text;

pub use html::html;
pub use json::json;
pub use markdown::markdown;
pub use text::text;

use super::diff::{
    ChangeKind, ComponentChange, Diff, FrameChange, NodeChange, NodeChangeKind, Place, PropertyChange, ThemeChange,
    VariableChange,
};
use super::values::shorten;

/// The images written for one changed frame: file names relative to the report's folder.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameImages {
    /// The old picture.
    pub old: Option<String>,
    /// The new picture.
    pub new: Option<String>,
    /// The picture of where they differ.
    pub difference: Option<String>,
    /// Pixels that differ, when both sides were drawn.
    pub differing: Option<u64>,
    /// True when the two pictures have different sizes.
    pub resized: bool,
    /// Why a side could not be drawn, and what was drawn differently from what was written.
    pub problems: Vec<crate::diagnostic::Diagnostic>,
}

/// What a report shows.
pub struct Report<'a> {
    /// How the old document was named on the command line.
    pub old: &'a str,
    /// How the new document was named.
    pub new: &'a str,
    /// The diff.
    pub diff: &'a Diff,
    /// The images of each of `diff.frames`, in its order; `None` when none were drawn.
    pub images: Option<&'a [FrameImages]>,
}

impl Report<'_> {
    /// The images of frame `index`, when drawn.
    fn images_of(&self, index: usize) -> Option<&FrameImages> {
        self.images.and_then(|images| images.get(index))
    }

    /// The node changes inside frame `index` (where they are, or were before they moved).
    fn changes_in(&self, index: usize) -> Vec<&NodeChange> {
        let id = self.diff.frames[index].frame.id.as_str();
        self.diff
            .nodes
            .iter()
            .filter(|change| change.frame() == id || change.moved_from.as_ref().is_some_and(|from| from.frame == id))
            .collect()
    }
}

/// How a value reads: shortened when long, `(none)` when absent.
fn shown(value: Option<&str>) -> String {
    value.map_or_else(|| "(none)".to_owned(), shorten)
}

/// `padding 32 → 48`.
fn property_line(change: &PropertyChange) -> String {
    format!("{} {} → {}", change.key, shown(change.old.as_deref()), shown(change.new.as_deref()))
}

/// `in frame 'Row' (r1) at 2`, or `at the top level, 3rd`.
fn place_text(place: &Place) -> String {
    match &place.parent {
        Some(parent) => format!("{parent} #{}", place.index),
        None => format!("the top level #{}", place.index),
    }
}

/// `+ frame 'Card' (c1) in frame 'Row' (r1) #2, 3 nodes`, `- text (t) from …`,
/// `~ frame 'Hero' (h)`, `~ text (t) moved from … to …`.
fn headline(change: &NodeChange) -> String {
    let count = |n: usize| if n == 1 { "1 node".to_owned() } else { format!("{n} nodes") };
    match change.kind {
        NodeChangeKind::Added => {
            format!("+ {} added to {}, {}", change.node, place_text(&change.at), count(change.nodes))
        }
        NodeChangeKind::Removed => {
            format!("- {} removed from {}, {}", change.node, place_text(&change.at), count(change.nodes))
        }
        NodeChangeKind::Changed => match &change.moved_from {
            Some(from) => format!("~ {} moved from {} to {}", change.node, place_text(from), place_text(&change.at)),
            None => format!("~ {}", change.node),
        },
    }
}

/// `4 added (458 nodes), 1 removed, 2 moved, 3 changed; 1 component, 2 variables, 0 themes;
/// 5 frames to review`, or `no changes`.
fn summary_line(diff: &Diff) -> String {
    if diff.is_empty() {
        return "no changes".into();
    }
    let s = diff.summary();
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let added_nodes: usize = diff.nodes.iter().filter(|n| n.kind == NodeChangeKind::Added).map(|n| n.nodes).sum();
    let removed_nodes: usize = diff.nodes.iter().filter(|n| n.kind == NodeChangeKind::Removed).map(|n| n.nodes).sum();
    format!(
        "{} added ({}), {} removed ({}), {} moved, {} changed; {}, {}, {}; {} to review",
        s.added,
        plural(added_nodes, "node", "nodes"),
        s.removed,
        plural(removed_nodes, "node", "nodes"),
        s.moved,
        s.changed,
        plural(s.components, "component", "components"),
        plural(s.variables, "variable", "variables"),
        plural(s.themes, "theme axis", "theme axes"),
        plural(s.frames, "frame", "frames"),
    )
}

/// The document-level changes, one line each, with a note on respelled nodes.
fn document_lines(diff: &Diff) -> Vec<String> {
    let mut lines: Vec<String> = diff.document.iter().map(property_line).collect();
    if !diff.respelled.is_empty() {
        lines.push(format!(
            "strokes and icons of {} nodes respelled for the new version (the same values; not listed as changes)",
            diff.respelled.len()
        ));
    }
    lines
}

/// Most instance ids listed for a component in a report; the rest are counted.
const LISTED_INSTANCES: usize = 12;

/// `~ frame 'Button' (btn): 3 instances (a, b, c); changed through 'Icon' (i)`.
fn component_line(change: &ComponentChange) -> String {
    let mut line = format!("~ {}: ", change.component);
    let n = change.instances.len();
    line.push_str(&match n {
        0 => "no instances".to_owned(),
        _ => {
            let mut ids: Vec<&str> = change.instances.iter().take(LISTED_INSTANCES).map(String::as_str).collect();
            if n > LISTED_INSTANCES {
                ids.push("…");
            }
            format!("{n} instance{} ({})", if n == 1 { "" } else { "s" }, ids.join(", "))
        }
    });
    if !change.direct {
        line.push_str(&format!("; changed through the components {}", change.through.join(", ")));
    }
    line
}

/// `~ --primary: Mode=Dark "#60A5FA" → "#3B82F6"`, `+ --gap (number): default 4`.
fn variable_line(change: &VariableChange) -> String {
    let sign = kind_sign(change.kind);
    let mut line = format!("{sign} {}", change.name);
    if let Some((old, new)) = &change.var_type {
        match change.kind {
            ChangeKind::Changed => line.push_str(&format!(
                " type {} → {}",
                old.as_deref().unwrap_or("(none)"),
                new.as_deref().unwrap_or("(none)")
            )),
            _ => line.push_str(&format!(" ({})", new.as_deref().or(old.as_deref()).unwrap_or("untyped"))),
        }
    }
    let values: Vec<String> = change.values.iter().map(property_line).collect();
    if !values.is_empty() {
        line.push_str(": ");
        line.push_str(&values.join("; "));
    }
    line
}

/// `~ Mode: Light, Dark → Light, Dark, Dim`.
fn theme_line(change: &ThemeChange) -> String {
    let list = |values: &Option<Vec<String>>| values.as_ref().map_or("(none)".to_owned(), |v| v.join(", "));
    let sign = match (&change.old, &change.new) {
        (None, _) => '+',
        (_, None) => '-',
        _ => '~',
    };
    format!("{sign} {}: {} → {}", change.axis, list(&change.old), list(&change.new))
}

/// `~ frame 'Hero' (h): 3 node changes; shows changed components btn; uses changed variables --bg`.
fn frame_line(change: &FrameChange) -> String {
    let mut reasons = Vec::new();
    match change.kind {
        ChangeKind::Added => reasons.push("added".to_owned()),
        ChangeKind::Removed => reasons.push("removed".to_owned()),
        ChangeKind::Changed => {}
    }
    if change.changes > 0 && change.kind == ChangeKind::Changed {
        reasons.push(format!("{} node change{}", change.changes, if change.changes == 1 { "" } else { "s" }));
    }
    if !change.components.is_empty() {
        reasons.push(format!("shows changed components {}", change.components.join(", ")));
    }
    if !change.variables.is_empty() {
        reasons.push(format!("uses changed variables {}", change.variables.join(", ")));
    }
    if !change.in_old && change.kind == ChangeKind::Changed {
        reasons.push("was not top-level before".to_owned());
    }
    if !change.in_new && change.kind == ChangeKind::Changed {
        reasons.push("is no longer top-level".to_owned());
    }
    format!("{} {}: {}", kind_sign(change.kind), change.frame, reasons.join("; "))
}

fn kind_sign(kind: ChangeKind) -> char {
    match kind {
        ChangeKind::Added => '+',
        ChangeKind::Removed => '-',
        ChangeKind::Changed => '~',
    }
}

/// `1,234 pixels differ`, `same pixels`, `sizes differ`.
fn pixels_text(images: &FrameImages) -> Option<String> {
    let differing = images.differing?;
    Some(if images.resized {
        format!("sizes differ; {differing} pixels differ")
    } else if differing == 0 {
        "no visible difference".to_owned()
    } else {
        format!("{differing} pixels differ")
    })
}
