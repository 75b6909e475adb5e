//! The image files a document refers to: which of them are not there (or may not be read), so
//! check and snapshot_layout can say so before a render leaves them out.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::doc::values::Fill;
use crate::doc::{Key, Value};
use crate::files::Confinement;
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

/// Where a document's image files are: its folder, and the folder reads must stay in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImagePlace<'a> {
    /// The document's folder, which relative urls start from.
    pub folder: &'a Path,
    /// Files outside this folder are not read (the MCP server's root).
    pub confinement: Option<&'a Confinement>,
}

/// An image fill whose file is not there, or may not be read: a render leaves it out.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingImage<'a> {
    /// The node with the fill.
    pub node: SceneKey,
    /// The fill's `url` as written.
    pub url: &'a str,
    /// Where the file was looked for.
    pub path: PathBuf,
    /// True when the file is outside the folder nib may read: it was not looked at, so the
    /// answer does not tell whether it exists.
    pub outside: bool,
}

impl std::fmt::Display for MissingImage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.outside {
            write!(f, "image '{}' is outside the folder nib serves, so it is not read", self.url)
        } else {
            write!(f, "image '{}' not found at {}", self.url, self.path.display())
        }
    }
}

/// The image fills of `nodes` whose file is not in the document's folder (or lies outside the
/// confinement), in the order given, each url once per node; network addresses and `data:`
/// URIs are not files and are left out. Each file is looked for once, however many nodes use
/// it, and nothing is built for the fills not asked for.
pub fn missing_images<'a>(
    scene: &'a Scene,
    nodes: impl Iterator<Item = SceneKey> + 'a,
    place: ImagePlace<'a>,
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
            let Some(path) = image_file(url, Some(place.folder)) else { continue };
            // A file outside is never looked at: whether it exists is not for the answer to say.
            let Ok(readable) = Confinement::apply(place.confinement, &path) else {
                missing.push(MissingImage { node: key, url, path, outside: true });
                continue;
            };
            if !*exists.entry(readable.clone()).or_insert_with(|| readable.is_file()) {
                missing.push(MissingImage { node: key, url, path, outside: false });
            }
        }
        missing
    })
}

/// Image fills whose file is not there, as (node, message), in document order; see
/// [`missing_images`].
pub fn missing_image_files(scene: &Scene, folder: &Path) -> Vec<(String, String)> {
    missing_images(scene, scene.walk(), ImagePlace { folder, confinement: None })
        .map(|m| (scene.node(m.node).id.clone(), m.to_string()))
        .collect()
}
