//! What an output may replace. A picture or an export written over a document destroys it
//! (`nib render d.pen -o d.pen` turned the design into a PNG, and under `nib serve` its undo
//! history went with it): every output path is checked here before anything is rendered or
//! written, by the command line and the tools alike.
//!
//! Refused: a `.pen` file (any letter case, `.lib.pen` too), the path of a document in use (the
//! one being rendered, every document a server has open) however it is spelled — `./d.pen`,
//! `sub/../d.pen`, a link to it — and, for a file the user named, a name whose extension is not
//! one of the format's.

use std::path::{Path, PathBuf};

use super::{FileError, lexical_normal, resolve_links};

/// The documents outputs must not replace, and the check.
#[derive(Debug, Clone, Default)]
pub struct OutputGuard {
    /// The documents, absolute, with links resolved.
    documents: Vec<PathBuf>,
}

impl OutputGuard {
    /// A guard protecting `documents` (paths as given; they are made absolute and resolved).
    pub fn new<'a>(documents: impl IntoIterator<Item = &'a Path>) -> OutputGuard {
        OutputGuard { documents: documents.into_iter().map(resolved).collect() }
    }

    /// Refuses `path` as an output when it is a document or one in use, or, when `extensions`
    /// is given (a file the user named), when its extension is none of them (compared without
    /// letter case; the first is the one the hint suggests).
    pub fn check(&self, path: &Path, extensions: Option<&[&str]>) -> Result<(), FileError> {
        let refuse = |reason: String| Err(FileError::OutputRefused { path: path.to_owned(), reason });
        let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        let wanted = extensions.and_then(|e| e.first()).copied().unwrap_or("png");
        if name.ends_with(".pen") {
            return refuse(format!(
                "it is a .pen document, and an output never replaces a document: name a .{wanted} file, e.g. exports/frame.{wanted}"
            ));
        }
        if self.documents.contains(&resolved(path)) {
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

/// `path` absolute, `..` taken away and links resolved where it exists.
fn resolved(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or_else(|_| path.to_owned())
    };
    resolve_links(&lexical_normal(&absolute))
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
}
