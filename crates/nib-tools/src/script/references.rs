//! Instances a call left without their component, and components a call made contain an
//! instance of themselves. Both keep the file loadable but leave the design unable to draw what
//! it says, so a successful answer must say so: the health of every reference is taken before
//! and after the call, and what became broken is reported.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::diagnostic::Diagnostic;
use crate::doc::{Document, Key, NodeKey, NodeTree, NodeType, Value};
use crate::resolve::{ComponentError, Library, find_component};

/// The references of a document at one moment.
pub(crate) struct References {
    /// Instances (by id, or `instance/id` inside override content) whose component is missing,
    /// with the component they name.
    dangling: BTreeMap<String, String>,
    /// Components that exist, by the names instances use for them.
    found: HashSet<String>,
    /// Components that contain an instance of themselves (directly or through others), with
    /// one instance on the way.
    cyclic: BTreeMap<String, String>,
}

/// One `ref` somewhere in the document.
struct Instance {
    /// How the instance is named in messages.
    id: String,
    /// The component it names.
    reference: String,
    /// The document node that holds it: itself, or the instance whose override content it is in.
    holder: NodeKey,
}

impl References {
    /// Takes stock of every instance in `document`.
    pub(crate) fn of(document: &Document, library: &dyn Library) -> References {
        let instances = instances(document);
        let mut dangling = BTreeMap::new();
        let mut found = HashSet::new();
        // Component node → the instances that use it (local components only: an imported
        // document cannot contain this one, so cycles stay inside a document).
        let mut targets: Vec<(usize, NodeKey)> = Vec::new();
        for (index, instance) in instances.iter().enumerate() {
            match find_component(document, library, &instance.reference) {
                Ok(component) => {
                    found.insert(instance.reference.clone());
                    if std::ptr::eq(component.document, document) {
                        targets.push((index, component.key));
                    }
                }
                Err(ComponentError::NotFound(_)) => {
                    dangling.insert(instance.id.clone(), instance.reference.clone());
                }
                // An import that is not loaded is the environment's matter, not the call's
                // (finding a component never says it contains itself: resolving does).
                Err(ComponentError::ImportNotLoaded { .. } | ComponentError::ContainsItself(_)) => {}
            }
        }
        let cyclic = cycles(document, &instances, &targets);
        References { dangling, found, cyclic }
    }

    /// What broke between `self` (before a call) and `after`, in words for the answer.
    pub(crate) fn broken_since(&self, after: &References) -> Vec<Diagnostic> {
        let mut issues = Vec::new();
        let mut newly: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (id, reference) in &after.dangling {
            if self.dangling.get(id) != Some(reference) {
                newly.entry(reference).or_default().push(id);
            }
        }
        for (reference, ids) in newly {
            let which = Instances(&ids);
            // About the first instance drawn empty; the sentence names the others.
            let first = ids.first().copied().unwrap_or_default();
            if self.found.contains(reference) {
                let message = format!(
                    "Component '{reference}' no longer exists, but {which} still {} to it: {} drawn empty. Delete or replace {}, or undo this call.",
                    which.verb("refers", "refer"),
                    which.verb("it is", "they are"),
                    which.verb("it", "them"),
                );
                issues.push(Diagnostic::warning("component-removed", message).at_node(first));
            } else {
                let message = format!(
                    "{} {} to component '{reference}', which does not exist: {} drawn empty. Use the id of a reusable node.",
                    capitalised(&which.to_string()),
                    which.verb("refers", "refer"),
                    which.verb("it is", "they are"),
                );
                issues.push(Diagnostic::warning("component-missing", message).at_node(first));
            }
        }
        for (component, through) in &after.cyclic {
            if !self.cyclic.contains_key(component) {
                let message = format!(
                    "Component '{component}' now contains an instance of itself (through '{through}'): it can never be drawn completely. Remove that instance or make it use another component."
                );
                issues.push(Diagnostic::warning("component-cycle", message).at_node(component.as_str()));
            }
        }
        issues
    }
}

/// Instances named in a message: "instance 'b1'", or "3 instances ('b1', 'b2', 'b3')" with at
/// most five ids listed.
struct Instances<'a>(&'a [&'a str]);

impl Instances<'_> {
    /// The singular or the plural word.
    fn verb<'w>(&self, one: &'w str, many: &'w str) -> &'w str {
        if self.0.len() == 1 { one } else { many }
    }
}

impl std::fmt::Display for Instances<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 5;
        if let [id] = self.0 {
            return write!(f, "instance '{id}'");
        }
        let mut list: Vec<String> = self.0.iter().take(SHOWN).map(|id| format!("'{id}'")).collect();
        if self.0.len() > SHOWN {
            list.push(format!("and {} more", self.0.len() - SHOWN));
        }
        write!(f, "{} instances ({})", self.0.len(), list.join(", "))
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Every `ref` in the document tree and in the override content of instances.
fn instances(document: &Document) -> Vec<Instance> {
    let tree = document.tree();
    let mut found = Vec::new();
    for &root in tree.roots() {
        for key in tree.subtree(root) {
            let node = tree.node(key);
            if node.node_type() == NodeType::Ref
                && let Some(reference) = node.props.text(&Key::Ref)
            {
                found.push(Instance { id: node.id().to_owned(), reference: reference.to_owned(), holder: key });
            }
            if let Some(Value::Descendants(descendants)) = node.props.get(&Key::Descendants) {
                for (_, content) in descendants.0.iter() {
                    collect_detached(content, node.id(), key, &mut found);
                }
            }
        }
    }
    found
}

fn collect_detached(tree: &NodeTree, within: &str, holder: NodeKey, found: &mut Vec<Instance>) {
    if tree.props.node_type() == Some(NodeType::Ref)
        && let (Some(id), Some(reference)) = (tree.props.id(), tree.props.text(&Key::Ref))
    {
        found.push(Instance { id: format!("{within}/{id}"), reference: reference.to_owned(), holder });
    }
    for child in &tree.children {
        collect_detached(child, within, holder, found);
    }
    if let Some(Value::Descendants(descendants)) = tree.props.get(&Key::Descendants) {
        for (_, content) in descendants.0.iter() {
            collect_detached(content, within, holder, found);
        }
    }
}

/// Components on a cycle of "contains an instance of", each with an instance that closes it.
fn cycles(document: &Document, instances: &[Instance], targets: &[(usize, NodeKey)]) -> BTreeMap<String, String> {
    let tree = document.tree();
    let components: HashSet<NodeKey> = targets.iter().map(|(_, key)| *key).collect();
    // Component → (component it contains an instance of, that instance).
    let mut edges: HashMap<NodeKey, Vec<(NodeKey, usize)>> = HashMap::new();
    for &(index, target) in targets {
        let holder = instances[index].holder;
        for container in std::iter::successors(Some(holder), |key| tree.node(*key).parent()) {
            if components.contains(&container) {
                edges.entry(container).or_default().push((target, index));
            }
        }
    }
    let mut cyclic = BTreeMap::new();
    for &start in &components {
        // A path back to `start` means it contains itself; the first edge names the instance.
        let mut stack: Vec<(NodeKey, usize)> = edges.get(&start).cloned().unwrap_or_default();
        let mut seen = HashSet::new();
        while let Some((component, instance)) = stack.pop() {
            if component == start {
                cyclic.insert(tree.node(start).id().to_owned(), instances[instance].id.clone());
                break;
            }
            if seen.insert(component) {
                stack.extend(edges.get(&component).into_iter().flatten().map(|(next, _)| (*next, instance)));
            }
        }
    }
    cyclic
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::NoImports;

    const KIT: &str = r#"{"version": "2.8", "children": [
        {"type": "frame", "id": "Btn", "reusable": true, "children": [{"type": "text", "id": "label"}]},
        {"type": "frame", "id": "page", "children": [
            {"type": "ref", "id": "b1", "ref": "Btn"},
            {"type": "ref", "id": "b2", "ref": "Btn", "descendants": {"label": {"type": "ref", "id": "inner", "ref": "Gone"}}}
        ]}
    ]}"#;

    #[test]
    fn a_removed_component_names_its_orphaned_instances() {
        let document = Document::load(KIT).unwrap().document;
        let before = References::of(&document, &NoImports);
        assert_eq!(before.dangling.get("b2/inner").map(String::as_str), Some("Gone"));
        let mut after = Document::load(KIT).unwrap().document;
        let btn = after.node_by_id("Btn").unwrap();
        let mut edit = after.transaction();
        edit.remove(btn);
        edit.commit();
        let issues = before.broken_since(&References::of(&after, &NoImports));
        assert_eq!((issues[0].code, issues[0].node.as_deref()), ("component-removed", Some("b1")));
        let messages: Vec<&str> = issues.iter().map(|issue| issue.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Component 'Btn' no longer exists, but 2 instances ('b1', 'b2') still refer to it: they are drawn empty. Delete or replace them, or undo this call."
            ]
        );
    }

    #[test]
    fn a_component_containing_itself_is_found_through_other_components() {
        let document = Document::load(
            r#"{"version": "2.8", "children": [
                {"type": "frame", "id": "A", "reusable": true, "children": [{"type": "ref", "id": "toB", "ref": "B"}]},
                {"type": "frame", "id": "B", "reusable": true, "children": [{"type": "frame", "id": "wrap", "children": [{"type": "ref", "id": "toA", "ref": "A"}]}]},
                {"type": "frame", "id": "C", "reusable": true, "children": [{"type": "ref", "id": "toA2", "ref": "A"}]}
            ]}"#,
        )
        .unwrap()
        .document;
        let references = References::of(&document, &NoImports);
        assert_eq!(references.cyclic.keys().collect::<Vec<_>>(), ["A", "B"], "C uses the cycle but is not on it");
        assert_eq!(references.cyclic["A"], "toB");
    }
}
