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

/// Why the file of an image fill cannot be read (see [`super::Host::unreadable_image`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// It is not there: where it was looked for.
    Missing(String),
    /// It lies outside the folder nib may read, so it was not looked at: the answer does not
    /// tell whether it exists.
    Outside,
}

/// Whether the file `url` names, relative to `folder` and inside `confinement`, can be read;
/// `None` for what is not a file (`data:` URIs, network addresses) and for files that are there.
pub(crate) fn unreadable_file(url: &str, folder: &Path, confinement: Option<&Confinement>) -> Option<Unreadable> {
    let path = image_file(url, Some(folder))?;
    match Confinement::apply(confinement, &path) {
        Err(_) => Some(Unreadable::Outside),
        Ok(readable) if readable.is_file() => None,
        Ok(_) => Some(Unreadable::Missing(path.display().to_string())),
    }
}

/// An image fill whose file is not there, or may not be read: a render leaves it out.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingImage<'a> {
    /// The node with the fill.
    pub node: SceneKey,
    /// The fill's `url` as written.
    pub url: &'a str,
    /// Why it cannot be read.
    pub why: Unreadable,
}

impl MissingImage<'_> {
    /// True when the file is outside the folder nib may read.
    pub fn outside(&self) -> bool {
        self.why == Unreadable::Outside
    }
}

impl std::fmt::Display for MissingImage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.why {
            Unreadable::Outside => {
                write!(f, "image '{}' is outside the folder nib serves, so it is not read", self.url)
            }
            Unreadable::Missing(path) => write!(f, "image '{}' not found at {path}", self.url),
        }
    }
}

/// The image fills of `nodes` whose file `host` cannot read, in the order given, each url once
/// per node; network addresses and `data:` URIs are not files and are left out. Each url is
/// asked for once, however many nodes use it, and nothing is built for the fills not asked for.
pub fn missing_images<'a>(
    scene: &'a Scene,
    nodes: impl Iterator<Item = SceneKey> + 'a,
    host: &'a dyn super::Host,
) -> impl Iterator<Item = MissingImage<'a>> + 'a {
    let mut asked: HashMap<&'a str, Option<Unreadable>> = HashMap::new();
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
            if let Some(why) = asked.entry(url).or_insert_with(|| host.unreadable_image(url)) {
                missing.push(MissingImage { node: key, url, why: why.clone() });
            }
        }
        missing
    })
}

/// Image fills whose file `host` cannot read, as `image-file` warnings about their nodes, in
/// document order; see [`missing_images`].
pub fn missing_image_files(scene: &Scene, host: &dyn super::Host) -> Vec<crate::diagnostic::Diagnostic> {
    missing_images(scene, scene.walk(), host)
        .map(|m| crate::diagnostic::Diagnostic::warning("image-file", m.to_string()).at_node(&scene.node(m.node).id))
        .collect()
}
