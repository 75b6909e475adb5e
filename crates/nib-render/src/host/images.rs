//! Image fills on disk: PNG and JPEG files beside the document (or `data:` URIs) read inside the
//! host's root, decoded once into premultiplied pixmaps and kept for later renders. Nothing is
//! fetched from the network while rendering; what cannot be drawn is said, and left out (or
//! marked, when asked).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use tiny_skia::Pixmap;

use crate::display::pictures::{DecodeError, Decoded, ImageError, MAX_DECODED_PIXELS, Pictures, decode_within};
use crate::files::{Confinement, FileError};

/// Largest image file read.
pub const MAX_IMAGE_BYTES: u64 = 64 * 1024 * 1024;

/// Most bytes of decoded images kept between renders; the least recently used go first. With
/// the render pool ([`crate::render::memory::RENDER_MEMORY`]) this keeps a render within 1 GB.
pub const IMAGE_CACHE_BYTES: u64 = 256 * 1024 * 1024;

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

/// The pictures of one document that own their cache: what a host hands each thread that draws.
#[derive(Debug, Default)]
pub struct FolderImages {
    cache: ImageCache,
    folder: Option<PathBuf>,
}

impl FolderImages {
    /// The images of a document in `folder` (relative URLs start there; `None`: the current
    /// folder), read only inside `confinement` when one is given.
    pub fn new(folder: Option<PathBuf>, confinement: Option<&Confinement>) -> FolderImages {
        let mut cache = ImageCache::default();
        cache.confine(confinement);
        FolderImages { cache, folder }
    }
}

impl Pictures for FolderImages {
    fn picture(&mut self, url: &str) -> Result<Arc<Pixmap>, ImageError> {
        self.cache.get(url, self.folder.as_deref())
    }

    fn note(&self, url: &str) -> Option<String> {
        self.cache.note(url, self.folder.as_deref())
    }

    fn encoded(&mut self, url: &str) -> Result<(Vec<u8>, &'static str), ImageError> {
        self.cache.encoded(url, self.folder.as_deref())
    }

    fn file(&self, url: &str) -> Option<PathBuf> {
        super::image_files::image_file(url, self.folder.as_deref())
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
            return Ok((crate::render::encode_png(&image), "image/png"));
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
    let undecodable =
        |reason: String| ImageError::Undecodable { url: url.to_owned(), reason: DecodeError::Broken(reason) };
    if let Some(bytes) = data_uri_bytes(url) {
        return bytes;
    }
    let Some(path) = super::image_files::image_file(url, folder) else {
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

/// The payload of a base64 `data:` URI; `None` when `url` is not one.
pub(crate) fn data_uri_bytes(url: &str) -> Option<Result<Vec<u8>, ImageError>> {
    let data = url.strip_prefix("data:")?;
    let undecodable =
        |reason: String| ImageError::Undecodable { url: url.to_owned(), reason: DecodeError::Broken(reason) };
    Some(match data.split_once(";base64,") {
        None => Err(undecodable("only base64 data URIs are read".into())),
        Some((_, payload)) => base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .map_err(|e| undecodable(format!("bad base64: {e}"))),
    })
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
        let pixmap = crate::display::pictures::decode(&tiny_png()).expect("decodes");
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
        assert!(crate::display::pictures::decode(&bomb(16384, 16384)).unwrap_err().to_string().contains("read whole"));
    }
}
