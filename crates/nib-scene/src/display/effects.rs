//! Effects resolved (spec §4b): drop and inner shadows, layer blur and background blur, and
//! the grown outline a shadow's spread makes. A blur radius r is a Gaussian of sigma r/2.

use tiny_skia::{PathBuilder, Rect};

use super::geometry::{Shape, rounded_rect, scaled_radii};
use super::paint::{resolved_color, rgba_with_opacity};
use crate::doc::values::{BlendMode as PenBlend, Effect, ShadowType};
use crate::doc::{Key, Props, Value, VarOr};

/// A shadow, resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShadowSpec {
    pub inner: bool,
    /// Straight RGBA.
    pub color: [u8; 4],
    pub dx: f32,
    pub dy: f32,
    pub blur: f32,
    pub spread: f32,
    pub blend: PenBlend,
}

/// A node's effects, resolved, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Effects {
    pub shadows: Vec<ShadowSpec>,
    pub layer_blur: f32,
    pub background_blur: f32,
}

impl Effects {
    /// How far the effects reach outside the node's box.
    pub fn extent(&self) -> f32 {
        let shadows = self
            .shadows
            .iter()
            .filter(|s| !s.inner)
            .map(|s| s.dx.abs().max(s.dy.abs()) + s.spread.max(0.0) + s.blur * 1.5)
            .fold(0.0, f32::max);
        shadows.max(self.layer_blur * 1.5)
    }
}

/// The enabled effects of `props`.
pub(crate) fn effects_of(props: &Props) -> Effects {
    let mut effects = Effects::default();
    let Some(Value::Effects(list)) = props.get(&Key::Effect) else { return effects };
    let number = |v: &Option<VarOr<f64>>| {
        v.as_ref().and_then(|v| v.value().copied()).filter(|n| n.is_finite()).unwrap_or(0.0) as f32
    };
    let enabled = |v: &Option<VarOr<bool>>| !matches!(v, Some(VarOr::Value(false)));
    for effect in list.as_slice() {
        match effect {
            Effect::Shadow(shadow) if enabled(&shadow.enabled) => {
                let mut issues = Vec::new();
                let color = shadow.color.as_ref().and_then(|c| resolved_color(c, &mut issues));
                let Some(color) = color else { continue };
                let offset = shadow.offset.as_ref();
                effects.shadows.push(ShadowSpec {
                    inner: shadow.shadow_type == Some(ShadowType::Inner),
                    color: rgba_with_opacity(color, 1.0),
                    dx: number(&offset.and_then(|o| o.x.clone())),
                    dy: number(&offset.and_then(|o| o.y.clone())),
                    blur: number(&shadow.blur).max(0.0),
                    spread: number(&shadow.spread),
                    blend: shadow.blend_mode.unwrap_or(PenBlend::Normal),
                });
            }
            Effect::Blur(layer) if enabled(&layer.enabled) => effects.layer_blur = number(&layer.radius).max(0.0),
            Effect::BackgroundBlur(background) if enabled(&background.enabled) => {
                effects.background_blur = number(&background.radius).max(0.0);
            }
            _ => {}
        }
    }
    effects
}

/// `shape` grown (or shrunk, for a negative `by`) by `by` on every side, where that is exact
/// (rectangles, ellipses); other outlines keep their shape.
pub fn grown(shape: &Shape, width: f32, height: f32, by: f32) -> Option<tiny_skia::Path> {
    if by == 0.0 {
        return Some(shape.path.clone());
    }
    let (x, y, w, h) = (-by, -by, width + 2.0 * by, height + 2.0 * by);
    if !(w > 0.0 && h > 0.0) {
        return None;
    }
    if shape.oval {
        return Rect::from_xywh(x, y, w, h).and_then(PathBuilder::from_oval);
    }
    match shape.radii {
        Some(radii) => {
            rounded_rect(x, y, w, h, scaled_radii(radii.map(|r| if r > 0.0 { (r + by).max(0.0) } else { 0.0 }), w, h))
        }
        None => Some(shape.path.clone()),
    }
}
