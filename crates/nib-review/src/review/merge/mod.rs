//! Three-way merge of two branches of a document by node id and property, the way git merges
//! lines: for every unit (a property of a node, an override inside an instance, a node's place,
//! a variable, a theme axis, an import) compare base → ours and base → theirs; a change on one
//! side is taken, the same change on both is taken once, different changes are a conflict.
//! Nodes added on either side are kept; a node deleted on one side and changed on the other is
//! a conflict.
//!
//! The result starts as ours and takes theirs' changes through one transaction, so every node
//! theirs did not change saves exactly as ours has it. Documents of different format versions are
//! merged in the merged version, each side moved there as Pen moves an older file it opens
//! (`doc::migrate`), and the result holds only what that version allows.

mod header;
mod nodes;

use std::fmt;

use crate::doc::Document;
use crate::doc::format::{Version, audit};
use crate::doc::migrate::migrate;

use super::diff::NodeLabel;
use super::values::shorten;

/// Where two branches changed the same thing differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// What: a node (`frame 'Hero' (a1b2c)`), `variable --primary`, `theme Mode`, `document`.
    pub place: String,
    /// The node's id, for a node.
    pub id: Option<String>,
    /// The property (`padding`, `descendants[label].content`, `place`, `node`), when one.
    pub property: Option<String>,
    /// Why it cannot be merged.
    pub reason: String,
    /// The value in the common ancestor (compact JSON; `None` when absent).
    pub base: Option<String>,
    /// Ours.
    pub ours: Option<String>,
    /// Theirs.
    pub theirs: Option<String>,
}

impl fmt::Display for Conflict {
    /// `frame 'Hero' (a1b2c) padding: changed on both sides: base 32, ours 40, theirs 48`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.place)?;
        if let Some(property) = &self.property {
            write!(f, " {property}")?;
        }
        write!(f, ": {}", self.reason)?;
        if self.base.is_some() || self.ours.is_some() || self.theirs.is_some() {
            let shown = |v: &Option<String>| v.as_deref().map_or_else(|| "(none)".to_owned(), shorten);
            write!(f, ": base {}, ours {}, theirs {}", shown(&self.base), shown(&self.ours), shown(&self.theirs))?;
        }
        Ok(())
    }
}

impl Conflict {
    fn on_node(label: &NodeLabel, property: Option<String>, reason: &str) -> Conflict {
        Conflict {
            place: label.to_string(),
            id: Some(label.id.clone()),
            property,
            reason: reason.to_owned(),
            base: None,
            ours: None,
            theirs: None,
        }
    }

    fn with_values(mut self, base: Option<String>, ours: Option<String>, theirs: Option<String>) -> Conflict {
        (self.base, self.ours, self.theirs) = (base, ours, theirs);
        self
    }
}

/// A clean merge.
#[derive(Debug)]
pub struct Merged {
    /// Ours with theirs' changes.
    pub document: Document,
    /// How many units were taken from theirs.
    pub taken: usize,
}

/// Which side a three-way comparison keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Ours already holds the result (theirs did not change it, or changed it the same way).
    Ours,
    /// Only theirs changed it.
    Theirs,
    /// Both changed it differently.
    Conflict,
}

/// The three-way rule over optional values compared with `same`.
pub(crate) fn three_way<T: ?Sized>(
    base: Option<&T>,
    ours: Option<&T>,
    theirs: Option<&T>,
    same: impl Fn(&T, &T) -> bool,
) -> Pick {
    let equal = |a: Option<&T>, b: Option<&T>| match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same(a, b),
        _ => false,
    };
    if equal(theirs, base) || equal(ours, theirs) {
        Pick::Ours
    } else if equal(ours, base) {
        Pick::Theirs
    } else {
        Pick::Conflict
    }
}

/// Merges `ours` and `theirs`, two descendants of `base`: the merged document, or every place
/// where they conflict (then nothing should be written).
pub fn merge(base: &Document, ours: &Document, theirs: &Document) -> Result<Merged, Vec<Conflict>> {
    let mut conflicts = Vec::new();
    let version = match three_way(base.version(), ours.version(), theirs.version(), |a, b| a == b) {
        Pick::Theirs => theirs.version(),
        Pick::Ours => ours.version(),
        Pick::Conflict => {
            let quote = |v: Option<&str>| v.map(|v| format!("\"{v}\""));
            conflicts.push(
                Conflict {
                    place: "document".into(),
                    id: None,
                    property: Some("version".into()),
                    reason: "changed on both sides".into(),
                    base: None,
                    ours: None,
                    theirs: None,
                }
                .with_values(quote(base.version()), quote(ours.version()), quote(theirs.version())),
            );
            ours.version()
        }
    };
    // Each side is read in the merged version first, as Pen reads an older file: otherwise an
    // upgrade on one side reads as a change to every stroke, shadow and image on it.
    let target = Version::read_as(version);
    let mut moved = |document: &Document| {
        let mut copy = document.clone();
        if Version::read_as(document.version()) != target {
            match migrate(&mut copy, target) {
                Ok(_) => {}
                Err(error) => conflicts.push(Conflict {
                    place: "document".into(),
                    id: None,
                    property: Some("version".into()),
                    reason: format!("a side cannot be read as version {target}: {error}"),
                    base: None,
                    ours: None,
                    theirs: None,
                }),
            }
        }
        copy
    };
    let (base, theirs) = (moved(base), moved(theirs));
    let mut result = moved(ours);
    if !conflicts.is_empty() {
        return Err(conflicts);
    }
    let ours = result.clone();
    let mut taken = 0;
    {
        let mut tx = result.transaction();
        if version != ours.version() {
            tx.edit_header(|header| header.set_version(version.map(str::to_owned)));
            taken += 1;
        }
        taken += header::merge_header(&base, &ours, &theirs, &mut tx, &mut conflicts);
        taken += nodes::merge_nodes(&base, &ours, &theirs, &mut tx, &mut conflicts);
        if !conflicts.is_empty() {
            return Err(conflicts);
        }
        tx.commit();
    }
    // A merge writes only what its version holds (a side may have added what the other side's
    // upgrade removed).
    let findings = audit(&result);
    if !findings.is_empty() {
        return Err(findings
            .iter()
            .map(|finding| Conflict {
                place: format!("node '{}'", finding.node),
                id: Some(finding.node.clone()),
                property: Some(finding.pointer.trim_start_matches('/').replace('/', ".")),
                reason: format!("{}; {}", finding.problem, finding.problem.hint()),
                base: None,
                ours: None,
                theirs: None,
            })
            .collect());
    }
    // A merge must never produce a file that does not open again.
    if let Err(error) = Document::load(&result.to_pen_string()) {
        return Err(vec![Conflict {
            place: "document".into(),
            id: None,
            property: None,
            reason: format!("the merged document would not load ({error}); merge by hand"),
            base: None,
            ours: None,
            theirs: None,
        }]);
    }
    Ok(Merged { document: result, taken })
}

#[cfg(test)]
mod tests;
