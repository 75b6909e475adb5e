//! Letter spacing once per cluster, as browsers add it.
//!
//! cosmic-text adds a text's letter spacing to every glyph it shapes, marks included, where
//! Chromium adds it once after each cluster (a base letter and the marks set on it): "สวัสดี"
//! at −1 px came out 2 px narrower than the browser's, one spacing too many for each of its two
//! marks. cosmic-text offers no hook between shaping and wrapping, so a text whose clusters
//! have several glyphs is laid out again here from a copy of each shaped line, with the
//! spacing taken back from every glyph but the last of its cluster. Texts without such
//! clusters keep cosmic-text's own layout untouched.

use cosmic_text::{Buffer, FontSystem, LayoutGlyph, LayoutLine, ShapeLine};

/// One laid-out line: what nib reads of cosmic-text's `LayoutRun`.
pub(crate) struct LineRun<'a> {
    /// The paragraph (line of the text as written) it belongs to.
    pub line_i: usize,
    pub glyphs: &'a [LayoutGlyph],
    /// Its baseline and top as cosmic-text places them.
    pub line_y: f32,
    pub line_top: f32,
    pub line_w: f32,
}

/// Each paragraph of `buffer` laid out with `spacing` (the letter spacing the buffer was
/// shaped with, in ems) added once per cluster; `None` when no cluster has more than one glyph,
/// so that the buffer's own layout is already right.
pub(crate) fn per_cluster(buffer: &mut Buffer, system: &mut FontSystem, spacing: f32) -> Option<Vec<Vec<LayoutLine>>> {
    if spacing == 0.0 {
        return None;
    }
    // Looked for before anything is copied: most spaced texts (Latin labels) have none.
    let mut clustered = false;
    for index in 0..buffer.lines.len() {
        clustered |= has_clusters(buffer.line_shape(system, index)?);
    }
    if !clustered {
        return None;
    }
    let mut shapes: Vec<ShapeLine> = buffer.lines.iter().filter_map(|line| line.shape_opt().cloned()).collect();
    for shape in &mut shapes {
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
    let size = buffer.metrics().font_size;
    let width = buffer.size().0;
    let layouts = shapes
        .iter()
        .zip(&buffer.lines)
        .map(|(shape, line)| {
            shape.layout(size, width, buffer.wrap(), line.align(), buffer.monospace_width(), buffer.hinting())
        })
        .collect();
    Some(layouts)
}

/// True when a cluster of `shape` has more than one glyph.
fn has_clusters(shape: &ShapeLine) -> bool {
    let words = shape.spans.iter().flat_map(|span| &span.words);
    words.into_iter().any(|word| word.glyphs.windows(2).any(|pair| pair[0].start == pair[1].start))
}

/// The em value of a text's letter spacing, as its runs are shaped with it.
pub(crate) fn in_ems(style: &super::style::TextStyle) -> f32 {
    style.letter_spacing / style.size
}

/// The lines of `paragraphs` placed one under the other as cosmic-text's layout runs place
/// them, each `line_height` tall unless a span asks for more.
pub(crate) fn runs(paragraphs: &[Vec<LayoutLine>], line_height: f32) -> Vec<LineRun<'_>> {
    let mut runs = Vec::new();
    let mut top = 0.0;
    for (line_i, lines) in paragraphs.iter().enumerate() {
        for line in lines {
            let height = line.line_height_opt.unwrap_or(line_height);
            let line_top = top;
            let line_y = line_top + (height - (line.max_ascent + line.max_descent)) / 2.0 + line.max_ascent;
            top += height;
            if line_y + line.max_descent < 0.0 {
                continue;
            }
            runs.push(LineRun { line_i, glyphs: &line.glyphs, line_y, line_top, line_w: line.w });
        }
    }
    runs
}
