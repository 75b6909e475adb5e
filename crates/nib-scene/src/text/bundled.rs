//! The font files nib ships (`assets/fonts`, listed in the generated table of the `nib-fonts`
//! crate): the same bytes on every machine, decoded from WOFF2 when nib is built. A family's faces
//! are made the first time a text asks for it, once per process.

use std::sync::{Arc, OnceLock};

use super::faces::{Face, FaceData, Origin};
use nib_fonts::{FAMILIES, FILES};

/// Families bundled in part (see `assets/fonts/refresh.py`): their whole files are fetched.
pub const PARTIAL_FAMILIES: &[&str] = &["Noto Sans JP", "Noto Serif JP", "Noto Sans SC", "Noto Sans KR"];

/// The faces of each bundled family (by index in [`FAMILIES`]), each made the first time the
/// family is asked for: making all thousand faces up front cost a millisecond of start-up for
/// families most documents never use.
fn faces() -> &'static [OnceLock<Vec<Arc<Face>>>] {
    static FACES: OnceLock<Vec<OnceLock<Vec<Arc<Face>>>>> = OnceLock::new();
    FACES.get_or_init(|| FAMILIES.iter().map(|_| OnceLock::new()).collect())
}

/// The index in [`FAMILIES`] of the family whose name, lower-cased, is `lower`. Bundled names
/// are ASCII (a test keeps them so): lower-cased as ASCII, compared without allocating.
fn find(lower: &str) -> Option<usize> {
    FAMILIES.iter().position(|family| {
        let name = family.name();
        name.len() == lower.len()
            && name.bytes().zip(lower.bytes()).all(|(name, asked)| name.to_ascii_lowercase() == asked)
    })
}

/// The bundled family whose lower-cased name is `lower`: its name as spelled and its faces in
/// the table's order (the same `Arc`s every time, so a text engine registers each face once).
pub fn family(lower: &str) -> Option<(&'static str, &'static [Arc<Face>])> {
    family_in(faces(), lower)
}

fn family_in<'a>(faces: &'a [OnceLock<Vec<Arc<Face>>>], lower: &str) -> Option<(&'static str, &'a [Arc<Face>])> {
    let index = find(lower)?;
    let family = &FAMILIES[index];
    let made = faces[index].get_or_init(|| {
        family
            .files()
            .map(|row| {
                let file = &FILES[row];
                Arc::new(Face {
                    family: family.name().to_owned(),
                    data: FaceData::Bundled(row),
                    index: 0,
                    italic: file.italic,
                    weights: file.weights,
                    ranges: file.ranges(),
                    origin: Origin::Bundled,
                    file: file.path().to_owned(),
                })
            })
            .collect()
    });
    Some((family.name(), made))
}

/// True when `lower` (a lower-cased name) is a bundled family.
pub(crate) fn has_family(lower: &str) -> bool {
    find(lower).is_some()
}

/// The bundled family names, unsorted.
pub(crate) fn family_names() -> impl Iterator<Item = &'static str> {
    FAMILIES.iter().map(|family| family.name())
}

/// The bytes of bundled file `index` as TrueType/OpenType (decoded from WOFF2 when nib was
/// built, so opening a face costs nothing); `None` for an index out of the table.
pub fn bytes(index: usize) -> Option<Arc<dyn AsRef<[u8]> + Send + Sync>> {
    Some(Arc::new(FILES.get(index)?.data))
}

/// The decoded bytes of the bundled file at `path` (under `assets/fonts`), for tests.
#[cfg(test)]
pub(crate) fn test_font(path: &str) -> Vec<u8> {
    let index = FILES.iter().position(|f| f.path() == path).unwrap_or_else(|| panic!("{path} is not bundled"));
    (*bytes(index).expect("decodes")).as_ref().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_file_is_a_font_of_its_family() {
        for (index, file) in FILES.iter().enumerate() {
            // Decoded when nib was built: opening a face decodes nothing.
            assert!(!file.data.starts_with(b"wOF2"), "{} is embedded as WOFF2", file.path());
            let bytes = bytes(index).unwrap_or_else(|| panic!("{} is not in the table", file.path()));
            let faces = super::super::faces::faces_in(
                (*bytes).as_ref(),
                || FaceData::Bundled(index),
                Origin::Bundled,
                file.path(),
                None,
            );
            assert_eq!(faces.len(), 1, "{}", file.path());
            let named = faces[0].family.to_lowercase();
            // Static faces of some families name their weight too ("DM Mono Light").
            assert!(
                named.starts_with(&file.family().to_lowercase()),
                "{}: named {named}, listed as {}",
                file.path(),
                file.family()
            );
        }
    }

    /// Every bundled face was made at the first text, whatever families it used: a millisecond
    /// of start-up spent on families most documents never ask for.
    #[test]
    fn asking_for_one_family_makes_the_faces_of_that_family_only() {
        let faces: Vec<OnceLock<Vec<Arc<Face>>>> = FAMILIES.iter().map(|_| OnceLock::new()).collect();
        let (_, made) = family_in(&faces, "dm sans").expect("bundled");
        assert!(!made.is_empty());
        let made: Vec<&str> =
            FAMILIES.iter().zip(&faces).filter(|(_, faces)| faces.get().is_some()).map(|(f, _)| f.name()).collect();
        assert_eq!(made, ["DM Sans"]);
    }

    /// Families are found by their names lower-cased as Unicode lower-cases them (as a map of
    /// lower-cased names found them): the same as ASCII's for the ASCII names bundled.
    #[test]
    fn every_family_is_found_by_its_lower_cased_name_and_only_by_it() {
        for (index, family) in FAMILIES.iter().enumerate() {
            let name = family.name();
            assert!(name.is_ascii(), "{name} is not ASCII: find() lower-cases as ASCII does");
            assert_eq!(find(&name.to_lowercase()), Some(index), "{name}");
        }
        assert_eq!(find("Inter"), None, "the name asked for is lower-cased by the caller");
        assert!(find("inte").is_none() && find("inter ").is_none() && find("").is_none());
        assert!(has_family("inter") && has_family("jetbrains mono") && !has_family("comic sans ms"));
    }

    #[test]
    fn families_keep_the_order_of_their_subsets() {
        let (name, faces) = family("dm sans").expect("bundled");
        assert_eq!(name, "DM Sans");
        assert!(faces[0].file.contains("-latin-wght-normal"), "{}", faces[0].file);
        assert!(faces.iter().any(|f| f.italic));
        assert_eq!(faces[0].weights, (100, 1000));
    }
}
