//! The font families a laid-out document asks for and how each resolves: said once per family
//! with its stand-in by `nib check`, `nib render` and get_screenshot (layout problems say it per
//! family too), and listed by `nib fonts FILE`.

use std::collections::HashMap;

use crate::doc::NodeType;
use crate::resolve::{Scene, SceneKey, SceneNode};
use crate::text::{FamilyChoice, TextEngine, TextStyle};

/// A family the document's text uses, and what it is drawn with.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FamilyUse {
    /// The family as the document names it (variables resolved).
    pub requested: String,
    /// The family its text is measured and drawn with.
    pub used: String,
    /// Where `used` comes from: bundled, document, user, cache or system.
    pub origin: &'static str,
    /// Why it is replaced, when it is (see [`FamilyChoice::reason`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The id of the first text node that uses it.
    pub first_node: String,
    /// How many text nodes use it.
    pub nodes: usize,
}

/// Every family the text of `scene` (of the subtree of `within` when given) asks for, in the
/// order first met, and how `text` resolves it (fetching a Google Fonts family on first use when
/// the engine may).
pub fn families_used(scene: &Scene, within: Option<SceneKey>, text: &mut TextEngine) -> Vec<FamilyUse> {
    let mut found: Vec<FamilyUse> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let nodes: Box<dyn Iterator<Item = &SceneNode>> = match within {
        Some(key) => Box::new(scene.subtree(key).map(|key| scene.node(key))),
        None => Box::new(scene.parts().iter().flat_map(|part| part.nodes())),
    };
    {
        for node in nodes {
            if !matches!(node.node_type(), NodeType::Text | NodeType::Note | NodeType::Prompt | NodeType::Context) {
                continue;
            }
            let family = TextStyle::of(&node.props).family;
            if let Some(index) = by_name.get(&family) {
                found[*index].nodes += 1;
                continue;
            }
            let choice: std::sync::Arc<FamilyChoice> = text.choose_family(&family);
            by_name.insert(family.clone(), found.len());
            found.push(FamilyUse {
                requested: family,
                used: choice.family.clone(),
                origin: choice.origin.as_str(),
                reason: choice.reason(),
                first_node: node.id.clone(),
                nodes: 1,
            });
        }
    }
    found
}

/// The replaced families of `scene` (of the subtree of `within`), a `font-substituted` note
/// each: the reason, and how many text nodes it concerns.
pub fn substitutions(
    scene: &Scene,
    within: Option<SceneKey>,
    text: &mut TextEngine,
) -> Vec<crate::diagnostic::Diagnostic> {
    families_used(scene, within, text)
        .into_iter()
        .filter_map(|family| {
            let reason = family.reason?;
            let nodes = if family.nodes == 1 {
                format!("text node '{}'", family.first_node)
            } else {
                format!("{} text nodes, first '{}'", family.nodes, family.first_node)
            };
            Some(crate::diagnostic::Diagnostic::note("font-substituted", format!("font {reason} [{nodes}]")))
        })
        .collect()
}
