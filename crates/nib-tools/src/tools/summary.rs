//! Short descriptions of a document for answers: top-level nodes and components.

use serde_json::json;

use crate::doc::{Document, Key, Value, VarOr};

/// How many top-level nodes answers list before summing up the rest.
pub(crate) const TOP_LEVEL_LISTED: usize = 10;

/// The top-level nodes as `{id, type, name}`, at most [`TOP_LEVEL_LISTED`], then `{"more": n}`.
pub fn top_level(document: &Document) -> Vec<serde_json::Value> {
    let tree = document.tree();
    let roots = tree.roots();
    let mut listed: Vec<serde_json::Value> = roots
        .iter()
        .take(TOP_LEVEL_LISTED)
        .map(|key| {
            let node = tree.node(*key);
            json!({"id": node.id(), "type": node.props.type_name(), "name": node.props.name()})
        })
        .collect();
    if roots.len() > TOP_LEVEL_LISTED {
        listed.push(json!({"more": roots.len() - TOP_LEVEL_LISTED, "note": format!("+{} others", roots.len() - TOP_LEVEL_LISTED)}));
    }
    listed
}

/// The components (`reusable: true`) as `id: name`, in document order.
pub fn components(document: &Document) -> Vec<String> {
    let tree = document.tree();
    tree.walk()
        .filter(|key| matches!(tree.node(*key).props.get(&Key::Reusable), Some(Value::Bool(VarOr::Value(true)))))
        .map(|key| {
            let node = tree.node(key);
            format!("{}: {}", node.id(), node.props.name().unwrap_or("(unnamed)"))
        })
        .collect()
}
