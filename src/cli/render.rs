//! `nib render FILE`: the canvas, one or more nodes, or every top-level frame to PNG.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use nib::compile::frames::{node_file_stems, safe_name};
use nib::compile::{CompileOptions, Compiled};
use nib::files::OutputFolder;
use nib::host::DiskHost;
use nib::render::{RenderOptions, RenderTarget, Rendered, Timings, encode_painted, encode_rendered};
use nib::resolve::SceneKey;
use nib::text::FontOptions;

/// `nib render`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// The .pen file.
    file: PathBuf,
    /// Where to write: a .png file, or a folder for --all and several --node.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Render this node (id or instance path); repeat for several.
    #[arg(long = "node")]
    nodes: Vec<String>,
    /// Render every top-level frame as its own PNG, in parallel.
    #[arg(long, conflicts_with = "nodes")]
    all: bool,
    #[command(flatten)]
    picture: nib::render::RenderOptions,
    /// Print what was written, the warnings and the font files used as JSON (so CI can pin
    /// the fonts).
    #[arg(long)]
    json: bool,
    /// Draw under a theme: AXIS=VALUE (Mode=Dark; c:Mode=Dark for an axis of the import c),
    /// repeat for several axes. Every top-level frame selects it, as a themed instance of
    /// the frame would; `nib check` lists the themes a file defines.
    #[arg(long = "theme", value_name = "AXIS=VALUE", value_parser = super::theme::parse_theme)]
    theme: Vec<(String, String)>,
    /// Say where the time went, stage by stage (read, resolve, text, layout, display list,
    /// paint by content kind, PNG encode): a table on stderr, or a "timings" object in the
    /// --json report. One picture at a time: not with --all.
    #[arg(long, conflicts_with = "all")]
    timings: bool,
}

impl RenderArgs {
    /// Renders what was asked for with `fonts`.
    pub fn run(self, fonts: FontOptions) -> ExitCode {
        let RenderArgs { file, output, nodes, all, picture, json, theme, timings } = self;
        run(&file, Settings { output, nodes, all, picture, json, fonts, theme, timings })
    }
}

pub struct Settings {
    pub output: Option<PathBuf>,
    pub nodes: Vec<String>,
    pub all: bool,
    /// Scale, background, missing-image marks.
    pub picture: RenderOptions,
    pub json: bool,
    pub fonts: FontOptions,
    /// The theme to draw under (`--theme AXIS=VALUE`), empty for the document's own look.
    pub theme: Vec<(String, String)>,
    /// Say where each picture's time went (`--timings`).
    pub timings: bool,
}

/// What `nib render --json` prints.
#[derive(Default, serde::Serialize)]
struct JsonReport {
    /// The PNG files written, with their sizes.
    written: Vec<Written>,
    /// Everything that was not drawn as written, font substitutions included.
    warnings: Vec<nib::diagnostic::Diagnostic>,
    /// The families the document asks for and how each resolves.
    families: Vec<nib::layout::fonts::FamilyUse>,
    /// The font files the text was shaped with.
    fonts: Vec<nib::text::UsedFont>,
    /// With --timings: where each picture's time went.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    timings: Vec<PictureTimings>,
}

/// One picture's stages in milliseconds, as `--timings --json` prints them. The stages shared
/// by every picture of a run (reading, resolving, text, layout) are counted in the first.
#[derive(serde::Serialize)]
struct PictureTimings {
    file: PathBuf,
    /// Every stage, by name (`paint.text`, `paint.blur`, … for the paint's kinds).
    stages: std::collections::BTreeMap<&'static str, f64>,
    /// The paint's kinds together.
    paint: f64,
    /// From the run's start (or the previous picture written) to this one written.
    total: f64,
}

impl PictureTimings {
    fn of(file: &Path, timings: &Timings) -> PictureTimings {
        PictureTimings {
            file: file.to_owned(),
            stages: timings.stages().into_iter().collect(),
            paint: timings.paint.total.as_secs_f64() * 1000.0,
            total: timings.total.as_secs_f64() * 1000.0,
        }
    }

    /// The readable table `--timings` prints on stderr.
    fn table(&self) -> String {
        let mut lines = vec![format!("timings for {}:", self.file.display())];
        let ordered = Timings::default().stages();
        for (name, _) in ordered {
            let ms = self.stages.get(name).copied().unwrap_or_default();
            if name == "paint.text" {
                lines.push(format!("  {:<16}{:>9.2} ms", "paint", self.paint));
            }
            match name.strip_prefix("paint.") {
                Some(kind) => lines.push(format!("    {kind:<14}{ms:>9.2} ms")),
                None => lines.push(format!("  {name:<16}{ms:>9.2} ms")),
            }
        }
        lines.push(format!("  {:<16}{:>9.2} ms", "total", self.total));
        lines.join("\n")
    }
}

/// What `--timings` keeps while pictures are drawn.
struct Clock {
    /// The stages spent before the next picture and counted in it.
    pending: Timings,
    /// Since when the next picture's total runs.
    since: std::time::Instant,
    done: Vec<PictureTimings>,
}

#[derive(serde::Serialize)]
struct Written {
    file: PathBuf,
    width: u32,
    height: u32,
}

/// Where results and warnings go: lines on stdout and stderr, or one JSON report at the end.
struct Output {
    json: Option<std::cell::RefCell<JsonReport>>,
    clock: Option<std::cell::RefCell<Clock>>,
}

impl Output {
    fn written(&self, file: &Path, width: u32, height: u32) {
        match &self.json {
            Some(report) => report.borrow_mut().written.push(Written { file: file.to_owned(), width, height }),
            None => say!("{} ({width} × {height})", file.display()),
        }
    }

    fn warning(&self, warning: &nib::diagnostic::Diagnostic) {
        match &self.json {
            Some(report) => report.borrow_mut().warnings.push(warning.clone()),
            None => super::warn(warning),
        }
    }
}

pub fn run(file: &Path, settings: Settings) -> ExitCode {
    let started = std::time::Instant::now();
    // Nodes alone need only their top-level parts (and the components these use) read, not the
    // whole file; the JSON report lists the families of the whole document, so it reads all.
    let parts_of = (!settings.all && !settings.nodes.is_empty()).then(|| settings.nodes.clone());
    let excerpt = parts_of.as_deref().filter(|_| !settings.json);
    let document = match super::documents::read_document(file, excerpt) {
        Ok(document) => document,
        Err(code) => return code,
    };
    let mut timings = Timings { read: started.elapsed(), ..Timings::default() };
    if settings.timings {
        nib::render::timings::start_compile_clock();
    }
    let host = DiskHost::new(file, settings.fonts.clone());
    // Nor resolved and laid out.
    let options = CompileOptions { parts_of, theme: super::theme::choice(&settings.theme), keep_variables: false };
    let mut compiled = match nib::compile::compile(&host, &document, &options) {
        Ok(compiled) => compiled,
        Err(error) => return super::compile_failed(file, *error),
    };
    let diagnostics = compiled.diagnostics(RenderTarget::Canvas);
    // The compile clock ran only when asked for; otherwise this adds nothing.
    timings.add_compile();
    let clock = settings.timings.then(|| Clock { pending: timings, since: started, done: Vec::new() });
    let output = Output { json: settings.json.then(Default::default), clock: clock.map(std::cell::RefCell::new) };
    // Everything not drawn as written is said: imports and font files that could not be read,
    // replaced families, and what stands in for what nib cannot draw.
    for diagnostic in &diagnostics {
        output.warning(diagnostic);
    }
    let families = compiled.families_used(None);
    let code = render_targets(&host, &settings, &mut compiled, &output);
    let timed = output.clock.map(|clock| clock.into_inner().done).unwrap_or_default();
    if let Some(report) = output.json {
        let mut report = report.into_inner();
        report.families = families;
        report.fonts = compiled.text.fonts_used();
        report.timings = timed;
        say!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        for picture in &timed {
            tell!("{}", picture.table());
        }
    }
    code
}

/// Renders what the settings ask for; the exit code.
fn render_targets(host: &DiskHost, settings: &Settings, compiled: &mut Compiled, output: &Output) -> ExitCode {
    let file = host.file();
    let options = settings.picture.clone();
    let stem = file.file_stem().map_or_else(|| "canvas".into(), |s| s.to_string_lossy().into_owned());
    let guard = nib::files::OutputGuard::new([file]);
    // A file named with -o (one picture) is checked before anything is drawn.
    if let Some(named) = settings.output.as_deref().filter(|_| !settings.all && settings.nodes.len() <= 1)
        && let Err(error) = guard.check(named, Some(&["png"]))
    {
        tell!("nib: {error}");
        return ExitCode::from(2);
    }
    let job = Job { options: &options, output };
    if settings.all {
        let out = settings.output.clone().unwrap_or_else(|| PathBuf::from(format!("{stem}-frames")));
        return match OutputFolder::prepare(&out, None, &guard) {
            Ok(folder) => job.all_frames(compiled, &folder),
            Err(error) => refused(&error),
        };
    }
    let mut keys = Vec::new();
    for id in &settings.nodes {
        match super::find_node(file, &compiled.scene, id) {
            Ok(key) => keys.push(key),
            Err(failed) => return failed,
        }
    }
    // Before anything is drawn: two nodes must not be written to one file.
    let stems = match node_file_stems(settings.nodes.iter().map(String::as_str), "png") {
        Ok(stems) => stems,
        Err(clash) => {
            tell!("nib: {clash}");
            return ExitCode::from(2);
        }
    };
    let targets: Vec<(SceneKey, String)> = keys.into_iter().zip(stems).collect();
    if targets.len() <= 1 {
        let (target, out) = match targets.first() {
            None => (RenderTarget::Canvas, PathBuf::from(format!("{stem}.png"))),
            Some((key, _)) => {
                let id = safe_name(&compiled.scene.node(*key).id);
                (RenderTarget::Node(*key), PathBuf::from(format!("{stem}-{id}.png")))
            }
        };
        let out = settings.output.clone().unwrap_or(out);
        let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        // The file is named in a folder that may hold anything else: only the file itself (and
        // the folders on the way to it) must not be a link or a special file.
        let opened = OutputFolder::open(parent, None, &guard)
            .and_then(|folder| folder.refuse_in_the_way(&name).map(|()| folder));
        return match opened {
            Ok(folder) => job.one(compiled, target, &folder, &name),
            Err(error) => refused(&error),
        };
    }
    let out = settings.output.clone().unwrap_or_else(|| PathBuf::from(format!("{stem}-nodes")));
    let folder = match OutputFolder::prepare(&out, None, &guard) {
        Ok(folder) => folder,
        Err(error) => return refused(&error),
    };
    let mut code = ExitCode::SUCCESS;
    for (key, name) in targets {
        let done = job.one(compiled, RenderTarget::Node(key), &folder, &format!("{name}.png"));
        // The worse of the failures: a file that could not be written (2) over a picture (1).
        if done != ExitCode::SUCCESS && code != ExitCode::from(2) {
            code = done;
        }
    }
    code
}

/// The PNG of `rendered`, its encoding timed when `timings` is given.
fn encode_timed(rendered: &Rendered, timings: Option<&mut Timings>) -> Vec<u8> {
    let started = std::time::Instant::now();
    let png = encode_rendered(rendered);
    if let Some(timings) = timings {
        timings.encode += started.elapsed();
    }
    png
}

/// An output folder or file that cannot be written to: said before anything is drawn.
fn refused(error: &nib::files::FileError) -> ExitCode {
    tell!("nib: {error}");
    ExitCode::from(2)
}

/// How the pictures are drawn and where what is said goes; what is drawn comes from the
/// compiled document each picture is asked of.
struct Job<'a> {
    options: &'a RenderOptions,
    output: &'a Output,
}

impl Job<'_> {
    /// Renders one target into the file `name` of `folder`, saying where and what could not
    /// be drawn.
    fn one(&self, compiled: &mut Compiled, target: RenderTarget, folder: &OutputFolder, name: &str) -> ExitCode {
        let out = folder.path().join(name);
        let out = out.as_path();
        let mut clock = self.output.clock.as_ref().map(|clock| clock.borrow_mut());
        let mut timings = clock.as_mut().map(|clock| std::mem::take(&mut clock.pending));
        let rendered = match timings.as_mut() {
            Some(timings) => compiled.render_timed(target, self.options, timings),
            None => compiled.render(target, self.options),
        };
        match rendered {
            Ok(rendered) => {
                for warning in &rendered.warnings {
                    self.output.warning(warning);
                }
                let written = folder.write(name, &encode_timed(&rendered, timings.as_mut()));
                if let (Some(clock), Some(timings)) = (clock.as_mut(), timings.as_mut()) {
                    timings.total = clock.since.elapsed();
                    clock.since = std::time::Instant::now();
                    clock.done.push(PictureTimings::of(out, timings));
                }
                if let Err(error) = written {
                    tell!("nib: cannot write the image: {error}");
                    return ExitCode::from(2);
                }
                self.output.written(out, rendered.pixmap.width(), rendered.pixmap.height());
                ExitCode::SUCCESS
            }
            Err(error) => {
                tell!("nib: {error}");
                ExitCode::from(1)
            }
        }
    }

    /// Every visible top-level node into `folder` as `NN-name.png`, on every core.
    fn all_frames(&self, compiled: &Compiled, folder: &OutputFolder) -> ExitCode {
        let frames = compiled.frames();
        let count = frames.len();
        let done = AtomicUsize::new(0);
        let progress = std::io::stderr().is_terminal();
        // Each frame is written as soon as it is drawn, so memory holds a few images, not all.
        let written = std::sync::Mutex::new(Vec::new());
        compiled.render_frames(self.options, frames, &|render| {
            let name = format!("{}.png", render.frame.file_stem(count));
            let out = folder.path().join(&name);
            let result = match &render.image {
                Ok(pixmap) => folder
                    .write(&name, &encode_painted(pixmap, render.opaque))
                    .map(|()| (pixmap.width(), pixmap.height(), render.warnings.clone()))
                    .map_err(|e| (format!("cannot write the image: {e}"), 2)),
                Err(error) => Err((error.to_string(), 1)),
            };
            written.lock().unwrap_or_else(|e| e.into_inner()).push((render.frame.index, out, result));
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            if progress {
                eprint!("\rrendered {finished}/{count}");
                let _ = std::io::stderr().flush();
            }
        });
        if progress {
            tell!();
        }
        let mut results = written.into_inner().unwrap_or_else(|e| e.into_inner());
        results.sort_by_key(|(index, ..)| *index);
        let mut code = 0u8;
        for (_, out, result) in results {
            match result {
                Ok((width, height, warnings)) => {
                    for warning in &warnings {
                        self.output.warning(warning);
                    }
                    self.output.written(&out, width, height);
                }
                // A picture that cannot be drawn is 1, one that cannot be written 2.
                Err((error, failed)) => {
                    tell!("nib: {}: {error}", out.display());
                    code = code.max(failed);
                }
            }
        }
        ExitCode::from(code)
    }
}
