//! Gaussian blur of premultiplied RGBA pixels, approximated by three box blurs per axis (the
//! method SVG and CSS renderers use); deterministic and linear in the pixel count whatever the
//! radius.

use rayon::prelude::*;
use tiny_skia::Mask;
#[cfg(test)]
use tiny_skia::Pixmap;

use super::repeats::{column_cut, row_cut, with_columns_back, with_rows_back, without_columns, without_rows};
use super::rows::PARALLEL_FROM_BYTES;

/// What lies beyond the edges of the pixels being blurred.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edges {
    /// Transparent: shadows and layers fade out at their edges.
    Transparent,
    /// The edge pixels repeat: a background blurred inside a card keeps its colors at the rim.
    Extend,
}

/// From these sigmas up, the blur runs on a copy reduced 2 or 4 times and is scaled back up, as
/// Skia does: a wide blur has no detail the reduction could lose, and its passes cost a quarter
/// (a sixteenth) as much. Against the exact blur: at most 3 levels apart, 0.2–0.6 on average
/// (see the tests). Reducing 4 times from sigma 16 went to 4 levels, 8 times to 8 levels near
/// extended edges.
const REDUCE_BY: [(usize, f32); 2] = [(4, 24.0), (2, 8.0)];

/// Blurs `pixmap` with a Gaussian of standard deviation `sigma` pixels.
pub(crate) fn blur(mut pixmap: tiny_skia::PixmapMut<'_>, sigma: f32, edges: Edges) {
    let (width, height) = (pixmap.width() as usize, pixmap.height() as usize);
    blur_pixels::<4>(pixmap.data_mut(), width, height, sigma, edges);
}

/// Blurs the coverage of `mask` with a Gaussian of standard deviation `sigma` pixels: a shadow
/// of one color needs only its coverage blurred, a quarter of the work of its colored pixels.
pub(crate) fn blur_mask(mask: &mut Mask, sigma: f32, edges: Edges) {
    let (width, height) = (mask.width() as usize, mask.height() as usize);
    blur_pixels::<1>(mask.data_mut(), width, height, sigma, edges);
}

/// The blur of `data`: `width` × `height` pixels of `C` bytes (4: premultiplied RGBA, 1: alpha).
fn blur_pixels<const C: usize>(data: &mut [u8], width: usize, height: usize, sigma: f32, edges: Edges) {
    if sigma.is_nan() || sigma <= 0.25 || !sigma.is_finite() || width == 0 || height == 0 {
        return;
    }
    // A blur wider than the image spreads it out evenly anyway; larger radii (a blur of 1e9 in a
    // document) would only make the passes walk padding that is not there.
    let sigma = sigma.min(width.max(height) as f32);
    let plan = Plan::new(sigma, width, height);
    // Rows (then columns) repeated over a long run are blurred once (render/repeats.rs): the
    // same bytes. The reach in pixels: the three boxes, the two reduced pixels enlarging mixes,
    // and the block a pixel falls in.
    let reach = (box_radii(plan.sigma).iter().sum::<usize>() + 2) * plan.factor + plan.factor;
    match row_cut(data, width * C, reach, plan.factor) {
        Some(cut) => {
            let mut short = without_rows(data, width * C, cut);
            blur_columns_once::<C>(&mut short, width, height - cut.len, plan, reach, edges);
            with_rows_back(&short, width * C, cut, data);
        }
        None => blur_columns_once::<C>(data, width, height, plan, reach, edges),
    }
}

/// How a blur runs: on pixels reduced `factor` times (1: on the pixels themselves), with a
/// Gaussian of `sigma` reduced pixels.
#[derive(Clone, Copy)]
struct Plan {
    factor: usize,
    sigma: f32,
}

impl Plan {
    /// The plan for a blur of `sigma` pixels on `width` × `height` pixels.
    fn new(sigma: f32, width: usize, height: usize) -> Plan {
        let factor = REDUCE_BY.into_iter().find(|(_, from)| sigma >= *from).map_or(1, |(factor, _)| factor);
        if factor == 1 || width < 2 * factor || height < 2 * factor {
            return Plan { factor: 1, sigma };
        }
        // Reducing (a box of `factor` pixels) and scaling back up (a tent twice as wide) blur a
        // little themselves: the blur in between makes up the rest.
        let f = factor as f32;
        Plan { factor, sigma: (sigma * sigma - f * f / 4.0).max(0.0).sqrt() / f }
    }
}

/// [`blurred_as_planned`], a long run of repeated columns blurred once.
fn blur_columns_once<const C: usize>(
    data: &mut [u8],
    width: usize,
    height: usize,
    plan: Plan,
    reach: usize,
    edges: Edges,
) {
    match column_cut::<C>(data, width, reach, plan.factor) {
        Some(cut) => {
            let mut narrow = without_columns::<C>(data, width, cut);
            blurred_as_planned::<C>(&mut narrow, width - cut.len, height, plan, edges);
            with_columns_back::<C>(&narrow, width, cut, data);
        }
        None => blurred_as_planned::<C>(data, width, height, plan, edges),
    }
}

/// The blur of `data` as `plan` says: exact, or reduced, blurred and enlarged.
fn blurred_as_planned<const C: usize>(data: &mut [u8], width: usize, height: usize, plan: Plan, edges: Edges) {
    let factor = plan.factor;
    if factor == 1 {
        blur_exact::<C>(data, width, height, plan.sigma, edges);
        return;
    }
    let (small_width, small_height) = (width.div_ceil(factor), height.div_ceil(factor));
    let mut small = reduce::<C>(data, width, height, factor, edges);
    blur_exact::<C>(&mut small, small_width, small_height, plan.sigma, edges);
    enlarge::<C>(&small, small_width, small_height, data, width, height, factor);
}

/// The exact three-box blur of `data` (`width` × `height` pixels of `C` bytes): along the rows,
/// each row on its own, then down the columns, in bands of rows, so large images use every
/// core with the same bytes as one.
fn blur_exact<const C: usize>(data: &mut [u8], width: usize, height: usize, sigma: f32, edges: Edges) {
    if width == 0 || height == 0 {
        return;
    }
    let radii = box_radii(sigma);
    let parallel = width * height * C >= PARALLEL_FROM_BYTES;
    rows_blurred::<C>(data, width * C, radii, edges, parallel);
    let mut scratch = vec![0u8; data.len()];
    let mut in_scratch = false;
    for radius in radii.into_iter().filter(|r| *r > 0) {
        let (from, to) = if in_scratch { (&scratch[..], &mut data[..]) } else { (&data[..], &mut scratch[..]) };
        columns_blurred::<C>(from, to, width * C, height, radius, edges, parallel);
        in_scratch = !in_scratch;
    }
    if in_scratch {
        data.copy_from_slice(&scratch);
    }
}

/// One box blur of `radius` down the columns of `input` into `output` (rows of `stride` bytes):
/// a running sum per byte of a row, moved down one row at a time, so memory is read in order.
/// Bands of rows start their sums afresh; the sums are whole numbers, so any banding gives the
/// same bytes.
fn columns_blurred<const C: usize>(
    input: &[u8],
    output: &mut [u8],
    stride: usize,
    height: usize,
    radius: usize,
    edges: Edges,
    parallel: bool,
) {
    let last = height as isize - 1;
    // Row `y`, with the edge beyond the image: transparent (none) or the first or last row.
    let row = |y: isize| -> Option<&[u8]> {
        let y = match edges {
            Edges::Transparent if y < 0 || y > last => return None,
            _ => y.clamp(0, last) as usize,
        };
        Some(&input[y * stride..(y + 1) * stride])
    };
    let average = Average::new(2 * radius + 1);
    let reach = radius as isize;
    let band = |first: usize, out: &mut [u8]| {
        let mut sums = vec![0u32; stride];
        for y in first as isize - reach..=first as isize + reach {
            if let Some(row) = row(y) {
                sums.iter_mut().zip(row).for_each(|(sum, v)| *sum += u32::from(*v));
            }
        }
        for (i, out_row) in out.chunks_exact_mut(stride).enumerate() {
            out_row.iter_mut().zip(&sums).for_each(|(o, sum)| *o = average.of(*sum));
            let y = (first + i) as isize;
            // The window moves down: the row below it comes in before the top one leaves, so
            // the sums never go below zero.
            if let Some(row) = row(y + reach + 1) {
                sums.iter_mut().zip(row).for_each(|(sum, v)| *sum += u32::from(*v));
            }
            if let Some(row) = row(y - reach) {
                sums.iter_mut().zip(row).for_each(|(sum, v)| *sum -= u32::from(*v));
            }
        }
    };
    if parallel {
        // Bands several windows tall, so starting their sums stays a small part of the work.
        let band_rows = (PARALLEL_FROM_BYTES / stride.max(1)).max(8 * radius + 8);
        output.par_chunks_mut(stride * band_rows).enumerate().for_each(|(b, out)| band(b * band_rows, out));
    } else {
        band(0, output);
    }
}

fn rows_blurred<const C: usize>(data: &mut [u8], stride: usize, radii: [usize; 3], edges: Edges, parallel: bool) {
    let blur_row = |padded: &mut Vec<u8>, row: &mut [u8]| {
        for radius in radii {
            horizontal_pass::<C>(row, padded, radius, edges);
        }
    };
    if parallel {
        data.par_chunks_mut(stride).for_each_init(Vec::new, blur_row);
    } else {
        let mut padded = Vec::new();
        data.chunks_mut(stride).for_each(|row| blur_row(&mut padded, row));
    }
}

/// The image reduced `factor` times: each pixel the mean of a `factor` × `factor` block. Beyond
/// the edges pixels are transparent, or (extended edges) the block's own pixels only count.
fn reduce<const C: usize>(data: &[u8], width: usize, height: usize, factor: usize, edges: Edges) -> Vec<u8> {
    let (small_width, small_height) = (width.div_ceil(factor), height.div_ceil(factor));
    let mut small = vec![0u8; small_width * small_height * C];
    let reduce_row = |(sy, row): (usize, &mut [u8])| {
        // The sums of the row's blocks, the image rows added in order (memory read in order).
        let mut sums = vec![0u32; small_width * C];
        let rows = sy * factor..((sy + 1) * factor).min(height);
        let block_rows = rows.len();
        for y in rows {
            let line = &data[y * width * C..(y + 1) * width * C];
            for (sum, block) in sums.chunks_exact_mut(C).zip(line.chunks(factor * C)) {
                for pixel in block.chunks_exact(C) {
                    for c in 0..C {
                        sum[c] += u32::from(pixel[c]);
                    }
                }
            }
        }
        for (sx, (pixel, sum)) in row.chunks_exact_mut(C).zip(sums.chunks_exact(C)).enumerate() {
            let block_columns = factor.min(width - sx * factor);
            let divisor = match edges {
                Edges::Transparent => factor * factor,
                Edges::Extend => block_rows * block_columns,
            } as u32;
            for c in 0..C {
                // Whole blocks divide by 4 or 16: a shift (a division per channel cost more
                // than the rest of the reduction).
                pixel[c] = if divisor.is_power_of_two() {
                    ((sum[c] + divisor / 2) >> divisor.trailing_zeros()).min(255) as u8
                } else {
                    ((sum[c] + divisor / 2) / divisor).min(255) as u8
                };
            }
        }
    };
    if width * height * C >= PARALLEL_FROM_BYTES {
        small.par_chunks_mut(small_width * C).enumerate().for_each(reduce_row);
    } else {
        small.chunks_mut(small_width * C).enumerate().for_each(reduce_row);
    }
    small
}

/// `small` scaled `factor` times back up into `data`, bilinearly (sample centers aligned), in
/// fixed point: the weights depend only on the column and the row, so they are worked out once.
/// Each reduced row is widened once (in 256ths, not rounded), then each output row mixes two
/// widened rows in a plain loop the compiler vectorises: the same integers as mixing four
/// pixels per output pixel, one rounding at the end.
fn enlarge<const C: usize>(
    small: &[u8],
    small_width: usize,
    small_height: usize,
    data: &mut [u8],
    width: usize,
    height: usize,
    factor: usize,
) {
    let columns = taps(width, small_width, factor);
    let rows = taps(height, small_height, factor);
    let line = width * C;
    let mut wide = vec![0u32; small_height * line];
    let widen_row = |(out, row): (&mut [u32], &[u8])| {
        for (pixel, &(x0, x1, wx)) in out.chunks_exact_mut(C).zip(&columns) {
            let (left, right) = (&row[x0 * C..x0 * C + C], &row[x1 * C..x1 * C + C]);
            for c in 0..C {
                pixel[c] = u32::from(left[c]) * (256 - wx) + u32::from(right[c]) * wx;
            }
        }
    };
    let parallel = width * height * C >= PARALLEL_FROM_BYTES;
    if parallel {
        wide.par_chunks_mut(line).zip(small.par_chunks(small_width * C)).for_each(widen_row);
    } else {
        wide.chunks_mut(line).zip(small.chunks(small_width * C)).for_each(widen_row);
    }
    let wide = &wide;
    let enlarge_row = |(out, &(y0, y1, wy)): (&mut [u8], &(usize, usize, u32))| {
        let (top, bottom) = (&wide[y0 * line..(y0 + 1) * line], &wide[y1 * line..(y1 + 1) * line]);
        // At most 255 · 256 · 256 before the shift.
        for ((o, t), b) in out.iter_mut().zip(top).zip(bottom) {
            *o = ((t * (256 - wy) + b * wy + (1 << 15)) >> 16) as u8;
        }
        if C == 4 {
            // Premultiplied colors stay at or below the alpha (rounding could put them above).
            for pixel in out.chunks_exact_mut(C) {
                let alpha = pixel[C - 1];
                pixel[..C - 1].iter_mut().for_each(|v| *v = (*v).min(alpha));
            }
        }
    };
    if parallel {
        data.par_chunks_mut(line).zip(rows.par_iter()).for_each(enlarge_row);
    } else {
        data.chunks_mut(line).zip(rows.iter()).for_each(enlarge_row);
    }
}

/// For each of `count` output pixels, the two reduced pixels around its center and the weight
/// of the second, in 256ths.
fn taps(count: usize, small_count: usize, factor: usize) -> Vec<(usize, usize, u32)> {
    let last = (small_count - 1) as i64 * 256;
    (0..count)
        .map(|i| {
            // The center of pixel i, in reduced pixels: (i + 0.5) / factor − 0.5, in 256ths.
            let at = (((2 * i + 1) * 256 / (2 * factor)) as i64 - 128).clamp(0, last);
            let first = (at >> 8) as usize;
            (first, (first + 1).min(small_count - 1), (at & 255) as u32)
        })
        .collect()
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

/// One box blur along a row of pixels of `C` bytes, in place. `padded` is scratch space: the row
/// with `radius` pixels of edge (transparent or repeated) on each side, so the sliding sum needs
/// no bounds checks.
fn horizontal_pass<const C: usize>(row: &mut [u8], padded: &mut Vec<u8>, radius: usize, edges: Edges) {
    if radius == 0 || row.len() < C {
        return;
    }
    padded.clear();
    let (mut before, mut after) = ([0u8; C], [0u8; C]);
    if edges == Edges::Extend {
        before.copy_from_slice(&row[..C]);
        after.copy_from_slice(&row[row.len() - C..]);
    }
    for _ in 0..=radius {
        padded.extend_from_slice(&before);
    }
    padded.extend_from_slice(row);
    for _ in 0..=radius {
        padded.extend_from_slice(&after);
    }
    let average = Average::new(2 * radius + 1);
    let mut sum = [0u32; C];
    // The window of pixel 0 covers padded pixels 1 ..= 2 radius + 1; pixel i's window gains
    // padded pixel i + 2 radius + 2 and loses pixel i + 1 as it moves on.
    for pixel in padded[C..(2 * radius + 2) * C].chunks_exact(C) {
        for c in 0..C {
            sum[c] += u32::from(pixel[c]);
        }
    }
    let entering = padded[(2 * radius + 2) * C..].chunks_exact(C);
    let leaving = padded[C..].chunks_exact(C);
    for ((out, enter), leave) in row.chunks_exact_mut(C).zip(entering).zip(leaving) {
        for c in 0..C {
            out[c] = average.of(sum[c]);
            sum[c] = sum[c] + u32::from(enter[c]) - u32::from(leave[c]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A card-like shape: an opaque rounded block and a translucent bar, on transparency.
    fn shapes(width: u32, height: u32) -> Pixmap {
        let mut pixmap = Pixmap::new(width, height).expect("pixmap");
        let mut paint = tiny_skia::Paint::default();
        paint.set_color_rgba8(30, 60, 200, 255);
        let card = tiny_skia::PathBuilder::from_rect(tiny_skia::Rect::from_xywh(60.0, 50.0, 180.0, 120.0).unwrap());
        pixmap.fill_path(&card, &paint, tiny_skia::FillRule::Winding, tiny_skia::Transform::identity(), None);
        paint.set_color_rgba8(250, 200, 10, 128);
        let bar = tiny_skia::PathBuilder::from_rect(tiny_skia::Rect::from_xywh(20.0, 150.0, 260.0, 30.0).unwrap());
        pixmap.fill_path(&bar, &paint, tiny_skia::FillRule::Winding, tiny_skia::Transform::identity(), None);
        pixmap
    }

    #[test]
    fn a_wide_blur_on_a_reduced_copy_stays_within_a_few_levels_of_the_exact_one() {
        for edges in [Edges::Transparent, Edges::Extend] {
            for sigma in [8.0f32, 12.0, 20.0, 33.0, 60.0] {
                let mut reduced = shapes(300, 240);
                let mut exact = reduced.clone();
                blur(reduced.as_mut(), sigma, edges);
                let (w, h) = (exact.width() as usize, exact.height() as usize);
                blur_exact::<4>(exact.data_mut(), w, h, sigma, edges);
                let differences: Vec<u32> =
                    reduced.data().iter().zip(exact.data()).map(|(a, b)| u32::from(a.abs_diff(*b))).collect();
                let max = differences.iter().max().copied().unwrap_or(0);
                let mean = differences.iter().sum::<u32>() as f64 / differences.len() as f64;
                assert!(max <= 3 && mean < 0.7, "{edges:?} sigma {sigma}: max {max}, mean {mean:.3}");
            }
        }
    }

    /// The `width` × `height` image as `height` × `width` (columns become rows).
    fn transpose(data: &[u8], width: usize, height: usize) -> Vec<u8> {
        let mut out = vec![0u8; data.len()];
        for (x, out_row) in out.chunks_mut(height * 4).enumerate() {
            for (y, pixel) in out_row.chunks_exact_mut(4).enumerate() {
                let at = (y * width + x) * 4;
                pixel.copy_from_slice(&data[at..at + 4]);
            }
        }
        out
    }

    #[test]
    fn rows_and_columns_in_parallel_give_the_bytes_of_one_thread() {
        let image = shapes(300, 240);
        let (w, h) = (300usize, 240usize);
        let mut serial = image.data().to_vec();
        rows_blurred::<4>(&mut serial, w * 4, box_radii(5.0), Edges::Transparent, false);
        let mut data = image.data().to_vec();
        rows_blurred::<4>(&mut data, w * 4, box_radii(5.0), Edges::Transparent, true);
        assert_eq!(data, serial);
        for edges in [Edges::Transparent, Edges::Extend] {
            for radius in [1usize, 4, 30] {
                // Down the columns, in one band and in bands: the bytes of the same blur along
                // the rows of the transposed image.
                let mut rows = transpose(image.data(), w, h);
                let mut padded = Vec::new();
                rows.chunks_mut(h * 4).for_each(|row| horizontal_pass::<4>(row, &mut padded, radius, edges));
                let expected = transpose(&rows, h, w);
                for parallel in [false, true] {
                    let mut out = vec![0u8; image.data().len()];
                    columns_blurred::<4>(image.data(), &mut out, w * 4, h, radius, edges, parallel);
                    assert!(out == expected, "{edges:?} radius {radius} parallel {parallel}");
                }
            }
        }
    }

    #[test]
    fn a_blurred_mask_is_the_alpha_of_the_blurred_pixels() {
        // Shadows blur their coverage alone: it must be exactly what blurring the colored
        // pixels does to their alpha, exact and reduced, with both kinds of edges.
        for edges in [Edges::Transparent, Edges::Extend] {
            for sigma in [2.0f32, 7.0, 15.0, 40.0] {
                let mut pixels = shapes(300, 240);
                let mut mask = tiny_skia::Mask::new(300, 240).expect("mask");
                for (coverage, pixel) in mask.data_mut().iter_mut().zip(pixels.data().chunks_exact(4)) {
                    *coverage = pixel[3];
                }
                blur(pixels.as_mut(), sigma, edges);
                blur_mask(&mut mask, sigma, edges);
                let alpha: Vec<u8> = pixels.data().chunks_exact(4).map(|p| p[3]).collect();
                assert_eq!(alpha, mask.data(), "{edges:?} sigma {sigma}");
            }
        }
    }

    /// A 1-byte coverage of a rounded card (a shadow's) and an RGBA card on a flat page with a
    /// stripe (a background blur's backdrop): long runs of equal rows and columns.
    fn repeating_images() -> Vec<(usize, usize, Vec<u8>, bool)> {
        let mut card = tiny_skia::Mask::new(423, 515).expect("mask");
        let rounded = {
            let mut builder = tiny_skia::PathBuilder::new();
            let (l, t, r, b, k) = (61.3f32, 65.0f32, 361.3f32, 457.0f32, 20.0f32);
            builder.move_to(l + k, t);
            builder.line_to(r - k, t);
            builder.quad_to(r, t, r, t + k);
            builder.line_to(r, b - k);
            builder.quad_to(r, b, r - k, b);
            builder.line_to(l + k, b);
            builder.quad_to(l, b, l, b - k);
            builder.line_to(l, t + k);
            builder.quad_to(l, t, l + k, t);
            builder.close();
            builder.finish().expect("path")
        };
        card.fill_path(&rounded, tiny_skia::FillRule::Winding, true, tiny_skia::Transform::identity());
        let mut page = Pixmap::new(300, 390).expect("pixmap");
        page.fill(tiny_skia::Color::from_rgba8(60, 40, 20, 255));
        let mut paint = tiny_skia::Paint::default();
        paint.set_color_rgba8(250, 200, 10, 200);
        let stripe = tiny_skia::PathBuilder::from_rect(tiny_skia::Rect::from_xywh(0.0, 0.0, 300.0, 2.5).unwrap());
        page.fill_path(&stripe, &paint, tiny_skia::FillRule::Winding, tiny_skia::Transform::identity(), None);
        vec![
            (423, 515, card.data().to_vec(), false),
            (300, 390, page.data().to_vec(), true),
            (300, 240, shapes(300, 240).data().to_vec(), true),
        ]
    }

    #[test]
    fn repeated_rows_and_columns_blurred_once_give_the_bytes_of_the_whole_blur() {
        let mut cut_somewhere = 0;
        for (width, height, data, rgba) in repeating_images() {
            for sigma in [1.5f32, 7.0, 12.0, 20.0, 33.0, 60.0] {
                for edges in [Edges::Transparent, Edges::Extend] {
                    let plan = Plan::new(sigma, width, height);
                    let (mut once, mut whole) = (data.clone(), data.clone());
                    if rgba {
                        blur_pixels::<4>(&mut once, width, height, sigma, edges);
                        blurred_as_planned::<4>(&mut whole, width, height, plan, edges);
                    } else {
                        blur_pixels::<1>(&mut once, width, height, sigma, edges);
                        blurred_as_planned::<1>(&mut whole, width, height, plan, edges);
                    }
                    assert!(once == whole, "{width} x {height}, sigma {sigma}, {edges:?}");
                    let reach = (box_radii(plan.sigma).iter().sum::<usize>() + 2) * plan.factor + plan.factor;
                    let stride = width * if rgba { 4 } else { 1 };
                    cut_somewhere += usize::from(row_cut(&data, stride, reach, plan.factor).is_some());
                }
            }
        }
        // The shortcut ran for most of them (else this test compares the whole blur with itself).
        assert!(cut_somewhere >= 12, "cut {cut_somewhere} times");
    }

    /// The reduction and the enlargement, written for speed, against their definitions: the
    /// rounded mean of each block (the block's own pixels at extended edges) and the bilinear
    /// mix of the two reduced rows and columns around each pixel's center.
    #[test]
    fn reduce_and_enlarge_match_their_definitions() {
        let image = shapes(203, 157);
        let (width, height) = (203usize, 157usize);
        let data = image.data();
        for factor in [2usize, 4] {
            for edges in [Edges::Transparent, Edges::Extend] {
                let (sw, sh) = (width.div_ceil(factor), height.div_ceil(factor));
                let small = reduce::<4>(data, width, height, factor, edges);
                for (i, value) in small.iter().enumerate() {
                    let (c, sx, sy) = (i % 4, (i / 4) % sw, i / 4 / sw);
                    let block: Vec<u32> = (sy * factor..((sy + 1) * factor).min(height))
                        .flat_map(|y| (sx * factor..((sx + 1) * factor).min(width)).map(move |x| (x, y)))
                        .map(|(x, y)| u32::from(data[(y * width + x) * 4 + c]))
                        .collect();
                    let divisor =
                        if edges == Edges::Transparent { (factor * factor) as u32 } else { block.len() as u32 };
                    let mean = (block.iter().sum::<u32>() + divisor / 2) / divisor;
                    assert_eq!(u32::from(*value), mean, "factor {factor} {edges:?} at {sx}, {sy}");
                }
                let mut large = vec![0u8; data.len()];
                enlarge::<4>(&small, sw, sh, &mut large, width, height, factor);
                let (columns, rows) = (taps(width, sw, factor), taps(height, sh, factor));
                for y in 0..height {
                    let (y0, y1, wy) = rows[y];
                    for x in 0..width {
                        let (x0, x1, wx) = columns[x];
                        let at = |sx: usize, sy: usize, c: usize| u32::from(small[(sy * sw + sx) * 4 + c]);
                        let mix = |c: usize| {
                            let top = at(x0, y0, c) * (256 - wy) + at(x0, y1, c) * wy;
                            let bottom = at(x1, y0, c) * (256 - wy) + at(x1, y1, c) * wy;
                            (top * (256 - wx) + bottom * wx + (1 << 15)) >> 16
                        };
                        let alpha = mix(3);
                        for c in 0..4 {
                            let expected = if c == 3 { alpha } else { mix(c).min(alpha) };
                            assert_eq!(u32::from(large[(y * width + x) * 4 + c]), expected, "at {x}, {y}");
                        }
                    }
                }
            }
        }
    }

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
        blur(pixmap.as_mut(), 3.0, Edges::Transparent);
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
        blur(pixmap.as_mut(), 4.0, Edges::Extend);
        assert!(pixmap.data().chunks(4).all(|p| p == [10, 20, 30, 255]));
    }

    #[test]
    fn an_enormous_blur_ends_at_once_and_spreads_evenly() {
        let mut pixmap = Pixmap::new(40, 30).expect("pixmap");
        pixmap.fill(tiny_skia::Color::from_rgba8(200, 100, 50, 255));
        // 1e12 would mean passes a trillion pixels wide; it is as wide as the image instead.
        blur(pixmap.as_mut(), 1e12, Edges::Extend);
        let first = pixmap.pixel(0, 0).expect("pixel");
        assert!(pixmap.pixels().iter().all(|p| *p == first), "a uniform image stays uniform");
    }
}
