//! The provider used when no image service is configured: a deterministic abstract image drawn
//! from the prompt, so designs get a plausible, distinct picture and tests stay offline.

use std::io::BufWriter;

use super::{ImageError, ImageKind, ImageProvider, ImageRequest, ProvidedImage};

/// Draws a soft two-color gradient with a few blurred shapes, seeded by the prompt.
pub struct OfflineImages;

const WIDTH: u32 = 640;
const HEIGHT: u32 = 400;

impl ImageProvider for OfflineImages {
    fn image(&self, request: &ImageRequest) -> Result<ProvidedImage, ImageError> {
        let seed = crate::hash::fnv1a(request.prompt.as_bytes());
        let name = format!("generated-{seed:016x}.png");
        let folder = crate::files::create_folder(&request.folder.join("images"), request.confinement)?;
        let path = folder.join(&name);
        let mut created = None;
        if !path.exists() {
            let pixels = draw(seed);
            crate::files::write_atomic_with(&path, request.confinement, |file| encode_png(file, &pixels))?;
            created = Some(path);
        }
        let what = match request.kind {
            ImageKind::Ai => "generated",
            ImageKind::Stock => "stock",
        };
        Ok(ProvidedImage {
            url: format!("./images/{name}"),
            metadata: None,
            note: Some(format!(
                "No {what} image provider is configured: a placeholder image was drawn from the prompt."
            )),
            created,
        })
    }
}

/// HSL (all 0–1) to RGB (0–255).
fn hsl(h: f32, s: f32, l: f32) -> [f32; 3] {
    let channel = |n: f32| {
        let k = (n + h * 12.0) % 12.0;
        let a = s * l.min(1.0 - l);
        255.0 * (l - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0))
    };
    [channel(0.0), channel(8.0), channel(4.0)]
}

fn draw(seed: u64) -> Vec<u8> {
    let mut random = crate::random::Xorshift::new(seed);
    let hue = random.next_unit();
    let from = hsl(hue, 0.55, 0.62);
    let to = hsl((hue + 0.12 + random.next_unit() * 0.2) % 1.0, 0.6, 0.38);
    let blobs: Vec<(f32, f32, f32, [f32; 3])> = (0..4)
        .map(|_| {
            let color = hsl((hue + random.next_unit() * 0.3) % 1.0, 0.5, 0.55 + random.next_unit() * 0.3);
            (
                random.next_unit() * WIDTH as f32,
                random.next_unit() * HEIGHT as f32,
                60.0 + random.next_unit() * 160.0,
                color,
            )
        })
        .collect();
    let mut pixels = Vec::with_capacity((WIDTH * HEIGHT * 3) as usize);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let t = (x as f32 / WIDTH as f32 * 0.6 + y as f32 / HEIGHT as f32 * 0.4).clamp(0.0, 1.0);
            let mut color = [0.0f32; 3];
            for i in 0..3 {
                color[i] = from[i] + (to[i] - from[i]) * t;
            }
            for (bx, by, radius, blob) in &blobs {
                let distance = ((x as f32 - bx).powi(2) + (y as f32 - by).powi(2)).sqrt();
                let weight = (1.0 - distance / radius).clamp(0.0, 1.0).powi(2) * 0.6;
                for i in 0..3 {
                    color[i] += (blob[i] - color[i]) * weight;
                }
            }
            pixels.extend(color.iter().map(|c| c.round().clamp(0.0, 255.0) as u8));
        }
    }
    pixels
}

fn encode_png(file: &mut std::fs::File, pixels: &[u8]) -> std::io::Result<()> {
    let mut encoder = png::Encoder::new(BufWriter::new(file), WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer.write_image_data(pixels).map_err(std::io::Error::other)?;
    writer.finish().map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_prompt_gives_the_same_file_and_another_prompt_another() {
        let folder = tempfile::tempdir().unwrap();
        let request = |prompt| ImageRequest {
            kind: ImageKind::Ai,
            prompt,
            folder: folder.path(),
            orientation: None,
            confinement: None,
        };
        let a = OfflineImages.image(&request("team collaboration modern office")).unwrap();
        let bytes = std::fs::read(folder.path().join(a.url.trim_start_matches("./"))).unwrap();
        std::fs::remove_dir_all(folder.path().join("images")).unwrap();
        let again = OfflineImages.image(&request("team collaboration modern office")).unwrap();
        assert_eq!(a.url, again.url);
        assert_eq!(std::fs::read(folder.path().join(again.url.trim_start_matches("./"))).unwrap(), bytes);
        let other = OfflineImages.image(&request("isometric cloud server icon")).unwrap();
        assert_ne!(other.url, a.url);
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let info = decoder.read_info().unwrap();
        assert_eq!((info.info().width, info.info().height), (WIDTH, HEIGHT));
        assert!(a.note.unwrap().contains("No generated image provider"));
    }
}
