//! Resolving real documents: every instance expands, every variable gets its value under the
//! themes in force, and values picked by hand from the files come out as expected.

use crate::common::{fixtures, load_with_imports};
use nib::doc::values::{Fill, TextContent};
use nib::doc::{Document, Key, Value, VarOr};
use nib::resolve::{Scene, SceneOptions, build_scene};

fn scene_of(name: &str) -> (Document, Scene) {
    let (document, imports) = load_with_imports(name);
    let scene = build_scene(&document, &imports, SceneOptions::FULL);
    (document, scene)
}

fn fill_color(scene: &Scene, id: &str) -> String {
    let key = scene.node_by_id(id).unwrap_or_else(|| panic!("no scene node {id}"));
    match scene.node(key).props.get(&Key::Fill) {
        Some(Value::Fills(fills)) => match &fills.as_slice()[0] {
            Fill::Solid(VarOr::Value(color)) => color.as_str().to_owned(),
            Fill::Color(fill) => match &fill.color {
                Some(VarOr::Value(color)) => color.as_str().to_owned(),
                other => panic!("{id}: {other:?}"),
            },
            other => panic!("{id}: {other:?}"),
        },
        other => panic!("{id}: {other:?}"),
    }
}

fn content(scene: &Scene, id: &str) -> String {
    let key = scene.node_by_id(id).unwrap_or_else(|| panic!("no scene node {id}"));
    match scene.node(key).props.get(&Key::Content) {
        Some(Value::Content(TextContent::Plain(text))) => text.to_string(),
        other => panic!("{id}: {other:?}"),
    }
}

#[test]
fn every_corpus_file_resolves_without_problems() {
    let mut files: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pen"))
        .collect();
    files.sort();
    for name in &files {
        let (document, scene) = scene_of(name);
        assert!(scene.problems.is_empty(), "{name}: {:#?}", &scene.problems[..scene.problems.len().min(5)]);
        assert!(scene.len() >= document.node_count(), "{name}");
        // No variable reference is left anywhere.
        for key in scene.walk() {
            let json = scene.node_to_json(key, 0);
            assert!(
                !json.contains("\"$--") && !json.contains("\"$h:"),
                "{name}: {} keeps a variable: {json}",
                scene.node(key).id
            );
        }
    }
    assert_eq!(files.len(), 44);
}

#[test]
fn themed_colors_follow_the_nearest_theme() {
    // The smalti design defaults to its first mode, dark; a frame selects light.
    let (_, scene) = scene_of("Achelous1__smalti__docs__design__design.pen");
    assert_eq!(fill_color(&scene, "QxdB6"), "#FAFAF7");
    assert_eq!(fill_color(&scene, "ix7KL"), "#059669");
    let (_, scene) = scene_of("nopointt__nospace__design__contexter__design-system-themes.pen");
    assert_eq!(fill_color(&scene, "op0U1"), "#FAFAFA");
    assert_eq!(fill_color(&scene, "yvjuC"), "#999999");
    let (_, scene) = scene_of("open-pencil__open-pencil__tests__fixtures__pencil_file.pen");
    assert_eq!(fill_color(&scene, "xCEfn"), "#1A1A1A");
    assert_eq!(fill_color(&scene, "wFonn"), "#FFFFFF");
}

#[test]
fn instances_of_imported_components_expand_with_their_overrides() {
    let (document, scene) = scene_of("leandrohsilveira__ems__specs__bank-account__design.pen");
    assert!(scene.len() > 2 * document.node_count(), "imported instances are expanded");
    // A property override keyed by the alias-qualified id.
    assert_eq!(content(&scene, "ZrgAl/h:Fpzpi"), "EMS");
    // A replacement, addressed by its new id, with imported variables resolved.
    assert_eq!(fill_color(&scene, "ZrgAl/qFqAd"), "#5749F4");
    assert_eq!(fill_color(&scene, "ZrgAl/fkpNX"), "#FFFFFF");
    // Slot children supplied by the instance, themselves instances with their own overrides.
    assert_eq!(content(&scene, "ZrgAl/NsuLB/h:V5UNQ"), "Finance");
}

#[test]
fn overrides_address_replaced_nodes_by_their_new_id() {
    let (_, scene) = scene_of("open-pencil__open-pencil__tests__fixtures__pencil_file.pen");
    let key = scene.node_by_id("p1r72/N77wx").expect("the replacement inside the instance");
    let json = scene.node_to_json(key, 0);
    assert!(json.contains("\"x\":16,\"y\":16"), "{json}");
}

/// Every node of every Scene can be addressed by batch_design with the id the Scene gives it:
/// the two views of instances agree.
#[test]
fn every_scene_id_is_a_path_batch_design_resolves() {
    use nib::resolve::{PathTarget, resolve_path};
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !name.ends_with(".pen") {
            continue;
        }
        let (document, library) = load_with_imports(&name);
        let scene = build_scene(&document, &library, SceneOptions::FULL);
        for key in scene.walk() {
            let node = scene.node(key);
            match resolve_path(&document, &library, &node.id) {
                Ok(PathTarget::Node(found)) => assert_eq!(Some(found), node.source, "{name}: {}", node.id),
                Ok(PathTarget::InInstance(_)) => assert!(node.source.is_none(), "{name}: {}", node.id),
                Err(e) => panic!("{name}: the scene node {} cannot be addressed: {e:?}", node.id),
            }
        }
    }
}

/// The shadcn kit's three theme axes (Mode, Base, Accent): the entry matching the most selected
/// axes wins, and unselected axes take their first value.
#[test]
fn the_three_theme_axes_of_the_shadcn_kit() {
    use nib::doc::VarRef;
    use nib::doc::values::{ThemeSelection, VariableScalar};
    use nib::resolve::{NoImports, ThemeContext, lookup};
    let (document, _) = scene_of("Changan-Su__Apple-Style-Website-Editor__pencil-shadcn.pen");
    let select = |pairs: &[(&str, &str)]| {
        let selection = ThemeSelection { entries: pairs.iter().map(|(a, v)| (a.to_string(), v.to_string())).collect() };
        ThemeContext::defaults(&document).with(&selection)
    };
    let background = |theme: &ThemeContext| match lookup(
        &document,
        None,
        &document,
        &NoImports,
        &VarRef("--background".into()),
        theme,
    )
    .unwrap()
    .value
    {
        VariableScalar::Color(color) => color.as_str().to_owned(),
        other => panic!("{other:?}"),
    };
    assert_eq!(background(&ThemeContext::defaults(&document)), "#fafafa", "Light: the entry without a theme");
    assert_eq!(background(&select(&[("Mode", "Dark")])), "#0a0a0a");
    assert_eq!(background(&select(&[("Mode", "Dark"), ("Base", "Gray")])), "#030712", "two axes beat one");
    assert_eq!(background(&select(&[("Mode", "Dark"), ("Base", "Slate"), ("Accent", "Red")])), "#020617");
    assert_eq!(background(&select(&[("Base", "Gray")])), "#fafafa", "Gray only matters in Dark mode");
}

/// The reproduction (`tests/fixtures/hostile/instance-bomb.pen`, written by the Python
/// line in the issue): eight components, each holding ten instances of the next, would expand
/// to 10^7 nodes and killed the process. Expansion stops at the budget and says where.
#[test]
fn an_instance_bomb_stops_at_the_budget_and_names_its_chain() {
    use nib::resolve::{Limit, MAX_EXPANDED_NODES, NoImports, ResolveError, update_scene};
    let path = fixtures().join("../hostile/instance-bomb.pen");
    let document = Document::load(&std::fs::read_to_string(path).expect("read")).expect("load").document;
    let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
    let Some(ResolveError::OverBudget(over)) = scene.error() else { panic!("no error: {} nodes", scene.len()) };
    assert_eq!(over.limit, Limit::Nodes(MAX_EXPANDED_NODES));
    assert_eq!((over.node.as_str(), over.pointer.as_str()), ("c0_0", "/children/0/children/0"));
    assert!(over.chain_text().starts_with("c0_0 → A1 › c1_0 → A2 › c2_9 → A3"), "{}", over.chain_text());
    assert!(over.stopped_at.starts_with("c0_0/c1_0/c2_9/"), "{}", over.stopped_at);
    let message = scene.error().unwrap().to_string();
    assert!(message.contains("more than 200000 nodes") && message.contains("(at /children/0/children/0)"), "{message}");
    let created = scene.walk().filter(|key| scene.node(*key).source.is_none()).count();
    assert_eq!(created, MAX_EXPANDED_NODES, "never more nodes than the budget");
    assert_eq!(scene.parts().len(), 8, "every part keeps its top-level node");
    // The same answer again from the cached parts.
    let again = update_scene(Some(&scene), &document, &NoImports, SceneOptions::FULL);
    assert_eq!(again.error(), scene.error());
    assert!(again.parts().iter().zip(scene.parts()).all(|(a, b)| std::sync::Arc::ptr_eq(a, b)));
}
