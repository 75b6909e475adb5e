//! The design lint as snapshot_layout's `lint` option: the findings of `review::lint` for the
//! document (or under one node), with the configuration asked for or `nib-lint.json` beside the
//! document, read inside the workspace.

use serde_json::{Value, json};

use super::ToolError;
use super::workspace::Workspace;
use crate::resolve::SceneOptions;
use crate::review::lint::{CONFIG_FILE, Config, Preset, lint};

/// Most bytes of a `nib-lint.json`.
const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// The lint's findings as `{rule, level, node, message, fix}`, in the order the rules ran.
pub(super) fn findings(
    workspace: &mut Workspace,
    file_path: Option<&str>,
    parent_id: Option<&str>,
    asked: &Value,
) -> Result<Vec<Value>, ToolError> {
    let beside = workspace.document(file_path)?.0.folder().join(CONFIG_FILE);
    let config = match asked {
        Value::Bool(true) => match workspace.read_file(&beside, MAX_CONFIG_BYTES) {
            Ok(bytes) => Config::parse(&String::from_utf8_lossy(&bytes))
                .map_err(|e| ToolError::new(format!("{CONFIG_FILE}: {e}")))?,
            Err(_) => Config::default(),
        },
        Value::String(preset) => {
            Config { preset: Preset::parse(preset).map_err(|e| ToolError::new(e.to_string()))?, ..Config::default() }
        }
        Value::Object(_) => Config::parse(&asked.to_string()).map_err(|e| ToolError::new(format!("lint: {e}")))?,
        _ => {
            return Err(ToolError::new("lint is true, a preset name or {preset, rules}").with_hint(
                "e.g. \"lint\": true, \"lint\": \"accessibility\", or \"lint\": {\"rules\": {\"contrast\": \"error\"}}",
            ));
        }
    };
    let (open, _) = workspace.document(file_path)?;
    let found = lint(open.compiler.host(), &open.document, &config).map_err(ToolError::from)?;
    let within: Option<std::collections::HashSet<String>> = match parent_id {
        None => None,
        Some(id) => {
            let scene = open.scene(SceneOptions::FULL)?;
            let key = scene.find(id)?;
            Some(scene.subtree(key).map(|k| scene.node(k).id.clone()).collect())
        }
    };
    Ok(found
        .into_iter()
        .filter(|f| within.as_ref().is_none_or(|ids| f.node.as_ref().is_some_and(|n| ids.contains(n))))
        .map(|f| {
            json!({
                "rule": f.code,
                "level": f.severity,
                "node": f.node,
                "message": f.message,
                "fix": f.hints.first(),
            })
        })
        .collect())
}
