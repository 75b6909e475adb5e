//! Making one node's element tree: each laid-out node an element, placed where nib placed it
//! (in a flex flow, or absolutely) and sized as nib sized it, with the theme selections in
//! force; shapes CSS cannot draw are inline SVG. How each element looks is `style.rs`'s.

mod style;

use std::collections::BTreeSet;

use super::css::{px, variable_pixels};
use super::paint::css_color;
use super::tree::{Content, Element, Rules, Sizing, Tag};
use super::{FaceUse, HtmlPages};
use crate::diagnostic::Diagnostics;
use crate::display::RenderTarget;
use crate::display::intent::{BoxTree, Variables};
use crate::display::pictures::Pictures;
use crate::doc::NodeType;
use crate::export::svg::SvgOptions;
use crate::export::svg::walk::Writer;
use crate::export::tokens::{TokenSet, theme_attribute};
use crate::layout::rules::{AxisSize, Kind, Plan, plan_part};
use crate::layout::{Axis, NodeBox};
use crate::resolve::{Scene, SceneKey, ScenePart, ThemeContext};
use crate::text::TextEngine;

impl<'s, 'a> HtmlPages<'s, 'a> {
    /// The element tree of the node `key` (`None` when it is not laid out), the warnings of
    /// making it and the font faces it uses; its fonts and images are kept for the shared files.
    pub(super) fn tree(
        &self,
        text: &mut TextEngine,
        images: &mut dyn Pictures,
        key: SceneKey,
        svg_scope: &str,
    ) -> (Option<Element>, Diagnostics, BTreeSet<FaceUse>) {
        let scene = &self.source.scene;
        let part = &scene.parts()[key.part()];
        let (plans, _) = plan_part(part, text);
        let mut builder = Builder {
            pages: self,
            part,
            plans: &plans,
            text,
            images,
            faces: BTreeSet::new(),
            warnings: Diagnostics::new(),
            next_svg: 0,
            svg_scope,
            images_used: Vec::new(),
        };
        let context = theme_at(scene, &self.boxes, self.source.document(), key);
        let root = builder.element(key, None, &context, true);
        let Builder { faces, warnings, images_used, .. } = builder;
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        shared.faces.extend(faces.iter().cloned());
        for (url, name, bytes) in images_used {
            shared.images.entry(url).or_insert((name, bytes));
        }
        (root, warnings, faces)
    }
}

/// The theme selections in force at `key`: the document's defaults, then each ancestor's.
fn theme_at(scene: &Scene, boxes: &BoxTree, document: &crate::doc::Document, key: SceneKey) -> ThemeContext {
    let mut chain = vec![key];
    while let Some(parent) = scene.parent(*chain.last().unwrap_or(&key)) {
        chain.push(parent);
    }
    let mut context = ThemeContext::defaults(document);
    for key in chain.into_iter().rev().skip(1) {
        if let Some(selection) = boxes.get(key).and_then(|b| b.theme.as_ref()) {
            context = context.with(selection);
        }
    }
    context
}

/// Writes one page's elements and their CSS.
struct Builder<'p, 's, 'a, 't> {
    pages: &'p HtmlPages<'s, 'a>,
    part: &'p ScenePart,
    plans: &'p [Option<Plan<'p>>],
    text: &'t mut TextEngine,
    images: &'t mut dyn Pictures,
    faces: BTreeSet<FaceUse>,
    warnings: Diagnostics,
    next_svg: usize,
    /// Makes the ids of inline SVG definitions unique among trees shown together (React's
    /// components on one page): `s{scope}{n}-`.
    svg_scope: &'p str,
    /// Images this page references: URL, file name, bytes.
    images_used: Vec<(String, String, Vec<u8>)>,
}

impl Builder<'_, '_, '_, '_> {
    /// The element of `key` and its children's, under `parent`, with the themes in force there;
    /// `None` for a node that is not laid out (hidden).
    fn element(
        &mut self,
        key: SceneKey,
        parent: Option<SceneKey>,
        theme: &ThemeContext,
        root: bool,
    ) -> Option<Element> {
        let source = self.pages.source;
        let scene = &source.scene;
        let node_box = source.layout.node_box(key)?;
        let plan = self.plans.get(key.local()).and_then(Option::as_ref)?;
        let node = scene.node(key);
        let intent = self.pages.boxes.get(key)?;
        let node_type = intent.node_type;
        let parent_plan = parent.and_then(|p| self.plans.get(p.local()).and_then(Option::as_ref));
        let mut rules = Rules::default();
        let sizing = self.placement(&mut rules, key, parent_plan, node_box, root);
        rules.placed = rules.main.len();
        self.container(&mut rules, plan, &intent.variables);
        let theme_here = match &intent.theme {
            Some(selection) => theme.with(selection),
            None => theme.clone(),
        };
        let drawn_as_svg = match node_type {
            NodeType::Frame | NodeType::Rectangle | NodeType::Group | NodeType::Text => false,
            NodeType::Ellipse => intent.shape.as_ref().is_none_or(|s| !s.oval),
            _ => true,
        };
        // A turned child in a flex flow takes its turned bounds there (see `placement`): its
        // drawing starts that far from its slot.
        let in_flow = !root && matches!(parent_plan.map(|p| p.kind), Some(Kind::Flex(_))) && !plan.absolute;
        let offset = node_box.turned_offset();
        let origin = if in_flow { (-offset.x, -offset.y) } else { (0.0, 0.0) };
        self.common(&mut rules, intent, node_box, origin);
        let (tag, content) = if let Some(text) = &intent.text {
            self.text_style(&mut rules, key, intent, text);
            (Tag::P, Content::Text(text.content.clone()))
        } else if drawn_as_svg {
            let markup = self.inline_svg(key);
            let markup = self.current_color(&mut rules, intent, node_box, markup);
            (Tag::Svg, Content::Svg { width: node_box.width, height: node_box.height, markup })
        } else {
            self.box_style(&mut rules, intent, node_box, &node.id);
            (Tag::Div, Content::None)
        };
        let mut themes = Vec::new();
        if root || intent.theme.is_some() {
            for (axis, _) in &self.pages.tokens.axes {
                if let Some(value) = theme_here.value(axis) {
                    themes.push((theme_attribute(axis), value.to_owned()));
                }
            }
        }
        let mut children = Vec::new();
        if tag == Tag::Div {
            for child in scene.children(key) {
                children.extend(self.element(child, Some(key), &theme_here, false));
            }
        }
        let name = intent.name.clone().unwrap_or_else(|| node_type.as_str().to_owned());
        let instance = intent.instance_of.clone();
        let icon = intent.icon.clone().filter(|_| tag == Tag::Svg);
        Some(Element { id: node.id.clone(), name, tag, rules, themes, content, children, instance, sizing, icon })
    }

    /// Where the element goes and how big it is.
    fn placement(
        &self,
        rules: &mut Rules,
        key: SceneKey,
        parent: Option<&Plan<'_>>,
        node_box: NodeBox,
        root: bool,
    ) -> [Sizing; 2] {
        let mut sizing = [Sizing::Hug; 2];
        let Some(plan) = self.plans[key.local()].as_ref() else { return sizing };
        let mut in_flow_of = None;
        if root {
            rules.set("position", "absolute");
            rules.set("left", "0");
            rules.set("top", "0");
        } else {
            match parent.map(|p| p.kind) {
                Some(Kind::Flex(main)) if !plan.absolute => in_flow_of = Some((main, parent.map_or(0.0, |p| p.gap))),
                Some(Kind::Flex(_)) => {
                    rules.set("position", "absolute");
                    rules.set("left", px(plan.x));
                    rules.set("top", px(plan.y));
                }
                _ => {
                    rules.set("position", "absolute");
                    rules.set("left", px(node_box.x));
                    rules.set("top", px(node_box.y));
                }
            }
        }
        for (index, axis) in [Axis::Horizontal, Axis::Vertical].into_iter().enumerate() {
            let (property, computed) = match axis {
                Axis::Horizontal => ("width", node_box.width),
                Axis::Vertical => ("height", node_box.height),
            };
            sizing[index] = Sizing::Fixed;
            match plan.size(axis) {
                AxisSize::Fixed(n) => rules.set(property, px(n)),
                // A group is as big as its children, which CSS places out of flow.
                AxisSize::Hug if plan.kind == (Kind::Free { group: true }) => rules.set(property, px(computed)),
                AxisSize::Hug => sizing[index] = Sizing::Hug,
                AxisSize::Fill => match in_flow_of {
                    Some((main, _)) if main == axis => {
                        rules.set("flex", "1 0 0px");
                        let min = if axis == Axis::Horizontal { "min-width" } else { "min-height" };
                        rules.set(min, px(crate::layout::rules::MIN_FILL));
                        sizing[index] = Sizing::Fill;
                    }
                    Some(_) => {
                        rules.set("align-self", "stretch");
                        sizing[index] = Sizing::Fill;
                    }
                    None => rules.set(property, px(computed)),
                },
            }
        }
        // Pen lays a turned child out as its turned bounds: CSS transforms do not change the
        // flow, so its own size is set and margins make its slot as big as the bounds.
        if in_flow_of.is_some() && !node_box.turn.is_identity() {
            let bounds = node_box.turned_offset();
            rules.set("width", px(node_box.width));
            rules.set("height", px(node_box.height));
            rules.set("flex", "none");
            rules.set("align-self", "auto");
            rules.set("margin-right", px(bounds.width - node_box.width));
            rules.set("margin-bottom", px(bounds.height - node_box.height));
            sizing = [Sizing::Fixed; 2];
        }
        if let Some((main, gap)) = in_flow_of
            && gap < 0.0
            && !self.first_in_flow(key)
        {
            rules.set(if main == Axis::Horizontal { "margin-left" } else { "margin-top" }, px(gap));
        }
        sizing
    }

    /// True when `key` is the first in-flow child of its flex parent (a negative gap becomes
    /// a negative margin on the others).
    fn first_in_flow(&self, key: SceneKey) -> bool {
        let Some(parent) = self.part.node(key.local()).parent_local() else { return false };
        self.part
            .node(parent)
            .children_local()
            .find(|c| self.plans[*c].as_ref().is_some_and(|p| !p.absolute))
            .is_some_and(|first| first == key.local())
    }

    /// Flex container keys; a gap or padding a variable gives is that variable.
    fn container(&self, rules: &mut Rules, plan: &Plan<'_>, variables: &Variables) {
        let Kind::Flex(axis) = plan.kind else { return };
        rules.set("display", "flex");
        if axis == Axis::Vertical {
            rules.set("flex-direction", "column");
        }
        if plan.gap > 0.0 {
            rules.set("gap", self.length(variables.gap.as_deref(), plan.gap));
        }
        let [top, right, bottom, left] = plan.padding;
        if variables.padding.iter().any(Option::is_some) {
            let sides = ["padding-top", "padding-right", "padding-bottom", "padding-left"];
            for ((property, value), variable) in sides.into_iter().zip(plan.padding).zip(&variables.padding) {
                if value > 0.0 || variable.is_some() {
                    rules.set(property, self.length(variable.as_deref(), value));
                }
            }
        } else if plan.padding.iter().any(|p| *p > 0.0) {
            let value = if top == bottom && left == right && top == left {
                px(top)
            } else if top == bottom && left == right {
                format!("{} {}", px(top), px(left))
            } else {
                format!("{} {} {} {}", px(top), px(right), px(bottom), px(left))
            };
            rules.set("padding", value);
        }
        use crate::doc::values::{AlignItems, JustifyContent};
        match plan.justify {
            None | Some(JustifyContent::Start) => {}
            Some(JustifyContent::Center) => rules.set("justify-content", "center"),
            Some(JustifyContent::End) => rules.set("justify-content", "flex-end"),
            Some(JustifyContent::SpaceBetween) => rules.set("justify-content", "space-between"),
            Some(JustifyContent::SpaceAround) => rules.set("justify-content", "space-around"),
        }
        rules.set(
            "align-items",
            match plan.align {
                None | Some(AlignItems::Start) => "flex-start",
                Some(AlignItems::Center) => "center",
                Some(AlignItems::End) => "flex-end",
            },
        );
    }

    /// A length a variable may give: the number variable's custom property in pixels, or the
    /// value when there is none (or the theme set lacks it).
    fn length(&self, variable: Option<&str>, value: f32) -> String {
        match variable.and_then(|name| self.pages.tokens.property(name)) {
            Some(property) => variable_pixels(property),
            None => px(value),
        }
    }

    /// A colour a variable may give: `var(--…)`, or the value.
    fn color(&self, variable: Option<&str>, value: [u8; 4]) -> String {
        match color_property(variable, &self.pages.tokens) {
            Some(property) => format!("var({property})"),
            None => css_color(value),
        }
    }

    /// The node drawn by the SVG export, for shapes CSS has no primitive for.
    fn inline_svg(&mut self, key: SceneKey) -> String {
        self.next_svg += 1;
        let source = self.pages.source;
        let options = SvgOptions::default();
        let prefix = format!("s{}{}-", self.svg_scope, self.next_svg);
        let Ok(list) =
            crate::display::build(&source.scene, &source.layout, self.text, self.images, RenderTarget::Node(key))
        else {
            return String::new();
        };
        let Some(&root) = list.roots().first() else { return String::new() };
        let mut writer = Writer::new(&list, self.images, &options).with_id_prefix(&prefix);
        writer.content(root);
        let (defs, body, warnings) = writer.finish();
        self.warnings.extend(warnings);
        if defs.is_empty() { body } else { format!("<defs>{defs}</defs>{body}") }
    }
}

/// The custom property of the colour variable `name` (a node's only fill), when the token set
/// has it with a value.
fn color_property(name: Option<&str>, tokens: &TokenSet) -> Option<String> {
    let name = name?;
    let token = tokens.tokens.iter().find(|t| t.name == name)?;
    token.values.first()?.as_ref()?;
    Some(token.property.clone())
}
