//! `nib exec FILE SCRIPT|-`: run an `execute` snippet against a document from the command line
//! (as Pen's CLI runs one from standard input), print the answer, and save only when the whole
//! snippet ran. The snippet works inside the document's folder, as an MCP client's works inside
//! the server's: exports and images stay there.

use std::path::Path;
use std::process::ExitCode;

use nib::tools::{Caller, Workspace, call_as};
use serde_json::{Value, json};

pub fn run(
    file: &Path,
    script: &str,
    fonts: nib::text::FontOptions,
    caller: &Caller,
    if_revision: Option<&str>,
) -> ExitCode {
    let snippet = match super::read_script_text(Path::new(script), nib::tools::MAX_SNIPPET_BYTES, "snippet") {
        Ok(snippet) => snippet,
        Err(error) => {
            let hint = error
                .hints
                .first()
                .map_or("pass the snippet's file, or - to read it from standard input", String::as_str);
            return usage(&error.message, hint);
        }
    };
    let Some(name) = file.file_name() else {
        return usage(&format!("{} is not a file", file.display()), "give the .pen file to run the snippet against");
    };
    if !file.is_file() {
        return usage(
            &format!("{} does not exist", file.display()),
            "create it first (nib call open_document --args '{\"filePathOrTemplate\": \"new.pen\"}')",
        );
    }
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_owned());
    let mut workspace = Workspace::new(folder).confined();
    workspace.images = std::sync::Arc::new(super::configured_images());
    workspace.set_fonts(fonts);
    let mut arguments = json!({ "filePath": name.to_string_lossy(), "input": snippet });
    if let Some(revision) = if_revision {
        arguments["ifRevision"] = json!(revision);
    }
    match call_as(&mut workspace, caller, "execute", arguments) {
        Ok(mut answer) => {
            let pictures = without_pictures(&mut answer);
            say!("{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
            if pictures > 0 {
                tell!(
                    "note: {pictures} screenshot(s) are not printed; Export(node, \"png\") in the snippet writes them as files"
                );
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            say!("{}", serde_json::to_string_pretty(&error.to_json()).unwrap_or_default());
            ExitCode::from(super::tool_failure_code(&error))
        }
    }
}

/// Drops the pictures' bytes from an answer printed on a terminal; answers how many there were.
fn without_pictures(answer: &mut Value) -> usize {
    let Some(Value::Array(shots)) = answer.get_mut("screenshots") else { return 0 };
    for shot in shots.iter_mut() {
        if let Some(map) = shot.as_object_mut() {
            map.remove("data");
        }
    }
    shots.len()
}

fn usage(message: &str, hint: &str) -> ExitCode {
    let answer = json!({ "error": message, "hint": hint });
    say!("{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
    ExitCode::from(2)
}
