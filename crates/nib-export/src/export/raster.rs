//! Raster formats besides PNG: JPEG (baseline, no transparency: painted over white unless a
//! background is given) and WebP (lossy at a quality, lossless at 100).

use tiny_skia::Pixmap;

use super::ExportError;

/// The quality exports use when none is given: a JPEG or WebP that looks like the PNG at a
/// fraction of its size.
pub(crate) const DEFAULT_QUALITY: u8 = 90;

/// The pixmap as JPEG bytes at `quality` (1–100). JPEG has no transparency: translucent
/// pixels are painted over white.
pub(crate) fn encode_jpeg(pixmap: &Pixmap, quality: u8) -> Result<Vec<u8>, ExportError> {
    check_quality(quality)?;
    let (width, height) = (side(pixmap.width(), "JPEG")?, side(pixmap.height(), "JPEG")?);
    let mut rgb = Vec::with_capacity(pixmap.data().len() / 4 * 3);
    for pixel in pixmap.pixels() {
        // Premultiplied over white: the color plus the white that shows through.
        let white = 255 - u16::from(pixel.alpha());
        let over = |channel: u8| (u16::from(channel) + white).min(255) as u8;
        rgb.extend_from_slice(&[over(pixel.red()), over(pixel.green()), over(pixel.blue())]);
    }
    let mut bytes = Vec::new();
    let encoder = jpeg_encoder::Encoder::new(&mut bytes, quality);
    encoder
        .encode(&rgb, width, height, jpeg_encoder::ColorType::Rgb)
        .map_err(|e| ExportError::Encode { format: "JPEG", reason: e.to_string() })?;
    Ok(bytes)
}

/// The pixmap as WebP bytes: lossy at `quality` below 100, lossless at 100.
pub(crate) fn encode_webp(pixmap: &Pixmap, quality: u8) -> Result<Vec<u8>, ExportError> {
    check_quality(quality)?;
    let mut rgba = pixmap.data().to_vec();
    crate::render::demultiply(&mut rgba);
    let encoder = webp::Encoder::from_rgba(&rgba, pixmap.width(), pixmap.height());
    let encoded = if quality >= 100 { encoder.encode_lossless() } else { encoder.encode(f32::from(quality)) };
    if encoded.is_empty() {
        return Err(ExportError::Encode { format: "WebP", reason: "libwebp produced no data".into() });
    }
    Ok(encoded.to_vec())
}

fn check_quality(quality: u8) -> Result<(), ExportError> {
    if (1..=100).contains(&quality) { Ok(()) } else { Err(ExportError::BadQuality(quality)) }
}

/// A side as JPEG headers store it (16 bits).
fn side(pixels: u32, format: &'static str) -> Result<u16, ExportError> {
    u16::try_from(pixels)
        .map_err(|_| ExportError::Encode { format, reason: format!("{pixels} pixels is more than a side may have") })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red_square() -> Pixmap {
        let mut pixmap = Pixmap::new(16, 8).expect("pixmap");
        pixmap.fill(tiny_skia::Color::from_rgba8(220, 20, 20, 255));
        pixmap
    }

    #[test]
    fn jpegs_and_webps_have_their_signatures_and_obey_the_quality() {
        let pixmap = red_square();
        let jpeg = encode_jpeg(&pixmap, 90).expect("jpeg");
        assert!(jpeg.starts_with(&[0xFF, 0xD8]));
        let decoded = crate::render::decode_image(&jpeg).expect("decodes");
        let pixel = decoded.pixel(3, 3).expect("pixel");
        assert!(pixel.red() > 200 && pixel.green() < 50, "{pixel:?}");
        let webp = encode_webp(&pixmap, 80).expect("webp");
        assert!(webp.starts_with(b"RIFF") && &webp[8..12] == b"WEBP");
        assert!(encode_webp(&pixmap, 100).expect("lossless").starts_with(b"RIFF"));
        assert_eq!(encode_jpeg(&pixmap, 0), Err(ExportError::BadQuality(0)));
        assert_eq!(encode_webp(&pixmap, 101), Err(ExportError::BadQuality(101)));
    }

    #[test]
    fn transparent_pixels_become_white_in_a_jpeg() {
        let pixmap = Pixmap::new(8, 8).expect("transparent");
        let decoded = crate::render::decode_image(&encode_jpeg(&pixmap, 95).expect("jpeg")).expect("decodes");
        let pixel = decoded.pixel(4, 4).expect("pixel");
        assert!(pixel.red() > 250 && pixel.blue() > 250);
    }
}
