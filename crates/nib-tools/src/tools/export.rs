//! export: nodes, frames or the canvas written as files in the workspace (PNG, JPEG, WebP, SVG,
//! PDF, HTML/CSS) or the variables as design tokens — answering paths and sizes, never the
//! bytes, so a big export does not flood an agent's context.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ToolError;
use super::workspace::Workspace;
use crate::compile::CompileOptions;
use crate::export::job::{APP_ENTRY, APP_ENTRY_LIMIT, ExportLook, ExportSettings, Format, SinkError, Targets, run};

/// The folder exports go to when no outputPath is given (relative to the workspace root).
pub(crate) const DEFAULT_EXPORT_FOLDER: &str = "exports";

/// Most nodes one call exports: each is a file, and an answer listing more is no longer read.
pub(crate) const MAX_EXPORT_NODES: usize = 200;

/// export's arguments (and execute's `Export`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// png, jpeg, webp, svg, pdf, html, html-tailwind, react, tokens-css, tokens-json or tailwind.
    pub format: String,
    /// The nodes to export (the canvas when absent and `all` is not set).
    pub node_ids: Option<Vec<String>>,
    /// Every top-level frame, a file (PDF: a page) each.
    pub all: Option<bool>,
    /// A file (for one file) or a folder, relative to the workspace (default `exports/`).
    pub output_path: Option<String>,
    /// Draw under this theme (`{"Mode": "Dark"}`), as themed instances of the nodes would look.
    pub theme: Option<serde_json::Value>,
    /// How the files look (scale, quality, text, embed, includeHtmlScaffold, includeLayerNames,
    /// includeLayerIds): the options `nib export` and the library share.
    #[serde(flatten)]
    pub look: ExportLook,
    /// Any other key: refused (serde cannot deny unknown keys beside a flattened struct; the
    /// struct takes its keys first, this gets the rest).
    #[serde(flatten)]
    unknown: serde_json::Map<String, serde_json::Value>,
}

impl ExportArgs {
    /// The error for a key export does not take, as serde words it for the other tools.
    fn refuse_unknown(&self) -> Result<(), ToolError> {
        let Some(key) = self.unknown.keys().next() else { return Ok(()) };
        let expected: Vec<String> = Self::keys().iter().map(|k| format!("`{k}`")).collect();
        Err(ToolError::new(format!(
            "export: invalid arguments: unknown field `{key}`, expected one of {}",
            expected.join(", ")
        ))
        .with_hint("check the parameter names and types in the tool's schema"))
    }

    /// The keys export takes, read from the types themselves (the arguments and the flattened
    /// options, as serde writes them), so the list cannot fall behind a new option.
    fn keys() -> Vec<String> {
        let empty = serde_json::json!({ "format": "" });
        let written = serde_json::from_value::<ExportArgs>(empty).and_then(serde_json::to_value);
        match written {
            Ok(serde_json::Value::Object(keys)) => keys.into_iter().map(|(key, _)| key).collect(),
            _ => Vec::new(),
        }
    }
}

/// A file the export wrote.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WrittenFile {
    /// Its path relative to the workspace root.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The node it shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<String>,
    /// A file was at its path before (and was replaced): removing it would not bring that one
    /// back, so an undone execute call keeps it.
    #[serde(skip)]
    pub replaced: bool,
}

/// What export answers.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportAnswer {
    /// The format written.
    pub format: &'static str,
    /// The files, in the order they were written.
    pub files: Vec<WrittenFile>,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// What could not be exported as written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
}

/// Exports the document's nodes or variables into files in the workspace.
pub fn export(workspace: &mut Workspace, args: ExportArgs) -> Result<ExportAnswer, ToolError> {
    args.refuse_unknown()?;
    let format = Format::parse(&args.format).map_err(|e| ToolError::new(e.to_string()))?;
    args.look.check().map_err(|e| ToolError::new(e.to_string()))?;
    let node_ids = args.node_ids.unwrap_or_default();
    if node_ids.len() > MAX_EXPORT_NODES {
        return Err(ToolError::new(format!(
            "{} nodes asked; one export takes at most {MAX_EXPORT_NODES}",
            node_ids.len()
        ))
        .with_hint("split the nodes over several calls, or use all: true for the top-level frames"));
    }
    let all = args.all.unwrap_or(false);
    if all && !node_ids.is_empty() {
        return Err(ToolError::new("give nodeIds or all: true, not both"));
    }
    let root = workspace.root().to_owned();
    let confinement = workspace.confinement().cloned();
    let output = workspace.resolve(args.output_path.as_deref().unwrap_or(DEFAULT_EXPORT_FOLDER))?;
    let asked = args.file_path.as_deref().map(|path| workspace.resolve(path)).transpose()?;
    let guard = workspace.output_guard(asked.as_deref());
    let (open, _) = workspace.document(args.file_path.as_deref())?;
    let title = open.path.file_stem().map_or_else(|| "canvas".to_owned(), |s| s.to_string_lossy().into_owned());
    // Under a theme: the document's compiler draws its themed copy (the theme on the exported
    // nodes' top-level frames), and keeps it apart from the document's own look.
    let ids: Vec<&str> = node_ids.iter().map(String::as_str).collect();
    let theme = match &args.theme {
        Some(theme) => {
            let imports = open.compiler.imports(&open.document);
            Some(super::theme::choice(&open.document, imports.as_ref(), &ids, theme)?)
        }
        None => None,
    };
    let options = CompileOptions { parts_of: None, theme, keep_variables: format.is_page() };
    let compiled = match open.compiler.compiled(&open.document, &options) {
        Ok(compiled) => compiled,
        Err(refused) => return Err(super::workspace::refusal(&mut open.compiler, &open.document, refused)),
    };
    let scene = &compiled.scene;
    let mut keys = Vec::with_capacity(node_ids.len());
    for id in &node_ids {
        keys.push(scene.find(id)?);
    }
    let targets = if all {
        Targets::Frames
    } else if keys.is_empty() {
        Targets::Canvas
    } else {
        Targets::Nodes(keys)
    };
    let one_file = format.single_file()
        || (!format.is_page() && matches!(&targets, Targets::Canvas | Targets::Nodes(_)) && node_ids.len() <= 1);
    // A path with an extension names the file of a one-file export; anything else is a folder,
    // but never one named like a file of several (`one.png` for two nodes is a mistake).
    if !one_file {
        format.one_file_for_many(&output, node_ids.len().max(2), output.is_dir()).map_err(|e| {
            ToolError::new(e.to_string()).with_hint("give a folder as outputPath (\"exports/\"), or export one node")
        })?;
    }
    let into_file = one_file && output.extension().is_some();
    // Before anything is rendered: the file named must be of the format, and never a document.
    guard.check(&output, into_file.then(|| format.extensions())).map_err(super::screenshot::refused_output)?;
    let folder = if into_file { output.parent().map_or_else(|| root.clone(), Path::to_owned) } else { output.clone() };
    // A React export writes its app's files (package.json, index.html, main.tsx…) only into a
    // folder of its own: one that has files already is a project's, unless forceScaffold says so.
    let mut look = args.look;
    if format == Format::React {
        let (has_files, main) = crate::files::glance_into(&folder, APP_ENTRY, APP_ENTRY_LIMIT);
        look.scaffold_in(has_files, main.as_deref());
    }
    let settings = ExportSettings {
        format,
        targets,
        look,
        link_images: false,
        background: None,
        output_folder: Some(folder.clone()),
        // Images are embedded (link_images is off): no path is compared.
        working_folder: PathBuf::new(),
    };
    // The name inside the output folder: the export's own, or the file named in outputPath.
    let named_file = into_file.then(|| output.file_name().map(|n| n.to_string_lossy().into_owned())).flatten();
    let relative_of = |name: &str| -> String { named_file.clone().unwrap_or_else(|| name.to_owned()) };
    let path_of = |name: &str| -> PathBuf { folder.join(relative_of(name)) };
    // Opened once, before anything is drawn: no file is written through a link or over a
    // special file, and a folder of the export's own holding one is refused as a whole.
    let opened = if into_file {
        crate::files::OutputFolder::open(&folder, confinement.as_ref(), &guard).and_then(|opened| {
            named_file.as_deref().map_or(Ok(()), |name| opened.refuse_in_the_way(name)).map(|()| opened)
        })
    } else {
        crate::files::OutputFolder::prepare(&folder, confinement.as_ref(), &guard)
    };
    let out_folder = opened.map_err(super::screenshot::refused_output)?;
    // The paths that held a file before this export wrote them.
    let replaced = std::sync::Mutex::new(std::collections::HashSet::new());
    // What stopped a write, kept typed: the run's error holds it as text.
    let stopped = std::sync::Mutex::new(super::Cause::Call);
    let failed = |error: crate::files::FileError| {
        *stopped.lock().unwrap_or_else(|e| e.into_inner()) = super::Cause::of(&error);
        error
    };
    let sink = |name: &str, bytes: &[u8]| -> Result<(), SinkError> {
        let path = path_of(name);
        if path.exists() {
            replaced.lock().unwrap_or_else(|e| e.into_inner()).insert(path.clone());
        }
        Ok(out_folder.write(&relative_of(name), bytes).map_err(failed)?)
    };
    let report = run(&compiled, &title, &settings, &sink, &|_, _| {}).map_err(|e| {
        let mut error =
            ToolError::new(e.to_string()).with_hint("check the nodeIds and the outputPath (inside the workspace)");
        if let crate::export::job::RunError::Write { .. } = e {
            error.cause = *stopped.lock().unwrap_or_else(|e| e.into_inner());
        }
        error
    })?;
    let replaced = replaced.into_inner().unwrap_or_else(|e| e.into_inner());
    let files: Vec<WrittenFile> = report
        .files
        .iter()
        .map(|file| {
            let path = path_of(&file.name);
            let shown = path.strip_prefix(&root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            WrittenFile {
                path: shown,
                bytes: file.bytes,
                node_id: file.node.clone(),
                replaced: replaced.contains(&path),
            }
        })
        .collect();
    let total_bytes = files.iter().map(|f| f.bytes).sum();
    Ok(ExportAnswer { format: format.name(), files, total_bytes, warnings: report.warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_an_unknown_one_is_refused_against_are_the_types_own() {
        let keys = ExportArgs::keys();
        for key in ["filePath", "format", "nodeIds", "all", "outputPath", "theme", "scale", "quality", "text"] {
            assert!(keys.iter().any(|k| k == key), "{key} in {keys:?}");
        }
        for key in ["embed", "includeHtmlScaffold", "includeLayerNames", "includeLayerIds", "forceScaffold", "ids"] {
            assert!(keys.iter().any(|k| k == key), "{key} in {keys:?}");
        }
        assert_eq!(keys.len(), 15, "{keys:?}");
        let args: ExportArgs = serde_json::from_value(serde_json::json!({"format": "png", "scal": 2})).expect("parses");
        let refused = args.refuse_unknown().expect_err("scal is no key");
        assert!(refused.message.contains("unknown field `scal`, expected one of `"), "{}", refused.message);
        assert!(refused.message.contains("`includeLayerIds`"), "{}", refused.message);
    }
}
