//! Resolution: what `ref` instances, paths through instances, variables and themes stand for.
//!
//! [`components`] answers structural questions (which component an instance copies, which node a
//! path addresses); it is what batch_design needs to edit instances.

pub mod components;

pub use components::{
    Component, ComponentError, InstanceNode, Library, MAX_INSTANCE_DEPTH, NoImports, PathError, PathTarget,
    find_component, resolve_path,
};
