//! The pieces of SVG markup: numbers printed the same way on every machine, path data,
//! transforms, colors and escaped text.

use std::borrow::Cow;
use std::fmt::Write;

use tiny_skia::{Path, PathSegment, Transform};

/// Decimals kept for coordinates in pixels: a thousandth of a pixel is far below what any
/// renderer shows, and fewer digits keep files small.
pub(crate) const PIXEL_DECIMALS: usize = 3;

/// Decimals kept for glyph outlines in em units: at 1000 px per em a hundred-thousandth of an em
/// is still a hundredth of a pixel.
pub(crate) const EM_DECIMALS: usize = 5;

/// `value` with at most `decimals` decimals, without trailing zeros (`12`, `0.5`, `-3.125`);
/// NaN and infinities print as 0, and so does -0.
pub(crate) fn number_with(value: f32, decimals: usize) -> String {
    if !value.is_finite() {
        return "0".to_owned();
    }
    let mut text = format!("{value:.decimals$}");
    if text.contains('.') {
        let trimmed = text.trim_end_matches('0').trim_end_matches('.').len();
        text.truncate(trimmed);
    }
    if text == "-0" {
        text = "0".to_owned();
    }
    text
}

/// A coordinate in pixels (see [`PIXEL_DECIMALS`]).
pub(crate) fn number(value: f32) -> String {
    number_with(value, PIXEL_DECIMALS)
}

/// SVG path data for `path`, coordinates with `decimals` decimals.
pub(crate) fn path_data(path: &Path, decimals: usize) -> String {
    let mut data = String::with_capacity(path.len() * 16);
    let n = |v: f32| number_with(v, decimals);
    for segment in path.segments() {
        // Writing to a String cannot fail.
        let _ = match segment {
            PathSegment::MoveTo(p) => write!(data, "M{} {}", n(p.x), n(p.y)),
            PathSegment::LineTo(p) => write!(data, "L{} {}", n(p.x), n(p.y)),
            PathSegment::QuadTo(c, p) => write!(data, "Q{} {} {} {}", n(c.x), n(c.y), n(p.x), n(p.y)),
            PathSegment::CubicTo(c1, c2, p) => {
                write!(data, "C{} {} {} {} {} {}", n(c1.x), n(c1.y), n(c2.x), n(c2.y), n(p.x), n(p.y))
            }
            PathSegment::Close => write!(data, "Z"),
        };
    }
    data
}

/// A `transform` attribute value; `None` for the identity.
pub(crate) fn transform(t: Transform) -> Option<String> {
    if t.is_identity() {
        return None;
    }
    if t.is_translate() {
        return Some(format!("translate({} {})", number(t.tx), number(t.ty)));
    }
    let m = |v: f32| number_with(v, EM_DECIMALS);
    Some(format!("matrix({} {} {} {} {} {})", m(t.sx), m(t.ky), m(t.kx), m(t.sy), number(t.tx), number(t.ty)))
}

/// A straight RGBA color as `#RRGGBB` and its opacity (0–1), `None` when opaque.
pub(crate) fn color(rgba: [u8; 4]) -> (String, Option<String>) {
    let [r, g, b, a] = rgba;
    let hex = format!("#{r:02X}{g:02X}{b:02X}");
    let opacity = (a < 255).then(|| number_with(f32::from(a) / 255.0, 4));
    (hex, opacity)
}

/// `text` safe inside an attribute value or an element of a drawing.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    crate::markup::escape(text, crate::markup::Escaping::DRAWING)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_the_same_everywhere() {
        assert_eq!(number(12.0), "12");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(-0.0001), "0");
        assert_eq!(number(1.23456), "1.235");
        assert_eq!(number(f32::NAN), "0");
        assert_eq!(number_with(0.123456, 5), "0.12346");
    }

    #[test]
    fn paths_transforms_and_text_are_written_as_svg_reads_them() {
        let mut builder = tiny_skia::PathBuilder::new();
        builder.move_to(0.0, 0.0);
        builder.line_to(10.0, 0.5);
        builder.quad_to(1.0, 2.0, 3.0, 4.0);
        builder.close();
        assert_eq!(path_data(&builder.finish().expect("path"), 3), "M0 0L10 0.5Q1 2 3 4Z");
        assert_eq!(transform(Transform::identity()), None);
        assert_eq!(transform(Transform::from_translate(3.0, 4.5)).as_deref(), Some("translate(3 4.5)"));
        assert_eq!(transform(Transform::from_scale(2.0, 2.0)).as_deref(), Some("matrix(2 0 0 2 0 0)"));
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(color([255, 0, 16, 255]), ("#FF0010".to_owned(), None));
        assert_eq!(color([0, 0, 0, 128]).1.as_deref(), Some("0.502"));
    }
}
