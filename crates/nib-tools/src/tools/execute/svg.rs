//! `Generate(node, "svg", markup)`: SVG markup as .pen vector nodes — a frame holding one path
//! node per SVG shape, fitted and centred in the target node's box. usvg reads the markup (the
//! same parser nib's PDF export uses), resolving `use`, transforms, styles and units; each path
//! becomes a `path` node with its geometry relative to its own box, its fill colour and stroke.

use serde_json::{Value, json};
use usvg::tiny_skia_path;

use crate::diagnostic::Diagnostic;
use crate::doc::format::Version;
use crate::tools::ToolError;

/// Most shapes one SVG may become: an icon is a handful, an illustration a few hundred.
pub const MAX_SVG_SHAPES: usize = 2_000;

/// Most bytes of SVG markup.
pub const MAX_SVG_BYTES: usize = 512 * 1024;

/// What the markup becomes: the frame to insert, and what could not be carried over (said once
/// each).
pub(super) struct Converted {
    pub frame: Value,
    pub notes: Vec<Diagnostic>,
}

/// The frame of vector nodes for `markup`, `width` × `height` (the SVG's own size when 0),
/// written in the stroke spelling of `version`.
pub(super) fn convert(markup: &str, width: f64, height: f64, version: Version) -> Result<Converted, ToolError> {
    if markup.len() > MAX_SVG_BYTES {
        return Err(ToolError::new(format!(
            "the SVG is {} bytes; Generate takes at most {MAX_SVG_BYTES}",
            markup.len()
        )));
    }
    let tree = usvg::Tree::from_str(markup, &usvg::Options::default()).map_err(|e| {
        ToolError::new(format!("the SVG could not be read: {e}"))
            .with_hint("pass the markup of one <svg> element with a viewBox or width and height")
    })?;
    let size = tree.size();
    let (svg_w, svg_h) = (f64::from(size.width()), f64::from(size.height()));
    let (width, height) = (if width > 0.0 { width } else { svg_w }, if height > 0.0 { height } else { svg_h });
    let scale = (width / svg_w).min(height / svg_h);
    let (dx, dy) = ((width - svg_w * scale) / 2.0, (height - svg_h * scale) / 2.0);
    let fit = tiny_skia_path::Transform::from_row(scale as f32, 0.0, 0.0, scale as f32, dx as f32, dy as f32);
    let mut shapes = Vec::new();
    let mut notes = Vec::new();
    collect(tree.root(), fit, 1.0, version, &mut shapes, &mut notes)?;
    // The parser drops text it has no fonts for: said as well.
    if markup.contains("<text") {
        note(&mut notes, "text inside the SVG is left out: add it as text nodes");
    }
    let frame = json!({
        "type": "frame",
        "name": "SVG",
        "width": round(width),
        "height": round(height),
        "layout": "none",
        "children": shapes,
    });
    Ok(Converted { frame, notes })
}

fn collect(
    group: &usvg::Group,
    fit: tiny_skia_path::Transform,
    opacity: f32,
    version: Version,
    shapes: &mut Vec<Value>,
    notes: &mut Vec<Diagnostic>,
) -> Result<(), ToolError> {
    let opacity = opacity * group.opacity().get();
    for node in group.children() {
        match node {
            usvg::Node::Group(inner) => collect(inner, fit, opacity, version, shapes, notes)?,
            usvg::Node::Path(path) if path.is_visible() => {
                if shapes.len() >= MAX_SVG_SHAPES {
                    return Err(ToolError::new(format!("the SVG has more than {MAX_SVG_SHAPES} shapes"))
                        .with_hint("simplify it, or use it as an image file instead"));
                }
                if let Some(shape) = shape(path, fit, opacity, version, notes) {
                    shapes.push(shape);
                }
            }
            usvg::Node::Path(_) => {}
            usvg::Node::Image(_) => note(notes, "an image inside the SVG is left out"),
            usvg::Node::Text(_) => note(notes, "text inside the SVG is left out: add it as text nodes"),
        }
    }
    Ok(())
}

fn shape(
    path: &usvg::Path,
    fit: tiny_skia_path::Transform,
    opacity: f32,
    version: Version,
    notes: &mut Vec<Diagnostic>,
) -> Option<Value> {
    let placed = path.data().clone().transform(fit.pre_concat(path.abs_transform()))?;
    let bounds = placed.bounds();
    let (x, y) = (f64::from(bounds.left()), f64::from(bounds.top()));
    let mut node = json!({
        "type": "path",
        "x": round(x),
        "y": round(y),
        "width": round(f64::from(bounds.width()).max(0.01)),
        "height": round(f64::from(bounds.height()).max(0.01)),
        "geometry": geometry(&placed, x, y),
    });
    if let Some(fill) = path.fill() {
        if let Some(color) = color(fill.paint(), fill.opacity().get() * opacity, notes) {
            node["fill"] = json!(color);
        }
        if fill.rule() == usvg::FillRule::EvenOdd {
            node["fillRule"] = json!("evenodd");
        }
    }
    if let Some(stroke) = path.stroke()
        && let Some(color) = color(stroke.paint(), stroke.opacity().get() * opacity, notes)
    {
        let scale = f64::from(fit.sx.abs().max(fit.sy.abs()));
        let width = round(f64::from(stroke.width().get()) * scale);
        if version >= Version::V2_13 {
            node["stroke"] = json!(color);
            node["strokeWidth"] = json!(width);
            node["strokeAlignment"] = json!("center");
        } else {
            node["stroke"] = json!({ "align": "center", "thickness": width, "fill": color });
        }
    }
    Some(node)
}

/// A paint as a colour: solid as it is; a gradient by its first stop (said once).
fn color(paint: &usvg::Paint, opacity: f32, notes: &mut Vec<Diagnostic>) -> Option<String> {
    let (color, stop_opacity) = match paint {
        usvg::Paint::Color(color) => (*color, 1.0),
        usvg::Paint::LinearGradient(g) => first_stop(g.stops(), notes)?,
        usvg::Paint::RadialGradient(g) => first_stop(g.stops(), notes)?,
        usvg::Paint::Pattern(_) => {
            note(notes, "pattern fills are left out");
            return None;
        }
    };
    let alpha = (opacity * stop_opacity * 255.0).round().clamp(0.0, 255.0) as u8;
    Some(if alpha == 255 {
        format!("#{:02X}{:02X}{:02X}", color.red, color.green, color.blue)
    } else {
        format!("#{:02X}{:02X}{:02X}{alpha:02X}", color.red, color.green, color.blue)
    })
}

/// A gradient's first stop, its colour and opacity; said once.
fn first_stop(stops: &[usvg::Stop], notes: &mut Vec<Diagnostic>) -> Option<(usvg::Color, f32)> {
    note(notes, "gradients are drawn with their first colour");
    stops.first().map(|stop| (stop.color(), stop.opacity().get()))
}

/// SVG path data of `path`, moved so its box starts at the origin.
fn geometry(path: &tiny_skia_path::Path, x: f64, y: f64) -> String {
    use tiny_skia_path::PathSegment::*;
    let point = |p: tiny_skia_path::Point| format!("{} {}", round(f64::from(p.x) - x), round(f64::from(p.y) - y));
    let mut d = Vec::new();
    for segment in path.segments() {
        d.push(match segment {
            MoveTo(p) => format!("M{}", point(p)),
            LineTo(p) => format!("L{}", point(p)),
            QuadTo(a, p) => format!("Q{} {}", point(a), point(p)),
            CubicTo(a, b, p) => format!("C{} {} {}", point(a), point(b), point(p)),
            Close => "Z".to_owned(),
        });
    }
    d.join(" ")
}

/// Two decimals: enough for a path, short in the file.
fn round(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// Says once that `what` of the markup was not carried over as drawn.
fn note(notes: &mut Vec<Diagnostic>, what: &str) {
    if !notes.iter().any(|n| n.message == what) {
        notes.push(Diagnostic::note("svg-simplified", what));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_icon_becomes_fitted_path_nodes() {
        let markup = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect x="2" y="2" width="20" height="10" fill="#2563EB"/><circle cx="12" cy="18" r="4" fill="none" stroke="#111827" stroke-width="2"/></svg>"##;
        let converted = convert(markup, 48.0, 48.0, Version::NEWEST).unwrap();
        let shapes = converted.frame["children"].as_array().unwrap();
        assert_eq!(shapes.len(), 2);
        assert_eq!(shapes[0]["fill"], "#2563EB");
        assert_eq!((shapes[0]["x"].as_f64(), shapes[0]["width"].as_f64()), (Some(4.0), Some(40.0)), "scaled ×2");
        assert_eq!(shapes[1]["stroke"], "#111827");
        assert_eq!(shapes[1]["strokeWidth"], 4.0);
        assert!(shapes[0]["geometry"].as_str().unwrap().starts_with("M0 0"));
        let old = convert(markup, 24.0, 24.0, Version::V2_11).unwrap();
        assert_eq!(old.frame["children"][1]["stroke"]["thickness"], 2.0);
        assert!(convert("<svg", 10.0, 10.0, Version::NEWEST).is_err());
    }
}
