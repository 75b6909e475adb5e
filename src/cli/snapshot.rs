//! `nib snapshot PATHS…`: snapshot tests for designs (see `nib::review::snapshot`), with a
//! progress bar, the problems on standard output and the JUnit and Markdown reports CI shows.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use nib::compile::{CompileOptions, Compiler};
use nib::diagnostic::Diagnostic;
use nib::doc::io::read_file;
use nib::host::DiskHost;
use nib::printable::one_line;
use nib::review::snapshot::{
    self, FileReport, Obsolete, Options, Outcome, PenFile, Prepared, Progress, Report, Shard, SnapshotError, Verdict,
};
use nib::text::FontOptions;

/// The examples `nib snapshot --help` ends with.
pub const EXAMPLES: &str = "Examples:
  nib snapshot designs/                       first run: creates the goldens
  nib snapshot designs/                       later runs: compare, exit 1 on a difference
  nib snapshot --update designs/              approve the changes (only differing goldens change)
  nib snapshot --ci --junit junit.xml designs/
  nib snapshot --ci --shard 2/4 designs/      the second of four CI jobs
  nib snapshot --frame '^Home' designs/app.pen
  nib snapshot --theme Mode=Dark designs/     the dark look, goldens in __snapshots__/<file>@Mode=Dark/";

/// `nib snapshot`'s arguments.
#[derive(Debug, clap::Args)]
pub struct SnapshotArgs {
    /// .pen files, or folders searched recursively (__snapshots__, .git, target,
    /// node_modules and hidden folders are skipped).
    #[arg(required = true, value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// Approve the renders: rewrite the goldens of frames that differ, create missing ones,
    /// remove those whose frame is gone. Goldens that match are not touched.
    #[arg(long, conflicts_with = "ci")]
    update: bool,
    /// For CI: a missing golden fails instead of being created, and so does a golden whose
    /// frame is gone.
    #[arg(long)]
    ci: bool,
    /// Only the frames whose name or id matches this regular expression.
    #[arg(long, value_name = "REGEX", value_parser = parse_regex)]
    frame: Option<regex::Regex>,
    /// Colour distance (0 identical, 1 black against white) above which a pixel differs.
    #[arg(long, value_name = "DISTANCE", default_value_t = nib::review::pixels::Tolerance::default().threshold, value_parser = parse_threshold)]
    threshold: f64,
    /// Share of the pixels that may differ before a frame fails: 0–1 or a percentage
    /// such as 0.1%.
    #[arg(long, value_name = "SHARE", default_value_t = nib::review::pixels::Tolerance::default().max_share, value_parser = parse_share)]
    max_diff_share: f64,
    /// Also count pixels that differ only because an anti-aliased edge moved.
    #[arg(long)]
    count_antialiasing: bool,
    /// Where the diff images and renders of failing frames go (<file>/<id>.diff.png and
    /// .actual.png), so the __snapshots__ folders hold goldens only.
    #[arg(long, value_name = "DIR", default_value = "snapshot-diffs")]
    diff_dir: PathBuf,
    /// Write a JUnit XML report: a test suite per file, a test case per frame.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a Markdown summary (it is also appended to $GITHUB_STEP_SUMMARY when set).
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// Check part I of N (from 1): every frame falls to exactly one part, the same on every
    /// machine, so the jobs of a CI matrix split the work.
    #[arg(long, value_name = "I/N", default_value = "1/1", value_parser = parse_shard)]
    shard: Shard,
    /// Draw every frame under a theme: AXIS=VALUE (Mode=Dark; c:Mode=Dark for an axis of
    /// the import c), repeat for several axes. Its goldens are kept apart, in
    /// __snapshots__/<file stem>@Mode=Dark/; a file without that axis or value fails.
    #[arg(long = "theme", value_name = "AXIS=VALUE", value_parser = super::theme::parse_theme)]
    theme: Vec<(String, String)>,
}

impl SnapshotArgs {
    /// Checks the frames against their goldens; of `fonts`, only the user's folders are used.
    pub fn run(self, fonts: FontOptions) -> ExitCode {
        let SnapshotArgs {
            paths,
            update,
            ci,
            frame,
            threshold,
            max_diff_share,
            count_antialiasing,
            diff_dir,
            junit,
            summary,
            shard,
            theme,
        } = self;
        let tolerance = nib::review::pixels::Tolerance {
            threshold,
            max_share: max_diff_share,
            ignore_antialiasing: !count_antialiasing,
        };
        let options = Options { tolerance, update, ci, frames: frame, shard, diff_dir, theme };
        // Goldens must come out the same on every machine: the user's font folders and the
        // documents' own fonts, never the cache, the network or the system.
        let fonts = FontOptions { font_dirs: fonts.font_dirs, ..FontOptions::default() };
        run(&paths, Settings { options, junit, summary, fonts })
    }
}

/// What the command line asked for besides the options of the run.
pub struct Settings {
    pub options: Options,
    pub junit: Option<PathBuf>,
    pub summary: Option<PathBuf>,
    /// The fonts: the user's folders at most (see `SnapshotArgs::run`).
    pub fonts: FontOptions,
}

pub fn run(paths: &[PathBuf], settings: Settings) -> ExitCode {
    let files = match snapshot::discover(paths) {
        Ok(files) => files,
        Err(error) => {
            tell!("nib: {error}");
            return ExitCode::from(2);
        }
    };
    if files.is_empty() {
        tell!("nib: no .pen files under {}", list(paths));
        tell!(
            "hint: give .pen files or the folders that hold them (__snapshots__, .git, target, node_modules and hidden folders are not searched)"
        );
        return ExitCode::from(2);
    }
    let bar = progress_bar();
    let load = |file: &PenFile| load(file, &settings.fonts, &settings.options.theme);
    let report = snapshot::run(&files, &settings.options, &load, &|event| match event {
        Progress::File { key, frames } => {
            bar.inc_length(frames as u64);
            bar.set_message(one_line(key).into_owned());
        }
        Progress::Frame => bar.inc(1),
    });
    bar.finish_and_clear();
    print_report(&report);
    let mut code = match report.verdict() {
        Verdict::Passed => ExitCode::SUCCESS,
        Verdict::Failed => ExitCode::from(1),
        Verdict::WriteError => ExitCode::from(2),
    };
    if let Err(error) = write_reports(&report, &settings) {
        super::fail(&error);
        code = ExitCode::from(2);
    }
    code
}

/// Loads, resolves and lays out one file under `theme`, as `nib render` does.
fn load(file: &PenFile, fonts: &FontOptions, theme: &[(String, String)]) -> Result<Prepared, SnapshotError> {
    let document = read_file(&file.path)?.document;
    // No cache, network or system fonts: goldens must come out the same on every machine.
    let host = std::sync::Arc::new(DiskHost::new(&file.path, fonts.clone()));
    let options = CompileOptions { theme: super::theme::choice(theme), ..CompileOptions::default() };
    let compiled = Compiler::shared(host).compile_owned(document, &options).map_err(|error| {
        SnapshotError::Compile { path: file.path.clone(), diagnostic: Box::new(super::located(&file.path, *error)) }
    })?;
    Ok(Prepared::new(compiled))
}

/// A bar on standard error when a person watches it; nothing when it is a pipe or a CI log.
fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} frames {elapsed} {wide_msg}") {
        bar.set_style(style);
    }
    bar
}

/// The problems and changes, one line each, and the counts.
fn print_report(report: &Report) {
    // Names, ids, paths and the messages quoting them are the authors': printed on one line,
    // control characters escaped, so none of them sends a command to the terminal.
    for FileReport { file, error, warnings, frames, obsolete } in &report.files {
        let path = one_line(&file.path.to_string_lossy()).into_owned();
        if let Some(error) = error {
            let error = error.to_string();
            let lines: Vec<String> = error.lines().map(|line| one_line(line).into_owned()).collect();
            say!("ERROR    {path}: {}", lines.join("\n         "));
        }
        for warning in warnings {
            tell!("nib: warning: {path}: {}", one_line(&warning.to_string()));
        }
        for frame in frames {
            let label = if frame.name == frame.id {
                one_line(&frame.id).into_owned()
            } else {
                format!("'{}' ({})", one_line(&frame.name), one_line(&frame.id))
            };
            let golden = one_line(&frame.golden.to_string_lossy()).into_owned();
            match &frame.outcome {
                Outcome::Passed => {}
                Outcome::Created => say!("NEW      {path} {label}: {golden}"),
                Outcome::Updated(mismatch) => say!("UPDATED  {path} {label}: {mismatch}"),
                Outcome::Failed { mismatch, diff, actual } => {
                    say!("FAIL     {path} {label}: {mismatch}");
                    match diff {
                        Some(diff) => say!("         diff {}, actual {}", diff.display(), actual.display()),
                        None => say!("         actual {}", actual.display()),
                    }
                }
                Outcome::Missing { actual } => {
                    say!("MISSING  {path} {label}: no golden {golden}; render in {}", actual.display())
                }
                Outcome::RenderError(error) => say!("ERROR    {path} {label}: {}", one_line(error)),
                Outcome::WriteError(error) => tell!("nib: {path} {label}: {}", one_line(error)),
            }
        }
        for Obsolete { golden, removed } in obsolete {
            match removed {
                Ok(true) => say!("REMOVED  {}: no frame has this id", golden.display()),
                Ok(false) => say!("OBSOLETE {}: no frame has this id (--update removes it)", golden.display()),
                Err(error) => tell!("nib: {error}"),
            }
        }
    }
    let shard = if report.shard.count() > 1 { format!(" (shard {})", report.shard) } else { String::new() };
    say!("nib snapshot{shard}: {} in {:.1} s", report.counts(), report.time.as_secs_f64());
    if report.counts().missing > 0 {
        say!("hint: run nib snapshot without --ci to create the missing goldens, look at them and commit them");
    } else if report.counts().failed > 0 {
        say!(
            "hint: if the changes are intended, run nib snapshot --update to approve them (only the differing goldens are rewritten)"
        );
    }
}

/// The JUnit report and the Markdown summaries asked for.
fn write_reports(report: &Report, settings: &Settings) -> Result<(), Diagnostic> {
    if let Some(path) = &settings.junit {
        write_file(path, snapshot::junit(report).as_bytes())?;
    }
    if let Some(path) = &settings.summary {
        let base = path.parent().unwrap_or(Path::new(""));
        write_file(path, snapshot::markdown(report, Some(base)).as_bytes())?;
    }
    // GitHub Actions shows what a step appends to this file on the run's page.
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        let text = snapshot::markdown(report, None);
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .and_then(|mut file| file.write_all(format!("{text}\n").as_bytes()))
            .map_err(|error| {
                Diagnostic::error("file", format!("cannot append the summary to {}: {error}", path.display()))
            })?;
    }
    Ok(())
}

/// Writes a report; a link in its place is refused (CI runs on files a contributor controls).
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Diagnostic> {
    nib::files::write_unlinked(path, bytes)
        .map_err(|error| Diagnostic::error("file", format!("cannot write {}: {error}", path.display())))
}

fn list(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// Parses `--shard I/N`.
pub fn parse_shard(text: &str) -> Result<Shard, Diagnostic> {
    Shard::parse(text).map_err(|error| super::argument_error(error.to_string()))
}

/// Parses `--frame`: a regular expression.
pub fn parse_regex(text: &str) -> Result<regex::Regex, Diagnostic> {
    regex::Regex::new(text).map_err(|error| super::argument_error(format!("not a regular expression: {error}")))
}

/// Parses `--threshold`: a number from 0 to 1.
pub fn parse_threshold(text: &str) -> Result<f64, Diagnostic> {
    match text.trim().parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(super::argument_error(format!(
            "'{text}' is not a colour distance; use a number from 0 (identical) to 1 (black against white)"
        ))),
    }
}

/// Parses `--max-diff-share`: a share from 0 to 1, or a percentage such as `0.5%`.
pub fn parse_share(text: &str) -> Result<f64, Diagnostic> {
    let trimmed = text.trim();
    let value = match trimmed.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().map(|p| p / 100.0),
        None => trimmed.parse::<f64>(),
    };
    match value {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(super::argument_error(format!(
            "'{text}' is not a share of pixels; use a number from 0 to 1 (0.001) or a percentage (0.1%)"
        ))),
    }
}
