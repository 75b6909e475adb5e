//! Which nodes really moved between two versions of a document: to another parent, or to
//! another place among the siblings they kept. Inserting or removing a sibling shifts the
//! indices of everything after it; that is not a move. Among the siblings a parent keeps, the
//! longest run that stays in the same relative order counts as staying; the others moved.

use std::collections::{HashMap, HashSet};

use crate::doc::{Document, NodeKey};

/// The id of the parent of `key` (`None` at the top level).
pub(crate) fn parent_id(document: &Document, key: NodeKey) -> Option<&str> {
    let tree = document.tree();
    tree.node(key).parent().map(|parent| tree.node(parent).id())
}

/// The ids of nodes present in both documents that moved from `old` to `new`.
pub(crate) fn moved_nodes(old: &Document, new: &Document) -> HashSet<String> {
    let mut moved = HashSet::new();
    let same_parent = |key: NodeKey| {
        let id = new.tree().node(key).id();
        old.node_by_id(id).map(|old_key| parent_id(old, old_key) == parent_id(new, key))
    };
    let mut parents: Vec<Option<NodeKey>> = vec![None];
    for key in new.tree().walk() {
        let Some(same) = same_parent(key) else { continue };
        if !same {
            moved.insert(new.tree().node(key).id().to_owned());
        }
        // A parent that moved can still have reordered its own children.
        if !new.tree().node(key).children().is_empty() {
            parents.push(Some(key));
        }
    }
    for parent in parents {
        let old_parent = match parent {
            None => None,
            Some(key) => match old.node_by_id(new.tree().node(key).id()) {
                Some(old_key) => Some(old_key),
                None => continue,
            },
        };
        // The siblings this parent keeps, by their place among the kept ones in the old order.
        let kept_new: Vec<&str> = new
            .tree()
            .children_of(parent)
            .iter()
            .filter(|k| same_parent(**k) == Some(true))
            .map(|k| new.tree().node(*k).id())
            .collect();
        if kept_new.len() < 2 {
            continue;
        }
        let kept: HashSet<&str> = kept_new.iter().copied().collect();
        let old_rank: HashMap<&str, usize> = old
            .tree()
            .children_of(old_parent)
            .iter()
            .map(|k| old.tree().node(*k).id())
            .filter(|id| kept.contains(id))
            .enumerate()
            .map(|(rank, id)| (id, rank))
            .collect();
        let ranks: Vec<usize> = kept_new.iter().map(|id| old_rank.get(id).copied().unwrap_or(0)).collect();
        for (id, stays) in kept_new.iter().zip(longest_increasing(&ranks)) {
            if !stays {
                moved.insert((*id).to_owned());
            }
        }
    }
    moved
}

/// Marks the members of one longest strictly increasing subsequence of `values`
/// (O(n log n), patience sorting).
fn longest_increasing(values: &[usize]) -> Vec<bool> {
    // tails[l]: index of the smallest value ending an increasing run of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; values.len()];
    for (i, value) in values.iter().enumerate() {
        let length = tails.partition_point(|&t| values[t] < *value);
        previous[i] = length.checked_sub(1).map(|l| tails[l]);
        if length == tails.len() {
            tails.push(i);
        } else {
            tails[length] = i;
        }
    }
    let mut member = vec![false; values.len()];
    let mut at = tails.last().copied();
    while let Some(i) = at {
        member[i] = true;
        at = previous[i];
    }
    member
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(children: &str) -> Document {
        Document::load(&format!(r#"{{"version": "2.11", "children": [{children}]}}"#)).unwrap().document
    }

    fn frame(id: &str, children: &str) -> String {
        format!(r#"{{"type": "frame", "id": "{id}", "children": [{children}]}}"#)
    }

    fn sorted(set: HashSet<String>) -> Vec<String> {
        let mut ids: Vec<String> = set.into_iter().collect();
        ids.sort();
        ids
    }

    #[test]
    fn inserting_and_removing_siblings_moves_nothing() {
        let old = doc(&[frame("a", ""), frame("b", ""), frame("c", ""), frame("d", "")].join(","));
        let new = doc(&[frame("x", ""), frame("a", ""), frame("c", ""), frame("y", ""), frame("d", "")].join(","));
        assert!(moved_nodes(&old, &new).is_empty());
    }

    #[test]
    fn a_node_taken_out_of_order_or_to_another_parent_moved() {
        let old = doc(&[
            frame("p", &[frame("a", ""), frame("b", ""), frame("c", ""), frame("d", "")].join(",")),
            frame("q", ""),
        ]
        .join(","));
        let new = doc(&[
            frame("p", &[frame("b", ""), frame("c", ""), frame("a", "")].join(",")),
            frame("q", &frame("d", "")),
        ]
        .join(","));
        assert_eq!(sorted(moved_nodes(&old, &new)), ["a", "d"]);
    }

    /// The children of a parent that moved were never compared, so their reordering was lost.
    #[test]
    fn children_reordered_inside_a_parent_that_moved_are_moves_too() {
        let old = doc(&[frame("p", &[frame("a", ""), frame("b", "")].join(",")), frame("q", "")].join(","));
        let new = doc(&frame("q", &frame("p", &[frame("b", ""), frame("a", "")].join(","))));
        assert_eq!(sorted(moved_nodes(&old, &new)).len(), 2, "p and one of a, b");
        assert!(moved_nodes(&old, &new).contains("p"));
    }

    #[test]
    fn the_longest_run_in_order_stays() {
        assert_eq!(longest_increasing(&[3, 0, 1, 2]), [false, true, true, true]);
        assert_eq!(longest_increasing(&[]), Vec::<bool>::new());
        assert_eq!(longest_increasing(&[0, 1, 2]), [true, true, true]);
    }
}
