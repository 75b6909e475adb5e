//! Building a Scene part by part: which parts of a previous Scene are still current and may be
//! reused, how the document's budget is shared out among the parts in document order, and the
//! problems the parts report gathered for the document. Separate from the model it fills and
//! from how one part is built (`build/`).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::build::{build_part, import_not_loaded, unresolved};
use super::{Scene, SceneOptions, ScenePart};
use crate::diagnostic::Diagnostic;
use crate::doc::{Document, NodeKey};
use crate::resolve::budget::{Budget, ResolveError};
use crate::resolve::components::Library;

impl ScenePart {
    /// True when a build with `remaining` of `budget` left would give this very part: a
    /// complete part fits in it, a stopped one was stopped by exactly that much.
    fn builds_the_same_with(&self, budget: Budget, remaining: Budget) -> bool {
        self.budget == budget
            && match self.error {
                None => self.spent.exceeded(remaining, budget).is_none(),
                Some(_) => self.allowance == remaining,
            }
    }

    fn is_current(&self, document: &Document) -> bool {
        if self.depends_on_everything {
            return document.revision() <= self.built_at;
        }
        document.changed_at(self.root) <= self.built_at
            && self.depends_on.iter().all(|dep| document.changed_at(*dep) <= self.built_at)
    }
}

/// Resolves `document` (with its imports from `library`) within [`Budget::DOCUMENT`]. When
/// the document needs more, the Scene is partial and [`Scene::error`] says why.
pub fn build_scene(document: &Document, library: &dyn Library, options: SceneOptions) -> Scene {
    update_scene(None, document, library, options)
}

/// Resolves `document`, reusing the parts of `previous` whose top-level node, and the
/// components they use, did not change since. `previous` must come from the same document and
/// library (a changed import calls for a full build). Within [`Budget::DOCUMENT`], as
/// [`build_scene`].
pub fn update_scene(
    previous: Option<&Scene>,
    document: &Document,
    library: &dyn Library,
    options: SceneOptions,
) -> Scene {
    update_scene_within(previous, document, library, options, Budget::DOCUMENT)
}

/// [`update_scene`] with another budget than [`Budget::DOCUMENT`].
pub fn update_scene_within(
    previous: Option<&Scene>,
    document: &Document,
    library: &dyn Library,
    options: SceneOptions,
    budget: Budget,
) -> Scene {
    resolve_parts(previous, document, library, options, budget, None)
}

/// Resolves only the top-level parts whose roots are in `roots` (in document order), reusing
/// those of `previous` that are current: all that rendering or laying out one node needs, so
/// its cost follows the part and not the file. Instances inside a part are expanded into it,
/// so a part is whole on its own. Each part gets the budget it would have if it came first
/// (the parts before it are not built to know what they spent); a part within budget in the
/// full Scene is identical here.
pub fn update_scene_of(
    previous: Option<&Scene>,
    document: &Document,
    library: &dyn Library,
    options: SceneOptions,
    roots: &[NodeKey],
) -> Scene {
    resolve_parts(previous, document, library, options, Budget::DOCUMENT, Some(roots))
}

/// The top-level node whose part holds the Scene node `id` (an id or an instance path such as
/// `card/title`); `None` when the document has no node with its first id.
pub fn part_root(document: &Document, id: &str) -> Option<NodeKey> {
    let first = id.split('/').next()?;
    document.node_by_id(first).map(|key| document.tree().root_of(key))
}

fn resolve_parts(
    previous: Option<&Scene>,
    document: &Document,
    library: &dyn Library,
    options: SceneOptions,
    budget: Budget,
    only: Option<&[NodeKey]>,
) -> Scene {
    let reusable: HashMap<NodeKey, &Arc<ScenePart>> = previous
        .filter(|p| p.options == Some(options))
        .map(|p| p.parts.iter().filter(|part| part.is_current(document)).map(|part| (part.root, part)).collect())
        .unwrap_or_default();
    // Parts spend the budget in document order: each gets what the parts before it left.
    let mut remaining = budget;
    let parts: Vec<Arc<ScenePart>> = document
        .tree()
        .roots()
        .iter()
        .enumerate()
        .filter(|(_, root)| only.is_none_or(|only| only.contains(root)))
        .map(|(place, root)| {
            if only.is_some() {
                remaining = budget;
            }
            let part = match reusable.get(root) {
                Some(part) if part.builds_the_same_with(budget, remaining) => at_place(part, place),
                _ => Arc::new(build_part(document, library, options, *root, budget, remaining)),
            };
            remaining = remaining.minus(part.spent);
            part
        })
        .collect();
    let mut problems: Vec<Diagnostic> = parts.iter().flat_map(|p| p.problems.iter().cloned()).collect();
    // A variable problem is reported once for the document: its first node and all its uses.
    let mut variable_problems: BTreeMap<&(String, String, Option<String>), (&str, usize)> = BTreeMap::new();
    for part in &parts {
        for (key, (node, count)) in &part.variable_problems {
            variable_problems.entry(key).and_modify(|(_, total)| *total += count).or_insert((node, *count));
        }
    }
    for ((_, message, alias), (node, count)) in variable_problems {
        let more = if count > 1 { format!(" ({count} uses)") } else { String::new() };
        let problem = match alias {
            Some(alias) => import_not_loaded(node, alias, format!("{message}{more}")),
            None => unresolved(node, format!("{message}{more}")),
        };
        problems.push(problem);
    }
    Scene { parts, options: Some(options), problems }
}

/// `part`, reused as the top-level node at `place`: an error names its node by a JSON pointer
/// that starts with the part's place among the top-level nodes, which removing or moving an
/// earlier one shifts (the same Scene must come from the cache as rebuilt).
fn at_place(part: &Arc<ScenePart>, place: usize) -> Arc<ScenePart> {
    let Some(ResolveError::OverBudget(over)) = &part.error else { return Arc::clone(part) };
    let Some(after) = over.pointer.strip_prefix("/children/") else { return Arc::clone(part) };
    let (written, rest) = after.split_at(after.find('/').unwrap_or(after.len()));
    if written.parse::<usize>().ok() == Some(place) {
        return Arc::clone(part);
    }
    let mut moved = ScenePart::clone(part);
    let mut over = over.clone();
    over.pointer = format!("/children/{place}{rest}");
    moved.error = Some(ResolveError::OverBudget(over));
    Arc::new(moved)
}
