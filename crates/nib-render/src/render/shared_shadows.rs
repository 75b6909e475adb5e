//! Drop shadows that reach more than one band of a picture, worked out once, on every core,
//! before the bands are painted (see [`super::bands`]).
//!
//! A band works out a shadow over its whole extent, so that no seam shows where bands meet;
//! left to the bands, a shadow reaching two of them is worked out twice at the same moment on
//! both cores (a page's panel shadow of sigma 30 over a megapixel, cirrus `TBCqR`: its two
//! masks, blur and cut took both cores about as long as the rest of the band). Worked out
//! here first and kept in the shadow cache the bands share, each band only draws it. The
//! coverage is the one a band would compute (the same function over the same area and
//! transform), so the bytes are those of a band working it out itself. A repaint after an edit
//! does the same for the shadows more than one band draws within the damage.

use std::collections::HashSet;

use rayon::prelude::*;
use tiny_skia::{IntRect, Rect, Transform};

use super::bands::Picture;
use super::effects::{ShadowPlace, pixels, shadow_scratch_bytes};

/// A drop shadow to work out: the node casting it, its place on the device, and the key its
/// coverage is kept under.
struct Shared {
    node: usize,
    transform: Transform,
    place: ShadowPlace,
    area: IntRect,
    key: u64,
}

/// The part of the picture a band paints: its rows, and (in a repaint) the damage within them,
/// the rectangle its painter leaves out the nodes not reaching.
pub(crate) struct BandPart {
    pub rows: IntRect,
    pub wanted: Rect,
}

/// Works out the drop shadows of `picture` that more than one of `parts` draws and keeps them
/// in its shadow cache (`bounds`: each node's with its children, by index in the list); the
/// id of the node whose shadow the memory could not hold, when it could not (the render then
/// stops, as a band's painter stops there).
pub(crate) fn work_out_shared_shadows(
    picture: &Picture<'_>,
    parts: &[BandPart],
    bounds: &[Option<Rect>],
) -> Result<(), String> {
    if parts.len() < 2 {
        return Ok(());
    }
    let list = picture.list;
    let cache = &picture.kept.shadows;
    // As many as the cache has room for, in paint order (the rest are left to the bands).
    let mut shared = shared_shadows(picture, parts, bounds);
    let (mut count, mut bytes) = cache.room();
    shared.retain(|job| {
        let size = pixels(job.area) as usize;
        let fits = count > 0 && size <= bytes;
        if fits {
            (count, bytes) = (count - 1, bytes - size);
        }
        fits
    });
    let failed = shared.into_par_iter().find_map_any(|job| {
        let node = list.node(job.node);
        let shape = node.shape.as_ref()?;
        let fail = || Some(node.id.clone());
        let Some(_scratch) = picture.account.take(shadow_scratch_bytes(job.area)) else { return fail() };
        let coverage = job.place.coverage(shape, job.transform, job.area)?;
        if !picture.account.keep(pixels(job.area)) {
            return fail();
        }
        cache.keep(job.key, coverage);
        None
    });
    failed.map_or(Ok(()), Err)
}

/// The drop shadows more than one of `parts` draws, from a kept coverage (one per key), in
/// paint order: a band draws a node's shadow when the node reaches what it paints and the
/// shadow its rows.
fn shared_shadows(picture: &Picture<'_>, parts: &[BandPart], bounds: &[Option<Rect>]) -> Vec<Shared> {
    let list = picture.list;
    let mut shared = Vec::new();
    // Most pictures cast no drop shadow: no walk placing every node then.
    if !(0..list.len()).any(|index| list.node(index).effects.shadows.iter().any(|shadow| !shadow.inner)) {
        return shared;
    }
    let mut keys = HashSet::new();
    let mut todo: Vec<(usize, Transform, bool)> =
        list.roots().iter().rev().map(|&root| (root, picture.device, true)).collect();
    while let Some((index, parent, as_target)) = todo.pop() {
        let node = list.node(index);
        // What the painter leaves out.
        if node.opacity <= 0.0 {
            continue;
        }
        let transform = list.transform(index, parent, as_target);
        if let Some(shape) = node.shape.as_ref().filter(|_| node.fills_visible) {
            for shadow in node.effects.shadows.iter().filter(|shadow| !shadow.inner) {
                let Some(place) = ShadowPlace::of(shape, node.width, node.height, shadow, transform) else { continue };
                let Some(area) = place.bounds.round_out().and_then(|bounds| bounds.intersect(&picture.area)) else {
                    continue;
                };
                let reaches = |part: &&BandPart| {
                    let node_reaches = bounds.get(index).copied().flatten().and_then(|b| b.intersect(&part.wanted));
                    node_reaches.is_some() && part.rows.intersect(&area).is_some()
                };
                if parts.iter().filter(reaches).count() < 2 {
                    continue;
                }
                let Some(key) = place.key(shape, node.width, node.height, shadow, transform, area) else { continue };
                if keys.insert(key) && !picture.kept.shadows.holds(key) {
                    shared.push(Shared { node: index, transform, place, area, key });
                }
            }
        }
        todo.extend(node.children.iter().rev().map(|&child| (child, transform, false)));
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::DisplayList;
    use crate::render::bands::paint_in_bands;
    use crate::render::effects::ShadowCache;
    use crate::render::kept::Kept;
    use crate::render::memory::{self, Pool};
    use crate::render::{RenderError, RenderOptions};

    /// A 480 × 900 page: a panel casting a wide shadow (sigma 30) across the edge between its
    /// two bands (row 450) and past the page's left edge, and forty dots above it, enough
    /// nodes to be painted in bands.
    fn page() -> DisplayList {
        let dots: Vec<String> = (0..40)
            .map(|i| {
                let (x, y) = (10 + (i % 10) * 46, 10 + (i / 10) * 30);
                format!(r##"{{"type": "rectangle", "id": "d{i}", "x": {x}, "y": {y}, "width": 20, "height": 20, "fill": "#F97316"}}"##)
            })
            .collect();
        crate::render::tests::list_of_page(&format!(
            r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 480, "height": 900, "layout": "none",
                "fill": "#EEF2F7", "children": [{}, {{"type": "frame", "id": "panel", "x": 20, "y": 300, "width": 440, "height": 300,
                "cornerRadius": 16, "fill": "#FFFFFF", "effect": {{"type": "shadow", "shadowType": "outer", "color": "#0F172A55",
                "offset": {{"x": 0, "y": 8}}, "blur": 60}}}}]}}]}}"##,
            dots.join(",")
        ))
    }

    /// The page painted in its bands (or `whole`) with `kept`, from `pool`.
    fn painted(list: &DisplayList, kept: &Kept, pool: &'static Pool, whole: bool) -> Result<Vec<u8>, RenderError> {
        let area = IntRect::from_xywh(0, 0, 480, 900).expect("an area");
        let account = pool.open();
        let options = RenderOptions::default();
        let device = Transform::from_translate(-list.bounds.left(), -list.bounds.top());
        let picture = Picture { list, options: &options, account: &account, device, area, kept };
        let bands = if whole { vec![area] } else { crate::render::bands::bands(list, area, device) };
        assert_eq!(bands.len(), if whole { 1 } else { 2 });
        Ok(paint_in_bands(&picture, &bands, None, None)?.pixmap.data().to_vec())
    }

    /// The panel's shadow reaches both bands and is cut by the page's edge: it is worked out
    /// once before the bands, each band draws it from there, and the picture is the bytes of
    /// the whole page painted at once. (Left to the bands, both work it out at the same
    /// moment and neither draws a kept one.)
    #[test]
    fn a_shadow_across_bands_is_worked_out_once_and_each_band_draws_it_from_there() {
        let list = page();
        let kept = Kept::default();
        let banded = painted(&list, &kept, memory::pool(), false).expect("paints");
        assert_eq!(kept.shadows.reused(), 2, "each band drew the kept coverage");
        let whole = painted(&list, &Kept::default(), memory::pool(), true).expect("paints");
        assert!(banded == whole, "the bands' picture differs from the whole one");
        let alone = Kept { shadows: ShadowCache::off(), ..Kept::default() };
        assert!(painted(&list, &alone, memory::pool(), false).expect("paints") == whole, "without a cache");
    }

    /// A repaint in bands of a damage across their edge (the panel's): the shadow is worked
    /// out once there too, and the damaged pixels are the full paint's.
    #[test]
    fn a_repaint_across_bands_works_a_shared_shadow_out_once() {
        let list = page();
        let area = IntRect::from_xywh(0, 0, 480, 900).expect("an area");
        let device = Transform::from_translate(-list.bounds.left(), -list.bounds.top());
        let bands = crate::render::bands::bands(&list, area, device);
        let bounds = crate::render::damage::subtree_bounds(&list, device);
        let damage = tiny_skia::Rect::from_ltrb(10.0, 280.0, 470.0, 640.0).expect("a rect");
        let (kept, options, account) = (Kept::default(), RenderOptions::default(), memory::pool().open());
        let picture = Picture { list: &list, options: &options, account: &account, device, area, kept: &kept };
        let cull = crate::render::painter::Cull { rect: damage, bounds: &bounds };
        let repainted = paint_in_bands(&picture, &bands, Some(&cull), None).expect("paints");
        assert_eq!(kept.shadows.reused(), 2, "each band drew the kept coverage");
        let whole = painted(&list, &Kept::default(), memory::pool(), true).expect("paints");
        let stride = 480 * 4;
        for y in 280..640 {
            let row = y * stride + 10 * 4..y * stride + 470 * 4;
            assert!(repainted.pixmap.data()[row.clone()] == whole[row], "row {y} differs from the full paint");
        }
    }

    /// Memory the shadow's working out does not fit in stops the render there, naming the
    /// node casting it, as a band's painter would.
    #[test]
    fn a_shared_shadow_the_memory_cannot_hold_names_its_node() {
        let list = page();
        let picture_bytes = 480 * 900 * memory::LAYER_BYTES_PER_PIXEL;
        let pool: &'static Pool = Box::leak(Box::new(Pool::new(picture_bytes + 100_000)));
        match painted(&list, &Kept::default(), pool, false) {
            Err(RenderError::Memory { node, needed }) => {
                assert_eq!(node, "panel");
                assert!(needed > picture_bytes + 100_000, "{needed}");
            }
            Err(other) => panic!("another error: {other}"),
            Ok(_) => panic!("painted within a pool smaller than its shadow's working out"),
        }
    }
}
