//! Which face draws each character: the faces of the text's family (each Google Fonts subset in
//! turn, then the same family from other sources), then a fixed chain of fallback families, then
//! the user's and the system's fonts. The first face that has a glyph for a character takes it,
//! as a browser does, so that measuring and painting use the same faces on every machine with
//! the same fonts; a character no face has stays with the family's first face (a missing-glyph
//! box, counted by [`ShapedText::missing_glyphs`](super::ShapedText)).

use std::collections::HashMap;
use std::ops::Range;

use super::faces::select;
use super::fonts::FamilyEntry;
use super::registry::Registry;

/// The bundled families tried, in order, for characters the text's family lacks: the format's
/// default, wide Latin, Greek and Cyrillic coverage, Thai, symbols and arrows, mathematics,
/// emoji (outlines, drawn in the text's colour), Japanese, then Simplified Chinese for the hanzi
/// Japanese lacks (a shared ideograph keeps the Japanese form, as a `lang="ja"` page would),
/// Korean, and box drawing.
pub(crate) const FALLBACK_FAMILIES: &[&str] = &[
    "Inter",
    "Noto Sans",
    "Noto Sans Thai",
    "Noto Sans Symbols 2",
    "Noto Sans Math",
    "Noto Emoji",
    "Noto Sans JP",
    "Noto Sans SC",
    "Noto Sans KR",
    "JetBrains Mono",
];

/// Families of the user's cache folder or system looked at for CJK characters the bundled
/// Japanese, Chinese and Korean faces lack (rare hanzi and kanji, traditional forms, old Hangul),
/// in this order.
pub(crate) const CJK_FAMILIES: &[&str] = &[
    "Noto Sans JP",
    "Noto Sans SC",
    "Noto Sans TC",
    "Noto Sans HK",
    "Noto Sans KR",
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Noto Sans CJK TC",
    "Noto Sans CJK KR",
    "Source Han Sans",
    "Hiragino Sans",
    "PingFang SC",
    "Apple SD Gothic Neo",
    "Microsoft YaHei",
    "Yu Gothic",
    "Malgun Gothic",
    "WenQuanYi Micro Hei",
    "Droid Sans Fallback",
];

/// One face of a chain, at the weight and slant the text asks of its family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ChainFace {
    /// The face in the engine's registry.
    pub key: usize,
    /// The weight it is used at.
    pub weight: u16,
    /// Slanted (italic asked, the family has none).
    pub oblique: bool,
}

/// The faces tried for the characters of texts in one family, weight and style, with the choice
/// made for each character so far.
#[derive(Debug, Clone, Default)]
pub(super) struct Chain {
    faces: Vec<ChainFace>,
    picks: HashMap<char, Option<usize>>,
}

impl Chain {
    /// The chain for texts in the family whose sources are `family` (in the order they are
    /// preferred), followed by `fallbacks`, at `weight` and `italic`.
    pub fn build(
        registry: &mut Registry,
        family: &[FamilyEntry],
        fallbacks: &[FamilyEntry],
        weight: u16,
        italic: bool,
    ) -> Chain {
        let mut faces: Vec<ChainFace> = Vec::new();
        for entry in family.iter().chain(fallbacks) {
            let Some(selection) = select(&entry.faces, weight, italic) else { continue };
            for face in &selection.faces {
                let key = registry.key(face);
                if !faces.iter().any(|f| f.key == key) {
                    faces.push(ChainFace { key, weight: selection.weight, oblique: selection.oblique });
                }
            }
        }
        Chain { faces, picks: HashMap::new() }
    }

    /// How many faces the chain has.
    pub fn len(&self) -> usize {
        self.faces.len()
    }

    /// The chain's face `index`.
    pub fn face(&self, index: usize) -> ChainFace {
        self.faces[index]
    }

    /// `text` cut into runs of one face each: byte ranges with the index of their face in the
    /// chain. A character no face has goes to the first face.
    pub fn split(&mut self, registry: &mut Registry, text: &str) -> Vec<(Range<usize>, usize)> {
        let mut runs: Vec<(Range<usize>, usize)> = Vec::new();
        for (start, end, cluster) in clusters(text) {
            let first = cluster.chars().next().unwrap_or(' ');
            let index = if first.is_control() {
                // Line breaks and tabs stay with the run they are in.
                runs.last().map_or(0, |(_, index)| *index)
            } else {
                self.pick(registry, cluster).unwrap_or(0)
            };
            match runs.last_mut() {
                Some((range, last)) if *last == index && range.end == start => range.end = end,
                _ => runs.push((start..end, index)),
            }
        }
        runs
    }

    /// The first face in the chain's order with a glyph for the cluster's base character and
    /// its other visible characters. An emoji variation selector (U+FE0F) does not move the
    /// emoji face ahead: Chromium prefers emoji presentation only from colour fonts, and nib's
    /// emoji face is outlines (Chromium laid "⚠️" in Inter 16 px 17 px wide, the width of
    /// Symbols 2's glyph, where the emoji face's is 21).
    fn pick(&mut self, registry: &mut Registry, cluster: &str) -> Option<usize> {
        let mut chars = cluster.chars();
        let base = chars.next()?;
        if cluster.len() == base.len_utf8()
            && let Some(found) = self.picks.get(&base)
        {
            return *found;
        }
        let others: Vec<char> = chars.filter(|c| !is_invisible_joiner(*c)).collect();
        let faces = &self.faces;
        let whole = (0..faces.len())
            .find(|i| {
                let key = faces[*i].key;
                registry.covers(key, base) && others.iter().all(|c| registry.covers(key, *c))
            })
            .or_else(|| (0..faces.len()).find(|i| registry.covers(faces[*i].key, base)));
        if cluster.len() == base.len_utf8() {
            self.picks.insert(base, whole);
        }
        whole
    }
}

/// Characters that join others without a glyph of their own, which fonts may not list.
fn is_invisible_joiner(c: char) -> bool {
    matches!(u32::from(c), 0x200C | 0x200D | 0xFE00..=0xFE0F | 0xE0020..=0xE007F | 0xE0100..=0xE01EF)
}

/// Characters that belong to the character before them: combining marks, joiners, variation
/// selectors, emoji modifiers and tags (and whatever follows a zero-width joiner).
fn attaches(c: char) -> bool {
    is_invisible_joiner(c)
        || matches!(u32::from(c), 0x1F3FB..=0x1F3FF | 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
        || unicode_script::UnicodeScript::script(&c) == unicode_script::Script::Inherited
}

/// `text`'s clusters: `(start, end, text)` of a base character and what attaches to it.
fn clusters(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, first) = chars.next()?;
        let mut end = start + first.len_utf8();
        let mut joined = false;
        while let Some(&(index, c)) = chars.peek() {
            if !(joined || attaches(c)) || c.is_control() {
                break;
            }
            joined = c == '\u{200D}';
            end = index + c.len_utf8();
            chars.next();
        }
        Some((start, end, &text[start..end]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_joiners_and_modifiers_stay_with_their_base() {
        let cut: Vec<&str> = clusters("e\u{301}x👍🏽👩\u{200D}💻✔\u{FE0F}\n").map(|(_, _, c)| c).collect();
        assert_eq!(cut, vec!["e\u{301}", "x", "👍🏽", "👩\u{200D}💻", "✔\u{FE0F}", "\n"]);
    }
}
