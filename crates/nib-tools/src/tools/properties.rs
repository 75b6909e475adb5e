//! search_all_unique_properties and replace_all_matching_properties: the ten design properties
//! Pen exposes, found and replaced across a subtree, inside instances too.
//!
//! Both read the Scene with instances expanded and variables left as written, so a value inside
//! an instance is seen where it shows. Replacing writes through batch_design (`U(path, …)`): a
//! value inside an instance becomes an override of that instance and the component is left
//! alone, and the whole replacement is one undoable change.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ToolError;
use super::workspace::Workspace;
use crate::doc::values::{Color, CornerRadius, Fill, Fills, FontWeight, Padding, Stroke, Thickness};
use crate::doc::{Key, NodeType, Props, Value, VarOr, VarRef, suggest};
use crate::resolve::{Scene, SceneKey, SceneOptions};

/// The properties search_all_unique_properties and replace_all_matching_properties know, by
/// their Pencil names.
pub const PROPERTIES: &[&str] = &[
    "fillColor",
    "textColor",
    "strokeColor",
    "strokeThickness",
    "cornerRadius",
    "padding",
    "gap",
    "fontSize",
    "fontFamily",
    "fontWeight",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Property {
    /// Fill colors of nodes that are not text.
    FillColor,
    /// Fill colors of text.
    TextColor,
    /// Stroke colors.
    StrokeColor,
    StrokeThickness,
    CornerRadius,
    Padding,
    Gap,
    FontSize,
    FontFamily,
    FontWeight,
}

impl Property {
    fn parse(name: &str) -> Result<Property, ToolError> {
        let index = PROPERTIES.iter().position(|p| *p == name).ok_or_else(|| {
            let hint = suggest(name, PROPERTIES)
                .map_or_else(|| format!("use one of {}", PROPERTIES.join(", ")), |s| format!("did you mean {s}?"));
            ToolError::new(format!("'{name}' is not a property these tools know")).with_hint(hint)
        })?;
        Ok([
            Property::FillColor,
            Property::TextColor,
            Property::StrokeColor,
            Property::StrokeThickness,
            Property::CornerRadius,
            Property::Padding,
            Property::Gap,
            Property::FontSize,
            Property::FontFamily,
            Property::FontWeight,
        ][index])
    }
}

/// One place a property's value lives, mutably.
enum Slot<'a> {
    Color(&'a mut VarOr<Color>),
    Number(&'a mut VarOr<f64>),
    Family(&'a mut VarOr<String>),
    Weight(&'a mut VarOr<FontWeight>),
}

/// Calls `visit` for every value of `property` in a node's properties.
fn for_each_slot(props: &mut Props, node_type: NodeType, property: Property, visit: &mut dyn FnMut(Slot)) {
    let is_text = node_type == NodeType::Text;
    match property {
        Property::FillColor | Property::TextColor => {
            if (property == Property::TextColor) == is_text
                && let Some(Value::Fills(fills)) = props.get_mut(&Key::Fill)
            {
                fill_colors(fills, visit);
            }
        }
        Property::StrokeColor => match props.get_mut(&Key::Stroke) {
            Some(Value::Stroke(Stroke::Object(stroke))) => {
                if let Some(fills) = &mut stroke.fill {
                    fill_colors(fills, visit);
                }
            }
            Some(Value::Stroke(Stroke::Paint(fills))) => fill_colors(fills, visit),
            _ => {}
        },
        Property::StrokeThickness => {
            if let Some(Value::Stroke(Stroke::Object(stroke))) = props.get_mut(&Key::Stroke)
                && let Some(thickness) = &mut stroke.thickness
            {
                thickness_numbers(thickness, visit);
            }
            if let Some(Value::StrokeWidth(thickness)) = props.get_mut(&Key::StrokeWidth) {
                thickness_numbers(thickness, visit);
            }
        }
        Property::CornerRadius => match props.get_mut(&Key::CornerRadius) {
            Some(Value::CornerRadius(CornerRadius::Uniform(radius))) => visit(Slot::Number(radius)),
            Some(Value::CornerRadius(CornerRadius::Corners(radii))) => {
                radii.iter_mut().for_each(|r| visit(Slot::Number(r)))
            }
            _ => {}
        },
        Property::Padding => match props.get_mut(&Key::Padding) {
            Some(Value::Padding(Padding::Uniform(value))) => visit(Slot::Number(value)),
            Some(Value::Padding(Padding::Axes(values))) => values.iter_mut().for_each(|v| visit(Slot::Number(v))),
            Some(Value::Padding(Padding::Sides(values))) => values.iter_mut().for_each(|v| visit(Slot::Number(v))),
            _ => {}
        },
        Property::Gap | Property::FontSize => {
            let key = if property == Property::Gap { Key::Gap } else { Key::FontSize };
            if let Some(Value::Number(value)) = props.get_mut(&key) {
                visit(Slot::Number(value));
            }
        }
        Property::FontFamily => {
            if let Some(Value::TextOrVar(family)) = props.get_mut(&Key::FontFamily) {
                visit(Slot::Family(family));
            }
        }
        Property::FontWeight => {
            if let Some(Value::FontWeight(weight)) = props.get_mut(&Key::FontWeight) {
                visit(Slot::Weight(weight));
            }
        }
    }
}

fn fill_colors(fills: &mut Fills, visit: &mut dyn FnMut(Slot)) {
    let list: &mut [Fill] = match fills {
        Fills::One(fill) => std::slice::from_mut(fill),
        Fills::List(fills) => fills,
    };
    for fill in list {
        match fill {
            Fill::Solid(color) => visit(Slot::Color(color)),
            Fill::Color(fill) => {
                if let Some(color) = &mut fill.color {
                    visit(Slot::Color(color));
                }
            }
            _ => {}
        }
    }
}

fn thickness_numbers(thickness: &mut Thickness, visit: &mut dyn FnMut(Slot)) {
    match thickness {
        Thickness::Uniform(width) => visit(Slot::Number(width)),
        Thickness::Sides(sides) => {
            for side in [&mut sides.top, &mut sides.right, &mut sides.bottom, &mut sides.left].into_iter().flatten() {
                visit(Slot::Number(side));
            }
        }
    }
}

/// A value as the tools show it: colors as `#RRGGBB(AA)`, variables as `$name`.
fn display(slot: &Slot) -> serde_json::Value {
    fn var(reference: &VarRef) -> serde_json::Value {
        serde_json::Value::String(format!("${}", reference.name()))
    }
    match slot {
        Slot::Color(VarOr::Value(color)) => {
            serde_json::Value::String(Color::from_rgba(color.rgba()).as_str().to_owned())
        }
        Slot::Number(VarOr::Value(n)) => super::number(*n),
        Slot::Family(VarOr::Value(family)) => serde_json::Value::String(family.clone()),
        Slot::Weight(VarOr::Value(weight)) => serde_json::Value::String(weight.weight().to_string()),
        Slot::Color(VarOr::Var(r))
        | Slot::Number(VarOr::Var(r))
        | Slot::Family(VarOr::Var(r))
        | Slot::Weight(VarOr::Var(r)) => var(r),
    }
}

/// The nodes under `parents` (the whole canvas when empty), each once.
fn subtree_nodes(scene: &Scene, parents: &[String]) -> Result<Vec<SceneKey>, ToolError> {
    if parents.is_empty() {
        return Ok(scene.walk().collect());
    }
    let mut keys = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for parent in parents {
        let key = scene.find(parent).map_err(|missing| ToolError::from(missing).with_hint("parents are node ids"))?;
        keys.extend(scene.subtree(key).filter(|k| seen.insert(*k)));
    }
    Ok(keys)
}

const SCENE: SceneOptions = SceneOptions { expand_instances: true, substitute_variables: false };

/// search_all_unique_properties' arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SearchArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// Where to look (the whole canvas when empty).
    #[serde(default)]
    pub parents: Vec<String>,
    /// The properties to list.
    pub properties: Vec<String>,
}

/// A value and how often it occurs.
#[derive(Debug, Serialize)]
pub struct Occurrence {
    /// The value.
    pub value: serde_json::Value,
    /// How many times it occurs.
    pub count: usize,
}

/// The unique values of each property under the parents, most frequent first.
pub fn search_all_unique_properties(
    workspace: &mut Workspace,
    args: SearchArgs,
) -> Result<BTreeMap<String, Vec<Occurrence>>, ToolError> {
    let properties: Vec<(String, Property)> = args
        .properties
        .iter()
        .map(|p| Property::parse(p).map(|parsed| (p.clone(), parsed)))
        .collect::<Result<_, _>>()?;
    let (open, _) = workspace.document(args.file_path.as_deref())?;
    let scene = open.scene(SCENE)?;
    let keys = subtree_nodes(&scene, &args.parents)?;
    let mut answer = BTreeMap::new();
    for (name, property) in properties {
        let mut counts: BTreeMap<String, (serde_json::Value, usize)> = BTreeMap::new();
        for key in &keys {
            let node = scene.node(*key);
            let mut props = node.props.clone();
            for_each_slot(&mut props, node.node_type(), property, &mut |slot| {
                let value = display(&slot);
                counts.entry(value.to_string()).or_insert((value, 0)).1 += 1;
            });
        }
        let mut occurrences: Vec<Occurrence> =
            counts.into_values().map(|(value, count)| Occurrence { value, count }).collect();
        occurrences.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.to_string().cmp(&b.value.to_string())));
        answer.insert(name, occurrences);
    }
    Ok(answer)
}

/// replace_all_matching_properties' arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplaceArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// Where to replace (the whole canvas when empty).
    #[serde(default)]
    pub parents: Vec<String>,
    /// Per property, the values to replace.
    pub properties: BTreeMap<String, Vec<Replacement>>,
    /// The file's revision the change was made against: refused, nothing done, when the file
    /// is at another.
    pub if_revision: Option<String>,
}

/// One value to replace by another.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replacement {
    /// The value to find (a `$variable` finds references to it).
    pub from: serde_json::Value,
    /// The value to put instead.
    pub to: serde_json::Value,
}

/// How many values were replaced, per property, and the revision after.
#[derive(Debug, Serialize)]
pub struct Replaced {
    /// Values replaced per property.
    pub replaced: BTreeMap<String, usize>,
    /// The document's revision.
    pub revision: u64,
    /// The file's revision after the change (what `ifRevision` quotes).
    #[serde(rename = "fileRevision")]
    pub file_revision: String,
    /// What the change made that will not look as meant, as batch_design and execute say it:
    /// batch_design's checks of the values written (an undefined variable), then the layout
    /// problems the change added (code `layout-overflow` and so on; at most 10, then a count).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<crate::diagnostic::Diagnostic>,
}

/// The replacements asked for one property.
struct Rule {
    name: String,
    property: Property,
    /// (from, to) pairs; the first matching `from` wins.
    pairs: Vec<(Parsed, Parsed)>,
}

/// A value parsed for one kind of slot.
#[derive(Clone)]
enum Parsed {
    Color(VarOr<Color>),
    Number(VarOr<f64>),
    Family(VarOr<String>),
    Weight(VarOr<FontWeight>),
}

fn parse_value(property: Property, value: &serde_json::Value, role: &str) -> Result<Parsed, ToolError> {
    let bad = |expected: &str| ToolError::new(format!("{role} {value} is not {expected}"));
    let var = |text: &str| text.strip_prefix('$').filter(|n| !n.is_empty()).map(|n| VarRef(n.to_owned()));
    Ok(match (property, value) {
        (Property::FillColor | Property::TextColor | Property::StrokeColor, serde_json::Value::String(text)) => {
            match var(text) {
                Some(r) => Parsed::Color(VarOr::Var(r)),
                None => Parsed::Color(VarOr::Value(Color::parse(text).map_err(|e| bad("a color").with_hint(e.hint))?)),
            }
        }
        (Property::FillColor | Property::TextColor | Property::StrokeColor, _) => {
            return Err(bad("a color such as \"#1A1A1A\" or \"$--name\""));
        }
        (Property::FontFamily, serde_json::Value::String(text)) => {
            Parsed::Family(var(text).map_or_else(|| VarOr::Value(text.clone()), VarOr::Var))
        }
        (Property::FontFamily, _) => return Err(bad("a font family name")),
        (Property::FontWeight, serde_json::Value::String(text)) => match var(text) {
            Some(r) => Parsed::Weight(VarOr::Var(r)),
            None => {
                let weight =
                    FontWeight::parse_text(text).ok_or_else(|| bad("a font weight such as \"600\" or \"bold\""))?;
                // What is written must be a weight Pen knows; what is matched may be any.
                if role == "to"
                    && !crate::doc::values::PEN_WEIGHT_NAMES.contains(&text.as_str())
                    && text.parse::<u16>().is_err()
                {
                    return Err(bad("a weight Pen knows").with_hint(format!(
                        "write \"{}\"; weights are \"normal\", \"medium\", \"semibold\", \"bold\" or \"100\"…\"900\"",
                        weight.weight()
                    )));
                }
                Parsed::Weight(VarOr::Value(weight))
            }
        },
        (Property::FontWeight, serde_json::Value::Number(n)) => {
            Parsed::Weight(VarOr::Value(FontWeight::new(n.as_f64().unwrap_or(400.0) as u16)))
        }
        (Property::FontWeight, _) => return Err(bad("a font weight")),
        (_, serde_json::Value::Number(n)) => Parsed::Number(VarOr::Value(n.as_f64().unwrap_or(0.0))),
        (_, serde_json::Value::String(text)) => {
            Parsed::Number(VarOr::Var(var(text).ok_or_else(|| bad("a number or a \"$variable\""))?))
        }
        _ => return Err(bad("a number or a \"$variable\"")),
    })
}

/// True when `slot` holds the value `from`; colors compare by value (`#fff` = `#FFFFFF`).
fn slot_matches(slot: &Slot, from: &Parsed) -> bool {
    match (slot, from) {
        (Slot::Color(VarOr::Value(a)), Parsed::Color(VarOr::Value(b))) => a.rgba() == b.rgba(),
        (Slot::Number(VarOr::Value(a)), Parsed::Number(VarOr::Value(b))) => a == b,
        (Slot::Family(VarOr::Value(a)), Parsed::Family(VarOr::Value(b))) => a.eq_ignore_ascii_case(b),
        (Slot::Weight(VarOr::Value(a)), Parsed::Weight(VarOr::Value(b))) => a.weight() == b.weight(),
        (Slot::Color(VarOr::Var(a)), Parsed::Color(VarOr::Var(b)))
        | (Slot::Number(VarOr::Var(a)), Parsed::Number(VarOr::Var(b)))
        | (Slot::Family(VarOr::Var(a)), Parsed::Family(VarOr::Var(b)))
        | (Slot::Weight(VarOr::Var(a)), Parsed::Weight(VarOr::Var(b))) => a == b,
        _ => false,
    }
}

fn assign(slot: Slot, to: &Parsed) {
    match (slot, to) {
        (Slot::Color(place), Parsed::Color(value)) => *place = value.clone(),
        (Slot::Number(place), Parsed::Number(value)) => *place = value.clone(),
        (Slot::Family(place), Parsed::Family(value)) => *place = value.clone(),
        (Slot::Weight(place), Parsed::Weight(value)) => *place = value.clone(),
        _ => {}
    }
}

/// Replaces matching values under the parents; inside instances the new values become
/// overrides. All in one batch_design transaction, saved before answering.
pub fn replace_all_matching_properties(workspace: &mut Workspace, args: ReplaceArgs) -> Result<Replaced, ToolError> {
    let mut rules: Vec<Rule> = Vec::new();
    for (name, replacements) in &args.properties {
        let property = Property::parse(name)?;
        let pairs = replacements
            .iter()
            .map(|r| Ok((parse_value(property, &r.from, "from")?, parse_value(property, &r.to, "to")?)))
            .collect::<Result<Vec<_>, ToolError>>()?;
        rules.push(Rule { name: name.clone(), property, pairs });
    }
    let images = workspace.images.clone();
    let (open, _) = workspace.document(args.file_path.as_deref())?;
    open.expect_revision(args.if_revision.as_deref())?;
    let problems_before = open.known_problems();
    let scene = open.scene(SCENE)?;
    let keys = subtree_nodes(&scene, &args.parents)?;
    let mut replaced: BTreeMap<String, usize> = rules.iter().map(|rule| (rule.name.clone(), 0)).collect();
    let mut statements = Vec::new();
    for key in keys {
        let node = scene.node(key);
        let mut props = node.props.clone();
        for rule in &rules {
            for_each_slot(&mut props, node.node_type(), rule.property, &mut |slot| {
                if let Some((_, to)) = rule.pairs.iter().find(|(from, _)| slot_matches(&slot, from)) {
                    assign(slot, to);
                    *replaced.entry(rule.name.clone()).or_default() += 1;
                }
            });
        }
        let changed: Vec<(&Key, &Value)> = props.iter().filter(|(k, v)| node.props.get(k) != Some(*v)).collect();
        if changed.is_empty() {
            continue;
        }
        let mut update = Props::default();
        for (k, v) in changed {
            update.set(k.clone(), v.clone());
        }
        let mut w = crate::doc::json::JsonWriter::compact();
        update.write(&mut w, false, &mut |_| {});
        let mut path = String::new();
        crate::doc::json::write_js_string(&mut path, &node.id);
        statements.push(format!("U({path}, {})", w.finish()));
    }
    if statements.is_empty() {
        return Ok(Replaced {
            replaced,
            revision: open.document.revision(),
            file_revision: open.file_revision().to_string(),
            issues: Vec::new(),
        });
    }
    let folder = open.folder().to_owned();
    let imports = open.compiler.imports(&open.document);
    let canvas = open.compiler.canvas(&open.document);
    let context = crate::script::Context {
        library: imports.as_ref(),
        images: images.as_ref(),
        folder: Some(&folder),
        // Only U() statements run here: nothing is written but the document.
        confinement: None,
        canvas: Some(&canvas),
        options: crate::script::Options { max_statements: statements.len(), id_seed: None },
    };
    let mut outcome = crate::script::run(&mut open.document, &statements.join("\n"), &context);
    drop(canvas);
    if !outcome.success {
        return Err(ToolError::new(format!("the replacement could not be applied: {}", outcome.text())));
    }
    open.save()?;
    let introduced = open.problems_since(problems_before.as_deref());
    let said = super::introduced::said(&introduced, &outcome.issues);
    outcome.issues.extend(said);
    Ok(Replaced {
        replaced,
        revision: open.document.revision(),
        file_revision: open.file_revision().to_string(),
        issues: outcome.issues,
    })
}
