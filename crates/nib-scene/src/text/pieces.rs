//! Where a long text is cut to be shaped a piece at a time.
//!
//! cosmic-text keeps about 400 bytes for every character it shapes and lays out (its shaped
//! glyphs, their laid-out copies, and the corrected copies `relayout` makes), so a text of two
//! million characters shaped whole took 1.9 GB to draw. A text longer than
//! [`PIECE_BYTES`] is shaped in pieces of whole paragraphs instead, each laid out and kept
//! compactly before the next is shaped: cosmic-text lays paragraphs out one by one, so the
//! lines are the ones the whole text would have. A paragraph longer than a piece is shaped in
//! chunks (see [`chunk_end`] and `TextEngine::shape_in_pieces`).

use std::ops::Range;

use unicode_script::{Script, UnicodeScript};

/// The most bytes of text shaped at once (about 13 MB of cosmic-text's structures); a text up
/// to this long is shaped whole and its shaped buffer kept to be wrapped again.
pub(super) const PIECE_BYTES: usize = 32 * 1024;

/// The ranges of `text` shaped one at a time: whole paragraphs (the text between two `\n`,
/// which is not in any range) gathered up to `max` bytes; a longer paragraph is a range of its
/// own. Every paragraph is in exactly one range, an empty last one (after a final `\n`) too.
pub(super) fn pieces(text: &str, max: usize) -> Vec<Range<usize>> {
    let mut pieces = Vec::new();
    let mut piece: Option<Range<usize>> = None;
    let mut start = 0;
    loop {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        piece = match piece {
            Some(open) if end - open.start <= max => Some(open.start..end),
            Some(open) => {
                pieces.push(open);
                Some(start..end)
            }
            None => Some(start..end),
        };
        if end == text.len() {
            break;
        }
        start = end + 1;
    }
    pieces.extend(piece);
    pieces
}

/// Where the chunk of `paragraph` that starts at byte `start` ends: the paragraph's end when it
/// is at most `max` bytes on; else just after the last space in the second half of those
/// bytes (a break opportunity, so no word is cut), else before the last character that is not
/// a mark or a joiner (so no cluster is cut). Always after `start`, on a character boundary.
pub(super) fn chunk_end(paragraph: &str, start: usize, max: usize) -> usize {
    let limit = start.saturating_add(max.max(8));
    if limit >= paragraph.len() {
        return paragraph.len();
    }
    let mut end = limit;
    while !paragraph.is_char_boundary(end) {
        end -= 1;
    }
    let mut half = start + (end - start) / 2;
    while !paragraph.is_char_boundary(half) {
        half += 1;
    }
    if let Some(space) = paragraph[half..end].rfind(' ') {
        return half + space + 1;
    }
    let clusters = paragraph[start..end].char_indices().rev().take(64);
    let mut before = paragraph[end..].chars().next();
    for (index, c) in clusters {
        let joins = |c: Option<char>| c.is_some_and(|c| c.script() == Script::Inherited || c == '\u{200D}');
        if !joins(before) && c != '\u{200D}' {
            return start + index + c.len_utf8();
        }
        before = Some(c);
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(text: &'a str, ranges: &[Range<usize>]) -> Vec<&'a str> {
        ranges.iter().map(|range| &text[range.clone()]).collect()
    }

    #[test]
    fn paragraphs_are_gathered_into_pieces_and_never_cut() {
        let text = "aaaa\nbbbb\ncc\ndddddddddddd\ne";
        assert_eq!(texts(text, &pieces(text, 10)), ["aaaa\nbbbb", "cc", "dddddddddddd", "e"]);
        assert_eq!(texts(text, &pieces(text, 100)), [text]);
        // An empty paragraph after a final line break, and empty ones between.
        assert_eq!(texts("ab\n", &pieces("ab\n", 2)), ["ab", ""]);
        assert_eq!(texts("\n\n\n", &pieces("\n\n\n", 1)), ["\n", "\n"]);
        assert_eq!(texts("", &pieces("", 4)), [""]);
    }

    #[test]
    fn a_chunk_ends_after_a_space_or_between_clusters() {
        let words = "one two three four five six";
        let end = chunk_end(words, 0, 12);
        assert_eq!(&words[..end], "one two ");
        assert_eq!(chunk_end(words, 20, 12), words.len());
        // No space: between two letters, not before a combining mark or around a joiner.
        assert_eq!(chunk_end("abcdefghij", 0, 8), 8, "after the last letter that fits");
        let marks = "aaaaaa\u{301}\u{301}bbbb";
        let end = chunk_end(marks, 0, 8);
        assert!(end > 0 && marks.is_char_boundary(end), "{end}");
        assert!(!marks[end..].starts_with('\u{301}'), "{:?}", &marks[..end]);
        let joined = "aaaaa\u{200D}bbbbb";
        let end = chunk_end(joined, 0, 8);
        assert!(!joined[..end].ends_with('\u{200D}') && !joined[end..].starts_with('\u{200D}'));
        // Multi-byte characters are never cut.
        let kana = "いのでどこでもいので";
        for max in 1..kana.len() {
            let end = chunk_end(kana, 0, max);
            assert!(end > 0 && kana.is_char_boundary(end), "{max}: {end}");
        }
    }
}
