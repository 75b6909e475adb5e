//! What a change reaches beyond the nodes it touches: the components whose definition it
//! changes (and, through their instances, other components), and the top-level frames that
//! look different because their own nodes changed, or they show a changed component or use a
//! changed variable.

use std::collections::{HashMap, HashSet};

use crate::doc::values::{VariableScalar, VariableValue};
use crate::doc::vars::VisitVars;
use crate::doc::{Document, Key, NodeKey, Props, Value};

use super::nodes::frame_of;
use super::{
    ChangeKind, ComponentChange, FrameChange, NodeChange, NodeChangeKind, NodeLabel, ThemeChange, VariableChange,
};

fn is_component(document: &Document, key: NodeKey) -> bool {
    document.tree().node(key).props.literal::<bool>(&Key::Reusable) == Some(true)
}

/// The components `key` is part of, itself included, innermost first.
fn components_around(document: &Document, key: NodeKey) -> impl Iterator<Item = NodeKey> + '_ {
    std::iter::successors(Some(key), |k| document.tree().node(*k).parent()).filter(|k| is_component(document, *k))
}

/// True when `id` is a component in both documents (only those can have a changed definition;
/// the others are added or removed nodes).
fn component_in_both(old: &Document, new: &Document, id: &str) -> bool {
    let is = |document: &Document| document.node_by_id(id).is_some_and(|key| is_component(document, key));
    is(old) && is(new)
}

/// The instances (`ref` nodes) in `document` of components of the same document, by the
/// component's id, in document order.
fn instances(document: &Document) -> HashMap<&str, Vec<NodeKey>> {
    let mut found: HashMap<&str, Vec<NodeKey>> = HashMap::new();
    for key in document.tree().walk() {
        if let Some(reference) = document.tree().node(key).props.text(&Key::Ref)
            && document.node_by_id(reference).is_some()
        {
            found.entry(reference).or_default().push(key);
        }
    }
    found
}

/// Components present in both documents whose definition changed, in the new document's
/// order: those holding a changed node, then those holding an instance of a changed one.
pub(super) fn component_changes(old: &Document, new: &Document, nodes: &[NodeChange]) -> Vec<ComponentChange> {
    let mut direct: HashSet<String> = HashSet::new();
    for change in nodes {
        let mut sides: Vec<(&Document, NodeKey)> = Vec::new();
        match change.kind {
            NodeChangeKind::Removed => sides.extend(old.node_by_id(&change.node.id).map(|k| (old, k))),
            NodeChangeKind::Added => sides.extend(new.node_by_id(&change.node.id).map(|k| (new, k))),
            NodeChangeKind::Changed => {
                sides.extend(new.node_by_id(&change.node.id).map(|k| (new, k)));
                if change.moved_from.is_some() {
                    sides.extend(old.node_by_id(&change.node.id).map(|k| (old, k)));
                }
            }
        }
        for (document, key) in sides {
            for component in components_around(document, key) {
                let id = document.tree().node(component).id();
                if component_in_both(old, new, id) {
                    direct.insert(id.to_owned());
                }
            }
        }
    }
    let new_instances = instances(new);
    // A component holding an instance of a changed component changed too.
    let mut through: HashMap<String, Vec<String>> = HashMap::new();
    let mut changed: HashSet<String> = direct.clone();
    let mut queue: Vec<String> = {
        let mut ids: Vec<String> = direct.iter().cloned().collect();
        ids.sort();
        ids
    };
    while let Some(id) = queue.pop() {
        for instance in new_instances.get(id.as_str()).into_iter().flatten() {
            for container in components_around(new, *instance) {
                let container_id = new.tree().node(container).id();
                if container_id == id || !component_in_both(old, new, container_id) {
                    continue;
                }
                let via = through.entry(container_id.to_owned()).or_default();
                if !via.contains(&id) {
                    via.push(id.clone());
                }
                if changed.insert(container_id.to_owned()) {
                    queue.push(container_id.to_owned());
                }
            }
        }
    }
    let old_instances = instances(old);
    let mut components = Vec::new();
    for key in new.tree().walk() {
        let id = new.tree().node(key).id();
        if !changed.contains(id) {
            continue;
        }
        let mut ids: Vec<String> = Vec::new();
        let mut listed: HashSet<&str> = HashSet::new();
        for (document, found) in [(new, &new_instances), (old, &old_instances)] {
            for instance in found.get(id).into_iter().flatten() {
                let instance_id = document.tree().node(*instance).id();
                if listed.insert(instance_id) {
                    ids.push(instance_id.to_owned());
                }
            }
        }
        let mut via = through.remove(id).unwrap_or_default();
        via.sort();
        components.push(ComponentChange {
            component: NodeLabel::of(new, key),
            direct: direct.contains(id),
            through: via,
            instances: ids,
        });
    }
    components
}

/// The top-level frames that look different, the new document's first, in canvas order.
pub(super) fn frame_changes(
    old: &Document,
    new: &Document,
    nodes: &[NodeChange],
    components: &[ComponentChange],
    variables: &[VariableChange],
    themes: &[ThemeChange],
) -> Vec<FrameChange> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for change in nodes {
        *counts.entry(change.frame()).or_default() += 1;
        if let Some(from) = &change.moved_from
            && from.frame != change.at.frame
        {
            *counts.entry(from.frame.as_str()).or_default() += 1;
        }
    }
    let mut shown: HashMap<String, Vec<String>> = HashMap::new();
    let changed_components: HashSet<&str> = components.iter().map(|c| c.component.id.as_str()).collect();
    for key in new.tree().walk() {
        if let Some(reference) = new.tree().node(key).props.text(&Key::Ref)
            && changed_components.contains(reference)
        {
            push_once(shown.entry(frame_of(new, key)).or_default(), reference);
        }
    }
    let mut used: HashMap<String, Vec<String>> = HashMap::new();
    let affected = affected_variables(new, variables, themes);
    if !affected.is_empty() {
        for key in new.tree().walk() {
            for name in variables_used(&new.tree().node(key).props) {
                if affected.contains(name.as_str()) {
                    push_once(used.entry(frame_of(new, key)).or_default(), &name);
                }
            }
        }
    }
    let top_level = |document: &Document, id: &str| {
        document.node_by_id(id).is_some_and(|key| document.tree().node(key).parent().is_none())
    };
    let new_roots = new.tree().roots().iter().map(|k| (new, *k));
    let old_only = old.tree().roots().iter().filter(|k| !top_level(new, old.tree().node(**k).id())).map(|k| (old, *k));
    let mut frames = Vec::new();
    for (document, key) in new_roots.chain(old_only) {
        let id = document.tree().node(key).id();
        let changes = counts.get(id).copied().unwrap_or(0);
        let components = shown.remove(id).unwrap_or_default();
        let variables = used.remove(id).unwrap_or_default();
        if changes == 0 && components.is_empty() && variables.is_empty() {
            continue;
        }
        let kind = match (old.node_by_id(id), new.node_by_id(id)) {
            (None, _) => ChangeKind::Added,
            (_, None) => ChangeKind::Removed,
            _ => ChangeKind::Changed,
        };
        frames.push(FrameChange {
            frame: NodeLabel::of(document, key),
            kind,
            in_old: top_level(old, id),
            in_new: top_level(new, id),
            changes,
            components,
            variables,
        });
    }
    frames
}

fn push_once(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|i| i == item) {
        list.push(item.to_owned());
    }
}

/// The variables whose value may look different: those that changed, those with values for a
/// changed theme axis, and those that refer to any of these.
fn affected_variables(new: &Document, variables: &[VariableChange], themes: &[ThemeChange]) -> HashSet<String> {
    let mut affected: HashSet<String> = variables.iter().map(|v| v.name.clone()).collect();
    let axes: HashSet<&str> = themes.iter().map(|t| t.axis.as_str()).collect();
    let Some(declared) = new.variables() else { return affected };
    let mut dependents: HashMap<&str, Vec<&str>> = HashMap::new();
    for (name, variable) in declared.iter() {
        let Some(value) = &variable.value else { continue };
        let entries: Vec<(Option<&VariableScalar>, bool)> = match value {
            VariableValue::Plain(scalar) => vec![(Some(scalar), false)],
            VariableValue::Themed(entries) => entries
                .iter()
                .map(|e| {
                    let themed = e.theme.as_ref().is_some_and(|t| t.iter().any(|(axis, _)| axes.contains(axis)));
                    (e.value.as_ref(), themed)
                })
                .collect(),
        };
        for (scalar, themed) in entries {
            if themed {
                affected.insert(name.to_owned());
            }
            if let Some(VariableScalar::Var(reference)) = scalar {
                dependents.entry(reference.name()).or_default().push(name);
            }
        }
    }
    let mut queue: Vec<String> = affected.iter().cloned().collect();
    while let Some(name) = queue.pop() {
        for dependent in dependents.get(name.as_str()).into_iter().flatten() {
            if affected.insert((*dependent).to_owned()) {
                queue.push((*dependent).to_owned());
            }
        }
    }
    affected
}

/// The names of the variables a node's properties and instance overrides refer to.
fn variables_used(props: &Props) -> Vec<String> {
    let mut names = Vec::new();
    let mut collect = |slot: &mut dyn crate::doc::vars::VarSlot| {
        if let Some(reference) = slot.reference() {
            names.push(reference.name().to_owned());
        }
    };
    // Visiting needs mutable values (it can also fill them); a copy is cheap next to a render.
    props.clone().visit_vars(&mut collect);
    if let Some(Value::Descendants(descendants)) = props.get(&Key::Descendants) {
        for (_, tree) in descendants.0.iter() {
            tree.clone().visit_vars(&mut collect);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use crate::doc::Document;
    use crate::review::diff::diff;

    fn load(text: &str) -> Document {
        Document::load(text).unwrap().document
    }

    #[test]
    fn a_changed_component_reaches_its_instances_and_the_components_around_them() {
        let text = |label: &str| {
            format!(
                r##"{{"version": "2.11", "children": [
                {{"type": "frame", "id": "lib", "name": "Library", "children": [
                    {{"type": "frame", "id": "btn", "name": "Button", "reusable": true, "children": [{{"type": "text", "id": "t", "content": "{label}"}}]}},
                    {{"type": "frame", "id": "bar", "name": "Bar", "reusable": true, "children": [{{"type": "ref", "id": "b1", "ref": "btn"}}]}}]}},
                {{"type": "frame", "id": "page", "name": "Page", "children": [{{"type": "ref", "id": "p1", "ref": "bar"}}]}},
                {{"type": "frame", "id": "other", "name": "Other", "fill": "$--bg"}}
            ]}}"##
            )
        };
        let result = diff(&load(&text("OK")), &load(&text("Save")));
        let components: Vec<(&str, bool, Vec<String>, Vec<String>)> = result
            .components
            .iter()
            .map(|c| (c.component.id.as_str(), c.direct, c.through.clone(), c.instances.clone()))
            .collect();
        assert_eq!(
            components,
            [
                ("btn", true, vec![], vec!["b1".to_owned()]),
                ("bar", false, vec!["btn".to_owned()], vec!["p1".to_owned()])
            ]
        );
        let frames: Vec<(&str, usize, Vec<String>)> =
            result.frames.iter().map(|f| (f.frame.id.as_str(), f.changes, f.components.clone())).collect();
        assert_eq!(frames, [("lib", 1, vec!["btn".to_owned()]), ("page", 0, vec!["bar".to_owned()])]);
    }

    #[test]
    fn a_changed_variable_marks_the_frames_that_use_it_even_through_another_variable() {
        let text = |color: &str| {
            format!(
                r##"{{"version": "2.11", "variables": {{"--base": {{"type": "color", "value": "{color}"}}, "--bg": {{"type": "color", "value": "$--base"}}}},
                "children": [{{"type": "frame", "id": "a", "fill": "$--bg"}}, {{"type": "frame", "id": "b", "fill": "#fff"}},
                {{"type": "ref", "id": "c", "ref": "b", "descendants": {{"x": {{"fill": "$--base"}}}}}}]}}"##
            )
        };
        let result = diff(&load(&text("#000000")), &load(&text("#111111")));
        let frames: Vec<(&str, Vec<String>)> =
            result.frames.iter().map(|f| (f.frame.id.as_str(), f.variables.clone())).collect();
        assert_eq!(frames, [("a", vec!["--bg".to_owned()]), ("c", vec!["--base".to_owned()])]);
    }
}
