//! Image fills: PNG and JPEG files beside the document (or `data:` URIs) decoded once into
//! premultiplied pixmaps and kept for later renders. Nothing is fetched from the network while
//! rendering; what cannot be drawn is said, and left out (or marked, when asked).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use tiny_skia::{ColorU8, Pixmap};

use crate::files::{Confinement, FileError};

/// Largest image side decoded; larger images are refused (a decompression bomb guard).
pub const MAX_IMAGE_SIDE: u32 = 16_384;

/// Largest image file read.
pub const MAX_IMAGE_BYTES: u64 = 64 * 1024 * 1024;

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

/// Decoded images by where they came from.
#[derive(Default)]
pub struct ImageCache {
    entries: HashMap<String, Result<Arc<Pixmap>, ImageError>>,
    /// Files outside this folder are not read (the MCP server's root).
    within: Option<Confinement>,
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
        let key = match folder {
            Some(folder) => format!("{}\u{0}{url}", folder.display()),
            None => url.to_owned(),
        };
        if let Some(found) = self.entries.get(&key) {
            return found.clone();
        }
        let loaded = load(url, folder, self.within.as_ref()).map(Arc::new);
        self.entries.insert(key, loaded.clone());
        loaded
    }
}

impl ImageCache {
    /// The encoded bytes of the image `url` names (a file relative to `folder`, or a `data:`
    /// URI) and its MIME type, read under the same rules as [`ImageCache::get`]: inside the
    /// confinement, at most [`MAX_IMAGE_BYTES`], PNG or JPEG that decodes. For exports that
    /// embed or copy the original file instead of the decoded pixels.
    pub fn encoded(&mut self, url: &str, folder: Option<&Path>) -> Result<(Vec<u8>, &'static str), ImageError> {
        self.get(url, folder)?;
        let bytes = read_bytes(url, folder, self.within.as_ref())?;
        let mime = if bytes.starts_with(&[0xFF, 0xD8]) { "image/jpeg" } else { "image/png" };
        Ok((bytes, mime))
    }
}

fn load(url: &str, folder: Option<&Path>, within: Option<&Confinement>) -> Result<Pixmap, ImageError> {
    let bytes = read_bytes(url, folder, within)?;
    decode(&bytes).map_err(|reason| ImageError::Undecodable { url: url.to_owned(), reason })
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

/// Decodes PNG or JPEG bytes into a premultiplied pixmap (sides at most [`MAX_IMAGE_SIDE`]).
pub fn decode(bytes: &[u8]) -> Result<Pixmap, String> {
    let (width, height, rgba) = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        decode_png(bytes)?
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        decode_jpeg(bytes)?
    } else {
        return Err("only PNG and JPEG images are drawn".into());
    };
    let mut pixmap = Pixmap::new(width, height).ok_or("the image is empty")?;
    for (pixel, rgba) in pixmap.pixels_mut().iter_mut().zip(rgba.chunks_exact(4)) {
        *pixel = ColorU8::from_rgba(rgba[0], rgba[1], rgba[2], rgba[3]).premultiply();
    }
    Ok(pixmap)
}

fn check_size(width: u32, height: u32) -> Result<(), String> {
    if width == 0 || height == 0 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(format!("{width} × {height} pixels; sides up to {MAX_IMAGE_SIDE} are drawn"));
    }
    Ok(())
}

fn decode_png(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    let limits = png::Limits { bytes: 256 * 1024 * 1024 };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::normalize_to_color8() | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let (width, height) = (reader.info().width, reader.info().height);
    check_size(width, height)?;
    let size = reader.output_buffer_size().ok_or("the image is too large")?;
    let mut buffer = vec![0; size];
    let frame = reader.next_frame(&mut buffer).map_err(|e| e.to_string())?;
    buffer.truncate(frame.buffer_size());
    let rgba = match frame.color_type {
        png::ColorType::Rgba => buffer,
        png::ColorType::Rgb => buffer.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => buffer.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Grayscale => buffer.iter().flat_map(|g| [*g, *g, *g, 255]).collect(),
        png::ColorType::Indexed => return Err("palette images were not expanded".into()),
    };
    Ok((width, height, rgba))
}

fn decode_jpeg(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    use zune_jpeg::zune_core::colorspace::ColorSpace;
    use zune_jpeg::zune_core::options::DecoderOptions;
    let options = DecoderOptions::default()
        .jpeg_set_out_colorspace(ColorSpace::RGBA)
        .set_max_width(MAX_IMAGE_SIDE as usize)
        .set_max_height(MAX_IMAGE_SIDE as usize);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(std::io::Cursor::new(bytes), options);
    let pixels = decoder.decode().map_err(|e| e.to_string())?;
    let info = decoder.info().ok_or("no image header")?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    check_size(width, height)?;
    if pixels.len() != (width * height * 4) as usize {
        return Err("the decoder returned an unexpected pixel format".into());
    }
    Ok((width, height, pixels))
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
