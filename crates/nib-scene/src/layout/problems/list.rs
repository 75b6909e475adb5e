//! The problems of one request as they are found: the first few built in full, the others only
//! counted, by cause, and summarised in a line each ("… and 4,498,000 more overlaps among 3,000
//! siblings of 'F'"), so that a request costs the same memory for ten problems or ten million.

use std::collections::HashMap;

use serde::Serialize;

use super::{LayoutProblem, ProblemKind, describe};
use crate::resolve::Scene;

/// Causes summarised one by one ("… and 12 more children overflow 'Card'"); problems of other
/// causes are summarised per kind, so a file with a problem in each of 100,000 frames still
/// gets a short answer.
pub(super) const MAX_CAUSES: usize = 24;

/// Problems found but not listed, with one cause.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoreProblems {
    /// Their kind.
    pub kind: ProblemKind,
    /// How many (a lower bound when `at_least`).
    pub count: usize,
    /// True when not everything was examined: there may be more than `count`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub at_least: bool,
    /// The summary, e.g. "4,498,000 more overlaps among 3,000 siblings of 'F' (f1)".
    pub message: String,
}

/// The problems of a request: the first [`super::MAX_PROBLEMS`] in full, the rest counted by cause.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Problems {
    /// The problems listed, in document order.
    pub shown: Vec<LayoutProblem>,
    /// The problems found beyond those, by cause.
    pub more: Vec<MoreProblems>,
}

impl Problems {
    /// How many problems were found beyond those shown (a lower bound when [`Problems::at_least`]).
    pub fn more_count(&self) -> usize {
        self.more.iter().map(|m| m.count).sum()
    }

    /// True when some overlaps were not examined: there may be more problems than counted.
    pub fn at_least(&self) -> bool {
        self.more.iter().any(|m| m.at_least)
    }

    /// True when nothing was found.
    pub fn is_empty(&self) -> bool {
        self.shown.is_empty() && self.more.is_empty()
    }
}

/// What a group of problems not listed has in common, for its summary line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Cause {
    /// Problems of one kind anywhere.
    Kind(ProblemKind),
    /// Problems of one kind among the children of one node: (kind, part, the node's index).
    Children(ProblemKind, usize, usize),
    /// Overlaps among top-level nodes.
    Canvas,
}

/// A group of problems not listed.
struct Omitted {
    cause: Cause,
    count: usize,
    /// False when some pairs were not examined.
    complete: bool,
    /// How many boxes were compared, for overlaps.
    siblings: usize,
}

/// Where problems go as they are found: the first `limit` are built, the others only counted,
/// so a request costs the same memory whether it finds ten problems or ten million.
pub(super) struct Collector {
    limit: usize,
    shown: Vec<LayoutProblem>,
    omitted: Vec<Omitted>,
    groups: HashMap<Cause, usize>,
}

impl Collector {
    pub(super) fn new(limit: usize) -> Collector {
        Collector { limit, shown: Vec::new(), omitted: Vec::new(), groups: HashMap::new() }
    }

    /// How many more problems are listed in full.
    pub(super) fn room(&self) -> usize {
        self.limit - self.shown.len()
    }

    /// A problem; `build` runs only when it is listed.
    pub(super) fn add(&mut self, cause: Cause, build: impl FnOnce() -> LayoutProblem) {
        if self.room() > 0 {
            self.shown.push(build());
        } else {
            self.omit(cause, 1, true, 0);
        }
    }

    /// `count` problems of `cause` not listed; `complete` is false when there may be more.
    pub(super) fn omit(&mut self, cause: Cause, count: usize, complete: bool, siblings: usize) {
        let cause = match cause {
            Cause::Children(kind, ..) if self.omitted.len() >= MAX_CAUSES && !self.groups.contains_key(&cause) => {
                Cause::Kind(kind)
            }
            other => other,
        };
        let index = *self.groups.entry(cause).or_insert_with(|| {
            self.omitted.push(Omitted { cause, count: 0, complete: true, siblings });
            self.omitted.len() - 1
        });
        let group = &mut self.omitted[index];
        group.count += count;
        group.complete &= complete;
    }

    pub(super) fn finish(self, scene: &Scene) -> Problems {
        let more = self
            .omitted
            .into_iter()
            .filter(|o| o.count > 0 || !o.complete)
            .map(|o| MoreProblems {
                kind: o.cause.kind(),
                count: o.count,
                at_least: !o.complete,
                message: o.summary(scene),
            })
            .collect();
        Problems { shown: self.shown, more }
    }
}

impl Cause {
    fn kind(self) -> ProblemKind {
        match self {
            Cause::Kind(kind) | Cause::Children(kind, ..) => kind,
            Cause::Canvas => ProblemKind::Overlap,
        }
    }
}

impl Omitted {
    /// "12 more children overflow 'Card' (c1)", "at least 4,000,000 more overlaps among …".
    fn summary(&self, scene: &Scene) -> String {
        let one = self.count == 1;
        let pick = |singular: &str, plural: &str| if one { singular.to_owned() } else { plural.to_owned() };
        let parent = |part: usize, node: usize| {
            scene.parts().get(part).filter(|p| node < p.nodes().len()).map_or_else(String::new, |p| describe(p, node))
        };
        let siblings = thousands(self.siblings);
        let what = match self.cause {
            Cause::Children(ProblemKind::Overflow, part, node) => {
                format!("{} {}", pick("child overflows", "children overflow"), parent(part, node))
            }
            Cause::Children(ProblemKind::Clipped, part, node) => {
                format!("{} {}", pick("child is clipped by", "children are clipped by"), parent(part, node))
            }
            Cause::Children(kind, part, node) => {
                format!("{} among {siblings} siblings of {}", pick(kind.noun().0, kind.noun().1), parent(part, node))
            }
            Cause::Canvas => format!("{} among {siblings} top-level nodes", pick("overlap", "overlaps")),
            Cause::Kind(kind) => pick(kind.noun().0, kind.noun().1),
        };
        match (self.complete, self.count) {
            (true, count) => format!("{} more {what}", thousands(count)),
            (false, 0) => format!("possibly more {what}: too many pairs to examine them all"),
            (false, count) => format!("at least {} more {what} (too many pairs to examine them all)", thousands(count)),
        }
    }
}

impl ProblemKind {
    /// What one and several problems of this kind are, for summaries.
    fn noun(self) -> (&'static str, &'static str) {
        match self {
            ProblemKind::Overflow => ("child overflows its parent", "children overflow their parents"),
            ProblemKind::Clipped => {
                ("child is hidden by its clipping parent", "children are hidden by their clipping parents")
            }
            ProblemKind::Overlap => ("overlap", "overlaps"),
            ProblemKind::ZeroSize => ("node has no size", "nodes have no size"),
            ProblemKind::TextOverflow => ("text is cut off by its box", "texts are cut off by their boxes"),
            ProblemKind::FillOutsideFlex => {
                ("fill_container outside a flex layout", "fill_container sizes outside a flex layout")
            }
            ProblemKind::FitContentWithoutContent => {
                ("fit_content with nothing to hug", "fit_content sizes with nothing to hug")
            }
            ProblemKind::CircularSizing => ("circular sizing", "circular sizings"),
            ProblemKind::FontFallback => ("font family is replaced", "font families are replaced"),
            ProblemKind::Unresolved => {
                ("instance, override or variable did not resolve", "instances, overrides or variables did not resolve")
            }
            ProblemKind::MissingImage => ("image file is missing", "image files are missing"),
            ProblemKind::MissingIcon => ("icon is missing", "icons are missing"),
            ProblemKind::Placeholder => ("placeholder is drawn", "placeholders are drawn"),
        }
    }
}

/// `4498000` as "4,498,000".
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}
