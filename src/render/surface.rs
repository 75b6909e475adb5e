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
        intersect(outer, self.area)
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

/// The overlap of two pixel rectangles.
pub(crate) fn intersect(a: IntRect, b: IntRect) -> Option<IntRect> {
    let left = a.x().max(b.x());
    let top = a.y().max(b.y());
    let right = a.right().min(b.right());
    let bottom = a.bottom().min(b.bottom());
    IntRect::from_ltrb(left, top, right, bottom)
}

/// The device bounds of `rect` under `transform`.
pub(crate) fn transformed_bounds(rect: Rect, transform: Transform) -> Option<Rect> {
    let mut points = [
        tiny_skia::Point::from_xy(rect.left(), rect.top()),
        tiny_skia::Point::from_xy(rect.right(), rect.top()),
        tiny_skia::Point::from_xy(rect.right(), rect.bottom()),
        tiny_skia::Point::from_xy(rect.left(), rect.bottom()),
    ];
    transform.map_points(&mut points);
    let xs = points.iter().map(|p| p.x);
    let ys = points.iter().map(|p| p.y);
    let (left, right) = xs.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let (top, bottom) = ys.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), y| (lo.min(y), hi.max(y)));
    Rect::from_ltrb(left, top, right, bottom)
}

/// `rect` grown by `margin` on every side.
pub(crate) fn outset(rect: Rect, margin: f32) -> Option<Rect> {
    Rect::from_ltrb(rect.left() - margin, rect.top() - margin, rect.right() + margin, rect.bottom() + margin)
}

/// The union of two rectangles.
pub(crate) fn union(a: Rect, b: Rect) -> Rect {
    Rect::from_ltrb(a.left().min(b.left()), a.top().min(b.top()), a.right().max(b.right()), a.bottom().max(b.bottom()))
        .unwrap_or(a)
}
