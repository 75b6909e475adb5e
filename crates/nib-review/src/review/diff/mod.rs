//! What changed between two versions of a document, by node id: nodes added, removed, moved
//! and changed (per property, and per override path inside instances), the components whose
//! definition changed with the instances that show it, variables and themes, the
//! document-level keys, and the top-level frames a reviewer should look at.
//!
//! Everything is listed in document order, so the same two documents always give the same
//! diff. The cost is linear in the size of the documents (plus n log n to tell moves from
//! shifts among siblings).

mod affected;
pub(crate) mod header;
mod nodes;

use crate::doc::values::TextContent;
use crate::doc::{Document, Key, NodeKey, Value};

use crate::doc::respell::{is_flat, respell};

/// Longest text content used to name an unnamed text node in a report.
const LABEL_TEXT_CHARS: usize = 40;

/// A structural diff of two documents.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diff {
    /// Document-level keys that changed: `version`, `imports[alias]`, unknown keys by name.
    pub document: Vec<PropertyChange>,
    /// Nodes whose strokes or icons were only respelled for the other version (ids, document
    /// order); their values are the same, so they are not listed as changes.
    pub respelled: Vec<String>,
    /// Node changes: added and removed subtrees (once, at their root), moved and changed nodes;
    /// in the new document's order, then removed nodes in the old one's.
    pub nodes: Vec<NodeChange>,
    /// Components present in both documents whose definition changed.
    pub components: Vec<ComponentChange>,
    /// Variables added, removed or changed.
    pub variables: Vec<VariableChange>,
    /// Theme axes added, removed or changed.
    pub themes: Vec<ThemeChange>,
    /// The top-level frames that look different: their subtree changed, or they show a changed
    /// component or variable.
    pub frames: Vec<FrameChange>,
}

impl Diff {
    /// True when the documents say the same thing (key order and formatting aside).
    pub fn is_empty(&self) -> bool {
        self.document.is_empty()
            && self.nodes.is_empty()
            && self.components.is_empty()
            && self.variables.is_empty()
            && self.themes.is_empty()
            && self.frames.is_empty()
    }

    /// Counts of each kind of change.
    pub fn summary(&self) -> Summary {
        let count = |kind: NodeChangeKind| self.nodes.iter().filter(|n| n.kind == kind).count();
        Summary {
            added: count(NodeChangeKind::Added),
            removed: count(NodeChangeKind::Removed),
            moved: self.nodes.iter().filter(|n| n.moved_from.is_some()).count(),
            changed: self.nodes.iter().filter(|n| !n.properties.is_empty()).count(),
            components: self.components.len(),
            variables: self.variables.len(),
            themes: self.themes.len(),
            frames: self.frames.len(),
        }
    }
}

/// How many changes of each kind a diff holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Added subtrees.
    pub added: usize,
    /// Removed subtrees.
    pub removed: usize,
    /// Moved nodes.
    pub moved: usize,
    /// Nodes with changed properties.
    pub changed: usize,
    /// Changed component definitions.
    pub components: usize,
    /// Changed variables.
    pub variables: usize,
    /// Changed theme axes.
    pub themes: usize,
    /// Top-level frames that look different.
    pub frames: usize,
}

/// One value that changed; values are compact JSON as saved, `None` where absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertyChange {
    /// The property: `fill`, `descendants[label].content`, `descendants[icon]` (a replaced
    /// node), a theme such as `Mode=Dark` for variable values.
    pub key: String,
    /// Before.
    pub old: Option<String>,
    /// After.
    pub new: Option<String>,
}

/// Which node, in words a reviewer recognises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLabel {
    /// The id.
    pub id: String,
    /// The node type (`frame`, `text`, …).
    pub node_type: String,
    /// Its name, when it has one.
    pub name: Option<String>,
    /// For a text node without a name: the start of its text.
    pub text: Option<String>,
}

impl NodeLabel {
    /// The label of `key` in `document`.
    pub fn of(document: &Document, key: NodeKey) -> NodeLabel {
        let node = document.tree().node(key);
        let name = node.props.name().map(str::to_owned);
        let text = match (&name, node.props.get(&Key::Content)) {
            (None, Some(Value::Content(TextContent::Plain(text)))) => {
                let mut start: String = text.chars().take(LABEL_TEXT_CHARS).collect();
                if text.chars().count() > LABEL_TEXT_CHARS {
                    start.push('…');
                }
                Some(start)
            }
            _ => None,
        };
        NodeLabel {
            id: node.id().to_owned(),
            node_type: node.props.type_name().unwrap_or_default().into_owned(),
            name,
            text,
        }
    }
}

impl std::fmt::Display for NodeLabel {
    /// `frame 'Hero' (a1b2c)`, `text "Sign in" (k2)`, `rectangle (r9)`; names and ids on one
    /// line whatever they hold (a report prints them to a terminal).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::printable::one_line;
        let id = one_line(&self.id);
        match (&self.name, &self.text) {
            (Some(name), _) => write!(f, "{} '{}' ({id})", self.node_type, one_line(name)),
            (None, Some(text)) => write!(f, "{} {:?} ({id})", self.node_type, text),
            (None, None) => write!(f, "{} ({id})", self.node_type),
        }
    }
}

/// What happened to a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeChangeKind {
    /// It (and its subtree) is new.
    Added,
    /// It (and its subtree) is gone.
    Removed,
    /// It is in both: moved, or with changed properties, or both.
    Changed,
}

/// A change to one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeChange {
    /// The node (as it is now; as it was when removed).
    pub node: NodeLabel,
    /// Added, removed or changed.
    pub kind: NodeChangeKind,
    /// For added and removed subtrees: how many nodes they hold, the root included (nodes moved
    /// into or out of them are moves, not counted); 1 for a changed node.
    pub nodes: usize,
    /// Where it is (where it was, when removed).
    pub at: Place,
    /// Where it was before it moved, when it did.
    pub moved_from: Option<Place>,
    /// Changed properties, in the node's order.
    pub properties: Vec<PropertyChange>,
}

impl NodeChange {
    /// The id of the top-level frame it is in (was in, when removed).
    pub fn frame(&self) -> &str {
        &self.at.frame
    }
}

/// A node's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The parent; `None` at the top level.
    pub parent: Option<NodeLabel>,
    /// The position among the parent's children, from 0.
    pub index: usize,
    /// The id of the top-level frame it is in (its own at the top level).
    pub frame: String,
}

/// A component whose definition changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentChange {
    /// The component (as it is now).
    pub component: NodeLabel,
    /// True when its own subtree changed; false when it changed only through a changed
    /// component it contains an instance of (listed in `through`).
    pub direct: bool,
    /// Changed components it contains instances of.
    pub through: Vec<String>,
    /// Instances of it in either document (ids; the new document's first).
    pub instances: Vec<String>,
}

/// Added, removed or changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Only in the new document.
    Added,
    /// Only in the old document.
    Removed,
    /// In both, different.
    Changed,
}

/// A variable that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableChange {
    /// Its name (`--primary`).
    pub name: String,
    /// Added, removed or changed.
    pub kind: ChangeKind,
    /// Its type before and after, when that changed (or it was added or removed).
    pub var_type: Option<(Option<String>, Option<String>)>,
    /// Values per theme that changed: key `default` for a plain value or a value without a
    /// theme, else the theme (`Mode=Dark`).
    pub values: Vec<PropertyChange>,
}

/// A theme axis that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThemeChange {
    /// The axis (`Mode`).
    pub axis: String,
    /// Its values before, `None` when it is new.
    pub old: Option<Vec<String>>,
    /// Its values after, `None` when it is gone.
    pub new: Option<Vec<String>>,
}

/// A top-level frame that looks different.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameChange {
    /// The frame (as it is now; as it was when removed).
    pub frame: NodeLabel,
    /// Added, removed or changed.
    pub kind: ChangeKind,
    /// True when it is a top-level node of the old document (it has an old picture).
    pub in_old: bool,
    /// True when it is a top-level node of the new document (it has a new picture).
    pub in_new: bool,
    /// How many node changes lie in it.
    pub changes: usize,
    /// Changed components it shows instances of.
    pub components: Vec<String>,
    /// Changed variables it uses.
    pub variables: Vec<String>,
}

/// The diff from `old` to `new`.
pub fn diff(old: &Document, new: &Document) -> Diff {
    let flat = is_flat(new.version());
    let respelled_old;
    let (old_compared, respelled) = if is_flat(old.version()) != flat {
        let mut copy = old.clone();
        let respelled = respell(&mut copy, flat);
        respelled_old = copy;
        (&respelled_old, respelled)
    } else {
        (old, Vec::new())
    };
    let nodes = nodes::node_changes(old_compared, new);
    let (variables, themes) = header::variable_changes(old, new);
    let components = affected::component_changes(old, new, &nodes);
    let frames = affected::frame_changes(old, new, &nodes, &components, &variables, &themes);
    let respelled = respelled.into_iter().filter(|id| new.node_by_id(id).is_some()).collect();
    Diff { document: header::document_changes(old, new), respelled, nodes, components, variables, themes, frames }
}
