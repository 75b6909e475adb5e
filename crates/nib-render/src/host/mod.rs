//! The host: where a document's inputs come from — the documents it imports, the font files and
//! image files it names — in the spirit of typst's `World`. Compiling asks the host and never
//! opens a file itself, so the stages below it (resolve, layout, the display list, the painter,
//! the writers) do no I/O and cannot be led outside the place they belong.
//!
//! [`DiskHost`] reads beside a document on disk, confined to a root when one is given (the MCP
//! server and `nib serve`); [`MemoryHost`] serves documents and images held in memory (tests,
//! and library users who keep their files elsewhere).

mod font_fetch;
mod fonts;
pub mod image_files;
mod images;
mod imports;
pub mod libraries;
mod memory;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::display::pictures::Pictures;
use crate::doc::Document;
use crate::files::Confinement;
use crate::resolve::Library;
use crate::text::{DocumentFonts, FontBook, FontOptions, TextEngine};

pub use fonts::{DiskFonts, DocumentFontAccess, user_font_options};
pub use images::{FolderImages, IMAGE_CACHE_BYTES, MAX_IMAGE_BYTES};
pub use imports::{FileImports, MAX_SCRIPT_FILE_BYTES};
pub use memory::MemoryHost;

/// The imported documents of one document, as a host loaded them.
pub type Imports = Box<dyn Library + Send + Sync>;

/// Where a document's imports, fonts and images come from.
pub trait Host: Sync {
    /// The documents `document` imports (and the script files its script nodes run), with what
    /// could not be loaded.
    fn imports(&self, document: &Document) -> (Imports, Vec<Diagnostic>);

    /// The fonts this host offers every document, with what could not be read (a font folder
    /// that is not there).
    fn font_book(&self) -> (Arc<FontBook>, Vec<Diagnostic>);

    /// `document`'s own font files (its `fonts` list), with what could not be read.
    fn document_fonts(&self, document: &Document) -> (DocumentFonts, Vec<Diagnostic>);

    /// A text engine with the fonts this host offers and `document`'s own font files, with what
    /// could not be read.
    fn text(&self, document: &Document) -> (TextEngine, Vec<Diagnostic>) {
        let (book, mut diagnostics) = self.font_book();
        let mut engine = TextEngine::new(book);
        let (fonts, problems) = self.document_fonts(document);
        diagnostics.extend(problems);
        engine.set_document_fonts(Arc::new(fonts));
        (engine, diagnostics)
    }

    /// A fresh source of the document's image fills, keeping what it decodes: one for each
    /// thread that draws, or one kept across the pictures of a session.
    fn pictures(&self) -> Box<dyn Pictures + Send>;

    /// Why the image file `url` names cannot be read, without decoding it (what check and
    /// snapshot_layout say before a render leaves it out); `None` when it is there or is not a
    /// file (`data:` URIs, network addresses).
    fn unreadable_image(&self, url: &str) -> Option<image_files::Unreadable>;
}

/// A document on disk: imports, font files and images are read relative to its folder, and
/// only inside the confinement when there is one.
#[derive(Debug, Clone)]
pub struct DiskHost {
    file: PathBuf,
    confinement: Option<Confinement>,
    fonts: FontOptions,
}

impl DiskHost {
    /// The host of the document at `file`, with the fonts `fonts` names.
    pub fn new(file: impl Into<PathBuf>, fonts: FontOptions) -> DiskHost {
        DiskHost { file: file.into(), confinement: None, fonts }
    }

    /// The same, reading nothing outside `confinement`.
    pub fn confined(mut self, confinement: Option<Confinement>) -> DiskHost {
        self.confinement = confinement;
        self
    }

    /// The document's file.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The document's folder (`.` for a bare file name).
    pub fn folder(&self) -> &Path {
        self.file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
    }

    /// The folder reads are confined to, if any.
    pub fn confinement(&self) -> Option<&Confinement> {
        self.confinement.as_ref()
    }

    /// The fonts it offers.
    pub fn fonts(&self) -> &FontOptions {
        &self.fonts
    }
}

impl Host for DiskHost {
    fn imports(&self, document: &Document) -> (Imports, Vec<Diagnostic>) {
        let imports = FileImports::load_within(document, &self.file, self.confinement.as_ref());
        let diagnostics = imports.problems.clone();
        (Box::new(imports), diagnostics)
    }

    fn font_book(&self) -> (Arc<FontBook>, Vec<Diagnostic>) {
        let book = DiskFonts::book(self.fonts.clone());
        let diagnostics = book.warnings().to_vec();
        (book, diagnostics)
    }

    fn document_fonts(&self, document: &Document) -> (DocumentFonts, Vec<Diagnostic>) {
        let access = DocumentFontAccess {
            folder: Some(self.folder()),
            confinement: self.confinement.as_ref(),
            fetch: self.fonts.fetch,
        };
        let fonts = access.load(document);
        let diagnostics = fonts.problems.clone();
        (fonts, diagnostics)
    }

    fn pictures(&self) -> Box<dyn Pictures + Send> {
        Box::new(FolderImages::new(Some(self.folder().to_owned()), self.confinement.as_ref()))
    }

    fn unreadable_image(&self, url: &str) -> Option<image_files::Unreadable> {
        image_files::unreadable_file(url, self.folder(), self.confinement.as_ref())
    }
}
