//! A host whose files are held in memory: imported documents and image files by the path a
//! document writes, read by nothing else. For tests, and for library users who keep documents
//! somewhere other than a disk. It offers the bundled fonts, and a document's own font files
//! (its `fonts` list) from the files it holds.

use std::collections::HashMap;
use std::sync::Arc;

use tiny_skia::Pixmap;

use super::images::data_uri_bytes;
use super::{Host, Imports};
use crate::diagnostic::Diagnostic;
use crate::display::pictures::{ImageError, MAX_DECODED_PIXELS, Pictures, decode_within};
use crate::doc::Document;
use crate::resolve::{Library, script_problem};
use crate::text::{DocumentFonts, FontBook, FontOptions};

/// Documents and files in memory, by path (as a document writes it: `lib/kit.pen`, `a.png`).
#[derive(Debug, Default, Clone)]
pub struct MemoryHost {
    documents: HashMap<String, Arc<Document>>,
    /// Shared with the pictures it hands out, which outlive a borrow of the host.
    files: Arc<HashMap<String, Arc<[u8]>>>,
}

impl MemoryHost {
    /// An empty host: no imports, no image files, the bundled fonts.
    pub fn new() -> MemoryHost {
        MemoryHost::default()
    }

    /// Adds a document an import can name as `path`.
    pub fn with_document(mut self, path: &str, document: Document) -> MemoryHost {
        self.documents.insert(path.to_owned(), Arc::new(document));
        self
    }

    /// Adds a file (an image, a script) at `path`.
    pub fn with_file(mut self, path: &str, bytes: impl Into<Arc<[u8]>>) -> MemoryHost {
        Arc::make_mut(&mut self.files).insert(path.to_owned(), bytes.into());
        self
    }
}

/// Imports taken from a [`MemoryHost`].
struct MemoryImports {
    documents: HashMap<String, Arc<Document>>,
    scripts: Arc<HashMap<String, Arc<[u8]>>>,
}

impl Library for MemoryImports {
    fn imported(&self, alias: &str) -> Option<&Document> {
        self.documents.get(alias).map(AsRef::as_ref)
    }

    fn script(&self, uri: &str) -> Result<Arc<str>, Diagnostic> {
        let bytes =
            self.scripts.get(uri).ok_or_else(|| script_problem(format!("the script '{uri}' is not in the host")))?;
        std::str::from_utf8(bytes)
            .map(Arc::from)
            .map_err(|_| script_problem(format!("the script '{uri}' is not UTF-8 text")))
    }
}

impl Host for MemoryHost {
    fn imports(&self, document: &Document) -> (Imports, Vec<Diagnostic>) {
        let mut documents = HashMap::new();
        let mut diagnostics = Vec::new();
        for (alias, path) in document.imports().map(|i| i.iter().collect::<Vec<_>>()).unwrap_or_default() {
            match self.documents.get(path) {
                Some(imported) => {
                    documents.insert(alias.to_owned(), Arc::clone(imported));
                }
                None => diagnostics.push(super::imports::not_loaded(
                    alias,
                    format!("import '{alias}' ({path}) was not loaded: the host has no such document"),
                )),
            }
        }
        (Box::new(MemoryImports { documents, scripts: Arc::clone(&self.files) }), diagnostics)
    }

    fn font_book(&self) -> (Arc<FontBook>, Vec<Diagnostic>) {
        (FontBook::new(FontOptions::default()), Vec::new())
    }

    fn document_fonts(&self, document: &Document) -> (DocumentFonts, Vec<Diagnostic>) {
        let read = |url: &str| match self.files.get(url) {
            Some(bytes) => Ok(bytes.to_vec()),
            None => Err(Diagnostic::warning("font-file", format!("{url}: no such file in this in-memory host"))),
        };
        let fonts = DocumentFonts::load(document, &read);
        let diagnostics = fonts.problems.clone();
        (fonts, diagnostics)
    }

    fn pictures(&self) -> Box<dyn Pictures + Send> {
        Box::new(MemoryPictures { files: Arc::clone(&self.files), decoded: HashMap::new() })
    }

    fn unreadable_image(&self, url: &str) -> Option<super::image_files::Unreadable> {
        if url.starts_with("data:") || url.starts_with("http://") || url.starts_with("https://") {
            return None;
        }
        let path = url.strip_prefix("file://").unwrap_or(url);
        (!self.files.contains_key(path)).then(|| super::image_files::Unreadable::Missing(format!("{path} (in memory)")))
    }
}

/// The images of a [`MemoryHost`], decoded when first asked for.
struct MemoryPictures {
    files: Arc<HashMap<String, Arc<[u8]>>>,
    decoded: HashMap<String, Result<(Arc<Pixmap>, bool), ImageError>>,
}

impl MemoryPictures {
    fn bytes(&self, url: &str) -> Result<Vec<u8>, ImageError> {
        if let Some(bytes) = data_uri_bytes(url) {
            return bytes;
        }
        if url.starts_with("http://") || url.starts_with("https://") {
            return Err(ImageError::Remote(url.to_owned()));
        }
        let path = url.strip_prefix("file://").unwrap_or(url);
        self.files
            .get(path)
            .map(|bytes| bytes.to_vec())
            .ok_or_else(|| ImageError::Missing { url: url.to_owned(), path: format!("{path} (in memory)") })
    }
}

impl Pictures for MemoryPictures {
    fn picture(&mut self, url: &str) -> Result<Arc<Pixmap>, ImageError> {
        if let Some(found) = self.decoded.get(url) {
            return found.clone().map(|(pixmap, _)| pixmap);
        }
        let decoded = self.bytes(url).and_then(|bytes| {
            decode_within(&bytes, MAX_DECODED_PIXELS)
                .map(|decoded| (Arc::new(decoded.pixmap), decoded.reduced_from.is_some()))
                .map_err(|reason| ImageError::Undecodable { url: url.to_owned(), reason })
        });
        self.decoded.insert(url.to_owned(), decoded.clone());
        decoded.map(|(pixmap, _)| pixmap)
    }

    fn note(&self, url: &str) -> Option<String> {
        matches!(self.decoded.get(url), Some(Ok((_, true))))
            .then(|| format!("image '{url}' is drawn from a copy reduced to {MAX_DECODED_PIXELS} pixels at most"))
    }

    fn encoded(&mut self, url: &str) -> Result<(Vec<u8>, &'static str), ImageError> {
        let pixmap = self.picture(url)?;
        if self.note(url).is_some() {
            return Ok((crate::render::encode_png(&pixmap), "image/png"));
        }
        let bytes = self.bytes(url)?;
        let mime = if bytes.starts_with(&[0xFF, 0xD8]) { "image/jpeg" } else { "image/png" };
        Ok((bytes, mime))
    }

    fn file(&self, _url: &str) -> Option<std::path::PathBuf> {
        None
    }
}
