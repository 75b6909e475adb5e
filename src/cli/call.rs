//! `nib call TOOL --args JSON`: run a design tool exactly as an MCP client would, and print its
//! JSON answer.

use std::process::ExitCode;

use nib::tools::{Workspace, call};

pub fn run(tool: &str, args: &str, fonts: nib::text::FontOptions) -> ExitCode {
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
    let root = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let mut workspace = Workspace::new(root);
    workspace.images = std::sync::Arc::new(super::configured_images());
    workspace.fonts = fonts;
    match call(&mut workspace, tool, arguments) {
        Ok(answer) => {
            say!("{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Err(error) => {
            say!("{}", serde_json::to_string_pretty(&error.to_json()).unwrap_or_default());
            ExitCode::from(1)
        }
    }
}
