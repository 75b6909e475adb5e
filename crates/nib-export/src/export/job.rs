//! One export run, as `nib export` and the `export` tool ask for it: which nodes, which format,
//! what each file is called. Files are handed to a sink as they are made (the caller writes
//! them where it may), so a long run over many frames holds a few at a time.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::ExportError;
/// The packages and versions the React export's app (`package.json`) pins: `(name, version,
/// needed at run time)`.
pub use super::html::APP_PACKAGES as REACT_APP_PACKAGES;
pub use super::html::tailwind::{COMPILED_CSS, PAGE_CLASS as TAILWIND_PAGE_CLASS, TAILWIND_INPUT, TailwindOptions};
use super::html::{HtmlOptions, HtmlPages};
pub use super::options::{APP_ENTRY, APP_ENTRY_LIMIT, ExportLook};
use super::pdf::{PdfPage, to_pdf};
use super::raster::{encode_jpeg, encode_webp};
pub use super::source::RunError;
use super::svg::{ImageRefs, SvgOptions, TextMode, to_svg};
use super::tokens::TokenSet;
use crate::compile::Compiled;
use crate::compile::frames::{NameClash, frames, map_with_engines, node_file_stems, safe_name};
use crate::diagnostic::Diagnostic;
use crate::display::ShadowReach;
use crate::display::pictures::Pictures;
use crate::render::{RenderOptions, RenderTarget, encode_rendered, paint};
use crate::resolve::SceneKey;
use crate::text::TextEngine;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// PNG, lossless.
    Png,
    /// JPEG at a quality, over white.
    Jpeg,
    /// WebP at a quality (lossless at 100).
    Webp,
    /// SVG, vector.
    Svg,
    /// PDF, one page per node.
    Pdf,
    /// HTML and CSS, one page per frame.
    Html,
    /// HTML with Tailwind classes, one page per frame, and Tailwind's input stylesheet.
    HtmlTailwind,
    /// React components (TypeScript, Tailwind classes) for the reusable components and frames.
    React,
    /// The variables as CSS custom properties per theme.
    TokensCss,
    /// The variables as W3C design tokens.
    TokensJson,
    /// The variables as a Tailwind theme.
    Tailwind,
}

impl Format {
    /// Every format, in the order help lists them.
    pub const ALL: [Format; 11] = [
        Format::Png,
        Format::Jpeg,
        Format::Webp,
        Format::Svg,
        Format::Pdf,
        Format::Html,
        Format::HtmlTailwind,
        Format::React,
        Format::TokensCss,
        Format::TokensJson,
        Format::Tailwind,
    ];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Jpeg => "jpeg",
            Format::Webp => "webp",
            Format::Svg => "svg",
            Format::Pdf => "pdf",
            Format::Html => "html",
            Format::HtmlTailwind => "html-tailwind",
            Format::React => "react",
            Format::TokensCss => "tokens-css",
            Format::TokensJson => "tokens-json",
            Format::Tailwind => "tailwind",
        }
    }

    /// The format called `name` (case does not matter; `jpg` is JPEG).
    pub fn parse(name: &str) -> Result<Format, FormatError> {
        let lower = name.trim().to_ascii_lowercase();
        let lower = if lower == "jpg" { "jpeg".to_owned() } else { lower };
        Format::ALL.into_iter().find(|f| f.name() == lower).ok_or_else(|| FormatError::Unknown(name.to_owned()))
    }

    /// The file name extension of its files (the tokens' full file names for token formats).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Jpeg => "jpg",
            Format::Webp => "webp",
            Format::Svg => "svg",
            Format::Pdf => "pdf",
            Format::Html | Format::HtmlTailwind => "html",
            Format::React => "tsx",
            Format::TokensCss => "tokens.css",
            Format::TokensJson => "tokens.json",
            Format::Tailwind => "tailwind.config.js",
        }
    }

    /// The extensions a file of this format may have when a user names it (letter case aside),
    /// the usual one first.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::Png => &["png"],
            Format::Jpeg => &["jpg", "jpeg"],
            Format::Webp => &["webp"],
            Format::Svg => &["svg"],
            Format::Pdf => &["pdf"],
            Format::Html | Format::HtmlTailwind => &["html", "htm"],
            Format::React => &["tsx"],
            Format::TokensCss => &["css"],
            Format::TokensJson => &["json"],
            Format::Tailwind => &["js", "cjs", "mjs", "ts"],
        }
    }

    /// True for the formats that write web pages (a folder of pages and what they share).
    pub fn is_page(self) -> bool {
        matches!(self, Format::Html | Format::HtmlTailwind | Format::React)
    }

    /// True for the formats made of the document's variables rather than its nodes.
    pub(crate) fn is_tokens(self) -> bool {
        matches!(self, Format::TokensCss | Format::TokensJson | Format::Tailwind)
    }

    /// True when one run writes a single file whatever the targets (PDF pages, tokens).
    pub fn single_file(self) -> bool {
        self == Format::Pdf || self.is_tokens()
    }

    /// The refusal of `output` for an export that writes `files` files when it names a single
    /// file (an extension of an export format) and is not a folder already (`is_folder`, which
    /// the caller looks up): two nodes exported to `one.png` made a folder called `one.png`
    /// instead of saying that one file cannot hold two pictures.
    pub fn one_file_for_many(self, output: &Path, files: usize, is_folder: bool) -> Result<(), FormatError> {
        let extension = output.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        let names_a_file =
            extension.is_some_and(|extension| Format::ALL.iter().any(|f| f.extensions().contains(&extension.as_str())));
        if files <= 1 || !names_a_file || is_folder {
            return Ok(());
        }
        Err(FormatError::OneFileForMany { output: output.to_owned(), format: self, files })
    }
}

/// A format that does not exist, or an output it cannot be written to.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormatError {
    /// No export format has the name.
    #[error("'{0}' is not an export format; use one of {names}", names = Format::ALL.map(Format::name).join(", "))]
    Unknown(String),
    /// A file name given for an export that writes several files.
    #[error("{} names one file, but this export writes one {} file for each of {files} nodes", output.display(), format.name())]
    OneFileForMany { output: std::path::PathBuf, format: Format, files: usize },
}

/// Which nodes to export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Targets {
    /// The whole canvas as one picture (HTML: every top-level frame, a page each).
    Canvas,
    /// These nodes, each on its own.
    Nodes(Vec<SceneKey>),
    /// Every visible top-level frame, each on its own.
    Frames,
}

/// How to export.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportSettings {
    /// The format.
    pub format: Format,
    /// The nodes.
    pub targets: Targets,
    /// How the files look: scale, quality, text, embedding, the html-tailwind options.
    pub look: ExportLook,
    /// SVG: link image files instead of embedding them.
    pub link_images: bool,
    /// Fill behind everything (straight RGBA).
    pub background: Option<[u8; 4]>,
    /// The folder the files are written to (SVG image links are relative to it).
    pub output_folder: Option<PathBuf>,
    /// The folder relative paths (the output folder, the document's image files) are read
    /// from, to link SVG images: the command line's working directory. Empty (the default):
    /// relative paths are compared as they are.
    pub working_folder: PathBuf,
}

impl ExportSettings {
    /// `format` of `targets` as [`ExportLook::default`] says, images embedded in SVG, no
    /// background, no output folder and no working folder.
    pub fn new(format: Format, targets: Targets) -> ExportSettings {
        ExportSettings {
            format,
            targets,
            look: ExportLook::default(),
            link_images: false,
            background: None,
            output_folder: None,
            working_folder: PathBuf::new(),
        }
    }
}

/// A file an export made.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExportedFile {
    /// Its name: relative to the output folder, or a suggestion for a single-file output.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The node it shows, when it shows one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

/// What an export run made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportReport {
    /// The files, in the order of the targets (canvas order for frames), whatever order the
    /// threads made them in.
    pub files: Vec<ExportedFile>,
    /// What could not be exported as written, once each, in the order of their text.
    pub warnings: Vec<Diagnostic>,
}

/// Receives each file: its name (see [`ExportedFile::name`]) and bytes; an error stops the run.
pub type Sink<'s> = dyn Fn(&str, &[u8]) -> Result<(), SinkError> + Sync + 's;

/// Why the caller's sink could not take a file: its own error (a file that cannot be written, a
/// path outside where it writes), whatever its type.
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// Called after each exported node with (done, total).
pub type Progress<'p> = dyn Fn(usize, usize) + Sync + 'p;

/// One target: the node (or the canvas), its file stem and its id.
struct Target {
    target: RenderTarget,
    stem: String,
    id: Option<String>,
}

/// Runs an export of `compiled`, titled `title` (the document's name, for titles and file
/// names), handing every file to `sink` as it is made. The code exports (HTML, html-tailwind,
/// React) read the Scene with variables kept: compile with [`CompileOptions::keep_variables`]
/// for them (see [`Format::is_page`]).
///
/// [`CompileOptions::keep_variables`]: crate::compile::CompileOptions::keep_variables
pub fn run(
    compiled: &Compiled<'_>,
    title: &str,
    settings: &ExportSettings,
    sink: &Sink<'_>,
    progress: &Progress<'_>,
) -> Result<ExportReport, RunError> {
    let report = Mutex::new(ExportReport::default());
    // Every name handed to the sink, without letter case: the nodes' names are checked before
    // anything is made (targets()), this catches whatever a writer names alike all the same.
    let named = Mutex::new(std::collections::HashMap::<String, String>::new());
    let hand_over = |name: &str, bytes: &[u8]| -> Result<(), RunError> {
        // A shared file handed again under its very name (a font two pages use) is the same
        // file; one that differs only in letter case is another file in the same place.
        let first = named.lock().unwrap_or_else(|e| e.into_inner()).insert(name.to_lowercase(), name.to_owned());
        if let Some(first) = first.filter(|first| first != name) {
            return Err(RunError::SameFile { first, second: name.to_owned() });
        }
        sink(name, bytes).map_err(|error| RunError::Write { name: name.to_owned(), reason: error.to_string() })
    };
    let deliver = |name: String, bytes: &[u8], node: Option<String>| -> Result<(), RunError> {
        hand_over(&name, bytes)?;
        let mut report = report.lock().unwrap_or_else(|e| e.into_inner());
        report.files.push(ExportedFile { name, bytes: bytes.len() as u64, node });
        Ok(())
    };
    let warn = |warnings: Vec<Diagnostic>| {
        let mut report = report.lock().unwrap_or_else(|e| e.into_inner());
        for warning in warnings {
            if !report.warnings.contains(&warning) {
                report.warnings.push(warning);
            }
        }
    };
    let format = settings.format;
    settings.look.check()?;
    if format.is_tokens() {
        let set = TokenSet::of(compiled.document(), compiled.imports.as_ref());
        let text = match format {
            Format::TokensCss => set.css(":root"),
            Format::TokensJson => set.json(),
            _ => set.tailwind(),
        };
        warn(set.warnings.clone());
        deliver(format!("{}.{}", safe_name(title), format.extension()), text.as_bytes(), None)?;
        return Ok(report.into_inner().unwrap_or_else(|e| e.into_inner()));
    }
    let targets = targets(compiled, title, settings)?;
    if targets.is_empty() {
        return Err(ExportError::Target(crate::render::RenderError::Empty).into());
    }
    let total = targets.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let tick = || progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
    match format {
        Format::HtmlTailwind | Format::React if settings.look.embed => return Err(ExportError::EmbeddedCode.into()),
        Format::React => {
            // Ids only when asked (`--ids`): a developer ships the code without them.
            let tailwind = TailwindOptions { layer_ids: settings.look.ids, ..TailwindOptions::default() };
            let options = HtmlOptions { embed: false, tailwind: Some(tailwind), react: true };
            let pages = HtmlPages::new(compiled, &options)?;
            // Every reusable component the document defines and draws, in document order, and
            // the frames asked for that are not components themselves.
            // Read off the Scene's own nodes (each knows its document node): looking each id
            // up went through every top-level part, 50,000 components by 50,000 parts.
            let tree = compiled.document().tree();
            let scene = &compiled.scene;
            let components: Vec<SceneKey> = scene
                .walk()
                .filter(|key| {
                    scene.node(*key).source.is_some_and(|node| {
                        tree.node(node).props.literal::<bool>(&crate::doc::Key::Reusable) == Some(true)
                    })
                })
                .collect();
            let screens: Vec<SceneKey> = targets
                .iter()
                .filter_map(|t| match t.target {
                    RenderTarget::Node(key) if !components.contains(&key) => Some(key),
                    _ => None,
                })
                .collect();
            let (files, warnings) = pages.react(compiled.host(), &compiled.text, components, screens);
            tick();
            warn(warnings);
            for (name, bytes) in files {
                deliver(name, &bytes, None)?;
            }
            let assets = pages.finish(&compiled.text);
            warn(assets.warnings);
            for (name, bytes) in assets.files {
                deliver(name, &bytes, None)?;
            }
            if settings.look.scaffold || settings.look.force_scaffold {
                for (name, bytes) in super::html::react_app(title) {
                    deliver(name, &bytes, None)?;
                }
            }
        }
        Format::Html | Format::HtmlTailwind => {
            let tailwind = (format == Format::HtmlTailwind).then_some(settings.look.tailwind());
            let options = HtmlOptions { embed: settings.look.embed, tailwind, react: false };
            let pages = HtmlPages::new(compiled, &options)?;
            let keys: Vec<(SceneKey, String)> = targets
                .iter()
                .filter_map(|t| match t.target {
                    RenderTarget::Node(key) => Some((key, t.stem.clone())),
                    RenderTarget::Canvas => None,
                })
                .collect();
            let made = map_with_engines(compiled.host(), &compiled.text, keys, &|text, images, (key, stem)| {
                let page = pages.page(text, images, key, &stem);
                tick();
                page
            });
            for page in made {
                let page = page?;
                warn(page.warnings.clone());
                for (name, bytes) in &page.files {
                    deliver(name.clone(), bytes, Some(page.id.clone()))?;
                }
            }
            let assets = pages.finish(&compiled.text);
            warn(assets.warnings);
            for (name, bytes) in assets.files {
                deliver(name, &bytes, None)?;
            }
        }
        Format::Pdf => {
            let prepared = map_with_engines(compiled.host(), &compiled.text, targets, &|text, images, target| {
                let page = PdfPage::prepare(&compiled.scene, &compiled.layout, text, images, target.target);
                tick();
                page
            });
            let pages = prepared.into_iter().collect::<Result<Vec<PdfPage>, ExportError>>()?;
            let (pdf, warnings) = to_pdf(&pages, settings.look.scale, settings.background, title)?;
            warn(warnings);
            deliver(format!("{}.pdf", safe_name(title)), &pdf, None)?;
        }
        _ => {
            let svg_options = svg_options(settings, settings.look.text);
            let render_options =
                RenderOptions { scale: settings.look.scale, background: settings.background, mark_missing: false };
            // Files are written as they are made; the report lists them in target order.
            let results = map_with_engines(compiled.host(), &compiled.text, targets, &|text, images, target| {
                let made = make_one(compiled, settings, &svg_options, &render_options, text, images, target.target);
                let result = made.and_then(|(bytes, warnings)| {
                    warn(warnings);
                    let name = format!("{}.{}", target.stem, format.extension());
                    hand_over(&name, &bytes)?;
                    Ok(ExportedFile { name, bytes: bytes.len() as u64, node: target.id.clone() })
                });
                tick();
                result
            });
            let written = results.into_iter().collect::<Result<Vec<ExportedFile>, RunError>>()?;
            report.lock().unwrap_or_else(|e| e.into_inner()).files.extend(written);
        }
    }
    let mut report = report.into_inner().unwrap_or_else(|e| e.into_inner());
    report.warnings.sort_by_cached_key(ToString::to_string);
    Ok(report)
}

/// The file of one target in a raster format or SVG, and its warnings.
fn make_one(
    compiled: &Compiled<'_>,
    settings: &ExportSettings,
    svg_options: &SvgOptions,
    render_options: &RenderOptions,
    text: &mut TextEngine,
    images: &mut dyn Pictures,
    target: RenderTarget,
) -> Result<(Vec<u8>, Vec<Diagnostic>), RunError> {
    if settings.format == Format::Svg {
        let svg = to_svg(&compiled.scene, &compiled.layout, text, images, target, svg_options)?;
        return Ok((svg.markup.into_bytes(), svg.warnings));
    }
    // A node's picture holds its own drop shadows, as Pen's export does (its box grows by
    // their reach); `nib render --node` and screenshots keep to the node's box.
    let mut list =
        crate::display::build(&compiled.scene, &compiled.layout, text, images, target).map_err(ExportError::from)?;
    if let RenderTarget::Node(key) = target {
        let version = crate::doc::format::Version::read_as(compiled.document().version());
        let reach = if version.exports_whole_shadow_blur() { ShadowReach::WholeBlur } else { ShadowReach::Blur };
        list.bounds =
            crate::display::export_bounds(&compiled.scene, &compiled.layout, key, render_options.scale, reach)
                .map_err(ExportError::from)?;
    }
    let rendered = paint(&list, render_options).map_err(ExportError::from)?;
    let bytes = match settings.format {
        Format::Jpeg => encode_jpeg(&rendered.pixmap, settings.look.quality)?,
        Format::Webp => encode_webp(&rendered.pixmap, settings.look.quality)?,
        _ => encode_rendered(&rendered),
    };
    Ok((bytes, rendered.warnings))
}

fn svg_options(settings: &ExportSettings, text: TextMode) -> SvgOptions {
    let images = if settings.link_images && settings.format == Format::Svg {
        ImageRefs::Link { from: settings.output_folder.clone(), working_folder: settings.working_folder.clone() }
    } else {
        ImageRefs::Embed
    };
    SvgOptions { scale: settings.look.scale, text, images, background: settings.background }
}

/// The targets of a run with their file stems: frames as `NN-name`, nodes by id, the canvas
/// by the document's name. HTML exports frames when asked for the canvas. Refused when two
/// nodes would be written to one file.
fn targets(compiled: &Compiled<'_>, title: &str, settings: &ExportSettings) -> Result<Vec<Target>, NameClash> {
    let frame_targets = || {
        let found = frames(&compiled.scene, &compiled.layout);
        let count = found.len();
        found
            .into_iter()
            .map(|frame| Target {
                target: RenderTarget::Node(frame.key),
                stem: frame.file_stem(count),
                id: Some(frame.id.clone()),
            })
            .collect::<Vec<_>>()
    };
    Ok(match &settings.targets {
        Targets::Frames => frame_targets(),
        Targets::Canvas if settings.format.is_page() => frame_targets(),
        Targets::Canvas => {
            vec![Target { target: RenderTarget::Canvas, stem: safe_name(title), id: None }]
        }
        Targets::Nodes(keys) => {
            let ids = keys.iter().map(|key| compiled.scene.node(*key).id.as_str());
            // A PDF holds one page per node, in one file: names do not matter there.
            let stems = if settings.format.single_file() {
                ids.map(safe_name).collect()
            } else {
                node_file_stems(ids, settings.format.extension())?
            };
            keys.iter()
                .zip(stems)
                .map(|(key, stem)| {
                    let id = compiled.scene.node(*key).id.clone();
                    Target { target: RenderTarget::Node(*key), stem, id: Some(id) }
                })
                .collect()
        }
    })
}
