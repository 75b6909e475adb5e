//! A style guide as the `variables` argument of set_variables, so an agent applies a whole
//! direction in one call. Built from the guide's own tokens rather than written next to them, so
//! the palette an agent reads and the variables it sets can never disagree.
//!
//! Every guide defines the same core names (`--background`, `--primary`, `--radius-md`,
//! `--space-lg`, `--text-body`, `--font-heading`…), so a design built on one guide's variables
//! switches to another guide with one more set_variables call.

use serde_json::{Map, Value, json};

use super::catalog::{MODE_AXIS, StyleGuide};
use crate::tools::number;

/// The `variables` argument of set_variables for `guide`: colors (themed by `Mode` when the
/// guide has a light and a dark palette), font families, radii, spacing and text sizes.
pub fn variables(guide: &StyleGuide) -> Value {
    let mut out = Map::new();
    for swatch in &guide.palette {
        let value = match (&swatch.value, &swatch.light, &swatch.dark) {
            (Some(value), ..) => json!(value),
            (None, Some(light), Some(dark)) => {
                let (axis, [light_name, dark_name]) = MODE_AXIS;
                json!([
                    {"value": light, "theme": {axis: light_name}},
                    {"value": dark, "theme": {axis: dark_name}},
                ])
            }
            // A swatch with neither form fails the catalog tests; leave it out rather than guess.
            _ => continue,
        };
        out.insert(swatch.variable.clone(), json!({"type": "color", "value": value}));
    }
    for (role, family) in [("heading", &guide.fonts.heading), ("body", &guide.fonts.body), ("mono", &guide.fonts.mono)]
    {
        out.insert(format!("--font-{role}"), json!({"type": "string", "value": family}));
    }
    for radius in &guide.radii {
        out.insert(format!("--radius-{}", radius.name), json!({"type": "number", "value": number(radius.value)}));
    }
    for step in &guide.spacing {
        out.insert(format!("--space-{}", step.name), json!({"type": "number", "value": number(step.value)}));
    }
    for style in &guide.type_scale {
        out.insert(format!("--text-{}", style.role), json!({"type": "number", "value": number(style.font_size)}));
    }
    Value::Object(out)
}

/// True when the guide has a light and a dark palette.
pub(crate) fn is_themed(guide: &StyleGuide) -> bool {
    guide.palette.iter().any(|s| s.light.is_some() || s.dark.is_some())
}

/// `variables` with each themed colour reduced to its value in `mode` (`light` or `dark`), for
/// a document that wants one palette without themes.
pub(crate) fn one_mode(variables: &Value, mode: &str) -> Value {
    let (axis, [light, dark]) = MODE_AXIS;
    let wanted = if mode == "dark" { dark } else { light };
    let Value::Object(map) = variables else { return variables.clone() };
    let reduced = map.iter().map(|(name, variable)| {
        let mut variable = variable.clone();
        if let Some(Value::Array(entries)) = variable.get("value").cloned() {
            let chosen = entries.iter().find(|e| e["theme"][axis] == wanted).or(entries.first());
            if let Some(value) = chosen.map(|e| e["value"].clone()) {
                variable["value"] = value;
            }
        }
        (name.clone(), variable)
    });
    Value::Object(reduced.collect())
}
