//! An effect drawn alone as a picture, for writers whose format has no blur (PDF): a node's
//! shadow, or a node under a layer blur with everything below it. The painter draws it, with
//! the code a PNG is drawn with, so the picture is the one `nib render` shows; the writer places
//! it in the node's coordinates and draws the rest as vectors.

use tiny_skia::{IntRect, Rect, Transform};

use super::blur::{Edges, blur};
use super::effects::{ShadowCache, device_sigma, inner_shadow, outer_shadow};
use super::kept::Kept;
use super::painter::Painter;
use super::surface::Surface;
use crate::display::DisplayList;
use crate::display::effects::grown;
use crate::doc::values::BlendMode;

/// Which effect of a node to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alone {
    /// The shadow at this index of the node's shadows (outer or inner), in its colour, blended
    /// normally: the writer blends the picture as the shadow says.
    Shadow(usize),
    /// The node's own drawing and its children, blurred by its layer blur, at full opacity.
    LayerBlur,
}

/// An effect as a picture.
pub struct EffectPicture {
    /// Straight (not premultiplied) RGBA, row after row.
    pub rgba: Vec<u8>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Where it goes, in the node's own coordinates.
    pub rect: Rect,
}

/// Most pixels of one effect picture (16 MB of RGBA): a larger effect is drawn at fewer pixels
/// per canvas pixel. A blur has no sharp edge that fewer pixels would lose.
pub const MAX_EFFECT_PIXELS: u64 = 4 * 1024 * 1024;

/// Draws effect `what` of node `index` of `list` at `density` pixels per canvas pixel (fewer when
/// it would have more than [`MAX_EFFECT_PIXELS`]); `None` when it draws nothing.
pub fn effect_picture(list: &DisplayList, index: usize, what: Alone, density: f32) -> Option<EffectPicture> {
    let node = list.node(index);
    let size = (node.width, node.height);
    let reach = |radius: f32| radius / 2.0 * 3.0 + 1.0;
    let rect = match what {
        Alone::Shadow(which) => {
            let shadow = node.effects.shadows.get(which)?;
            let shape = node.shape.as_ref()?;
            if shadow.inner {
                // Only what falls inside the shape shows.
                shape.path.bounds().outset(1.0, 1.0)?
            } else {
                let moved = grown(shape, size.0, size.1, shadow.spread)?.bounds();
                let moved =
                    Rect::from_xywh(moved.x() + shadow.dx, moved.y() + shadow.dy, moved.width(), moved.height())?;
                moved.outset(reach(shadow.blur), reach(shadow.blur))?
            }
        }
        Alone::LayerBlur => {
            let bounds = list.subtree_bounds(index, Transform::identity())?;
            bounds.outset(reach(node.effects.layer_blur), reach(node.effects.layer_blur))?
        }
    };
    let mut density = if density.is_finite() && density > 0.0 { density } else { 1.0 };
    let pixels = f64::from(rect.width() * density).ceil() * f64::from(rect.height() * density).ceil();
    if pixels > MAX_EFFECT_PIXELS as f64 {
        density *= (MAX_EFFECT_PIXELS as f64 / pixels).sqrt() as f32 * 0.999;
    }
    let (width, height) = ((rect.width() * density).ceil().max(1.0), (rect.height() * density).ceil().max(1.0));
    let mut surface = Surface::new(IntRect::from_xywh(0, 0, width as u32, height as u32)?)?;
    let transform = Transform::from_scale(density, density).pre_translate(-rect.left(), -rect.top());
    match what {
        Alone::Shadow(which) => {
            let shape = node.shape.as_ref()?;
            let shadow = tiny_skia_shadow(node.effects.shadows.get(which)?);
            if shadow.inner {
                inner_shadow(&mut surface, shape, size.0, size.1, &shadow, transform);
            } else {
                outer_shadow(&mut surface, shape, size.0, size.1, &shadow, transform, &ShadowCache::default());
            }
        }
        Alone::LayerBlur => {
            let kept = Kept::default();
            let mut painter = Painter {
                list,
                mark_missing: false,
                kept: &kept,
                memory: super::memory::pool().open(),
                memory_node: None,
                cull: None,
                whole: 1,
                timings: None,
                untouched: false,
            };
            painter.paint_content(&mut surface, node, transform, 1.0);
            blur(surface.pixmap.as_mut(), device_sigma(node.effects.layer_blur, transform), Edges::Transparent);
        }
    }
    let rgba = straight_rgba(&surface.into_pixmap());
    if rgba.chunks_exact(4).all(|pixel| pixel[3] == 0) {
        return None;
    }
    // The pixels cover a little more than the rectangle asked for (whole pixels).
    let covered = Rect::from_xywh(rect.left(), rect.top(), width / density, height / density)?;
    Some(EffectPicture { rgba, width: width as u32, height: height as u32, rect: covered })
}

/// A pixmap's pixels as straight RGBA, row after row (tiny-skia keeps them premultiplied;
/// writers that embed pictures want them straight).
pub fn straight_rgba(pixmap: &tiny_skia::Pixmap) -> Vec<u8> {
    pixmap
        .pixels()
        .iter()
        .flat_map(|pixel| {
            let color = pixel.demultiply();
            [color.red(), color.green(), color.blue(), color.alpha()]
        })
        .collect()
}

/// The shadow blended normally: its blend mode is the writer's to apply.
fn tiny_skia_shadow(shadow: &crate::display::effects::ShadowSpec) -> crate::display::effects::ShadowSpec {
    crate::display::effects::ShadowSpec { blend: BlendMode::Normal, ..*shadow }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::{RenderTarget, build};
    use crate::doc::Document;
    use crate::host::Host;
    use crate::layout::Layout;
    use crate::resolve::{NoImports, SceneOptions, build_scene};
    use crate::text::{FontBook, FontOptions, TextEngine};

    fn list(text: &str) -> DisplayList {
        let document = Document::load(text).expect("valid").document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let layout = Layout::compute(&scene, &mut engine);
        let key = scene.node_by_id("card").expect("card");
        let mut pictures = crate::host::MemoryHost::new().pictures();
        build(&scene, &layout, &mut engine, &mut pictures, RenderTarget::Node(key)).expect("drawn")
    }

    #[test]
    fn a_drop_shadow_is_drawn_around_the_shape_and_not_under_it() {
        let list = list(
            r##"{"version": "2.10", "children": [{"type": "rectangle", "id": "card", "width": 40, "height": 20,
                "fill": "#FFFFFF", "effect": {"type": "shadow", "shadowType": "outer", "color": "#FF000080",
                "offset": {"x": 0, "y": 4}, "blur": 8, "blendMode": "multiply"}}]}"##,
        );
        let root = list.roots()[0];
        let picture = effect_picture(&list, root, Alone::Shadow(0), 2.0).expect("a shadow");
        // The blur reaches 3 sigma (12 px) and a pixel past the moved box.
        assert_eq!(picture.rect, Rect::from_ltrb(-13.0, -9.0, 53.0, 37.0).expect("rect"));
        assert_eq!((picture.width, picture.height), (132, 92), "two pixels per canvas pixel");
        let at = |x: f32, y: f32| {
            let (px, py) = (((x - picture.rect.left()) * 2.0) as usize, ((y - picture.rect.top()) * 2.0) as usize);
            let i = (py * picture.width as usize + px) * 4;
            [picture.rgba[i], picture.rgba[i + 1], picture.rgba[i + 2], picture.rgba[i + 3]]
        };
        assert_eq!(at(20.0, 10.0)[3], 0, "nothing under the shape itself");
        let below = at(20.0, 22.0);
        assert_eq!(&below[..3], &[255, 0, 0], "straight colour, not premultiplied and not multiplied");
        assert!(below[3] > 20, "the shadow shows below the card: {below:?}");
    }

    #[test]
    fn a_huge_blur_is_drawn_at_fewer_pixels() {
        let list = list(
            r##"{"version": "2.10", "children": [{"type": "rectangle", "id": "card", "width": 4000, "height": 3000,
                "fill": "#000000", "effect": {"type": "blur", "radius": 10}}]}"##,
        );
        let picture = effect_picture(&list, list.roots()[0], Alone::LayerBlur, 3.0).expect("a picture");
        assert!(u64::from(picture.width) * u64::from(picture.height) <= MAX_EFFECT_PIXELS);
        assert!(picture.width > 1500, "{}", picture.width);
    }
}
