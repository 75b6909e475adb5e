//! The folder fetched Google Fonts families are kept in: `<cache>/<family-slug>/<slug>-<weight>-
//! <normal|italic>.ttf`, one file per face as Google serves it. The weight and style are read
//! from the file name, so a cached face is what was asked for, whatever its own tables say. The
//! folder is read and written through the host's [`FontFiles`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::faces::{Face, FaceData, MAX_FONT_FILE_BYTES, Origin, faces_in, sfnt_bytes};
use super::files::FontFiles;
use crate::files::FileError;

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
pub fn read_family(files: &dyn FontFiles, folder: &Path, family: &str) -> Vec<Arc<Face>> {
    read_files(files, &family_files(files, folder, family), family)
}

/// The files in the cache folder of `family`, however it is spelled (its folder is its slug).
pub(crate) fn family_files(files: &dyn FontFiles, folder: &Path, family: &str) -> Vec<PathBuf> {
    files.files_in(&folder.join(slug(family)))
}

/// The faces of `paths` (from [`family_files`]), named `family` as the catalogue spells it.
pub(crate) fn read_files(files: &dyn FontFiles, paths: &[PathBuf], family: &str) -> Vec<Arc<Face>> {
    let slug = slug(family);
    let mut faces = Vec::new();
    for path in paths {
        let Some((weight, italic)) = face_of_name(path, &slug) else { continue };
        let shown = path.display().to_string();
        let Ok(bytes) = files.read(path, MAX_FONT_FILE_BYTES) else { continue };
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
pub(crate) fn face_path(folder: &Path, family: &str, weight: u16, italic: bool) -> PathBuf {
    let slug = slug(family);
    let style = if italic { "italic" } else { "normal" };
    folder.join(&slug).join(format!("{slug}-{weight}-{style}.ttf"))
}

/// Writes a fetched face (TrueType or OpenType bytes) into the cache through `files`, whole or
/// not at all.
pub fn store(
    files: &dyn FontFiles,
    folder: &Path,
    family: &str,
    weight: u16,
    italic: bool,
    bytes: &[u8],
) -> Result<PathBuf, FileError> {
    let path = face_path(folder, family, weight, italic);
    files.write(&path, bytes)?;
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
        let folder = Path::new("/cache");
        let files = super::super::files::MemoryFontFiles::new().with("/cache/some-family/notes.txt", "not a font");
        let regular = super::super::bundled::test_font("liberation/LiberationSans-Regular.woff2");
        store(&files, folder, "Some Family", 700, true, &regular).expect("stored");
        let faces = read_family(&files, folder, "Some Family");
        assert_eq!(faces.len(), 1);
        assert_eq!((faces[0].family.as_str(), faces[0].weights, faces[0].italic), ("Some Family", (700, 700), true));
        assert_eq!(faces[0].origin, Origin::Cache);
        assert!(read_family(&files, folder, "Other").is_empty());
    }
}
