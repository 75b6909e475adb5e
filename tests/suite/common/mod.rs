//! What several integration tests share: the corpus fixtures and the imports between them.

pub mod export;
pub mod mcp_client;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use nib::doc::Document;
use nib::resolve::Library;

/// The folder of the 44 real `.pen` files.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen")
}

/// Imports resolved from the flat fixtures folder: `../../design-system.lib.pen` in the ems
/// specs is the ems library kept beside them.
pub struct Fixtures(HashMap<String, Document>);

impl Library for Fixtures {
    fn imported(&self, alias: &str) -> Option<&Document> {
        self.0.get(alias)
    }
}

/// The fixture `name` and the documents it imports.
pub fn load_with_imports(name: &str) -> (Document, Fixtures) {
    let document =
        Document::load(&std::fs::read_to_string(fixtures().join(name)).expect("read")).expect("load").document;
    let mut imports = HashMap::new();
    for (alias, path) in document.imports().map(|i| i.iter().collect::<Vec<_>>()).unwrap_or_default() {
        assert!(path.ends_with("design-system.lib.pen"), "{name} imports {path}");
        let library = std::fs::read_to_string(fixtures().join("leandrohsilveira__ems__design-system.lib.pen"));
        imports.insert(alias.to_owned(), Document::load(&library.expect("library")).expect("load").document);
    }
    (document, Fixtures(imports))
}
