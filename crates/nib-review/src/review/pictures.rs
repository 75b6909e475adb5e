//! Pictures of what a diff changed: every changed top-level frame drawn from the old and the new
//! document, with an image that marks where they differ. Frames are drawn a few at a time on
//! every core and handed over as they are ready, so memory holds a handful of images, not all.

use std::collections::HashMap;

use rayon::prelude::*;
use tiny_skia::Pixmap;

use crate::compile::frames::{Frame, FrameRender, safe_name};
use crate::compile::{CompileOptions, Compiled, compile};
use crate::diagnostic::Diagnostic;
use crate::doc::Document;
use crate::host::Host;
use crate::render::{RenderError, RenderOptions};

use super::diff::Diff;
use super::pixels::{Comparison, Tolerance, highlight};

/// Frames drawn together per core: enough to keep every core busy, few enough that the images
/// of one round (three per frame) stay small.
const FRAMES_PER_CORE: usize = 2;

/// One document to draw from.
pub struct Side<'a> {
    /// The document.
    pub document: &'a Document,
    /// Where its imports, fonts and images come from.
    pub host: &'a dyn Host,
    /// Scale and background.
    pub options: RenderOptions,
}

/// Why one side's picture of a frame could not be drawn. The message is the reason alone: the
/// caller says which frame and which side.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PictureError {
    /// The side's document cannot be compiled (over a resolve budget): none of its frames is
    /// drawn.
    #[error("{0}")]
    Compile(Box<Diagnostic>),
    /// The frame cannot be rendered: too large, or its layers need more memory than a render
    /// may take.
    #[error("{0}")]
    Render(#[from] RenderError),
}

/// The pictures of one changed frame.
#[derive(Debug)]
pub struct FramePictures {
    /// The frame's place in [`Diff::frames`].
    pub index: usize,
    /// `NN-name`: the start of its image files' names, in the diff's order.
    pub stem: String,
    /// The old picture; `None` when the old document has no such visible top-level frame.
    pub old: Option<Result<Pixmap, PictureError>>,
    /// The new picture; `None` when the new document has no such visible top-level frame.
    pub new: Option<Result<Pixmap, PictureError>>,
    /// Where old and new differ, when both could be drawn.
    pub difference: Option<(Comparison, Pixmap)>,
    /// What could not be drawn as written, on either side.
    pub warnings: Vec<Diagnostic>,
}

/// A side ready to draw: compiled, with its visible top-level frames by id; or why it cannot be
/// drawn.
struct Prepared<'a> {
    side: &'a Side<'a>,
    drawn: Result<(Compiled<'a>, HashMap<String, Frame>), PictureError>,
    /// What compiling this side found.
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Prepared<'a> {
    fn new(side: &'a Side<'a>) -> Prepared<'a> {
        let mut compiled = match compile(side.host, side.document, &CompileOptions::default()) {
            Ok(compiled) => compiled,
            Err(error) => {
                return Prepared { side, drawn: Err(PictureError::Compile(error)), diagnostics: Vec::new() };
            }
        };
        let diagnostics = compiled.diagnostics(crate::render::RenderTarget::Canvas);
        let by_id = compiled.frames().into_iter().map(|frame| (frame.id.clone(), frame)).collect();
        Prepared { side, drawn: Ok((compiled, by_id)), diagnostics }
    }

    /// What compiling this side found.
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.diagnostics.clone()
    }

    /// Draws the frames with these ids that this side has, by id.
    fn draw(&self, ids: &[&str]) -> HashMap<String, FrameRender> {
        let Ok((compiled, by_id)) = &self.drawn else { return HashMap::new() };
        let wanted: Vec<Frame> = ids.iter().filter_map(|id| by_id.get(*id).cloned()).collect();
        compiled
            .render_frames(&self.side.options, wanted, &|_| {})
            .into_iter()
            .map(|render| (render.frame.id.clone(), render))
            .collect()
    }

    /// The picture of `id` from `drawn`: `None` when this side has no such visible frame (said
    /// in `warnings`, naming the side).
    fn picture(
        &self,
        id: &str,
        side: &str,
        drawn: &mut HashMap<String, FrameRender>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Option<Result<Pixmap, PictureError>> {
        match &self.drawn {
            Err(error) => Some(Err(error.clone())),
            Ok(_) => match drawn.remove(id) {
                Some(render) => {
                    warnings.extend(render.warnings);
                    Some(render.image.map_err(PictureError::Render))
                }
                None => {
                    // The picture is the frame's already: the text names the side only.
                    let message = format!("no {side} picture: the frame is hidden or has no size there");
                    warnings.push(Diagnostic::note("frame", message));
                    None
                }
            },
        }
    }
}

/// Draws every frame of `diff.frames` from both sides and calls `each` with its pictures, in the
/// diff's order; returns what compiling each side found (old, new).
pub fn draw(diff: &Diff, old: &Side<'_>, new: &Side<'_>, each: &mut dyn FnMut(FramePictures)) -> [Vec<Diagnostic>; 2] {
    if diff.frames.is_empty() {
        return [Vec::new(), Vec::new()];
    }
    let old = Prepared::new(old);
    let new = Prepared::new(new);
    let width = diff.frames.len().to_string().len().max(2);
    let round = rayon::current_num_threads().max(1) * FRAMES_PER_CORE;
    let indices: Vec<usize> = (0..diff.frames.len()).collect();
    for chunk in indices.chunks(round) {
        let frames: Vec<&super::diff::FrameChange> = chunk.iter().map(|i| &diff.frames[*i]).collect();
        let ids = |side: fn(&super::diff::FrameChange) -> bool| -> Vec<&str> {
            frames.iter().filter(|f| side(f)).map(|f| f.frame.id.as_str()).collect()
        };
        let mut old_drawn = old.draw(&ids(|f| f.in_old));
        let mut new_drawn = new.draw(&ids(|f| f.in_new));
        let mut pictures: Vec<FramePictures> = chunk
            .iter()
            .map(|index| {
                let frame = &diff.frames[*index];
                let id = frame.frame.id.as_str();
                let mut warnings = Vec::new();
                let old_picture =
                    if frame.in_old { old.picture(id, "old", &mut old_drawn, &mut warnings) } else { None };
                let new_picture =
                    if frame.in_new { new.picture(id, "new", &mut new_drawn, &mut warnings) } else { None };
                let name = frame.frame.name.as_deref().filter(|n| !n.trim().is_empty()).unwrap_or(id);
                FramePictures {
                    index: *index,
                    stem: format!("{:0width$}-{}", index + 1, safe_name(name)),
                    old: old_picture,
                    new: new_picture,
                    difference: None,
                    warnings,
                }
            })
            .collect();
        pictures.par_iter_mut().for_each(|pictures| {
            if let (Some(Ok(before)), Some(Ok(after))) = (&pictures.old, &pictures.new) {
                pictures.difference = Some(highlight(before, after, &Tolerance::default()));
            }
        });
        for picture in pictures {
            each(picture);
        }
    }
    [old.diagnostics(), new.diagnostics()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::MemoryHost;
    use crate::review::diff::diff;

    #[test]
    fn changed_frames_are_drawn_from_both_sides_with_their_difference() {
        let text = |color: &str| {
            format!(
                r##"{{"version": "2.11", "children": [
                {{"type": "frame", "id": "a", "name": "Card / Main", "width": 20, "height": 10, "fill": "{color}"}},
                {{"type": "frame", "id": "b", "x": 40, "width": 10, "height": 10, "fill": "#00FF00"}}]}}"##
            )
        };
        let old = Document::load(&text("#FF0000")).unwrap().document;
        let mut new = Document::load(&text("#0000FF")).unwrap().document;
        let b = new.node_by_id("b").unwrap();
        let mut tx = new.transaction();
        tx.remove(b);
        tx.commit();
        let result = diff(&old, &new);
        let host = MemoryHost::new();
        let side = |document| Side { document, host: &host, options: RenderOptions::default() };
        let mut seen = Vec::new();
        draw(&result, &side(&old), &side(&new), &mut |p| {
            let size = |p: &Option<Result<Pixmap, PictureError>>| {
                p.as_ref().map(|r| r.as_ref().map(|p| (p.width(), p.height())).unwrap())
            };
            seen.push((p.stem.clone(), size(&p.old), size(&p.new), p.difference.map(|(c, _)| c.differing)));
        });
        assert_eq!(
            seen,
            [
                ("01-Card-Main".to_owned(), Some((20, 10)), Some((20, 10)), Some(200)),
                ("02-b".to_owned(), Some((10, 10)), None, None)
            ]
        );
    }

    #[test]
    fn a_frame_hidden_on_one_side_has_no_picture_there_and_says_why() {
        let old = Document::load(r##"{"version": "2.11", "children": [{"type": "frame", "id": "a", "width": 8, "height": 8, "fill": "#000"}]}"##)
            .unwrap()
            .document;
        let new = Document::load(
            r##"{"version": "2.11", "children": [{"type": "frame", "id": "a", "enabled": false, "width": 8, "height": 8, "fill": "#000"}]}"##,
        )
        .unwrap()
        .document;
        let result = diff(&old, &new);
        let host = MemoryHost::new();
        let side = |document| Side { document, host: &host, options: RenderOptions::default() };
        let mut seen = Vec::new();
        draw(&result, &side(&old), &side(&new), &mut |p| {
            seen.push((p.old.is_some(), p.new.is_some(), crate::diagnostic::lines(&p.warnings)));
        });
        assert_eq!(seen, [(true, false, vec!["no new picture: the frame is hidden or has no size there".to_owned()])]);
    }

    #[test]
    fn a_frame_too_large_to_render_has_the_render_error_on_its_side() {
        let text = |size: u32| {
            format!(
                r##"{{"version": "2.11", "children": [{{"type": "frame", "id": "a", "width": {size}, "height": {size}, "fill": "#000"}}]}}"##
            )
        };
        let old = Document::load(&text(8)).unwrap().document;
        let new = Document::load(&text(20_000)).unwrap().document;
        let result = diff(&old, &new);
        let host = MemoryHost::new();
        let side = |document| Side { document, host: &host, options: RenderOptions::default() };
        let mut seen = Vec::new();
        draw(&result, &side(&old), &side(&new), &mut |p| seen.push((p.old, p.new, p.difference.is_some())));
        let [(Some(Ok(_)), Some(Err(error)), false)] = seen.as_slice() else { panic!("{seen:?}") };
        assert!(
            matches!(error, PictureError::Render(RenderError::TooLarge { width: 20_000, height: 20_000 })),
            "{error:?}"
        );
        assert!(error.to_string().starts_with("the image would be 20000 × 20000 pixels"), "{error}");
    }
}
