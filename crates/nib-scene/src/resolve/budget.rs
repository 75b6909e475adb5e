//! Limits on what resolving one document may create, and the error when a document needs more.
//!
//! Instances multiply: a component holding ten instances of a component holding ten instances…
//! is 10^8 nodes after eight levels, from a file of a few kilobytes, and a long value (path
//! geometry, text, a string variable) is copied into every node that shows it. Resolution
//! counts what it creates against a [`Budget`] and stops at the first node that would go over:
//! the Scene is then partial and carries a [`ResolveError`] naming the chain of instances.
//!
//! The budget belongs to the whole document and is spent in document order, top-level part by
//! top-level part, so a Scene comes out the same whether its parts are rebuilt or reused.

use std::fmt;

/// Most nodes instance expansion may create in one document. Nodes of the document itself do
/// not count ([`crate::doc::MAX_NODES`] bounds them), only the copies of component content. The largest
/// real Scene (the corpus in `tests/fixtures/pen`) has 3,618 nodes, 477 of them created by
/// expansion: this is 55× the first and 400× the second, and a Scene this size lays out and
/// renders in about 320 MB, measured on a debug build (DECISIONS.md, Resolution).
pub const MAX_EXPANDED_NODES: usize = 200_000;

/// Most bytes of property values resolving one document may copy, measured as compact JSON:
/// component content copied into instances (with the ids of the copies), and string variables
/// copied into the nodes that use them. The most a corpus file copies is about 100 KB, some
/// 220 bytes per created node: this leaves [`MAX_EXPANDED_NODES`] of such nodes the binding
/// limit (they need about 45 MB), and stops a few long values repeated in many instances (a
/// 60 KB path or text in a thousand instances) from taking memory without end.
pub const MAX_COPIED_BYTES: usize = 64 * 1024 * 1024;

/// Deepest a Scene nests, in node levels. A file nests at most 64 (the reader takes 128 JSON
/// levels) and the deepest real Scene 12; instances inside instances can nest far deeper, and
/// layout and rendering recurse once per level on a thread with a 2 MiB stack (the MCP
/// server's): they were measured to hold 300 levels there in a debug build.
pub const MAX_SCENE_DEPTH: usize = 128;

/// An amount of nodes created and bytes copied: what a document may spend, or what a part spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Nodes created by instance expansion.
    pub nodes: usize,
    /// Bytes of property values copied (approximate: compact JSON).
    pub bytes: usize,
}

impl Budget {
    /// What one document may spend: [`MAX_EXPANDED_NODES`] and [`MAX_COPIED_BYTES`].
    pub const DOCUMENT: Budget = Budget { nodes: MAX_EXPANDED_NODES, bytes: MAX_COPIED_BYTES };

    /// Nothing spent.
    pub(crate) const NONE: Budget = Budget { nodes: 0, bytes: 0 };

    /// Both amounts added.
    pub(crate) fn plus(self, other: Budget) -> Budget {
        Budget { nodes: self.nodes.saturating_add(other.nodes), bytes: self.bytes.saturating_add(other.bytes) }
    }

    /// What is left of `self` after spending `spent` (never below zero).
    pub(crate) fn minus(self, spent: Budget) -> Budget {
        Budget { nodes: self.nodes.saturating_sub(spent.nodes), bytes: self.bytes.saturating_sub(spent.bytes) }
    }

    /// The limit `self` goes over in `limit`, if any (nodes first).
    pub(crate) fn exceeded(self, limit: Budget, document: Budget) -> Option<Limit> {
        if self.nodes > limit.nodes {
            Some(Limit::Nodes(document.nodes))
        } else if self.bytes > limit.bytes {
            Some(Limit::Bytes(document.bytes))
        } else {
            None
        }
    }
}

/// Which limit of the document's [`Budget`] was reached, with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Nodes created by instance expansion.
    Nodes(usize),
    /// Bytes of property values copied.
    Bytes(usize),
}

/// One instance on the way to where expansion stopped: its id as a path segment and the
/// component it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLink {
    /// The instance's id (with the import alias when it comes from an imported document).
    pub instance: String,
    /// The component the instance names, as written in its `ref`.
    pub component: String,
}

/// Why a Scene could not be resolved in full.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    /// Resolving would create more than the document's [`Budget`]; it stopped there, and the
    /// Scene holds only what was built before.
    #[error("{0}")]
    OverBudget(Box<OverBudget>),
}

impl ResolveError {
    /// What to do about it, for an agent or a person.
    pub fn hint(&self) -> &'static str {
        match self {
            ResolveError::OverBudget(over) => over.hint(),
        }
    }
}

/// Where and how resolution went over the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    /// The limit reached.
    pub limit: Limit,
    /// The id of the document node it concerns: the outermost instance of the chain, or the
    /// node itself when no instance is involved.
    pub node: String,
    /// The JSON pointer of that node in the document, e.g. `/children/0/children/3`.
    pub pointer: String,
    /// The instances from that node down to where expansion stopped, outermost first.
    pub chain: Vec<ChainLink>,
    /// The Scene id (instance path) of the node that did not fit.
    pub stopped_at: String,
}

/// Links shown at each end of a long chain; the middle is counted instead.
const CHAIN_ENDS_SHOWN: usize = 6;

/// Longest id shown in a message, in characters: ids can be long, and an error stays readable.
const ID_CHARS_SHOWN: usize = 40;

impl OverBudget {
    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self.limit {
            Limit::Nodes(_) => {
                "a component contains many instances of components that contain many instances…: flatten it or split it (fewer instances per component, fewer levels of nesting); batch_design can still edit or delete the instance"
            }
            Limit::Bytes(_) => {
                "a large value (path geometry, long text, a long string variable) is copied into every instance or node that shows it: keep one copy, shorten it, or split the component; batch_design can still edit or delete the node"
            }
        }
    }

    /// The chain as `c0 → A1 › c1 → A2`, long chains shortened in the middle.
    pub fn chain_text(&self) -> String {
        let link = |l: &ChainLink| format!("{} → {}", shorten(&l.instance), shorten(&l.component));
        let links = &self.chain;
        if links.len() <= 2 * CHAIN_ENDS_SHOWN {
            return links.iter().map(link).collect::<Vec<_>>().join(" › ");
        }
        let head: Vec<String> = links[..CHAIN_ENDS_SHOWN].iter().map(link).collect();
        let tail: Vec<String> = links[links.len() - CHAIN_ENDS_SHOWN..].iter().map(link).collect();
        let skipped = links.len() - 2 * CHAIN_ENDS_SHOWN;
        format!("{} › … {skipped} more … › {}", head.join(" › "), tail.join(" › "))
    }
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let node = shorten(&self.node);
        let pointer = if self.pointer.is_empty() { "/" } else { &self.pointer };
        match (self.limit, self.chain.is_empty()) {
            (Limit::Nodes(limit), _) => write!(
                f,
                "the instances in '{node}' (at {pointer}) expand to more than {limit} nodes, the most one document may create"
            )?,
            (Limit::Bytes(limit), false) => write!(
                f,
                "the instances in '{node}' (at {pointer}) copy more than {} of property values, the most one document may copy",
                bytes_text(limit)
            )?,
            (Limit::Bytes(limit), true) => write!(
                f,
                "node '{node}' (at {pointer}) takes the document over {} of copied property values (string variables), the most one document may copy",
                bytes_text(limit)
            )?,
        }
        if !self.chain.is_empty() {
            write!(f, ": {}", self.chain_text())?;
        }
        write!(f, "; expansion stopped at '{}'", shorten(&self.stopped_at))
    }
}

/// `bytes` in MiB when it is a whole number of them.
fn bytes_text(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { format!("{} MiB", bytes >> 20) } else { format!("{bytes} bytes") }
}

/// `id` cut to [`ID_CHARS_SHOWN`] characters.
fn shorten(id: &str) -> String {
    match id.char_indices().nth(ID_CHARS_SHOWN) {
        Some((end, _)) => format!("{}…", &id[..end]),
        None => id.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(links: usize, limit: Limit) -> OverBudget {
        OverBudget {
            limit,
            node: "c0_0".into(),
            pointer: "/children/0/children/0".into(),
            chain: (0..links)
                .map(|k| ChainLink { instance: format!("c{k}_0"), component: format!("A{}", k + 1) })
                .collect(),
            stopped_at: "c0_0/c1_0/leaf".into(),
        }
    }

    #[test]
    fn the_message_names_the_chain_the_place_and_the_limit() {
        let text = over(2, Limit::Nodes(200_000)).to_string();
        assert_eq!(
            text,
            "the instances in 'c0_0' (at /children/0/children/0) expand to more than 200000 nodes, the most one document may create: c0_0 → A1 › c1_0 → A2; expansion stopped at 'c0_0/c1_0/leaf'"
        );
        assert!(over(2, Limit::Nodes(1)).hint().contains("flatten it or split it"));
    }

    #[test]
    fn long_chains_and_long_ids_are_shortened() {
        let text = over(40, Limit::Bytes(64 << 20)).chain_text();
        assert!(text.starts_with("c0_0 → A1 › "), "{text}");
        assert!(text.contains("… 28 more …") && text.ends_with("c39_0 → A40"), "{text}");
        assert_eq!(shorten(&"x".repeat(100)).chars().count(), ID_CHARS_SHOWN + 1);
    }

    #[test]
    fn the_first_limit_gone_over_is_named() {
        let limit = Budget { nodes: 10, bytes: 100 };
        let document = Budget::DOCUMENT;
        assert_eq!(Budget { nodes: 10, bytes: 100 }.exceeded(limit, document), None);
        assert_eq!(Budget { nodes: 11, bytes: 0 }.exceeded(limit, document), Some(Limit::Nodes(MAX_EXPANDED_NODES)));
        assert_eq!(Budget { nodes: 0, bytes: 101 }.exceeded(limit, document), Some(Limit::Bytes(MAX_COPIED_BYTES)));
    }
}
