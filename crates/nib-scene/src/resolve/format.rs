//! The rules of the node's own format version, made explicit in the Scene.
//!
//! Some keys mean different things in different versions when they are absent, and some things
//! Pen draws differently by version (`doc::format`). Resolving writes down what the node's
//! version says, so that layout, painting and every export read one concrete value and never
//! ask which version a node came from:
//!
//! - a flat stroke without `strokeAlignment` is `center` from 2.17 on (Pen omits the key when
//!   the stroke is centred) and `inner` before;
//! - an inner shadow of a document before 2.19 is drawn as an outer one (every Pen before 1.2.14
//!   did, and 1.2.14 rewrites such shadows to outer when it opens the file);
//! - an image fill without `mode` is `cover` in 2.20 and `stretch` before;
//! - a path without `viewBox` in a document before 2.17 is scaled in place, which is the
//!   `viewBox` `[0, 0, w, h]` of its tight bounds (`w × h`); from 2.17 on the tight bounds are
//!   moved to the box's corner, which is what an absent `viewBox` means when painting.
//!
//! The Scene therefore shows what is drawn: a resolved view of a 2.19 rectangle with a stroke
//! says `"strokeAlignment": "center"` although the file leaves it out.

use crate::doc::format::Version;
use crate::doc::values::{Effect, Fill, Fills, ImageMode, ShadowType, Stroke, StrokeAlignment};
use crate::doc::{Key, NodeType, Props, Value, VarOr};

/// Makes the version-dependent meaning of `props` explicit, for a node of a document of
/// `version`.
pub(crate) fn apply(props: &mut Props, version: Version) {
    if matches!(props.get(&Key::Stroke), Some(Value::Stroke(Stroke::Paint(_))))
        && !props.contains(&Key::StrokeAlignment)
    {
        let alignment =
            if version.centred_strokes_by_default() { StrokeAlignment::Center } else { StrokeAlignment::Inner };
        props.set(Key::StrokeAlignment, Value::StrokeAlignment(VarOr::Value(alignment)));
    }
    if !version.draws_inner_shadows()
        && let Some(Value::Effects(effects)) = props.get_mut(&Key::Effect)
    {
        for effect in effects.as_mut_slice() {
            if let Effect::Shadow(shadow) = effect
                && shadow.shadow_type == Some(ShadowType::Inner)
            {
                shadow.shadow_type = Some(ShadowType::Outer);
            }
        }
    }
    for key in [Key::Fill, Key::Stroke] {
        let fills = match props.get_mut(&key) {
            Some(Value::Fills(fills) | Value::Stroke(Stroke::Paint(fills))) => fills,
            _ => continue,
        };
        set_image_modes(fills, version);
    }
    if !version.fits_paths_to_their_box()
        && props.node_type() == Some(NodeType::Path)
        && !props.contains(&Key::ViewBox)
        && let Some(bounds) = props
            .text(&Key::Geometry)
            .and_then(crate::geometry::parse_svg_path)
            .and_then(|path| path.compute_tight_bounds())
    {
        let view_box = [0.0, 0.0, f64::from(bounds.width()), f64::from(bounds.height())];
        props.set(Key::ViewBox, Value::Numbers(view_box.map(VarOr::Value).to_vec()));
    }
}

/// Gives every image fill without a mode the mode its version means.
fn set_image_modes(fills: &mut Fills, version: Version) {
    let default = if version.cover_contain_images() { ImageMode::Cover } else { ImageMode::Stretch };
    for fill in fills.as_mut_slice() {
        if let Fill::Image(image) = fill
            && image.mode.is_none()
        {
            image.mode = Some(default);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Document;

    fn applied(version: &str, node: &str) -> Props {
        let text = format!(r#"{{"version": "{version}", "children": [{node}]}}"#);
        let document = Document::load(&text).expect("loads").document;
        let mut props = document.tree().node(document.tree().roots()[0]).props.clone();
        apply(&mut props, Version::read_as(document.version()));
        props
    }

    #[test]
    fn an_absent_stroke_alignment_means_what_its_version_says() {
        let node =
            r##"{"type": "rectangle", "id": "r", "width": 10, "height": 10, "stroke": "#000", "strokeWidth": 2}"##;
        assert_eq!(
            applied("2.19", node).literal::<StrokeAlignment>(&Key::StrokeAlignment),
            Some(StrokeAlignment::Center)
        );
        assert_eq!(
            applied("2.13", node).literal::<StrokeAlignment>(&Key::StrokeAlignment),
            Some(StrokeAlignment::Inner)
        );
    }

    #[test]
    fn inner_shadows_of_older_documents_are_drawn_outside() {
        let node = r##"{"type": "rectangle", "id": "r", "width": 10, "height": 10, "effect": {"type": "shadow", "shadowType": "inner", "blur": 4}}"##;
        let shadow_type = |props: &Props| match props.get(&Key::Effect) {
            Some(Value::Effects(effects)) => match effects.as_slice().first() {
                Some(Effect::Shadow(shadow)) => shadow.shadow_type,
                _ => None,
            },
            _ => None,
        };
        assert_eq!(shadow_type(&applied("2.19", node)), Some(ShadowType::Inner));
        assert_eq!(shadow_type(&applied("2.17", node)), Some(ShadowType::Outer));
    }

    #[test]
    fn old_paths_are_scaled_in_place_and_new_ones_keep_no_view_box() {
        let node =
            r#"{"type": "path", "id": "p", "width": 100, "height": 100, "geometry": "M 20 20 L 70 20 L 45 60 Z"}"#;
        assert_eq!(
            applied("2.13", node).get(&Key::ViewBox),
            Some(&Value::Numbers(vec![VarOr::Value(0.0), VarOr::Value(0.0), VarOr::Value(50.0), VarOr::Value(40.0)]))
        );
        assert!(!applied("2.17", node).contains(&Key::ViewBox));
    }
}
