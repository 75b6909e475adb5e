//! Painting a tall picture in horizontal bands, one task each on the rayon pool, so that every
//! core paints paths too, not only the fills, composites and blurs that already run by rows
//! (a heavy 1440 × 900 frame on two cores: a tenth to a third off its paint, DECISIONS).
//!
//! Each band is painted on its own rows of the picture, in place, by the nodes whose bounds
//! reach it (the rest are left out as a repaint leaves them out).
//! Nothing a band paints depends on how many cores there are: the bands are cut by the
//! picture (its height, its nodes) alone, so the bytes are the same on every machine. Drop and
//! inner shadows spread beyond their shape: they are worked out over their whole extent in
//! every band they reach (the surface's `extent`), so a band computes them as one whole picture
//! does and no seam shows where bands meet (the coverage is shared between bands, see
//! [`super::effects::ShadowCache`]). A background blur reads what is painted beneath it, which
//! could lie in another band, and a layer blur spreads what it blurs: no band's edge cuts
//! through either (an edge is moved above or below them, see [`bands`]), so each is painted
//! whole within one band.
//!
//! Against a whole paint, a band below the first places its paths relative to its own top
//! edge, and a path crossing a band's edge is cut there: an anti-aliased edge can then fall on
//! the other side of one of the four sub-rows tiny-skia samples a pixel with (DECISIONS,
//! Rendering).

use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use tiny_skia::{IntRect, Transform};

use super::effects::device_sigma;
use super::kept::Kept;
use super::memory::Account;
use super::painter::{Cull, Painter};
use super::shared_shadows::{BandPart, work_out_shared_shadows};
use super::surface::Surface;
use super::timings::PaintTimings;
use super::{RenderError, RenderOptions, memory_error};
use crate::display::DisplayList;

/// A band has at least this many rows: with bands of 230 rows (four for a 920-row frame) the
/// nodes every band paints again (those across a band's edge) took what the cores gained.
const MIN_BAND_ROWS: u32 = 400;

/// At most this many bands: enough for the pool to balance uneven bands on a few cores.
const MAX_BANDS: u32 = 8;

/// A list of fewer nodes is painted whole: a band's own surface and the copy of its rows cost
/// about what a few nodes take to paint (Apple-style `6LMCW`, one node: 0.8 → 1.2 ms in bands).
const MIN_BAND_NODES: usize = 32;

/// The bands `area` (the whole picture, `device` placing the list in it) is painted in, top
/// to bottom: one when the picture is short or `list` has few nodes. A blur reads and spreads
/// pixels across its rows, so no band edge cuts through one: an edge that would is moved to
/// the nearest row above or below the blurs it meets, and left out when that makes a band
/// shorter than half [`MIN_BAND_ROWS`].
pub(crate) fn bands(list: &DisplayList, area: IntRect, device: Transform) -> Vec<IntRect> {
    let count = (area.height() / MIN_BAND_ROWS).clamp(1, MAX_BANDS);
    if count == 1 || list.len() < MIN_BAND_NODES {
        return vec![area];
    }
    let blurs = blurred_rows(list, device, area);
    let height = area.height() as i32;
    let shortest = (MIN_BAND_ROWS / 2) as i32;
    let mut edges = vec![0];
    for band in 1..count {
        let wanted = (area.height() * band / count) as i32;
        let last = edges[edges.len() - 1];
        // Where the edge may go, best first: the row wanted, or the nearer side of the blur it
        // falls in; the first that leaves both bands long enough.
        let rows = match blurs.iter().find(|(top, bottom)| *top < wanted && wanted < *bottom) {
            None => [wanted, wanted],
            Some(&(top, bottom)) if wanted - top <= bottom - wanted => [top, bottom],
            Some(&(top, bottom)) => [bottom, top],
        };
        if let Some(edge) = rows.into_iter().find(|&row| row - last >= shortest && height - row >= shortest) {
            edges.push(edge);
        }
    }
    edges.push(height);
    edges
        .windows(2)
        .filter_map(|pair| IntRect::from_xywh(area.x(), area.y() + pair[0], area.width(), (pair[1] - pair[0]) as u32))
        .collect()
}

/// The rows of the picture (from its top) each blur of `list` reads or spreads over, merged
/// where they overlap, in order: a layer blur's subtree grown by the blur's reach, and a
/// background blur's shape (it blurs the backdrop within its own shape alone), a pixel more on
/// each side.
fn blurred_rows(list: &DisplayList, device: Transform, area: IntRect) -> Vec<(i32, i32)> {
    let blurred = |index| {
        let effects = &list.node(index).effects;
        effects.background_blur > 0.0 || effects.layer_blur > 0.0
    };
    // Most pictures hold none: no walk to place every node.
    if !(0..list.len()).any(blurred) {
        return Vec::new();
    }
    let mut spans: Vec<(i32, i32)> = Vec::new();
    let mut todo: Vec<(usize, Transform, bool)> = list.roots().iter().map(|&root| (root, device, true)).collect();
    while let Some((index, parent, as_target)) = todo.pop() {
        let node = list.node(index);
        let transform = list.transform(index, parent, as_target);
        let effects = &node.effects;
        // Rows from the picture's top, kept within a row of it (NaN and huge bounds too).
        let row = |y: f32| (y - area.y() as f32).clamp(-1.0, area.height() as f32 + 1.0) as i32;
        let mut span = |bounds: tiny_skia::Rect, reach: f32| {
            spans.push((row((bounds.top() - reach).floor()), row((bounds.bottom() + reach).ceil())));
        };
        if effects.layer_blur > 0.0 {
            // It spreads its whole subtree, which is all in the span.
            let reach = 3.0 * device_sigma(effects.layer_blur, transform) + 2.0;
            if let Some(bounds) = list.subtree_bounds(index, transform) {
                span(bounds, reach);
            }
            continue;
        }
        // A background blur reads and writes the backdrop within its own shape alone (see
        // `effects::background_blur`); its shadow and children are painted as any node's.
        if effects.background_blur > 0.0
            && let Some(bounds) = node.shape.as_ref().and_then(|shape| shape.path.bounds().transform(transform))
        {
            span(bounds, 2.0);
        }
        todo.extend(node.children.iter().map(|&child| (child, transform, false)));
    }
    spans.sort_unstable();
    let mut merged: Vec<(i32, i32)> = Vec::with_capacity(spans.len());
    for (top, bottom) in spans {
        match merged.last_mut() {
            Some(last) if top <= last.1 => last.1 = last.1.max(bottom),
            _ => merged.push((top, bottom)),
        }
    }
    merged
}

/// What painting one band gave.
#[derive(Default)]
struct Band {
    /// The node being painted when the memory ran out.
    memory_node: Option<String>,
    /// Where the band's time went, when measured, and the band's whole paint.
    timings: Option<(PaintTimings, Duration)>,
}

/// What a picture is painted with, whole or band by band.
pub(crate) struct Picture<'a> {
    pub list: &'a DisplayList,
    pub options: &'a RenderOptions,
    pub account: &'a Arc<Account>,
    /// The target → the picture's pixels.
    pub device: Transform,
    /// The whole picture.
    pub area: IntRect,
    /// The shadows and glyphs drawn so far, by any band.
    pub kept: &'a Kept,
}

/// What names a render that ran out of memory before any node did.
pub(crate) const THE_PICTURE: &str = "(the picture itself)";

impl Picture<'_> {
    /// Paints the roots on `surface` (its background first), leaving out what `cull` says;
    /// the node being painted when the memory ran out, if it did.
    pub(crate) fn paint_on(
        &self,
        surface: &mut Surface<'_>,
        cull: Option<Cull<'_>>,
        timings: Option<&mut PaintTimings>,
    ) -> Option<String> {
        if let Some([r, g, b, a]) = self.options.background {
            surface.pixmap.as_mut().fill(tiny_skia::Color::from_rgba8(r, g, b, a));
        }
        let mut painter = Painter {
            list: self.list,
            mark_missing: self.options.mark_missing,
            kept: self.kept,
            memory: Arc::clone(self.account),
            memory_node: None,
            cull,
            whole: 0,
            timings,
            untouched: self.options.background.is_none(),
        };
        for &root in self.list.roots() {
            painter.paint(surface, root, self.device, true);
        }
        painter.memory_node.take()
    }
}

/// Paints `picture` in `bands` on a surface of the whole picture, each band leaving out the
/// nodes that do not reach it (and, with `cull`, those that do not reach the damage: the rows
/// outside it are then left transparent).
pub(crate) fn paint_in_bands(
    picture: &Picture<'_>,
    bands: &[IntRect],
    cull: Option<&Cull<'_>>,
    timings: Option<&mut PaintTimings>,
) -> Result<Surface<'static>, RenderError> {
    let Picture { list, account, area, .. } = *picture;
    let (width, height) = (u64::from(area.width()), u64::from(area.height()));
    let Some(mut surface) = Surface::within(area, account) else {
        return Err(memory_error(account, THE_PICTURE.to_owned(), width, height));
    };
    let own_bounds;
    let bounds = match cull {
        Some(cull) => cull.bounds,
        None => {
            own_bounds = super::damage::subtree_bounds(list, picture.device);
            &own_bounds
        }
    };
    // The picture's rows, cut where the bands are cut: each band writes only its own.
    let stride = area.width() as usize * 4;
    let mut rows = Vec::with_capacity(bands.len());
    let mut rest = surface.pixmap.data_mut();
    for band in bands {
        let (these, after) = rest.split_at_mut((band.height() as usize * stride).min(rest.len()));
        rows.push(these);
        rest = after;
    }
    let measure = timings.is_some();
    let started = Instant::now();
    // The shadows several bands draw first, once.
    let parts: Vec<BandPart> = bands
        .iter()
        .filter_map(|band| {
            let wanted = match cull {
                Some(cull) => cull.rect.intersect(&band.to_rect())?,
                None => band.to_rect(),
            };
            Some(BandPart { rows: *band, wanted })
        })
        .collect();
    if let Err(node) = work_out_shared_shadows(picture, &parts, bounds) {
        return Err(memory_error(account, node, width, height));
    }
    let shared = started.elapsed();
    let painted: Vec<Band> = bands
        .par_iter()
        .zip(rows.into_par_iter())
        .enumerate()
        .map(|(index, (band, rows))| {
            let wanted = match cull {
                Some(cull) => cull.rect.intersect(&band.to_rect()),
                None => Some(band.to_rect()),
            };
            match wanted {
                Some(rect) => super::memory::as_band(account, index, || {
                    paint_band(picture, *band, Cull { rect, bounds }, rows, measure)
                }),
                None => Band::default(),
            }
        })
        .collect();
    if let Some(timings) = timings {
        timings.shadows += shared;
        merge_timings(timings, &painted, started.elapsed() - shared);
    }
    if account.failed() {
        let node = painted.into_iter().find_map(|band| band.memory_node);
        return Err(memory_error(account, node.unwrap_or_else(|| THE_PICTURE.to_owned()), width, height));
    }
    Ok(surface)
}

/// Paints `band` of `picture` into its `rows`, leaving out what `cull` says.
fn paint_band(picture: &Picture<'_>, band: IntRect, cull: Cull<'_>, rows: &mut [u8], measure: bool) -> Band {
    let started = Instant::now();
    // The rows are cut to the band's size above: a surface over them is always made.
    let Some(mut surface) = Surface::rows(rows, band, picture.area, picture.account) else {
        return Band::default();
    };
    let mut timings = measure.then(PaintTimings::default);
    let memory_node = picture.paint_on(&mut surface, Some(cull), timings.as_mut());
    Band { memory_node, timings: timings.map(|timings| (timings, started.elapsed())) }
}

/// Adds the bands' time by kind to `timings`, as shares of the `wall` time the bands took
/// together (they ran at once: their own times add up to more than the paint took).
fn merge_timings(timings: &mut PaintTimings, bands: &[Band], wall: Duration) {
    let measured: Vec<&(PaintTimings, Duration)> = bands.iter().filter_map(|band| band.timings.as_ref()).collect();
    let spent: Duration = measured.iter().map(|(_, spent)| *spent).sum();
    if spent.is_zero() {
        return;
    }
    let share = wall.as_secs_f64() / spent.as_secs_f64();
    let scaled = |kind: fn(&PaintTimings) -> Duration| {
        Duration::from_secs_f64(measured.iter().map(|(band, _)| kind(band).as_secs_f64()).sum::<f64>() * share)
    };
    timings.text += scaled(|t| t.text);
    timings.blur += scaled(|t| t.blur);
    timings.shadows += scaled(|t| t.shadows);
    timings.images += scaled(|t| t.images);
    timings.gradients += scaled(|t| t.gradients);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::memory;

    /// A 480 × 900 page of 36 cards casting shadows, in rows across the bands' edge at 450;
    /// each card holds `inside`.
    fn page(inside: &str) -> DisplayList {
        let cards: Vec<String> = (0..36)
            .map(|i| {
                let (x, y) = (15 + (i % 3) * 155, 12 + (i / 3) * 73 + (i % 3) * 9);
                format!(
                    r##"{{"type": "frame", "id": "c{i}", "x": {x}, "y": {y}, "width": 140, "height": 60, "fill": "#FFFFFF", "layout": "none",
                        "effect": {{"type": "shadow", "shadowType": "outer", "color": "#00000066", "offset": {{"x": 0, "y": 5}}, "blur": 14, "spread": 1}},
                        "children": [{}]}}"##,
                    inside.replace("ID", &format!("c{i}"))
                )
            })
            .collect();
        let text = format!(
            r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 480, "height": 900, "layout": "none",
                "fill": "#EEF2F7", "children": [{}]}}]}}"##,
            cards.join(",")
        );
        crate::render::tests::list_of_page(&text)
    }

    /// The page's place in its picture.
    fn device(list: &DisplayList) -> Transform {
        Transform::from_translate(-list.bounds.left(), -list.bounds.top())
    }

    /// The page painted in `bands` (its whole area when none are given), premultiplied RGBA.
    fn painted(list: &DisplayList, bands: Option<&[IntRect]>) -> Vec<u8> {
        let area = IntRect::from_xywh(0, 0, 480, 900).expect("an area");
        let account = memory::pool().open();
        let kept = Kept::default();
        let options = RenderOptions::default();
        let device = device(list);
        let picture = Picture { list, options: &options, account: &account, device, area, kept: &kept };
        let whole = [area];
        paint_in_bands(&picture, bands.unwrap_or(&whole), None, None).expect("paints").pixmap.data().to_vec()
    }

    /// Cards and their shadows on whole pixels, across the bands' edge: the bands paint the
    /// whole picture's bytes — the shadows are worked out over their whole extent in each
    /// band, so nothing shows where the bands meet.
    #[test]
    fn shadows_across_a_bands_edge_are_painted_as_in_the_whole_picture() {
        let list = page(
            r##"{"type": "rectangle", "id": "ID-bar", "x": 10, "y": 20, "width": 90, "height": 12, "fill": "#6366F1"}"##,
        );
        let bands = bands(&list, IntRect::from_xywh(0, 0, 480, 900).expect("an area"), device(&list));
        assert_eq!(bands.len(), 2);
        assert!(painted(&list, Some(&bands)) == painted(&list, None), "the bands' picture differs from the whole one");
    }

    /// Text in bands below the first is placed from the band's top edge, and a glyph across
    /// the edge is cut there: its anti-aliased edges may fall on another of the four sub-rows
    /// a pixel is sampled with. Only a few pixels of the edges, by at most that sub-row.
    #[test]
    fn text_in_bands_differs_from_the_whole_picture_at_a_few_edge_pixels_at_most() {
        let list = page(
            r##"{"type": "text", "id": "ID-t", "x": 9.3, "y": 8.6, "width": 120, "textGrowth": "fixed-width", "fontSize": 13,
                "fill": "#111827", "content": "Two lines of text that wrap inside the card"}"##,
        );
        let bands = bands(&list, IntRect::from_xywh(0, 0, 480, 900).expect("an area"), device(&list));
        assert_eq!(bands.len(), 2);
        let (cut, whole) = (painted(&list, Some(&bands)), painted(&list, None));
        let differing = cut.chunks_exact(4).zip(whole.chunks_exact(4)).filter(|(a, b)| a != b).count();
        let most = cut.iter().zip(&whole).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
        let inked = whole.chunks_exact(4).filter(|p| p[0] < 0xC0).count();
        assert!(inked > 5_000, "the cards' text is drawn ({inked} dark pixels)");
        assert!(differing * 1000 <= inked, "{differing} pixels differ of {inked} inked");
        assert!(most <= 64, "a pixel differs by {most} levels, more than a sub-row's coverage");
    }

    /// Memory refused to one band is named there: the other band, painting its own nodes
    /// meanwhile, finds the render stopped and names none of them (it named one of its dots
    /// when any band named the node it was on).
    #[test]
    fn the_node_named_when_memory_runs_out_is_the_one_whose_band_asked() {
        let dots: Vec<String> = (0..40)
            .map(|i| format!(r##"{{"type": "text", "id": "d{i}", "x": {}, "y": {}, "fontSize": 11, "fill": "#111827", "content": "Dot number {i}"}}"##, 10 + (i % 5) * 90, 10 + (i / 5) * 40))
            .collect();
        let list = crate::render::tests::list_of_page(&format!(
            r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 480, "height": 900, "layout": "none",
                "fill": "#EEF2F7", "children": [{}, {{"type": "frame", "id": "group", "x": 10, "y": 500, "width": 460, "height": 350,
                "opacity": 0.5, "fill": "#6366F1", "layout": "none", "children": [{{"type": "rectangle", "id": "inside",
                "width": 40, "height": 40, "fill": "#FFFFFF"}}]}}]}}]}}"##,
            dots.join(",")
        ));
        let area = IntRect::from_xywh(0, 0, 480, 900).expect("an area");
        let cut = bands(&list, area, device(&list));
        assert_eq!(cut.len(), 2);
        let picture_bytes = 480 * 900 * memory::LAYER_BYTES_PER_PIXEL;
        for attempt in 0..20 {
            let pool: &'static memory::Pool = Box::leak(Box::new(memory::Pool::new(picture_bytes + 50_000)));
            let account = pool.open();
            let (kept, options) = (Kept::default(), RenderOptions::default());
            let picture =
                Picture { list: &list, options: &options, account: &account, device: device(&list), area, kept: &kept };
            match paint_in_bands(&picture, &cut, None, None) {
                Err(RenderError::Memory { node, .. }) => assert_eq!(node, "group", "attempt {attempt}"),
                Err(other) => panic!("another error: {other}"),
                Ok(_) => panic!("painted within a pool smaller than the group's layer"),
            }
        }
    }

    /// A background blur reads and writes the backdrop within its own shape: its shadow and a
    /// child hanging out below it are painted as any node's, so the edge stays where it is
    /// wanted, just below the shape (the whole subtree's rows, shadow and child, pushed it to
    /// row 534), and the bands still paint the whole picture's bytes.
    #[test]
    fn a_background_blur_keeps_off_the_edge_only_the_rows_of_its_shape() {
        let squares: Vec<String> = (0..40)
            .map(|i| format!(r##"{{"type": "rectangle", "id": "s{i}", "x": {}, "y": {}, "width": 20, "height": 20, "fill": "#1F2937"}}"##, 10 + (i % 4) * 30, i * 22))
            .collect();
        let list = crate::render::tests::list_of_page(&format!(
            r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 480, "height": 900, "layout": "none",
                "fill": "#EEF2F7", "children": [{}, {{"type": "frame", "id": "glass", "x": 40, "y": 300, "width": 400, "height": 140,
                "layout": "none", "fill": "#FFFFFF80", "effect": [{{"type": "background_blur", "radius": 12}},
                {{"type": "shadow", "shadowType": "outer", "color": "#00000055", "offset": {{"x": 0, "y": 30}}, "blur": 40}}],
                "children": [{{"type": "rectangle", "id": "tab", "x": 20, "y": 120, "width": 80, "height": 60, "fill": "#6366F1"}}]}}]}}]}}"##,
            squares.join(",")
        ));
        let tall = IntRect::from_xywh(0, 0, 480, 900).expect("an area");
        let cut = bands(&list, tall, device(&list));
        assert_eq!(cut.len(), 2);
        assert_eq!(cut[0].bottom(), 450, "the edge moved off the blur's shape (rows 300–440) to {}", cut[0].bottom());
        assert!(painted(&list, Some(&cut)) == painted(&list, None), "the bands' picture differs from the whole one");
    }

    /// The bands depend on the picture alone: its height, its nodes, its blurs.
    #[test]
    fn bands_are_cut_by_the_picture_alone() {
        let list = page("");
        let tall = IntRect::from_xywh(0, 0, 480, 900).expect("an area");
        let cut = bands(&list, tall, device(&list));
        assert_eq!(cut.len(), 2);
        assert_eq!((cut[0].top(), cut[0].bottom(), cut[1].top(), cut[1].bottom()), (0, 450, 450, 900));
        let taller = IntRect::from_xywh(0, 0, 480, 3600).expect("an area");
        assert_eq!(bands(&list, taller, device(&list)).len(), MAX_BANDS as usize);
        let short = IntRect::from_xywh(0, 0, 480, 799).expect("an area");
        assert_eq!(bands(&list, short, device(&list)).len(), 1, "short");
    }

    /// A blur reads and spreads pixels across rows: the edge between two bands is moved off
    /// every blur, and the bands then paint the whole picture's bytes. (The cards of the sixth
    /// row start at rows 450, 459 and 468: each holds a blurred square at its top left.)
    #[test]
    fn no_bands_edge_cuts_through_a_blur() {
        let tall = IntRect::from_xywh(0, 0, 480, 900).expect("an area");
        for effect in
            [r#""effect": {"type": "blur", "radius": 4}"#, r#""effect": {"type": "background_blur", "radius": 8}"#]
        {
            let blurred = page(&format!(
                r##"{{"type": "rectangle", "id": "ID-b", "width": 20, "height": 20, "fill": "#6366F180", {effect}}}"##
            ));
            let cut = bands(&blurred, tall, device(&blurred));
            assert_eq!(cut.len(), 2, "{effect}");
            let edge = cut[0].bottom();
            assert!((400..450).contains(&edge), "{effect}: the edge moved above the sixth row's squares, to {edge}");
            assert!(painted(&blurred, Some(&cut)) == painted(&blurred, None), "{effect}: the bands' picture differs");
        }
        // A blur over the whole page leaves no row to cut at.
        let squares: Vec<String> = (0..40)
            .map(|i| format!(r##"{{"type": "rectangle", "id": "s{i}", "x": 10, "y": {}, "width": 20, "height": 20, "fill": "#000000"}}"##, i * 22))
            .collect();
        let frosted = crate::render::tests::list_of_page(&format!(
            r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 480, "height": 900, "layout": "none",
                "fill": "#EEF2F7", "children": [{}, {{"type": "frame", "id": "glass", "width": 480, "height": 900,
                "effect": {{"type": "background_blur", "radius": 8}}}}]}}]}}"##,
            squares.join(",")
        ));
        assert_eq!(bands(&frosted, tall, device(&frosted)).len(), 1);
    }
}
