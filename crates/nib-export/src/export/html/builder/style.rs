//! How each element looks: opacity, transforms and blurs; a box's fills as backgrounds, its
//! radii, clipping, shadows and stroke; a text's font, size, spacing and lines; a drawing's
//! colour following its variable. The builder's other half, apart from where elements go.

use base64::Engine as _;

use super::{Builder, color_property};
use crate::diagnostic::Diagnostic;
use crate::display::intent::{BoxIntent, TextIntent};
use crate::display::node_transform;
use crate::display::paint::{PaintSpec, any_visible, css_blend_mode, paint_specs};
use crate::display::stroke::Align;
use crate::doc::NodeType;
use crate::doc::values::{TextAlign, TextAlignVertical, TextGrowth};
use crate::export::html::css::{browser_url, px, variable_pixels};
use crate::export::html::font_face::faces_of;
use crate::export::html::paint::{box_shadow, css_color, css_gradient, image_size, radius};
use crate::export::html::tree::{self, Rules};
use crate::export::svg::number;
use crate::layout::NodeBox;
use crate::resolve::SceneKey;

impl Builder<'_, '_, '_, '_> {
    /// A drawing whose colour a variable gives (an icon's fill, a line's stroke) painted in
    /// `currentColor`, its element's `color` being the variable: the drawing follows the theme.
    pub(super) fn current_color(
        &self,
        rules: &mut Rules,
        intent: &BoxIntent,
        node_box: NodeBox,
        markup: String,
    ) -> String {
        let one_color = |fills: &[crate::doc::values::Fill]| {
            let specs = paint_specs(fills, node_box.width, node_box.height, &mut Vec::new());
            match specs.as_slice() {
                [PaintSpec::Solid { color, blend }] if css_blend_mode(*blend).is_none() => Some(*color),
                _ => None,
            }
        };
        let stroke_fills = intent.stroke.as_ref().map(|s| s.fills.as_slice()).unwrap_or_default();
        let (attribute, variable, color) = match (&intent.variables.fill, &intent.variables.stroke) {
            (Some(variable), _) => ("fill", Some(variable), one_color(&intent.fills)),
            (None, Some(variable)) => ("stroke", Some(variable), one_color(stroke_fills)),
            // An icon in one colour is drawn in its element's colour too, so whoever uses it
            // can colour it (`text-…`).
            (None, None) if intent.node_type == NodeType::IconFont => ("fill", None, one_color(&intent.fills)),
            (None, None) => return markup,
        };
        let Some(color) = color else { return markup };
        let (hex, opacity) = crate::export::svg::svg_color(color);
        if opacity.is_some() {
            // The variable's own alpha would be applied twice.
            return markup;
        }
        match variable {
            Some(variable) => {
                let Some(property) = color_property(Some(variable), &self.pages.tokens) else { return markup };
                rules.set("color", format!("var({property})"));
            }
            None => rules.set("color", hex.clone()),
        }
        let markup = markup.replace(&format!("{attribute}=\"{hex}\""), &format!("{attribute}=\"currentColor\""));
        // An icon draws its lines in its fill's colour too.
        if intent.node_type == NodeType::IconFont {
            return markup.replace(&format!("stroke=\"{hex}\""), "stroke=\"currentColor\"");
        }
        markup
    }

    /// Opacity, rotation and flips, layer and background blur.
    pub(super) fn common(&mut self, rules: &mut Rules, intent: &BoxIntent, node_box: NodeBox, origin: (f32, f32)) {
        if intent.opacity < 1.0 {
            rules.set("opacity", number(intent.opacity));
        }
        let local = node_transform(node_box, tiny_skia::Transform::identity(), origin);
        if !local.is_identity() {
            rules.set(
                "transform",
                format!(
                    "matrix({}, {}, {}, {}, {}, {})",
                    number(local.sx),
                    number(local.ky),
                    number(local.kx),
                    number(local.sy),
                    number(local.tx),
                    number(local.ty)
                ),
            );
            rules.set("transform-origin", "0 0");
        }
        let effects = &intent.effects;
        if effects.layer_blur > 0.0 {
            rules.set("filter", format!("blur({}px)", number(effects.layer_blur / 2.0)));
        }
        if effects.background_blur > 0.0 {
            rules.set("backdrop-filter", format!("blur({}px)", number(effects.background_blur / 2.0)));
        }
    }

    /// Fills, radii, clipping, shadows and stroke of a frame, rectangle or ellipse.
    pub(super) fn box_style(&mut self, rules: &mut Rules, intent: &BoxIntent, node_box: NodeBox, id: &str) {
        let Some(shape) = &intent.shape else { return };
        let node_fills = intent.fills.as_slice();
        let mut issues = Vec::new();
        let specs = paint_specs(node_fills, node_box.width, node_box.height, &mut issues);
        self.warnings.extend(issues.iter().map(|i| i.warning(id)));
        let variable = color_property(intent.variables.fill.as_deref(), &self.pages.tokens);
        self.background(rules, &specs, variable, node_box, id);
        if shape.oval {
            rules.set("border-radius", "50%");
        } else if let Some(radii) = shape.radii {
            let uniform_variable = intent
                .variables
                .corner_radius
                .as_deref()
                .and_then(|name| self.pages.tokens.property(name).map(str::to_owned));
            match (uniform_variable, radius(radii)) {
                (Some(property), Some(_)) if radii.iter().all(|r| *r == radii[0]) => {
                    rules.set("border-radius", variable_pixels(&property))
                }
                (_, Some(value)) => rules.set("border-radius", value),
                _ => {}
            }
        }
        if intent.clip {
            rules.set("overflow", "hidden");
        }
        let effects = &intent.effects;
        let visible = any_visible(node_fills);
        // Each shadow's colour is its variable where it has one (the list as written is in the
        // same order as the drawn shadows; when they disagree, the values are written).
        let colors = &intent.variables.shadow_colors;
        let color_of = |i: usize| if colors.len() == effects.shadows.len() { colors[i].as_deref() } else { None };
        let shadows: Vec<String> = effects
            .shadows
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, s)| s.inner || visible)
            .map(|(i, shadow)| box_shadow(shadow, &self.color(color_of(i), shadow.color)))
            .collect();
        if !shadows.is_empty() {
            rules.set("box-shadow", shadows.join(", "));
        }
        self.stroke(rules, intent, node_box, shape.oval, shape.radii, id);
    }

    /// The fills as `background`: the first fill is the bottom layer in nib, the last in CSS.
    fn background(
        &mut self,
        rules: &mut Rules,
        specs: &[PaintSpec],
        variable: Option<String>,
        node_box: NodeBox,
        id: &str,
    ) {
        if let ([PaintSpec::Solid { color, blend }], variable) = (specs, &variable) {
            match variable {
                Some(property) => rules.set("background-color", format!("var({property})")),
                None => rules.set("background-color", css_color(*color)),
            }
            if let Some(mode) = css_blend_mode(*blend) {
                rules.set("mix-blend-mode", mode);
            }
            return;
        }
        let mut layers = Vec::new();
        let mut sizes = Vec::new();
        let mut blends = Vec::new();
        // The first layer's image file and what follows it in its layer, when it is one.
        let mut first_image: Option<(String, String)> = None;
        for spec in specs.iter().rev() {
            let mut image_layer = |href: &str, rest: String| {
                if layers.is_empty() && !href.starts_with("data:") {
                    first_image = Some((href.to_owned(), rest.clone()));
                }
                format!("url(\"{}\") {rest}", crate::export::tokens::css_string(href))
            };
            let (layer, size, blend) = match spec {
                PaintSpec::Solid { color, blend } => {
                    let color = css_color(*color);
                    (format!("linear-gradient({color}, {color})"), "auto".to_owned(), *blend)
                }
                PaintSpec::Gradient { gradient, blend } => {
                    let Some(css) = css_gradient(gradient, node_box.width, node_box.height) else { continue };
                    (css, "auto".to_owned(), *blend)
                }
                PaintSpec::Image { url, mode, crop: None, blend, .. } => {
                    let Some(href) = self.image_href(url, id) else { continue };
                    (image_layer(&href, format!("center / {} no-repeat", image_size(*mode))), String::new(), *blend)
                }
                PaintSpec::Image { url, mode, crop: Some(crop), blend, .. } => {
                    let Some(placement) = self.cropped_placement(url, *mode, *crop, node_box) else { continue };
                    let Some(href) = self.image_href(url, id) else { continue };
                    let t = placement.transform;
                    if t.kx != 0.0 || t.ky != 0.0 {
                        self.warnings.insert(
                            Diagnostic::note(
                                "export",
                                "a turned or skewed image crop has no CSS equivalent: the image is drawn uncropped",
                            )
                            .at_node(id),
                        );
                        (image_layer(&href, format!("center / {} no-repeat", image_size(*mode))), String::new(), *blend)
                    } else {
                        let (width, height) = self.image_size_of(url).unwrap_or((1.0, 1.0));
                        let place = format!(
                            "{}px {}px / {}px {}px no-repeat",
                            number(t.tx),
                            number(t.ty),
                            number(width * t.sx),
                            number(height * t.sy)
                        );
                        (image_layer(&href, place), String::new(), *blend)
                    }
                }
                PaintSpec::Mesh { mesh, blend } => {
                    let Some(raster) = mesh.rasterize(node_box.width, node_box.height) else { continue };
                    let png = base64::engine::general_purpose::STANDARD.encode(crate::render::encode_png(&raster));
                    (format!("url(\"data:image/png;base64,{png}\") 0 0 / 100% 100% no-repeat"), String::new(), *blend)
                }
            };
            layers.push(layer);
            sizes.push(size);
            blends.push(css_blend_mode(blend).unwrap_or("normal"));
        }
        if layers.is_empty() {
            return;
        }
        // The first layer's image, when no later layer names a file too.
        if let Some((href, rest)) = first_image
            && !layers[1..].iter().any(|layer| layer.contains("url("))
        {
            let rest = layers[1..].iter().fold(rest, |rest, layer| format!("{rest}, {layer}"));
            rules.image = Some(tree::ImageLayer { href, rest: rest.trim().to_owned() });
        }
        rules.set("background", layers.join(", "));
        if blends.iter().any(|b| *b != "normal") {
            rules.set("background-blend-mode", blends.join(", "));
        }
    }

    /// Where a cropped image goes in `node_box`, as the painter places it; `None` when the image
    /// cannot be read (the warning is given where its URL is made).
    fn cropped_placement(
        &mut self,
        url: &str,
        mode: crate::doc::values::ImageMode,
        crop: [f32; 6],
        node_box: NodeBox,
    ) -> Option<crate::display::paint::ImagePlacement> {
        let (width, height) = self.image_size_of(url)?;
        Some(crate::display::paint::image_placement(mode, Some(crop), width, height, node_box.width, node_box.height))
    }

    /// The pixel size of the decoded image `url` names.
    fn image_size_of(&mut self, url: &str) -> Option<(f32, f32)> {
        self.images.picture(url).ok().map(|image| (image.width() as f32, image.height() as f32))
    }

    /// The URL a page uses for an image fill: a copied file, a data URI when embedding, or the
    /// network address as written.
    fn image_href(&mut self, url: &str, id: &str) -> Option<String> {
        if url.starts_with("http://") || url.starts_with("https://") {
            return Some(browser_url(url));
        }
        match self.images.encoded(url) {
            Ok((bytes, mime)) => {
                if self.pages.options.embed {
                    return Some(format!(
                        "data:{mime};base64,{}",
                        base64::engine::general_purpose::STANDARD.encode(bytes)
                    ));
                }
                let extension = if mime == "image/jpeg" { "jpg" } else { "png" };
                let stem = url.rsplit(['/', '\\']).next().unwrap_or(url);
                let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
                let hash = crate::hash::fnv1a(url.as_bytes()) & 0xFFFF;
                let name = format!("{}-{hash:04x}.{extension}", crate::compile::frames::safe_name(stem));
                self.images_used.push((url.to_owned(), name.clone(), bytes));
                Some(format!("images/{name}"))
            }
            Err(error) => {
                self.warnings.insert(Diagnostic::warning("image", error.to_string()).at_node(id));
                None
            }
        }
    }

    /// The stroke: an outline when it is even and one color (it follows the radius and takes
    /// no room), otherwise a border on a pseudo-element laid over the box.
    fn stroke(
        &mut self,
        rules: &mut Rules,
        intent: &BoxIntent,
        node_box: NodeBox,
        oval: bool,
        radii: Option<[f32; 4]>,
        id: &str,
    ) {
        let (Some(spec), variable) = (intent.stroke.as_ref(), intent.variables.stroke.as_deref()) else { return };
        let mut issues = Vec::new();
        let specs = paint_specs(&spec.fills, node_box.width, node_box.height, &mut issues);
        self.warnings.extend(issues.iter().map(|i| i.warning(id)));
        let Some(color) = specs.iter().rev().find_map(|spec| match spec {
            PaintSpec::Solid { color, .. } => Some(*color),
            PaintSpec::Gradient { gradient, .. } => Some(crate::export::wedges::color_at(&gradient.stops, 0.5)),
            PaintSpec::Image { .. } | PaintSpec::Mesh { .. } => None,
        }) else {
            return;
        };
        if specs.iter().any(|s| !matches!(s, PaintSpec::Solid { .. })) {
            self.warnings.insert(
                Diagnostic::note("export", "a gradient or image stroke is written as its middle color in CSS")
                    .at_node(id),
            );
        }
        // One colour a variable gives is that variable (a gradient's middle colour is not).
        let variable = if specs.len() == 1 && matches!(specs[0], PaintSpec::Solid { .. }) { variable } else { None };
        let color = self.color(variable, color);
        let style = if spec.dash.is_some() { "dashed" } else { "solid" };
        let uniform = spec.widths.iter().all(|w| *w == spec.widths[0]);
        if uniform {
            let width = spec.widths[0];
            rules.set("outline", format!("{} {style} {color}", px(width)));
            let offset = match spec.align {
                Align::Inside => -width,
                Align::Center => -width / 2.0,
                Align::Outside => 0.0,
            };
            if offset != 0.0 {
                rules.set("outline-offset", px(offset));
            }
            return;
        }
        let [top, right, bottom, left] = spec.widths;
        let grow = |w: f32| match spec.align {
            Align::Inside => 0.0,
            Align::Center => w / 2.0,
            Align::Outside => w,
        };
        rules.stroke.push(("content", "\"\"".to_owned()));
        rules.stroke.push(("position", "absolute".to_owned()));
        rules.stroke.push((
            "inset",
            format!("{} {} {} {}", px(-grow(top)), px(-grow(right)), px(-grow(bottom)), px(-grow(left))),
        ));
        rules.stroke.push(("border-width", format!("{} {} {} {}", px(top), px(right), px(bottom), px(left))));
        rules.stroke.push(("border-style", style.to_owned()));
        rules.stroke.push(("border-color", color));
        rules.stroke.push(("pointer-events", "none".to_owned()));
        if oval {
            rules.stroke.push(("border-radius", "50%".to_owned()));
        } else if let Some(radii) = radii {
            let grown = [
                radii[0] + grow(top.max(left)),
                radii[1] + grow(top.max(right)),
                radii[2] + grow(bottom.max(right)),
                radii[3] + grow(bottom.max(left)),
            ];
            let grown = std::array::from_fn(|i| if radii[i] > 0.0 { grown[i] } else { 0.0 });
            if let Some(value) = radius(grown) {
                rules.stroke.push(("border-radius", value));
            }
        }
    }

    /// Font, size, weight, spacing, line height, alignment and color of a text.
    pub(super) fn text_style(&mut self, rules: &mut Rules, key: SceneKey, intent: &BoxIntent, text: &TextIntent) {
        let style = &text.style;
        let shaped = self.pages.source.layout.shaped_text(key).cloned();
        let used = shaped.as_ref().map_or_else(|| style.family.clone(), |s| s.family.clone());
        let mut families = vec![format!("\"{}\"", crate::export::tokens::css_string(&style.family))];
        if !used.eq_ignore_ascii_case(&style.family) {
            families.push(format!("\"{}\"", crate::export::tokens::css_string(&used)));
        }
        // Every face the glyphs are drawn with is shipped with the page, and the families nib
        // fell back to for characters the family lacks (CJK, symbols) are named after it in the
        // order the text first uses them: without them the browser draws those characters with
        // whatever its machine has, or not at all.
        let faces = shaped.as_ref().map(|shaped| faces_of(shaped)).unwrap_or_default();
        for &face in &faces {
            self.faces.insert(face);
            let Some(family) = self.text.font_of(face).map(|font| font.family) else { continue };
            let named = format!("\"{}\"", crate::export::tokens::css_string(&family));
            if !families.iter().any(|known| known.eq_ignore_ascii_case(&named)) {
                families.push(named);
            }
        }
        families.push(if used == crate::text::fonts::MONOSPACE_FAMILY { "monospace" } else { "sans-serif" }.to_owned());
        rules.set("font-family", families.join(", "));
        let size_variable =
            intent.variables.font_size.as_deref().and_then(|name| self.pages.tokens.property(name).map(str::to_owned));
        match size_variable {
            Some(property) => rules.set("font-size", variable_pixels(&property)),
            None => rules.set("font-size", px(style.size)),
        }
        if style.weight != 400 {
            rules.set("font-weight", style.weight.to_string());
        }
        if text.italic {
            rules.set("font-style", "italic");
        }
        if style.letter_spacing != 0.0 {
            rules.set("letter-spacing", px(style.letter_spacing));
        }
        if let Some(shaped) = &shaped {
            rules.set("line-height", px(shaped.line_height));
            if shaped.browser_shift.abs() >= 0.01 {
                rules.lines.push(("position", "relative".into()));
                rules.lines.push(("top", px(shaped.browser_shift)));
            }
            if shaped.lines.len() == 1 && shaped.lines[0].glyph_count() == 0 {
                rules.set("min-height", px(shaped.line_height));
            } else if shaped.height() > shaped.line_height * shaped.lines.len() as f32 + 0.01 {
                // A fallback face grew a line of normal height (nib builds lines from every face
                // on them, as the browser does). The page's lines keep the text's own height in
                // px (its font list does not name nib's fallback faces): the box keeps nib's.
                rules.set("min-height", px(shaped.height()));
            }
        }
        match style.align {
            TextAlign::Left => {}
            TextAlign::Center => rules.set("text-align", "center"),
            TextAlign::Right => rules.set("text-align", "right"),
            TextAlign::Justify => rules.set("text-align", "justify"),
        }
        let growth = text.growth;
        if growth == TextGrowth::Auto {
            // A browser measures the same glyphs a fraction of a pixel narrower than nib's
            // rounded-up width; along a row those fractions add up and move the siblings.
            let width = self.pages.source.layout.node_box(key).unwrap_or_default().width;
            rules.set("min-width", px(width));
        } else {
            rules.set("white-space", "pre-wrap");
            rules.set("overflow-wrap", "break-word");
        }
        if growth == TextGrowth::FixedWidthHeight && style.vertical_align != TextAlignVertical::Top {
            rules.set("display", "flex");
            rules.set("flex-direction", "column");
            rules.set(
                "justify-content",
                if style.vertical_align == TextAlignVertical::Middle { "center" } else { "flex-end" },
            );
        }
        let decorations: Vec<&str> = [(text.underline, "underline"), (text.strikethrough, "line-through")]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, name)| name)
            .collect();
        if !decorations.is_empty() {
            rules.set("text-decoration", decorations.join(" "));
        }
        let mut issues = Vec::new();
        let node_box = self.pages.source.layout.node_box(key).unwrap_or_default();
        let specs = paint_specs(&intent.fills, node_box.width, node_box.height, &mut issues);
        let id = &self.pages.source.scene.node(key).id;
        self.warnings.extend(issues.iter().map(|i| i.warning(id)));
        let variable = color_property(intent.variables.fill.as_deref(), &self.pages.tokens);
        match (specs.as_slice(), variable) {
            ([PaintSpec::Solid { .. }], Some(property)) => rules.set("color", format!("var({property})")),
            ([PaintSpec::Solid { color, .. }], None) => rules.set("color", css_color(*color)),
            ([], _) => rules.set("color", "transparent"),
            (specs, _) => {
                // Gradients and images paint the glyphs through a clipped background.
                let mut layer = Rules::default();
                self.background(&mut layer, specs, None, node_box, id);
                for (property, value) in layer.main {
                    rules.set(property, value);
                }
                rules.set("-webkit-background-clip", "text");
                rules.set("background-clip", "text");
                rules.set("color", "transparent");
            }
        }
    }
}
