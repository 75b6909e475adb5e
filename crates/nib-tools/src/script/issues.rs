//! Potential problems in what a call created or changed, reported after it succeeds, in
//! Pencil's wording where Pencil has one (agents and skills search for these sentences).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::doc::edit_distance;
use crate::doc::values::{Layout, LayoutPosition, Sizing, TextGrowth, VariableScalar, VariableValue};
use crate::doc::vars::VisitVars;
use crate::doc::{Document, Key, NodeKey, NodeType, Props, Value, VarOr};
use crate::layout::space::CanvasBoxes;
use crate::resolve::variables::LookupError;
use crate::resolve::{Library, NoImports, PathTarget, Scene, ThemeContext, find_component, lookup, resolve_path};
use crate::text::{FontBook, FontOptions, is_known_family, missing_icon, suggest_family};

/// Most potential issues listed in one answer; the others are counted in a last line. One I()
/// of thousands of text nodes without a fill listed thousands of lines.
pub const MAX_ISSUES: usize = 50;

/// The advice for a call longer than Pen recommends: it ran, but one failing statement rolls
/// back all of it, and a reviewer reads it as one change.
pub(crate) fn long_batch(statements: usize) -> Diagnostic {
    Diagnostic::warning(
        "long-batch",
        format!(
            "This call has {statements} operations; at most {} per call are recommended. Long batches are harder to review and one failing operation rolls back all of them: split them into smaller calls.",
            super::parse::RECOMMENDED_STATEMENTS
        ),
    )
}

/// What lays out a node of a type nib does not know: it is an empty box of its size at its place.
const PLACING_KEYS: [Key; 10] = [
    Key::Name,
    Key::Enabled,
    Key::LayoutPosition,
    Key::X,
    Key::Y,
    Key::Width,
    Key::Height,
    Key::Rotation,
    Key::FlipX,
    Key::FlipY,
];

/// The potential issue of a U() that set keys other than its place and size on the node `path`
/// of a type nib does not know (spelled `type_name` in the file): they are saved, but nothing
/// draws them. `None` when every key set places or sizes it.
pub(crate) fn undrawn_keys(path: &str, type_name: Option<&str>, set: &Props) -> Option<Diagnostic> {
    let undrawn: Vec<&str> =
        set.iter().map(|(key, _)| key).filter(|key| !PLACING_KEYS.contains(key)).map(Key::name).collect();
    if undrawn.is_empty() {
        return None;
    }
    let spelled = type_name.map(|name| format!(" ({name:?})")).unwrap_or_default();
    let message = format!(
        "Node '{path}' is of a type nib does not know{spelled}, from a newer Pen: {} saved on it, but nib draws nothing for such a node (only its place and size count), so the change does not show here.",
        match undrawn.as_slice() {
            [one] => format!("'{one}' is"),
            many => format!("{} are", many.iter().map(|k| format!("'{k}'")).collect::<Vec<_>>().join(", ")),
        }
    );
    Some(Diagnostic::warning("undrawn-keys", message).at_node(path))
}

/// The potential problems of `touched` nodes (at most [`MAX_ISSUES`], then a count);
/// `positioned` are the nodes whose x/y the call set. `known` are the problems the nodes had
/// before the call changed them ([`of_node`] before each change): they are not this call's,
/// so they are not said again.
pub fn find(
    document: &Document,
    library: &dyn Library,
    touched: &[NodeKey],
    positioned: &HashSet<NodeKey>,
    canvas: Option<&dyn CanvasBoxes>,
    known: &HashSet<String>,
) -> Vec<Diagnostic> {
    let mut issues: Vec<Diagnostic> = Vec::new();
    let mut distinct: HashSet<String> = HashSet::new();
    let mut seen = HashSet::new();
    // Expanded parts, built once per top-level part however many of its instances the call touched.
    let mut parts: HashMap<NodeKey, Option<Arc<Scene>>> = HashMap::new();
    // Undefined variables are said once per variable, with the nodes that use it: where in the
    // list, which variable, and its uses.
    let mut variables: Vec<(usize, String, Vec<UndefinedUse>)> = Vec::new();
    for key in touched {
        if !seen.insert(*key) {
            continue;
        }
        let node = document.tree().node(*key);
        // Nodes removed later in the same call are no longer part of the document.
        if document.node_by_id(node.id()) != Some(*key) {
            continue;
        }
        let found = of_node(document, library, *key, positioned.contains(key), canvas, &mut parts);
        for issue in found.into_iter().filter(|issue| !known.contains(&issue.key())) {
            let issue = match issue {
                Issue::Said(said) => said,
                Issue::Undefined(used) => {
                    match variables.iter_mut().find(|(_, name, _)| *name == used.name) {
                        Some((_, _, uses)) => uses.push(used),
                        None if issues.len() < MAX_ISSUES => {
                            variables.push((issues.len(), used.name.clone(), vec![used]));
                            // Its place in the list; the sentence is made once every use is known.
                            issues.push(Diagnostic::warning(UNDEFINED_VARIABLE, String::new()));
                        }
                        None => {
                            distinct.insert(format!("variable {}", used.name));
                        }
                    }
                    continue;
                }
            };
            if issues.len() < MAX_ISSUES {
                if distinct.insert(issue.message.clone()) {
                    issues.push(issue);
                }
            } else {
                distinct.insert(issue.message);
            }
        }
    }
    for (at, name, uses) in variables {
        issues[at] = undefined_diagnostic(document, library, &name, &uses);
        distinct.insert(issues[at].message.clone());
    }
    let more = distinct.len().saturating_sub(issues.len());
    if more > 0 {
        issues.push(Diagnostic::note(
            "more",
            format!(
                "… and {more} more potential issues of the kinds above (fix these first; snapshot_layout with problemsOnly: true lists the layout problems)."
            ),
        ));
    }
    issues
}

/// The code of a variable that is not defined where it is used.
const UNDEFINED_VARIABLE: &str = "undefined-variable";

/// A potential issue of one node.
pub(crate) enum Issue {
    /// Said as it is.
    Said(Diagnostic),
    /// A variable the node uses that is not defined: said once for all the nodes that use it.
    Undefined(UndefinedUse),
}

impl Issue {
    /// What tells it apart from the node's other issues, and from the same issue later.
    pub(crate) fn key(&self) -> String {
        match self {
            Issue::Said(said) => said.message.clone(),
            Issue::Undefined(used) => format!("${} on {}: {}", used.name, used.node, used.properties.join(", ")),
        }
    }
}

/// A node's use of a variable that is not defined.
pub(crate) struct UndefinedUse {
    name: String,
    node: String,
    /// The properties that use it (`path: property` inside an instance's overrides).
    properties: Vec<String>,
}

/// One finding for a variable that is not defined and the nodes that use it (the first 3 named
/// in its sentence; the node it is about is the first).
fn undefined_diagnostic(document: &Document, library: &dyn Library, name: &str, uses: &[UndefinedUse]) -> Diagnostic {
    let message = undefined_sentence(document, library, name, uses);
    let diagnostic = Diagnostic::warning(UNDEFINED_VARIABLE, message);
    match uses.first() {
        Some(first) => diagnostic.at_node(first.node.clone()),
        None => diagnostic,
    }
}

/// One sentence for a variable that is not defined and the nodes that use it (the first 3).
fn undefined_sentence(document: &Document, library: &dyn Library, name: &str, uses: &[UndefinedUse]) -> String {
    const SHOWN: usize = 3;
    let used = |u: &UndefinedUse| {
        format!("'{}' ({})", u.node, u.properties.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(", "))
    };
    let near = near_variables(document, library, name);
    let fix = "Define it with set_variables, or use a defined one.";
    match uses {
        [one] => format!("Variable '${name}' on node {} is not defined, so it is not applied.{near} {fix}", used(one)),
        many => {
            let mut listed: Vec<String> = many.iter().take(SHOWN).map(used).collect();
            if many.len() > SHOWN {
                listed.push(format!("{} more", many.len() - SHOWN));
            }
            format!(
                "Variable '${name}' is not defined, so it is not applied on {} nodes: {}.{near} {fix}",
                many.len(),
                listed.join(", ")
            )
        }
    }
}

/// The potential problems of the node `key` as the document stands; `positioned` when the call
/// set its x/y. `parts` keeps the expanded top-level parts of one document state.
pub(crate) fn of_node(
    document: &Document,
    library: &dyn Library,
    key: NodeKey,
    positioned: bool,
    canvas: Option<&dyn CanvasBoxes>,
    parts: &mut HashMap<NodeKey, Option<Arc<Scene>>>,
) -> Vec<Issue> {
    let mut found = node_issues(document, key, positioned, canvas);
    found.extend(override_issues(document, library, key));
    if document.tree().node(key).node_type() == NodeType::Ref {
        found.extend(instance_issues(document, key, canvas, parts));
    }
    let mut issues: Vec<Issue> = found.into_iter().map(Issue::Said).collect();
    issues.extend(undefined_variables(document, library, key).into_iter().map(Issue::Undefined));
    issues
}

/// Variables the node's properties (and an instance's overrides) name that neither the
/// document nor its imports define: the property is not applied, which no picture explains.
fn undefined_variables(document: &Document, library: &dyn Library, key: NodeKey) -> Vec<UndefinedUse> {
    let node = document.tree().node(key);
    let mut uses: Vec<UndefinedUse> = Vec::new();
    let mut note = |name: &str, property: String| match uses.iter_mut().find(|u| u.name == name) {
        Some(used) => {
            if !used.properties.contains(&property) {
                used.properties.push(property);
            }
        }
        None => {
            uses.push(UndefinedUse { name: name.to_owned(), node: node.id().to_owned(), properties: vec![property] })
        }
    };
    let theme = ThemeContext::defaults(document);
    let mut check = |props: &Props, path: Option<&str>| {
        for (key, value) in props.iter() {
            let mut value = value.clone();
            value.visit_vars(&mut |slot| {
                let Some(reference) = slot.reference() else { return };
                if let Err(LookupError::Missing(name)) = lookup(document, None, document, library, reference, &theme) {
                    let property = match path {
                        Some(path) => format!("{path}: {}", key.name()),
                        None => key.name().to_owned(),
                    };
                    note(&name, property);
                }
            });
        }
    };
    check(&node.props, None);
    if let Some(Value::Descendants(descendants)) = node.props.get(&Key::Descendants) {
        for (path, tree) in &descendants.0.entries {
            let mut trees = vec![tree];
            while let Some(tree) = trees.pop() {
                check(&tree.props, Some(path));
                trees.extend(tree.children.iter());
            }
        }
    }
    uses
}

/// " Did you mean '$--radius-lg'?" for the defined variables nearest `name`, or the first few
/// defined ones when none is near; "" when the document defines none.
fn near_variables(document: &Document, library: &dyn Library, name: &str) -> String {
    const SHOWN: usize = 3;
    let mut names: Vec<String> =
        document.variables().map(|v| v.entries.iter().map(|(n, _)| n.clone()).collect()).unwrap_or_default();
    if let Some(imports) = document.imports() {
        for (alias, _) in imports.iter() {
            if let Some(variables) = library.imported(alias).and_then(|imported| imported.variables()) {
                names.extend(variables.entries.iter().map(|(n, _)| format!("{alias}:{n}")));
            }
        }
    }
    if names.is_empty() {
        return String::new();
    }
    let budget = (name.chars().count() / 3).clamp(2, 6);
    let mut near: Vec<(usize, &String)> =
        names.iter().map(|n| (edit_distance(name, n), n)).filter(|(d, _)| *d <= budget).collect();
    near.sort();
    let quoted =
        |list: &mut dyn Iterator<Item = &String>| list.map(|n| format!("'${n}'")).collect::<Vec<_>>().join(", ");
    if near.is_empty() {
        let more = if names.len() > SHOWN { format!(" (of {})", names.len()) } else { String::new() };
        return format!(" Defined: {}{more}.", quoted(&mut names.iter().take(SHOWN)));
    }
    format!(" Did you mean {}?", quoted(&mut near.into_iter().take(SHOWN).map(|(_, n)| n)))
}
/// The two layout axes, with the keys and words that go with them.
const AXES: [(Key, &str); 2] = [(Key::Width, "horizontal"), (Key::Height, "vertical")];

/// A potential issue of the node `id`, of the kind `code`, in Pencil's words where it has them.
fn at(id: &str, code: &'static str, message: String) -> Diagnostic {
    Diagnostic::warning(code, message).at_node(id)
}

fn node_issues(
    document: &Document,
    key: NodeKey,
    positioned: bool,
    canvas: Option<&dyn CanvasBoxes>,
) -> Vec<Diagnostic> {
    let tree = document.tree();
    let node = tree.node(key);
    let (id, node_type, props) = (node.id(), node.node_type(), &node.props);
    let parent_flex = node.parent().is_some_and(|parent| lays_out_children(document, parent));
    let absolute =
        matches!(props.get(&Key::LayoutPosition), Some(Value::LayoutPosition(VarOr::Value(LayoutPosition::Absolute))));
    let mut issues = Vec::new();

    let fills_container = AXES.iter().any(|(axis, _)| matches!(sizing(props, axis), Some(Sizing::FillContainer(_))));
    if fills_container && (!parent_flex || absolute) {
        issues.push(at(id, "fill-outside-layout", format!(
            "Node '{id}' has 'fill_container' sizing but is not inside a flexbox layout. Make sure parent has 'layout' property set."
        )));
    }
    if matches!(node_type, NodeType::Frame) {
        let explicit_fit =
            AXES.iter().any(|(axis, _)| matches!(explicit_sizing(props, axis), Some(Sizing::FitContent(_))));
        let lays_out = lays_out_children(document, key);
        if explicit_fit && !lays_out {
            issues.push(at(id, "fit-without-layout", format!(
                "Node '{id}' has 'fit_content' sizing but does not have flexbox layout enabled. Set 'layout' property to enable layout."
            )));
        }
        let visible: Vec<NodeKey> =
            node.children().iter().copied().filter(|c| !is_hidden(&tree.node(*c).props)).collect();
        for (axis, word) in &AXES {
            if !matches!(sizing(props, axis), Some(Sizing::FitContent(None))) {
                continue;
            }
            if visible.is_empty() {
                issues.push(at(id, "fit-without-children", format!(
                    "Node '{id}' has 'fit_content' sizing on the {word} axis but has no children. This will result in zero size."
                )));
            } else if lays_out {
                let in_flow: Vec<&Props> =
                    visible.iter().map(|c| &tree.node(*c).props).filter(|p| !is_absolute(p)).collect();
                if !in_flow.is_empty()
                    && in_flow.iter().all(|p| matches!(sizing(p, axis), Some(Sizing::FillContainer(_))))
                {
                    issues.push(at(id, "circular-sizing", format!(
                        "Circular layout sizing detected on node '{id}': the node has 'fit_content' sizing but all children have 'fill_container' sizing on the {word} axis."
                    )));
                }
            }
        }
    }
    if positioned && parent_flex && !absolute {
        let message =
            format!("Properties 'x' and 'y' are ignored on node '{id}' because it is inside a flexbox layout.");
        issues.push(at(id, "position-in-layout", message));
    }
    if node_type == NodeType::Text {
        issues.extend(text_issues(id, props));
    }
    if matches!(node_type, NodeType::Text | NodeType::Note | NodeType::Prompt | NodeType::Context) {
        issues.extend(font_issue(document, props, canvas).map(|(code, message)| at(id, code, message)));
    }
    if matches!(node_type, NodeType::IconFont | NodeType::Icon) {
        issues.extend(missing_icon(props).map(|message| at(id, ICON_MISSING, message)));
    }
    issues
}

/// The code of an icon nib does not have.
const ICON_MISSING: &str = "icon-missing";

/// A font family that exists nowhere (`font-invalid`), or one that is replaced
/// (`font-substituted`), with its stand-in (checked through a string variable too).
fn font_issue(document: &Document, props: &Props, canvas: Option<&dyn CanvasBoxes>) -> Option<(&'static str, String)> {
    let family = match props.get(&Key::FontFamily)? {
        Value::TextOrVar(VarOr::Value(family)) => family.clone(),
        Value::TextOrVar(VarOr::Var(var)) => plain_string_variable(document, var.name())?,
        _ => return None,
    };
    let choice = canvas
        .and_then(|canvas| canvas.choose_family(&family))
        .unwrap_or_else(|| std::sync::Arc::new(FontBook::new(FontOptions::default()).choose_family(&family)));
    choice.replaced.as_ref()?;
    if is_known_family(&family) {
        // A real family nib does not have is measured and drawn with a stand-in: say which.
        return choice.reason().map(|reason| ("font-substituted", format!("Font family {reason}.")));
    }
    let hint = suggest_family(&family).map(|s| format!(" Did you mean '{s}'?")).unwrap_or_default();
    let message = format!("Font family '{family}' is invalid.{hint} It is measured and drawn with {}.", choice.family);
    Some(("font-invalid", message))
}

/// The value of a string variable that has one value for all themes.
fn plain_string_variable(document: &Document, name: &str) -> Option<String> {
    match document.variables()?.get(name)?.value.as_ref()? {
        VariableValue::Plain(VariableScalar::String(value)) => Some(value.clone()),
        _ => None,
    }
}

/// What an instance shows in place of what it names — an icon or a font family nib does not
/// have, set in the component or through an override — for the nodes inside it, named by their
/// instance paths. The canvas resolves the instance's own top-level part (once per part however
/// many of its instances the call touched); without a canvas nothing is resolved, and nothing
/// is said.
fn instance_issues(
    document: &Document,
    instance: NodeKey,
    canvas: Option<&dyn CanvasBoxes>,
    parts: &mut HashMap<NodeKey, Option<Arc<Scene>>>,
) -> Vec<Diagnostic> {
    let root = document.tree().root_of(instance);
    let Some(scene) = parts.entry(root).or_insert_with(|| canvas?.part_scene(document, root)) else {
        return Vec::new();
    };
    let id = document.tree().node(instance).id();
    let Some(key) = scene.node_by_id(id) else { return Vec::new() };
    let mut issues = Vec::new();
    for inner in scene.subtree(key).skip(1) {
        let node = scene.node(inner);
        let found = match node.node_type() {
            NodeType::IconFont | NodeType::Icon => missing_icon(&node.props).map(|message| (ICON_MISSING, message)),
            NodeType::Text | NodeType::Note | NodeType::Prompt | NodeType::Context => {
                font_issue(document, &node.props, canvas)
            }
            _ => None,
        };
        if let Some((code, found)) = found {
            // The node is named by its instance path, as every tool addresses it.
            let path = format!("{id}/{}", node.id);
            issues.push(at(&path, code, format!("In instance '{id}', node '{}': {found}", node.id)));
        }
    }
    issues
}

/// Overrides whose key names no node of the instance's component have no effect.
fn override_issues(document: &Document, library: &dyn Library, key: NodeKey) -> Vec<Diagnostic> {
    let node = document.tree().node(key);
    let Some(Value::Descendants(descendants)) = node.props.get(&Key::Descendants) else { return Vec::new() };
    let id = node.id();
    descendants
        .0
        .iter()
        .filter_map(|(path, _)| match resolve_path(document, library, &format!("{id}/{path}")) {
            Ok(PathTarget::InInstance(_)) => None,
            Ok(PathTarget::Node(_)) => None,
            Err(e) => {
                let known = if e.available.is_empty() { String::new() } else { format!(" Ids there: {}.", e.available.join(", ")) };
                let message = format!(
                    "Override '{path}' on instance '{id}' does not match any node of component '{}', so it has no effect.{known}",
                    node.props.text(&Key::Ref).unwrap_or_default()
                );
                Some(at(id, "override-unmatched", message))
            }
        })
        .collect()
}

fn text_issues(id: &str, props: &Props) -> Vec<Diagnostic> {
    let mut issues = Vec::new();
    let no_fill = match props.get(&Key::Fill) {
        None => true,
        Some(Value::Fills(fills)) => fills.as_slice().is_empty(),
        _ => false,
    };
    if no_fill {
        issues.push(at(
            id,
            "text-without-fill",
            format!("Text node '{id}' has no fill, so it is invisible. Set 'fill' to a color or a color variable."),
        ));
    }
    let growth = match props.get(&Key::TextGrowth) {
        Some(Value::TextGrowth(VarOr::Value(growth))) => *growth,
        Some(_) => return issues,
        None => TextGrowth::Auto,
    };
    if growth != TextGrowth::FixedWidthHeight && matches!(explicit_sizing(props, &Key::Height), Some(Sizing::Fixed(_)))
    {
        issues.push(at(id, "text-height-ignored", format!(
            "Text node '{id}' has a fixed height, but textGrowth '{}' sizes its height to the text. Remove the height, or set textGrowth to 'fixed-width-height'.",
            growth.as_str()
        )));
    }
    if growth == TextGrowth::Auto
        && matches!(explicit_sizing(props, &Key::Width), Some(Sizing::Fixed(_) | Sizing::FillContainer(_)))
    {
        issues.push(at(id, "text-width-ignored", format!(
            "Text node '{id}' has a width, but textGrowth 'auto' sizes it to its text on one line. Set textGrowth to 'fixed-width' to wrap the text at that width."
        )));
    }
    issues
}

/// The sizing a node states for `axis`, or a frame's default (`fit_content`).
fn sizing(props: &Props, axis: &Key) -> Option<Sizing> {
    explicit_sizing(props, axis)
        .or_else(|| (props.node_type() == Some(NodeType::Frame)).then_some(Sizing::FitContent(None)))
}

fn explicit_sizing(props: &Props, axis: &Key) -> Option<Sizing> {
    match props.get(axis) {
        Some(Value::Size(VarOr::Value(sizing))) => Some(*sizing),
        _ => None,
    }
}

fn is_hidden(props: &Props) -> bool {
    matches!(props.get(&Key::Enabled), Some(Value::Bool(VarOr::Value(false))))
}

fn is_absolute(props: &Props) -> bool {
    matches!(props.get(&Key::LayoutPosition), Some(Value::LayoutPosition(VarOr::Value(LayoutPosition::Absolute))))
}

/// True when the node lays out its children with flexbox: frames unless `layout: "none"`
/// (their default is horizontal), groups only with a layout, instances as their component.
pub(crate) fn lays_out_children(document: &Document, key: NodeKey) -> bool {
    let props = &document.tree().node(key).props;
    match props.get(&Key::Layout) {
        Some(Value::Layout(VarOr::Value(layout))) => *layout != Layout::None,
        Some(_) => true,
        None => match props.node_type() {
            Some(NodeType::Frame) => true,
            Some(NodeType::Ref) => props
                .text(&Key::Ref)
                .and_then(|reference| find_component(document, &NoImports, reference).ok())
                .filter(|component| component.document.tree().node(component.key).node_type() != NodeType::Ref)
                .is_none_or(|component| lays_out_children(component.document, component.key)),
            _ => false,
        },
    }
}
