//! Images for `G(node, "ai" | "stock", prompt)`: a provider finds or makes an image for a prompt
//! and stores it next to the document.

#[cfg(feature = "network-images")]
#[allow(dead_code, unused_imports)] // used by the providers of the next change
mod http;
mod offline;
#[cfg(all(test, feature = "network-images"))]
mod tests;

use std::path::Path;

pub use offline::OfflineImages;

/// Where the image should come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
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

/// What was asked for.
#[derive(Debug, Clone, Copy)]
pub struct ImageRequest<'a> {
    /// Generated or stock.
    pub kind: ImageKind,
    /// What the image should show.
    pub prompt: &'a str,
    /// The folder of the document; images go to its `images/` subfolder.
    pub folder: &'a Path,
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
}

/// Why no image could be provided.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// Writing the image file failed.
    #[error("could not store the image: {0}")]
    Io(#[from] std::io::Error),
    /// The provider refused or failed.
    #[error("{0}")]
    Provider(String),
}

/// Finds or makes images for prompts.
pub trait ImageProvider {
    /// Provides an image for `request`, stored under `request.folder`.
    fn image(&self, request: &ImageRequest) -> Result<ProvidedImage, ImageError>;
}
