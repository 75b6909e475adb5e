//! Comparing two renders the way a reviewer's eye does: a per-pixel colour distance weighted for
//! perception (luma counts more than chroma), pixels that only moved along an anti-aliased edge
//! set apart, and an image that shows where the rest changed.
//!
//! The colour distance works in YIQ space (luma and two chroma axes), the space NTSC chose so
//! that equal distances look about equally different; a threshold of 0.05 is a change most
//! people notice on a calibrated screen, well above the rounding noise of two renderers.

use tiny_skia::{Pixmap, PremultipliedColorU8};

/// When two images count as the same.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Colour distance (0 = identical, 1 = black against white) above which a pixel differs.
    pub threshold: f64,
    /// Share of all pixels (0–1) that may differ before the images count as different.
    pub max_share: f64,
    /// Pixels that differ only because an anti-aliased edge shifted are not counted.
    pub ignore_antialiasing: bool,
}

impl Default for Tolerance {
    /// Renders are deterministic, so any visible difference fails; anti-aliasing noise from
    /// another platform's rasteriser does not.
    fn default() -> Tolerance {
        Tolerance { threshold: 0.05, max_share: 0.0, ignore_antialiasing: true }
    }
}

/// What a comparison found.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Width and height of the area compared (the larger of the two images on each axis).
    pub width: u32,
    /// See `width`.
    pub height: u32,
    /// Pixels that differ beyond the threshold, anti-aliasing excluded when asked.
    pub differing: u64,
    /// Pixels that differ only along anti-aliased edges.
    pub antialiased: u64,
    /// True when the two images have different sizes (every pixel outside one differs).
    pub resized: bool,
    /// The smallest rectangle holding every differing pixel: (left, top, right, bottom),
    /// exclusive on the right and bottom.
    pub bounds: Option<(u32, u32, u32, u32)>,
}

impl Comparison {
    /// The share of the compared pixels that differ (0–1).
    pub fn share(&self) -> f64 {
        let total = u64::from(self.width) * u64::from(self.height);
        if total == 0 { 0.0 } else { self.differing as f64 / total as f64 }
    }

    /// True when the images count as the same under `tolerance`.
    pub fn passes(&self, tolerance: &Tolerance) -> bool {
        !self.resized && self.share() <= tolerance.max_share
    }
}

/// Compares `old` and `new` pixel by pixel.
pub fn compare(old: &Pixmap, new: &Pixmap, tolerance: &Tolerance) -> Comparison {
    compare_and_mark(old, new, tolerance, |_, _, _| {})
}

/// Compares `old` and `new` and draws where they differ: `new` faded towards white, differing
/// pixels in red, anti-aliasing shifts in yellow, pixels present in only one image in blue.
pub(crate) fn highlight(old: &Pixmap, new: &Pixmap, tolerance: &Tolerance) -> (Comparison, Pixmap) {
    let width = old.width().max(new.width());
    let height = old.height().max(new.height());
    // Both sides are at least 1 pixel: a Pixmap cannot be empty.
    let mut image = Pixmap::new(width.max(1), height.max(1)).unwrap_or_else(|| new.clone());
    let faded = |pixel: Option<PremultipliedColorU8>| {
        let [r, g, b] = pixel.map_or([255, 255, 255], |p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue()]
        });
        let fade = |channel: u8| (u16::from(channel) / 4 + 191) as u8;
        [fade(r), fade(g), fade(b), 255]
    };
    for y in 0..height {
        for x in 0..width {
            let [r, g, b, a] = faded(pixel(new, x, y).or_else(|| pixel(old, x, y)));
            set(&mut image, x, y, [r, g, b, a]);
        }
    }
    let comparison = compare_and_mark(old, new, tolerance, |x, y, mark| {
        let color = match mark {
            Mark::Differs => [220, 0, 30, 255],
            Mark::Antialiasing => [250, 200, 0, 255],
            Mark::OnlyInOne => [30, 90, 230, 255],
        };
        set(&mut image, x, y, color);
    });
    (comparison, image)
}

/// Why a pixel is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// A visible change.
    Differs,
    /// An anti-aliased edge moved by a fraction of a pixel.
    Antialiasing,
    /// The images have different sizes and only one covers this pixel.
    OnlyInOne,
}

fn compare_and_mark(
    old: &Pixmap,
    new: &Pixmap,
    tolerance: &Tolerance,
    mut mark: impl FnMut(u32, u32, Mark),
) -> Comparison {
    let width = old.width().max(new.width());
    let height = old.height().max(new.height());
    let resized = (old.width(), old.height()) != (new.width(), new.height());
    // Squared YIQ distance of black against white, so thresholds are a share of the largest.
    let limit = MAX_DELTA * tolerance.threshold * tolerance.threshold;
    let mut comparison = Comparison { width, height, differing: 0, antialiased: 0, resized, bounds: None };
    for y in 0..height {
        for x in 0..width {
            let kind = match (pixel(old, x, y), pixel(new, x, y)) {
                (Some(a), Some(b)) => {
                    if a == b || delta(a, b) <= limit {
                        continue;
                    }
                    let shifted_edge =
                        tolerance.ignore_antialiasing && (antialiased(old, new, x, y) || antialiased(new, old, x, y));
                    if shifted_edge { Mark::Antialiasing } else { Mark::Differs }
                }
                _ => Mark::OnlyInOne,
            };
            mark(x, y, kind);
            if kind == Mark::Antialiasing {
                comparison.antialiased += 1;
                continue;
            }
            comparison.differing += 1;
            comparison.bounds = Some(match comparison.bounds {
                None => (x, y, x + 1, y + 1),
                Some((l, t, r, b)) => (l.min(x), t.min(y), r.max(x + 1), b.max(y + 1)),
            });
        }
    }
    comparison
}

/// The squared YIQ distance of black and white: the largest [`delta`] can be.
const MAX_DELTA: f64 = 35_215.0;

/// The perceptual distance of two pixels (squared, weighted YIQ), each blended over white first
/// so that transparency compares as it looks on a page.
fn delta(a: PremultipliedColorU8, b: PremultipliedColorU8) -> f64 {
    let (ya, ia, qa) = yiq(a);
    let (yb, ib, qb) = yiq(b);
    let (dy, di, dq) = (ya - yb, ia - ib, qa - qb);
    0.5053 * dy * dy + 0.299 * di * di + 0.1957 * dq * dq
}

fn yiq(pixel: PremultipliedColorU8) -> (f64, f64, f64) {
    // Premultiplied over white: c + (255 - a).
    let over_white = |channel: u8| f64::from(channel) + 255.0 - f64::from(pixel.alpha());
    let (r, g, b) = (over_white(pixel.red()), over_white(pixel.green()), over_white(pixel.blue()));
    let y = 0.298_895_31 * r + 0.586_622_47 * g + 0.114_482_23 * b;
    let i = 0.595_977_99 * r - 0.274_176_1 * g - 0.321_801_89 * b;
    let q = 0.211_470_17 * r - 0.522_617_29 * g + 0.311_147_12 * b;
    (y, i, q)
}

fn brightness(pixel: PremultipliedColorU8) -> f64 {
    yiq(pixel).0
}

/// True when the pixel at (x, y) of `image` looks like part of an anti-aliased edge that moved:
/// it lies between a darker and a brighter neighbour, few neighbours share its exact colour,
/// and the darkest or brightest neighbour sits in a flat area in both images (the solid sides
/// of the edge are where they were).
fn antialiased(image: &Pixmap, other: &Pixmap, x: u32, y: u32) -> bool {
    let Some(center) = pixel(image, x, y) else { return false };
    let center_brightness = brightness(center);
    let mut same = 0;
    let (mut darkest, mut brightest) = (None::<(f64, u32, u32)>, None::<(f64, u32, u32)>);
    for (nx, ny) in neighbours(image, x, y) {
        let Some(neighbour) = pixel(image, nx, ny) else { continue };
        if neighbour == center {
            same += 1;
            // An edge pixel shares its colour with at most two neighbours along the edge.
            if same > 2 {
                return false;
            }
            continue;
        }
        let difference = brightness(neighbour) - center_brightness;
        if darkest.is_none_or(|(d, ..)| difference < d) {
            darkest = Some((difference, nx, ny));
        }
        if brightest.is_none_or(|(b, ..)| difference > b) {
            brightest = Some((difference, nx, ny));
        }
    }
    let (Some((dark, dx, dy)), Some((bright, bx, by))) = (darkest, brightest) else { return false };
    // Not between two others: the pixel is itself one side of a hard edge.
    if dark >= 0.0 || bright <= 0.0 {
        return false;
    }
    (flat(image, dx, dy) && flat(other, dx, dy)) || (flat(image, bx, by) && flat(other, bx, by))
}

/// True when at least three neighbours of (x, y) have exactly its colour.
fn flat(image: &Pixmap, x: u32, y: u32) -> bool {
    let Some(center) = pixel(image, x, y) else { return false };
    neighbours(image, x, y).filter(|(nx, ny)| pixel(image, *nx, *ny) == Some(center)).count() >= 3
}

/// The up to eight pixels around (x, y) inside `image`.
fn neighbours(image: &Pixmap, x: u32, y: u32) -> impl Iterator<Item = (u32, u32)> + use<> {
    let (width, height) = (image.width(), image.height());
    (-1i64..=1).flat_map(move |dy| (-1i64..=1).map(move |dx| (dx, dy))).filter_map(move |(dx, dy)| {
        let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
        let inside = (dx, dy) != (0, 0) && nx >= 0 && ny >= 0 && nx < i64::from(width) && ny < i64::from(height);
        inside.then_some((nx as u32, ny as u32))
    })
}

fn pixel(image: &Pixmap, x: u32, y: u32) -> Option<PremultipliedColorU8> {
    (x < image.width() && y < image.height()).then(|| image.pixels()[(y * image.width() + x) as usize])
}

fn set(image: &mut Pixmap, x: u32, y: u32, [r, g, b, a]: [u8; 4]) {
    let width = image.width();
    if let Some(color) = PremultipliedColorU8::from_rgba(r, g, b, a) {
        image.pixels_mut()[(y * width + x) as usize] = color;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tiny_skia::{Color, FillRule, Paint, PathBuilder, Transform};

    /// A white canvas with a black rectangle at (x, y), drawn anti-aliased.
    fn canvas(x: f32, y: f32) -> Pixmap {
        let mut pixmap = Pixmap::new(60, 40).expect("pixmap");
        pixmap.fill(Color::WHITE);
        let mut paint = Paint::default();
        paint.set_color_rgba8(20, 20, 20, 255);
        paint.anti_alias = true;
        let path = PathBuilder::from_rect(tiny_skia::Rect::from_xywh(x, y, 20.0, 10.0).expect("rect"));
        pixmap.fill_path(&path, &paint, FillRule::Winding, Transform::identity(), None);
        pixmap
    }

    #[test]
    fn identical_images_pass_and_mark_nothing() {
        let a = canvas(10.0, 10.0);
        let (comparison, _) = highlight(&a, &a.clone(), &Tolerance::default());
        assert_eq!((comparison.differing, comparison.antialiased, comparison.bounds), (0, 0, None));
        assert!(comparison.passes(&Tolerance::default()));
    }

    #[test]
    fn an_element_moved_by_one_pixel_fails_with_its_bounds() {
        let comparison = compare(&canvas(10.0, 10.0), &canvas(11.0, 10.0), &Tolerance::default());
        assert!(!comparison.passes(&Tolerance::default()));
        // The left column that was covered and the right one that now is: 10 pixels each.
        assert_eq!(comparison.differing, 20);
        assert_eq!(comparison.bounds, Some((10, 10, 31, 20)));
    }

    #[test]
    fn a_sub_pixel_shift_of_an_edge_is_antialiasing() {
        let comparison = compare(&canvas(10.0, 10.0), &canvas(10.3, 10.0), &Tolerance::default());
        assert_eq!(comparison.differing, 0, "{comparison:?}");
        assert!(comparison.antialiased > 0);
        let strict = Tolerance { ignore_antialiasing: false, ..Tolerance::default() };
        assert!(compare(&canvas(10.0, 10.0), &canvas(10.3, 10.0), &strict).differing > 0);
    }

    #[test]
    fn a_slight_colour_change_is_within_the_threshold_and_a_clear_one_is_not() {
        let flat = |r: u8| {
            let mut pixmap = Pixmap::new(8, 8).expect("pixmap");
            pixmap.fill(Color::from_rgba8(r, 0, 0, 255));
            pixmap
        };
        assert_eq!(compare(&flat(200), &flat(204), &Tolerance::default()).differing, 0);
        assert_eq!(compare(&flat(200), &flat(120), &Tolerance::default()).differing, 64);
    }

    #[test]
    fn different_sizes_compare_over_both_and_never_pass() {
        let small = Pixmap::new(10, 10).expect("pixmap");
        let large = Pixmap::new(12, 10).expect("pixmap");
        let (comparison, image) = highlight(&small, &large, &Tolerance::default());
        assert!(comparison.resized && !comparison.passes(&Tolerance::default()));
        assert_eq!((comparison.differing, image.width()), (20, 12));
    }
}
