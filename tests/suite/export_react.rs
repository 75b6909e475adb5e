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
    assert!(page.contains("export function Landing({ mode = \"Light\" }: LandingProps)"), "{page}");
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
    assert!(feature.contains("currentColor"), "the icon is drawn in its element's colour: {feature}");
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
    let team = page.lines().find(|l| l.contains("penId=\"p3\"")).expect("the Team card");
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
    let first = page.lines().find(|l| l.contains("penId=\"p1\"")).expect("a plan card");
    assert_eq!(first.trim(), "<PlanCard penId=\"p1\" />", "only where it is: {page}");
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
    assert!(feature.contains("icon?: ReactNode;") && feature.contains("{icon ?? ("), "{feature}");
    assert!(feature.contains("stroke=\"currentColor\""), "{feature}");
    let page = &files["pages/Landing.tsx"];
    let safe = page.lines().position(|l| l.contains("penId=\"f2\"")).expect("the second card");
    assert!(page.lines().skip(safe).take(3).any(|l| l.contains("icon={<>")), "{page}");
}
