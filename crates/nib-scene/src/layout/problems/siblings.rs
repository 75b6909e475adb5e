//! Which siblings overlap, by the rules of problems: a later box over an earlier one, unless
//! the earlier contains it (content on a background is layering on purpose) — but a node of the
//! same type on exactly the same box is a stack, not layering (two copies left where they were
//! made); hairlines and overlaps within the slack do not count. The pairs are found with a sweep
//! ([`crate::layout::overlaps`]) and only the ones listed are described.

use std::collections::BinaryHeap;

use super::{SLACK, round};
use crate::layout::NodeBox;
use crate::layout::overlaps::{Sweep, intersecting_pairs};

/// Pairs of intersecting boxes examined in one request; beyond, overlaps are counted as "at
/// least" what was found. Enough to count every overlap among 3,000 siblings piled on each
/// other (4.5 million pairs), in about a tenth of a second in a release build.
pub(super) const OVERLAP_PAIRS_PER_REQUEST: u64 = 5_000_000;

/// Pairs still examined for each parent once the request's budget is spent, so that one pile
/// of siblings does not leave the ordinary frames after it unchecked: every pair among 22
/// siblings. Overall this adds at most √(256 / 2) ≈ 11 pairs per node (a parent of c children
/// costs at most min(256, c²/2) pairs, and there are at most n / c such parents).
const OVERLAP_PAIRS_PER_PARENT: u64 = 256;

/// The overlaps among some boxes: the first few to list, how many others, and whether every
/// pair was examined.
pub(super) struct Overlaps<T> {
    /// (earlier, later, "W × H px"), in the order of the boxes given.
    pub(super) shown: Vec<(T, T, String)>,
    pub(super) more: usize,
    pub(super) complete: bool,
}

/// The overlaps among `boxes` (given in paint order): a later box overlapping an earlier one
/// it does not lie inside, or lying exactly on an earlier one of the same kind (`same_kind`).
/// The first `room` pairs (by the earlier box, then the later) are described; the others are
/// counted while the budget lasts.
pub(super) fn overlapping_siblings<T: Copy>(
    boxes: &[(T, NodeBox)],
    budget: &mut u64,
    room: usize,
    same_kind: &dyn Fn(T, T) -> bool,
) -> Overlaps<T> {
    // Hairlines never overlap, and boxes with no coordinates cannot be compared.
    let kept: Vec<usize> = (0..boxes.len())
        .filter(|i| {
            let b = &boxes[*i].1;
            [b.left, b.top, b.width, b.height].iter().all(|v| v.is_finite())
                && b.width > HAIRLINE
                && b.height > HAIRLINE
        })
        .collect();
    let rects: Vec<NodeBox> = kept.iter().map(|i| boxes[*i].1).collect();
    // The request's budget, or this parent's own small one once that is spent.
    let mut allowed = (*budget).max(OVERLAP_PAIRS_PER_PARENT);
    let before = allowed;
    // The `room` smallest pairs found so far, the largest on top.
    let mut first: BinaryHeap<(usize, usize)> = BinaryHeap::new();
    let mut total = 0usize;
    // Half the slack: every pair overlapping by more than the slack is a candidate even after
    // float rounding, and the exact rule below decides.
    let sweep = intersecting_pairs(&rects, SLACK / 2.0, &mut allowed, |a, b| {
        let (box_a, box_b) = (&rects[a], &rects[b]);
        if overlap_size(box_a, box_b).is_none() {
            return;
        }
        if contains(box_a, box_b) && !(same_place(box_a, box_b) && same_kind(boxes[kept[a]].0, boxes[kept[b]].0)) {
            return;
        }
        total += 1;
        if first.len() < room {
            first.push((a, b));
        } else if first.peek().is_some_and(|top| (a, b) < *top) {
            first.pop();
            first.push((a, b));
        }
    });
    *budget = budget.saturating_sub(before - allowed);
    let shown: Vec<(T, T, String)> = first
        .into_sorted_vec()
        .into_iter()
        .map(|(a, b)| {
            let (width, height) = overlap_size(&rects[a], &rects[b]).unwrap_or_default();
            (boxes[kept[a]].0, boxes[kept[b]].0, format!("{} × {} px", round(width), round(height)))
        })
        .collect();
    Overlaps { more: total - shown.len(), shown, complete: sweep == Sweep::Complete }
}

/// True when `outer` contains `inner`: content drawn on a background, which is layering on
/// purpose, not an overlap to report.
fn contains(outer: &NodeBox, inner: &NodeBox) -> bool {
    inner.left >= outer.left - SLACK
        && inner.top >= outer.top - SLACK
        && inner.right() <= outer.right() + SLACK
        && inner.bottom() <= outer.bottom() + SLACK
}

/// True when two boxes are the same within the slack: one node stacked exactly on another.
pub(super) fn same_place(a: &NodeBox, b: &NodeBox) -> bool {
    (a.left - b.left).abs() <= SLACK
        && (a.top - b.top).abs() <= SLACK
        && (a.width - b.width).abs() <= SLACK
        && (a.height - b.height).abs() <= SLACK
}

/// Nodes thinner than this are lines and dividers: crossing something is how they are drawn.
const HAIRLINE: f32 = 2.0;

/// The overlap of two boxes (width, height), when both sides exceed the slack and neither
/// box is a hairline.
fn overlap_size(a: &NodeBox, b: &NodeBox) -> Option<(f32, f32)> {
    if [a.width, a.height, b.width, b.height].iter().any(|side| *side <= HAIRLINE) {
        return None;
    }
    let width = a.right().min(b.right()) - a.left.max(b.left);
    let height = a.bottom().min(b.bottom()) - a.top.max(b.top);
    (width > SLACK && height > SLACK).then_some((width, height))
}
