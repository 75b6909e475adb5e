//! Structural similarity (SSIM) of two renders: how alike they look as structure (edges,
//! textures, contrast), not pixel for pixel — the figure export checks use to compare nib's
//! PNG with another renderer's picture of an SVG, PDF or HTML export (1 = identical).
//!
//! Luma over white (translucent pixels composited first), windows of [`WINDOW`] × [`WINDOW`]
//! pixels at every position, the usual constants (K1 = 0.01, K2 = 0.03 of the 255 range); the
//! score is the mean over windows. Sums come from integral images, so the cost is linear in
//! the pixels whatever the window.

use tiny_skia::Pixmap;

/// Side of the square windows compared, in pixels (the classic 8 × 8 of Wang et al.).
pub const WINDOW: usize = 8;

const C1: f64 = (0.01 * 255.0) * (0.01 * 255.0);
const C2: f64 = (0.03 * 255.0) * (0.03 * 255.0);

/// The SSIM of `a` and `b` over the area both cover (their top-left corners aligned); 1 for
/// identical images. Images smaller than a window are compared as one window.
pub fn ssim(a: &Pixmap, b: &Pixmap) -> f64 {
    let width = a.width().min(b.width()) as usize;
    let height = a.height().min(b.height()) as usize;
    let (la, lb) = (luma(a, width, height), luma(b, width, height));
    let window = WINDOW.min(width).min(height).max(1);
    // Integral images of x, y, x², y² and xy, one row and column of zeros in front.
    let stride = width + 1;
    let mut sums = vec![[0.0f64; 5]; stride * (height + 1)];
    for y in 0..height {
        let mut row = [0.0f64; 5];
        for x in 0..width {
            let (p, q) = (la[y * width + x], lb[y * width + x]);
            let values = [p, q, p * p, q * q, p * q];
            for (total, value) in row.iter_mut().zip(values) {
                *total += value;
            }
            let above = sums[y * stride + x + 1];
            let cell = &mut sums[(y + 1) * stride + x + 1];
            for i in 0..5 {
                cell[i] = above[i] + row[i];
            }
        }
    }
    let count = (window * window) as f64;
    let (mut total, mut windows) = (0.0, 0usize);
    for y in 0..=(height - window) {
        for x in 0..=(width - window) {
            let corner = |cx: usize, cy: usize| sums[cy * stride + cx];
            let (tl, tr, bl, br) =
                (corner(x, y), corner(x + window, y), corner(x, y + window), corner(x + window, y + window));
            let s: [f64; 5] = std::array::from_fn(|i| br[i] - tr[i] - bl[i] + tl[i]);
            let (mean_a, mean_b) = (s[0] / count, s[1] / count);
            let var_a = (s[2] / count - mean_a * mean_a).max(0.0);
            let var_b = (s[3] / count - mean_b * mean_b).max(0.0);
            let covariance = s[4] / count - mean_a * mean_b;
            total += ((2.0 * mean_a * mean_b + C1) * (2.0 * covariance + C2))
                / ((mean_a * mean_a + mean_b * mean_b + C1) * (var_a + var_b + C2));
            windows += 1;
        }
    }
    if windows == 0 { 1.0 } else { total / windows as f64 }
}

/// Rec. 601 luma of the top-left `width` × `height` pixels, composited over white.
fn luma(pixmap: &Pixmap, width: usize, height: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(width * height);
    let full = pixmap.width() as usize;
    let pixels = pixmap.pixels();
    for y in 0..height {
        for pixel in &pixels[y * full..y * full + width] {
            // Premultiplied: the color plus the white showing through.
            let white = f64::from(255 - pixel.alpha());
            let over = |c: u8| f64::from(c) + white;
            out.push(0.299 * over(pixel.red()) + 0.587 * over(pixel.green()) + 0.114 * over(pixel.blue()));
        }
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
