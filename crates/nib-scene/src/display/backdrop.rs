//! What shows behind a node drawn alone: the colour a screenshot of a section is put on, so it
//! is seen on its page's background rather than on nothing. Read from the paints the display
//! list would draw ([`super::paint::paint_specs`]), not from the properties again.

use super::paint::{PaintSpec, paint_specs};
use super::{RenderTarget, fills};
use crate::doc::values::BlendMode;
use crate::doc::{Key, Value, VarOr};
use crate::resolve::Scene;

/// The nearest enclosing node's topmost paint when it is an opaque colour drawn normally.
/// `None` for the canvas, a top-level node, or when the nearest painted ancestor's top paint
/// is not one colour (a gradient, an image, a translucent colour): no single colour to show.
pub fn backdrop(scene: &Scene, target: RenderTarget) -> Option<[u8; 4]> {
    let RenderTarget::Node(mut key) = target else { return None };
    while let Some(parent) = scene.parent(key) {
        key = parent;
        let props = &scene.node(key).props;
        if props.get(&Key::Enabled).is_some_and(|v| matches!(v, Value::Bool(VarOr::Value(false)))) {
            continue;
        }
        // Size does not matter for a colour; the issues are the painter's to report.
        let paints = paint_specs(fills(props), 1.0, 1.0, &mut Vec::new());
        match paints.last() {
            None => continue,
            Some(PaintSpec::Solid { color, blend: BlendMode::Normal }) if color[3] == 255 => return Some(*color),
            Some(_) => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Document;
    use crate::resolve::{NoImports, SceneOptions, build_scene};

    fn behind(fills: &str) -> Option<[u8; 4]> {
        let text = format!(
            r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "fill": "#0F172A", "children": [
                {{"type": "frame", "id": "section", "fill": {fills}, "children": [
                  {{"type": "rectangle", "id": "card", "width": 10, "height": 10}}]}}]}}]}}"##
        );
        let document = Document::load(&text).expect("valid").document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        backdrop(&scene, RenderTarget::Node(scene.node_by_id("card").expect("card")))
    }

    #[test]
    fn the_nearest_painted_ancestors_top_colour_shows_behind() {
        assert_eq!(behind(r##""#FF0000""##), Some([255, 0, 0, 255]));
        assert_eq!(behind("[]"), Some([0x0F, 0x17, 0x2A, 255]), "an unpainted section shows its page");
        assert_eq!(behind(r##"["#FF0000", "#00FF0080"]"##), None, "a translucent top paint is no one colour");
        let gradient = r##"{"type": "gradient", "gradientType": "linear", "colors": [{"color": "#000000", "position": 0}, {"color": "#FFFFFF", "position": 1}]}"##;
        assert_eq!(behind(gradient), None);
        assert_eq!(
            behind(r##"[{"type": "color", "color": "#00FF00", "enabled": false}]"##),
            Some([0x0F, 0x17, 0x2A, 255])
        );
    }
}
