//! The imports of a document on disk: the documents its `imports` name and the script files its
//! script nodes run, read relative to its folder and never outside the host's root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::doc::Document;
use crate::doc::io::read_document_bytes_within;
use crate::files::Confinement;
use crate::resolve::{Library, script_problem};

/// The documents a file imports, loaded from paths relative to it, and the script files its
/// script nodes run, read when first asked for. An import that cannot be loaded is left out and
/// reported; instances of its components then stay unresolved.
#[derive(Default)]
pub struct FileImports {
    documents: HashMap<String, Document>,
    /// Imports that could not be loaded, with the reason: warnings (code `import`) at the
    /// import's entry in the file (`/imports/alias`).
    pub problems: Vec<Diagnostic>,
    /// The document's folder, where script files are looked for.
    folder: PathBuf,
    /// The folder files must stay in, when confined.
    confinement: Option<Confinement>,
    /// Script files read so far, by the URI written.
    scripts: std::sync::Mutex<HashMap<String, Result<Arc<str>, Diagnostic>>>,
}

/// Largest script file read: a script that draws a chart is a few kilobytes.
pub const MAX_SCRIPT_FILE_BYTES: u64 = 1024 * 1024;

impl FileImports {
    /// Loads the imports of `document`, which lives at `path`.
    pub fn load(document: &Document, path: &Path) -> FileImports {
        FileImports::load_within(document, path, None)
    }

    /// Loads the imports of `document`, refusing files outside `root` when one is given.
    pub(crate) fn load_within(document: &Document, path: &Path, confinement: Option<&Confinement>) -> FileImports {
        let folder = path.parent().unwrap_or(Path::new("."));
        let mut imports =
            FileImports { folder: folder.to_owned(), confinement: confinement.cloned(), ..FileImports::default() };
        for (alias, relative) in document.imports().map(|i| i.iter().collect::<Vec<_>>()).unwrap_or_default() {
            // A library Pen bundles: a copy the user keeps beside the document or in a library
            // folder (one the user named is read wherever it is).
            if let Some(name) = relative.strip_prefix(super::libraries::BUNDLED_PREFIX) {
                let found = super::libraries::find(name, folder);
                let loaded = match &found {
                    Ok((path, false)) => read_document_bytes_within(path, confinement).map_err(|e| e.to_string()),
                    Ok((path, true)) => crate::doc::io::read_document_bytes(path).map_err(|e| e.to_string()),
                    Err(missing) => {
                        imports.problems.push(not_loaded(alias, missing.message(alias)).with_hint(missing.hint()));
                        continue;
                    }
                };
                let path = found.map(|(path, _)| path).unwrap_or_default();
                match loaded.and_then(|bytes| {
                    Document::load_bytes(&bytes).map_err(|error| format!("{}: {error}", path.display()))
                }) {
                    Ok(loaded) => {
                        imports.documents.insert(alias.to_owned(), loaded.document);
                    }
                    Err(error) => imports
                        .problems
                        .push(not_loaded(alias, format!("import '{alias}' ({relative}) was not loaded: {error}"))),
                }
                continue;
            }
            let file = match Confinement::apply(confinement, &folder.join(relative)) {
                Ok(file) => file,
                Err(_) => {
                    let root = confinement.map(|c| c.root().display().to_string()).unwrap_or_default();
                    imports.problems.push(not_loaded(
                        alias,
                        format!(
                            "import '{alias}' ({relative}) was not loaded: it is outside the folder nib serves ({root})"
                        ),
                    ));
                    continue;
                }
            };
            let loaded = read_document_bytes_within(&file, confinement)
                .map_err(|e| e.to_string())
                .and_then(|bytes| Document::load_bytes(&bytes).map_err(|error| format!("{}: {error}", file.display())));
            match loaded {
                Ok(loaded) => {
                    imports.documents.insert(alias.to_owned(), loaded.document);
                }
                Err(error) => imports
                    .problems
                    .push(not_loaded(alias, format!("import '{alias}' ({relative}) was not loaded: {error}"))),
            }
        }
        imports
    }
}

/// The warning that the import `alias` was not loaded, saying `message`, at its entry in the
/// file.
pub(super) fn not_loaded(alias: &str, message: String) -> Diagnostic {
    let escaped = alias.replace('~', "~0").replace('/', "~1");
    Diagnostic::warning("import", message).at_pointer(format!("/imports/{escaped}"))
}

impl Library for FileImports {
    fn imported(&self, alias: &str) -> Option<&Document> {
        self.documents.get(alias)
    }

    fn script(&self, uri: &str) -> Result<Arc<str>, Diagnostic> {
        let mut scripts = self.scripts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(read) = scripts.get(uri) {
            return read.clone();
        }
        let read = self.read_script(uri);
        scripts.insert(uri.to_owned(), read.clone());
        read
    }
}

impl FileImports {
    /// Reads the script file `uri`, relative to the document's folder (never from the network,
    /// never outside the confinement).
    fn read_script(&self, uri: &str) -> Result<Arc<str>, Diagnostic> {
        if uri.contains("://") || uri.starts_with("data:") {
            return Err(script_problem(format!("the script '{uri}' is not a file beside the document")).with_hint(
                "nib runs only local scripts: save it next to the document and name it by a relative path",
            ));
        }
        let path = self.folder.join(uri);
        let bytes = match &self.confinement {
            Some(confinement) => confinement.read(&path, MAX_SCRIPT_FILE_BYTES),
            None => crate::files::read_regular(&path, MAX_SCRIPT_FILE_BYTES),
        }
        .map_err(|e| script_problem(format!("the script '{uri}' cannot be read: {e}")))?;
        String::from_utf8(bytes)
            .map(Arc::from)
            .map_err(|_| script_problem(format!("the script '{uri}' is not UTF-8 text")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_import_that_cannot_be_read_is_a_warning_at_its_entry() {
        let document = Document::load(r#"{"version":"2.9","imports":{"my/kit":"kit.pen"},"children":[]}"#)
            .expect("loads")
            .document;
        let imports = FileImports::load(&document, Path::new("/nonexistent-nib-folder/a.pen"));
        let [problem] = imports.problems.as_slice() else { panic!("{:?}", imports.problems) };
        assert_eq!(problem.code, "import");
        assert_eq!(problem.severity, crate::diagnostic::Severity::Warning);
        assert_eq!(problem.span.as_ref().map(|s| s.pointer.as_str()), Some("/imports/my~1kit"));
        assert!(problem.message.starts_with("import 'my/kit' (kit.pen) was not loaded: "), "{problem}");
    }
}
