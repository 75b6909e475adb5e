//! `nib apply FILE SCRIPT`: run a batch_design script against a file.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use nib::doc::io::{read_file, save_file};
use nib::layout::LaidOutCanvas;
use nib::script::{Context, Options, run};
use nib::text::{FontBook, FontOptions, TextEngine};
use nib::tools::FileImports;

pub struct Settings {
    pub dry_run: bool,
    pub json: bool,
    pub max_operations: usize,
    pub seed: Option<u64>,
    pub fonts: FontOptions,
}

pub fn run_command(file: &Path, script: &Path, settings: Settings) -> ExitCode {
    let source = match read_script(script) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("nib: cannot read the script {}: {error}", script.display());
            return ExitCode::from(2);
        }
    };
    let mut document = match read_file(file) {
        Ok(loaded) => loaded.document,
        Err(error) => {
            say!("{error}");
            return ExitCode::from(1);
        }
    };
    let folder =
        file.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p }).unwrap_or(Path::new("."));
    let imports = FileImports::load(&document, file);
    for problem in &imports.problems {
        eprintln!("nib: {problem}");
    }
    // A dry run must not leave image files next to the document either.
    let scratch = tempfile::tempdir().ok();
    let image_folder = if settings.dry_run { scratch.as_ref().map(|d| d.path()) } else { Some(folder) };
    // New top-level nodes are placed by their laid-out sizes.
    let canvas = LaidOutCanvas::new(&imports, None, TextEngine::new(FontBook::new(settings.fonts)));
    let images = super::configured_images();
    let context = Context {
        library: &imports,
        images: &images,
        folder: image_folder,
        canvas: Some(&canvas),
        options: Options { max_statements: settings.max_operations, id_seed: settings.seed },
    };
    let outcome = run(&mut document, &source, &context);
    if settings.json {
        say!("{}", serde_json::to_string_pretty(&outcome).unwrap_or_default());
    } else {
        say_part!("{}", outcome.text());
    }
    if !outcome.success {
        return ExitCode::from(1);
    }
    if settings.dry_run {
        eprintln!("nib: dry run: {} not written", file.display());
        return ExitCode::SUCCESS;
    }
    match save_file(&document, file) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("nib: could not save {}: {error}", file.display());
            ExitCode::from(2)
        }
    }
}

fn read_script(path: &Path) -> std::io::Result<String> {
    if path == Path::new("-") {
        let mut source = String::new();
        std::io::stdin().read_to_string(&mut source)?;
        return Ok(source);
    }
    std::fs::read_to_string(path)
}
