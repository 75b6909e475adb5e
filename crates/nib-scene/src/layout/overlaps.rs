//! Which of many boxes intersect, in time proportional to the boxes and the pairs found rather
//! than to every pair: a sweep from left to right keeps the boxes the sweep line crosses, and a
//! max-tree over those boxes ordered by top edge finds the ones whose vertical span meets the
//! next box without looking at the others.
//!
//! Callers decide what an intersection means (containment, hairlines): this only finds
//! candidates, and may report a few pairs that touch by about `margin` (float rounding), never
//! miss one that overlaps by clearly more.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::NodeBox;

/// Whether every candidate pair was reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sweep {
    /// All of them.
    Complete,
    /// The budget ran out first: there may be more.
    Cut,
}

/// Calls `found(a, b)` (with `a < b`, indices into `boxes`) for each two boxes that overlap by
/// more than `margin` pixels both across and down, at most `budget` times (the budget is
/// reduced by the pairs reported). Boxes must have finite coordinates.
pub(crate) fn intersecting_pairs(
    boxes: &[NodeBox],
    margin: f32,
    budget: &mut u64,
    mut found: impl FnMut(usize, usize),
) -> Sweep {
    // Shrinking each box by the margin on its right and bottom turns "overlaps by more than
    // the margin" into "the shrunk boxes overlap at all".
    let usable = |b: &NodeBox| b.width > margin && b.height > margin;
    let mut by_left: Vec<u32> = (0..boxes.len() as u32).filter(|i| usable(&boxes[*i as usize])).collect();
    by_left.sort_unstable_by(|a, b| boxes[*a as usize].left.total_cmp(&boxes[*b as usize].left).then(a.cmp(b)));
    let mut by_top = by_left.clone();
    by_top.sort_unstable_by(|a, b| boxes[*a as usize].top.total_cmp(&boxes[*b as usize].top).then(a.cmp(b)));
    let mut rank = vec![0u32; boxes.len()];
    for (position, index) in by_top.iter().enumerate() {
        rank[*index as usize] = position as u32;
    }
    let tops: Vec<f32> = by_top.iter().map(|i| boxes[*i as usize].top).collect();
    let mut bottoms = MaxTree::new(by_top.len());
    // The boxes the sweep line crosses, the one whose right edge it passes first on top.
    let mut active: BinaryHeap<Leaving> = BinaryHeap::new();
    let mut met: Vec<u32> = Vec::new();
    for &index in &by_left {
        let current = &boxes[index as usize];
        while let Some(first) = active.peek().filter(|first| first.right <= current.left) {
            bottoms.set(rank[first.index as usize] as usize, f32::NEG_INFINITY);
            active.pop();
        }
        // Active boxes reach past `current.left`; those starting above its shrunk bottom and
        // ending below its top meet it.
        let above = tops.partition_point(|top| *top < current.bottom() - margin);
        met.clear();
        // One more than the budget allows tells a cut from a budget spent to the last pair.
        let room = usize::try_from(*budget).unwrap_or(usize::MAX).min(usize::MAX - 1);
        bottoms.leaves_above(above, current.top, room + 1, &mut met);
        let cut = met.len() > room;
        met.truncate(room);
        for position in &met {
            let other = by_top[*position as usize];
            found(other.min(index) as usize, other.max(index) as usize);
        }
        *budget -= met.len() as u64;
        if cut {
            return Sweep::Cut;
        }
        bottoms.set(rank[index as usize] as usize, current.bottom() - margin);
        active.push(Leaving { right: current.right() - margin, index });
    }
    Sweep::Complete
}

/// A box in the sweep, ordered so that a max-heap gives the smallest right edge first.
struct Leaving {
    right: f32,
    index: u32,
}

impl PartialEq for Leaving {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Leaving {}

impl PartialOrd for Leaving {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Leaving {
    fn cmp(&self, other: &Self) -> Ordering {
        other.right.total_cmp(&self.right).then(other.index.cmp(&self.index))
    }
}

/// Values at positions `0..len` (negative infinity when empty), with the maximum of every
/// power-of-two block, so that the positions holding more than a threshold are found by
/// descending only into blocks that have one.
struct MaxTree {
    leaves: usize,
    max: Vec<f32>,
    /// The blocks still to visit in a search, kept between searches for its memory.
    to_visit: Vec<(usize, usize, usize)>,
}

impl MaxTree {
    fn new(len: usize) -> MaxTree {
        let leaves = len.next_power_of_two();
        MaxTree { leaves, max: vec![f32::NEG_INFINITY; 2 * leaves], to_visit: Vec::new() }
    }

    fn set(&mut self, position: usize, value: f32) {
        let mut node = position + self.leaves;
        self.max[node] = value;
        while node > 1 {
            node /= 2;
            self.max[node] = self.max[2 * node].max(self.max[2 * node + 1]);
        }
    }

    /// Adds to `out` up to `limit` positions below `end` whose value exceeds `threshold`.
    fn leaves_above(&mut self, end: usize, threshold: f32, limit: usize, out: &mut Vec<u32>) {
        // (node, first position it covers, positions it covers)
        let stack = &mut self.to_visit;
        stack.clear();
        stack.push((1usize, 0usize, self.leaves));
        while let Some((node, first, width)) = stack.pop() {
            if first >= end || self.max[node] <= threshold {
                continue;
            }
            if width == 1 {
                out.push(first as u32);
                if out.len() >= limit {
                    return;
                }
                continue;
            }
            let half = width / 2;
            stack.push((2 * node + 1, first + half, half));
            stack.push((2 * node, first, half));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(left: f32, top: f32, width: f32, height: f32) -> NodeBox {
        NodeBox::plain(left, top, left, top, width, height)
    }

    /// Every pair the obvious way, for comparison.
    fn every_pair(boxes: &[NodeBox], margin: f32) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        for (i, a) in boxes.iter().enumerate() {
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                let across = a.right().min(b.right()) - a.left.max(b.left);
                let down = a.bottom().min(b.bottom()) - a.top.max(b.top);
                if across > margin && down > margin {
                    pairs.push((i, j));
                }
            }
        }
        pairs
    }

    fn swept(boxes: &[NodeBox], margin: f32) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        let mut budget = u64::MAX;
        assert_eq!(intersecting_pairs(boxes, margin, &mut budget, |a, b| pairs.push((a, b))), Sweep::Complete);
        pairs.sort_unstable();
        pairs
    }

    #[test]
    fn the_sweep_finds_what_comparing_every_pair_finds() {
        // A deterministic scatter of boxes of mixed sizes, some touching edge to edge.
        let mut seed = 7u32;
        let mut next = |range: u32| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            ((seed >> 8) % range) as f32
        };
        let boxes: Vec<NodeBox> =
            (0..400).map(|_| rect(next(500), next(500), 1.0 + next(60), 1.0 + next(60))).collect();
        assert_eq!(swept(&boxes, 0.25), every_pair(&boxes, 0.25));
        let touching = [rect(0.0, 0.0, 10.0, 10.0), rect(10.0, 0.0, 10.0, 10.0), rect(0.0, 10.0, 10.0, 10.0)];
        assert!(swept(&touching, 0.25).is_empty());
    }

    #[test]
    fn a_column_of_boxes_that_never_meet_costs_no_pairs() {
        let column: Vec<NodeBox> = (0..20_000).map(|i| rect(0.0, i as f32 * 10.0, 100.0, 10.0)).collect();
        let mut budget = 1;
        assert_eq!(intersecting_pairs(&column, 0.25, &mut budget, |_, _| panic!("no pair")), Sweep::Complete);
        assert_eq!(budget, 1);
    }

    #[test]
    fn the_budget_stops_the_sweep() {
        let stacked: Vec<NodeBox> = (0..1_000).map(|_| rect(0.0, 0.0, 10.0, 10.0)).collect();
        let mut budget = 5_000;
        let mut reported = 0;
        assert_eq!(intersecting_pairs(&stacked, 0.25, &mut budget, |_, _| reported += 1), Sweep::Cut);
        assert_eq!((reported, budget), (5_000, 0));
    }
}
