//! Invalid documents are refused with what is wrong, where (line, column, JSON pointer, node)
//! and how to fix it; tolerable oddities load with a problem report.

use nib::doc::{Document, ErrorKind, LoadError, ProblemKind};

fn error(text: &str) -> LoadError {
    Document::load(text).expect_err("the document is invalid")
}

/// A two-node document with `fill` placed on the inner text node.
fn with_fill(fill: &str) -> String {
    format!(
        "{{\n  \"version\": \"2.8\",\n  \"children\": [\n    {{\n      \"type\": \"frame\",\n      \"id\": \"f1\",\n      \"children\": [\n        {{\n          \"type\": \"text\",\n          \"id\": \"t1\",\n          \"fill\": {fill}\n        }}\n      ]\n    }}\n  ]\n}}"
    )
}

#[test]
fn a_bad_color_points_at_the_value() {
    let e = error(&with_fill("\"#1535850\""));
    assert_eq!(e.kind, ErrorKind::InvalidColor { text: "#1535850".into() });
    assert_eq!((e.location.line, e.location.column), (11, 19));
    assert_eq!(e.location.pointer, "/children/0/children/0/fill");
    assert_eq!(e.location.node_id.as_deref(), Some("t1"));
    assert!(e.hint.as_deref().unwrap().contains("has 7"));
    let shown = e.to_string();
    assert!(
        shown.starts_with("11:19 (at /children/0/children/0/fill, node 't1'): invalid color \"#1535850\""),
        "{shown}"
    );
    assert!(shown.contains("\n  hint: "));
}

#[test]
fn a_bad_color_inside_a_gradient_stop_is_found() {
    let e = error(&with_fill(
        r##"{"type": "gradient", "gradientType": "linear", "colors": [{"color": "#fff", "position": 0}, {"color": "#12345", "position": 1}]}"##,
    ));
    assert!(matches!(e.kind, ErrorKind::InvalidColor { .. }));
    assert_eq!(e.location.pointer, "/children/0/children/0/fill/colors/1/color");
}

#[test]
fn duplicate_ids_name_both_places() {
    let text = "{\"version\": \"2.8\", \"children\": [\n{\"type\": \"frame\", \"id\": \"a\"},\n{\"type\": \"text\", \"id\": \"a\"}]}";
    let e = error(text);
    assert_eq!(e.kind, ErrorKind::DuplicateId { id: "a".into(), first_line: Some(2) });
    assert_eq!(e.location.line, 3);
    assert_eq!(e.location.pointer, "/children/1/id");
    assert!(e.to_string().contains("first used on line 2"));
}

#[test]
fn ids_with_a_slash_are_refused() {
    let e = error(r#"{"children": [{"type": "frame", "id": "a/b"}]}"#);
    assert!(matches!(e.kind, ErrorKind::InvalidId { .. }));
    assert_eq!(e.location.pointer, "/children/0/id");
    let e = error(r#"{"children": [{"type": "frame", "id": ""}]}"#);
    assert!(matches!(e.kind, ErrorKind::InvalidId { .. }));
}

#[test]
fn unknown_node_types_load_kept_and_suggest_a_real_one() {
    // A file may come from a newer Pen: its node types nib does not know are kept with a
    // warning (issue 47), which still names the type a typo meant.
    let loaded = Document::load(r#"{"version": "2.20", "children": [{"type": "rect", "id": "a"}]}"#).expect("loads");
    assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
    let problem = &loaded.problems[0];
    assert_eq!(
        problem.kind,
        ProblemKind::NodeTypeKept { got: "rect".into(), suggestion: Some("rectangle"), children: false }
    );
    assert_eq!(problem.location.pointer, "/children/0/type");
    assert!(problem.to_string().contains("did you mean \"rectangle\"?"), "{problem}");
    // A node without a type is still refused: that is no newer Pen's file.
    let e = error(r#"{"children": [{"type": 3, "id": "a"}]}"#);
    assert!(matches!(e.kind, ErrorKind::WrongType { .. }), "{e}");
}

#[test]
fn wrong_value_types_say_what_was_expected() {
    let e = error(r#"{"children": [{"type": "frame", "id": "a", "width": true}]}"#);
    assert_eq!(
        e.kind.to_string(),
        "expected a number, \"fit_content\", \"fill_container\" or either with a fallback such as \"fit_content(100)\" or a \"$variable\", found a boolean"
    );
    let e = error(r#"{"children": [{"type": "frame", "id": "a", "opacity": "50%"}]}"#);
    assert!(matches!(e.kind, ErrorKind::WrongType { .. }));
    let e = error(r#"{"children": [{"type": "frame", "id": "a", "gap": "16px"}]}"#);
    assert_eq!(e.hint.as_deref(), Some("write the number without quotes or units: 16"));
    let e = error(r#"{"children": [{"type": "frame", "id": "a", "alignItems": "flex-start"}]}"#);
    assert_eq!(e.hint.as_deref(), Some("did you mean \"start\"?"));
    let e = error(r#"{"children": [{"type": "frame", "id": "a", "padding": {"left": 4}}]}"#);
    assert!(e.hint.unwrap().contains("[top, right, bottom, left]"));
    let e = error(r#"{"version": 2.8}"#);
    assert!(matches!(e.kind, ErrorKind::WrongType { .. }));
    let e = error("[]");
    assert!(matches!(e.kind, ErrorKind::WrongType { .. }));
}

#[test]
fn nodes_need_a_type_and_an_id() {
    let e = error(r#"{"children": [{"id": "a"}]}"#);
    assert_eq!(e.kind, ErrorKind::MissingKey { what: "a node", key: "type" });
    let e = error(r#"{"children": [{"type": "frame"}]}"#);
    assert_eq!(e.kind, ErrorKind::MissingKey { what: "a node", key: "id" });
    assert_eq!(e.location.pointer, "/children/0");
}

#[test]
fn syntax_errors_have_positions_and_hints() {
    let e = error("{\n  \"children\": [\n    {\"type\": \"frame\" \"id\": \"a\"}\n  ]\n}");
    assert!(matches!(e.kind, ErrorKind::Syntax { .. }));
    assert_eq!((e.location.line, e.location.column), (3, 22));
    assert_eq!(e.hint.as_deref(), Some("a comma is missing between two members"));
    let e = error("{\"children\": [");
    assert!(e.hint.unwrap().contains("truncated"));
}

#[test]
fn bytes_that_are_not_utf8_are_refused() {
    let e = Document::load_bytes(b"{\"name\": \"\xff\"}").expect_err("invalid");
    assert_eq!(e.kind, ErrorKind::NotUtf8);
    assert_eq!(e.location.column, 11);
}

#[test]
fn empty_files_are_new_documents() {
    for text in ["", "  \n", "// just a comment\n"] {
        let document = Document::load(text).expect("empty is fine").document;
        assert_eq!(document.node_count(), 0);
        assert_eq!(document.to_pen_string(), "{\n  \"version\": \"2.20\",\n  \"children\": []\n}");
    }
}

#[test]
fn comments_and_oddities_load_with_problems() {
    let text = "// exported\n{\"version\": \"2.8\", \"children\": [{\"type\": \"frame\", \"id\": \"a\", \"fill\": \"transparent\", \"textColor\": \"#fff\", \"name\": \"x\", \"name\": \"y\"}]}";
    let loaded = Document::load(text).expect("loads");
    let kinds: Vec<&ProblemKind> = loaded.problems.iter().map(|p| &p.kind).collect();
    assert!(kinds.contains(&&ProblemKind::Comments));
    assert!(kinds.contains(&&ProblemKind::ColorKeyword { text: "transparent".into() }));
    assert!(kinds.contains(&&ProblemKind::UnknownKey { key: "textColor".into(), suggestion: None }));
    assert!(kinds.contains(&&ProblemKind::DuplicateKey { key: "name".into() }));
    // Unknown keys survive; the repeated key keeps its first place with its last value.
    let saved = loaded.document.to_pen_string();
    assert!(saved.contains("\"textColor\": \"#fff\""));
    assert!(saved.contains("\"name\": \"y\""));
}

#[test]
fn keys_a_node_type_does_not_use_are_reported() {
    let loaded =
        Document::load(r##"{"version": "2.8", "children": [{"type": "group", "id": "g", "fill": "#fff"}]}"##).unwrap();
    assert_eq!(loaded.problems.len(), 1);
    assert_eq!(loaded.problems[0].kind, ProblemKind::KeyNotUsedByType { key: "fill".into(), node_type: "group" });
    assert_eq!(loaded.problems[0].location.node_id.as_deref(), Some("g"));
}

#[test]
fn a_font_weight_pen_never_writes_loads_with_a_warning_at_its_node() {
    let text =
        r##"{"version": "2.20", "children": [{"type": "text", "id": "t", "content": "a", "fontWeight": "heavy"}]}"##;
    let loaded = Document::load(text).unwrap();
    assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
    assert_eq!(loaded.problems[0].kind, ProblemKind::WeightNotPens { got: "heavy", weight: 900 });
    assert_eq!(loaded.problems[0].location.node_id.as_deref(), Some("t"));
    assert_eq!(loaded.problems[0].diagnostic().code, "font-weight-name");
    // Kept as written.
    assert!(loaded.document.to_pen_string().contains("\"fontWeight\": \"heavy\""));
    for pens in ["normal", "medium", "semibold", "bold", "700"] {
        let text = text.replace("heavy", pens);
        assert!(Document::load(&text).unwrap().problems.is_empty(), "{pens}");
    }
}

#[test]
fn unknown_versions_are_reported_not_refused() {
    let loaded = Document::load(r#"{"version": "1.0", "children": []}"#).unwrap();
    assert_eq!(loaded.problems[0].kind, ProblemKind::UnknownVersion { found: Some("1.0".into()) });
    let loaded = Document::load(r#"{"children": []}"#).unwrap();
    assert_eq!(loaded.problems[0].kind, ProblemKind::UnknownVersion { found: None });
    assert_eq!(loaded.document.to_pen_string(), "{\n  \"children\": []\n}");
}

#[test]
fn excessive_nesting_is_refused_cleanly() {
    let deep = format!("{{\"children\": [{}]}}", "[".repeat(200));
    let e = error(&deep);
    assert!(e.kind.to_string().contains("nesting"));
}

#[test]
fn an_object_with_more_than_65536_unknown_keys_saves_them_all() {
    let keys: Vec<String> = (0..70_000).map(|i| format!("    \"k{i}\": {i}")).collect();
    let text = format!(
        "{{\n  \"version\": \"2.10\",\n  \"children\": [\n    {{\n      \"type\": \"frame\",\n      \"id\": \"f\",\n  {}\n    }}\n  ]\n}}",
        keys.join(",\n  ")
    );
    let loaded = nib::doc::Document::load(&text).expect("loads with warnings");
    let saved = loaded.document.to_pen_string();
    assert!(saved.contains("\"k0\": 0") && saved.contains("\"k65536\": 65536") && saved.contains("\"k69999\": 69999"));
    assert_eq!(saved.matches("\"k0\":").count(), 1, "no key written twice");
    assert_eq!(saved.matches("\": ").count(), text.matches("\": ").count(), "no key lost");
}

#[test]
fn lengths_beyond_what_layout_can_hold_are_refused_where_they_are() {
    // Before, 1e308 laid out as an infinite box and letterSpacing 1e30 printed 9223372036854775807.
    let e =
        error(r##"{"version": "2.8", "children": [{"type": "frame", "id": "page", "width": 1e308, "height": 100}]}"##);
    assert_eq!(
        e.kind,
        ErrorKind::OutOfRange { what: "width", range: "between -1000000 and 1000000 (pixels)", got: 1e308 }
    );
    assert_eq!(e.location.pointer, "/children/0/width");
    assert!(e.to_string().contains("width must be between -1000000 and 1000000 (pixels), found 1e+308"), "{e}");
    let e = error(
        r##"{"version": "2.8", "children": [{"type": "text", "id": "t", "content": "Hi", "letterSpacing": 1e30}]}"##,
    );
    assert_eq!(e.location.pointer, "/children/0/letterSpacing");
    for fallback in [r#""fit_content(1e9)""#, "[0, 0, 0, 2e6]"] {
        let key = if fallback.starts_with('[') { "padding" } else { "height" };
        let text =
            format!(r#"{{"version": "2.8", "children": [{{"type": "frame", "id": "f", "{key}": {fallback}}}]}}"#);
        assert_eq!(error(&text).location.pointer, format!("/children/0/{key}"), "{text}");
    }
    // The largest real coordinates (91,461 in the corpus) are far inside the range.
    Document::load(
        r##"{"version": "2.8", "children": [{"type": "frame", "id": "f", "y": 91461, "width": -1000000}]}"##,
    )
    .expect("in range");
}

/// A document of `nodes` rectangles with `keys` unknown keys each, written compactly.
fn with_unknown_keys(nodes: usize, keys: usize) -> String {
    let node = |i: usize| {
        let unknown: String = (0..keys).map(|k| format!(r#","extra{k}":{k}"#)).collect();
        format!(r#"{{"type":"rectangle","id":"r{i}"{unknown}}}"#)
    };
    let children: Vec<String> = (0..nodes).map(node).collect();
    format!(r#"{{"version":"2.11","children":[{}]}}"#, children.join(","))
}

#[test]
fn a_file_with_a_hundred_thousand_unknown_keys_lists_the_first_thousand_and_counts_the_rest() {
    let loaded = Document::load(&with_unknown_keys(1_000, 100)).expect("loads");
    assert_eq!(loaded.problems.len(), nib::doc::MAX_PROBLEMS + 1);
    assert!(loaded.problems[..nib::doc::MAX_PROBLEMS].iter().all(|p| matches!(p.kind, ProblemKind::UnknownKey { .. })));
    // The first thousand in file order: the first ten nodes' keys.
    assert_eq!(loaded.problems[999].location.node_id.as_deref(), Some("r9"));
    let last = &loaded.problems[nib::doc::MAX_PROBLEMS];
    assert_eq!(last.kind, ProblemKind::MoreProblems { count: 99_000, shown: nib::doc::MAX_PROBLEMS });
    assert_eq!(
        (last.location.pointer.as_str(), last.location.node_id.as_deref()),
        ("/children/10/extra0", Some("r10"))
    );
    assert!(last.to_string().contains("99000 more problems from here on are not listed"), "{last}");
}

#[test]
fn a_file_with_more_unknown_keys_than_the_limit_is_refused_at_the_first_past_it() {
    let per_node = 1_000;
    let nodes = nib::doc::MAX_UNKNOWN_KEYS / per_node + 1;
    let e = error(&with_unknown_keys(nodes, per_node));
    assert_eq!(e.kind, ErrorKind::TooManyUnknownKeys { limit: nib::doc::MAX_UNKNOWN_KEYS });
    assert_eq!(e.location.pointer, format!("/children/{}/extra0", nodes - 1));
    assert!(e.hint.as_deref().is_some_and(|h| h.contains("remove them")), "{e}");
}

#[test]
fn a_repeated_key_is_located_where_it_is_repeated() {
    let loaded = Document::load(r#"{"version": "2.11", "children": [{"type": "frame", "id": "a", "x": 1, "x": 2}]}"#)
        .expect("loads");
    let repeated =
        loaded.problems.iter().find(|p| matches!(p.kind, ProblemKind::DuplicateKey { .. })).expect("reported");
    assert_eq!(repeated.location.pointer, "/children/0/x");
    assert_eq!(repeated.location.node_id.as_deref(), Some("a"));
}
