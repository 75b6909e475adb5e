//! `nib layout FILE`: the computed boxes and layout problems of a file, as text or as the JSON
//! snapshot_layout answers.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::tools::{SnapshotAnswer, SnapshotArgs, Workspace, snapshot_layout};

/// `nib layout`'s arguments.
#[derive(Debug, clap::Args)]
pub struct LayoutArgs {
    /// The .pen file.
    file: PathBuf,
    /// Start from this node (id or instance path) instead of the whole canvas.
    #[arg(long)]
    node: Option<String>,
    /// Levels of children shown below the starting nodes.
    #[arg(long, default_value_t = 1)]
    depth: usize,
    /// Print only the problems.
    #[arg(long)]
    problems: bool,
    /// Print the JSON snapshot_layout answers instead of text.
    #[arg(long)]
    json: bool,
}

impl LayoutArgs {
    /// Lays the file out with `fonts` and prints what was asked for.
    pub fn run(self, fonts: nib::text::FontOptions) -> ExitCode {
        let LayoutArgs { file, node, depth, problems, json } = self;
        run(&file, Settings { node, depth, problems, json, fonts })
    }
}

pub struct Settings {
    pub node: Option<String>,
    pub depth: usize,
    pub problems: bool,
    pub json: bool,
    pub fonts: nib::text::FontOptions,
}

pub fn run(file: &Path, settings: Settings) -> ExitCode {
    let root = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let mut workspace = Workspace::new(root);
    for warning in nib::host::DiskFonts::book(settings.fonts.clone()).warnings() {
        super::warn(&warning);
    }
    workspace.set_fonts(settings.fonts);
    let args = SnapshotArgs {
        file_path: Some(file.to_string_lossy().into_owned()),
        parent_id: settings.node,
        max_depth: Some(settings.depth),
        problems_only: settings.problems,
        lint: None,
    };
    let answer = match snapshot_layout(&mut workspace, args) {
        Ok(answer) => answer,
        Err(error) => {
            // A document that expands past its budget is named with its line and column.
            match error.data.as_ref().and_then(|data| data["overBudget"]["pointer"].as_str()) {
                Some(pointer) => {
                    tell!("nib: {}", super::located_text(file, pointer, &error.message, error.hint.as_deref()))
                }
                None => tell!("nib: {error}"),
            }
            return ExitCode::from(super::tool_failure_code(&error));
        }
    };
    if settings.json {
        say!("{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
    } else {
        match &answer.layout {
            SnapshotAnswer::Full(snapshot) => say_part!("{}", nib::layout::snapshot::snapshot_text(snapshot)),
            SnapshotAnswer::Problems { text, .. } => say_part!("{text}"),
        }
    }
    match answer.layout {
        SnapshotAnswer::Problems { problems, .. } if !problems.is_empty() => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}
