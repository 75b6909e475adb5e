//! Which fonts text is shaped with: the families nib ships (`assets/fonts`, the same bytes on
//! every machine), the user's own folders, fonts fetched from Google Fonts into the cache
//! folder, and the system's when asked ([`FontOptions`]). Nothing is parsed until a text needs
//! it, so a process that draws no text reads no font.
//!
//! A family none of these has is replaced, and the replacement is said ([`FamilyChoice::reason`]):
//! a closed family with a metric-compatible open twin by the twin (Arial → Liberation Sans); a
//! Google Fonts family that cannot be fetched by a bundled one of its catalogue category (never a
//! proportional face for a monospaced family); anything else by Inter, or JetBrains Mono for
//! names that look monospaced.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use super::bundled;
use super::cache;
use super::catalog::{Category, google_family};
use super::faces::{Face, FaceData, Origin, read_font_file};
use super::files::{FontFiles, NoFontFiles};
use crate::diagnostic::Diagnostic;

/// Families that hold icons, not letters: never a stand-in for text.
pub(crate) const ICON_FAMILIES: &[&str] =
    &["Material Symbols Outlined", "Material Symbols Rounded", "Material Symbols Sharp"];

/// The family text falls back to: the default of the format.
pub(crate) const DEFAULT_FAMILY: &str = "Inter";

/// The family monospaced families fall back to.
pub const MONOSPACE_FAMILY: &str = "JetBrains Mono";

/// The family serif families fall back to (Times New Roman's metrics).
pub(crate) const SERIF_FAMILY: &str = "Liberation Serif";

/// The family handwriting families fall back to.
pub(crate) const HANDWRITING_FAMILY: &str = "Caveat";

/// Environment variable: `offline` stops nib from fetching fonts (no socket is opened).
pub const FONTS_VARIABLE: &str = "NIB_FONTS";

/// Environment variable: more font folders, separated like `PATH` entries.
pub const FONT_DIRS_VARIABLE: &str = "NIB_FONT_DIRS";

/// Closed families with an open twin of the same advance widths.
const TWINS: &[(&str, &str)] = &[
    ("arial", "Liberation Sans"),
    ("arialmt", "Liberation Sans"),
    ("helvetica", "Liberation Sans"),
    ("times new roman", "Liberation Serif"),
    ("times", "Liberation Serif"),
    ("timesnewromanpsmt", "Liberation Serif"),
    ("courier new", "Liberation Mono"),
    ("courier", "Liberation Mono"),
];

/// Closed serif families (and the generic names) that get the serif stand-in.
const CLOSED_SERIF: &[&str] = &[
    "georgia",
    "palatino",
    "palatino linotype",
    "book antiqua",
    "garamond",
    "baskerville",
    "didot",
    "cambria",
    "constantia",
    "hoefler text",
    "new york",
    "charter",
    "serif",
    "ui-serif",
];

/// Words in a family name that say it is monospaced.
const MONOSPACE_WORDS: &[&str] = &["mono", "code", "courier", "consol", "menlo", "monaco", "terminal", "typewriter"];

/// Which fonts to use. The default is the bundled fonts only: the same result on every machine
/// and never a network request (what tests and library users get unless they ask for more).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FontOptions {
    /// Also use the fonts installed on this machine. Output then depends on the machine.
    pub system_fonts: bool,
    /// Folders of the user's own font files (searched with their sub-folders); their families
    /// come before the bundled ones.
    pub font_dirs: Vec<PathBuf>,
    /// Where fetched Google Fonts families are kept and looked up; `None` for no cache.
    pub cache_dir: Option<PathBuf>,
    /// Fetch a Google Fonts family nib does not have into `cache_dir` the first time a text
    /// uses it (needs the `network-fonts` feature and a cache folder).
    pub fetch: bool,
}

impl FontOptions {
    /// The options from a person's settings: `font_dirs` (from `--font-dir`) then the folders
    /// of `dirs` (`NIB_FONT_DIRS`, separated like `PATH`), the cache folder, and fetching unless
    /// `fonts` (`NIB_FONTS`) is `offline`. Also returns what the settings say that nib does not
    /// understand. The host reads the environment (`nib_render::host::user_font_options`).
    pub fn from_settings(
        system_fonts: bool,
        mut font_dirs: Vec<PathBuf>,
        fonts: Option<&str>,
        dirs: Option<&std::ffi::OsStr>,
        cache_dir: Option<PathBuf>,
    ) -> (FontOptions, Vec<Diagnostic>) {
        let mut warnings = Vec::new();
        if let Some(dirs) = dirs {
            font_dirs.extend(std::env::split_paths(dirs).filter(|p| !p.as_os_str().is_empty()));
        }
        let fetch = match fonts.map(|v| v.trim().to_ascii_lowercase()) {
            None => true,
            Some(value) if value.is_empty() || value == "online" => true,
            Some(value) if value == "offline" => false,
            Some(value) => {
                let message = format!("{FONTS_VARIABLE}={value} is not understood (fetching stays on)");
                warnings.push(
                    Diagnostic::warning("settings", message)
                        .with_hint(format!("use {FONTS_VARIABLE}=offline to never fetch fonts")),
                );
                true
            }
        };
        (FontOptions { system_fonts, font_dirs, cache_dir, fetch }, warnings)
    }
}

/// Why `nib fonts fetch` could not fetch a family.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FamilyFetchError {
    /// The catalog of Google Fonts families does not have it.
    #[error("'{0}' is not a Google Fonts family")]
    NotGoogle(String),
    /// Fetching is off.
    #[error("fetching is off (NIB_FONTS=offline, no cache folder, or a build without it)")]
    Off,
    /// The fetch failed (the network, the answer, the cache folder).
    #[error("{0}")]
    Failed(String),
}

/// One family from one source.
#[derive(Debug, Clone)]
pub struct FamilyEntry {
    /// The name as the source spells it.
    pub name: String,
    /// The source.
    pub origin: Origin,
    /// Its faces.
    pub faces: Vec<Arc<Face>>,
}

/// Why a family is replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Substitution {
    /// A closed family whose open twin has the same advance widths.
    Twin,
    /// A closed or system family nib cannot ship, without a twin.
    Closed,
    /// A Google Fonts family that is not bundled and is not fetched (`NIB_FONTS=offline`, no
    /// cache folder, or a build without fetching).
    NotFetched(Category),
    /// A Google Fonts family whose fetch failed.
    FetchFailed {
        /// Its category.
        category: Category,
        /// What went wrong.
        reason: String,
    },
    /// A name that is no known family.
    Unknown,
}

/// The family a text is shaped with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyChoice {
    /// The family used, as the fonts spell it.
    pub family: String,
    /// The family asked for, when it was not available and `family` replaces it.
    pub replaced: Option<String>,
    /// Why it is replaced (`None` when it is not).
    pub substitution: Option<Substitution>,
    /// Where the family used comes from.
    pub origin: Origin,
}

impl FamilyChoice {
    fn found(entry: &FamilyEntry) -> FamilyChoice {
        FamilyChoice { family: entry.name.clone(), replaced: None, substitution: None, origin: entry.origin }
    }

    /// Why the asked family is replaced and by what, in a sentence for a reader (it starts with
    /// the family's name in quotes); `None` when it is not replaced.
    pub fn reason(&self) -> Option<String> {
        let requested = self.replaced.as_deref()?;
        let used = &self.family;
        Some(match self.substitution.as_ref()? {
            Substitution::Twin => format!(
                "'{requested}' is a closed font nib cannot ship: it is measured and drawn with its metric-compatible open twin {used} (same advance widths, so sizes match)"
            ),
            Substitution::Closed => format!(
                "'{requested}' is a closed font nib cannot ship: it is measured and drawn with {used} (sizes may differ; add the font's files with --font-dir or NIB_FONT_DIRS)"
            ),
            Substitution::NotFetched(category) => format!(
                "'{requested}' (Google Fonts, {}) is not bundled and fetching is off: it is measured and drawn with {used} (sizes may differ; `nib fonts fetch \"{requested}\"` caches it)",
                category.as_str()
            ),
            Substitution::FetchFailed { category, reason } => format!(
                "'{requested}' (Google Fonts, {}) could not be fetched ({reason}): it is measured and drawn with {used} (sizes may differ)",
                category.as_str()
            ),
            Substitution::Unknown => format!(
                "'{requested}' is not a font family nib knows: it is measured and drawn with {used} (check the name, or add the font's files with --font-dir)"
            ),
        })
    }
}

/// The fonts of one [`FontOptions`]: where every family comes from, shared by the text engines
/// of a process (see [`FontBook::new`]).
#[derive(Debug)]
pub struct FontBook {
    options: FontOptions,
    /// Families from the user's folders, by lower-cased name.
    user: HashMap<String, FamilyEntry>,
    /// Families installed on the machine, by lower-cased name (with `system_fonts`).
    system: HashMap<String, FamilyEntry>,
    /// Families read from the cache folder or fetched, by lower-cased name; `None` when the
    /// cache has none (looked up once per process).
    cached: Mutex<HashMap<String, Option<FamilyEntry>>>,
    /// Families whose fetch failed, with why (tried once per process).
    failed: Mutex<HashMap<String, String>>,
    /// What went wrong reading the user's folders (`font-folder` warnings).
    warnings: Vec<Diagnostic>,
    /// How font files are listed, read, written and fetched: the host's.
    files: Arc<dyn FontFiles>,
}

impl FontBook {
    /// The book for `options` without file access: the bundled families only (what tests and
    /// library users without a host get). Font folders, the cache and the system's fonts need
    /// a host's files ([`FontBook::with_files`]); asked for without one, the book says so.
    pub fn new(options: FontOptions) -> Arc<FontBook> {
        FontBook::with_files(options, Arc::new(NoFontFiles))
    }

    /// The book for `options` whose font files are listed, read and written through `files`,
    /// made once per process for each options and kind of files, and shared: the same book means
    /// measured text and layouts stay valid. Fonts installed or cached later are seen by the
    /// next run.
    pub fn with_files(options: FontOptions, files: Arc<dyn FontFiles>) -> Arc<FontBook> {
        type Books = Mutex<HashMap<(FontOptions, &'static str), Arc<FontBook>>>;
        static BOOKS: OnceLock<Books> = OnceLock::new();
        // The bundled fonts read no file: one book whatever the files.
        let kind = if options == FontOptions::default() { "bundled" } else { files.kind() };
        let books = BOOKS.get_or_init(|| Mutex::new(HashMap::new()));
        let mut books = books.lock().unwrap_or_else(|e| e.into_inner());
        let key = (options, kind);
        if let Some(book) = books.get(&key) {
            return Arc::clone(book);
        }
        let book = Arc::new(FontBook::build(key.0.clone(), files));
        books.insert(key, Arc::clone(&book));
        book
    }

    /// A book over `files` that is not shared with others: for files that are not the same
    /// from one book to the next (tests' folders in memory, a test server's fetches).
    pub fn unshared(options: FontOptions, files: Arc<dyn FontFiles>) -> Arc<FontBook> {
        Arc::new(FontBook::build(options, files))
    }

    fn build(options: FontOptions, files: Arc<dyn FontFiles>) -> FontBook {
        let mut warnings = Vec::new();
        let mut warn = |message: String| warnings.push(crate::diagnostic::Diagnostic::warning("font-folder", message));
        let mut user: HashMap<String, FamilyEntry> = HashMap::new();
        for folder in &options.font_dirs {
            let found = match files.font_files(folder) {
                Ok(files) => files,
                Err(error) => {
                    warn(format!("font folder {}: {error}", folder.display()));
                    continue;
                }
            };
            if found.is_empty() {
                warn(format!("font folder {} has no font files (.ttf, .otf, .ttc, .woff2)", folder.display()));
            }
            for file in found {
                match read_font_file(&*files, &file, Origin::User) {
                    Ok(faces) => add_faces(&mut user, faces, Origin::User),
                    Err(error) => warn(format!("font folder {}: {error}", folder.display())),
                }
            }
        }
        let system = if options.system_fonts { system_families(&*files) } else { HashMap::new() };
        FontBook {
            options,
            user,
            system,
            cached: Mutex::new(HashMap::new()),
            failed: Mutex::new(HashMap::new()),
            warnings,
            files,
        }
    }

    /// The options the book was made with.
    pub fn options(&self) -> &FontOptions {
        &self.options
    }

    /// How its font files are read: the host's.
    pub fn files(&self) -> &Arc<dyn FontFiles> {
        &self.files
    }

    /// What went wrong reading the user's font folders (files that are not fonts, folders that
    /// do not exist).
    pub fn warnings(&self) -> &[crate::diagnostic::Diagnostic] {
        &self.warnings
    }

    /// The bundled family names, sorted.
    pub fn families(&self) -> impl Iterator<Item = &'static str> {
        let mut names: Vec<&'static str> = bundled::family_names().collect();
        names.sort_unstable();
        names.into_iter()
    }

    /// The bundled families for text (without the icon fonts), sorted.
    pub fn text_families(&self) -> impl Iterator<Item = &'static str> {
        self.families().filter(|f| !ICON_FAMILIES.contains(f))
    }

    /// The families from the user's folders, sorted by name.
    pub fn user_families(&self) -> Vec<&FamilyEntry> {
        let mut families: Vec<&FamilyEntry> = self.user.values().collect();
        families.sort_by(|a, b| a.name.cmp(&b.name));
        families
    }

    /// The system's families (with `system_fonts`), sorted by name.
    pub fn system_families(&self) -> Vec<&FamilyEntry> {
        let mut families: Vec<&FamilyEntry> = self.system.values().collect();
        families.sort_by(|a, b| a.name.cmp(&b.name));
        families
    }

    /// Every source that has `family`, in the order they are preferred: the user's folders, the
    /// bundled fonts, the cache, the system. Reads the cache, never the network.
    pub fn sources(&self, family: &str) -> Vec<FamilyEntry> {
        let lower = family.trim().to_lowercase();
        let mut found = Vec::new();
        if let Some(entry) = self.user.get(&lower) {
            found.push(entry.clone());
        }
        if let Some((name, faces)) = bundled::family(&lower) {
            found.push(FamilyEntry { name: name.to_owned(), origin: Origin::Bundled, faces: faces.to_vec() });
        }
        if let Some(entry) = self.cached(&lower, family) {
            found.push(entry);
        }
        if let Some(entry) = self.system.get(&lower) {
            found.push(entry.clone());
        }
        found
    }

    fn cached(&self, lower: &str, family: &str) -> Option<FamilyEntry> {
        let folder = self.options.cache_dir.as_ref()?;
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        cached
            .entry(lower.to_owned())
            .or_insert_with(|| {
                // Only catalogue families are cached, under the catalogue's spelling. Their
                // folder is named the same for every spelling (its slug), so the catalogue,
                // which is built on first use (a millisecond of a one-frame render), is only
                // read for a family the cache holds.
                let paths = cache::family_files(&*self.files, folder, family);
                if paths.is_empty() {
                    return None;
                }
                let name = google_family(family).map_or(family.trim(), |g| g.name);
                let faces = cache::read_files(&*self.files, &paths, name);
                (!faces.is_empty()).then(|| FamilyEntry { name: name.to_owned(), origin: Origin::Cache, faces })
            })
            .clone()
    }

    /// The family to shape `requested` with: itself when a source has it (fetching a Google
    /// Fonts family on first use when allowed), otherwise a replacement (see the module's
    /// documentation).
    pub fn choose_family(&self, requested: &str) -> FamilyChoice {
        let lower = requested.trim().to_lowercase();
        if let Some(entry) = self.sources(requested).first() {
            return FamilyChoice::found(entry);
        }
        let replace = |family: &str, substitution| FamilyChoice {
            family: family.to_owned(),
            replaced: Some(requested.to_owned()),
            substitution: Some(substitution),
            origin: Origin::Bundled,
        };
        if let Some((_, twin)) = TWINS.iter().find(|(name, _)| *name == lower) {
            return replace(twin, Substitution::Twin);
        }
        if let Some(google) = google_family(requested) {
            let stand_in = stand_in(google.category);
            return match self.fetch(&lower, google) {
                Ok(entry) => FamilyChoice::found(&entry),
                Err(None) => replace(stand_in, Substitution::NotFetched(google.category)),
                Err(Some(reason)) => replace(stand_in, Substitution::FetchFailed { category: google.category, reason }),
            };
        }
        let looks_monospaced = MONOSPACE_WORDS.iter().any(|w| lower.contains(w));
        let category = if looks_monospaced {
            Category::Monospace
        } else if CLOSED_SERIF.contains(&lower.as_str()) {
            Category::Serif
        } else {
            Category::Sans
        };
        let substitution =
            if super::catalog::is_known_family(requested) { Substitution::Closed } else { Substitution::Unknown };
        replace(stand_in(category), substitution)
    }

    /// Fetches the Google Fonts family `family` into the cache whatever other sources have it
    /// (`nib fonts fetch`; the bundled Japanese families are cut, the fetched ones whole).
    pub fn fetch_family(&self, family: &str) -> Result<FamilyEntry, FamilyFetchError> {
        let google = google_family(family).ok_or_else(|| FamilyFetchError::NotGoogle(family.to_owned()))?;
        self.fetch(&google.name.to_lowercase(), google).map_err(|reason| match reason {
            Some(reason) => FamilyFetchError::Failed(reason),
            None => FamilyFetchError::Off,
        })
    }

    /// Fetches a Google Fonts family into the cache through the host's files: `Err(None)` when
    /// fetching is off (the options, no cache folder, a host that does not fetch), `Err(Some)`
    /// with the reason when it failed (each family is tried once per process).
    fn fetch(&self, lower: &str, google: &super::catalog::GoogleFamily) -> Result<FamilyEntry, Option<String>> {
        let Some(folder) = self.options.cache_dir.as_ref().filter(|_| self.options.fetch) else { return Err(None) };
        if let Some(reason) = self.failed.lock().unwrap_or_else(|e| e.into_inner()).get(lower) {
            return Err(Some(reason.clone()));
        }
        match self.files.fetch_family(google, folder) {
            None => Err(None),
            Some(Ok(())) => {
                self.cached.lock().unwrap_or_else(|e| e.into_inner()).remove(lower);
                self.cached(lower, google.name).ok_or_else(|| Some("the fetched files do not read as fonts".to_owned()))
            }
            Some(Err(error)) => {
                let reason = error.to_string();
                self.failed.lock().unwrap_or_else(|e| e.into_inner()).insert(lower.to_owned(), reason.clone());
                Err(Some(reason))
            }
        }
    }
}

/// The bundled family that stands in for a missing family of `category`.
pub fn stand_in(category: Category) -> &'static str {
    match category {
        Category::Sans | Category::Display => DEFAULT_FAMILY,
        Category::Serif => SERIF_FAMILY,
        Category::Monospace => MONOSPACE_FAMILY,
        Category::Handwriting => HANDWRITING_FAMILY,
    }
}

fn add_faces(families: &mut HashMap<String, FamilyEntry>, faces: Vec<Face>, origin: Origin) {
    for face in faces {
        let entry = families.entry(face.family.to_lowercase()).or_insert_with(|| FamilyEntry {
            name: face.family.clone(),
            origin,
            faces: Vec::new(),
        });
        entry.faces.push(Arc::new(face));
    }
}

/// The system's families, from the host's scan (names and styles only; the files are read when
/// a text uses them).
fn system_families(files: &dyn FontFiles) -> HashMap<String, FamilyEntry> {
    let mut families = HashMap::new();
    let faces = files
        .system_fonts()
        .into_iter()
        // A bundled family is never replaced by a system copy of another version.
        .filter(|font| !bundled::has_family(&font.family.to_lowercase()))
        .map(|font| Face {
            family: font.family,
            file: font.path.display().to_string(),
            data: FaceData::File(font.path),
            index: font.index,
            italic: font.italic,
            weights: (font.weight, font.weight),
            ranges: &[],
            origin: Origin::System,
        })
        .collect();
    add_faces(&mut families, faces, Origin::System);
    families
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_book_is_made_once_so_caches_keep_matching() {
        let system = FontOptions { system_fonts: true, ..FontOptions::default() };
        assert!(Arc::ptr_eq(&FontBook::new(system.clone()), &FontBook::new(system.clone())));
        assert!(Arc::ptr_eq(&FontBook::new(FontOptions::default()), &FontBook::new(FontOptions::default())));
        assert!(!Arc::ptr_eq(&FontBook::new(system.clone()), &FontBook::new(FontOptions::default())));
        let memory = || -> Arc<dyn FontFiles> { Arc::new(super::super::files::MemoryFontFiles::new()) };
        assert!(
            Arc::ptr_eq(
                &FontBook::with_files(FontOptions::default(), memory()),
                &FontBook::new(FontOptions::default())
            ),
            "the bundled fonts read no file: one book"
        );
        assert!(!Arc::ptr_eq(&FontBook::with_files(system.clone(), memory()), &FontBook::new(system)));
    }

    #[test]
    fn the_bundled_families_are_there() {
        let book = FontBook::new(FontOptions::default());
        let families: Vec<&str> = book.families().collect();
        for family in [
            "Inter",
            "JetBrains Mono",
            "Noto Sans",
            "Noto Sans Thai",
            "Material Symbols Rounded",
            "DM Sans",
            "Liberation Mono",
            "Noto Emoji",
            "Noto Sans JP",
        ] {
            assert!(families.contains(&family), "{family} missing from {families:?}");
        }
        assert!(!book.text_families().any(|f| f.starts_with("Material")));
    }

    #[test]
    fn closed_families_use_their_metric_twins_and_say_so() {
        let book = FontBook::new(FontOptions::default());
        for (closed, twin) in [
            ("Courier New", "Liberation Mono"),
            ("Arial", "Liberation Sans"),
            ("Helvetica", "Liberation Sans"),
            ("Times New Roman", "Liberation Serif"),
        ] {
            let choice = book.choose_family(closed);
            assert_eq!(
                (choice.family.as_str(), choice.substitution.clone()),
                (twin, Some(Substitution::Twin)),
                "{closed}"
            );
            let reason = choice.reason().expect("said");
            assert!(reason.contains("metric-compatible") && reason.contains(twin), "{reason}");
        }
    }

    #[test]
    fn missing_families_are_replaced_by_a_bundled_one_of_their_category() {
        let book = FontBook::new(FontOptions::default());
        assert_eq!(book.choose_family("inter").replaced, None);
        assert_eq!(book.choose_family("dm sans").family, "DM Sans", "bundled now");
        let offline = |family: &str| book.choose_family(family);
        assert_eq!(offline("Lobster").family, "Inter", "display → sans");
        assert_eq!(offline("Lobster").substitution, Some(Substitution::NotFetched(Category::Display)));
        assert_eq!(offline("Noto Serif Display").family, SERIF_FAMILY);
        assert_eq!(offline("Dancing Script").family, HANDWRITING_FAMILY);
        assert_eq!(offline("Ubuntu Mono").family, "JetBrains Mono", "never proportional for monospaced");
        assert_eq!(offline("Cousine").family, "JetBrains Mono");
        assert_eq!(offline("SF Mono").family, "JetBrains Mono");
        assert_eq!(offline("SF Pro Display").substitution, Some(Substitution::Closed));
        assert_eq!(offline("Georgia").family, SERIF_FAMILY);
        assert_eq!(offline("Intre Display Pro").substitution, Some(Substitution::Unknown));
        let reason = offline("Lobster").reason().expect("said");
        assert!(reason.contains("nib fonts fetch \"Lobster\"") && reason.contains("display"), "{reason}");
    }

    #[test]
    fn the_environment_turns_fetching_off_and_adds_font_folders() {
        let dirs = std::env::join_paths(["/a", "/b"]).expect("paths");
        let (options, warnings) = FontOptions::from_settings(
            false,
            vec!["/flag".into()],
            Some("offline"),
            Some(&dirs),
            Some("/cache".into()),
        );
        assert!(!options.fetch && warnings.is_empty());
        assert_eq!(options.font_dirs, vec![PathBuf::from("/flag"), "/a".into(), "/b".into()]);
        let (options, warnings) = FontOptions::from_settings(false, Vec::new(), Some("sometimes"), None, None);
        assert!(options.fetch);
        assert!(warnings[0].hints[0].contains("NIB_FONTS=offline"), "{warnings:?}");
        assert!(FontOptions::from_settings(false, Vec::new(), None, None, None).0.fetch);
    }

    #[test]
    fn user_font_folders_add_families_and_report_what_is_not_a_font() {
        let font = (*bundled::bytes(0).expect("a font")).as_ref().to_vec();
        let files = super::super::files::MemoryFontFiles::new()
            .with("/fonts/brand/Brand.ttf", font)
            .with("/fonts/broken.otf", b"not a font".to_vec());
        let options = FontOptions { font_dirs: vec![PathBuf::from("/fonts")], ..FontOptions::default() };
        let book = FontBook::unshared(options.clone(), Arc::new(files));
        // The file is a copy of a bundled Caveat face: the user's copy comes first.
        let sources = book.sources("caveat");
        assert_eq!(sources[0].origin, Origin::User);
        assert_eq!(sources[1].origin, Origin::Bundled);
        assert!(book.warnings().iter().any(|w| w.message.contains("broken.otf")), "{:?}", book.warnings());
        // Without a host's files, the folder is not read, and the book says why.
        let bare = FontBook::new(options);
        assert_eq!(bare.sources("caveat")[0].origin, Origin::Bundled);
        assert!(bare.warnings().iter().any(|w| w.message.contains("without a host")), "{:?}", bare.warnings());
    }
}
