//! The disk's fonts: the font files a host reads for the text engine (the user's font folders,
//! the Google Fonts cache, the system's fonts, a document's own `fonts` list), and the settings
//! a person gives in the environment. The text engine parses; it opens nothing itself.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::font_fetch::remote_font;
use crate::diagnostic::Diagnostic;
use crate::doc::Document;
use crate::files::{
    Confinement, FileError, WalkError, WalkRules, create_folder, find_files, read_regular, write_atomic,
};
use crate::text::catalog::GoogleFamily;
use crate::text::faces::{MAX_FONT_FILE_BYTES, MAX_FONT_FILES_PER_FOLDER, MAX_FONT_FOLDER_DEPTH, is_font_file};
use crate::text::files::FetchFailed;
use crate::text::fonts::{FONT_DIRS_VARIABLE, FONTS_VARIABLE};
use crate::text::{DocumentFonts, FontBook, FontFiles, FontOptions, SystemFont};

/// Font files on this machine's disk.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiskFonts;

impl DiskFonts {
    /// The shared book for `options` over the disk's font files.
    pub fn book(options: FontOptions) -> Arc<FontBook> {
        FontBook::with_files(options, Arc::new(DiskFonts))
    }
}

impl FontFiles for DiskFonts {
    fn kind(&self) -> &'static str {
        "disk"
    }

    /// Through the guarded HTTPS from Google Fonts, when nib is built with `network-fonts`.
    fn fetch_family(&self, family: &GoogleFamily, folder: &Path) -> Option<Result<(), FetchFailed>> {
        #[cfg(feature = "network-fonts")]
        {
            let fetched = super::font_fetch::FontFetcher::google().fetch_family(family, folder, self);
            Some(fetched.map_err(FetchFailed::from))
        }
        #[cfg(not(feature = "network-fonts"))]
        {
            let _ = (family, folder);
            None
        }
    }

    fn font_files(&self, folder: &Path) -> std::io::Result<Vec<PathBuf>> {
        // The walk snapshot runs use, lenient: a font folder may hold folders nib cannot read.
        let rules = WalkRules {
            wanted: is_font_file,
            skipped_folders: &[],
            skip_hidden: false,
            max_depth: MAX_FONT_FOLDER_DEPTH,
            max_files: MAX_FONT_FILES_PER_FOLDER,
            strict: false,
        };
        match find_files(folder, rules, &mut HashSet::new()) {
            Ok(found) => Ok(found.into_iter().map(|file| file.path).collect()),
            Err(WalkError::File(FileError::Io { source, .. })) => Err(source),
            Err(error) => Err(std::io::Error::other(error.to_string())),
        }
    }

    fn files_in(&self, folder: &Path) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
        let mut files: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
        files.sort();
        files
    }

    fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
        read_regular(path, limit)
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), FileError> {
        if let Some(parent) = path.parent() {
            create_folder(parent, None)?;
        }
        write_atomic(path, bytes, None)
    }

    fn system_fonts(&self) -> Vec<SystemFont> {
        use cosmic_text::fontdb;
        let mut scan = fontdb::Database::new();
        scan.load_system_fonts();
        scan.faces()
            .filter_map(|info| {
                let path = match &info.source {
                    fontdb::Source::File(path) | fontdb::Source::SharedFile(path, _) => path.clone(),
                    fontdb::Source::Binary(_) => return None,
                };
                Some(SystemFont {
                    family: info.families.first()?.0.clone(),
                    path,
                    index: info.index,
                    weight: info.weight.0.clamp(1, 1000),
                    italic: info.style != fontdb::Style::Normal,
                })
            })
            .collect()
    }
}

/// The font options of a command a person runs: `font_dirs` (from `--font-dir`) then the
/// folders in `NIB_FONT_DIRS`, the cache folder ([`default_cache_folder`]), and fetching unless
/// `NIB_FONTS=offline`. Also returns what the environment says that nib does not understand.
pub fn user_font_options(system_fonts: bool, font_dirs: Vec<PathBuf>) -> (FontOptions, Vec<Diagnostic>) {
    let fonts = std::env::var(FONTS_VARIABLE).ok();
    let dirs = std::env::var_os(FONT_DIRS_VARIABLE);
    FontOptions::from_settings(system_fonts, font_dirs, fonts.as_deref(), dirs.as_deref(), default_cache_folder())
}

/// The cache folder for fonts: `NIB_FONT_CACHE`, else the platform's cache folder (XDG on Linux:
/// `$XDG_CACHE_HOME` or `~/.cache`; `~/Library/Caches` on macOS; `%LOCALAPPDATA%` on Windows)
/// followed by `nib/fonts`. `None` when none of these is set.
pub(crate) fn default_cache_folder() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(folder) = var("NIB_FONT_CACHE") {
        return Some(folder);
    }
    let base = if cfg!(target_os = "macos") {
        var("HOME").map(|home| home.join("Library").join("Caches"))
    } else if cfg!(windows) {
        var("LOCALAPPDATA")
    } else {
        var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|home| home.join(".cache")))
    };
    base.map(|base| base.join("nib").join("fonts"))
}

/// Where and how a document's own font files are read.
#[derive(Debug, Clone, Copy)]
pub struct DocumentFontAccess<'a> {
    /// The folder of the `.pen` file (relative URLs start there).
    pub folder: Option<&'a Path>,
    /// Files must stay inside this folder (the MCP server's root).
    pub confinement: Option<&'a Confinement>,
    /// `https` URLs may be fetched.
    pub fetch: bool,
}

impl DocumentFontAccess<'_> {
    /// The fonts `document` lists, read as this access allows.
    pub fn load(self, document: &Document) -> DocumentFonts {
        DocumentFonts::load(document, &|url| self.read(url))
    }

    /// The bytes of the file `url` names: fetched when it is an https URL (and fetching is on),
    /// else read relative to the document's folder, inside the confinement.
    fn read(self, url: &str) -> Result<Vec<u8>, Diagnostic> {
        if let Some(fetched) = remote_font(url, self.fetch) {
            return fetched;
        }
        let unreadable = |error: &dyn std::fmt::Display| Diagnostic::warning("font-file", error.to_string());
        let folder = self.folder.unwrap_or(Path::new("."));
        let path = Confinement::apply(self.confinement, &folder.join(url)).map_err(|e| {
            unreadable(&e)
                .with_hint("copy the font file into the folder the document is in and name it by a relative path")
        })?;
        // Confined, through the root opened once (no folder swapped for a link leads out).
        match self.confinement {
            Some(confinement) => confinement.read(&path, MAX_FONT_FILE_BYTES),
            None => read_regular(&path, MAX_FONT_FILE_BYTES),
        }
        .map_err(|e| unreadable(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(fonts: &str) -> Document {
        Document::load(&format!(r#"{{"version":"2.10","fonts":{fonts},"children":[]}}"#)).expect("valid").document
    }

    fn a_font() -> Vec<u8> {
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../assets/fonts/liberation/LiberationSans-Regular.woff2"
        ))
        .expect("a bundled font file")
    }

    #[test]
    fn font_folders_are_searched_with_their_sub_folders_in_order() {
        let folder = tempfile::tempdir().expect("a folder");
        let sub = folder.path().join("b/deeper");
        std::fs::create_dir_all(&sub).expect("folders");
        std::fs::write(sub.join("Z.ttf"), b"x").expect("written");
        std::fs::write(folder.path().join("a.OTF"), b"x").expect("written");
        std::fs::write(folder.path().join("notes.txt"), b"x").expect("written");
        std::os::unix::fs::symlink(folder.path(), folder.path().join("b/loop")).expect("a link");
        let found = DiskFonts.font_files(folder.path()).expect("listed");
        assert_eq!(found, vec![folder.path().join("a.OTF"), sub.join("Z.ttf")], "the loop is read once");
        assert!(DiskFonts.font_files(&folder.path().join("missing")).is_err());
    }

    #[test]
    fn a_user_folder_on_disk_adds_its_families() {
        let folder = tempfile::tempdir().expect("a folder");
        std::fs::write(folder.path().join("Brand.woff2"), a_font()).expect("written");
        let options = FontOptions { font_dirs: vec![folder.path().to_owned()], ..FontOptions::default() };
        let book = DiskFonts::book(options);
        assert!(book.warnings().is_empty(), "{:?}", book.warnings());
        assert_eq!(book.sources("Liberation Sans")[0].origin, crate::text::Origin::User);
    }

    #[test]
    fn document_fonts_are_read_beside_the_file_and_never_outside_the_root() {
        let root = tempfile::tempdir().expect("a folder");
        std::fs::create_dir(root.path().join("fonts")).expect("folder");
        std::fs::write(root.path().join("fonts/brand.woff2"), a_font()).expect("written");
        let confinement = Confinement::new(root.path());
        let access = DocumentFontAccess { folder: Some(root.path()), confinement: Some(&confinement), fetch: false };
        let fonts = access.load(&document(
            r#"[{"name":"Brand","url":"fonts/brand.woff2"},{"name":"A","url":"../../etc/a.ttf"},{"name":"B","url":"missing.ttf"},{"name":"D","url":"https://example.com/d.ttf"}]"#,
        ));
        assert!(fonts.family("brand").is_some(), "{:?}", fonts.problems);
        assert_eq!(fonts.problems.len(), 3, "{:?}", fonts.problems);
        assert!(fonts.problems[0].message.starts_with("fonts[1].url:"), "{:?}", fonts.problems);
        assert_eq!(fonts.problems[0].span.as_ref().map(|s| s.pointer.as_str()), Some("/fonts/1/url"), "at its url");
        let second = &fonts.problems[1].message;
        assert!(second.starts_with("fonts[2].url:") && second.contains("missing.ttf"), "{second}");
        assert!(fonts.problems[2].message.contains("not fetched"), "{:?}", fonts.problems);
    }
}
