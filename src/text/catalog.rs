//! Which font families and icons exist: the Google Fonts catalogue plus common system families,
//! lucide (with the names it had before its renames), and Material Symbols. Embedded in the
//! binary, read once on first use.

use std::collections::HashSet;
use std::sync::OnceLock;

use super::lucide::Lucide;
use crate::doc::{edit_distance, suggest};

const GOOGLE_FAMILIES: &str = include_str!("../../assets/fonts/google-fonts-families.txt");
const MATERIAL_SYMBOLS: &str = include_str!("../../assets/icons/material-symbols/names.txt");

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
        GOOGLE_FAMILIES
            .lines()
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
    GOOGLE_FAMILIES
        .lines()
        .chain(SYSTEM_FAMILIES.iter().copied())
        .map(|name| (edit_distance(&name.to_lowercase(), &lower), name))
        .filter(|(distance, _)| *distance <= budget)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// An icon set nib draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IconSet {
    /// lucide (stroke icons on a 24-unit grid).
    Lucide,
    /// Google's Material Symbols, in one of its three styles.
    MaterialSymbols,
}

impl IconSet {
    /// The set a node's icon family names, if nib has it.
    pub fn for_family(family: &str) -> Option<IconSet> {
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
    pub const FAMILIES: &'static [&'static str] =
        &["lucide", "Material Symbols Outlined", "Material Symbols Rounded", "Material Symbols Sharp"];

    /// True when the set has an icon called `name` (lucide also answers to its former names).
    pub fn has(self, name: &str) -> bool {
        match self {
            IconSet::Lucide => Lucide::get().has(name),
            IconSet::MaterialSymbols => material().contains(name),
        }
    }

    /// An icon of the set whose name is close to `name`.
    pub fn suggest(self, name: &str) -> Option<String> {
        let mut names: Vec<&'static str> = match self {
            IconSet::Lucide => Lucide::get().names().collect(),
            IconSet::MaterialSymbols => material().iter().map(|n| n.as_str()).collect(),
        };
        // Sets iterate in random order; sorting makes the choice between equally close names stable.
        names.sort_unstable();
        suggest(name, &names).map(str::to_owned)
    }
}

fn material() -> &'static HashSet<String> {
    static MATERIAL: OnceLock<HashSet<String>> = OnceLock::new();
    MATERIAL.get_or_init(|| MATERIAL_SYMBOLS.lines().map(str::to_owned).filter(|n| !n.is_empty()).collect())
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
}
