//! The diff for a terminal: a summary line, then sections of indented lines.

use crate::printable::one_line;

use super::Report;
use super::model::Model;

/// The report as plain text; every line ends with a newline.
pub fn text(report: &Report<'_>) -> String {
    let model = Model::of(report);
    // Names, ids and values are the documents' authors': one line each, no terminal commands.
    let mut out = format!("{}\n", one_line(&format!("{} → {}: {}", model.old, model.new, model.summary)));
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
    section("document", model.document);
    let mut frames = Vec::new();
    for frame in &model.frames {
        frames.push(frame.line.clone());
        if let Some(images) = frame.images {
            let files: Vec<&str> = images.captioned().into_iter().filter_map(|(f, _)| f.as_deref()).collect();
            let mut line =
                format!("  images: {}", if files.is_empty() { "(none)".to_owned() } else { files.join(" ") });
            if let Some(pixels) = &frame.pixels {
                line.push_str(&format!(" ({pixels})"));
            }
            frames.push(line);
            frames.extend(images.problems.iter().map(|p| format!("  ! {p}")));
        }
    }
    section("frames", frames);
    let mut nodes = Vec::new();
    for change in &model.nodes {
        nodes.push(change.headline.clone());
        nodes.extend(change.properties.iter().map(|p| format!("    {p}")));
    }
    section("nodes", nodes);
    for list in model.lists {
        section(&list.title.to_lowercase(), list.lines);
    }
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
