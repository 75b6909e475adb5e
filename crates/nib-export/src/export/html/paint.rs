//! Paints as CSS: colors, gradients mapped exactly onto CSS gradient lines, shadows and
//! radii, from the same resolved fills, shadows and shapes the painter uses.

use crate::display::effects::ShadowSpec;
use crate::display::paint::{GradientGeometry, GradientSpec};
use crate::doc::values::ImageMode;
use crate::export::svg::number;

/// A straight RGBA color as CSS: `#RRGGBB`, or `rgb(r g b / a)` when translucent.
pub(crate) fn css_color(rgba: [u8; 4]) -> String {
    let [r, g, b, a] = rgba;
    if a == 255 {
        format!("#{r:02X}{g:02X}{b:02X}")
    } else {
        format!("rgb({r} {g} {b} / {})", crate::export::svg::number(f32::from(a) / 255.0))
    }
}

/// A gradient as a CSS image in a `width` × `height` box.
pub(crate) fn css_gradient(gradient: &GradientSpec, width: f32, height: f32) -> Option<String> {
    if gradient.stops.is_empty() {
        return None;
    }
    match gradient.geometry {
        GradientGeometry::Linear { start, end } => {
            let (dx, dy) = (end.0 - start.0, end.1 - start.1);
            let length = (dx * dx + dy * dy).sqrt();
            if length <= f32::EPSILON {
                return None;
            }
            // CSS angles turn clockwise from "to top"; the gradient line runs through the box's
            // center and is |w·sin θ| + |h·cos θ| long. Positions along it are remapped so
            // the colors land where nib puts them.
            let angle = dx.atan2(-dy);
            let (sin, cos) = angle.sin_cos();
            let line = (width * sin).abs() + (height * cos).abs();
            if line <= f32::EPSILON {
                return None;
            }
            let center = (width / 2.0, height / 2.0);
            let along = |p: (f32, f32)| ((p.0 - center.0) * sin - (p.1 - center.1) * cos) / line + 0.5;
            let (from, to) = (along(start), along(end));
            let stops: Vec<String> = gradient
                .stops
                .iter()
                .map(|(p, c)| format!("{} {}%", css_color(*c), number((from + p * (to - from)) * 100.0)))
                .collect();
            Some(format!("linear-gradient({}deg, {})", number(angle.to_degrees()), stops.join(", ")))
        }
        GradientGeometry::Radial { transform } => {
            // The unit circle of radius ½ mapped by the transform: an ellipse whose radii are
            // half its column lengths (a turned ellipse is drawn unturned: CSS cannot turn it).
            let rx = 0.5 * (transform.sx * transform.sx + transform.ky * transform.ky).sqrt();
            let ry = 0.5 * (transform.kx * transform.kx + transform.sy * transform.sy).sqrt();
            let stops: Vec<String> =
                gradient.stops.iter().map(|(p, c)| format!("{} {}%", css_color(*c), number(p * 100.0))).collect();
            Some(format!(
                "radial-gradient({}px {}px at {}px {}px, {})",
                number(rx),
                number(ry),
                number(transform.tx),
                number(transform.ty),
                stops.join(", ")
            ))
        }
        GradientGeometry::Angular { center, rotation } => {
            let stops: Vec<String> =
                gradient.stops.iter().map(|(p, c)| format!("{} {}%", css_color(*c), number(p * 100.0))).collect();
            Some(format!(
                "conic-gradient(from {}deg at {}px {}px, {})",
                number(-rotation),
                number(center.0),
                number(center.1),
                stops.join(", ")
            ))
        }
    }
}

/// `background-size` of an image fill by its mode.
pub(crate) fn image_size(mode: ImageMode) -> &'static str {
    match mode {
        ImageMode::Stretch => "100% 100%",
        ImageMode::Fill | ImageMode::Cover => "cover",
        ImageMode::Fit | ImageMode::Contain => "contain",
    }
}

/// A shadow as a `box-shadow` item (CSS blurs with σ = radius / 2, as nib does).
pub(crate) fn box_shadow(shadow: &ShadowSpec, color: &str) -> String {
    format!(
        "{}{}px {}px {}px {}px {}",
        if shadow.inner { "inset " } else { "" },
        number(shadow.dx),
        number(shadow.dy),
        number(shadow.blur),
        number(shadow.spread),
        color
    )
}

/// `border-radius` of four radii (top-left, top-right, bottom-right, bottom-left).
pub(crate) fn radius(radii: [f32; 4]) -> Option<String> {
    if radii.iter().all(|r| *r <= 0.0) {
        return None;
    }
    if radii.iter().all(|r| *r == radii[0]) {
        return Some(format!("{}px", number(radii[0])));
    }
    let parts: Vec<String> = radii.iter().map(|r| format!("{}px", number(*r))).collect();
    Some(parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vertical_gradient_maps_onto_the_css_line_exactly() {
        // Top to bottom of a 100 × 50 box: CSS 180deg, line 50 px long, positions unchanged.
        let gradient = GradientSpec {
            geometry: GradientGeometry::Linear { start: (50.0, 0.0), end: (50.0, 50.0) },
            stops: vec![(0.0, [255, 0, 0, 255]), (1.0, [0, 0, 255, 128])],
        };
        assert_eq!(
            css_gradient(&gradient, 100.0, 50.0).as_deref(),
            Some("linear-gradient(180deg, #FF0000 0%, rgb(0 0 255 / 0.502) 100%)")
        );
        // Half the height: the colors reach their ends at a quarter and three quarters.
        let half =
            GradientSpec { geometry: GradientGeometry::Linear { start: (50.0, 12.5), end: (50.0, 37.5) }, ..gradient };
        assert_eq!(
            css_gradient(&half, 100.0, 50.0).as_deref(),
            Some("linear-gradient(180deg, #FF0000 25%, rgb(0 0 255 / 0.502) 75%)")
        );
    }

    #[test]
    fn radii_are_short_when_equal() {
        assert_eq!(radius([0.0; 4]), None);
        assert_eq!(radius([8.0; 4]).as_deref(), Some("8px"));
        assert_eq!(radius([8.0, 0.0, 8.0, 0.0]).as_deref(), Some("8px 0px 8px 0px"));
    }
}
