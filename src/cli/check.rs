//! `nib check`: validate documents and describe what they contain.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::compile::{CompileOptions, compile};
use nib::doc::io::read_file;
use nib::doc::{Document, Loaded, NodeType};
use nib::host::DiskHost;
use nib::images::missing_image_files;

pub struct Options {
    pub strict: bool,
    pub quiet: bool,
    /// The fonts text is measured with: replaced families are notes.
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
                // A color Pen saved and reads its own way is said, but it is Pen's file as Pen
                // wrote it: no reason to fail --strict.
                warnings += loaded.problems.iter().filter(|p| !is_note(&p.kind)).count();
                report_valid(path, &loaded, &options, resolved.error.is_none());
                for line in &resolved.warnings {
                    say!("  warning {}: {line}", path.display());
                }
                for line in &resolved.notes {
                    say!("  note {}: {line}", path.display());
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
        let kind = if is_note(&problem.kind) { "note" } else { "warning" };
        say!("  {kind} {}:{problem}", path.display());
    }
}

/// Problems that describe how a file is read rather than a fault in it.
fn is_note(kind: &nib::doc::ProblemKind) -> bool {
    matches!(kind, nib::doc::ProblemKind::ColorTolerated { .. })
}

/// What resolving the document found.
struct Resolved {
    /// Why it cannot be resolved in full (instances expanding past the budget), with the file,
    /// line and column.
    error: Option<String>,
    /// What is wrong in the document: what its format version cannot hold, and what it refers
    /// to but cannot be found (components, variables, descendants overrides that match
    /// nothing, imports, image files, scripts, its own font files). `--strict` fails on these.
    warnings: Vec<String>,
    /// What nib draws in place of something (each replaced font family once, with its
    /// stand-in; a browser's page): said, but no fault of the document.
    notes: Vec<String>,
}

fn resolve(path: &Path, document: &Document, fonts: &nib::text::FontOptions) -> Resolved {
    let host = DiskHost::new(path, fonts.clone());
    let compiled = match compile(&host, document, &CompileOptions::default()) {
        Ok(compiled) => compiled,
        Err(error) => {
            return Resolved {
                error: Some(super::diagnostic_text(path, *error)),
                warnings: Vec::new(),
                notes: Vec::new(),
            };
        }
    };
    let of = |wanted: &[&str]| -> Vec<String> {
        compiled.diagnostics.iter().filter(|d| wanted.contains(&d.code)).map(ToString::to_string).collect()
    };
    let mut warnings = of(&["import"]);
    warnings.extend(nib::doc::format::audit(document).into_iter().map(|finding| {
        format!("node '{}' {}: {} (hint: {})", finding.node, finding.pointer, finding.problem, finding.problem.hint())
    }));
    warnings.extend(of(&["unresolved"]));
    warnings.extend(
        missing_image_files(&compiled.scene, host.folder())
            .into_iter()
            .map(|(node, message)| format!("node '{node}': {message}")),
    );
    warnings.extend(of(&["font-folder", "font-file"]));
    let mut notes = of(&["placeholder"]);
    notes.extend(of(&["font-substituted"]));
    Resolved { error: None, warnings, notes }
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
