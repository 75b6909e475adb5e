//! Each batch_design operation, its semantics and its errors, on a small document.

use nib::doc::{Document, Key, NodeType, Value};
use nib::images::OfflineImages;
use nib::resolve::NoImports;
use nib::script::{Context, Failure, OpResult, Options, Outcome, run};

const DOCUMENT: &str = r##"{"version": "2.8", "children": [
  {"type": "frame", "id": "Btn", "name": "Button", "reusable": true, "x": 0, "y": 0, "width": 120, "height": 40, "layout": "horizontal",
   "children": [{"type": "text", "id": "lbl", "content": "Go", "fill": "#000000"}]},
  {"type": "frame", "id": "Card", "reusable": true, "x": 200, "y": 0, "width": 300, "height": 200, "layout": "vertical", "children": [
    {"type": "text", "id": "ttl", "content": "Title", "fill": "#000000"},
    {"type": "frame", "id": "body", "slot": [], "layout": "vertical", "width": "fill_container", "height": "fit_content(50)"},
    {"type": "ref", "id": "cta", "ref": "Btn"}]},
  {"type": "frame", "id": "page", "x": 600, "y": 0, "width": 800, "height": 600, "layout": "vertical", "children": [
    {"type": "text", "id": "t1", "content": "A", "fill": "#000000"},
    {"type": "frame", "id": "row", "layout": "horizontal", "width": "fill_container", "height": 40, "children": [
      {"type": "rectangle", "id": "r1", "width": 10, "height": 10, "fill": "#FF0000"},
      {"type": "rectangle", "id": "r2", "width": 10, "height": 10, "fill": "#00FF00"}]},
    {"type": "ref", "id": "card1", "ref": "Card", "descendants": {"body": {"children": [{"type": "text", "id": "extra", "content": "Extra", "fill": "#000000"}]}}}]},
  {"type": "frame", "id": "free", "x": 1500, "y": 0, "width": 300, "height": 300, "layout": "none", "children": []}
]}"##;

struct Fixture {
    document: Document,
    original: String,
    folder: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let document = Document::load(DOCUMENT).expect("loads").document;
    let original = document.to_pen_string();
    Fixture { document, original, folder: tempfile::tempdir().expect("temp") }
}

impl Fixture {
    fn run_with(&mut self, script: &str, options: Options, folder: bool) -> Outcome {
        let context = Context {
            library: &NoImports,
            images: &OfflineImages,
            folder: folder.then(|| self.folder.path()),
            confinement: None,
            canvas: None,
            options,
        };
        run(&mut self.document, script, &context)
    }

    fn run(&mut self, script: &str) -> Outcome {
        self.run_with(script, Options { id_seed: Some(5), ..Options::default() }, true)
    }

    fn ok(&mut self, script: &str) -> Outcome {
        let outcome = self.run(script);
        assert!(outcome.success, "{script}\n{}", outcome.text());
        outcome
    }

    /// Runs a script that must fail and checks nothing changed.
    fn fail(&mut self, script: &str) -> Failure {
        let before = self.document.to_pen_string();
        let revision = self.document.revision();
        let outcome = self.run(script);
        assert!(!outcome.success, "{script} should fail");
        assert_eq!(self.document.to_pen_string(), before, "{script}: a failed call changes nothing");
        assert_eq!(self.document.revision(), revision);
        outcome.failure.expect("failure")
    }

    fn node(&self, id: &str) -> &nib::doc::Props {
        let key = self.document.node_by_id(id).unwrap_or_else(|| panic!("no node {id}"));
        &self.document.tree().node(key).props
    }

    fn saved(&self) -> String {
        self.document.to_pen_string()
    }

    fn descendants(&self, id: &str) -> String {
        match self.node(id).get(&Key::Descendants) {
            Some(Value::Descendants(d)) => {
                d.0.iter().map(|(k, tree)| format!("{k}={}", tree.to_json(3))).collect::<Vec<_>>().join(" | ")
            }
            _ => String::new(),
        }
    }
}

fn first_id(outcome: &Outcome) -> String {
    outcome.bindings.first().map(|b| b.id.clone()).expect("a binding")
}

// I ------------------------------------------------------------------------------------------

#[test]
fn top_level_inserts_land_in_free_space_with_pencils_key_order() {
    let mut f = fixture();
    let outcome = f.ok("screen=I(document, {type: \"frame\", width: 100, height: 100, layout: \"vertical\"})");
    let id = first_id(&outcome);
    let OpResult::Inserted { node, .. } = &outcome.results[0] else { panic!() };
    assert_eq!(
        node,
        &format!(
            "{{\"type\":\"frame\",\"id\":\"{id}\",\"x\":1900,\"y\":0,\"name\":\"screen\",\"width\":100,\"height\":100,\"layout\":\"vertical\"}}"
        )
    );
    assert_eq!(id.len(), 5);
    assert!(id.chars().all(|c| c.is_ascii_alphanumeric()));
}

#[test]
fn ids_written_by_the_agent_are_aliases_for_the_call() {
    let mut f = fixture();
    let outcome = f.ok("a=I(page, {type: \"frame\", id: \"mine\", children: [{type: \"text\", id: \"inner\", content: \"x\", fill: \"#000\"}]})\nU(\"inner\", {content: \"y\"})\nU(\"mine\", {gap: 3})".replace("page", "\"page\"").as_str());
    assert!(f.document.node_by_id("mine").is_none() && f.document.node_by_id("inner").is_none());
    let frame = first_id(&outcome);
    let key = f.document.node_by_id(&frame).unwrap();
    let child = f.document.tree().node(key).children()[0];
    assert!(
        matches!(f.document.tree().node(child).props.get(&Key::Content), Some(Value::Content(c)) if format!("{c:?}").contains("\"y\""))
    );
    assert!(f.saved().contains("\"gap\": 3"));
}

#[test]
fn inserting_needs_a_container_and_real_components() {
    let mut f = fixture();
    let e = f.fail("I(\"t1\", {type: \"text\", content: \"x\"})");
    assert!(e.message.contains("is a text and cannot have children"), "{}", e.message);
    let e = f.fail("I(\"page\", {type: \"ref\", ref: \"Nope\"})");
    assert!(e.message.contains("Component 'Nope' not found"));
    let e = f.fail("I(\"Card\", {type: \"ref\", ref: \"Card\"})");
    assert!(e.message.contains("cannot be placed inside 'Card' itself"));
    let e = f.fail("I(\"page\", {type: \"ref\"})");
    assert!(e.message.contains("needs `ref`"));
    let e = f.fail("I(\"page\", {content: \"no type\"})");
    assert!(e.invalid[0].message.contains("has no type"));
}

#[test]
fn inserting_into_an_instance_slot_adds_override_children() {
    let mut f = fixture();
    let outcome = f.ok("item=I(\"card1/body\", {type: \"text\", content: \"More\", fill: \"#000\"})");
    let path = first_id(&outcome);
    assert!(path.starts_with("card1/"));
    let descendants = f.descendants("card1");
    assert!(
        descendants.contains("\"content\":\"Extra\"") && descendants.contains("\"content\":\"More\""),
        "{descendants}"
    );
    // The new node is addressable through its instance path in a later call.
    f.ok(&format!("U(\"{path}\", {{content: \"Most\"}})"));
    assert!(f.descendants("card1").contains("\"content\":\"Most\""));
}

#[test]
fn strokes_are_written_in_the_files_version() {
    let text = DOCUMENT.replace("\"version\": \"2.8\"", "\"version\": \"2.13\"");
    let mut f = Fixture {
        document: Document::load(&text).unwrap().document,
        original: String::new(),
        folder: tempfile::tempdir().unwrap(),
    };
    let outcome =
        f.ok("b=I(\"page\", {type: \"frame\", stroke: {align: \"inside\", thickness: 1, fill: \"#E5E5E5\"}})");
    let id = first_id(&outcome);
    let props = f.node(&id);
    assert!(props.contains(&Key::StrokeWidth) && props.contains(&Key::StrokeAlignment));
}

// C ------------------------------------------------------------------------------------------

#[test]
fn copying_a_component_makes_an_instance_next_to_it() {
    let mut f = fixture();
    let outcome = f.ok("copy=C(\"Btn\", document, {positionPadding: 20})");
    let id = first_id(&outcome);
    let props = f.node(&id);
    assert_eq!(props.node_type(), Some(NodeType::Ref));
    assert_eq!(props.text(&Key::Ref), Some("Btn"));
    // Right of the source, stepping past Card, page and free, 20 px from each.
    let saved = f.document.node_to_json(f.document.node_by_id(&id).unwrap(), 0);
    assert!(saved.contains("\"x\":1820,\"y\":0"), "{saved}");
}

#[test]
fn a_plain_copy_gets_fresh_ids_and_applies_overrides_by_original_id() {
    let mut f = fixture();
    let outcome = f.ok("copy=C(\"row\", \"page\", {name: \"Row 2\", descendants: {r1: {fill: \"#0000FF\"}}})");
    let row = f.document.node_by_id(&first_id(&outcome)).unwrap();
    let children = f.document.tree().node(row).children().to_vec();
    assert_eq!(children.len(), 2);
    for child in &children {
        assert!(!["r1", "r2"].contains(&f.document.tree().node(*child).id()));
    }
    assert!(f.document.node_to_json(children[0], 0).contains("#0000FF"));
    assert!(
        f.document.node_to_json(f.document.node_by_id("r1").unwrap(), 0).contains("#FF0000"),
        "the original is untouched"
    );
    assert!(f.document.node_to_json(row, 0).contains("\"name\":\"Row 2\""));
}

#[test]
fn copies_into_a_flex_layout_drop_their_position() {
    let mut f = fixture();
    let outcome = f.ok("copy=C(\"free\", \"page\")");
    let props = f.node(&first_id(&outcome));
    assert!(!props.contains(&Key::X) && !props.contains(&Key::Y));
}

#[test]
fn copy_errors() {
    let mut f = fixture();
    assert!(f.fail("C(\"row\", document, {positionDirection: \"up\"})").message.contains("positionDirection"));
    assert!(f.fail("C(\"card1/ttl\", document)").message.contains("copying it is not supported"));
    assert!(f.fail("C(\"row\", \"page\", {type: \"text\"})").message.contains("type cannot change"));
}

// U ------------------------------------------------------------------------------------------

#[test]
fn updates_set_and_remove_properties() {
    let mut f = fixture();
    f.ok("U(\"t1\", {content: \"B\", fontSize: 20, fill: null})");
    let props = f.node("t1");
    assert!(!props.contains(&Key::Fill));
    assert!(props.contains(&Key::FontSize));
    let outcome = f.ok("U(\"t1\", {x: 5})");
    assert!(outcome.issues.iter().any(|i| i.message
        == "Properties 'x' and 'y' are ignored on node 't1' because it is inside a flexbox layout."
        && i.code == "position-in-layout"
        && i.node.as_deref() == Some("t1")));
}

#[test]
fn updates_cannot_change_identity() {
    let mut f = fixture();
    let e = f.fail("U(\"t1\", {id: \"x\", ref: \"y\", fontSize: \"big\"})");
    let pointers: Vec<&str> = e.invalid.iter().map(|i| i.pointer.as_str()).collect();
    assert_eq!(pointers, ["/id", "/ref", "/fontSize"]);
    let e = f.fail("U(\"row\", {fontSize: 3})");
    assert!(e.invalid[0].message.contains("is not a property of frame nodes"));
}

#[test]
fn a_children_update_replaces_the_children() {
    let mut f = fixture();
    f.ok("U(\"row\", {children: [{type: \"text\", content: \"only\", fill: \"#000\"}]})");
    let row = f.document.node_by_id("row").unwrap();
    assert_eq!(f.document.tree().node(row).children().len(), 1);
    assert!(f.document.node_by_id("r1").is_none());
}

#[test]
fn descendants_updates_merge_into_an_instance() {
    let mut f = fixture();
    f.ok("U(\"card1\", {descendants: {ttl: {content: \"New\"}}})");
    let descendants = f.descendants("card1");
    assert!(descendants.contains("body=") && descendants.contains("ttl={\"content\":\"New\"}"), "{descendants}");
    assert!(f.fail("U(\"row\", {descendants: {r1: {fill: \"#000\"}}})").message.contains("not an instance"));
}

#[test]
fn updates_inside_instances_become_overrides() {
    let mut f = fixture();
    f.ok("U(\"card1/ttl\", {content: \"Hi\"})\nU(\"card1/cta/lbl\", {content: \"Buy\"})\nU(\"card1/extra\", {content: \"Changed\"})");
    let descendants = f.descendants("card1");
    assert!(descendants.contains("ttl={\"content\":\"Hi\"}"), "{descendants}");
    assert!(descendants.contains("cta/lbl={\"content\":\"Buy\"}"), "{descendants}");
    // Content the instance owns is edited in place, not overridden by id.
    assert!(descendants.contains("\"content\":\"Changed\"") && !descendants.contains("extra={"), "{descendants}");
}

#[test]
fn an_update_with_a_type_replaces_the_node() {
    let mut f = fixture();
    let outcome = f.ok("U(\"t1\", {type: \"rectangle\", width: 5, height: 5, fill: \"#000\"})");
    assert!(matches!(&outcome.results[0], OpResult::Replaced { old, .. } if old == "t1"));
    assert!(f.document.node_by_id("t1").is_none());
}

// R ------------------------------------------------------------------------------------------

#[test]
fn replacing_keeps_the_place() {
    let mut f = fixture();
    let outcome = f.ok("n=R(\"r1\", {type: \"ellipse\", width: 10, height: 10, fill: \"#000\"})");
    let id = first_id(&outcome);
    let row = f.document.node_by_id("row").unwrap();
    assert_eq!(f.document.tree().node(f.document.tree().node(row).children()[0]).id(), id);
    assert!(f.document.node_by_id("r1").is_none());
}

#[test]
fn replacing_inside_an_instance_is_a_replacement_override() {
    let mut f = fixture();
    let outcome = f.ok("n=R(\"card1/ttl\", {type: \"text\", content: \"Replaced\", fill: \"#000\"})");
    let path = first_id(&outcome);
    let new_id = path.strip_prefix("card1/").expect("an instance path");
    assert!(f.descendants("card1").contains(&format!("ttl={{\"type\":\"text\",\"id\":\"{new_id}\"")));
    // The replacement is addressed by its new id afterwards.
    f.ok(&format!("U(\"{path}\", {{content: \"Again\"}})"));
    assert!(f.descendants("card1").contains("\"content\":\"Again\""));
}

// M ------------------------------------------------------------------------------------------

#[test]
fn moves_reorder_and_reparent() {
    let mut f = fixture();
    f.ok("M(\"r2\", \"row\", 0)");
    let row = f.document.node_by_id("row").unwrap();
    let ids: Vec<&str> =
        f.document.tree().node(row).children().iter().map(|k| f.document.tree().node(*k).id()).collect();
    assert_eq!(ids, ["r2", "r1"]);
    f.ok("M(\"r1\", document)");
    let r1 = f.node("r1");
    assert!(r1.contains(&Key::X), "a node moved to the canvas gets a free position");
}

#[test]
fn move_errors() {
    let mut f = fixture();
    assert!(f.fail("M(\"row\", \"r1\")").message.contains("cannot have children"));
    assert!(f.fail("M(\"page\", \"row\")").message.contains("its own subtree"));
    assert!(f.fail("M(\"card1/ttl\", \"page\")").message.contains("cannot be moved"));
    assert!(f.fail("M(\"r1\", \"row\", -1)").message.contains("whole number"));
    assert!(f.fail("M(\"r1\", \"card1/body\")").message.contains("into an instance"));
}

// D ------------------------------------------------------------------------------------------

#[test]
fn deletes_and_missing_nodes() {
    let mut f = fixture();
    let outcome = f.ok("D(\"r1\")\nD(\"ghost\")\nD(\"card1/extra\")");
    assert!(f.document.node_by_id("r1").is_none());
    assert_eq!(outcome.results[1], OpResult::AlreadyAbsent { id: "ghost".into() });
    assert!(!f.descendants("card1").contains("Extra"));
    let e = f.fail("D(\"card1/ttl\")");
    assert!(e.hint.unwrap().contains("U(\"card1/ttl\", {enabled: false})"));
}

// G ------------------------------------------------------------------------------------------

#[test]
fn images_become_the_only_fill() {
    let mut f = fixture();
    let outcome = f.ok("G(\"r1\", \"ai\", \"warm bakery\")");
    let OpResult::ImageAdded { url, .. } = &outcome.results[0] else { panic!() };
    assert!(f.folder.path().join(url.trim_start_matches("./")).exists());
    let json = f.document.node_to_json(f.document.node_by_id("r1").unwrap(), 0);
    assert!(
        json.contains(&format!("\"fill\":{{\"type\":\"image\",\"enabled\":true,\"url\":\"{url}\",\"mode\":\"fill\"}}")),
        "{json}"
    );
}

#[test]
fn image_errors() {
    let mut f = fixture();
    assert!(f.fail("G(\"t1\", \"ai\", \"x\")").message.contains("Only frames and rectangles"));
    assert!(f.fail("G(\"r1\", \"video\", \"x\")").message.contains("\"ai\" or \"stock\""));
    assert!(f.fail("G(\"r1\", \"ai\", \"  \")").message.contains("prompt is empty"));
    let outcome = f.run_with("G(\"r1\", \"ai\", \"x\")", Options::default(), false);
    assert!(outcome.failure.unwrap().message.contains("not stored in a folder"));
}

// Transactions --------------------------------------------------------------------------------

#[test]
fn a_late_failure_rolls_everything_back() {
    let mut f = fixture();
    let original = f.original.clone();
    let e = f.fail("a=I(\"page\", {type: \"frame\"})\nU(\"t1\", {content: \"z\"})\nM(\"r2\", \"row\", 0)\nD(\"r1\")\nU(\"nowhere\", {gap: 1})");
    assert_eq!(e.statement, Some(4));
    assert_eq!(f.saved(), original);
    assert!(!f.document.can_undo());
}

#[test]
fn undo_and_redo_across_calls() {
    let mut f = fixture();
    f.ok("U(\"t1\", {content: \"one\"})");
    let after_first = f.saved();
    f.ok("D(\"row\")\nU(\"t1\", {content: \"two\"})");
    assert!(f.document.undo());
    assert_eq!(f.saved(), after_first);
    assert!(f.document.undo());
    assert_eq!(f.saved(), f.original);
    assert!(f.document.redo());
    assert_eq!(f.saved(), after_first);
}

#[test]
fn the_statement_limit_is_enforced_and_configurable() {
    let mut f = fixture();
    let script = "U(\"t1\", {content: \"x\"})\n".repeat(501);
    let e = f.fail(&script);
    assert!(e.message.contains("at most 500"), "{}", e.message);
    let outcome = f.run_with(&script, Options { max_statements: 600, id_seed: Some(1) }, true);
    assert!(outcome.success);
    let e = f.run_with(&script[..script.len() / 501 * 30], Options { max_statements: 20, id_seed: Some(1) }, true);
    assert!(e.failure.expect("refused").message.contains("at most 20"));
}

#[test]
fn a_script_of_35_statements_runs_as_in_pencil() {
    // Pencil ran scripts of 26, 28 and 35 statements in recorded sessions; nib refused them.
    let mut f = fixture();
    let script: String =
        (0..35).map(|i| format!("n{i}=I(\"free\", {{type: \"rectangle\", width: 4, height: 4}})\n")).collect();
    let outcome = f.ok(&script);
    assert_eq!(outcome.results.len(), 35);
    assert_eq!(f.document.tree().node(f.document.node_by_id("free").unwrap()).children().len(), 35);
    assert!(outcome.issues.iter().any(|i| i.message.contains("35 operations; at most 25")), "{:?}", outcome.issues);
}

#[test]
fn a_26_statement_script_runs_with_advice_to_split_it() {
    let mut f = fixture();
    let script = "U(\"t1\", {content: \"x\"})\n".repeat(26);
    let outcome = f.ok(&script);
    assert_eq!(outcome.results.len(), 26);
    let advice: Vec<_> = outcome.issues.iter().filter(|i| i.message.contains("26 operations; at most 25")).collect();
    assert_eq!(advice.len(), 1, "{:?}", outcome.issues);
    assert!(outcome.text().contains("split them into smaller calls"));
    let outcome = f.ok(&"U(\"t1\", {content: \"y\"})\n".repeat(25));
    assert!(outcome.issues.is_empty(), "{:?}", outcome.issues);
}

// Potential issues ----------------------------------------------------------------------------

#[test]
fn unknown_fonts_and_icons_are_reported() {
    let mut f = fixture();
    let outcome = f.ok(concat!(
        "a=I(\"page\", {type: \"text\", content: \"x\", fill: \"#000\", fontFamily: \"Interr\"})\n",
        "b=I(\"page\", {type: \"text\", content: \"x\", fill: \"#000\", fontFamily: \"Lobster\"})\n",
        "f=I(\"page\", {type: \"text\", content: \"x\", fill: \"#000\", fontFamily: \"DM Sans\"})\n",
        "g=I(\"page\", {type: \"text\", content: \"x\", fill: \"#000\", fontFamily: \"Courier New\"})\n",
        "c=I(\"row\", {type: \"icon_font\", iconFontFamily: \"lucide\", iconFontName: \"file-audoi\", width: 16, height: 16, fill: \"#000\"})\n",
        "d=I(\"row\", {type: \"icon_font\", iconFontFamily: \"lucide\", iconFontName: \"trash-2\", width: 16, height: 16, fill: \"#000\"})\n",
        "e=I(\"row\", {type: \"icon_font\", iconFontFamily: \"Font Awesome\", iconFontName: \"x\", width: 16, height: 16, fill: \"#000\"})"
    ));
    let issues = outcome.issues.iter().map(|i| i.message.as_str()).collect::<Vec<_>>().join("\n");
    assert!(issues.contains("Font family 'Interr' is invalid. Did you mean 'Inter'?"), "{issues}");
    assert!(!issues.contains("'Lobster' is invalid"), "a real family is not invalid: {issues}");
    assert!(
        issues.contains("Font family 'Lobster' (Google Fonts, display) is not bundled and fetching is off: it is measured and drawn with Inter"),
        "but nib draws it with its category's stand-in: {issues}"
    );
    assert!(!issues.contains("DM Sans"), "DM Sans is bundled: {issues}");
    assert!(issues.contains("'Courier New' is a closed font") && issues.contains("Liberation Mono"), "{issues}");
    assert!(
        issues.contains("Icon 'file-audoi' was not found in the 'lucide' icon set. Did you mean 'file-audio'?"),
        "{issues}"
    );
    assert!(!issues.contains("trash-2"), "former lucide names resolve: {issues}");
    assert!(issues.contains("Icon font family 'Font Awesome' is not available."), "{issues}");
}

#[test]
fn nothing_is_nested_deeper_than_a_file_can_hold() {
    let mut f = fixture();
    // "page" is a top-level node (level 0); build a chain of wrappers under it, 20 per call.
    let mut parent = "page".to_owned();
    let mut level = 0;
    while level + 20 < nib::doc::MAX_NODE_DEPTH {
        let mut script = format!("n0=I(\"{parent}\", {{type: \"frame\"}})\n");
        for i in 1..20 {
            script.push_str(&format!("n{i}=I(n{}, {{type: \"frame\"}})\n", i - 1));
        }
        let outcome = f.ok(&script);
        parent = outcome.bindings.last().unwrap().id.clone();
        level += 20;
    }
    let mut script = String::new();
    let mut previous = format!("\"{parent}\"");
    for i in 0..(nib::doc::MAX_NODE_DEPTH - 1 - level) {
        script.push_str(&format!("d{i}=I({previous}, {{type: \"frame\", fill: {{type: \"gradient\", colors: [{{color: \"#000000\", position: 0}}]}}}})\n"));
        previous = format!("d{i}");
    }
    let deepest = f.ok(&script).bindings.last().unwrap().id.clone();
    let saved = f.saved();
    assert!(Document::load(&saved).is_ok(), "the deepest allowed document opens again");
    let failure = f.fail(&format!("I(\"{deepest}\", {{type: \"frame\"}})"));
    assert!(failure.message.contains("levels deep; a .pen file holds at most 60"), "{}", failure.message);
    assert!(failure.hint.unwrap_or_default().contains("flatten"));
}

#[test]
fn deleting_a_component_with_instances_names_the_instances_it_orphans() {
    let mut f = fixture();
    let outcome = f.ok("D(\"Btn\")");
    assert!(
        outcome.issues.iter().any(|i| i.message
            == "Component 'Btn' no longer exists, but instance 'cta' still refers to it: it is drawn empty. Delete or replace it, or undo this call."),
        "{:#?}",
        outcome.issues
    );
    assert!(outcome.text().contains("Component 'Btn' no longer exists"));
}

#[test]
fn changing_a_components_type_says_its_instances_lost_it() {
    let mut f = fixture();
    let outcome = f.ok("U(\"Card\", {type: \"rectangle\"})");
    assert!(
        outcome.issues.iter().any(|i| i
            .message
            .starts_with("Component 'Card' no longer exists, but instance 'card1' still refers to it")),
        "{:#?}",
        outcome.issues
    );
    // Replacing a component by a new tree is the same.
    let mut f = fixture();
    let outcome = f.ok("R(\"Btn\", {type: \"frame\", width: 10, height: 10})");
    assert!(
        outcome.issues.iter().any(|i| i.message.starts_with("Component 'Btn' no longer exists")),
        "{:#?}",
        outcome.issues
    );
}

#[test]
fn an_instance_of_a_component_inside_itself_is_refused_by_every_operation() {
    let mut f = fixture();
    for script in [
        "R(\"lbl\", {type: \"ref\", ref: \"Btn\"})",
        "R(\"cta/lbl\", {type: \"ref\", ref: \"Btn\"})",
        "M(\"card1\", \"body\")",
        "x=I(\"ttl\", {type: \"ref\", ref: \"Card\"})",
    ] {
        let failure = f.fail(script);
        assert!(failure.message.contains("cannot be placed inside"), "{script}: {}", failure.message);
    }
    // An edit that leaves no instance broken says nothing about references.
    let outcome = f.ok("U(\"lbl\", {content: \"Go on\"})");
    assert!(!outcome.issues.iter().any(|i| i.message.contains("no longer exists")), "{:#?}", outcome.issues);
}

#[test]
fn lengths_beyond_what_layout_can_hold_are_invalid_properties() {
    let mut f = fixture();
    let failure = f.fail("U(\"Btn\", {width: 1e308})\nU(\"lbl\", {letterSpacing: 1e30})");
    assert_eq!(failure.invalid[0].pointer, "/width");
    assert_eq!(failure.invalid[0].message, "width must be between -1000000 and 1000000 (pixels), found 1e+308");
    let failure = f.fail("U(\"lbl\", {letterSpacing: 1e30})");
    assert_eq!(failure.invalid[0].pointer, "/letterSpacing");
    assert!(failure.invalid[0].message.ends_with("found 1e+30"), "{:?}", failure.invalid);
}

#[test]
fn thousands_of_potential_issues_are_capped_and_counted() {
    let mut f = fixture();
    let texts: Vec<String> = (0..3000).map(|i| format!("{{type: \"text\", content: \"t{i}\"}}")).collect();
    let outcome = f.ok(&format!("x=I(\"free\", {{type: \"frame\", children: [{}]}})", texts.join(", ")));
    assert_eq!(outcome.issues.len(), nib::script::issues::MAX_ISSUES + 1, "{:?}", &outcome.issues[..3]);
    let last = outcome.issues.last().unwrap();
    assert!(last.message.starts_with("… and 2950 more potential issues"), "{last}");
    assert_eq!(last.code, "more");
}
