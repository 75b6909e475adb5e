//! What a render keeps between its nodes, shared by the bands painting it: the drop shadows
//! and the glyphs drawn so far, for the nodes that draw the same again.

use std::sync::Arc;

use super::effects::ShadowCache;
use super::glyphs::GlyphCache;
use super::layers::Layers;

/// The shadows and glyphs one attempt of a render has drawn.
#[derive(Default)]
pub(crate) struct Kept {
    pub shadows: ShadowCache,
    /// Shared with the picture kept to be repainted, when it is (see [`super::paint_after`]).
    pub glyphs: Arc<GlyphCache>,
    /// Layers of translucent containers kept from the picture before and for the next one,
    /// when the picture is kept to be repainted.
    pub layers: Option<Arc<Layers>>,
}
