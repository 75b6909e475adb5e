//! Text in a PDF: the glyphs nib shaped, at the positions nib gave them, in the faces it shaped
//! them with (each embedded once per document as a subset, a variable face at the weight it is
//! drawn at). Each glyph names the characters it stands for, so the text can be selected,
//! searched and copied. A face krilla cannot embed is drawn as glyph outlines instead.

use std::collections::{BTreeSet, HashMap};

use cosmic_text::fontdb;
use cosmic_text::skrifa::{FontRef, MetadataProvider};
use krilla::geom::Point;
use krilla::paint::Fill;
use krilla::surface::Surface;
use krilla::text::{Font, GlyphId, KrillaGlyph, Tag};
use tiny_skia::{PathBuilder, Transform};

use super::{pdf_path, pdf_transform};
use crate::diagnostic::Diagnostic;
use crate::display::TextRun;
use crate::text::outline::SYNTHETIC_SLANT;
use crate::text::{GlyphFace, ShapedGlyph};

/// The faces of a document as krilla embeds them, made once each (by [`GlyphFace::key`]).
#[derive(Default)]
pub(super) struct Fonts {
    made: HashMap<String, Option<Font>>,
    /// Font files krilla could not embed (their glyphs were drawn as outlines).
    outlined: BTreeSet<String>,
}

impl Fonts {
    /// The face as krilla's font; `None` when krilla cannot read it (the file is noted).
    fn font(&mut self, face: &GlyphFace) -> Option<Font> {
        let font = self.made.entry(face.key.clone()).or_insert_with(|| pdf_font(face)).clone();
        if font.is_none() {
            self.outlined.insert(face.file.clone());
        }
        font
    }

    /// What the document should say: each font file whose text was drawn as outlines, once.
    pub(super) fn warnings(&self) -> impl Iterator<Item = Diagnostic> + '_ {
        self.outlined.iter().map(|file| {
            Diagnostic::warning(
                "font-file",
                format!(
                    "the font file {file} could not be embedded in the PDF; its text is drawn as outlines, which look the same but cannot be selected or searched"
                ),
            )
        })
    }

    /// Draws the lines of `run` (placed in its node's box) filled with `fill`: `faces` names the
    /// faces its glyphs were shaped with.
    pub(super) fn draw_run(
        &mut self,
        surface: &mut Surface<'_>,
        run: &TextRun,
        faces: &HashMap<fontdb::ID, GlyphFace>,
        fill: &Fill,
    ) {
        let (style, shaped) = (&run.style, &run.shaped);
        let top = run.at.1 + shaped.block_y(style.vertical_align, run.size.1);
        let mut outlined = BTreeSet::new();
        surface.set_fill(Some(fill.clone()));
        for (index, line) in shaped.lines.iter().enumerate() {
            let left = run.at.0 + shaped.line_x(index, style.align, run.size.0);
            let glyphs: Vec<ShapedGlyph> = shaped.glyphs(line).collect();
            // Runs of one face on one baseline (a mark raised off it starts its own).
            let mut start = 0;
            while start < glyphs.len() {
                let first = glyphs[start];
                let end = glyphs[start..]
                    .iter()
                    .position(|g| g.font != first.font || g.baseline != first.baseline)
                    .map_or(glyphs.len(), |n| start + n);
                let next_x = glyphs.get(end).map_or(line.width, |g| g.x);
                let font = faces.get(&first.font).and_then(|face| Some((self.font(face)?, face.slanted)));
                match font {
                    Some((font, slanted)) => {
                        draw_glyphs(surface, &glyphs[start..end], next_x, (left, top), &run.content, font, slanted);
                    }
                    None => {
                        outlined.insert(first.font);
                    }
                }
                start = end;
            }
        }
        // Bars, and glyphs of faces that cannot be embedded, as outlines.
        let mut builder = PathBuilder::new();
        for glyph in run.glyphs().filter(|glyph| outlined.contains(&glyph.key.0)) {
            if let Some(path) = glyph.outline.path.clone().and_then(|p| p.transform(glyph.transform)) {
                builder.push_path(&path);
            }
        }
        for bar in &run.bars {
            builder.push_rect(*bar);
        }
        let shapes = builder.finish().and_then(|p| p.transform(Transform::from_translate(run.at.0, run.at.1)));
        if let Some(shapes) = shapes.as_ref().and_then(pdf_path) {
            surface.draw_path(&shapes);
        }
        surface.set_fill(None);
    }
}

/// Draws one run of glyphs of one face on one baseline; `next_x` is where the glyph after the
/// last one starts (its advance), `origin` the line's left edge and the text's top.
fn draw_glyphs(
    surface: &mut Surface<'_>,
    glyphs: &[ShapedGlyph],
    next_x: f32,
    origin: (f32, f32),
    content: &str,
    font: Font,
    slanted: bool,
) {
    let Some(first) = glyphs.first() else { return };
    let size = first.size;
    if !(size.is_finite() && size > 0.0) {
        return;
    }
    let pdf_glyphs: Vec<KrillaGlyph> = glyphs
        .iter()
        .enumerate()
        .map(|(i, glyph)| {
            let next = glyphs.get(i + 1).map_or(next_x, |g| g.x);
            // The characters it stands for; none when the range does not fall on this text's
            // characters (the text would not be searchable there, but nothing is cut).
            let range = if content.get(glyph.start..glyph.end).is_some() { glyph.start..glyph.end } else { 0..0 };
            KrillaGlyph::new(GlyphId::new(u32::from(glyph.glyph)), (next - glyph.x) / size, 0.0, 0.0, 0.0, range, None)
        })
        .collect();
    let baseline = origin.1 + first.baseline;
    if slanted {
        // An upright face slanted as italic, as the painter draws it: sheared about the baseline.
        let shear = Transform::from_row(1.0, 0.0, -SYNTHETIC_SLANT, 1.0, SYNTHETIC_SLANT * baseline, 0.0);
        surface.push_transform(&pdf_transform(shear));
    }
    surface.draw_glyphs(Point::from_xy(origin.0 + first.x, baseline), &pdf_glyphs, font, content, size, false);
    if slanted {
        surface.pop();
    }
}

/// A face as krilla's font, at its weight when it is variable.
fn pdf_font(face: &GlyphFace) -> Option<Font> {
    let bytes: &[u8] = (*face.data).as_ref();
    let wght = cosmic_text::skrifa::raw::types::Tag::new(b"wght");
    let variable = FontRef::from_index(bytes, face.index).is_ok_and(|f| f.axes().iter().any(|axis| axis.tag() == wght));
    let coordinates: Vec<(Tag, f32)> =
        if variable { vec![(Tag::new(b"wght"), f32::from(face.weight))] } else { Vec::new() };
    Font::new_variable(face.data.clone().into(), face.index, &coordinates)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_face_krilla_cannot_read_is_said_once_and_drawn_as_outlines() {
        let broken = GlyphFace {
            data: Arc::new(b"not a font".to_vec()),
            index: 0,
            weight: 400,
            slanted: false,
            file: "fonts/Broken.ttf".to_owned(),
            key: "fonts/Broken.ttf#0@400".to_owned(),
        };
        let mut fonts = Fonts::default();
        assert!(fonts.font(&broken).is_none());
        assert!(fonts.font(&broken).is_none(), "asked again: still none, said once");
        let said: Vec<String> = fonts.warnings().map(|d| d.to_string()).collect();
        assert_eq!(said.len(), 1);
        assert!(said[0].contains("fonts/Broken.ttf could not be embedded in the PDF"), "{said:?}");
    }
}
