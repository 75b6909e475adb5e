//! `nib check`: validate documents and describe what they contain.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::compile::{CompileOptions, compile};
use nib::diagnostic::{Diagnostic, Severity};
use nib::doc::{Document, Loaded, NodeType};
use nib::host::DiskHost;
use nib::images::missing_image_files;

/// `nib check`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Also fail (exit 1) on warnings.
    #[arg(long)]
    strict: bool,
    /// Print only problems and the summary.
    #[arg(long, short)]
    quiet: bool,
}

impl CheckArgs {
    /// Checks the files, text measured with `fonts`.
    pub fn run(self, fonts: nib::text::FontOptions) -> ExitCode {
        let CheckArgs { files, strict, quiet } = self;
        run(&files, Options { strict, quiet, fonts })
    }
}

pub struct Options {
    pub strict: bool,
    pub quiet: bool,
    /// The fonts text is measured with: replaced families are notes.
    pub fonts: nib::text::FontOptions,
}

pub fn run(files: &[PathBuf], options: Options) -> ExitCode {
    let mut invalid = 0;
    let mut unreadable = false;
    let mut warnings = 0;
    for path in files {
        match read(path) {
            Ok((loaded, revision)) => {
                let findings = findings(path, &loaded, &options.fonts);
                let count = |severity: Severity| findings.iter().filter(|f| f.severity == severity).count();
                let errors = count(Severity::Error);
                warnings += count(Severity::Warning);
                if errors > 0 {
                    invalid += 1;
                } else if !options.quiet {
                    say!("{}: ok", path.display());
                    say!("  {} · file revision {revision}", summary(&loaded.document));
                }
                for finding in findings {
                    match finding.severity {
                        Severity::Error => tell!("{}", super::diagnostic_text(path, finding)),
                        Severity::Warning => say!("  warning {}", finding_text(path, &finding)),
                        Severity::Note => say!("  note {}", finding_text(path, &finding)),
                    }
                }
            }
            Err(error) => {
                invalid += 1;
                unreadable |= super::documents::read_failure_code(&error) == 2;
                tell!("{error}");
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
    if unreadable {
        ExitCode::from(2)
    } else if invalid > 0 || (options.strict && warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Everything checking `path` found, as diagnostics: errors, then warnings, then notes, each
/// severity in the order found — what loading said, what the document's version cannot hold,
/// then what compiling it said (imports, fonts, what could not be resolved, stand-ins) and the
/// image files it names that are not there. Errors make the file invalid (said on standard
/// error, with the file, line, column and hints); warnings are faults of the document
/// (`--strict` fails on them); notes say what nib reads or draws its own way, through no fault
/// of the document. Each stage says how serious its findings are; nothing is sorted by code here.
fn findings(path: &Path, loaded: &Loaded, fonts: &nib::text::FontOptions) -> Vec<Diagnostic> {
    let mut findings: Vec<Diagnostic> = loaded.problems.iter().map(|problem| problem.diagnostic()).collect();
    findings.extend(nib::doc::format::audit(&loaded.document).iter().map(|finding| finding.diagnostic()));
    let host = DiskHost::new(path, fonts.clone());
    match compile(&host, &loaded.document, &CompileOptions::default()) {
        Ok(mut compiled) => {
            let missing = missing_image_files(&compiled.scene, &host);
            findings.extend(compiled.diagnostics(nib::render::RenderTarget::Canvas));
            findings.extend(missing);
        }
        Err(error) => findings.push(*error),
    }
    // Stable: within a severity, the order found.
    findings.sort_by_key(|finding| std::cmp::Reverse(finding.severity));
    findings
}

/// A warning or note as `nib check` prints it: the file (with line and column when known),
/// the one-line form, then its hints.
fn finding_text(path: &Path, finding: &Diagnostic) -> String {
    super::printable_lines(&finding.to_list_item(path, 6))
}

/// One line: version, node counts per type, variables, themes, imports.
/// Reads and loads the document at `path`, with the revision of its bytes (what
/// `--if-revision` quotes).
fn read(path: &Path) -> Result<(Loaded, nib::files::Revision), nib::doc::io::ReadError> {
    let bytes = nib::doc::io::read_document_bytes(path)?;
    let revision = nib::files::Revision::of(&bytes);
    let loaded =
        Document::load_bytes(&bytes).map_err(|error| nib::doc::io::ReadError::Load { path: path.to_owned(), error })?;
    Ok((loaded, revision))
}

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
    // Axis names, values, aliases and unknown types are the file's: one line, no commands.
    nib::printable::one_line(&parts.join(" · ")).into_owned()
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
