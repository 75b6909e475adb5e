//! What an output may replace. A picture or an export written over a document destroys it
//! (`nib render d.pen -o d.pen` turned the design into a PNG, and under `nib serve` its undo
//! history went with it): every output path is checked here before anything is rendered or
//! written, by the command line and the tools alike.
//!
//! Refused: a `.pen` file (any letter case, `.lib.pen` too), the path of a document in use (the
//! one being rendered, every document a server has open) however it is spelled — `./d.pen`,
//! `sub/../d.pen`, a link to it — and, for a file the user named, a name whose extension is not
//! one of the format's.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Confinement, Durability, FileError, Links, Tree, kind_of, lexical_normal, resolve_links};

/// The documents outputs must not replace, and the check.
#[derive(Debug, Clone, Default)]
pub struct OutputGuard {
    /// The documents, absolute, with links resolved.
    documents: Vec<PathBuf>,
}

impl OutputGuard {
    /// A guard protecting `documents` (paths as given; they are made absolute and resolved).
    pub fn new<'a>(documents: impl IntoIterator<Item = &'a Path>) -> OutputGuard {
        OutputGuard { documents: documents.into_iter().map(absolute_resolved).collect() }
    }

    /// Refuses `path` as an output when it is a document or one in use, or, when `extensions`
    /// is given (a file the user named), when its extension is none of them (compared without
    /// letter case; the first is the one the hint suggests).
    pub fn check(&self, path: &Path, extensions: Option<&[&str]>) -> Result<(), FileError> {
        self.check_resolved(path, &absolute_resolved(path), extensions)
    }

    /// [`OutputGuard::check`] of `path`, whose absolute form with links resolved is `resolved`.
    fn check_resolved(&self, path: &Path, resolved: &Path, extensions: Option<&[&str]>) -> Result<(), FileError> {
        let refuse = |reason: String| Err(FileError::OutputRefused { path: path.to_owned(), reason });
        let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        let wanted = extensions.and_then(|e| e.first()).copied().unwrap_or("png");
        if name.ends_with(".pen") {
            return refuse(format!(
                "it is a .pen document, and an output never replaces a document: name a .{wanted} file, e.g. exports/frame.{wanted}"
            ));
        }
        if self.documents.iter().any(|document| document == resolved) {
            return refuse(format!(
                "it is a document nib has open, and an output never replaces a document: name a .{wanted} file, e.g. exports/frame.{wanted}"
            ));
        }
        if let Some(extensions) = extensions
            && !extensions.iter().any(|extension| name.ends_with(&format!(".{}", extension.to_lowercase())))
        {
            let listed: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
            return refuse(format!(
                "this format writes {} files, and a name without that extension is taken for a mistake: name it e.g. {}",
                listed.join(" or "),
                Path::new(&name).with_extension(wanted).display()
            ));
        }
        Ok(())
    }
}

/// Folders an export never looks into for what stands in its way: a React project's installed
/// packages (links are normal there, and nib never writes into it) and a repository's own data.
const NOT_SCANNED: [&str; 2] = ["node_modules", ".git"];

/// Most entries of an output folder looked at before an export writes into it. Past it the
/// scan stops; every write still refuses a link or special file where it lands.
pub const MAX_SCANNED_ENTRIES: usize = 100_000;

/// The folder an export writes its files into, opened once; every file below it is written
/// through that open folder and no link on the way is followed.
///
/// A link committed inside `src/design/` (`components/Card.tsx` pointing at a file elsewhere,
/// `fonts` at another folder) would otherwise turn a CI export into a write anywhere the job
/// may write. The folder itself is the one the caller named (links in its own path are the
/// caller's choice); under a confinement it must lead inside.
#[derive(Debug)]
pub struct OutputFolder {
    tree: Tree,
    /// The folder, absolute with links resolved: a file below it is that and its name (no
    /// link below is followed), so each file is checked against the documents without
    /// resolving its path again (nine failed `readlink`s a file, a third of a 50,000-file
    /// React export's system time).
    resolved: PathBuf,
    /// What no file written here may replace.
    guard: OutputGuard,
}

impl OutputFolder {
    /// Opens the folder at `path` to write into, creating it (and those above it) when
    /// missing, after looking through what it holds: a symbolic link, a FIFO, a device or a
    /// socket anywhere below it (but in `node_modules` and `.git`) refuses the export before
    /// anything is written, so a refusal leaves every file as it was.
    pub fn prepare(
        path: &Path,
        confinement: Option<&Confinement>,
        guard: &OutputGuard,
    ) -> Result<OutputFolder, FileError> {
        let folder = OutputFolder::open(path, confinement, guard)?;
        let (in_the_way, debris) = look_through(path);
        if let Some((found, kind)) = in_the_way {
            return Err(FileError::InOutputFolder { path: found, kind, folder: path.to_owned() });
        }
        // What killed runs left: their temporary files, when no process holds them.
        for relative in debris {
            let (parent, name) = (relative.parent().unwrap_or(Path::new("")), relative.file_name());
            if let (Ok(below), Some(name)) = (folder.tree.subtree(parent, Links::Never, false), name) {
                super::temporary::remove_if_abandoned(below.dir(), &name.to_string_lossy());
            }
        }
        Ok(folder)
    }

    /// Opens the folder at `path` (created when missing) to write one file into: the folder
    /// the file is named in, which may hold anything else.
    pub fn open(
        path: &Path,
        confinement: Option<&Confinement>,
        guard: &OutputGuard,
    ) -> Result<OutputFolder, FileError> {
        let tree = match confinement {
            Some(confinement) => confinement.folder(path, true)?,
            None => Tree::create(path)?,
        };
        Ok(OutputFolder { tree, resolved: absolute_resolved(path), guard: guard.clone() })
    }

    /// Refuses `name` when a link or special file stands there (or on the way): said before
    /// anything is drawn, not after.
    pub fn refuse_in_the_way(&self, name: &str) -> Result<(), FileError> {
        match self.compare(name, &[]) {
            Standing::InTheWay { path, kind } => {
                Err(FileError::InOutputFolder { path, kind, folder: self.path().to_owned() })
            }
            _ => Ok(()),
        }
    }

    /// The folder at `path` as it is, to compare files with (`--check`); `None` when it does
    /// not exist.
    pub fn existing(path: &Path, confinement: Option<&Confinement>) -> Result<Option<OutputFolder>, FileError> {
        let opened = match confinement {
            Some(confinement) => confinement.folder(path, false),
            None => Tree::open(path),
        };
        match opened {
            Ok(tree) => {
                Ok(Some(OutputFolder { tree, resolved: absolute_resolved(path), guard: OutputGuard::default() }))
            }
            Err(error) if error.is_not_found() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// The folder, as named.
    pub fn path(&self) -> &Path {
        self.tree.path()
    }

    /// Replaces the file `name` (relative, `/` between folders) with `bytes`, refusing a link
    /// or special file on the way or as the file itself ([`Links::Never`]), and a document
    /// ([`OutputGuard`]).
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<(), FileError> {
        let path = self.path().join(name);
        self.guard.check_resolved(&path, &lexical_normal(&self.resolved.join(name)), None)?;
        self.tree.write(Path::new(name), Links::Never, Durability::Replaceable, |file| file.write_all(bytes))
    }

    /// What stands at `name` now, compared with `bytes`.
    pub fn compare(&self, name: &str, bytes: &[u8]) -> Standing {
        match self.tree.read(Path::new(name), Links::Never, u64::try_from(bytes.len()).unwrap_or(u64::MAX)) {
            Ok(there) if there == bytes => Standing::Same,
            Ok(_) | Err(FileError::TooLarge { .. }) => Standing::Differs,
            Err(error) if error.is_not_found() => Standing::Missing,
            Err(FileError::Link { path }) => Standing::InTheWay { path, kind: "a symbolic link" },
            Err(FileError::NotRegular { path, kind }) => Standing::InTheWay { path, kind },
            Err(error) => Standing::Unreadable(error),
        }
    }
}

/// What stands where an export would write a file.
#[derive(Debug)]
pub enum Standing {
    /// The file, as the export would write it.
    Same,
    /// A file with other content.
    Differs,
    /// Nothing.
    Missing,
    /// Something no export writes through or over: a link (the file's or a folder's on the
    /// way), a folder, a FIFO, a device or a socket.
    InTheWay {
        /// What is in the way.
        path: PathBuf,
        /// What it is, in words ("a FIFO (named pipe)").
        kind: &'static str,
    },
    /// The file could not be read.
    Unreadable(FileError),
}

/// The first link or special file below `folder` in name order (folders in [`NOT_SCANNED`]
/// not entered, at most [`MAX_SCANNED_ENTRIES`] looked at), with what it is, and the paths
/// (relative to `folder`) of the files named as nib names its temporary files.
fn look_through(folder: &Path) -> (Option<(PathBuf, &'static str)>, Vec<PathBuf>) {
    let walk = walkdir::WalkDir::new(folder)
        .follow_links(false)
        .sort_by_file_name()
        .min_depth(1)
        .into_iter()
        .filter_entry(|entry| !(entry.file_type().is_dir() && NOT_SCANNED.iter().any(|n| entry.file_name() == *n)));
    let mut debris = Vec::new();
    for entry in walk.take(MAX_SCANNED_ENTRIES).flatten() {
        let kind = entry.file_type();
        if kind.is_dir() {
            continue;
        }
        if kind.is_file() {
            if super::temporary::temporary_for(&entry.file_name().to_string_lossy()).is_some()
                && let Ok(relative) = entry.path().strip_prefix(folder)
            {
                debris.push(relative.to_owned());
            }
            continue;
        }
        let kind = if kind.is_symlink() { "a symbolic link" } else { kind_of(kind) };
        return (Some((entry.into_path(), kind)), debris);
    }
    (None, debris)
}

/// `path` absolute, `..` taken away and links resolved where it exists.
pub(super) fn absolute_resolved(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or_else(|_| path.to_owned())
    };
    resolve_links(&lexical_normal(&absolute))
}

/// What an export sees of a folder before deciding whether to write an app's files into it:
/// whether the folder holds anything, and the bytes of its file `name` when that is a regular
/// file (not a link) of at most `limit` bytes — a FIFO there cannot block the look.
pub fn glance_into(folder: &Path, name: &str, limit: u64) -> (bool, Option<Vec<u8>>) {
    let has_entries = std::fs::read_dir(folder).is_ok_and(|mut entries| entries.next().is_some());
    let path = folder.join(name);
    let is_plain_file = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= limit);
    (has_entries, is_plain_file.then(|| super::read_regular(&path, limit).ok()).flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_and_pen_files_are_never_outputs() {
        let folder = tempfile::tempdir().unwrap();
        let document = folder.path().join("d.pen");
        std::fs::write(&document, "{}").unwrap();
        let guard = OutputGuard::new([document.as_path()]);
        for path in [document.clone(), folder.path().join("sub/../d.pen"), folder.path().join("other.PEN")] {
            let error = guard.check(&path, Some(&["png"])).unwrap_err().to_string();
            assert!(error.contains("never replaces a document"), "{error}");
        }
        #[cfg(unix)]
        {
            let link = folder.path().join("shot.png");
            std::os::unix::fs::symlink(&document, &link).unwrap();
            assert!(guard.check(&link, Some(&["png"])).is_err());
        }
        assert!(guard.check(&folder.path().join("frame.png"), Some(&["png"])).is_ok());
        assert!(guard.check(&folder.path().join("frame.PNG"), Some(&["png"])).is_ok());
    }

    #[test]
    fn a_named_file_must_carry_the_format_extension() {
        let guard = OutputGuard::default();
        let error = guard.check(Path::new("notes.txt"), Some(&["jpg", "jpeg"])).unwrap_err().to_string();
        assert!(error.contains(".jpg or .jpeg") && error.contains("notes.jpg"), "{error}");
        assert!(guard.check(Path::new("shot"), Some(&["png"])).is_err());
        assert!(guard.check(Path::new("a.jpeg"), Some(&["jpg", "jpeg"])).is_ok());
        // Names nib makes itself are not held to one extension.
        assert!(guard.check(Path::new("site/fonts/inter.woff2"), None).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn an_output_folder_with_a_link_inside_is_refused_before_anything_is_written() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("victim.txt"), b"keep").unwrap();
        for (planted, target, written) in
            [("components/Card.tsx", "victim.txt", "components/Card.tsx"), ("fonts", "", "fonts/inter.woff2")]
        {
            let out = tempfile::tempdir().unwrap();
            let link = out.path().join(planted);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            symlink(outside.path().join(target), &link).unwrap();
            let error = OutputFolder::prepare(out.path(), None, &OutputGuard::default()).unwrap_err();
            assert!(matches!(&error, FileError::InOutputFolder { path, .. } if *path == link), "{error}");
            assert!(error.to_string().contains("a symbolic link"), "{error}");
            // Writing through the link is refused however the folder was opened.
            let tree = OutputFolder::open(out.path(), None, &OutputGuard::default()).unwrap();
            assert!(matches!(tree.write(written, b"x"), Err(FileError::Link { .. })));
            assert!(matches!(tree.compare(written, b"x"), Standing::InTheWay { kind: "a symbolic link", .. }));
        }
        assert_eq!(std::fs::read(outside.path().join("victim.txt")).unwrap(), b"keep");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_output_folder_loses_what_killed_runs_left_when_it_is_prepared() {
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir(out.path().join("components")).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
        let names = [
            "components/.Card.tsx.0123456789abcdef.tmp",
            ".01-Card.png.Ab3xYz.tmp",
            ".02-Home.png.00000000000000ff.tmp",
            "01-Card.png",
        ];
        for name in names {
            std::fs::write(out.path().join(name), b"x").unwrap();
        }
        for name in &names[..2] {
            std::fs::File::options().write(true).open(out.path().join(name)).unwrap().set_modified(old).unwrap();
        }
        OutputFolder::prepare(out.path(), None, &OutputGuard::default()).unwrap();
        assert!(!out.path().join(names[0]).exists() && !out.path().join(names[1]).exists());
        assert!(out.path().join(names[2]).exists(), "too young to be sure no run is writing it");
        assert!(out.path().join(names[3]).exists());
    }

    #[cfg(unix)]
    #[test]
    fn check_says_what_stands_where_a_file_should_be() {
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir(out.path().join("page.html")).unwrap();
        let fifo = out.path().join("style.css");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        std::fs::write(out.path().join("same.txt"), b"abc").unwrap();
        let folder = OutputFolder::existing(out.path(), None).unwrap().unwrap();
        assert!(matches!(folder.compare("page.html", b"x"), Standing::InTheWay { kind: "a folder", .. }));
        assert!(matches!(folder.compare("style.css", b"x"), Standing::InTheWay { kind: "a FIFO (named pipe)", .. }));
        assert!(matches!(folder.compare("same.txt", b"abc"), Standing::Same));
        assert!(matches!(folder.compare("same.txt", b"ab"), Standing::Differs));
        assert!(matches!(folder.compare("same.txt", b"abcd"), Standing::Differs));
        assert!(matches!(folder.compare("gone.txt", b"abc"), Standing::Missing));
        assert!(OutputFolder::existing(&out.path().join("none"), None).unwrap().is_none());
        let error = OutputFolder::prepare(out.path(), None, &OutputGuard::default()).unwrap_err();
        assert!(error.to_string().contains("a FIFO"), "{error}");
    }
}
