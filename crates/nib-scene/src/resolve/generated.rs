//! Content the Scene gives nodes whose picture is not in the file: a `browser` node shows a live
//! web page in Pen, which nib cannot load headless, so the Scene gives it an empty browser
//! window — a toolbar with the page's address over a blank page — that lays out and paints like
//! any other nodes (and is said once as a substitution). The generated nodes are the Scene's
//! only: the document, and what is saved, never hold them.

use crate::diagnostic::Diagnostic;
use crate::doc::{Document, Key, Props};

/// The nodes standing in for a browser node's page, as a document whose top-level nodes become
/// its children (`None` when they cannot be made, which does not happen for valid input).
pub(crate) fn browser_window(props: &Props) -> Option<Document> {
    let url = props.text(&Key::Url).unwrap_or("");
    let shown = if url.is_empty() { "Enter a URL".to_owned() } else { url.chars().take(200).collect() };
    let text = serde_json::json!({
        "version": "2.20",
        "children": [
            {"type": "frame", "id": "toolbar", "name": "Browser toolbar", "width": "fill_container", "height": 28,
             "fill": "#F1F3F4", "layout": "horizontal", "gap": 6, "padding": [0, 10], "alignItems": "center",
             "children": [
                {"type": "ellipse", "id": "close", "width": 10, "height": 10, "fill": "#FF5F57"},
                {"type": "ellipse", "id": "minimize", "width": 10, "height": 10, "fill": "#FEBC2E"},
                {"type": "ellipse", "id": "zoom", "width": 10, "height": 10, "fill": "#28C840"},
                {"type": "frame", "id": "address", "name": "Address", "width": "fill_container", "height": 18,
                 "cornerRadius": 9, "fill": "#FFFFFF", "layout": "horizontal", "padding": [0, 8],
                 "alignItems": "center", "clip": true,
                 "children": [{"type": "text", "id": "url", "content": shown, "fontFamily": "Inter",
                               "fontSize": 10, "fill": "#5F6368"}]}
             ]},
            {"type": "frame", "id": "page", "name": "Page (not loaded)", "width": "fill_container",
             "height": "fill_container", "fill": "#FFFFFF"}
        ]
    });
    Document::load(&text.to_string()).ok().map(|loaded| loaded.document)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_window_shows_the_address() {
        let mut props = Props::default();
        props.set(Key::Url, crate::doc::Value::Text("example.com".into()));
        let window = browser_window(&props).expect("a window");
        let url = window.node_by_id("url").expect("the address text");
        let content = window.tree().node(url).props.get(&Key::Content);
        assert!(
            matches!(content, Some(crate::doc::Value::Content(crate::doc::values::TextContent::Plain(text))) if &**text == "example.com")
        );
    }
}

/// Most nodes a script's drawing may have (each is a Scene node; resolving counts them against
/// the document's budget too).
pub const MAX_SCRIPT_NODES: usize = 10_000;

/// Script drawings already made, by everything that decides them (the script's source, its
/// inputs, its box): the same script node resolves again on every edit of its frame.
type Drawings = std::sync::Mutex<std::collections::HashMap<u64, Result<std::sync::Arc<Document>, Diagnostic>>>;

/// Most drawings kept.
const KEPT_DRAWINGS: usize = 256;

/// The nodes a script node draws, as a document whose top-level nodes become its children: the
/// script file runs as Pen runs it (a function body with a global `pencil` holding `width`,
/// `height` and `input`, Pen's limits, a seeded `Math.random`) and returns an array of nodes,
/// placed in the script node's box. `Err` says why nothing could be drawn.
pub(crate) fn script_drawing(
    props: &Props,
    library: &dyn crate::resolve::Library,
) -> Result<std::sync::Arc<Document>, Diagnostic> {
    static DRAWINGS: std::sync::OnceLock<Drawings> = std::sync::OnceLock::new();
    let uri = props.text(&Key::ScriptUri).filter(|uri| !uri.trim().is_empty()).ok_or_else(|| {
        script_problem("it names no script").with_hint("set scriptUri to a .js file beside the document")
    })?;
    let source = library.script(uri)?;
    let (width, height) = (size(props, &Key::Width), size(props, &Key::Height));
    let mut input = declared_inputs(&source);
    if let Some(crate::doc::Value::Json(given)) = props.get(&Key::Inputs)
        && let Ok(serde_json::Value::Object(given)) = serde_json::from_str::<serde_json::Value>(given.as_str())
    {
        input.extend(given);
    }
    let input = serde_json::Value::Object(input);
    let key = crate::hash::fnv1a(format!("{source}\u{0}{input}\u{0}{width}\u{0}{height}").as_bytes());
    let drawings = DRAWINGS.get_or_init(Default::default);
    if let Some(drawn) = drawings.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return drawn.clone();
    }
    let pencil = serde_json::json!({"width": width, "height": height, "input": input});
    let drawn = crate::js::run_function(&source, &[("pencil", pencil)], crate::js::Limits::PEN)
        .map_err(|e| script_problem(format!("the script '{uri}' failed: {e}")))
        .and_then(|result| nodes_of(result, uri))
        .map(std::sync::Arc::new);
    let mut drawings = drawings.lock().unwrap_or_else(|e| e.into_inner());
    if drawings.len() >= KEPT_DRAWINGS {
        drawings.clear();
    }
    drawings.insert(key, drawn.clone());
    drawn
}

/// A size of the node in pixels: its number, or the fallback of fit_content(n) / fill_container(n).
fn size(props: &Props, key: &Key) -> f64 {
    use crate::doc::values::Sizing;
    match props.get(key) {
        Some(crate::doc::Value::Size(crate::doc::VarOr::Value(
            Sizing::Fixed(n) | Sizing::FitContent(Some(n)) | Sizing::FillContainer(Some(n)),
        ))) => *n,
        _ => 0.0,
    }
}

/// The `@input name: type = default` lines of a script's doc comment, as defaults.
fn declared_inputs(source: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut inputs = serde_json::Map::new();
    for line in source.lines().take_while(|line| !line.trim_start().starts_with("*/")) {
        let Some(declaration) = line.split("@input").nth(1) else { continue };
        let (name, rest) = declaration.split_once(':').unwrap_or((declaration, ""));
        let (kind, default) = rest.split_once('=').unwrap_or((rest, ""));
        let (name, kind, default) = (name.trim(), kind.trim(), default.trim());
        if name.is_empty() {
            continue;
        }
        let value = match kind {
            "number" => default.parse::<f64>().map(serde_json::Value::from).unwrap_or(serde_json::Value::from(0)),
            "boolean" => serde_json::Value::Bool(default == "true"),
            _ => serde_json::Value::String(default.trim_matches('"').to_owned()),
        };
        inputs.insert(name.to_owned(), value);
    }
    inputs
}

/// The nodes a script returned, with ids given to those without, as a document.
fn nodes_of(result: serde_json::Value, uri: &str) -> Result<Document, Diagnostic> {
    let serde_json::Value::Array(mut nodes) = result else {
        return Err(script_problem(format!("the script '{uri}' returned {}, not an array of nodes", kind(&result))));
    };
    let mut count = 0;
    for node in &mut nodes {
        give_ids(node, &mut count);
    }
    if count > MAX_SCRIPT_NODES {
        return Err(script_problem(format!(
            "the script '{uri}' drew {count} nodes; at most {MAX_SCRIPT_NODES} are drawn"
        )));
    }
    let text = serde_json::json!({"version": crate::doc::format::Version::NEWEST.to_string(), "children": nodes});
    Document::load(&text.to_string())
        .map(|loaded| loaded.document)
        .map_err(|e| script_problem(format!("the script '{uri}' returned nodes that are not valid: {e}")))
}

/// Why a script node draws nothing (the resolver says it about the node).
pub fn script_problem(message: impl Into<String>) -> Diagnostic {
    Diagnostic::warning("script", message)
}

fn give_ids(node: &mut serde_json::Value, count: &mut usize) {
    *count += 1;
    let serde_json::Value::Object(members) = node else { return };
    if !members.get("id").is_some_and(|id| id.as_str().is_some_and(|id| !id.is_empty() && !id.contains('/'))) {
        members.insert("id".into(), serde_json::Value::String(format!("n{count}")));
    }
    if let Some(serde_json::Value::Array(children)) = members.get_mut("children") {
        for child in children {
            give_ids(child, count);
        }
    }
}

fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "nothing",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod script_tests {
    use super::*;

    struct Scripts(&'static str);

    impl crate::resolve::Library for Scripts {
        fn imported(&self, _alias: &str) -> Option<&Document> {
            None
        }

        fn script(&self, _uri: &str) -> Result<std::sync::Arc<str>, Diagnostic> {
            Ok(self.0.into())
        }
    }

    fn script_node(inputs: &str) -> Props {
        let text = format!(
            r#"{{"version": "2.19", "children": [{{"type": "script", "id": "s", "width": 180, "height": 80, "scriptUri": "bars.js", "inputs": {inputs}}}]}}"#
        );
        let document = Document::load(&text).expect("loads").document;
        document.tree().node(document.tree().roots()[0]).props.clone()
    }

    #[test]
    fn a_script_draws_what_it_returns_with_its_inputs_and_the_same_randomness() {
        let source = "/**\n * @input rows: number = 3\n * @input color: color = #3B82F6\n */\nconst out = [];\nfor (let r = 0; r < pencil.input.rows; r++) out.push({type: 'rectangle', x: 0, y: r * 10, width: pencil.width * Math.random(), height: 8, fill: pencil.input.color});\nreturn out;";
        let drawn =
            script_drawing(&script_node(r##"{"rows": 4, "color": "#FF0000"}"##), &Scripts(source)).expect("drawn");
        assert_eq!(drawn.tree().roots().len(), 4);
        let again =
            script_drawing(&script_node(r##"{"rows": 4, "color": "#FF0000"}"##), &Scripts(source)).expect("drawn");
        assert_eq!(drawn.to_pen_string(), again.to_pen_string(), "the same every time");
        assert!(drawn.to_pen_string().contains("#FF0000"));
        let defaults = script_drawing(&script_node("{}"), &Scripts(source)).expect("drawn");
        assert_eq!(defaults.tree().roots().len(), 3, "the declared default");
    }

    #[test]
    fn a_failing_script_says_why() {
        let error = script_drawing(&script_node("{}"), &Scripts("return 42;")).unwrap_err();
        assert!(error.message.contains("returned a number"), "{error}");
        let error = script_drawing(&script_node("{}"), &Scripts("while (true) {}")).unwrap_err();
        assert!(error.message.contains("interrupted"), "{error}");
    }
}
