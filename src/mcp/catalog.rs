//! The tools as an MCP client sees them: Pencil's names and parameter names, flat input schemas
//! (an object at the root, no oneOf/anyOf: several clients reject combinators), descriptions
//! written for agents with the rules that prevent the usual mistakes, and annotations.

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::tools::PROPERTIES as PROPERTY_NAMES;

/// How a tool treats the world, for the client's permission prompts.
#[derive(Clone, Copy)]
enum Kind {
    /// Reads documents only.
    Reads,
    /// Changes or creates files; `destructive` when it can remove or overwrite content.
    Writes { destructive: bool, idempotent: bool },
}

/// One tool's definition.
struct Definition {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    kind: Kind,
    /// Reaches outside the document and fonts nib ships (G() image providers).
    open_world: bool,
    /// `properties` of the input schema.
    properties: fn() -> Value,
    required: &'static [&'static str],
    /// The surfaces that list it.
    surfaces: &'static [ToolSet],
}

/// Which tools a server lists: Pencil's classic design tools, the surface of Pen's current MCP
/// server (`execute` and its companions), or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ToolSet {
    /// The fourteen design tools of Pen's MCP server, with undo, redo, export and claim
    /// (18): what nib's users, its recorded sessions and most published agent skills call.
    #[default]
    Classic,
    /// Pen's current surface: execute, get_app_state, read_skill, get_style, with
    /// open_document, undo and redo (7).
    Current,
    /// Both (22).
    All,
}

impl ToolSet {
    fn lists(self, definition: &Definition) -> bool {
        self == ToolSet::All || definition.surfaces.contains(&self)
    }
}

/// Listed by the classic surface.
const CLASSIC: &[ToolSet] = &[ToolSet::Classic];
/// Listed by both surfaces.
const BOTH: &[ToolSet] = &[ToolSet::Classic, ToolSet::Current];
/// Listed by the current surface.
const CURRENT: &[ToolSet] = &[ToolSet::Current];

/// The filePath parameter every document tool takes.
fn file_path() -> Value {
    json!({
        "type": "string",
        "description": "The .pen file (default: the last one used)."
    })
}

/// The theme parameter of the picture tools.
fn theme() -> Value {
    json!({ "type": "object", "description": "Draw under a theme, e.g. {\"Mode\": \"Dark\"}: no copy of the screen needed.", "additionalProperties": { "type": "string" } })
}

/// The ifRevision parameter of the writing tools (batch_design's description says what it
/// does, once for all of them).
fn if_revision() -> Value {
    json!({ "type": "string" })
}

fn ids(description: &str) -> Value {
    json!({ "type": "array", "items": { "type": "string" }, "description": description })
}

const DEFINITIONS: &[Definition] = &[
    Definition {
        name: "get_editor_state",
        title: "Editor state",
        description: "Open documents; the current one's revision, fileRevision, top-level nodes and components; the claims sessions hold; the nodes a person selected on the canvas of `nib serve` (work on those when the user says 'this'). Call it first; include_schema: true adds the .pen format essentials and batch_design's rules.",
        kind: Kind::Reads,
        open_world: false,
        properties: || json!({ "include_schema": { "type": "boolean", "description": "Also return the .pen schema and rules (long; once per session is enough)." } }),
        required: &[],
        surfaces: CLASSIC,
    },
    Definition {
        name: "open_document",
        title: "Open or create a document",
        description: "Opens a .pen file, or creates one: \"new\" (empty), \"new:desktop\", \"new:tablet\", \"new:mobile\" (one screen frame), or a path ending in .pen that does not exist yet. Never overwrites an existing file; a file that does not parse is refused with the error and its location.",
        kind: Kind::Writes { destructive: false, idempotent: false },
        open_world: false,
        properties: || json!({ "filePathOrTemplate": { "type": "string", "description": "A .pen path relative to the server's folder, or new / new:desktop / new:tablet / new:mobile." } }),
        required: &["filePathOrTemplate"],
        surfaces: BOTH,
    },
    Definition {
        name: "batch_get",
        title: "Read nodes",
        description: "Reads nodes as saved JSON: by nodeIds, or by patterns (type, name regex, reusable) searched under parentId (the canvas when absent). Children deeper than readDepth (default 1) show as \"...\". resolveInstances expands instances (their nodes get path ids like card/title, and patterns match them too); resolveVariables shows values instead of $variables. At most 100 nodes per answer.",
        kind: Kind::Reads,
        open_world: false,
        properties: || {
            json!({
                "filePath": file_path(),
                "patterns": {
                    "type": "array",
                    "description": "Filters; a node matching any of them is returned.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": { "type": "string", "description": "Node type: frame, text, rectangle, ellipse, ref, icon_font, …" },
                            "name": { "type": "string", "description": "Regular expression the node name must match." },
                            "reusable": { "type": "boolean", "description": "Only components (true) or only non-components (false)." }
                        },
                        "additionalProperties": false
                    }
                },
                "nodeIds": ids("Nodes to read, by id or instance path."),
                "parentId": { "type": "string", "description": "Search or list under this node." },
                "readDepth": { "type": "integer", "minimum": 0, "description": "Levels of children to include (default 1)." },
                "searchDepth": { "type": "integer", "minimum": 0, "description": "Levels to search for patterns (default: all)." },
                "resolveInstances": { "type": "boolean" },
                "resolveVariables": { "type": "boolean" },
                "includePathGeometry": { "type": "boolean", "description": "Include path geometry (long; elided by default)." }
            })
        },
        required: &[],
        surfaces: CLASSIC,
    },
    Definition {
        name: "batch_design",
        title: "Edit the design",
        description: "Runs an I/C/U/R/M/D/G script as one transaction: all or none (a failure rolls back everything and says which line failed and why). About 25 operations per call. Bindings (name=I(...)) live only within this call: refer to earlier results by the ids the answer gives. Text needs a fill color or it is invisible. fill_container works only inside a parent with layout horizontal or vertical. Instances: I(parent, {type:\"ref\", ref:\"<component id>\"}) and U(\"<instance>/<child>\", {...}) to override. Changes inside another session's claim are refused. Saved before the answer (created ids, issues this call made, new layout problems too, revision, fileRevision). ifRevision: refused, nothing changed, unless the file is at that fileRevision (also for set_variables, replace_all_matching_properties).",
        kind: Kind::Writes { destructive: true, idempotent: false },
        open_world: true,
        properties: || {
            json!({
                "filePath": file_path(),
                "operations": { "type": ["string", "array"], "description": "The script, one operation per line, e.g. card=I(\"screen\", {type:\"frame\", layout:\"vertical\", gap:12}). An array of {type: insert|copy|update|replace|move|delete|image, targetId, …} objects is also run, as the equivalent script." },
                "ifRevision": if_revision()
            })
        },
        required: &["operations"],
        surfaces: CLASSIC,
    },
    Definition {
        name: "get_variables",
        title: "Variables and themes",
        description: "The document's theme axes and variables, as the file has them.",
        kind: Kind::Reads,
        open_world: false,
        properties: || json!({ "filePath": file_path() }),
        required: &[],
        surfaces: CLASSIC,
    },
    Definition {
        name: "set_variables",
        title: "Set variables",
        description: "Merges variables into the document (replace: true sets exactly these). Shape: {\"primary\": {\"type\": \"color\", \"value\": \"#2563EB\"}}; themed values as a list: {\"value\": [{\"value\": \"#fff\", \"theme\": {\"mode\": \"light\"}}, …]}. Names have no leading $; nodes refer to them as \"$primary\". Theme axes used are registered. Saved before the answer (issues: the layout problems it added).",
        kind: Kind::Writes { destructive: true, idempotent: true },
        open_world: false,
        properties: || {
            json!({
                "filePath": file_path(),
                "variables": { "type": "object", "description": "Variables by name.", "additionalProperties": true },
                "replace": { "type": "boolean", "description": "Replace all variables instead of merging (default false)." },
                "ifRevision": if_revision()
            })
        },
        required: &["variables"],
        surfaces: CLASSIC,
    },
    Definition {
        name: "search_all_unique_properties",
        title: "List unique property values",
        description: "The distinct values of design properties under the parents (the whole canvas when empty), with counts, most frequent first: an inventory of colors, sizes and fonts before a consistent change.",
        kind: Kind::Reads,
        open_world: false,
        properties: || {
            json!({
                "filePath": file_path(),
                "parents": ids("Where to look (the whole canvas when empty)."),
                "properties": { "type": "array", "items": { "type": "string", "enum": PROPERTY_NAMES }, "description": "Which properties to list." }
            })
        },
        required: &["properties"],
        surfaces: CLASSIC,
    },
    Definition {
        name: "replace_all_matching_properties",
        title: "Replace property values",
        description: "Replaces values under the parents (the whole canvas when empty) in one undoable step: e.g. {\"fillColor\": [{\"from\": \"#3B82F6\", \"to\": \"$primary\"}]}. fillColor is fills of non-text nodes, textColor the fills of text, strokeColor stroke fills. Values inside instances become overrides; components stay as they are. Saved before the answer (issues: the problems it added).",
        kind: Kind::Writes { destructive: true, idempotent: false },
        open_world: false,
        properties: || {
            let pairs = json!({
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": { "from": { "type": ["string", "number"] }, "to": { "type": ["string", "number"] } },
                    "required": ["from", "to"],
                    "additionalProperties": false
                }
            });
            // One schema for the value pairs and the names as an enum, rather than the pairs
            // repeated per name: the same constraint in a sixth of the bytes of tools/list.
            json!({
                "filePath": file_path(),
                "parents": ids("Where to replace (the whole canvas when empty)."),
                "properties": {
                    "type": "object",
                    "propertyNames": { "enum": PROPERTY_NAMES },
                    "additionalProperties": pairs,
                    "description": "Per property, the values to replace."
                },
                "ifRevision": if_revision()
            })
        },
        required: &["properties"],
        surfaces: CLASSIC,
    },
    Definition {
        name: "snapshot_layout",
        title: "Computed layout",
        description: "Boxes after flexbox layout: per node id, type, name, x/y on the canvas and in the parent, width, height, to maxDepth levels below parentId (default: direct children), plus problems: overflow, clipping, overlaps, zero size, cut-off text, fill_container without a flex parent, circular sizing. problemsOnly: true answers only the problems (\"No layout problems.\" when clean) — use it after every edit.",
        kind: Kind::Reads,
        open_world: false,
        properties: || {
            json!({
                "filePath": file_path(),
                "parentId": { "type": "string", "description": "The node to show (the whole canvas when absent)." },
                "maxDepth": { "type": "integer", "minimum": 0, "description": "Levels of children below (default 1)." },
                "problemsOnly": { "type": "boolean" },
                "lint": { "type": ["boolean", "string", "object"], "description": "Design lint too (contrast, touch targets, small text, colours off the variables…): true, a preset (strict, accessibility) or {preset, rules}." }
            })
        },
        required: &[],
        surfaces: CLASSIC,
    },
    Definition {
        name: "get_screenshot",
        title: "Screenshot",
        description: "A PNG of a node (or the whole canvas without nodeId), rendered headless with the bundled fonts. The long edge is at most 1568 px unless scale is given. Look at it after visual changes.",
        kind: Kind::Reads,
        open_world: false,
        properties: || {
            json!({
                "filePath": file_path(),
                "nodeId": { "type": "string", "description": "The node to render (the whole canvas when absent)." },
                "scale": { "type": "number", "exclusiveMinimum": 0, "description": "Pixels per canvas unit (default 1, less when the long edge would pass 1568 px)." },
                "outputPath": { "type": "string", "description": "Write the PNG to this file; answer its path, not the image." },
                "theme": theme()
            })
        },
        required: &[],
        surfaces: CLASSIC,
    },
    Definition {
        name: "export",
        title: "Export to files",
        description: "Writes nodeIds, all top-level frames or the canvas to files; answers paths and sizes. pdf: a page per node; html, html-tailwind: a page per frame; react: .tsx components; tokens-css, tokens-json, tailwind: the variables.",
        kind: Kind::Writes { destructive: true, idempotent: true },
        open_world: false,
        properties: || {
            json!({
                "filePath": file_path(),
                "format": { "type": "string", "enum": ["png", "jpeg", "webp", "svg", "pdf", "html", "html-tailwind", "react", "tokens-css", "tokens-json", "tailwind"] },
                "nodeIds": { "type": "array", "items": { "type": "string" } },
                "all": { "type": "boolean" },
                "scale": { "type": "number", "exclusiveMinimum": 0 },
                "quality": { "type": "integer", "minimum": 1, "maximum": 100 },
                "text": { "type": "string", "enum": ["outlines", "live"], "description": "svg text" },
                "embed": { "type": "boolean", "description": "html: self-contained pages" },
                "includeHtmlScaffold": { "type": "boolean" },
                "includeLayerNames": { "type": "boolean" },
                "includeLayerIds": { "type": "boolean" },
                "outputPath": { "type": "string", "description": "A file, or a folder (default exports/)." },
                "theme": theme()
            })
        },
        required: &["format"],
        surfaces: CLASSIC,
    },
    Definition {
        name: "find_empty_space_on_canvas",
        title: "Find free canvas space",
        description: "Where a new top-level frame of width × height fits: next to nodeId in direction (top, right, bottom, left), or beside everything on the canvas, at least padding away from other nodes. Answers {x, y}.",
        kind: Kind::Reads,
        open_world: false,
        properties: || {
            json!({
                "filePath": file_path(),
                "direction": { "type": "string", "enum": ["top", "right", "bottom", "left"] },
                "width": { "type": "number", "minimum": 0 },
                "height": { "type": "number", "minimum": 0 },
                "padding": { "type": "number", "minimum": 0, "description": "Distance to keep from everything (default 0)." },
                "nodeId": { "type": "string", "description": "Look next to this top-level node (the whole canvas when absent)." }
            })
        },
        required: &["direction", "width", "height"],
        surfaces: CLASSIC,
    },
    Definition {
        name: "get_guidelines",
        title: "Design guidelines",
        description: "The team's concise guidance for one kind of work, with batch_design examples that run as they are: code, table, tailwind, landing-page, design-system, mobile-app, web-app, slides. Read it before building that kind of screen.",
        kind: Kind::Reads,
        open_world: false,
        properties: || json!({ "topic": { "type": "string", "enum": crate::tools::TOPICS, "description": "The kind of work." } }),
        required: &["topic"],
        surfaces: CLASSIC,
    },
    Definition {
        name: "get_style_guide_tags",
        title: "Style guide tags",
        description: "The tags style guides are chosen by (mood, style, industry, density, light/dark mode, screen), with how many guides carry each. Pick a few and call get_style_guide.",
        kind: Kind::Reads,
        open_world: false,
        properties: || json!({}),
        required: &[],
        surfaces: CLASSIC,
    },
    Definition {
        name: "get_style_guide",
        title: "Style guide",
        description: "A complete visual direction — palette with roles, type scale in fonts nib ships, radii, spacing, shadows, component notes, do/don't — best matching the tags (or the guide called name), plus a set_variables payload that applies it in one call. Unknown tags are named with the valid ones.",
        kind: Kind::Reads,
        open_world: false,
        properties: || {
            json!({
                "tags": { "type": "array", "items": { "type": "string" }, "description": "Tags from get_style_guide_tags, e.g. [\"calm\", \"finance\", \"light\"]." },
                "name": { "type": "string", "description": "A guide's name, to pick it directly." }
            })
        },
        required: &[],
        surfaces: CLASSIC,
    },
    Definition {
        name: "undo",
        title: "Undo",
        description: "Takes back the last change nib made to the document (one batch_design, set_variables or replace call) and saves (issues: the problems it brought back). Not part of Pencil's tools.",
        kind: Kind::Writes { destructive: true, idempotent: false },
        open_world: false,
        properties: || json!({ "filePath": file_path() }),
        required: &[],
        surfaces: BOTH,
    },
    Definition {
        name: "redo",
        title: "Redo",
        description: "Makes the last undone change again and saves (issues: the problems it added). Possible only before a new change.",
        kind: Kind::Writes { destructive: true, idempotent: false },
        open_world: false,
        properties: || json!({ "filePath": file_path() }),
        required: &[],
        surfaces: BOTH,
    },
    Definition {
        name: "claim",
        title: "Claim nodes",
        description: "For agents side by side in `nib serve`: claims nodes (with all inside) for this session; until it ends, other sessions' changes inside are refused, naming you. Claim again to renew; release: true when done (no nodeIds: all yours). Ends with your session too.",
        kind: Kind::Writes { destructive: false, idempotent: true },
        open_world: false,
        properties: || {
            json!({
                "filePath": file_path(),
                "nodeIds": { "type": "array", "items": { "type": "string" } },
                "minutes": { "type": "number", "exclusiveMinimum": 0, "maximum": 60, "description": "Default 10." },
                "release": { "type": "boolean" }
            })
        },
        required: &[],
        surfaces: CLASSIC,
    },
    Definition {
        name: "execute",
        title: "Run a JavaScript snippet",
        description: "Runs a JavaScript snippet against the document: the body of a function (return what you want back) that calls Insert(parent, node), Copy, Update(node, props), Replace, Move, Delete, Generate, SetVariables, and reads with Get(node | visitor, options), GetVariables, FindEmptySpace, TakeScreenshot ({outputPath}: to a file), Export, Print, and Claim(nodes, {minutes}) / Release(nodes) to keep other sessions of `nib serve` out of nodes you work on. `document` is the top level. One call is one undo step; the answer's issues say what it broke (new layout problems, undefined variables); any error undoes the whole call, names the line and column, and gives an editId: retry with {editId, edits: [{find, replace}]} instead of resending. read_skill {path: \"execute\"} has the API. Limits: 256 MB heap, 2 s of JavaScript, 10 s per call.",
        kind: Kind::Writes { destructive: true, idempotent: false },
        open_world: true,
        properties: || {
            json!({
                "filePath": file_path(),
                "input": { "type": "string", "description": "The snippet, e.g. const card = Insert(document, {type: \"frame\", width: 320, layout: \"vertical\"}); return card;" },
                "editId": { "type": "string", "description": "A snippet sent before (from its answer or error), to run again with edits." },
                "edits": { "type": "array", "description": "Find/replace patches for the snippet named by editId; each find occurs once in it.", "items": { "type": "object", "properties": { "find": { "type": "string" }, "replace": { "type": "string" } }, "required": ["find", "replace"], "additionalProperties": false } },
                "partial": { "type": "boolean", "description": "Keep what ran before a failing operation instead of undoing the whole call." },
                "ifRevision": if_revision()
            })
        },
        required: &[],
        surfaces: CURRENT,
    },
    Definition {
        name: "get_app_state",
        title: "Application state",
        description: "The active document, the open ones, the nodes a person selected on the canvas of `nib serve`, the claims sessions hold, the active document's version, revision, fileRevision, top-level nodes and components, and the font families nib draws. Call it first.",
        kind: Kind::Reads,
        open_world: false,
        properties: || json!({}),
        required: &[],
        surfaces: CURRENT,
    },
    Definition {
        name: "read_skill",
        title: "Read a skill",
        description: "nib's skills as Markdown: without a path, the index of every path; `execute` (the snippet API), `schema` (the .pen format), `generate`, `scripts-and-shaders`, `components`, and guides by kind of work (`guides/landing-page`, `guides/mobile-app`, …).",
        kind: Kind::Reads,
        open_world: false,
        properties: || json!({ "path": { "type": "string", "description": "A path from the index; the index when absent." } }),
        required: &[],
        surfaces: CURRENT,
    },
    Definition {
        name: "get_style",
        title: "Style archetypes",
        description: "Visual directions for a design without a system: without a name, every style with its summary and tags; with a name (or params.tags), the style's palette, type scale, radii, spacing and `variables`, ready for SetVariables(variables) in execute. params.mode \"light\" or \"dark\" gives one palette without themes.",
        kind: Kind::Reads,
        open_world: false,
        properties: || {
            json!({
                "name": { "type": "string", "description": "A style's name, from the list." },
                "params": { "type": "object", "description": "{tags: [\"calm\", \"finance\"], mode: \"dark\"}", "properties": { "tags": { "type": "array", "items": { "type": "string" } }, "mode": { "type": "string", "enum": ["light", "dark"] } }, "additionalProperties": false }
            })
        },
        required: &[],
        surfaces: CURRENT,
    },
];

/// The tools `set` lists.
pub fn tools(set: ToolSet) -> Vec<Tool> {
    DEFINITIONS.iter().filter(|d| set.lists(d)).map(tool).collect()
}

/// The names of the tools `set` lists.
pub fn tool_names(set: ToolSet) -> Vec<&'static str> {
    DEFINITIONS.iter().filter(|d| set.lists(d)).map(|d| d.name).collect()
}

/// True when `set` lists a tool called `name`.
pub fn has(set: ToolSet, name: &str) -> bool {
    DEFINITIONS.iter().any(|d| d.name == name && set.lists(d))
}

/// The tool called `name`, when `set` lists it.
pub fn find(set: ToolSet, name: &str) -> Option<Tool> {
    DEFINITIONS.iter().find(|d| d.name == name && set.lists(d)).map(tool)
}

fn tool(definition: &Definition) -> Tool {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), (definition.properties)());
    if !definition.required.is_empty() {
        schema.insert("required".into(), json!(definition.required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    // The title is the tool's own (`Tool::title`); the annotations' copy of it, which the
    // protocol keeps only for older clients, doubled it in every session's tool list.
    let annotations = match definition.kind {
        Kind::Reads => ToolAnnotations::new().read_only(true).destructive(false).idempotent(true),
        Kind::Writes { destructive, idempotent } => {
            ToolAnnotations::new().read_only(false).destructive(destructive).idempotent(idempotent)
        }
    }
    .open_world(definition.open_world);
    Tool::new(definition.name, definition.description, schema)
        .with_title(definition.title)
        .with_annotations(annotations)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_listed_once_and_runs() {
        let listed: Vec<&str> = DEFINITIONS.iter().map(|d| d.name).collect();
        let mut unique = listed.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), listed.len(), "no tool twice");
        let mut runnable: Vec<&str> = crate::tools::TOOLS.to_vec();
        runnable.sort_unstable();
        assert_eq!(unique, runnable, "the catalog and tools::call know the same tools");
    }

    #[test]
    fn each_surface_lists_its_tools_within_the_budget() {
        let names = |set| tools(set).into_iter().map(|t| t.name.to_string()).collect::<Vec<_>>();
        assert_eq!(names(ToolSet::Classic).len(), 18);
        assert_eq!(
            names(ToolSet::Current),
            ["open_document", "undo", "redo", "execute", "get_app_state", "read_skill", "get_style"]
        );
        assert_eq!(names(ToolSet::All).len(), 22);
        let default = serde_json::to_string(&tools(ToolSet::default())).unwrap();
        assert!(tools(ToolSet::default()).len() <= 20 && default.len() <= 16 * 1024, "{} bytes", default.len());
        assert!(
            !has(ToolSet::Classic, "execute") && has(ToolSet::Current, "execute") && has(ToolSet::All, "batch_design")
        );
    }

    #[test]
    fn schemas_are_flat_objects() {
        for tool in tools(ToolSet::All) {
            let schema = tool.input_schema.as_ref();
            assert_eq!(schema["type"], "object", "{}", tool.name);
            for combinator in ["oneOf", "anyOf", "allOf", "not"] {
                assert!(!schema.contains_key(combinator), "{} has {combinator}", tool.name);
            }
            let properties = schema["properties"].as_object().expect("properties");
            for required in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
                assert!(properties.contains_key(required.as_str().unwrap()), "{}: {required}", tool.name);
            }
            assert!(tool.annotations.is_some(), "{} has annotations", tool.name);
        }
    }
}
