//! Resolution: what `ref` instances, paths through instances, variables and themes stand for.
//!
//! [`components`] answers structural questions (which component an instance copies, which node a
//! path addresses); it is what batch_design needs to edit instances. [`scene`] builds the Scene:
//! instances expanded and variables replaced under the themes in force ([`variables`]), within
//! the limits of [`budget`].

pub mod budget;
pub mod components;
mod format;
mod generated;
mod override_keys;
pub mod scene;
mod shown_text;
pub mod themed;
pub mod variables;

pub use budget::{Budget, Limit, MAX_COPIED_BYTES, MAX_EXPANDED_NODES, MAX_SCENE_DEPTH, OverBudget, ResolveError};
pub use components::{
    Component, ComponentError, InstanceNode, Library, NoImports, PathTarget, find_component, instance_paths_to,
    resolve_path,
};
pub use generated::{MAX_SCRIPT_NODES, script_problem};
pub use scene::{
    Scene, SceneKey, SceneNode, SceneOptions, ScenePart, build_scene, node_not_found, part_root, update_scene,
    update_scene_of, update_scene_within,
};
pub use shown_text::MAX_TEXT_CHARS;
pub(crate) use shown_text::shown_text;
pub use themed::{themed, themes_listed};
pub use variables::{ThemeContext, lookup, theme_axes, unresolved_axis};
