//! The image files a document refers to: which of them are not there, so check and
//! snapshot_layout can say so before a render draws placeholders.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::doc::values::Fill;
use crate::doc::{Key, Value};
use crate::resolve::{Scene, SceneKey};

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

/// An image fill whose file is not there: what a render would replace by a placeholder.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingImage<'a> {
    /// The node with the fill.
    pub node: SceneKey,
    /// The fill's `url` as written.
    pub url: &'a str,
    /// Where the file was looked for.
    pub path: PathBuf,
}

impl std::fmt::Display for MissingImage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "image '{}' not found at {}", self.url, self.path.display())
    }
}

/// The image fills of `nodes` whose file is not in `folder` (the document's folder), in the
/// order given, each url once per node; network addresses and `data:` URIs are not files and
/// are left out. Each file is looked for once, however many nodes use it, and nothing is built
/// for the fills not asked for.
pub fn missing_images<'a>(
    scene: &'a Scene,
    nodes: impl Iterator<Item = SceneKey> + 'a,
    folder: &'a Path,
) -> impl Iterator<Item = MissingImage<'a>> + 'a {
    let mut exists: HashMap<PathBuf, bool> = HashMap::new();
    nodes.flat_map(move |key| {
        let mut urls: Vec<&'a str> = Vec::new();
        if let Some(Value::Fills(fills)) = scene.node(key).props.get(&Key::Fill) {
            for fill in fills.as_slice() {
                if let Fill::Image(image) = fill
                    && let Some(url) = image.url.as_deref()
                    && !urls.contains(&url)
                {
                    urls.push(url);
                }
            }
        }
        let mut missing = Vec::new();
        for url in urls {
            let Some(path) = image_file(url, Some(folder)) else { continue };
            if !*exists.entry(path.clone()).or_insert_with(|| path.is_file()) {
                missing.push(MissingImage { node: key, url, path });
            }
        }
        missing
    })
}

/// Image fills whose file is not there, as (node, message), in document order; see
/// [`missing_images`].
pub fn missing_image_files(scene: &Scene, folder: &Path) -> Vec<(String, String)> {
    missing_images(scene, scene.walk(), folder).map(|m| (scene.node(m.node).id.clone(), m.to_string())).collect()
}
