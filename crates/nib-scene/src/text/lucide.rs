//! The lucide icon set, read once: the icons of lucide 1.x, the brand icons 1.x dropped (taken
//! from the last 0.x release, which real files still use: github, slack, figma, …), and the
//! former names of renamed icons. The catalogue asks it which names exist; the painter asks it
//! for an icon's SVG elements.

use std::collections::HashMap;
use std::sync::OnceLock;

const ICONS: &str = include_str!("../../../../assets/icons/lucide/icon-nodes.json");
const BRAND_ICONS: &str = include_str!("../../../../assets/icons/lucide/brand-icon-nodes.json");

// ICON_COUNT, ICON_INDEX and ALIAS_INDEX: the set indexed at build time (build.rs).
include!(concat!(env!("OUT_DIR"), "/lucide_index.rs"));

/// An SVG element as lucide lists it: its tag and attributes.
pub(crate) type SvgElement = (String, HashMap<String, serde_json::Value>);

/// lucide's SVG elements by icon name, and former names: tables made at build time, and each
/// icon's elements parsed the first time it is drawn (parsing the 1,600 icons up front took
/// 4 ms of every process that draws one icon, indexing them at run time 1 ms).
pub(crate) struct Lucide {
    parsed: [OnceLock<Vec<SvgElement>>; ICON_COUNT],
}

impl Lucide {
    /// The set. The files are embedded and valid (the build indexed them); an icon whose
    /// elements did not parse would draw nothing rather than fail a render.
    pub(crate) fn get() -> &'static Lucide {
        static LUCIDE: Lucide = Lucide { parsed: [const { OnceLock::new() }; ICON_COUNT] };
        &LUCIDE
    }

    /// The elements of the icon `name` (or of the icon it was renamed to).
    pub(crate) fn elements(&self, name: &str) -> Option<&[SvgElement]> {
        let index = icon(current_name(name))?;
        Some(self.parsed[index].get_or_init(|| {
            let (_, source, start, end) = ICON_INDEX[index];
            let text = if source == 0 { ICONS } else { BRAND_ICONS };
            serde_json::from_str(&text[start as usize..end as usize]).unwrap_or_default()
        }))
    }

    /// True when `name` is an icon, or a former name of one.
    pub(crate) fn has(&self, name: &str) -> bool {
        icon(name).is_some() || alias(name).is_some()
    }

    /// Every name that draws an icon: current and former names.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        ICON_INDEX.iter().map(|entry| entry.0).chain(ALIAS_INDEX.iter().map(|(former, _)| *former))
    }
}

/// The place of the icon called `name` in [`ICON_INDEX`].
fn icon(name: &str) -> Option<usize> {
    ICON_INDEX.binary_search_by(|entry| entry.0.cmp(name)).ok()
}

/// The icon a former name now names.
fn alias(name: &str) -> Option<&'static str> {
    ALIAS_INDEX.binary_search_by(|(former, _)| former.cmp(&name)).ok().map(|at| ALIAS_INDEX[at].1)
}

/// `name`, or the name of the icon it was renamed to.
fn current_name(name: &str) -> &str {
    alias(name).unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::value::RawValue;

    const ALIASES: &str = include_str!("../../../../assets/icons/lucide/aliases.json");

    #[test]
    fn the_build_time_index_is_what_the_files_say() {
        // Read as the set was read at run time before it was indexed at build time.
        let index = |text: &'static str| -> HashMap<&'static str, &'static RawValue> {
            serde_json::from_str(text).expect("an embedded file parses")
        };
        let mut icons = index(ICONS);
        for (name, elements) in index(BRAND_ICONS) {
            icons.entry(name).or_insert(elements);
        }
        let aliases: HashMap<String, String> = serde_json::from_str(ALIASES).expect("aliases parse");
        assert_eq!(ICON_COUNT, icons.len());
        assert!(ICON_INDEX.windows(2).all(|pair| pair[0].0 < pair[1].0), "sorted, each name once");
        assert!(ALIAS_INDEX.windows(2).all(|pair| pair[0].0 < pair[1].0), "sorted, each name once");
        for (name, elements) in &icons {
            let (_, source, start, end) = ICON_INDEX[icon(name).expect("indexed")];
            let text = if source == 0 { ICONS } else { BRAND_ICONS };
            assert_eq!(&text[start as usize..end as usize], elements.get(), "{name}");
        }
        assert_eq!(ALIAS_INDEX.len(), aliases.len());
        for (former, current) in &aliases {
            assert_eq!(alias(former), Some(current.as_str()), "{former}");
        }
        assert!(!Lucide::get().has("no-such-icon") && !Lucide::get().has(""));
    }

    #[test]
    fn the_embedded_files_parse_and_brand_icons_are_there() {
        let lucide = Lucide::get();
        for brand in ["github", "slack", "figma", "twitter", "linkedin", "youtube", "gitlab", "dribbble"] {
            assert!(lucide.has(brand) && lucide.elements(brand).is_some(), "{brand}");
        }
        assert!(lucide.names().count() > 2000);
        // Each icon is parsed when first drawn: every one of them must parse to elements.
        for (name, ..) in ICON_INDEX {
            assert!(lucide.elements(name).is_some_and(|e| !e.is_empty()), "{name}");
        }
    }
}
