//! Image fills: PNG and JPEG files beside the document (or `data:` URIs) decoded once into
//! premultiplied pixmaps and kept for later renders. Nothing is fetched from the network while
//! rendering; what cannot be drawn is said, and left out (or marked, when asked).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use tiny_skia::Pixmap;

use crate::files::{Confinement, FileError};

/// Largest image side decoded; larger images are refused (a decompression bomb guard).
pub const MAX_IMAGE_SIDE: u32 = 16_384;

/// Largest image file read.
pub const MAX_IMAGE_BYTES: u64 = 64 * 1024 * 1024;

/// Most pixels of an image fill kept decoded (128 MB). Larger images are drawn from a copy
/// reduced by a whole factor (2, 4, 8…, averaging the pixels it covers) while they are read:
/// a 16384 × 16384 PNG of zeros is 0.8 MB on disk and 1 GB decoded (issue 25). A 48-megapixel
/// phone photo becomes 4032 × 3024 — still more pixels than any node shows.
pub const MAX_DECODED_PIXELS: u64 = 32 * 1024 * 1024;

/// Most pixels of a JPEG read at all: JPEG has no row-by-row reduction here, so it is decoded
/// whole first (4 bytes a pixel, 192 MB at this size) and reduced after.
pub const MAX_JPEG_PIXELS: u64 = 48 * 1024 * 1024;

/// Most bytes of decoded images kept between renders; the least recently used go first. With
/// the render pool ([`super::memory::RENDER_MEMORY`]) this keeps a render within 1 GB.
pub const IMAGE_CACHE_BYTES: u64 = 256 * 1024 * 1024;

/// Why an image fill could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// The file is not there.
    #[error("image '{url}' not found at {path}")]
    Missing {
        /// As the fill wrote it.
        url: String,
        /// Where nib looked.
        path: String,
    },
    /// An http(s) address: rendering is offline.
    #[error(
        "image '{0}' is on the network; nib does not fetch images while rendering (download it next to the document and use a relative path)"
    )]
    Remote(String),
    /// The file is outside the folder the caller may read.
    #[error("image '{url}' is outside the folder nib serves ({root}); copy it next to the document")]
    Outside {
        /// As the fill wrote it.
        url: String,
        /// The folder images must be in.
        root: String,
    },
    /// Not a PNG or JPEG, or broken.
    #[error("image '{url}' cannot be decoded: {reason}")]
    Undecodable {
        /// As the fill wrote it.
        url: String,
        /// What went wrong.
        reason: String,
    },
}

/// Decoded images by where they came from, within [`IMAGE_CACHE_BYTES`].
#[derive(Default)]
pub struct ImageCache {
    entries: HashMap<String, Entry>,
    /// Bytes of the decoded images held.
    bytes: u64,
    /// Counts uses, to find the least recently used entry.
    clock: u64,
    /// Files outside this folder are not read (the MCP server's root).
    within: Option<Confinement>,
}

/// One image as it was loaded.
struct Entry {
    image: Result<Arc<Pixmap>, ImageError>,
    /// The size of the file's image when the pixmap is a reduced copy.
    reduced_from: Option<(u32, u32)>,
    /// When it was last used ([`ImageCache::clock`]).
    used: u64,
}

impl std::fmt::Debug for ImageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageCache").field("images", &self.entries.len()).finish()
    }
}

impl ImageCache {
    /// Reads image files only inside `root` from now on (`None`: anywhere).
    pub fn confine(&mut self, confinement: Option<&Confinement>) {
        if self.within.as_ref() != confinement {
            self.within = confinement.cloned();
            self.entries.clear();
        }
    }

    /// The image `url` names, relative to `folder` (the document's folder).
    pub fn get(&mut self, url: &str, folder: Option<&Path>) -> Result<Arc<Pixmap>, ImageError> {
        let key = key(url, folder);
        self.clock += 1;
        if let Some(found) = self.entries.get_mut(&key) {
            found.used = self.clock;
            return found.image.clone();
        }
        let (image, reduced_from) = match load(url, folder, self.within.as_ref()) {
            Ok(Decoded { pixmap, reduced_from }) => (Ok(Arc::new(pixmap)), reduced_from),
            Err(error) => (Err(error), None),
        };
        let size = image.as_ref().map_or(0, |pixmap| pixmap.data().len() as u64);
        self.make_room(size);
        self.bytes += size;
        self.entries.insert(key, Entry { image: image.clone(), reduced_from, used: self.clock });
        image
    }

    /// What a user should know about how the image `url` is drawn: that it comes from a
    /// reduced copy. `None` when it is drawn as the file holds it (or was not loaded).
    pub fn note(&self, url: &str, folder: Option<&Path>) -> Option<String> {
        let entry = self.entries.get(&key(url, folder))?;
        let (width, height) = entry.reduced_from?;
        let image = entry.image.as_ref().ok()?;
        Some(format!(
            "image '{url}' is {width} × {height} pixels; it is drawn from a copy reduced to {} × {} (nib keeps images within {MAX_DECODED_PIXELS} pixels)",
            image.width(),
            image.height()
        ))
    }

    /// Drops the least recently used images until `size` more bytes fit.
    fn make_room(&mut self, size: u64) {
        while self.bytes + size > IMAGE_CACHE_BYTES {
            let oldest = self
                .entries
                .iter()
                .filter(|(_, entry)| entry.image.is_ok())
                .min_by_key(|(_, entry)| entry.used)
                .map(|(key, _)| key.clone());
            let Some(oldest) = oldest else { return };
            if let Some(Entry { image: Ok(pixmap), .. }) = self.entries.remove(&oldest) {
                self.bytes -= pixmap.data().len() as u64;
            }
        }
    }
}

/// The key of `url` read relative to `folder`.
fn key(url: &str, folder: Option<&Path>) -> String {
    match folder {
        Some(folder) => format!("{}\u{0}{url}", folder.display()),
        None => url.to_owned(),
    }
}

impl ImageCache {
    /// The encoded bytes of the image `url` names (a file relative to `folder`, or a `data:`
    /// URI) and its MIME type, read under the same rules as [`ImageCache::get`]: inside the
    /// confinement, at most [`MAX_IMAGE_BYTES`], PNG or JPEG that decodes. For exports that
    /// embed or copy the original file instead of the decoded pixels.
    pub fn encoded(&mut self, url: &str, folder: Option<&Path>) -> Result<(Vec<u8>, &'static str), ImageError> {
        let image = self.get(url, folder)?;
        // An image drawn from a reduced copy is exported as that copy: its readers (a browser,
        // the PDF writer) would otherwise decode the whole file again.
        if self.note(url, folder).is_some() {
            return Ok((super::encode_png(&image), "image/png"));
        }
        let bytes = read_bytes(url, folder, self.within.as_ref())?;
        let mime = if bytes.starts_with(&[0xFF, 0xD8]) { "image/jpeg" } else { "image/png" };
        Ok((bytes, mime))
    }
}

fn load(url: &str, folder: Option<&Path>, within: Option<&Confinement>) -> Result<Decoded, ImageError> {
    let bytes = read_bytes(url, folder, within)?;
    decode_within(&bytes, MAX_DECODED_PIXELS).map_err(|reason| ImageError::Undecodable { url: url.to_owned(), reason })
}

/// The bytes of the image `url` names: a base64 `data:` URI's payload or a file's content.
fn read_bytes(url: &str, folder: Option<&Path>, within: Option<&Confinement>) -> Result<Vec<u8>, ImageError> {
    let undecodable = |reason: String| ImageError::Undecodable { url: url.to_owned(), reason };
    if let Some(data) = url.strip_prefix("data:") {
        let (_, payload) =
            data.split_once(";base64,").ok_or_else(|| undecodable("only base64 data URIs are read".into()))?;
        return base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .map_err(|e| undecodable(format!("bad base64: {e}")));
    }
    let Some(path) = crate::images::image_file(url, folder) else {
        return Err(ImageError::Remote(url.to_owned()));
    };
    let missing = || ImageError::Missing { url: url.to_owned(), path: path.display().to_string() };
    // Outside the root nothing is looked at, so the answer never tells whether a file exists.
    let outside = || ImageError::Outside {
        url: url.to_owned(),
        root: within.map(|c| c.root().display().to_string()).unwrap_or_default(),
    };
    let path = Confinement::apply(within, &path).map_err(|_| outside())?;
    // Confined, the file is read through the root opened once (no swapped folder leads out).
    let read = match within {
        Some(confinement) => confinement.read(&path, MAX_IMAGE_BYTES),
        None => crate::files::read_regular(&path, MAX_IMAGE_BYTES),
    };
    read.map_err(|e| match e {
        FileError::TooLarge { .. } | FileError::NotRegular { .. } => undecodable(e.to_string()),
        FileError::Outside { .. } => outside(),
        _ => missing(),
    })
}

/// A decoded image: the pixels, and the size of the file's image when they are a reduced copy.
pub(crate) struct Decoded {
    pub pixmap: Pixmap,
    pub reduced_from: Option<(u32, u32)>,
}

/// Decodes PNG or JPEG bytes into a premultiplied pixmap exactly as they are (a golden to
/// compare with), refusing images above [`crate::render::MAX_PIXELS`] — more than any render.
pub fn decode(bytes: &[u8]) -> Result<Pixmap, String> {
    if let Some((width, height)) = dimensions(bytes) {
        check_size(width, height)?;
        if u64::from(width) * u64::from(height) > super::MAX_PIXELS {
            return Err(format!("{width} × {height} pixels; images up to {} pixels are read whole", super::MAX_PIXELS));
        }
    }
    decode_within(bytes, super::MAX_PIXELS).map(|decoded| decoded.pixmap)
}

/// The width and height an encoded PNG or JPEG says it has, read from its header alone.
pub fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let reader = decoder.read_info().ok()?;
        return Some((reader.info().width, reader.info().height));
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        let mut decoder = zune_jpeg::JpegDecoder::new(std::io::Cursor::new(bytes));
        decoder.decode_headers().ok()?;
        let info = decoder.info()?;
        return Some((u32::from(info.width), u32::from(info.height)));
    }
    None
}

/// Decodes PNG or JPEG bytes into a premultiplied pixmap of at most `most` pixels: a larger
/// image is reduced by the smallest whole factor that fits, each output pixel the mean of the
/// (premultiplied) pixels it covers.
pub(crate) fn decode_within(bytes: &[u8], most: u64) -> Result<Decoded, String> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        decode_png(bytes, most)
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        decode_jpeg(bytes, most)
    } else {
        Err("only PNG and JPEG images are drawn".into())
    }
}

fn check_size(width: u32, height: u32) -> Result<(), String> {
    if width == 0 || height == 0 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(format!("{width} × {height} pixels; sides up to {MAX_IMAGE_SIDE} are drawn"));
    }
    Ok(())
}

/// The smallest whole factor that brings `width` × `height` within `most` pixels.
fn reduction(width: u32, height: u32, most: u64) -> u32 {
    let mut factor = 1u32;
    while u64::from(width.div_ceil(factor)) * u64::from(height.div_ceil(factor)) > most {
        factor *= 2;
    }
    factor
}

/// An image built row by row, reduced by a whole factor: each output pixel the mean of the
/// premultiplied pixels it covers (the last row and column may cover fewer).
struct Reducer {
    factor: u32,
    width: u32,
    out_width: u32,
    /// Sums of the output row being gathered, four channels a pixel.
    sums: Vec<u32>,
    /// Input rows in `sums`.
    rows: u32,
    pixmap: Pixmap,
    next_row: u32,
}

impl Reducer {
    fn new(width: u32, height: u32, factor: u32) -> Result<Reducer, String> {
        let (out_width, out_height) = (width.div_ceil(factor), height.div_ceil(factor));
        let pixmap = Pixmap::new(out_width, out_height).ok_or("the image is empty")?;
        let sums = if factor > 1 { vec![0; out_width as usize * 4] } else { Vec::new() };
        Ok(Reducer { factor, width, out_width, sums, rows: 0, pixmap, next_row: 0 })
    }

    /// Adds one input row of premultiplied RGBA bytes.
    fn row(&mut self, premultiplied: &[u8]) {
        let width = self.width as usize * 4;
        let premultiplied = &premultiplied[..width.min(premultiplied.len())];
        if self.factor == 1 {
            // Not reduced: the row is the output row.
            let at = self.next_row as usize * width;
            if let Some(line) = self.pixmap.data_mut().get_mut(at..at + premultiplied.len()) {
                line.copy_from_slice(premultiplied);
            }
            self.next_row += 1;
            return;
        }
        for (block, sum) in premultiplied.chunks(self.factor as usize * 4).zip(self.sums.chunks_exact_mut(4)) {
            for pixel in block.chunks_exact(4) {
                sum[0] += u32::from(pixel[0]);
                sum[1] += u32::from(pixel[1]);
                sum[2] += u32::from(pixel[2]);
                sum[3] += u32::from(pixel[3]);
            }
        }
        self.rows += 1;
        if self.rows == self.factor {
            self.flush();
        }
    }

    /// Writes the output row the sums hold.
    fn flush(&mut self) {
        if self.rows == 0 || self.next_row >= self.pixmap.height() {
            return;
        }
        let out_width = self.out_width as usize;
        let at = self.next_row as usize * out_width * 4;
        let line = &mut self.pixmap.data_mut()[at..at + out_width * 4];
        for (x, (out, sum)) in line.chunks_exact_mut(4).zip(self.sums.chunks_exact_mut(4)).enumerate() {
            let columns = (self.width - x as u32 * self.factor).min(self.factor);
            let count = columns * self.rows;
            for (channel, total) in out.iter_mut().zip(sum.iter_mut()) {
                *channel = ((*total + count / 2) / count) as u8;
                *total = 0;
            }
        }
        self.rows = 0;
        self.next_row += 1;
    }

    fn finish(mut self) -> Pixmap {
        self.flush();
        self.pixmap
    }
}

/// `row` of straight 8-bit samples of `color` as premultiplied RGBA bytes, into `out`.
fn premultiplied_row(color: png::ColorType, row: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let channels = match color {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Grayscale => 1,
        png::ColorType::Indexed => return Err("palette images were not expanded".into()),
    };
    let pixels = row.len() / channels;
    out.resize(pixels * 4, 0);
    for (pixel, sample) in out.chunks_exact_mut(4).zip(row.chunks_exact(channels)) {
        let (r, g, b, a) = match channels {
            4 => (sample[0], sample[1], sample[2], sample[3]),
            3 => (sample[0], sample[1], sample[2], 255),
            2 => (sample[0], sample[0], sample[0], sample[1]),
            _ => (sample[0], sample[0], sample[0], 255),
        };
        if a == 255 {
            pixel.copy_from_slice(&[r, g, b, 255]);
        } else if a == 0 {
            pixel.fill(0);
        } else {
            pixel.copy_from_slice(&[premultiply_u8(r, a), premultiply_u8(g, a), premultiply_u8(b, a), a]);
        }
    }
    Ok(())
}

/// `c` scaled by the alpha `a`, rounded as tiny-skia's premultiplication rounds.
fn premultiply_u8(c: u8, a: u8) -> u8 {
    let product = u32::from(c) * u32::from(a) + 128;
    ((product + (product >> 8)) >> 8) as u8
}

fn decode_png(bytes: &[u8], most: u64) -> Result<Decoded, String> {
    let limits = png::Limits { bytes: 256 * 1024 * 1024 };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::normalize_to_color8() | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let (width, height) = (reader.info().width, reader.info().height);
    check_size(width, height)?;
    let factor = reduction(width, height, most);
    if factor > 1 && reader.info().interlaced {
        return Err(format!(
            "{width} × {height} pixels, interlaced; interlaced PNG images are drawn up to {most} pixels (save it without interlacing, or smaller)"
        ));
    }
    let (color, _) = reader.output_color_type();
    let mut reducer = Reducer::new(width, height, factor)?;
    let mut line = Vec::with_capacity(width as usize * 4);
    if reader.info().interlaced {
        // Interlaced rows come in passes: read the whole (small enough) frame, then its rows.
        let size = reader.output_buffer_size().ok_or("the image is too large")?;
        let mut buffer = vec![0; size];
        let frame = reader.next_frame(&mut buffer).map_err(|e| e.to_string())?;
        for row in buffer[..frame.buffer_size()].chunks_exact(frame.line_size) {
            premultiplied_row(color, row, &mut line)?;
            reducer.row(&line);
        }
    } else {
        while let Some(row) = reader.next_row().map_err(|e| e.to_string())? {
            premultiplied_row(color, row.data(), &mut line)?;
            reducer.row(&line);
        }
    }
    let reduced_from = (factor > 1).then_some((width, height));
    Ok(Decoded { pixmap: reducer.finish(), reduced_from })
}

fn decode_jpeg(bytes: &[u8], most: u64) -> Result<Decoded, String> {
    use zune_jpeg::zune_core::colorspace::ColorSpace;
    use zune_jpeg::zune_core::options::DecoderOptions;
    let options = DecoderOptions::default()
        .jpeg_set_out_colorspace(ColorSpace::RGBA)
        .set_max_width(MAX_IMAGE_SIDE as usize)
        .set_max_height(MAX_IMAGE_SIDE as usize);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(std::io::Cursor::new(bytes), options);
    decoder.decode_headers().map_err(|e| e.to_string())?;
    let info = decoder.info().ok_or("no image header")?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    check_size(width, height)?;
    // Checked before decoding: the whole image is held once before it is reduced.
    if u64::from(width) * u64::from(height) > MAX_JPEG_PIXELS.max(most) {
        return Err(format!(
            "{width} × {height} pixels; JPEG images up to {MAX_JPEG_PIXELS} pixels are drawn (save it smaller)"
        ));
    }
    let pixels = decoder.decode().map_err(|e| e.to_string())?;
    if pixels.len() != (width as usize) * (height as usize) * 4 {
        return Err("the decoder returned an unexpected pixel format".into());
    }
    let factor = reduction(width, height, most);
    let mut reducer = Reducer::new(width, height, factor)?;
    let mut line = Vec::with_capacity(width as usize * 4);
    for row in pixels.chunks_exact(width as usize * 4) {
        premultiplied_row(png::ColorType::Rgba, row, &mut line)?;
        reducer.row(&line);
    }
    let reduced_from = (factor > 1).then_some((width, height));
    Ok(Decoded { pixmap: reducer.finish(), reduced_from })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2 × 1 PNG: one red pixel, one half-transparent blue one.
    fn tiny_png() -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, 2, 1);
        encoder.set_color(png::ColorType::Rgba);
        let mut writer = encoder.write_header().expect("header");
        writer.write_image_data(&[255, 0, 0, 255, 0, 0, 255, 128]).expect("data");
        drop(writer);
        bytes
    }

    #[test]
    fn pngs_decode_premultiplied() {
        let pixmap = decode(&tiny_png()).expect("decodes");
        let blue = pixmap.pixel(1, 0).expect("pixel");
        assert_eq!((blue.red(), blue.blue(), blue.alpha()), (0, 128, 128));
    }

    #[test]
    fn images_load_relative_to_the_document_and_say_why_not() {
        let folder = tempfile::tempdir().expect("temp");
        std::fs::write(folder.path().join("a.png"), tiny_png()).expect("write");
        std::fs::write(folder.path().join("b.gif"), b"GIF89a").expect("write");
        let mut cache = ImageCache::default();
        assert!(cache.get("a.png", Some(folder.path())).is_ok());
        assert!(matches!(cache.get("missing.png", Some(folder.path())), Err(ImageError::Missing { .. })));
        assert!(matches!(cache.get("https://example.com/x.png", None), Err(ImageError::Remote(_))));
        let gif = cache.get("b.gif", Some(folder.path())).expect_err("gif");
        assert!(gif.to_string().contains("only PNG and JPEG"), "{gif}");
        let data = format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(tiny_png()));
        assert!(cache.get(&data, None).is_ok());
    }
}

#[cfg(test)]
mod reduction_tests {
    use super::*;
    use tiny_skia::ColorU8;

    /// A `width` × `height` PNG: one bit a pixel, every pixel black (a "bomb": tiny on disk).
    pub(crate) fn bomb(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut bytes, width, height);
            encoder.set_color(png::ColorType::Grayscale);
            encoder.set_depth(png::BitDepth::One);
            let mut writer = encoder.write_header().expect("header");
            let mut stream = writer.stream_writer().expect("stream");
            let row = vec![0u8; width.div_ceil(8) as usize];
            for _ in 0..height {
                std::io::Write::write_all(&mut stream, &row).expect("row");
            }
            stream.finish().expect("finished");
        }
        bytes
    }

    #[test]
    fn a_large_image_is_reduced_by_a_whole_factor_averaging_what_it_covers() {
        // 3 × 2 pixels: red, blue, transparent / red, blue, white; at most 2 pixels → halved.
        let mut pixmap = Pixmap::new(3, 2).unwrap();
        let colors = [
            [255, 0, 0, 255],
            [0, 0, 255, 255],
            [0, 0, 0, 0],
            [255, 0, 0, 255],
            [0, 0, 255, 255],
            [255, 255, 255, 255],
        ];
        for (pixel, [r, g, b, a]) in pixmap.pixels_mut().iter_mut().zip(colors) {
            *pixel = ColorU8::from_rgba(r, g, b, a).premultiply();
        }
        let decoded = decode_within(&crate::render::encode_png(&pixmap), 2).unwrap();
        assert_eq!(decoded.reduced_from, Some((3, 2)));
        assert_eq!((decoded.pixmap.width(), decoded.pixmap.height()), (2, 1));
        let first = decoded.pixmap.pixel(0, 0).unwrap();
        assert_eq!((first.red(), first.green(), first.blue(), first.alpha()), (128, 0, 128, 255));
        // The last column covers one column of two rows: transparent and white average to
        // half-covered white (premultiplied).
        let last = decoded.pixmap.pixel(1, 0).unwrap();
        assert_eq!((last.red(), last.green(), last.blue(), last.alpha()), (128, 128, 128, 128));
        // Within the limit, nothing changes.
        assert_eq!(decode_within(&crate::render::encode_png(&pixmap), 6).unwrap().pixmap, pixmap);
    }

    #[test]
    fn a_png_bomb_is_read_row_by_row_into_a_reduced_copy_and_said() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("bomb.png"), bomb(8192, 8192)).unwrap();
        let mut cache = ImageCache::default();
        let image = cache.get("bomb.png", Some(folder.path())).expect("drawn");
        assert_eq!((image.width(), image.height()), (4096, 4096));
        let note = cache.note("bomb.png", Some(folder.path())).expect("said");
        assert!(note.contains("8192 × 8192") && note.contains("4096 × 4096"), "{note}");
        // An exact decode (a golden) refuses what no render can match rather than hold it.
        assert!(decode(&bomb(16384, 16384)).unwrap_err().contains("read whole"));
    }
}
