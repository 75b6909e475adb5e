//! What a render keeps between its nodes, shared by the bands painting it: the drop shadows
//! and the glyphs drawn so far, for the nodes that draw the same again.

use super::effects::ShadowCache;
use super::glyphs::GlyphCache;

/// The shadows and glyphs one attempt of a render has drawn.
#[derive(Default)]
pub(crate) struct Kept {
    pub shadows: ShadowCache,
    pub glyphs: GlyphCache,
}
