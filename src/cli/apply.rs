//! `nib apply FILE SCRIPT`: run a batch_design script against a file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::doc::io::{read_document_bytes, read_file, save_file_by};
use nib::script::{Context, Options, run};
use nib::text::FontOptions;
use nib::tools::introduced::{self, KnownProblems};

/// `nib apply`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// The .pen file.
    file: PathBuf,
    /// The script file, or - to read it from standard input.
    script: PathBuf,
    /// Run and answer, but write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the structured answer as JSON instead of Pencil's text.
    #[arg(long)]
    json: bool,
    /// Most operations allowed in the script.
    #[arg(long, default_value_t = nib::script::DEFAULT_MAX_STATEMENTS)]
    max_operations: usize,
    /// Generate new node ids from this number, so the same script on the same file gives the
    /// same ids every time (scripted builds, tests). By default ids are random.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    writer: super::WriterArgs,
    /// Run only if the file is at this revision (its fileRevision, as `nib check --json`,
    /// `nib apply --json` and the tools give it); otherwise exit 1 and change nothing.
    #[arg(long, value_name = "REV")]
    if_revision: Option<String>,
}

impl ApplyArgs {
    /// Runs the script against the file, text measured with `fonts`.
    pub fn run(self, fonts: FontOptions) -> ExitCode {
        let ApplyArgs { file, script, dry_run, json, max_operations, seed, writer, if_revision } = self;
        let writer = writer.caller("nib apply").writer;
        let settings = Settings { dry_run, json, max_operations, seed, fonts, writer, if_revision };
        run_command(&file, &script, settings)
    }
}

pub struct Settings {
    pub dry_run: bool,
    pub json: bool,
    pub max_operations: usize,
    pub seed: Option<u64>,
    pub fonts: FontOptions,
    /// The name the saved file carries (`--as`).
    pub writer: nib::files::Writer,
    /// The file's revision the script was written against (`--if-revision`).
    pub if_revision: Option<String>,
}

pub fn run_command(file: &Path, script: &Path, settings: Settings) -> ExitCode {
    let source = match super::documents::read_script_text(script, nib::script::MAX_SCRIPT_BYTES, "script") {
        Ok(source) => source,
        Err(error) => {
            super::fail(&error);
            return ExitCode::from(2);
        }
    };
    // Read, changed and saved under the document's lock (a dry run writes nothing).
    let _lock = match (!settings.dry_run).then(|| super::documents::lock_document(file)).transpose() {
        Ok(lock) => lock,
        Err(code) => return code,
    };
    let (mut document, mut compiler) = match super::documents::read_with_imports(file, &settings.fonts) {
        Ok(read) => read,
        Err(code) => return code,
    };
    if let Some(expected) = &settings.if_revision
        && let Err(refusal) = expect_revision(file, expected)
    {
        super::fail(&refusal);
        return ExitCode::from(1);
    }
    let folder =
        file.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p }).unwrap_or(Path::new("."));
    // A dry run must not leave image files next to the document either: they go to a
    // scratch folder, made for a dry run only (every run made one, and a killed run left it).
    let scratch = settings.dry_run.then(|| tempfile::tempdir().ok()).flatten();
    let image_folder = if settings.dry_run { scratch.as_ref().map(|d| d.path()) } else { Some(folder) };
    // New top-level nodes are placed by their laid-out sizes.
    for diagnostic in compiler.font_diagnostics(&document) {
        super::warn(&diagnostic);
    }
    // The layout problems before the script, to say the ones it adds.
    let problems_before = KnownProblems::take(&mut compiler, &document);
    let imports = compiler.imports(&document);
    let canvas = compiler.canvas(&document);
    let images = super::configured_images();
    let context = Context {
        library: imports.as_ref(),
        images: &images,
        folder: image_folder,
        confinement: None,
        canvas: Some(&canvas),
        options: Options { max_statements: settings.max_operations, id_seed: settings.seed },
    };
    let mut outcome = run(&mut document, &source, &context);
    drop(canvas);
    if !outcome.success {
        // The answer of a failed script is an error: standard error, unless JSON was asked for.
        if settings.json {
            say!("{}", serde_json::to_string_pretty(&outcome).unwrap_or_default());
        } else {
            super::write_err(format_args!("{}", outcome.text()));
        }
        return ExitCode::from(1);
    }
    if let Some(refusal) = super::documents::past_limits_refusal(&document, compiler.host(), || {
        read_file(file).ok().map(|read| read.document)
    }) {
        outcome.discard_created_files();
        tell!("nib: the operations ran but were not saved, so nothing changed: {refusal}");
        return ExitCode::from(1);
    }
    let added = match (&problems_before, KnownProblems::take(&mut compiler, &document)) {
        (Some(before), Some(after)) => before.added_in(&after),
        _ => Vec::new(),
    };
    let said = introduced::said(&added, &outcome.issues);
    outcome.issues.extend(said);
    // Success is said only once it is true: after the file is saved.
    let mut revision = None;
    if settings.dry_run {
        tell!("nib: dry run: {} not written", file.display());
    } else {
        match save_file_by(&document, file, Some(&settings.writer)) {
            Ok(saved) => revision = Some(saved),
            Err(error) => {
                outcome.discard_created_files();
                tell!(
                    "nib: the operations ran but could not be saved, so nothing changed: {}",
                    super::documents::save_error_text(&error)
                );
                return ExitCode::from(super::documents::save_failure_code(&error));
            }
        }
    }
    if settings.json {
        let mut answer = serde_json::to_value(&outcome).unwrap_or_default();
        if let (Some(revision), Some(map)) = (revision, answer.as_object_mut()) {
            map.insert("fileRevision".into(), revision.to_string().into());
        }
        say!("{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
    } else {
        say_part!("{}", outcome.text());
        if let Some(revision) = revision {
            tell!("nib: saved {} at revision {revision}", file.display());
        }
    }
    ExitCode::SUCCESS
}

/// Refuses the run when the file is not at `expected` (read under the lock the run holds, so
/// it cannot move on before the save).
fn expect_revision(file: &Path, expected: &str) -> Result<(), nib::diagnostic::Diagnostic> {
    use nib::diagnostic::Diagnostic;
    let now = read_document_bytes(file)
        .map(|bytes| nib::files::Revision::of(&bytes))
        .map_err(|e| Diagnostic::error("file", e.to_string()))?;
    match nib::files::Revision::parse(expected) {
        None => Err(Diagnostic::error(
            "revision",
            format!(
                "--if-revision {expected} is not a revision: a revision is {} hexadecimal digits, as fileRevision gives them ({} is at {now}); nothing was changed",
                nib::files::REVISION_DIGITS,
                file.display()
            ),
        )),
        Some(wanted) if wanted != now => Err(Diagnostic::error(
            "revision",
            format!(
                "{} is at revision {now}, not {wanted} (--if-revision): it changed since that version was read; nothing was changed",
                file.display()
            ),
        )
        .with_hint("read it again, redo the change on what it holds now, and pass the new revision")),
        Some(_) => Ok(()),
    }
}
