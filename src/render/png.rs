//! PNG encoding with the `png` crate's fast compression: straight (not premultiplied) RGBA,
//! 8 bits a channel, always the same settings, so the same pixels give the same bytes.

use tiny_skia::Pixmap;

/// The pixmap as PNG bytes.
pub fn encode_png(pixmap: &Pixmap) -> Vec<u8> {
    let mut rgba = pixmap.data().to_vec();
    for pixel in rgba.chunks_exact_mut(4) {
        let alpha = u32::from(pixel[3]);
        // Opaque and fully transparent pixels are the same premultiplied or not.
        if alpha != 255 && alpha != 0 {
            for channel in &mut pixel[..3] {
                *channel = ((u32::from(*channel) * 255 + alpha / 2) / alpha).min(255) as u8;
            }
        }
    }
    let mut bytes = Vec::with_capacity(rgba.len() / 4);
    let mut encoder = png::Encoder::new(&mut bytes, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    // The Sub filter alone compresses designs (flat areas, gradients) better than adaptive
    // filtering at a third of its time.
    encoder.set_filter(png::Filter::Sub);
    // Writing to memory cannot fail but for a size png refuses, which a Pixmap cannot have.
    if let Ok(mut writer) = encoder.write_header() {
        let _ = writer.write_image_data(&rgba);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pngs_round_trip_straight_colors() {
        let mut pixmap = Pixmap::new(3, 2).expect("pixmap");
        pixmap.fill(tiny_skia::Color::from_rgba8(200, 100, 50, 128));
        let bytes = encode_png(&pixmap);
        let decoded = crate::render::images::decode(&bytes).expect("decodes");
        let pixel = decoded.pixel(2, 1).expect("pixel").demultiply();
        // Premultiplied storage rounds translucent colors by a unit at most.
        assert!(pixel.red().abs_diff(200) <= 1 && pixel.green().abs_diff(100) <= 1 && pixel.blue().abs_diff(50) <= 1);
        assert_eq!(pixel.alpha(), 128);
        assert_eq!(encode_png(&pixmap), bytes, "the same pixels give the same bytes");
    }
}
