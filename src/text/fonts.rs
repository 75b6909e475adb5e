//! The fonts text is shaped with: the families nib ships in `assets/fonts`, loaded into an
//! in-memory database once, so that the same document measures and renders the same on every
//! machine. System fonts join only when asked ([`FontOptions::system_fonts`]).
//!
//! A family the database does not have is replaced by a bundled one (JetBrains Mono for names
//! that look monospaced, Inter otherwise) and the replacement is reported, never silent.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use cosmic_text::fontdb;

macro_rules! bundled_fonts {
    ($($path:literal),* $(,)?) => {
        /// Every font file nib ships, by its path under `assets/fonts`.
        const BUNDLED_FONTS: &[(&str, &[u8])] = &[
            $(($path, include_bytes!(concat!("../../assets/fonts/", $path))),)*
        ];
    };
}

bundled_fonts![
    "inter/Inter-Thin.otf",
    "inter/Inter-ThinItalic.otf",
    "inter/Inter-ExtraLight.otf",
    "inter/Inter-ExtraLightItalic.otf",
    "inter/Inter-Light.otf",
    "inter/Inter-LightItalic.otf",
    "inter/Inter-Regular.otf",
    "inter/Inter-Italic.otf",
    "inter/Inter-Medium.otf",
    "inter/Inter-MediumItalic.otf",
    "inter/Inter-SemiBold.otf",
    "inter/Inter-SemiBoldItalic.otf",
    "inter/Inter-Bold.otf",
    "inter/Inter-BoldItalic.otf",
    "inter/Inter-ExtraBold.otf",
    "inter/Inter-ExtraBoldItalic.otf",
    "inter/Inter-Black.otf",
    "inter/Inter-BlackItalic.otf",
    "jetbrains-mono/JetBrainsMono-Thin.ttf",
    "jetbrains-mono/JetBrainsMono-ThinItalic.ttf",
    "jetbrains-mono/JetBrainsMono-ExtraLight.ttf",
    "jetbrains-mono/JetBrainsMono-ExtraLightItalic.ttf",
    "jetbrains-mono/JetBrainsMono-Light.ttf",
    "jetbrains-mono/JetBrainsMono-LightItalic.ttf",
    "jetbrains-mono/JetBrainsMono-Regular.ttf",
    "jetbrains-mono/JetBrainsMono-Italic.ttf",
    "jetbrains-mono/JetBrainsMono-Medium.ttf",
    "jetbrains-mono/JetBrainsMono-MediumItalic.ttf",
    "jetbrains-mono/JetBrainsMono-SemiBold.ttf",
    "jetbrains-mono/JetBrainsMono-SemiBoldItalic.ttf",
    "jetbrains-mono/JetBrainsMono-Bold.ttf",
    "jetbrains-mono/JetBrainsMono-BoldItalic.ttf",
    "jetbrains-mono/JetBrainsMono-ExtraBold.ttf",
    "jetbrains-mono/JetBrainsMono-ExtraBoldItalic.ttf",
    "noto/NotoSans-Regular.ttf",
    "noto/NotoSans-Italic.ttf",
    "noto/NotoSans-Bold.ttf",
    "noto/NotoSans-BoldItalic.ttf",
    "noto/NotoSansThai-Regular.ttf",
    "noto/NotoSansThai-Bold.ttf",
    "../icons/material-symbols/MaterialSymbolsOutlined.ttf",
    "../icons/material-symbols/MaterialSymbolsRounded.ttf",
    "../icons/material-symbols/MaterialSymbolsSharp.ttf",
];

/// Families that hold icons, not letters: never a stand-in for text.
pub const ICON_FAMILIES: &[&str] = &["Material Symbols Outlined", "Material Symbols Rounded", "Material Symbols Sharp"];

/// The family text falls back to: the default of the format.
pub const DEFAULT_FAMILY: &str = "Inter";

/// The family monospaced-looking names fall back to.
pub const MONOSPACE_FAMILY: &str = "JetBrains Mono";

/// Which fonts to use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FontOptions {
    /// Also use the fonts installed on this machine. Output then depends on the machine.
    pub system_fonts: bool,
}

/// The bundled font database, the families in it, and (when asked) an index of the system's
/// font files by family, loaded into a [`TextEngine`](super::TextEngine) on first use.
#[derive(Debug, Clone)]
pub struct FontBook {
    database: fontdb::Database,
    /// Lower-cased family name → the name as the bundled fonts spell it.
    families: BTreeMap<String, String>,
    /// Lower-cased family name → the name and the files of that system family.
    system: BTreeMap<String, SystemFamily>,
}

/// A family installed on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemFamily {
    /// The name as the fonts spell it.
    pub name: String,
    /// The font files with faces of the family.
    pub files: Vec<PathBuf>,
}

/// The family a text is shaped with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyChoice {
    /// The family used, as the fonts spell it.
    pub family: String,
    /// The family asked for, when it was not available and `family` replaces it.
    pub replaced: Option<String>,
}

impl FontBook {
    /// The bundled fonts, or the bundled fonts plus an index of the system's. Both are built once
    /// per process and shared: the same book means measured text and layouts stay valid (a
    /// new scan per call made every cache miss). Fonts installed later are seen by the next run.
    pub fn new(options: FontOptions) -> Arc<FontBook> {
        static BUNDLED: OnceLock<Arc<FontBook>> = OnceLock::new();
        static WITH_SYSTEM: OnceLock<Arc<FontBook>> = OnceLock::new();
        let bundled = BUNDLED.get_or_init(|| Arc::new(FontBook::bundled()));
        if !options.system_fonts {
            return Arc::clone(bundled);
        }
        Arc::clone(WITH_SYSTEM.get_or_init(|| Arc::new(FontBook::with_system(bundled))))
    }

    /// The bundled fonts plus an index of the system's families (files are read when used).
    fn with_system(bundled: &FontBook) -> FontBook {
        let mut book = FontBook::clone(bundled);
        let mut scan = fontdb::Database::new();
        scan.load_system_fonts();
        for face in scan.faces() {
            let fontdb::Source::File(path) = &face.source else { continue };
            for (name, _) in &face.families {
                let lower = name.to_lowercase();
                if book.families.contains_key(&lower) {
                    continue;
                }
                let family =
                    book.system.entry(lower).or_insert_with(|| SystemFamily { name: name.clone(), files: Vec::new() });
                if !family.files.contains(path) {
                    family.files.push(path.clone());
                }
            }
        }
        book
    }

    fn bundled() -> FontBook {
        let database = bundled_database();
        let mut families = BTreeMap::new();
        for face in database.faces() {
            for (name, _) in &face.families {
                families.entry(name.to_lowercase()).or_insert_with(|| name.clone());
            }
        }
        FontBook { database, families, system: BTreeMap::new() }
    }

    /// The bundled fonts.
    pub fn database(&self) -> &fontdb::Database {
        &self.database
    }

    /// The bundled family names, sorted.
    pub fn families(&self) -> impl Iterator<Item = &str> {
        self.families.values().map(String::as_str)
    }

    /// The bundled families for text (without the icon fonts), sorted.
    pub fn text_families(&self) -> impl Iterator<Item = &str> {
        self.families().filter(|f| !ICON_FAMILIES.contains(f))
    }

    /// True when `family` is available, bundled or installed (case does not matter).
    pub fn has_family(&self, family: &str) -> bool {
        let lower = family.trim().to_lowercase();
        self.families.contains_key(&lower) || self.system.contains_key(&lower)
    }

    /// The system family called `family`, when system fonts are in use and it is installed.
    pub fn system_family(&self, family: &str) -> Option<&SystemFamily> {
        self.system.get(&family.trim().to_lowercase())
    }

    /// The family to shape `requested` with: itself when available, otherwise a bundled
    /// replacement of the same kind.
    pub fn choose_family(&self, requested: &str) -> FamilyChoice {
        let lower = requested.trim().to_lowercase();
        if let Some(family) = self.families.get(&lower) {
            return FamilyChoice { family: family.clone(), replaced: None };
        }
        if let Some(family) = self.system.get(&lower) {
            return FamilyChoice { family: family.name.clone(), replaced: None };
        }
        let looks_monospaced =
            ["mono", "code", "courier", "consol", "menlo", "monaco"].iter().any(|w| lower.contains(w));
        let family = if looks_monospaced { MONOSPACE_FAMILY } else { DEFAULT_FAMILY };
        FamilyChoice { family: family.to_owned(), replaced: Some(requested.to_owned()) }
    }
}

fn bundled_database() -> fontdb::Database {
    let mut database = fontdb::Database::new();
    for (_, data) in BUNDLED_FONTS {
        database.load_font_source(fontdb::Source::Binary(Arc::new(*data)));
    }
    database.set_sans_serif_family(DEFAULT_FAMILY);
    database.set_monospace_family(MONOSPACE_FAMILY);
    database.set_serif_family("Noto Sans");
    database
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_book_is_made_once_so_caches_keep_matching() {
        let system = FontOptions { system_fonts: true };
        assert!(Arc::ptr_eq(&FontBook::new(system), &FontBook::new(system)));
        assert!(Arc::ptr_eq(&FontBook::new(FontOptions::default()), &FontBook::new(FontOptions::default())));
        assert!(!Arc::ptr_eq(&FontBook::new(system), &FontBook::new(FontOptions::default())));
    }

    #[test]
    fn every_bundled_file_is_a_font() {
        let book = FontBook::new(FontOptions::default());
        // Each file holds one face.
        assert_eq!(book.database().len(), BUNDLED_FONTS.len());
        let families: Vec<&str> = book.families().collect();
        for family in ["Inter", "JetBrains Mono", "Noto Sans", "Noto Sans Thai", "Material Symbols Rounded"] {
            assert!(families.contains(&family), "{family} missing from {families:?}");
        }
    }

    #[test]
    fn every_inter_weight_and_style_is_there() {
        let book = FontBook::new(FontOptions::default());
        for weight in (100..=900).step_by(100) {
            for style in [fontdb::Style::Normal, fontdb::Style::Italic] {
                let query = fontdb::Query {
                    families: &[fontdb::Family::Name("Inter")],
                    weight: fontdb::Weight(weight),
                    style,
                    ..fontdb::Query::default()
                };
                let id = book.database().query(&query).expect("a face");
                let face = book.database().face(id).expect("the face");
                assert_eq!((face.weight.0, face.style), (weight, style), "Inter {weight} {style:?}");
            }
        }
    }

    #[test]
    fn missing_families_are_replaced_by_a_similar_bundled_one() {
        let book = FontBook::new(FontOptions::default());
        assert_eq!(book.choose_family("inter").replaced, None);
        assert_eq!(book.choose_family("JetBrains Mono").family, "JetBrains Mono");
        let roboto = book.choose_family("Roboto");
        assert_eq!((roboto.family.as_str(), roboto.replaced.as_deref()), ("Inter", Some("Roboto")));
        assert_eq!(book.choose_family("IBM Plex Mono").family, "JetBrains Mono");
        assert_eq!(book.choose_family("Courier New").family, "JetBrains Mono");
    }
}
