//! Pencil's key order (`nib::doc::pencil_order`): the Pencil-saved files already follow it,
//! nodes nib creates follow it on disk, and setting a key on a node read from a file moves no
//! other key.

use nib::doc::pencil_order::sort_props;
use nib::doc::{Document, NodeType};
use nib::script::{Context, Options, run};

/// The corpus files saved by the Pencil editor (SOURCES.md marks them `pencil`).
fn pencil_saved() -> Vec<String> {
    let sources = std::fs::read_to_string("tests/fixtures/pen/SOURCES.md").expect("SOURCES.md");
    sources
        .lines()
        .filter(|line| line.starts_with("| `") && line.contains("| pencil |"))
        .filter_map(|line| line.split('`').nth(1).map(str::to_owned))
        .collect()
}

fn key_names(props: &nib::doc::Props) -> Vec<String> {
    props.iter().map(|(k, _)| k.name().to_owned()).collect()
}

/// The nodes of `document` whose keys are not in Pencil's order, with both orders.
fn out_of_order(document: &Document, only: impl Fn(&str) -> bool) -> Vec<String> {
    let tree = document.tree();
    tree.walk()
        .filter(|key| only(tree.node(*key).id()))
        .filter_map(|key| {
            let props = &tree.node(key).props;
            let mut sorted = props.clone();
            sort_props(&mut sorted);
            let (had, want) = (key_names(props), key_names(&sorted));
            (had != want).then(|| format!("{}: {had:?} → {want:?}", tree.node(key).id()))
        })
        .collect()
}

#[test]
fn every_node_of_the_pencil_saved_files_is_already_in_pencils_order() {
    let files = pencil_saved();
    assert!(files.len() >= 30, "{files:?}");
    let mut nodes = 0;
    for file in files {
        let text = std::fs::read_to_string(format!("tests/fixtures/pen/{file}")).expect("readable");
        let document = Document::load(&text).expect("loads").document;
        nodes += document.tree().walk().count();
        // Instances keep the order their overrides were set in: only their fixed keys count.
        let wrong: Vec<String> = out_of_order(&document, |_| true)
            .into_iter()
            .filter(|line| {
                let id = line.split(':').next().unwrap_or_default();
                let key = document.node_by_id(id).expect("id");
                document.tree().node(key).node_type() != NodeType::Ref
            })
            .collect();
        assert!(
            wrong.is_empty(),
            "{file}: {} nodes out of order, e.g. {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(3)]
        );
    }
    assert!(nodes > 20_000, "{nodes}");
}

#[test]
fn new_nodes_are_saved_in_pencils_order_and_a_canonical_resave_moves_no_key() {
    let mut document = Document::load(
        r#"{"version":"2.10","children":[{"name":"Page","type":"frame","id":"page","layout":"vertical","width":800,"height":600,"children":[]}]}"#,
    )
    .expect("loads")
    .document;
    let script = r##"card=I("page", {name: "Card", padding: 16, layout: "vertical", fill: "#FFFFFF", cornerRadius: 8, stroke: {fill: "#E5E5E5", thickness: 1, align: "inside"}, width: "fill_container", type: "frame"})
title=I(card, {fontSize: 18, content: "Title", fill: "#111111", type: "text", fontFamily: "Inter"})
badge=I(card, {height: 20, width: 40, type: "rectangle", fill: "#FF0000", cornerRadius: 4, effect: {blur: 4, color: "#00000022", type: "shadow", offset: {y: 2, x: 0}}})
icon=I(card, {iconFontFamily: "lucide", iconFontName: "check", type: "icon_font", width: 16, height: 16, fill: "#111111"})"##;
    let context = Context::offline(Options { id_seed: Some(3), ..Options::default() });
    let outcome = run(&mut document, script, &context);
    assert!(outcome.success, "{}", outcome.text());
    let saved = document.to_pen_string();
    let reopened = Document::load(&saved).expect("reloads").document;
    // The page was read from the file in an order Pencil never writes: it keeps it.
    assert_eq!(out_of_order(&reopened, |id| id != "page"), Vec::<String>::new());
    assert!(saved.contains("\"name\": \"Page\",\n      \"type\": \"frame\""), "{saved}");
    // The canonical writer of the reopened file changes nothing.
    assert_eq!(reopened.to_pen_string(), saved);
    let card = &saved[saved.find("\"name\": \"Card\"").expect("card")..];
    assert!(
        card.find("\"width\"").unwrap() < card.find("\"fill\"").unwrap()
            && card.find("\"fill\"").unwrap() < card.find("\"cornerRadius\"").unwrap()
            && card.find("\"stroke\"").unwrap() < card.find("\"layout\"").unwrap()
            && card.find("\"layout\"").unwrap() < card.find("\"padding\"").unwrap(),
        "{card}"
    );
    assert!(saved.contains("\"align\": \"inside\",\n"), "stroke keys in Pencil's order:\n{saved}");
    assert!(saved.contains("\"offset\": {\n"), "{saved}");
}

#[test]
fn setting_a_key_on_a_node_read_from_a_file_moves_no_other_key() {
    // "f" is in Pencil's order: new keys land exactly where Pencil writes them. "g" is in an
    // order Pencil never writes (name last): its keys keep their order, new ones go after the
    // last key Pencil writes before them.
    let text = r#"{"version":"2.10","children":[
      {"type":"frame","id":"f","name":"F","width":10,"height":10,"layout":"vertical"},
      {"type":"frame","id":"g","width":10,"height":10,"layout":"vertical","name":"G"}]}"#;
    let mut document = Document::load(text).expect("loads").document;
    let context = Context::offline(Options::default());
    let outcome = run(
        &mut document,
        r##"U("f", {gap: 8, fill: "#000000", x: 5})
U("g", {gap: 8, fill: "#000000", x: 5})"##,
        &context,
    );
    assert!(outcome.success, "{}", outcome.text());
    let keys = |id: &str| key_names(&document.tree().node(document.node_by_id(id).expect("id")).props);
    assert_eq!(keys("f"), ["type", "id", "x", "name", "width", "height", "fill", "layout", "gap"]);
    let g = keys("g");
    let old: Vec<&String> = g.iter().filter(|k| !["gap", "fill", "x"].contains(&k.as_str())).collect();
    assert_eq!(old, ["type", "id", "width", "height", "layout", "name"]);
    assert_eq!(g[2], "x", "{g:?}");
    // Undo puts both nodes back exactly.
    assert!(document.undo());
    assert_eq!(document.to_pen_string(), Document::load(text).expect("loads").document.to_pen_string());
}

/// The files of 2.17–2.20 the Pen app saved (they carry the `fileToken` Pen writes on every
/// save): every node, the new types and keys among them, is in the order nib writes.
#[test]
fn every_node_of_the_pen_saved_current_files_is_already_in_pens_order() {
    let folder = std::path::Path::new("tests/fixtures/pen-current");
    let mut files = 0;
    let mut nodes = 0;
    for entry in std::fs::read_dir(folder).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "pen") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        if !text.contains("\"fileToken\"") {
            continue;
        }
        files += 1;
        let document = Document::load(&text).expect("loads").document;
        nodes += document.tree().walk().count();
        let wrong = out_of_order(&document, |_| true);
        assert!(wrong.is_empty(), "{}: {wrong:#?}", path.display());
    }
    assert_eq!(files, 25);
    assert!(nodes > 300, "{nodes}");
}

/// Nodes of the new types, made with batch_design in a 2.20 document, are saved in the order
/// the Pen app saves them (render-script-node.pen, browser.pen).
#[test]
fn new_script_and_browser_nodes_are_saved_in_pens_order() {
    let mut document = Document::load(
        r#"{"version":"2.20","children":[{"type":"frame","id":"page","width":800,"height":600,"layout":"none"}]}"#,
    )
    .expect("loads")
    .document;
    let script = r#"s=I("page", {inputs: {bars: 3}, scriptUri: "bars.js", height: 90, width: 120, name: "Chart", y: 4, x: 2, type: "script"})
b=I("page", {url: "example.com", height: 90, width: 200, name: "browser", type: "browser", x: 220, y: 300})"#;
    let outcome = run(&mut document, script, &Context::offline(Options { id_seed: Some(1), ..Options::default() }));
    assert!(outcome.success, "{}", outcome.text());
    let keys = |node_type: NodeType| {
        let tree = document.tree();
        let key = tree.walk().find(|k| tree.node(*k).node_type() == node_type).expect("made");
        key_names(&tree.node(key).props)
    };
    assert_eq!(keys(NodeType::Script), ["type", "id", "x", "y", "name", "width", "height", "scriptUri", "inputs"]);
    assert_eq!(keys(NodeType::Browser), ["type", "id", "x", "y", "name", "width", "height", "url"]);
}
