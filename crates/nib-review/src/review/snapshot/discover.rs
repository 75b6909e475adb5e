//! Finding the `.pen` files under the paths `nib snapshot` is given: files as named, folders
//! walked in a sorted, repeatable order, with the folders that never hold designs (goldens,
//! version control, build output, hidden tools' state) left out and symbolic link loops cut.

use std::collections::HashSet;
use std::path::PathBuf;

use super::SnapshotError;
use crate::files::{FileError, PathKind, WalkError, WalkRules, find_files, first_sight, path_kind};

/// Folders never walked: goldens (`__snapshots__`), version control, build output and installed
/// packages. Folders whose name starts with a dot are skipped too. A path given on the command
/// line is walked whatever its name: only what is found below it is skipped.
pub(crate) const SKIPPED_FOLDERS: [&str; 4] = ["__snapshots__", ".git", "target", "node_modules"];

/// How many folders deep a walk goes. Real repositories stay far below; past it a tree is
/// almost surely a maze of links (the visited set stops loops, not long chains), and paths
/// approach the system's length limit.
pub const MAX_DEPTH: usize = 64;

/// A `.pen` file found under one of the paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PenFile {
    /// Its path, starting with the path it was found under (as given).
    pub path: PathBuf,
    /// Its path relative to that path, with `/` between folders (its file name when the file
    /// was given itself): the same on every machine and checkout, so it names the file in
    /// reports and decides its shard.
    pub key: String,
    /// The path it was found under (the folder holding it when the file was given itself):
    /// goldens are written below this folder only, so a link in the tree cannot lead them out.
    pub root: PathBuf,
}

/// The `.pen` files under `paths`, each once: a file given is taken as it is, a folder is
/// walked recursively with entries sorted by name. Paths are taken in the order given; a file
/// reached twice (two paths, or a link) is kept where it is first found.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PenFile>, SnapshotError> {
    let rules = WalkRules {
        wanted: |path| path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pen")),
        skipped_folders: &SKIPPED_FOLDERS,
        skip_hidden: true,
        max_depth: MAX_DEPTH,
        max_files: usize::MAX,
        strict: true,
    };
    let mut seen = HashSet::new();
    let mut found: Vec<PenFile> = Vec::new();
    for (number, root) in paths.iter().enumerate() {
        let before = found.len();
        match path_kind(root).map_err(SnapshotError::path)? {
            PathKind::File => {
                let name = root.file_name().map_or_else(|| root.to_string_lossy(), |n| n.to_string_lossy());
                let folder = match root.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
                    _ => PathBuf::from("."),
                };
                if first_sight(root, &mut seen) {
                    found.push(PenFile { path: root.clone(), key: name.into_owned(), root: folder });
                }
            }
            PathKind::Folder => {
                let files = find_files(root, rules, &mut seen).map_err(|error| match error {
                    WalkError::File(error) => SnapshotError::path(error),
                    WalkError::TooDeep { path, .. } => SnapshotError::TooDeep { path },
                })?;
                found.extend(files.into_iter().map(|file| PenFile {
                    path: file.path,
                    key: file.relative,
                    root: root.clone(),
                }));
            }
            PathKind::Other => {
                return Err(SnapshotError::path(FileError::NotRegular {
                    path: root.clone(),
                    kind: "neither a file nor a folder",
                }));
            }
        }
        // Two paths can hold files with the same relative path (a/x.pen and b/x.pen): the later
        // ones are told apart by the path's number, so reports and diff folders never collide.
        for index in before..found.len() {
            let key = found[index].key.clone();
            if found[..before].iter().any(|earlier| earlier.key == key) {
                found[index].key = format!("{}/{key}", number + 1);
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "{}").unwrap();
    }

    fn keys(found: &[PenFile]) -> Vec<&str> {
        found.iter().map(|f| f.key.as_str()).collect()
    }

    #[test]
    fn folders_are_walked_sorted_and_what_holds_no_designs_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in [
            "b.pen",
            "a/z.pen",
            "a/b/c.PEN",
            "notes.txt",
            "__snapshots__/b/old.pen",
            ".git/x.pen",
            ".hidden/y.pen",
            "target/t.pen",
            "node_modules/pkg/n.pen",
            ".b.pen.123.tmp",
            ".draft.pen",
        ] {
            touch(&root.join(name));
        }
        let found = discover(&[root.to_owned()]).unwrap();
        assert_eq!(keys(&found), ["a/b/c.PEN", "a/z.pen", "b.pen"]);
        assert_eq!(found[2].path, root.join("b.pen"));
        // A skipped folder given by name is walked.
        assert_eq!(keys(&discover(&[root.join("target")]).unwrap()), ["t.pen"]);
    }

    #[test]
    fn files_are_taken_as_given_and_each_file_only_once() {
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("x/design.pen"));
        touch(&dir.path().join("y/design.pen"));
        let found = discover(&[dir.path().join("x/design.pen"), dir.path().to_owned(), dir.path().join("y")]).unwrap();
        // x/design.pen was given first; the walk of the whole folder finds y/design.pen, and
        // the third path finds nothing new.
        assert_eq!(keys(&found), ["design.pen", "y/design.pen"]);
        let twice = discover(&[dir.path().join("x"), dir.path().join("y")]).unwrap();
        assert_eq!(keys(&twice), ["design.pen", "2/design.pen"]);
    }

    #[cfg(unix)]
    #[test]
    fn link_loops_end_and_linked_folders_are_walked_once() {
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("designs/a.pen"));
        std::os::unix::fs::symlink(dir.path(), dir.path().join("designs/loop")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("missing"), dir.path().join("designs/dangling")).unwrap();
        let found = discover(&[dir.path().to_owned()]).unwrap();
        assert_eq!(keys(&found), ["designs/a.pen"]);
    }

    #[test]
    fn a_missing_path_is_an_error_that_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let error = discover(&[dir.path().join("nope")]).unwrap_err();
        assert!(error.to_string().contains("nope"), "{error}");
    }
}
