//! Glyph outlines as paths, read from the fonts a [`TextEngine`] shaped with, cached per face
//! entry and glyph: an entry is a face at one weight (variable fonts such as Material Symbols
//! draw differently per weight), slanted when italic was asked of a family without italics.

use std::sync::Arc;

use cosmic_text::fontdb;
use cosmic_text::skrifa::FontRef;
use cosmic_text::skrifa::instance::{LocationRef, Size};
use cosmic_text::skrifa::outline::{DrawSettings, OutlinePen};
use cosmic_text::skrifa::prelude::*;
use tiny_skia::{Path, PathBuilder};

use super::TextEngine;

/// Horizontal shift per unit of height of a slanted upright face: tan(14°).
pub const SYNTHETIC_SLANT: f32 = 0.25;

/// A glyph's outline in em units (1.0 = the font size), y pointing down like the canvas.
#[derive(Debug, Clone)]
pub struct GlyphOutline {
    /// The outline; `None` for glyphs without one (spaces).
    pub path: Option<Path>,
}

/// Where a face draws underlines and strike-throughs, in em units below the baseline (positive
/// down), with their thickness.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decorations {
    /// Top of the underline.
    pub underline_offset: f32,
    /// Thickness of the underline.
    pub underline_thickness: f32,
    /// Top of the strike-through.
    pub strikeout_offset: f32,
    /// Thickness of the strike-through.
    pub strikeout_thickness: f32,
}

impl TextEngine {
    /// The outline of `glyph` in the shaped face `font`, at the weight and slant it was shaped
    /// with, cached.
    pub fn glyph_outline(&mut self, font: fontdb::ID, glyph: u16) -> Arc<GlyphOutline> {
        let key = (font, glyph);
        if let Some(outline) = self.outlines.get(&key) {
            return Arc::clone(outline);
        }
        let (weight, oblique) = self.face_use(font).map_or((400, false), |used| (used.weight, used.oblique));
        let path =
            self.font_system().db().with_face_data(font, |data, index| outline(data, index, glyph, weight)).flatten();
        // The slant browsers give a face with no italics (about 14 degrees).
        let path = if oblique {
            path.and_then(|p| p.transform(tiny_skia::Transform::from_row(1.0, 0.0, -SYNTHETIC_SLANT, 1.0, 0.0, 0.0)))
        } else {
            path
        };
        let outline = Arc::new(GlyphOutline { path });
        self.outlines.insert(key, Arc::clone(&outline));
        outline
    }

    /// Where `font` puts underlines and strike-throughs (em units), with sensible defaults for
    /// fonts that do not say.
    pub fn decorations(&mut self, font: fontdb::ID) -> Decorations {
        let read = |data: &[u8], index: u32| {
            let font = FontRef::from_index(data, index).ok()?;
            let metrics = font.metrics(Size::unscaled(), LocationRef::default());
            let upem = f32::from(metrics.units_per_em.max(1));
            let underline = metrics.underline?;
            let strikeout = metrics.strikeout?;
            Some(Decorations {
                underline_offset: -underline.offset / upem,
                underline_thickness: underline.thickness / upem,
                strikeout_offset: -strikeout.offset / upem,
                strikeout_thickness: strikeout.thickness / upem,
            })
        };
        self.font_system().db().with_face_data(font, read).flatten().unwrap_or(Decorations {
            underline_offset: 0.1,
            underline_thickness: 0.06,
            strikeout_offset: -0.3,
            strikeout_thickness: 0.06,
        })
    }
}

fn outline(data: &[u8], index: u32, glyph: u16, weight: u16) -> Option<Path> {
    let font = FontRef::from_index(data, index).ok()?;
    let upem = f32::from(font.metrics(Size::unscaled(), LocationRef::default()).units_per_em.max(1));
    let location = font.axes().location([("wght", f32::from(weight))]);
    let outline = font.outline_glyphs().get(GlyphId::new(u32::from(glyph)))?;
    let mut pen = PathPen { builder: PathBuilder::new(), scale: 1.0 / upem };
    outline.draw(DrawSettings::unhinted(Size::unscaled(), &location), &mut pen).ok()?;
    pen.builder.finish()
}

/// Builds a path from outline commands, scaled to em units and flipped so y points down.
struct PathPen {
    builder: PathBuilder,
    scale: f32,
}

impl OutlinePen for PathPen {
    fn move_to(&mut self, x: f32, y: f32) {
        self.builder.move_to(x * self.scale, -y * self.scale);
    }

    fn line_to(&mut self, x: f32, y: f32) {
        self.builder.line_to(x * self.scale, -y * self.scale);
    }

    fn quad_to(&mut self, cx0: f32, cy0: f32, x: f32, y: f32) {
        let s = self.scale;
        self.builder.quad_to(cx0 * s, -cy0 * s, x * s, -y * s);
    }

    fn curve_to(&mut self, cx0: f32, cy0: f32, cx1: f32, cy1: f32, x: f32, y: f32) {
        let s = self.scale;
        self.builder.cubic_to(cx0 * s, -cy0 * s, cx1 * s, -cy1 * s, x * s, -y * s);
    }

    fn close(&mut self) {
        self.builder.close();
    }
}

#[cfg(test)]
mod tests {
    use crate::text::{FontBook, FontOptions, TextEngine, TextStyle};

    #[test]
    fn glyphs_have_outlines_in_em_units() {
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let style = TextStyle { family: "Inter".into(), size: 100.0, ..TextStyle::of(&crate::doc::Props::default()) };
        let shaped = engine.shape("H ", &style, None);
        let glyphs: Vec<_> = shaped.glyphs(&shaped.lines[0]).collect();
        let h = glyphs[0];
        let outline = engine.glyph_outline(h.font, h.glyph);
        let bounds = outline.path.as_ref().expect("an H has an outline").bounds();
        // Cap height of Inter is about 0.73 em, above the baseline (negative y).
        assert!(bounds.top() < -0.6 && bounds.top() > -0.8 && bounds.bottom().abs() < 0.01, "{bounds:?}");
        let space = glyphs[1];
        assert!(engine.glyph_outline(space.font, space.glyph).path.is_none());
        let decorations = engine.decorations(h.font);
        assert!(decorations.underline_offset > 0.0 && decorations.strikeout_offset < 0.0);
    }
}
