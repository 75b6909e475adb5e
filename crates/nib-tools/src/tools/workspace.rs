//! Open documents: where they live on disk, their imports, their resolved Scenes, and saving
//! them so that no work is ever held only in memory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::ToolError;
use super::board::Board;
use super::caller::Caller;
use super::claims::Fence;
use super::journal::Written;
use super::render_cache::RenderCache;
use crate::compile::{CompileOptions, Compiler};
use crate::doc::io::{read_document_bytes_within, write_atomic_within};
use crate::doc::{Document, LastStep, MAX_FILE_BYTES};
use crate::files::{
    Confinement, FileError, Revision, Writer, lexical_normal, read_regular, read_regular_in_chunks, resolve_links,
    write_atomic_with,
};
use crate::host::{DiskHost, Host};
use crate::images::{ImageProvider, OfflineImages};
use crate::layout::Layout;
use crate::resolve::{Scene, SceneOptions};
use crate::text::FontOptions;

/// The documents a session has open, by absolute path, and the most recently used one.
pub struct Workspace {
    root: PathBuf,
    /// Refuse paths outside `root` (the MCP server's setting).
    confined: Option<Confinement>,
    documents: Vec<OpenDocument>,
    current: Option<usize>,
    /// Where G() gets images: offline images unless set, so a library user never reaches the
    /// network by surprise; a user session sets [`crate::images::from_env`].
    pub images: Arc<dyn ImageProvider + Send + Sync>,
    /// Most statements per batch_design call.
    pub max_statements: usize,
    /// The bounds of one execute call.
    pub execute_limits: super::execute_state::ExecuteLimits,
    /// Which fonts text is measured and drawn with (set with [`Workspace::set_fonts`]).
    fonts: FontOptions,
    /// Makes the host each open document is compiled over.
    hosts: HostMaker,
    /// The nodes a person selected on the canvas of `nib serve`, which get_editor_state reports.
    selection: Option<Selection>,
    /// The execute snippets run, by editId, for retries.
    pub(super) snippets: super::execute_state::Snippets,
    /// The documents' locks the running call holds.
    pub(super) locks: super::sharing::CallLocks,
    /// Who makes the running call (set by [`super::call_as`]).
    pub(super) caller: Caller,
    /// The claims and the journal the sessions sharing this workspace share.
    board: Board,
}

/// Makes the host a document at a path is compiled over (its imports, fonts and images), with
/// the workspace's fonts and confinement.
pub(crate) type HostMaker =
    Arc<dyn Fn(&Path, &FontOptions, Option<&Confinement>) -> Arc<dyn Host + Send + Sync> + Send + Sync>;

/// The host of a document on disk: what it names is read beside it, inside the confinement.
fn disk_host(path: &Path, fonts: &FontOptions, confinement: Option<&Confinement>) -> Arc<dyn Host + Send + Sync> {
    Arc::new(DiskHost::new(path, fonts.clone()).confined(confinement.cloned()))
}

/// Nodes selected in one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The document's absolute path.
    pub path: PathBuf,
    /// The selected ids (or instance paths), in the order they were selected.
    pub ids: Vec<String>,
}

/// Most nodes one selection holds: a person selects a handful, a drag over a big page a few
/// thousand; more would make get_editor_state's answer longer than a model reads.
pub const MAX_SELECTED: usize = 1_000;

/// One open document.
pub struct OpenDocument {
    /// Its absolute path.
    pub path: PathBuf,
    /// The document.
    pub document: Document,
    /// Compiles it: its imports, Scenes, layouts, text engine and images, kept across
    /// revisions.
    pub compiler: Compiler<'static>,
    /// What nib noticed reading it (it opened anyway).
    pub problems: Vec<crate::diagnostic::Diagnostic>,
    /// The file's bytes as nib last read or wrote them, to notice edits by others.
    on_disk: Fingerprint,
    /// The file's metadata when its bytes were last found to be `on_disk`, once it had been
    /// left alone for a while: while it stays the same, reading the file again is not needed.
    settled: Option<Stamp>,
    /// Where saves must stay (the workspace's confinement), checked again at every save.
    confinement: Option<Confinement>,
    /// Screenshots drawn, answered again while what they show is unchanged.
    pub(super) screenshots: RenderCache,
    /// What another writer changed (`2 nodes added`) when this document was last reloaded for
    /// that: the undo history starts after it, and undo says so instead of going past it.
    pub(super) outside_change: Option<String>,
    /// The claims of other sessions than the running call's: its changes must stay out of them
    /// (found again at each look of a writing call).
    pub(super) fence: Fence,
    /// The name saves leave on the file: the running call's caller.
    writer: Option<Writer>,
    /// Writes saved during the running call, for the journal.
    pub(super) written: Vec<Written>,
    /// Changes another program made on disk, found during the running call: who (as far as
    /// known) and what.
    pub(super) outside: Vec<(String, Written)>,
    /// The layout problems of the last revision they were taken at: a write's answer says the
    /// ones it added (`introduced.rs`).
    pub(super) known_problems: Option<std::sync::Arc<super::introduced::KnownProblems>>,
}

/// Enough of a file's state to tell whether someone else changed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Fingerprint {
    hash: crate::hash::WordHash,
}

impl Fingerprint {
    fn of(bytes: &[u8]) -> Fingerprint {
        let mut fingerprint = Fingerprint::default();
        fingerprint.add(bytes);
        fingerprint
    }

    /// Takes `bytes` in after those seen so far.
    fn add(&mut self, bytes: &[u8]) {
        self.hash.add(bytes);
    }

    /// The fingerprint of the file now, read in chunks; `None` when it is gone or no longer a
    /// regular file of an allowed size (never blocks on a FIFO put in its place).
    fn of_file(path: &Path) -> Option<Fingerprint> {
        let mut fingerprint = Fingerprint::default();
        read_regular_in_chunks(path, MAX_FILE_BYTES as u64, |chunk| fingerprint.add(chunk)).ok()?;
        Some(fingerprint)
    }

    /// The revision of the bytes fingerprinted.
    fn revision(&self) -> Revision {
        Revision::of_hash(&self.hash)
    }
}

/// What the file system says of a file without reading it: which file it is, its size and when
/// it was last written. Every write changes the change time (which no tool can set back), an
/// atomic replace the inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    device: u64,
    inode: u64,
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

/// A stamp is trusted only when the file was last written longer ago than its file system's
/// times tick: a write in the same tick as the one before it could leave them unchanged. Times
/// in whole seconds (FAT ticks in 2 s) need this long; until then the file is read and hashed
/// on every call.
const SETTLED_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// The same for times with nanoseconds (ext4, btrfs, XFS, tmpfs, APFS), which tick with the
/// kernel's clock, a few milliseconds. Waiting 2 s there meant re-reading and hashing the whole
/// file on every call for 2 s after each save: a 1.5 MB file cost 2 ms a call, an agent's
/// screenshots right after its edits paid it every time.
const SETTLED_AFTER_FINE: std::time::Duration = std::time::Duration::from_millis(100);

impl Stamp {
    #[cfg(unix)]
    fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let metadata = std::fs::metadata(path).ok().filter(std::fs::Metadata::is_file)?;
        Some(Stamp {
            device: metadata.dev(),
            inode: metadata.ino(),
            len: metadata.len(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        })
    }

    /// Elsewhere the file is always read again.
    #[cfg(not(unix))]
    fn of(_path: &Path) -> Option<Stamp> {
        None
    }

    /// True when the file's last write (and change) lies further in the past than its times
    /// tick ([`SETTLED_AFTER_FINE`] with nanoseconds, else [`SETTLED_AFTER`]).
    fn is_settled(&self) -> bool {
        let at = |(secs, nanos): (i64, i64)| {
            std::time::Duration::new(u64::try_from(secs).unwrap_or(0), u32::try_from(nanos).unwrap_or(0))
        };
        let last = at(self.modified).max(at(self.changed));
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let fine = self.modified.1 != 0 || self.changed.1 != 0;
        now.saturating_sub(last) > if fine { SETTLED_AFTER_FINE } else { SETTLED_AFTER }
    }
}

/// The last step of a document's history and how to take it back and make it again.
#[derive(Clone, Copy)]
pub(super) struct Step {
    /// Takes it back: an undo for a change, a redo for an undo.
    pub revert: fn(&mut Document) -> bool,
    /// Makes it again after `revert`.
    pub again: fn(&mut Document) -> bool,
    /// What the error says became of it ("undone", "not redone").
    pub reverted: &'static str,
    /// Which step of the history it is once made: the last one made, or the last one undone.
    pub last: LastStep,
}

impl Step {
    /// A change made (a commit), taken back with an undo.
    pub const CHANGE: Step =
        Step { revert: Document::undo, again: Document::redo, reverted: "undone", last: LastStep::Made };
}

/// The error of a document `compiler` refused (it expands past its budget), with the details
/// as data (the limit, the node, its JSON pointer, the chain of instances) that the Scene's
/// error holds.
pub(super) fn refusal(
    compiler: &mut Compiler<'_>,
    document: &Document,
    refused: Box<crate::diagnostic::Diagnostic>,
) -> ToolError {
    let scene = compiler.partial_scene(document, SceneOptions::FULL);
    scene.error().map_or_else(|| ToolError::from(refused), ToolError::from)
}

/// The error of a save that did not happen: the limit the document would go past, when that
/// was the reason, with what to do about it.
fn save_refused(error: &crate::files::FileError, reverted: &str) -> ToolError {
    if let crate::files::FileError::Io { source, .. } = error
        && let Some(over) = crate::doc::over_limit(source)
    {
        return over_limit_refusal(over, reverted);
    }
    ToolError::new(format!("could not save: {error}; the change was {reverted}"))
        .with_hint("nothing was written; fix what the message names, then call the tool again")
        .caused_by(error)
}

/// The error of a change refused because the document would go past `over`.
fn over_limit_refusal(over: crate::doc::json::OverLimit, reverted: &str) -> ToolError {
    ToolError::new(format!("the change was not saved: {over}; it was {reverted}, and the file is unchanged"))
        .with_hint(over.hint())
}

/// Writes `document` to `path` atomically as it is printed, never holding the text whole, with
/// `writer`'s name on it; returns the fingerprint of what was written.
fn save_streaming(
    document: &Document,
    path: &Path,
    confinement: Option<&Confinement>,
    writer: Option<&Writer>,
) -> Result<Fingerprint, crate::files::FileError> {
    let mut fingerprint = Fingerprint::default();
    write_atomic_with(path, confinement, |file| {
        fingerprint = Fingerprint { hash: crate::doc::io::write_document_into(file, document, writer)? };
        Ok(())
    })?;
    Ok(fingerprint)
}

impl Workspace {
    /// A workspace resolving relative paths against `root`.
    pub fn new(root: impl Into<PathBuf>) -> Workspace {
        Workspace {
            root: root.into(),
            confined: None,
            documents: Vec::new(),
            current: None,
            images: Arc::new(OfflineImages),
            max_statements: crate::script::DEFAULT_MAX_STATEMENTS,
            execute_limits: super::execute_state::ExecuteLimits::DEFAULT,
            fonts: FontOptions::default(),
            hosts: Arc::new(disk_host),
            selection: None,
            snippets: Default::default(),
            locks: Default::default(),
            caller: Caller::anonymous("nib"),
            board: Board::default(),
        }
    }

    /// The claims and the journal of this workspace, for a server that ends sessions.
    pub fn board(&self) -> Board {
        self.board.clone()
    }

    /// Who makes the running call.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The same workspace compiling its documents over hosts `hosts` makes (a test's
    /// [`crate::host::MemoryHost`], a library user's own) instead of the disk beside them.
    pub fn with_hosts(mut self, hosts: HostMaker) -> Workspace {
        self.hosts = hosts;
        for open in &mut self.documents {
            open.compiler = Compiler::shared((self.hosts)(&open.path, &self.fonts, self.confined.as_ref()));
        }
        self
    }

    /// Which fonts text is measured and drawn with.
    pub fn fonts(&self) -> &FontOptions {
        &self.fonts
    }

    /// Measures and draws text with `fonts` from now on (open documents are compiled again).
    pub fn set_fonts(&mut self, fonts: FontOptions) {
        self.fonts = fonts;
        for open in &mut self.documents {
            open.compiler = Compiler::shared((self.hosts)(&open.path, &self.fonts, self.confined.as_ref()));
        }
    }

    /// The selection, when a person made one.
    pub fn selection(&self) -> Option<&Selection> {
        self.selection.as_ref()
    }

    /// Selects `ids` in the document at `path` (which becomes the current document, as the one a
    /// person is looking at); an empty list clears the selection. Ids the document does not have
    /// are refused, so an agent is never pointed at a node that is not there.
    pub fn select(&mut self, path: &str, ids: Vec<String>) -> Result<(), ToolError> {
        if ids.len() > MAX_SELECTED {
            return Err(ToolError::new(format!("{} nodes were selected; at most {MAX_SELECTED} can be", ids.len()))
                .with_hint("select fewer nodes, or their common parent"));
        }
        let (open, _) = self.document(Some(path))?;
        if !ids.is_empty() {
            let scene = open.scene(SceneOptions::FULL)?;
            if let Some(missing) = ids.iter().find(|id| scene.node_by_id(id).is_none()) {
                return Err(ToolError::new(format!("Node '{missing}' not found in {}", open.path.display()))
                    .with_hint("the document changed since the page drew it; select again"));
            }
        }
        let path = open.path.clone();
        self.selection = (!ids.is_empty()).then_some(Selection { path, ids });
        Ok(())
    }

    /// Runs `view` and then makes the document that was current before current again: the page
    /// of `nib serve` looks at documents without moving an agent's "current document". When no
    /// document was current, the one `view` used stays current.
    pub fn keeping_current<T>(&mut self, view: impl FnOnce(&mut Workspace) -> T) -> T {
        let before = self.current_path().map(Path::to_owned);
        let outcome = view(self);
        if let Some(before) = before {
            self.current = self.documents.iter().position(|d| d.path == before).or(self.current);
        }
        outcome
    }

    /// Reloads the open document at `path` when its file changed on disk (the revision goes
    /// up), without changing the current document; answers its revision, or `None` when it is
    /// not open or can no longer be read.
    pub fn refresh(&mut self, path: &Path) -> Option<u64> {
        if !self.documents.iter().any(|d| d.path == path) {
            return None;
        }
        let shown = path.display().to_string();
        let revision = self.keeping_current(|workspace| {
            workspace.document(Some(&shown)).ok().map(|(open, _)| open.document.revision())
        });
        // No session's answer said it: every session is told.
        let mut board = self.board.lock();
        for open in &mut self.documents {
            for (author, written) in open.outside.drain(..) {
                board.journal.record_outside(&author, None, written);
            }
        }
        revision
    }

    /// What outputs (pictures, exports) must not replace: every open document, and `also` (a
    /// document about to be opened).
    pub(crate) fn output_guard(&self, also: Option<&Path>) -> crate::files::OutputGuard {
        crate::files::OutputGuard::new(self.documents.iter().map(|d| d.path.as_path()).chain(also))
    }

    /// The folder relative paths are resolved against.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The same workspace, refusing every path that leads outside the root: `..` escapes,
    /// absolute paths elsewhere, and symbolic links pointing out of it.
    pub fn confined(mut self) -> Workspace {
        let confinement = Confinement::new(&self.root);
        self.root = confinement.root().to_owned();
        self.confined = Some(confinement);
        self
    }

    /// The folder every file must be in, when the workspace is confined.
    pub fn confinement(&self) -> Option<&Confinement> {
        self.confined.as_ref()
    }

    /// The bytes of the regular file at `path` (at most `limit`), read inside the workspace's
    /// confinement: a settings file beside a document (the lint's `nib-lint.json`).
    pub fn read_file(&self, path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
        match &self.confined {
            Some(confinement) => confinement.read(path, limit),
            None => read_regular(path, limit),
        }
    }

    /// Writes `bytes` to `output`, a file the caller asked for (a screenshot's outputPath),
    /// making its folder first, inside the workspace's confinement; the output guard has
    /// checked the path already. The error says which of the two failed.
    pub fn write_output_file(&self, output: &Path, bytes: &[u8]) -> Result<(), OutputFailure> {
        let confinement = self.confined.as_ref();
        if let Some(parent) = output.parent() {
            crate::files::create_folder(parent, confinement)
                .map_err(|error| OutputFailure::Folder { folder: parent.to_owned(), error })?;
        }
        crate::files::write_output(output, bytes, confinement).map_err(OutputFailure::File)
    }

    /// `path` made absolute (relative to the root), symbolic links resolved where the file or
    /// its folders exist. In a confined workspace a path outside the root is an error.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let given = Path::new(path);
        let joined = if given.is_absolute() { given.to_owned() } else { self.root.join(given) };
        let resolved = resolve_links(&lexical_normal(&joined));
        if self.confined.is_some() && !resolved.starts_with(&self.root) {
            return Err(ToolError::new(format!(
                "'{path}' is outside the folder this server works in ({})",
                self.root.display()
            ))
            .with_hint("use a path inside that folder, relative to it (e.g. designs/app.pen); start the server with --root to choose another folder"));
        }
        Ok(resolved)
    }

    /// Reads every open document again from its file, forgetting what is only in memory (undo
    /// history, caches); a file that cannot be read any more is closed. Used after a tool
    /// failed half way, when the disk holds the last state that is known to be whole.
    pub fn reload_all(&mut self) {
        self.locks.end();
        let current = self.current_path().map(Path::to_owned);
        let paths: Vec<PathBuf> = self.documents.drain(..).map(|d| d.path).collect();
        self.current = None;
        for path in paths {
            let _ = self.open(&path);
        }
        self.current = current.and_then(|path| self.documents.iter().position(|d| d.path == path));
    }

    /// Paths of the open documents, most recently opened last.
    pub fn open_paths(&self) -> Vec<&Path> {
        self.documents.iter().map(|d| d.path.as_path()).collect()
    }

    /// The most recently used document's path.
    pub fn current_path(&self) -> Option<&Path> {
        self.current.map(|i| self.documents[i].path.as_path())
    }

    /// Opens `path` (reloading it when already open), or returns the error that prevents it.
    pub fn open(&mut self, path: &Path) -> Result<&mut OpenDocument, ToolError> {
        let bytes = read_document_bytes_within(path, self.confinement()).map_err(|e| {
            let hint = if e.is_not_found() {
                "check the path; open_document creates a new file when the path does not exist"
            } else {
                "give the path of a regular .pen file nib may read"
            };
            ToolError::new(format!("cannot read {e}")).with_hint(hint).caused_by(&e)
        })?;
        let loaded = Document::load_bytes(&bytes).map_err(|e| {
            ToolError::new(format!("{} is not a valid .pen document: {e}", path.display()))
                .with_hint("fix the file (nib check shows every problem); nib never overwrites a file it cannot read")
        })?;
        let problems = loaded.problems.iter().map(crate::doc::Problem::diagnostic).collect();
        let open = OpenDocument {
            path: path.to_owned(),
            compiler: self.compiler_for(path, &loaded.document),
            document: loaded.document,
            problems,
            on_disk: Fingerprint::of(&bytes),
            settled: None,
            confinement: self.confined.clone(),
            screenshots: RenderCache::default(),
            outside_change: None,
            fence: Fence::default(),
            writer: None,
            written: Vec::new(),
            outside: Vec::new(),
            known_problems: None,
        };
        let index = match self.documents.iter().position(|d| d.path == path) {
            Some(index) => {
                let mut open = open;
                // A reload is a change like any other.
                open.document.follow_revision_of(&self.documents[index].document);
                // What the running call saved or found is still to be told.
                open.written = std::mem::take(&mut self.documents[index].written);
                open.outside = std::mem::take(&mut self.documents[index].outside);
                self.documents[index] = open;
                index
            }
            None => {
                self.documents.push(open);
                self.documents.len() - 1
            }
        };
        self.current = Some(index);
        Ok(&mut self.documents[index])
    }

    /// Adds a document that is already on disk as `bytes`.
    pub(super) fn adopt(&mut self, path: PathBuf, document: Document, bytes: &[u8]) -> &mut OpenDocument {
        let compiler = self.compiler_for(&path, &document);
        self.documents.retain(|d| d.path != path);
        self.documents.push(OpenDocument {
            path,
            document,
            compiler,
            problems: Vec::new(),
            on_disk: Fingerprint::of(bytes),
            settled: None,
            confinement: self.confined.clone(),
            screenshots: RenderCache::default(),
            outside_change: None,
            fence: Fence::default(),
            writer: None,
            written: Vec::new(),
            outside: Vec::new(),
            known_problems: None,
        });
        self.current = Some(self.documents.len() - 1);
        let last = self.documents.len() - 1;
        &mut self.documents[last]
    }

    /// A compiler for the document at `path`, its imports loaded now (as the file is read).
    fn compiler_for(&self, path: &Path, document: &Document) -> Compiler<'static> {
        let mut compiler = Compiler::shared((self.hosts)(path, &self.fonts, self.confined.as_ref()));
        compiler.imports(document);
        compiler
    }

    /// A workspace with this one's settings (root, confinement, image provider, limits, fonts)
    /// and no documents: what stands in for it while a call borrows it.
    pub(super) fn stand_in(&self) -> Workspace {
        Workspace {
            root: self.root.clone(),
            confined: self.confined.clone(),
            documents: Vec::new(),
            current: None,
            images: Arc::clone(&self.images),
            max_statements: self.max_statements,
            execute_limits: self.execute_limits,
            fonts: self.fonts.clone(),
            hosts: Arc::clone(&self.hosts),
            selection: None,
            snippets: Default::default(),
            locks: Default::default(),
            caller: self.caller.clone(),
            board: self.board.clone(),
        }
    }

    /// The open document at `path` (absolute, as [`OpenDocument::path`]) as it is in memory,
    /// without looking at the disk: for the steps of one call that checked the file once at its
    /// start (an execute snippet's operations).
    pub(super) fn already_open(&mut self, path: &Path) -> Option<&mut OpenDocument> {
        self.documents.iter_mut().find(|d| d.path == path)
    }

    /// The document a tool works on: `file_path` (opened on first use; reloaded when it
    /// changed on disk), or the most recently used one when `file_path` is `None`. The note says
    /// what was chosen or reloaded.
    pub fn document(&mut self, file_path: Option<&str>) -> Result<(&mut OpenDocument, Option<String>), ToolError> {
        let (path, mut note) = match file_path.filter(|p| !p.trim().is_empty()) {
            Some(file_path) => (self.resolve(file_path)?, None),
            None => {
                let index = self.current.ok_or_else(|| {
                    ToolError::new("no document is open")
                        .with_hint("call open_document with a .pen path, or pass filePath")
                })?;
                let path = self.documents[index].path.clone();
                let note = format!("No filePath was given; used the most recently opened document {}.", path.display());
                (path, Some(note))
            }
        };
        // A call that writes looks at the file, and changes and saves it, under its lock.
        self.locks.hold(&path)?;
        let index = match self.documents.iter().position(|d| d.path == path) {
            Some(index) => index,
            None => {
                self.open(&path)?;
                self.documents.len() - 1
            }
        };
        self.current = Some(index);
        let open = &mut self.documents[index];
        let stamp = Stamp::of(&path);
        // Reading and hashing a 1.7 MB file took 2 ms of every tool call.
        let on_disk = match stamp.is_some() && stamp == open.settled {
            true => Some(open.on_disk),
            false => Fingerprint::of_file(&path),
        };
        if on_disk == Some(open.on_disk) {
            open.settled = stamp.filter(Stamp::is_settled);
        }
        if on_disk != Some(self.documents[index].on_disk) {
            if on_disk.is_none() {
                return Err(ToolError::new(format!(
                    "{} can no longer be read as a document file: it was removed, replaced by something that is not a regular file, or grew past the size limit",
                    path.display()
                ))
                .with_hint("restore the file (open_document with its path creates it again, empty, when it is gone)"));
            }
            let writing = self.locks.applies_operations();
            // Kept to say what the other writer changed (the reload takes the revision on).
            let before = self.documents[index].document.clone();
            let open = self.open(&path)?;
            let (what, written) = super::sharing::what_changed(&before, &open.document, &path);
            // A writer that named itself left its name with the bytes it wrote.
            let author = crate::files::written_by(&path, open.on_disk.revision())
                .map_or_else(|| "another writer".to_owned(), |writer| writer.label());
            let reloaded = super::sharing::outside_change_note(&path, &what, &author, writing);
            open.outside_change = Some(what);
            open.outside.push((author, written));
            note = Some(match note {
                Some(note) => format!("{note} {reloaded}"),
                None => reloaded,
            });
        }
        // A call that writes stays out of other sessions' claims, and leaves its caller's name.
        if self.locks.writes() {
            let fence = self.board.lock().claims.fence(
                &self.caller,
                &path,
                &self.documents[index].document,
                std::time::Instant::now(),
            );
            let open = &mut self.documents[index];
            open.fence = fence;
            open.writer = Some(self.caller.writer.clone());
        }
        Ok((&mut self.documents[index], note))
    }

    /// The running call ended: what it saved (and the changes on disk it found) go into the
    /// journal, and the documents' fences are taken down.
    pub(super) fn end_call(&mut self) {
        let mut board = self.board.lock();
        for open in &mut self.documents {
            open.fence = Fence::default();
            open.writer = None;
            for written in open.written.drain(..) {
                board.journal.record(&self.caller.session, self.caller.name(), written);
            }
            for (author, written) in open.outside.drain(..) {
                board.journal.record_outside(&author, Some(&self.caller.session), written);
            }
        }
    }

    /// What other writers changed since the running call's caller was last told, in one line.
    pub(super) fn news(&mut self) -> Option<String> {
        let root = self.root.clone();
        let shown = |path: &PathBuf| path.strip_prefix(&root).unwrap_or(path).display().to_string();
        self.board.lock().journal.news_for(&self.caller.session, shown)
    }
}

impl OpenDocument {
    /// Writes the document to its file atomically. If that fails the last change is undone, so
    /// what is in memory stays what is on disk.
    pub fn save(&mut self) -> Result<(), ToolError> {
        self.save_or_revert(Step::CHANGE)
    }

    /// The revision of the file as this document was last read from it or saved to it.
    pub fn file_revision(&self) -> Revision {
        self.on_disk.revision()
    }

    /// Refuses the call when the file is not at `expected` (a writer's `ifRevision`): it was
    /// built on another version of the document. Nothing has been changed yet.
    pub fn expect_revision(&self, expected: Option<&str>) -> Result<(), ToolError> {
        let Some(expected) = expected.map(str::trim).filter(|e| !e.is_empty()) else { return Ok(()) };
        let now = self.file_revision();
        let Some(wanted) = Revision::parse(expected) else {
            return Err(ToolError::new(format!(
                "ifRevision '{expected}' is not a revision: a revision is {} hexadecimal digits, as fileRevision gives them; nothing was changed",
                crate::files::REVISION_DIGITS
            ))
            .with_hint(format!("{} is at revision {now}", self.path.display())));
        };
        if wanted == now {
            return Ok(());
        }
        Err(ToolError::new(format!(
            "{} is at revision {now}, not {wanted} (ifRevision): it changed since that version was read; nothing was changed",
            self.path.display()
        ))
        .with_hint("read the document again (its fileRevision is in get_editor_state), redo the change on what it holds now, and send it with the new ifRevision"))
    }

    /// Writes the document to its file atomically, unless it no longer fits nib's limits; if it
    /// cannot be written, `step.revert` takes the last step back (an undo for a change, a redo
    /// for an undo) and the error says it was `step.reverted`. Nothing nib would refuse to open
    /// is ever written: the text is counted against the reader's limits as it is printed
    /// (`Document::write_pen`), and a change that makes the instances expand past the
    /// document's budget is refused before anything is written.
    pub(super) fn save_or_revert(&mut self, step: Step) -> Result<(), ToolError> {
        if let Some(mut refusal) = self.fence.refusal(&self.document, &self.document.last_touches(step.last)) {
            (step.revert)(&mut self.document);
            refusal.message = format!("{}; it was {}, and nothing was saved", refusal.message, step.reverted);
            return Err(refusal);
        }
        if Fingerprint::of_file(&self.path).is_some_and(|f| f != self.on_disk) {
            (step.revert)(&mut self.document);
            return Err(ToolError::new(format!(
                "{} was changed by someone else since nib read it; the change was not saved",
                self.path.display()
            ))
            .with_hint("call the tool again: nib reloads the file first"));
        }
        if let Some(over) = self.document.past_node_limit() {
            (step.revert)(&mut self.document);
            return Err(over_limit_refusal(over, step.reverted));
        }
        self.check_expansion(step)?;
        match save_streaming(&self.document, &self.path, self.confinement.as_ref(), self.writer.as_ref()) {
            Ok(fingerprint) => {
                self.on_disk = fingerprint;
                self.settled = None;
                let written = super::sharing::what_was_written(&self.document, step.last, &self.path);
                self.written.push(written);
                Ok(())
            }
            Err(error) => {
                (step.revert)(&mut self.document);
                Err(save_refused(&error, step.reverted))
            }
        }
    }

    /// Refuses the last step when it takes the document's instance expansion past its budget
    /// (`nib check` would call the file invalid and every tool would refuse to show it). A
    /// document that was past the budget before the step (a file made elsewhere) may still be
    /// saved, so it can be repaired a step at a time.
    fn check_expansion(&mut self, step: Step) -> Result<(), ToolError> {
        let after = self.compiler.partial_scene(&self.document, SceneOptions::FULL);
        let Some(error) = after.error() else { return Ok(()) };
        let mut refusal: ToolError = error.into();
        (step.revert)(&mut self.document);
        if self.compiler.partial_scene(&self.document, SceneOptions::FULL).error().is_some() {
            (step.again)(&mut self.document);
            return Ok(());
        }
        refusal.message = format!(
            "the change was not saved: {}; it was {}, and the file is unchanged",
            refusal.message, step.reverted
        );
        Err(refusal)
    }

    /// Saves through the standard path; used for new files.
    pub(super) fn save_new(
        path: &Path,
        document: &Document,
        confinement: Option<&Confinement>,
    ) -> Result<Vec<u8>, ToolError> {
        let text = document.to_pen_string();
        write_atomic_within(path, text.as_bytes(), confinement)
            .map_err(|e| ToolError::new(format!("could not create the document: {e}")).caused_by(&e))?;
        Ok(text.into_bytes())
    }

    /// The Scene for `options` at the current revision, updated from the previous one; an
    /// error when the document expands past its budget (the Scene would be partial).
    pub fn scene(&mut self, options: SceneOptions) -> Result<Arc<Scene>, ToolError> {
        let scene = self.compiler.scene(&self.document, options);
        scene.map_err(|refused| refusal(&mut self.compiler, &self.document, refused))
    }

    /// The full Scene and its layout at the current revision, updated from the previous ones;
    /// an error when the document expands past its budget.
    pub fn layout(&mut self) -> Result<(Arc<Scene>, Arc<Layout>), ToolError> {
        let laid_out = self.compiler.layout(&self.document);
        laid_out.map_err(|refused| refusal(&mut self.compiler, &self.document, refused))
    }

    /// The Scene and layout that show the node `id`: the full ones when they are current,
    /// otherwise only its top-level part (see [`CompileOptions::parts_of`]).
    pub fn node_layout(&mut self, id: &str) -> Result<(Arc<Scene>, Arc<Layout>), ToolError> {
        let options = CompileOptions { parts_of: Some(vec![id.to_owned()]), ..CompileOptions::default() };
        let laid_out = self.compiler.compiled(&self.document, &options).map(|c| (c.scene, c.layout));
        laid_out.map_err(|refused| refusal(&mut self.compiler, &self.document, refused))
    }

    /// The screenshots drawn of this document.
    pub fn screenshots(&mut self) -> &mut RenderCache {
        &mut self.screenshots
    }

    /// The folder the document lives in.
    pub fn folder(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

/// Why [`Workspace::write_output_file`] wrote nothing.
#[derive(Debug)]
pub enum OutputFailure {
    /// The output's folder could not be made.
    Folder {
        /// The folder.
        folder: PathBuf,
        /// Why.
        error: FileError,
    },
    /// The file could not be written.
    File(FileError),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stamp whose file was last written `ago` before now, with or without nanoseconds.
    fn stamp(ago: std::time::Duration, fine: bool) -> Stamp {
        let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap() - ago;
        let nanos = if fine { i64::from(at.subsec_nanos().max(1)) } else { 0 };
        let time = (at.as_secs() as i64, nanos);
        Stamp { device: 1, inode: 1, len: 1, modified: time, changed: time }
    }

    #[test]
    fn a_stamp_is_trusted_once_its_file_system_clock_has_ticked_past_the_last_write() {
        use std::time::Duration;
        assert!(!stamp(Duration::from_millis(20), true).is_settled(), "a write this recent may share its tick");
        assert!(stamp(Duration::from_millis(300), true).is_settled(), "nanosecond times tick in milliseconds");
        assert!(!stamp(Duration::from_millis(800), false).is_settled(), "whole-second times need seconds");
        assert!(stamp(Duration::from_secs(4), false).is_settled());
    }
}
