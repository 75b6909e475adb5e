//! `nib lint`: design lint over documents — contrast, touch targets, small and covered text,
//! colours and scales off the document's system, empty hugging frames, invisible text — as
//! text, JSON or SARIF (for GitHub code scanning). Exits 1 when a finding is a warning or an
//! error, 2 when a file cannot be read or the options are wrong.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::diagnostic::Diagnostic;
use nib::doc::io::read_file;
use nib::host::DiskHost;
use nib::review::lint::{CONFIG_FILE, Config, Level, Preset, fails, lint, sarif};

/// What `nib lint --help` ends with: examples, the rules and a configuration file.
pub const EXAMPLES: &str = "Examples:
  nib lint design.pen                               findings as text; exit 1 on a warning or an error
  nib lint --preset accessibility designs/*.pen     contrast, touch targets, small and covered text
  nib lint --rule off-scale-spacing=off design.pen  one rule's level (off, note, warning, error)
  nib lint --format sarif designs/*.pen > lint.sarif   for GitHub code scanning (upload-sarif)

Rules: contrast, touch-target, small-text, raw-color, near-color, off-scale-font-size,
off-scale-spacing, covered-text, empty-fit-content, invisible-text-fill.
nib-lint.json beside the files: {\"preset\": \"strict\", \"rules\": {\"near-color\": \"off\"}}";

/// `nib lint`'s arguments.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// The .pen files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// How to write the findings.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// recommended (default), strict or accessibility.
    #[arg(long)]
    preset: Option<String>,
    /// A rule's level, e.g. contrast=error or off-scale-spacing=off (repeatable).
    #[arg(long = "rule", value_name = "RULE=LEVEL")]
    rules: Vec<String>,
    /// A configuration file instead of nib-lint.json beside each document.
    #[arg(long)]
    config: Option<PathBuf>,
}

impl LintArgs {
    /// Lints the files, text measured with `fonts`.
    pub fn run(self, fonts: nib::text::FontOptions) -> ExitCode {
        let LintArgs { files, format, preset, rules, config } = self;
        run(&files, Settings { format, preset, rules, config, fonts })
    }
}

/// How findings are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per finding, then its fix.
    Text,
    /// `{"version": "nib.lint/1", "files": [{"path", "findings"}], "summary"}`.
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
}

pub struct Settings {
    pub format: Format,
    pub preset: Option<String>,
    pub rules: Vec<String>,
    pub config: Option<PathBuf>,
    pub fonts: nib::text::FontOptions,
}

pub fn run(files: &[PathBuf], settings: Settings) -> ExitCode {
    let mut results: Vec<(PathBuf, Vec<Diagnostic>)> = Vec::new();
    let mut unreadable = 0;
    for path in files {
        let config = match config_for(path, &settings) {
            Ok(config) => config,
            Err(error) => {
                tell!("error: {}", super::printable_lines(&error.to_text(None)));
                return ExitCode::from(2);
            }
        };
        let loaded = match read_file(path) {
            Ok(loaded) => loaded,
            Err(error) => {
                tell!("{error}");
                unreadable += 1;
                continue;
            }
        };
        let host = DiskHost::new(path, settings.fonts.clone());
        match lint(&host, &loaded.document, &config) {
            Ok(mut findings) => {
                let text = std::fs::read_to_string(path).unwrap_or_default();
                for finding in &mut findings {
                    finding.locate(&text);
                }
                results.push((path.clone(), findings));
            }
            Err(error) => {
                tell!("{}", error.to_text(Some(path)));
                unreadable += 1;
            }
        }
    }
    match settings.format {
        Format::Text => print_text(&results),
        Format::Json => say!("{}", serde_json::to_string_pretty(&json(&results)).unwrap_or_default()),
        Format::Sarif => {
            let files: Vec<sarif::FileFindings> =
                results.iter().map(|(path, findings)| sarif::FileFindings { uri: uri(path), findings }).collect();
            say!("{}", serde_json::to_string_pretty(&sarif::log(&files)).unwrap_or_default());
        }
    }
    let failing = results.iter().flat_map(|(_, f)| f).any(fails);
    if unreadable > 0 {
        ExitCode::from(2)
    } else if failing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The configuration for `path`: `--config`, else `nib-lint.json` beside it, else the
/// recommended preset; then `--preset` and each `--rule ID=LEVEL`.
fn config_for(path: &Path, settings: &Settings) -> Result<Config, Diagnostic> {
    let error = |message: String| Diagnostic::error("lint-config", message);
    let beside = path.parent().map(|folder| folder.join(CONFIG_FILE)).filter(|f| f.is_file());
    let mut config = match settings.config.as_deref().map(Path::to_owned).or(beside) {
        Some(file) => {
            let text = std::fs::read_to_string(&file).map_err(|e| error(format!("{}: {e}", file.display())))?;
            Config::parse(&text).map_err(|e| error(format!("{}: {e}", file.display())))?
        }
        None => Config::default(),
    };
    if let Some(preset) = &settings.preset {
        config.preset = Preset::parse(preset).map_err(|e| error(e.to_string()))?;
    }
    for rule in &settings.rules {
        let (id, level) = rule.split_once('=').ok_or_else(|| {
            error(format!("--rule {rule}: write it as RULE=LEVEL")).with_hint("e.g. --rule contrast=error")
        })?;
        Level::parse(level).and_then(|level| config.set(id.trim(), level)).map_err(|e| error(e.to_string()))?;
    }
    Ok(config)
}

/// A path as a relative URI with `/`.
fn uri(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/").trim_start_matches("./").to_owned()
}

fn print_text(results: &[(PathBuf, Vec<Diagnostic>)]) {
    let (mut errors, mut warnings, mut notes) = (0, 0, 0);
    for (path, findings) in results {
        for finding in findings {
            let level = match finding.severity {
                nib::diagnostic::Severity::Error => {
                    errors += 1;
                    "error"
                }
                nib::diagnostic::Severity::Warning => {
                    warnings += 1;
                    "warning"
                }
                nib::diagnostic::Severity::Note => {
                    notes += 1;
                    "note"
                }
            };
            let place = match finding.span.as_ref().and_then(|s| s.line_column) {
                Some((line, column)) => format!("{}:{line}:{column}", path.display()),
                None => path.display().to_string(),
            };
            say!("{place}: {level}[{}]: {}", finding.code, nib::printable::one_line(&finding.to_string()));
            for hint in &finding.hints {
                say!("  fix: {}", nib::printable::one_line(hint));
            }
        }
    }
    let files = results.len();
    say!(
        "{} finding{} ({errors} error{}, {warnings} warning{}, {notes} note{}) in {files} file{}",
        errors + warnings + notes,
        plural(errors + warnings + notes),
        plural(errors),
        plural(warnings),
        plural(notes),
        plural(files)
    );
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn json(results: &[(PathBuf, Vec<Diagnostic>)]) -> serde_json::Value {
    let count = |severity| results.iter().flat_map(|(_, f)| f).filter(|f| f.severity == severity).count();
    serde_json::json!({
        "version": "nib.lint/1",
        "files": results.iter().map(|(path, findings)| serde_json::json!({ "path": uri(path), "findings": findings })).collect::<Vec<_>>(),
        "summary": {
            "errors": count(nib::diagnostic::Severity::Error),
            "warnings": count(nib::diagnostic::Severity::Warning),
            "notes": count(nib::diagnostic::Severity::Note),
        },
    })
}
