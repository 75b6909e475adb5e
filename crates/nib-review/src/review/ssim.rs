//! Structural similarity (SSIM) of two renders: how alike they look as structure (edges,
//! textures, contrast), not pixel for pixel — the figure export checks use to compare nib's
//! PNG with another renderer's picture of an SVG, PDF or HTML export (1 = identical).
//!
//! Luma over white (translucent pixels composited first), windows of [`WINDOW`] × [`WINDOW`]
//! pixels every [`STEP`] pixels (half-overlapping, so an edge is seen by several windows), the
//! usual constants (K1 = 0.01, K2 = 0.03 of the 255 range); the score is the mean over windows.
//! As in Wang et al.'s reference implementation, big images are first averaged down by a whole
//! factor so that their shorter side is about [`DOWNSAMPLE_TO`] pixels: SSIM then judges the
//! structure a viewer sees at a glance rather than subpixel antialiasing, and whole corpus
//! frames (1440 × 10 000 px) are compared in little time and memory even in a debug build.

use tiny_skia::Pixmap;

/// Side of the square windows compared, in pixels (the classic 8 × 8 of Wang et al.).
pub(crate) const WINDOW: usize = 8;

/// The shorter side, in pixels, that big images are averaged down to (the reference
/// implementation's 256).
pub(crate) const DOWNSAMPLE_TO: usize = 256;

/// Distance between neighbouring windows, in pixels.
pub const STEP: usize = 4;

const C1: f64 = (0.01 * 255.0) * (0.01 * 255.0);
const C2: f64 = (0.03 * 255.0) * (0.03 * 255.0);

/// The SSIM of `a` and `b` over the area both cover (their top-left corners aligned); 1 for
/// identical images. Images smaller than a window are compared as one window.
pub fn ssim(a: &Pixmap, b: &Pixmap) -> f64 {
    let width = a.width().min(b.width()) as usize;
    let height = a.height().min(b.height()) as usize;
    if width == 0 || height == 0 {
        return 1.0;
    }
    let factor = ((width.min(height) as f64 / DOWNSAMPLE_TO as f64).round() as usize).max(1);
    let (la, lb) = (luma(a, width, height, factor), luma(b, width, height, factor));
    let (width, height) = (width / factor, height / factor);
    if width == 0 || height == 0 {
        return 1.0;
    }
    let window = WINDOW.min(width).min(height);
    let count = (window * window) as f64;
    let (mut total, mut windows) = (0.0, 0usize);
    let (ys, xs) = (window_starts(height, window), window_starts(width, window));
    for &y in &ys {
        for &x in &xs {
            let [mut sa, mut sb, mut saa, mut sbb, mut sab] = [0.0f64; 5];
            for row in y..y + window {
                let at = row * width + x;
                for (p, q) in la[at..at + window].iter().zip(&lb[at..at + window]) {
                    let (p, q) = (f64::from(*p), f64::from(*q));
                    sa += p;
                    sb += q;
                    saa += p * p;
                    sbb += q * q;
                    sab += p * q;
                }
            }
            let (mean_a, mean_b) = (sa / count, sb / count);
            let var_a = (saa / count - mean_a * mean_a).max(0.0);
            let var_b = (sbb / count - mean_b * mean_b).max(0.0);
            let covariance = sab / count - mean_a * mean_b;
            total += ((2.0 * mean_a * mean_b + C1) * (2.0 * covariance + C2))
                / ((mean_a * mean_a + mean_b * mean_b + C1) * (var_a + var_b + C2));
            windows += 1;
        }
    }
    if windows == 0 { 1.0 } else { total / windows as f64 }
}

/// Where windows of `window` pixels start along a side of `extent` pixels: every [`STEP`],
/// and one flush with the far edge so that no pixel is left out.
fn window_starts(extent: usize, window: usize) -> Vec<usize> {
    let last = extent - window;
    let mut starts: Vec<usize> = (0..=last).step_by(STEP).collect();
    if starts.last() != Some(&last) {
        starts.push(last);
    }
    starts
}

/// Rec. 601 luma of the top-left `width` × `height` pixels, composited over white, averaged
/// over `factor` × `factor` blocks (the last partial row and column of blocks left out).
fn luma(pixmap: &Pixmap, width: usize, height: usize, factor: usize) -> Vec<f32> {
    let (out_width, out_height) = (width / factor, height / factor);
    let mut out = vec![0.0f32; out_width * out_height];
    let full = pixmap.width() as usize;
    let pixels = pixmap.pixels();
    for y in 0..out_height * factor {
        let row = &mut out[(y / factor) * out_width..(y / factor + 1) * out_width];
        for (x, pixel) in pixels[y * full..y * full + out_width * factor].iter().enumerate() {
            // Premultiplied: the color plus the white showing through.
            let white = f32::from(255 - pixel.alpha());
            let over = |c: u8| f32::from(c) + white;
            row[x / factor] += 0.299 * over(pixel.red()) + 0.587 * over(pixel.green()) + 0.114 * over(pixel.blue());
        }
    }
    let area = (factor * factor) as f32;
    for value in &mut out {
        *value /= area;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker(size: u32, shift: u32) -> Pixmap {
        let mut pixmap = Pixmap::new(size, size).expect("pixmap");
        for y in 0..size {
            for x in 0..size {
                let dark = ((x + shift) / 4 + y / 4).is_multiple_of(2);
                let v = if dark { 30 } else { 220 };
                pixmap.pixels_mut()[(y * size + x) as usize] =
                    tiny_skia::ColorU8::from_rgba(v, v, v, 255).premultiply();
            }
        }
        pixmap
    }

    #[test]
    fn identical_images_score_one_and_different_ones_less() {
        let a = checker(32, 0);
        assert!((ssim(&a, &a) - 1.0).abs() < 1e-9);
        let shifted = checker(32, 2);
        let score = ssim(&a, &shifted);
        assert!(score < 0.5, "a shifted pattern is structurally different: {score}");
        let mut blank = Pixmap::new(32, 32).expect("pixmap");
        blank.fill(tiny_skia::Color::WHITE);
        assert!(ssim(&a, &blank) < 0.1);
        // Transparent is white: a transparent image equals a white one.
        assert!((ssim(&Pixmap::new(16, 16).expect("pixmap"), &blank) - 1.0).abs() < 1e-9);
    }
}
