//! HTML/CSS export: a page per frame made of nested elements that lay out the way nib does —
//! flex containers with gap, padding and alignment, fixed, hugging and filling sizes with
//! their fallbacks, absolutely placed children — styled with CSS: fills, gradients, radii,
//! strokes, shadows, blurs and text styles, with the document's variables as custom properties
//! and each theme as an attribute selector (see [`super::tokens`]).
//!
//! Every element carries `data-pen-id` and a class named after its node (instances of one
//! component that look the same share it). Shapes CSS cannot draw (lines, paths, polygons,
//! arcs, icons, canvas notes) are inline SVG from the SVG export. Fonts are linked as files
//! beside the pages (`fonts/`), images copied (`images/`); `embed` puts both inside the page.
//!
//! Text is laid out by the browser with the same font files; where its measurements differ
//! from nib's by a fraction of a pixel, wrapping can differ at the margins.

mod paint;
mod react;
pub mod tailwind;
mod tree;

/// How the app's `main.tsx` starts (how an export knows the app in a folder as its own).
pub(crate) use react::APP_MAIN_START as REACT_APP_MAIN_START;
/// The packages and versions the React export's app pins.
pub use react::APP_PACKAGES;
/// The files that make a React export an app (`package.json`, `index.html`, `main.tsx`…).
pub(crate) use react::app_files as react_app;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;
use std::sync::Mutex;

use base64::Engine as _;

use super::ExportError;
use super::source::RunError;
use super::svg::walk::Writer;
use super::svg::{SvgOptions, escape, number};
use super::tokens::{TokenSet, theme_attribute};
use crate::compile::Compiled;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::display::intent::{BoxIntent, BoxTree, TextIntent, Variables};
use crate::display::paint::{PaintSpec, any_visible, css_blend_mode, paint_specs};
use crate::display::pictures::Pictures;
use crate::display::stroke::Align;
use crate::display::{RenderTarget, node_transform};
use crate::doc::NodeType;
use crate::doc::values::{TextAlign, TextAlignVertical, TextGrowth};
use crate::layout::rules::{AxisSize, Kind, Plan, plan_part};
use crate::layout::{Axis, NodeBox};
use crate::resolve::{Scene, SceneKey, ScenePart, ThemeContext};
use crate::text::{ShapedText, TextEngine};
use paint::{box_shadow, css_color, css_gradient, image_size, radius};
use tree::{Content, Element, Rules, Sizing, Tag};

/// How to write the pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct HtmlOptions {
    /// Fonts and images inside each page (data URIs) and styles inline: one self-contained
    /// file per page.
    pub embed: bool,
    /// Tailwind classes instead of a stylesheet of the page's own (Pen's `html-tailwind`).
    pub tailwind: Option<tailwind::TailwindOptions>,
    /// React components instead of pages (their shared files: `theme.css` apart).
    pub react: bool,
}

/// The styles every page starts with: the box model nib lays out with (sizes include
/// padding, items never shrink below their size, nothing has margins). Inside `:where()` they
/// weigh nothing, so every class rule of a node overrides them.
const BASE_CSS: &str = "body { margin: 0; }
:where([data-pen-id]) { box-sizing: border-box; position: relative; flex-shrink: 0; min-width: 0; min-height: 0; margin: 0; }
:where(svg[data-pen-id]) { display: block; overflow: visible; }
:where(p[data-pen-id]) { white-space: pre; }
";

/// A face a page's glyphs are drawn with: its entry in the compile's text engine (the layout
/// shaped every text with that engine, and the engines pages are drawn with on other threads are
/// its copies, so every page names the same entries).
type FaceUse = cosmic_text::fontdb::ID;

/// Pages of one document and the files they share.
pub(crate) struct HtmlPages<'s, 'a> {
    source: &'s Compiled<'a>,
    options: HtmlOptions,
    tokens: TokenSet,
    /// Every laid-out node as a code export sees it (names, instances, themes, the variables
    /// behind values), built once: the builder reads it, never a property.
    boxes: BoxTree,
    shared: Mutex<Shared>,
}

/// What pages collect for the shared files.
#[derive(Default)]
struct Shared {
    faces: BTreeSet<FaceUse>,
    /// Image file name by the URL that names it, with the bytes.
    images: BTreeMap<String, (String, Vec<u8>)>,
}

/// One page's files.
pub(crate) struct Page {
    /// The node it shows.
    pub id: String,
    /// `(name, bytes)`: the HTML, and its stylesheet unless embedded.
    pub files: Vec<(String, Vec<u8>)>,
    /// What could not be exported as written.
    pub warnings: Vec<Diagnostic>,
}

/// The shared files: tokens, fonts and images.
pub(crate) struct Assets {
    /// `(name, bytes)`.
    pub files: Vec<(String, Vec<u8>)>,
    /// What could not be written.
    pub warnings: Vec<Diagnostic>,
}

impl<'s, 'a> HtmlPages<'s, 'a> {
    /// Prepares the pages of `source`, compiled with its variables kept.
    pub fn new(source: &'s Compiled<'a>, options: &HtmlOptions) -> Result<HtmlPages<'s, 'a>, ExportError> {
        let raw = source.kept_variables().ok_or(ExportError::VariablesNotKept)?;
        let boxes = BoxTree::build(&source.scene, raw, &source.layout, source.document());
        Ok(HtmlPages {
            source,
            options: *options,
            tokens: TokenSet::of(source.document(), source.imports.as_ref()),
            boxes,
            shared: Mutex::new(Shared::default()),
        })
    }

    /// The element tree of the node `key` (`None` when it is not laid out), the warnings of
    /// making it and the font faces it uses; its fonts and images are kept for the shared files.
    fn tree(
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

    /// The React files of the components `components` (node keys) and the frames `screens`:
    /// trees made in parallel, then written together (see [`react`]).
    pub fn react(
        &self,
        host: &dyn crate::host::Host,
        text: &TextEngine,
        components: Vec<SceneKey>,
        screens: Vec<SceneKey>,
    ) -> (Vec<(String, Vec<u8>)>, Vec<Diagnostic>) {
        let scene = &self.source.scene;
        let keys: Vec<(usize, SceneKey)> = components.iter().chain(&screens).copied().enumerate().collect();
        let made = crate::compile::frames::map_with_engines(host, text, keys, &|text, images, (index, key)| {
            let scope = format!("{index}x");
            self.tree(text, images, key, &scope)
        });
        let mut warnings = Diagnostics::new();
        // Component and page names are file names too: unique without letter case.
        let mut taken = react::Names::new(true);
        let mut component_files = Vec::new();
        let mut screen_files = Vec::new();
        for (i, (root, said, _)) in made.into_iter().enumerate() {
            warnings.extend(said.into_vec());
            let Some(tree) = root else { continue };
            let key = if i < components.len() { components[i] } else { screens[i - components.len()] };
            let node = scene.node(key);
            let named = self.boxes.get(key).and_then(|b| b.name.as_deref());
            let base = react::identifier(named.unwrap_or(&node.id), true);
            let name = taken.unique(&base);
            if i < components.len() {
                component_files.push(react::Component { id: node.id.clone(), name, tree });
            } else {
                screen_files.push(react::Screen { name, tree });
            }
        }
        let axes: Vec<react::Axis> = self
            .tokens
            .axes
            .iter()
            .map(|(axis, values)| react::Axis {
                attribute: theme_attribute(axis),
                name: axis.clone(),
                values: values.clone(),
            })
            .collect();
        let ids = self.options.tailwind.is_some_and(|t| t.layer_ids);
        let (files, said) = react::write(&component_files, &screen_files, &axes, ids);
        warnings.extend(said);
        (files, warnings.into_vec())
    }

    /// The page of `key`, named `stem`.
    pub fn page(
        &self,
        text: &mut TextEngine,
        images: &mut dyn Pictures,
        key: SceneKey,
        stem: &str,
    ) -> Result<Page, RunError> {
        let scene = &self.source.scene;
        let (root, mut warnings, faces) = self.tree(text, images, key, "");
        let named = self.boxes.get(key).and_then(|b| b.name.as_deref());
        let title = named.unwrap_or(&scene.node(key).id).to_owned();
        if let Some(options) = self.options.tailwind {
            let mut writer = tailwind::TailwindWriter::new(options);
            if let Some(root) = &root {
                writer.write(root, true);
            }
            let html = if options.scaffold {
                format!(
                    "{}<!-- Tailwind makes {} from {}: npx @tailwindcss/cli -i {} -o {} -->\n<link rel=\"stylesheet\" href=\"{}\">\n</head>\n<body>\n{}\n</body>\n</html>\n",
                    page_head(&title),
                    tailwind::COMPILED_CSS,
                    tailwind::TAILWIND_INPUT,
                    tailwind::TAILWIND_INPUT,
                    tailwind::COMPILED_CSS,
                    tailwind::COMPILED_CSS,
                    writer.html
                )
            } else {
                format!("{}\n", writer.html)
            };
            let files = vec![(format!("{stem}.html"), html.into_bytes())];
            return Ok(Page { id: scene.node(key).id.clone(), files, warnings: warnings.into_vec() });
        }
        let mut writer = CssWriter::default();
        if let Some(root) = &root {
            writer.write(root);
        }
        let CssWriter { html: body, css: node_css, .. } = writer;
        let mut head = page_head(&title);
        let page_css = format!("{BASE_CSS}\n{node_css}");
        let mut files = Vec::new();
        if self.options.embed {
            let fonts = self.font_faces(&faces, text, true, &mut warnings);
            let _ = write!(head, "<style>\n{fonts}{}\n{page_css}</style>\n", self.tokens.css(":root"));
        } else {
            head.push_str(
                "<link rel=\"stylesheet\" href=\"fonts.css\">\n<link rel=\"stylesheet\" href=\"tokens.css\">\n",
            );
            let _ = writeln!(head, "<link rel=\"stylesheet\" href=\"{stem}.css\">");
            files.push((format!("{stem}.css"), page_css.into_bytes()));
        }
        let html = format!("{head}</head>\n<body>\n{body}\n</body>\n</html>\n");
        files.insert(0, (format!("{stem}.html"), html.into_bytes()));
        Ok(Page { id: scene.node(key).id.clone(), files, warnings: warnings.into_vec() })
    }

    /// The files the pages share: `tokens.css`, `fonts.css` with the font files, and the images.
    pub fn finish(self, text: &TextEngine) -> Assets {
        let shared = self.shared.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut warnings = Diagnostics::new();
        let mut files = Vec::new();
        if self.options.embed {
            return Assets { files, warnings: self.tokens.warnings.clone() };
        }
        let mut fonts_css = String::new();
        let mut font_files = Vec::new();
        for (name, bytes, rule) in faces_with_files(&shared.faces, text, &mut warnings) {
            fonts_css.push_str(&rule);
            font_files.push((format!("fonts/{name}"), bytes));
        }
        if self.options.react {
            // The variables per theme on their own, and Tailwind's input importing them.
            files.push(("theme.css".to_owned(), self.tokens.css(":root").into_bytes()));
            let input = format!(
                "@import \"tailwindcss\" source(\".\");\n@import \"./theme.css\";\n\n{}\n{fonts_css}",
                tailwind::base_css()
            );
            files.push((tailwind::TAILWIND_INPUT.to_owned(), input.into_bytes()));
            files.extend(font_files);
        } else if self.options.tailwind.is_some() {
            // Tailwind's input: its layers, where to find the classes (the pages beside it),
            // nib's base rules, the variables per theme and the fonts.
            let input = format!(
                "@import \"tailwindcss\" source(\".\");\n\n{}\n{}\n{fonts_css}",
                tailwind::base_css(),
                self.tokens.css(":root")
            );
            files.push((tailwind::TAILWIND_INPUT.to_owned(), input.into_bytes()));
            files.extend(font_files);
        } else {
            files.push(("tokens.css".to_owned(), self.tokens.css(":root").into_bytes()));
            files.extend(font_files);
            files.push(("fonts.css".to_owned(), fonts_css.into_bytes()));
        }
        for (name, bytes) in shared.images.into_values() {
            files.push((format!("images/{name}"), bytes));
        }
        warnings.extend(self.tokens.warnings.iter().cloned());
        Assets { files, warnings: warnings.into_vec() }
    }

    /// `@font-face` rules for `faces`, their fonts as data URIs when `embed`.
    fn font_faces(
        &self,
        faces: &BTreeSet<FaceUse>,
        text: &TextEngine,
        embed: bool,
        warnings: &mut Diagnostics,
    ) -> String {
        let mut css = String::new();
        for (name, bytes, rule) in faces_with_files(faces, text, warnings) {
            if embed {
                let mime = if name.ends_with(".otf") { "font/otf" } else { "font/ttf" };
                let data = format!("data:{mime};base64,{}", base64::engine::general_purpose::STANDARD.encode(&bytes));
                css.push_str(&rule.replace(&format!("url(\"fonts/{name}\")"), &format!("url(\"{data}\")")));
            } else {
                css.push_str(&rule);
            }
        }
        css
    }
}

/// The start of a page's document, up to the end of its title.
fn page_head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n",
        escape(title)
    )
}

/// The font files of `faces` (entries of `text`'s database) with their `@font-face` rules. A
/// family nib has in several files split by characters (the bundled CJK families) gets a rule
/// per file with its `unicode-range`, so the browser takes each character from the file nib
/// drew it with.
fn faces_with_files(
    faces: &BTreeSet<FaceUse>,
    text: &TextEngine,
    warnings: &mut Diagnostics,
) -> Vec<(String, Vec<u8>, String)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for &id in faces {
        let Some(face) = text.face_file(id) else {
            warnings.insert(Diagnostic::note("font-missing", "a face the texts were drawn with is not among the compile's fonts; the page names its family without a file"));
            continue;
        };
        let extension = if face.bytes.starts_with(b"OTTO") { "otf" } else { "ttf" };
        let name = format!("{}.{extension}", crate::compile::frames::safe_name(&face.name));
        let format = if extension == "otf" { "opentype" } else { "truetype" };
        let ranges = if face.ranges.is_empty() {
            String::new()
        } else {
            format!(" unicode-range: {};", unicode_range(face.ranges))
        };
        let rule = format!(
            "@font-face {{ font-family: \"{}\"; src: url(\"fonts/{name}\") format(\"{format}\"); font-weight: {}; font-style: {};{ranges} font-display: block; }}\n",
            super::tokens::css_string(&face.family),
            face.weight,
            if face.italic { "italic" } else { "normal" }
        );
        if seen.insert((name.clone(), face.weight, face.italic)) {
            out.push((name, face.bytes, rule));
        }
    }
    out
}

/// CSS's `unicode-range` of `ranges` (inclusive code point ranges): `U+4E00-4E3F, U+4E41`.
fn unicode_range(ranges: &[(u32, u32)]) -> String {
    let range = |&(start, end): &(u32, u32)| {
        if start == end { format!("U+{start:X}") } else { format!("U+{start:X}-{end:X}") }
    };
    ranges.iter().map(range).collect::<Vec<_>>().join(", ")
}

/// The faces `shaped` draws its glyphs with, in the order the text first uses them.
fn faces_of(shaped: &ShapedText) -> Vec<FaceUse> {
    let mut faces = Vec::new();
    for line in &shaped.lines {
        for glyph in shaped.glyphs(line) {
            if !faces.contains(&glyph.font) {
                faces.push(glyph.font);
            }
        }
    }
    faces
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

    /// A drawing whose colour a variable gives (an icon's fill, a line's stroke) painted in
    /// `currentColor`, its element's `color` being the variable: the drawing follows the theme.
    fn current_color(&self, rules: &mut Rules, intent: &BoxIntent, node_box: NodeBox, markup: String) -> String {
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
        let (hex, opacity) = super::svg::svg_color(color);
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
    fn common(&mut self, rules: &mut Rules, intent: &BoxIntent, node_box: NodeBox, origin: (f32, f32)) {
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
    fn box_style(&mut self, rules: &mut Rules, intent: &BoxIntent, node_box: NodeBox, id: &str) {
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
                format!("url(\"{}\") {rest}", super::tokens::css_string(href))
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
    fn text_style(&mut self, rules: &mut Rules, key: SceneKey, intent: &BoxIntent, text: &TextIntent) {
        let style = &text.style;
        let shaped = self.pages.source.layout.shaped_text(key).cloned();
        let used = shaped.as_ref().map_or_else(|| style.family.clone(), |s| s.family.clone());
        let mut families = vec![format!("\"{}\"", super::tokens::css_string(&style.family))];
        if !used.eq_ignore_ascii_case(&style.family) {
            families.push(format!("\"{}\"", super::tokens::css_string(&used)));
        }
        // Every face the glyphs are drawn with is shipped with the page, and the families nib
        // fell back to for characters the family lacks (CJK, symbols) are named after it in the
        // order the text first uses them: without them the browser draws those characters with
        // whatever its machine has, or not at all.
        let faces = shaped.as_ref().map(|shaped| faces_of(shaped)).unwrap_or_default();
        for &face in &faces {
            self.faces.insert(face);
            let Some(family) = self.text.font_of(face).map(|font| font.family) else { continue };
            let named = format!("\"{}\"", super::tokens::css_string(&family));
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

/// Writes a page's elements as HTML with a class each, and the classes' CSS.
#[derive(Default)]
struct CssWriter {
    html: String,
    /// Class name → its rules, so that identical nodes share a class.
    classes: HashMap<String, String>,
    css: String,
}

impl CssWriter {
    /// `element` and its children, each with its class (made in document order).
    fn write(&mut self, element: &Element) {
        let class = self.class_for(&element.name, &element.rules);
        let tag = element.tag.name();
        let _ = write!(self.html, "<{tag} class=\"{class}\" data-pen-id=\"{}\"", escape(&element.id));
        element.write_rest(&mut self.html, "");
        for child in &element.children {
            self.write(child);
        }
        let _ = write!(self.html, "</{tag}>");
    }

    /// A class for a node called `name` with `rules`: the name as an identifier, shared with
    /// an earlier node that has the very same rules, numbered when another one took it.
    fn class_for(&mut self, name: &str, rules: &Rules) -> String {
        let block = |selector: &str| {
            let mut css = format!(".{selector} {{\n");
            for (property, value) in &rules.main {
                let _ = writeln!(css, "  {property}: {value};");
            }
            css.push_str("}\n");
            if !rules.stroke.is_empty() {
                let _ = writeln!(css, ".{selector}::after {{");
                for (property, value) in &rules.stroke {
                    let _ = writeln!(css, "  {property}: {value};");
                }
                css.push_str("}\n");
            }
            if !rules.lines.is_empty() {
                let _ = writeln!(css, ".{selector} > span {{");
                for (property, value) in &rules.lines {
                    let _ = writeln!(css, "  {property}: {value};");
                }
                css.push_str("}\n");
            }
            css
        };
        let base = class_name(name);
        let mut candidate = base.clone();
        let mut n = 2;
        loop {
            let css = block(&candidate);
            match self.classes.get(&candidate) {
                Some(existing) if *existing == css => return candidate,
                Some(_) => {
                    candidate = format!("{base}-{n}");
                    n += 1;
                }
                None => {
                    self.css.push_str(&css);
                    self.classes.insert(candidate.clone(), css);
                    return candidate;
                }
            }
        }
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

/// A class name from a node's name: lower-case words joined by `-`, starting with a letter.
fn class_name(name: &str) -> String {
    let mut class = String::new();
    let mut dash = false;
    for c in name.chars() {
        if c.is_alphanumeric() {
            if dash && !class.is_empty() {
                class.push('-');
            }
            class.extend(c.to_lowercase());
            dash = false;
        } else {
            dash = true;
        }
        if class.len() >= 40 {
            break;
        }
    }
    if class.is_empty() || class.starts_with(|c: char| c.is_ascii_digit()) {
        class.insert_str(0, "n-");
    }
    class
}

/// A number variable's custom property (`--gap`, unitless) as a length in pixels.
fn variable_pixels(property: &str) -> String {
    format!("calc(var({property}) * 1px)")
}

/// Pixels as CSS writes them.
fn px(value: f32) -> String {
    let n = number(value);
    if n == "0" { n } else { format!("{n}px") }
}

/// A remote address spelled as the browser requests it: a space, `"`, `<`, `>` and the other
/// control characters percent-encoded, tabs and line breaks dropped (the URL parser removes
/// them), everything else as written. Html-tailwind writes a value's spaces as `_`, which
/// Tailwind turns back into spaces everywhere but inside `url(…)`: a space left there reached
/// the browser as `_`, another address.
fn browser_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            '\t' | '\n' | '\r' => {}
            ' ' | '"' | '<' | '>' | '\u{0}'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_addresses_are_spelled_as_the_browser_requests_them() {
        assert_eq!(
            browser_url("https://example.com/my photo.png?a=\"b\""),
            "https://example.com/my%20photo.png?a=%22b%22"
        );
        assert_eq!(browser_url("https://example.com/a%20b_c.png\n"), "https://example.com/a%20b_c.png");
    }

    #[test]
    fn class_names_read_like_the_node_names() {
        assert_eq!(class_name("Hero / Title"), "hero-title");
        assert_eq!(class_name("2 columns"), "n-2-columns");
        assert_eq!(class_name("★"), "n-");
        assert_eq!(px(12.0), "12px");
        assert_eq!(px(0.0), "0");
    }
}
