//! `nib export FILE --format …`: nodes, frames or the canvas as PNG, JPEG, WebP, SVG, PDF or
//! HTML/CSS, and the document's variables as tokens, written to files.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::compile::CompileOptions;
use nib::compile::frames::node_file_stems;
use nib::export::job::{APP_ENTRY, APP_ENTRY_LIMIT, ExportSettings, Format, RunError, SinkError, Targets, run};
use nib::files::{OutputFolder, Standing};
use nib::host::DiskHost;
use nib::render::RenderTarget;
use nib::text::FontOptions;

/// The examples `nib export --help` ends with.
pub const EXAMPLES: &str = "Examples:
  nib export app.pen --format svg --node hero -o hero.svg
  nib export app.pen --format png --all --scale 2 -o frames/
  nib export app.pen --format pdf --all -o deck.pdf
  nib export app.pen --format html -o site/
  nib export app.pen --format html-tailwind -o web/   (then: npx @tailwindcss/cli -i web/tailwind.css -o web/styles.css)
  nib export app.pen --format react -o src/design/
  nib export app.pen --format react -o src/design/ --check   (exit 1 when the folder is not what it would write)
  nib export app.pen --format tokens-css -o tokens.css
  nib export app.pen --format png --all --theme Mode=Dark -o dark/   (every frame as its dark instance)";

/// `nib export`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The .pen file.
    file: PathBuf,
    /// png, jpeg, webp, svg, pdf, html, html-tailwind, react, tokens-css, tokens-json or tailwind.
    #[arg(long, short, value_parser = nib::export::job::Format::parse)]
    format: nib::export::job::Format,
    /// Where to write: a file, or a folder for HTML, --all and several --node.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Export this node (id or instance path); repeat for several.
    #[arg(long = "node")]
    nodes: Vec<String>,
    /// Export every top-level frame (PDF: one page each).
    #[arg(long, conflicts_with = "nodes")]
    all: bool,
    #[command(flatten)]
    look: nib::export::options::ExportLook,
    /// SVG image fills: embed (data: URIs) or link (paths relative to the SVG).
    #[arg(long, value_enum, default_value_t = ImagesArg::Embed)]
    images: ImagesArg,
    /// Write nothing: compare the files there with what the export would write, list what
    /// differs, is missing or is left over, and exit 1 when anything does (for CI).
    #[arg(long)]
    check: bool,
    /// Fill behind the design, e.g. "#FFFFFF" (transparent by default; JPEG uses white).
    #[arg(long, value_parser = nib::render::parse_background)]
    background: Option<[u8; 4]>,
    /// Draw under a theme: AXIS=VALUE (Mode=Dark; c:Mode=Dark for an axis of the import c),
    /// repeat for several axes. Every top-level frame selects it, as a themed instance of
    /// the frame would; `nib check` lists the themes a file defines.
    #[arg(long = "theme", value_name = "AXIS=VALUE", value_parser = super::theme::parse_theme)]
    theme: Vec<(String, String)>,
}

impl ExportArgs {
    /// Exports what was asked for with `fonts`.
    pub fn run(self, fonts: FontOptions) -> ExitCode {
        let ExportArgs { file, format, output, nodes, all, look, images, check, background, theme } = self;
        let link_images = images == ImagesArg::Link;
        run_command(&file, Settings { format, output, nodes, all, look, link_images, background, fonts, check, theme })
    }
}

/// How `nib export` writes SVG image fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ImagesArg {
    /// Inside the SVG as data: URIs.
    Embed,
    /// Links to the image files.
    Link,
}

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
    /// The theme to draw under (`--theme AXIS=VALUE`), empty for the document's own look.
    pub theme: Vec<(String, String)>,
}

pub fn run_command(file: &Path, settings: Settings) -> ExitCode {
    // Nodes alone need only their top-level parts (and the components these use) read, resolved
    // and laid out, as for `nib render --node`.
    let parts_of = (!settings.all && !settings.nodes.is_empty()).then(|| settings.nodes.clone());
    let document = match super::documents::read_document(file, parts_of.as_deref()) {
        Ok(document) => document,
        Err(code) => return code,
    };
    let host = DiskHost::new(file, settings.fonts.clone());
    let options = CompileOptions {
        parts_of,
        theme: super::theme::choice(&settings.theme),
        keep_variables: settings.format.is_page(),
    };
    let mut compiled = match nib::compile::compile(&host, &document, &options) {
        Ok(compiled) => compiled,
        Err(error) => return super::compile_failed(file, *error),
    };
    for diagnostic in &compiled.diagnostics(RenderTarget::Canvas) {
        super::warn(&diagnostic);
    }
    let scene = &compiled.scene;
    let stem = file.file_stem().map_or_else(|| "canvas".into(), |s| s.to_string_lossy().into_owned());
    let mut keys = Vec::new();
    for id in &settings.nodes {
        match super::find_node(file, scene, id) {
            Ok(key) => keys.push(key),
            Err(failed) => return failed,
        }
    }
    let format = settings.format;
    // Before anything is drawn: two nodes must not be written to one file (a PDF holds them as
    // pages of one).
    if !format.single_file()
        && keys.len() > 1
        && let Err(clash) = node_file_stems(settings.nodes.iter().map(String::as_str), format.extension())
    {
        tell!("nib: {clash}");
        return ExitCode::from(2);
    }
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
        tell!("nib: {error}\n  hint: give a folder with -o (frames/), or export one node");
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
        tell!("nib: {error}");
        return ExitCode::from(2);
    }
    let output_folder = if into_folder {
        output.clone()
    } else {
        output.parent().filter(|p| !p.as_os_str().is_empty()).map_or_else(|| PathBuf::from("."), Path::to_owned)
    };
    // The folder every file goes into, opened once: no file is written through a link or over
    // a special file. A folder of the export's own is looked through before anything is drawn.
    let named_file = (!into_folder && !output.as_os_str().is_empty())
        .then(|| output.file_name().map(|n| n.to_string_lossy().into_owned()))
        .flatten();
    // A React export writes its app's files (package.json, index.html, main.tsx…) into a folder
    // of its own (ExportLook::scaffold_in).
    let mut look = settings.look;
    if format == Format::React {
        let (has_files, main) = nib::files::glance_into(&output_folder, APP_ENTRY, APP_ENTRY_LIMIT);
        look.scaffold_in(has_files, main.as_deref());
    }
    let opened = if settings.check {
        OutputFolder::existing(&output_folder, None)
    } else if into_folder {
        OutputFolder::prepare(&output_folder, None, &guard).map(Some)
    } else {
        OutputFolder::open(&output_folder, None, &guard)
            .and_then(|folder| named_file.as_deref().map_or(Ok(()), |n| folder.refuse_in_the_way(n)).map(|()| folder))
            .map(Some)
    };
    let folder = match opened {
        Ok(folder) => folder,
        Err(error) => {
            tell!("nib: {error}");
            return ExitCode::from(2);
        }
    };
    let export_settings = ExportSettings {
        format,
        targets,
        look,
        link_images: settings.link_images,
        background: settings.background,
        output_folder: Some(output_folder.clone()),
        // The command line's paths (the document's, -o) are relative to where it runs.
        working_folder: std::env::current_dir().unwrap_or_default(),
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
        // The name inside the output folder: the export's own, or the file named with -o.
        let relative = named_file.as_deref().unwrap_or(name);
        let path = output_folder.join(relative);
        if settings.check {
            let standing = folder.as_ref().map_or(Standing::Missing, |folder| folder.compare(relative, bytes));
            let said = match standing {
                Standing::Same => return Ok(()),
                Standing::Differs => format!("{}: differs from what the export writes", path.display()),
                Standing::Missing => format!("{}: missing", path.display()),
                Standing::InTheWay { path: there, kind } if there == path => {
                    format!("{}: {kind} stands where the export writes a file", path.display())
                }
                Standing::InTheWay { path: there, kind } => {
                    format!(
                        "{}: {} on the way is {kind}, which the export does not write through",
                        path.display(),
                        there.display()
                    )
                }
                Standing::Unreadable(error) => format!("{}: cannot be read: {error}", path.display()),
            };
            differing.lock().unwrap_or_else(|e| e.into_inner()).push(said);
            return Ok(());
        }
        let folder = folder.as_ref().ok_or("the output folder is not open")?;
        Ok(folder.write(relative, bytes)?)
    };
    let progress = |done: usize, total: usize| {
        if total >= PROGRESS_FROM {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    };
    let result = run(&compiled, &stem, &export_settings, &sink, &progress);
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
                    tell!(
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
            tell!("nib: {error}");
            // A file the export could not write (or two it would write to one) is 2; what it
            // could not make of the design, 1.
            match error {
                RunError::Write { .. } | RunError::NameClash(_) | RunError::SameFile { .. } => ExitCode::from(2),
                RunError::Export(_) => ExitCode::from(1),
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
                let what = if kind.is_symlink() { " (a symbolic link)" } else { "" };
                stale.push(format!("{}{what}", folder.join(path).display()));
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
