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
        let paint = PixmapPaint { opacity, blend_mode, quality: tiny_skia::FilterQuality::Nearest };
        let (x, y) = (layer.area.x() - self.area.x(), layer.area.y() - self.area.y());
        self.pixmap.draw_pixmap(x, y, layer.pixmap.as_ref(), &paint, Transform::identity(), None);
    }

    /// A copy of the pixels under `area` (which must lie within this surface).
    pub fn copy(&self, area: IntRect) -> Option<Surface> {
        let local =
            IntRect::from_xywh(area.x() - self.area.x(), area.y() - self.area.y(), area.width(), area.height())?;
        Some(Surface { pixmap: self.pixmap.clone_rect(local)?, area })
    }
}
