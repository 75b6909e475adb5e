//! Contrast, measured as a reader sees it: each text's colour against what is painted beneath
//! it. A copy of the document with every text made transparent is drawn frame by frame, and
//! the pixels under each text's box are sampled (a grid of 15 points; the median ratio is
//! reported, so a text over an image or a gradient is judged by most of its area, not by its
//! best or worst pixel). What nothing paints is the canvas, taken as white.

use crate::compile::{CompileOptions, Compiled, Compiler};
use crate::doc::values::Fill;
use crate::doc::{Document, Key, NodeType, Value, VarOr};
use crate::host::Host;
use crate::render::{RenderOptions, RenderTarget, target_bounds};
use crate::resolve::{Scene, SceneKey};

use super::colors::{contrast, hex, over};
use super::rules::{Finding, number, px};

/// WCAG 2 AA: 4.5:1 for text, 3:1 for large text.
const AA_TEXT: f64 = 4.5;
const AA_LARGE_TEXT: f64 = 3.0;
/// Large text: 24 px (18 pt), or 18.66 px (14 pt) bold.
const LARGE_PX: f64 = 24.0;
const LARGE_BOLD_PX: f64 = 18.66;

/// The canvas beneath everything.
const CANVAS: [u8; 4] = [255, 255, 255, 255];

/// Most pixels one frame is drawn with for sampling; a larger frame is drawn smaller.
const MAX_SAMPLED_PIXELS: f32 = 16_777_216.0;

/// A text to measure: its node, its colour (with its opacity), and whether it is large.
struct Text {
    key: SceneKey,
    color: [u8; 4],
    size: f64,
    large: bool,
}

pub(super) fn check(host: &dyn Host, document: &Document, compiled: &Compiled<'_>) -> Vec<Finding> {
    let scene = &compiled.scene;
    let texts: Vec<Text> = scene.walk().filter_map(|key| text(compiled, key)).collect();
    if texts.is_empty() {
        return Vec::new();
    }
    let Some(mut beneath) = without_texts(host, document) else { return Vec::new() };
    let mut found = Vec::new();
    let mut roots: Vec<SceneKey> = texts.iter().map(|t| root_of(scene, t.key)).collect();
    roots.dedup();
    for root in roots {
        let Some(root_there) = beneath.scene.node_by_id(&scene.node(root).id) else { continue };
        let target = RenderTarget::Node(root_there);
        let Ok(bounds) = target_bounds(&beneath.scene, &beneath.layout, target) else { continue };
        let scale = (MAX_SAMPLED_PIXELS / (bounds.width() * bounds.height()).max(1.0)).sqrt().min(1.0);
        let options = RenderOptions { scale, ..RenderOptions::default() };
        let Ok(rendered) = beneath.render(target, &options) else { continue };
        let pixmap = rendered.pixmap;
        for text in texts.iter().filter(|t| root_of(scene, t.key) == root) {
            let Some(b) = compiled.layout.node_box(text.key) else { continue };
            let mut ratios: Vec<(f64, [u8; 4])> = Vec::new();
            for row in 0..3 {
                for column in 0..5 {
                    let x = b.left + b.width * (column as f32 + 0.5) / 5.0;
                    let y = b.top + b.height * (row as f32 + 0.5) / 3.0;
                    let px_x = ((x - bounds.left()) * scale).floor();
                    let px_y = ((y - bounds.top()) * scale).floor();
                    if px_x < 0.0 || px_y < 0.0 {
                        continue;
                    }
                    let Some(pixel) = pixmap.pixel(px_x as u32, px_y as u32) else { continue };
                    let pixel = pixel.demultiply();
                    let below = over([pixel.red(), pixel.green(), pixel.blue(), pixel.alpha()], CANVAS);
                    let seen = over(text.color, below);
                    ratios.push((contrast(seen, below), below));
                }
            }
            if ratios.is_empty() {
                continue;
            }
            ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (ratio, below) = ratios[ratios.len() / 2];
            let needed = if text.large { AA_LARGE_TEXT } else { AA_TEXT };
            if ratio + 1e-9 >= needed {
                continue;
            }
            let kind = if text.large { "large text" } else { "text" };
            found.push(Finding {
                node: text.key,
                message: format!(
                    "contrast {ratio:.2}:1 ({} on {} beneath it); {kind} of {} px needs {needed}:1 (WCAG AA)",
                    hex(text.color),
                    hex(below),
                    px(text.size)
                ),
                hint: match suggestion(text.color, below, needed) {
                    Some(color) => format!(
                        "use {color} (or further from the background) for the text, or change what is beneath it"
                    ),
                    None => "change what is beneath the text: no text colour reaches the ratio on it".to_owned(),
                },
            });
        }
    }
    found
}

/// A drawn text with one solid colour (gradient and image text are not measured).
fn text(compiled: &Compiled<'_>, key: SceneKey) -> Option<Text> {
    let node = compiled.scene.node(key);
    if node.node_type() != NodeType::Text || !node.is_enabled() || !visible_up(&compiled.scene, key) {
        return None;
    }
    let b = compiled.layout.node_box(key)?;
    if b.width <= 0.0 || b.height <= 0.0 {
        return None;
    }
    let Some(Value::Fills(fills)) = node.props.get(&Key::Fill) else { return None };
    let mut color = fills.as_slice().iter().rev().find_map(|fill| match fill {
        Fill::Solid(VarOr::Value(color)) => Some(color.rgba()),
        Fill::Color(fill) if !matches!(fill.enabled, Some(VarOr::Value(false))) => match &fill.color {
            Some(VarOr::Value(color)) => {
                let mut rgba = color.rgba();
                if let Some(VarOr::Value(opacity)) = fill.opacity {
                    rgba[3] = (f64::from(rgba[3]) * opacity.clamp(0.0, 1.0)).round() as u8;
                }
                Some(rgba)
            }
            _ => None,
        },
        _ => None,
    })?;
    let opacity = opacity_up(&compiled.scene, key);
    color[3] = (f64::from(color[3]) * opacity).round() as u8;
    if color[3] == 0 {
        return None;
    }
    let size = number(&node.props, &Key::FontSize).unwrap_or(14.0);
    let bold = match node.props.get(&Key::FontWeight) {
        Some(Value::FontWeight(VarOr::Value(weight))) => weight.weight() >= 700,
        _ => false,
    };
    Some(Text { key, color, size, large: size >= LARGE_PX || (bold && size >= LARGE_BOLD_PX) })
}

/// True when the node and every ancestor are enabled.
fn visible_up(scene: &Scene, key: SceneKey) -> bool {
    std::iter::successors(Some(key), |k| scene.parent(*k)).all(|k| scene.node(k).is_enabled())
}

/// The product of the opacities of the node and its ancestors.
fn opacity_up(scene: &Scene, key: SceneKey) -> f64 {
    std::iter::successors(Some(key), |k| scene.parent(*k))
        .map(|k| number(&scene.node(k).props, &Key::Opacity).unwrap_or(1.0).clamp(0.0, 1.0))
        .product()
}

fn root_of(scene: &Scene, key: SceneKey) -> SceneKey {
    std::iter::successors(Some(key), |k| scene.parent(*k)).last().unwrap_or(key)
}

/// The document compiled with every text transparent: what is painted beneath the texts.
/// Opacity leaves the layout as it is.
fn without_texts<'h>(host: &'h dyn Host, document: &Document) -> Option<Compiled<'h>> {
    let mut copy = document.clone();
    let texts: Vec<_> = copy.tree().walk().filter(|k| copy.tree().node(*k).node_type() == NodeType::Text).collect();
    let mut tx = copy.transaction();
    for key in texts {
        tx.set(key, Key::Opacity, Some(Value::Number(VarOr::Value(0.0))));
    }
    tx.commit();
    Compiler::new(host).compile_owned(copy, &CompileOptions::default()).ok()
}

/// The text colour nearest to `color` that reaches `needed` on `below`: moved towards black or
/// white, whichever contrasts more with the background, in steps of 5 %.
fn suggestion(color: [u8; 4], below: [u8; 4], needed: f64) -> Option<String> {
    let toward = if contrast([0, 0, 0, 255], below) >= contrast([255, 255, 255, 255], below) { 0.0 } else { 255.0 };
    (1..=20).find_map(|step| {
        let t = f64::from(step) * 0.05;
        let mix = |c: u8| (f64::from(c) * (1.0 - t) + toward * t).round() as u8;
        let candidate = [mix(color[0]), mix(color[1]), mix(color[2]), 255];
        (contrast(candidate, below) >= needed).then(|| hex(candidate))
    })
}
