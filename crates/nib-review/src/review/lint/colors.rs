//! Colours written as literals where the document has a variable for them (raw-color), or
//! nearly (near-color: within ΔE 3, CIE76, where most people cannot tell two colours apart
//! side by side), literal colours only one or two nodes use in a document with colour
//! variables (one-off-color: code gets an arbitrary value no theme follows), and the colour
//! arithmetic the contrast rule shares: WCAG relative luminance
//! and contrast ratio.

use crate::doc::values::{Fill, Fills, Stroke, VariableScalar, VariableValue};
use crate::doc::{Document, Key, NodeKey, Value, VarOr};
use crate::resolve::SceneKey;

use super::rules::Finding;

/// Below this CIE76 distance two colours count as the same to the eye.
pub(crate) const NEAR_DELTA_E: f64 = 3.0;

/// The document's colour variables and their values (every theme's).
fn palette(document: &Document) -> Vec<(String, [u8; 4])> {
    let mut colors = Vec::new();
    for (name, variable) in document.variables().map(|v| v.entries.as_slice()).unwrap_or_default() {
        let mut add = |scalar: &VariableScalar| {
            if let VariableScalar::Color(color) = scalar {
                colors.push((name.clone(), color.rgba()));
            }
        };
        match &variable.value {
            Some(VariableValue::Plain(scalar)) => add(scalar),
            Some(VariableValue::Themed(entries)) => entries.iter().filter_map(|e| e.value.as_ref()).for_each(&mut add),
            None => {}
        }
    }
    colors
}

/// The literal colours of a node's fill, stroke and text colour, with where they are.
fn literals(props: &crate::doc::Props) -> Vec<(&'static str, [u8; 4])> {
    let mut found = Vec::new();
    let mut from_fills = |what: &'static str, fills: &Fills| {
        for fill in fills.as_slice() {
            match fill {
                Fill::Solid(VarOr::Value(color)) => found.push((what, color.rgba())),
                Fill::Color(fill) => {
                    if let Some(VarOr::Value(color)) = &fill.color {
                        found.push((what, color.rgba()));
                    }
                }
                _ => {}
            }
        }
    };
    if let Some(Value::Fills(fills)) = props.get(&Key::Fill) {
        from_fills("fill", fills);
    }
    match props.get(&Key::Stroke) {
        Some(Value::Stroke(Stroke::Paint(fills))) => from_fills("stroke", fills),
        Some(Value::Stroke(Stroke::Object(stroke))) => {
            if let Some(fills) = &stroke.fill {
                from_fills("stroke", fills);
            }
        }
        _ => {}
    }
    found
}

/// raw-color and near-color findings, over the document's own nodes (components included:
/// their literals are the ones every instance repeats).
pub(super) fn check(document: &Document, scene: &crate::resolve::Scene) -> Vec<(&'static str, Finding)> {
    let palette = palette(document);
    if palette.is_empty() {
        return Vec::new();
    }
    let tree = document.tree();
    // The Scene node each document node is first drawn as (a component may be drawn many times).
    let mut drawn_as: std::collections::HashMap<NodeKey, SceneKey> = std::collections::HashMap::new();
    for key in scene.walk() {
        if let Some(source) = scene.node(key).source {
            drawn_as.entry(source).or_insert(key);
        }
    }
    let mut found = Vec::new();
    // Literal colours no variable is (or is near), with the nodes that use them.
    let mut unnamed: std::collections::BTreeMap<[u8; 4], Vec<(SceneKey, &'static str)>> = Default::default();
    for key in tree.walk() {
        let Some(&at) = drawn_as.get(&key) else { continue };
        for (what, rgba) in literals(&tree.node(key).props) {
            if let Some((name, _)) = palette.iter().find(|(_, value)| *value == rgba) {
                found.push((
                    "raw-color",
                    Finding {
                        node: at,
                        message: format!("{what} {} is the value of the variable {name}", hex(rgba)),
                        hint: format!("write \"${name}\" so it follows the variable (and its themes)"),
                    },
                ));
                continue;
            }
            let nearest = palette
                .iter()
                .filter(|(_, value)| value[3] == rgba[3])
                .map(|(name, value)| (name, *value, delta_e(rgba, *value)))
                .min_by(|a, b| a.2.total_cmp(&b.2));
            if let Some((name, value, distance)) = nearest.filter(|n| n.2 < NEAR_DELTA_E) {
                found.push((
                    "near-color",
                    Finding {
                        node: at,
                        message: format!(
                            "{what} {} is within ΔE {distance:.1} of {name} ({}): the same colour to the eye",
                            hex(rgba),
                            hex(value)
                        ),
                        hint: format!("write \"${name}\", or make this colour a variable of its own if it must differ"),
                    },
                ));
                continue;
            }
            let users = unnamed.entry(rgba).or_default();
            if users.last().is_none_or(|(last, _)| *last != at) {
                users.push((at, what));
            }
        }
    }
    for (rgba, users) in unnamed {
        if users.len() > ONE_OFF_USERS {
            continue;
        }
        let count = users.len();
        for (node, what) in users {
            found.push((
                "one-off-color",
                Finding {
                    node,
                    message: format!(
                        "{what} {} is a colour no variable has, used by {} in a document with colour variables",
                        hex(rgba),
                        if count == 1 { "this node alone".to_owned() } else { format!("{count} nodes") }
                    ),
                    hint: "use a colour variable, or make this colour one: code gets a value no theme follows"
                        .to_owned(),
                },
            ));
        }
    }
    found
}

/// Most nodes a colour may have and still be a one-off.
const ONE_OFF_USERS: usize = 2;

/// `#RRGGBB`, or `#RRGGBBAA` when not opaque.
pub(super) fn hex([r, g, b, a]: [u8; 4]) -> String {
    if a == 255 { format!("#{r:02X}{g:02X}{b:02X}") } else { format!("#{r:02X}{g:02X}{b:02X}{a:02X}") }
}

/// WCAG 2 relative luminance of an opaque colour.
pub(super) fn luminance([r, g, b, _]: [u8; 4]) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// WCAG 2 contrast ratio of two opaque colours (1 to 21).
pub(super) fn contrast(a: [u8; 4], b: [u8; 4]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// `top` (straight alpha) painted over the opaque `below`.
pub(super) fn over(top: [u8; 4], below: [u8; 4]) -> [u8; 4] {
    let alpha = f64::from(top[3]) / 255.0;
    let mix = |t: u8, b: u8| (f64::from(t) * alpha + f64::from(b) * (1.0 - alpha)).round() as u8;
    [mix(top[0], below[0]), mix(top[1], below[1]), mix(top[2], below[2]), 255]
}

/// CIE76 distance in L*a*b* (D65).
fn delta_e(a: [u8; 4], b: [u8; 4]) -> f64 {
    let (la, lb) = (lab(a), lab(b));
    ((la[0] - lb[0]).powi(2) + (la[1] - lb[1]).powi(2) + (la[2] - lb[2]).powi(2)).sqrt()
}

fn lab([r, g, b, _]: [u8; 4]) -> [f64; 3] {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    let (r, g, b) = (linear(r), linear(g), linear(b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| if t > 0.008856 { t.cbrt() } else { 7.787 * t + 16.0 / 116.0 };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contrast_matches_wcags_examples() {
        assert!((contrast([0, 0, 0, 255], [255, 255, 255, 255]) - 21.0).abs() < 0.01);
        // #767676 on white is the classic 4.54:1.
        assert!((contrast([0x76, 0x76, 0x76, 255], [255, 255, 255, 255]) - 4.54).abs() < 0.01);
        assert_eq!(over([0, 0, 0, 128], [255, 255, 255, 255]), [127, 127, 127, 255]);
        assert!(delta_e([0x25, 0x63, 0xEB, 255], [0x25, 0x63, 0xEB, 255]) < 1e-9);
        assert!(delta_e([0x25, 0x63, 0xEB, 255], [0x26, 0x63, 0xEB, 255]) < NEAR_DELTA_E);
        assert!(delta_e([0x25, 0x63, 0xEB, 255], [0xEB, 0x25, 0x63, 255]) > 50.0);
    }
}
