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
            } else if path.extension().is_some_and(|e| e == "tsx" || e == "ts" || e == "css" || e == "json" || e == "html") {
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
    assert!(page.contains("export interface LandingProps {") && page.contains("mode?: \"Light\" | \"Dark\";"), "{page}");
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
    assert!(page.contains("outline-(--accent)") || files["components/PlanCard.tsx"].contains("outline-(--accent)"), "{page}");
}
