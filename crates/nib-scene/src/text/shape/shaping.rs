//! Shaping a text with cosmic-text: the faces its runs are shaped in and how its lines are built
//! (the plan), the shaped buffer laid out at a width, and a long text shaped a piece at a time.
//! What the engine does when a text is not in its caches.

use std::sync::Arc;

use cosmic_text::{Align, Attrs, Buffer, Family, FontSystem, Metrics, Shaping, Style, Weight, Wrap, fontdb};

use super::cache::{BUFFERED_TEXT_LIMIT, CACHE_LIMIT, ShapedBuffer, signature};
use super::{PreparedText, TextEngine};
use crate::doc::values::TextAlign;
use crate::text::faces::Origin;
use crate::text::fonts::{FamilyChoice, FamilyEntry};
use crate::text::pieces::{self, PIECE_BYTES};
use crate::text::registry::{Registry, internal_name};
use crate::text::relayout::{self, LineRun};
use crate::text::runs::{CJK_FAMILIES, Chain, FALLBACK_FAMILIES};
use crate::text::shaped::{Assembler, LineExtent, LineRule, ShapedText};
use crate::text::spacing;
use crate::text::style::TextStyle;

/// Wrapping widths are widened by this much so that a width measured from the text itself (an
/// auto-width box rounded up) never wraps it because of float noise.
pub(super) const WRAP_TOLERANCE: f32 = 0.01;

/// What shaping a text needs, worked out once for all its pieces: the faces its runs are
/// shaped in, how its lines are built, its spacing and alignment.
struct ShapingPlan {
    /// The faces, as registered in the shaping database, with their weights; the first is
    /// the text's own.
    names: Vec<(String, u16)>,
    /// Byte ranges of the text, each with the index of its face in `names`, in order.
    spans: Vec<(std::ops::Range<usize>, usize)>,
    /// Pixels per em.
    size: f32,
    rule: LineRule,
    /// Letter spacing, in ems.
    spacing: f32,
    align: Align,
}

impl TextEngine {
    /// Shapes `prepared` (or takes its shaped buffer) and lays its lines out at `wrap_width`.
    pub(super) fn shape_uncached(&mut self, prepared: &PreparedText<'_>, wrap_width: Option<f32>) -> ShapedText {
        if prepared.text.len() > PIECE_BYTES {
            return self.shape_in_pieces(prepared, wrap_width, PIECE_BYTES);
        }
        self.ensure_shaped(prepared, wrap_width);
        let family = prepared.family.family.clone();
        let TextEngine { buffers, system, .. } = self;
        let Some(ShapedBuffer { buffer, corrected, rule, .. }) = buffers.get_mut(&prepared.hash) else {
            // ensure_shaped has just put it there; an empty text is the harmless answer.
            let rule = LineRule { line_height: 0.0, own_face: None, normal: true, browser_face: None };
            return Assembler::new(family, prepared.style.size, rule).finish();
        };
        let mut assembler = Assembler::new(family, prepared.style.size, *rule);
        let text: &str = &prepared.text;
        let starts = paragraph_starts(text);
        lay_out_lines(buffer, corrected.as_ref(), system, wrap_width, |system, runs| {
            for run in runs {
                let offset = starts.get(run.line_i).copied().unwrap_or(text.len());
                assembler.add(system, &run, offset, 0.0);
                assembler.end_line();
            }
        });
        assembler.finish()
    }

    /// Shapes a long text a piece of at most `piece` bytes at a time (see `pieces`), keeping
    /// only the compact result of each: what cosmic-text makes of a piece is dropped before the
    /// next is shaped.
    pub(super) fn shape_in_pieces(
        &mut self,
        prepared: &PreparedText<'_>,
        wrap_width: Option<f32>,
        piece: usize,
    ) -> ShapedText {
        let family = prepared.family.family.clone();
        let Some(plan) = self.plan(prepared) else {
            // Not even the bundled fallbacks read: an empty text is the harmless answer.
            let rule = LineRule { line_height: 0.0, own_face: None, normal: true, browser_face: None };
            return Assembler::new(family, prepared.style.size, rule).finish();
        };
        let mut assembler = Assembler::new(family, prepared.style.size, plan.rule);
        let text: &str = &prepared.text;
        // About a glyph a character, and a line a paragraph at least: the lists are made at
        // their size, not doubled up to it (a list of 10 million glyphs doubled past it held
        // twice its size while it grew).
        assembler.reserve(text.chars().count(), paragraph_count(text));
        for range in pieces::pieces(text, piece) {
            if range.len() > piece {
                self.shape_long_paragraph(&plan, text, range, wrap_width, piece, &mut assembler);
                continue;
            }
            let (mut buffer, corrected) = self.new_buffer(&plan, text, range.clone(), wrap_width);
            let starts = paragraph_starts(&text[range.clone()]);
            lay_out_lines(&mut buffer, corrected.as_ref(), &mut self.system, wrap_width, |system, runs| {
                for run in runs {
                    let offset = range.start + starts.get(run.line_i).copied().unwrap_or(range.len());
                    assembler.add(system, &run, offset, 0.0);
                    assembler.end_line();
                }
            });
        }
        assembler.finish()
    }

    /// Shapes `paragraph` (a range of `text` longer than a piece, without a line break) in
    /// chunks of about `piece` bytes. Wrapped, each chunk is laid out and all its lines but the last
    /// are kept; the next chunk starts where that last line starts, so every line is laid out
    /// from its own start as in the whole paragraph. Unwrapped, the chunks are one line, each
    /// placed after the one before. The chunks are cut after a space where there is one, so
    /// only a word longer than half a chunk is shaped in parts: its glyphs are not kerned or
    /// joined across a cut (cuts are 16–32 KB apart), and its lines are the ones the whole word
    /// makes as long as half a chunk is wider than a line. A chunk starts without what came
    /// before it, so a font that kerns by context (Noto Sans JP after "、") can place a line's
    /// first glyphs a fraction of a pixel otherwise. An unwrapped paragraph's width is summed a
    /// chunk at a time, nearer the glyphs' sum than cosmic-text's one long sum of a line (past
    /// 8,388,608 pixels an `f32` keeps no fraction: 2 million characters on one line were
    /// 14,952,202 px wide summed whole, 14,922,928 by chunks).
    fn shape_long_paragraph(
        &mut self,
        plan: &ShapingPlan,
        text: &str,
        paragraph: std::ops::Range<usize>,
        wrap_width: Option<f32>,
        piece: usize,
        assembler: &mut Assembler,
    ) {
        let mut start = paragraph.start;
        let mut most = piece;
        let mut shift = 0.0;
        while start < paragraph.end {
            let end = paragraph.start + pieces::chunk_end(&text[paragraph.clone()], start - paragraph.start, most);
            let last = end == paragraph.end;
            let (mut buffer, corrected) = self.new_buffer(plan, text, start..end, wrap_width);
            let next = lay_out_lines(&mut buffer, corrected.as_ref(), &mut self.system, wrap_width, |system, runs| {
                if wrap_width.is_none() {
                    for run in &runs {
                        assembler.add(system, run, start, shift);
                        shift += run.line_w;
                    }
                    return Some(end);
                }
                let kept = if last { runs.len() } else { runs.len().saturating_sub(1) };
                // Where the last line starts, the start of the next chunk.
                let restart = runs.get(kept).and_then(|run| run.glyphs.iter().map(|g| g.start).min());
                let next = match restart {
                    _ if last => Some(end),
                    Some(restart) if kept > 0 && restart > 0 => Some(start + restart),
                    // Not one whole line in the chunk: it is made longer.
                    _ => None,
                };
                if next.is_some() {
                    for run in &runs[..kept] {
                        assembler.add(system, run, start, 0.0);
                        assembler.end_line();
                    }
                }
                next
            });
            match next {
                Some(next) => {
                    start = next;
                    most = piece;
                }
                None => most = most.saturating_mul(2),
            }
        }
        assembler.end_line();
    }

    /// Shapes `prepared` into a buffer unless it already has one. Shaping (choosing glyphs) is
    /// the expensive part; wrapping the shaped text at another width is cheap.
    fn ensure_shaped(&mut self, prepared: &PreparedText<'_>, wrap_width: Option<f32>) {
        let signature = signature(&prepared.style);
        let current = self.buffers.get(&prepared.hash).is_some_and(|entry| {
            entry.signature == signature && entry.text == *prepared.text && entry.family == prepared.family.family
        });
        if current {
            return;
        }
        if self.buffers.len() >= CACHE_LIMIT || self.buffered_bytes + prepared.text.len() > BUFFERED_TEXT_LIMIT {
            self.buffers.clear();
            self.buffered_bytes = 0;
        }
        let family = prepared.family.family.clone();
        let (buffer, corrected, rule, text) = match self.plan(prepared) {
            Some(plan) => {
                let (buffer, corrected) = self.new_buffer(&plan, &prepared.text, 0..prepared.text.len(), wrap_width);
                (buffer, corrected, plan.rule, prepared.text.clone().into_owned())
            }
            None => {
                // Not even the bundled fallbacks read: an empty text is the harmless answer.
                let size = prepared.style.size;
                let buffer = Buffer::new(&mut self.system, Metrics::new(size, size.max(0.01)));
                (
                    buffer,
                    None,
                    LineRule { line_height: 0.0, own_face: None, normal: true, browser_face: None },
                    String::new(),
                )
            }
        };
        self.buffered_bytes += text.len();
        let entry = ShapedBuffer { text, family, signature, buffer, corrected, rule };
        if let Some(replaced) = self.buffers.insert(prepared.hash, entry) {
            self.buffered_bytes = self.buffered_bytes.saturating_sub(replaced.text.len());
        }
    }

    /// The faces `prepared`'s runs are shaped in and how its lines are built; `None` when not
    /// even the bundled fallback faces can be read.
    fn plan(&mut self, prepared: &PreparedText<'_>) -> Option<ShapingPlan> {
        let style = &prepared.style;
        let family = &prepared.family;
        let chain = self.chain(family, style.weight, style.italic);
        let runs = self.chains[chain].split(&mut self.registry, &prepared.text);
        // Each face of the text (and the first face, whose metrics the lines use) is entered in
        // the shaping database at the weight it is used at; a face that cannot be read leaves
        // its characters to the first face that can.
        let first = self.first_readable(chain, |_, _| true)?;
        let mut names: Vec<(String, u16)> = vec![(internal_name(first.0, first.2), first.1)];
        let mut spans = Vec::with_capacity(runs.len());
        for (range, index) in runs {
            let face = self.chains[chain].face(index);
            let (key, weight, oblique) =
                match self.registry.register(self.system.db_mut(), face.key, face.weight, face.oblique) {
                    Some(_) => (face.key, face.weight, face.oblique),
                    None => first,
                };
            self.registry.mark_used(key);
            let name = (internal_name(key, oblique), weight);
            let position = names.iter().position(|n| *n == name).unwrap_or_else(|| {
                names.push(name);
                names.len() - 1
            });
            spans.push((range, position));
        }
        // The face whose metrics make every line (CSS's "first available font"): the first in
        // the chain declared for the space, as the browser picks it from the unicode-range
        // slices; Noto Emoji declares only emoji, so its texts' lines are Inter's (Chromium: an
        // emoji-only text in Noto Emoji 14 px is 17 px tall with its baseline at 14, Inter's
        // line, where Noto Emoji's own would be 16 and 13).
        let primary = self.first_readable(chain, |registry, key| registry.declares(key, ' ')).unwrap_or(first);
        let (line_height, own_face, browser_face) = self.line_height(primary, style);
        let rule = LineRule { line_height, own_face, normal: style.line_height <= 0.0, browser_face };
        let align = if style.align == TextAlign::Justify { Align::Justified } else { Align::Left };
        Some(ShapingPlan { names, spans, size: style.size, rule, spacing: spacing::in_ems(style), align })
    }

    /// A buffer of `range` of `text` (whole paragraphs, or a part of one) shaped by `plan` and
    /// laid out at `wrap_width`, with its corrected paragraphs (see `relayout`).
    fn new_buffer(
        &mut self,
        plan: &ShapingPlan,
        text: &str,
        range: std::ops::Range<usize>,
        wrap_width: Option<f32>,
    ) -> (Buffer, Option<relayout::Corrected>) {
        let attrs = |name| run_attrs(name, plan.spacing);
        // cosmic-text needs a positive line height; a line that rounds to 0 px still has none.
        let metrics = Metrics::new(plan.size, plan.rule.line_height.max(0.01));
        let mut buffer = Buffer::new(&mut self.system, metrics);
        // Set before the text, which is laid out as it is set: once, at the width asked for.
        let (wrap, width) = wrapping(wrap_width);
        buffer.set_wrap(&mut self.system, wrap);
        buffer.set_size(&mut self.system, width, None);
        let piece = text.get(range.clone()).unwrap_or_default();
        if plan.names.len() == 1 || plan.spans.is_empty() {
            buffer.set_text(&mut self.system, piece, &attrs(&plan.names[0]), Shaping::Advanced, Some(plan.align));
        } else {
            // The spans that reach into the range, cut to it.
            let first = plan.spans.partition_point(|(span, _)| span.end <= range.start);
            let spans =
                plan.spans[first..].iter().take_while(|(span, _)| span.start < range.end).filter_map(|(span, name)| {
                    let cut = span.start.max(range.start)..span.end.min(range.end);
                    Some((text.get(cut)?, attrs(&plan.names[*name])))
                });
            buffer.set_rich_text(&mut self.system, spans, &attrs(&plan.names[0]), Shaping::Advanced, Some(plan.align));
        }
        let corrected = relayout::corrected(&mut buffer, &mut self.system, plan.spacing);
        (buffer, corrected)
    }

    /// The first face of chain `chain` that `accept`s and that can be read, entered in the
    /// shaping database at the weight it is used at: (registry key, weight, oblique).
    fn first_readable(
        &mut self,
        chain: usize,
        accept: impl Fn(&Registry, usize) -> bool,
    ) -> Option<(usize, u16, bool)> {
        (0..self.chains[chain].len()).find_map(|index| {
            let face = self.chains[chain].face(index);
            if !accept(&self.registry, face.key) {
                return None;
            }
            self.registry.register(self.system.db_mut(), face.key, face.weight, face.oblique)?;
            Some((face.key, face.weight, face.oblique))
        })
    }

    /// The chain of faces for texts in `family` at `weight` and `italic`, made on first use.
    fn chain(&mut self, family: &FamilyChoice, weight: u16, italic: bool) -> usize {
        let key = (family.family.clone(), weight, italic);
        if let Some(index) = self.chain_index.get(&key) {
            return *index;
        }
        let mut sources: Vec<FamilyEntry> = self.document.family(&family.family).cloned().into_iter().collect();
        sources.extend(self.book.sources(&family.family));
        let fallbacks = self.fallbacks();
        let chain = Chain::build(&mut self.registry, &sources, &fallbacks, weight, italic);
        self.chains.push(chain);
        self.chain_index.insert(key, self.chains.len() - 1);
        self.chains.len() - 1
    }

    /// The families tried after a text's own: the bundled fallback chain, the document's and the
    /// user's families, then CJK families from the cache or the system.
    fn fallbacks(&mut self) -> Arc<Vec<FamilyEntry>> {
        if let Some(fallbacks) = &self.fallbacks {
            return Arc::clone(fallbacks);
        }
        let mut entries: Vec<FamilyEntry> = FALLBACK_FAMILIES
            .iter()
            .filter_map(|name| crate::text::bundled::family(&name.to_lowercase()))
            .map(|(name, faces)| FamilyEntry { name: name.to_owned(), origin: Origin::Bundled, faces: faces.to_vec() })
            .collect();
        entries.extend(self.document.families().iter().cloned());
        entries.extend(self.book.user_families().into_iter().cloned());
        for name in CJK_FAMILIES {
            let found = self.book.sources(name);
            entries.extend(found.into_iter().filter(|e| matches!(e.origin, Origin::Cache | Origin::System)));
        }
        let fallbacks = Arc::new(entries);
        self.fallbacks = Some(Arc::clone(&fallbacks));
        fallbacks
    }

    /// The height of a line in the text's own face (`primary`): `round(lineHeight × size)`, or
    /// for `normal` its ascent, descent and line gap rounded as one sum (Pen's pitch: Skia
    /// rounds a line's height once); with the face's extent, for placing the baseline and
    /// building each line (see [`LineExtent`]), and its extent without the gap, as a browser
    /// centres it.
    fn line_height(
        &mut self,
        primary: (usize, u16, bool),
        style: &TextStyle,
    ) -> (f32, Option<LineExtent>, Option<LineExtent>) {
        let normal = style.line_height <= 0.0;
        let (key, weight, oblique) = primary;
        let font = self
            .registry
            .register(self.system.db_mut(), key, weight, oblique)
            .and_then(|id| self.system.get_font(id, fontdb::Weight(weight)));
        let extent = font.as_ref().and_then(|font| LineExtent::of(font.metrics(), style.size, normal));
        // What a browser centres in a line: the face without its gap.
        let browser = font.as_ref().and_then(|font| LineExtent::of(font.metrics(), style.size, false));
        let height = match extent {
            _ if !normal => (style.line_height * style.size).round(),
            Some(extent) => extent.normal_line().0,
            None => (1.2 * style.size).round(),
        };
        (height, extent, browser)
    }
}

/// How many paragraphs `text` has.
fn paragraph_count(text: &str) -> usize {
    text.bytes().filter(|&byte| byte == b'\n').count() + 1
}

/// Where each paragraph of `text` (a line of the text as written) starts.
fn paragraph_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// How cosmic-text wraps at `wrap_width`, and the width it wraps at.
fn wrapping(wrap_width: Option<f32>) -> (Wrap, Option<f32>) {
    let wrap = if wrap_width.is_some() { Wrap::WordOrGlyph } else { Wrap::None };
    (wrap, wrap_width.map(|w| w + WRAP_TOLERANCE))
}

/// Lays `buffer` out at `wrap_width` (`None`: one line per paragraph) — its corrected
/// paragraphs when it has them, else cosmic-text's own lines — and hands the lines to `each`.
fn lay_out_lines<R>(
    buffer: &mut Buffer,
    corrected: Option<&relayout::Corrected>,
    system: &mut FontSystem,
    wrap_width: Option<f32>,
    each: impl FnOnce(&mut FontSystem, Vec<LineRun<'_>>) -> R,
) -> R {
    let (wrap, size) = wrapping(wrap_width);
    if buffer.wrap() != wrap {
        buffer.set_wrap(system, wrap);
    }
    if buffer.size().0 != size {
        buffer.set_size(system, size, None);
    }
    let laid_out = corrected.map(|corrected| relayout::lay_out(corrected, buffer));
    let runs: Vec<LineRun<'_>> = match &laid_out {
        Some(paragraphs) => relayout::runs(paragraphs, buffer.metrics().line_height),
        None => buffer
            .layout_runs()
            .map(|run| LineRun {
                line_i: run.line_i,
                glyphs: run.glyphs,
                line_y: run.line_y,
                line_top: run.line_top,
                line_w: run.line_w,
            })
            .collect(),
    };
    each(system, runs)
}

/// The attributes of a run in the face registered as `name` at its weight.
fn run_attrs(name: &(String, u16), letter_spacing: f32) -> Attrs<'_> {
    let attrs = Attrs::new().family(Family::Name(&name.0)).weight(Weight(name.1)).style(Style::Normal);
    if letter_spacing == 0.0 {
        return attrs;
    }
    let mut features = cosmic_text::FontFeatures::new();
    for tag in spacing::OFF_WHEN_SPACED {
        features.disable(cosmic_text::FeatureTag::new(tag));
    }
    attrs.letter_spacing(letter_spacing).font_features(features)
}
