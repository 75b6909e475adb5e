//! batch_design as a tool: run the script, save before answering.

use serde::Deserialize;

use super::ToolError;
use super::workspace::Workspace;
use crate::script::{Context, Options, Outcome, run};

/// batch_design's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DesignArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// The script (or the array of operation objects some agents send).
    pub operations: Operations,
    /// The file's revision the script was written against: refused, nothing done, when the
    /// file is at another.
    pub if_revision: Option<String>,
}

/// batch_design's operations: the script, or the array of operation objects a published agent
/// skill teaches (`[{"type": "insert", "targetId": …, "node": {…}}, …]`), run as the same script.
#[derive(Debug, Clone, PartialEq)]
pub enum Operations {
    /// The I/C/U/R/M/D/G script.
    Script(String),
    /// Operation objects, converted to the script.
    Objects(Vec<serde_json::Value>),
}

impl<'de> Deserialize<'de> for Operations {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Operations, D::Error> {
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(script) => Ok(Operations::Script(script)),
            serde_json::Value::Array(objects) => Ok(Operations::Objects(objects)),
            _ => Err(serde::de::Error::custom(
                r#"operations must be the script as a string, e.g. "card=I(\"screen\", {type: \"frame\"})""#,
            )),
        }
    }
}

/// Runs a batch_design script and saves the document when it changed; answers the outcome, a
/// note, and the file's revision after it. A failed script changes nothing and is an error
/// whose data is the structured outcome.
pub fn batch_design(
    workspace: &mut Workspace,
    args: DesignArgs,
) -> Result<(Outcome, Option<String>, String), ToolError> {
    // The array form runs as the script it stands for; the answer shows that script.
    let (script, converted) = match args.operations {
        Operations::Script(script) => (script, None),
        Operations::Objects(objects) => {
            let script = crate::script::dialect::to_script(&objects)
                .map_err(|e| ToolError::new(format!("batch_design: {e}")).with_hint(e.hint))?;
            let said = format!(
                "operations was an array of objects; it ran as this script (send the script itself next time):\n{script}"
            );
            (script, Some(said))
        }
    };
    let images = workspace.images.clone();
    let max_statements = workspace.max_statements;
    let confinement = workspace.confinement().cloned();
    let (open, note) = workspace.document(args.file_path.as_deref())?;
    open.expect_revision(args.if_revision.as_deref())?;
    // The problems before the call, to answer with the ones it adds.
    let problems_before = open.known_problems();
    let folder = open.folder().to_owned();
    let before = open.document.revision();
    let imports = open.compiler.imports(&open.document);
    let canvas = open.compiler.canvas(&open.document);
    let context = Context {
        library: imports.as_ref(),
        images: images.as_ref(),
        folder: Some(&folder),
        confinement: confinement.as_ref(),
        canvas: Some(&canvas),
        options: Options { max_statements, id_seed: None },
    };
    let mut outcome = run(&mut open.document, &script, &context);
    drop(canvas);
    if !outcome.success {
        let data = serde_json::to_value(&outcome).ok();
        let message = match &converted {
            Some(said) => format!("{}\n\n{said}", outcome.text()),
            None => outcome.text(),
        };
        return Err(ToolError { message, hint: None, data, cause: super::Cause::Call });
    }
    if open.document.revision() != before
        && let Err(error) = open.save()
    {
        // The change was undone: the images stored for it are not used by anything.
        outcome.discard_created_files();
        return Err(error);
    }
    let introduced = open.problems_since(problems_before.as_deref());
    let said = super::introduced::said(&introduced, &outcome.issues);
    outcome.issues.extend(said);
    let note = match (note, converted) {
        (Some(note), Some(said)) => Some(format!("{note} {said}")),
        (note, said) => note.or(said),
    };
    Ok((outcome, note, open.file_revision().to_string()))
}
