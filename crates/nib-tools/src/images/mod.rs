//! Images for `G(node, "ai" | "stock", prompt)`: a provider finds or makes an image for a prompt
//! and stores it next to the document.
//!
//! [`from_env`] gives the providers the environment configures: Unsplash photos for `stock`
//! (`UNSPLASH_ACCESS_KEY`), an OpenAI-compatible image API for `ai` (`NIB_IMAGE_API_KEY` or
//! `OPENAI_API_KEY`), and [`OfflineImages`] otherwise and whenever a service fails. The network
//! providers exist only with the `network-images` Cargo feature (on by default).

mod cache;
mod config;
mod configured;
mod offline;
#[cfg(feature = "network-images")]
mod openai;
#[cfg(feature = "network-images")]
mod store;
#[cfg(all(test, feature = "network-images"))]
mod tests;
#[cfg(feature = "network-images")]
mod unsplash;

use std::path::{Path, PathBuf};

use crate::files::Confinement;

pub use crate::host::image_files::{MissingImage, Unreadable, image_file, missing_image_files, missing_images};
#[cfg(feature = "network-images")]
pub(crate) use config::AiSettings;
pub use config::ImageSettings;
pub use configured::ConfiguredImages;
pub use offline::OfflineImages;

/// The image providers the environment configures (see [`ImageSettings::from_env`]), with the
/// offline generator as default and fallback.
pub fn from_env() -> ConfiguredImages {
    ConfiguredImages::new(&ImageSettings::from_env())
}

/// Where the image should come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageKind {
    /// Generated from the prompt.
    Ai,
    /// A stock photograph matching the prompt.
    Stock,
}

impl ImageKind {
    /// `"ai"` or `"stock"`.
    pub fn parse(text: &str) -> Option<ImageKind> {
        match text {
            "ai" => Some(ImageKind::Ai),
            "stock" => Some(ImageKind::Stock),
            _ => None,
        }
    }
}

/// The shape of the node the image fills, so services can pick a fitting picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Orientation {
    /// Clearly wider than tall.
    Landscape,
    /// Clearly taller than wide.
    Portrait,
    /// About as wide as tall.
    Squarish,
}

impl Orientation {
    /// The orientation of a `width` × `height` box; `None` for an empty or unknown box.
    pub fn of(width: f64, height: f64) -> Option<Orientation> {
        if !(width > 0.0 && height > 0.0 && width.is_finite() && height.is_finite()) {
            return None;
        }
        let ratio = width / height;
        Some(if ratio > 1.2 {
            Orientation::Landscape
        } else if ratio < 1.0 / 1.2 {
            Orientation::Portrait
        } else {
            Orientation::Squarish
        })
    }

    /// Unsplash's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Orientation::Landscape => "landscape",
            Orientation::Portrait => "portrait",
            Orientation::Squarish => "squarish",
        }
    }
}

/// What was asked for.
#[derive(Debug, Clone, Copy)]
pub struct ImageRequest<'a> {
    /// Generated or stock.
    pub kind: ImageKind,
    /// What the image should show.
    pub prompt: &'a str,
    /// The folder of the document; images go to its `images/` subfolder.
    pub folder: &'a Path,
    /// The shape of the node, when its size is known.
    pub orientation: Option<Orientation>,
    /// The folder every file must be written in (the MCP server's root), checked when the image
    /// is written; `None` writes wherever `folder` leads.
    pub confinement: Option<&'a Confinement>,
}

impl ImageRequest<'_> {
    /// Writes `bytes` as `images/<name>` beside the document (the folder made when missing),
    /// atomically and inside the confinement: every provider stores its images this one way.
    pub(crate) fn store(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, crate::files::FileError> {
        let folder = crate::files::create_folder(&self.folder.join("images"), self.confinement)?;
        let path = folder.join(name);
        crate::files::write_atomic(&path, bytes, self.confinement)?;
        Ok(path)
    }

    /// The bytes of an image stored earlier at `path` (for another document's request), at
    /// most what a render reads of an image; `None` when it is gone or unreadable.
    pub(crate) fn read_stored(path: &Path) -> Option<Vec<u8>> {
        crate::files::read_regular(path, crate::host::MAX_IMAGE_BYTES).ok()
    }
}

/// An image stored for a document.
#[derive(Debug, Clone, PartialEq)]
pub struct ProvidedImage {
    /// The image's path relative to the document, e.g. `./images/generated-1a2b3c.png`.
    pub url: String,
    /// Attribution to store in the node's `metadata` (stock photos), as JSON text.
    pub metadata: Option<String>,
    /// Something the agent should know, e.g. that no provider is configured.
    pub note: Option<String>,
    /// The file this request wrote because it was not there before: removed again when the
    /// change it was for is not kept, so a failed call leaves nothing behind.
    pub created: Option<PathBuf>,
}

/// Why no image could be provided.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// Writing the image file failed, or would have written outside the allowed folder.
    #[error("could not store the image: {0}")]
    File(#[from] crate::files::FileError),
    /// The service could not serve this prompt (no match, a refused prompt, a broken image);
    /// another prompt may work.
    #[error("{0}")]
    Provider(String),
    /// The service cannot serve anything now (a rejected key, a used-up rate limit, a timeout,
    /// a server error); asking again soon would fail the same way.
    #[error("{0}")]
    Unavailable(String),
}

/// Finds or makes images for prompts.
pub trait ImageProvider {
    /// Provides an image for `request`, stored under `request.folder`.
    fn image(&self, request: &ImageRequest) -> Result<ProvidedImage, ProviderError>;
}
