//! The diff for a terminal: a summary line, then sections of indented lines.

use crate::printable::one_line;

use super::{
    Report, component_line, document_lines, frame_line, headline, pixels_text, property_line, summary_line, theme_line,
    variable_line,
};

/// The report as plain text; every line ends with a newline.
pub fn text(report: &Report<'_>) -> String {
    let diff = report.diff;
    // Names, ids and values are the documents' authors': one line each, no terminal commands.
    let mut out = format!("{}\n", one_line(&format!("{} → {}: {}", report.old, report.new, summary_line(diff))));
    let mut section = |title: &str, lines: Vec<String>| {
        if lines.is_empty() {
            return;
        }
        out.push_str(title);
        out.push('\n');
        for line in lines {
            out.push_str("  ");
            out.push_str(&one_line(&line));
            out.push('\n');
        }
    };
    section("document", document_lines(diff));
    let mut frames = Vec::new();
    for (index, frame) in diff.frames.iter().enumerate() {
        frames.push(frame_line(frame));
        if let Some(images) = report.images_of(index) {
            let files: Vec<&str> =
                [&images.old, &images.new, &images.difference].into_iter().flatten().map(String::as_str).collect();
            let mut line =
                format!("  images: {}", if files.is_empty() { "(none)".to_owned() } else { files.join(" ") });
            if let Some(pixels) = pixels_text(images) {
                line.push_str(&format!(" ({pixels})"));
            }
            frames.push(line);
            frames.extend(images.problems.iter().map(|p| format!("  ! {p}")));
        }
    }
    section("frames", frames);
    let mut nodes = Vec::new();
    for change in &diff.nodes {
        nodes.push(headline(change));
        nodes.extend(change.properties.iter().map(|p| format!("    {}", property_line(p))));
    }
    section("nodes", nodes);
    section("components", diff.components.iter().map(component_line).collect());
    section("variables", diff.variables.iter().map(variable_line).collect());
    section("themes", diff.themes.iter().map(theme_line).collect());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Document;
    use crate::review::diff::diff;

    #[test]
    fn a_change_reads_as_node_property_old_and_new() {
        let old = Document::load(
            r##"{"version": "2.11", "children": [{"type": "frame", "id": "a1b2c", "name": "Hero", "padding": 32}]}"##,
        )
        .unwrap()
        .document;
        let new = Document::load(
            r##"{"version": "2.11", "children": [{"type": "frame", "id": "a1b2c", "name": "Hero", "padding": 48}]}"##,
        )
        .unwrap()
        .document;
        let result = diff(&old, &new);
        let shown = text(&Report { old: "a.pen", new: "b.pen", diff: &result, images: None });
        assert_eq!(
            shown,
            "a.pen → b.pen: 0 added (0 nodes), 0 removed (0 nodes), 0 moved, 1 changed; 0 components, 0 variables, 0 theme axes; 1 frame to review\n\
             frames\n  ~ frame 'Hero' (a1b2c): 1 node change\n\
             nodes\n  ~ frame 'Hero' (a1b2c)\n      padding 32 → 48\n"
        );
        let same = diff(&old, &old);
        assert_eq!(text(&Report { old: "a", new: "a", diff: &same, images: None }), "a → a: no changes\n");
    }
}
