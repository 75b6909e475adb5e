//! Letter spacing as browsers apply it: spaced letters are not joined (the features it turns
//! off), and the spacing is added once per cluster.
//!
//! cosmic-text adds a text's letter spacing to every glyph it shapes, marks included, where
//! Chromium adds it once after each cluster (a base letter and the marks set on it): "สวัสดี"
//! at −1 px came out 2 px narrower than the browser's, one spacing too many for each of its two
//! marks. Here the spacing is taken back from every glyph but the last of its cluster, in a
//! copy of the shaped paragraph (see `relayout`).

use cosmic_text::ShapeLine;

/// The OpenType features letter spacing turns off: spaced letters are not joined (CSS Text 3,
/// "letter-spacing"), so "fi" stays two spaced letters. Blink turns off `liga` and `clig`, and
/// `calt` too: Caveat's "Dashboard" at 24 px is 90.27 px wide in Chromium, 91.16 with
/// `font-variant-ligatures: no-contextual`, and 86.66 with −0.5 px letter spacing, with or
/// without contextual forms (91.16 − 9 × 0.5).
pub(crate) const OFF_WHEN_SPACED: [&[u8; 4]; 3] = [b"liga", b"clig", b"calt"];

/// The features a text with `spacing` is shaped with, for harfrust (cosmic-text gets the same
/// from its attributes): none without spacing, [`OFF_WHEN_SPACED`] off with it.
pub(crate) fn shaping_features(spacing: f32) -> Vec<harfrust::Feature> {
    if spacing == 0.0 {
        return Vec::new();
    }
    OFF_WHEN_SPACED.iter().map(|tag| harfrust::Feature::new(harfrust::Tag::new(tag), 0, ..)).collect()
}

/// True when a cluster of `shape` has more than one glyph, so that [`once_per_cluster`] changes
/// it.
pub(crate) fn has_clusters(shape: &ShapeLine) -> bool {
    let words = shape.spans.iter().flat_map(|span| &span.words);
    words.into_iter().any(|word| word.glyphs.windows(2).any(|pair| pair[0].start == pair[1].start))
}

/// Takes `spacing` (the ems `shape` was shaped with after every glyph) back from every glyph
/// but the last of its cluster.
pub(crate) fn once_per_cluster(shape: &mut ShapeLine, spacing: f32) {
    for word in shape.spans.iter_mut().flat_map(|span| span.words.iter_mut()) {
        // The glyphs of one cluster are next to each other and share its start.
        let count = word.glyphs.len();
        for index in 0..count.saturating_sub(1) {
            if word.glyphs[index].start == word.glyphs[index + 1].start {
                word.glyphs[index].x_advance -= spacing;
            }
        }
    }
}

/// The em value of a text's letter spacing, as its runs are shaped with it.
pub(crate) fn in_ems(style: &super::style::TextStyle) -> f32 {
    style.letter_spacing / style.size
}
