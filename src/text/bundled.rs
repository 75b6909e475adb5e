//! The font files nib ships (`assets/fonts`, listed in the generated `bundled_files.rs`): the
//! same bytes on every machine. They stay compressed in the binary (WOFF2 mostly) and are
//! decoded the first time a text needs them, once per process.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use super::bundled_files::FILES;
use super::faces::{Face, FaceData, Origin, sfnt_bytes};

/// Families bundled in part (see `assets/fonts/refresh.py`): their whole files are fetched.
pub const PARTIAL_FAMILIES: &[&str] = &["Noto Sans JP", "Noto Serif JP", "Noto Sans SC", "Noto Sans KR"];

/// One bundled file: a face of a family, for the characters of one subset.
#[derive(Debug)]
pub(super) struct BundledFile {
    /// The family.
    pub family: &'static str,
    /// Its path under `assets/fonts`.
    pub path: &'static str,
    /// The file as shipped (WOFF2, TrueType or OpenType).
    pub data: &'static [u8],
    /// Italic rather than upright.
    pub italic: bool,
    /// The weights it covers (the `wght` axis of a variable face).
    pub weights: (u16, u16),
    /// The characters it is declared for; empty for all.
    pub ranges: &'static [(u32, u32)],
}

/// Every bundled face, in the table's order.
pub fn faces() -> &'static [Arc<Face>] {
    static FACES: OnceLock<Vec<Arc<Face>>> = OnceLock::new();
    FACES.get_or_init(|| {
        FILES
            .iter()
            .enumerate()
            .map(|(index, file)| {
                Arc::new(Face {
                    family: file.family.to_owned(),
                    data: FaceData::Bundled(index),
                    index: 0,
                    italic: file.italic,
                    weights: file.weights,
                    ranges: file.ranges,
                    origin: Origin::Bundled,
                    file: file.path.to_owned(),
                })
            })
            .collect()
    })
}

/// Lower-cased family name → the name and the faces, in the table's order.
pub type Families = HashMap<String, (&'static str, Vec<Arc<Face>>)>;

/// The bundled families.
pub fn families() -> &'static Families {
    static FAMILIES: OnceLock<Families> = OnceLock::new();
    FAMILIES.get_or_init(|| {
        let mut families = Families::new();
        for (file, face) in FILES.iter().zip(faces()) {
            families
                .entry(file.family.to_lowercase())
                .or_insert_with(|| (file.family, Vec::new()))
                .1
                .push(face.clone());
        }
        families
    })
}

/// The bytes of bundled file `index` as TrueType/OpenType, decoded once per process and shared
/// by every text engine; `None` for an index out of the table or a file that does not decode
/// (a test checks that every file does).
pub fn bytes(index: usize) -> Option<Arc<dyn AsRef<[u8]> + Send + Sync>> {
    type Slot = OnceLock<Option<Arc<Vec<u8>>>>;
    static DECODED: OnceLock<Vec<Slot>> = OnceLock::new();
    let file = FILES.get(index)?;
    if !file.data.starts_with(b"wOF2") {
        return Some(Arc::new(file.data));
    }
    let slots = DECODED.get_or_init(|| FILES.iter().map(|_| OnceLock::new()).collect());
    let decoded = slots.get(index)?.get_or_init(|| sfnt_bytes(file.data.to_vec(), file.path).ok().map(Arc::new));
    decoded.clone().map(|bytes| bytes as Arc<dyn AsRef<[u8]> + Send + Sync>)
}

/// The decoded bytes of the bundled file at `path` (under `assets/fonts`), for tests.
#[cfg(test)]
pub fn test_font(path: &str) -> Vec<u8> {
    let index = FILES.iter().position(|f| f.path == path).unwrap_or_else(|| panic!("{path} is not bundled"));
    (*bytes(index).expect("decodes")).as_ref().to_vec()
}

/// How many files nib ships.
pub fn file_count() -> usize {
    FILES.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_file_decodes_to_a_font_of_its_family() {
        for (index, file) in FILES.iter().enumerate() {
            let bytes = bytes(index).unwrap_or_else(|| panic!("{} does not decode", file.path));
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

    #[test]
    fn families_keep_the_order_of_their_subsets() {
        let (name, faces) = &families()["dm sans"];
        assert_eq!(*name, "DM Sans");
        assert!(faces[0].file.contains("-latin-wght-normal"), "{}", faces[0].file);
        assert!(faces.iter().any(|f| f.italic));
        assert_eq!(faces[0].weights, (100, 1000));
    }
}
