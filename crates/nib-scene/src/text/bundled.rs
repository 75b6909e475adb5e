//! The font files nib ships (`assets/fonts`, listed in the generated table of the `nib-fonts` crate): the
//! same bytes on every machine. They stay compressed in the binary (WOFF2 mostly) and are
//! decoded the first time a text needs them, once per process.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use super::faces::{Face, FaceData, Origin};
use nib_fonts::FILES;

/// Families bundled in part (see `assets/fonts/refresh.py`): their whole files are fetched.
pub const PARTIAL_FAMILIES: &[&str] = &["Noto Sans JP", "Noto Serif JP", "Noto Sans SC", "Noto Sans KR"];

/// One bundled family: its name and the rows of its files in the table, in the table's order.
struct FamilyRows {
    name: &'static str,
    rows: Vec<usize>,
    /// Its faces, made the first time the family is asked for: making all thousand faces up
    /// front cost a millisecond of start-up for families most documents never use.
    faces: OnceLock<Vec<Arc<Face>>>,
}

/// Lower-cased family name → the family's rows (no face is made here).
fn index() -> &'static HashMap<String, FamilyRows> {
    static INDEX: OnceLock<HashMap<String, FamilyRows>> = OnceLock::new();
    INDEX.get_or_init(build_index)
}

fn build_index() -> HashMap<String, FamilyRows> {
    let mut families: HashMap<String, FamilyRows> = HashMap::new();
    for (row, file) in FILES.iter().enumerate() {
        families
            .entry(file.family.to_lowercase())
            .or_insert_with(|| FamilyRows { name: file.family, rows: Vec::new(), faces: OnceLock::new() })
            .rows
            .push(row);
    }
    families
}

/// The bundled family whose lower-cased name is `lower`: its name as spelled and its faces in
/// the table's order (the same `Arc`s every time, so a text engine registers each face once).
pub fn family(lower: &str) -> Option<(&'static str, &'static [Arc<Face>])> {
    family_in(index(), lower)
}

fn family_in<'a>(index: &'a HashMap<String, FamilyRows>, lower: &str) -> Option<(&'static str, &'a [Arc<Face>])> {
    let family = index.get(lower)?;
    let faces = family.faces.get_or_init(|| {
        family
            .rows
            .iter()
            .map(|&row| {
                let file = &FILES[row];
                Arc::new(Face {
                    family: file.family.to_owned(),
                    data: FaceData::Bundled(row),
                    index: 0,
                    italic: file.italic,
                    weights: file.weights,
                    ranges: file.ranges,
                    origin: Origin::Bundled,
                    file: file.path.to_owned(),
                })
            })
            .collect()
    });
    Some((family.name, faces))
}

/// True when `lower` (a lower-cased name) is a bundled family.
pub(crate) fn has_family(lower: &str) -> bool {
    index().contains_key(lower)
}

/// The bundled family names, unsorted.
pub(crate) fn family_names() -> impl Iterator<Item = &'static str> {
    index().values().map(|family| family.name)
}

/// The bytes of bundled file `index` as TrueType/OpenType (decoded from WOFF2 when nib was
/// built, so opening a face costs nothing); `None` for an index out of the table.
pub fn bytes(index: usize) -> Option<Arc<dyn AsRef<[u8]> + Send + Sync>> {
    Some(Arc::new(FILES.get(index)?.data))
}

/// The decoded bytes of the bundled file at `path` (under `assets/fonts`), for tests.
#[cfg(test)]
pub(crate) fn test_font(path: &str) -> Vec<u8> {
    let index = FILES.iter().position(|f| f.path == path).unwrap_or_else(|| panic!("{path} is not bundled"));
    (*bytes(index).expect("decodes")).as_ref().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_file_is_a_font_of_its_family() {
        for (index, file) in FILES.iter().enumerate() {
            // Decoded when nib was built: opening a face decodes nothing.
            assert!(!file.data.starts_with(b"wOF2"), "{} is embedded as WOFF2", file.path);
            let bytes = bytes(index).unwrap_or_else(|| panic!("{} is not in the table", file.path));
            let faces = super::super::faces::faces_in(
                (*bytes).as_ref(),
                || FaceData::Bundled(index),
                Origin::Bundled,
                file.path,
                None,
            );
            assert_eq!(faces.len(), 1, "{}", file.path);
            let named = faces[0].family.to_lowercase();
            // Static faces of some families name their weight too ("DM Mono Light").
            assert!(
                named.starts_with(&file.family.to_lowercase()),
                "{}: named {named}, listed as {}",
                file.path,
                file.family
            );
        }
    }

    /// Every bundled face was made at the first text, whatever families it used: a millisecond
    /// of start-up spent on families most documents never ask for.
    #[test]
    fn asking_for_one_family_makes_the_faces_of_that_family_only() {
        let index = build_index();
        assert!(index.values().all(|family| family.faces.get().is_none()), "none made up front");
        let (_, faces) = family_in(&index, "dm sans").expect("bundled");
        assert!(!faces.is_empty());
        let made: Vec<&str> = index.values().filter(|f| f.faces.get().is_some()).map(|f| f.name).collect();
        assert_eq!(made, ["DM Sans"]);
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
