//! Text drawn glyph by glyph from coverages kept for the render, as browsers and Skia draw it:
//! each glyph is rasterised once per size and subpixel position into a coverage mask, and
//! every place it appears at blends that mask in the text's color. Filling the run's outlines
//! as one path cloned and moved every glyph's outline and scan-converted the whole run for
//! each text; UI text repeats a few dozen glyphs at a few sizes, so most glyphs are a lookup
//! and a blend.
//!
//! A glyph's origin is placed on a sixteenth of a pixel across and a quarter down (Skia's
//! subpixel positioning, finer across): at most a 32nd of a pixel across and an eighth down from
//! where the outline puts it. The mask depends on the glyph, its scale and that place only, so
//! the same text gives the same pixels in a whole picture, in a band of one and in a repaint. Glyphs blend one after the other, as in
//! a browser, so where two overlap (tight kerning, joined scripts) the overlap is drawn twice.
//!
//! A mask is the exact area each pixel's square shares with the outline, in 256 levels (zeno's
//! rasterizer, which works as FreeType's gray rasterizer does, with cells of cover and area; the
//! glyphs of Chromium on Linux come from FreeType). tiny-skia's fill, which nib used before,
//! samples four rows a pixel and took three times as long for text sizes.
//!
//! A picture a server keeps to repaint keeps its glyphs too (see [`super::paint_after`]): the
//! next picture of the target draws the text an edit repaints from them.
//!
//! Only plain text of ordinary size takes this way: one solid color, source-over, placed by
//! scale and translation (no rotation, skew or mirror), an em of at most [`MAX_MASK_EM`]
//! pixels; anything else is filled as outlines, which tiny-skia clips to the picture.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tiny_skia::{BlendMode, Color, IntRect, Mask, Transform};

use super::surface::Surface;
use crate::display::TextRun;
use crate::display::text::PlacedGlyph;
use crate::text::GlyphOutline;

/// Positions per pixel a glyph's origin is placed at, across and down. Across, a quarter of a
/// pixel (Skia's choice) moved small text visibly: a text-heavy page's PNG against poppler's
/// rendering of nib's PDF of it (glyphs at their exact places) went from SSIM 0.9752 to 0.9630;
/// with sixteenths 0.9761. Down, quarters score as exact positions do (0.9761 with 1/64).
const SUBPIXELS: (f32, f32) = (16.0, 4.0);

/// The largest em, in pixels, drawn from masks (Skia's glyph cache stops at 256 too). A mask
/// covers the whole glyph however little of it is on the picture: a 2,048 px heading at scale
/// 8 made masks of 260 MB where filling its outlines, clipped to the picture, needs none.
const MAX_MASK_EM: f32 = 256.0;

/// Most bytes of glyph coverage kept per render; past it, glyphs are drawn without being kept.
const MAX_KEPT_BYTES: usize = 4 << 20;

/// The coverage of a glyph at one scale and subpixel position.
struct GlyphMask {
    /// Where the mask's top-left pixel lies from the glyph's whole-pixel origin.
    offset: (i32, i32),
    mask: Mask,
}

/// What decides a glyph's coverage: the glyph's outline (the text engine's one allocation of
/// it, by address: the cache holds it, so no other outline takes that address while the key
/// lives; a font id alone names another face in another engine's database), its scale (em →
/// pixels, exact bits) and the part of a pixel its origin falls on (see [`SUBPIXELS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct GlyphKey {
    outline: usize,
    scale: (u32, u32),
    place: (u8, u8),
}

/// A kept coverage and the outline its key names.
type KeptGlyph = (Arc<GlyphOutline>, Option<Arc<GlyphMask>>);

/// Glyph coverages drawn, shared by the bands painting a render and kept with a picture for
/// the next one.
#[derive(Default)]
pub(crate) struct GlyphCache {
    /// By key; no mask for a glyph that covers no pixel.
    masks: Mutex<HashMap<GlyphKey, KeptGlyph>>,
    kept_bytes: std::sync::atomic::AtomicUsize,
    /// How many glyphs were rasterised (not found kept).
    rasterized: std::sync::atomic::AtomicUsize,
}

impl GlyphCache {
    /// The coverage of `glyph` under `scale`, its origin at `place` (parts of a pixel): kept,
    /// or drawn now (and kept while there is room).
    fn mask(
        &self,
        surface: &Surface,
        glyph: &PlacedGlyph<'_>,
        scale: (f32, f32),
        place: (u8, u8),
    ) -> Option<Arc<GlyphMask>> {
        let outline = Arc::as_ptr(glyph.outline) as usize;
        let key = GlyphKey { outline, scale: (scale.0.to_bits(), scale.1.to_bits()), place };
        if let Some((_, found)) = self.masks.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return found.clone();
        }
        use std::sync::atomic::Ordering::Relaxed;
        self.rasterized.fetch_add(1, Relaxed);
        let drawn = rasterize(glyph, scale, place).map(Arc::new);
        let bytes = drawn.as_ref().map_or(0, |m| m.mask.data().len()) + std::mem::size_of::<(GlyphKey, KeptGlyph)>();
        if self.kept_bytes.load(Relaxed) + bytes <= MAX_KEPT_BYTES && surface.keep(bytes as u64) {
            self.kept_bytes.fetch_add(bytes, Relaxed);
            let kept = (Arc::clone(glyph.outline), drawn.clone());
            self.masks.lock().unwrap_or_else(PoisonError::into_inner).insert(key, kept);
        }
        drawn
    }

    /// How many glyphs were rasterised rather than found kept.
    #[cfg(test)]
    pub(crate) fn rasterized(&self) -> usize {
        self.rasterized.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The coverage of `glyph`'s outline scaled by `scale`, its origin `place` parts of a pixel past a
/// whole pixel (see [`SUBPIXELS`]).
fn rasterize(glyph: &PlacedGlyph<'_>, scale: (f32, f32), place: (u8, u8)) -> Option<GlyphMask> {
    let placed = Transform::from_row(
        scale.0,
        0.0,
        0.0,
        scale.1,
        f32::from(place.0) / SUBPIXELS.0,
        f32::from(place.1) / SUBPIXELS.1,
    );
    let path = glyph.outline.path.as_ref()?;
    let bounds = path.bounds().transform(placed)?;
    let (left, top) = (bounds.left().floor(), bounds.top().floor());
    let (width, height) = ((bounds.right().ceil() - left) as u32, (bounds.bottom().ceil() - top) as u32);
    let mut mask = Mask::new(width, height)?;
    let commands = mask_commands(path, placed.post_translate(-left, -top));
    GLYPH_SCRATCH.with_borrow_mut(|scratch| {
        zeno::Mask::with_scratch(&commands[..], scratch).size(width, height).render_into(mask.data_mut(), None);
    });
    Some(GlyphMask { offset: (left as i32, top as i32), mask })
}

thread_local! {
    /// The rasterizer's working memory, kept by each thread that draws glyphs.
    static GLYPH_SCRATCH: std::cell::RefCell<zeno::Scratch> = std::cell::RefCell::new(zeno::Scratch::new());
}

/// `path` moved by `transform` into the mask's pixels, as the rasterizer's commands. The
/// rasterizer takes no transform of its own here, so each point is placed exactly as
/// tiny-skia places it.
fn mask_commands(path: &tiny_skia::Path, transform: Transform) -> Vec<zeno::Command> {
    use tiny_skia::PathSegment;
    let at = |mut point: tiny_skia::Point| {
        transform.map_point(&mut point);
        zeno::Vector::new(point.x, point.y)
    };
    path.segments()
        .map(|segment| match segment {
            PathSegment::MoveTo(p) => zeno::Command::MoveTo(at(p)),
            PathSegment::LineTo(p) => zeno::Command::LineTo(at(p)),
            PathSegment::QuadTo(c, p) => zeno::Command::QuadTo(at(c), at(p)),
            PathSegment::CubicTo(c1, c2, p) => zeno::Command::CurveTo(at(c1), at(c2), at(p)),
            PathSegment::Close => zeno::Command::Close,
        })
        .collect()
}

/// Draws the glyphs of `run` (placed in its node by `transform`, node → device) in `color`
/// on `surface`; false, drawing nothing, when the run is not plain text placed by scale and
/// translation (see the module).
pub(crate) fn draw_glyphs(
    surface: &mut Surface,
    run: &TextRun,
    transform: Transform,
    color: Color,
    cache: &GlyphCache,
) -> bool {
    let in_node = transform.pre_translate(run.at.0, run.at.1);
    let plain = |t: &Transform| {
        t.kx == 0.0 && t.ky == 0.0 && t.sx > 0.0 && t.sy > 0.0 && t.sx.max(t.sy) <= MAX_MASK_EM && t.is_finite()
    };
    // Placed once (a glyph's place is worked out line by line), checked, then drawn.
    let glyphs: Vec<(Transform, PlacedGlyph<'_>)> =
        run.glyphs().map(|glyph| (in_node.pre_concat(glyph.transform), glyph)).collect();
    if !glyphs.iter().all(|(device, _)| plain(device)) {
        return false;
    }
    for (device, glyph) in glyphs {
        let (x, part_x) = on_subpixels(device.tx, SUBPIXELS.0);
        let (y, part_y) = on_subpixels(device.ty, SUBPIXELS.1);
        let Some(mask) = cache.mask(surface, &glyph, (device.sx, device.sy), (part_x, part_y)) else { continue };
        let (width, height) = (mask.mask.width(), mask.mask.height());
        let Some(area) =
            IntRect::from_xywh(x.saturating_add(mask.offset.0), y.saturating_add(mask.offset.1), width, height)
        else {
            continue;
        };
        if area.intersect(&surface.area).is_some() {
            surface.draw_color(color, &mask.mask, area, BlendMode::SourceOver);
        }
    }
    true
}

/// `v` as a whole pixel and the number of `parts`-ths of a pixel past it, rounded to the
/// nearest.
fn on_subpixels(v: f32, parts: f32) -> (i32, u8) {
    let steps = (f64::from(v) * f64::from(parts)).round();
    // Pictures are at most a few hundred thousand pixels across: far inside i32.
    let steps = steps.clamp(f64::from(i32::MIN / 32), f64::from(i32::MAX / 32)) as i64;
    let parts = parts as i64;
    (steps.div_euclid(parts) as i32, steps.rem_euclid(parts) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::{Content, DisplayList};
    use tiny_skia::FillRule;

    /// A page holding one line of 14 px text.
    fn page() -> DisplayList {
        super::super::tests::list_of_page(
            r##"{"version": "2.10", "children": [{"type": "frame", "id": "page", "width": 320, "height": 40, "layout": "none",
                "children": [{"type": "text", "id": "t", "x": 0, "y": 0, "fontSize": 14, "fill": "#000000",
                              "content": "Sphinx of black quartz, judge my vow"}]}]}"##,
        )
    }

    fn run_of(list: &DisplayList) -> &TextRun {
        (0..list.len())
            .find_map(|index| match &list.node(index).content {
                Content::Text(run) => Some(run),
                _ => None,
            })
            .expect("a text run")
    }

    fn surface() -> Surface<'static> {
        Surface::new(IntRect::from_xywh(0, 0, 340, 40).expect("an area")).expect("a surface")
    }

    fn alphas(surface: &Surface) -> Vec<u8> {
        surface.pixmap.data().chunks_exact(4).map(|pixel| pixel[3]).collect()
    }

    #[test]
    fn glyphs_land_where_their_outlines_are() {
        let list = page();
        let run = run_of(&list);
        let placed = Transform::from_translate(10.3, 5.6);
        let mut glyphs = surface();
        assert!(draw_glyphs(&mut glyphs, run, placed, Color::BLACK, &GlyphCache::default()));
        let mut outlines = surface();
        let paint = tiny_skia::Paint { shader: tiny_skia::Shader::SolidColor(Color::BLACK), ..Default::default() };
        for path in run.paths() {
            outlines.pixmap.as_mut().fill_path(&path, &paint, FillRule::Winding, placed, None);
        }
        let (ours, theirs) = (alphas(&glyphs), alphas(&outlines));
        let ink = |alphas: &[u8]| alphas.iter().map(|&a| u64::from(a)).sum::<u64>();
        let (a, b) = (ink(&ours), ink(&theirs));
        assert!(b > 100_000, "the outlines drew the text ({b})");
        assert!(a.abs_diff(b) * 50 < b, "as much ink: {a} against {b}");
        // Each glyph moves by an eighth of a pixel at most: edges change, no glyph moves.
        let differ: u64 = ours.iter().zip(&theirs).map(|(x, y)| u64::from(x.abs_diff(*y))).sum();
        assert!(differ * 4 < b, "{differ} levels apart over {b}");
        assert!(ours.iter().zip(&theirs).all(|(x, y)| x.abs_diff(*y) <= 160));
    }

    #[test]
    fn the_same_text_a_whole_number_of_pixels_away_is_the_same_pixels_from_kept_glyphs() {
        let list = page();
        let run = run_of(&list);
        let cache = GlyphCache::default();
        let mut first = surface();
        assert!(draw_glyphs(&mut first, run, Transform::from_translate(2.3, 1.6), Color::BLACK, &cache));
        let kept = cache.masks.lock().expect("the cache").len();
        assert!(kept > 10, "{kept} glyphs kept");
        let mut moved = surface();
        assert!(draw_glyphs(&mut moved, run, Transform::from_translate(9.3, 4.6), Color::BLACK, &cache));
        assert_eq!(cache.masks.lock().expect("the cache").len(), kept, "every glyph was kept from the first");
        let (a, b) = (alphas(&first), alphas(&moved));
        for y in 0..33 {
            for x in 0..330 {
                assert_eq!(a[y * 340 + x], b[(y + 3) * 340 + x + 7], "({x}, {y})");
            }
        }
    }

    /// A repaint draws the text over an edited box from the glyphs the picture before kept
    /// (none rasterised again), with a full paint's bytes — when the text engine is the same
    /// (a server's compiler keeps one through a document's revisions). With another engine its
    /// outlines are others: every glyph is rasterised again, the bytes still a full paint's.
    #[test]
    fn a_repaint_draws_its_text_from_the_glyphs_the_picture_before_kept() {
        use crate::render::{Damage, RenderOptions, paint, paint_after};
        use crate::text::{FontBook, FontOptions, TextEngine};
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let page = |fill: &str, engine: &mut TextEngine| {
            crate::render::tests::list_of_page_with(
                &format!(
                    r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 320, "height": 120,
                    "layout": "none", "fill": "#FFFFFF", "children": [
                    {{"type": "rectangle", "id": "box", "x": 4, "y": 4, "width": 300, "height": 60, "fill": "{fill}"}},
                    {{"type": "text", "id": "label", "x": 12, "y": 14, "fontSize": 18, "fill": "#111827",
                      "content": "Glyphs kept from the picture before"}}]}}]}}"##
                ),
                engine,
            )
        };
        let options = RenderOptions::default();
        let (first, _) = paint_after(page("#E0E7FF", &mut engine), &options, None).expect("paints");
        let drawn = first.glyphs.rasterized();
        assert!(drawn > 20, "{drawn} glyphs rasterised");
        let list = page("#FDE68A", &mut engine);
        let full = paint(&list, &options).expect("paints");
        let (second, damage) = paint_after(list, &options, Some(first)).expect("repaints");
        assert!(matches!(damage, Damage::Area(_)), "{damage:?}");
        assert!(second.rendered().pixmap.data() == full.pixmap.data(), "not the full paint's bytes");
        assert_eq!(second.glyphs.rasterized(), drawn, "a glyph was rasterised again");
        let mut other = TextEngine::new(FontBook::new(FontOptions::default()));
        let list = page("#BBF7D0", &mut other);
        let full = paint(&list, &options).expect("paints");
        let (third, _) = paint_after(list, &options, Some(second)).expect("repaints");
        assert!(third.rendered().pixmap.data() == full.pixmap.data(), "not the full paint's bytes");
        assert_eq!(third.glyphs.rasterized(), 2 * drawn, "another engine's glyphs were taken for kept ones");
    }

    #[test]
    fn turned_mirrored_or_huge_text_is_left_to_the_outlines() {
        let list = page();
        let run = run_of(&list);
        for placed in [
            Transform::from_rotate(10.0),
            Transform::from_row(1.0, 0.0, 0.2, 1.0, 0.0, 0.0),
            Transform::from_scale(-1.0, 1.0),
            Transform::from_translate(f32::NAN, 0.0),
            // An em past the largest drawn from masks.
            Transform::from_scale(MAX_MASK_EM / 14.0 + 0.1, MAX_MASK_EM / 14.0 + 0.1),
        ] {
            let mut untouched = surface();
            assert!(!draw_glyphs(&mut untouched, run, placed, Color::BLACK, &GlyphCache::default()), "{placed:?}");
            assert!(alphas(&untouched).iter().all(|&a| a == 0));
        }
    }

    /// Odd outlines a font may hold: crossing contours, a cubic, an open contour, a point, a
    /// sliver, a glyph reaching far past its em. Each mask has about the ink tiny-skia's fill of
    /// the same outline has, and nothing panics.
    #[test]
    fn odd_outlines_make_masks_with_the_ink_of_their_fill() {
        let path = |build: &dyn Fn(&mut tiny_skia::PathBuilder)| {
            let mut builder = tiny_skia::PathBuilder::new();
            build(&mut builder);
            builder.finish()
        };
        let outlines = [
            // A five-pointed star drawn in one crossing contour: its middle is filled once.
            path(&|b| {
                let points: Vec<(f32, f32)> = (0..5)
                    .map(|i| {
                        let angle = (i as f32 * 144.0 - 90.0).to_radians();
                        (0.5 + 0.45 * angle.cos(), 0.5 + 0.45 * angle.sin())
                    })
                    .collect();
                b.move_to(points[0].0, points[0].1);
                points[1..].iter().for_each(|p| b.line_to(p.0, p.1));
                b.close();
            }),
            path(&|b| {
                b.move_to(0.1, 0.9);
                b.cubic_to(0.1, -0.2, 0.9, -0.2, 0.9, 0.9);
                b.close();
            }),
            // Left open: filled as if closed.
            path(&|b| {
                b.move_to(0.1, 0.1);
                b.line_to(0.9, 0.1);
                b.line_to(0.5, 0.8);
            }),
            path(&|b| {
                b.move_to(0.5, 0.5);
                b.line_to(0.5, 0.5);
                b.close();
            }),
            path(&|b| b.push_rect(tiny_skia::Rect::from_xywh(0.2, 0.0, 0.001, 1.0).expect("a rect"))),
            path(&|b| b.push_rect(tiny_skia::Rect::from_xywh(-3.0, -2.0, 7.0, 5.0).expect("a rect"))),
        ];
        for (index, outline) in outlines.into_iter().enumerate() {
            let outline = Arc::new(GlyphOutline { path: outline });
            let glyph =
                PlacedGlyph { key: (fontdb::ID::dummy(), 0, 400), outline: &outline, transform: Transform::identity() };
            for (scale, place) in
                [((14.0, 14.0), (0, 0)), ((14.0, 14.0), (7, 3)), ((MAX_MASK_EM, MAX_MASK_EM), (15, 1))]
            {
                let Some(drawn) = rasterize(&glyph, scale, place) else { continue };
                let path = outline.path.as_ref().expect("an outline");
                let placed = Transform::from_row(
                    scale.0,
                    0.0,
                    0.0,
                    scale.1,
                    f32::from(place.0) / SUBPIXELS.0 - drawn.offset.0 as f32,
                    f32::from(place.1) / SUBPIXELS.1 - drawn.offset.1 as f32,
                );
                let mut filled = Mask::new(drawn.mask.width(), drawn.mask.height()).expect("a mask");
                filled.fill_path(path, FillRule::Winding, true, placed);
                let ink = |mask: &Mask| mask.data().iter().map(|&a| u64::from(a)).sum::<u64>();
                let (ours, theirs) = (ink(&drawn.mask), ink(&filled));
                // A twentieth, or a few pixels' worth for outlines of almost no area.
                assert!(
                    ours.abs_diff(theirs) <= (theirs / 20).max(3 * 255),
                    "outline {index} at {scale:?}: {ours} against {theirs}"
                );
            }
        }
    }

    #[test]
    fn origins_fall_on_the_nearest_part_of_a_pixel() {
        assert_eq!(on_subpixels(10.0, 4.0), (10, 0));
        assert_eq!(on_subpixels(10.1, 4.0), (10, 0));
        assert_eq!(on_subpixels(10.2, 4.0), (10, 1));
        assert_eq!(on_subpixels(10.5, 4.0), (10, 2));
        assert_eq!(on_subpixels(10.9, 4.0), (11, 0));
        assert_eq!(on_subpixels(-0.3, 4.0), (-1, 3));
        assert_eq!(on_subpixels(-0.1, 4.0), (0, 0));
        assert_eq!(on_subpixels(10.2, 16.0), (10, 3));
        assert_eq!(on_subpixels(-0.05, 16.0), (-1, 15));
        assert_eq!(on_subpixels(f32::NAN, 16.0), (0, 0));
    }
}
