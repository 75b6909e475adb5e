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
//! confines files) or an `https` URL fetched through the guarded HTTPS; the host reads it (see
//! [`FontUrlReader`]), this module only reads the list and the fonts. `weight` is a number or
//! a range (`[100, 900]`, `"100 900"`); a variable face's `axes.wght` gives the range too.
//! Without `style` and `weight` the font's own are used. The families come before every other
//! source. The format's specification does not describe this key (unsure): nib reads it as
//! above, and an entry it cannot use is a problem with its place (`fonts[2].url`), never a
//! silent substitution.

use std::sync::Arc;

use super::faces::{Face, FaceData, Origin, faces_in, sfnt_bytes};
use super::fonts::FamilyEntry;
use crate::diagnostic::Diagnostic;
use crate::doc::Document;
use crate::doc::json::{Json, JsonValue};

/// Most entries read from a document's `fonts` list.
pub(crate) const MAX_DOCUMENT_FONTS: usize = 64;

/// The fonts a document brings, and what could not be used.
#[derive(Debug, Clone, Default)]
pub struct DocumentFonts {
    families: Vec<FamilyEntry>,
    /// What could not be used (`font-file` warnings), each with the entry's place in its
    /// message (`fonts[0].url: …`) and as a pointer (`/fonts/0`).
    pub problems: Vec<Diagnostic>,
    /// Family and file of every face, to tell two lists apart.
    signature: Vec<(String, String)>,
}

impl PartialEq for DocumentFonts {
    fn eq(&self, other: &DocumentFonts) -> bool {
        self.signature == other.signature && self.problems == other.problems
    }
}

/// How the host reads the file an entry's `url` names: the bytes of a font file (TrueType,
/// OpenType or WOFF2), or why they cannot be had (its message a sentence about the url, with
/// hints; the entry's place is added here).
pub(crate) type FontUrlReader<'a> = &'a dyn Fn(&str) -> Result<Vec<u8>, Diagnostic>;

/// What is wrong with one entry of the fonts list: the key it is about (`""` for the entry as
/// a whole) and why, with what the host said about its file.
struct EntryProblem {
    key: &'static str,
    message: String,
    hints: Vec<String>,
}

impl EntryProblem {
    fn at(key: &'static str, message: impl Into<String>) -> EntryProblem {
        EntryProblem { key, message: message.into(), hints: Vec::new() }
    }

    /// The warning about entry `index`, pointing at its key.
    fn diagnostic(self, index: usize) -> Diagnostic {
        let (dot, slash) = if self.key.is_empty() { ("", "") } else { (".", "/") };
        let mut diagnostic =
            Diagnostic::warning("font-file", format!("fonts[{index}]{dot}{}: {}", self.key, self.message))
                .at_pointer(format!("/fonts/{index}{slash}{}", self.key));
        diagnostic.hints = self.hints;
        diagnostic
    }
}

impl DocumentFonts {
    /// The fonts `document` lists, their files read by `read`.
    pub fn load(document: &Document, read: FontUrlReader<'_>) -> DocumentFonts {
        let mut fonts = DocumentFonts::default();
        let Some((_, list)) = document.unknown_keys().iter().find(|(key, _)| key == "fonts") else { return fonts };
        // The loader keeps keys it does not interpret as text; the list is small (at most
        // MAX_DOCUMENT_FONTS entries are read), so it is read as a tree here.
        let list = list.to_json();
        let JsonValue::Array(entries) = &list.value else {
            fonts.problems.push(
                Diagnostic::warning(
                    "font-file",
                    format!("fonts: {} where a list of fonts was expected; it is ignored", list.kind_name()),
                )
                .at_pointer("/fonts"),
            );
            return fonts;
        };
        if entries.len() > MAX_DOCUMENT_FONTS {
            fonts.problems.push(
                Diagnostic::warning(
                    "font-file",
                    format!("fonts: {} entries; only the first {MAX_DOCUMENT_FONTS} are read", entries.len()),
                )
                .at_pointer("/fonts"),
            );
        }
        for (index, entry) in entries.iter().take(MAX_DOCUMENT_FONTS).enumerate() {
            match read_entry(entry, read) {
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
                Err(problem) => fonts.problems.push(problem.diagnostic(index)),
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

/// The faces of one entry, or what is wrong with it.
fn read_entry(entry: &Json, read: FontUrlReader<'_>) -> Result<Vec<Face>, EntryProblem> {
    let name = match entry.get("name").or_else(|| entry.get("family")) {
        Some(Json { value: JsonValue::String(name), .. }) if !name.trim().is_empty() => name.trim().to_owned(),
        Some(other) => {
            return Err(EntryProblem::at(
                "name",
                format!("{} where the family's name was expected", other.kind_name()),
            ));
        }
        None => return Err(EntryProblem::at("", "no name (the family name texts use in fontFamily)")),
    };
    let url = match entry.get("url") {
        Some(Json { value: JsonValue::String(url), .. }) if !url.trim().is_empty() => url.trim().to_owned(),
        Some(other) => {
            let message = format!("{} where a path or an https URL was expected", other.kind_name());
            return Err(EntryProblem::at("url", message));
        }
        None => {
            let message = format!("'{name}' has no url (a path relative to the file, or an https URL)");
            return Err(EntryProblem::at("", message));
        }
    };
    let italic = match entry.get("style").map(|s| &s.value) {
        None => None,
        Some(JsonValue::String(style)) if style == "normal" => Some(false),
        Some(JsonValue::String(style)) if style == "italic" || style == "oblique" => Some(true),
        Some(_) => return Err(EntryProblem::at("style", "use \"normal\" or \"italic\"")),
    };
    let weights = match entry.get("weight") {
        Some(weight) => {
            let problem = || EntryProblem::at("weight", "use a number from 1 to 1000 or a range such as [100, 900]");
            Some(weight_range(weight).ok_or_else(problem)?)
        }
        None => entry.get("axes").and_then(|axes| axes.get("wght")).and_then(weight_range),
    };
    let bytes = read(&url).map_err(|why| EntryProblem { key: "url", message: why.message, hints: why.hints })?;
    let bytes = sfnt_bytes(bytes, &url).map_err(|e| EntryProblem::at("url", e.to_string()))?;
    let data = Arc::new(bytes);
    let faces = faces_in(&data, || FaceData::Bytes(Arc::clone(&data)), Origin::Document, &url, Some(&name));
    if faces.is_empty() {
        return Err(EntryProblem::at("url", format!("{url} has no font face")));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn document(fonts: &str) -> Document {
        Document::load(&format!(r#"{{"version":"2.10","fonts":{fonts},"children":[]}}"#)).expect("valid").document
    }

    /// A host holding `files` (url → bytes): any other url is missing.
    fn host(files: &[(&str, Vec<u8>)]) -> impl Fn(&str) -> Result<Vec<u8>, Diagnostic> {
        let files: Vec<(String, Vec<u8>)> =
            files.iter().map(|(url, bytes)| ((*url).to_owned(), bytes.clone())).collect();
        move |url: &str| {
            files
                .iter()
                .find(|(name, _)| name == url)
                .map(|(_, bytes)| bytes.clone())
                .ok_or_else(|| Diagnostic::warning("font-file", format!("{url}: no such file")))
        }
    }

    #[test]
    fn a_listed_font_is_a_family_with_the_style_and_weights_given() {
        let font = (*super::super::bundled::bytes(0).expect("a bundled font")).as_ref().to_vec();
        let fonts = DocumentFonts::load(
            &document(r#"[{"name":"Brand","url":"fonts/brand.ttf","style":"italic","weight":"200 800"}]"#),
            &host(&[("fonts/brand.ttf", font)]),
        );
        assert!(fonts.problems.is_empty(), "{:?}", fonts.problems);
        let brand = fonts.family("brand").expect("the family");
        assert_eq!((brand.faces[0].italic, brand.faces[0].weights, brand.origin), (true, (200, 800), Origin::Document));
    }

    #[test]
    fn entries_that_cannot_be_used_are_problems_with_their_place() {
        let fonts = DocumentFonts::load(
            &document(
                r#"[{"url":"a.ttf"},{"name":"A","url":"missing.ttf"},{"name":"B","url":"page.ttf"},{"name":"C","url":"c.ttf","weight":5000},{"name":"D","url":7}]"#,
            ),
            &host(&[("page.ttf", b"<html>".to_vec())]),
        );
        let problems = crate::diagnostic::lines(&fonts.problems).join("\n");
        assert!(problems.contains("fonts[0]: no name"), "{problems}");
        assert!(problems.contains("fonts[1].url: missing.ttf: no such file"), "{problems}");
        assert!(problems.contains("fonts[2].url:") && problems.contains("does not start like a font"), "{problems}");
        assert!(problems.contains("fonts[3].weight"), "{problems}");
        assert!(problems.contains("fonts[4].url: a number"), "{problems}");
        assert!(fonts.families().is_empty());
        assert_eq!(fonts.problems[3].span.as_ref().map(|s| s.pointer.as_str()), Some("/fonts/3/weight"), "at its key");
        let not_a_list = DocumentFonts::load(&document(r#"{"name":"A"}"#), &host(&[]));
        assert!(not_a_list.problems[0].message.contains("a list of fonts"), "{:?}", not_a_list.problems);
    }
}
