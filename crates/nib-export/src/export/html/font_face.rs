//! The `@font-face` rules of the faces pages draw their text with, and the font files they
//! name: linked beside the pages, or inside a page as data URIs. Apart from the pages because
//! which file holds which characters is the text engine's business, not the page's.

use std::collections::BTreeSet;

use base64::Engine as _;

use super::{FaceUse, HtmlPages};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::text::{ShapedText, TextEngine};

impl HtmlPages<'_, '_> {
    /// `@font-face` rules for `faces`, their fonts as data URIs when `embed`.
    pub(super) fn font_faces(
        &self,
        faces: &BTreeSet<FaceUse>,
        text: &TextEngine,
        embed: bool,
        warnings: &mut Diagnostics,
    ) -> String {
        let mut css = String::new();
        for (name, bytes, rule) in faces_with_files(faces, text, warnings) {
            if embed {
                let mime = if name.ends_with(".otf") { "font/otf" } else { "font/ttf" };
                let data = format!("data:{mime};base64,{}", base64::engine::general_purpose::STANDARD.encode(&bytes));
                css.push_str(&rule.replace(&format!("url(\"fonts/{name}\")"), &format!("url(\"{data}\")")));
            } else {
                css.push_str(&rule);
            }
        }
        css
    }
}

/// The font files of `faces` (entries of `text`'s database) with their `@font-face` rules. A
/// family nib has in several files split by characters (the bundled CJK families) gets a rule
/// per file with its `unicode-range`, so the browser takes each character from the file nib
/// drew it with.
pub(super) fn faces_with_files(
    faces: &BTreeSet<FaceUse>,
    text: &TextEngine,
    warnings: &mut Diagnostics,
) -> Vec<(String, Vec<u8>, String)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for &id in faces {
        let Some(face) = text.face_file(id) else {
            warnings.insert(Diagnostic::note("font-missing", "a face the texts were drawn with is not among the compile's fonts; the page names its family without a file"));
            continue;
        };
        let extension = if face.bytes.starts_with(b"OTTO") { "otf" } else { "ttf" };
        let name = format!("{}.{extension}", crate::compile::frames::safe_name(&face.name));
        let format = if extension == "otf" { "opentype" } else { "truetype" };
        let ranges = if face.ranges.is_empty() {
            String::new()
        } else {
            format!(" unicode-range: {};", unicode_range(face.ranges))
        };
        let rule = format!(
            "@font-face {{ font-family: \"{}\"; src: url(\"fonts/{name}\") format(\"{format}\"); font-weight: {}; font-style: {};{ranges} font-display: block; }}\n",
            crate::export::tokens::css_string(&face.family),
            face.weight,
            if face.italic { "italic" } else { "normal" }
        );
        if seen.insert((name.clone(), face.weight, face.italic)) {
            out.push((name, face.bytes, rule));
        }
    }
    out
}

/// CSS's `unicode-range` of `ranges` (inclusive code point ranges): `U+4E00-4E3F, U+4E41`.
fn unicode_range(ranges: &[(u32, u32)]) -> String {
    let range = |&(start, end): &(u32, u32)| {
        if start == end { format!("U+{start:X}") } else { format!("U+{start:X}-{end:X}") }
    };
    ranges.iter().map(range).collect::<Vec<_>>().join(", ")
}

/// The faces `shaped` draws its glyphs with, in the order the text first uses them.
pub(super) fn faces_of(shaped: &ShapedText) -> Vec<FaceUse> {
    let mut faces = Vec::new();
    for line in &shaped.lines {
        for glyph in shaped.glyphs(line) {
            if !faces.contains(&glyph.font) {
                faces.push(glyph.font);
            }
        }
    }
    faces
}
