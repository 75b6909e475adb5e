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
    let radii = box_radii(sigma);
    let data = pixmap.data_mut();
    let mut line = Vec::new();
    let mut out = Vec::new();
    for y in 0..height {
        let row = &mut data[y * width * 4..(y + 1) * width * 4];
        for radius in radii {
            line.clear();
            line.extend_from_slice(row);
            box_pass(&line, &mut out, width, 4, radius, edges);
            row.copy_from_slice(&out);
        }
    }
    let mut column = vec![0u8; height * 4];
    for x in 0..width {
        for y in 0..height {
            column[y * 4..y * 4 + 4].copy_from_slice(&data[(y * width + x) * 4..(y * width + x) * 4 + 4]);
        }
        for radius in radii {
            line.clear();
            line.extend_from_slice(&column);
            box_pass(&line, &mut out, height, 4, radius, edges);
            column.copy_from_slice(&out);
        }
        for y in 0..height {
            data[(y * width + x) * 4..(y * width + x) * 4 + 4].copy_from_slice(&column[y * 4..y * 4 + 4]);
        }
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

/// One box blur of `count` pixels of `channels` bytes from `input` into `output`.
fn box_pass(input: &[u8], output: &mut Vec<u8>, count: usize, channels: usize, radius: usize, edges: Edges) {
    output.clear();
    output.resize(input.len(), 0);
    if radius == 0 || count == 0 {
        output.copy_from_slice(input);
        return;
    }
    let window = (2 * radius + 1) as u32;
    let sample = |i: isize, c: usize| -> u32 {
        let index = match edges {
            Edges::Transparent if i < 0 || i >= count as isize => return 0,
            Edges::Transparent => i as usize,
            Edges::Extend => i.clamp(0, count as isize - 1) as usize,
        };
        u32::from(input[index * channels + c])
    };
    for c in 0..channels {
        let mut sum: u32 = (-(radius as isize)..=radius as isize).map(|i| sample(i, c)).sum();
        for i in 0..count {
            output[i * channels + c] = ((sum + window / 2) / window) as u8;
            let (leaving, entering) = (i as isize - radius as isize, i as isize + radius as isize + 1);
            sum = sum + sample(entering, c) - sample(leaving, c);
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
}
