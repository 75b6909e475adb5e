//! Icon outlines: lucide icons from their SVG elements (stroke icons on a 24-unit grid), and
//! Material Symbols glyphs from the bundled variable fonts (the icon name is a ligature).

use std::sync::Arc;

use tiny_skia::{Path, PathBuilder, Rect};

use super::TextEngine;
use super::catalog::IconSet;
use super::lucide::Lucide;
use super::style::TextStyle;
use crate::doc::values::{TextAlign, TextAlignVertical};

/// Width of lucide's strokes, in grid units.
pub const LUCIDE_STROKE_WIDTH: f32 = 2.0;

/// Material Symbols weight when a node does not give one (spec §4b).
pub(crate) const MATERIAL_DEFAULT_WEIGHT: u16 = 200;

/// An icon ready to draw in a square `view` units wide, y pointing down from the top.
#[derive(Debug, Clone)]
pub struct IconDrawing {
    /// Drawn as strokes [`LUCIDE_STROKE_WIDTH`] wide with round caps and joins.
    pub stroke: Option<Path>,
    /// Filled with the icon's color.
    pub fill: Option<Path>,
    /// Size of the square the coordinates live in (24 for lucide, 1 for font glyphs).
    pub view: f32,
}

impl TextEngine {
    /// The icon `name` of `family` at `weight` (Material Symbols only), or `None` when the set or
    /// the icon is unknown.
    pub fn icon(&mut self, family: &str, name: &str, weight: Option<u16>) -> Option<Arc<IconDrawing>> {
        let set = IconSet::for_family(family)?;
        let weight = match set {
            IconSet::Lucide => 0,
            IconSet::MaterialSymbols => weight.unwrap_or(MATERIAL_DEFAULT_WEIGHT).clamp(100, 700),
        };
        let key = (family.trim().to_lowercase(), name.to_owned(), weight);
        if let Some(found) = self.icons.get(&key) {
            return found.clone();
        }
        let drawing = match set {
            IconSet::Lucide => lucide_icon(name),
            IconSet::MaterialSymbols => self.material_icon(material_family(family), name, weight),
        }
        .map(Arc::new);
        self.icons.insert(key, drawing.clone());
        drawing
    }

    fn material_icon(&mut self, family: &str, name: &str, weight: u16) -> Option<IconDrawing> {
        if !IconSet::MaterialSymbols.has(name) {
            return None;
        }
        let style = TextStyle {
            family: family.to_owned(),
            size: 1.0,
            weight,
            italic: false,
            letter_spacing: 0.0,
            line_height: 1.0,
            align: TextAlign::Left,
            vertical_align: TextAlignVertical::Top,
        };
        // The icon name shapes into a single glyph through the font's required ligatures.
        let shaped = self.shape(name, &style, None);
        let mut glyphs = shaped.glyphs(shaped.lines.first()?);
        let (Some(glyph), None) = (glyphs.next(), glyphs.next()) else { return None };
        if glyph.glyph == 0 || shaped.family != family {
            return None;
        }
        let outline = self.glyph_outline(glyph.font, glyph.glyph);
        // The glyph stands on the baseline, one em tall: move it into the 0..1 square.
        let fill = outline.path.as_ref()?.clone().transform(tiny_skia::Transform::from_translate(0.0, 1.0))?;
        Some(IconDrawing { stroke: None, fill: Some(fill), view: 1.0 })
    }
}

/// The Material Symbols family a node's family names ("Material Symbols" alone: Outlined,
/// Google's default style).
fn material_family(family: &str) -> &'static str {
    match family.trim().to_lowercase().as_str() {
        "material symbols rounded" => "Material Symbols Rounded",
        "material symbols sharp" => "Material Symbols Sharp",
        _ => "Material Symbols Outlined",
    }
}

/// A lucide icon: its elements as strokes, and the elements lucide fills (a few dots).
fn lucide_icon(name: &str) -> Option<IconDrawing> {
    let elements = Lucide::get().elements(name)?;
    let (mut stroke, mut fill) = (PathBuilder::new(), PathBuilder::new());
    for (tag, attributes) in elements {
        let number = |key: &str| attributes.get(key).and_then(attribute_number).unwrap_or(0.0);
        let filled = attributes.get("fill").and_then(|f| f.as_str()).is_some_and(|f| f != "none");
        let target = if filled { &mut fill } else { &mut stroke };
        match tag.as_str() {
            "path" => {
                if let Some(path) =
                    attributes.get("d").and_then(|d| d.as_str()).and_then(crate::geometry::parse_svg_path)
                {
                    target.push_path(&path);
                }
            }
            "circle" => {
                let (cx, cy, r) = (number("cx"), number("cy"), number("r"));
                if r > 0.0 {
                    target.push_circle(cx, cy, r);
                }
            }
            "ellipse" => {
                let (cx, cy, rx, ry) = (number("cx"), number("cy"), number("rx"), number("ry"));
                if let Some(oval) = Rect::from_xywh(cx - rx, cy - ry, rx * 2.0, ry * 2.0) {
                    target.push_oval(oval);
                }
            }
            "rect" => {
                let (x, y, w, h) = (number("x"), number("y"), number("width"), number("height"));
                let rx = attributes.get("rx").and_then(attribute_number);
                let ry = attributes.get("ry").and_then(attribute_number).or(rx).unwrap_or(0.0);
                let radius = rx.unwrap_or(ry).min(w / 2.0).min(h / 2.0);
                if let Some(path) = crate::geometry::rounded_rect(x, y, w, h, [radius.min(ry); 4]) {
                    target.push_path(&path);
                }
            }
            "line" => {
                target.move_to(number("x1"), number("y1"));
                target.line_to(number("x2"), number("y2"));
            }
            "polyline" | "polygon" => {
                let points: Vec<f32> = attributes
                    .get("points")
                    .and_then(|p| p.as_str())
                    .unwrap_or_default()
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .filter_map(|n| n.parse().ok())
                    .collect();
                for (i, pair) in points.chunks_exact(2).enumerate() {
                    if i == 0 {
                        target.move_to(pair[0], pair[1]);
                    } else {
                        target.line_to(pair[0], pair[1]);
                    }
                }
                if tag == "polygon" {
                    target.close();
                }
            }
            _ => {}
        }
    }
    Some(IconDrawing { stroke: stroke.finish(), fill: fill.finish(), view: 24.0 })
}

/// An SVG attribute number, written as a JSON number or a string.
fn attribute_number(value: &serde_json::Value) -> Option<f32> {
    match value {
        serde_json::Value::Number(n) => n.as_f64().map(|n| n as f32),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{FontBook, FontOptions};

    #[test]
    fn lucide_icons_are_strokes_on_the_24_grid() {
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let house = engine.icon("lucide", "house", None).expect("house");
        let bounds = house.stroke.as_ref().expect("strokes").bounds();
        assert!(bounds.left() >= 0.0 && bounds.right() <= 24.0 && bounds.width() > 10.0);
        assert_eq!(house.view, 24.0);
        assert!(engine.icon("lucide", "trash-2", None).is_some(), "former names draw too");
        assert!(engine.icon("lucide", "no-such-icon", None).is_none());
        // A real file was told "icon 'github' is not in the bundled icon sets".
        let github = engine.icon("lucide", "github", None).expect("brand icons lucide 1.x dropped");
        assert!(github.stroke.as_ref().expect("strokes").bounds().width() > 10.0);
        assert!(engine.icon("Font Awesome", "house", None).is_none());
    }

    #[test]
    fn material_symbols_are_ligature_glyphs_that_follow_the_weight() {
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        for family in ["Material Symbols Outlined", "Material Symbols Rounded", "Material Symbols Sharp"] {
            let home = engine.icon(family, "home", None).unwrap_or_else(|| panic!("{family} home"));
            let bounds = home.fill.as_ref().expect("filled").bounds();
            assert!(
                bounds.left() > 0.0 && bounds.right() < 1.0 && bounds.top() > 0.0 && bounds.bottom() < 1.0,
                "{bounds:?}"
            );
        }
        let thin = engine.icon("Material Symbols Rounded", "settings", Some(100)).expect("thin");
        let bold = engine.icon("Material Symbols Rounded", "settings", Some(700)).expect("bold");
        assert_ne!(thin.fill.as_ref().map(|p| p.bounds()), bold.fill.as_ref().map(|p| p.bounds()));
        assert!(engine.icon("Material Symbols Rounded", "not_an_icon", None).is_none());
    }
}
