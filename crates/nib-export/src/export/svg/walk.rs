//! The SVG writer: walks a display list as the painter does and writes each node as a group
//! of SVG elements, with clips, masks, filters, gradients and glyphs collected in `<defs>`.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

use base64::Engine as _;
use tiny_skia::{FillRule, LineCap, LineJoin, Path, PathBuilder, Rect, Transform};

use super::markup::{EM_DECIMALS, PIXEL_DECIMALS, color, escape, number, number_with, path_data, transform};
use super::{ImageRefs, SvgOptions, TextMode};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::display::effects::{ShadowSpec, grown};
use crate::display::geometry::Shape;
use crate::display::mesh::MeshSpec;
use crate::display::paint::{GradientGeometry, GradientSpec, PaintSpec, css_blend_mode, image_placement};
use crate::display::pictures::{ImageError, Pictures};
use crate::display::slot::SLOT_INK;
use crate::display::stroke::{Keep, StrokeOutline, StrokeSpec, vector_stroke};
use crate::display::{ANNOTATION_INK, Content, DisplayList, DisplayNode, TextRun, UNRESOLVED_DASH, UNRESOLVED_INK};
use crate::doc::values::{BlendMode as PenBlend, ImageMode, TextAlign};
use crate::export::wedges::{Wedge, color_at, wedges};
use crate::text::{IconDrawing, LUCIDE_STROKE_WIDTH};

/// How far a Gaussian blur visibly reaches, in standard deviations.
const BLUR_REACH: f32 = 3.0;

/// Writes one SVG document.
pub(crate) struct Writer<'a> {
    list: &'a DisplayList,
    /// The host's images: the bytes to embed, the files to link.
    pictures: &'a mut dyn Pictures,
    options: &'a SvgOptions,
    /// Clips, masks, filters, gradients and glyphs, referenced by id from the body.
    defs: String,
    /// The drawing.
    pub body: String,
    next_id: usize,
    /// Starts every id, so that several drawings can share one page (HTML).
    id_prefix: String,
    /// Glyph outlines already in `defs`, by face, glyph and weight.
    glyphs: HashMap<(cosmic_text::fontdb::ID, u16, u16), String>,
    warnings: Diagnostics,
    /// Warnings of the display list that do not hold here (a network image is linked).
    answered: BTreeSet<String>,
}

/// A stroke as SVG draws it natively: the outline stroked this wide, the part `keep` kept.
struct NativeStroke<'s> {
    width: f32,
    keep: Keep,
    spec: Option<&'s StrokeSpec>,
    round: bool,
}

impl<'a> Writer<'a> {
    pub fn new(list: &'a DisplayList, pictures: &'a mut dyn Pictures, options: &'a SvgOptions) -> Writer<'a> {
        Writer {
            list,
            pictures,
            options,
            defs: String::new(),
            body: String::new(),
            next_id: 0,
            id_prefix: String::new(),
            glyphs: HashMap::new(),
            warnings: Diagnostics::new(),
            answered: BTreeSet::new(),
        }
    }

    /// The `<defs>` content, the body and the warnings (the display list's and the writer's).
    pub fn finish(self) -> (String, String, Vec<Diagnostic>) {
        let mut warnings = self.warnings;
        warnings.extend(self.list.warnings.iter().filter(|w| !self.answered.contains(&w.to_string())).cloned());
        (self.defs, self.body, warnings.into_vec())
    }

    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{}{prefix}{}", self.id_prefix, self.next_id)
    }

    /// Writes node `index` and its subtree: a target (`as_target`) at its canvas position,
    /// any other node at its place in its parent's group.
    pub fn node(&mut self, index: usize, as_target: bool) {
        let list = self.list;
        let node = list.node(index);
        let opacity = node.opacity;
        if opacity <= 0.0 {
            return;
        }
        let local = list.transform(index, Transform::identity(), as_target);
        let mut open = format!("<g data-pen-id=\"{}\"", escape(&node.id));
        if let Some(t) = transform(local) {
            let _ = write!(open, " transform=\"{t}\"");
        }
        if opacity < 1.0 {
            let _ = write!(open, " opacity=\"{}\"", number_with(opacity, 4));
        }
        if node.effects.layer_blur > 0.0 {
            let sigma = node.effects.layer_blur / 2.0;
            let region = list
                .subtree_bounds(index, Transform::identity())
                .and_then(|b| b.outset(sigma * BLUR_REACH, sigma * BLUR_REACH));
            if let Some(region) = region {
                let filter = self.blur_filter(sigma, region);
                let _ = write!(open, " filter=\"url(#{filter})\"");
            }
        }
        open.push('>');
        self.body.push_str(&open);
        self.content(index);
        self.body.push_str("</g>");
    }

    /// Starts every id this writer makes with `prefix`.
    pub(crate) fn with_id_prefix(mut self, prefix: &str) -> Writer<'a> {
        self.id_prefix = prefix.to_owned();
        self
    }

    /// The node's own drawing (shadows, fills, text or icon, inner shadows), its children and
    /// its stroke, in the painter's order, in its own coordinates: no transform, opacity or
    /// layer blur (the caller places it).
    pub fn content(&mut self, index: usize) {
        let list = self.list;
        let node = list.node(index);
        let size = (node.width, node.height);
        let effects = &node.effects;
        let shape = node.shape.as_ref();
        if let Some(shape) = shape {
            if effects.background_blur > 0.0 {
                self.warnings.insert(
                    Diagnostic::note(
                        "export",
                        "background blur has no SVG equivalent and is left out (the fills above it are kept)",
                    )
                    .at_node(node.id.clone()),
                );
            }
            if node.fills_visible {
                for shadow in effects.shadows.iter().filter(|s| !s.inner) {
                    self.outer_shadow(shape, size, shadow);
                }
            }
        }
        let specs = &node.fills;
        match &node.content {
            Content::Text(run) => self.text(run, specs, size),
            Content::Icon { drawing, placed } => self.icon(drawing, *placed, specs, size, &node.id),
            Content::MissingIcon => {
                let radius = size.0.min(size.1) / 6.0;
                if let Some(outline) = crate::geometry::rounded_rect(0.0, 0.0, size.0, size.1, [radius; 4]) {
                    self.dashed_outline(&outline);
                }
            }
            Content::Annotation { color: card, text } => self.annotation(*card, text.as_ref(), shape, size),
            Content::Unresolved => {
                if let Some(shape) = shape {
                    self.dashed_outline(&shape.path);
                }
            }
            Content::Fill | Content::EmptySlot(_) => {
                if let Some(shape) = shape.filter(|s| s.closed) {
                    let data = path_data(&shape.path, PIXEL_DECIMALS);
                    self.fill(&data, shape.fill_rule, specs, size, &node.id);
                }
                if let Content::EmptySlot(placeholder) = &node.content {
                    let (hex, _) = color(SLOT_INK);
                    for outline in placeholder.outlines() {
                        self.body
                            .push_str(&format!("<path d=\"{}\" fill=\"{hex}\"/>", path_data(outline, PIXEL_DECIMALS)));
                    }
                }
            }
            Content::Nothing => {}
        }
        if let Some(shape) = shape {
            for shadow in effects.shadows.iter().filter(|s| s.inner) {
                self.inner_shadow(shape, size, shadow);
            }
        }
        match shape.filter(|_| node.clip) {
            Some(shape) => {
                let clip = self.clip(&shape.path, shape.fill_rule);
                self.body.push_str(&format!("<g clip-path=\"url(#{clip})\">"));
                self.children(node);
                self.body.push_str("</g>");
                self.stroke(node, shape);
            }
            None => {
                if let Some(shape) = shape {
                    self.stroke(node, shape);
                }
                self.children(node);
            }
        }
    }

    fn children(&mut self, node: &DisplayNode) {
        for &child in &node.children {
            self.node(child, false);
        }
    }

    /// Fills the path `data` with each paint in order.
    fn fill(&mut self, data: &str, rule: FillRule, specs: &[PaintSpec], size: (f32, f32), node: &str) {
        let rule_attr = if rule == FillRule::EvenOdd { " fill-rule=\"evenodd\"" } else { "" };
        for spec in specs {
            match spec {
                PaintSpec::Gradient {
                    gradient: gradient @ GradientSpec { geometry: GradientGeometry::Angular { .. }, .. },
                    blend,
                } => {
                    self.angular(data, rule, gradient, *blend, size);
                }
                PaintSpec::Image { url, mode, crop, opacity, blend } => {
                    self.image(data, rule, url, (*mode, *crop), *opacity, *blend, size, node);
                }
                PaintSpec::Mesh { mesh, blend } => self.mesh(data, rule, mesh, *blend, size),
                _ => {
                    let Some(paint) = self.paint("fill", spec) else { continue };
                    let style = blend_style(spec_blend(spec));
                    self.body.push_str(&format!("<path d=\"{data}\"{paint}{rule_attr}{style}/>"));
                }
            }
        }
    }

    /// The attributes painting with a color or a linear or radial gradient as `what` (fill or
    /// stroke); `None` for paints that need more than an attribute.
    fn paint(&mut self, what: &str, spec: &PaintSpec) -> Option<String> {
        match spec {
            PaintSpec::Solid { color: rgba, .. } => {
                let (hex, opacity) = color(*rgba);
                Some(match opacity {
                    Some(opacity) => format!(" {what}=\"{hex}\" {what}-opacity=\"{opacity}\""),
                    None => format!(" {what}=\"{hex}\""),
                })
            }
            PaintSpec::Gradient { gradient, .. } => {
                let id = self.gradient(gradient)?;
                Some(format!(" {what}=\"url(#{id})\""))
            }
            PaintSpec::Image { .. } | PaintSpec::Mesh { .. } => None,
        }
    }

    /// A linear or radial gradient in `<defs>`, in the node's coordinates; `None` for angular
    /// ones (no SVG primitive) and gradients without stops (they paint nothing).
    fn gradient(&mut self, gradient: &GradientSpec) -> Option<String> {
        if gradient.stops.is_empty() {
            return None;
        }
        let id = self.id("p");
        let element = match gradient.geometry {
            GradientGeometry::Linear { start, end } => {
                format!(
                    "<linearGradient id=\"{id}\" gradientUnits=\"userSpaceOnUse\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\">",
                    number(start.0),
                    number(start.1),
                    number(end.0),
                    number(end.1)
                )
            }
            GradientGeometry::Radial { transform: t } => format!(
                "<radialGradient id=\"{id}\" gradientUnits=\"userSpaceOnUse\" cx=\"0\" cy=\"0\" r=\"0.5\"{}>",
                transform(t).map(|t| format!(" gradientTransform=\"{t}\"")).unwrap_or_default()
            ),
            GradientGeometry::Angular { .. } => return None,
        };
        self.defs.push_str(&element);
        for (position, rgba) in &gradient.stops {
            let (hex, opacity) = color(*rgba);
            let _ = write!(self.defs, "<stop offset=\"{}\" stop-color=\"{hex}\"", number_with(*position, 4));
            if let Some(opacity) = opacity {
                let _ = write!(self.defs, " stop-opacity=\"{opacity}\"");
            }
            self.defs.push_str("/>");
        }
        self.defs.push_str(match gradient.geometry {
            GradientGeometry::Linear { .. } => "</linearGradient>",
            _ => "</radialGradient>",
        });
        Some(id)
    }

    /// An angular gradient inside the path `data`: its wedges (see [`crate::export::wedges`]),
    /// clipped to the path.
    fn angular(&mut self, data: &str, rule: FillRule, gradient: &GradientSpec, blend: PenBlend, size: (f32, f32)) {
        let wedges = wedges(gradient, size);
        if wedges.is_empty() {
            return;
        }
        let clip = self.clip_data(data, rule);
        self.body.push_str(&format!("<g clip-path=\"url(#{clip})\"{}>", blend_style(blend)));
        for Wedge { corners: [center, a, b], color: rgba } in wedges {
            let (hex, opacity) = color(rgba);
            self.body.push_str(&format!(
                "<path d=\"M{} {}L{} {}L{} {}Z\" fill=\"{hex}\"{}/>",
                number(center.0),
                number(center.1),
                number(a.0),
                number(a.1),
                number(b.0),
                number(b.1),
                opacity.map(|o| format!(" fill-opacity=\"{o}\"")).unwrap_or_default()
            ));
        }
        self.body.push_str("</g>");
    }

    /// An image fill: the image placed in the box by its mode and crop (as the painter places
    /// it), clipped to the path and to the part of the box the image covers.
    #[allow(clippy::too_many_arguments)]
    fn image(
        &mut self,
        data: &str,
        rule: FillRule,
        url: &str,
        (mode, crop): (ImageMode, Option<[f32; 6]>),
        opacity: f32,
        blend: PenBlend,
        size: (f32, f32),
        node: &str,
    ) {
        let remote = url.starts_with("http://") || url.starts_with("https://");
        let linked = matches!(self.options.images, ImageRefs::Link { .. });
        // The decoded image gives the pixel size the placement is in (a reduced copy's when
        // the file is larger than nib keeps; a linked file is scaled into that size).
        let decoded = match self.list.picture(url) {
            Some(Ok(image)) => Some((image.width() as f32, image.height() as f32)),
            Some(Err(error @ ImageError::Remote(_))) if remote && linked => {
                // Linked, a network image needs no reading: its warning does not hold.
                self.answered.insert(format!("node '{node}': {error}"));
                None
            }
            _ => return,
        };
        let href = match &self.options.images {
            ImageRefs::Link { .. } if remote => url.to_owned(),
            ImageRefs::Link { from, working_folder } => match (self.pictures.file(url), from) {
                (Some(file), Some(from)) => link(&file, from, working_folder),
                _ => url.to_owned(),
            },
            ImageRefs::Embed => match self.pictures.encoded(url) {
                Ok((bytes, mime)) => {
                    format!("data:{mime};base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes))
                }
                Err(error) => {
                    self.warnings.insert(Diagnostic::warning("image", error.to_string()).at_node(node));
                    return;
                }
            },
        };
        let clip = self.clip_data(data, rule);
        let opacity = if opacity < 1.0 { format!(" opacity=\"{}\"", number_with(opacity, 4)) } else { String::new() };
        let Some((image_width, image_height)) = decoded else {
            // A remote image nib has not seen: the mode by SVG's own aspect rules.
            let aspect = if mode == ImageMode::Stretch {
                "none"
            } else if mode.covers() {
                "xMidYMid slice"
            } else {
                "xMidYMid meet"
            };
            self.body.push_str(&format!(
                "<g clip-path=\"url(#{clip})\"{}><image width=\"{}\" height=\"{}\" preserveAspectRatio=\"{aspect}\"{opacity} href=\"{}\"/></g>",
                blend_style(blend),
                number(size.0),
                number(size.1),
                escape(&href)
            ));
            return;
        };
        let placed = image_placement(mode, crop, image_width, image_height, size.0, size.1);
        let t = placed.transform;
        let area = placed.area.map(|area| {
            let id = self.id("a");
            self.defs.push_str(&format!(
                "<clipPath id=\"{id}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>",
                number(area.left()),
                number(area.top()),
                number(area.width()),
                number(area.height())
            ));
            id
        });
        let (open, close) = match &area {
            Some(id) => (format!("<g clip-path=\"url(#{id})\">"), "</g>"),
            None => (String::new(), ""),
        };
        self.body.push_str(&format!(
            "<g clip-path=\"url(#{clip})\"{}>{open}<image width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\" transform=\"matrix({} {} {} {} {} {})\"{opacity} href=\"{}\"/>{close}</g>",
            blend_style(blend),
            number(image_width),
            number(image_height),
            number_with(t.sx, 6),
            number_with(t.ky, 6),
            number_with(t.kx, 6),
            number_with(t.sy, 6),
            number_with(t.tx, 4),
            number_with(t.ty, 4),
            escape(&href)
        ));
    }

    /// A mesh gradient: no SVG primitive draws one, so it is embedded as the picture nib draws
    /// (a PNG at the size the painter uses), clipped to the path.
    fn mesh(&mut self, data: &str, rule: FillRule, mesh: &MeshSpec, blend: PenBlend, size: (f32, f32)) {
        let Some(raster) = mesh.rasterize(size.0, size.1) else { return };
        let png = crate::render::encode_png(&raster);
        let clip = self.clip_data(data, rule);
        self.body.push_str(&format!(
            "<g clip-path=\"url(#{clip})\"{}><image width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\" href=\"data:image/png;base64,{}\"/></g>",
            blend_style(blend),
            number(size.0),
            number(size.1),
            base64::engine::general_purpose::STANDARD.encode(png)
        ));
    }

    /// Laid-out text in the node's paints: glyph outlines, or live text.
    fn text(&mut self, run: &TextRun, specs: &[PaintSpec], size: (f32, f32)) {
        match self.options.text {
            TextMode::Live => self.live_text(run, specs),
            TextMode::Outlines => self.outlines(run, specs, size),
        }
    }

    /// Glyph outlines: each glyph once in `<defs>`, placed with `<use>`, for colors; a single
    /// path in the box for gradients and images, which span the whole box.
    fn outlines(&mut self, run: &TextRun, specs: &[PaintSpec], size: (f32, f32)) {
        let at = run.at;
        let moved = Transform::from_translate(at.0, at.1);
        if specs.iter().all(|s| matches!(s, PaintSpec::Solid { .. })) {
            let mut uses = String::new();
            for glyph in run.glyphs() {
                let id = match self.glyphs.get(&glyph.key) {
                    Some(id) => id.clone(),
                    None => {
                        let Some(path) = &glyph.outline.path else { continue };
                        let id = self.id("g");
                        let _ = write!(self.defs, "<path id=\"{id}\" d=\"{}\"/>", path_data(path, EM_DECIMALS));
                        self.glyphs.insert(glyph.key, id.clone());
                        id
                    }
                };
                let placed = glyph.transform.post_concat(moved);
                let _ = write!(uses, "<use href=\"#{id}\" transform=\"{}\"/>", transform(placed).unwrap_or_default());
            }
            for bar in &run.bars {
                let _ = write!(
                    uses,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                    number(bar.x() + at.0),
                    number(bar.y() + at.1),
                    number(bar.width()),
                    number(bar.height())
                );
            }
            for spec in specs {
                let Some(paint) = self.paint("fill", spec) else { continue };
                self.body.push_str(&format!("<g{paint}{}>{uses}</g>", blend_style(spec_blend(spec))));
            }
            return;
        }
        if let Some(path) = run.path() {
            self.fill(&path_data(&path, PIXEL_DECIMALS), FillRule::Winding, specs, size, "");
        }
    }

    /// Live text: one `<text>` per paint, a `<tspan>` per laid-out line at its position.
    fn live_text(&mut self, run: &TextRun, specs: &[PaintSpec]) {
        let (style, shaped, at, size) = (&run.style, &run.shaped, run.at, run.size);
        let top = shaped.block_y(style.vertical_align, size.1);
        let mut family = format!("'{}'", escape(&style.family));
        if !style.family.eq_ignore_ascii_case(&shaped.family) {
            let _ = write!(family, ", '{}'", escape(&shaped.family));
        }
        let mut attributes =
            format!(" font-family=\"{family}\" font-size=\"{}\" font-weight=\"{}\"", number(style.size), style.weight);
        if style.italic {
            attributes.push_str(" font-style=\"italic\"");
        }
        if style.letter_spacing != 0.0 {
            let _ = write!(attributes, " letter-spacing=\"{}\"", number(style.letter_spacing));
        }
        let decorations: Vec<&str> = [(run.underline, "underline"), (run.strikethrough, "line-through")]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, name)| name)
            .collect();
        if !decorations.is_empty() {
            let _ = write!(attributes, " text-decoration=\"{}\"", decorations.join(" "));
        }
        let mut lines = String::new();
        for (index, line) in shaped.lines.iter().enumerate() {
            let text = run.content.get(line.text_range.clone()).unwrap_or_default();
            if text.is_empty() {
                continue;
            }
            let x = at.0 + shaped.line_x(index, style.align, size.0);
            let y = at.1 + top + line.baseline;
            let _ = write!(lines, "<tspan x=\"{}\" y=\"{}\"", number(x), number(y));
            if style.align == TextAlign::Justify && index + 1 < shaped.lines.len() {
                let _ = write!(lines, " textLength=\"{}\" lengthAdjust=\"spacing\"", number(size.0));
            }
            let _ = write!(lines, ">{}</tspan>", escape(text));
        }
        if lines.is_empty() {
            return;
        }
        for spec in specs {
            let Some(paint) = self.paint("fill", spec) else {
                self.warnings.insert(Diagnostic::note(
                    "export",
                    "live text is painted with colors and gradients only; an image fill on text is left out",
                ));
                continue;
            };
            self.body.push_str(&format!(
                "<text xml:space=\"preserve\"{attributes}{paint}{}>{lines}</text>",
                blend_style(spec_blend(spec))
            ));
        }
    }

    /// An icon: its filled glyph and its lines, in the node's paints.
    fn icon(&mut self, drawing: &IconDrawing, placed: Transform, specs: &[PaintSpec], size: (f32, f32), node: &str) {
        if let Some(path) = drawing.fill.clone().and_then(|p| p.transform(placed)) {
            self.fill(&path_data(&path, PIXEL_DECIMALS), FillRule::Winding, specs, size, node);
        }
        if let Some(path) = drawing.stroke.clone().and_then(|p| p.transform(placed)) {
            let data = path_data(&path, PIXEL_DECIMALS);
            let stroke =
                NativeStroke { width: LUCIDE_STROKE_WIDTH * placed.sx, keep: Keep::All, spec: None, round: true };
            self.native_stroke(&data, FillRule::Winding, &stroke, specs, size, node);
        }
    }

    /// A canvas annotation: its card and its text.
    fn annotation(&mut self, card: [u8; 4], text: Option<&TextRun>, shape: Option<&Shape>, size: (f32, f32)) {
        if let Some(shape) = shape {
            let (hex, opacity) = color(card);
            self.body.push_str(&format!(
                "<path d=\"{}\" fill=\"{hex}\"{}/>",
                path_data(&shape.path, PIXEL_DECIMALS),
                opacity.map(|o| format!(" fill-opacity=\"{o}\"")).unwrap_or_default()
            ));
        }
        let Some(run) = text else { return };
        let ink = [PaintSpec::Solid { color: ANNOTATION_INK, blend: PenBlend::Normal }];
        match self.options.text {
            TextMode::Outlines => {
                if let Some(path) = run.path() {
                    self.fill(&path_data(&path, PIXEL_DECIMALS), FillRule::Winding, &ink, size, "");
                }
            }
            TextMode::Live => self.live_text(run, &ink),
        }
    }

    /// The red dashed outline marking what could not be resolved.
    fn dashed_outline(&mut self, path: &Path) {
        let (hex, _) = color(UNRESOLVED_INK);
        self.body.push_str(&format!(
            "<path d=\"{}\" fill=\"none\" stroke=\"{hex}\" stroke-dasharray=\"{} {}\"/>",
            path_data(path, PIXEL_DECIMALS),
            number(UNRESOLVED_DASH[0]),
            number(UNRESOLVED_DASH[1])
        ));
    }

    /// The node's stroke: a filled ring when its sides differ, a native stroke otherwise.
    fn stroke(&mut self, node: &DisplayNode, shape: &Shape) {
        let Some(stroke) = &node.stroke else { return };
        let (spec, specs) = (&stroke.spec, &stroke.paints);
        let size = (node.width, node.height);
        let native = match vector_stroke(shape, spec, size.0, size.1) {
            None => return,
            Some(StrokeOutline::Ring(ring)) => {
                self.fill(&path_data(&ring, PIXEL_DECIMALS), FillRule::EvenOdd, specs, size, &node.id);
                return;
            }
            Some(StrokeOutline::Cut { width, keep }) => NativeStroke { width, keep, spec: Some(spec), round: false },
        };
        let data = path_data(&shape.path, PIXEL_DECIMALS);
        self.native_stroke(&data, shape.fill_rule, &native, specs, size, &node.id);
    }

    /// Strokes the path `data` with each paint, keeping the part `stroke.keep` says.
    fn native_stroke(
        &mut self,
        data: &str,
        rule: FillRule,
        stroke: &NativeStroke<'_>,
        specs: &[PaintSpec],
        size: (f32, f32),
        node: &str,
    ) {
        let mut attributes = format!(" fill=\"none\" stroke-width=\"{}\"", number(stroke.width));
        let (join, cap, miter, dash) = match stroke.spec {
            Some(spec) => (spec.join, spec.cap, spec.miter_limit, spec.dash.clone()),
            None if stroke.round => (LineJoin::Round, LineCap::Round, 4.0, None),
            None => (LineJoin::Miter, LineCap::Butt, 4.0, None),
        };
        attributes.push_str(match join {
            LineJoin::Round => " stroke-linejoin=\"round\"",
            LineJoin::Bevel => " stroke-linejoin=\"bevel\"",
            _ => "",
        });
        attributes.push_str(match cap {
            LineCap::Round => " stroke-linecap=\"round\"",
            LineCap::Square => " stroke-linecap=\"square\"",
            LineCap::Butt => "",
        });
        if join == LineJoin::Miter && miter != 4.0 {
            let _ = write!(attributes, " stroke-miterlimit=\"{}\"", number(miter));
        }
        if let Some(dash) = dash {
            let dash: Vec<String> = dash.iter().map(|d| number(*d)).collect();
            let _ = write!(attributes, " stroke-dasharray=\"{}\"", dash.join(" "));
        }
        let wrapper = match stroke.keep {
            Keep::All => None,
            Keep::Inside => Some(format!("clip-path=\"url(#{})\"", self.clip_data(data, rule))),
            Keep::Outside => {
                let region = Rect::from_xywh(0.0, 0.0, size.0.max(1.0), size.1.max(1.0))
                    .and_then(|r| r.outset(stroke.width + 1.0, stroke.width + 1.0));
                let Some(region) = region else { return };
                Some(format!("mask=\"url(#{})\"", self.outside_mask(data, rule, region)))
            }
        };
        if let Some(wrapper) = &wrapper {
            self.body.push_str(&format!("<g {wrapper}>"));
        }
        for spec in specs {
            let paint = match spec {
                // No SVG primitive paints a stroke with these: the nearest color stands in.
                PaintSpec::Gradient {
                    gradient: GradientSpec { geometry: GradientGeometry::Angular { .. }, stops },
                    blend,
                } => {
                    let middle = PaintSpec::Solid { color: color_at(stops, 0.5), blend: *blend };
                    self.paint("stroke", &middle)
                }
                PaintSpec::Image { .. } | PaintSpec::Mesh { .. } => {
                    self.warnings.insert(
                        Diagnostic::note("export", "an image or mesh stroke has no SVG equivalent and is left out")
                            .at_node(node),
                    );
                    None
                }
                _ => self.paint("stroke", spec),
            };
            let Some(paint) = paint else { continue };
            self.body.push_str(&format!("<path d=\"{data}\"{attributes}{paint}{}/>", blend_style(spec_blend(spec))));
        }
        if wrapper.is_some() {
            self.body.push_str("</g>");
        }
    }

    /// A drop shadow: the (spread) shape moved by the offset, blurred, masked away where the
    /// shape itself is.
    fn outer_shadow(&mut self, shape: &Shape, size: (f32, f32), shadow: &ShadowSpec) {
        let Some(path) = grown(shape, size.0, size.1, shadow.spread) else { return };
        let Some(path) = path.transform(Transform::from_translate(shadow.dx, shadow.dy)) else { return };
        let sigma = shadow.blur / 2.0;
        let reach = sigma * BLUR_REACH + 1.0;
        let Some(region) = path.bounds().outset(reach, reach) else { return };
        let shape_bounds = shape.path.bounds();
        let Some(mask_region) = region.join(&shape_bounds).and_then(|r| r.outset(1.0, 1.0)) else { return };
        let mask = self.outside_mask(&path_data(&shape.path, PIXEL_DECIMALS), shape.fill_rule, mask_region);
        let filter =
            if sigma > 0.0 { format!(" filter=\"url(#{})\"", self.blur_filter(sigma, region)) } else { String::new() };
        let (hex, opacity) = color(shadow.color);
        let rule = if shape.fill_rule == FillRule::EvenOdd { " fill-rule=\"evenodd\"" } else { "" };
        self.body.push_str(&format!(
            "<g mask=\"url(#{mask})\"{}><path d=\"{}\" fill=\"{hex}\"{}{rule}{filter}/></g>",
            blend_style(shadow.blend),
            path_data(&path, PIXEL_DECIMALS),
            opacity.map(|o| format!(" fill-opacity=\"{o}\"")).unwrap_or_default()
        ));
    }

    /// An inner shadow: everything outside the (shrunk, moved) shape in the shadow's color,
    /// blurred, kept inside the shape.
    fn inner_shadow(&mut self, shape: &Shape, size: (f32, f32), shadow: &ShadowSpec) {
        let sigma = shadow.blur / 2.0;
        let margin = sigma * BLUR_REACH + shadow.dx.abs() + shadow.dy.abs() + shadow.spread.abs() + 1.0;
        let Some(outer) = shape.path.bounds().outset(margin, margin) else { return };
        let mut builder = PathBuilder::new();
        builder.push_rect(outer);
        let hole = grown(shape, size.0, size.1, -shadow.spread)
            .and_then(|hole| hole.transform(Transform::from_translate(shadow.dx, shadow.dy)));
        if let Some(hole) = &hole {
            builder.push_path(hole);
        }
        let Some(path) = builder.finish() else { return };
        let clip = self.clip(&shape.path, shape.fill_rule);
        let filter = if sigma > 0.0 {
            let region = outer.outset(sigma * BLUR_REACH, sigma * BLUR_REACH).unwrap_or(outer);
            format!(" filter=\"url(#{})\"", self.blur_filter(sigma, region))
        } else {
            String::new()
        };
        let (hex, opacity) = color(shadow.color);
        self.body.push_str(&format!(
            "<g clip-path=\"url(#{clip})\"{}><path d=\"{}\" fill=\"{hex}\"{} fill-rule=\"evenodd\"{filter}/></g>",
            blend_style(shadow.blend),
            path_data(&path, PIXEL_DECIMALS),
            opacity.map(|o| format!(" fill-opacity=\"{o}\"")).unwrap_or_default()
        ));
    }

    /// A clip path of `path` in `<defs>`.
    fn clip(&mut self, path: &Path, rule: FillRule) -> String {
        self.clip_data(&path_data(path, PIXEL_DECIMALS), rule)
    }

    fn clip_data(&mut self, data: &str, rule: FillRule) -> String {
        let id = self.id("c");
        let rule = if rule == FillRule::EvenOdd { " clip-rule=\"evenodd\"" } else { "" };
        let _ = write!(self.defs, "<clipPath id=\"{id}\"><path d=\"{data}\"{rule}/></clipPath>");
        id
    }

    /// A mask showing `region` except the path `data`.
    fn outside_mask(&mut self, data: &str, rule: FillRule, region: Rect) -> String {
        let id = self.id("m");
        let rule = if rule == FillRule::EvenOdd { " fill-rule=\"evenodd\"" } else { "" };
        let (x, y, w, h) = (number(region.x()), number(region.y()), number(region.width()), number(region.height()));
        let _ = write!(
            self.defs,
            "<mask id=\"{id}\" maskUnits=\"userSpaceOnUse\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\"><rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"#FFFFFF\"/><path d=\"{data}\" fill=\"#000000\"{rule}/></mask>"
        );
        id
    }

    /// A Gaussian blur of standard deviation `sigma` over `region`, blurring colors as the
    /// painter does (sRGB, not linear light).
    fn blur_filter(&mut self, sigma: f32, region: Rect) -> String {
        let id = self.id("f");
        let _ = write!(
            self.defs,
            "<filter id=\"{id}\" filterUnits=\"userSpaceOnUse\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" color-interpolation-filters=\"sRGB\"><feGaussianBlur stdDeviation=\"{}\"/></filter>",
            number(region.x()),
            number(region.y()),
            number(region.width()),
            number(region.height()),
            number(sigma)
        );
        id
    }
}

/// The blend mode of a paint.
fn spec_blend(spec: &PaintSpec) -> PenBlend {
    match spec {
        PaintSpec::Solid { blend, .. }
        | PaintSpec::Gradient { blend, .. }
        | PaintSpec::Image { blend, .. }
        | PaintSpec::Mesh { blend, .. } => *blend,
    }
}

/// ` style="mix-blend-mode:…"`, or nothing for normal blending.
fn blend_style(blend: PenBlend) -> String {
    css_blend_mode(blend).map(|mode| format!(" style=\"mix-blend-mode:{mode}\"")).unwrap_or_default()
}

/// The `href` of a linked image: the file relative to the folder `from` the SVG is written to,
/// relative paths of either taken from `working_folder`.
fn link(file: &std::path::Path, from: &std::path::Path, working_folder: &std::path::Path) -> String {
    let absolute = |p: &std::path::Path| crate::files::lexical_normal(&working_folder.join(p));
    let (file, from) = (absolute(file), absolute(from));
    let common = file.components().zip(from.components()).take_while(|(a, b)| a == b).count();
    let mut relative = std::path::PathBuf::new();
    for _ in from.components().skip(common) {
        relative.push("..");
    }
    for part in file.components().skip(common) {
        relative.push(part);
    }
    relative.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::link;
    use std::path::Path;

    #[test]
    fn links_take_relative_paths_from_the_working_folder_they_are_given() {
        let working = Path::new("/work/site");
        // An absolute image file, the SVG's folder relative to the working folder.
        assert_eq!(link(Path::new("/work/site/design/img/a.png"), Path::new("out"), working), "../design/img/a.png");
        // A relative image file, an output folder above the working folder.
        assert_eq!(link(Path::new("img/a.png"), Path::new("../out"), working), "../site/img/a.png");
        // Another working folder, another answer: the process's own is never asked.
        assert_eq!(
            link(Path::new("img/a.png"), Path::new("../out"), Path::new("/elsewhere")),
            "../elsewhere/img/a.png"
        );
        // None given: two relative paths compared as they are.
        assert_eq!(link(Path::new("design/img/a.png"), Path::new("out"), Path::new("")), "../design/img/a.png");
    }
}
