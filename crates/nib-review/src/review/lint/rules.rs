//! The rules that read the laid-out Scene: sizes, scales, overlaps and fills.

use crate::diagnostic::{Diagnostic, Severity};
use crate::doc::values::{Fill, Sizing};
use crate::doc::{Document, Key, NodeType, Value, VarOr};
use crate::layout::{Layout, NodeBox};
use crate::resolve::{Scene, SceneKey};

/// What the rules read.
pub(super) struct Input<'a> {
    pub scene: &'a Scene,
    pub layout: &'a Layout,
}

/// One finding before it has a level: the node, what was measured, what to do.
pub(super) struct Finding {
    pub node: SceneKey,
    pub message: String,
    pub hint: String,
}

impl Finding {
    pub(super) fn into_diagnostic(
        self,
        severity: Severity,
        rule: &'static str,
        document: &Document,
        scene: &Scene,
    ) -> Diagnostic {
        let node = scene.node(self.node);
        let mut diagnostic = Diagnostic::new(severity, rule, self.message).at_node(&node.id).with_hint(self.hint);
        if let Some(source) = node.source {
            diagnostic = diagnostic.at_pointer(document.tree().pointer(source));
        }
        diagnostic
    }
}

/// A number property, as resolved.
pub(super) fn number(props: &crate::doc::Props, key: &Key) -> Option<f64> {
    match props.get(key) {
        Some(Value::Number(VarOr::Value(n))) => Some(*n),
        _ => None,
    }
}

/// The nodes that are drawn: enabled, with a box, in document order.
pub(super) fn drawn<'a>(input: &'a Input) -> impl Iterator<Item = (SceneKey, NodeBox)> + 'a {
    input.scene.walk().filter_map(|key| {
        let node = input.scene.node(key);
        if !node.is_enabled() || number(&node.props, &Key::Opacity) == Some(0.0) {
            return None;
        }
        input.layout.bounds(key).map(|b| (key, b))
    })
}

fn is_text(input: &Input, key: SceneKey) -> bool {
    input.scene.node(key).node_type() == NodeType::Text
}

/// `12`, `12.5`: a measured number as people write it.
pub(super) fn px(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 { format!("{rounded:.0}") } else { format!("{rounded:.1}") }
}

/// The smallest text that reads on every screen.
pub(crate) const MIN_TEXT_PX: f64 = 12.0;

pub(super) fn small_text(input: &Input) -> Vec<Finding> {
    drawn(input)
        .filter(|(key, _)| is_text(input, *key))
        .filter_map(|(key, _)| {
            let size = number(&input.scene.node(key).props, &Key::FontSize)?;
            (size < MIN_TEXT_PX).then(|| Finding {
                node: key,
                message: format!(
                    "text is {} px; below {} px it is hard to read on any screen",
                    px(size),
                    px(MIN_TEXT_PX)
                ),
                hint: format!("set fontSize to {} or more", px(MIN_TEXT_PX)),
            })
        })
        .collect()
}

/// The smallest comfortable touch target (Apple's and WCAG 2.5.5's figure), and the widest
/// screen it is checked on.
pub(crate) const MIN_TARGET_PX: f32 = 44.0;
/// Screens up to this width are touch screens for the rule.
pub(crate) const TOUCH_SCREEN_MAX_WIDTH: f32 = 480.0;

/// Names people give controls.
fn looks_like_a_control(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|word| {
        matches!(
            word,
            "button"
                | "btn"
                | "cta"
                | "tab"
                | "toggle"
                | "switch"
                | "checkbox"
                | "radio"
                | "chip"
                | "link"
                | "close"
                | "back"
        )
    })
}

pub(super) fn touch_targets(input: &Input) -> Vec<Finding> {
    let mut found = Vec::new();
    for root in input.scene.roots() {
        let Some(screen) = input.layout.bounds(root) else { continue };
        if screen.width > TOUCH_SCREEN_MAX_WIDTH || input.scene.node(root).node_type() != NodeType::Frame {
            continue;
        }
        let mut inside_control: Vec<SceneKey> = Vec::new();
        for key in input.scene.subtree(root).skip(1) {
            if inside_control
                .iter()
                .any(|c| input.scene.parent(key).is_some_and(|p| p == *c || inside_control.contains(&p)))
            {
                inside_control.push(key);
                continue;
            }
            let node = input.scene.node(key);
            if !node.is_enabled() || !node.props.name().is_some_and(looks_like_a_control) {
                continue;
            }
            let Some(b) = input.layout.bounds(key) else { continue };
            inside_control.push(key);
            if b.width < MIN_TARGET_PX || b.height < MIN_TARGET_PX {
                found.push(Finding {
                    node: key,
                    message: format!(
                        "a control of {} × {} on a screen {} px wide; a finger needs {} × {}",
                        px(b.width.into()),
                        px(b.height.into()),
                        px(screen.width.into()),
                        px(MIN_TARGET_PX.into()),
                        px(MIN_TARGET_PX.into())
                    ),
                    hint: format!(
                        "give it padding or a minimum size of {0} × {0} (the visible part may stay smaller inside it)",
                        px(MIN_TARGET_PX.into())
                    ),
                });
            }
        }
    }
    found
}

/// How many texts a document needs before its rarely used sizes say anything.
const SCALE_MIN_TEXTS: usize = 10;

pub(super) fn off_scale_font_sizes(input: &Input) -> Vec<Finding> {
    let texts: Vec<(SceneKey, f64)> = drawn(input)
        .filter(|(key, _)| is_text(input, *key))
        .filter_map(|(key, _)| number(&input.scene.node(key).props, &Key::FontSize).map(|size| (key, size)))
        .collect();
    if texts.len() < SCALE_MIN_TEXTS {
        return Vec::new();
    }
    let uses = |size: f64| texts.iter().filter(|(_, s)| *s == size).count();
    let mut scale: Vec<f64> = texts.iter().map(|(_, s)| *s).filter(|s| uses(*s) > 2).collect();
    scale.sort_by(f64::total_cmp);
    scale.dedup();
    if scale.is_empty() {
        return Vec::new();
    }
    let listed: Vec<String> = scale.iter().map(|s| px(*s)).collect();
    texts
        .iter()
        .filter(|(_, size)| uses(*size) <= 2)
        .map(|(key, size)| {
            let nearest =
                scale.iter().copied().min_by(|a, b| (a - size).abs().total_cmp(&(b - size).abs())).unwrap_or(*size);
            Finding {
                node: *key,
                message: format!(
                    "fontSize {} is used by {} of {} texts; the document's scale is {}",
                    px(*size),
                    uses(*size),
                    texts.len(),
                    listed.join(", ")
                ),
                hint: format!("use {} (the nearest size on the scale), or a $--text-* variable", px(nearest)),
            }
        })
        .collect()
}

/// The grid spacings sit on.
const GRID_PX: f64 = 4.0;

pub(super) fn off_scale_spacing(input: &Input) -> Vec<Finding> {
    let mut values: Vec<(SceneKey, &'static str, f64)> = Vec::new();
    for (key, _) in drawn(input) {
        let props = &input.scene.node(key).props;
        if let Some(gap) = number(props, &Key::Gap) {
            values.push((key, "gap", gap));
        }
        if let Some(Value::Padding(padding)) = props.get(&Key::Padding) {
            use crate::doc::values::Padding;
            let sides: Vec<f64> = match padding {
                Padding::Uniform(VarOr::Value(n)) => vec![*n],
                Padding::Axes(axes) => {
                    axes.iter().filter_map(|v| if let VarOr::Value(n) = v { Some(*n) } else { None }).collect()
                }
                Padding::Sides(sides) => {
                    sides.iter().filter_map(|v| if let VarOr::Value(n) = v { Some(*n) } else { None }).collect()
                }
                _ => Vec::new(),
            };
            let mut seen: Vec<f64> = Vec::new();
            for side in sides {
                if !seen.contains(&side) {
                    seen.push(side);
                    values.push((key, "padding", side));
                }
            }
        }
    }
    let uses = |value: f64| values.iter().filter(|(_, _, v)| *v == value).count();
    values
        .iter()
        .filter(|(_, _, value)| *value > 0.0 && value % GRID_PX != 0.0 && uses(*value) <= 2)
        .map(|(key, what, value)| {
            let below = (value / GRID_PX).floor() * GRID_PX;
            Finding {
                node: *key,
                message: format!(
                    "{what} {} is off the {}-px grid and used only {} time(s)",
                    px(*value),
                    px(GRID_PX),
                    uses(*value)
                ),
                hint: format!("use {} or {} (or a $--space-* variable)", px(below), px(below + GRID_PX)),
            }
        })
        .collect()
}

/// True when the node paints something over what is beneath it.
fn paints(input: &Input, key: SceneKey) -> bool {
    let node = input.scene.node(key);
    match node.node_type() {
        NodeType::Text | NodeType::IconFont | NodeType::Icon => true,
        NodeType::Group | NodeType::Ref | NodeType::Note | NodeType::Prompt | NodeType::Context => false,
        _ => fills_paint(&node.props),
    }
}

/// True when some fill of the node shows: enabled, not fully transparent.
fn fills_paint(props: &crate::doc::Props) -> bool {
    let Some(Value::Fills(fills)) = props.get(&Key::Fill) else { return false };
    fills.as_slice().iter().any(|fill| match fill {
        Fill::Solid(VarOr::Value(color)) => color.rgba()[3] > 0,
        Fill::Solid(VarOr::Var(_)) => true,
        Fill::Color(fill) => {
            let enabled = !matches!(fill.enabled, Some(VarOr::Value(false)));
            let opaque = !matches!(fill.opacity, Some(VarOr::Value(o)) if o <= 0.0);
            let colored = !matches!(&fill.color, Some(VarOr::Value(c)) if c.rgba()[3] == 0);
            enabled && opaque && colored && fill.color.is_some()
        }
        Fill::Gradient(g) => !matches!(g.enabled, Some(VarOr::Value(false))),
        Fill::Image(i) => !matches!(i.enabled, Some(VarOr::Value(false))),
        _ => true,
    })
}

/// Share of a text's box a layer may cover before the text counts as hidden.
const COVERED_SHARE: f32 = 0.5;

pub(super) fn covered_text(input: &Input) -> Vec<Finding> {
    let mut found = Vec::new();
    for root in input.scene.roots() {
        // Painting order within a frame is document order: later nodes paint over earlier ones.
        let order: Vec<(SceneKey, NodeBox)> = input
            .scene
            .subtree(root)
            .filter_map(|key| {
                let node = input.scene.node(key);
                (node.is_enabled() && number(&node.props, &Key::Opacity) != Some(0.0))
                    .then(|| input.layout.bounds(key).map(|b| (key, b)))
                    .flatten()
            })
            .collect();
        for (index, (text, text_box)) in order.iter().enumerate() {
            if !is_text(input, *text) || text_box.width * text_box.height <= 0.0 {
                continue;
            }
            let area = text_box.width * text_box.height;
            let inside = |key: SceneKey| input.scene.subtree(*text).any(|k| k == key);
            let cover = order[index + 1..]
                .iter()
                .filter(|(key, _)| !inside(*key) && paints(input, *key))
                .map(|(key, b)| (*key, overlap(text_box, b) / area))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((over, share)) = cover.filter(|(_, share)| *share > COVERED_SHARE) {
                let cover_node = input.scene.node(over);
                let name = cover_node.props.name().map_or(String::new(), |n| format!(" ({n})"));
                found.push(Finding {
                    node: *text,
                    message: format!(
                        "{}% of the text is under '{}'{name}, painted after it",
                        (share * 100.0).round(),
                        cover_node.id
                    ),
                    hint: "move one of them, or put the text after the covering layer".to_owned(),
                });
            }
        }
    }
    found
}

/// The area two boxes share.
fn overlap(a: &NodeBox, b: &NodeBox) -> f32 {
    let width = (a.left + a.width).min(b.left + b.width) - a.left.max(b.left);
    let height = (a.top + a.height).min(b.top + b.height) - a.top.max(b.top);
    width.max(0.0) * height.max(0.0)
}

/// Children placed absolutely inside a flex layout: code gets fixed offsets that do not follow
/// the content around them.
pub(super) fn absolute_in_flex(input: &Input) -> Vec<Finding> {
    use crate::doc::values::{Layout as FlexLayout, LayoutPosition};
    drawn(input)
        .filter_map(|(key, b)| {
            let props = &input.scene.node(key).props;
            let absolute = matches!(
                props.get(&Key::LayoutPosition),
                Some(Value::LayoutPosition(VarOr::Value(LayoutPosition::Absolute)))
            );
            let parent = input.scene.parent(key).filter(|_| absolute)?;
            let node = input.scene.node(parent);
            // Frames lay out horizontally unless told otherwise; groups only with a layout.
            let flex = match node.props.get(&Key::Layout) {
                Some(Value::Layout(VarOr::Value(layout))) => *layout != FlexLayout::None,
                _ => node.node_type() == NodeType::Frame,
            };
            flex.then(|| Finding {
                node: key,
                message: format!(
                    "placed absolutely at {}, {} inside the flex layout of '{}': code gets fixed offsets that do not follow the content",
                    px(b.x.into()),
                    px(b.y.into()),
                    node.props.name().unwrap_or(&node.id)
                ),
                hint: "put it in the flow (remove layoutPosition), or lay the flow and the overlay in a frame of their own with layout none".to_owned(),
            })
        })
        .collect()
}

pub(super) fn empty_fit_content(input: &Input) -> Vec<Finding> {
    drawn(input)
        .filter(|(key, _)| input.scene.node(*key).node_type() == NodeType::Frame)
        .filter_map(|(key, b)| {
            let props = &input.scene.node(key).props;
            let hugs = |k: &Key| matches!(props.get(k), Some(Value::Size(VarOr::Value(Sizing::FitContent(_)))));
            let hugging: Vec<&str> = [(Key::Width, "width"), (Key::Height, "height")]
                .iter()
                .filter(|(k, _)| hugs(k))
                .map(|(_, name)| *name)
                .collect();
            let empty = input.scene.children(key).all(|child| !input.scene.node(child).is_enabled());
            (!hugging.is_empty() && empty).then(|| Finding {
                node: key,
                message: format!(
                    "{} fit_content with nothing inside: it is {} × {}, its padding alone",
                    hugging.join(" and "),
                    px(b.width.into()),
                    px(b.height.into())
                ),
                hint: "give it content or a fixed size, or delete it".to_owned(),
            })
        })
        .collect()
}

pub(super) fn invisible_text_fills(input: &Input) -> Vec<Finding> {
    drawn(input)
        .filter(|(key, _)| is_text(input, *key))
        .filter_map(|(key, _)| {
            let props = &input.scene.node(key).props;
            let has_fill = props.contains(&Key::Fill);
            (!fills_paint(props)).then(|| Finding {
                node: key,
                message: if has_fill {
                    "the text's fills paint nothing (disabled, transparent or at opacity 0): it cannot be seen"
                        .to_owned()
                } else {
                    "the text has no fill: it cannot be seen".to_owned()
                },
                hint: "give it a visible fill, e.g. \"$--foreground\"".to_owned(),
            })
        })
        .collect()
}
