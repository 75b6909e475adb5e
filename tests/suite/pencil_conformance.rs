//! The conformance suite: every recorded Pencil call (`tests/fixtures/session`) runs against a
//! document of stand-ins for the nodes its script addresses; its outcome and every node it
//! creates are compared with Pencil's verbatim answer, ids mapped.
//!
//! The document Pencil ran the calls on is not published, so a stand-in is the plainest node
//! that lets a statement run: a frame for a parent, a text node for one whose `content` is set,
//! a component with the children its instances' paths address. A created node is *comparable*
//! when its answer is whole (not cut by the recorder) and nothing in it comes from the unknown
//! document: copies of nodes made before the call, and instances (whose `x` and `descendants`
//! Pencil fills from the component and the layout it computed) are outcome-checked only.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use nib::doc::Document;
use nib::script::{Context, OpResult, Options, Outcome, run};
use nib::script::{Expr, ExprKind, Operation, Statement, parse};
use serde_json::{Map, Value as J};

const SESSION: &str = "tests/fixtures/session";

/// One recorded call.
struct Call {
    number: String,
    script: String,
    answer: String,
}

fn calls() -> Vec<Call> {
    let mut names: Vec<String> = std::fs::read_dir(SESSION)
        .expect("the session fixtures")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".txt") && !n.ends_with(".response.txt"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let number = name.trim_end_matches(".txt").to_owned();
            let read = |file: &str| std::fs::read_to_string(Path::new(SESSION).join(file)).expect("readable");
            Call { script: read(&name), answer: read(&format!("{number}.response.txt")), number }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// What Pencil answered

/// A node Pencil reported as created, in answer order.
#[derive(Debug)]
struct Created {
    kind: &'static str,
    json: String,
}

/// The created nodes of a success answer; lines cut by the recorder are left out.
fn created_in(answer: &str) -> Vec<Created> {
    let mut found = Vec::new();
    for line in answer.lines() {
        let (kind, rest) = if let Some(rest) = line.strip_prefix("- Inserted node `") {
            ("inserted", rest)
        } else if let Some(rest) = line.strip_prefix("- Copied node `") {
            ("copied", rest)
        } else if let Some(rest) = line.strip_prefix("- Replaced node `") {
            ("replaced", rest)
        } else {
            continue;
        };
        let Some(start) = rest.find("`{") else { continue };
        let json = rest[start + 1..].strip_suffix('`').unwrap_or_default();
        if serde_json::from_str::<J>(json).is_ok() {
            found.push(Created { kind, json: json.to_owned() });
        } else {
            found.push(Created { kind, json: String::new() });
        }
    }
    found
}

/// Node ids Pencil said do not exist, so no stand-in is made for them.
fn missing_in(answer: &str) -> HashSet<String> {
    let mut missing = HashSet::new();
    for (prefix, suffix) in [("Node '", "' not found"), ("No such node to move with id '", "'")] {
        let mut rest = answer;
        while let Some(at) = rest.find(prefix) {
            rest = &rest[at + prefix.len()..];
            if let Some(end) = rest.find(suffix) {
                let path = &rest[..end];
                missing.insert(path.rsplit('/').next().unwrap_or(path).to_owned());
            }
        }
    }
    missing
}

// ---------------------------------------------------------------------------------------------
// The stand-in document

#[derive(Default)]
struct StandIns {
    /// Top-level nodes by id, with their type.
    nodes: BTreeMap<String, &'static str>,
    /// Components by id, with the children their instances' paths address (id → type).
    components: BTreeMap<String, BTreeMap<String, &'static str>>,
    /// Instances by id → their component.
    instances: BTreeMap<String, String>,
    /// Children of plain nodes that a copy's `descendants` address (id → type).
    children: BTreeMap<String, BTreeMap<String, &'static str>>,
}

fn literal(expr: &Expr) -> Option<&str> {
    match &expr.kind {
        ExprKind::String(s) => Some(s),
        _ => None,
    }
}

fn object_keys(expr: Option<&Expr>) -> Vec<&str> {
    match expr.map(|e| &e.kind) {
        Some(ExprKind::Object(props)) => props.iter().map(|p| p.key.as_str()).collect(),
        _ => Vec::new(),
    }
}

fn property<'e>(expr: &'e Expr, key: &str) -> Option<&'e Expr> {
    match &expr.kind {
        ExprKind::Object(props) => props.iter().find(|p| p.key == key).map(|p| &p.value),
        _ => None,
    }
}

/// The type a node addressed with these properties most plausibly has.
fn type_for(keys: &[&str]) -> &'static str {
    const TEXT: [&str; 6] = ["content", "fontSize", "fontFamily", "fontWeight", "textGrowth", "letterSpacing"];
    if keys.iter().any(|k| TEXT.contains(k)) {
        "text"
    } else if keys.contains(&"iconFontName") {
        "icon_font"
    } else {
        "frame"
    }
}

impl StandIns {
    fn of(statements: &[Statement], missing: &HashSet<String>) -> StandIns {
        let mut stand_ins = StandIns::default();
        // Binding → the component of the instance it names.
        let mut bound_instances: HashMap<&str, String> = HashMap::new();
        for statement in statements {
            let args = &statement.arguments;
            if let (Some(name), Some(node)) = (&statement.binding, args.get(1))
                && statement.operation == Operation::Insert
                && let Some(component) = property(node, "ref").and_then(literal)
            {
                bound_instances.insert(name, component.to_owned());
            }
            if let Some(node) =
                args.get(1).filter(|_| matches!(statement.operation, Operation::Insert | Operation::Replace))
            {
                stand_ins.components_in(node, missing);
            }
            let props = match statement.operation {
                Operation::Update => object_keys(args.get(1)),
                _ => Vec::new(),
            };
            match statement.operation {
                Operation::Insert => stand_ins.address(args.first(), &["children"], missing, &bound_instances),
                Operation::Copy => {
                    stand_ins.address(args.first(), &[], missing, &bound_instances);
                    if let (Some(source), Some(ExprKind::Object(overrides))) = (
                        args.first().and_then(literal),
                        args.get(2).and_then(|o| property(o, "descendants")).map(|d| &d.kind),
                    ) {
                        let children = stand_ins.children.entry(source.to_owned()).or_default();
                        for o in overrides {
                            children.entry(o.key.clone()).or_insert(type_for(&object_keys(Some(&o.value))));
                        }
                    }
                    stand_ins.address(args.get(1), &["children"], missing, &bound_instances);
                }
                Operation::Move => {
                    stand_ins.address(args.first(), &[], missing, &bound_instances);
                    stand_ins.address(args.get(1), &["children"], missing, &bound_instances);
                }
                _ => stand_ins.address(args.first(), &props, missing, &bound_instances),
            }
        }
        stand_ins
    }

    /// Components named by `ref` inside a new node, with the descendants it overrides.
    fn components_in(&mut self, node: &Expr, missing: &HashSet<String>) {
        if let Some(component) = property(node, "ref").and_then(literal) {
            let children = self.components.entry(component.to_owned()).or_default();
            if let Some(ExprKind::Object(overrides)) = property(node, "descendants").map(|d| &d.kind) {
                for o in overrides {
                    if !missing.contains(&o.key) && !o.key.contains('/') {
                        children.entry(o.key.clone()).or_insert(type_for(&object_keys(Some(&o.value))));
                    }
                }
            }
        }
        if let Some(ExprKind::Array(children)) = property(node, "children").map(|c| &c.kind) {
            for child in children {
                self.components_in(child, missing);
            }
        }
    }

    /// Makes what `path` addresses exist; `keys` are the properties the statement sets on it.
    fn address(
        &mut self,
        path: Option<&Expr>,
        keys: &[&str],
        missing: &HashSet<String>,
        bound: &HashMap<&str, String>,
    ) {
        let Some(path) = path else { return };
        let kind = if keys == ["children"] { "frame" } else { type_for(keys) };
        match &path.kind {
            ExprKind::String(text) => {
                let mut parts = text.split('/');
                let first = parts.next().unwrap_or_default();
                let rest: Vec<&str> = parts.collect();
                if first.is_empty() || missing.contains(first) {
                    return;
                }
                match rest.last() {
                    None => {
                        self.nodes.entry(first.to_owned()).or_insert(kind);
                    }
                    Some(last) => {
                        let component = format!("{first}-component");
                        self.instances.insert(first.to_owned(), component.clone());
                        if !missing.contains(*last) {
                            self.components.entry(component).or_default().insert((*last).to_owned(), kind);
                        }
                    }
                }
            }
            ExprKind::Concat(parts) => {
                let (Some(ExprKind::Reference(name)), Some(ExprKind::String(tail))) =
                    (parts.first().map(|p| &p.kind), parts.get(1).map(|p| &p.kind))
                else {
                    return;
                };
                let last = tail.rsplit('/').next().unwrap_or_default();
                if let Some(component) = bound.get(name.as_str())
                    && !last.is_empty()
                    && !missing.contains(last)
                {
                    self.components.entry(component.clone()).or_default().insert(last.to_owned(), kind);
                }
            }
            _ => {}
        }
    }

    fn document(&self) -> String {
        let mut children = Vec::new();
        let mut x = 0;
        let mut place = |mut node: Map<String, J>| {
            node.insert("x".into(), J::from(x));
            node.insert("y".into(), J::from(0));
            x += 2000;
            children.push(J::Object(node));
        };
        for (id, component_children) in &self.components {
            let mut node = stand_in(id, "frame");
            node.insert("reusable".into(), J::Bool(true));
            let kids: Vec<J> = component_children.iter().map(|(id, kind)| J::Object(stand_in(id, kind))).collect();
            node.insert("children".into(), J::Array(kids));
            place(node);
        }
        for (id, component) in &self.instances {
            if self.components.contains_key(id) {
                continue;
            }
            let mut node = Map::new();
            node.insert("type".into(), J::from("ref"));
            node.insert("id".into(), J::from(id.as_str()));
            node.insert("ref".into(), J::from(component.as_str()));
            place(node);
        }
        // Plain nodes sit inside a page, as the nodes a script addresses do in a real document.
        let mut page = stand_in("stand-in-page", "frame");
        let mut inside = Vec::new();
        for (id, kind) in &self.nodes {
            if self.components.contains_key(id) || self.instances.contains_key(id) {
                continue;
            }
            let mut node = stand_in(id, kind);
            if let Some(children) = self.children.get(id) {
                let kids: Vec<J> = children.iter().map(|(id, kind)| J::Object(stand_in(id, kind))).collect();
                node.insert("children".into(), J::Array(kids));
            }
            inside.push(J::Object(node));
        }
        page.insert("width".into(), J::from(1440));
        page.insert("height".into(), J::from("fit_content(900)"));
        page.insert("children".into(), J::Array(inside));
        place(page);
        serde_json::to_string(&serde_json::json!({"version": "2.10", "children": children})).expect("json")
    }
}

fn stand_in(id: &str, kind: &str) -> Map<String, J> {
    let mut node = Map::new();
    node.insert("type".into(), J::from(kind));
    node.insert("id".into(), J::from(id));
    match kind {
        "text" => {
            node.insert("content".into(), J::from("text"));
        }
        "icon_font" => {
            node.insert("iconFontName".into(), J::from("circle"));
            node.insert("iconFontFamily".into(), J::from("lucide"));
        }
        _ => {
            node.insert("width".into(), J::from(400));
            node.insert("height".into(), J::from(300));
            node.insert("layout".into(), J::from("vertical"));
        }
    }
    node
}

// ---------------------------------------------------------------------------------------------
// Comparing

/// The ids of a node tree in document order (children and replacement nodes in descendants).
fn ids_of(value: &J, out: &mut Vec<String>) {
    if let J::Object(map) = value {
        if let Some(J::String(id)) = map.get("id") {
            out.push(id.clone());
        }
        if let Some(J::Array(children)) = map.get("children") {
            children.iter().for_each(|c| ids_of(c, out));
        }
    }
}

/// Pencil's JSON with its new ids replaced by nib's, position by position.
fn mapped(pencil: &str, nib: &str) -> Option<String> {
    let (p, n): (J, J) = (serde_json::from_str(pencil).ok()?, serde_json::from_str(nib).ok()?);
    let (mut pi, mut ni) = (Vec::new(), Vec::new());
    ids_of(&p, &mut pi);
    ids_of(&n, &mut ni);
    if pi.len() != ni.len() {
        return None;
    }
    let mut text = pencil.to_owned();
    for (from, to) in pi.iter().zip(&ni) {
        text = text.replacen(&format!("\"id\":\"{from}\""), &format!("\"id\":\"{to}\""), 1);
    }
    Some(text)
}

/// Why two nodes differ, as short labels ("order", "+gap", "-layout", "≠fontWeight").
fn differences(pencil: &J, nib: &J, out: &mut Vec<String>) {
    match (pencil, nib) {
        (J::Object(p), J::Object(n)) => {
            for (k, v) in p {
                match n.get(k) {
                    None => out.push(format!("-{k}")),
                    Some(w) if k == "children" => {
                        if let (J::Array(a), J::Array(b)) = (v, w) {
                            a.iter().zip(b).for_each(|(a, b)| differences(a, b, out));
                        }
                    }
                    Some(w) if canonical(v) != canonical(w) => out.push(format!("≠{k}")),
                    Some(_) => {}
                }
            }
            for k in n.keys() {
                if !p.contains_key(k) {
                    out.push(format!("+{k}"));
                }
            }
            if out.is_empty() && serde_json::to_string(pencil).ok() != serde_json::to_string(nib).ok() {
                out.push("order".to_owned());
            }
        }
        _ => out.push("value".to_owned()),
    }
}

/// A value with object keys sorted, so that order alone does not make two values differ.
fn canonical(value: &J) -> String {
    fn sort(value: &J) -> J {
        match value {
            J::Object(map) => {
                let sorted: BTreeMap<&String, J> = map.iter().map(|(k, v)| (k, sort(v))).collect();
                J::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            J::Array(items) => J::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

fn nib_created(outcome: &Outcome) -> Vec<(&'static str, String)> {
    outcome
        .results
        .iter()
        .filter_map(|r| match r {
            OpResult::Inserted { node, .. } => Some(("inserted", node.clone())),
            OpResult::Copied { node, .. } => Some(("copied", node.clone())),
            OpResult::Replaced { node, .. } => Some(("replaced", node.clone())),
            _ => None,
        })
        .collect()
}

/// True when nothing in Pencil's node comes from the unpublished document.
fn comparable(created: &Created) -> bool {
    !created.json.is_empty()
        && created.kind != "copied"
        && !created.json.contains("\"type\":\"ref\"")
        && !created.json.contains("\"descendants\"")
}

/// Pencil's failure message (what follows `Error: `), ids of nodes made in the call aside.
fn failure_message(answer: &str) -> Option<&str> {
    let start = answer.find("Error: ")? + "Error: ".len();
    let end = answer[start..].find("\n\nAll operations").map_or(answer.len(), |e| start + e);
    Some(answer[start..end].trim_end())
}

/// nib's pointers start at the argument (`/descendants/n94BK/stroke`), Pencil's at the override
/// object (`/stroke`): the same place, said more precisely.
fn override_relative(text: &str) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        match line.strip_prefix(" - /descendants/").and_then(|rest| rest.split_once('/')) {
            Some((_, rest)) => {
                out.push_str(" - /");
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Replaces 5-character node ids in quotes with a placeholder, for messages that name nodes
/// made during the call (their ids differ between runs of different tools).
fn without_ids(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('\'') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let end = rest.find(['\'', '/']).unwrap_or(rest.len());
        let token = &rest[..end];
        if token.len() == 5 && token.chars().all(|c| c.is_ascii_alphanumeric()) {
            out.push_str("ID");
        } else {
            out.push_str(token);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A success answer without ids and node JSON: its title, the kind of each result line in
/// order, and the bindings it says are gone.
fn answer_shape(answer: &str) -> (String, Vec<String>, String) {
    let title = answer.lines().next().unwrap_or_default().trim().to_owned();
    let results = answer
        .lines()
        .filter_map(|line| line.strip_prefix("- "))
        .filter_map(|line| line.split_once('`').map(|(words, _)| words.trim().to_owned()))
        .filter(|words| words.ends_with("node") || words.ends_with("node of"))
        .collect();
    let bindings = answer
        .split("## The following bindings are NO LONGER AVAILABLE to use:\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_default()
        .to_owned();
    (title, results, bindings)
}

#[derive(Default)]
struct Tally {
    answers: usize,
    same_answers: usize,
    answer_differences: Vec<String>,
    calls: usize,
    same_outcome: usize,
    outcome_failures: Vec<String>,
    comparable: usize,
    equal: usize,
    differences: BTreeMap<String, usize>,
    examples: BTreeMap<String, String>,
}

fn run_call(call: &Call, tally: &mut Tally) {
    let script = parse(&call.script, 10_000).expect("every recorded script parses");
    let pencil_succeeded = call.answer.starts_with("# Successfully");
    let missing = if pencil_succeeded { HashSet::new() } else { missing_in(&call.answer) };
    let stand_ins = StandIns::of(&script.statements, &missing);
    let source = stand_ins.document();
    let mut document =
        Document::load(&source).unwrap_or_else(|e| panic!("{}: stand-ins load: {e:?}", call.number)).document;
    let context = Context::offline(Options { id_seed: Some(7), ..Options::default() });
    let outcome = run(&mut document, &call.script, &context);
    tally.calls += 1;
    if outcome.success != pencil_succeeded {
        tally.outcome_failures.push(format!(
            "{}: Pencil {}, nib {}: {}",
            call.number,
            if pencil_succeeded { "succeeded" } else { "failed" },
            if outcome.success { "succeeded" } else { "failed" },
            outcome.text().lines().take(4).collect::<Vec<_>>().join(" | ")
        ));
        return;
    }
    if !pencil_succeeded {
        let text = outcome.text();
        let (Some(pencil), Some(nib)) = (failure_message(&call.answer), failure_message(&text)) else {
            tally.outcome_failures.push(format!("{}: no failure message", call.number));
            return;
        };
        if !without_ids(&override_relative(nib)).starts_with(&without_ids(pencil)) {
            tally.outcome_failures.push(format!("{}: Pencil said `{pencil}`, nib `{nib}`", call.number));
            return;
        }
        tally.same_outcome += 1;
        return;
    }
    tally.same_outcome += 1;
    if !call.answer.contains("[truncated,") {
        tally.answers += 1;
        let (pencil, nib) = (answer_shape(&call.answer), answer_shape(&outcome.text()));
        if pencil == nib {
            tally.same_answers += 1;
        } else {
            tally.answer_differences.push(format!("{}: Pencil {pencil:?}\n    nib    {nib:?}", call.number));
        }
    }
    let pencil_nodes = created_in(&call.answer);
    let nib_nodes = nib_created(&outcome);
    for (index, created) in pencil_nodes.iter().enumerate() {
        if !comparable(created) {
            continue;
        }
        tally.comparable += 1;
        let Some((_, nib)) = nib_nodes.get(index) else {
            *tally.differences.entry("not created".to_owned()).or_default() += 1;
            continue;
        };
        let Some(expected) = mapped(&created.json, nib) else {
            *tally.differences.entry("different tree".to_owned()).or_default() += 1;
            continue;
        };
        if &expected == nib {
            tally.equal += 1;
            continue;
        }
        let mut found = Vec::new();
        let (p, n): (J, J) = (serde_json::from_str(&expected).expect("json"), serde_json::from_str(nib).expect("json"));
        differences(&p, &n, &mut found);
        found.sort();
        found.dedup();
        let label = found.join(" ");
        *tally.differences.entry(label.clone()).or_default() += 1;
        tally
            .examples
            .entry(label)
            .or_insert_with(|| format!("{}\n    pencil {expected}\n    nib    {nib}", call.number));
    }
}

#[test]
fn recorded_pencil_calls_give_pencils_outcome_and_nodes() {
    let mut tally = Tally::default();
    for call in calls() {
        run_call(&call, &mut tally);
    }
    let mut summary = String::new();
    let _ = writeln!(summary, "outcome: {} of {} calls as Pencil", tally.same_outcome, tally.calls);
    for failure in &tally.outcome_failures {
        let _ = writeln!(summary, "  {failure}");
    }
    let _ = writeln!(
        summary,
        "answers: {} of {} whole success answers in Pencil's shape",
        tally.same_answers, tally.answers
    );
    for difference in &tally.answer_differences {
        let _ = writeln!(summary, "  {difference}");
    }
    let _ = writeln!(summary, "created nodes: {} of {} comparable equal to Pencil's", tally.equal, tally.comparable);
    for (label, count) in &tally.differences {
        let _ = writeln!(summary, "  {count:4} × {label}\n    e.g. {}", tally.examples.get(label).map_or("", |e| e));
    }
    println!("{summary}");
    assert_eq!(tally.same_outcome, tally.calls, "{summary}");
    assert_eq!(tally.same_answers, tally.answers, "{summary}");
    assert!(tally.equal * 100 >= tally.comparable * 95, "{summary}");
}

/// The recorded calls through the batch_design tool, which also answers the layout problems a
/// call added (issue 57): the answer is the script's own answer (Pencil's, with its "Potential
/// issues" section as Pencil frames it) followed by nib's section of new layout problems, and it
/// grows by at most 1.5× the text of the problems it reports (the bullets and one heading line).
/// Prints the sizes of the answers with and without them.
#[test]
fn recorded_calls_through_the_tool_grow_by_at_most_half_again_what_they_report() {
    let (mut calls_run, mut plain_bytes, mut tool_bytes, mut layout_lines, mut grown) = (0, 0, 0, 0, 0);
    let mut largest_ratio = 1.0_f64;
    let mut largest_growth = (0.0_f64, String::new());
    for call in calls() {
        if !call.answer.starts_with("# Successfully") {
            continue;
        }
        let script = parse(&call.script, 10_000).expect("every recorded script parses");
        let source = StandIns::of(&script.statements, &HashSet::new()).document();
        let mut document = Document::load(&source).expect("stand-ins load").document;
        let plain = run(&mut document, &call.script, &Context::offline(Options::default())).text();
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("d.pen"), &source).unwrap();
        let mut workspace = nib::tools::Workspace::new(folder.path());
        let answer = nib::tools::call(
            &mut workspace,
            "batch_design",
            serde_json::json!({"filePath": "d.pen", "operations": call.script}),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", call.number));
        let text = answer["text"].as_str().unwrap();
        calls_run += 1;
        plain_bytes += plain.len();
        tool_bytes += text.len();
        let (own, added) = match text.split_once(nib::script::LAYOUT_HEADER) {
            Some((own, section)) => (own, section.lines().collect::<Vec<_>>()),
            None => (text, Vec::new()),
        };
        assert!(added.iter().all(|line| line.starts_with("- ")), "{}:\n{text}", call.number);
        layout_lines += added.len();
        if !added.is_empty() {
            grown += 1;
        }
        // The script's own answer is unchanged (ids aside: a run makes new ones), Pencil's
        // "Potential issues" section included.
        let shape = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| !l.starts_with("- Inserted") && !l.starts_with("- Copied") && !l.starts_with("- Replaced"))
                .map(|l| l.chars().filter(|c| !c.is_ascii_alphanumeric()).collect())
                .collect()
        };
        assert_eq!(shape(own), shape(&plain), "{}:\n{text}\n---\n{plain}", call.number);
        largest_ratio = largest_ratio.max(text.len() as f64 / plain.len() as f64);
        if !added.is_empty() {
            // What the answer grew by, against the text of what it reports.
            let reported: usize = added.iter().map(|line| line.len() - 2).sum();
            // Only the section is new (the rest is the same answer, checked above; its
            // inserted nodes may be placed elsewhere on the tool's canvas).
            let grew = text.len() - own.len();
            let growth = grew as f64 / reported as f64;
            if growth > largest_growth.0 {
                largest_growth = (growth, call.number.clone());
            }
        }
    }
    println!(
        "{calls_run} recorded success calls: answers {plain_bytes} bytes without the new layout problems, {tool_bytes} with them ({layout_lines} lines in {grown} answers); largest answer ratio {largest_ratio:.2}; an answer grew by at most {:.2}× the text of the problems it added (call {})",
        largest_growth.0, largest_growth.1
    );
    assert!(calls_run > 100);
    assert!(grown > 10, "the recorded calls add layout problems");
    assert!(largest_growth.0 <= 1.5, "call {} grew {:.2}× what it reports", largest_growth.1, largest_growth.0);
}
