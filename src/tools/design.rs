//! batch_design as a tool: run the script, save before answering.

use serde::Deserialize;

use super::ToolError;
use super::workspace::Workspace;
use crate::layout::LaidOutCanvas;
use crate::script::{Context, Options, Outcome, run};

/// batch_design's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DesignArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// The script.
    pub operations: String,
}

/// Runs a batch_design script and saves the document when it changed. A failed script changes
/// nothing and is an error whose data is the structured outcome.
pub fn batch_design(workspace: &mut Workspace, args: DesignArgs) -> Result<(Outcome, Option<String>), ToolError> {
    let images = workspace.images.clone();
    let max_statements = workspace.max_statements;
    let fonts = workspace.fonts;
    let confinement = workspace.confinement().cloned();
    let (open, note) = workspace.document(args.file_path.as_deref())?;
    let folder = open.folder().to_owned();
    let before = open.document.revision();
    let engine = open.take_text_engine(fonts);
    let canvas = LaidOutCanvas::new(&open.imports, open.last_full_scene(), engine);
    let context = Context {
        library: &open.imports,
        images: images.as_ref(),
        folder: Some(&folder),
        confinement: confinement.as_ref(),
        canvas: Some(&canvas),
        options: Options { max_statements, id_seed: None },
    };
    let mut outcome = run(&mut open.document, &args.operations, &context);
    open.return_text_engine(canvas.into_text_engine());
    if !outcome.success {
        let data = serde_json::to_value(&outcome).ok();
        return Err(ToolError { message: outcome.text(), hint: None, data });
    }
    if open.document.revision() != before
        && let Err(error) = open.save()
    {
        // The change was undone: the images stored for it are not used by anything.
        outcome.discard_created_files();
        return Err(error);
    }
    Ok((outcome, note))
}
