//! A pixmap covering part of the output, placed at a device offset: layers for opacity, clips,
//! shadows and blurs are only as big as what they hold (DESIGN.md decision 6).

use tiny_skia::{
    BlendMode, Color as SkColor, IntRect, Mask, Path, Pixmap, PixmapMut, PixmapPaint, PixmapRef, PremultipliedColorU8,
    Rect, Transform,
};

use std::sync::Arc;

use super::blend::{Sources, div255, over_pixels, over_scaled};
use super::memory::{Account, LAYER_BYTES_PER_PIXEL, Lease};
use super::rows::each_row;

/// Pixels covering `area` of the device.
pub(crate) struct Surface<'a> {
    pub pixmap: Pixels<'a>,
    /// Where the pixmap's top-left pixel is on the device.
    pub area: IntRect,
    /// What this surface would cover were the picture not painted in bands (see
    /// [`super::bands`]): `area` itself, but for a band and the layers painted into one. A
    /// shadow, whose blur spreads, is worked out over its part of the extent, so that every band
    /// computes it as one whole picture does.
    pub extent: IntRect,
    /// The render's share of the memory pool: layers drawn into this surface take theirs from
    /// it. `None` for surfaces outside a render (tests, tools drawing a small picture).
    memory: Option<Arc<Account>>,
    /// This surface's own memory, given back when it is dropped.
    _lease: Option<Lease>,
}

impl Surface<'static> {
    /// A transparent surface over `area` whose memory and whose layers' come from `memory`;
    /// `None` when it is empty or the memory was refused (the account says why).
    pub fn within(area: IntRect, memory: &Arc<Account>) -> Option<Surface<'static>> {
        let lease = memory.take(u64::from(area.width()) * u64::from(area.height()) * LAYER_BYTES_PER_PIXEL)?;
        let mut surface = Surface::new(area)?;
        surface.memory = Some(Arc::clone(memory));
        surface._lease = Some(lease);
        Some(surface)
    }

    /// A transparent surface over `area`, counted nowhere; `None` when it is empty or too large
    /// to allocate.
    pub fn new(area: IntRect) -> Option<Surface<'static>> {
        let size = tiny_skia::IntSize::from_wh(area.width(), area.height())?;
        let bytes = (area.width() as usize).checked_mul(area.height() as usize)?.checked_mul(4)?;
        // Written zeros, not calloc's: calloc maps the shared zero page, and the first write
        // of each page then copies it and stops every other core to flush its TLB — a fifth of
        // a whole `nib render --node` process went there.
        let mut data = Vec::new();
        data.try_reserve_exact(bytes).ok()?;
        data.resize(bytes, 0);
        let pixmap = Pixels::Own(Pixmap::from_vec(data, size)?);
        Some(Surface { pixmap, area, extent: area, memory: None, _lease: None })
    }

    /// `pixmap` placed at `area`, counted nowhere.
    #[cfg(test)]
    pub fn of(pixmap: Pixmap, area: IntRect) -> Surface<'static> {
        Surface::of_picture(pixmap, area)
    }

    /// A picture painted before, placed at `area`, counted nowhere (it is already drawn).
    pub fn of_picture(pixmap: Pixmap, area: IntRect) -> Surface<'static> {
        Surface { pixmap: Pixels::Own(pixmap), area, extent: area, memory: None, _lease: None }
    }

    /// The picture painted on this surface (made by [`Surface::within`] or [`Surface::new`];
    /// rows borrowed for good would be copied).
    pub fn into_pixmap(self) -> Pixmap {
        match self.pixmap {
            Pixels::Own(pixmap) => pixmap,
            Pixels::Rows { data, size } => Pixmap::from_vec(data.to_vec(), size)
                .unwrap_or_else(|| Pixmap::new(size.width(), size.height()).expect("a size tiny-skia made before")),
        }
    }
}

impl<'a> Surface<'a> {
    /// A surface painting into `rows` (premultiplied RGBA), which are `area` of the device, a
    /// band of a picture covering `extent` whose memory `memory` already holds; layers drawn
    /// into it take theirs from it too. `None` when `rows` are not `area`'s size.
    pub fn rows(rows: &'a mut [u8], area: IntRect, extent: IntRect, memory: &Arc<Account>) -> Option<Surface<'a>> {
        let size = tiny_skia::IntSize::from_wh(area.width(), area.height())?;
        (rows.len() == area.width() as usize * area.height() as usize * 4).then(|| Surface {
            pixmap: Pixels::Rows { data: rows, size },
            area,
            extent,
            memory: Some(Arc::clone(memory)),
            _lease: None,
        })
    }
}

impl Surface<'_> {
    /// A transparent layer over `area`, with memory from this surface's account; `None` when it
    /// is empty or refused (a refusal stops the render, see [`super::memory`]).
    pub fn layer(&self, area: IntRect) -> Option<Surface<'static>> {
        match &self.memory {
            Some(memory) => Surface::within(area, memory),
            None => Surface::new(area),
        }
    }

    /// A transparent layer for what `bounds` holds: over the pixels of this surface it touches,
    /// and with its part of this surface's extent as its own. `None` when it misses the surface,
    /// or when its memory is refused (then the account says so).
    pub fn layer_over(&self, bounds: Rect) -> Option<Surface<'static>> {
        let area = self.clip_area(bounds)?;
        let extent = self.reach_area(bounds).unwrap_or(area);
        self.layer(area).map(|layer| Surface { extent, ..layer })
    }

    /// `bytes` of working memory (a blur's buffers) held until the returned lease is dropped;
    /// `Err` when refused. Without an account, nothing is counted.
    pub fn scratch(&self, bytes: u64) -> Result<Option<Lease>, ()> {
        match &self.memory {
            Some(memory) => memory.take(bytes).map(Some).ok_or(()),
            None => Ok(None),
        }
    }

    /// `bytes` held until the render ends (what a cache keeps); false when refused.
    pub fn keep(&self, bytes: u64) -> bool {
        self.memory.as_ref().is_none_or(|memory| memory.keep(bytes))
    }

    /// `transform` (local → device) as local → this surface's pixels.
    pub fn local(&self, transform: Transform) -> Transform {
        transform.post_translate(-self.area.x() as f32, -self.area.y() as f32)
    }

    /// The device pixels `bounds` touches, within this surface; `None` when it misses it.
    pub(crate) fn clip_area(&self, bounds: Rect) -> Option<IntRect> {
        let outer = bounds.round_out()?;
        outer.intersect(&self.area)
    }

    /// The device pixels `bounds` touches within this surface's extent: where an effect that
    /// spreads (a blurred shadow or layer) is worked out, the same in every band; drawing it
    /// then keeps to the surface. `None` when it misses the extent.
    pub(crate) fn reach_area(&self, bounds: Rect) -> Option<IntRect> {
        let outer = bounds.round_out()?;
        outer.intersect(&self.extent)
    }

    /// A mask of this surface's size, covering `path` (with `transform` local → device).
    pub fn mask(&self, path: &Path, fill_rule: tiny_skia::FillRule, transform: Transform) -> Option<Mask> {
        mask_over(self.area, path, fill_rule, transform)
    }

    /// Composites `layer` onto this surface.
    pub fn draw(&mut self, layer: &Surface<'_>, opacity: f32, blend_mode: BlendMode) {
        self.draw_pixels(layer.pixmap.as_ref(), layer.area, opacity, blend_mode);
    }

    /// Composites `pixels` placed at `area` of the device onto this surface.
    pub(crate) fn draw_pixels(&mut self, pixels: PixmapRef<'_>, area: IntRect, opacity: f32, blend_mode: BlendMode) {
        if blend_mode == BlendMode::SourceOver {
            // The common case, pixel for pixel: a pattern draw samples every pixel through
            // the general pipeline, the largest cost of layered frames after blurs.
            self.source_over(Source::Pixels(pixels, None), area, opacity);
            return;
        }
        let (x, y) = (area.x() - self.area.x(), area.y() - self.area.y());
        let paint = PixmapPaint { opacity, blend_mode, quality: tiny_skia::FilterQuality::Nearest };
        self.pixmap.as_mut().draw_pixmap(x, y, pixels, &paint, Transform::identity(), None);
    }

    /// Composites `layer` where `mask` (of the layer's size) covers it: clips, background blurs
    /// and cut strokes in one pass instead of masking the layer first.
    pub(crate) fn draw_masked(&mut self, layer: &mut Surface<'_>, mask: &Mask, blend_mode: BlendMode) {
        if blend_mode == BlendMode::SourceOver {
            self.source_over(Source::Pixels(layer.pixmap.as_ref(), Some(mask)), layer.area, 1.0);
            return;
        }
        layer.pixmap.as_mut().apply_mask(mask);
        self.draw(layer, 1.0, blend_mode);
    }

    /// Draws `color` with the coverage `coverage` placed at `area` of the device: a shadow
    /// whose blur ran on its coverage alone.
    pub(crate) fn draw_color(&mut self, color: SkColor, coverage: &Mask, area: IntRect, blend_mode: BlendMode) {
        if blend_mode == BlendMode::SourceOver {
            self.source_over(Source::Color(color.premultiply().to_color_u8(), coverage), area, 1.0);
            return;
        }
        let Some(mut layer) = self.layer(area) else { return };
        layer.pixmap.as_mut().fill(color);
        layer.pixmap.as_mut().apply_mask(coverage);
        self.draw(&layer, 1.0, blend_mode);
    }

    /// These pixels drawn at `opacity` over transparent ones, in place: the bytes drawing them
    /// as a layer at `opacity` onto a transparent surface of the same area gives (the same
    /// arithmetic, row by row), without a second surface.
    pub fn fade(&mut self, opacity: f32) {
        let k = (opacity.clamp(0.0, 1.0) * 255.0).round() as u32;
        if k == 255 {
            // A pixel over a transparent one at full opacity is itself.
            return;
        }
        let stride = self.area.width() as usize * 4;
        each_row(self.pixmap.data_mut(), stride, 0..self.area.height() as usize, |_, line| {
            if k == 0 {
                // Drawn at no opacity, nothing is drawn: the surface stays transparent.
                line.fill(0);
                return;
            }
            let mut source = [0u8; 256];
            for part in line.chunks_mut(source.len()) {
                let source = &mut source[..part.len()];
                source.copy_from_slice(part);
                part.fill(0);
                over_scaled(part, Sources::Pixels(source), |_| k as u8);
            }
        });
    }

    /// A copy of the pixels under `area` (which must lie within this surface), counted as a
    /// layer.
    pub fn copy(&self, area: IntRect) -> Option<Surface<'static>> {
        let local =
            IntRect::from_xywh(area.x() - self.area.x(), area.y() - self.area.y(), area.width(), area.height())?;
        let mut copy = self.layer(area)?;
        copy.pixmap = Pixels::Own(self.pixmap.as_ref().clone_rect(local)?);
        Some(copy)
    }

    /// `source` (placed at `area` of the device) drawn over this surface with `opacity` and the
    /// coverage of its mask (of `area`'s size), premultiplied RGBA: each channel becomes
    /// `s·k + d·(1 − sa·k)` with k the coverage times the opacity, rounded as 8-bit arithmetic
    /// rounds. Rows run on every core for large areas, with the same bytes.
    fn source_over(&mut self, source: Source, area: IntRect, opacity: f32) {
        let opacity = (opacity.clamp(0.0, 1.0) * 255.0).round() as u32;
        if opacity == 0 {
            return;
        }
        let (x, y) = (area.x() - self.area.x(), area.y() - self.area.y());
        let (src_width, src_height) = (area.width() as i32, area.height() as i32);
        let (dst_width, dst_height) = (self.pixmap.width() as i32, self.pixmap.height() as i32);
        let (left, top) = (x.max(0), y.max(0));
        let (right, bottom) = ((x + src_width).min(dst_width), (y + src_height).min(dst_height));
        if left >= right || top >= bottom {
            return;
        }
        let (pixels, mask) = match source {
            Source::Pixels(pixels, mask) => (Some(pixels), mask),
            Source::Color(_, coverage) => (None, Some(coverage)),
        };
        if pixels.is_some_and(|p| (p.width() as i32, p.height() as i32) != (src_width, src_height))
            || mask.is_some_and(|m| (m.width() as i32, m.height() as i32) != (src_width, src_height))
        {
            return;
        }
        let span = (right - left) as usize;
        let stride = dst_width as usize * 4;
        each_row(self.pixmap.data_mut(), stride, top as usize..bottom as usize, |row, line| {
            let at = ((row as i32 - y) * src_width + (left - x)) as usize;
            let target = &mut line[left as usize * 4..(left as usize + span) * 4];
            let coverage = mask.map(|m| &m.data()[at..at + span]);
            // The share of the source a mask value lets through (exact: m · 255 / 255 = m).
            let through = |m: u8| if opacity == 255 { m } else { div255(u32::from(m) * opacity) as u8 };
            let sources = match source {
                Source::Pixels(pixels, _) => Sources::Pixels(&pixels.data()[at * 4..(at + span) * 4]),
                Source::Color(color, _) => Sources::Color([color.red(), color.green(), color.blue(), color.alpha()]),
            };
            match (sources, coverage) {
                (Sources::Pixels(pixels), None) if opacity == 255 => over_pixels(target, pixels),
                (sources, None) => over_scaled(target, sources, |_| opacity as u8),
                (sources, Some(coverage)) => over_scaled(target, sources, |x| through(coverage[x])),
            }
        });
    }
}

/// The pixels of a surface: its own (a picture, a layer), or rows of a picture it paints a band
/// of, in place.
pub(crate) enum Pixels<'a> {
    Own(Pixmap),
    Rows { data: &'a mut [u8], size: tiny_skia::IntSize },
}

impl Pixels<'_> {
    /// The pixels to paint on.
    pub fn as_mut(&mut self) -> PixmapMut<'_> {
        match self {
            Pixels::Own(pixmap) => pixmap.as_mut(),
            Pixels::Rows { data, size } => {
                PixmapMut::from_bytes(data, size.width(), size.height()).expect("rows of their size")
            }
        }
    }

    /// The pixels to read.
    pub fn as_ref(&self) -> PixmapRef<'_> {
        match self {
            Pixels::Own(pixmap) => pixmap.as_ref(),
            Pixels::Rows { data, size } => {
                PixmapRef::from_bytes(data, size.width(), size.height()).expect("rows of their size")
            }
        }
    }

    pub fn width(&self) -> u32 {
        match self {
            Pixels::Own(pixmap) => pixmap.width(),
            Pixels::Rows { size, .. } => size.width(),
        }
    }

    pub fn height(&self) -> u32 {
        match self {
            Pixels::Own(pixmap) => pixmap.height(),
            Pixels::Rows { size, .. } => size.height(),
        }
    }

    /// Premultiplied RGBA, row by row.
    pub fn data(&self) -> &[u8] {
        match self {
            Pixels::Own(pixmap) => pixmap.data(),
            Pixels::Rows { data, .. } => data,
        }
    }

    pub fn data_mut(&mut self) -> &mut [u8] {
        match self {
            Pixels::Own(pixmap) => pixmap.data_mut(),
            Pixels::Rows { data, .. } => data,
        }
    }

    /// Test access to the pixels of a surface of its own.
    #[cfg(test)]
    pub fn pixmap(&mut self) -> &mut Pixmap {
        match self {
            Pixels::Own(pixmap) => pixmap,
            Pixels::Rows { .. } => panic!("rows of a picture"),
        }
    }
}

/// A mask over `area` of the device covering `path` (with `transform` local → device).
pub(crate) fn mask_over(
    area: IntRect,
    path: &Path,
    fill_rule: tiny_skia::FillRule,
    transform: Transform,
) -> Option<Mask> {
    let mut mask = Mask::new(area.width(), area.height())?;
    mask.fill_path(path, fill_rule, true, transform.post_translate(-area.x() as f32, -area.y() as f32));
    Some(mask)
}

/// Which side of a mask's path [`multiply_coverage`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coverage {
    Inside,
    Outside,
}

/// `mask` kept only where `by` covers it (`Inside`) or where it does not (`Outside`).
pub(crate) fn multiply_coverage(mask: &mut Mask, by: &Mask, keep: Coverage) {
    for (value, other) in mask.data_mut().iter_mut().zip(by.data()) {
        let other = match keep {
            Coverage::Inside => u32::from(*other),
            Coverage::Outside => 255 - u32::from(*other),
        };
        *value = div255(u32::from(*value) * other) as u8;
    }
}

/// What a composite draws: the pixels of a layer (through a mask when given), or one color
/// with the coverage of a mask.
#[derive(Clone, Copy)]
enum Source<'a> {
    Pixels(PixmapRef<'a>, Option<&'a Mask>),
    Color(PremultipliedColorU8, &'a Mask),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer of random premultiplied pixels over `area`, and a random mask of its size.
    fn random_layer(area: IntRect, seed: u64) -> (Surface<'static>, Mask) {
        let mut random = crate::random::Xorshift::new(seed);
        let mut layer = Surface::new(area).unwrap();
        for pixel in layer.pixmap.pixmap().pixels_mut() {
            let a = (random.next_u64() % 256) as u8;
            let c = |r: u64| ((r % 256) as u8).min(a);
            *pixel =
                PremultipliedColorU8::from_rgba(c(random.next_u64()), c(random.next_u64()), c(random.next_u64()), a)
                    .unwrap();
        }
        let mut mask = Mask::new(area.width(), area.height()).unwrap();
        for value in mask.data_mut() {
            *value = (random.next_u64() % 256) as u8;
        }
        (layer, mask)
    }

    #[test]
    fn masked_and_colored_draws_match_masking_first_within_one_level() {
        let (mut layer, mask) = random_layer(IntRect::from_xywh(-3, 2, 17, 9).unwrap(), 11);
        let mut background = Surface::new(IntRect::from_xywh(0, 0, 12, 12).unwrap()).unwrap();
        background.pixmap.as_mut().fill(SkColor::from_rgba8(40, 90, 200, 180));
        let mut ours = background.clone_surface();
        ours.draw_masked(&mut layer.clone_surface(), &mask, BlendMode::SourceOver);
        let mut theirs = background.clone_surface();
        layer.pixmap.as_mut().apply_mask(&mask);
        theirs.pixmap.as_mut().draw_pixmap(
            -3,
            2,
            layer.pixmap.as_ref(),
            &PixmapPaint::default(),
            Transform::identity(),
            None,
        );
        for (a, b) in ours.pixmap.data().iter().zip(theirs.pixmap.data()) {
            assert!(a.abs_diff(*b) <= 1, "masked: {a} vs {b}");
        }
        let color = SkColor::from_rgba8(250, 120, 30, 200);
        let mut ours = background.clone_surface();
        ours.draw_color(color, &mask, layer.area, BlendMode::SourceOver);
        let mut colored = Surface::new(layer.area).unwrap();
        colored.pixmap.as_mut().fill(color);
        colored.pixmap.as_mut().apply_mask(&mask);
        let mut theirs = background.clone_surface();
        theirs.pixmap.as_mut().draw_pixmap(
            -3,
            2,
            colored.pixmap.as_ref(),
            &PixmapPaint::default(),
            Transform::identity(),
            None,
        );
        for (a, b) in ours.pixmap.data().iter().zip(theirs.pixmap.data()) {
            assert!(a.abs_diff(*b) <= 2, "colored: {a} vs {b}");
        }
    }

    #[test]
    fn a_large_composite_on_every_core_gives_the_bytes_of_one_row_at_a_time() {
        // 700 × 700 pixels split over the pool, against the same layer drawn row by row (each
        // row far below the size that goes parallel).
        let area = IntRect::from_xywh(5, -4, 700, 700).unwrap();
        let (layer, mask) = random_layer(area, 5);
        let mut target = Surface::new(IntRect::from_xywh(0, 0, 720, 690).unwrap()).unwrap();
        target.pixmap.as_mut().fill(SkColor::from_rgba8(10, 200, 60, 200));
        let mut parallel = Surface::of(target.pixmap.as_ref().to_owned(), target.area);
        parallel.draw_masked(&mut layer.clone_surface(), &mask, BlendMode::SourceOver);
        parallel.draw(&layer, 0.6, BlendMode::SourceOver);
        let mut serial = Surface::of(target.pixmap.as_ref().to_owned(), target.area);
        for row in 0..700 {
            let line = IntRect::from_xywh(5, -4 + row, 700, 1).unwrap();
            let mut one = Surface::of(
                layer.pixmap.as_ref().clone_rect(IntRect::from_xywh(0, row, 700, 1).unwrap()).unwrap(),
                line,
            );
            let mut one_mask = Mask::new(700, 1).unwrap();
            let at = row as usize * 700;
            one_mask.data_mut().copy_from_slice(&mask.data()[at..at + 700]);
            serial.draw_masked(&mut one, &one_mask, BlendMode::SourceOver);
        }
        for row in 0..700 {
            let line = IntRect::from_xywh(5, -4 + row, 700, 1).unwrap();
            let one = Surface::of(
                layer.pixmap.as_ref().clone_rect(IntRect::from_xywh(0, row, 700, 1).unwrap()).unwrap(),
                line,
            );
            serial.draw(&one, 0.6, BlendMode::SourceOver);
        }
        assert!(parallel.pixmap.data() == serial.pixmap.data(), "the same bytes");
    }

    impl Surface<'_> {
        fn clone_surface(&self) -> Surface<'static> {
            Surface::of(self.pixmap.as_ref().to_owned(), self.area)
        }
    }

    #[test]
    fn drawing_a_layer_over_matches_tiny_skia_within_one_level() {
        // Translucent colors over a translucent background, at several opacities and offsets
        // (partly outside): the direct path and tiny-skia's pattern draw agree to one level.
        let mut random = crate::random::Xorshift::new(7);
        let mut layer = Surface::new(IntRect::from_xywh(-3, 2, 17, 9).unwrap()).unwrap();
        for pixel in layer.pixmap.pixmap().pixels_mut() {
            let a = (random.next_u64() % 256) as u8;
            let c = |r: u64| ((r % 256) as u8).min(a);
            *pixel = tiny_skia::PremultipliedColorU8::from_rgba(
                c(random.next_u64()),
                c(random.next_u64()),
                c(random.next_u64()),
                a,
            )
            .unwrap();
        }
        for opacity in [1.0, 0.5, 0.13] {
            let mut ours = Surface::new(IntRect::from_xywh(0, 0, 12, 12).unwrap()).unwrap();
            ours.pixmap.as_mut().fill(tiny_skia::Color::from_rgba8(40, 90, 200, 180));
            let mut theirs = Surface::of(ours.pixmap.as_ref().to_owned(), ours.area);
            ours.draw(&layer, opacity, BlendMode::SourceOver);
            let paint = PixmapPaint { opacity, ..PixmapPaint::default() };
            theirs.pixmap.as_mut().draw_pixmap(-3, 2, layer.pixmap.as_ref(), &paint, Transform::identity(), None);
            for (a, b) in ours.pixmap.data().iter().zip(theirs.pixmap.data()) {
                assert!(a.abs_diff(*b) <= 1, "opacity {opacity}: {a} vs {b}");
            }
        }
    }
}
