//! Laying out the canvas while a batch edits it, for placing new top-level nodes by their real
//! (hugging) sizes.

use std::cell::RefCell;
use std::sync::Arc;

use super::Layout;
use super::space::{CanvasBoxes, Rect};
use crate::doc::{Document, NodeKey};
use crate::resolve::{Library, Scene, SceneOptions, update_scene};
use crate::text::TextEngine;

/// Top-level boxes laid out from the document as the batch has changed it so far. Each call
/// updates the previous scene and layout: only the top-level nodes edited since are resolved
/// and laid out again.
pub struct LaidOutCanvas<'a> {
    library: &'a dyn Library,
    previous: RefCell<(Option<Arc<Scene>>, Option<Layout>)>,
    text: RefCell<TextEngine>,
}

impl<'a> LaidOutCanvas<'a> {
    /// A canvas over documents importing from `library`; `previous` is a scene of the same
    /// document to start from (any revision), `text` the engine to measure with.
    pub fn new(library: &'a dyn Library, previous: Option<Arc<Scene>>, text: TextEngine) -> LaidOutCanvas<'a> {
        LaidOutCanvas { library, previous: RefCell::new((previous, None)), text: RefCell::new(text) }
    }

    /// The text engine back, with what it measured cached.
    pub fn into_text_engine(self) -> TextEngine {
        self.text.into_inner()
    }
}

impl CanvasBoxes for LaidOutCanvas<'_> {
    /// `None` when the document expands past its budget: laying out a partial Scene would
    /// place new nodes by boxes that are not the design's, and the work is what the budget is
    /// there to refuse. batch_design then places by the document's numbers, so an agent can
    /// still edit the document and remove what expands too far.
    fn top_level_boxes(&self, document: &Document) -> Option<Vec<(NodeKey, Rect)>> {
        let mut previous = self.previous.borrow_mut();
        let scene = update_scene(previous.0.as_deref(), document, self.library, SceneOptions::FULL);
        if scene.error().is_some() {
            // Kept, so the next call reuses the parts that fit instead of expanding again.
            previous.0 = Some(Arc::new(scene));
            return None;
        }
        let layout = Layout::update(previous.1.as_ref(), &scene, &mut self.text.borrow_mut());
        let boxes = scene
            .parts()
            .iter()
            .zip(layout.parts())
            .filter_map(|(part, laid_out)| {
                let b = laid_out.bounds(0)?;
                let (x, y, width, height) = (b.left, b.top, b.width, b.height);
                Some((
                    part.source_root(),
                    Rect { x: x.into(), y: y.into(), width: width.into(), height: height.into() },
                ))
            })
            .collect();
        *previous = (Some(Arc::new(scene)), Some(layout));
        Some(boxes)
    }

    fn choose_family(&self, family: &str) -> Option<Arc<crate::text::FamilyChoice>> {
        Some(self.text.borrow_mut().choose_family(family))
    }
}
