//! `nib exec FILE SCRIPT|-`: run an `execute` snippet against a document from the command line
//! (as Pen's CLI runs one from standard input), print the answer, and save only when the whole
//! snippet ran. The snippet works inside the document's folder, as an MCP client's works inside
//! the server's: exports and images stay there.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::tools::{Caller, Workspace, call_as};
use serde_json::{Value, json};

/// The examples `nib exec --help` ends with.
pub const EXAMPLES: &str = "Examples:
  nib exec design.pen card.js                 run the snippet in card.js, save, print the answer
  echo 'return Get().map((n) => n.name);' | nib exec design.pen -
  nib mcp --tools current                     the same API for an MCP client (read_skill execute)";

/// `nib exec`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExecArgs {
    /// The .pen file.
    file: PathBuf,
    /// The snippet's file, or - to read it from standard input.
    script: String,
    #[command(flatten)]
    writer: super::WriterArgs,
    /// Run only if the file is at this revision (its fileRevision); otherwise exit 1 and
    /// change nothing.
    #[arg(long, value_name = "REV")]
    if_revision: Option<String>,
}

impl ExecArgs {
    /// Runs the snippet against the file, text measured with `fonts`.
    pub fn run(self, fonts: nib::text::FontOptions) -> ExitCode {
        let ExecArgs { file, script, writer, if_revision } = self;
        run(&file, &script, fonts, &writer.caller("nib exec"), if_revision.as_deref())
    }
}

pub fn run(
    file: &Path,
    script: &str,
    fonts: nib::text::FontOptions,
    caller: &Caller,
    if_revision: Option<&str>,
) -> ExitCode {
    let snippet = match super::documents::read_script_text(Path::new(script), nib::tools::MAX_SNIPPET_BYTES, "snippet")
    {
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
