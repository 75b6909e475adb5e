//! Which node a `descendants` key names, by Pen's rule (DECISIONS.md, "Which node a descendants
//! key names"): a key is read one `/`-separated step at a time, and which node a step may name
//! depends on which component wrote the node — the instance's own component (its tree, and the
//! content it writes into the slots of instances nested in it), or a component nested in it.
//!
//! 1. The first step names a node the instance's component wrote, however deep.
//! 2. Each later step names a node below the previous one that a component the key has
//!    entered wrote, or, when the previous step is an instance, a node of that instance's
//!    component's own tree (which enters that component).
//!
//! The Scene builder keeps, for the node it builds, the chain of its ancestors ([`Ancestor`]),
//! each with who wrote it; a key is matched against the part of the chain below the instance
//! whose overrides hold it.

use std::collections::HashMap;
use std::rc::Rc;

use super::scene::NodeInScope;
use crate::doc::{Descendants, Document, NodeKey};

/// A component, by the document holding it (its address) and its node.
pub(super) type Identity = (usize, NodeKey);

/// Who wrote a node: the component whose tree or override content holds it (`None`: the
/// document being resolved, outside components), and whether it is override content (slot
/// children or a replacement) rather than a node of that component's own tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Writer {
    pub component: Option<Identity>,
    pub in_overrides: bool,
}

/// A node above the one being built, as a key's step sees it.
pub(super) struct Ancestor<'a> {
    pub node: NodeInScope<'a>,
    pub writer: Writer,
    /// The components an instance enters (its component and those that one is built from);
    /// empty for a node that is not an instance.
    pub enters: Rc<[Identity]>,
    /// How many ancestors are above it, plus one.
    pub depth: usize,
    pub parent: Option<Rc<Ancestor<'a>>>,
}

/// The keys of one instance's overrides, by their last step (the id of the node they name),
/// in the order the file writes them.
pub(super) fn by_last_step(descendants: &Descendants) -> HashMap<&str, Vec<&str>> {
    let mut index: HashMap<&str, Vec<&str>> = HashMap::new();
    for (key, _) in descendants.0.iter() {
        let last = key.rsplit('/').next().unwrap_or(key);
        index.entry(last).or_default().push(key);
    }
    index
}

/// True when `key` names the node being built (`writer` wrote it; its id is the key's last
/// step) by Pen's rule, for the overrides (written in `document`) of an instance that enters
/// `enters` and sits at `depth` in the chain that ends at `ancestors`.
pub(super) fn names(
    key: &str,
    document: &Document,
    enters: &[Identity],
    depth: usize,
    writer: Writer,
    ancestors: Option<&Rc<Ancestor<'_>>>,
) -> bool {
    let steps: Vec<&str> = key.split('/').collect();
    let mut below: Vec<&Ancestor<'_>> = Vec::new();
    let mut at = ancestors.map(Rc::as_ref);
    while let Some(ancestor) = at.filter(|a| a.depth > depth) {
        below.push(ancestor);
        at = ancestor.parent.as_deref();
    }
    below.reverse();
    let ids: Vec<String> = below.iter().map(|a| a.node.seen_from(document)).collect();
    walk(&steps, &below, &ids, 0, None, enters.to_vec(), enters, writer)
}

/// Matches `steps` from the first, each to an ancestor after `from` with its id, or the last to
/// the node itself, trying every ancestor a step's id names (ids may repeat along a chain).
#[allow(clippy::too_many_arguments, reason = "the state of one recursive walk")]
fn walk(
    steps: &[&str],
    below: &[&Ancestor<'_>],
    ids: &[String],
    from: usize,
    previous: Option<&Ancestor<'_>>,
    entered: Vec<Identity>,
    first: &[Identity],
    node: Writer,
) -> bool {
    let Some((_, rest)) = steps.split_first() else { return false };
    if rest.is_empty() {
        return step(node, previous, &entered, first).is_some();
    }
    (from..below.len()).filter(|&j| ids[j] == steps[0]).any(|j| {
        step(below[j].writer, previous, &entered, first)
            .is_some_and(|entered| walk(rest, below, ids, j + 1, Some(below[j]), entered, first, node))
    })
}

/// Whether a step may name a node `writer` wrote after `previous`, and the components the key
/// has entered then.
fn step(
    writer: Writer,
    previous: Option<&Ancestor<'_>>,
    entered: &[Identity],
    first: &[Identity],
) -> Option<Vec<Identity>> {
    let component = writer.component?;
    let Some(previous) = previous else {
        return first.contains(&component).then(|| entered.to_vec());
    };
    if entered.contains(&component) {
        return Some(entered.to_vec());
    }
    if !writer.in_overrides && previous.enters.contains(&component) {
        let mut more = entered.to_vec();
        more.extend(previous.enters.iter().copied());
        return Some(more);
    }
    None
}
