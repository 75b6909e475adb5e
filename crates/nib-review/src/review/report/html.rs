//! The diff as one HTML page: the summary, each changed frame with its old, new and difference
//! pictures side by side and the changes inside it, then components, variables and themes.
//! The page has its style inline, no scripts and no links outside its folder: the pictures
//! are the image files beside it.

use super::Report;
use super::model::Model;

/// Longest list shown open; longer ones are folded.
const OPEN_ITEMS: usize = 20;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fff}\
h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:15px;margin-top:22px}\
.summary{font-weight:600}.pictures{display:flex;gap:12px;align-items:flex-start;flex-wrap:wrap}\
figure{margin:0;flex:1 1 0;min-width:200px}figure img{max-width:100%;border:1px solid #d0d7de;\
background:repeating-conic-gradient(#eee 0 25%,#fff 0 50%) 0 0/16px 16px}\
figcaption{color:#57606a;font-size:12px}.none{color:#8c959f;padding:24px;border:1px dashed #d0d7de}\
ul{padding-left:20px}li{margin:2px 0}code{font:12px ui-monospace,monospace}.problem{color:#cf222e}";

/// The report as a self-contained HTML page.
pub fn html(report: &Report<'_>) -> String {
    let model = Model::of(report);
    let title = format!("Design changes: {} → {}", model.old, model.new);
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n<p class=\"summary\">{}</p>\n",
        escape(&title),
        escape(&title),
        escape(&model.summary)
    );
    list(&mut out, "Document", &model.document);
    if !model.frames.is_empty() {
        out.push_str("<h2>Frames</h2>\n");
    }
    for (index, frame) in model.frames.iter().enumerate() {
        out.push_str(&format!("<section>\n<h3>{}. {}</h3>\n", index + 1, escape(&frame.line)));
        if let Some(images) = frame.images {
            out.push_str("<div class=\"pictures\">\n");
            for (file, caption) in images.captioned() {
                match file {
                    Some(file) => out.push_str(&format!(
                        "<figure><img src=\"{}\" alt=\"{caption}\"><figcaption>{caption}</figcaption></figure>\n",
                        escape(file)
                    )),
                    None => out.push_str(&format!(
                        "<figure><div class=\"none\">no {caption} picture</div><figcaption>{caption}</figcaption></figure>\n"
                    )),
                }
            }
            out.push_str("</div>\n");
            if let Some(pixels) = &frame.pixels {
                out.push_str(&format!("<p>{}</p>\n", escape(pixels)));
            }
            for problem in &images.problems {
                out.push_str(&format!("<p class=\"problem\">{}</p>\n", escape(&problem.to_string())));
            }
        }
        let lines: Vec<String> = frame
            .changes
            .iter()
            .map(|change| {
                let mut item = escape(&change.headline);
                if !change.properties.is_empty() {
                    item.push_str("<ul>");
                    for property in &change.properties {
                        item.push_str(&format!("<li><code>{}</code></li>", escape(property)));
                    }
                    item.push_str("</ul>");
                }
                item
            })
            .collect();
        items(&mut out, &lines, "changes in this frame");
        out.push_str("</section>\n");
    }
    for entry in &model.lists {
        list(&mut out, entry.title, &entry.lines);
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn list(out: &mut String, title: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    out.push_str(&format!("<h2>{title}</h2>\n"));
    let escaped: Vec<String> = lines.iter().map(|l| escape(l)).collect();
    items(out, &escaped, &title.to_lowercase());
}

/// List items (already HTML), folded under `what` when there are many.
fn items(out: &mut String, items: &[String], what: &str) {
    if items.is_empty() {
        return;
    }
    let folded = items.len() > OPEN_ITEMS;
    if folded {
        out.push_str(&format!("<details><summary>{} {what}</summary>\n", items.len()));
    }
    out.push_str("<ul>\n");
    for item in items {
        out.push_str(&format!("<li>{item}</li>\n"));
    }
    out.push_str("</ul>\n");
    if folded {
        out.push_str("</details>\n");
    }
}

/// `text` safe inside an element or a quoted attribute.
fn escape(text: &str) -> String {
    crate::markup::escape(text, crate::markup::Escaping::DRAWING).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Document;
    use crate::review::diff::diff;

    #[test]
    fn names_cannot_inject_markup() {
        let old = Document::load(r##"{"version": "2.11", "children": [{"type": "frame", "id": "a", "name": "<script>x</script>", "gap": 1}]}"##)
            .unwrap()
            .document;
        let new = Document::load(r##"{"version": "2.11", "children": [{"type": "frame", "id": "a", "name": "<script>x</script>", "gap": 2}]}"##)
            .unwrap()
            .document;
        let result = diff(&old, &new);
        let page = html(&Report { old: "a", new: "b", diff: &result, images: None });
        assert!(!page.contains("<script>"));
        assert!(page.contains("&lt;script&gt;"));
        assert!(page.contains("<code>gap 1 → 2</code>"));
    }
}
