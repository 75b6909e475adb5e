//! `schema/pen.schema.json` accepts every real document, rejects broken ones, and agrees with
//! the loader's table of properties.

use std::collections::BTreeSet;
use std::path::Path;

use nib::doc::{Key, NodeType};
use serde_json::{Value, json};

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/pen.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("schema readable")).expect("schema is JSON")
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&schema()).expect("the schema itself is valid")
}

fn errors(validator: &jsonschema::Validator, document: &Value) -> Vec<String> {
    validator.iter_errors(document).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

#[test]
fn every_corpus_file_matches_the_schema() {
    let validator = validator();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen");
    let mut checked = 0;
    for entry in std::fs::read_dir(folder).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "pen") {
            continue;
        }
        let document: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let found = errors(&validator, &document);
        assert!(found.is_empty(), "{}: {:#?}", path.display(), &found[..found.len().min(5)]);
        checked += 1;
    }
    assert_eq!(checked, 44);
}

fn document_with(node: Value) -> Value {
    json!({"version": "2.11", "children": [node]})
}

#[test]
fn broken_documents_are_rejected() {
    let validator = validator();
    let broken = [
        ("a bad color", document_with(json!({"type": "frame", "id": "a", "fill": "#1535850"}))),
        ("a named color", document_with(json!({"type": "frame", "id": "a", "fill": "red"}))),
        ("an unknown node type", document_with(json!({"type": "rect", "id": "a"}))),
        ("a missing id", document_with(json!({"type": "frame"}))),
        ("an id with a slash", document_with(json!({"type": "frame", "id": "a/b"}))),
        ("fill on a group", document_with(json!({"type": "group", "id": "a", "fill": "#fff"}))),
        ("a text property on a frame", document_with(json!({"type": "frame", "id": "a", "fontSize": 12}))),
        ("an unknown property", document_with(json!({"type": "text", "id": "a", "textColor": "#fff"}))),
        ("three padding values", document_with(json!({"type": "frame", "id": "a", "padding": [1, 2, 3]}))),
        ("a made-up sizing word", document_with(json!({"type": "frame", "id": "a", "width": "hug_contents"}))),
        ("a CSS alignment word", document_with(json!({"type": "frame", "id": "a", "alignItems": "flex-start"}))),
        ("a fill without a type", document_with(json!({"type": "frame", "id": "a", "fill": {"color": "#fff"}}))),
        ("an unknown effect", document_with(json!({"type": "frame", "id": "a", "effect": {"type": "glow"}}))),
        ("a four-digit hex color", document_with(json!({"type": "frame", "id": "a", "fill": "#0003"}))),
        ("a stroke on an icon", document_with(json!({"type": "icon", "id": "a", "icon": "x", "stroke": "#000"}))),
        ("a ref without ref", document_with(json!({"type": "ref", "id": "a"}))),
        (
            "an empty override path segment",
            document_with(json!({"type": "ref", "id": "a", "ref": "b", "descendants": {"x//y": {}}})),
        ),
        ("a wrongly typed variable", json!({"variables": {"--a": {"type": "color", "value": 12}}})),
        ("an unknown top-level key", json!({"version": "2.11", "pages": []})),
    ];
    for (what, document) in broken {
        assert!(!validator.is_valid(&document), "the schema accepts {what}");
    }
}

#[test]
fn valid_shapes_are_accepted() {
    let validator = validator();
    let valid = document_with(json!({
        "type": "frame", "id": "a", "width": "fit_content(120)", "height": "$--h", "padding": [8, "$--p"],
        "fill": [{"type": "gradient", "gradientType": "radial", "colors": [{"color": "#fff", "position": 0}]}, "#00000080"],
        "stroke": {"align": "outside", "thickness": {"bottom": 1}, "fill": "$--border"},
        "effect": [{"type": "shadow", "shadowType": "inner", "offset": {"x": 0, "y": 2}, "blur": 4, "color": "#00000033"}],
        "children": [
            {"type": "text", "id": "t", "content": "Hi", "fontWeight": "600", "textGrowth": "fixed-width", "width": "fill_container"},
            {"type": "icon", "id": "i", "icon": "grid_view", "library": "Material Symbols Rounded", "fill": "#000"},
            {"type": "ref", "id": "r", "ref": "h:Cpvvc", "descendants": {"label": {"content": "Go"}, "slot/x": {"type": "text", "id": "n", "content": "new"}}}
        ]
    }));
    let found = errors(&validator, &valid);
    assert!(found.is_empty(), "{found:#?}");
}

/// The schema's lists of properties per node type must say what the loader's table says.
#[test]
fn the_schema_and_the_loader_agree_on_properties() {
    let schema = schema();
    let defs = &schema["$defs"];
    let listed: BTreeSet<String> = defs["nodeProperties"]["properties"].as_object().unwrap().keys().cloned().collect();
    let known: BTreeSet<String> = Key::KNOWN.iter().map(|k| k.to_string()).collect();
    assert_eq!(listed, known, "nodeProperties lists every key the loader knows");

    for rule in defs["node"]["allOf"].as_array().unwrap() {
        let Some(names) = rule["then"]["propertyNames"]["enum"].as_array() else {
            continue;
        };
        let allowed: BTreeSet<String> = names.iter().map(|n| n.as_str().unwrap().to_owned()).collect();
        let types: Vec<&str> = match &rule["if"]["properties"]["type"] {
            t if t["const"].is_string() => vec![t["const"].as_str().unwrap()],
            t => t["enum"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect(),
        };
        for type_name in types {
            let node_type = NodeType::parse(type_name).unwrap();
            let used: BTreeSet<String> =
                Key::KNOWN.iter().filter(|k| node_type.uses(&Key::from_name(k))).map(|k| k.to_string()).collect();
            assert_eq!(allowed, used, "properties of {type_name}");
        }
    }
}
