//! Colors: `#RGB`, `#RRGGBB`, `#RRGGBBAA`, kept in the spelling the file used.

use std::borrow::Cow;
use std::fmt;

use crate::doc::convert::{FromJson, ReadContext, ToJson, expect_string};
use crate::doc::error::{ErrorKind, ProblemKind, ValueError};
use crate::doc::json::{Json, JsonWriter};

/// Longest spelling kept: "transparent".
const MAX_SPELLING: usize = 11;

/// An sRGB color with straight alpha, and the exact text it was written as (`#F5f5f5` stays
/// `#F5f5f5`), so an unchanged document saves byte-identical.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Color {
    rgba: [u8; 4],
    spelling: [u8; MAX_SPELLING],
    spelling_len: u8,
}

/// Why a string is not a color.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidColor {
    /// What usually fixes it.
    pub hint: String,
}

/// Words Pen writes into real files where a color belongs; both paint nothing.
const PAINT_NOTHING_KEYWORDS: &[&str] = &["transparent", "none"];

impl Color {
    /// A color from components; it is spelled `#RRGGBB`, or `#RRGGBBAA` when not opaque.
    pub fn from_rgba(rgba: [u8; 4]) -> Color {
        let mut text = format!("#{:02X}{:02X}{:02X}", rgba[0], rgba[1], rgba[2]);
        if rgba[3] != 255 {
            text.push_str(&format!("{:02X}", rgba[3]));
        }
        Color::with_spelling(rgba, &text)
    }

    fn with_spelling(rgba: [u8; 4], text: &str) -> Color {
        let mut spelling = [0u8; MAX_SPELLING];
        spelling[..text.len()].copy_from_slice(text.as_bytes());
        Color { rgba, spelling, spelling_len: text.len() as u8 }
    }

    /// Parses a hex color, or one of the keywords `transparent` / `none` (fully transparent).
    pub fn parse(text: &str) -> Result<Color, InvalidColor> {
        if PAINT_NOTHING_KEYWORDS.contains(&text) {
            return Ok(Color::with_spelling([0, 0, 0, 0], text));
        }
        let Some(hex) = text.strip_prefix('#') else {
            return Err(InvalidColor { hint: hint_for_non_hex(text) });
        };
        if let Some(bad) = hex.chars().find(|c| !c.is_ascii_hexdigit()) {
            return Err(InvalidColor { hint: format!("'{bad}' is not a hex digit; hex colors use 0-9 and A-F") });
        }
        let digit = |i: usize| u8::from_str_radix(&hex[i..i + 1], 16).unwrap_or(0);
        let byte = |i: usize| digit(i) * 16 + digit(i + 1);
        let rgba = match hex.len() {
            3 => [digit(0) * 17, digit(1) * 17, digit(2) * 17, 255],
            6 => [byte(0), byte(2), byte(4), 255],
            8 => [byte(0), byte(2), byte(4), byte(6)],
            n => {
                return Err(InvalidColor {
                    hint: format!("a hex color has 3, 6 or 8 digits after '#'; this one has {n}"),
                });
            }
        };
        Ok(Color::with_spelling(rgba, text))
    }

    /// A color Pen saved though it is not valid, read the way Pen's JavaScript reads it: `#`
    /// and 6 or 8 characters, each pair `parseInt(pair, 16)` (its leading hex digits, 0 when there
    /// are none). Inside a mesh gradient (`any_word`) Pen reads every other string as
    /// transparent. `None` for anything else, or too long to keep.
    pub fn lenient(text: &str, any_word: bool) -> Option<Color> {
        if text.len() > MAX_SPELLING || !text.is_ascii() {
            return None;
        }
        let pair = |hex: &str, i: usize| -> u8 {
            let digits: String = hex.get(i..i + 2).unwrap_or("").chars().take_while(char::is_ascii_hexdigit).collect();
            u8::from_str_radix(&digits, 16).unwrap_or(0)
        };
        let rgba = match text.strip_prefix('#') {
            Some(hex) if hex.len() == 6 => [pair(hex, 0), pair(hex, 2), pair(hex, 4), 255],
            Some(hex) if hex.len() == 8 => [pair(hex, 0), pair(hex, 2), pair(hex, 4), pair(hex, 6)],
            _ if any_word => [0, 0, 0, 0],
            _ => return None,
        };
        Some(Color::with_spelling(rgba, text))
    }

    /// Red, green, blue and alpha, 0–255 each (alpha straight, not premultiplied).
    pub fn rgba(&self) -> [u8; 4] {
        self.rgba
    }

    /// The text as written in the file.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.spelling[..usize::from(self.spelling_len)]).unwrap_or("#000000")
    }

    /// True for `transparent` / `none`, which Pen writes but does not define as colors.
    pub fn is_keyword(&self) -> bool {
        !self.as_str().starts_with('#')
    }
}

impl fmt::Debug for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Color({})", self.as_str())
    }
}

fn hint_for_non_hex(text: &str) -> String {
    let trimmed = text.trim();
    if matches!(trimmed.len(), 3 | 6 | 8) && trimmed.chars().all(|c| c.is_ascii_hexdigit()) {
        return format!("did you mean \"#{trimmed}\"?");
    }
    if let Some(hex) = css_function_as_hex(trimmed) {
        return format!("write it as hex: \"{hex}\"");
    }
    if let Some((_, hex)) = NAMED_COLORS.iter().find(|(name, _)| name.eq_ignore_ascii_case(trimmed)) {
        return format!("write it as hex: \"{hex}\"");
    }
    if trimmed.starts_with("--") || trimmed.starts_with("var(") {
        return "reference a variable as \"$--name\"".into();
    }
    "write a hex color such as \"#1A1A1A\" or reference a variable as \"$name\"".into()
}

/// `rgb(255, 0, 0)` / `rgba(255, 0, 0, 0.5)` as hex, for the hint.
fn css_function_as_hex(text: &str) -> Option<String> {
    let inner = text.strip_prefix("rgba(").or_else(|| text.strip_prefix("rgb("))?.strip_suffix(')')?;
    let parts: Vec<f64> =
        inner.split([',', ' ', '/']).filter(|p| !p.is_empty()).map(|p| p.trim().parse().ok()).collect::<Option<_>>()?;
    let channel = |v: f64| v.clamp(0.0, 255.0).round() as u8;
    match parts.as_slice() {
        [r, g, b] => Some(Color::from_rgba([channel(*r), channel(*g), channel(*b), 255]).as_str().to_owned()),
        [r, g, b, a] => {
            let alpha = (a.clamp(0.0, 1.0) * 255.0).round() as u8;
            Some(Color::from_rgba([channel(*r), channel(*g), channel(*b), alpha]).as_str().to_owned())
        }
        _ => None,
    }
}

const NAMED_COLORS: &[(&str, &str)] = &[
    ("white", "#FFFFFF"),
    ("black", "#000000"),
    ("red", "#FF0000"),
    ("green", "#008000"),
    ("blue", "#0000FF"),
    ("yellow", "#FFFF00"),
    ("orange", "#FFA500"),
    ("purple", "#800080"),
    ("gray", "#808080"),
    ("grey", "#808080"),
    ("pink", "#FFC0CB"),
];

impl FromJson for Color {
    fn expected() -> Cow<'static, str> {
        "a color hex string (#RRGGBBAA, #RRGGBB or #RGB)".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Color, ValueError> {
        let offset = json.offset;
        let text = expect_string::<Color>(json)?;
        match Color::parse(&text) {
            Ok(color) => {
                if color.is_keyword() {
                    cx.report(offset, ProblemKind::ColorKeyword { text });
                }
                Ok(color)
            }
            Err(invalid) => match Color::lenient(&text, cx.in_mesh).filter(|_| cx.lenient_colors) {
                Some(color) => {
                    let [r, g, b, a] = color.rgba();
                    let drawn_as =
                        if a == 0 { "nothing".to_owned() } else { Color::from_rgba([r, g, b, a]).as_str().to_owned() };
                    cx.report(offset, ProblemKind::ColorTolerated { text, drawn_as, hint: invalid.hint });
                    Ok(color)
                }
                None => Err(ValueError::new(offset, ErrorKind::InvalidColor { text }).with_hint(invalid.hint)),
            },
        }
    }
}

impl ToJson for Color {
    fn write_json(&self, w: &mut JsonWriter) {
        w.string(self.as_str());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::*;

    #[test]
    fn hex_forms_parse_and_keep_their_spelling() {
        assert_eq!(Color::parse("#fff").unwrap().rgba(), [255, 255, 255, 255]);
        assert_eq!(Color::parse("#1A2b3C").unwrap().rgba(), [0x1a, 0x2b, 0x3c, 255]);
        assert_eq!(Color::parse("#00000080").unwrap().rgba(), [0, 0, 0, 0x80]);
        assert_round_trip::<Color>("\"#F5f5f5\"");
        assert_eq!(Color::from_rgba([255, 0, 16, 255]).as_str(), "#FF0010");
        assert_eq!(Color::from_rgba([255, 0, 16, 1]).as_str(), "#FF001001");
    }

    #[test]
    fn keywords_paint_nothing_and_are_reported() {
        let mut cx = ReadContext::default();
        let json = crate::doc::json::parse("\"transparent\"").unwrap().value.unwrap();
        let color = Color::from_json(json, &mut cx).unwrap();
        assert_eq!(color.rgba()[3], 0);
        assert!(color.is_keyword());
        assert_eq!(cx.problems.len(), 1);
    }

    #[test]
    fn invalid_colors_explain_the_fix() {
        let e = read::<Color>("\"#1535850\"").unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidColor { text: "#1535850".into() });
        assert!(e.hint.unwrap().contains("has 7"));
        assert_eq!(read::<Color>("\"FF0000\"").unwrap_err().hint.unwrap(), "did you mean \"#FF0000\"?");
        assert_eq!(read::<Color>("\"red\"").unwrap_err().hint.unwrap(), "write it as hex: \"#FF0000\"");
        assert_eq!(
            read::<Color>("\"rgba(0, 0, 0, 0.5)\"").unwrap_err().hint.unwrap(),
            "write it as hex: \"#00000080\""
        );
        assert!(read::<Color>("\"#GG0000\"").unwrap_err().hint.unwrap().contains("'G'"));
        assert!(read::<Color>("\"#ffff\"").is_err());
        assert!(read::<Color>("12").is_err());
    }

    #[test]
    fn a_file_may_hold_a_color_pen_saved_though_it_is_not_hex() {
        let mut cx = ReadContext::for_files();
        let read = |text: &str, cx: &mut ReadContext| {
            Color::from_json(crate::doc::json::parse(text).unwrap().value.unwrap(), cx)
        };
        let color = read("\"#GGGGGG\"", &mut cx).unwrap();
        assert_eq!((color.rgba(), color.as_str()), ([0, 0, 0, 255], "#GGGGGG"));
        assert_eq!(read("\"#1Gzz00AZ\"", &mut cx).unwrap().rgba(), [1, 0, 0, 0xA]);
        assert_eq!(cx.problems.len(), 2);
        assert!(cx.problems[0].kind.to_string().contains("drawn as #000000"), "{}", cx.problems[0].kind);
        assert!(read("\"#1535850\"", &mut cx).is_err(), "a typo is still an error");
        assert!(read("\"red\"", &mut cx).is_err());
        // Inside a mesh gradient Pen reads every other string as transparent.
        cx.in_mesh = true;
        assert_eq!(read("\"red\"", &mut cx).unwrap().rgba()[3], 0, "a word paints nothing");
        assert_eq!(read("\"#zzzz\"", &mut cx).unwrap().rgba()[3], 0);
        assert!(read("\"a very long color name\"", &mut cx).is_err(), "too long to keep");
    }
}
