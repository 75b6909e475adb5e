//! Whether a part resolved again can keep the layout it had (see [`super::Layout::update`]).
//!
//! An edit resolves its top-level node again, but most edits an agent makes (a fill, a stroke,
//! an effect, an opacity, a name) change nothing the layout reads: the sizing rules read the
//! tree, each node's layout keys ([`read_keys`]) and, for a text, its content and style. When
//! all of those are equal the boxes and shaped texts are the ones a fresh layout would make, so
//! they are kept and only the painter sees the change.

use crate::resolve::SceneNode;
use crate::resolve::ScenePart;
use crate::text::{TextStyle, text_content};

use super::rules::read_keys;

/// True when laying out `new` gives what laying out `old` gave (with the same fonts).
pub(super) fn same_inputs(old: &ScenePart, new: &ScenePart) -> bool {
    old.nodes().len() == new.nodes().len() && old.nodes().iter().zip(new.nodes()).all(|(a, b)| same_node(a, b))
}

fn same_node(old: &SceneNode, new: &SceneNode) -> bool {
    if old.parent_local() != new.parent_local() || !old.children_local().eq(new.children_local()) {
        return false;
    }
    let keys = read_keys(&old.props);
    if keys != read_keys(&new.props) {
        return false;
    }
    // Only a text node is measured (rules::plan_node); the style of another kind is paint's.
    keys.node_type != crate::doc::NodeType::Text
        || (text_content(&old.props) == text_content(&new.props)
            && TextStyle::of(&old.props) == TextStyle::of(&new.props))
}
