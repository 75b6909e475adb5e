//! The faces one [`TextEngine`](super::TextEngine) has read: their bytes and the characters they
//! have, and their entries in the shaping database, made the first time a text needs them.
//!
//! Every face is entered under a name of its own, once per weight it is used at, so that the
//! shaper takes exactly the face chosen for a run (a variable face is drawn at that weight) and
//! never picks one by itself: each entry also carries [`REGISTERED`], the name the shaper's own
//! fallback is forbidden to use.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use cosmic_text::fontdb;
use cosmic_text::skrifa::{FontRef, MetadataProvider};

use super::bundled;
use super::faces::{Face, FaceData, MAX_FONT_FILE_BYTES, Origin, in_ranges, sfnt_bytes};
use super::files::FontFiles;
use crate::diagnostic::Diagnostic;

/// The family name every registered face also has.
pub(super) const REGISTERED: &str = "nib registered face";

/// A face's bytes and the characters it has glyphs for.
#[derive(Clone)]
struct Loaded {
    data: Arc<dyn AsRef<[u8]> + Send + Sync>,
    coverage: Arc<Coverage>,
}

/// The characters a face has glyphs for, as sorted, disjoint, inclusive ranges. Fonts map runs
/// of consecutive characters (a script's block, the CJK ideographs), so a few hundred ranges
/// stand for tens of thousands of characters. A set of every character cost a hash and an
/// insert each, about a millisecond of a one-frame render's fonts.
struct Coverage(Vec<(u32, u32)>);

impl Coverage {
    fn of(chars: impl Iterator<Item = u32>) -> Coverage {
        // Ranges are grown as the characters come, without a list of them all: a CJK face maps
        // tens of thousands, and that list cost more fresh memory than the set did. A cmap
        // subtable lists its characters in order; a font that does not is still read right.
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        let mut in_order = true;
        for ch in chars {
            in_order &= ranges.last().is_none_or(|&(start, _)| start <= ch);
            extend(&mut ranges, (ch, ch));
        }
        if !in_order {
            ranges.sort_unstable();
            ranges = ranges.into_iter().fold(Vec::new(), |mut merged, range| {
                extend(&mut merged, range);
                merged
            });
        }
        ranges.shrink_to_fit();
        Coverage(ranges)
    }

    fn contains(&self, ch: u32) -> bool {
        in_ranges(&self.0, ch)
    }
}

/// Adds `range` after `ranges`, joined to the last one when it starts inside it or right after
/// (ranges out of order are only pushed, to be sorted and joined again).
fn extend(ranges: &mut Vec<(u32, u32)>, (start, end): (u32, u32)) {
    match ranges.last_mut() {
        Some((first, last)) if *first <= start && start <= last.saturating_add(1) => *last = (*last).max(end),
        _ => ranges.push((start, end)),
    }
}

/// How a registered face is used: which face, at which weight, slanted or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaceUse {
    /// The face (an index into the registry's faces).
    pub face: usize,
    /// The weight it is drawn at (the `wght` axis of a variable face).
    pub weight: u16,
    /// Slanted because italic was asked for and the family has none.
    pub oblique: bool,
}

/// A face glyphs were drawn with, as a page (HTML, React) ships it so the browser draws those
/// glyphs with the same face.
#[derive(Debug, Clone)]
pub struct FaceFile {
    /// The family, as the source names it.
    pub family: String,
    /// The weight it is drawn at.
    pub weight: u16,
    /// Drawn italic (an italic face, or an upright one slanted).
    pub italic: bool,
    /// The characters it is declared for (one file of a family split by character ranges);
    /// empty for all it has.
    pub ranges: &'static [(u32, u32)],
    /// A name unique to the face and how it is drawn, for its file's name.
    pub name: String,
    /// The font file.
    pub bytes: Vec<u8>,
}

/// A face glyphs were drawn with, as a writer that embeds fonts (PDF) takes it: the bytes are
/// shared with the engine, not copied.
#[derive(Clone)]
pub struct GlyphFace {
    /// The font file's bytes.
    pub data: Arc<dyn AsRef<[u8]> + Send + Sync>,
    /// The face's index in a collection.
    pub index: u32,
    /// The weight it is drawn at (the `wght` axis of a variable face).
    pub weight: u16,
    /// An upright face drawn slanted, as italic was asked for and the family has none.
    pub slanted: bool,
    /// The font file, as reports name it.
    pub file: String,
    /// Names the face and how it is drawn, the same in every engine that read it: the file, the
    /// index, the weight and the slant.
    pub key: String,
}

/// A font file a text was shaped with, for reports.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct UsedFont {
    /// The family.
    pub family: String,
    /// Where it comes from.
    pub origin: Origin,
    /// The file: a path under `assets/fonts` for bundled faces, a path or URL otherwise.
    pub file: String,
}

/// The faces an engine has read and registered.
#[derive(Clone)]
pub(super) struct Registry {
    /// Where the files of faces on disk are read: the host's.
    files: Arc<dyn FontFiles>,
    faces: Vec<Arc<Face>>,
    keys: HashMap<usize, usize>,
    /// `None` once a face failed to read: it is not tried again.
    loaded: HashMap<usize, Option<Loaded>>,
    registered: HashMap<(usize, u16, bool), fontdb::ID>,
    uses: HashMap<fontdb::ID, FaceUse>,
    used: BTreeSet<usize>,
    /// Faces that failed to read, with why, for reports.
    failures: Vec<Diagnostic>,
}

impl Registry {
    /// A registry reading the files of faces through `files`.
    pub fn new(files: Arc<dyn FontFiles>) -> Registry {
        Registry {
            files,
            faces: Vec::new(),
            keys: HashMap::new(),
            loaded: HashMap::new(),
            registered: HashMap::new(),
            uses: HashMap::new(),
            used: BTreeSet::new(),
            failures: Vec::new(),
        }
    }

    /// The registry's key for `face` (the same `Arc` gives the same key).
    pub fn key(&mut self, face: &Arc<Face>) -> usize {
        let address = Arc::as_ptr(face) as usize;
        if let Some(key) = self.keys.get(&address) {
            return *key;
        }
        let key = self.faces.len();
        self.faces.push(Arc::clone(face));
        self.keys.insert(address, key);
        key
    }

    /// True when face `key` is declared for `ch` (its unicode-range), whether or not it has
    /// a glyph for it.
    pub fn declares(&self, key: usize, ch: char) -> bool {
        self.faces.get(key).is_some_and(|face| face.declared_for(ch))
    }

    /// True when face `key` has a glyph for `ch` (reading the face the first time).
    pub fn covers(&mut self, key: usize, ch: char) -> bool {
        if !self.faces[key].declared_for(ch) {
            return false;
        }
        self.loaded(key).is_some_and(|loaded| loaded.coverage.contains(u32::from(ch)))
    }

    fn loaded(&mut self, key: usize) -> Option<&Loaded> {
        if !self.loaded.contains_key(&key) {
            let read = read(&*self.files, &self.faces[key]);
            self.keep(key, read);
        }
        self.loaded.get(&key).and_then(Option::as_ref)
    }

    /// Keeps what reading face `key` gave; a face that failed is said once and not tried again.
    fn keep(&mut self, key: usize, read: Result<Loaded, UnreadableFace>) {
        let loaded = read
            .map_err(|why| {
                let message = format!("the font file {} cannot be read: {why}", self.faces[key].file);
                self.failures.push(Diagnostic::warning("font-file", message));
            })
            .ok();
        self.loaded.insert(key, loaded);
    }

    /// The database entry of face `key` at `weight`, made on first use; `None` when the face
    /// cannot be read.
    pub fn register(
        &mut self,
        db: &mut fontdb::Database,
        key: usize,
        weight: u16,
        oblique: bool,
    ) -> Option<fontdb::ID> {
        if let Some(id) = self.registered.get(&(key, weight, oblique)) {
            return Some(*id);
        }
        let data = self.loaded(key)?.data.clone();
        let face = &self.faces[key];
        let language = fontdb::Language::English_UnitedStates;
        let id = db.push_face_info(fontdb::FaceInfo {
            id: fontdb::ID::dummy(),
            source: fontdb::Source::Binary(data),
            index: face.index,
            families: vec![(internal_name(key, oblique), language), (REGISTERED.to_owned(), language)],
            post_script_name: internal_name(key, oblique),
            style: fontdb::Style::Normal,
            weight: fontdb::Weight(weight),
            stretch: fontdb::Stretch::Normal,
            monospaced: false,
        });
        self.registered.insert((key, weight, oblique), id);
        self.uses.insert(id, FaceUse { face: key, weight, oblique });
        Some(id)
    }

    /// How the database entry `id` is used.
    pub(crate) fn face_use(&self, id: fontdb::ID) -> Option<FaceUse> {
        self.uses.get(&id).copied()
    }

    /// The faces registered in `db`, entered again under their real family names, at the
    /// weight and slant they are drawn at (the shaping database names them by internal keys).
    pub fn named_database(&self, db: &fontdb::Database) -> fontdb::Database {
        let mut named = fontdb::Database::new();
        let mut uses: Vec<(&fontdb::ID, &FaceUse)> = self.uses.iter().collect();
        // Entered in one order whatever the hash map's: the same lookups find the same faces.
        uses.sort_by_key(|(_, u)| (u.face, u.weight, u.oblique));
        for (id, face_use) in uses {
            let Some(info) = db.face(*id) else { continue };
            let face = &self.faces[face_use.face];
            let style = match (face.italic, face_use.oblique) {
                (true, _) => fontdb::Style::Italic,
                (false, true) => fontdb::Style::Oblique,
                (false, false) => fontdb::Style::Normal,
            };
            named.push_face_info(fontdb::FaceInfo {
                id: fontdb::ID::dummy(),
                source: info.source.clone(),
                index: info.index,
                families: vec![(face.family.clone(), fontdb::Language::English_UnitedStates)],
                post_script_name: info.post_script_name.clone(),
                style,
                weight: fontdb::Weight(face_use.weight),
                stretch: fontdb::Stretch::Normal,
                monospaced: false,
            });
        }
        named
    }

    /// The face behind the database entry `id` of `db`, as a page that draws its glyphs ships
    /// it; `None` for an entry the registry did not make.
    pub fn face_file(&self, db: &fontdb::Database, id: fontdb::ID) -> Option<FaceFile> {
        let face_use = self.uses.get(&id)?;
        let face = &self.faces[face_use.face];
        let name = db.face(id)?.post_script_name.clone();
        let bytes = db.with_face_data(id, |data, _| data.to_vec())?;
        Some(FaceFile {
            family: face.family.clone(),
            weight: face_use.weight,
            italic: face.italic || face_use.oblique,
            ranges: face.ranges,
            name,
            bytes,
        })
    }

    /// The face behind the database entry `id`, with its bytes as they are loaded; `None` for an
    /// entry the registry did not make.
    pub fn glyph_face(&self, id: fontdb::ID) -> Option<GlyphFace> {
        let face_use = self.uses.get(&id)?;
        let face = &self.faces[face_use.face];
        let data = self.loaded.get(&face_use.face)?.as_ref()?.data.clone();
        Some(GlyphFace {
            data,
            index: face.index,
            weight: face_use.weight,
            slanted: face_use.oblique,
            file: face.file.clone(),
            key: format!("{}#{}@{}{}", face.file, face.index, face_use.weight, if face_use.oblique { "/" } else { "" }),
        })
    }

    /// The font file of the database entry `id`.
    pub fn font_of(&self, id: fontdb::ID) -> Option<UsedFont> {
        let face = &self.faces[self.uses.get(&id)?.face];
        Some(UsedFont { family: face.family.clone(), origin: face.origin, file: face.file.clone() })
    }

    /// Notes that a shaped text uses face `key`.
    pub(crate) fn mark_used(&mut self, key: usize) {
        self.used.insert(key);
    }

    /// The font files shaped texts used, sorted.
    pub fn used(&self) -> Vec<UsedFont> {
        let mut used: Vec<UsedFont> = self
            .used
            .iter()
            .map(|key| {
                let face = &self.faces[*key];
                UsedFont { family: face.family.clone(), origin: face.origin, file: face.file.clone() }
            })
            .collect();
        used.sort();
        used.dedup();
        used
    }

    /// Faces that could not be read, with why.
    pub fn failures(&self) -> &[Diagnostic] {
        &self.failures
    }
}

/// The name face `key` is registered under.
pub(super) fn internal_name(key: usize, oblique: bool) -> String {
    if oblique { format!("nib face {key} oblique") } else { format!("nib face {key}") }
}

/// Why a face's file gave no font when a text needed it.
#[derive(Debug, thiserror::Error)]
enum UnreadableFace {
    #[error("not in the bundled table")]
    NotBundled,
    #[error("{0}")]
    File(#[from] crate::files::FileError),
    #[error("{0}")]
    Format(String),
}

fn read(files: &dyn FontFiles, face: &Face) -> Result<Loaded, UnreadableFace> {
    let data: Arc<dyn AsRef<[u8]> + Send + Sync> = match &face.data {
        FaceData::Bundled(index) => bundled::bytes(*index).ok_or(UnreadableFace::NotBundled)?,
        FaceData::File(path) => {
            let bytes = files.read(path, MAX_FONT_FILE_BYTES)?;
            Arc::new(sfnt_bytes(bytes, &face.file).map_err(|e| UnreadableFace::Format(e.to_string()))?)
        }
        FaceData::Bytes(bytes) => Arc::clone(bytes) as Arc<dyn AsRef<[u8]> + Send + Sync>,
    };
    let font = FontRef::from_index((*data).as_ref(), face.index)
        .map_err(|e| UnreadableFace::Format(format!("not a font: {e}")))?;
    let coverage = Coverage::of(font.charmap().mappings().map(|(ch, _)| ch));
    Ok(Loaded { data, coverage: Arc::new(coverage) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_is_the_characters_given_in_any_order() {
        let chars = [0x41, 0x42, 0x43, 0x61, 0x4E00, 0x4E01, 0x44, 0x41, 0x10FFFF, 0x60, 0x3F, 0x40];
        let coverage = Coverage::of(chars.into_iter());
        assert_eq!(coverage.0, [(0x3F, 0x44), (0x60, 0x61), (0x4E00, 0x4E01), (0x10FFFF, 0x10FFFF)]);
        for ch in 0..0x5000 {
            assert_eq!(coverage.contains(ch), chars.contains(&ch), "U+{ch:04X}");
        }
        assert!(coverage.contains(0x10FFFF) && !coverage.contains(0x10FFFE));
        assert!(!Coverage::of(std::iter::empty()).contains(0));
    }

    #[test]
    fn a_bundled_face_covers_what_its_character_map_maps() {
        let inter = bundled::family("inter").expect("Inter is bundled").1[0].clone();
        let loaded = read(&super::super::files::NoFontFiles, &inter).expect("reads");
        let data = (*loaded.data).as_ref();
        let font = FontRef::from_index(data, inter.index).expect("a font");
        let charmap = font.charmap();
        for ch in 0..0x3000 {
            assert_eq!(loaded.coverage.contains(ch), charmap.map(ch).is_some(), "U+{ch:04X}");
        }
    }
}
