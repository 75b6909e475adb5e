//! Kerning across words, as the browser shapes a line.
//!
//! cosmic-text shapes every word (the text between two line-break opportunities) and every
//! space on its own, so nothing is kerned across them: not "." before a space or a space
//! before "C" in Inter ("Green. Clean. Future." at 64 px is 2.9 px wider than Chromium's), and
//! not one kana against the next in Noto Sans JP (each kana is a break opportunity: "サンプル"
//! at 13 px is 0.375 px wider). Chromium shapes each run of one face and one script whole and
//! only then looks for where to break (LayoutNG's inline items), so its pairs are kerned
//! across the gaps.
//!
//! This shapes those runs again whole, with the same face, instance and features, and where
//! the glyphs come out one for one as before (one glyph per cluster, the same clusters) takes
//! the whole run's glyphs and positions: a contextual alternate chosen across a space (Caveat's
//! handwriting forms) changes the glyph, not the clusters. Where a substitution reaches across
//! a gap and joins or splits clusters, the words keep cosmic-text's shaping. Right-to-left
//! spans are left as they are.
//!
//! A line never ends kerned against the next line: Chromium shapes the end of a line again
//! when it breaks where the shaper says it is not safe to, so "いので、ど" (kerned against the
//! "こ" after it, 199.7 px) does not fit a 200 px line, and "ど" starts the next one. A pair
//! kerned across a break opportunity between two words (no space between: kana, or after a
//! hyphen) therefore keeps the first word's own advance and carries the kerning on the second
//! word's first glyph, moved back by it: the line that ends with the first word is measured
//! unkerned, and the line that starts with the second is put right once laid out
//! ([`Kerned::carried`], `relayout`). Across a space nothing is carried: the space is kerned
//! and it hangs at the end of a line or is dropped at the start of one.

use cosmic_text::{FontSystem, ShapeGlyph, ShapeLine};
use unicode_script::{Script, UnicodeScript};

/// Where a glyph is in a shaped paragraph: span, word, glyph.
type GlyphAt = (usize, usize, usize);

/// A glyph and where it is.
type Placed<'a> = (GlyphAt, &'a ShapeGlyph);

/// What the whole run gives a glyph of a shaped paragraph: `(span, word, glyph)`, the glyph and
/// its advance and offsets, in ems as cosmic-text keeps them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Kerned {
    at: GlyphAt,
    /// Where its characters start in the paragraph.
    pub start: usize,
    glyph_id: u16,
    x_advance: f32,
    x_offset: f32,
    y_offset: f32,
    /// The kerning of the pair this glyph ends, carried from the glyph before it (the last of
    /// the word before, with no space between), in ems; 0 for most. A line that starts with
    /// this glyph takes it back out.
    pub carried: f32,
}

/// The glyphs of `shape` (paragraph `text`, shaped by cosmic-text with `spacing` ems of letter
/// spacing after each glyph and `features`) whose positions change when each run of one face
/// and one script is shaped whole. Empty when nothing changes, which is the common case for a
/// text of one word.
pub(crate) fn across_words(
    shape: &ShapeLine,
    text: &str,
    system: &mut FontSystem,
    features: &[harfrust::Feature],
    spacing: f32,
) -> Vec<Kerned> {
    let mut kerned = Vec::new();
    for (span_i, span) in shape.spans.iter().enumerate() {
        if span.level.is_rtl() || span.words.len() < 2 {
            continue;
        }
        let glyphs: Vec<Placed<'_>> = span
            .words
            .iter()
            .enumerate()
            .flat_map(|(word_i, word)| {
                word.glyphs.iter().enumerate().map(move |(glyph_i, glyph)| ((span_i, word_i, glyph_i), glyph))
            })
            .collect();
        for run in runs(&glyphs, text) {
            // A run inside one word was shaped whole already.
            let first_word = run[0].0.1;
            if run.iter().all(|(at, _)| at.1 == first_word) {
                continue;
            }
            let blank = |at: GlyphAt| span.words[at.1].blank;
            reshape(run, &blank, text, system, features, spacing, &mut kerned);
        }
    }
    kerned
}

/// Puts the positions of `kerned` into `shape`.
pub(crate) fn apply(shape: &mut ShapeLine, kerned: &[Kerned]) {
    for k in kerned {
        let (span, word, glyph) = k.at;
        if let Some(glyph) =
            shape.spans.get_mut(span).and_then(|s| s.words.get_mut(word)).and_then(|w| w.glyphs.get_mut(glyph))
        {
            glyph.glyph_id = k.glyph_id;
            glyph.x_advance = k.x_advance;
            glyph.x_offset = k.x_offset;
            glyph.y_offset = k.y_offset;
        }
    }
}

/// The runs the browser would shape whole: consecutive glyphs of one face (and weight) whose
/// characters follow each other and share a script (characters of no script of their own,
/// spaces and punctuation, join the run they are in). A missing glyph or a tab (cosmic-text
/// shapes tabs as spaces) ends a run without joining one.
fn runs<'g, 'a>(glyphs: &'g [Placed<'a>], text: &str) -> Vec<&'g [Placed<'a>]> {
    let mut runs = Vec::new();
    let mut start = 0;
    let mut script = Script::Common;
    for (index, (_, glyph)) in glyphs.iter().enumerate() {
        if glyph.glyph_id == 0 || text.get(glyph.start..glyph.end).is_none_or(|s| s.contains('\t')) {
            runs.push(&glyphs[start..index]);
            start = index + 1;
            script = Script::Common;
            continue;
        }
        let own = text.get(glyph.start..).and_then(|rest| rest.chars().next()).map_or(Script::Unknown, |c| c.script());
        if index > start {
            let previous = glyphs[index - 1].1;
            let joins = previous.font_id == glyph.font_id
                && previous.font_weight == glyph.font_weight
                && glyph.start >= previous.start
                && glyph.start <= previous.end
                && (is_neutral(own) || is_neutral(script) || own == script);
            if !joins {
                runs.push(&glyphs[start..index]);
                start = index;
                script = Script::Common;
            }
        }
        if !is_neutral(own) {
            script = own;
        }
    }
    runs.push(&glyphs[start..]);
    runs.retain(|run| run.len() > 1);
    runs
}

/// Scripts that take the script of the text around them.
fn is_neutral(script: Script) -> bool {
    matches!(script, Script::Common | Script::Inherited | Script::Unknown)
}

/// Shapes `run` whole and notes every glyph that changes, if the glyphs still stand one for one
/// for the clusters cosmic-text found word by word; `blank` tells the words that are spaces.
fn reshape(
    run: &[Placed<'_>],
    blank: &dyn Fn(GlyphAt) -> bool,
    text: &str,
    system: &mut FontSystem,
    features: &[harfrust::Feature],
    spacing: f32,
    kerned: &mut Vec<Kerned>,
) {
    let (first, last) = (run[0].1, run[run.len() - 1].1);
    let Some(piece) = text.get(first.start..last.end) else { return };
    let Some(font) = system.get_font(first.font_id, first.font_weight) else { return };
    let units = f32::from(font.metrics().units_per_em);
    let mut buffer = harfrust::UnicodeBuffer::new();
    buffer.push_str(piece);
    buffer.set_direction(harfrust::Direction::LeftToRight);
    buffer.guess_segment_properties();
    let shaped = font.shaper().shape(buffer, features);
    let (infos, positions) = (shaped.glyph_infos(), shaped.glyph_positions());
    let one_for_one = infos.len() == run.len()
        && infos
            .iter()
            .zip(run)
            .all(|(info, (_, glyph))| info.glyph_id != 0 && first.start + info.cluster as usize == glyph.start);
    if !one_for_one {
        return;
    }
    let mut whole: Vec<Kerned> = Vec::with_capacity(run.len());
    for (((at, glyph), info), position) in run.iter().zip(infos).zip(positions) {
        let Ok(glyph_id) = u16::try_from(info.glyph_id) else { return };
        whole.push(Kerned {
            at: *at,
            start: glyph.start,
            glyph_id,
            x_advance: position.x_advance as f32 / units + spacing,
            x_offset: position.x_offset as f32 / units,
            y_offset: position.y_offset as f32 / units,
            carried: 0.0,
        });
    }
    // A pair across a break opportunity with no space: the first word keeps its own advance,
    // the second word's first glyph carries the kerning (see the module's notes).
    for index in 1..whole.len() {
        let (before, after) = (whole[index - 1].at, whole[index].at);
        let same_glyph = whole[index - 1].glyph_id == run[index - 1].1.glyph_id;
        if before.1 != after.1 && !blank(before) && !blank(after) && same_glyph {
            let own = run[index - 1].1.x_advance;
            let carried = whole[index - 1].x_advance - own;
            whole[index - 1].x_advance = own;
            let next = &mut whole[index];
            next.x_advance += carried;
            next.x_offset += carried;
            next.carried = carried;
        }
    }
    let found = run.iter().zip(whole).filter(|((_, glyph), k)| {
        k.glyph_id != glyph.glyph_id
            || k.x_advance != glyph.x_advance
            || k.x_offset != glyph.x_offset
            || k.y_offset != glyph.y_offset
    });
    let found: Vec<Kerned> = found.map(|(_, k)| k).collect();
    kerned.extend(found);
}
