//! Compiling: the one way from a document to something drawn. [`compile`] asks the host for the
//! imports and fonts, resolves the Scene, lays it out, and collects every [`Diagnostic`] on the
//! way; the [`Compiled`] result then builds display lists and renders targets without reading a
//! file (images come from the host's [`Pictures`]). [`Compiler`] is the same done again and
//! again as a document is edited, keeping what is unchanged: the tools' workspace holds one per
//! open document. The CLI, the tools, review and the benches all start here; nothing else
//! writes the steps out (`tests/suite/layers.rs` checks).

mod compiler;
pub mod frames;

use std::sync::Arc;

pub use compiler::Compiler;
pub use compiler::CompilerCanvas;

use crate::diagnostic::{Diagnostic, Severity};
use crate::display::pictures::Pictures;
use crate::display::{DisplayList, RenderTarget, TargetError};
use crate::doc::Document;
use crate::host::Host;
use crate::layout::Layout;
use crate::render::{RenderError, RenderOptions, Rendered};
use crate::resolve::{Library, ResolveError, Scene, SceneOptions, build_scene};
use crate::text::TextEngine;

/// The imported documents of one document, shared by what it compiles to.
pub(crate) type SharedImports = Arc<dyn Library + Send + Sync>;

/// What to compile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Only the top-level parts holding these node ids (resolved and laid out alone, which is
    /// faster for a few nodes of a large file); `None`, or an id that is not found: everything.
    pub parts_of: Option<Vec<String>>,
}

/// A document resolved and laid out, ready to draw.
pub struct Compiled {
    /// The resolved Scene.
    pub scene: Arc<Scene>,
    /// Its layout.
    pub layout: Arc<Layout>,
    /// The engine the layout was shaped with (drawing must use it, or a fork of it).
    pub text: TextEngine,
    /// The documents it imports, as the host loaded them (their variables feed tokens).
    pub imports: SharedImports,
    /// What was found on the way: imports, fonts, nodes.
    pub diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("nodes", &self.scene.len())
            .field("diagnostics", &self.diagnostics.len())
            .finish_non_exhaustive()
    }
}

/// Resolves and lays out `document` with what `host` provides: one call of a fresh
/// [`Compiler`]. The error is the one finding that stops compiling: a resolve budget exceeded
/// (its span points at the node).
pub fn compile(host: &dyn Host, document: &Document, options: &CompileOptions) -> Result<Compiled, Box<Diagnostic>> {
    Compiler::new(host).compile(document, options)
}

/// `document` resolved with its variables kept as references (same node ids as the full
/// Scene): what an export that writes variable names reads to see which values are variables.
pub fn resolve_keeping_variables(document: &Document, library: &dyn Library) -> Scene {
    build_scene(document, library, SceneOptions { expand_instances: true, substitute_variables: false })
}

/// The diagnostic of a resolve error.
pub(crate) fn resolve_diagnostic(error: &ResolveError) -> Diagnostic {
    let ResolveError::OverBudget(over) = error;
    Diagnostic::new(Severity::Error, "budget", error.to_string()).at_pointer(&over.pointer).with_hint(error.hint())
}

/// What a laid-out Scene says about what `target` shows: every replaced font family there (a
/// note, once, with its stand-in), then each node there that could not be resolved as written
/// (a warning) or is drawn by a stand-in (a note).
pub(crate) fn target_diagnostics(scene: &Scene, text: &mut TextEngine, target: RenderTarget) -> Vec<Diagnostic> {
    let within = match target {
        RenderTarget::Node(key) => Some(key),
        RenderTarget::Canvas => None,
    };
    let inside: Option<std::collections::HashSet<&str>> =
        within.map(|key| scene.subtree(key).map(|k| scene.node(k).id.as_str()).collect());
    let fonts = crate::layout::fonts::substitutions(scene, within, text).into_iter();
    let nodes = scene
        .problems
        .iter()
        .filter(|p| inside.as_ref().is_none_or(|ids| p.node.as_deref().is_some_and(|node| ids.contains(node))))
        .cloned();
    // Font files that failed when a text needed them: said once, whatever the target.
    let unreadable = text.font_failures().to_vec();
    fonts.chain(nodes).chain(unreadable).collect()
}

impl Compiled {
    /// The display list of `target`, its images taken from `pictures`.
    pub fn display(&mut self, pictures: &mut dyn Pictures, target: RenderTarget) -> Result<DisplayList, TargetError> {
        crate::display::build(&self.scene, &self.layout, &mut self.text, pictures, target)
    }

    /// Renders `target`, its images taken from `pictures`.
    pub fn render(
        &mut self,
        pictures: &mut dyn Pictures,
        target: RenderTarget,
        options: &RenderOptions,
    ) -> Result<Rendered, RenderError> {
        crate::render::render(&self.scene, &self.layout, &mut self.text, pictures, target, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::MemoryHost;

    fn document(json: &str) -> Document {
        Document::load_bytes(json.as_bytes()).expect("loads").document
    }

    #[test]
    fn a_document_compiles_and_renders_from_memory() {
        let host = MemoryHost::new().with_file("dot.png", crate::render::encode_png(&solid(4, 4, [0, 0, 255, 255])));
        let doc = document(
            r#"{"version":"2.9","children":[{"type":"frame","id":"f","width":10,"height":10,
                "fill":{"type":"image","url":"dot.png","mode":"fill"}}]}"#,
        );
        let mut compiled = compile(&host, &doc, &CompileOptions::default()).expect("compiles");
        assert!(compiled.diagnostics.is_empty(), "{:?}", compiled.diagnostics);
        let mut pictures = host.pictures();
        let rendered =
            compiled.render(pictures.as_mut(), RenderTarget::Canvas, &RenderOptions::default()).expect("renders");
        assert!(rendered.warnings.is_empty(), "{:?}", rendered.warnings);
        let pixel = rendered.pixmap.pixel(5, 5).expect("inside");
        assert_eq!((pixel.red(), pixel.green(), pixel.blue(), pixel.alpha()), (0, 0, 255, 255));
    }

    #[test]
    fn what_cannot_be_found_becomes_diagnostics() {
        let doc = document(
            r#"{"version":"2.9","imports":{"kit":"kit.pen"},"children":[
                {"type":"ref","id":"i","ref":"kit:button"},
                {"type":"frame","id":"f","width":10,"height":10,"fill":{"type":"image","url":"gone.png","mode":"fill"}}]}"#,
        );
        let host = MemoryHost::new();
        let mut compiled = compile(&host, &doc, &CompileOptions::default()).expect("compiles");
        let codes: Vec<(&str, Option<&str>)> =
            compiled.diagnostics.iter().map(|d| (d.code, d.node.as_deref())).collect();
        assert!(codes.contains(&("import", None)), "{codes:?}");
        let import = compiled.diagnostics.iter().find(|d| d.code == "import").expect("import");
        assert_eq!(import.span.as_ref().map(|s| s.pointer.as_str()), Some("/imports/kit"), "at its entry");
        // Its uses are counted in it, not said one by one (a design on a library nib cannot
        // find said it 1,416 times).
        assert!(import.message.ends_with("(used 1 time)"), "{}", import.message);
        assert!(!codes.iter().any(|(_, node)| *node == Some("i")), "{codes:?}");
        // The missing image is said by the display list of the frame that holds it.
        let key = compiled.scene.node_by_id("f").expect("frame");
        let list = compiled.display(host.pictures().as_mut(), RenderTarget::Node(key)).expect("builds");
        assert!(
            list.warnings
                .iter()
                .any(|w| w.code == "image" && w.node.as_deref() == Some("f") && w.message.contains("gone.png")),
            "{:?}",
            list.warnings
        );
        // Only what is inside a node is said for a picture of it.
        let inside = target_diagnostics(&compiled.scene, &mut compiled.text, RenderTarget::Node(key));
        assert!(inside.iter().all(|d| d.node.is_none()), "{inside:?}");
    }

    #[test]
    fn a_document_over_budget_is_an_error_with_a_place_and_a_hint() {
        // Each level instantiates the one below twice: 2^40 nodes.
        let mut children = vec![r#"{"type":"frame","id":"c0","reusable":true,"width":1,"height":1}"#.to_owned()];
        for level in 1..=40 {
            children.push(format!(
                r#"{{"type":"frame","id":"c{level}","reusable":true,"children":[{{"type":"ref","id":"a{level}","ref":"c{}"}},{{"type":"ref","id":"b{level}","ref":"c{}"}}]}}"#,
                level - 1,
                level - 1
            ));
        }
        let doc = document(&format!(r#"{{"version":"2.9","children":[{}]}}"#, children.join(",")));
        let error = compile(&MemoryHost::new(), &doc, &CompileOptions::default()).expect_err("over budget");
        assert_eq!((error.severity, error.code), (Severity::Error, "budget"));
        assert!(error.span.is_some() && !error.hints.is_empty(), "{error:?}");
    }

    fn solid(width: u32, height: u32, [r, g, b, a]: [u8; 4]) -> tiny_skia::Pixmap {
        let mut pixmap = tiny_skia::Pixmap::new(width, height).expect("size");
        pixmap.fill(tiny_skia::Color::from_rgba8(r, g, b, a));
        pixmap
    }
}
