//! `nib diff OLD NEW`: what changed between two versions of a document, as text, JSON,
//! Markdown or HTML, with pictures of the changed frames in `-o DIR`. Exits like `diff`: 0 the
//! same, 1 different, 2 trouble.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::diagnostic::Diagnostic;
use nib::host::DiskHost;
use nib::render::{RenderOptions, encode_png};
use nib::review::diff::{Diff, diff};
use nib::review::pictures::{FramePictures, PictureError, Side, draw};
use nib::review::report::{FrameImages, Report, html, json, markdown, text};
use nib::text::FontOptions;
use tiny_skia::Pixmap;

use super::revision::Source;

/// `nib diff`'s arguments.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The old version: a file, or REV:path.
    old: String,
    /// The new version: a file, or REV:path.
    new: String,
    /// How to write the report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Draw the changed frames into this folder (html always draws, into nib-diff by default).
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    picture: nib::render::RenderOptions,
}

impl DiffArgs {
    /// Compares the two versions, pictures drawn with `fonts`.
    pub fn run(self, fonts: FontOptions) -> ExitCode {
        let DiffArgs { old, new, format, output, picture } = self;
        run(&old, &new, Settings { format, output, picture, fonts })
    }
}

/// The report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lines for a terminal.
    Text,
    /// The nib.diff/1 JSON schema, for scripts.
    Json,
    /// A pull request comment; with -o, image links to the pictures.
    Markdown,
    /// A page with the pictures side by side, written to DIR/index.html (DIR: -o, else nib-diff).
    Html,
}

/// Where the HTML report goes when no -o is given.
const DEFAULT_HTML_FOLDER: &str = "nib-diff";

pub struct Settings {
    pub format: Format,
    pub output: Option<PathBuf>,
    /// Scale, background, missing-image marks of the pictures.
    pub picture: RenderOptions,
    pub fonts: FontOptions,
}

pub fn run(old: &str, new: &str, settings: Settings) -> ExitCode {
    let (old_source, new_source) = (Source::parse(old), Source::parse(new));
    let documents = old_source.load().and_then(|o| new_source.load().map(|n| (o, n)));
    let (old_document, new_document) = match documents {
        Ok(documents) => documents,
        Err(error) => {
            super::fail(&error);
            return ExitCode::from(2);
        }
    };
    let result = diff(&old_document, &new_document);
    let folder =
        settings.output.clone().or_else(|| (settings.format == Format::Html).then(|| DEFAULT_HTML_FOLDER.into()));
    // The folder is opened once and nothing below it follows a link: in a checkout others
    // control, a `review/x.diff.png` committed as a link must not send a picture elsewhere.
    let tree = match folder.as_deref().map(nib::files::Tree::create_unlinked).transpose() {
        Ok(tree) => tree,
        Err(error) => {
            tell!("nib: cannot use the folder for the pictures: {error}");
            return ExitCode::from(2);
        }
    };
    let images = match &tree {
        None => None,
        Some(tree) => {
            let sides = [(&old_document, &old_source), (&new_document, &new_source)];
            match write_pictures(&result, sides, tree, &settings) {
                Ok(images) => Some(images),
                Err(error) => {
                    super::fail(&error);
                    return ExitCode::from(2);
                }
            }
        }
    };
    let report = Report { old, new, diff: &result, images: images.as_deref() };
    let (body, file) = match settings.format {
        Format::Text => (text(&report), None),
        Format::Json => {
            let mut body = serde_json::to_string_pretty(&json(&report)).unwrap_or_default();
            body.push('\n');
            (body, Some("diff.json"))
        }
        Format::Markdown => (markdown(&report), Some("diff.md")),
        Format::Html => (html(&report), Some("index.html")),
    };
    if let (Some(tree), Some(file)) = (&tree, file) {
        let path = tree.path().join(file);
        if let Err(error) = write_in(tree, file, body.as_bytes()) {
            tell!("nib: cannot write the report: {error}");
            return ExitCode::from(2);
        }
        if settings.format == Format::Html {
            say!("{}", path.display());
        }
    }
    if settings.format != Format::Html {
        say_part!("{body}");
    }
    if result.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

/// Draws the changed frames of both sides into `folder` as `NN-name.old.png`, `.new.png` and
/// `.diff.png`; returns what was written for each frame.
fn write_pictures(
    result: &Diff,
    [(old, old_source), (new, new_source)]: [(&nib::doc::Document, &Source); 2],
    folder: &nib::files::Tree,
    settings: &Settings,
) -> Result<Vec<FrameImages>, Diagnostic> {
    let (old_host, new_host) = (
        DiskHost::new(old_source.path(), settings.fonts.clone()),
        DiskHost::new(new_source.path(), settings.fonts.clone()),
    );
    let options = settings.picture.clone();
    let old_side = Side { document: old, host: &old_host, options: options.clone() };
    let new_side = Side { document: new, host: &new_host, options };
    let mut images = vec![FrameImages::default(); result.frames.len()];
    let mut failure = None;
    let found = draw(result, &old_side, &new_side, &mut |pictures: FramePictures| {
        let written = &mut images[pictures.index];
        written.problems = pictures.warnings.clone();
        let stem = &pictures.stem;
        written.old = side_file(pictures.old.as_ref(), folder, stem, "old", &mut written.problems, &mut failure);
        written.new = side_file(pictures.new.as_ref(), folder, stem, "new", &mut written.problems, &mut failure);
        if let Some((comparison, image)) = &pictures.difference {
            written.differing = Some(comparison.differing);
            written.resized = comparison.resized;
            match save(folder, &format!("{}.diff.png", pictures.stem), image) {
                Ok(name) => written.difference = Some(name),
                Err(error) => {
                    failure.get_or_insert(error);
                }
            }
        }
    });
    // What could not be loaded (an import, a font file) is said once for each side.
    for diagnostic in found.iter().flatten().filter(|d| d.severity == nib::diagnostic::Severity::Warning) {
        super::warn(&diagnostic);
    }
    match failure {
        Some(error) => Err(error),
        None => Ok(images),
    }
}

/// Writes one side's picture as `stem.side.png`; returns its name. A side that could not be
/// drawn becomes a problem of the frame, a file that could not be written the `failure`.
fn side_file(
    picture: Option<&Result<Pixmap, PictureError>>,
    folder: &nib::files::Tree,
    stem: &str,
    side: &str,
    problems: &mut Vec<Diagnostic>,
    failure: &mut Option<Diagnostic>,
) -> Option<String> {
    match picture? {
        Err(error) => {
            let message = format!("the {side} picture could not be drawn: {error}");
            problems.push(Diagnostic::warning("picture", message));
            None
        }
        Ok(pixmap) => {
            save(folder, &format!("{stem}.{side}.png"), pixmap).map_err(|error| failure.get_or_insert(error)).ok()
        }
    }
}

/// Writes `pixmap` as `folder/name`; returns the name.
fn save(folder: &nib::files::Tree, name: &str, pixmap: &Pixmap) -> Result<String, Diagnostic> {
    write_in(folder, name, &encode_png(pixmap))
        .map(|()| name.to_owned())
        .map_err(|error| Diagnostic::error("file", format!("cannot write the image: {error}")))
}

/// Writes `bytes` as the file `name` of `folder`, refusing a link in its place.
fn write_in(folder: &nib::files::Tree, name: &str, bytes: &[u8]) -> Result<(), nib::files::FileError> {
    use std::io::Write as _;
    let (links, durability) = (nib::files::Links::Never, nib::files::Durability::Replaceable);
    folder.write(Path::new(name), links, durability, |file| file.write_all(bytes))
}
