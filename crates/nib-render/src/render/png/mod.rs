//! PNG encoding: straight (not premultiplied) RGBA, 8 bits a channel, Sub-filtered rows
//! compressed in strips on every core (`deflate.rs`), always the same way, so the same pixels
//! give the same bytes.

mod deflate;

use tiny_skia::Pixmap;

/// The most bytes of compressed data one IDAT chunk holds. A strip of a picture of at most
/// `MAX_SIDE` pixels a side compresses to at most about 230 KiB and fits; a larger one (a
/// library caller's wider pixmap) is written as a larger chunk, which PNG allows.
const IDAT_BYTES: usize = 1 << 20;

/// The pixmap as PNG bytes.
pub fn encode_png(pixmap: &Pixmap) -> Vec<u8> {
    // Opaque and fully transparent pixels are the same premultiplied or not; the others are
    // demultiplied a row at a time as each strip is filtered, so a large image is never copied
    // whole.
    encode(pixmap, true)
}

/// Encodes a rendered picture: as [`encode_png`], without looking at each pixel's alpha when
/// the render knows them all opaque.
pub fn encode_rendered(rendered: &super::Rendered) -> Vec<u8> {
    encode_painted(&rendered.pixmap, rendered.opaque)
}

/// Encodes pixels a render painted, `opaque` when it knows every one of them opaque (see
/// [`encode_rendered`]).
pub fn encode_painted(pixmap: &Pixmap, opaque: bool) -> Vec<u8> {
    debug_assert!(
        !opaque || pixmap.data().chunks_exact(4).all(|pixel| pixel[3] == 255),
        "a picture said to be opaque has a translucent pixel"
    );
    encode(pixmap, !opaque)
}

fn encode(pixmap: &Pixmap, demultiply: bool) -> Vec<u8> {
    let strips = deflate::zlib_strips(pixmap.data(), pixmap.width() as usize * 4, demultiply);
    let compressed: usize = strips.iter().map(Vec::len).sum();
    // The signature, header and end, and the 12 bytes of each IDAT chunk.
    let mut bytes = Vec::with_capacity(compressed + (compressed / IDAT_BYTES + 1) * 12 + 64);
    let mut encoder = png::Encoder::new(&mut bytes, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    // Writing to memory cannot fail but for a size png refuses, which a Pixmap cannot have.
    let written = encoder.write_header().and_then(|mut writer| {
        // Strips are gathered into chunks of up to IDAT_BYTES, each strip freed once it is
        // copied: the compressed picture is held about once, not once more as one stream.
        let mut chunk = Vec::with_capacity(IDAT_BYTES.min(compressed));
        for strip in strips {
            if !chunk.is_empty() && chunk.len() + strip.len() > IDAT_BYTES {
                writer.write_chunk(png::chunk::IDAT, &chunk)?;
                chunk.clear();
            }
            chunk.extend_from_slice(&strip);
        }
        writer.write_chunk(png::chunk::IDAT, &chunk)?;
        writer.finish()
    });
    debug_assert!(written.is_ok(), "{written:?}");
    bytes
}

/// Premultiplied RGBA pixels to straight ones, in place: each channel `c` of a pixel of alpha
/// `a` becomes `(c·255 + a/2) / a`, looked up rather than divided (a picture of translucent
/// pixels, a frame at 90 % opacity, spent most of its encoding on those divisions).
pub fn demultiply(pixels: &mut [u8]) {
    for pixel in pixels.chunks_exact_mut(4) {
        let alpha = usize::from(pixel[3]);
        if alpha != 255 && alpha != 0 {
            let straight = &STRAIGHT[alpha * 256..alpha * 256 + 256];
            for channel in &mut pixel[..3] {
                *channel = straight[usize::from(*channel)];
            }
        }
    }
}

/// `STRAIGHT[a·256 + c]`: the straight value of channel `c` under alpha `a` (see [`demultiply`]).
static STRAIGHT: [u8; 256 * 256] = straight_table();

const fn straight_table() -> [u8; 256 * 256] {
    let mut table = [0u8; 256 * 256];
    let mut alpha = 1;
    while alpha < 256 {
        let mut channel = 0;
        while channel < 256 {
            let straight = (channel * 255 + alpha / 2) / alpha;
            table[alpha * 256 + channel] = if straight > 255 { 255 } else { straight as u8 };
            channel += 1;
        }
        alpha += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table gives what the division gives, for every alpha and channel.
    #[test]
    fn demultiplying_by_the_table_is_the_division() {
        for alpha in 0..=255u32 {
            for channel in 0..=255u32 {
                let mut pixel = [channel as u8, channel as u8, channel as u8, alpha as u8];
                demultiply(&mut pixel);
                let expected = match alpha {
                    0 | 255 => channel,
                    _ => ((channel * 255 + alpha / 2) / alpha).min(255),
                };
                assert_eq!(u32::from(pixel[0]), expected, "channel {channel} under alpha {alpha}");
            }
        }
    }

    #[test]
    fn pngs_round_trip_straight_colors() {
        let mut pixmap = Pixmap::new(3, 2).expect("pixmap");
        pixmap.fill(tiny_skia::Color::from_rgba8(200, 100, 50, 128));
        let bytes = encode_png(&pixmap);
        let decoded = crate::display::pictures::decode(&bytes).expect("decodes");
        let pixel = decoded.pixel(2, 1).expect("pixel").demultiply();
        // Premultiplied storage rounds translucent colors by a unit at most.
        assert!(pixel.red().abs_diff(200) <= 1 && pixel.green().abs_diff(100) <= 1 && pixel.blue().abs_diff(50) <= 1);
        assert_eq!(pixel.alpha(), 128);
        assert_eq!(encode_png(&pixmap), bytes, "the same pixels give the same bytes");
    }

    #[test]
    fn opaque_and_translucent_images_give_the_same_pixels() {
        let mut pixmap = Pixmap::new(4, 3).expect("pixmap");
        pixmap.fill(tiny_skia::Color::from_rgba8(10, 20, 30, 255));
        let opaque = crate::display::pictures::decode(&encode_png(&pixmap)).expect("decodes");
        assert_eq!(opaque.data(), pixmap.data(), "written as it is");
        let rect = tiny_skia::Rect::from_xywh(0.0, 2.0, 1.0, 1.0).expect("rect");
        let mut paint = tiny_skia::Paint::default();
        paint.set_color_rgba8(255, 0, 0, 64);
        paint.blend_mode = tiny_skia::BlendMode::Source;
        pixmap.fill_rect(rect, &paint, tiny_skia::Transform::identity(), None);
        let mixed = crate::display::pictures::decode(&encode_png(&pixmap)).expect("decodes");
        assert_eq!(mixed.pixel(3, 1), pixmap.pixel(3, 1), "opaque rows stay as they are");
        let corner = mixed.pixel(0, 2).expect("pixel").demultiply();
        assert_eq!((corner.red(), corner.alpha()), (255, 64), "the translucent row is demultiplied");
    }
}
