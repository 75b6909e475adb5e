//! The layers of DESIGN.md: each folder may use the ones before it in [`CRATES`] and none after,
//! so data flows down the pipeline and never back up. Between crates (`nib-doc` → `nib-js` →
//! `nib-scene` → `nib-render` → … → `nib`) the compiler forbids an arrow up and this test keeps
//! their order; inside a crate this test does: it reads every `crate::name` path in non-test code
//! of each crate's src/.

use std::path::{Path, PathBuf};

/// The crates, lowest first, each with the folders (and single-file modules) of its src/, lowest
/// first, as DESIGN.md draws them: a crate's src/ holds these and no others (and its lib.rs).
/// nib-fonts, the generated font table, sits below them all and names no nib crate.
const CRATES: &[(&str, &[&str])] = &[
    ("crates/nib-doc", &["geometry", "hash", "random", "printable", "markup", "files", "diagnostic", "doc", "numbers"]),
    // QuickJS on its own: no nib crate below it, and nib-scene holds no `js` module.
    ("crates/nib-js", &["js"]),
    ("crates/nib-scene", &["resolve", "text", "layout", "display"]),
    ("crates/nib-render", &["http", "render", "host", "compile"]),
    ("crates/nib-export", &["export"]),
    ("crates/nib-review", &["review"]),
    ("crates/nib-tools", &["images", "script", "tools"]),
    // Dev-only: the tests' shared fixtures, above every stage it compiles with.
    ("crates/nib-test-support", &["fixtures"]),
    (".", &["mcp", "serve", "cli", "main", "lib"]),
];

/// Every crate's layers in one list, lowest first: each folder may use the ones before it and
/// none after.
fn order() -> Vec<&'static str> {
    CRATES.iter().flat_map(|(_, layers)| layers.iter().copied()).collect()
}

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
    let order = order();
    let rank = |name: &str| order.iter().position(|layer| *layer == name);
    let mut arrows_up = Vec::new();
    for (krate, own_layers) in CRATES {
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(krate).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files.sort();
        // A crate holds its own layers only (so the ones below it and none above).
        for file in &files {
            let layer = layer_of(&src, file);
            if layer != "lib" && !own_layers.contains(&layer.as_str()) {
                arrows_up.push(format!(
                    "{}: the folder '{layer}' is not {krate}'s in CRATES (and DESIGN.md)",
                    file.display()
                ));
            }
        }
        check_files(&src, &files, &rank, &mut arrows_up);
    }
    assert!(arrows_up.is_empty(), "arrows up the pipeline:\n{}", arrows_up.join("\n"));
}

/// A crate's Cargo.toml names only crates below it in [`CRATES`] (the compiler forbids a cycle;
/// this keeps the order DESIGN.md draws).
#[test]
fn crates_name_only_crates_below_them() {
    let mut arrows_up = Vec::new();
    for (at, (krate, _)) in CRATES.iter().enumerate() {
        let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(krate).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).expect("readable");
        let mut in_dependencies = false;
        for line in text.lines() {
            if line.starts_with('[') {
                in_dependencies = line == "[dependencies]";
                continue;
            }
            let Some(name) = line.strip_prefix("nib-").and_then(|rest| rest.split(['.', ' ', '=']).next()) else {
                continue;
            };
            if !in_dependencies {
                continue;
            }
            let path = format!("crates/nib-{name}");
            match CRATES.iter().position(|(other, _)| *other == path) {
                Some(below) if below < at => {}
                Some(_) => arrows_up.push(format!("{krate} names nib-{name}, which is not below it")),
                None if name == "fonts" => {}
                None => arrows_up.push(format!("{krate} names nib-{name}, which CRATES does not list")),
            }
        }
    }
    assert!(arrows_up.is_empty(), "crates naming crates above them:\n{}", arrows_up.join("\n"));
}

fn check_files(src: &Path, files: &[PathBuf], rank: &dyn Fn(&str) -> Option<usize>, arrows_up: &mut Vec<String>) {
    for file in files {
        let layer = layer_of(src, file);
        let Some(own) = rank(&layer) else {
            arrows_up.push(format!("{}: the folder '{layer}' is not in CRATES (and DESIGN.md)", file.display()));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("readable");
        // Unit tests (a `#[cfg(test)]` module) may use anything; a single test-only item
        // further up does not end the checked code (one such item once hid an arrow up).
        let code = test_module_start(&text).map_or(text.as_str(), |at| &text[..at]);
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
}

/// Where a file's `#[cfg(test)]` module starts, if it has one.
fn test_module_start(text: &str) -> Option<usize> {
    text.match_indices("#[cfg(test)]").map(|(at, _)| at).find(|at| {
        let next_line = text[*at..].lines().nth(1).unwrap_or_default().trim_start();
        next_line.starts_with("mod ") || next_line.starts_with("pub mod ") || next_line.starts_with("pub(crate) mod ")
    })
}

/// The layers that may touch the file system (DESIGN.md, "Who touches the file system") and read
/// the environment: the file layer, the hosts, the snapshot runner (a host of its own kind), the
/// tools, the binary, and the tests' fixtures (nib-test-support, a dev-dependency only).
const FILE_SYSTEM_LAYERS: &[&str] =
    &["files", "host", "images", "script", "tools", "mcp", "serve", "cli", "main", "fixtures"];

/// What touching the file system looks like in code: opening, reading, writing or listing a
/// path, directly or through the file layer's functions.
const FILE_SYSTEM_CALLS: &[&str] = &[
    "std::fs",
    "fs::",
    "File::open",
    "File::create",
    "read_dir",
    "canonicalize",
    "files::read",
    "files::write",
    "files::create_folder",
    "read_regular",
    "write_atomic",
    "create_folder",
    "Confinement",
    "load_system_fonts",
];

/// What reading the process's environment looks like in code: its variables and its working
/// directory. A stage takes what its caller decided (a render budget, the folder SVG links are
/// relative to); the hosts and the binary read the environment for it.
const ENVIRONMENT_CALLS: &[&str] = &["env::var", "env::vars", "var_os", "current_dir"];

#[test]
fn only_the_hosts_touch_the_file_system() {
    let touches = calls_outside_the_hosts(FILE_SYSTEM_CALLS);
    assert!(touches.is_empty(), "file system access outside the hosts:\n{}", touches.join("\n"));
}

/// The std::fs calls themselves stay in fewer places still: the file layer (which refuses
/// links, keeps writes atomic and confines paths), the hosts, the command line, the snapshot
/// runner's goldens, `.pen` loading, and the tools' one host of files, the workspace. A tool, a
/// server or an image service that needs a file asks one of those (a folder listed, a created
/// image removed, a root resolved), so every access passes the same checks.
#[test]
fn std_fs_is_called_only_by_the_file_layer_and_the_hosts() {
    let mut calls = Vec::new();
    for_each_line_of_code(
        |_, layer, relative| {
            let hosts = ["files", "host", "cli", "main", "fixtures"].contains(&layer);
            let host_like =
                relative.starts_with("review/snapshot/") || relative == "doc/io.rs" || relative == "tools/workspace.rs";
            !hosts && !host_like
        },
        |file, number, line| {
            if names(line, "std::fs") || names(line, "fs::") {
                calls.push(format!("{}:{number}: {line}", file.display()));
            }
        },
    );
    assert!(calls.is_empty(), "std::fs outside the file layer and the hosts:\n{}", calls.join("\n"));
}

/// Among the layers above the stages that may reach files (the tools, batch_design, G()'s image
/// services, the servers), two places do: the tools' `Workspace` (documents, a settings file
/// beside one, a screenshot's output) and the image request's store (`images/mod.rs`: every
/// provider writes its images one way). Everything else asks one of them.
#[test]
fn the_tools_reach_files_through_the_workspace_and_the_image_store() {
    let mut touches = Vec::new();
    for_each_line_of_code(
        |_, layer, relative| {
            ["tools", "script", "images", "mcp", "serve"].contains(&layer)
                && relative != "tools/workspace.rs"
                && relative != "images/mod.rs"
        },
        |file, number, line| {
            // Carrying the confinement along (a type) is not reaching a file.
            let calls = FILE_SYSTEM_CALLS.iter().filter(|call| **call != "Confinement");
            if let Some(call) = calls.into_iter().find(|call| names(line, call)) {
                touches.push(format!("{}:{number}: {call}: {line}", file.display()));
            }
        },
    );
    assert!(touches.is_empty(), "files reached outside the workspace and the image store:\n{}", touches.join("\n"));
}

#[test]
fn only_the_hosts_read_the_environment() {
    let reads = calls_outside_the_hosts(ENVIRONMENT_CALLS);
    assert!(reads.is_empty(), "the environment read outside the hosts:\n{}", reads.join("\n"));
}

/// The lines of non-test code outside the layers that may touch the file system (and the
/// environment) that name one of `calls`.
fn calls_outside_the_hosts(calls: &[&str]) -> Vec<String> {
    let mut touches = Vec::new();
    for_each_line_of_code(
        |_, layer, relative| {
            // The snapshot runner keeps goldens and finds documents: a host of its own kind.
            // doc/io.rs is the file layer's for `.pen` files (load and save, for the hosts).
            let host_like = relative.starts_with("review/snapshot/") || relative == "doc/io.rs";
            !FILE_SYSTEM_LAYERS.contains(&layer) && !host_like
        },
        |file, number, line| {
            if let Some(call) = calls.iter().find(|call| names(line, call)) {
                touches.push(format!("{}:{number}: {call}: {line}", file.display()));
            }
        },
    );
    touches
}

/// Calls `each` with every line of non-test code (not a comment; trimmed, numbered from 1) of
/// the files of [`CRATES`] that `wanted(crate, layer, path inside src/)` keeps.
fn for_each_line_of_code(wanted: impl Fn(&str, &str, &str) -> bool, mut each: impl FnMut(&Path, usize, &str)) {
    for (krate, _) in CRATES {
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(krate).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files.sort();
        for file in files {
            let layer = layer_of(&src, &file);
            let relative = file.strip_prefix(&src).expect("inside src").to_string_lossy().replace('\\', "/");
            if !wanted(krate, &layer, &relative) {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("readable");
            let code = test_module_start(&text).map_or(text.as_str(), |at| &text[..at]);
            for (number, line) in code.lines().enumerate() {
                let line = line.trim_start();
                if !line.starts_with("//") {
                    each(&file, number + 1, line);
                }
            }
        }
    }
}

/// True when `line` names `call` as a whole word at its start (`fs::` but not `ImageRefs::`).
fn names(line: &str, call: &str) -> bool {
    line.match_indices(call)
        .any(|(at, _)| !line[..at].chars().next_back().is_some_and(|before| before.is_alphanumeric() || before == '_'))
}

/// The steps from a document to something drawn, written out: resolving a Scene, laying it out,
/// making a text engine or loading imports and font files for a document. Only the stages that
/// define them (nib-scene) and the compiler (nib-render's `compile/`, over a host) may name
/// them; everything else asks a `Compiler` or `compile()`, so every picture, export and tool
/// answer of the same document takes the same path and says the same things.
const PIPELINE_STEPS: &[&str] = &[
    "build_scene(",
    "update_scene(",
    "update_scene_of(",
    "Layout::compute(",
    "Layout::update(",
    "PartLayout::compute(",
    "FileImports::load",
    "DocumentFontAccess",
    "LaidOutCanvas",
    "host.text(",
    "Host::text(",
];

#[test]
fn only_the_compiler_builds_the_pipeline() {
    let mut by_hand = Vec::new();
    for_each_line_of_code(
        // The stages that define the steps, the compiler, and the hosts it asks (which load
        // imports and font files).
        |krate, _, relative| {
            krate != "crates/nib-scene" && !relative.starts_with("compile/") && !relative.starts_with("host/")
        },
        |file, number, line| {
            if let Some(step) = PIPELINE_STEPS.iter().find(|step| line.contains(*step)) {
                by_hand.push(format!("{}:{number}: {step}: {line}", file.display()));
            }
        },
    );
    assert!(
        by_hand.is_empty(),
        "the pipeline built by hand outside the compiler (ask a Compiler or compile()):\n{}",
        by_hand.join("\n")
    );
}

/// The ways into a compiler's insides that a caller once took instead of its result: laying
/// out one node's part, borrowing its text engine and images to draw, repainting after an edit
/// from the pieces, painting a target or every frame from a Compiled taken apart (`nib render`,
/// `nib diff`'s pictures and the snapshot runner did), and resolving a second Scene with
/// variables kept past its cache. Screenshots,
/// exports and every other picture take them from one [`Compiled`] (`compile()` or
/// `Compiler::compiled`), which holds the Scene, the one with variables kept, the layout, the
/// text engine and the images; only the compiler (and the painter that defines the repaint)
/// names them.
const COMPILER_INSIDES: &[&str] = &[
    "layout_for_node(",
    ".drawing(",
    "render_after,",
    "render_after}",
    "render::render_after",
    "resolve_keeping_variables",
    "export::job::Source",
    "render_timed,",
    "render_timed}",
    "render::render_timed",
    "render::render(",
    "render_frames,",
    "render_frames}",
    "frames::render_frames",
    "render_frames_into,",
    "render_frames_into}",
    "Compiled { scene, layout, text",
];

#[test]
fn everything_drawn_comes_out_of_one_compiled_result() {
    let mut past = Vec::new();
    for_each_line_of_code(
        |krate, _, relative| {
            krate != "crates/nib-scene"
                && !(krate == "crates/nib-render"
                    && (relative.starts_with("compile/") || relative.starts_with("render/")))
        },
        |file, number, line| {
            if let Some(inside) = COMPILER_INSIDES.iter().find(|inside| line.contains(*inside)) {
                past.push(format!("{}:{number}: {inside}: {line}", file.display()));
            }
        },
    );
    assert!(
        past.is_empty(),
        "drawn past the compiled result (use Compiled, from compile() or Compiler::compiled):\n{}",
        past.join("\n")
    );
}
