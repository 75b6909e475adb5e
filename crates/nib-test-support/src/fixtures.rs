//! The corpus fixtures, their imports and the host and compile step the tests share.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nib_doc::diagnostic::Diagnostic;
use nib_doc::doc::Document;
use nib_render::compile::{CompileOptions, Compiled, Compiler};
use nib_render::host::{DiskHost, Host, Imports};
use nib_scene::display::pictures::Pictures;
use nib_scene::resolve::Library;
use nib_scene::text::{DocumentFonts, FontBook, FontOptions};

/// The folder of the 44 real `.pen` files (`tests/fixtures/pen`).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/pen")
}

/// The library every importing fixture names (`../../design-system.lib.pen` in the ems specs),
/// kept beside them in the flat fixtures folder.
const LIBRARY: &str = "leandrohsilveira__ems__design-system.lib.pen";

/// Imports resolved from the flat fixtures folder.
#[derive(Clone, Default)]
pub struct Fixtures(HashMap<String, Arc<Document>>);

impl Library for Fixtures {
    fn imported(&self, alias: &str) -> Option<&Document> {
        self.0.get(alias).map(|document| &**document)
    }
}

/// The fixture `name`, loaded.
pub fn load(name: &str) -> Document {
    let text = std::fs::read_to_string(fixtures().join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"));
    Document::load(&text).unwrap_or_else(|e| panic!("load {name}: {e:?}")).document
}

/// The fixture `name` and the documents it imports.
pub fn load_with_imports(name: &str) -> (Document, Fixtures) {
    let document = load(name);
    let imports = imports_of(&document);
    (document, imports)
}

/// The documents `document` imports, from the fixtures folder.
fn imports_of(document: &Document) -> Fixtures {
    let mut imports = HashMap::new();
    for (alias, path) in document.imports().map(|i| i.iter().collect::<Vec<_>>()).unwrap_or_default() {
        assert!(path.ends_with("design-system.lib.pen"), "a fixture imports {path}, which the fixtures do not hold");
        imports.insert(alias.to_owned(), Arc::new(load(LIBRARY)));
    }
    Fixtures(imports)
}

/// A fixture's host: fonts and images as a document on disk in the fixtures folder has them
/// (the bundled fonts only, as on every machine), imports from the fixtures folder.
pub struct FixtureHost {
    disk: DiskHost,
}

impl FixtureHost {
    /// The host of a document in `folder` (image fills are read from there).
    pub fn in_folder(folder: &Path) -> FixtureHost {
        FixtureHost { disk: DiskHost::new(folder.join("fixture.pen"), FontOptions::default()) }
    }
}

impl Host for FixtureHost {
    fn imports(&self, document: &Document) -> (Imports, Vec<Diagnostic>) {
        (Box::new(imports_of(document)), Vec::new())
    }

    fn font_book(&self) -> (Arc<FontBook>, Vec<Diagnostic>) {
        self.disk.font_book()
    }

    fn document_fonts(&self, document: &Document) -> (DocumentFonts, Vec<Diagnostic>) {
        self.disk.document_fonts(document)
    }

    fn pictures(&self) -> Box<dyn Pictures + Send> {
        self.disk.pictures()
    }

    fn unreadable_image(&self, url: &str) -> Option<nib_render::host::image_files::Unreadable> {
        self.disk.unreadable_image(url)
    }
}

/// A document compiled as the tools compile it, with its host.
pub struct Fixture {
    /// The document.
    pub document: Document,
    /// Where its imports, fonts and images come from.
    pub host: Arc<FixtureHost>,
    /// Its Scene (and the one with variables kept, for the code exports), layout and text
    /// engine: what painting and every export read.
    pub compiled: Compiled<'static>,
}

impl Fixture {
    /// The corpus file `name`, compiled (images read from the fixtures folder).
    pub fn corpus(name: &str) -> Fixture {
        Fixture::of(load(name), &fixtures())
    }

    /// `document` compiled as a document in `folder`.
    pub fn of(document: Document, folder: &Path) -> Fixture {
        let host = Arc::new(FixtureHost::in_folder(folder));
        let options = CompileOptions { keep_variables: true, ..CompileOptions::default() };
        let compiled = Compiler::shared(host.clone())
            .compile_owned(document.clone(), &options)
            .unwrap_or_else(|d| panic!("the fixture compiles: {}", d.message));
        Fixture { document, host, compiled }
    }

    /// The document in JSON text, compiled as a document in `folder`.
    pub fn from_text(text: &str, folder: &Path) -> Fixture {
        Fixture::of(Document::load(text).unwrap_or_else(|e| panic!("the fixture loads: {e:?}")).document, folder)
    }
}
