//! `nib export FILE --format …`: nodes, frames or the canvas as PNG, JPEG, WebP, SVG, PDF or
//! HTML/CSS, and the document's variables as tokens, written to files.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::compile::{CompileOptions, compile};
use nib::export::job::{ExportSettings, Format, SinkError, Source, Targets, run};
use nib::host::DiskHost;
use nib::text::FontOptions;

/// Runs of more nodes than this show a progress bar (on a terminal).
const PROGRESS_FROM: usize = 8;

pub struct Settings {
    pub format: Format,
    pub output: Option<PathBuf>,
    pub nodes: Vec<String>,
    pub all: bool,
    /// How the files look (the options the export tool and the library share).
    pub look: nib::export::options::ExportLook,
    pub link_images: bool,
    pub background: Option<[u8; 4]>,
    pub fonts: FontOptions,
    /// Compare what would be written with the files there, writing nothing.
    pub check: bool,
}

pub fn run_command(file: &Path, settings: Settings) -> ExitCode {
    // Nodes alone need only their top-level parts (and the components these use) read, resolved
    // and laid out, as for `nib render --node`.
    let parts_of = (!settings.all && !settings.nodes.is_empty()).then(|| settings.nodes.clone());
    let document = match super::read_document(file, parts_of.as_deref()) {
        Ok(document) => document,
        Err(code) => return code,
    };
    let host = DiskHost::new(file, settings.fonts.clone());
    let compiled = match compile(&host, &document, &CompileOptions { parts_of }) {
        Ok(compiled) => compiled,
        Err(error) => {
            eprintln!("nib: {}", super::diagnostic_text(file, *error));
            return ExitCode::from(1);
        }
    };
    for diagnostic in &compiled.diagnostics {
        super::warn(&diagnostic);
    }
    let (scene, layout, text) = (&compiled.scene, &compiled.layout, &compiled.text);
    let stem = file.file_stem().map_or_else(|| "canvas".into(), |s| s.to_string_lossy().into_owned());
    let mut keys = Vec::new();
    for id in &settings.nodes {
        match super::find_node(file, scene, id) {
            Ok(key) => keys.push(key),
            Err(failed) => return failed,
        }
    }
    let format = settings.format;
    let targets = if settings.all {
        Targets::Frames
    } else if keys.is_empty() {
        Targets::Canvas
    } else {
        Targets::Nodes(keys)
    };
    // One file, or a folder of files: HTML and several nodes or frames fill a folder.
    let several = match &targets {
        Targets::Frames => true,
        Targets::Nodes(keys) => keys.len() > 1,
        Targets::Canvas => format.is_page(),
    };
    // `-o dir/` (or an existing folder) for a one-file export puts the file in it, named as
    // without -o.
    let named_folder = settings.output.as_ref().is_some_and(|o| o.is_dir() || o.to_string_lossy().ends_with('/'));
    let into_folder = format.is_page() || (several && !format.single_file()) || named_folder;
    if into_folder
        && let Some(named) = &settings.output
        && let Err(error) = format.one_file_for_many(named, files_written(&targets), named.is_dir())
    {
        eprintln!("nib: {error}\n  hint: give a folder with -o (frames/), or export one node");
        return ExitCode::from(2);
    }
    let output = settings.output.clone().unwrap_or_else(|| {
        if into_folder { PathBuf::from(format!("{stem}-{}", format.name())) } else { PathBuf::new() }
    });
    // Checked before anything is rendered: a file named with -o must be of the format, and no
    // output ever replaces a document.
    let guard = nib::files::OutputGuard::new([file]);
    if !output.as_os_str().is_empty()
        && let Err(error) = guard.check(&output, (!into_folder).then(|| format.extensions()))
    {
        eprintln!("nib: {error}");
        return ExitCode::from(2);
    }
    if into_folder
        && !settings.check
        && let Err(error) = std::fs::create_dir_all(&output)
    {
        eprintln!("nib: cannot create {}: {error}", output.display());
        return ExitCode::from(2);
    }
    let output_folder = if into_folder {
        output.clone()
    } else {
        output.parent().filter(|p| !p.as_os_str().is_empty()).map_or_else(|| PathBuf::from("."), Path::to_owned)
    };
    let export_settings = ExportSettings {
        format,
        targets,
        look: settings.look,
        link_images: settings.link_images,
        background: settings.background,
        output_folder: Some(output_folder),
        // The command line's paths (the document's, -o) are relative to where it runs.
        working_folder: std::env::current_dir().unwrap_or_default(),
    };
    let source = Source {
        document: &document,
        library: compiled.imports.as_ref(),
        scene,
        layout,
        text,
        host: &host,
        title: stem.clone(),
    };
    let bar = indicatif::ProgressBar::hidden();
    if std::io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} exported ({elapsed})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
    }
    // With --check: the files that are not as the export would write them.
    let differing = std::sync::Mutex::new(Vec::new());
    let sink = |name: &str, bytes: &[u8]| -> Result<(), SinkError> {
        let path = if into_folder || output.as_os_str().is_empty() {
            let base = if into_folder { output.clone() } else { PathBuf::from(".") };
            base.join(name)
        } else {
            output.clone()
        };
        guard.check(&path, None)?;
        if settings.check {
            let there = nib::files::read_regular(&path, nib::doc::MAX_FILE_BYTES as u64);
            let said = match there {
                Ok(there) if there == bytes => return Ok(()),
                Ok(_) => format!("{}: differs from what the export writes", path.display()),
                Err(_) => format!("{}: missing", path.display()),
            };
            differing.lock().unwrap_or_else(|e| e.into_inner()).push(said);
            return Ok(());
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        Ok(nib::files::write_output(&path, bytes, None)?)
    };
    let progress = |done: usize, total: usize| {
        if total >= PROGRESS_FROM {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    };
    let result = run(&source, &export_settings, &sink, &progress);
    bar.finish_and_clear();
    match result {
        Ok(report) => {
            for warning in &report.warnings {
                super::warn(&warning);
            }
            if settings.check {
                let written: std::collections::HashSet<&str> = report.files.iter().map(|f| f.name.as_str()).collect();
                let mut differing = differing.into_inner().unwrap_or_else(|e| e.into_inner());
                if into_folder {
                    differing.extend(
                        stale_files(&output, &written).into_iter().map(|p| format!("{p}: not written by the export")),
                    );
                }
                differing.sort();
                for line in &differing {
                    say!("{line}");
                }
                return if differing.is_empty() {
                    say!("{} files are as the export writes them", report.files.len());
                    ExitCode::SUCCESS
                } else {
                    eprintln!(
                        "nib: {} of the export's files differ; run the same command without --check to write them",
                        differing.len()
                    );
                    ExitCode::from(1)
                };
            }
            for written in &report.files {
                let path = if into_folder {
                    output.join(&written.name)
                } else if output.as_os_str().is_empty() {
                    PathBuf::from(&written.name)
                } else {
                    output.clone()
                };
                say!("{} ({} bytes)", path.display(), written.bytes);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("nib: {error}");
            // A file the export could not write is 2; what it could not make of the design, 1.
            match error {
                nib::export::job::RunError::Write { .. } => ExitCode::from(2),
                nib::export::job::RunError::Export(_) => ExitCode::from(1),
            }
        }
    }
}

/// The files in `folder` (below it, leaving out `node_modules`, hidden entries and Tailwind's
/// compiled `styles.css`) that are not among `written` (names relative to it): what a
/// `--check` of a folder says would be left over.
fn stale_files(folder: &Path, written: &std::collections::HashSet<&str>) -> Vec<String> {
    let mut stale = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(relative) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(folder.join(&relative)) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            let path = relative.join(&name);
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                stack.push(path);
                continue;
            }
            let shown = path.to_string_lossy().replace('\\', "/");
            if !written.contains(shown.as_str()) && shown != nib::export::job::COMPILED_CSS {
                stale.push(folder.join(path).display().to_string());
            }
        }
    }
    stale
}

/// How many files an export of `targets` writes, as far as it matters for naming the output:
/// several for frames and for more than one node.
fn files_written(targets: &Targets) -> usize {
    match targets {
        Targets::Frames => 2,
        Targets::Nodes(keys) => keys.len(),
        Targets::Canvas => 1,
    }
}
