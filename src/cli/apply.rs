//! `nib apply FILE SCRIPT`: run a batch_design script against a file.

use std::path::Path;
use std::process::ExitCode;

use nib::doc::io::save_file;
use nib::files::{LimitedRead, read_limited};
use nib::layout::LaidOutCanvas;
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
    let source = match read_script(script) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("nib: cannot read the script {}: {error}", script.display());
            return ExitCode::from(2);
        }
    };
    let (mut document, imports, host) = match super::read_with_imports(file, &settings.fonts) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let folder =
        file.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p }).unwrap_or(Path::new("."));
    // A dry run must not leave image files next to the document either.
    let scratch = tempfile::tempdir().ok();
    let image_folder = if settings.dry_run { scratch.as_ref().map(|d| d.path()) } else { Some(folder) };
    // New top-level nodes are placed by their laid-out sizes.
    let (engine, font_diagnostics) = nib::host::Host::text(&host, &document);
    for diagnostic in &font_diagnostics {
        eprintln!("nib: warning: {diagnostic}");
    }
    let canvas = LaidOutCanvas::new(&imports, None, engine);
    let images = super::configured_images();
    let context = Context {
        library: &imports,
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
            eprint!("{}", outcome.text());
        }
        return ExitCode::from(1);
    }
    // Success is said only once it is true: after the file is saved.
    if settings.dry_run {
        eprintln!("nib: dry run: {} not written", file.display());
    } else if let Err(error) = save_file(&document, file) {
        outcome.discard_created_files();
        eprintln!("nib: the operations ran but could not be saved, so nothing changed: {error}");
        return ExitCode::from(2);
    }
    if settings.json {
        say!("{}", serde_json::to_string_pretty(&outcome).unwrap_or_default());
    } else {
        say_part!("{}", outcome.text());
    }
    ExitCode::SUCCESS
}

/// The script from a file, a pipe (`<(…)`) or standard input (`-`), refused as soon as it
/// passes the size batch_design accepts, so an endless stream cannot fill memory.
fn read_script(path: &Path) -> std::io::Result<String> {
    // One byte more than the parser takes, so it reports the size itself.
    let limit = nib::script::MAX_SCRIPT_BYTES as u64 + 1;
    let bytes = if path == Path::new("-") {
        read_limited(std::io::stdin().lock(), limit, 0)
    } else {
        let file = std::fs::File::open(path)?;
        if file.metadata()?.is_dir() {
            return Err(std::io::Error::other("it is a folder"));
        }
        read_limited(file, limit, 0)
    };
    let bytes = bytes.map_err(|e| match e {
        LimitedRead::Io(error) => error,
        LimitedRead::TooLarge => std::io::Error::other(format!(
            "it is larger than {} bytes, the most a script may have; split the work into several scripts",
            nib::script::MAX_SCRIPT_BYTES
        )),
    })?;
    String::from_utf8(bytes).map_err(|_| std::io::Error::other("it is not UTF-8 text"))
}
