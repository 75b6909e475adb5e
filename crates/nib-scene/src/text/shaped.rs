//! A shaped text as it is kept once laid out: its lines, and all its glyphs in one compact list.
//!
//! A glyph is kept in 20 bytes (its face as an index into the text's few faces, its position and
//! the bytes it stands for), not as the 48-byte [`ShapedGlyph`] it is read as: a text of two
//! million characters is kept at each width layout asks for, and what is kept for
//! every glyph is what decides whether one text fits the memory budget.

use std::collections::HashMap;
use std::ops::Range;

use cosmic_text::{FontSystem, fontdb};

use super::relayout::LineRun;
use crate::doc::values::{TextAlign, TextAlignVertical};

/// One glyph, positioned relative to the text box's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapedGlyph {
    /// The face in the shaping [`TextEngine`](super::TextEngine)'s database (which knows its
    /// weight and slant).
    pub font: fontdb::ID,
    /// The glyph in that face.
    pub glyph: u16,
    /// Left edge of the glyph's origin, in pixels.
    pub x: f32,
    /// Baseline, in pixels from the top of the text.
    pub baseline: f32,
    /// Pixels per em.
    pub size: f32,
    /// Byte range of the glyph's characters in the shaped text, for decorations and links.
    pub start: usize,
    /// End of that range.
    pub end: usize,
}

/// One laid-out line.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapedLine {
    /// Top of the line box, in pixels from the top of the text.
    pub top: f32,
    /// Height of the line box: the text's line height, or more when a fallback face on a line
    /// of `normal` height is taller.
    pub height: f32,
    /// Baseline, in pixels from the top of the text.
    pub baseline: f32,
    /// Advance width of the line's content (trailing letter spacing included).
    pub width: f32,
    /// The byte range of the line in the shaped text (without the line break).
    pub text_range: Range<usize>,
    /// Its glyphs in [`ShapedText`]'s list.
    glyphs: Range<u32>,
}

impl ShapedLine {
    /// How many glyphs the line has.
    pub fn glyph_count(&self) -> usize {
        (self.glyphs.end - self.glyphs.start) as usize
    }
}

/// A glyph as kept: [`ShapedGlyph`] without what its line or text knows (the baseline, the
/// size, the face's database entry).
#[derive(Debug, Clone, Copy, PartialEq)]
struct StoredGlyph {
    /// Index in [`ShapedText::faces`].
    face: u16,
    glyph: u16,
    x: f32,
    /// How far the glyph sits above its line's baseline, in pixels (a mark's offset).
    rise: f32,
    start: u32,
    end: u32,
}

/// A shaped text: its lines and size.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapedText {
    /// The lines, top to bottom; at least one.
    pub lines: Vec<ShapedLine>,
    /// Height of a line in the text's own face, in whole pixels (unless the size itself is
    /// fractional and tiny); a line of `normal` height with taller fallback faces is taller
    /// ([`ShapedLine::height`]).
    pub line_height: f32,
    /// Width of the widest line, unrounded.
    pub width: f32,
    /// The family used (see [`FontBook::choose_family`](super::FontBook::choose_family) for
    /// whether it replaces another).
    pub family: String,
    /// Characters no available font has a glyph for (drawn as boxes).
    pub missing_glyphs: usize,
    /// How far below a browser's baseline nib puts a line's baseline, in pixels, when the text
    /// is set at [`ShapedText::line_height`] as CSS sets it (half the leading above its face's
    /// ascent and descent, each rounded); 0 but for `normal` lines, whose baseline Pen puts on
    /// a whole pixel (the ascent and half gap rounded). The HTML export moves its lines by it.
    pub browser_shift: f32,
    /// Every line's glyphs, line after line.
    glyphs: Vec<StoredGlyph>,
    /// The faces the glyphs name.
    faces: Vec<fontdb::ID>,
    /// Pixels per em of every glyph.
    size: f32,
    /// How much wider than [`ShapedText::width`] the widest line is with Pen's advances (see
    /// [`freetype_scale_error`]), in pixels: a few ten-thousandths at most.
    freetype_excess: f32,
}

impl ShapedText {
    /// The widest line rounded up to a whole pixel, as Pen sizes an auto-width text: its
    /// advances are FreeType's, whose scale is rounded to 1/65536 (see
    /// [`freetype_scale_error`]). Within a thousandth of a pixel the width is float noise,
    /// except that a width of whole pixels that Pen's advances make a hair wider is a pixel
    /// more: IBM Plex Mono 32 px "Hamburgefonstiv 0123" is 384 exactly, 384.0009 in Pen, 385.
    pub fn whole_width(&self) -> f32 {
        let whole = self.width.round();
        if (self.width - whole).abs() < 0.001 && self.freetype_excess > 0.0 {
            return whole + 1.0;
        }
        (self.width - 0.001).ceil().max(0.0)
    }

    /// Height of all lines.
    pub fn height(&self) -> f32 {
        self.lines.last().map_or(0.0, |line| line.top + line.height)
    }

    /// The glyphs of `line` (one of [`ShapedText::lines`]), in visual order.
    pub fn glyphs<'a>(&'a self, line: &ShapedLine) -> Glyphs<'a> {
        let range = line.glyphs.start as usize..line.glyphs.end as usize;
        Glyphs { text: self, baseline: line.baseline, stored: self.glyphs.get(range).unwrap_or_default().iter() }
    }

    /// How many glyphs all lines have.
    pub fn glyph_count(&self) -> usize {
        self.glyphs.len()
    }

    /// Where line `index` starts, in pixels from the left edge of a box `box_width` wide, for
    /// `align`. Justified lines were spread to the wrapping width when shaped and start at 0 (the
    /// last line of a paragraph stays left-aligned, as in CSS).
    pub fn line_x(&self, index: usize, align: TextAlign, box_width: f32) -> f32 {
        let Some(line) = self.lines.get(index) else { return 0.0 };
        let free = box_width - line.width;
        match align {
            TextAlign::Left | TextAlign::Justify => 0.0,
            TextAlign::Center => free / 2.0,
            TextAlign::Right => free,
        }
    }

    /// The vertical offset of the lines in a box `box_height` tall, for `align`: text that
    /// overflows its box keeps its first line at the top whatever the alignment.
    pub fn block_y(&self, align: TextAlignVertical, box_height: f32) -> f32 {
        let free = (box_height - self.height()).max(0.0);
        match align {
            TextAlignVertical::Top => 0.0,
            TextAlignVertical::Middle => free / 2.0,
            TextAlignVertical::Bottom => free,
        }
    }
}

/// The glyphs of one line, read as [`ShapedGlyph`]s.
#[derive(Debug, Clone)]
pub struct Glyphs<'a> {
    text: &'a ShapedText,
    baseline: f32,
    stored: std::slice::Iter<'a, StoredGlyph>,
}

impl Glyphs<'_> {
    fn read(&self, glyph: &StoredGlyph) -> ShapedGlyph {
        ShapedGlyph {
            // A face index always names one of the text's faces (they are added together).
            font: self.text.faces.get(usize::from(glyph.face)).copied().unwrap_or_default(),
            glyph: glyph.glyph,
            x: glyph.x,
            baseline: self.baseline - glyph.rise,
            size: self.text.size,
            start: glyph.start as usize,
            end: glyph.end as usize,
        }
    }
}

impl Iterator for Glyphs<'_> {
    type Item = ShapedGlyph;

    fn next(&mut self) -> Option<ShapedGlyph> {
        let glyph = self.stored.next()?;
        Some(self.read(glyph))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.stored.size_hint()
    }
}

impl ExactSizeIterator for Glyphs<'_> {}

impl DoubleEndedIterator for Glyphs<'_> {
    fn next_back(&mut self) -> Option<ShapedGlyph> {
        let glyph = self.stored.next_back()?;
        Some(self.read(glyph))
    }
}

/// How much longer, relatively, FreeType makes every advance of a face with `units_per_em` at
/// `size` px than the exact `advance × size / units_per_em`. Pen measures with CanvasKit, whose
/// Skia scales glyphs with FreeType: the size is set in 1/64 px and the scale, 64 × size /
/// units_per_em, is kept in 16.16 fixed point, rounded; Skia's advances are FreeType's linear
/// ones, `advance × scale`. For a face of 1000 units at 32 px the scale is 134217.728 / 65536,
/// kept as 134218: every advance is 2 millionths longer. Faces of 2048 units (Inter) at whole
/// sizes scale exactly. 0 when the face says no units.
pub(super) fn freetype_scale_error(size: f32, units_per_em: u16) -> f64 {
    if units_per_em == 0 || size.is_nan() || size <= 0.0 {
        return 0.0;
    }
    let units = f64::from(units_per_em);
    let size_64ths = (f64::from(size) * 64.0).round();
    let scale = (size_64ths * 65536.0 / units).round();
    scale / (f64::from(size) * 64.0 * 65536.0 / units) - 1.0
}

/// How far a face's line box reaches above and below the baseline, in pixels, unrounded: its
/// ascent and descent, plus half its line gap each when the line is `normal` (Skia's paragraph
/// folds the gap in the same way; Pen draws with it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct LineExtent {
    pub above: f32,
    pub below: f32,
}

impl LineExtent {
    /// The extent of a face at `size`, with its line gap when `with_gap` (a `normal` line).
    pub fn of(metrics: &cosmic_text::skrifa::metrics::Metrics, size: f32, with_gap: bool) -> Option<LineExtent> {
        if metrics.units_per_em == 0 {
            return None;
        }
        let scale = size / f32::from(metrics.units_per_em);
        let gap = if with_gap { (metrics.leading * scale).max(0.0) } else { 0.0 };
        Some(LineExtent { above: metrics.ascent * scale + gap / 2.0, below: -metrics.descent * scale + gap / 2.0 })
    }

    fn union(self, other: LineExtent) -> LineExtent {
        LineExtent { above: self.above.max(other.above), below: self.below.max(other.below) }
    }

    /// A `normal` line of this extent, as Pen sets it: its height is the whole extent rounded
    /// once (Inter at 16 px: 15.5 + 3.86 = 19.36 → 19), and its baseline sits on a whole pixel,
    /// the ascent (and half gap) rounded.
    pub(crate) fn normal_line(self) -> (f32, f32) {
        ((self.above + self.below).round(), self.above.round())
    }

    /// Where the baseline sits below the top of a line `line_height` tall with this face
    /// centred in it (half the leading above, as CSS places it), its ascent and descent each
    /// rounded as the browser rounds them.
    pub(crate) fn centred_baseline(self, line_height: f32) -> f32 {
        let (above, below) = (self.above.round(), self.below.round());
        (line_height - (above + below)) / 2.0 + above
    }
}

/// How lines are built: the text's line height and its own face's extent, and whether the
/// line height is the font's own (`normal`: lines grow to every face they draw with).
#[derive(Debug, Clone, Copy)]
pub(super) struct LineRule {
    pub line_height: f32,
    pub own_face: Option<LineExtent>,
    pub normal: bool,
    /// The text's own face without its line gap: what a browser centres in a line.
    pub browser_face: Option<LineExtent>,
}

/// A line being filled: the runs cosmic-text laid out for it (one, or several pieces of a long
/// line shaped a piece at a time).
struct OpenLine {
    glyph_start: u32,
    extent: Option<LineExtent>,
    /// Where cosmic-text puts the baseline below the line's top, for texts whose face has no
    /// metrics.
    cosmic_baseline: f32,
    width: f32,
    /// Its advances as Pen's are longer than nib's by this much (see `freetype_scale_error`).
    freetype_excess: f64,
    /// The bytes its glyphs stand for; where its first run starts when it has none.
    text: Option<Range<usize>>,
    offset: usize,
}

/// Builds a [`ShapedText`] from cosmic-text's laid-out lines.
pub(super) struct Assembler {
    text: ShapedText,
    rule: LineRule,
    open: Option<OpenLine>,
    /// Each face's extent, looked up once per text.
    extents: HashMap<(fontdb::ID, u16), Option<LineExtent>>,
    /// Each face's relative scale error in Pen (see `freetype_scale_error`), once per text.
    scale_errors: HashMap<fontdb::ID, f64>,
    /// Each finished line's `freetype_excess`.
    line_excess: Vec<f64>,
}

impl Assembler {
    /// An empty text in `family` at `size` pixels per em, its lines built by `rule`.
    pub fn new(family: String, size: f32, rule: LineRule) -> Assembler {
        let text = ShapedText {
            lines: Vec::new(),
            line_height: rule.line_height,
            width: 0.0,
            family,
            missing_glyphs: 0,
            browser_shift: 0.0,
            glyphs: Vec::new(),
            faces: Vec::new(),
            size,
            freetype_excess: 0.0,
        };
        Assembler {
            text,
            rule,
            open: None,
            extents: HashMap::new(),
            scale_errors: HashMap::new(),
            line_excess: Vec::new(),
        }
    }

    /// Makes room for `glyphs` more glyphs and `lines` more lines.
    pub fn reserve(&mut self, glyphs: usize, lines: usize) {
        self.text.glyphs.reserve(glyphs);
        self.text.lines.reserve(lines);
    }

    /// Adds `run`'s glyphs to the open line (opening one), moved right by `shift` pixels;
    /// `offset` is where the run's paragraph starts in the text.
    pub fn add(&mut self, system: &mut FontSystem, run: &LineRun<'_>, offset: usize, shift: f32) {
        let glyph_start = u32::try_from(self.text.glyphs.len()).unwrap_or(u32::MAX);
        let own = self.rule.own_face;
        let line = self.open.get_or_insert(OpenLine {
            glyph_start,
            extent: own,
            cosmic_baseline: run.line_y - run.line_top,
            width: 0.0,
            freetype_excess: 0.0,
            text: None,
            offset,
        });
        line.width = shift + run.line_w;
        for g in run.glyphs {
            if self.rule.normal
                && g.glyph_id != 0
                && let Some(extent) = line.extent
            {
                let face = (g.font_id, g.font_weight.0);
                let found = *self.extents.entry(face).or_insert_with(|| {
                    let font = system.get_font(face.0, g.font_weight)?;
                    LineExtent::of(font.metrics(), g.font_size, true)
                });
                line.extent = Some(found.map_or(extent, |found| extent.union(found)));
            }
            let error = *self.scale_errors.entry(g.font_id).or_insert_with(|| {
                let units = system.get_font(g.font_id, g.font_weight).map_or(0, |font| font.metrics().units_per_em);
                freetype_scale_error(g.font_size, units)
            });
            line.freetype_excess += f64::from(g.w) * error;
            self.text.missing_glyphs += usize::from(g.glyph_id == 0);
            let face = match self.text.faces.iter().position(|&id| id == g.font_id) {
                Some(index) => index,
                None => {
                    self.text.faces.push(g.font_id);
                    self.text.faces.len() - 1
                }
            };
            let (start, end) = (offset + g.start, offset + g.end);
            line.text = Some(match line.text.take() {
                Some(range) => range.start.min(start)..range.end.max(end),
                None => start..end,
            });
            let narrow = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            self.text.glyphs.push(StoredGlyph {
                face: u16::try_from(face).unwrap_or(u16::MAX),
                glyph: g.glyph_id,
                x: shift + (g.x + g.x_offset * g.font_size),
                rise: g.y_offset * g.font_size,
                start: narrow(start),
                end: narrow(end),
            });
        }
    }

    /// Ends the open line, placed under the lines before it.
    pub(crate) fn end_line(&mut self) {
        let Some(line) = self.open.take() else { return };
        let top = self.text.lines.last().map_or(0.0, |line| line.top + line.height);
        let rule = self.rule;
        let (height, baseline) = match (rule.own_face, line.extent) {
            // A line of `normal` height: the union of the extents of the faces it draws with,
            // rounded once.
            (Some(_), Some(extent)) if rule.normal => {
                let (height, baseline) = extent.normal_line();
                (height, top + baseline)
            }
            // A numeric line height: the text's own face centred in it, as CSS places it
            // (half the leading above); fallback faces do not move the baseline.
            (Some(own), _) => (rule.line_height, top + own.centred_baseline(rule.line_height)),
            // No metrics: cosmic-text's own placement, on our whole-pixel line grid.
            (None, _) => (rule.line_height, top + line.cosmic_baseline),
        };
        let glyph_end = u32::try_from(self.text.glyphs.len()).unwrap_or(u32::MAX);
        let text_range = line.text.unwrap_or(line.offset..line.offset);
        self.line_excess.push(line.freetype_excess);
        self.text.lines.push(ShapedLine {
            top,
            height,
            baseline,
            width: line.width,
            text_range,
            glyphs: line.glyph_start..glyph_end,
        });
    }

    /// The text; an empty one has one empty line.
    pub fn finish(mut self) -> ShapedText {
        self.end_line();
        let rule = self.rule;
        if self.text.lines.is_empty() {
            let line_height = rule.line_height;
            self.text.lines.push(ShapedLine {
                top: 0.0,
                height: line_height,
                // Where the text's own face puts it, as on any line without fallback faces.
                baseline: match rule.own_face {
                    Some(own) if rule.normal => own.normal_line().1,
                    Some(own) => own.centred_baseline(line_height),
                    None => line_height * 0.8,
                },
                width: 0.0,
                text_range: 0..0,
                glyphs: 0..0,
            });
        }
        self.text.width = self.text.lines.iter().map(|l| l.width).fold(0.0, f32::max);
        let widest = self.text.lines.iter().position(|l| l.width == self.text.width);
        let excess = widest.and_then(|index| self.line_excess.get(index)).copied().unwrap_or(0.0);
        self.text.freetype_excess = excess as f32;
        if let (true, Some(own), Some(browser)) = (rule.normal, rule.own_face, rule.browser_face) {
            self.text.browser_shift = own.normal_line().1 - browser.centred_baseline(rule.line_height);
        }
        self.text.glyphs.shrink_to_fit();
        self.text.lines.shrink_to_fit();
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::freetype_scale_error;

    #[test]
    fn freetype_scales_faces_of_1000_units_a_hair_long_and_inter_exactly() {
        // IBM Plex Mono's 600 units at 32 px: 19.2 px exactly, 19.20004 in FreeType.
        let error = freetype_scale_error(32.0, 1000);
        assert!(error > 0.0 && (600.0 * 32.0 / 1000.0 * error) < 1e-4, "{error}");
        assert!((384.0 * error - 0.00078).abs() < 0.00001, "{error}");
        // Inter (2048 units) at whole sizes, and a face that says no units: no error.
        assert_eq!(freetype_scale_error(16.0, 2048), 0.0);
        assert_eq!(freetype_scale_error(14.0, 0), 0.0);
        // Some scales round down.
        assert!(freetype_scale_error(10.0, 1000) < 0.0);
    }
}
