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
//!
//! This file holds the pages and the files they share. Making one node's element tree is the
//! builder's (`builder/`), writing the elements as HTML with a stylesheet of classes is
//! `css.rs`'s, and the `@font-face` rules with their font files are `font_face.rs`'s.

mod builder;
mod css;
mod font_face;
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
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::Mutex;

use super::ExportError;
use super::source::RunError;
use super::svg::escape;
use super::tokens::{TokenSet, theme_attribute};
use crate::compile::Compiled;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::display::intent::BoxTree;
use crate::display::pictures::Pictures;
use crate::resolve::SceneKey;
use crate::text::TextEngine;
use css::CssWriter;
use font_face::faces_with_files;

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
}

/// The start of a page's document, up to the end of its title.
fn page_head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n",
        escape(title)
    )
}
