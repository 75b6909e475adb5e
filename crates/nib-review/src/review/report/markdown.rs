//! The diff as a pull request comment (GitHub-flavoured Markdown): the summary, a section per
//! changed frame with its `old | new | difference` pictures (relative links to the images in
//! the report's folder) and the changes inside it, then components, variables, themes and the
//! document-level keys. Lists longer than a screen fold into `<details>`.

use crate::printable::one_line;

use super::Report;
use super::model::Model;

/// Longest list shown open; longer ones are folded.
const OPEN_ITEMS: usize = 10;

/// The report as Markdown.
pub fn markdown(report: &Report<'_>) -> String {
    let model = Model::of(report);
    let mut out =
        format!("## Design changes: {} → {}\n\n**{}**\n", code(model.old), code(model.new), escape(&model.summary));
    list(&mut out, "Document", &model.document);
    if !model.frames.is_empty() {
        out.push_str("\n### Frames\n");
        if !model.drawn {
            out.push_str("\n_No pictures: run `nib diff` with `-o DIR` to draw the changed frames._\n");
        }
    }
    for (index, frame) in model.frames.iter().enumerate() {
        out.push_str(&format!("\n#### {}. {}\n", index + 1, escape(&frame.line)));
        if let Some(images) = frame.images {
            let cells: Vec<String> = images
                .captioned()
                .into_iter()
                .map(|(file, alt)| match file {
                    Some(file) => format!("![{alt}]({})", link(file)),
                    None => "—".to_owned(),
                })
                .collect();
            out.push_str("\n| old | new | difference |\n| :---: | :---: | :---: |\n");
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
            if let Some(pixels) = &frame.pixels {
                out.push_str(&format!("\n{}\n", escape(pixels)));
            }
            for problem in &images.problems {
                out.push_str(&format!("\n> {}\n", escape(&problem.to_string())));
            }
        }
        let lines: Vec<String> = frame
            .changes
            .iter()
            .map(|change| {
                let mut line = escape(&change.headline);
                for property in &change.properties {
                    line.push_str(&format!("\n  - {}", escape(property)));
                }
                line
            })
            .collect();
        items(&mut out, &lines, "changes in this frame");
    }
    for entry in &model.lists {
        list(&mut out, entry.title, &entry.lines);
    }
    out
}

/// A titled list of plain lines; nothing when there are none.
fn list(out: &mut String, title: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    out.push_str(&format!("\n### {title}\n"));
    let escaped: Vec<String> = lines.iter().map(|l| escape(l)).collect();
    items(out, &escaped, &title.to_lowercase());
}

/// Bullet items (already Markdown), folded under `what` when there are many.
fn items(out: &mut String, items: &[String], what: &str) {
    if items.is_empty() {
        return;
    }
    let folded = items.len() > OPEN_ITEMS;
    if folded {
        out.push_str(&format!("\n<details><summary>{} {what}</summary>\n", items.len()));
    }
    out.push('\n');
    for item in items {
        out.push_str(&format!("- {item}\n"));
    }
    if folded {
        out.push_str("\n</details>\n");
    }
}

/// `text` on one line (control characters and line breaks escaped: a newline in a name would
/// start a list item of its own) with the characters Markdown would read as markup escaped, and
/// `@` so that a name never mentions a person.
pub(crate) fn escape(text: &str) -> String {
    let text = one_line(text);
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.chars().enumerate() {
        let markup = matches!(c, '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '#' | '!' | '@')
            || (i == 0 && matches!(c, '+' | '-'));
        if markup {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` as inline code, whatever backticks it holds (on one line, safe in a table cell).
pub(crate) fn code(text: &str) -> String {
    let text = one_line(text);
    let fence = if text.contains('`') { "``" } else { "`" };
    format!("{fence}{}{fence}", text.replace('|', "\\|"))
}

/// A relative link target: spaces and parentheses would end it.
fn link(file: &str) -> String {
    file.replace('%', "%25").replace(' ', "%20").replace('(', "%28").replace(')', "%29")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Document;
    use crate::review::diff::diff;
    use crate::review::report::FrameImages;

    #[test]
    fn frames_get_an_image_table_and_their_changes() {
        let old = Document::load(
            r##"{"version": "2.11", "children": [{"type": "frame", "id": "h", "name": "Hero_1", "padding": 32}]}"##,
        )
        .unwrap()
        .document;
        let new = Document::load(
            r##"{"version": "2.11", "children": [{"type": "frame", "id": "h", "name": "Hero_1", "padding": 48}]}"##,
        )
        .unwrap()
        .document;
        let result = diff(&old, &new);
        let images = [FrameImages {
            old: Some("01-Hero_1.old.png".into()),
            new: Some("01-Hero_1.new.png".into()),
            difference: Some("01-Hero_1.diff.png".into()),
            differing: Some(12),
            ..FrameImages::default()
        }];
        let shown = markdown(&Report { old: "a.pen", new: "b.pen", diff: &result, images: Some(&images) });
        assert!(
            shown.contains(
                "| ![old](01-Hero_1.old.png) | ![new](01-Hero_1.new.png) | ![difference](01-Hero_1.diff.png) |"
            ),
            "{shown}"
        );
        assert!(shown.contains("#### 1. \\~ frame 'Hero\\_1' (h): 1 node change"), "{shown}");
        assert!(shown.contains("- \\~ frame 'Hero\\_1' (h)\n  - padding 32 → 48\n"), "{shown}");
    }

    #[test]
    fn long_lists_fold() {
        let mut out = String::new();
        items(&mut out, &vec!["x".to_owned(); 11], "things");
        assert!(out.starts_with("\n<details><summary>11 things</summary>\n"));
        assert!(out.ends_with("</details>\n"));
    }
}
