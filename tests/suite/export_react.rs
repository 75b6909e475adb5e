//! The React export read as a React developer reads it (issue 58): the landing page an agent
//! designed (`tests/fixtures/react/landing.pen`: a themed page with a feature card, plan cards
//! and a button as components), exported and checked in the code it writes. The browser checks
//! of the same output are in `export.rs`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The themed landing page of the issue.
pub(crate) fn landing() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/react/landing.pen")
}

/// `nib export DESIGN --format react EXTRA… -o OUT`: the files written, by path, and what the
/// run said.
pub(crate) fn react_of(design: &Path, out: &Path, extra: &[&str]) -> (BTreeMap<String, String>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["export", design.to_str().expect("path"), "--format", "react", "-o", out.to_str().expect("path")])
        .args(extra)
        .output()
        .expect("nib runs");
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{said}");
    let mut files = BTreeMap::new();
    let mut folders = vec![out.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "tsx" || e == "ts" || e == "css" || e == "json" || e == "html")
            {
                let name = path.strip_prefix(out).expect("inside").to_string_lossy().replace('\\', "/");
                files.insert(name, std::fs::read_to_string(&path).expect("text"));
            }
        }
    }
    (files, said)
}

/// Item 1: every value the design takes from a variable is that variable in the code —
/// strokes, icon colours, shadows, gaps and padding as well as fills, radii and font sizes —
/// and the page takes its theme as a prop (the design's theme by default) instead of writing
/// it down, so the Dark theme reaches every line and icon.
#[test]
fn react_values_from_variables_stay_variables_and_pages_take_their_theme() {
    let out = tempfile::tempdir().expect("temp");
    let (files, _) = react_of(&landing(), out.path(), &[]);
    let page = &files["pages/Landing.tsx"];
    assert!(
        page.contains("export interface LandingProps {") && page.contains("mode?: \"Light\" | \"Dark\";"),
        "{page}"
    );
    assert!(page.contains("export function Landing({ className = \"\", mode = \"Light\" }: LandingProps)"), "{page}");
    assert!(page.contains("data-mode={mode}") && !page.contains("data-mode=\"Light\""), "{page}");
    assert!(files["index.ts"].contains("export type { LandingProps } from \"./pages/Landing\";"));
    let feature = &files["components/FeatureCard.tsx"];
    for class in [
        "outline-(--border)",
        "shadow-[0px_4px_12px_0px_var(--shadow)]",
        "gap-[calc(var(--space)_*_1px)]",
        "pt-[calc(var(--space)_*_1px)]",
        "rounded-[calc(var(--radius)_*_1px)]",
        "text-[length:calc(var(--text)_*_1px)]",
        "text-(--accent-foreground)",
    ] {
        assert!(feature.contains(class), "{class} in {feature}");
    }
    assert!(
        feature.contains("<ZapIcon className=\"w-6 h-6 text-(--accent-foreground)\" />")
            && files["icons.tsx"].contains("currentColor"),
        "the icon is drawn in its element's colour: {feature}"
    );
    // The light values of the variables appear nowhere: each is written as its variable.
    for (name, text) in &files {
        if !name.ends_with(".tsx") {
            continue;
        }
        for light in ["#E2E8F0", "#4F46E5", "#3730A3", "#16A34A", "#0F172A"] {
            assert!(!text.to_uppercase().contains(light), "{light} in {name}:\n{text}");
        }
    }
    // The highlighted plan's own outline follows the theme too.
    assert!(
        page.contains("outline-(--accent)") || files["components/PlanCard.tsx"].contains("outline-(--accent)"),
        "{page}"
    );
}

/// The props a component file declares in its `…Props` interface.
fn declared_props(file: &str) -> Vec<String> {
    let Some(start) = file.find("Props {\n") else { return Vec::new() };
    let end = file[start..].find("\n}").map_or(file.len(), |e| start + e);
    file[start..end].lines().filter_map(|line| line.trim().split_once("?:").map(|(name, _)| name.to_owned())).collect()
}

/// Item 2: every prop a component declares is read, and a nested component's text an outer
/// component's instance overrides is passed down (the Team card's button says "Contact sales",
/// not the plan card's "Start free").
#[test]
fn react_props_are_all_read_and_nested_texts_are_passed_down() {
    let out = tempfile::tempdir().expect("temp");
    let (files, _) = react_of(&landing(), out.path(), &[]);
    for (name, file) in files.iter().filter(|(name, _)| name.ends_with(".tsx")) {
        let (_, body) = file.split_once(") {\n").expect("a function");
        for prop in declared_props(file) {
            let read = body.contains(&format!("{{{prop}}}"))
                || body.contains(&format!("{{{prop} "))
                || body.contains(&format!(" {prop}]"))
                || body.contains(&format!("{{{prop}.."))
                || body.contains(&format!("({prop})"))
                || body.contains(&format!("{prop}}}"));
            assert!(read, "{name} declares {prop} and never reads it:\n{file}");
        }
    }
    let plan = &files["components/PlanCard.tsx"];
    assert!(plan.contains("<Button ") && plan.contains("={label}"), "the plan card passes its label down: {plan}");
    let page = &files["pages/Landing.tsx"];
    let team = page.lines().find(|l| l.contains("\"Team\"")).expect("the Team card");
    assert!(team.contains("<PlanCard ") && team.contains("\"Contact sales\""), "{team}");
    if let Some(tsc) = crate::export::typescript() {
        crate::export::type_check_react_with(&tsc, out.path());
    }
}

/// Item 3: a component stands alone. Its root starts nib's box model itself (the class the base
/// rules key on) and has the design's size by default — a hugging button its content's width,
/// the plan card 260 × 300 — so `<PlanCard />` in any plain element is the design; an instance
/// that sits where its component's size puts it passes no size at all, and one sized otherwise
/// passes classes that win.
#[test]
fn react_components_stand_alone_at_their_own_size() {
    let out = tempfile::tempdir().expect("temp");
    let (files, _) = react_of(&landing(), out.path(), &[]);
    let root_classes = |file: &str| -> String {
        let line = file.lines().find(|l| l.contains("className={[")).expect("the root's classes");
        line.split('"').nth(1).expect("a string").to_owned()
    };
    let button = root_classes(&files["components/Button.tsx"]);
    assert!(button.starts_with("pen-page ") && button.contains("w-fit") && !button.contains("h-"), "{button}");
    let plan = root_classes(&files["components/PlanCard.tsx"]);
    assert!(plan.starts_with("pen-page w-65 h-75 "), "{plan}");
    assert!(!plan.contains("absolute") && !plan.contains("left-"), "{plan}");
    let page = &files["pages/Landing.tsx"];
    let first = page.lines().find(|l| l.contains("<PlanCard")).expect("a plan card");
    assert_eq!(first.trim(), "<PlanCard />", "only where it is: {page}");
    let plan_file = &files["components/PlanCard.tsx"];
    let cta = plan_file.lines().find(|l| l.contains("<Button ")).expect("the button inside");
    assert!(!cta.contains("className"), "the button hugs as its component does: {cta}");
}

/// Item 4: icons are React elements, not injected markup: no `dangerouslySetInnerHTML`
/// anywhere, an icon drawn as `<path>` elements in `currentColor` where a variable colours it,
/// and an icon an instance changes is a `ReactNode` prop.
#[test]
fn react_icons_are_elements_and_icon_props_take_nodes() {
    let out = tempfile::tempdir().expect("temp");
    let (files, _) = react_of(&landing(), out.path(), &[]);
    for (name, file) in &files {
        assert!(!file.contains("dangerouslySetInnerHTML"), "{name}:\n{file}");
        assert!(!file.contains("stroke-width") && !file.contains("clip-path="), "React's attribute names: {name}");
    }
    let feature = &files["components/FeatureCard.tsx"];
    assert!(feature.contains("icon?: ReactNode;") && feature.contains("{icon ?? <ZapIcon className="), "{feature}");
    let page = &files["pages/Landing.tsx"];
    let safe = page.lines().position(|l| l.contains("\"Safe\"")).expect("the second card");
    assert!(page.lines().skip(safe).take(3).any(|l| l.contains("<ShieldIcon className=")), "{page}");
}

/// Item 4: an icon is a React component, one per icon the design draws (`icons.tsx`), drawn in
/// `currentColor` so its element's colour (the variable, or the design's value) paints it, and
/// used where the design draws it: `<CheckIcon className="w-4 h-4 text-(--success)" />`.
#[test]
fn react_icons_are_components_coloured_by_their_element() {
    let out = tempfile::tempdir().expect("temp");
    let (files, _) = react_of(&landing(), out.path(), &[]);
    let icons = &files["icons.tsx"];
    for icon in ["ArrowRightIcon", "ZapIcon", "CheckIcon", "ShieldIcon"] {
        assert_eq!(
            icons.matches(&format!("export function {icon}(props: SVGProps<SVGSVGElement>)")).count(),
            1,
            "{icons}"
        );
        assert!(files["index.ts"].contains(icon), "{}", files["index.ts"]);
    }
    assert!(icons.contains("stroke=\"currentColor\"") && !icons.contains("stroke=\"#"), "{icons}");
    let plan = &files["components/PlanCard.tsx"];
    assert!(plan.contains("import { CheckIcon } from \"../icons\";"), "{plan}");
    assert_eq!(plan.matches("<CheckIcon className=\"w-4 h-4 text-(--success)\" />").count(), 3, "{plan}");
    assert!(!plan.contains("<svg") && !files["components/FeatureCard.tsx"].contains("<svg"), "{plan}");
}

/// Item 5: a prop says what its part is — the layer name without the word that only says its
/// kind (`Perk Text` → `perk`), the role around it when the layer name is a phrase — and parts
/// of one name are numbered in the order shown (`perk1…perk3`), listed in that order.
#[test]
fn react_props_are_named_for_their_parts_in_order() {
    let out = tempfile::tempdir().expect("temp");
    let (files, _) = react_of(&landing(), out.path(), &[]);
    let plan = &files["components/PlanCard.tsx"];
    let declared = declared_props(plan);
    assert_eq!(declared, ["className", "mode", "plan", "price", "perk1", "perk2", "perk3", "label"], "{plan}");
    assert!(plan.contains("perk1 = \"1 project\", perk2 = \"Community support\", perk3 = \"1 GB storage\""), "{plan}");
    assert!(!files.values().any(|f| f.contains("perkText")), "{plan}");
}

/// Item 5: a part an instance hides is a `show…` boolean named for the part, and an instance
/// that differs from its component only in its size stays the component, sized by `className`.
#[test]
fn react_hidden_parts_are_booleans_and_a_resized_instance_stays_the_component() {
    let out = tempfile::tempdir().expect("temp");
    let mut design: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(landing()).expect("design")).expect("json");
    for node in design["children"].as_array_mut().expect("children") {
        if node["id"] == "plan" {
            let badge = serde_json::json!({ "type": "text", "id": "badge", "name": "Badge", "content": "Popular",
                "fontFamily": "Inter", "fontSize": 12, "fill": "$--accent" });
            node["children"].as_array_mut().expect("children").insert(0, badge);
        }
        if node["id"] == "landing" {
            let row =
                node["children"].as_array_mut().expect("children").iter_mut().find(|n| n["id"] == "row").expect("row");
            for card in row["children"].as_array_mut().expect("cards") {
                if card["id"] == "p1" || card["id"] == "p3" {
                    card["descendants"]["badge"] = serde_json::json!({ "enabled": false });
                }
                if card["id"] == "p3" {
                    card["width"] = serde_json::json!(300);
                }
            }
        }
    }
    let path = out.path().join("landing.pen");
    std::fs::write(&path, design.to_string()).expect("design");
    let (files, said) = react_of(&path, &out.path().join("site"), &[]);
    let plan = &files["components/PlanCard.tsx"];
    assert!(plan.contains("showBadge?: boolean;") && plan.contains("{showBadge && ("), "{plan}");
    let page = &files["pages/Landing.tsx"];
    let team = page.lines().find(|l| l.contains("\"Team\"")).expect("the Team card");
    assert!(
        team.trim_start().starts_with("<PlanCard className=\"w-75!\"") && team.contains("showBadge={false}"),
        "{team}\n{said}"
    );
}

/// Item 6: exported into a new folder, the React code is an app — `package.json` pinning the
/// versions, Vite's config, `index.html` and `main.tsx` — so `npm install && npm run dev` shows
/// the pages; into a folder with files (a project's) only with `--scaffold`, never with
/// `--no-scaffold`. (The browser check builds it and shows it in Chromium.)
#[test]
fn react_export_into_a_new_folder_is_an_app() {
    let out = tempfile::tempdir().expect("temp");
    let (files, _) = react_of(&landing(), &out.path().join("new"), &[]);
    let package: serde_json::Value = serde_json::from_str(&files["package.json"]).expect("json");
    assert_eq!(package["scripts"]["dev"], "vite");
    for (name, version, runtime) in nib::export::job::REACT_APP_PACKAGES {
        let group = if *runtime { "dependencies" } else { "devDependencies" };
        assert_eq!(package[group][name], *version, "{name}");
    }
    assert!(files["index.html"].contains("<script type=\"module\" src=\"./main.tsx\"></script>"));
    assert!(files["main.tsx"].contains("import \"./tailwind.css\";") && files["main.tsx"].contains("./pages/*.tsx"));
    assert!(files.contains_key("vite.config.ts") && files.contains_key("tsconfig.json"));
    // A project's folder: only asked.
    let project = out.path().join("project");
    std::fs::create_dir_all(&project).expect("folder");
    std::fs::write(project.join("README.md"), "mine").expect("file");
    let (files, _) = react_of(&landing(), &project, &[]);
    assert!(!files.contains_key("package.json") && !files.contains_key("main.tsx"), "{:?}", files.keys());
    let (files, _) = react_of(&landing(), &project, &["--scaffold"]);
    assert!(files.contains_key("package.json") && files.contains_key("main.tsx"));
    let (files, _) = react_of(&landing(), &out.path().join("bare"), &["--no-scaffold"]);
    assert!(!files.contains_key("package.json"), "{:?}", files.keys());
}

/// Item 7: node ids are the design's business: `data-pen-id` and `penId` only with `--ids`; no
/// class string ends or starts with a space, and no tag has two spaces in a row.
/// Item 8: a page's root sits in the flow (no absolute placement) and takes a `className`.
#[test]
fn react_ids_are_asked_for_classes_are_clean_and_pages_sit_in_a_layout() {
    let out = tempfile::tempdir().expect("temp");
    let (files, _) = react_of(&landing(), &out.path().join("plain"), &[]);
    let class = regex::Regex::new(r#"className="([^"]*)""#).expect("regex");
    for (name, file) in files.iter().filter(|(n, _)| n.ends_with(".tsx")) {
        assert!(!file.contains("data-pen-id") && !file.contains("penId"), "{name}:\n{file}");
        for list in class.captures_iter(file) {
            assert!(!list[1].is_empty() && list[1].trim() == &list[1], "{name}: {:?}", &list[1]);
        }
        assert!(!file.contains("  />") && !file.contains("  >"), "{name}:\n{file}");
    }
    let page = &files["pages/Landing.tsx"];
    let root = page.lines().find(|l| l.contains("pen-page")).expect("the root");
    assert!(!root.contains("absolute") && !root.contains("left-") && root.contains("className].join"), "{root}");
    assert!(page.contains("className?: string;"), "{page}");
    let (files, _) = react_of(&landing(), &out.path().join("ids"), &["--ids"]);
    assert!(files["pages/Landing.tsx"].contains("data-pen-id=\"landing\""), "{}", files["pages/Landing.tsx"]);
    assert!(files["components/PlanCard.tsx"].contains("penId?: string;"));
}

/// Item 4: one component per icon, whatever the sizes it is drawn at — the check mark at 16 px
/// in the plan cards and at 24 px on the page is one `CheckIcon` (its lines scale with it, as
/// nib draws them), drawn at 24 px where the design draws it so; not `CheckIcon2`.
#[test]
fn react_an_icon_drawn_at_two_sizes_is_one_component() {
    let out = tempfile::tempdir().expect("temp");
    let mut design: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(landing()).expect("design")).expect("json");
    for node in design["children"].as_array_mut().expect("children") {
        if node["id"] == "landing" {
            let big = serde_json::json!({ "type": "icon_font", "id": "bigCheck", "name": "Done", "width": 24,
                "height": 24, "iconFontName": "check", "iconFontFamily": "lucide", "fill": "$--success" });
            node["children"].as_array_mut().expect("children").insert(0, big);
        }
    }
    let path = out.path().join("landing.pen");
    std::fs::write(&path, design.to_string()).expect("design");
    let (files, _) = react_of(&path, &out.path().join("site"), &[]);
    let icons = &files["icons.tsx"];
    assert_eq!(icons.matches("export function CheckIcon").count(), 1, "{icons}");
    assert!(!files.values().any(|f| f.contains("CheckIcon2")), "{icons}");
    let page = &files["pages/Landing.tsx"];
    assert!(page.contains("<CheckIcon className=\"w-6 h-6 text-(--success)\" width=\"24\" height=\"24\" />"), "{page}");
    assert!(files["components/PlanCard.tsx"].contains("<CheckIcon className=\"w-4 h-4 text-(--success)\" />"));
    if let Some(tsc) = crate::export::typescript() {
        crate::export::type_check_react_with(&tsc, &out.path().join("site"));
    }
}
