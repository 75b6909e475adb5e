//! open_document and get_editor_state.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::workspace::{OpenDocument, Workspace};
use super::{ToolError, summary};
use crate::doc::Document;
use crate::doc::format::{Version, describe_version};

/// open_document's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenArgs {
    /// A path, or `new` / `new:<template>` for a new document.
    #[serde(rename = "filePathOrTemplate")]
    pub file_path_or_template: String,
}

/// What open_document answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Opened {
    /// The document's absolute path.
    pub file_path: String,
    /// True when the file was created.
    pub created: bool,
    /// The format version.
    pub version: Option<String>,
    /// Number of nodes.
    pub node_count: usize,
    /// The top-level nodes (at most ten, then a count).
    pub top_level_nodes: Vec<serde_json::Value>,
    /// Problems found while reading (the document opened anyway).
    pub problems: Vec<crate::diagnostic::Diagnostic>,
    /// The file's revision (what `ifRevision` quotes).
    pub file_revision: String,
    /// What happened to a document that was already open: read again because it changed on
    /// disk (its undo history starts over). Absent when it was kept as it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Templates for `new:<name>`: a first top-level frame of a typical screen size.
const TEMPLATES: &[(&str, &str, f64, f64)] =
    &[("desktop", "Desktop", 1440.0, 900.0), ("tablet", "Tablet", 834.0, 1194.0), ("mobile", "Mobile", 390.0, 844.0)];

/// Opens a document, creating the file when it does not exist. An existing file is never
/// overwritten, and one that cannot be read is refused with the reason.
pub fn open_document(workspace: &mut Workspace, args: OpenArgs) -> Result<Opened, ToolError> {
    let request = args.file_path_or_template.trim();
    if request == "new" || request.starts_with("new:") {
        return create_new(workspace, request.strip_prefix("new:"), None);
    }
    let path = workspace.resolve(request)?;
    let has_content = !crate::files::is_missing_or_empty(&path);
    if has_content && workspace.open_paths().contains(&path.as_path()) {
        // Already open: switch to it as every tool does, keeping its undo history; it is read
        // again only when it changed on disk, and then the note says the history starts over.
        let (open, note) = workspace.document(Some(request))?;
        let mut opened = describe(open, false);
        opened.note = note;
        return Ok(opened);
    }
    if has_content {
        let open = workspace.open(&path)?;
        return Ok(describe(open, false));
    }
    if path.extension().is_none_or(|e| e != "pen") {
        return Err(ToolError::new(format!("{} does not exist and is not a .pen file", path.display()))
            .with_hint("give a path ending in .pen to create a new document there"));
    }
    create_new(workspace, None, Some(path))
}

fn create_new(workspace: &mut Workspace, template: Option<&str>, path: Option<PathBuf>) -> Result<Opened, ToolError> {
    let document = match template {
        None => Document::new(),
        Some(name) => {
            let Some((_, title, width, height)) = TEMPLATES.iter().find(|(t, ..)| *t == name) else {
                let names: Vec<String> = TEMPLATES.iter().map(|(t, ..)| format!("new:{t}")).collect();
                return Err(ToolError::new(format!("there is no template '{name}'"))
                    .with_hint(format!("use new, {}", names.join(", "))));
            };
            let text = format!(
                "{{\"version\": \"{}\", \"children\": [{{\"type\": \"frame\", \"id\": \"screen\", \"x\": 0, \"y\": 0, \"name\": \"{title}\", \"width\": {width}, \"height\": {height}, \"fill\": \"#FFFFFF\", \"layout\": \"vertical\"}}]}}",
                crate::doc::NEW_DOCUMENT_VERSION
            );
            Document::load(&text).map_err(|e| ToolError::new(e.to_string()))?.document
        }
    };
    let path = path.unwrap_or_else(|| untitled(workspace.root()));
    if path.exists() {
        return Err(
            ToolError::new(format!("{} already exists", path.display())).with_hint("open it by its path instead")
        );
    }
    let bytes = OpenDocument::save_new(&path, &document, workspace.confinement())?;
    let open = workspace.adopt(path, document, &bytes);
    Ok(describe(open, true))
}

/// `untitled.pen`, `untitled-2.pen`, … : the first name not taken in `folder`.
fn untitled(folder: &Path) -> PathBuf {
    (1..)
        .map(|n| folder.join(if n == 1 { "untitled.pen".to_owned() } else { format!("untitled-{n}.pen") }))
        .find(|p| !p.exists())
        .unwrap_or_else(|| folder.join("untitled.pen"))
}

fn describe(open: &mut OpenDocument, created: bool) -> Opened {
    let imports = open.compiler.import_diagnostics(&open.document).iter().cloned();
    Opened {
        file_path: open.path.display().to_string(),
        created,
        version: open.document.version().map(str::to_owned),
        node_count: open.document.node_count(),
        top_level_nodes: summary::top_level(&open.document),
        problems: open.problems.iter().cloned().chain(imports).collect(),
        file_revision: open.file_revision().to_string(),
        note: None,
    }
}

/// get_editor_state's arguments.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateArgs {
    /// Also return the .pen schema and the rules an agent needs.
    #[serde(default)]
    pub include_schema: bool,
}

/// What get_editor_state answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditorState {
    /// The open documents.
    pub open_documents: Vec<String>,
    /// The document tools use when no filePath is given.
    pub current_document: Option<String>,
    /// The nodes a person selected on the canvas of `nib serve` in the current document, each
    /// `{id, type, name}`; a sentence saying there is none otherwise.
    pub selection: serde_json::Value,
    /// The current document's format version (what its nodes may hold and how they draw; the
    /// schema, when asked, says it in words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format_version: Option<String>,
    /// The current document's revision: it rises with every committed change, undo, redo, and
    /// reload after the file was changed by another program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// The revision of the current document's file: a short hash of its bytes, the same in
    /// every process, which writers quote as `ifRevision`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_revision: Option<String>,
    /// The claims in force in `nib serve`: each node claimed, its holder, whether it is yours,
    /// and when it ends. Other sessions' changes inside a claimed node are refused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<serde_json::Value>,
    /// The current document's top-level nodes (at most ten, then a count).
    pub top_level_nodes: Vec<serde_json::Value>,
    /// The current document's components, `id: name`.
    pub reusable_components: Vec<String>,
    /// The format and the rules, when asked, ending with what the current document's version
    /// spells (the newest version's when no document is open).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
}

/// What get_editor_state says when nobody selected anything in the current document.
const NO_SELECTION: &str =
    "none: no selection (a person selects nodes on the canvas of `nib serve`); address nodes by id";

/// The selected nodes that still exist, as `{id, type, name}`: a node deleted since it was
/// selected is left out rather than reported.
fn selected_nodes(open: &mut OpenDocument, ids: &[String]) -> Result<Vec<serde_json::Value>, ToolError> {
    let scene = open.scene(crate::resolve::SceneOptions::FULL)?;
    Ok(ids
        .iter()
        .filter_map(|id| scene.node_by_id(id))
        .map(|key| {
            let node = scene.node(key);
            serde_json::json!({"id": node.id, "type": node.props.type_name(), "name": node.props.name()})
        })
        .collect())
}

/// The schema and rules text for include_schema, in the team's own words; the current
/// document's version is described after it (`doc::format::describe_version`).
pub const RULES: &str = include_str!("../../../../assets/text/pen-rules.md");

/// Describes the open documents and the current one.
pub fn get_editor_state(workspace: &mut Workspace, args: StateArgs) -> Result<EditorState, ToolError> {
    let open_documents = workspace.open_paths().iter().map(|p| p.display().to_string()).collect();
    let current_path = workspace.current_path().map(|p| p.display().to_string());
    let selection = workspace.selection().cloned();
    let mut version = None;
    let mut file_revision = None;
    let (top_level_nodes, reusable_components, selected, revision) = match current_path {
        Some(_) => {
            let (open, _) = workspace.document(None)?;
            let selected = match selection {
                Some(selection) if selection.path == open.path => selected_nodes(open, &selection.ids)?,
                _ => Vec::new(),
            };
            let revision = Some(open.document.revision());
            file_revision = Some(open.file_revision().to_string());
            // A document without a version, or of one nib does not know, is read as a known one.
            version = Some(Version::read_as(open.document.version()));
            (summary::top_level(&open.document), summary::components(&open.document), selected, revision)
        }
        None => (Vec::new(), Vec::new(), Vec::new(), None),
    };
    let selection = if selected.is_empty() {
        serde_json::Value::String(NO_SELECTION.to_owned())
    } else {
        serde_json::Value::Array(selected)
    };
    Ok(EditorState {
        open_documents,
        current_document: current_path,
        selection,
        format_version: version.map(|v| v.to_string()),
        revision,
        file_revision,
        claims: super::claim::listed(workspace),
        top_level_nodes,
        reusable_components,
        schema: args
            .include_schema
            .then(|| format!("{RULES}\n{}", describe_version(version.unwrap_or(Version::NEWEST)))),
    })
}
