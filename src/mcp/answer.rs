//! Tool results as MCP results, each payload once: JSON answers as one text block of compact
//! JSON (nib declares no output schemas, so clients read the content; the same JSON again as
//! structuredContent doubled every answer), Markdown as itself rather than a JSON string,
//! batch_design as Pencil's answer text with the facts it lacks (binding ids, the revision) on
//! a last line, screenshots as image content alone, and errors as `isError` results whose text
//! says what to do. Answers are kept to a size a model can read.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

use crate::tools::ToolError;

/// Most characters of JSON an answer carries (about 20k tokens): beyond that, deeper children
/// become `"..."` and long lists are cut, with a note saying how to ask for the rest.
pub const MAX_ANSWER_CHARS: usize = 80_000;

/// A successful tool answer.
pub fn success(tool: &str, mut value: Value) -> CallToolResult {
    // A picture or Markdown is the whole answer: what others changed since the caller's last
    // call follows it as a line of JSON of its own (JSON answers carry it as a field).
    let news = value.get("changedByOthers").filter(|news| news.is_string()).cloned();
    let alone = |mut result: CallToolResult| {
        if let Some(news) = &news {
            result.content.push(ContentBlock::text(json!({ "changedByOthers": news }).to_string()));
        }
        result
    };
    // A screenshot written to a file (outputPath) is answered as JSON with its path.
    if tool == "get_screenshot" && value.get("path").is_none() {
        // Taken, not copied: it is the whole answer's weight.
        let data = match value["data"].take() {
            Value::String(data) => data,
            _ => String::new(),
        };
        let mime_type = value["mimeType"].as_str().unwrap_or("image/png");
        // The answer is the picture alone; what could not be drawn goes to the log.
        for warning in value["warnings"].as_array().into_iter().flatten() {
            // A document's names and texts reach the log: one line, control characters escaped.
            let [code, node, message] = ["code", "node", "message"]
                .map(|key| crate::printable::one_line(warning[key].as_str().unwrap_or_default()).into_owned());
            tracing::warn!(tool, code, node, "{message}");
        }
        return alone(CallToolResult::success(vec![ContentBlock::image(data, mime_type)]));
    }
    match tool {
        // Markdown to read, as itself.
        "get_guidelines" | "read_skill" if value["text"].is_string() => {
            let text = ContentBlock::text(value["text"].as_str().unwrap_or_default());
            return alone(CallToolResult::success(vec![text]));
        }
        "batch_design" if value["text"].is_string() => return design_answer(&value),
        _ => {}
    }
    let mut value = match value {
        Value::Object(_) => value,
        other => json!({ "result": other }),
    };
    // execute's TakeScreenshot pictures go as images after the text, not as base64 in it.
    let pictures = if tool == "execute" { take_pictures(&mut value) } else { Vec::new() };
    let value = bounded(value, MAX_ANSWER_CHARS);
    let mut content = vec![ContentBlock::text(value.to_string())];
    content.extend(pictures);
    CallToolResult::success(content)
}

/// batch_design's answer: Pencil's text (what agents and skills are written against), then on
/// its last line the facts the text does not give — which id each binding got, the revision, a
/// note, and for each issue the text lists, in its order, its severity, code and node — as JSON.
fn design_answer(value: &Value) -> CallToolResult {
    let mut facts = serde_json::Map::new();
    for key in ["bindings", "revision", "fileRevision", "note", "changedByOthers"] {
        if let Some(fact) = value.get(key).filter(|v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty())) {
            facts.insert(key.to_owned(), fact.clone());
        }
    }
    let issues = issue_facts(value["issues"].as_array().map(Vec::as_slice).unwrap_or_default());
    if !issues.is_empty() {
        facts.insert("issues".to_owned(), Value::Array(issues));
    }
    let text = format!("{}\n{}", value["text"].as_str().unwrap_or_default().trim_end(), Value::Object(facts));
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// What the text's issue lines do not say of each issue — its severity, code and node — in the
/// order the text lists them: Pencil's section first, then the new layout problems.
fn issue_facts(issues: &[Value]) -> Vec<Value> {
    let is_layout =
        |issue: &&Value| issue["code"].as_str().is_some_and(|code| code.starts_with(crate::script::LAYOUT_CODE_PREFIX));
    let (layout, pencils): (Vec<&Value>, Vec<&Value>) = issues.iter().partition(is_layout);
    pencils
        .into_iter()
        .chain(layout)
        .map(|issue| {
            let mut fact = serde_json::Map::new();
            for key in ["severity", "code", "node"] {
                if let Some(part) = issue.get(key).filter(|part| !part.is_null()) {
                    fact.insert(key.to_owned(), part.clone());
                }
            }
            Value::Object(fact)
        })
        .collect()
}

/// The pictures in an answer's `screenshots` as image content, leaving their sizes in place.
fn take_pictures(value: &mut Value) -> Vec<ContentBlock> {
    let Some(Value::Array(shots)) = value.get_mut("screenshots") else { return Vec::new() };
    let mut pictures = Vec::with_capacity(shots.len());
    for shot in shots.iter_mut() {
        let Some(map) = shot.as_object_mut() else { continue };
        if let Some(Value::String(data)) = map.remove("data") {
            let mime_type = map.get("mimeType").and_then(Value::as_str).unwrap_or("image/png").to_owned();
            pictures.push(ContentBlock::image(data, mime_type));
        }
    }
    pictures
}

/// A failed tool call: the message and hint as text, the details (when the tool has some, as
/// batch_design's outcome or execute's editId) as structured content `{"data": …}`.
pub fn failure(error: &ToolError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
    if let Some(data) = &error.data {
        result.structured_content = Some(bounded(json!({ "data": data }), MAX_ANSWER_CHARS));
    }
    result
}

/// `value` cut down to at most `limit` characters of JSON: first the deepest `children` lists
/// become `"..."`, level by level, then the longest list is shortened. A `note` says what was
/// left out and how to get it.
pub fn bounded(mut value: Value, limit: usize) -> Value {
    let original = value.to_string().len();
    if original <= limit {
        return value;
    }
    let mut depth = children_depth(&value);
    while depth > 0 && value.to_string().len() > limit {
        depth -= 1;
        elide_children_below(&mut value, depth);
    }
    let mut cut = 0usize;
    while value.to_string().len() > limit {
        let Some(list) = longest_list(&mut value) else { break };
        let keep = list.len() / 2;
        cut += list.len() - keep;
        list.truncate(keep);
        if keep == 0 {
            break;
        }
    }
    let mut note = format!(
        "The answer was {original} characters, more than the {limit} an answer may have: deeper children are shown as \"...\""
    );
    if cut > 0 {
        note.push_str(&format!(" and {cut} list entries were left out"));
    }
    note.push_str(". Ask for less: a parentId or nodeIds, a smaller readDepth/maxDepth, or problemsOnly.");
    if let Value::Object(map) = &mut value {
        let note = match map.get("note").and_then(Value::as_str) {
            Some(earlier) => format!("{earlier} {note}"),
            None => note,
        };
        map.insert("note".into(), Value::String(note));
    }
    value
}

/// How many `children` lists are nested at most.
fn children_depth(value: &Value) -> usize {
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(key, v)| children_depth(v) + usize::from(key == "children" && v.is_array()))
            .max()
            .unwrap_or(0),
        Value::Array(items) => items.iter().map(children_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Replaces `children` lists nested more than `keep` deep by `"..."`.
fn elide_children_below(value: &mut Value, keep: usize) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if key == "children" && child.is_array() {
                    if keep == 0 {
                        *child = Value::String("...".into());
                    } else {
                        elide_children_below(child, keep - 1);
                    }
                } else {
                    elide_children_below(child, keep);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| elide_children_below(item, keep)),
        _ => {}
    }
}

/// The list with the most entries of more than one, anywhere in `value`.
fn longest_list(value: &mut Value) -> Option<&mut Vec<Value>> {
    fn find(value: &Value, path: &mut Vec<usize>, best: &mut (usize, Vec<usize>)) {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Object(map) => Box::new(map.values()),
            Value::Array(items) => {
                if items.len() > best.0 && items.len() > 1 {
                    *best = (items.len(), path.clone());
                }
                Box::new(items.iter())
            }
            _ => return,
        };
        for (index, child) in children.enumerate() {
            path.push(index);
            find(child, path, best);
            path.pop();
        }
    }
    let mut best = (0, Vec::new());
    find(value, &mut Vec::new(), &mut best);
    if best.0 == 0 {
        return None;
    }
    let mut current = value;
    for index in best.1 {
        current = match current {
            Value::Object(map) => map.values_mut().nth(index)?,
            Value::Array(items) => items.get_mut(index)?,
            _ => return None,
        };
    }
    current.as_array_mut()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(depth: usize, breadth: usize) -> Value {
        let children: Vec<Value> =
            if depth == 0 { Vec::new() } else { (0..breadth).map(|_| tree(depth - 1, breadth)).collect() };
        json!({ "id": "node", "type": "frame", "children": children })
    }

    #[test]
    fn small_answers_are_left_alone() {
        let value = json!({ "nodes": [tree(2, 2)] });
        assert_eq!(bounded(value.clone(), 10_000), value);
    }

    #[test]
    fn deep_children_go_first() {
        let value = json!({ "nodes": [tree(6, 4)] });
        let cut = bounded(value, 2_000);
        assert!(cut.to_string().len() <= 2_000 + 400, "{}", cut.to_string().len());
        let kept = children_depth(&cut);
        assert!((1..6).contains(&kept), "{kept} levels kept");
        assert_eq!(cut["nodes"][0]["children"].as_array().unwrap().len(), 4, "the top levels stay whole");
        assert!(cut["note"].as_str().unwrap().contains("Ask for less"));
    }

    #[test]
    fn long_lists_are_shortened_with_a_count() {
        let nodes: Vec<Value> = (0..500).map(|i| json!({ "id": format!("n{i}"), "name": "a leaf" })).collect();
        let cut = bounded(json!({ "nodes": nodes }), 3_000);
        let kept = cut["nodes"].as_array().unwrap().len();
        assert!(kept < 500 && kept > 10, "{kept}");
        assert!(cut["note"].as_str().unwrap().contains(&format!("{} list entries were left out", 500 - kept)));
    }
}
