//! Gaussian blur of premultiplied RGBA pixels, approximated by three box blurs per axis (the
//! method SVG and CSS renderers use); deterministic and linear in the pixel count whatever the
//! radius.

use tiny_skia::Pixmap;

/// What lies beyond the edges of the pixels being blurred.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edges {
    /// Transparent: shadows and layers fade out at their edges.
    Transparent,
    /// The edge pixels repeat: a background blurred inside a card keeps its colors at the rim.
    Extend,
}

/// Blurs `pixmap` with a Gaussian of standard deviation `sigma` pixels.
pub(crate) fn blur(pixmap: &mut Pixmap, sigma: f32, edges: Edges) {
    if sigma.is_nan() || sigma <= 0.25 || !sigma.is_finite() {
        return;
    }
    let (width, height) = (pixmap.width() as usize, pixmap.height() as usize);
    // A blur wider than the image spreads it out evenly anyway; larger radii (a blur of 1e9 in a
    // document) would only make the passes walk padding that is not there.
    let radii = box_radii(sigma.min(width.max(height) as f32));
    let data = pixmap.data_mut();
    let mut line = Vec::new();
    for row in data.chunks_exact_mut(width * 4) {
        for radius in radii {
            horizontal_pass(row, &mut line, radius, edges);
        }
    }
    let mut sums = vec![0u32; width * 4];
    let mut column_copy = Vec::new();
    for radius in radii {
        vertical_pass(data, width, height, radius, edges, &mut sums, &mut column_copy);
    }
}

/// The radii of three box blurs whose sequence approximates a Gaussian of `sigma`.
fn box_radii(sigma: f32) -> [usize; 3] {
    let ideal = (12.0 * sigma * sigma / 3.0 + 1.0).sqrt();
    let mut lower = ideal.floor() as i64;
    if lower % 2 == 0 {
        lower -= 1;
    }
    let lower = lower.max(1);
    let upper = lower + 2;
    let (l, s) = (lower as f32, sigma);
    let count_lower = ((12.0 * s * s - 3.0 * l * l - 12.0 * l - 9.0) / (-4.0 * l - 4.0)).round() as i64;
    let size = |i: i64| if i < count_lower { lower } else { upper };
    [0, 1, 2].map(|i| ((size(i) - 1) / 2).max(0) as usize)
}

/// Division by the window size as a multiplication: a division per channel and pixel would
/// cost more than the rest of the blur.
struct Average {
    reciprocal: u32,
}

impl Average {
    fn new(window: usize) -> Average {
        Average { reciprocal: (1 << 16) / window as u32 }
    }

    /// The rounded mean of a sum of `window` bytes.
    fn of(&self, sum: u32) -> u8 {
        ((sum * self.reciprocal + (1 << 15)) >> 16).min(255) as u8
    }
}

/// One box blur along a row of RGBA pixels, in place. `padded` is scratch space: the row with
/// `radius` pixels of edge (transparent or repeated) on each side, so the sliding sum needs no
/// bounds checks.
fn horizontal_pass(row: &mut [u8], padded: &mut Vec<u8>, radius: usize, edges: Edges) {
    if radius == 0 || row.is_empty() {
        return;
    }
    let count = row.len() / 4;
    padded.clear();
    let (first, last) = (
        [row[0], row[1], row[2], row[3]],
        [row[row.len() - 4], row[row.len() - 3], row[row.len() - 2], row[row.len() - 1]],
    );
    let (before, after) = match edges {
        Edges::Transparent => ([0; 4], [0; 4]),
        Edges::Extend => (first, last),
    };
    for _ in 0..=radius {
        padded.extend_from_slice(&before);
    }
    padded.extend_from_slice(row);
    for _ in 0..=radius {
        padded.extend_from_slice(&after);
    }
    let average = Average::new(2 * radius + 1);
    let mut sum = [0u32; 4];
    // The window of pixel 0 covers padded pixels 1 ..= 2 radius + 1.
    for pixel in padded[4..(2 * radius + 2) * 4].chunks_exact(4) {
        for c in 0..4 {
            sum[c] += u32::from(pixel[c]);
        }
    }
    for i in 0..count {
        for c in 0..4 {
            row[i * 4 + c] = average.of(sum[c]);
            let entering = padded[(i + 2 * radius + 2) * 4 + c];
            let leaving = padded[(i + 1) * 4 + c];
            sum[c] = sum[c] + u32::from(entering) - u32::from(leaving);
        }
    }
}

/// One box blur down every column at once, in place: a running sum per column and channel
/// while walking the rows, so memory is read in order.
fn vertical_pass(
    data: &mut [u8],
    width: usize,
    height: usize,
    radius: usize,
    edges: Edges,
    sums: &mut [u32],
    original: &mut Vec<u8>,
) {
    if radius == 0 || height == 0 {
        return;
    }
    let stride = width * 4;
    original.clear();
    original.extend_from_slice(data);
    let average = Average::new(2 * radius + 1);
    // The row at `y`, with rows beyond the edges transparent or repeated.
    let row = |y: isize| -> Option<&[u8]> {
        match edges {
            Edges::Transparent if y < 0 || y >= height as isize => None,
            _ => {
                let y = y.clamp(0, height as isize - 1) as usize;
                Some(&original[y * stride..(y + 1) * stride])
            }
        }
    };
    sums.fill(0);
    for y in -(radius as isize)..=radius as isize {
        if let Some(values) = row(y) {
            for (sum, value) in sums.iter_mut().zip(values) {
                *sum += u32::from(*value);
            }
        }
    }
    for y in 0..height {
        let out = &mut data[y * stride..(y + 1) * stride];
        for (value, sum) in out.iter_mut().zip(sums.iter()) {
            *value = average.of(*sum);
        }
        let (entering, leaving) = (y as isize + radius as isize + 1, y as isize - radius as isize);
        if let Some(values) = row(entering) {
            for (sum, value) in sums.iter_mut().zip(values) {
                *sum += u32::from(*value);
            }
        }
        if let Some(values) = row(leaving) {
            for (sum, value) in sums.iter_mut().zip(values) {
                *sum -= u32::from(*value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_sizes_follow_sigma() {
        assert_eq!(box_radii(1.0), [0, 0, 1]);
        let wide = box_radii(10.0);
        assert!(wide.iter().all(|r| (9..=10).contains(r)), "{wide:?}");
    }

    #[test]
    fn blur_spreads_a_dot_and_keeps_its_mass() {
        let mut pixmap = Pixmap::new(41, 41).expect("pixmap");
        let center = (20 * 41 + 20) * 4;
        pixmap.data_mut()[center..center + 4].copy_from_slice(&[255, 255, 255, 255]);
        blur(&mut pixmap, 3.0, Edges::Transparent);
        let alpha: u32 = pixmap.data().chunks(4).map(|p| u32::from(p[3])).sum();
        assert!((200..=300).contains(&alpha), "mass {alpha}");
        assert!(pixmap.data()[center + 3] < 255 && pixmap.data()[center + 3] > 0);
        let beside = (20 * 41 + 24) * 4;
        assert!(pixmap.data()[beside + 3] > 0, "spread four pixels");
    }

    #[test]
    fn extended_edges_keep_a_uniform_image_uniform() {
        let mut pixmap = Pixmap::new(10, 10).expect("pixmap");
        pixmap.fill(tiny_skia::Color::from_rgba8(10, 20, 30, 255));
        blur(&mut pixmap, 4.0, Edges::Extend);
        assert!(pixmap.data().chunks(4).all(|p| p == [10, 20, 30, 255]));
    }

    #[test]
    fn an_enormous_blur_ends_at_once_and_spreads_evenly() {
        let mut pixmap = Pixmap::new(40, 30).expect("pixmap");
        pixmap.fill(tiny_skia::Color::from_rgba8(200, 100, 50, 255));
        // 1e12 would mean passes a trillion pixels wide; it is as wide as the image instead.
        blur(&mut pixmap, 1e12, Edges::Extend);
        let first = pixmap.pixel(0, 0).expect("pixel");
        assert!(pixmap.pixels().iter().all(|p| *p == first), "a uniform image stays uniform");
    }
}
