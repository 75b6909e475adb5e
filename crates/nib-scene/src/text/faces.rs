//! Font faces from every source nib reads (bundled, the document's own, the user's folders, the
//! fetch cache, the system): what a face is, CSS font matching within a family, and reading font
//! files. A face is described without parsing it: its bytes are read and parsed by the
//! [`TextEngine`](super::TextEngine) the first time a text needs it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cosmic_text::fontdb;
use cosmic_text::skrifa::{FontRef, MetadataProvider};

use super::files::FontFiles;

/// Largest font file read (the largest CJK collections are about 60 MB).
pub const MAX_FONT_FILE_BYTES: u64 = 100 << 20;

/// Most font files read from one folder tree: a font folder pointed at `/` must not read a disk.
pub const MAX_FONT_FILES_PER_FOLDER: usize = 5_000;

/// Deepest folder level searched below a font folder.
pub const MAX_FONT_FOLDER_DEPTH: usize = 8;

/// Where a face comes from, in the order sources are preferred when several have the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The document's own `fonts` list.
    Document,
    /// A folder given with `--font-dir` or `NIB_FONT_DIRS`.
    User,
    /// Shipped inside nib: the same bytes on every machine.
    Bundled,
    /// Fetched from Google Fonts into the cache folder.
    Cache,
    /// Installed on this machine (only with `--system-fonts`).
    System,
}

impl Origin {
    /// A word for reports: `document`, `user`, `bundled`, `cache`, `system`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Document => "document",
            Origin::User => "user",
            Origin::Bundled => "bundled",
            Origin::Cache => "cache",
            Origin::System => "system",
        }
    }
}

/// Where a face's bytes are.
#[derive(Debug, Clone)]
pub enum FaceData {
    /// A bundled file, by its index in the bundled table.
    Bundled(usize),
    /// A font file on disk (TrueType, OpenType, a collection, or WOFF2).
    File(PathBuf),
    /// Bytes already read (a document font fetched over HTTPS), as TrueType or OpenType.
    Bytes(Arc<Vec<u8>>),
}

/// One face of a family.
#[derive(Debug, Clone)]
pub struct Face {
    /// The family it is a face of, as the source names it.
    pub family: String,
    /// Where its bytes are.
    pub data: FaceData,
    /// The face in a collection (0 for single fonts).
    pub index: u32,
    /// Italic (or oblique) rather than upright.
    pub italic: bool,
    /// The weights it covers: one for a static face, the `wght` axis of a variable one.
    pub weights: (u16, u16),
    /// The characters it is declared for (a Google Fonts subset); empty means all it has.
    pub ranges: &'static [(u32, u32)],
    /// Its source.
    pub origin: Origin,
    /// How reports name its file: a path under `assets/fonts` for bundled faces, the file's path
    /// or URL otherwise.
    pub file: String,
}

impl Face {
    /// True when the face is declared for `ch` (whether it has a glyph shows once it is read).
    pub(crate) fn declared_for(&self, ch: char) -> bool {
        self.ranges.is_empty() || in_ranges(self.ranges, u32::from(ch))
    }
}

/// True when `ch` is in one of `ranges` (inclusive, sorted and disjoint).
pub(super) fn in_ranges(ranges: &[(u32, u32)], ch: u32) -> bool {
    let after = ranges.partition_point(|&(lo, _)| lo <= ch);
    after > 0 && ch <= ranges[after - 1].1
}

/// The faces of one family that a style selects: the files (one per subset) of one weight range
/// and style, the weight to draw them at, and whether the slant has to be made.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The faces, in the order they are tried for a character.
    pub faces: Vec<Arc<Face>>,
    /// The weight the faces are used at (inside their range).
    pub weight: u16,
    /// Italic was asked for and the family has none: the upright faces are slanted.
    pub oblique: bool,
}

/// Picks the faces of a family for `weight` and `italic` the way CSS font matching does: the
/// asked style, else the other one; the range holding the weight, else the nearest in the
/// direction CSS prefers (lighter first below 400, heavier first above 500, 400–500 up to 500
/// first). `None` for a family without faces.
pub fn select(faces: &[Arc<Face>], weight: u16, italic: bool) -> Option<Selection> {
    let same_style: Vec<&Arc<Face>> = faces.iter().filter(|f| f.italic == italic).collect();
    let (candidates, oblique) =
        if same_style.is_empty() { (faces.iter().collect::<Vec<_>>(), italic) } else { (same_style, false) };
    let first = candidates.first()?;
    let range = best_range(candidates.iter().map(|f| f.weights), weight).unwrap_or(first.weights);
    let chosen: Vec<Arc<Face>> = candidates.into_iter().filter(|f| f.weights == range).cloned().collect();
    Some(Selection { faces: chosen, weight: weight.clamp(range.0, range.1), oblique })
}

/// The weight range CSS matching picks for `weight` among `ranges`.
fn best_range(ranges: impl Iterator<Item = (u16, u16)>, weight: u16) -> Option<(u16, u16)> {
    let ranges: Vec<(u16, u16)> = ranges.collect();
    if let Some(found) = ranges.iter().find(|(lo, hi)| (*lo..=*hi).contains(&weight)) {
        return Some(*found);
    }
    let below = |limit: u16| ranges.iter().filter(move |(_, hi)| *hi < limit).max_by_key(|(_, hi)| *hi).copied();
    let above = |limit: u16| ranges.iter().filter(move |(lo, _)| *lo > limit).min_by_key(|(lo, _)| *lo).copied();
    if (400..=500).contains(&weight) {
        let up_to_500 = ranges.iter().filter(|(lo, _)| *lo > weight && *lo <= 500).min_by_key(|(lo, _)| *lo).copied();
        up_to_500.or_else(|| below(weight)).or_else(|| above(weight))
    } else if weight < 400 {
        below(weight).or_else(|| above(weight))
    } else {
        above(weight).or_else(|| below(weight))
    }
}

/// Why a font file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum FaceError {
    /// The file could not be read.
    #[error("{0}")]
    File(#[from] crate::files::FileError),
    /// The bytes are not a font nib reads.
    #[error(
        "{path}: not a font file nib can read ({reason}); use TrueType (.ttf), OpenType (.otf), a collection (.ttc) or WOFF2 (.woff2)"
    )]
    NotAFont {
        /// The file or URL.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// The bytes of a font file as TrueType/OpenType: WOFF2 is decoded, other data is kept.
pub fn sfnt_bytes(bytes: Vec<u8>, path: &str) -> Result<Vec<u8>, FaceError> {
    match bytes.get(..4) {
        Some(b"wOF2") => wuff::decompress_woff2(&bytes)
            .map_err(|e| FaceError::NotAFont { path: path.to_owned(), reason: format!("a broken WOFF2 file: {e:?}") }),
        Some(b"wOFF") => Err(FaceError::NotAFont { path: path.to_owned(), reason: "WOFF 1 is not supported".into() }),
        Some([0, 1, 0, 0] | b"OTTO" | b"true" | b"ttcf") => Ok(bytes),
        _ => Err(FaceError::NotAFont { path: path.to_owned(), reason: "it does not start like a font".into() }),
    }
}

/// The faces in a font file's bytes (already TrueType/OpenType), with their family names, styles
/// and weight ranges as the font says. `family` replaces the font's own family name when given.
pub fn faces_in(
    bytes: &[u8],
    data: impl Fn() -> FaceData,
    origin: Origin,
    file: &str,
    family: Option<&str>,
) -> Vec<Face> {
    let mut scan = fontdb::Database::new();
    // fontdb only reads the name and style tables here; the bytes are not kept.
    scan.load_font_source(fontdb::Source::Binary(Arc::new(bytes.to_vec())));
    scan.faces()
        .filter_map(|info| {
            let name = family.map(str::to_owned).or_else(|| info.families.first().map(|(n, _)| n.clone()))?;
            let fixed = info.weight.0.clamp(1, 1000);
            let weights = FontRef::from_index(bytes, info.index)
                .ok()
                .and_then(|font| {
                    font.axes().iter().find(|axis| axis.tag() == cosmic_text::skrifa::Tag::new(b"wght")).map(|axis| {
                        let lo = axis.min_value().round().clamp(1.0, 1000.0) as u16;
                        let hi = axis.max_value().round().clamp(1.0, 1000.0) as u16;
                        (lo.min(hi), hi.max(lo))
                    })
                })
                .unwrap_or((fixed, fixed));
            Some(Face {
                family: name,
                data: data(),
                index: info.index,
                italic: info.style != fontdb::Style::Normal,
                weights,
                ranges: &[],
                origin,
                file: file.to_owned(),
            })
        })
        .collect()
}

/// Reads the font file at `path` through `files` and describes its faces.
pub(crate) fn read_font_file(files: &dyn FontFiles, path: &Path, origin: Origin) -> Result<Vec<Face>, FaceError> {
    let shown = path.display().to_string();
    let bytes = sfnt_bytes(files.read(path, MAX_FONT_FILE_BYTES)?, &shown)?;
    let faces = faces_in(&bytes, || FaceData::File(path.to_owned()), origin, &shown, None);
    if faces.is_empty() {
        return Err(FaceError::NotAFont { path: shown, reason: "it has no face".into() });
    }
    Ok(faces)
}

/// True for the file names nib reads as fonts.
pub fn is_font_file(path: &Path) -> bool {
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    matches!(extension.as_deref(), Some("ttf" | "otf" | "ttc" | "otc" | "woff2"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(italic: bool, weights: (u16, u16)) -> Arc<Face> {
        Arc::new(Face {
            family: "F".into(),
            data: FaceData::Bundled(0),
            index: 0,
            italic,
            weights,
            ranges: &[],
            origin: Origin::Bundled,
            file: String::new(),
        })
    }

    #[test]
    fn weights_are_matched_as_css_does() {
        let statics: Vec<Arc<Face>> = [300, 400, 700, 900].iter().map(|w| face(false, (*w, *w))).collect();
        let weight = |w| select(&statics, w, false).map(|s| s.weight);
        assert_eq!(weight(400), Some(400));
        assert_eq!(weight(500), Some(400), "400–500 looks up to 500, then lighter");
        assert_eq!(weight(600), Some(700), "above 500 looks heavier first");
        assert_eq!(weight(800), Some(900));
        assert_eq!(weight(200), Some(300), "below 400 looks lighter first, then heavier");
        assert_eq!(weight(1000), Some(900));
        let variable = [face(false, (200, 800))];
        assert_eq!(select(&variable, 550, false).map(|s| s.weight), Some(550), "inside the axis: exactly");
        assert_eq!(select(&variable, 900, false).map(|s| s.weight), Some(800), "outside: the nearest end");
    }

    #[test]
    fn italic_falls_back_to_a_slanted_upright_face() {
        let upright = [face(false, (400, 400))];
        let chosen = select(&upright, 400, true).expect("a face");
        assert!(chosen.oblique);
        let both = [face(false, (400, 400)), face(true, (400, 400))];
        let chosen = select(&both, 400, true).expect("a face");
        assert!(!chosen.oblique && chosen.faces[0].italic);
        assert!(select(&[], 400, false).is_none());
    }

    #[test]
    fn declared_ranges_are_searched() {
        let mut latin = (*face(false, (400, 400))).clone();
        latin.ranges = &[(0x20, 0x7e), (0xa0, 0xff), (0x2000, 0x206f)];
        assert!(latin.declared_for('a') && latin.declared_for('é') && latin.declared_for('\u{2014}'));
        assert!(!latin.declared_for('ő') && !latin.declared_for('\u{1f600}'));
    }

    #[test]
    fn files_that_are_not_fonts_are_refused_with_a_reason() {
        let error = sfnt_bytes(b"<html>".to_vec(), "x.ttf").unwrap_err();
        assert!(error.to_string().contains("does not start like a font"), "{error}");
        let error = sfnt_bytes(b"wOF2\0\0\0\0garbage".to_vec(), "x.woff2").unwrap_err();
        assert!(error.to_string().contains("broken WOFF2"), "{error}");
    }
}
