//! `nib apply FILE SCRIPT`: run a batch_design script against a file.

use std::path::Path;
use std::process::ExitCode;

use nib::doc::io::{read_file, save_file};
use nib::script::{Context, Options, run};
use nib::text::FontOptions;

pub struct Settings {
    pub dry_run: bool,
    pub json: bool,
    pub max_operations: usize,
    pub seed: Option<u64>,
    pub fonts: FontOptions,
}

pub fn run_command(file: &Path, script: &Path, settings: Settings) -> ExitCode {
    let source = match super::read_script_text(script, nib::script::MAX_SCRIPT_BYTES, "script") {
        Ok(source) => source,
        Err(error) => {
            tell!("nib: {error}");
            return ExitCode::from(2);
        }
    };
    // Read, changed and saved under the document's lock (a dry run writes nothing).
    let _lock = match (!settings.dry_run).then(|| super::lock_document(file)).transpose() {
        Ok(lock) => lock,
        Err(code) => return code,
    };
    let (mut document, mut compiler) = match super::read_with_imports(file, &settings.fonts) {
        Ok(read) => read,
        Err(code) => return code,
    };
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
    if !outcome.success {
        // The answer of a failed script is an error: standard error, unless JSON was asked for.
        if settings.json {
            say!("{}", serde_json::to_string_pretty(&outcome).unwrap_or_default());
        } else {
            super::write_err(format_args!("{}", outcome.text()));
        }
        return ExitCode::from(1);
    }
    if let Some(refusal) =
        super::past_limits_refusal(&document, compiler.host(), || read_file(file).ok().map(|read| read.document))
    {
        outcome.discard_created_files();
        tell!("nib: the operations ran but were not saved, so nothing changed: {refusal}");
        return ExitCode::from(1);
    }
    // Success is said only once it is true: after the file is saved.
    if settings.dry_run {
        tell!("nib: dry run: {} not written", file.display());
    } else if let Err(error) = save_file(&document, file) {
        outcome.discard_created_files();
        tell!("nib: the operations ran but could not be saved, so nothing changed: {}", super::save_error_text(&error));
        return ExitCode::from(super::save_failure_code(&error));
    }
    if settings.json {
        say!("{}", serde_json::to_string_pretty(&outcome).unwrap_or_default());
    } else {
        say_part!("{}", outcome.text());
    }
    ExitCode::SUCCESS
}
