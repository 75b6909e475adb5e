//! `nib call TOOL --args JSON`: run a design tool exactly as an MCP client would, and print its
//! JSON answer. Like `nib mcp`, it works inside one folder (`--root`, else the working
//! directory): a path outside it, absolute or through `..` or a link, is refused.

use std::path::PathBuf;
use std::process::ExitCode;

use nib::tools::{Caller, Workspace, call_as};

/// `nib call`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CallArgs {
    /// The tool's name.
    tool: String,
    /// The arguments as a JSON object; relative paths are against the root.
    #[arg(long, default_value = "{}")]
    args: String,
    /// The folder documents are in and relative paths start from (default: the working
    /// directory); paths outside it are refused, as `nib mcp --root` refuses them.
    #[arg(long)]
    root: Option<PathBuf>,
    #[command(flatten)]
    writer: super::WriterArgs,
}

impl CallArgs {
    /// Calls the tool, text measured with `fonts`.
    pub fn run(self, fonts: nib::text::FontOptions) -> ExitCode {
        let CallArgs { tool, args, root, writer } = self;
        run(&tool, &args, root, fonts, &writer.caller("nib call"))
    }
}

pub fn run(tool: &str, args: &str, root: Option<PathBuf>, fonts: nib::text::FontOptions, caller: &Caller) -> ExitCode {
    let arguments: serde_json::Value = match args.trim() {
        "" => serde_json::json!({}),
        text => match serde_json::from_str(text) {
            Ok(value) => value,
            Err(error) => {
                let answer = serde_json::json!({"error": format!("--args is not JSON: {error}"), "hint": "pass an object, e.g. --args '{\"filePath\": \"design.pen\"}'"});
                say!("{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
                return ExitCode::from(2);
            }
        },
    };
    let given = match root {
        Some(root) => root,
        None => std::env::current_dir().unwrap_or_else(|_| ".".into()),
    };
    let root = match std::fs::canonicalize(&given) {
        Ok(root) if root.is_dir() => root,
        Ok(_) | Err(_) => {
            let answer = serde_json::json!({
                "error": format!("the root folder {} is not a folder nib can use", given.display()),
                "hint": "pass an existing folder with --root"
            });
            say!("{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
            return ExitCode::from(2);
        }
    };
    let mut workspace = Workspace::new(root).confined();
    workspace.images = std::sync::Arc::new(super::configured_images());
    workspace.set_fonts(fonts);
    match call_as(&mut workspace, caller, tool, arguments) {
        Ok(answer) => {
            say!("{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
            // An answer can report a failure of its own (execute with `partial`, a batch that
            // stopped): the exit code says it too, as the help promises.
            if answer.get("success") == Some(&serde_json::Value::Bool(false)) {
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            say!("{}", serde_json::to_string_pretty(&error.to_json()).unwrap_or_default());
            ExitCode::from(super::tool_failure_code(&error))
        }
    }
}
