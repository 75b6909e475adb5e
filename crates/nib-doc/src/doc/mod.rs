//! The Document: a `.pen` file as an arena node tree with typed properties, loaded and saved
//! losslessly.
//!
//! - [`Document::load`] reads `.pen` text (versions 2.6–2.13, comments allowed) into a typed tree;
//!   bad input is a [`LoadError`] with line, column, JSON pointer, node id and a hint.
//! - [`Document::to_pen_string`] writes it back exactly as Pen would (`JSON.stringify(doc,
//!   null, 2)`): an unchanged document saves byte-identical.
//! - [`io`] reads files and writes them atomically.

pub mod convert;
mod document;
mod edit;
pub mod error;
mod excerpt;
pub mod ids;
pub mod io;
pub mod json;
mod keyword;
pub mod locate;
mod node;
mod object;
pub mod pencil_order;
pub mod props;
pub mod respell;
mod tree;
pub mod values;
pub mod vars;

pub mod format;
pub mod migrate;
pub mod spelling;

pub(crate) use convert::OneOrList;
pub use convert::{MAX_UNKNOWN_KEYS, OrderedMap, VarOr, VarRef};
pub use document::{
    Document, KNOWN_VERSIONS, Loaded, MAX_FILE_BYTES, MAX_NODES, NEW_DOCUMENT_VERSION, NodeCounts, over_limit,
};
pub use edit::{HistoryMark, LastStep, StepCounts, Touch, Transaction};
pub use error::{ErrorKind, LoadError, Location, MAX_PROBLEMS, Problem, ProblemKind};
pub use keyword::{edit_distance, suggest};
pub use locate::locate_pointer;
pub use node::{Descendants, NodeTree, NodeType, Slot};
pub use props::{Key, Literal, MAX_LENGTH, Props, Value};
pub use tree::{MAX_NODE_DEPTH, Node, NodeKey, Tree};
