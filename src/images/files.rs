//! The image files a document refers to: which of them are not there, so check and
//! snapshot_layout can say so before a render draws placeholders.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::doc::values::Fill;
use crate::doc::{Key, Value};
use crate::resolve::Scene;

/// The file an image fill's `url` names, relative to `folder` (the document's folder); `None`
/// for what is not a file: `data:` URIs and network addresses.
pub fn image_file(url: &str, folder: Option<&Path>) -> Option<PathBuf> {
    if url.starts_with("data:") || url.starts_with("http://") || url.starts_with("https://") {
        return None;
    }
    let relative = url.strip_prefix("file://").unwrap_or(url);
    Some(match folder {
        Some(folder) if Path::new(relative).is_relative() => folder.join(relative),
        _ => PathBuf::from(relative),
    })
}

/// Image fills whose file is not there, as (node, message), in document order: what a render
/// would replace by a placeholder. `folder` is the document's folder; network addresses and
/// `data:` URIs are not files and are left out.
pub fn missing_image_files(scene: &Scene, folder: &Path) -> Vec<(String, String)> {
    let mut missing = Vec::new();
    let mut seen = HashSet::new();
    for part in scene.parts() {
        for node in part.nodes() {
            let Some(Value::Fills(fills)) = node.props.get(&Key::Fill) else { continue };
            for fill in fills.as_slice() {
                let Fill::Image(image) = fill else { continue };
                let Some(url) = image.url.as_deref() else { continue };
                let Some(path) = image_file(url, Some(folder)) else { continue };
                if !path.is_file() && seen.insert((node.id.clone(), url.to_owned())) {
                    missing.push((node.id.clone(), format!("image '{url}' not found at {}", path.display())));
                }
            }
        }
    }
    missing
}
