//! The provider used when no image service is configured: a deterministic abstract image drawn
//! from the prompt — in the colours it names and with the shapes it names, where it names any —
//! so designs get a plausible, distinct picture and tests stay offline. The file is named as a
//! placeholder (`images/placeholder-<hash>.png`) so snapshot_layout can point at it later.

use std::io::BufWriter;

use super::{ImageKind, ImageProvider, ImageRequest, ProvidedImage, ProviderError};

/// Draws a soft two-colour gradient with a few shapes, seeded by the prompt.
pub struct OfflineImages;

const WIDTH: u32 = 640;
const HEIGHT: u32 = 400;

impl ImageProvider for OfflineImages {
    fn image(&self, request: &ImageRequest) -> Result<ProvidedImage, ProviderError> {
        let seed = crate::hash::fnv1a(request.prompt.as_bytes());
        let name = crate::doc::values::placeholder_image_name(seed);
        let colours = named_colours(request.prompt);
        let mut created = None;
        if !request.folder.join("images").join(&name).exists() {
            let pixels = draw(seed, &colours, Motif::of(request.prompt));
            let mut png = Vec::new();
            encode_png(&mut png, &pixels)
                .map_err(|error| ProviderError::Provider(format!("the placeholder image: {error}")))?;
            created = Some(request.store(&name, &png)?);
        }
        let what = match request.kind {
            ImageKind::Ai => "generated",
            ImageKind::Stock => "stock",
        };
        Ok(ProvidedImage {
            url: format!("./images/{name}"),
            metadata: None,
            note: Some(format!(
                "No {what} image provider is configured: a placeholder image was drawn from the prompt. {}",
                what_was_drawn(request.prompt)
            )),
            created,
        })
    }
}

/// What the placeholder for `prompt` shows and how it is found again, for the answer's note.
pub(crate) fn what_was_drawn(prompt: &str) -> String {
    let colours: Vec<&str> = named_colours(prompt).iter().map(|(name, _)| *name).collect();
    let shown = match colours.is_empty() {
        true => String::new(),
        false => format!("It is drawn in the colours the prompt names ({}). ", colours.join(", ")),
    };
    format!("{shown}snapshot_layout lists it as a placeholder until G() replaces it with a real image.")
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

/// Colour words a prompt may use, with the colour drawn for each (CSS's where CSS has it).
const COLOUR_WORDS: &[(&str, [u8; 3])] = &[
    ("white", [255, 255, 255]),
    ("ivory", [255, 255, 240]),
    ("cream", [255, 253, 208]),
    ("beige", [245, 245, 220]),
    ("black", [0, 0, 0]),
    ("charcoal", [54, 69, 79]),
    ("gray", [128, 128, 128]),
    ("grey", [128, 128, 128]),
    ("silver", [192, 192, 192]),
    ("slate", [112, 128, 144]),
    ("red", [220, 38, 38]),
    ("crimson", [220, 20, 60]),
    ("maroon", [128, 0, 0]),
    ("coral", [255, 127, 80]),
    ("orange", [249, 115, 22]),
    ("amber", [245, 158, 11]),
    ("gold", [255, 215, 0]),
    ("golden", [255, 215, 0]),
    ("yellow", [250, 204, 21]),
    ("lime", [132, 204, 22]),
    ("olive", [128, 128, 0]),
    ("green", [22, 163, 74]),
    ("emerald", [16, 185, 129]),
    ("mint", [152, 255, 152]),
    ("teal", [13, 148, 136]),
    ("turquoise", [64, 224, 208]),
    ("cyan", [6, 182, 212]),
    ("sky", [56, 189, 248]),
    ("blue", [37, 99, 235]),
    ("navy", [0, 0, 128]),
    ("indigo", [79, 70, 229]),
    ("violet", [139, 92, 246]),
    ("purple", [147, 51, 234]),
    ("lavender", [230, 230, 250]),
    ("magenta", [255, 0, 255]),
    ("fuchsia", [217, 70, 239]),
    ("pink", [236, 72, 153]),
    ("rose", [244, 63, 94]),
    ("brown", [120, 72, 40]),
    ("tan", [210, 180, 140]),
];

/// The colours a prompt names, in the order it names them, each once.
fn named_colours(prompt: &str) -> Vec<(&'static str, [f32; 3])> {
    let mut found = Vec::new();
    for word in prompt.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase) {
        if let Some((name, rgb)) = COLOUR_WORDS.iter().find(|(name, _)| *name == word)
            && !found.iter().any(|(seen, _)| seen == name)
        {
            found.push((*name, rgb.map(f32::from)));
        }
    }
    found
}

/// The shapes drawn over the gradient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Motif {
    /// Soft blurred blobs (when the prompt names no shape).
    Blobs,
    /// Crisp circles: "circle", "dots", "bubbles", "round".
    Circles,
    /// Diagonal bands: "stripes", "lines", "waves".
    Stripes,
}

impl Motif {
    fn of(prompt: &str) -> Motif {
        let words: Vec<String> = prompt.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect();
        let names = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        if names(&["circle", "circles", "dot", "dots", "bubble", "bubbles", "round", "rounded"]) {
            Motif::Circles
        } else if names(&["stripe", "stripes", "striped", "line", "lines", "wave", "waves", "wavy"]) {
            Motif::Stripes
        } else {
            Motif::Blobs
        }
    }
}

/// The picture: a gradient between the first two colours named (a colour and a darker shade of
/// it when one is named; colours picked from the prompt's hash when none is) and shapes in the
/// colours named, in turn.
fn draw(seed: u64, named: &[(&str, [f32; 3])], motif: Motif) -> Vec<u8> {
    let mut random = crate::random::Xorshift::new(seed);
    let hue = random.next_unit();
    let shade = |c: [f32; 3]| c.map(|v| v * 0.55);
    let (from, to) = match named {
        [] => (hsl(hue, 0.55, 0.62), hsl((hue + 0.12 + random.next_unit() * 0.2) % 1.0, 0.6, 0.38)),
        [(_, only)] => (*only, shade(*only)),
        [(_, first), (_, second), ..] => (*first, *second),
    };
    let shapes: Vec<(f32, f32, f32, [f32; 3])> = (0..4)
        .map(|n| {
            let color = match named {
                [] => hsl((hue + random.next_unit() * 0.3) % 1.0, 0.5, 0.55 + random.next_unit() * 0.3),
                _ => named[n % named.len()].1,
            };
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
            for (n, (bx, by, radius, shape)) in shapes.iter().enumerate() {
                let weight = match motif {
                    Motif::Blobs => {
                        let distance = ((x as f32 - bx).powi(2) + (y as f32 - by).powi(2)).sqrt();
                        (1.0 - distance / radius).clamp(0.0, 1.0).powi(2) * 0.6
                    }
                    Motif::Circles => {
                        let distance = ((x as f32 - bx).powi(2) + (y as f32 - by).powi(2)).sqrt();
                        // A crisp edge, one pixel of antialiasing.
                        (radius * 0.6 - distance + 0.5).clamp(0.0, 1.0) * 0.85
                    }
                    Motif::Stripes => {
                        // Bands across the diagonal, one per shape, 40 px wide.
                        let across = (x as f32 + y as f32) / (WIDTH + HEIGHT) as f32 * 8.0;
                        let band = (across - n as f32 * 2.0 - 0.5).abs();
                        (1.0 - band * 2.0).clamp(0.0, 1.0) * 0.8
                    }
                };
                for i in 0..3 {
                    color[i] += (shape[i] - color[i]) * weight;
                }
            }
            pixels.extend(color.iter().map(|c| c.round().clamp(0.0, 255.0) as u8));
        }
    }
    pixels
}

fn encode_png(file: &mut impl std::io::Write, pixels: &[u8]) -> std::io::Result<()> {
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
        assert!(crate::doc::values::is_placeholder_image(&a.url), "{}", a.url);
    }

    /// The average colour of a drawn picture.
    fn average(pixels: &[u8]) -> [f32; 3] {
        let mut sum = [0.0f64; 3];
        for rgb in pixels.chunks(3) {
            for i in 0..3 {
                sum[i] += f64::from(rgb[i]);
            }
        }
        let count = (pixels.len() / 3) as f64;
        sum.map(|s| (s / count) as f32)
    }

    #[test]
    fn the_colours_a_prompt_names_are_the_colours_drawn() {
        let named = named_colours("A hero illustration in Indigo and white, abstract");
        assert_eq!(named.iter().map(|(n, _)| *n).collect::<Vec<_>>(), ["indigo", "white"]);
        let [r, g, b] = average(&draw(7, &named, Motif::of("in indigo and white")));
        assert!(b > r + 20.0 && b > g + 20.0, "indigo and white read as blue-violet, not red-orange: {r} {g} {b}");
        let [r, g, b] = average(&draw(7, &named_colours("warm red sunset"), Motif::Blobs));
        assert!(r > g + 40.0 && r > b + 40.0, "red: {r} {g} {b}");
        assert!(named_colours("credit card, redesign").is_empty(), "whole words only");
    }

    #[test]
    fn the_shapes_a_prompt_names_are_drawn() {
        assert_eq!(Motif::of("polka dots on a card"), Motif::Circles);
        assert_eq!(Motif::of("Striped background"), Motif::Stripes);
        assert_eq!(Motif::of("team at work"), Motif::Blobs);
        let colours = named_colours("black and white");
        let circles = draw(3, &colours, Motif::Circles);
        let stripes = draw(3, &colours, Motif::Stripes);
        assert_ne!(circles, stripes);
    }
}
