//! `nib render FILE`: the canvas, one or more nodes, or every top-level frame to PNG.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use nib::compile::frames::{frames, render_frames, safe_name};
use nib::compile::{CompileOptions, Compiled, compile};
use nib::host::{DiskHost, Host};
use nib::layout::Layout;
use nib::render::{Pictures, RenderOptions, RenderTarget, encode_painted, encode_rendered, render};
use nib::resolve::Scene;
use nib::text::{FontOptions, TextEngine};

pub struct Settings {
    pub output: Option<PathBuf>,
    pub nodes: Vec<String>,
    pub all: bool,
    /// Scale, background, missing-image marks.
    pub picture: RenderOptions,
    pub json: bool,
    pub fonts: FontOptions,
}

/// What `nib render --json` prints.
#[derive(Default, serde::Serialize)]
struct JsonReport {
    /// The PNG files written, with their sizes.
    written: Vec<Written>,
    /// Everything that was not drawn as written, font substitutions included.
    warnings: Vec<String>,
    /// The families the document asks for and how each resolves.
    families: Vec<nib::layout::fonts::FamilyUse>,
    /// The font files the text was shaped with.
    fonts: Vec<nib::text::UsedFont>,
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
}

impl Output {
    fn written(&self, file: &Path, width: u32, height: u32) {
        match &self.json {
            Some(report) => report.borrow_mut().written.push(Written { file: file.to_owned(), width, height }),
            None => say!("{} ({width} × {height})", file.display()),
        }
    }

    fn warning(&self, warning: &str) {
        match &self.json {
            Some(report) => report.borrow_mut().warnings.push(warning.to_owned()),
            None => super::warn(&warning),
        }
    }
}

pub fn run(file: &Path, settings: Settings) -> ExitCode {
    // Nodes alone need only their top-level parts (and the components these use) read, not the
    // whole file; the JSON report lists the families of the whole document, so it reads all.
    let parts_of = (!settings.all && !settings.nodes.is_empty()).then(|| settings.nodes.clone());
    let excerpt = parts_of.as_deref().filter(|_| !settings.json);
    let document = match super::read_document(file, excerpt) {
        Ok(document) => document,
        Err(code) => return code,
    };
    let host = DiskHost::new(file, settings.fonts.clone());
    // Nor resolved and laid out.
    let options = CompileOptions { parts_of };
    let Compiled { scene, layout, mut text, diagnostics, .. } = match compile(&host, &document, &options) {
        Ok(compiled) => compiled,
        Err(error) => {
            eprintln!("nib: {}", super::diagnostic_text(file, *error));
            return ExitCode::from(1);
        }
    };
    let output = Output { json: settings.json.then(Default::default) };
    // Everything not drawn as written is said: imports and font files that could not be read,
    // replaced families, and what stands in for what nib cannot draw.
    for diagnostic in &diagnostics {
        output.warning(&diagnostic.to_string());
    }
    let families = nib::layout::fonts::families_used(&scene, None, &mut text);
    let code = render_targets(&host, &settings, &scene, &layout, &mut text, &output);
    if let Some(report) = output.json {
        let mut report = report.into_inner();
        report.families = families;
        report.fonts = text.fonts_used();
        say!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    }
    code
}

/// Renders what the settings ask for; the exit code.
fn render_targets(
    host: &DiskHost,
    settings: &Settings,
    scene: &Scene,
    layout: &Layout,
    text: &mut TextEngine,
    output: &Output,
) -> ExitCode {
    let file = host.file();
    let options = settings.picture.clone();
    let stem = file.file_stem().map_or_else(|| "canvas".into(), |s| s.to_string_lossy().into_owned());
    let guard = nib::files::OutputGuard::new([file]);
    // A file named with -o (one picture) is checked before anything is drawn.
    if let Some(named) = settings.output.as_deref().filter(|_| !settings.all && settings.nodes.len() <= 1)
        && let Err(error) = guard.check(named, Some(&["png"]))
    {
        eprintln!("nib: {error}");
        return ExitCode::from(2);
    }
    let job = Job { host, scene, layout, options: &options, output, guard: &guard };
    if settings.all {
        let out = settings.output.clone().unwrap_or_else(|| PathBuf::from(format!("{stem}-frames")));
        return job.all_frames(text, &out);
    }
    let mut targets = Vec::new();
    for id in &settings.nodes {
        match super::find_node(file, scene, id) {
            Ok(key) => targets.push((key, safe_name(id))),
            Err(failed) => return failed,
        }
    }
    let mut images = host.pictures();
    let images = images.as_mut();
    if targets.is_empty() {
        let out = settings.output.clone().unwrap_or_else(|| PathBuf::from(format!("{stem}.png")));
        return job.one(text, images, RenderTarget::Canvas, &out);
    }
    if let [(key, _)] = targets.as_slice() {
        let out = settings
            .output
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("{stem}-{}.png", safe_name(&scene.node(*key).id))));
        return job.one(text, images, RenderTarget::Node(*key), &out);
    }
    let folder = settings.output.clone().unwrap_or_else(|| PathBuf::from(format!("{stem}-nodes")));
    if let Err(error) = std::fs::create_dir_all(&folder) {
        eprintln!("nib: cannot create {}: {error}", folder.display());
        return ExitCode::from(2);
    }
    let mut code = ExitCode::SUCCESS;
    for (key, name) in targets {
        let done = job.one(text, images, RenderTarget::Node(key), &folder.join(format!("{name}.png")));
        // The worse of the failures: a file that could not be written (2) over a picture (1).
        if done != ExitCode::SUCCESS && code != ExitCode::from(2) {
            code = done;
        }
    }
    code
}

struct Job<'a> {
    host: &'a DiskHost,
    scene: &'a Scene,
    layout: &'a Layout,
    options: &'a RenderOptions,
    output: &'a Output,
    guard: &'a nib::files::OutputGuard,
}

impl Job<'_> {
    /// Renders one target into `out`, saying where and what could not be drawn.
    fn one(&self, text: &mut TextEngine, images: &mut dyn Pictures, target: RenderTarget, out: &Path) -> ExitCode {
        match render(self.scene, self.layout, text, images, target, self.options) {
            Ok(rendered) => {
                for warning in &rendered.warnings {
                    self.output.warning(&warning.to_string());
                }
                let written = self
                    .guard
                    .check(out, None)
                    .and_then(|()| nib::files::write_output(out, &encode_rendered(&rendered), None));
                if let Err(error) = written {
                    eprintln!("nib: cannot write the image: {error}");
                    return ExitCode::from(2);
                }
                self.output.written(out, rendered.pixmap.width(), rendered.pixmap.height());
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("nib: {error}");
                ExitCode::from(1)
            }
        }
    }

    /// Every visible top-level node into `folder` as `NN-name.png`, on every core.
    fn all_frames(&self, text: &TextEngine, folder: &Path) -> ExitCode {
        if let Err(error) = std::fs::create_dir_all(folder) {
            eprintln!("nib: cannot create {}: {error}", folder.display());
            return ExitCode::from(2);
        }
        let frames = frames(self.scene, self.layout);
        let count = frames.len();
        let done = AtomicUsize::new(0);
        let progress = std::io::stderr().is_terminal();
        // Each frame is written as soon as it is drawn, so memory holds a few images, not all.
        let written = std::sync::Mutex::new(Vec::new());
        render_frames(self.host, self.scene, self.layout, text, self.options, frames, &|render| {
            let out = folder.join(format!("{}.png", render.frame.file_stem(count)));
            let result = match &render.image {
                Ok(pixmap) => (self.guard.check(&out, None))
                    .and_then(|()| nib::files::write_output(&out, &encode_painted(pixmap, render.opaque), None))
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
            eprintln!();
        }
        let mut results = written.into_inner().unwrap_or_else(|e| e.into_inner());
        results.sort_by_key(|(index, ..)| *index);
        let mut code = 0u8;
        for (_, out, result) in results {
            match result {
                Ok((width, height, warnings)) => {
                    for warning in warnings {
                        self.output.warning(&warning.to_string());
                    }
                    self.output.written(&out, width, height);
                }
                // A picture that cannot be drawn is 1, one that cannot be written 2.
                Err((error, failed)) => {
                    eprintln!("nib: {}: {error}", out.display());
                    code = code.max(failed);
                }
            }
        }
        ExitCode::from(code)
    }
}
