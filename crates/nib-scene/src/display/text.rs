//! Text and icons as paths in the node's box: glyph outlines placed by the shaped lines (with
//! alignment and decorations), lucide strokes and Material Symbols glyphs centred at
//! min(width, height) (spec §4b).
//!
//! A text's glyphs are not copied into the display list: it keeps the shaped lines (shared with
//! the layout) and each distinct glyph's outline once, and places the glyphs as they are read.
//! A glyph placed ahead of time took 48 bytes more per character than the shaped text itself.

use std::collections::HashMap;
use std::sync::Arc;

use cosmic_text::fontdb;
use tiny_skia::{Path, PathBuilder, Rect, Transform};

use crate::doc::values::TextAlign;
use crate::doc::{Key, Props};
use crate::text::{GlyphOutline, IconDrawing, ShapedText, TextEngine, TextStyle};

/// The outlines of the glyphs of a text, by face and glyph (a space's has no path).
pub type Outlines = HashMap<(fontdb::ID, u16), Arc<GlyphOutline>>;

/// About how many glyphs are filled as one path: a text with more is filled a few thousand
/// lines at a time, so that the path and the rasteriser's edges of a text of millions of
/// characters are not all held at once. Texts of ordinary length are one path.
pub(crate) const GLYPHS_PER_PATH: usize = 16_384;

/// A glyph placed in a text node's box.
pub struct PlacedGlyph<'a> {
    /// The face, glyph and weight that name its outline (see [`TextEngine::glyph_outline`]).
    pub key: (fontdb::ID, u16, u16),
    /// The outline in em units (y down).
    pub outline: &'a Arc<GlyphOutline>,
    /// Em units → the node's box.
    pub transform: Transform,
}

/// The outline of every glyph of `shaped`, and the underline and
/// strike-through bars of its lines in a `width` × `height` box.
pub(crate) fn outlines_and_bars(
    engine: &mut TextEngine,
    shaped: &ShapedText,
    props: &Props,
    width: f32,
    height: f32,
) -> (Outlines, Vec<Rect>) {
    let style = TextStyle::of(props);
    let underline = props.literal::<bool>(&Key::Underline) == Some(true);
    let strikethrough = props.literal::<bool>(&Key::Strikethrough) == Some(true);
    let top = shaped.block_y(style.vertical_align, height);
    let (mut outlines, mut bars) = (Outlines::new(), Vec::new());
    for (index, line) in shaped.lines.iter().enumerate() {
        for glyph in shaped.glyphs(line) {
            outlines.entry((glyph.font, glyph.glyph)).or_insert_with(|| engine.glyph_outline(glyph.font, glyph.glyph));
        }
        let (Some(first), true) = (shaped.glyphs(line).next(), underline || strikethrough) else { continue };
        let left = shaped.line_x(index, style.align, width);
        let decorations = engine.decorations(first.font);
        // Justified lines reach the wrapping width; others end where their glyphs do.
        let length = if style.align == TextAlign::Justify && index + 1 < shaped.lines.len() {
            shaped.glyphs(line).map(|g| g.x).fold(line.width, f32::max)
        } else {
            line.width
        };
        let mut bar = |offset: f32, thickness: f32| {
            let thickness = (thickness * first.size).max(1.0);
            bars.extend(Rect::from_xywh(left, top + line.baseline + offset * first.size, length, thickness));
        };
        if underline {
            bar(decorations.underline_offset, decorations.underline_thickness);
        }
        if strikethrough {
            bar(decorations.strikeout_offset, decorations.strikeout_thickness);
        }
    }
    (outlines, bars)
}

/// The glyphs of `shaped` that draw something, laid out in a `width` × `height` box in
/// `style`, each with the index of its line.
pub fn placed<'a>(
    shaped: &'a ShapedText,
    outlines: &'a Outlines,
    style: &TextStyle,
    width: f32,
    height: f32,
) -> impl Iterator<Item = (usize, PlacedGlyph<'a>)> + 'a {
    let top = shaped.block_y(style.vertical_align, height);
    let (align, weight) = (style.align, style.weight);
    shaped.lines.iter().enumerate().flat_map(move |(index, line)| {
        let left = shaped.line_x(index, align, width);
        shaped.glyphs(line).filter_map(move |glyph| {
            let outline = outlines.get(&(glyph.font, glyph.glyph)).filter(|outline| outline.path.is_some())?;
            let transform = Transform::from_row(glyph.size, 0.0, 0.0, glyph.size, left + glyph.x, top + glyph.baseline);
            Some((index, PlacedGlyph { key: (glyph.font, glyph.glyph, weight), outline, transform }))
        })
    })
}

/// Glyphs and bars gathered into paths of about `per_path` glyphs each, cut between lines
/// (a line of more than four times that many glyphs is cut inside); the bars go in the last.
pub struct Paths<'a, I: Iterator<Item = (usize, PlacedGlyph<'a>)>> {
    glyphs: std::iter::Peekable<I>,
    bars: &'a [Rect],
    per_path: usize,
    moved: Option<Transform>,
    done: bool,
}

impl<'a, I: Iterator<Item = (usize, PlacedGlyph<'a>)>> Paths<'a, I> {
    /// The paths of `glyphs` and `bars`, moved by `at` (the box's place in the node).
    pub fn new(glyphs: I, bars: &'a [Rect], at: (f32, f32), per_path: usize) -> Self {
        let moved = (at != (0.0, 0.0)).then(|| Transform::from_translate(at.0, at.1));
        Paths { glyphs: glyphs.peekable(), bars, per_path: per_path.max(1), moved, done: false }
    }
}

impl<'a, I: Iterator<Item = (usize, PlacedGlyph<'a>)>> Iterator for Paths<'a, I> {
    type Item = Path;

    fn next(&mut self) -> Option<Path> {
        while !self.done {
            let mut builder = PathBuilder::new();
            let mut count = 0;
            while let Some((line, glyph)) = self.glyphs.next() {
                if let Some(path) = glyph.outline.path.clone().and_then(|p| p.transform(glyph.transform)) {
                    builder.push_path(&path);
                }
                count += 1;
                let next_line = self.glyphs.peek().map(|(next, _)| *next);
                if (count >= self.per_path && next_line != Some(line)) || count >= self.per_path.saturating_mul(4) {
                    break;
                }
            }
            if self.glyphs.peek().is_none() {
                for bar in self.bars {
                    builder.push_rect(*bar);
                }
                self.done = true;
            }
            // A batch of glyphs without outlines makes no path: the next one is tried.
            let Some(path) = builder.finish() else { continue };
            return match self.moved {
                None => Some(path),
                Some(moved) => path.transform(moved),
            };
        }
        None
    }
}

/// The icon of an icon node and the transform placing its view square in the node's box
/// (centred, min(width, height) wide); `None` when the set or the name is unknown.
pub fn icon(engine: &mut TextEngine, props: &Props, width: f32, height: f32) -> Option<(Arc<IconDrawing>, Transform)> {
    let text = |a: &Key, b: &Key| props.literal::<String>(a).or_else(|| props.literal::<String>(b));
    let name = text(&Key::IconFontName, &Key::Icon)?;
    // Pen's default icon family (spec §2).
    let family = text(&Key::IconFontFamily, &Key::Library).unwrap_or_else(|| "Material Symbols Rounded".to_owned());
    let weight = props.literal::<f64>(&Key::Weight).filter(|w| w.is_finite()).map(|w| w.clamp(1.0, 1000.0) as u16);
    let drawing = engine.icon(&family, &name, weight)?;
    let size = width.min(height);
    let scale = size / drawing.view;
    let transform = Transform::from_row(scale, 0.0, 0.0, scale, (width - size) / 2.0, (height - size) / 2.0);
    Some((drawing, transform))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glyphs of a one-em square on the lines `lines` name, one em apart, a line an em below
    /// the one before.
    fn glyphs<'a>(outline: &'a Arc<GlyphOutline>, lines: &[usize]) -> Vec<(usize, PlacedGlyph<'a>)> {
        lines
            .iter()
            .enumerate()
            .map(|(n, &line)| {
                let transform = Transform::from_row(10.0, 0.0, 0.0, 10.0, 10.0 * n as f32, 10.0 * line as f32);
                (line, PlacedGlyph { key: (fontdb::ID::dummy(), 1, 400), outline, transform })
            })
            .collect()
    }

    #[test]
    fn a_long_text_is_filled_a_few_lines_at_a_time_and_a_short_one_at_once() {
        let square = tiny_skia::PathBuilder::from_rect(Rect::from_xywh(0.0, -1.0, 1.0, 1.0).expect("a square"));
        let outline = Arc::new(GlyphOutline { path: Some(square) });
        let bar = [Rect::from_xywh(0.0, 100.0, 5.0, 1.0).expect("a bar")];
        let lines = [0, 0, 0, 1, 1, 1, 1, 2, 2, 3];
        let bounds = |paths: Vec<Path>| -> Vec<(f32, f32)> {
            paths.iter().map(|p| (p.bounds().top(), p.bounds().bottom())).collect()
        };
        // Cut after three glyphs or more, between lines; the bars in the last path.
        let cut: Vec<Path> = Paths::new(glyphs(&outline, &lines).into_iter(), &bar, (0.0, 0.0), 3).collect();
        assert_eq!(bounds(cut), [(-10.0, 0.0), (0.0, 10.0), (10.0, 101.0)]);
        // A text shorter than a path is one, as it always was.
        let whole: Vec<Path> = Paths::new(glyphs(&outline, &lines).into_iter(), &bar, (5.0, 5.0), 100).collect();
        assert_eq!(bounds(whole), [(-5.0, 106.0)], "moved by the box's place");
        // A line of more than four paths' worth is cut inside.
        let long: Vec<Path> = Paths::new(glyphs(&outline, &[0; 13]).into_iter(), &[], (0.0, 0.0), 3).collect();
        assert_eq!(long.len(), 2);
    }
}
