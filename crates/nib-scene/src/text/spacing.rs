//! Letter spacing once per cluster, as browsers add it.
//!
//! cosmic-text adds a text's letter spacing to every glyph it shapes, marks included, where
//! Chromium adds it once after each cluster (a base letter and the marks set on it): "สวัสดี"
//! at −1 px came out 2 px narrower than the browser's, one spacing too many for each of its two
//! marks. Here the spacing is taken back from every glyph but the last of its cluster, in a
//! copy of the shaped paragraph (see `relayout`).

use cosmic_text::ShapeLine;

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
