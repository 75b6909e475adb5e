//! The lucide icon set, read once: the icons of lucide 1.x, the brand icons 1.x dropped (taken
//! from the last 0.x release, which real files still use: github, slack, figma, …), and the
//! former names of renamed icons. The catalogue asks it which names exist; the painter asks it
//! for an icon's SVG elements.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::value::RawValue;

const ICONS: &str = include_str!("../../../../assets/icons/lucide/icon-nodes.json");
const BRAND_ICONS: &str = include_str!("../../../../assets/icons/lucide/brand-icon-nodes.json");
const ALIASES: &str = include_str!("../../../../assets/icons/lucide/aliases.json");

/// An SVG element as lucide lists it: its tag and attributes.
pub(crate) type SvgElement = (String, HashMap<String, serde_json::Value>);

/// lucide's SVG elements by icon name, and former names.
pub(crate) struct Lucide {
    icons: HashMap<&'static str, LazyIcon>,
    aliases: HashMap<String, String>,
}

/// One icon's elements: the embedded JSON text, parsed the first time the icon is drawn. Parsing
/// the 1,600 icons up front took 4 ms of every process that draws one icon.
struct LazyIcon {
    text: &'static RawValue,
    elements: OnceLock<Vec<SvgElement>>,
}

impl LazyIcon {
    fn elements(&self) -> &[SvgElement] {
        self.elements.get_or_init(|| serde_json::from_str(self.text.get()).unwrap_or_default())
    }
}

impl Lucide {
    /// The set, indexed on first use. The files are embedded and valid (a test reads them); an
    /// unreadable one would leave the set without those icons rather than fail a render.
    pub(crate) fn get() -> &'static Lucide {
        static LUCIDE: OnceLock<Lucide> = OnceLock::new();
        LUCIDE.get_or_init(|| {
            let index = |text: &'static str| -> HashMap<&'static str, &'static RawValue> {
                serde_json::from_str(text).unwrap_or_default()
            };
            let mut icons = index(ICONS);
            for (name, elements) in index(BRAND_ICONS) {
                icons.entry(name).or_insert(elements);
            }
            let icons =
                icons.into_iter().map(|(name, text)| (name, LazyIcon { text, elements: OnceLock::new() })).collect();
            Lucide { icons, aliases: serde_json::from_str(ALIASES).unwrap_or_default() }
        })
    }

    /// The elements of the icon `name` (or of the icon it was renamed to).
    pub(crate) fn elements(&self, name: &str) -> Option<&[SvgElement]> {
        let name = self.aliases.get(name).map_or(name, String::as_str);
        self.icons.get(name).map(LazyIcon::elements)
    }

    /// True when `name` is an icon, or a former name of one.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.icons.contains_key(name) || self.aliases.contains_key(name)
    }

    /// Every name that draws an icon: current and former names.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.icons.keys().copied().chain(self.aliases.keys().map(String::as_str))
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
        // Each icon is parsed when first drawn: every one of them must parse to elements.
        for name in lucide.icons.keys() {
            assert!(lucide.elements(name).is_some_and(|e| !e.is_empty()), "{name}");
        }
    }
}
