//! Which font families and icons exist: the Google Fonts catalogue (with each family's category,
//! weights and styles) plus common system families, lucide (with the names it had before its
//! renames), and Material Symbols. Embedded in the binary, read once on first use.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::lucide::Lucide;
use crate::doc::{Key, Props, Value, VarOr, edit_distance, suggest};

/// `family<TAB>category<TAB>weights<TAB>styles` per line; `#` starts a comment line.
const GOOGLE_FONTS: &str = include_str!("../../../../assets/fonts/google-fonts.tsv");

/// The kind of typeface a Google Fonts family is, as the catalogue files it: what a missing
/// family is replaced with offline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Sans-serif text faces.
    Sans,
    /// Serif text faces.
    Serif,
    /// Faces for headlines and short display text.
    Display,
    /// Script and handwriting faces.
    Handwriting,
    /// Monospaced faces.
    Monospace,
}

impl Category {
    fn parse(text: &str) -> Option<Category> {
        Some(match text {
            "sans-serif" => Category::Sans,
            "serif" => Category::Serif,
            "display" => Category::Display,
            "handwriting" => Category::Handwriting,
            "monospace" => Category::Monospace,
            _ => return None,
        })
    }

    /// The catalogue's word for it (`sans-serif`, `serif`, `display`, `handwriting`, `monospace`).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Sans => "sans-serif",
            Category::Serif => "serif",
            Category::Display => "display",
            Category::Handwriting => "handwriting",
            Category::Monospace => "monospace",
        }
    }
}

/// A family of the Google Fonts catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoogleFamily {
    /// The name as Google spells it.
    pub name: &'static str,
    /// Its category.
    pub category: Category,
    /// The weights it has (100–900), ascending.
    pub weights: Vec<u16>,
    /// True when it has italics.
    pub italic: bool,
}

fn google_families() -> &'static HashMap<String, GoogleFamily> {
    static GOOGLE: OnceLock<HashMap<String, GoogleFamily>> = OnceLock::new();
    GOOGLE.get_or_init(|| {
        // Sized once: grown from empty, the table was rehashed ten times, each time into fresh memory.
        let mut families = HashMap::with_capacity(google_lines().count());
        families.extend(google_lines().filter_map(|line| {
            let mut fields = line.split('\t');
            let name = fields.next()?.trim();
            let category = Category::parse(fields.next()?.trim())?;
            let weights = fields.next()?.split(',').filter_map(|w| w.trim().parse().ok()).collect();
            let italic = fields.next()?.split(',').any(|s| s.trim() == "italic");
            Some((name.to_lowercase(), GoogleFamily { name, category, weights, italic }))
        }));
        families
    })
}

fn google_lines() -> impl Iterator<Item = &'static str> {
    GOOGLE_FONTS.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty())
}

fn google_names() -> impl Iterator<Item = &'static str> {
    google_lines().map(|line| line.split('\t').next().unwrap_or(line).trim())
}

/// The Google Fonts family whose cache folder is `slug` (see [`super::cache::slug`]).
pub fn google_family_by_slug(slug: &str) -> Option<&'static GoogleFamily> {
    google_families().values().find(|family| super::cache::slug(family.name) == slug)
}

/// The Google Fonts family called `family` (case does not matter).
pub fn google_family(family: &str) -> Option<&'static GoogleFamily> {
    google_families().get(&family.trim().to_lowercase())
}
const MATERIAL_SYMBOLS: &str = include_str!("../../../../assets/icons/material-symbols/names.txt");

/// Families installed with common operating systems; designs use them and they are real fonts.
const SYSTEM_FAMILIES: &[&str] = &[
    "Arial",
    "Helvetica",
    "Helvetica Neue",
    "Times New Roman",
    "Times",
    "Courier New",
    "Courier",
    "Georgia",
    "Verdana",
    "Tahoma",
    "Trebuchet MS",
    "Segoe UI",
    "SF Pro",
    "SF Pro Display",
    "SF Pro Text",
    "SF Pro Rounded",
    "SF Mono",
    "New York",
    "Menlo",
    "Monaco",
    "Consolas",
    "Cascadia Code",
    "system-ui",
    "Apple Color Emoji",
    "Segoe UI Emoji",
    "Comic Sans MS",
    "Impact",
    "Arial Black",
    "Arial Narrow",
    "Lucida Grande",
    "Lucida Console",
    "Palatino",
    "Palatino Linotype",
    "Garamond",
    "Baskerville",
    "Futura",
    "Gill Sans",
    "Optima",
    "Didot",
    "American Typewriter",
    "Avenir",
    "Avenir Next",
    "Calibri",
    "Cambria",
    "Candara",
    "Constantia",
    "Corbel",
    "Franklin Gothic Medium",
    "Book Antiqua",
    "Century Gothic",
    "Rockwell",
    "Copperplate",
    "Papyrus",
    "Brush Script MT",
    "Hoefler Text",
    "PingFang SC",
    "Hiragino Sans",
    "Microsoft YaHei",
    "Yu Gothic",
    "Meiryo",
    "Malgun Gothic",
    "DejaVu Sans",
    "DejaVu Sans Mono",
    "Liberation Sans",
    "Liberation Serif",
    "Liberation Mono",
    "Ubuntu",
    "Ubuntu Mono",
    "Cantarell",
    "Noto Color Emoji",
    "ui-monospace",
    "ui-sans-serif",
    "ui-serif",
    "-apple-system",
    "BlinkMacSystemFont",
    "sans-serif",
    "serif",
    "monospace",
];

fn families() -> &'static HashSet<String> {
    static FAMILIES: OnceLock<HashSet<String>> = OnceLock::new();
    FAMILIES.get_or_init(|| {
        google_names()
            .chain(SYSTEM_FAMILIES.iter().copied())
            .map(|f| f.trim().to_lowercase())
            .filter(|f| !f.is_empty())
            .collect()
    })
}

/// True when `family` names a real font family (case does not matter).
pub fn is_known_family(family: &str) -> bool {
    families().contains(&family.trim().to_lowercase())
}

/// A known family one or two typos away from `family`.
pub fn suggest_family(family: &str) -> Option<&'static str> {
    let lower = family.trim().to_lowercase();
    let budget = (lower.chars().count() / 4).clamp(1, 3);
    google_names()
        .chain(SYSTEM_FAMILIES.iter().copied())
        .map(|name| (edit_distance(&name.to_lowercase(), &lower), name))
        .filter(|(distance, _)| *distance <= budget)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// An icon set nib draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IconSet {
    /// lucide (stroke icons on a 24-unit grid).
    Lucide,
    /// Google's Material Symbols, in one of its three styles.
    MaterialSymbols,
}

impl IconSet {
    /// The set a node's icon family names, if nib has it.
    pub(crate) fn for_family(family: &str) -> Option<IconSet> {
        let lower = family.trim().to_lowercase();
        match lower.as_str() {
            "lucide" => Some(IconSet::Lucide),
            "material symbols outlined"
            | "material symbols rounded"
            | "material symbols sharp"
            | "material symbols" => Some(IconSet::MaterialSymbols),
            _ => None,
        }
    }

    /// The families that name sets nib has.
    pub(crate) const FAMILIES: &'static [&'static str] =
        &["lucide", "Material Symbols Outlined", "Material Symbols Rounded", "Material Symbols Sharp"];

    /// True when the set has an icon called `name` (lucide also answers to its former names).
    pub fn has(self, name: &str) -> bool {
        match self {
            IconSet::Lucide => Lucide::get().has(name),
            IconSet::MaterialSymbols => material().binary_search(&name).is_ok(),
        }
    }

    /// An icon of the set whose name is close to `name`.
    pub fn suggest(self, name: &str) -> Option<String> {
        let mut names: Vec<&'static str> = match self {
            IconSet::Lucide => Lucide::get().names().collect(),
            IconSet::MaterialSymbols => material().to_vec(),
        };
        // Sets iterate in random order; sorting makes the choice between equally close names stable.
        names.sort_unstable();
        suggest(name, &names).map(str::to_owned)
    }
}

/// Why the icon a node names cannot be drawn — its set or its name is unknown, so a placeholder
/// is drawn instead — in words an agent can act on; `None` when it can be drawn (or names no
/// icon, or names it through a variable). Read as the display list reads the node.
pub fn missing_icon(props: &Props) -> Option<String> {
    let text = |key: &Key| match props.get(key) {
        Some(Value::TextOrVar(VarOr::Value(text))) => Some(text.as_str()),
        _ => None,
    };
    let name = text(&Key::IconFontName).or_else(|| text(&Key::Icon))?;
    // Pen's default family for icon fonts (spec §2).
    let family = text(&Key::IconFontFamily).or_else(|| text(&Key::Library)).unwrap_or("Material Symbols Rounded");
    let Some(set) = IconSet::for_family(family) else {
        return Some(format!(
            "Icon font family '{family}' is not available. Use one of: {}.",
            IconSet::FAMILIES.iter().map(|f| format!("'{f}'")).collect::<Vec<_>>().join(", ")
        ));
    };
    if set.has(name) {
        return None;
    }
    let hint = set.suggest(name).map(|s| format!(" Did you mean '{s}'?")).unwrap_or_default();
    Some(format!("Icon '{name}' was not found in the '{family}' icon set.{hint}"))
}

/// The Material Symbols names, sorted: looked up by binary search. (A set of owned names cost
/// a render that draws one such icon 3,927 allocations, half a millisecond.)
fn material() -> &'static [&'static str] {
    static MATERIAL: OnceLock<Vec<&'static str>> = OnceLock::new();
    MATERIAL.get_or_init(|| {
        let mut names: Vec<&'static str> = MATERIAL_SYMBOLS.lines().filter(|n| !n.is_empty()).collect();
        // The file is sorted; sorting again costs one pass and keeps lookups right if it is not.
        names.sort_unstable();
        names.dedup();
        names
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_from_google_fonts_and_systems_are_known() {
        for family in
            ["Inter", "inter", "JetBrains Mono", "Noto Sans Thai", "Press Start 2P", "SF Pro Display", "Courier New"]
        {
            assert!(is_known_family(family), "{family}");
        }
        assert!(!is_known_family("Intre Display Pro"));
        assert_eq!(suggest_family("Interr"), Some("Inter"));
    }

    #[test]
    fn the_catalogue_knows_each_family_category_weights_and_styles() {
        let dm_sans = google_family("dm sans").expect("DM Sans");
        assert_eq!((dm_sans.name, dm_sans.category, dm_sans.italic), ("DM Sans", Category::Sans, true));
        assert_eq!(dm_sans.weights, vec![100, 200, 300, 400, 500, 600, 700, 800, 900]);
        assert_eq!(google_family("Space Mono").map(|f| f.category), Some(Category::Monospace));
        assert_eq!(google_family("Caveat").map(|f| f.category), Some(Category::Handwriting));
        assert_eq!(google_family("Lobster").map(|f| (f.category, f.italic)), Some((Category::Display, false)));
        assert_eq!(google_family("Merriweather").map(|f| f.category), Some(Category::Serif));
        assert_eq!(google_families().len(), 1908);
        assert!(google_family("Helvetica").is_none(), "system families are not in Google's catalogue");
    }

    #[test]
    fn icons_by_current_and_former_names() {
        assert_eq!(IconSet::for_family("lucide"), Some(IconSet::Lucide));
        assert_eq!(IconSet::for_family("Material Symbols Rounded"), Some(IconSet::MaterialSymbols));
        assert_eq!(IconSet::for_family("Font Awesome"), None);
        assert!(IconSet::Lucide.has("settings"));
        assert!(IconSet::Lucide.has("trash-2"), "former names still resolve");
        assert!(IconSet::Lucide.has("github"), "brand icons lucide 1.x dropped are bundled from 0.x");
        assert!(IconSet::MaterialSymbols.has("grid_view"));
        assert_eq!(IconSet::Lucide.suggest("setings").as_deref(), Some("settings"));
    }

    #[test]
    fn every_material_symbol_of_the_list_is_found_and_nothing_else() {
        let names: Vec<&str> = MATERIAL_SYMBOLS.lines().filter(|n| !n.is_empty()).collect();
        assert_eq!(names.len(), 3927);
        for name in &names {
            assert!(IconSet::MaterialSymbols.has(name), "{name}");
        }
        for absent in ["", "grid-view", "Grid_view", "grid_vie", "grid_view_", "zzzz"] {
            assert!(!IconSet::MaterialSymbols.has(absent), "{absent}");
        }
        assert_eq!(IconSet::MaterialSymbols.suggest("grid_veiw").as_deref(), Some("grid_view"));
    }
}
