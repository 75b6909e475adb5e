//! Text and icons as paths in the node's box: glyph outlines placed by the shaped lines (with
//! alignment and decorations), lucide strokes and Material Symbols glyphs centred at
//! min(width, height) (spec §4b).

use std::sync::Arc;

use tiny_skia::{Rect, Transform};

use crate::doc::values::TextAlign;
use crate::doc::{Key, Props};
use crate::text::{GlyphOutline, IconDrawing, ShapedText, TextEngine, TextStyle};

/// A glyph placed in a text node's box.
pub struct PlacedGlyph {
    /// The face, glyph and weight that name its outline (see [`TextEngine::glyph_outline`]).
    pub key: (cosmic_text::fontdb::ID, u16, u16),
    /// The outline in em units (y down).
    pub outline: Arc<GlyphOutline>,
    /// Em units → the node's box.
    pub transform: Transform,
}

/// The glyphs of `shaped` laid out in a `width` × `height` box, and its underline and
/// strike-through bars.
pub fn placed_glyphs(
    engine: &mut TextEngine,
    shaped: &ShapedText,
    props: &Props,
    width: f32,
    height: f32,
) -> (Vec<PlacedGlyph>, Vec<Rect>) {
    let style = TextStyle::of(props);
    let underline = props.literal::<bool>(&Key::Underline) == Some(true);
    let strikethrough = props.literal::<bool>(&Key::Strikethrough) == Some(true);
    let top = shaped.block_y(style.vertical_align, height);
    let (mut glyphs, mut bars) = (Vec::new(), Vec::new());
    for (index, line) in shaped.lines.iter().enumerate() {
        let left = shaped.line_x(index, style.align, width);
        for glyph in shaped.glyphs(line) {
            let outline = engine.glyph_outline(glyph.font, glyph.glyph);
            if outline.path.is_none() {
                continue;
            }
            let transform = Transform::from_row(glyph.size, 0.0, 0.0, glyph.size, left + glyph.x, top + glyph.baseline);
            glyphs.push(PlacedGlyph { key: (glyph.font, glyph.glyph, style.weight), outline, transform });
        }
        let (Some(first), true) = (shaped.glyphs(line).next(), underline || strikethrough) else { continue };
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
    (glyphs, bars)
}

/// The icon of an icon node and the transform placing its view square in the node's box
/// (centred, min(width, height) wide); `None` when the set or the name is unknown.
pub fn icon(engine: &mut TextEngine, props: &Props, width: f32, height: f32) -> Option<(Arc<IconDrawing>, Transform)> {
    let text = |a: &Key, b: &Key| props.literal::<String>(a).or_else(|| props.literal::<String>(b));
    let name = text(&Key::IconFontName, &Key::Icon)?;
    // Pencil's default icon family (spec §2).
    let family = text(&Key::IconFontFamily, &Key::Library).unwrap_or_else(|| "Material Symbols Rounded".to_owned());
    let weight = props.literal::<f64>(&Key::Weight).filter(|w| w.is_finite()).map(|w| w.clamp(1.0, 1000.0) as u16);
    let drawing = engine.icon(&family, &name, weight)?;
    let size = width.min(height);
    let scale = size / drawing.view;
    let transform = Transform::from_row(scale, 0.0, 0.0, scale, (width - size) / 2.0, (height - size) / 2.0);
    Some((drawing, transform))
}
