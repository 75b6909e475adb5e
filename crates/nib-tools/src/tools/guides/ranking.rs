//! Which guide fits a set of tags. Agents write tags freely (`Dark`, `dark_mode`, `fintech`), so
//! tags are normalized and read through the vocabulary's synonyms first; what is still unknown is
//! reported, never silently dropped.
//!
//! Ranking: the most requested tags carried wins. On a tie the more specific guide wins: the one
//! with fewer tags in the categories the request touched (asking for `dark` prefers a dark guide
//! over one that is light and dark). Then the name, so the answer never depends on file order.

use super::catalog::{Catalog, StyleGuide};

/// Requested tags, read against the vocabulary.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct ReadTags {
    /// Known tags, canonical, without repeats, in the order given.
    pub known: Vec<&'static str>,
    /// Words that are not tags, as given, with a close tag when there is one.
    pub unknown: Vec<(String, Option<&'static str>)>,
    /// Words read as another tag: (as given, the tag).
    pub read_as: Vec<(String, &'static str)>,
}

/// A guide and the requested tags it carries.
#[derive(Debug)]
pub(crate) struct Ranked {
    /// The guide.
    pub guide: &'static StyleGuide,
    /// The requested tags it carries, in request order.
    pub matched: Vec<&'static str>,
}

/// `Dark Mode`, `dark_mode` → `dark-mode`.
pub fn normalize(word: &str) -> String {
    word.trim().to_lowercase().split([' ', '_', '-']).filter(|p| !p.is_empty()).collect::<Vec<_>>().join("-")
}

/// Reads the requested tags: exact tags, then synonyms; the rest is unknown.
pub(crate) fn read_tags(catalog: &'static Catalog, tags: &[String]) -> ReadTags {
    let all: Vec<&'static str> = catalog.tags().collect();
    let mut read = ReadTags::default();
    for given in tags {
        let word = normalize(given);
        if word.is_empty() {
            continue;
        }
        let tag = all.iter().copied().find(|t| *t == word).or_else(|| {
            let (_, tag) = catalog.vocabulary.synonyms.iter().find(|(synonym, _)| **synonym == word)?;
            let tag = all.iter().copied().find(|t| t == tag)?;
            read.read_as.push((given.clone(), tag));
            Some(tag)
        });
        match tag {
            Some(tag) if !read.known.contains(&tag) => read.known.push(tag),
            Some(_) => {}
            None => read.unknown.push((given.clone(), crate::doc::suggest(&word, &all))),
        }
    }
    read
}

/// Every guide, best first, with the requested tags it carries.
pub fn rank(catalog: &'static Catalog, known: &[&'static str]) -> Vec<Ranked> {
    let touched: Vec<&str> = known.iter().filter_map(|t| catalog.category_of(t)).map(|c| c.name.as_str()).collect();
    let breadth = |guide: &StyleGuide| {
        guide.tags.iter().filter(|t| catalog.category_of(t).is_some_and(|c| touched.contains(&c.name.as_str()))).count()
    };
    let mut ranked: Vec<(Ranked, usize)> = catalog
        .guides
        .iter()
        .map(|guide| {
            let matched = known.iter().copied().filter(|t| guide.tags.iter().any(|g| g == t)).collect();
            (Ranked { guide, matched }, breadth(guide))
        })
        .collect();
    ranked.sort_by(|(a, a_breadth), (b, b_breadth)| {
        b.matched
            .len()
            .cmp(&a.matched.len())
            .then(a_breadth.cmp(b_breadth))
            .then_with(|| a.guide.name.cmp(&b.guide.name))
    });
    ranked.into_iter().map(|(r, _)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::guides::catalog::catalog;

    #[test]
    fn normalize_joins_words_with_hyphens() {
        assert_eq!(normalize("  Dark Mode "), "dark-mode");
        assert_eq!(normalize("landing_page"), "landing-page");
        assert_eq!(normalize("mobile--app"), "mobile-app");
    }

    #[test]
    fn tags_are_read_through_synonyms_and_typos_are_reported() {
        let catalog = catalog().unwrap();
        let read = read_tags(catalog, &["Dark".into(), "fintech".into(), "finance".into(), "calmm".into()]);
        assert_eq!(read.known, ["dark", "finance"]);
        assert_eq!(read.read_as, [("fintech".to_owned(), "finance")]);
        assert_eq!(read.unknown, [("calmm".to_owned(), Some("calm"))]);
    }

    #[test]
    fn more_matches_win_then_the_narrower_guide_then_the_name() {
        let catalog = catalog().unwrap();
        let ranked = rank(catalog, &["dark"]);
        let best = &ranked[0];
        assert_eq!(best.matched, ["dark"]);
        assert!(!best.guide.tags.iter().any(|t| t == "light"), "a dark-only guide beats a light-and-dark one");
        let dark_only: Vec<&str> = ranked
            .iter()
            .take_while(|r| !r.guide.tags.iter().any(|t| t == "light") && !r.matched.is_empty())
            .map(|r| r.guide.name.as_str())
            .collect();
        assert!(dark_only.len() > 1 && dark_only.is_sorted(), "{dark_only:?}");
        let two = rank(catalog, &["finance", "dark"]);
        assert_eq!(two[0].matched.len(), 2, "{}", two[0].guide.name);
    }
}
