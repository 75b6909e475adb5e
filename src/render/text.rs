//! Text and icons as paths in the node's box: glyph outlines placed by the shaped lines (with
//! alignment and decorations), lucide strokes and Material Symbols glyphs centred at
//! min(width, height) (spec §4b).

use std::sync::Arc;

use tiny_skia::{Path, PathBuilder, Rect, Transform};

use crate::doc::values::TextAlign;
use crate::doc::{Key, Props};
use crate::text::{IconDrawing, ShapedText, TextEngine, TextStyle};

/// The glyphs of `shaped` in a `width` × `height` box, with underline and strike-through bars.
pub(crate) fn text_path(
    engine: &mut TextEngine,
    shaped: &ShapedText,
    props: &Props,
    width: f32,
    height: f32,
) -> Option<Path> {
    let style = TextStyle::of(props);
    let underline = props.literal::<bool>(&Key::Underline) == Some(true);
    let strikethrough = props.literal::<bool>(&Key::Strikethrough) == Some(true);
    let top = shaped.block_y(style.vertical_align, height);
    let mut builder = PathBuilder::new();
    for (index, line) in shaped.lines.iter().enumerate() {
        let left = shaped.line_x(index, style.align, width);
        for glyph in &line.glyphs {
            let outline = engine.glyph_outline(glyph.font, glyph.glyph);
            let Some(path) = &outline.path else { continue };
            let placed = Transform::from_row(glyph.size, 0.0, 0.0, glyph.size, left + glyph.x, top + glyph.baseline);
            if let Some(path) = path.clone().transform(placed) {
                builder.push_path(&path);
            }
        }
        let (Some(first), true) = (line.glyphs.first(), underline || strikethrough) else { continue };
        let decorations = engine.decorations(first.font);
        // Justified lines reach the wrapping width; others end where their glyphs do.
        let length = if style.align == TextAlign::Justify && index + 1 < shaped.lines.len() {
            line.glyphs.iter().map(|g| g.x).fold(line.width, f32::max)
        } else {
            line.width
        };
        let mut bar = |offset: f32, thickness: f32| {
            let thickness = (thickness * first.size).max(1.0);
            if let Some(rect) = Rect::from_xywh(left, top + line.baseline + offset * first.size, length, thickness) {
                builder.push_rect(rect);
            }
        };
        if underline {
            bar(decorations.underline_offset, decorations.underline_thickness);
        }
        if strikethrough {
            bar(decorations.strikeout_offset, decorations.strikeout_thickness);
        }
    }
    builder.finish()
}

/// The icon of an icon node and the transform placing its view square in the node's box
/// (centred, min(width, height) wide); `None` when the set or the name is unknown.
pub(crate) fn icon(
    engine: &mut TextEngine,
    props: &Props,
    width: f32,
    height: f32,
) -> Option<(Arc<IconDrawing>, Transform)> {
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

/// The text of a canvas annotation (note, prompt, context), wrapped inside its padding.
pub(crate) fn annotation_path(
    engine: &mut TextEngine,
    props: &Props,
    width: f32,
    height: f32,
    padding: f32,
) -> Option<Path> {
    let content = crate::text::text_content(props);
    if content.is_empty() {
        return None;
    }
    let style = TextStyle::of(props);
    let inner = (width - 2.0 * padding).max(1.0);
    let shaped = engine.shape(&content, &style, Some(inner));
    let path = text_path(engine, &shaped, props, inner, (height - 2.0 * padding).max(1.0))?;
    path.transform(Transform::from_translate(padding, padding))
}
