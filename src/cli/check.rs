//! `nib check`: validate documents and describe what they contain.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::doc::io::read_file;
use nib::doc::{Document, Loaded, NodeType};
use nib::images::missing_image_files;
use nib::resolve::{SceneOptions, build_scene};
use nib::tools::FileImports;

pub struct Options {
    pub strict: bool,
    pub quiet: bool,
    /// The fonts text is measured with: replaced families are warnings.
    pub fonts: nib::text::FontOptions,
}

pub fn run(files: &[PathBuf], options: Options) -> ExitCode {
    let mut invalid = 0;
    let mut warnings = 0;
    for path in files {
        match read_file(path) {
            Ok(loaded) => {
                let resolved = resolve(path, &loaded.document, &options.fonts);
                if let Some(error) = &resolved.error {
                    invalid += 1;
                    eprintln!("{error}");
                }
                warnings += loaded.problems.len();
                report_valid(path, &loaded, &options, resolved.error.is_none());
                for line in &resolved.warnings {
                    say!("  warning {}: {line}", path.display());
                }
                warnings += resolved.warnings.len();
            }
            Err(error) => {
                invalid += 1;
                eprintln!("{error}");
            }
        }
    }
    if files.len() > 1 || invalid > 0 {
        say!(
            "{} checked: {} valid, {invalid} invalid, {warnings} warning{}",
            plural(files.len(), "file"),
            files.len() - invalid,
            if warnings == 1 { "" } else { "s" }
        );
    }
    if invalid > 0 || (options.strict && warnings > 0) { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

fn report_valid(path: &Path, loaded: &Loaded, options: &Options, resolved: bool) {
    let document = &loaded.document;
    if !options.quiet && resolved {
        say!("{}: ok", path.display());
        say!("  {}", summary(document));
    }
    for problem in &loaded.problems {
        say!("  warning {}:{problem}", path.display());
    }
}

/// What resolving the document found.
struct Resolved {
    /// Why it cannot be resolved in full (instances expanding past the budget), with the file,
    /// line and column.
    error: Option<String>,
    /// What the file refers to but cannot be found: components, variables, descendants
    /// overrides that match nothing, imports, image files, and font families (each replaced
    /// family once, with its stand-in).
    warnings: Vec<String>,
}

fn resolve(path: &Path, document: &Document, fonts: &nib::text::FontOptions) -> Resolved {
    let imports = FileImports::load(document, path);
    let scene = build_scene(document, &imports, SceneOptions::FULL);
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut warnings: Vec<String> = imports.problems.clone();
    warnings.extend(scene.problems.iter().map(|p| format!("node '{}': {}", p.node, p.message)));
    warnings.extend(
        missing_image_files(&scene, folder).into_iter().map(|(node, message)| format!("node '{node}': {message}")),
    );
    let (mut text, font_warnings) = super::text_engine(fonts, document, path);
    warnings.extend(font_warnings);
    warnings.extend(nib::layout::fonts::substitution_lines(&scene, None, &mut text));
    let error = scene.error().map(|error| super::resolve_error_text(path, error));
    Resolved { error, warnings }
}

/// One line: version, node counts per type, variables, themes, imports.
fn summary(document: &Document) -> String {
    let counts = document.node_counts();
    let total: usize = counts.tree.values().sum();
    let mut parts = vec![format!("version {}", document.version().unwrap_or("(none)"))];
    parts.push(format!("{} ({})", plural(total, "node"), per_type(&counts.tree)));
    let in_overrides: usize = counts.overrides.values().sum();
    if in_overrides > 0 {
        parts.push(format!("{in_overrides} in instance overrides ({})", per_type(&counts.overrides)));
    }
    if let Some(variables) = document.variables() {
        parts.push(plural(variables.len(), "variable"));
    }
    if let Some(themes) = document.themes() {
        let axes: Vec<String> = themes.iter().map(|(axis, values)| format!("{axis} [{}]", values.join(", "))).collect();
        parts.push(format!("themes {}", axes.join(", ")));
    }
    if let Some(imports) = document.imports() {
        let aliases: Vec<String> = imports.iter().map(|(alias, file)| format!("{alias} = {file}")).collect();
        parts.push(format!("imports {}", aliases.join(", ")));
    }
    parts.join(" · ")
}

fn per_type(counts: &std::collections::BTreeMap<NodeType, usize>) -> String {
    if counts.is_empty() {
        return "empty".into();
    }
    counts.iter().map(|(t, n)| format!("{} {n}", t.as_str())).collect::<Vec<_>>().join(", ")
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}
