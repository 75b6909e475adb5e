//! Effects (spec §4b): drop and inner shadows clipped to the outside or inside of the shape,
//! layer blur and background blur. A blur radius r is a Gaussian of sigma r/2.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tiny_skia::{BlendMode, Color as SkColor, IntRect, Mask, Transform};

use super::blur::{Edges, blur, blur_mask};
use super::paint::blend_mode;
use super::surface::{Coverage, Surface, mask_over, multiply_coverage};
use crate::display::effects::{ShadowSpec, grown};
use crate::display::geometry::Shape;

/// A shadow's color and blend mode as tiny-skia's.
fn ink(shadow: &ShadowSpec) -> (SkColor, BlendMode) {
    let [r, g, b, a] = shadow.color;
    (SkColor::from_rgba8(r, g, b, a), blend_mode(shadow.blend))
}

/// The device-pixel sigma of a blur `radius` under `transform`.
pub(crate) fn device_sigma(radius: f32, transform: Transform) -> f32 {
    let (sx, sy) = transform.get_scale();
    radius / 2.0 * ((sx * sy).abs().sqrt())
}

/// The pixels `area` holds.
pub(crate) fn pixels(area: tiny_skia::IntRect) -> u64 {
    u64::from(area.width()) * u64::from(area.height())
}

/// Drop shadows already drawn in this render, by everything that decides their coverage: many
/// cards of one design cast the same shadow, and its blur is the costliest step of a frame.
/// Shared by the bands of a picture painted at once (see [`super::bands`]): a shadow crossing
/// a band's edge is blurred once for both, when one band finishes it before the other needs it.
pub(crate) struct ShadowCache {
    layers: Mutex<Kept>,
    /// Most layers kept.
    limit: usize,
    /// How many shadows were drawn from a kept layer.
    reused: AtomicUsize,
}

/// The coverages kept and the bytes they hold.
#[derive(Default)]
struct Kept {
    coverages: HashMap<u64, Arc<Mask>>,
    bytes: usize,
}

impl Default for ShadowCache {
    fn default() -> ShadowCache {
        ShadowCache { layers: Mutex::default(), limit: MAX_CACHED_SHADOWS, reused: AtomicUsize::new(0) }
    }
}

impl ShadowCache {
    /// How many shadows were drawn from a kept layer.
    #[cfg(test)]
    pub(crate) fn reused(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }

    /// A cache that keeps nothing: every shadow drawn on its own (to compare with).
    #[cfg(test)]
    pub(crate) fn off() -> ShadowCache {
        ShadowCache { limit: 0, ..ShadowCache::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.layers.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The coverage kept under `key`.
    fn get(&self, key: u64) -> Option<Arc<Mask>> {
        let found = self.lock().coverages.get(&key).cloned();
        if found.is_some() {
            self.reused.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Whether a coverage of `bytes` may be kept.
    fn has_room(&self, bytes: usize) -> bool {
        let (count, room) = self.room();
        count > 0 && bytes <= room
    }

    /// How many more coverages, and how many more bytes of them, may be kept.
    pub(crate) fn room(&self) -> (usize, usize) {
        let kept = self.lock();
        (self.limit.saturating_sub(kept.coverages.len()), MAX_CACHED_SHADOW_BYTES.saturating_sub(kept.bytes))
    }

    /// Whether a coverage is kept under `key`.
    pub(crate) fn holds(&self, key: u64) -> bool {
        self.lock().coverages.contains_key(&key)
    }

    /// Keeps `coverage` under `key`, when there is room (see [`ShadowCache::has_room`]).
    pub(crate) fn keep(&self, key: u64, coverage: Mask) {
        let mut kept = self.lock();
        let bytes = coverage.data().len();
        if kept.coverages.len() < self.limit && kept.bytes + bytes <= MAX_CACHED_SHADOW_BYTES {
            kept.bytes += bytes;
            kept.coverages.insert(key, Arc::new(coverage));
        }
    }
}

/// Most shadow coverages kept per render (each a byte per pixel of its shadow).
const MAX_CACHED_SHADOWS: usize = 64;

/// Most bytes of shadow coverage kept per render: a dozen shadows the size of a 1440 × 900
/// picture. Sixty-four coverages of a shadow spread over a whole 1400 × 1800 picture (a
/// hostile file: no two alike) held 160 MB.
const MAX_CACHED_SHADOW_BYTES: usize = 16 << 20;

/// Where a drop shadow is worked out: the (spread) shape moved by the offset, its blur in
/// device pixels, and the device bounds its blur reaches.
pub(crate) struct ShadowPlace {
    path: tiny_skia::Path,
    moved: Transform,
    sigma: f32,
    pub bounds: tiny_skia::Rect,
}

impl ShadowPlace {
    /// The place of `shadow` of `shape` (`width` × `height`) under `transform` (local →
    /// device); `None` when it draws nothing.
    pub(crate) fn of(
        shape: &Shape,
        width: f32,
        height: f32,
        shadow: &ShadowSpec,
        transform: Transform,
    ) -> Option<Self> {
        let path = grown(shape, width, height, shadow.spread)?;
        let moved = transform.pre_translate(shadow.dx, shadow.dy);
        let sigma = device_sigma(shadow.blur, transform);
        let bounds = path.bounds().transform(moved)?.outset(sigma * 3.0 + 1.0, sigma * 3.0 + 1.0)?;
        Some(ShadowPlace { path, moved, sigma, bounds })
    }

    /// The key a coverage worked out over `area` is kept under, when it may be kept: the same
    /// shadow at another whole-pixel place has the same coverage. The key holds the coverage's
    /// size and where the shape sits in it, so a kept coverage is the very one this shadow
    /// would compute, cut off by the picture's edge or not (a cut one is another key than a
    /// whole one: its area is smaller or the shape sits elsewhere in it).
    pub(crate) fn key(
        &self,
        shape: &Shape,
        width: f32,
        height: f32,
        shadow: &ShadowSpec,
        transform: Transform,
        area: IntRect,
    ) -> Option<u64> {
        (transform.tx.fract() == 0.0 && transform.ty.fract() == 0.0)
            .then(|| shadow_key(shape, width, height, shadow, transform, area))
    }

    /// The shadow's coverage over `area`: the moved shape's, blurred, cut away where the shape
    /// itself (`transform` local → device) is. `None` when a mask cannot be made.
    pub(crate) fn coverage(&self, shape: &Shape, transform: Transform, area: IntRect) -> Option<Mask> {
        // The two masks at once: a panel's shadow is a megapixel each.
        let (coverage, shape_itself) = rayon::join(
            || mask_over(area, &self.path, shape.fill_rule, self.moved),
            || mask_over(area, &shape.path, shape.fill_rule, transform),
        );
        let mut coverage = coverage?;
        blur_mask(&mut coverage, self.sigma, Edges::Transparent);
        if let Some(shape_itself) = shape_itself {
            multiply_coverage(&mut coverage, &shape_itself, Coverage::Outside);
        }
        Some(coverage)
    }
}

/// The pixels a drop shadow's coverage over `area` takes while it is worked out: the coverage,
/// its blur's buffer and the shape's own mask, a byte a pixel each.
pub(crate) fn shadow_scratch_bytes(area: IntRect) -> u64 {
    pixels(area) * 3
}

/// Draws a drop shadow of `shape` under it: the coverage of the (spread) shape moved by the
/// offset, blurred, cut away where the shape itself is, and drawn in the shadow's color. Only
/// the coverage is blurred: a quarter of the bytes of colored pixels.
pub(crate) fn outer_shadow(
    surface: &mut Surface,
    shape: &Shape,
    width: f32,
    height: f32,
    shadow: &ShadowSpec,
    transform: Transform,
    cache: &ShadowCache,
) {
    let Some(place) = ShadowPlace::of(shape, width, height, shadow, transform) else { return };
    // Worked out over its whole extent, so that every band of a picture computes the same
    // coverage (cut at a band's edge, its blur would fade there); drawn within the surface.
    let Some(area) = surface.reach_area(place.bounds).filter(|area| area.intersect(&surface.area).is_some()) else {
        return;
    };
    // A repaint that leaves out the node drawing a kept coverage first paints the same bytes.
    let key = place.key(shape, width, height, shadow, transform, area);
    if let Some(coverage) = key.and_then(|key| cache.get(key)) {
        let (color, blend) = ink(shadow);
        surface.draw_color(color, &coverage, area, blend);
        return;
    }
    let Ok(_scratch) = surface.scratch(shadow_scratch_bytes(area)) else { return };
    let Some(coverage) = place.coverage(shape, transform, area) else { return };
    let (color, blend) = ink(shadow);
    surface.draw_color(color, &coverage, area, blend);
    if let Some(key) = key
        && cache.has_room(coverage.data().len())
        && surface.keep(pixels(area))
    {
        cache.keep(key, coverage);
    }
}

/// A hash of what decides a drop shadow's coverage, its whole-pixel place and color aside.
fn shadow_key(shape: &Shape, width: f32, height: f32, shadow: &ShadowSpec, transform: Transform, area: IntRect) -> u64 {
    let mut bytes = Vec::with_capacity(80 + shape.path.len() * 8);
    let mut add = |value: f32| bytes.extend_from_slice(&value.to_bits().to_le_bytes());
    for value in [width, height, shadow.dx, shadow.dy, shadow.blur, shadow.spread] {
        add(value);
    }
    // Whole numbers well inside f32's exact range: the shape's offset in the coverage is exact.
    for value in
        [area.width() as f32, area.height() as f32, area.x() as f32 - transform.tx, area.y() as f32 - transform.ty]
    {
        add(value);
    }
    for value in [transform.sx, transform.kx, transform.ky, transform.sy] {
        add(value);
    }
    for point in shape.path.points() {
        add(point.x);
        add(point.y);
    }
    bytes.extend(shape.path.verbs().iter().map(|verb| *verb as u8));
    bytes.push(shape.fill_rule as u8);
    crate::hash::fnv1a(&bytes)
}

/// Draws an inner shadow: the coverage of everything outside the (shrunk) shape moved by the
/// offset, blurred, kept only inside the shape, in the shadow's color.
pub(crate) fn inner_shadow(
    surface: &mut Surface,
    shape: &Shape,
    width: f32,
    height: f32,
    shadow: &ShadowSpec,
    transform: Transform,
) {
    let sigma = device_sigma(shadow.blur, transform);
    // Worked out over the shape grown by the blur's reach: the region just outside the shape is
    // shadow that blurs inward (with the shape's own bounds only, a rectangle had no outside
    // in the mask and drew no shadow at all).
    let reach = sigma * 3.0 + 1.0 + shadow.dx.abs().max(shadow.dy.abs()) * transform.sx.abs().max(transform.sy.abs());
    let Some(bounds) = shape.path.bounds().transform(transform).and_then(|b| b.outset(reach, reach)) else { return };
    // Over its whole extent, as a drop shadow (see there).
    let Some(area) = surface.reach_area(bounds).filter(|area| area.intersect(&surface.area).is_some()) else {
        return;
    };
    // The coverage, its blur's buffer and the shape's own mask: a byte a pixel each.
    let Ok(_scratch) = surface.scratch(shadow_scratch_bytes(area)) else { return };
    let hole = grown(shape, width, height, -shadow.spread)
        .and_then(|hole| mask_over(area, &hole, shape.fill_rule, transform.pre_translate(shadow.dx, shadow.dy)));
    let Some(mut coverage) = hole.or_else(|| Mask::new(area.width(), area.height())) else { return };
    coverage.invert();
    // What lies beyond the layer is shadow too: extend the edges.
    blur_mask(&mut coverage, sigma, Edges::Extend);
    if let Some(inside) = mask_over(area, &shape.path, shape.fill_rule, transform) {
        multiply_coverage(&mut coverage, &inside, Coverage::Inside);
    }
    let (color, blend) = ink(shadow);
    surface.draw_color(color, &coverage, area, blend);
}

/// Blurs what is already drawn under `shape` (a frosted-glass backdrop).
pub(crate) fn background_blur(surface: &mut Surface, shape: &Shape, radius: f32, transform: Transform) {
    let Some(bounds) = shape.path.bounds().transform(transform) else { return };
    let Some(area) = surface.clip_area(bounds) else { return };
    let Some(mut backdrop) = surface.copy(area) else { return };
    // The blur's buffer, as large as the pixels it blurs.
    let Ok(_scratch) = surface.scratch(pixels(area) * 4) else { return };
    blur(backdrop.pixmap.as_mut(), device_sigma(radius, transform), Edges::Extend);
    if let Some(mask) = backdrop.mask(&shape.path, shape.fill_rule, transform) {
        surface.draw_masked(&mut backdrop, &mask, BlendMode::SourceOver);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache keeps coverages up to its byte bound, then no more: a file of many large
    /// shadows, none alike, does not hold them all.
    #[test]
    fn the_shadow_cache_keeps_coverages_up_to_its_bytes() {
        let cache = ShadowCache::default();
        let side = 2048u32; // 4 MiB a coverage
        for key in 0..6 {
            let fits = cache.has_room((side * side) as usize);
            cache.keep(key, Mask::new(side, side).expect("a mask"));
            assert_eq!(cache.holds(key), fits, "coverage {key}");
        }
        assert_eq!(cache.room(), (MAX_CACHED_SHADOWS - 4, 0), "four of 4 MiB fill the 16 MiB");
        assert!(!cache.holds(4) && !cache.holds(5));
        // Small ones still fit by number until the count is reached, not here: no bytes left.
        cache.keep(9, Mask::new(4, 4).expect("a mask"));
        assert!(!cache.holds(9));
    }
}
