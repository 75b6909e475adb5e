//! The lucide icon set, read once: the icons of lucide 1.x, the brand icons 1.x dropped (taken
//! from the last 0.x release, which real files still use: github, slack, figma, …), and the
//! former names of renamed icons. The catalogue asks it which names exist; the painter asks it
//! for an icon's SVG elements.

use std::collections::HashMap;
use std::sync::OnceLock;

const ICONS: &str = include_str!("../../assets/icons/lucide/icon-nodes.json");
const BRAND_ICONS: &str = include_str!("../../assets/icons/lucide/brand-icon-nodes.json");
const ALIASES: &str = include_str!("../../assets/icons/lucide/aliases.json");

/// An SVG element as lucide lists it: its tag and attributes.
pub(crate) type SvgElement = (String, HashMap<String, serde_json::Value>);

/// lucide's SVG elements by icon name, and former names.
pub(crate) struct Lucide {
    icons: HashMap<String, Vec<SvgElement>>,
    aliases: HashMap<String, String>,
}

impl Lucide {
    /// The set, parsed on first use. The files are embedded and valid (a test reads them); an
    /// unreadable one would leave the set without those icons rather than fail a render.
    pub(crate) fn get() -> &'static Lucide {
        static LUCIDE: OnceLock<Lucide> = OnceLock::new();
        LUCIDE.get_or_init(|| {
            let mut icons: HashMap<String, Vec<SvgElement>> = serde_json::from_str(ICONS).unwrap_or_default();
            let brands: HashMap<String, Vec<SvgElement>> = serde_json::from_str(BRAND_ICONS).unwrap_or_default();
            for (name, elements) in brands {
                icons.entry(name).or_insert(elements);
            }
            Lucide { icons, aliases: serde_json::from_str(ALIASES).unwrap_or_default() }
        })
    }

    /// The elements of the icon `name` (or of the icon it was renamed to).
    pub(crate) fn elements(&self, name: &str) -> Option<&[SvgElement]> {
        let name = self.aliases.get(name).map_or(name, String::as_str);
        self.icons.get(name).map(Vec::as_slice)
    }

    /// True when `name` is an icon, or a former name of one.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.icons.contains_key(name) || self.aliases.contains_key(name)
    }

    /// Every name that draws an icon: current and former names.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.icons.keys().chain(self.aliases.keys()).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_files_parse_and_brand_icons_are_there() {
        let parse = |text| serde_json::from_str::<serde_json::Value>(text).is_ok();
        assert!(parse(ICONS) && parse(BRAND_ICONS) && parse(ALIASES));
        let lucide = Lucide::get();
        for brand in ["github", "slack", "figma", "twitter", "linkedin", "youtube", "gitlab", "dribbble"] {
            assert!(lucide.has(brand) && lucide.elements(brand).is_some(), "{brand}");
        }
        assert!(lucide.names().count() > 2000);
    }
}
