//! batch_get: nodes by id or by pattern, as saved JSON with sorted keys.

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::ToolError;
use super::workspace::Workspace;
use crate::doc::convert::ToJson;
use crate::doc::json::JsonWriter;
use crate::doc::{Document, Key, Value, VarOr};
use crate::resolve::{Scene, SceneKey, SceneOptions};

/// Most nodes one answer lists; the rest are counted.
pub const MAX_NODES: usize = 100;

/// Most nodes one answer writes out, children included: a deep `readDepth` under a large
/// expanded instance would otherwise write the whole Scene (200,000 nodes and more) only for
/// the MCP layer to cut it to 80,000 characters. Deeper levels become `"..."`, as with
/// `readDepth`, and the note says so. 10,000 nodes are still many times what an answer shows.
pub const MAX_WRITTEN_NODES: usize = 10_000;

/// batch_get's arguments.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BatchGetArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// Node filters; a node matching any pattern is returned.
    #[serde(default)]
    pub patterns: Vec<Pattern>,
    /// Nodes to return by id or instance path.
    #[serde(default)]
    pub node_ids: Vec<String>,
    /// Where to search or list (the canvas when absent).
    pub parent_id: Option<String>,
    /// Levels of children to include under each returned node (default 1).
    pub read_depth: Option<usize>,
    /// Levels to search for patterns (default: all).
    pub search_depth: Option<usize>,
    /// Expand instances: their content appears with path ids.
    #[serde(default)]
    pub resolve_instances: bool,
    /// Replace `$variables` by their values.
    #[serde(default)]
    pub resolve_variables: bool,
    /// Include path geometry (elided by default; it is long).
    #[serde(default)]
    pub include_path_geometry: bool,
}

/// A node filter: every criterion given must match.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    /// The node type.
    #[serde(rename = "type")]
    pub node_type: Option<String>,
    /// A regular expression the name must match.
    pub name: Option<String>,
    /// Whether the node is a component.
    pub reusable: Option<bool>,
}

/// batch_get's answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Nodes {
    /// The nodes, keys sorted.
    pub nodes: Vec<serde_json::Value>,
    /// Requested ids that do not exist.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_found: Vec<String>,
    /// When more matched than are listed, or no filePath was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

struct CompiledPattern {
    node_type: Option<String>,
    name: Option<Regex>,
    reusable: Option<bool>,
}

/// Finds nodes.
pub fn batch_get(workspace: &mut Workspace, args: BatchGetArgs) -> Result<Nodes, ToolError> {
    let patterns = compile(&args.patterns)?;
    let (open, mut note) = workspace.document(args.file_path.as_deref())?;
    let options =
        SceneOptions { expand_instances: args.resolve_instances, substitute_variables: args.resolve_variables };
    let depth = args.read_depth.unwrap_or(1);
    let mut found: Vec<(SceneKey, bool)> = Vec::new();
    let mut not_found = Vec::new();
    if !args.node_ids.is_empty() {
        let scene = open.scene(options)?;
        let mut missing = Vec::new();
        for id in &args.node_ids {
            match scene.node_by_id(id) {
                Some(key) => found.push((key, false)),
                None => missing.push(id.clone()),
            }
        }
        // Paths into instances need the instances expanded, even when not asked for.
        if !missing.is_empty() && !options.expand_instances {
            let expanded = open.scene(SceneOptions { expand_instances: true, ..options })?;
            for id in missing {
                match expanded.node_by_id(&id) {
                    Some(key) => found.push((key, true)),
                    None => not_found.push(id),
                }
            }
        } else {
            not_found = missing;
        }
    } else {
        // Patterns match the document's own nodes (an instance is a `ref` there, so
        // `{type: "ref"}` finds instances either way); with resolveInstances they also look
        // inside instances, where nodes have path ids (`card/title`). A parent inside an
        // instance is searched expanded.
        let own = open.scene(SceneOptions { expand_instances: false, ..options })?;
        let expanded = if options.expand_instances { Some(open.scene(options)?) } else { None };
        let finder = Finder { own: &own, expanded: expanded.as_deref() };
        let start: Vec<(SceneKey, bool)> = match &args.parent_id {
            Some(parent) => {
                let (key, in_expanded) = match (own.node_by_id(parent), &expanded) {
                    (Some(key), _) => (key, false),
                    (None, Some(expanded)) => (expanded.find(parent).map_err(not_a_parent)?, true),
                    (None, None) => (own.find(parent).map_err(not_a_parent)?, false),
                };
                finder.below(key, in_expanded)
            }
            None => own.roots().into_iter().map(|k| (k, false)).collect(),
        };
        if patterns.is_empty() {
            found = start;
        } else {
            finder.search(&start, &patterns, args.search_depth.unwrap_or(usize::MAX), 1, &mut found);
        }
        if let Some(answer) = &expanded {
            // The document's own nodes found are answered from the resolved Scene, by id (a
            // document node keeps its own id there).
            let listed = found.len().min(MAX_NODES);
            let resolved: Vec<(SceneKey, bool)> = found[..listed]
                .iter()
                .filter_map(|&(key, in_expanded)| {
                    if in_expanded {
                        Some((key, true))
                    } else {
                        answer.node_by_id(&own.node(key).id).map(|k| (k, true))
                    }
                })
                .collect();
            found.splice(..listed, resolved);
        }
    }
    let total = found.len();
    let expanded = SceneOptions { expand_instances: true, ..options };
    let mut nodes = Vec::with_capacity(total.min(MAX_NODES));
    let mut written = 0;
    let mut shallower = false;
    for (key, needs_expansion) in found.into_iter().take(MAX_NODES) {
        let scene = open.scene(if needs_expansion { expanded } else { options })?;
        let (levels, count) = levels_within(&scene, key, depth, MAX_WRITTEN_NODES.saturating_sub(written));
        written += count;
        shallower |= levels < depth;
        let text = scene.node_to_json(key, levels);
        let mut value: serde_json::Value = serde_json::from_str(&text).map_err(|e| ToolError::new(e.to_string()))?;
        if !needs_expansion && !options.expand_instances {
            add_overrides(&open.document, &mut value);
        }
        if !args.include_path_geometry {
            elide_geometry(&mut value);
        }
        nodes.push(value);
    }
    if total > MAX_NODES {
        let more = format!(
            "{} more nodes matched and are not listed; narrow the patterns, use parentId, or ask for nodeIds.",
            total - MAX_NODES
        );
        note = Some(note.map_or(more.clone(), |n| format!("{n} {more}")));
    }
    if shallower {
        let cut = format!(
            "Children are \"...\" beyond the levels that fit in {MAX_WRITTEN_NODES} nodes; ask for fewer nodes, a smaller readDepth, or a nodeId deeper down."
        );
        note = Some(note.map_or(cut.clone(), |n| format!("{n} {cut}")));
    }
    Ok(Nodes { nodes, not_found, note })
}

/// The most levels of children, up to `depth`, that `key` can be written with in `room` nodes
/// (itself included; at least itself), and how many nodes that is; `depth` when the subtree
/// ends before. Counts a level's size from
/// its parents' child lists before walking it, so a wide level costs nothing to refuse.
fn levels_within(scene: &Scene, key: SceneKey, depth: usize, room: usize) -> (usize, usize) {
    let mut count = 1;
    let mut level = vec![key];
    for levels in 0..depth {
        let next: usize = level.iter().map(|k| scene.children(*k).len()).sum();
        if next == 0 {
            break;
        }
        if count + next > room {
            return (levels, count);
        }
        count += next;
        level = level.iter().flat_map(|k| scene.children(*k)).collect();
    }
    (depth, count)
}

fn compile(patterns: &[Pattern]) -> Result<Vec<CompiledPattern>, ToolError> {
    patterns
        .iter()
        .map(|pattern| {
            let name = match &pattern.name {
                Some(source) => Some(Regex::new(source).map_err(|e| {
                    ToolError::new(format!("the name pattern {source:?} is not a valid regular expression: {e}"))
                        .with_hint("escape special characters, e.g. \"Button\\\\/Primary\" for Button/Primary")
                })?),
                None => None,
            };
            if let Some(node_type) = &pattern.node_type
                && crate::doc::NodeType::parse(node_type).is_none()
            {
                return Err(ToolError::new(format!("'{node_type}' is not a node type"))
                    .with_hint(format!("use one of {}", crate::doc::NodeType::ALL.join(", "))));
            }
            Ok(CompiledPattern { node_type: pattern.node_type.clone(), name, reusable: pattern.reusable })
        })
        .collect()
}

/// Where patterns look: the document's own nodes, and with resolveInstances (`expanded`) the
/// content instances show, which exists only in the expanded Scene. A place is a key with
/// whether it is a key of the expanded Scene.
struct Finder<'s> {
    own: &'s Scene,
    expanded: Option<&'s Scene>,
}

impl Finder<'_> {
    fn scene(&self, in_expanded: bool) -> &Scene {
        match self.expanded {
            Some(expanded) if in_expanded => expanded,
            _ => self.own,
        }
    }

    /// The nodes one level below a place: its children, and an instance's content when
    /// instances are expanded. An instance's children the document holds itself are its own
    /// children already and are not listed twice.
    fn below(&self, key: SceneKey, in_expanded: bool) -> Vec<(SceneKey, bool)> {
        let scene = self.scene(in_expanded);
        let mut level: Vec<(SceneKey, bool)> = scene.children(key).map(|k| (k, in_expanded)).collect();
        let node = scene.node(key);
        if !in_expanded
            && let Some(expanded) = self.expanded
            && node.props.node_type() == Some(crate::doc::NodeType::Ref)
            && let Some(shown) = expanded.node_by_id(&node.id)
        {
            level.extend(expanded.children(shown).filter(|k| expanded.node(*k).source.is_none()).map(|k| (k, true)));
        }
        level
    }

    fn search(
        &self,
        level: &[(SceneKey, bool)],
        patterns: &[CompiledPattern],
        max_depth: usize,
        depth: usize,
        found: &mut Vec<(SceneKey, bool)>,
    ) {
        if depth > max_depth {
            return;
        }
        for &(key, in_expanded) in level {
            let node = self.scene(in_expanded).node(key);
            if patterns.iter().any(|p| matches(p, node)) {
                found.push((key, in_expanded));
            }
            self.search(&self.below(key, in_expanded), patterns, max_depth, depth + 1, found);
        }
    }
}

fn not_a_parent(missing: Box<crate::diagnostic::Diagnostic>) -> ToolError {
    ToolError::from(missing).with_hint("parentId is a node id, or an instance path with resolveInstances")
}

fn matches(pattern: &CompiledPattern, node: &crate::resolve::SceneNode) -> bool {
    let reusable = matches!(node.props.get(&Key::Reusable), Some(Value::Bool(VarOr::Value(true))));
    pattern.node_type.as_deref().is_none_or(|t| node.props.type_name().is_some_and(|name| name == t))
        && pattern.name.as_ref().is_none_or(|re| node.props.name().is_some_and(|name| re.is_match(name)))
        && pattern.reusable.is_none_or(|r| r == reusable)
}

/// Puts back the overrides (`descendants`) of every instance in an answer of unexpanded nodes:
/// the Scene keeps them only to expand instances, but the file holds them, and without them
/// three cards made from one component read as three bare copies of it.
fn add_overrides(document: &Document, value: &mut serde_json::Value) {
    let serde_json::Value::Object(map) = value else { return };
    let is_ref = map.get("type").and_then(serde_json::Value::as_str) == Some("ref");
    if is_ref
        && !map.contains_key("descendants")
        && let Some(key) = map.get("id").and_then(serde_json::Value::as_str).and_then(|id| document.node_by_id(id))
        && let Some(overrides @ Value::Descendants(_)) = document.tree().node(key).props.get(&Key::Descendants)
    {
        let mut w = JsonWriter::compact();
        overrides.write_json(&mut w);
        if let Ok(overrides) = serde_json::from_str(&w.finish()) {
            map.insert("descendants".into(), overrides);
        }
    }
    if let Some(serde_json::Value::Array(children)) = map.get_mut("children") {
        children.iter_mut().for_each(|child| add_overrides(document, child));
    }
}

/// Path geometry is long and rarely what an agent needs: `"geometry": "..."` unless asked.
fn elide_geometry(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            if map.get("type").and_then(|t| t.as_str()) == Some("path") && map.contains_key("geometry") {
                map.insert("geometry".into(), serde_json::Value::String("...".into()));
            }
            for child in map.values_mut() {
                elide_geometry(child);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(elide_geometry),
        _ => {}
    }
}
