//! Pictures: PNG and JPEG bytes decoded into premultiplied pixmaps, large ones into a copy
//! reduced while it is read (a decompression bomb stays small), and the source a display list
//! takes decoded pictures from ([`Pictures`]); the host reads the files.

use std::sync::Arc;

use tiny_skia::Pixmap;

/// Largest image side decoded; larger images are refused (a decompression bomb guard).
pub const MAX_IMAGE_SIDE: u32 = 16_384;

/// Most pixels of an image fill kept decoded (128 MB). Larger images are drawn from a copy
/// reduced by a whole factor (2, 4, 8…, averaging the pixels it covers) while they are read:
/// a 16384 × 16384 PNG of zeros is 0.8 MB on disk and 1 GB decoded. A 48-megapixel
/// phone photo becomes 4032 × 3024 — still more pixels than any node shows.
pub const MAX_DECODED_PIXELS: u64 = 32 * 1024 * 1024;

/// Most pixels of a JPEG read at all: JPEG has no row-by-row reduction here, so it is decoded
/// whole first (4 bytes a pixel, 192 MB at this size) and reduced after.
pub const MAX_JPEG_PIXELS: u64 = 48 * 1024 * 1024;

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
    /// Not a PNG or JPEG, or broken, or a kind of JPEG the decoder does not read (arithmetic
    /// coding, lossless); pictures leave it out.
    #[error("image '{url}' cannot be decoded: {reason}; it is left out of the picture (what is under it shows)")]
    Undecodable {
        /// As the fill wrote it.
        url: String,
        /// What went wrong.
        reason: DecodeError,
    },
}

/// Why image bytes were not decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Neither PNG nor JPEG.
    #[error("only PNG and JPEG images are drawn")]
    Format,
    /// A side of zero or above [`MAX_IMAGE_SIDE`].
    #[error("{width} × {height} pixels; sides up to {MAX_IMAGE_SIDE} are drawn")]
    Sides { width: u32, height: u32 },
    /// More pixels than [`decode`] reads whole.
    #[error("{width} × {height} pixels; images up to {} pixels are read whole", crate::display::MAX_PIXELS)]
    Whole { width: u32, height: u32 },
    /// An interlaced PNG too large to read without reducing it.
    #[error(
        "{width} × {height} pixels, interlaced; interlaced PNG images are drawn up to {most} pixels (save it without interlacing, or smaller)"
    )]
    Interlaced { width: u32, height: u32, most: u64 },
    /// A JPEG above [`MAX_JPEG_PIXELS`] (it is held whole before it is reduced).
    #[error("{width} × {height} pixels; JPEG images up to {MAX_JPEG_PIXELS} pixels are drawn (save it smaller)")]
    Jpeg { width: u32, height: u32 },
    /// The decoder's own reason: a broken or unusual file.
    #[error("{0}")]
    Broken(String),
}

impl DecodeError {
    fn broken(error: impl ToString) -> DecodeError {
        DecodeError::Broken(error.to_string())
    }
}

/// Where a display list takes the images of image fills from: the host, which reads the files
/// (confined to its root) and keeps them decoded.
pub trait Pictures {
    /// The decoded image `url` names (relative to the document's folder, or a `data:` URI).
    fn picture(&mut self, url: &str) -> Result<Arc<Pixmap>, ImageError>;

    /// What a user should know about how `url` is drawn (from a reduced copy), once it was
    /// read; `None` when it is drawn as the file holds it.
    fn note(&self, url: &str) -> Option<String>;

    /// The encoded bytes of the image `url` names and their MIME type, for outputs that embed
    /// the file (an image drawn from a reduced copy gives that copy as PNG).
    fn encoded(&mut self, url: &str) -> Result<(Vec<u8>, &'static str), ImageError>;

    /// The file `url` names, for outputs that link it; `None` for `data:` and network URLs.
    fn file(&self, url: &str) -> Option<std::path::PathBuf>;
}

/// A boxed source (what a host hands out) is a source.
impl<P: Pictures + ?Sized> Pictures for Box<P> {
    fn picture(&mut self, url: &str) -> Result<Arc<Pixmap>, ImageError> {
        (**self).picture(url)
    }

    fn note(&self, url: &str) -> Option<String> {
        (**self).note(url)
    }

    fn encoded(&mut self, url: &str) -> Result<(Vec<u8>, &'static str), ImageError> {
        (**self).encoded(url)
    }

    fn file(&self, url: &str) -> Option<std::path::PathBuf> {
        (**self).file(url)
    }
}

/// A decoded image: the pixels, and the size of the file's image when they are a reduced copy.
pub struct Decoded {
    pub pixmap: Pixmap,
    pub reduced_from: Option<(u32, u32)>,
}

/// Decodes PNG or JPEG bytes into a premultiplied pixmap exactly as they are (a golden to
/// compare with), refusing images above [`crate::render::MAX_PIXELS`] — more than any render.
pub fn decode(bytes: &[u8]) -> Result<Pixmap, DecodeError> {
    if let Some((width, height)) = dimensions(bytes) {
        check_size(width, height)?;
        if u64::from(width) * u64::from(height) > crate::display::MAX_PIXELS {
            return Err(DecodeError::Whole { width, height });
        }
    }
    decode_within(bytes, crate::display::MAX_PIXELS).map(|decoded| decoded.pixmap)
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
pub fn decode_within(bytes: &[u8], most: u64) -> Result<Decoded, DecodeError> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        decode_png(bytes, most)
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        decode_jpeg(bytes, most)
    } else {
        Err(DecodeError::Format)
    }
}

fn check_size(width: u32, height: u32) -> Result<(), DecodeError> {
    if width == 0 || height == 0 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(DecodeError::Sides { width, height });
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
    fn new(width: u32, height: u32, factor: u32) -> Result<Reducer, DecodeError> {
        let (out_width, out_height) = (width.div_ceil(factor), height.div_ceil(factor));
        let pixmap = Pixmap::new(out_width, out_height).ok_or_else(|| DecodeError::broken("the image is empty"))?;
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
fn premultiplied_row(color: png::ColorType, row: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
    let channels = match color {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Grayscale => 1,
        png::ColorType::Indexed => return Err(DecodeError::broken("palette images were not expanded")),
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

fn decode_png(bytes: &[u8], most: u64) -> Result<Decoded, DecodeError> {
    let limits = png::Limits { bytes: 256 * 1024 * 1024 };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::normalize_to_color8() | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().map_err(DecodeError::broken)?;
    let (width, height) = (reader.info().width, reader.info().height);
    check_size(width, height)?;
    let factor = reduction(width, height, most);
    if factor > 1 && reader.info().interlaced {
        return Err(DecodeError::Interlaced { width, height, most });
    }
    let (color, _) = reader.output_color_type();
    let mut reducer = Reducer::new(width, height, factor)?;
    let mut line = Vec::with_capacity(width as usize * 4);
    if reader.info().interlaced {
        // Interlaced rows come in passes: read the whole (small enough) frame, then its rows.
        let size = reader.output_buffer_size().ok_or_else(|| DecodeError::broken("the image is too large"))?;
        let mut buffer = vec![0; size];
        let frame = reader.next_frame(&mut buffer).map_err(DecodeError::broken)?;
        for row in buffer[..frame.buffer_size()].chunks_exact(frame.line_size) {
            premultiplied_row(color, row, &mut line)?;
            reducer.row(&line);
        }
    } else {
        while let Some(row) = reader.next_row().map_err(DecodeError::broken)? {
            premultiplied_row(color, row.data(), &mut line)?;
            reducer.row(&line);
        }
    }
    let reduced_from = (factor > 1).then_some((width, height));
    Ok(Decoded { pixmap: reducer.finish(), reduced_from })
}

/// A JPEG decoder of `bytes` giving `out` pixels, its headers read.
fn jpeg_decoder(
    bytes: &[u8],
    out: zune_jpeg::zune_core::colorspace::ColorSpace,
) -> Result<zune_jpeg::JpegDecoder<std::io::Cursor<&[u8]>>, DecodeError> {
    let options = zune_jpeg::zune_core::options::DecoderOptions::default()
        .jpeg_set_out_colorspace(out)
        .set_max_width(MAX_IMAGE_SIDE as usize)
        .set_max_height(MAX_IMAGE_SIDE as usize);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(std::io::Cursor::new(bytes), options);
    decoder.decode_headers().map_err(DecodeError::broken)?;
    Ok(decoder)
}

fn decode_jpeg(bytes: &[u8], most: u64) -> Result<Decoded, DecodeError> {
    use zune_jpeg::zune_core::colorspace::ColorSpace;
    let mut decoder = jpeg_decoder(bytes, ColorSpace::RGBA)?;
    // zune-jpeg 0.5 converts CMYK and YCCK (Photoshop's print JPEGs, values stored inverted as
    // Adobe does) to RGB correctly but to RGBA on a three-byte stride, leaving every alpha 0:
    // such an image came out transparent, with no word. Asked for RGB, it gives the colours;
    // the alpha is added below. The output is chosen before the headers are read (the
    // decoder picks its converter there), so such a file's headers are read twice.
    let four_colours = matches!(decoder.input_colorspace(), Some(ColorSpace::CMYK | ColorSpace::YCCK));
    let channels = if four_colours {
        decoder = jpeg_decoder(bytes, ColorSpace::RGB)?;
        3
    } else {
        4
    };
    let info = decoder.info().ok_or_else(|| DecodeError::broken("no image header"))?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    check_size(width, height)?;
    // Checked before decoding: the whole image is held once before it is reduced.
    if u64::from(width) * u64::from(height) > MAX_JPEG_PIXELS.max(most) {
        return Err(DecodeError::Jpeg { width, height });
    }
    let pixels = decoder.decode().map_err(DecodeError::broken)?;
    if pixels.len() != (width as usize) * (height as usize) * channels {
        return Err(DecodeError::broken("the decoder returned an unexpected pixel format"));
    }
    let color = if four_colours { png::ColorType::Rgb } else { png::ColorType::Rgba };
    let factor = reduction(width, height, most);
    let mut reducer = Reducer::new(width, height, factor)?;
    let mut line = Vec::with_capacity(width as usize * 4);
    for row in pixels.chunks_exact(width as usize * channels) {
        premultiplied_row(color, row, &mut line)?;
        reducer.row(&line);
    }
    let reduced_from = (factor > 1).then_some((width, height));
    Ok(Decoded { pixmap: reducer.finish(), reduced_from })
}
