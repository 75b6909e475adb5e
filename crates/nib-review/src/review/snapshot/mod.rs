//! Snapshot tests for designs: every top-level frame of every `.pen` file rendered and compared
//! with its approved image (its golden) in `__snapshots__/<file stem>/<frame id>.png` beside the
//! file. A missing golden is created (unless the run is for CI), a failing comparison leaves a
//! diff image and the render in a separate folder, and `update` rewrites only the goldens that
//! fail, so git sees changes exactly where the pictures changed.
//!
//! [`discover`] finds the files, [`run`] checks them one after another with the frames of each
//! rendered and compared on all cores, and [`junit`] and [`markdown`] write the reports CI
//! systems and pull requests show. Loading a file (imports included) is the caller's job, so
//! this module needs no workspace.

mod discover;
mod goldens;
mod junit;
mod shard;
mod summary;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use discover::{MAX_DEPTH, PenFile, discover};
pub use junit::junit;
pub use shard::Shard;
pub use summary::markdown;

use crate::compile::Compiled;
use crate::compile::frames::{Frame, FrameRender};
use crate::diagnostic::Diagnostic;
use crate::files::{Durability, FileError, Links, Tree};
use crate::render::{MAX_PIXELS, RenderOptions, decode_image, encode_png};
use crate::review::pixels::{Comparison, Tolerance, compare, highlight};
use tiny_skia::Pixmap;

/// The largest golden read: above the PNG of the largest image nib renders even when it does
/// not compress at all (4 bytes a pixel, plus a byte a row and the chunks around them).
pub const MAX_GOLDEN_BYTES: u64 = MAX_PIXELS * 4 + (16 << 20);

/// Largest golden of another size than its render that is decoded to draw a diff image: beyond,
/// the header's size is reported (decoding and drawing it would take gigabytes).
const MAX_COMPARED_PIXELS: u64 = 16 * 1024 * 1024;

/// Why a snapshot run cannot start, a file cannot be checked, or a golden, diff image or render
/// cannot be kept. The file errors inside are shared (`Arc`): a folder that cannot be opened is
/// the reason of every write into it, and a report is cloned with its errors.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SnapshotError {
    /// A path given, or a folder met while walking, cannot be read.
    #[error("{0} (give existing files or folders that hold .pen files)")]
    Path(Arc<FileError>),
    /// The folders nest deeper than [`MAX_DEPTH`].
    #[error("{} is more than {MAX_DEPTH} folders deep below the path given: give a path closer to the designs", path.display())]
    TooDeep {
        /// The folder where the walk stopped.
        path: PathBuf,
    },
    /// `--shard` is not `I/N`.
    #[error("'{text}' is not a shard: {reason}")]
    Shard {
        /// What was given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The file cannot be read, or is not a valid document (the loader's error).
    #[error("{0}")]
    Read(Arc<crate::doc::io::ReadError>),
    /// The document cannot be compiled (over a resolve budget): none of its frames is drawn.
    /// The message is the diagnostic with the file, its line and column and its hints; a
    /// document's names may hold a terminal's escape sequences, so each line is shown escaped.
    #[error("{}", printable_lines(&diagnostic.to_text(Some(path.as_path()))))]
    Compile {
        /// The file.
        path: PathBuf,
        /// Why, located in the file when the loader could read it.
        diagnostic: Box<Diagnostic>,
    },
    /// Two files whose names differ only in letter case would keep their goldens in one folder
    /// on macOS and Windows: the later one is not checked.
    #[error(
        "its goldens would share the folder {} with {}: file names that differ only in letter case are one folder on macOS and Windows; rename one of the files",
        folder.display(),
        other.display()
    )]
    SharedFolder {
        /// The goldens folder both would use.
        folder: PathBuf,
        /// The file checked first, which keeps the folder.
        other: PathBuf,
    },
    /// The folder of a design, where its goldens live, cannot be opened.
    #[error("cannot open the folder of {}: {source}", file.display())]
    DesignFolder {
        /// The design file.
        file: PathBuf,
        /// Why its folder cannot be opened.
        source: Arc<FileError>,
    },
    /// The folder for diff images and renders of failures cannot be created or opened.
    #[error("cannot use {}: {source}", path.display())]
    DiffFolder {
        /// The folder (`--diff-dir`).
        path: PathBuf,
        /// Why it cannot be used.
        source: Arc<FileError>,
    },
    /// A golden, diff image or render cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file that was to be written.
        path: PathBuf,
        /// Why it could not be.
        source: Arc<FileError>,
    },
    /// An obsolete golden cannot be removed.
    #[error("cannot remove {}: {source}", path.display())]
    Remove {
        /// The golden.
        path: PathBuf,
        /// Why it could not be removed.
        source: Arc<FileError>,
    },
}

impl SnapshotError {
    /// A path given, or a folder met while walking, that cannot be read.
    pub fn path(error: FileError) -> SnapshotError {
        SnapshotError::Path(Arc::new(error))
    }
}

/// What the loader says when a file cannot be read or is not a document.
impl From<crate::doc::io::ReadError> for SnapshotError {
    fn from(error: crate::doc::io::ReadError) -> SnapshotError {
        SnapshotError::Read(Arc::new(error))
    }
}

/// `text` with each line's control characters escaped (a diagnostic's hints keep their lines).
fn printable_lines(text: &str) -> String {
    text.lines().map(crate::printable::one_line).collect::<Vec<_>>().join("\n")
}

/// How to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// When a render matches its golden.
    pub tolerance: Tolerance,
    /// Rewrite failing goldens, create missing ones and remove obsolete ones.
    pub update: bool,
    /// Refuse to create missing goldens, and fail on obsolete ones: the goldens in the
    /// repository must match the designs exactly, as a CI run checks.
    pub ci: bool,
    /// Only the frames whose name or id this matches (and goldens whose name it matches).
    pub frames: Option<regex::Regex>,
    /// The part of the frames this run checks.
    pub shard: Shard,
    /// Where diff images and renders of failing frames go, as `<file key>/<name>.diff.png`
    /// and `.actual.png`, so the goldens' folders hold goldens only.
    pub diff_dir: PathBuf,
    /// The theme (axis, value) the frames are drawn under, empty for the documents' own look;
    /// the caller's loader draws it, and its goldens and failures are kept apart
    /// (`__snapshots__/<file stem>@Mode=Dark/`).
    pub theme: Vec<(String, String)>,
}

/// A document ready to render, as the caller's loader prepares it.
pub struct Prepared {
    /// The document compiled (with the host its images come from).
    pub compiled: Compiled<'static>,
    /// What compiling it found: the file's warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Prepared {
    /// `compiled`, its diagnostics the file's warnings.
    pub fn new(mut compiled: Compiled<'static>) -> Prepared {
        let diagnostics = compiled.diagnostics(crate::render::RenderTarget::Canvas);
        Prepared { compiled, diagnostics }
    }
}

/// Progress of a run, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// A file is loaded and this many of its frames are about to be checked.
    File {
        /// The file's key.
        key: &'a str,
        /// How many frames of it this run checks.
        frames: usize,
    },
    /// One frame is checked (called from the thread that checked it).
    Frame,
}

/// What became of one frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The render matches the golden (the golden is untouched).
    Passed,
    /// There was no golden; the render became it.
    Created,
    /// The render did not match; with `update` it replaced the golden.
    Updated(Mismatch),
    /// The render does not match the golden.
    Failed {
        /// How it differs.
        mismatch: Mismatch,
        /// Where the image showing the difference is, when one could be drawn (red: changed,
        /// yellow: anti-aliasing only, blue: outside one of the two images).
        diff: Option<PathBuf>,
        /// Where the render is.
        actual: PathBuf,
    },
    /// There is no golden and the run may not create one.
    Missing {
        /// Where the render is, to look at before approving it.
        actual: PathBuf,
    },
    /// The frame could not be rendered.
    RenderError(String),
    /// A golden, diff or render could not be written: a problem of the machine, not the design.
    WriteError(String),
}

/// How a render differs from its golden.
#[derive(Debug, Clone, PartialEq)]
pub enum Mismatch {
    /// The pixels differ beyond the tolerance.
    Pixels {
        /// The comparison.
        comparison: Comparison,
        /// The golden's width and height.
        golden: (u32, u32),
        /// The render's width and height.
        actual: (u32, u32),
        /// The share of pixels allowed to differ.
        allowed: f64,
    },
    /// The golden is not an image nib can read.
    Unreadable(String),
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Pixels { golden, actual, .. } if golden != actual => {
                write!(f, "the size changed from {} × {} to {} × {} pixels", golden.0, golden.1, actual.0, actual.1)
            }
            Mismatch::Pixels { comparison, allowed, .. } => {
                write!(
                    f,
                    "{} of pixels differ ({} of {}; allowed {})",
                    percent(comparison.share()),
                    comparison.differing,
                    u64::from(comparison.width) * u64::from(comparison.height),
                    percent(*allowed)
                )?;
                if let Some((left, top, right, bottom)) = comparison.bounds {
                    write!(f, " within x {left}–{}, y {top}–{}", right - 1, bottom - 1)?;
                }
                Ok(())
            }
            Mismatch::Unreadable(reason) => write!(f, "the golden image cannot be read: {reason}"),
        }
    }
}

/// A share (0–1) as a percentage with enough digits to show a single pixel of a large frame.
pub fn percent(share: f64) -> String {
    format!("{:.3}%", share * 100.0)
}

/// One checked frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameReport {
    /// The frame's id.
    pub id: String,
    /// Its name (its id when it has none).
    pub name: String,
    /// Its golden.
    pub golden: PathBuf,
    /// What became of it.
    pub outcome: Outcome,
    /// What the renderer could not draw as written (a missing font, an unreadable image).
    pub warnings: Vec<Diagnostic>,
    /// How long rendering, comparing and writing took.
    pub time: Duration,
}

/// A golden whose frame no longer exists.
#[derive(Debug, Clone)]
pub struct Obsolete {
    /// The golden.
    pub golden: PathBuf,
    /// Removed (with `update`), kept, or why it could not be removed.
    pub removed: Result<bool, SnapshotError>,
}

/// One checked file.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The file.
    pub file: PenFile,
    /// Why the file could not be checked at all (it does not load or resolve, or its goldens
    /// would share another file's folder).
    pub error: Option<SnapshotError>,
    /// What loading or rendering noticed without failing.
    pub warnings: Vec<Diagnostic>,
    /// Its frames this run checked, in canvas order.
    pub frames: Vec<FrameReport>,
    /// Its goldens without a frame.
    pub obsolete: Vec<Obsolete>,
}

/// Everything a run found.
#[derive(Debug, Clone)]
pub struct Report {
    /// The files this run checked, in the order found.
    pub files: Vec<FileReport>,
    /// The shard this run was.
    pub shard: Shard,
    /// The tolerance it compared with.
    pub tolerance: Tolerance,
    /// Whether it was a CI run (obsolete goldens fail).
    pub ci: bool,
    /// How long it took.
    pub time: Duration,
}

/// How many frames ended how.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Files checked.
    pub files: usize,
    /// Frames checked.
    pub frames: usize,
    /// Frames that match.
    pub passed: usize,
    /// Goldens created.
    pub created: usize,
    /// Goldens rewritten.
    pub updated: usize,
    /// Frames that differ.
    pub failed: usize,
    /// Frames without golden that could not get one.
    pub missing: usize,
    /// Frames that could not be rendered, and files that could not be loaded.
    pub errors: usize,
    /// Goldens, diffs or renders that could not be written or removed.
    pub write_errors: usize,
    /// Goldens without a frame, removed or not.
    pub obsolete: usize,
    /// Obsolete goldens removed.
    pub removed: usize,
}

/// The verdict of a run, which the command line turns into its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Everything matches (or was created or updated as asked).
    Passed,
    /// Some frame differs, is missing or cannot be rendered, or a file cannot be loaded.
    Failed,
    /// Something could not be written: the answer is incomplete whatever the designs say.
    WriteError,
}

impl Report {
    /// How many frames ended how.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts { files: self.files.len(), ..Counts::default() };
        for file in &self.files {
            counts.errors += usize::from(file.error.is_some());
            for frame in &file.frames {
                counts.frames += 1;
                let slot = match frame.outcome {
                    Outcome::Passed => &mut counts.passed,
                    Outcome::Created => &mut counts.created,
                    Outcome::Updated(_) => &mut counts.updated,
                    Outcome::Failed { .. } => &mut counts.failed,
                    Outcome::Missing { .. } => &mut counts.missing,
                    Outcome::RenderError(_) => &mut counts.errors,
                    Outcome::WriteError(_) => &mut counts.write_errors,
                };
                *slot += 1;
            }
            for obsolete in &file.obsolete {
                counts.obsolete += 1;
                match obsolete.removed {
                    Ok(true) => counts.removed += 1,
                    Ok(false) => {}
                    Err(_) => counts.write_errors += 1,
                }
            }
        }
        counts
    }

    /// The run's verdict: write errors first, then failures.
    pub fn verdict(&self) -> Verdict {
        let counts = self.counts();
        let kept_obsolete = counts.obsolete - counts.removed;
        if counts.write_errors > 0 {
            Verdict::WriteError
        } else if counts.failed + counts.missing + counts.errors > 0 || (self.ci && kept_obsolete > 0) {
            Verdict::Failed
        } else {
            Verdict::Passed
        }
    }
}

/// Checks `files` one after another, the frames of each on all cores. `load` prepares a file
/// for rendering or says why it cannot be; `progress` hears about every file and frame.
pub fn run(
    files: &[PenFile],
    options: &Options,
    load: &dyn Fn(&PenFile) -> Result<Prepared, SnapshotError>,
    progress: &(dyn Fn(Progress) + Sync),
) -> Report {
    let started = Instant::now();
    let mut reports = Vec::new();
    let mut folders = HashMap::new();
    let diffs = Diffs { path: options.diff_dir.clone(), tree: std::sync::OnceLock::new() };
    for file in files {
        let loaded = match shared_folder(file, &options.theme, &mut folders) {
            Some(other) => {
                Err(SnapshotError::SharedFolder { folder: goldens::folder(&file.path, &options.theme), other })
            }
            None => load(file),
        };
        let report = match loaded {
            Ok(prepared) => check_file(file, &prepared, options, &diffs, progress),
            // A file that does not load has no frames to split: the shard its key falls to
            // reports it, so it fails exactly one job of a matrix.
            Err(error) if options.shard.owns(&file.key, "") => Some(FileReport {
                file: file.clone(),
                error: Some(error),
                warnings: Vec::new(),
                frames: Vec::new(),
                obsolete: Vec::new(),
            }),
            Err(_) => None,
        };
        reports.extend(report);
    }
    Report {
        files: reports,
        shard: options.shard,
        tolerance: options.tolerance,
        ci: options.ci,
        time: started.elapsed(),
    }
}

/// The file already using the goldens folder of `file`, when there is one (`design.pen` and
/// `Design.PEN` in one folder); else `file` takes it.
fn shared_folder(
    file: &PenFile,
    theme: &[(String, String)],
    folders: &mut HashMap<PathBuf, PathBuf>,
) -> Option<PathBuf> {
    let folder = goldens::folder(&file.path, theme);
    let parent = folder.parent().and_then(|p| crate::files::canonical(&p.parent()?.join(".")));
    let stem = folder.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let place = parent.unwrap_or_default().join(stem);
    match folders.get(&place) {
        Some(other) => Some(other.clone()),
        None => {
            folders.insert(place, file.path.clone());
            None
        }
    }
}

/// The folder of the diff images and renders of failures: created and opened once, when the
/// first failure needs it, and refused when it is itself a symbolic link.
struct Diffs {
    path: PathBuf,
    tree: std::sync::OnceLock<Result<Tree, SnapshotError>>,
}

impl Diffs {
    fn tree(&self) -> Result<&Tree, &SnapshotError> {
        self.tree
            .get_or_init(|| {
                Tree::create_unlinked(&self.path)
                    .map_err(|source| SnapshotError::DiffFolder { path: self.path.clone(), source: Arc::new(source) })
            })
            .as_ref()
    }
}

/// Where one file's pictures go. Goldens live below the design's folder, reached from the path
/// the run was given (links that stay inside it are followed there, as the walk followed them);
/// from `__snapshots__` down, and in the diff folder, no link is followed at all: those are
/// files a contributor controls, and a link could send a write or a removal anywhere.
struct Places<'a> {
    /// The design's folder, opened once.
    design: Result<Tree, SnapshotError>,
    /// `__snapshots__/<file stem>` relative to it.
    goldens: PathBuf,
    /// The diff folder.
    diffs: &'a Diffs,
    /// `<file key without .pen>` relative to it.
    failures: PathBuf,
}

impl Places<'_> {
    fn design(&self) -> Result<&Tree, &SnapshotError> {
        self.design.as_ref()
    }

    /// Writes the golden `name`; a design folder that cannot be opened is the reason.
    fn write_golden(&self, name: &str, bytes: &[u8]) -> Result<(), SnapshotError> {
        let relative = self.goldens.join(format!("{name}.png"));
        let tree = self.design().map_err(Clone::clone)?;
        tree.write(&relative, Links::Never, Durability::Durable, |file| std::io::Write::write_all(file, bytes))
            .map_err(|source| SnapshotError::Write { path: tree.path().join(&relative), source: Arc::new(source) })
    }

    fn read_golden(&self, name: &str) -> Result<Vec<u8>, FileError> {
        let tree = self.design().map_err(|e| FileError::io(&self.goldens, std::io::Error::other(e.to_string())))?;
        tree.read(&self.goldens.join(format!("{name}.png")), Links::Never, MAX_GOLDEN_BYTES)
    }

    /// Writes the diff image or render `file` of a failure; a diff folder that cannot be used
    /// is the reason.
    fn write_failure(&self, file: &str, bytes: &[u8]) -> Result<(), SnapshotError> {
        let relative = self.failures.join(file);
        let tree = self.diffs.tree().map_err(Clone::clone)?;
        tree.write(&relative, Links::Never, Durability::Replaceable, |out| std::io::Write::write_all(out, bytes))
            .map_err(|source| SnapshotError::Write { path: tree.path().join(&relative), source: Arc::new(source) })
    }

    /// Removes an image of an earlier failure; quietly, as there is usually none.
    fn remove_failure(&self, file: &str) {
        if self.diffs.path.exists()
            && let Ok(tree) = self.diffs.tree()
        {
            let _ = tree.remove_file(&self.failures.join(file), Links::Never);
        }
    }
}

/// The design folder of `file`, opened below the path it was found under.
fn design_folder(file: &PenFile) -> Result<Tree, SnapshotError> {
    let folder = match file.path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    let opened = Tree::open(&file.root).and_then(|root| {
        let normal = crate::files::lexical_normal(&folder);
        match normal.strip_prefix(crate::files::lexical_normal(&file.root)) {
            Ok(below) if !below.as_os_str().is_empty() => root.subtree(below, Links::Inside, false),
            _ => Ok(root),
        }
    });
    opened.map_err(|source| SnapshotError::DesignFolder { file: file.path.clone(), source: Arc::new(source) })
}

/// The frames of one loaded file this run owns, checked; `None` when it owns none of them and
/// no obsolete golden either.
fn check_file(
    file: &PenFile,
    prepared: &Prepared,
    options: &Options,
    diffs: &Diffs,
    progress: &(dyn Fn(Progress) + Sync),
) -> Option<FileReport> {
    let Prepared { compiled, diagnostics } = prepared;
    let mut warnings = diagnostics.to_vec();
    let all = compiled.frames();
    let names = goldens::names(&all);
    let current: HashSet<&str> = names.iter().map(String::as_str).collect();
    let folder = goldens::folder(&file.path, &options.theme);
    let goldens = goldens::relative_folder(&file.path, &options.theme);
    // Under a theme, failures go to `<key>@Mode=Dark/` as the goldens do.
    let mut failures = Path::new(&file.key).with_extension("").into_os_string();
    failures.push(goldens::theme_suffix(&options.theme));
    let failures = PathBuf::from(failures);
    let places = Places { design: design_folder(file), goldens, diffs, failures };
    let wanted = |name: &str, id: &str| options.frames.as_ref().is_none_or(|r| r.is_match(name) || r.is_match(id));
    let mut obsolete = Vec::new();
    let listed = match places.design() {
        Ok(tree) => goldens::stored(tree, &places.goldens).map(|stored| (tree, stored)),
        Err(error) => Err(error.clone()),
    };
    match listed {
        Ok((tree, stored)) => {
            for name in stored {
                if !current.contains(name.as_str()) && options.shard.owns(&file.key, &name) && wanted(&name, &name) {
                    let golden = folder.join(format!("{name}.png"));
                    let removed = if options.update {
                        let relative = places.goldens.join(format!("{name}.png"));
                        tree.remove_file(&relative, Links::Never)
                            .map(|()| true)
                            .map_err(|source| SnapshotError::Remove { path: golden.clone(), source: Arc::new(source) })
                    } else {
                        Ok(false)
                    };
                    obsolete.push(Obsolete { golden, removed });
                }
            }
        }
        // Every frame's golden will be unreadable too and fail with the reason.
        Err(error) => warnings.push(Diagnostic::warning("goldens", format!("the goldens cannot be listed: {error}"))),
    }
    let chosen: Vec<Frame> = all
        .into_iter()
        .filter(|frame| options.shard.owns(&file.key, &frame.id) && wanted(&frame.name, &frame.id))
        .collect();
    if chosen.is_empty() && obsolete.is_empty() {
        return None;
    }
    progress(Progress::File { key: &file.key, frames: chosen.len() });
    let render_options = RenderOptions::default();
    let frames = compiled.render_frames_into(&render_options, chosen, &|render| {
        let started = Instant::now();
        // A frame's index is its place among all the document's frames, as `names` is.
        let name = &names[render.frame.index];
        let target = Target {
            name,
            places: &places,
            golden: folder.join(format!("{name}.png")),
            diff: diffs.path.join(&places.failures).join(format!("{name}.diff.png")),
            actual: diffs.path.join(&places.failures).join(format!("{name}.actual.png")),
        };
        let report = target.check(render, options, started);
        progress(Progress::Frame);
        report
    });
    // Folders a fixed failure left empty would suggest there is something to look at.
    if diffs.path.exists()
        && let Ok(tree) = diffs.tree()
    {
        let mut empty = Some(places.failures.as_path());
        while let Some(folder) = empty.filter(|f| !f.as_os_str().is_empty()) {
            if !tree.remove_empty_folder(folder) {
                break;
            }
            empty = folder.parent();
        }
    }
    Some(FileReport { file: file.clone(), error: None, warnings, frames, obsolete })
}

/// The files of one frame.
struct Target<'a> {
    /// Its golden's file name, without `.png`.
    name: &'a str,
    /// Where its files go.
    places: &'a Places<'a>,
    /// Its golden.
    golden: PathBuf,
    /// The image of what changed, written when it fails.
    diff: PathBuf,
    /// Its render, written when it fails or has no golden it may create.
    actual: PathBuf,
}

impl Target<'_> {
    /// Compares one render with its golden and writes what the outcome asks for.
    fn check(self, render: FrameRender, options: &Options, started: Instant) -> FrameReport {
        let FrameRender { frame, image, warnings, time, .. } = render;
        let outcome = match image {
            Err(error) => Outcome::RenderError(error.to_string()),
            Ok(pixmap) => self.compare(&pixmap, options),
        };
        if matches!(outcome, Outcome::Passed | Outcome::Created | Outcome::Updated(_)) {
            // Images of an earlier failure would tell of a problem that is gone.
            self.places.remove_failure(&format!("{}.diff.png", self.name));
            self.places.remove_failure(&format!("{}.actual.png", self.name));
        }
        let time = time + started.elapsed();
        FrameReport { id: frame.id, name: frame.name, golden: self.golden, outcome, warnings, time }
    }

    fn compare(&self, pixmap: &Pixmap, options: &Options) -> Outcome {
        let bytes = encode_png(pixmap);
        let stored = match self.places.read_golden(self.name) {
            Ok(stored) => stored,
            Err(error) if error.is_not_found() && options.ci => {
                return match self.places.write_failure(&format!("{}.actual.png", self.name), &bytes) {
                    Ok(()) => Outcome::Missing { actual: self.actual.clone() },
                    Err(error) => Outcome::WriteError(format!("there is no golden, and {error}")),
                };
            }
            Err(error) if error.is_not_found() => {
                return match self.places.write_golden(self.name, &bytes) {
                    Ok(()) => Outcome::Created,
                    Err(error) => Outcome::WriteError(error.to_string()),
                };
            }
            Err(error) => return self.mismatch(Mismatch::Unreadable(error.to_string()), None, &bytes, options),
        };
        // Rendering is deterministic: the same bytes are the common case and need no decoding.
        if stored == bytes {
            return Outcome::Passed;
        }
        // A golden of another size that is large is not decoded (nor drawn into a diff image as
        // large): its header says enough. A 1 MB 16384 × 16384 golden took 2.18 GB to compare.
        let actual = (pixmap.width(), pixmap.height());
        if let Some(golden) = crate::render::image_dimensions(&stored)
            && golden != actual
            && u64::from(golden.0) * u64::from(golden.1) > MAX_COMPARED_PIXELS
        {
            let (width, height) = (golden.0.max(actual.0), golden.1.max(actual.1));
            let comparison = Comparison {
                width,
                height,
                differing: u64::from(width) * u64::from(height),
                antialiased: 0,
                resized: true,
                bounds: None,
            };
            let mismatch = Mismatch::Pixels { comparison, golden, actual, allowed: options.tolerance.max_share };
            return self.mismatch(mismatch, None, &bytes, options);
        }
        let approved = match decode_image(&stored) {
            Ok(approved) => approved,
            Err(reason) => return self.mismatch(Mismatch::Unreadable(reason.to_string()), None, &bytes, options),
        };
        let comparison = compare(&approved, pixmap, &options.tolerance);
        if comparison.passes(&options.tolerance) {
            return Outcome::Passed;
        }
        let mismatch = Mismatch::Pixels {
            comparison,
            golden: (approved.width(), approved.height()),
            actual: (pixmap.width(), pixmap.height()),
            allowed: options.tolerance.max_share,
        };
        // Drawn only when it is kept: an update has no use for it.
        let drawn = (!options.update).then(|| highlight(&approved, pixmap, &options.tolerance).1);
        self.mismatch(mismatch, drawn, &bytes, options)
    }

    /// A failing frame: its golden rewritten with `update`, else its render and the diff image
    /// (when the golden could be read) written for a person to look at.
    fn mismatch(&self, mismatch: Mismatch, drawn: Option<Pixmap>, bytes: &[u8], options: &Options) -> Outcome {
        if options.update {
            return match self.places.write_golden(self.name, bytes) {
                Ok(()) => Outcome::Updated(mismatch),
                Err(error) => Outcome::WriteError(format!("{mismatch}, and {error}")),
            };
        }
        let diff_name = format!("{}.diff.png", self.name);
        let diff = match drawn.map(|drawn| self.places.write_failure(&diff_name, &encode_png(&drawn))) {
            Some(Ok(())) => Some(self.diff.clone()),
            Some(Err(error)) => return Outcome::WriteError(format!("{mismatch}, and {error}")),
            None => {
                // A diff of an earlier run would show another golden.
                self.places.remove_failure(&diff_name);
                None
            }
        };
        match self.places.write_failure(&format!("{}.actual.png", self.name), bytes) {
            Ok(()) => Outcome::Failed { mismatch, diff, actual: self.actual.clone() },
            Err(error) => Outcome::WriteError(format!("{mismatch}, and {error}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pen_file(folder: &Path, name: &str) -> PenFile {
        PenFile { path: folder.join(name), key: name.to_owned(), root: folder.to_owned() }
    }

    fn places<'a>(file: &PenFile, diffs: &'a Diffs) -> Places<'a> {
        Places {
            design: design_folder(file),
            goldens: goldens::relative_folder(&file.path, &[]),
            diffs,
            failures: Path::new(&file.key).with_extension(""),
        }
    }

    fn diffs(path: PathBuf) -> Diffs {
        Diffs { path, tree: std::sync::OnceLock::new() }
    }

    #[test]
    fn a_golden_that_cannot_be_written_is_a_write_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        // A file where the goldens' folder should be: no folder can be made below it.
        std::fs::write(dir.path().join("__snapshots__"), "").unwrap();
        let file = pen_file(dir.path(), "d.pen");
        let diffs = diffs(dir.path().join("diffs"));
        let error = places(&file, &diffs).write_golden("home", b"png").unwrap_err();
        let golden = dir.path().join("__snapshots__/d/home.png");
        assert!(matches!(&error, SnapshotError::Write { path, .. } if *path == golden), "{error:?}");
        assert!(error.to_string().starts_with(&format!("cannot write {}: ", golden.display())), "{error}");
    }

    #[test]
    fn a_design_folder_that_cannot_be_opened_is_the_reason_of_its_golden_writes() {
        let dir = tempfile::tempdir().unwrap();
        let file = pen_file(&dir.path().join("gone"), "d.pen");
        let diffs = diffs(dir.path().join("diffs"));
        let error = places(&file, &diffs).write_golden("home", b"png").unwrap_err();
        assert!(matches!(&error, SnapshotError::DesignFolder { file: path, .. } if *path == file.path), "{error:?}");
        let start = format!("cannot open the folder of {}: ", file.path.display());
        assert!(error.to_string().starts_with(&start), "{error}");
    }

    #[test]
    fn a_diff_folder_that_cannot_be_made_is_the_reason_of_every_failure_image() {
        let dir = tempfile::tempdir().unwrap();
        let blocked = dir.path().join("diffs");
        std::fs::write(&blocked, "").unwrap();
        let file = pen_file(dir.path(), "d.pen");
        let diffs = diffs(blocked.clone());
        let places = places(&file, &diffs);
        for name in ["home.diff.png", "home.actual.png"] {
            let error = places.write_failure(name, b"png").unwrap_err();
            assert!(matches!(&error, SnapshotError::DiffFolder { path, .. } if *path == blocked), "{error:?}");
            assert!(error.to_string().starts_with(&format!("cannot use {}: ", blocked.display())), "{error}");
        }
    }

    #[test]
    fn files_that_do_not_load_or_share_a_goldens_folder_report_why() {
        let dir = tempfile::tempdir().unwrap();
        let files = [pen_file(dir.path(), "d.pen"), pen_file(dir.path(), "D.PEN")];
        let options = Options {
            tolerance: Tolerance::default(),
            update: false,
            ci: false,
            frames: None,
            shard: Shard::ALL,
            diff_dir: dir.path().join("diffs"),
            theme: Vec::new(),
        };
        let load = |file: &PenFile| -> Result<Prepared, SnapshotError> {
            crate::doc::io::read_file(&file.path)?;
            unreachable!("{} does not exist", file.path.display())
        };
        let report = run(&files, &options, &load, &|_| {});
        let errors: Vec<&SnapshotError> = report.files.iter().filter_map(|f| f.error.as_ref()).collect();
        assert!(matches!(errors[0], SnapshotError::Read(_)), "{:?}", errors[0]);
        assert!(errors[0].to_string().contains("d.pen"), "{}", errors[0]);
        let folder = dir.path().join("__snapshots__/D");
        assert!(
            matches!(errors[1], SnapshotError::SharedFolder { folder: f, other } if *f == folder && *other == files[0].path),
            "{:?}",
            errors[1]
        );
        assert!(errors[1].to_string().starts_with("its goldens would share the folder"), "{}", errors[1]);
        assert_eq!(report.verdict(), Verdict::Failed);
    }

    #[test]
    fn a_document_that_does_not_compile_says_where_with_its_hints_and_no_control_character() {
        let mut diagnostic =
            Diagnostic::new(crate::diagnostic::Severity::Error, "budget", "too many nodes in '\u{1b}[2K'")
                .at_pointer("/children/0")
                .with_hint("split the file");
        diagnostic.locate("{\n  \"children\": [\n    {}\n  ]\n}");
        let error = SnapshotError::Compile { path: "d.pen".into(), diagnostic: Box::new(diagnostic) };
        assert_eq!(error.to_string(), "d.pen:3:5: too many nodes in '\\u{1b}[2K'\n  hint: split the file");
    }
}
