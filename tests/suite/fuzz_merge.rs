//! Random edits on two branches of a document, merged by node id and property: merging with a
//! side that did not change gives the other side, and any two branches merge or conflict
//! without a panic, into a document that loads.

use nib::doc::values::{Variable, VariableScalar, VariableType, VariableValue};
use nib::doc::{Document, Key, NodeTree, NodeType, Value, VarOr};
use nib::review::diff::diff;
use nib::review::merge::merge;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(128)
}

const BASE: &str = r##"{"version": "2.11", "variables": {"--a": {"type": "number", "value": 1}}, "children": [
    {"type": "frame", "id": "page", "name": "Page", "children": [
        {"type": "text", "id": "title", "content": "Hello"},
        {"type": "frame", "id": "card", "gap": 4, "children": [{"type": "rectangle", "id": "r1"}, {"type": "rectangle", "id": "r2"}]},
        {"type": "ref", "id": "btn1", "ref": "btn", "descendants": {"label": {"content": "Go"}}}]},
    {"type": "frame", "id": "btn", "reusable": true, "children": [{"type": "text", "id": "label", "content": "Button"}]},
    {"type": "frame", "id": "side", "children": []}
]}"##;

const NODES: &[&str] = &["page", "title", "card", "r1", "r2", "btn1", "btn", "label", "side"];
const PARENTS: &[Option<&str>] = &[None, Some("page"), Some("card"), Some("btn"), Some("side")];

#[derive(Debug, Clone)]
enum Edit {
    Gap(usize, u8),
    Name(usize, u8),
    Remove(usize),
    Insert(usize, usize),
    Move(usize, usize, usize),
    Variable(u8),
    Override(u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    let node = 0..NODES.len();
    let parent = 0..PARENTS.len();
    prop_oneof![
        (node.clone(), 0u8..4).prop_map(|(n, v)| Edit::Gap(n, v)),
        (node.clone(), 0u8..4).prop_map(|(n, v)| Edit::Name(n, v)),
        node.clone().prop_map(Edit::Remove),
        (parent.clone(), 0usize..4).prop_map(|(p, i)| Edit::Insert(p, i)),
        (node, parent, 0usize..4).prop_map(|(n, p, i)| Edit::Move(n, p, i)),
        (0u8..4).prop_map(Edit::Variable),
        (0u8..4).prop_map(Edit::Override),
    ]
}

/// `base` with `edits` applied; inserted nodes get ids `{side}{n}`.
fn branch(edits: &[Edit], side: &str) -> Document {
    let mut document = Document::load(BASE).unwrap().document;
    for (n, edit) in edits.iter().enumerate() {
        let key = |document: &Document, i: usize| document.node_by_id(NODES[i]);
        let parent = |document: &Document, p: usize| PARENTS[p].map(|id| document.node_by_id(id));
        let mut tx = document.transaction();
        match edit {
            Edit::Gap(i, v) => {
                if let Some(node) = key(tx.document(), *i) {
                    tx.set(node, Key::Gap, Some(Value::Number(VarOr::Value(f64::from(*v)))));
                }
            }
            Edit::Name(i, v) => {
                if let Some(node) = key(tx.document(), *i) {
                    tx.set(node, Key::Name, (*v > 0).then(|| Value::Text(format!("n{v}"))));
                }
            }
            Edit::Remove(i) => {
                if let Some(node) = key(tx.document(), *i) {
                    tx.remove(node);
                }
            }
            Edit::Insert(p, index) => {
                if let Some(parent) =
                    parent(tx.document(), *p).unwrap_or(None).map(Some).or(PARENTS[*p].is_none().then_some(None))
                {
                    let mut tree = NodeTree::default();
                    tree.props.set(Key::Type, Value::NodeType(NodeType::Rectangle));
                    tree.props.set(Key::Id, Value::Text(format!("{side}{n}")));
                    tx.insert(parent, *index, tree).unwrap();
                }
            }
            Edit::Move(i, p, index) => {
                let target =
                    parent(tx.document(), *p).unwrap_or(None).map(Some).or(PARENTS[*p].is_none().then_some(None));
                if let (Some(node), Some(target)) = (key(tx.document(), *i), target) {
                    let _ = tx.move_node(node, target, *index);
                }
            }
            Edit::Variable(v) => tx.edit_header(|header| {
                let variable = Variable {
                    var_type: Some(VariableType::Number),
                    value: Some(VariableValue::Plain(VariableScalar::Number(f64::from(*v)))),
                    ..Variable::default()
                };
                let entries = &mut header.variables().entries;
                match entries.iter_mut().find(|(name, _)| name == "--a") {
                    Some(entry) => entry.1 = variable,
                    None => entries.push(("--a".into(), variable)),
                }
            }),
            Edit::Override(v) => {
                if let Some(node) = tx.document().node_by_id("btn1") {
                    let mut value = tx.document().tree().node(node).props.get(&Key::Descendants).cloned();
                    if let Some(Value::Descendants(descendants)) = &mut value
                        && let Some((_, label)) = descendants.0.entries.first_mut()
                    {
                        label.props.set(
                            Key::Content,
                            Value::Content(nib::doc::values::TextContent::Plain(format!("v{v}").into())),
                        );
                    }
                    tx.set(node, Key::Descendants, value);
                }
            }
        }
        tx.commit();
    }
    document
}

/// The ids of nodes whose properties a diff lists as changed.
fn property_changes(diff: &nib::review::diff::Diff) -> Vec<String> {
    diff.nodes.iter().filter(|n| !n.properties.is_empty()).map(|n| n.node.id.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn merging_with_an_unchanged_side_gives_the_other_side(edits in prop::collection::vec(edit(), 0..12)) {
        let base = Document::load(BASE).unwrap().document;
        let changed = branch(&edits, "x");
        let kept = merge(&base, &changed, &base).unwrap();
        prop_assert_eq!(kept.document.to_pen_string(), changed.to_pen_string());
        let taken = merge(&base, &base, &changed).unwrap();
        let left = diff(&taken.document, &changed);
        prop_assert!(left.is_empty(), "{:?}", left);
    }

    #[test]
    fn two_edited_branches_merge_or_conflict_into_a_document_that_loads(
        ours in prop::collection::vec(edit(), 0..12),
        theirs in prop::collection::vec(edit(), 0..12),
    ) {
        let base = Document::load(BASE).unwrap().document;
        let (ours, theirs) = (branch(&ours, "o"), branch(&theirs, "t"));
        match merge(&base, &ours, &theirs) {
            Ok(merged) => {
                prop_assert!(Document::load(&merged.document.to_pen_string()).is_ok());
                // A node's properties differ from one side's only where the other side changed them.
                for (side, other) in [(&ours, &theirs), (&theirs, &ours)] {
                    let changed_by_other = property_changes(&diff(&base, other));
                    for id in property_changes(&diff(side, &merged.document)) {
                        prop_assert!(changed_by_other.contains(&id), "{} changed, though only one side touched it", id);
                    }
                }
            }
            Err(conflicts) => prop_assert!(!conflicts.is_empty()),
        }
    }
}
