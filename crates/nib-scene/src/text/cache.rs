//! The folder fetched Google Fonts families are kept in: `<cache>/<family-slug>/<slug>-<weight>-
//! <normal|italic>.ttf`, one file per face as Google serves it. The weight and style are read
//! from the file name, so a cached face is what was asked for, whatever its own tables say.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::faces::{Face, FaceData, MAX_FONT_FILE_BYTES, Origin, faces_in, sfnt_bytes};
use crate::files::{FileError, create_folder, read_regular, write_atomic};

/// The cache folder for fonts: `NIB_FONT_CACHE`, else the platform's cache folder (XDG on Linux:
/// `$XDG_CACHE_HOME` or `~/.cache`; `~/Library/Caches` on macOS; `%LOCALAPPDATA%` on Windows)
/// followed by `nib/fonts`. `None` when none of these is set.
pub fn default_folder() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(folder) = var("NIB_FONT_CACHE") {
        return Some(folder);
    }
    let base = if cfg!(target_os = "macos") {
        var("HOME").map(|home| home.join("Library").join("Caches"))
    } else if cfg!(windows) {
        var("LOCALAPPDATA")
    } else {
        var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|home| home.join(".cache")))
    };
    base.map(|base| base.join("nib").join("fonts"))
}

/// The folder name of a family: lower case, spaces as `-`, nothing but letters, digits and `-`.
pub fn slug(family: &str) -> String {
    family
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            'a'..='z' | '0'..='9' => Some(c),
            ' ' | '-' | '_' => Some('-'),
            _ => None,
        })
        .collect()
}

/// The cached faces of `family` (named as the catalogue spells it); empty when none is cached.
/// Files that do not read are skipped: the next fetch writes them again.
pub fn read_family(folder: &Path, family: &str) -> Vec<Arc<Face>> {
    let slug = slug(family);
    let Ok(entries) = std::fs::read_dir(folder.join(&slug)) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    let mut faces = Vec::new();
    for path in files {
        let Some((weight, italic)) = face_of_name(&path, &slug) else { continue };
        let shown = path.display().to_string();
        let Ok(bytes) = read_regular(&path, MAX_FONT_FILE_BYTES) else { continue };
        let Ok(bytes) = sfnt_bytes(bytes, &shown) else { continue };
        let read = faces_in(&bytes, || FaceData::File(path.clone()), Origin::Cache, &shown, Some(family));
        for mut face in read.into_iter().take(1) {
            face.italic = italic;
            // A variable face keeps its axis; a static one is the weight it was fetched for.
            if face.weights.0 == face.weights.1 {
                face.weights = (weight, weight);
            }
            faces.push(Arc::new(face));
        }
    }
    faces
}

/// `(weight, italic)` from `<slug>-<weight>-<normal|italic>.ttf`.
fn face_of_name(path: &Path, slug: &str) -> Option<(u16, bool)> {
    let stem = path.file_stem()?.to_str()?;
    if path.extension()?.to_str()? != "ttf" {
        return None;
    }
    let rest = stem.strip_prefix(slug)?.strip_prefix('-')?;
    let (weight, style) = rest.split_once('-')?;
    let weight: u16 = weight.parse().ok().filter(|w| (1..=1000).contains(w))?;
    match style {
        "normal" => Some((weight, false)),
        "italic" => Some((weight, true)),
        _ => None,
    }
}

/// Where the face of `family` at `weight` and `italic` is cached.
pub fn face_path(folder: &Path, family: &str, weight: u16, italic: bool) -> PathBuf {
    let slug = slug(family);
    let style = if italic { "italic" } else { "normal" };
    folder.join(&slug).join(format!("{slug}-{weight}-{style}.ttf"))
}

/// Writes a fetched face (TrueType or OpenType bytes) into the cache, atomically.
pub fn store(folder: &Path, family: &str, weight: u16, italic: bool, bytes: &[u8]) -> Result<PathBuf, FileError> {
    let path = face_path(folder, family, weight, italic);
    if let Some(parent) = path.parent() {
        create_folder(parent, None)?;
    }
    write_atomic(&path, bytes, None)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_folders_have_plain_names() {
        assert_eq!(slug("Press Start 2P"), "press-start-2p");
        assert_eq!(slug(" Noto Sans JP "), "noto-sans-jp");
        assert_eq!(slug("../etc"), "etc", "no path tricks through a family name");
    }

    #[test]
    fn cached_faces_are_read_back_with_their_weight_and_style() {
        let folder = tempfile::tempdir().expect("a folder");
        let regular = super::super::bundled::test_font("liberation/LiberationSans-Regular.woff2");
        store(folder.path(), "Some Family", 700, true, &regular).expect("stored");
        std::fs::write(folder.path().join("some-family").join("notes.txt"), "not a font").expect("written");
        let faces = read_family(folder.path(), "Some Family");
        assert_eq!(faces.len(), 1);
        assert_eq!((faces[0].family.as_str(), faces[0].weights, faces[0].italic), ("Some Family", (700, 700), true));
        assert_eq!(faces[0].origin, Origin::Cache);
        assert!(read_family(folder.path(), "Other").is_empty());
    }
}
