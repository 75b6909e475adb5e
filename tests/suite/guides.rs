//! The content tools: get_guidelines (every topic's examples run cleanly on a fresh document),
//! get_style_guide_tags and get_style_guide (every guide applies with one set_variables call,
//! uses fonts nib ships, and is found by its tags).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use nib::text::{FontBook, FontOptions};
use nib::tools::{TOPICS, ToolError, Workspace, call};
use serde_json::{Value, json};

struct Session {
    _folder: tempfile::TempDir,
    workspace: Workspace,
}

impl Session {
    fn new() -> Session {
        let folder = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(folder.path());
        Session { _folder: folder, workspace }
    }

    fn ok(&mut self, tool: &str, args: Value) -> Value {
        call(&mut self.workspace, tool, args.clone()).unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
    }

    fn err(&mut self, tool: &str, args: Value) -> ToolError {
        call(&mut self.workspace, tool, args.clone()).expect_err(&format!("{tool} {args} should fail"))
    }

    /// A new, empty document; its path.
    fn fresh(&mut self) -> String {
        let opened = self.ok("open_document", json!({"filePathOrTemplate": "new"}));
        opened["filePath"].as_str().unwrap().to_owned()
    }

    /// Runs a script that must succeed without potential issues.
    fn design(&mut self, file: &str, script: &str, what: &str) {
        let outcome = call(&mut self.workspace, "batch_design", json!({"filePath": file, "operations": script}))
            .unwrap_or_else(|e| panic!("{what} failed:\n{e}\n--- script:\n{script}"));
        assert_eq!(outcome["issues"], json!([]), "{what} reports potential issues");
    }

    /// The layout problems of every node of the document.
    fn problems(&mut self, file: &str) -> Value {
        let answer = self.ok("snapshot_layout", json!({"filePath": file, "problemsOnly": true, "maxDepth": 64}));
        answer["problems"].clone()
    }
}

fn guide(s: &mut Session, name: &str) -> Value {
    s.ok("get_style_guide", json!({"name": name}))
}

/// Every guide's name, from the answer without arguments.
fn guide_names(s: &mut Session) -> Vec<String> {
    let answer = s.ok("get_style_guide", json!({}));
    answer["allGuides"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap().to_owned()).collect()
}

fn strings(value: &Value) -> Vec<String> {
    value.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect()
}

fn is_hex(color: &str) -> bool {
    let digits = color.strip_prefix('#').unwrap_or("");
    (digits.len() == 6 || digits.len() == 8) && digits.chars().all(|c| c.is_ascii_digit() || ('A'..='F').contains(&c))
}

// style guides: the catalogue ---------------------------------------------------------------------

#[test]
fn every_style_guide_file_is_served_and_there_are_at_least_sixteen() {
    let mut s = Session::new();
    let names = guide_names(&mut s);
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/style-guides");
    let mut files: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f != "tags.json")
        .map(|f| f.strip_suffix(".json").expect("only .json files in assets/style-guides").to_owned())
        .collect();
    files.sort();
    assert_eq!(names, files, "every file is embedded, listed by name, sorted");
    assert!(names.len() >= 16, "{} guides", names.len());
    let titles: BTreeSet<String> =
        names.iter().map(|n| guide(&mut s, n)["title"].as_str().unwrap().to_lowercase()).collect();
    assert_eq!(titles.len(), names.len(), "titles are unique (they pick a guide too)");
}

#[test]
fn every_payload_is_accepted_by_set_variables_on_a_fresh_document() {
    let mut s = Session::new();
    for name in guide_names(&mut s) {
        let answer = guide(&mut s, &name);
        let file = s.fresh();
        let set = s.ok("set_variables", json!({"filePath": file, "variables": answer["variables"]}));
        let payload = answer["variables"].as_object().unwrap();
        let stored = set["variables"].as_object().unwrap();
        assert_eq!(stored.len(), payload.len(), "{name}: every variable is stored");
        let themed = answer["palette"].as_array().unwrap().iter().any(|p| p.get("light").is_some());
        let expected_themes = if themed { json!({"Mode": ["Light", "Dark"]}) } else { json!({}) };
        assert_eq!(set["themes"], expected_themes, "{name}");
        let colors = payload.values().filter(|v| v["type"] == "color").count();
        assert_eq!(colors, answer["palette"].as_array().unwrap().len(), "{name}: one variable per swatch");
    }
}

#[test]
fn every_guide_has_the_core_tokens_and_well_formed_values() {
    let mut s = Session::new();
    let core_colors = [
        "--background",
        "--foreground",
        "--surface",
        "--muted",
        "--muted-foreground",
        "--border",
        "--primary",
        "--primary-foreground",
        "--accent",
        "--accent-foreground",
        "--success",
        "--warning",
        "--danger",
    ];
    let core_numbers = [
        "--radius-sm",
        "--radius-md",
        "--radius-lg",
        "--space-xs",
        "--space-sm",
        "--space-md",
        "--space-lg",
        "--space-xl",
        "--space-2xl",
        "--space-3xl",
        "--text-display",
        "--text-h1",
        "--text-h2",
        "--text-h3",
        "--text-body",
        "--text-small",
        "--text-label",
        "--text-caption",
    ];
    for name in guide_names(&mut s) {
        let answer = guide(&mut s, &name);
        let variables = answer["variables"].as_object().unwrap();
        for core in core_colors {
            assert_eq!(variables.get(core).map(|v| &v["type"]), Some(&json!("color")), "{name} lacks {core}");
        }
        for core in core_numbers {
            assert_eq!(variables.get(core).map(|v| &v["type"]), Some(&json!("number")), "{name} lacks {core}");
        }
        for font in ["--font-heading", "--font-body", "--font-mono"] {
            assert_eq!(variables.get(font).map(|v| &v["type"]), Some(&json!("string")), "{name} lacks {font}");
        }
        for swatch in answer["palette"].as_array().unwrap() {
            let forms: Vec<&str> =
                ["value", "light", "dark"].into_iter().filter(|k| swatch.get(*k).is_some()).collect();
            assert!(
                forms == ["value"] || forms == ["light", "dark"],
                "{name}: {swatch} needs value, or light and dark"
            );
            for key in forms {
                let color = swatch[key].as_str().unwrap();
                assert!(is_hex(color), "{name}: {color} is not #RRGGBB(AA) in capitals");
            }
            assert!(swatch["variable"].as_str().unwrap().starts_with("--"), "{name}: {swatch}");
            assert!(!swatch["role"].as_str().unwrap().is_empty(), "{name}: {swatch} says what it is for");
        }
        let sizes: Vec<f64> =
            answer["typeScale"].as_array().unwrap().iter().map(|t| t["fontSize"].as_f64().unwrap()).collect();
        assert!(sizes.iter().all(|s| (10.0..=120.0).contains(s)), "{name}: {sizes:?}");
        let steps: Vec<f64> =
            answer["spacing"].as_array().unwrap().iter().map(|t| t["value"].as_f64().unwrap()).collect();
        assert!(steps.is_sorted() && steps.len() == 7, "{name}: spacing xs…3xl grows: {steps:?}");
        for list in ["components", "do", "dont", "shadows"] {
            assert!(answer[list].as_array().unwrap().len() >= 2, "{name}: at least two {list}");
        }
    }
}

#[test]
fn every_font_family_is_one_nib_ships() {
    let book = FontBook::new(FontOptions::default());
    let shipped: BTreeSet<&str> = book.text_families().collect();
    assert!(shipped.contains("Inter") && shipped.contains("JetBrains Mono"), "{shipped:?}");
    let mut s = Session::new();
    for name in guide_names(&mut s) {
        let answer = guide(&mut s, &name);
        let mut families: Vec<&str> =
            answer["fonts"].as_object().unwrap().values().map(|v| v.as_str().unwrap()).collect();
        families.extend(answer["typeScale"].as_array().unwrap().iter().map(|t| t["fontFamily"].as_str().unwrap()));
        for family in families {
            assert!(shipped.contains(family), "{name} uses {family}, which nib does not ship ({shipped:?})");
        }
    }
}

#[test]
fn type_styles_and_shadows_are_pen_properties_batch_design_accepts() {
    let mut s = Session::new();
    for name in guide_names(&mut s) {
        let answer = guide(&mut s, &name);
        let file = s.fresh();
        let mut script = String::from(
            "box=I(document, {type:\"frame\", layout:\"vertical\", gap:8, padding:16, fill:\"#FFFFFF\"})\n",
        );
        for style in answer["typeScale"].as_array().unwrap() {
            let mut node = style.as_object().unwrap().clone();
            let role = node.remove("role").unwrap();
            node.remove("use");
            node.insert("type".into(), json!("text"));
            node.insert("content".into(), json!(format!("{} sample", role.as_str().unwrap())));
            node.insert("fill".into(), json!("#111111"));
            script.push_str(&format!("I(box, {})\n", Value::Object(node)));
        }
        for shadow in answer["shadows"].as_array().unwrap() {
            let node =
                json!({"type": "rectangle", "width": 40, "height": 40, "fill": "#FFFFFF", "effect": shadow["effect"]});
            script.push_str(&format!("I(box, {node})\n"));
        }
        s.design(&file, &script, &format!("{name}'s type styles and shadows"));
    }
}

#[test]
fn the_specimen_built_on_the_core_variables_lays_out_cleanly_in_every_guide_and_theme() {
    let specimen =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/guides/specimen.script"))
            .unwrap();
    let mut s = Session::new();
    for name in guide_names(&mut s) {
        let answer = guide(&mut s, &name);
        let file = s.fresh();
        s.ok("set_variables", json!({"filePath": file, "variables": answer["variables"]}));
        s.design(&file, &specimen, &format!("the specimen in {name}"));
        if answer["tags"].as_array().unwrap().contains(&json!("light"))
            && answer["tags"].as_array().unwrap().contains(&json!("dark"))
        {
            let dark = specimen.replacen("name:\"specimen\",", "name:\"specimen\", theme:{Mode:\"Dark\"},", 1);
            assert_ne!(dark, specimen);
            s.design(&file, &dark, &format!("the dark specimen in {name}"));
        }
        assert_eq!(s.problems(&file), json!([]), "{name}: the specimen has layout problems (unresolved variables?)");
    }
}

// style guides: tags ----------------------------------------------------------------------------

#[test]
fn tags_come_from_one_vocabulary_and_every_guide_has_one_in_each_category() {
    let mut s = Session::new();
    let answer = s.ok("get_style_guide_tags", json!({}));
    let categories: Vec<(String, Vec<String>)> = answer["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["category"].as_str().unwrap().to_owned(),
                c["tags"].as_array().unwrap().iter().map(|t| t["tag"].as_str().unwrap().to_owned()).collect(),
            )
        })
        .collect();
    let names: Vec<&str> = categories.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["mood", "style", "industry", "density", "mode", "screen"]);
    let all: Vec<&String> = categories.iter().flat_map(|(_, tags)| tags).collect();
    assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), all.len(), "a tag belongs to one category");
    let mut counted: BTreeMap<String, u64> = BTreeMap::new();
    let guides = guide_names(&mut s);
    assert_eq!(answer["guides"], json!(guides.len()));
    for name in &guides {
        let tags = strings(&guide(&mut s, name)["tags"]);
        for tag in &tags {
            assert!(all.contains(&tag), "{name}: '{tag}' is not in tags.json");
            *counted.entry(tag.clone()).or_default() += 1;
        }
        for (category, in_category) in &categories {
            assert!(tags.iter().any(|t| in_category.contains(t)), "{name} has no {category} tag");
        }
    }
    for category in answer["categories"].as_array().unwrap() {
        for tag in category["tags"].as_array().unwrap() {
            let name = tag["tag"].as_str().unwrap();
            assert_eq!(tag["guides"], json!(counted.get(name).copied().unwrap_or(0)), "{name}");
            assert!(counted.contains_key(name), "no guide carries '{name}'");
        }
    }
    for (synonym, tag) in answer["synonyms"].as_object().unwrap() {
        let tag = tag.as_str().unwrap().to_owned();
        assert!(all.contains(&&tag) && !all.contains(&synonym), "{synonym} → {tag}");
    }
}

#[test]
fn a_guide_with_both_modes_carries_both_mode_tags_and_only_then() {
    let mut s = Session::new();
    for name in guide_names(&mut s) {
        let answer = guide(&mut s, &name);
        let tags = strings(&answer["tags"]);
        let themed = answer["palette"].as_array().unwrap().iter().all(|p| p.get("light").is_some());
        let modes: Vec<&str> = ["light", "dark"].into_iter().filter(|m| tags.iter().any(|t| t == m)).collect();
        if themed {
            assert_eq!(modes, ["light", "dark"], "{name}");
            assert!(answer["apply"].as_str().unwrap().contains("Mode"), "{name}: says how to pick the dark palette");
        } else {
            assert_eq!(modes.len(), 1, "{name}: one palette, one mode tag");
        }
    }
}

// style guides: choosing ------------------------------------------------------------------------

#[test]
fn each_guide_is_the_best_match_for_its_own_tags() {
    let mut s = Session::new();
    for name in guide_names(&mut s) {
        let tags = guide(&mut s, &name)["tags"].clone();
        let answer = s.ok("get_style_guide", json!({"tags": tags}));
        assert_eq!(answer["name"], json!(name), "tags {tags}");
        assert_eq!(answer["matchedTags"], tags);
    }
}

#[test]
fn more_overlap_ranks_higher_and_alternatives_follow_in_order() {
    let mut s = Session::new();
    let answer = s.ok("get_style_guide", json!({"tags": ["finance", "dark", "compact"]}));
    assert_eq!(answer["name"], "neon-trading");
    assert_eq!(answer["matchedTags"], json!(["finance", "dark", "compact"]));
    let alternatives = answer["alternatives"].as_array().unwrap();
    assert!(!alternatives.is_empty() && alternatives.len() <= 3);
    let counts: Vec<usize> = alternatives.iter().map(|a| a["matchedTags"].as_array().unwrap().len()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]) && counts[0] <= 3, "{counts:?}");
    assert!(alternatives.iter().all(|a| a["name"] != "neon-trading"));

    let calm = s.ok("get_style_guide", json!({"tags": ["calm", "finance", "light"]}));
    assert_eq!(calm["name"], "calm-fintech");
    let reversed = s.ok("get_style_guide", json!({"tags": ["light", "finance", "calm"]}));
    assert_eq!(reversed["name"], "calm-fintech", "the order of the tags does not decide");
    assert_eq!(reversed["matchedTags"], json!(["light", "finance", "calm"]), "matched tags in the order asked");

    let partial = s.ok("get_style_guide", json!({"tags": ["healthcare", "dark"]}));
    assert_eq!(partial["matchedTags"].as_array().unwrap().len(), 1, "no guide is both: {partial}");
    assert_eq!(partial["unmatchedTags"].as_array().unwrap().len(), 1);
}

#[test]
fn ties_go_to_the_narrower_guide_then_the_name() {
    let mut s = Session::new();
    let mut dark_only = Vec::new();
    for name in guide_names(&mut s) {
        let tags = strings(&guide(&mut s, &name)["tags"]);
        if tags.iter().any(|t| t == "dark") && !tags.iter().any(|t| t == "light") {
            dark_only.push(name);
        }
    }
    assert!(dark_only.len() > 1);
    let answer = s.ok("get_style_guide", json!({"tags": ["dark"]}));
    assert_eq!(answer["name"], json!(dark_only[0]), "a dark-only guide, the first by name");
    let next: Vec<&Value> = answer["alternatives"].as_array().unwrap().iter().map(|a| &a["name"]).collect();
    assert_eq!(
        next,
        dark_only[1..dark_only.len().min(4)].iter().map(|n| json!(n)).collect::<Vec<_>>().iter().collect::<Vec<_>>()
    );
    assert_eq!(s.ok("get_style_guide", json!({"tags": ["dark"]})), answer, "the same question, the same answer");
}

#[test]
fn synonyms_and_spellings_are_read_as_tags_and_said_so() {
    let mut s = Session::new();
    let answer = s.ok("get_style_guide", json!({"tags": ["Fintech", "calm", "Light Mode"]}));
    assert_eq!(answer["name"], "calm-fintech");
    assert_eq!(answer["matchedTags"], json!(["finance", "calm", "light"]));
    let notes = answer["notes"].to_string();
    assert!(notes.contains("read 'Fintech' as 'finance'") && notes.contains("'Light Mode' as 'light'"), "{notes}");
    assert!(answer.get("unknownTags").is_none());
}

#[test]
fn unknown_tags_are_reported_with_the_valid_ones() {
    let mut s = Session::new();
    let mixed = s.ok("get_style_guide", json!({"tags": ["calm", "finanse", "sparkly"]}));
    assert_eq!(mixed["name"], "calm-fintech", "answers the best match for the known tags");
    assert_eq!(mixed["unknownTags"], json!(["finanse", "sparkly"]));
    let notes = mixed["notes"].to_string();
    assert!(notes.contains("'finanse' (did you mean 'finance'?)") && notes.contains("industry: saas"), "{notes}");

    let none = s.err("get_style_guide", json!({"tags": ["sparkly", "shiny"]}));
    assert!(none.message.contains("'sparkly'") && none.message.contains("'shiny'"), "{none}");
    let hint = none.hint.unwrap();
    for listed in ["mood: calm", "density: compact", "mode: light, dark", "screen: landing-page"] {
        assert!(hint.contains(listed), "{hint}");
    }
}

#[test]
fn a_name_picks_a_guide_directly() {
    let mut s = Session::new();
    let by_name = s.ok("get_style_guide", json!({"name": "noir-luxury"}));
    assert_eq!(by_name["name"], "noir-luxury");
    assert_eq!(by_name["matchedTags"], json!([]));
    assert!(by_name.get("alternatives").is_none() && by_name.get("allGuides").is_none());
    assert_eq!(s.ok("get_style_guide", json!({"name": "Harbor"}))["name"], "calm-fintech", "by title");
    assert_eq!(s.ok("get_style_guide", json!({"name": "Clean SaaS"}))["name"], "clean-saas");
    let with_tags = s.ok("get_style_guide", json!({"name": "noir-luxury", "tags": ["dark", "playful"]}));
    assert_eq!(with_tags["name"], "noir-luxury", "the name wins over tags");
    assert_eq!(with_tags["matchedTags"], json!(["dark"]));
    assert_eq!(with_tags["unmatchedTags"], json!(["playful"]));

    let e = s.err("get_style_guide", json!({"name": "noir-luxery"}));
    assert!(e.message.contains("'noir-luxery'"), "{e}");
    let hint = e.hint.unwrap();
    assert!(
        hint.contains("did you mean 'noir-luxury'?") && hint.contains("calm-fintech") && hint.contains("studio-dark"),
        "{hint}"
    );
}

#[test]
fn no_tags_and_no_name_answer_the_default_and_every_name() {
    let mut s = Session::new();
    let answer = s.ok("get_style_guide", json!({}));
    assert_eq!(answer["name"], json!(nib::tools::DEFAULT_GUIDE));
    assert!(answer["notes"].to_string().contains("default"));
    let all = answer["allGuides"].as_array().unwrap();
    assert!(all.iter().all(|g| !g["summary"].as_str().unwrap().is_empty()));
    assert_eq!(s.ok("get_style_guide", json!({"tags": []})), answer);
    assert_eq!(s.ok("get_style_guide", json!({"tags": null})), answer);
    let listed = s.ok("get_style_guide", json!({"tags": "calm, finance"}));
    assert_eq!(listed["matchedTags"], json!(["calm", "finance"]), "a string is a comma-separated list");
    assert!(s.err("get_style_guide", json!({"tags": 3})).message.contains("invalid arguments"));
    assert_eq!(s.ok("get_style_guide", Value::Null), answer);
    assert!(s.err("get_style_guide", json!({"tag": ["calm"]})).message.contains("unknown field"));
    assert!(s.err("get_style_guide_tags", json!({"filter": "x"})).message.contains("unknown field"));
}

// guidelines ----------------------------------------------------------------------------------

/// The fenced blocks of a guideline that a test runs, in order: (kind, body).
fn examples(text: &str) -> Vec<(&str, String)> {
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(kind) = line.strip_prefix("```").map(str::trim) else { continue };
        let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
        if matches!(kind, "batch_design" | "set_variables") {
            blocks.push((if kind == "batch_design" { "batch_design" } else { "set_variables" }, body.join("\n")));
        }
    }
    blocks
}

#[test]
fn every_topic_answers_its_guidance_and_the_shared_rules() {
    let mut s = Session::new();
    assert_eq!(TOPICS.len(), 8);
    let mut texts = BTreeSet::new();
    for topic in TOPICS {
        let answer = s.ok("get_guidelines", json!({"topic": topic}));
        assert_eq!(answer["topic"], json!(topic));
        let text = answer["text"].as_str().unwrap();
        for rule in
            ["fill_container", "textGrowth", "25 operations", "bindings live for one call", "needs a `\"fill\"`"]
        {
            assert!(text.to_lowercase().contains(&rule.to_lowercase()), "{topic} does not mention {rule}");
        }
        assert!(text.lines().count() > 40, "{topic} is too thin");
        texts.insert(text.split("\n## ").next().unwrap().to_owned());
    }
    assert_eq!(texts.len(), TOPICS.len(), "every topic has its own text");
    assert_eq!(s.ok("get_guidelines", json!({"topic": "Landing_Page"}))["topic"], "landing-page");
}

#[test]
fn an_unknown_topic_lists_the_topics() {
    let mut s = Session::new();
    let e = s.err("get_guidelines", json!({"topic": "landing-pgae"}));
    assert!(e.message.contains("'landing-pgae'"), "{e}");
    let hint = e.hint.unwrap();
    assert!(hint.starts_with("did you mean 'landing-page'?"), "{hint}");
    for topic in TOPICS {
        assert!(hint.contains(topic), "{hint}");
    }
    let missing = s.err("get_guidelines", json!({}));
    assert!(missing.hint.unwrap().contains("design-system"));
    assert!(s.err("get_guidelines", json!({"topic": "email"})).hint.unwrap().starts_with("the topics are"));
}

#[test]
fn every_topic_example_runs_on_a_fresh_document_without_issues_or_layout_problems() {
    let mut s = Session::new();
    for topic in TOPICS {
        let text = s.ok("get_guidelines", json!({"topic": topic}))["text"].as_str().unwrap().to_owned();
        let blocks = examples(&text);
        assert!(blocks.iter().any(|(kind, _)| *kind == "batch_design"), "{topic} has no batch_design example");
        let file = s.fresh();
        for (index, (kind, body)) in blocks.iter().enumerate() {
            let what = format!("{topic} example {}", index + 1);
            match *kind {
                "set_variables" => {
                    let variables: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{what}: {e}"));
                    s.ok("set_variables", json!({"filePath": file, "variables": variables}));
                }
                _ => {
                    let statements =
                        body.lines().filter(|l| l.contains('(') && !l.trim_start().starts_with("//")).count();
                    assert!(statements <= 25, "{what} has {statements} statements; batch_design takes 25");
                    s.design(&file, body, &what);
                }
            }
        }
        assert_eq!(s.problems(&file), json!([]), "{topic}: layout problems in the examples");
        let shot = s.ok("get_screenshot", json!({"filePath": file}));
        assert!(shot.to_string().len() > 1000, "{topic}: the examples render");
    }
}

/// The mobile guideline's example follows its own "variables first" rule (issue 29: it wrote
/// hex colours), and the landing guideline defers to a style guide's display size.
#[test]
fn the_examples_follow_their_own_rules() {
    let mut s = Session::new();
    let mobile = s.ok("get_guidelines", json!({"topic": "mobile-app"}))["text"].as_str().unwrap().to_owned();
    for (kind, body) in examples(&mobile) {
        if kind == "batch_design" {
            assert!(!body.contains("\"#"), "a hex colour in the mobile example: {body}");
        }
    }
    let landing = s.ok("get_guidelines", json!({"topic": "landing-page"}))["text"].as_str().unwrap().to_owned();
    assert!(landing.contains("$--text-display"), "the headline size defers to the style guide's display size");
}

/// Issue 46, item 11: read through `read_skill` (Pen's current surface), a guide names only
/// tools that surface has, and every example is a snippet that runs on a new document without
/// an error, a potential issue or a layout problem.
#[test]
fn guides_read_on_the_current_surface_name_its_tools_and_their_snippets_run() {
    let current = nib::mcp::tool_names(nib::mcp::ToolSet::Current);
    let missing: Vec<&str> =
        nib::mcp::tool_names(nib::mcp::ToolSet::All).into_iter().filter(|name| !current.contains(name)).collect();
    assert!(missing.contains(&"batch_design") && missing.contains(&"snapshot_layout"), "{missing:?}");
    let letter_call = regex::Regex::new(r"`([A-Za-z_][A-Za-z0-9_]*=)?[ICURMDG]\(").unwrap();
    let named: Vec<(&str, regex::Regex)> = missing
        .iter()
        .map(|name| (*name, regex::Regex::new(&format!(r"(^|[^A-Za-z_]){name}([^A-Za-z_]|$)")).unwrap()))
        .collect();
    let mut s = Session::new();
    for topic in TOPICS {
        let text = s.ok("read_skill", json!({"path": format!("guides/{topic}")}))["text"].as_str().unwrap().to_owned();
        for (name, pattern) in &named {
            assert!(!pattern.is_match(&text), "guides/{topic} names {name}, which the current surface lacks");
        }
        assert!(!letter_call.is_match(&text), "guides/{topic} still writes batch_design's letters");
        assert!(!text.contains("Inserted node"), "guides/{topic} quotes batch_design's answer");
        assert!(!text.contains("readDepth") && !text.contains("patterns: ["), "guides/{topic}: batch_get's options");
        let snippets: Vec<String> = text
            .split("```js\n")
            .skip(1)
            .map(|block| block.split("```").next().unwrap_or_default().to_owned())
            .collect();
        assert!(!snippets.is_empty(), "guides/{topic} has no snippet");
        let file = s.fresh();
        for (index, snippet) in snippets.iter().enumerate() {
            let answer = call(&mut s.workspace, "execute", json!({"filePath": file, "input": snippet}))
                .unwrap_or_else(|e| panic!("guides/{topic} snippet {}: {e}\n{snippet}", index + 1));
            assert_eq!(answer["success"], true, "{answer}");
            assert!(answer.get("issues").is_none(), "guides/{topic} snippet {}: {answer}", index + 1);
        }
        assert_eq!(s.problems(&file), json!([]), "guides/{topic}: layout problems in the snippets");
    }
}
