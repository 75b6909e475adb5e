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

/// The `.pen` files of a fixtures folder.
fn pen_files(folder: &str) -> Vec<std::path::PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(folder);
    let mut files: Vec<_> = std::fs::read_dir(folder)
        .expect("fixtures")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "pen"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_file_matches_the_schema() {
    let validator = validator();
    let files = pen_files("pen");
    for path in &files {
        let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let found = errors(&validator, &document);
        assert!(found.is_empty(), "{}: {:#?}", path.display(), &found[..found.len().min(5)]);
    }
    assert_eq!(files.len(), 44);
}

/// The files of versions 2.17–2.20 (most saved by the Pen app) match too, the mesh gradient
/// whose colours are `#GGGGGG` among them: Pen reads any string there (what is not a colour is
/// transparent), so the schema takes any string in a mesh.
#[test]
fn every_current_file_matches_the_schema() {
    let validator = validator();
    let files = pen_files("pen-current");
    for path in &files {
        let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let found = errors(&validator, &document);
        assert!(found.is_empty(), "{}: {:#?}", path.display(), &found[..found.len().min(5)]);
    }
    assert_eq!(files.len(), 26);
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
            {"type": "icon_font", "id": "i", "iconFontName": "grid_view", "iconFontFamily": "Material Symbols Rounded", "fill": "#000"},
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

/// The version conditions of the schema say what the loader's own rules (`doc::format`) say:
/// for every version and every sample, the schema accepts the document exactly when `check`
/// finds nothing its version cannot hold.
#[test]
fn the_schema_and_the_loader_agree_on_what_each_version_holds() {
    let validator = validator();
    let samples = [
        json!({"type": "icon_font", "id": "a", "iconFontName": "home", "iconFontFamily": "lucide"}),
        json!({"type": "icon", "id": "a", "icon": "home", "library": "lucide"}),
        json!({"type": "rectangle", "id": "a", "stroke": {"align": "inside", "thickness": 1, "fill": "#000000"}}),
        json!({"type": "rectangle", "id": "a", "stroke": "#000000", "strokeWidth": 1}),
        json!({"type": "line", "id": "a", "stroke": "#000000", "strokeWidth": 2, "strokeLinecap": "round"}),
        json!({"type": "path", "id": "a", "geometry": "M0 0L1 1", "viewBox": [0, 0, 1, 1]}),
        json!({"type": "group", "id": "a", "layout": "vertical", "children": []}),
        json!({"type": "group", "id": "a", "width": 10, "children": []}),
        json!({"type": "group", "id": "a", "children": [{"type": "frame", "id": "b", "gap": 4}]}),
        json!({"type": "text", "id": "a", "content": [{"text": "a"}]}),
        json!({"type": "text", "id": "a", "content": "a"}),
        json!({"type": "script", "id": "a", "width": 10, "height": 10, "scriptUri": "a.js"}),
        json!({"type": "connection", "id": "a", "source": {"path": "x"}, "target": {"path": "y"}}),
        json!({"type": "browser", "id": "a", "width": 10, "height": 10, "url": "example.com"}),
        json!({"type": "frame", "id": "a", "effect": {"type": "shadow", "blur": 4, "spread": 2}}),
        json!({"type": "frame", "id": "a", "effect": [{"type": "blur", "radius": 2}, {"type": "shadow", "spread": 1}]}),
        json!({"type": "frame", "id": "a", "effect": {"type": "shadow", "shadowType": "inner", "blur": 4}}),
        json!({"type": "frame", "id": "a", "fill": {"type": "image", "url": "a.png", "mode": "fill"}}),
        json!({"type": "frame", "id": "a", "fill": [{"type": "image", "url": "a.png", "mode": "fit"}]}),
        json!({"type": "frame", "id": "a", "fill": {"type": "image", "url": "a.png", "mode": "cover"}}),
        json!({"type": "frame", "id": "a", "fill": {"type": "image", "url": "a.png", "mode": "stretch", "transform": [2, 0, 0, 1, -1, 0]}}),
        json!({"type": "frame", "id": "a", "fill": {"type": "image", "url": "a.png", "mode": "stretch"}}),
        json!({"type": "frame", "id": "c", "reusable": true, "children": [{"type": "frame", "id": "k"}]}),
        json!({"type": "ref", "id": "a", "ref": "c", "descendants": {"k": {"effect": {"type": "shadow", "spread": 3}}}}),
        json!({"type": "ref", "id": "a", "ref": "c", "descendants": {"k": {"fill": {"type": "image", "url": "a.png", "mode": "fit"}}}}),
    ];
    let mut disagreements = Vec::new();
    let mut refused = vec![0; samples.len()];
    for version in nib::doc::KNOWN_VERSIONS {
        for (index, sample) in samples.iter().enumerate() {
            // Instances need their component beside them.
            let children = if sample["type"] == "ref" {
                json!([{"type": "frame", "id": "c", "reusable": true, "children": [{"type": "frame", "id": "k"}]}, sample])
            } else {
                json!([sample])
            };
            let document = json!({"version": version, "children": children});
            let text = document.to_string();
            let loaded = nib::doc::Document::load(&text).unwrap_or_else(|e| panic!("{version} {sample}: {e}"));
            let findings = nib::doc::format::audit(&loaded.document);
            let valid = validator.is_valid(&document);
            if valid != findings.is_empty() {
                disagreements.push(format!(
                    "{version} {sample}: schema {:?}, loader {findings:?}",
                    errors(&validator, &document)
                ));
            }
            refused[index] += usize::from(!valid);
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
    // Only the samples every version holds are accepted everywhere, or the matrix would not
    // test the conditions.
    let everywhere: Vec<usize> = (0..samples.len()).filter(|&i| refused[i] == 0).collect();
    assert_eq!(everywhere, [3, 8, 10, 16, 21, 22], "{refused:?}");
}
