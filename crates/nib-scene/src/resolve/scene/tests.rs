//! The Scene end to end: instances expanded under their overrides, variables and themes,
//! what cannot be resolved, incremental updates, and the budget a document may spend.

use super::*;
use crate::doc::Document;
use crate::resolve::NoImports;
use crate::resolve::budget::{Limit, OverBudget};
use crate::resolve::components::Library;

fn scene(text: &str) -> Scene {
    build_scene(&Document::load(text).expect("valid").document, &NoImports, SceneOptions::FULL)
}

fn json(scene: &Scene, id: &str) -> String {
    scene.node_to_json(scene.node_by_id(id).unwrap_or_else(|| panic!("no {id}")), 0)
}

const KIT: &str = r##"{"version": "2.8", "themes": {"Mode": ["Light", "Dark"]}, "variables": {
    "--fg": {"type": "color", "value": [{"value": "#000000", "theme": {"Mode": "Light"}}, {"value": "#FFFFFF", "theme": {"Mode": "Dark"}}]},
    "--gap": {"type": "number", "value": 8}
  }, "children": [
    {"type": "frame", "id": "Label", "reusable": true, "gap": "$--gap", "children": [{"type": "text", "id": "txt", "content": "L", "fill": "$--fg"}]},
    {"type": "frame", "id": "Card", "reusable": true, "width": 200, "children": [
      {"type": "text", "id": "title", "content": "Title", "fill": "$--fg"},
      {"type": "ref", "id": "lbl", "ref": "Label", "descendants": {"txt": {"content": "from card"}}},
      {"type": "frame", "id": "slot", "slot": [], "children": [{"type": "text", "id": "placeholder", "content": "…"}]}]},
    {"type": "ref", "id": "Fancy", "ref": "Card", "reusable": true, "descendants": {"title": {"content": "Fancy"}}},
    {"type": "frame", "id": "page", "theme": {"Mode": "Dark"}, "children": [
      {"type": "ref", "id": "c1", "ref": "Card", "width": 300, "descendants": {
        "lbl/txt": {"content": "outer wins"},
        "slot": {"children": [{"type": "text", "id": "mine", "content": "slot content", "fill": "$--fg"}]},
        "title": {"enabled": false}}},
      {"type": "ref", "id": "f1", "ref": "Fancy"}]}
  ]}"##;

#[test]
fn find_answers_a_node_or_the_one_not_found_error_with_its_hint() {
    let scene = scene(KIT);
    assert_eq!(scene.find("c1/lbl/txt").ok(), scene.node_by_id("c1/lbl/txt"));
    assert!(scene.find("c1/lbl/txt").is_ok());
    let missing = scene.find("c1/nope").unwrap_err();
    assert_eq!(missing.message, "Node 'c1/nope' not found");
    assert_eq!(missing.severity, Severity::Error);
    assert_eq!(missing.node.as_deref(), Some("c1/nope"));
    assert_eq!(
        missing.hints,
        ["use an id from batch_get or get_editor_state; nodes inside instances are 'instance/child'"]
    );
}

#[test]
fn instances_expand_with_root_and_descendant_overrides() {
    let scene = scene(KIT);
    assert!(scene.problems.is_empty(), "{:?}", scene.problems);
    let c1 = json(&scene, "c1");
    assert!(c1.starts_with("{\"type\":\"frame\",\"id\":\"c1\""), "an instance takes its component's type: {c1}");
    assert!(c1.contains("\"width\":300"), "root overrides win: {c1}");
    assert!(!c1.contains("reusable"), "an instance is not a component: {c1}");
    assert!(json(&scene, "c1/lbl/txt").contains("outer wins"), "the outer instance beats the component's own override");
    assert!(json(&scene, "c1/mine").contains("slot content"), "slot children replace the component's");
    assert!(scene.node_by_id("c1/placeholder").is_none());
    assert!(!scene.node(scene.node_by_id("c1/title").unwrap()).is_enabled(), "hidden nodes stay, hidden");
    assert!(json(&scene, "c1/lbl").contains("\"gap\":8"), "variables inside components resolve");
}

#[test]
fn an_instances_own_children_are_document_nodes() {
    let scene = scene(
        r##"{"version": "2.8", "children": [
            {"type": "frame", "id": "Tabs", "reusable": true, "children": [{"type": "text", "id": "default", "content": "d"}]},
            {"type": "frame", "id": "Tab", "reusable": true, "children": [{"type": "text", "id": "label", "content": "Tab"}]},
            {"type": "ref", "id": "tabs", "ref": "Tabs", "children": [{"type": "ref", "id": "t1", "ref": "Tab", "descendants": {"label": {"content": "One"}}}]}
        ]}"##,
    );
    assert!(scene.problems.is_empty(), "{:?}", scene.problems);
    assert!(scene.node_by_id("tabs/default").is_none(), "own children replace the component's");
    assert!(scene.node(scene.node_by_id("t1").unwrap()).source.is_some());
    assert!(json(&scene, "t1/label").contains("\"content\":\"One\""));
}

/// Pen's files choose a library's theme on `alias:Axis` (`{"c:Mode": "Dark"}` for the
/// `Mode` axis of the file imported as `c`, as a 2.15 dashboard built on Pen's lunaris does).
#[test]
fn a_theme_chosen_on_an_imported_librarys_axis_reaches_its_variables_and_the_documents() {
    struct Lunaris(Document);
    impl Library for Lunaris {
        fn imported(&self, alias: &str) -> Option<&Document> {
            (alias == "c").then_some(&self.0)
        }
    }
    let library = Document::load(
        r##"{"version": "2.15", "themes": {"Mode": ["Light", "Dark"]}, "variables": {
            "--bg": {"type": "color", "value": [{"value": "#FFFFFF", "theme": {"Mode": "Light"}}, {"value": "#0A0A0A", "theme": {"Mode": "Dark"}}]}
          }, "children": [
            {"type": "frame", "id": "Card", "reusable": true, "width": 10, "height": 10, "fill": "$--bg", "children": [
              {"type": "frame", "id": "Light", "theme": {"Mode": "Light"}, "width": 5, "height": 5, "fill": "$--bg"}]}]}"##,
    )
    .unwrap()
    .document;
    let document = Document::load(
        r##"{"version": "2.15", "imports": {"c": "pencil:lunaris.lib.pen"}, "variables": {
            "--text": {"type": "color", "value": [{"value": "#111111", "theme": {"c:Mode": "Light"}}, {"value": "#EEEEEE", "theme": {"c:Mode": "Dark"}}]}
          }, "children": [
            {"type": "frame", "id": "dark", "theme": {"c:Mode": "Dark"}, "children": [
              {"type": "rectangle", "id": "own", "fill": "$--text"},
              {"type": "rectangle", "id": "lib", "fill": "$c:--bg"},
              {"type": "ref", "id": "card", "ref": "c:Card"}]},
            {"type": "frame", "id": "plain", "children": [
              {"type": "rectangle", "id": "own2", "fill": "$--text"},
              {"type": "ref", "id": "card2", "ref": "c:Card"}]}]}"##,
    )
    .unwrap()
    .document;
    let scene = build_scene(&document, &Lunaris(library.clone()), SceneOptions::FULL);
    assert!(scene.problems.is_empty(), "{:?}", scene.problems);
    assert!(json(&scene, "own").contains("#EEEEEE"), "the document's variable themed on c:Mode");
    assert!(json(&scene, "lib").contains("#0A0A0A"), "the library's variable, themed on its Mode");
    assert!(json(&scene, "card").contains("#0A0A0A"), "the library's component");
    assert!(json(&scene, "card/c:Light").contains("#FFFFFF"), "the component's own Mode is the library's axis");
    assert!(json(&scene, "own2").contains("#111111"), "unselected: the library's first value");
    assert!(json(&scene, "card2").contains("#FFFFFF"));
    // An axis or value that selects nothing is said, once.
    let wrong = r##"{"type": "frame", "id": "wrong", "theme": {"Mood": "Dark", "c:Mode": "Dusk"}, "children": [{"type": "frame", "id": "again", "theme": {"Mood": "Dark"}}]}"##;
    let text = document.to_pen_string().replacen("\"children\": [", &format!("\"children\": [{wrong},"), 1);
    let document = Document::load(&text).unwrap().document;
    let scene = build_scene(&document, &Lunaris(library), SceneOptions::FULL);
    let said: Vec<String> = scene.problems.iter().map(|p| p.message.clone()).collect();
    assert!(
        said.iter().any(|m| m.contains("the theme axis 'Mood' is defined neither by the document nor by an import")),
        "{said:?}"
    );
    assert_eq!(said.iter().filter(|m| m.contains("'Mood'")).count(), 1, "{said:?}");
    assert!(
        said.iter().any(|m| m.contains("'Dusk' is not a value of the theme axis 'c:Mode' (Light, Dark)")),
        "{said:?}"
    );
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    assert!(
        !scene.problems.iter().any(|p| p.message.contains("theme axis 'c:Mode'")),
        "an import that is not loaded is said where it is read"
    );
}

#[test]
fn themes_reach_into_instances() {
    let scene = scene(KIT);
    assert!(json(&scene, "c1/mine").contains("#FFFFFF"), "the page is dark");
    assert!(json(&scene, "title").contains("\"#000000\""), "the component itself is light");
}

#[test]
fn a_component_that_is_an_instance_adds_no_path_segment() {
    let scene = scene(KIT);
    assert!(json(&scene, "f1/title").contains("\"content\":\"Fancy\""));
    assert!(json(&scene, "f1/lbl/txt").contains("from card"));
}

#[test]
fn unresolvable_things_are_reported_with_their_node() {
    let scene = scene(
        r##"{"version": "2.8", "variables": {"--n": {"type": "number", "value": 4}}, "children": [
            {"type": "frame", "id": "A", "reusable": true, "children": [{"type": "ref", "id": "inner", "ref": "A"}]},
            {"type": "ref", "id": "a1", "ref": "A"},
            {"type": "ref", "id": "ghost", "ref": "Nope"},
            {"type": "ref", "id": "b1", "ref": "A", "descendants": {"nothing": {"content": "x"}}},
            {"type": "frame", "id": "v", "fill": "$--missing", "gap": "$--n", "opacity": "$--missing"},
            {"type": "frame", "id": "w", "fill": "$--n"}
        ]}"##,
    );
    let messages: Vec<String> =
        scene.problems.iter().map(|p| format!("{}: {}", p.node.as_deref().unwrap_or_default(), p.message)).collect();
    let has = |text: &str| messages.iter().any(|m| m.contains(text));
    assert!(has("a1/inner: component 'A' contains an instance of itself"), "{messages:#?}");
    assert!(has("ghost: component 'Nope' not found"), "{messages:#?}");
    assert!(has("b1: override 'nothing' matches no node of component 'A'"), "{messages:#?}");
    assert!(has("v: variable '--missing' is not defined (2 uses)"), "{messages:#?}");
    assert!(has("w: variable '--n' has a value of the wrong type here"), "{messages:#?}");
    assert!(json(&scene, "v").contains("\"gap\":4"));
    assert!(json(&scene, "v").contains("\"fill\":\"$--missing\""), "an unresolved reference stays visible, reported");
}

#[test]
fn options_leave_instances_or_variables_as_written() {
    let document = Document::load(KIT).unwrap().document;
    let plain =
        build_scene(&document, &NoImports, SceneOptions { expand_instances: false, substitute_variables: false });
    assert_eq!(plain.len(), document.node_count());
    assert!(plain.node_to_json(plain.node_by_id("c1").unwrap(), 0).contains("\"ref\":\"Card\""));
    let variables_only =
        build_scene(&document, &NoImports, SceneOptions { expand_instances: false, substitute_variables: true });
    assert!(variables_only.node_to_json(variables_only.node_by_id("Label").unwrap(), 0).contains("\"gap\":8"));
}

#[test]
fn an_update_rebuilds_only_the_parts_an_edit_touched() {
    let mut document = Document::load(KIT).unwrap().document;
    let before = build_scene(&document, &NoImports, SceneOptions::FULL);
    let same = |a: &Scene, b: &Scene, index: usize| Arc::ptr_eq(&a.parts()[index], &b.parts()[index]);
    // The page (part 3) uses Card, Label and Fancy; editing the page touches only itself.
    let page = document.node_by_id("page").unwrap();
    let mut edit = document.transaction();
    edit.set(page, Key::Name, Some(Value::Text("Home".into())));
    edit.commit();
    let after = update_scene(Some(&before), &document, &NoImports, SceneOptions::FULL);
    assert!((0..3).all(|i| same(&before, &after, i)), "components are untouched");
    assert!(!same(&before, &after, 3));
    // Editing a component rebuilds the parts that use it, not the others.
    let txt = document.node_by_id("txt").unwrap();
    let mut edit = document.transaction();
    edit.set(txt, Key::Content, Some(Value::Content(crate::doc::values::TextContent::Plain("New".into()))));
    edit.commit();
    let last = update_scene(Some(&after), &document, &NoImports, SceneOptions::FULL);
    assert!(!same(&after, &last, 0), "Label itself");
    assert!(!same(&after, &last, 1) && !same(&after, &last, 2), "Card and Fancy contain a Label");
    assert!(!same(&after, &last, 3), "the page contains Cards");
    assert!(last.node_to_json(last.node_by_id("lbl/txt").unwrap(), 0).contains("from card"));
    assert!(last.node_to_json(last.node_by_id("Label").unwrap(), 1).contains("New"));
    // Nothing changed: everything is reused.
    let again = update_scene(Some(&last), &document, &NoImports, SceneOptions::FULL);
    assert!((0..4).all(|i| same(&last, &again, i)));
}

#[test]
fn a_part_with_a_missing_component_is_rebuilt_when_it_appears() {
    let mut document = Document::load(
        r#"{"version": "2.8", "children": [{"type": "ref", "id": "r", "ref": "Later"}, {"type": "frame", "id": "home"}]}"#,
    )
    .unwrap()
    .document;
    let before = build_scene(&document, &NoImports, SceneOptions::FULL);
    assert_eq!(before.problems.len(), 1);
    let home = document.node_by_id("home").unwrap();
    let mut component = crate::doc::NodeTree::default();
    component.props.set(Key::Type, Value::NodeType(NodeType::Frame));
    component.props.set(Key::Id, Value::Text("Later".into()));
    component.props.set(Key::Reusable, Value::Bool(crate::doc::VarOr::Value(true)));
    let mut edit = document.transaction();
    edit.insert(Some(home), 0, component).unwrap();
    edit.commit();
    let after = update_scene(Some(&before), &document, &NoImports, SceneOptions::FULL);
    assert!(after.problems.is_empty(), "{:?}", after.problems);
}

#[test]
fn a_number_variable_beyond_any_length_is_reported_not_laid_out_as_infinity() {
    let scene = scene(
        r##"{"version": "2.8", "variables": {"--w": {"type": "number", "value": 1e308}}, "children": [
            {"type": "frame", "id": "page", "width": "$--w", "x": "$--w"}
        ]}"##,
    );
    assert_eq!(scene.problems.len(), 1, "{:?}", scene.problems);
    assert_eq!(
        scene.problems[0].message,
        "variable '--w' is 1e+308, beyond the largest number nib lays out (±1000000); it is not used (2 uses)"
    );
    assert!(json(&scene, "page").contains("\"width\":\"$--w\""), "left unresolved");
}

#[test]
fn text_that_names_a_string_variable_shows_its_value() {
    let scene = scene(
        r##"{"version": "2.8", "variables": {"--cta": {"type": "string", "value": "Get started"}}, "children": [
            {"type": "text", "id": "a", "content": "$--cta"},
            {"type": "text", "id": "b", "content": "$ git status"},
            {"type": "text", "id": "c", "content": "$--nope"}
        ]}"##,
    );
    assert!(json(&scene, "a").contains("\"content\":\"Get started\""));
    assert!(json(&scene, "b").contains("$ git status"));
    assert!(json(&scene, "c").contains("$--nope"), "not a variable: literal text");
    assert!(scene.problems.is_empty(), "{:?}", scene.problems);
}

/// Components `A0`…: each holds `fan_out` instances of the next, the last a rectangle (the
/// issue's reproduction when `levels` is 8 and `fan_out` 10), after the top-level `before`.
fn bomb(levels: usize, fan_out: usize, before: &str) -> String {
    let parts: Vec<String> = (0..levels)
        .map(|k| {
            let children: Vec<String> = if k + 1 < levels {
                (0..fan_out).map(|j| format!(r#"{{"type": "ref", "id": "c{k}_{j}", "ref": "A{}"}}"#, k + 1)).collect()
            } else {
                vec![r#"{"type": "rectangle", "id": "leaf", "width": 1, "height": 1}"#.to_owned()]
            };
            format!(
                r#"{{"type": "frame", "id": "A{k}", "reusable": true, "x": {}, "layout": "none", "children": [{}]}}"#,
                k * 20,
                children.join(", ")
            )
        })
        .collect();
    let before = if before.is_empty() { String::new() } else { format!("{before}, ") };
    format!(r#"{{"version": "2.8", "children": [{before}{}]}}"#, parts.join(", "))
}

fn created(scene: &Scene) -> usize {
    scene.walk().filter(|key| scene.node(*key).source.is_none()).count()
}

fn over_budget(scene: &Scene) -> &OverBudget {
    match scene.error() {
        Some(ResolveError::OverBudget(over)) => over,
        None => panic!("the scene is complete: {} nodes", scene.len()),
    }
}

const SMALL: Budget = Budget { nodes: 100, bytes: crate::resolve::MAX_COPIED_BYTES };

#[test]
fn an_instance_bomb_stops_at_the_budget_and_names_its_chain() {
    let document = Document::load(&bomb(4, 10, "")).unwrap().document;
    let scene = update_scene_within(None, &document, &NoImports, SceneOptions::FULL, SMALL);
    let over = over_budget(&scene);
    assert_eq!(over.limit, Limit::Nodes(100));
    assert_eq!((over.node.as_str(), over.pointer.as_str()), ("c0_0", "/children/0/children/0"));
    assert_eq!(over.chain_text(), "c0_0 → A1 › c1_4 → A2 › c2_7 → A3");
    assert_eq!(over.stopped_at, "c0_0/c1_4/c2_7/leaf");
    assert_eq!(created(&scene), 100, "expansion stops at the budget, not after it");
    assert_eq!(scene.spent().nodes, 100);
    // Every part keeps its top-level node; the parts after the first spend what is left.
    assert_eq!(scene.parts().len(), 4);
    assert!(scene.parts()[3].error().is_none(), "A3 creates nothing");
    assert!(scene.parts()[1].error().is_some(), "A1 expands A2 with nothing left");
}

/// The same nodes and the same error per part.
fn assert_same(a: &Scene, b: &Scene) {
    assert_eq!(a.error(), b.error());
    assert_eq!(a.parts().len(), b.parts().len());
    for (x, y) in a.parts().iter().zip(b.parts()) {
        let ids = |p: &ScenePart| p.nodes().iter().map(|n| n.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(x), ids(y));
        assert_eq!((x.error(), x.spent()), (y.error(), y.spent()));
    }
}

#[test]
fn a_bomb_resolves_the_same_from_the_cache_as_rebuilt() {
    let small = r#"{"type": "frame", "id": "small", "layout": "none", "children": [
        {"type": "ref", "id": "s1", "ref": "A2"}, {"type": "ref", "id": "s2", "ref": "A2"}]}"#;
    let mut document = Document::load(&bomb(4, 10, small)).unwrap().document;
    let fresh = |document: &Document| update_scene_within(None, document, &NoImports, SceneOptions::FULL, SMALL);
    let mut scene = fresh(&document);
    assert_eq!(over_budget(&scene).node, "c0_0");
    // Freeing budget before the bomb moves where it stops; a cached part is not reused
    // when it would come out differently.
    let s2 = document.node_by_id("s2").unwrap();
    let mut edit = document.transaction();
    edit.remove(s2);
    edit.commit();
    let updated = update_scene_within(Some(&scene), &document, &NoImports, SceneOptions::FULL, SMALL);
    assert_ne!(over_budget(&updated).stopped_at, over_budget(&scene).stopped_at);
    assert_same(&updated, &fresh(&document));
    scene = updated;
    // An edit before the bomb that spends the same leaves the stopped part as it was.
    let small = document.node_by_id("small").unwrap();
    let mut edit = document.transaction();
    edit.set(small, Key::Name, Some(Value::Text("Small".into())));
    edit.commit();
    let updated = update_scene_within(Some(&scene), &document, &NoImports, SceneOptions::FULL, SMALL);
    assert!(!Arc::ptr_eq(&updated.parts()[0], &scene.parts()[0]));
    assert!(Arc::ptr_eq(&updated.parts()[1], &scene.parts()[1]), "the stopped part is reused");
    assert_same(&updated, &fresh(&document));
    scene = updated;
    // Taking the bomb apart makes the document fit again.
    let mut edit = document.transaction();
    for k in 0..2 {
        for j in 1..10 {
            let key = edit.document().node_by_id(&format!("c{k}_{j}")).unwrap();
            edit.remove(key);
        }
    }
    edit.commit();
    let updated = update_scene_within(Some(&scene), &document, &NoImports, SceneOptions::FULL, SMALL);
    assert!(updated.error().is_none(), "{:?}", updated.error());
    assert_same(&updated, &fresh(&document));
}

#[test]
fn nodes_of_the_document_itself_are_not_counted() {
    let children: Vec<String> =
        (0..500).map(|i| format!(r#"{{"type": "rectangle", "id": "r{i}", "width": 1, "height": 1}}"#)).collect();
    let text = format!(r#"{{"version": "2.8", "children": [{}]}}"#, children.join(", "));
    let document = Document::load(&text).unwrap().document;
    let scene = update_scene_within(None, &document, &NoImports, SceneOptions::FULL, Budget::NONE);
    assert!(scene.error().is_none());
    assert_eq!(scene.len(), 500);
}

#[test]
fn a_long_value_copied_into_many_instances_is_over_the_byte_budget() {
    let geometry = format!("M0 0{}", " L1 1".repeat(2_000));
    let instances: Vec<String> =
        (0..100).map(|i| format!(r#"{{"type": "ref", "id": "i{i}", "ref": "Icon"}}"#)).collect();
    let text = format!(
        r#"{{"version": "2.8", "children": [
            {{"type": "frame", "id": "Icon", "reusable": true, "children": [{{"type": "path", "id": "p", "geometry": "{geometry}"}}]}},
            {{"type": "frame", "id": "page", "children": [{}]}}]}}"#,
        instances.join(", ")
    );
    let document = Document::load(&text).unwrap().document;
    let budget = Budget { nodes: 1_000, bytes: 200_000 };
    let scene = update_scene_within(None, &document, &NoImports, SceneOptions::FULL, budget);
    let over = over_budget(&scene);
    assert_eq!(over.limit, Limit::Bytes(200_000));
    assert_eq!(over.pointer, "/children/1/children/19", "each copy is 10 kB: the 20th goes over");
    assert!(scene.error().is_some_and(|e| e.hint().contains("large value")));
}

#[test]
fn a_long_string_variable_used_by_many_nodes_is_over_the_byte_budget() {
    let texts: Vec<String> =
        (0..50).map(|i| format!(r#"{{"type": "text", "id": "t{i}", "content": "$--long"}}"#)).collect();
    let text = format!(
        r#"{{"version": "2.8", "variables": {{"--long": {{"type": "string", "value": "{}"}}}}, "children": [{}]}}"#,
        "x".repeat(10_000),
        texts.join(", ")
    );
    let document = Document::load(&text).unwrap().document;
    let scene =
        update_scene_within(None, &document, &NoImports, SceneOptions::FULL, Budget { nodes: 0, bytes: 95_000 });
    let over = over_budget(&scene);
    assert!(over.chain.is_empty());
    assert_eq!((over.node.as_str(), over.pointer.as_str()), ("t9", "/children/9"));
    assert!(over.to_string().contains("string variables"), "{over}");
    assert_eq!(scene.parts().len(), 50, "every part keeps its top-level node");
}

#[test]
fn instances_nesting_deeper_than_a_scene_may_are_cut_and_reported() {
    // A chain of components, each holding one instance of the next: 300 levels.
    let document = Document::load(&bomb(300, 1, "")).unwrap().document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    assert!(scene.error().is_none());
    let depth = |key: SceneKey| std::iter::successors(Some(key), |k| scene.parent(*k)).count();
    assert_eq!(scene.walk().map(depth).max(), Some(crate::resolve::MAX_SCENE_DEPTH));
    let deep = scene.problems.iter().find(|p| p.message.contains("nest deeper than 128 levels"));
    assert!(
        deep.is_some_and(|p| p.node.as_deref().is_some_and(|node| node.starts_with("c0_0/c1_0/"))),
        "{:?}",
        &scene.problems[..1]
    );
}
