//! The `theme` argument of get_screenshot and export: a picture of nodes as they look under a
//! theme (`{"Mode": "Dark"}`) without copying screens. The document's compiler draws it (a
//! compile option, as for `nib render --theme` and snapshot tests); this only reads the
//! argument.

use serde_json::Value;

use super::ToolError;
use crate::compile::ThemeChoice;
use crate::doc::Document;
use crate::resolve::{Library, themes_listed};

/// The choice of `theme`, an object of axis and value, on the top-level nodes holding `ids`
/// (every top-level node when `ids` is empty). The compiler checks the axes and values.
pub(super) fn choice(
    document: &Document,
    library: &dyn Library,
    ids: &[&str],
    theme: &Value,
) -> Result<ThemeChoice, ToolError> {
    let Value::Object(map) = theme else {
        return Err(ToolError::new("theme is an object of axis and value, e.g. {\"Mode\": \"Dark\"}")
            .with_hint(themes_listed(document, library)));
    };
    let wanted: Vec<(String, String)> = map
        .iter()
        .map(|(axis, value)| (axis.clone(), value.as_str().map_or_else(|| value.to_string(), str::to_owned)))
        .collect();
    Ok(ThemeChoice { axes: wanted, nodes: ids.iter().map(|id| (*id).to_owned()).collect() })
}
