//! The layers of DESIGN.md: each folder of src/ may use the ones before it in [`ORDER`] and none
//! after, so data flows down the pipeline and never back up. Until the layers are crates (and the
//! compiler forbids it) this test does: it reads every `crate::name` path in non-test code.

use std::path::{Path, PathBuf};

/// The folders (and single-file modules) of src/, lowest first, as DESIGN.md draws them.
const ORDER: &[&str] = &[
    "geometry",
    "hash",
    "random",
    "printable",
    "markup",
    "files",
    "http",
    "doc",
    "numbers",
    "diagnostic",
    "resolve",
    "text",
    "layout",
    "display",
    "render",
    "host",
    "images",
    "compile",
    "export",
    "review",
    "js",
    "script",
    "tools",
    "mcp",
    "serve",
    "cli",
    "main",
    "lib",
];

fn rust_files(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).expect("src is readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            // Test folders may reach anywhere (an end-to-end test drives the tools).
            if path.file_name().is_some_and(|n| n != "tests") {
                rust_files(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "rs") && path.file_name().is_some_and(|n| n != "tests.rs") {
            found.push(path);
        }
    }
}

/// The layer a file of src/ belongs to: its top folder, or its own name at the top.
fn layer_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("inside src");
    let first = relative.components().next().expect("a component").as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_owned()
}

#[test]
fn no_module_uses_one_above_it() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let rank = |name: &str| ORDER.iter().position(|layer| *layer == name);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut arrows_up = Vec::new();
    for file in &files {
        let layer = layer_of(&src, file);
        let Some(own) = rank(&layer) else {
            arrows_up.push(format!("{}: the folder '{layer}' is not in ORDER (and DESIGN.md)", file.display()));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("readable");
        // Unit tests sit at the end of a file and may use anything.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (number, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (at, _) in line.match_indices("crate::") {
                let used: String =
                    line[at + "crate::".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if let Some(other) = rank(&used)
                    && other > own
                {
                    arrows_up.push(format!("{}:{}: {layer} uses {used}: {}", file.display(), number + 1, line.trim()));
                }
            }
        }
    }
    assert!(arrows_up.is_empty(), "arrows up the pipeline:\n{}", arrows_up.join("\n"));
}
