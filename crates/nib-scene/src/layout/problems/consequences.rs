//! One cause, one line: a node whose own sizing leaves it with no width or height makes every
//! child overflow it and every child that fills it empty. Those are consequences; they are
//! counted on the cause's line instead of listed, so the one thing to fix comes first.

use std::collections::HashMap;

use super::super::rules::SizingNote;
use super::super::{NodeBox, PartLayout};
use super::SLACK;
use crate::doc::NodeType;
use crate::resolve::ScenePart;

/// The consequences folded into their causes, for one part.
#[derive(Debug, Default)]
pub(super) struct Consequences {
    /// Cause → how many nodes inside it overflow or have no size because of it.
    counts: HashMap<usize, usize>,
    /// The nodes whose overflow and zero size are not listed.
    folded: Vec<bool>,
    /// Nodes whose sizing note already says they are 0: their own zero size is that line.
    noted: Vec<bool>,
}

impl Consequences {
    /// Finds the causes among `scope` (node indices of `part`) and the consequences below them.
    pub(super) fn find(part: &ScenePart, layout: &PartLayout, scope: &[usize]) -> Consequences {
        let count = part.nodes().len();
        let mut in_scope = vec![false; count];
        scope.iter().for_each(|i| in_scope[*i] = true);
        let mut noted = vec![false; count];
        for (index, note) in layout.notes() {
            if matches!(note, SizingNote::FillOutsideFlex(_) | SizingNote::FitContentWithoutContent(_)) {
                noted[*index] = true;
            }
        }
        let mut cause = noted.clone();
        for &index in scope {
            if layout.bounds(index).is_some_and(|b| empty(part, index, b)) {
                cause[index] = true;
            }
        }
        let mut found = Consequences { counts: HashMap::new(), folded: vec![false; count], noted };
        for &index in scope {
            let Some(own) = layout.bounds(index) else { continue };
            let overflows = part.node(index).parent_local().is_some_and(|p| overflows(layout, own, p));
            if !overflows && !empty(part, index, own) {
                continue;
            }
            let nearest = std::iter::successors(part.node(index).parent_local(), |p| part.node(*p).parent_local())
                .find(|ancestor| cause[*ancestor]);
            if let Some(root) = nearest.filter(|root| in_scope[*root]) {
                *found.counts.entry(root).or_default() += 1;
                found.folded[index] = true;
            }
        }
        found
    }

    /// True when the overflow and zero size of `index` are counted on a cause's line.
    pub(super) fn is_folded(&self, index: usize) -> bool {
        self.folded.get(index).copied().unwrap_or(false)
    }

    /// True when a sizing note of `index` already says why it has no size.
    pub(super) fn is_noted(&self, index: usize) -> bool {
        self.noted.get(index).copied().unwrap_or(false)
    }

    /// The words added to the first line of the cause `index`, if anything depends on it.
    pub(super) fn suffix(&self, index: usize) -> Option<String> {
        self.counts.get(&index).map(|n| match n {
            1 => " (… and 1 node inside it overflows or has no size because of it)".to_owned(),
            n => format!(" (… and {} nodes inside it overflow or have no size because of it)", super::thousands(*n)),
        })
    }
}

/// A visible node without area (a line is drawn corner to corner: one flat side is fine).
pub(super) fn empty(part: &ScenePart, index: usize, own: NodeBox) -> bool {
    let (no_width, no_height) = (own.width < 0.01, own.height < 0.01);
    if part.node(index).node_type() == NodeType::Line { no_width && no_height } else { no_width || no_height }
}

/// True when `own` sticks out of the box of `parent` (groups have no box to stick out of).
fn overflows(layout: &PartLayout, own: NodeBox, parent: usize) -> bool {
    let Some(outer) = layout.bounds(parent) else { return false };
    if layout.part().node(parent).node_type() == NodeType::Group {
        return false;
    }
    outer.left - own.left > SLACK
        || outer.top - own.top > SLACK
        || own.right() - outer.right() > SLACK
        || own.bottom() - outer.bottom() > SLACK
}
