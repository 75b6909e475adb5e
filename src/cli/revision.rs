//! Documents named on the command line as a file or as `REV:path`, a version of a file in the
//! git repository of the working directory, read with `git show REV:path`.

use std::path::{Path, PathBuf};
use std::process::Command;

use nib::diagnostic::Diagnostic;
use nib::doc::{Document, MAX_FILE_BYTES};

/// Where a document comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file on disk.
    File(PathBuf),
    /// A file as it is in a git revision: `HEAD~1:design.pen`, `main:docs/a.pen`, `:a.pen`
    /// (the staged version).
    Revision { rev: String, path: String },
}

impl Source {
    /// Reads `argument`: an existing file is a file; otherwise `X:path` is a revision, unless
    /// `X` is a single drive letter followed by a path separator (`C:\design.pen`).
    pub fn parse(argument: &str) -> Source {
        if Path::new(argument).exists() || is_drive_path(argument) {
            return Source::File(argument.into());
        }
        match argument.split_once(':') {
            Some((rev, path)) if !path.is_empty() => Source::Revision { rev: rev.to_owned(), path: path.to_owned() },
            _ => Source::File(argument.into()),
        }
    }

    /// The path the document's relative references (imports, images) are resolved from: the
    /// file, or for a revision the path it has in the working tree.
    pub fn path(&self) -> PathBuf {
        match self {
            Source::File(path) => path.clone(),
            Source::Revision { path, .. } => PathBuf::from(path),
        }
    }

    /// Loads the document; the error says why, for standard error.
    pub fn load(&self) -> Result<Document, Diagnostic> {
        match self {
            Source::File(path) => nib::doc::io::read_file(path).map(|loaded| loaded.document).map_err(|e| match e {
                nib::doc::io::ReadError::Load { path, error } => error.diagnostic(Some(&path)),
                nib::doc::io::ReadError::File(error) => Diagnostic::error("file", error.to_string()),
            }),
            Source::Revision { rev, path } => {
                let bytes = git_show(rev, path)?;
                let named = Path::new(&format!("{rev}:{path}")).to_owned();
                Document::load_bytes(&bytes).map(|loaded| loaded.document).map_err(|e| e.diagnostic(Some(&named)))
            }
        }
    }
}

fn is_drive_path(argument: &str) -> bool {
    let bytes = argument.as_bytes();
    bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && matches!(bytes[2], b'/' | b'\\')
}

/// The content of `path` at `rev`, from the repository of the working directory.
fn git_show(rev: &str, path: &str) -> Result<Vec<u8>, Diagnostic> {
    let error = |message: String| Diagnostic::error("git", message);
    if rev.starts_with('-') {
        return Err(error(format!("'{rev}:{path}': a revision cannot start with '-'")));
    }
    let output = Command::new("git").arg("show").arg(format!("{rev}:{path}")).output().map_err(|failure| {
        if failure.kind() == std::io::ErrorKind::NotFound {
            error(format!("'{rev}:{path}' names a git revision, but git is not installed (or not on PATH)"))
                .with_hint("install git, or give the old version as a file")
        } else {
            error(format!("cannot run git to read '{rev}:{path}': {failure}"))
        }
    })?;
    if !output.status.success() {
        let message = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        return Err(error(format!("git cannot read '{rev}:{path}': {message}")).with_hint(
            "run nib inside the repository; the path is relative to its top folder (or starts with ./), e.g. HEAD~1:design.pen",
        ));
    }
    if output.stdout.len() > MAX_FILE_BYTES {
        let message = format!("'{rev}:{path}' is {} bytes; the limit is {MAX_FILE_BYTES} bytes", output.stdout.len());
        return Err(Diagnostic::error("file", message));
    }
    Ok(output.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_files_and_drive_letters() {
        assert_eq!(
            Source::parse("HEAD~1:design.pen"),
            Source::Revision { rev: "HEAD~1".into(), path: "design.pen".into() }
        );
        assert_eq!(Source::parse(":a.pen"), Source::Revision { rev: String::new(), path: "a.pen".into() });
        assert_eq!(Source::parse("C:\\work\\a.pen"), Source::File("C:\\work\\a.pen".into()));
        assert_eq!(Source::parse("d:/a.pen"), Source::File("d:/a.pen".into()));
        assert_eq!(Source::parse("plain.pen"), Source::File("plain.pen".into()));
        assert_eq!(Source::parse("HEAD:"), Source::File("HEAD:".into()));
    }
}
