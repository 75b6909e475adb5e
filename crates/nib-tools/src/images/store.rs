//! Image files next to the document: names made from the prompt, checks that downloaded bytes
//! are an image the renderer draws, and atomic writes into `images/`.

use std::path::{Path, PathBuf};

use super::{ImageRequest, ProviderError};

/// The image formats the renderer draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImageFormat {
    /// PNG, stored as `.png`.
    Png,
    /// JPEG, stored as `.jpg`.
    Jpeg,
}

impl ImageFormat {
    /// The format the bytes start with; servers' content types are not trusted alone.
    pub(crate) fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageFormat::Png)
        } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            Some(ImageFormat::Jpeg)
        } else {
            None
        }
    }

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpg",
        }
    }
}

/// A short file-name-safe form of `prompt`: lower-case ASCII words joined by `-`, at most 40
/// characters, `image` when nothing is left.
pub fn slug(prompt: &str) -> String {
    let mut slug = String::new();
    for word in prompt.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        if slug.len() + word.len() + 1 > 40 {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&word.to_ascii_lowercase());
    }
    if slug.is_empty() { "image".to_owned() } else { slug }
}

/// The stored file `images/<stem>.png` or `.jpg` under `folder`, when one exists, as
/// `(url, path)`.
pub fn existing(folder: &Path, stem: &str) -> Option<(String, PathBuf)> {
    [ImageFormat::Jpeg, ImageFormat::Png].into_iter().find_map(|format| {
        let name = format!("{stem}.{}", format.extension());
        let path = folder.join("images").join(&name);
        path.is_file().then(|| (format!("./images/{name}"), path))
    })
}

/// Writes `bytes` to `images/<stem>.<ext>` under the request's folder (the extension from the
/// bytes), inside its confinement, and returns its URL relative to the document and its path.
/// Bytes that are not PNG or JPEG are refused: the renderer could not draw them.
pub fn write(request: &ImageRequest, stem: &str, bytes: &[u8]) -> Result<(String, PathBuf), ProviderError> {
    let format = ImageFormat::sniff(bytes)
        .ok_or_else(|| ProviderError::Provider("the image is neither PNG nor JPEG, which nib cannot draw".into()))?;
    let name = format!("{stem}.{}", format.extension());
    let path = request.store(&name, bytes)?;
    Ok((format!("./images/{name}"), path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_keep_ascii_words_and_stay_short() {
        assert_eq!(slug("Warm bakery interior, morning light!"), "warm-bakery-interior-morning-light");
        assert_eq!(slug("Café ☕"), "caf");
        assert_eq!(slug("☕ ✨"), "image");
        assert!(slug(&"word ".repeat(30)).len() <= 40);
    }

    #[test]
    fn only_png_and_jpeg_are_written_with_their_own_extension() {
        let folder = tempfile::tempdir().unwrap();
        let request = ImageRequest {
            kind: super::super::ImageKind::Ai,
            prompt: "p",
            folder: folder.path(),
            orientation: None,
            confinement: None,
        };
        let (url, path) = write(&request, "a", b"\xff\xd8\xff\xe0rest").unwrap();
        assert_eq!(url, "./images/a.jpg");
        assert!(path.is_file());
        assert_eq!(existing(folder.path(), "a").unwrap().0, "./images/a.jpg");
        assert!(existing(folder.path(), "b").is_none());
        assert!(write(&request, "c", b"GIF89a").is_err());
        assert!(write(&request, "d", b"RIFF....WEBP").is_err());
    }
}
