//! Tool arguments as an agent might get them wrong: every tool, called with random values under
//! its own parameter names (and some others), answers or refuses, and never panics.

use nib::tools::{TOOLS, Workspace, call};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(512)
}

/// Parameter names the tools take, plus a few they do not.
const NAMES: &[&str] = &[
    "filePath",
    "filePathOrTemplate",
    "include_schema",
    "patterns",
    "nodeIds",
    "parentId",
    "readDepth",
    "searchDepth",
    "resolveInstances",
    "resolveVariables",
    "includePathGeometry",
    "operations",
    "variables",
    "replace",
    "parents",
    "properties",
    "maxDepth",
    "problemsOnly",
    "nodeId",
    "scale",
    "direction",
    "width",
    "height",
    "padding",
    "topic",
    "tags",
    "name",
    "bogus",
];

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(vec![0.0, -1.0, 0.5, 2.0, 1e-300, 1e300, -1e300, 4294967296.0, 25.0])
            .prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "doc.pen",
            "../doc.pen",
            "missing.pen",
            "new",
            "new:mobile",
            "new:watch",
            "frame1",
            "frame1/x",
            "",
            "right",
            "up",
            "fillColor",
            "#FF0000",
            "$--x",
            "landing-page",
            "dark",
            "I(\"frame1\", {type: \"text\"})",
            "x=I(document, {type: \"frame\", width: 1e308})",
            "D(\"frame1\")",
            "U(\"frame1\", {width: -5})",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
        "[a-z0-9#$/ .()]{0,10}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(NAMES.to_vec()), inner), 0..4)
                .prop_map(|members| { Value::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()) }),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Value> {
    prop::collection::vec((prop::sample::select(NAMES.to_vec()), value()), 0..5)
        .prop_map(|members| Value::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<Map<_, _>>()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_arguments_never_panic_a_tool(tool in prop::sample::select(TOOLS.to_vec()), arguments in arguments()) {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(
            folder.path().join("doc.pen"),
            r##"{"version": "2.10", "children": [{"type": "frame", "id": "frame1", "width": 200, "height": 100, "layout": "vertical", "fill": "#FFFFFF", "children": [{"type": "text", "id": "t", "content": "Hi", "fill": "#000000"}]}]}"##,
        )
        .unwrap();
        let mut workspace = Workspace::new(folder.path()).confined();
        call(&mut workspace, "open_document", json!({"filePathOrTemplate": "doc.pen"})).unwrap();
        let _ = call(&mut workspace, tool, arguments);
    }
}
