//! A pixmap covering part of the output, placed at a device offset: layers for opacity, clips,
//! shadows and blurs are only as big as what they hold (DESIGN.md decision 6).

use tiny_skia::{IntRect, Mask, Path, Pixmap, PixmapPaint, Rect, Transform};

/// Pixels covering `area` of the device.
pub(crate) struct Surface {
    pub pixmap: Pixmap,
    /// Where the pixmap's top-left pixel is on the device.
    pub area: IntRect,
}

impl Surface {
    /// A transparent surface over `area`; `None` when it is empty or too large to allocate.
    pub fn new(area: IntRect) -> Option<Surface> {
        Some(Surface { pixmap: Pixmap::new(area.width(), area.height())?, area })
    }

    /// `transform` (local → device) as local → this surface's pixels.
    pub fn local(&self, transform: Transform) -> Transform {
        transform.post_translate(-self.area.x() as f32, -self.area.y() as f32)
    }

    /// The device pixels `bounds` touches, within this surface; `None` when it misses it.
    pub fn clip_area(&self, bounds: Rect) -> Option<IntRect> {
        let outer = bounds.round_out()?;
        outer.intersect(&self.area)
    }

    /// A mask of this surface's size, covering `path` (with `transform` local → device).
    pub fn mask(&self, path: &Path, fill_rule: tiny_skia::FillRule, transform: Transform) -> Option<Mask> {
        let mut mask = Mask::new(self.area.width(), self.area.height())?;
        mask.fill_path(path, fill_rule, true, self.local(transform));
        Some(mask)
    }

    /// Composites `layer` onto this surface.
    pub fn draw(&mut self, layer: &Surface, opacity: f32, blend_mode: tiny_skia::BlendMode) {
        self.draw_pixels(&layer.pixmap, layer.area, opacity, blend_mode);
    }

    /// Composites `pixels` placed at `area` of the device onto this surface.
    pub fn draw_pixels(&mut self, pixels: &Pixmap, area: IntRect, opacity: f32, blend_mode: tiny_skia::BlendMode) {
        let (x, y) = (area.x() - self.area.x(), area.y() - self.area.y());
        if blend_mode == tiny_skia::BlendMode::SourceOver {
            // The common case, pixel for pixel: a pattern draw samples every pixel through
            // the general pipeline, the largest cost of layered frames after blurs.
            source_over(&mut self.pixmap, pixels, x, y, opacity);
            return;
        }
        let paint = PixmapPaint { opacity, blend_mode, quality: tiny_skia::FilterQuality::Nearest };
        self.pixmap.draw_pixmap(x, y, pixels.as_ref(), &paint, Transform::identity(), None);
    }

    /// A copy of the pixels under `area` (which must lie within this surface).
    pub fn copy(&self, area: IntRect) -> Option<Surface> {
        let local =
            IntRect::from_xywh(area.x() - self.area.x(), area.y() - self.area.y(), area.width(), area.height())?;
        Some(Surface { pixmap: self.pixmap.clone_rect(local)?, area })
    }
}

/// `src` drawn over `dst` at (`x`, `y`) with `opacity`, both premultiplied RGBA: each channel
/// becomes `s·o + d·(1 − sa·o)`, rounded as 8-bit arithmetic rounds.
fn source_over(dst: &mut Pixmap, src: &Pixmap, x: i32, y: i32, opacity: f32) {
    let opacity = (opacity.clamp(0.0, 1.0) * 255.0).round() as u32;
    if opacity == 0 {
        return;
    }
    let (dst_width, dst_height) = (dst.width() as i32, dst.height() as i32);
    let (src_width, src_height) = (src.width() as i32, src.height() as i32);
    let (left, top) = (x.max(0), y.max(0));
    let (right, bottom) = ((x + src_width).min(dst_width), (y + src_height).min(dst_height));
    if left >= right || top >= bottom {
        return;
    }
    let span = (right - left) as usize * 4;
    let source = src.data();
    let target = dst.data_mut();
    for row in top..bottom {
        let s_start = (((row - y) * src_width + (left - x)) * 4) as usize;
        let d_start = ((row * dst_width + left) * 4) as usize;
        let s = &source[s_start..s_start + span];
        let d = &mut target[d_start..d_start + span];
        for (d, s) in d.chunks_exact_mut(4).zip(s.chunks_exact(4)) {
            let alpha = div255(u32::from(s[3]) * opacity);
            if alpha == 0 {
                continue;
            }
            if alpha == 255 {
                d.copy_from_slice(s);
                continue;
            }
            let keep = 255 - alpha;
            for channel in 0..4 {
                let over = if opacity == 255 { u32::from(s[channel]) } else { div255(u32::from(s[channel]) * opacity) };
                d[channel] = (over + div255(u32::from(d[channel]) * keep)).min(255) as u8;
            }
        }
    }
}

/// `v / 255` rounded to nearest, for `v` ≤ 255 · 255.
fn div255(v: u32) -> u32 {
    let v = v + 128;
    (v + (v >> 8)) >> 8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawing_a_layer_over_matches_tiny_skia_within_one_level() {
        // Translucent colors over a translucent background, at several opacities and offsets
        // (partly outside): the direct path and tiny-skia's pattern draw agree to one level.
        let mut random = crate::random::Xorshift::new(7);
        let mut layer = Surface::new(IntRect::from_xywh(-3, 2, 17, 9).unwrap()).unwrap();
        for pixel in layer.pixmap.pixels_mut() {
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
            ours.pixmap.fill(tiny_skia::Color::from_rgba8(40, 90, 200, 180));
            let mut theirs = Surface { pixmap: ours.pixmap.clone(), area: ours.area };
            ours.draw(&layer, opacity, tiny_skia::BlendMode::SourceOver);
            let paint = PixmapPaint { opacity, ..PixmapPaint::default() };
            theirs.pixmap.draw_pixmap(-3, 2, layer.pixmap.as_ref(), &paint, Transform::identity(), None);
            for (a, b) in ours.pixmap.data().iter().zip(theirs.pixmap.data()) {
                assert!(a.abs_diff(*b) <= 1, "opacity {opacity}: {a} vs {b}");
            }
        }
    }
}
