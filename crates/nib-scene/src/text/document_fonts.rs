//! A document's own fonts: the top-level `fonts` list, each entry a face of a family.
//!
//! ```json
//! "fonts": [
//!   { "name": "Brand Sans", "url": "fonts/BrandSans-Regular.woff2", "style": "normal", "weight": 400 },
//!   { "name": "Brand Sans", "url": "https://example.com/BrandSans-Italic[wght].ttf",
//!     "style": "italic", "weight": [100, 900], "axes": { "wght": [100, 900] } }
//! ]
//! ```
//!
//! `url` is a path relative to the `.pen` file (confined to the root folder where the caller
//! confines files) or an `https` URL fetched through the guarded HTTPS. `weight` is a number or
//! a range (`[100, 900]`, `"100 900"`); a variable face's `axes.wght` gives the range too.
//! Without `style` and `weight` the font's own are used. The families come before every other
//! source. The format's specification does not describe this key (unsure): nib reads it as
//! above, and an entry it cannot use is a problem with its place (`fonts[2].url`), never a
//! silent substitution.

use std::path::Path;
use std::sync::Arc;

use super::faces::{Face, FaceData, MAX_FONT_FILE_BYTES, Origin, faces_in, sfnt_bytes};
use super::fonts::FamilyEntry;
use crate::doc::Document;
use crate::doc::json::{Json, JsonValue};
use crate::files::{Confinement, read_regular};

/// Most entries read from a document's `fonts` list.
pub const MAX_DOCUMENT_FONTS: usize = 64;

/// The fonts a document brings, and what could not be used.
#[derive(Debug, Clone, Default)]
pub struct DocumentFonts {
    families: Vec<FamilyEntry>,
    /// What could not be used, each with the entry's place (`fonts[0].url: …`).
    pub problems: Vec<String>,
    /// Family and file of every face, to tell two lists apart.
    signature: Vec<(String, String)>,
}

impl PartialEq for DocumentFonts {
    fn eq(&self, other: &DocumentFonts) -> bool {
        self.signature == other.signature && self.problems == other.problems
    }
}

/// Where and how document fonts are read.
#[derive(Debug, Clone, Copy)]
pub struct DocumentFontAccess<'a> {
    /// The folder of the `.pen` file (relative URLs start there).
    pub folder: Option<&'a Path>,
    /// Files must stay inside this folder (the MCP server's root).
    pub confinement: Option<&'a Confinement>,
    /// `https` URLs may be fetched.
    pub fetch: bool,
}

impl DocumentFonts {
    /// The fonts `document` lists, read as `access` allows.
    pub fn load(document: &Document, access: DocumentFontAccess<'_>) -> DocumentFonts {
        let mut fonts = DocumentFonts::default();
        let Some((_, list)) = document.unknown_keys().iter().find(|(key, _)| key == "fonts") else { return fonts };
        // The loader keeps keys it does not interpret as text; the list is small (at most
        // MAX_DOCUMENT_FONTS entries are read), so it is read as a tree here.
        let list = list.to_json();
        let JsonValue::Array(entries) = &list.value else {
            fonts
                .problems
                .push(format!("fonts: {} where a list of fonts was expected; it is ignored", list.kind_name()));
            return fonts;
        };
        if entries.len() > MAX_DOCUMENT_FONTS {
            fonts
                .problems
                .push(format!("fonts: {} entries; only the first {MAX_DOCUMENT_FONTS} are read", entries.len()));
        }
        for (index, entry) in entries.iter().take(MAX_DOCUMENT_FONTS).enumerate() {
            match read_entry(entry, access) {
                Ok(faces) => {
                    for face in faces {
                        fonts.signature.push((face.family.clone(), face.file.clone()));
                        let lower = face.family.to_lowercase();
                        match fonts.families.iter_mut().find(|f| f.name.to_lowercase() == lower) {
                            Some(family) => family.faces.push(Arc::new(face)),
                            None => fonts.families.push(FamilyEntry {
                                name: face.family.clone(),
                                origin: Origin::Document,
                                faces: vec![Arc::new(face)],
                            }),
                        }
                    }
                }
                Err(problem) => fonts.problems.push(format!("fonts[{index}]{problem}")),
            }
        }
        fonts
    }

    /// The document's family called `family` (case does not matter).
    pub fn family(&self, family: &str) -> Option<&FamilyEntry> {
        let lower = family.trim().to_lowercase();
        self.families.iter().find(|f| f.name.to_lowercase() == lower)
    }

    /// Every family the document brings.
    pub fn families(&self) -> &[FamilyEntry] {
        &self.families
    }
}

/// The faces of one entry, or `.key: what is wrong` for the problem list.
fn read_entry(entry: &Json, access: DocumentFontAccess<'_>) -> Result<Vec<Face>, String> {
    let name = match entry.get("name").or_else(|| entry.get("family")) {
        Some(Json { value: JsonValue::String(name), .. }) if !name.trim().is_empty() => name.trim().to_owned(),
        Some(other) => return Err(format!(".name: {} where the family's name was expected", other.kind_name())),
        None => return Err(": no name (the family name texts use in fontFamily)".into()),
    };
    let url = match entry.get("url") {
        Some(Json { value: JsonValue::String(url), .. }) if !url.trim().is_empty() => url.trim().to_owned(),
        Some(other) => return Err(format!(".url: {} where a path or an https URL was expected", other.kind_name())),
        None => return Err(format!(": '{name}' has no url (a path relative to the file, or an https URL)")),
    };
    let italic = match entry.get("style").map(|s| &s.value) {
        None => None,
        Some(JsonValue::String(style)) if style == "normal" => Some(false),
        Some(JsonValue::String(style)) if style == "italic" || style == "oblique" => Some(true),
        Some(_) => return Err(".style: use \"normal\" or \"italic\"".into()),
    };
    let weights = match entry.get("weight") {
        Some(weight) => {
            Some(weight_range(weight).ok_or(".weight: use a number from 1 to 1000 or a range such as [100, 900]")?)
        }
        None => entry.get("axes").and_then(|axes| axes.get("wght")).and_then(weight_range),
    };
    let bytes = read_url(&url, access).map_err(|problem| format!(".url: {problem}"))?;
    let data = Arc::new(bytes);
    let faces = faces_in(&data, || FaceData::Bytes(Arc::clone(&data)), Origin::Document, &url, Some(&name));
    if faces.is_empty() {
        return Err(format!(".url: {url} has no font face"));
    }
    Ok(faces
        .into_iter()
        .map(|mut face| {
            if let Some(italic) = italic {
                face.italic = italic;
            }
            if let Some(weights) = weights {
                face.weights = weights;
            }
            face
        })
        .collect())
}

/// A weight or a weight range: `400`, `[100, 900]`, `"100 900"`, `{ "min": 100, "max": 900 }`.
fn weight_range(value: &Json) -> Option<(u16, u16)> {
    let one = |n: f64| (n.is_finite() && (1.0..=1000.0).contains(&n)).then_some(n.round() as u16);
    let pair = |a: Option<u16>, b: Option<u16>| Some((a?.min(b?), b?.max(a?)));
    match &value.value {
        JsonValue::Number(n) => one(*n).map(|w| (w, w)),
        JsonValue::String(text) => {
            let numbers: Vec<Option<u16>> =
                text.split_whitespace().map(|t| t.parse::<f64>().ok().and_then(one)).collect();
            match numbers.as_slice() {
                [single] => single.map(|w| (w, w)),
                [lo, hi] => pair(*lo, *hi),
                _ => None,
            }
        }
        JsonValue::Array(items) => match items.as_slice() {
            [lo, hi] => pair(number(lo).and_then(one), number(hi).and_then(one)),
            _ => None,
        },
        JsonValue::Object(_) => {
            pair(value.get("min").and_then(number).and_then(one), value.get("max").and_then(number).and_then(one))
        }
        _ => None,
    }
}

fn number(value: &Json) -> Option<f64> {
    match value.value {
        JsonValue::Number(n) => Some(n),
        _ => None,
    }
}

/// The bytes (TrueType/OpenType) the entry's url names.
fn read_url(url: &str, access: DocumentFontAccess<'_>) -> Result<Vec<u8>, String> {
    if let Some(scheme) = url.split_once("://").map(|(scheme, _)| scheme.to_ascii_lowercase()) {
        if scheme != "https" {
            return Err(format!("{url}: only https URLs and paths relative to the .pen file are read"));
        }
        return fetch(url, access);
    }
    let folder = access.folder.unwrap_or(Path::new("."));
    let path = Confinement::apply(access.confinement, &folder.join(url)).map_err(|e| e.to_string())?;
    // Confined, through the root opened once (no folder swapped for a link leads out).
    let bytes = match access.confinement {
        Some(confinement) => confinement.read(&path, MAX_FONT_FILE_BYTES),
        None => read_regular(&path, MAX_FONT_FILE_BYTES),
    }
    .map_err(|e| e.to_string())?;
    sfnt_bytes(bytes, url).map_err(|e| e.to_string())
}

#[cfg(feature = "network-fonts")]
fn fetch(url: &str, access: DocumentFontAccess<'_>) -> Result<Vec<u8>, String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    if !access.fetch {
        return Err(format!(
            "{url} is not fetched: fetching is off (NIB_FONTS=offline); give a path to the file instead"
        ));
    }
    // Each URL is fetched once per process.
    type Fetched = Mutex<HashMap<String, Result<Vec<u8>, String>>>;
    static FETCHED: OnceLock<Fetched> = OnceLock::new();
    let fetched = FETCHED.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(result) = fetched.lock().unwrap_or_else(|e| e.into_inner()).get(url) {
        return result.clone();
    }
    let result = super::fetch::fetch_font_file(url).map_err(|e| e.to_string());
    fetched.lock().unwrap_or_else(|e| e.into_inner()).insert(url.to_owned(), result.clone());
    result
}

#[cfg(not(feature = "network-fonts"))]
fn fetch(url: &str, _access: DocumentFontAccess<'_>) -> Result<Vec<u8>, String> {
    Err(format!("{url} is not fetched: this nib was built without fetching fonts; give a path to the file instead"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(fonts: &str) -> Document {
        Document::load(&format!(r#"{{"version":"2.10","fonts":{fonts},"children":[]}}"#)).expect("valid").document
    }

    fn access(folder: &Path) -> DocumentFontAccess<'_> {
        DocumentFontAccess { folder: Some(folder), confinement: None, fetch: false }
    }

    #[test]
    fn a_listed_font_is_a_family_with_the_style_and_weights_given() {
        let folder = tempfile::tempdir().expect("a folder");
        std::fs::create_dir(folder.path().join("fonts")).expect("folder");
        let font = super::super::bundled::bytes(0).expect("a bundled font");
        std::fs::write(folder.path().join("fonts/brand.ttf"), (*font).as_ref()).expect("written");
        let fonts = DocumentFonts::load(
            &document(r#"[{"name":"Brand","url":"fonts/brand.ttf","style":"italic","weight":"200 800"}]"#),
            access(folder.path()),
        );
        assert!(fonts.problems.is_empty(), "{:?}", fonts.problems);
        let brand = fonts.family("brand").expect("the family");
        assert_eq!((brand.faces[0].italic, brand.faces[0].weights, brand.origin), (true, (200, 800), Origin::Document));
    }

    #[test]
    fn entries_that_cannot_be_used_are_problems_with_their_place() {
        let folder = tempfile::tempdir().expect("a folder");
        let fonts = DocumentFonts::load(
            &document(
                r#"[{"url":"a.ttf"},{"name":"A","url":"missing.ttf"},{"name":"B","url":"http://example.com/b.ttf"},{"name":"C","url":"c.ttf","weight":5000},{"name":"D","url":"https://example.com/d.ttf"}]"#,
            ),
            access(folder.path()),
        );
        let problems = fonts.problems.join("\n");
        assert!(problems.contains("fonts[0]: no name"), "{problems}");
        assert!(problems.contains("fonts[1].url:") && problems.contains("missing.ttf"), "{problems}");
        assert!(problems.contains("fonts[2].url: http://example.com/b.ttf: only https"), "{problems}");
        assert!(problems.contains("fonts[3].weight"), "{problems}");
        assert!(problems.contains("fonts[4].url:") && problems.contains("not fetched"), "{problems}");
        assert!(fonts.families().is_empty());
        let not_a_list = DocumentFonts::load(&document(r#"{"name":"A"}"#), access(folder.path()));
        assert!(not_a_list.problems[0].contains("a list of fonts"), "{:?}", not_a_list.problems);
    }

    #[test]
    fn a_path_outside_the_confined_root_is_refused() {
        let root = tempfile::tempdir().expect("a folder");
        let confinement = Confinement::new(root.path());
        let access = DocumentFontAccess { folder: Some(root.path()), confinement: Some(&confinement), fetch: false };
        let fonts = DocumentFonts::load(&document(r#"[{"name":"A","url":"../../etc/a.ttf"}]"#), access);
        assert_eq!(fonts.problems.len(), 1);
        assert!(fonts.problems[0].starts_with("fonts[0].url:"), "{:?}", fonts.problems);
    }
}
