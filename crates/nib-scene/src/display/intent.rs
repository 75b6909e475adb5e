//! The box tree beside the display list: what a code export (HTML, html-tailwind, React) writes
//! about a node that a picture does not keep — its name, the component it is an instance of,
//! the theme it sets, how its text grows, and the variables behind its values — with what it
//! looks like resolved as the display list resolves it (shape, fills, stroke, effects, text
//! style). Built once per export from the Scene, the same Scene resolved with its variables kept,
//! and the layout; the page builders read it and never a property.

use std::collections::HashMap;

use super::effects::{Effects, effects_of};
use super::fills;
use super::geometry::{Shape, shape_of};
use super::stroke::{StrokeSpec, stroke_spec};
use crate::doc::values::{CornerRadius, Effect, Fill, FontStyle, Padding, Stroke, TextGrowth, ThemeSelection};
use crate::doc::{Document, Key, NodeType, Props, Value, VarOr};
use crate::layout::Layout;
use crate::resolve::{Scene, SceneKey};
use crate::text::{TextStyle, text_content};

/// One node as a code export sees it.
#[derive(Debug, Clone)]
pub struct BoxIntent {
    /// Its type (an expanded instance has its component's).
    pub node_type: NodeType,
    /// The name its author gave it.
    pub name: Option<String>,
    /// The component it is an instance of, when the document wrote it as one (`ref`).
    pub instance_of: Option<String>,
    /// The theme it sets for itself and what is below it.
    pub theme: Option<ThemeSelection>,
    /// 0–1.
    pub opacity: f32,
    /// Shadows and blurs.
    pub effects: Effects,
    /// Its outline in its laid-out box, for the types that have one.
    pub shape: Option<Shape>,
    /// Its fills as written (resolved), in paint order.
    pub fills: Vec<Fill>,
    /// Its children are clipped to its outline.
    pub clip: bool,
    /// Its stroke.
    pub stroke: Option<StrokeSpec>,
    /// What a text node says and how.
    pub text: Option<TextIntent>,
    /// The icon an icon node draws, by its name in its set (`check`).
    pub icon: Option<String>,
    /// The variables behind its values.
    pub variables: Variables,
}

/// A text node's words and how they are set.
#[derive(Debug, Clone)]
pub struct TextIntent {
    /// Family, size, weight, spacing, alignment.
    pub style: TextStyle,
    /// The text.
    pub content: String,
    /// Set in italics.
    pub italic: bool,
    /// How its box grows with the text.
    pub growth: TextGrowth,
    /// Underlined.
    pub underline: bool,
    /// Struck through.
    pub strikethrough: bool,
}

/// The variables a node's values come from, by name, where a code export can name them instead
/// of writing the value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Variables {
    /// Its only fill, when it is one plain colour variable (no opacity, no blend mode).
    pub fill: Option<String>,
    /// Its corner radius, when one variable gives every corner.
    pub corner_radius: Option<String>,
    /// A text's font size.
    pub font_size: Option<String>,
    /// Its stroke's only paint, when it is one plain colour variable.
    pub stroke: Option<String>,
    /// The gap between its children.
    pub gap: Option<String>,
    /// Its padding's variables, top, right, bottom, left (a side given by a number has none).
    pub padding: [Option<String>; 4],
    /// The colour variable of each shadow it draws, in the order it lists them (`None` where a
    /// shadow's colour is a value).
    pub shadow_colors: Vec<Option<String>>,
}

/// Every laid-out node of a Scene as a code export sees it.
pub struct BoxTree {
    boxes: HashMap<SceneKey, BoxIntent>,
}

impl BoxTree {
    /// The boxes of `scene` laid out in `layout`; `raw` is the same document resolved with its
    /// variables kept (same node ids), `document` the one it was resolved from.
    pub fn build(scene: &Scene, raw: &Scene, layout: &Layout, document: &Document) -> BoxTree {
        let mut boxes = HashMap::new();
        for root in scene.roots() {
            for key in scene.subtree(root) {
                let Some(node_box) = layout.node_box(key) else { continue };
                let node = scene.node(key);
                let props = &node.props;
                let node_type = node.node_type();
                let written = raw
                    .parts()
                    .get(key.part())
                    .and_then(|part| part.index_of(&node.id).map(|index| &part.node(index).props));
                let instance_of = node.source.and_then(|source| {
                    let written = &document.tree().node(source).props;
                    (written.node_type() == Some(NodeType::Ref)).then(|| written.text(&Key::Ref).map(str::to_owned))?
                });
                let text = (node_type == NodeType::Text).then(|| TextIntent {
                    style: TextStyle::of(props),
                    content: text_content(props).into_owned(),
                    italic: props.literal::<FontStyle>(&Key::FontStyle) == Some(FontStyle::Italic),
                    growth: props.literal::<TextGrowth>(&Key::TextGrowth).unwrap_or(TextGrowth::Auto),
                    underline: props.literal::<bool>(&Key::Underline) == Some(true),
                    strikethrough: props.literal::<bool>(&Key::Strikethrough) == Some(true),
                });
                let intent = BoxIntent {
                    node_type,
                    name: props.name().map(str::to_owned),
                    instance_of,
                    theme: match props.get(&Key::Theme) {
                        Some(Value::Theme(selection)) => Some(selection.clone()),
                        _ => None,
                    },
                    opacity: props
                        .literal::<f64>(&Key::Opacity)
                        .filter(|o| o.is_finite())
                        .map_or(1.0, |o| o.clamp(0.0, 1.0) as f32),
                    effects: effects_of(props),
                    shape: shape_of(node_type, props, node_box.width, node_box.height),
                    fills: fills(props).to_vec(),
                    clip: props.literal::<bool>(&Key::Clip) == Some(true),
                    stroke: stroke_spec(props),
                    text,
                    icon: (node_type == NodeType::IconFont)
                        .then(|| {
                            props.literal::<String>(&Key::IconFontName).or_else(|| props.literal::<String>(&Key::Icon))
                        })
                        .flatten(),
                    variables: written.map(variables_of).unwrap_or_default(),
                };
                boxes.insert(key, intent);
            }
        }
        BoxTree { boxes }
    }

    /// The box of `key`; `None` for a node that is not laid out (hidden).
    pub fn get(&self, key: SceneKey) -> Option<&BoxIntent> {
        self.boxes.get(&key)
    }
}

/// The variables behind a node's values, read from its properties as written.
fn variables_of(written: &Props) -> Variables {
    let fill = match written.get(&Key::Fill) {
        Some(Value::Fills(list)) => only_color_variable(list.as_slice()),
        _ => None,
    };
    let stroke = match written.get(&Key::Stroke) {
        Some(Value::Stroke(Stroke::Paint(list))) => only_color_variable(list.as_slice()),
        Some(Value::Stroke(Stroke::Object(object))) => {
            object.fill.as_ref().and_then(|f| only_color_variable(f.as_slice()))
        }
        _ => None,
    };
    let corner_radius = match written.get(&Key::CornerRadius) {
        Some(Value::CornerRadius(CornerRadius::Uniform(VarOr::Var(var)))) => Some(var.name().to_owned()),
        _ => None,
    };
    let number_variable = |key: &Key| match written.get(key) {
        Some(Value::Number(VarOr::Var(var))) => Some(var.name().to_owned()),
        _ => None,
    };
    let name = |v: &VarOr<f64>| match v {
        VarOr::Var(var) => Some(var.name().to_owned()),
        VarOr::Value(_) => None,
    };
    let padding = match written.get(&Key::Padding) {
        Some(Value::Padding(Padding::Uniform(all))) => std::array::from_fn(|_| name(all)),
        Some(Value::Padding(Padding::Axes(axes))) => [name(&axes[0]), name(&axes[1]), name(&axes[0]), name(&axes[1])],
        Some(Value::Padding(Padding::Sides(sides))) => std::array::from_fn(|i| name(&sides[i])),
        _ => Default::default(),
    };
    // The shadows `effects_of` keeps, in the same order: the enabled ones.
    let shadow_colors = match written.get(&Key::Effect) {
        Some(Value::Effects(list)) => list
            .as_slice()
            .iter()
            .filter_map(|effect| match effect {
                Effect::Shadow(shadow) if !matches!(shadow.enabled, Some(VarOr::Value(false))) => {
                    Some(match &shadow.color {
                        Some(VarOr::Var(var)) => Some(var.name().to_owned()),
                        _ => None,
                    })
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Variables {
        fill,
        corner_radius,
        font_size: number_variable(&Key::FontSize),
        stroke,
        gap: number_variable(&Key::Gap),
        padding,
        shadow_colors,
    }
}

/// The colour variable of a paint list that is that one plain colour (no opacity, no blend
/// mode): what CSS can name as `var(--…)`.
fn only_color_variable(list: &[Fill]) -> Option<String> {
    match list {
        [Fill::Solid(VarOr::Var(var))] => Some(var.name().to_owned()),
        [Fill::Color(fill)] if fill.opacity.is_none() && fill.blend_mode.is_none() => match &fill.color {
            Some(VarOr::Var(var)) => Some(var.name().to_owned()),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::{NoImports, SceneOptions, build_scene};
    use crate::text::{FontBook, FontOptions, TextEngine};

    #[test]
    fn a_box_keeps_names_instances_themes_and_the_variables_behind_its_values() {
        let text = r##"{"version": "2.10",
            "themes": {"mode": ["light", "dark"]},
            "variables": {"brand": {"type": "color", "value": "#2563EB"}, "round": {"type": "number", "value": 8},
                          "body": {"type": "number", "value": 15}},
            "children": [
              {"type": "frame", "id": "card", "name": "Card", "reusable": true, "width": 100, "height": 40,
               "fill": "$brand", "cornerRadius": "$round", "theme": {"mode": "dark"}, "clip": true, "opacity": 0.5,
               "stroke": {"thickness": 1, "fill": "$brand"}, "layout": "vertical", "gap": "$round", "padding": ["$round", 4],
               "effect": [{"type": "shadow", "color": "#00000040", "blur": 4}, {"type": "shadow", "enabled": false, "color": "$brand"},
                          {"type": "shadow", "color": "$brand", "blur": 2}],
               "children": [{"type": "text", "id": "label", "content": "Buy", "fontSize": "$body",
                             "fontStyle": "italic", "underline": true, "textGrowth": "fixed-width", "width": 80}]},
              {"type": "ref", "id": "copy", "ref": "card", "x": 200}
            ]}"##;
        let document = Document::load(text).expect("valid").document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        let raw =
            build_scene(&document, &NoImports, SceneOptions { expand_instances: true, substitute_variables: false });
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let layout = Layout::compute(&scene, &mut engine);
        let boxes = BoxTree::build(&scene, &raw, &layout, &document);
        let card = boxes.get(scene.node_by_id("card").expect("card")).expect("laid out");
        assert_eq!(card.name.as_deref(), Some("Card"));
        assert!(card.theme.is_some() && card.clip && card.instance_of.is_none());
        assert_eq!(card.opacity, 0.5);
        assert_eq!(card.variables.fill.as_deref(), Some("brand"));
        assert_eq!(card.variables.corner_radius.as_deref(), Some("round"));
        let round = Some("round".to_owned());
        assert_eq!(card.variables.stroke.as_deref(), Some("brand"), "a stroke's colour variable");
        assert_eq!(
            (card.variables.gap.clone(), card.variables.padding.clone()),
            (round.clone(), [round.clone(), None, round, None])
        );
        assert_eq!(card.variables.shadow_colors, [None, Some("brand".to_owned())], "the enabled shadows, in order");
        assert!(
            card.shape.as_ref().is_some_and(|s| s.radii == Some([8.0; 4])),
            "the radius resolved: {:?}",
            card.shape
        );
        let label = boxes.get(scene.node_by_id("label").expect("label")).expect("laid out");
        let words = label.text.as_ref().expect("a text");
        assert_eq!((words.content.as_str(), words.italic, words.underline), ("Buy", true, true));
        assert_eq!(words.growth, TextGrowth::FixedWidth);
        assert_eq!(label.variables.font_size.as_deref(), Some("body"));
        assert_eq!(words.style.size, 15.0);
        let copy = boxes.get(scene.node_by_id("copy").expect("copy")).expect("laid out");
        assert_eq!(copy.instance_of.as_deref(), Some("card"), "an instance names its component");
        assert_eq!(copy.node_type, NodeType::Frame);
    }
}
