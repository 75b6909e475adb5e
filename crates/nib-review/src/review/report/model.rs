//! What a report says, decided once: every sentence, every list and where the pictures go. The
//! text, Markdown and HTML writers only lay this model out (a terminal's indents, a pull
//! request's tables and folds, a page's figures); none of them reads the diff itself, so they
//! cannot come to say different things.

use super::{
    FrameImages, Report, component_line, document_lines, frame_line, headline, pixels_text, property_line,
    summary_line, theme_line, variable_line,
};

/// A report as its writers show it.
pub(crate) struct Model<'r> {
    /// How the old document was named.
    pub old: &'r str,
    /// How the new document was named.
    pub new: &'r str,
    /// `4 added (458 nodes), …; 5 frames to review`, or `no changes`.
    pub summary: String,
    /// Changes to the document's own keys, a line each.
    pub document: Vec<String>,
    /// Whether pictures were drawn at all (`nib diff -o DIR`).
    pub drawn: bool,
    /// The frames to review, in the diff's order.
    pub frames: Vec<FrameEntry<'r>>,
    /// Every node change, in the diff's order (the terminal lists them on their own; the other
    /// writers show each under its frame).
    pub nodes: Vec<Entry>,
    /// Components, variables and themes: a title and a line each.
    pub lists: [List; 3],
}

/// One frame to review.
pub(crate) struct FrameEntry<'r> {
    /// `~ frame 'Hero' (h): 3 node changes; …`.
    pub line: String,
    /// Its pictures, when drawn.
    pub images: Option<&'r FrameImages>,
    /// `12 pixels differ`, when both sides were drawn.
    pub pixels: Option<String>,
    /// The node changes inside it.
    pub changes: Vec<Entry>,
}

/// A node change: its headline and its property lines.
pub(crate) struct Entry {
    /// `+ frame 'Card' (c1) added to …`, `~ text (t) moved from … to …`.
    pub headline: String,
    /// `padding 32 → 48`, a line each.
    pub properties: Vec<String>,
}

/// A titled list of lines.
pub(crate) struct List {
    /// `Components`, `Variables`, `Themes`.
    pub title: &'static str,
    /// A line each.
    pub lines: Vec<String>,
}

impl<'r> Model<'r> {
    /// The model of `report`.
    pub fn of(report: &Report<'r>) -> Model<'r> {
        let diff = report.diff;
        let entry = |change: &crate::review::diff::NodeChange| Entry {
            headline: headline(change),
            properties: change.properties.iter().map(property_line).collect(),
        };
        let frames = diff
            .frames
            .iter()
            .enumerate()
            .map(|(index, frame)| {
                let images = report.images.and_then(|images| images.get(index));
                FrameEntry {
                    line: frame_line(frame),
                    images,
                    pixels: images.and_then(pixels_text),
                    changes: report.changes_in(index).into_iter().map(entry).collect(),
                }
            })
            .collect();
        Model {
            old: report.old,
            new: report.new,
            summary: summary_line(diff),
            document: document_lines(diff),
            drawn: report.images.is_some(),
            frames,
            nodes: diff.nodes.iter().map(entry).collect(),
            lists: [
                List { title: "Components", lines: diff.components.iter().map(component_line).collect() },
                List { title: "Variables", lines: diff.variables.iter().map(variable_line).collect() },
                List { title: "Themes", lines: diff.themes.iter().map(theme_line).collect() },
            ],
        }
    }
}

impl FrameImages {
    /// The old, new and difference pictures with their captions, in that order.
    pub(crate) fn captioned(&self) -> [(&Option<String>, &'static str); 3] {
        [(&self.old, "old"), (&self.new, "new"), (&self.difference, "difference")]
    }
}
