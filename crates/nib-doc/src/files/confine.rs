//! Keeping paths inside one folder (the MCP server's root): `..`, absolute paths and symbolic
//! links that lead out are refused. The check runs where a file is read or written, with links
//! resolved at that moment, so a link changed after a path was named is still caught.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::{FileError, Links, Tree};

/// The folder every read and write must stay in.
#[derive(Debug, Clone)]
pub struct Confinement {
    root: PathBuf,
    /// The root, opened once: confined writes and reads go through it (see [`Tree`]), so a
    /// folder swapped for a link after a path was checked cannot send them elsewhere. `None`
    /// when the root could not be opened (it does not exist): every such access then fails.
    tree: Option<Arc<Tree>>,
}

impl PartialEq for Confinement {
    fn eq(&self, other: &Confinement) -> bool {
        self.root == other.root
    }
}

impl Eq for Confinement {}

impl Confinement {
    /// Confines to `root`, which is resolved and opened once (it must exist for links in it to
    /// resolve and for files in it to be written).
    pub fn new(root: &Path) -> Confinement {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| lexical_normal(root));
        let tree = Tree::open(&root).ok().map(Arc::new);
        Confinement { root, tree }
    }

    /// The open root, or the error of a root that could not be opened.
    pub(super) fn tree(&self) -> Result<&Tree, FileError> {
        self.tree.as_deref().ok_or_else(|| {
            FileError::io(
                &self.root,
                std::io::Error::new(std::io::ErrorKind::NotFound, "the root folder cannot be opened"),
            )
        })
    }

    /// `path` relative to the root (`..` taken away without touching the disk), or
    /// [`FileError::Outside`] when it names a place outside.
    pub(super) fn relative(&self, path: &Path) -> Result<PathBuf, FileError> {
        let normal = lexical_normal(path);
        match normal.strip_prefix(&self.root) {
            Ok(relative) if !relative.as_os_str().is_empty() => Ok(relative.to_owned()),
            _ => Err(FileError::Outside { path: path.to_owned(), root: self.root.clone() }),
        }
    }

    /// The content of the regular file at `path`, at most `limit` bytes, read through the open
    /// root: links are followed only while they stay inside it.
    pub fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
        let relative = self.relative(path)?;
        self.tree()?.read(&relative, Links::Inside, limit)
    }

    /// The folder at `path` inside the root, opened through the open root (links on the way
    /// followed while they stay inside), created with the folders above it when `create` says
    /// so.
    pub fn folder(&self, path: &Path, create: bool) -> Result<Tree, FileError> {
        let relative = if lexical_normal(path) == self.root { PathBuf::new() } else { self.relative(path)? };
        let tree = self.tree()?.subtree(&relative, Links::Inside, create)?;
        Ok(tree.named(path))
    }

    /// The folder, with symbolic links resolved.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` with `..` taken away and symbolic links resolved where the file or its folders
    /// exist, or [`FileError::Outside`] when that leads outside the root. A path that names a
    /// place outside before any link is followed is refused without looking at the disk, so an
    /// answer never tells whether a file outside exists.
    pub fn check(&self, path: &Path) -> Result<PathBuf, FileError> {
        let outside = || FileError::Outside { path: path.to_owned(), root: self.root.clone() };
        let normal = lexical_normal(path);
        if !normal.starts_with(&self.root) {
            return Err(outside());
        }
        let resolved = resolve_links(&normal);
        if !resolved.starts_with(&self.root) {
            return Err(outside());
        }
        Ok(resolved)
    }

    /// Like [`Confinement::check`] when `confinement` is given; otherwise `path` as it is.
    pub fn apply(confinement: Option<&Confinement>, path: &Path) -> Result<PathBuf, FileError> {
        match confinement {
            Some(confinement) => confinement.check(path),
            None => Ok(path.to_owned()),
        }
    }
}

/// `path` with `.` and `..` taken away without touching the disk (`..` above the root stays at
/// the root, as the operating system treats it).
pub fn lexical_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// `path` with symbolic links resolved: the longest part that exists is canonicalized and the
/// rest (a file about to be created) appended.
pub fn resolve_links(path: &Path) -> PathBuf {
    let mut existing = path.to_owned();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(&existing) {
            return rest.iter().rev().fold(canonical, |path, part: &std::ffi::OsString| path.join(part));
        }
        match (existing.file_name().map(ToOwned::to_owned), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_owned();
            }
            _ => return path.to_owned(),
        }
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    #[test]
    fn links_out_of_the_root_are_refused_where_they_are_followed() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("images")).unwrap();
        let confinement = Confinement::new(root.path());
        let inside = confinement.check(&confinement.root().join("a/b.png")).unwrap();
        assert!(inside.starts_with(confinement.root()));
        assert!(matches!(confinement.check(&confinement.root().join("images/x.png")), Err(FileError::Outside { .. })));
        assert!(matches!(
            confinement.check(&confinement.root().join("../elsewhere.pen")),
            Err(FileError::Outside { .. })
        ));
    }

    #[test]
    fn a_lexical_escape_is_refused_whether_or_not_the_file_exists() {
        let root = tempfile::tempdir().unwrap();
        let confinement = Confinement::new(root.path());
        let real = confinement.check(&confinement.root().join("../../etc/passwd")).unwrap_err().to_string();
        let ghost = confinement.check(&confinement.root().join("../../etc/no-such-file")).unwrap_err().to_string();
        assert!(real.contains("outside the folder") && ghost.contains("outside the folder"));
    }
}
