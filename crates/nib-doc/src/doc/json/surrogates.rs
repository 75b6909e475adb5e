//! Half of a UTF-16 pair (a lone surrogate, `"\ud800"`) in a string of a file.
//!
//! JavaScript strings are UTF-16 and may hold one: `JSON.parse` reads it and `JSON.stringify`
//! writes it back as the escape (`\ud800`, lowercase hex: ECMA-262, `QuoteJSONString`), so
//! Pen loads and saves a file that has one. A Rust `String` cannot hold it. nib keeps each
//! half as a stand-in character of its own, [`STAND_INS`]: the last 2,048 code points of
//! plane 16's private use area, one per surrogate, in the same order. The reader turns the
//! escape into its stand-in, the writer of `.pen` text turns the stand-in back into the escape
//! (so the file saves byte-identical), and every other writer (tool answers, compact values)
//! writes the stand-in as the character it is, which any JSON reader takes, and which comes
//! back as the same half when an agent writes it again. What draws text shows U+FFFD instead
//! ([`shown`]), and says so.
//!
//! A real character of that range in a file would be saved as the half it stands for: the
//! reader notes where the first one is, and loading says so as a warning. None is known in
//! any font or file.

use std::borrow::Cow;
use std::ops::RangeInclusive;

/// The characters that stand for the 2,048 surrogates U+D800–U+DFFF, in order.
pub const STAND_INS: RangeInclusive<char> = '\u{10F800}'..='\u{10FFFF}';

/// The first surrogate.
const FIRST_SURROGATE: u32 = 0xD800;

/// The stand-in of the surrogate `unit` (U+D800–U+DFFF); `None` for any other code unit.
pub fn stand_in(unit: u32) -> Option<char> {
    if !(FIRST_SURROGATE..=0xDFFF).contains(&unit) {
        return None;
    }
    char::from_u32(*STAND_INS.start() as u32 + (unit - FIRST_SURROGATE))
}

/// The surrogate `c` stands for, when it is a stand-in.
pub fn surrogate_of(c: char) -> Option<u16> {
    STAND_INS.contains(&c).then(|| (FIRST_SURROGATE + (c as u32 - *STAND_INS.start() as u32)) as u16)
}

/// True when `text` holds a stand-in. Every stand-in's UTF-8 starts with the bytes F4 8F and
/// then A0–BF, which no other character's does: a byte scan, fast on text without one.
pub fn holds_half_pairs(text: &str) -> bool {
    let bytes = text.as_bytes();
    // F4 starts only the characters of plane 16: almost no text has one.
    bytes.contains(&0xF4) && bytes.windows(3).any(|w| w[0] == 0xF4 && w[1] == 0x8F && w[2] >= 0xA0)
}

/// `text` as it is shown: each stand-in as U+FFFD, the replacement character.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !holds_half_pairs(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| if STAND_INS.contains(&c) { '\u{FFFD}' } else { c }).collect())
}

/// Appends `text` to `out` with each stand-in written as the escape of its half (`\ud800`).
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    if !holds_half_pairs(text) {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        match surrogate_of(c) {
            Some(unit) => out.push_str(&format!("\\u{unit:04x}")),
            None => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_surrogate_has_its_own_stand_in_and_back() {
        for unit in 0xD800..=0xDFFF {
            let c = stand_in(unit).expect("a stand-in");
            assert!(STAND_INS.contains(&c));
            assert_eq!(surrogate_of(c), Some(unit as u16));
            assert!(holds_half_pairs(&c.to_string()));
        }
        assert_eq!(stand_in(0xD7FF), None);
        assert_eq!(stand_in(0xE000), None);
        assert_eq!(surrogate_of('\u{10F7FF}'), None);
        assert!(!holds_half_pairs("plain, é, 😀, \u{10F7FF}, \u{F0000}"));
    }

    #[test]
    fn stand_ins_show_as_the_replacement_character_and_write_as_their_escape() {
        let text = format!("a{}b{}", stand_in(0xD800).unwrap(), stand_in(0xDFFF).unwrap());
        assert_eq!(shown(&text), "a\u{FFFD}b\u{FFFD}");
        assert!(matches!(shown("plain"), Cow::Borrowed("plain")));
        let mut out = String::new();
        push_escaped(&mut out, &text);
        assert_eq!(out, "a\\ud800b\\udfff");
    }
}
