//! cosmic-text's shaping, put right where the browser shapes otherwise, and laid out again.
//!
//! Two things differ (each in its own module): letter spacing is added once per cluster, not
//! per glyph (`spacing`), and pairs are kerned across spaces and break opportunities (`kerning`).
//! cosmic-text has no hook between shaping and wrapping, so a text that either changes keeps a
//! corrected copy of its shaped paragraphs, made once when it is shaped, and each wrapping
//! width lays that copy out. Texts neither changes keep cosmic-text's own layout.

use cosmic_text::{Buffer, FontSystem, LayoutGlyph, LayoutLine, ShapeLine};

use super::{kerning, spacing};

/// A text's shaped paragraphs, corrected.
#[derive(Debug)]
pub(crate) struct Corrected {
    shapes: Vec<ShapeLine>,
    /// Per paragraph, where a glyph carrying the kerning of the pair before it starts (its
    /// byte offset) and how much it carries, in ems (see `kerning`), by start.
    carried: Vec<Vec<(usize, f32)>>,
}

/// The shaped paragraphs of `buffer` (shaped with `spacing` ems after each glyph), corrected;
/// `None` when no correction changes them.
pub(crate) fn corrected(buffer: &mut Buffer, system: &mut FontSystem, spacing: f32) -> Option<Corrected> {
    for index in 0..buffer.lines.len() {
        buffer.line_shape(system, index)?;
    }
    let features = spacing::shaping_features(spacing);
    // Looked for before anything is copied: most texts need neither correction.
    let mut kerned = Vec::with_capacity(buffer.lines.len());
    let mut changes = false;
    for line in &buffer.lines {
        let shape = line.shape_opt()?;
        let clustered = spacing != 0.0 && spacing::has_clusters(shape);
        let found = kerning::across_words(shape, line.text(), system, &features, spacing);
        changes |= clustered || !found.is_empty();
        kerned.push(found);
    }
    if !changes {
        return None;
    }
    let mut shapes: Vec<ShapeLine> = buffer.lines.iter().filter_map(|line| line.shape_opt().cloned()).collect();
    for (shape, kerned) in shapes.iter_mut().zip(&kerned) {
        kerning::apply(shape, kerned);
        if spacing != 0.0 {
            spacing::once_per_cluster(shape, spacing);
        }
    }
    let carried = kerned
        .iter()
        .map(|found| {
            let mut carried: Vec<(usize, f32)> =
                found.iter().filter(|k| k.carried != 0.0).map(|k| (k.start, k.carried)).collect();
            // Looked up by start for each line (a long paragraph has many of both).
            carried.sort_by_key(|&(start, _)| start);
            carried
        })
        .collect();
    Some(Corrected { shapes, carried })
}

/// The lines of each corrected paragraph laid out as `buffer` lays out its own: at its width,
/// wrapping and alignment. A line that starts with a glyph carrying the kerning of a pair
/// whose first glyph ended the line before is moved back by it: nothing kerns it there.
pub(crate) fn lay_out(corrected: &Corrected, buffer: &Buffer) -> Vec<Vec<LayoutLine>> {
    let size = buffer.metrics().font_size;
    let width = buffer.size().0;
    let paragraphs = corrected.shapes.iter().zip(&buffer.lines).zip(&corrected.carried);
    paragraphs
        .map(|((shape, line), carried)| {
            let mut lines =
                shape.layout(size, width, buffer.wrap(), line.align(), buffer.monospace_width(), buffer.hinting());
            for line in lines.iter_mut().skip(1) {
                take_back_carried(line, carried);
            }
            lines
        })
        .collect()
}

/// Moves `line` back by the kerning its first glyph carries (see `kerning`), if it carries any:
/// at the start of a line nothing kerns it.
fn take_back_carried(line: &mut LayoutLine, carried: &[(usize, f32)]) {
    let Some(first) = line.glyphs.first() else { return };
    if first.level.is_rtl() {
        return;
    }
    let Ok(found) = carried.binary_search_by_key(&first.start, |&(start, _)| start) else { return };
    let ems = carried[found].1;
    let moved = ems * first.font_size;
    line.glyphs[0].x_offset -= ems;
    line.glyphs[0].w -= moved;
    for glyph in line.glyphs.iter_mut().skip(1) {
        glyph.x -= moved;
    }
    line.w -= moved;
}

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
