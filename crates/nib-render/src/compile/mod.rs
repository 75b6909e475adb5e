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
use compiler::HostRef;

use crate::diagnostic::{Diagnostic, Severity};
use crate::display::pictures::Pictures;
use crate::display::{DisplayList, RenderTarget, TargetError};
use crate::doc::Document;
use crate::host::Host;
use crate::layout::Layout;
use crate::render::{Damage, Painted, RenderError, RenderOptions, Rendered};
use crate::resolve::{Library, ResolveError, Scene};
use crate::text::TextEngine;

/// The imported documents of one document, shared by what it compiles to.
pub(crate) type SharedImports = Arc<dyn Library + Send + Sync>;

/// What to compile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Only the top-level parts holding these node ids (resolved and laid out alone, which is
    /// faster for a few nodes of a large file); `None`, or an id that is not found: everything.
    pub parts_of: Option<Vec<String>>,
    /// Draw under this theme, as a themed instance of the screens would look; the compiler
    /// keeps the themed copy of the document and what it made of it like its own.
    pub theme: Option<ThemeChoice>,
    /// Resolve the Scene with its variables kept as references too: what the code exports read
    /// to write variable names (see [`Compiled::kept_variables`]).
    pub keep_variables: bool,
}

/// A theme chosen from outside the document: `(axis, value)` pairs (`alias:Axis` for an
/// import's axis) selected on the top-level nodes holding `nodes` (every top-level node when
/// `nodes` is empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThemeChoice {
    /// The axes and their values.
    pub axes: Vec<(String, String)>,
    /// The nodes whose top-level parts select it; empty: all of them.
    pub nodes: Vec<String>,
}

/// A document resolved and laid out, ready to draw: what painting, every export and every
/// screenshot read. Made by [`compile`] (owning what it holds) or lent by a session's
/// [`Compiler`] (its text engine and decoded images borrowed, so they are kept across calls).
pub struct Compiled<'a> {
    /// The document compiled: the caller's, or the compiler's themed copy of it.
    document: DocumentRef<'a>,
    /// Where its images come from (each drawing thread asks it for a source of its own).
    host: HostRef<'a>,
    /// The resolved Scene.
    pub scene: Arc<Scene>,
    /// Its layout.
    pub layout: Arc<Layout>,
    /// The Scene with variables kept as references, when [`CompileOptions::keep_variables`].
    kept_variables: Option<Arc<Scene>>,
    /// The engine the layout was shaped with (drawing must use it, or a fork of it).
    pub text: Held<'a, TextEngine>,
    /// The document's images, decoded once for every picture drawn from this. Behind a lock
    /// only so that threads can share the rest (each asks the host for a source of its own).
    pictures: std::sync::Mutex<Held<'a, dyn Pictures + Send>>,
    /// The documents it imports, as the host loaded them (their variables feed tokens).
    pub imports: SharedImports,
    /// What the host said on the way: imports and font files it could not read.
    found: Vec<Diagnostic>,
}

/// The document a [`Compiled`] was made of: the caller's, or one it shares (a themed copy, or
/// a document handed over with it).
pub(crate) enum DocumentRef<'a> {
    Borrowed(&'a Document),
    Shared(Arc<Document>),
}

/// A value a [`Compiled`] owns, or borrows from the compiler that keeps it.
pub enum Held<'a, T: ?Sized> {
    /// Made for this result alone.
    Own(Box<T>),
    /// The compiler's, lent for as long as the result lives.
    Lent(&'a mut T),
}

impl<T: ?Sized> std::ops::Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Held::Own(value) => value,
            Held::Lent(value) => value,
        }
    }
}

impl<T> Held<'_, T> {
    /// What it holds, when it is its own (made by [`compile`]); `None` when it is lent.
    pub fn owned(self) -> Option<T> {
        match self {
            Held::Own(value) => Some(*value),
            Held::Lent(_) => None,
        }
    }
}

impl<T: ?Sized> std::ops::DerefMut for Held<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match self {
            Held::Own(value) => value,
            Held::Lent(value) => value,
        }
    }
}

impl std::fmt::Debug for Compiled<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled").field("nodes", &self.scene.len()).finish_non_exhaustive()
    }
}

/// Resolves and lays out `document` with what `host` provides: one call of a fresh
/// [`Compiler`]. The error is the one finding that stops compiling: a resolve budget exceeded
/// (its span points at the node), or a theme the document does not define.
pub fn compile<'a>(
    host: &'a dyn Host,
    document: &'a Document,
    options: &CompileOptions,
) -> Result<Compiled<'a>, Box<Diagnostic>> {
    Compiler::new(host).compile(document, options)
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

impl<'a> Compiled<'a> {
    /// The document compiled (under a theme: the themed copy, whose top-level nodes select it).
    pub fn document(&self) -> &Document {
        match &self.document {
            DocumentRef::Borrowed(document) => document,
            DocumentRef::Shared(document) => document,
        }
    }

    /// A shared document, as a result holds it.
    pub(crate) fn shared(document: &Arc<Document>) -> DocumentRef<'a> {
        DocumentRef::Shared(Arc::clone(document))
    }

    /// Where its images come from: each thread that draws asks it for a source of its own.
    pub fn host(&self) -> &dyn Host {
        self.host.get()
    }

    /// The Scene with its variables kept as references (same node ids as [`Compiled::scene`]),
    /// when compiled with [`CompileOptions::keep_variables`].
    pub fn kept_variables(&self) -> Option<&Scene> {
        self.kept_variables.as_deref()
    }

    /// What a picture of `target` should say: the imports and font files that could not be
    /// read, every replaced font family inside it (once, with its stand-in), and each node
    /// inside it that could not be resolved as written or is drawn by a stand-in.
    pub fn diagnostics(&mut self, target: RenderTarget) -> Vec<Diagnostic> {
        let mut diagnostics = self.found.clone();
        diagnostics.extend(target_diagnostics(&self.scene, &mut self.text, target));
        compiler::fold_import_uses(diagnostics)
    }

    /// What drawing one target reads and writes: the Scene, its layout, the text engine and the
    /// images (the engine and the images keep what they made for the next target).
    fn pieces(&mut self) -> (&Scene, &Layout, &mut TextEngine, &mut dyn Pictures) {
        let pictures = self.pictures.get_mut().unwrap_or_else(|e| e.into_inner());
        (&self.scene, &self.layout, &mut self.text, &mut **pictures)
    }

    /// The display list of `target`.
    pub fn display(&mut self, target: RenderTarget) -> Result<DisplayList, TargetError> {
        let (scene, layout, text, pictures) = self.pieces();
        crate::display::build(scene, layout, text, pictures, target)
    }

    /// Renders `target`.
    pub fn render(&mut self, target: RenderTarget, options: &RenderOptions) -> Result<Rendered, RenderError> {
        let (scene, layout, text, pictures) = self.pieces();
        crate::render::render(scene, layout, text, pictures, target, options)
    }

    /// Renders `target` as [`Compiled::render`] does, adding where its time went to `timings`
    /// (`nib render --timings`).
    pub fn render_timed(
        &mut self,
        target: RenderTarget,
        options: &RenderOptions,
        timings: &mut crate::render::Timings,
    ) -> Result<Rendered, RenderError> {
        let (scene, layout, text, pictures) = self.pieces();
        crate::render::render_timed(scene, layout, text, pictures, target, options, timings)
    }

    /// The visible top-level nodes, in canvas order: what "every frame" draws.
    pub fn frames(&self) -> Vec<frames::Frame> {
        frames::frames(&self.scene, &self.layout)
    }

    /// Renders `frames` on every core (each thread with its own source of images from the
    /// host), calling `done` with each as soon as it is drawn; see [`frames::render_frames`].
    pub fn render_frames(
        &self,
        options: &RenderOptions,
        frames: Vec<frames::Frame>,
        done: &(dyn Fn(&frames::FrameRender) + Sync),
    ) -> Vec<frames::FrameRender> {
        frames::render_frames(self.host(), &self.scene, &self.layout, &self.text, options, frames, done)
    }

    /// Renders `frames` on every core as [`Compiled::render_frames`] does, turning each into
    /// what `each` makes of it as soon as it is drawn (a caller keeping only a verdict frees
    /// each picture at once); see [`frames::render_frames_into`].
    pub fn render_frames_into<T: Send>(
        &self,
        options: &RenderOptions,
        frames: Vec<frames::Frame>,
        each: &(dyn Fn(frames::FrameRender) -> T + Sync),
    ) -> Vec<T> {
        frames::render_frames_into(self.host(), &self.scene, &self.layout, &self.text, options, frames, each)
    }

    /// The font families the document asks for within `within` (all of it when `None`) and
    /// how each resolves.
    pub fn families_used(&mut self, within: Option<crate::resolve::SceneKey>) -> Vec<crate::layout::fonts::FamilyUse> {
        crate::layout::fonts::families_used(&self.scene, within, &mut self.text)
    }

    /// Renders `target`; given `previous`, the same target drawn before an edit, paints only
    /// what changed since (see [`crate::render::render_after`]).
    pub fn render_after(
        &mut self,
        target: RenderTarget,
        options: &RenderOptions,
        previous: Option<Painted>,
    ) -> Result<(Painted, Damage), RenderError> {
        let (scene, layout, text, pictures) = self.pieces();
        crate::render::render_after(scene, layout, text, pictures, target, options, previous)
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
        let diagnostics = compiled.diagnostics(RenderTarget::Canvas);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let rendered = compiled.render(RenderTarget::Canvas, &RenderOptions::default()).expect("renders");
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
        let diagnostics = compiled.diagnostics(RenderTarget::Canvas);
        let codes: Vec<(&str, Option<&str>)> = diagnostics.iter().map(|d| (d.code, d.node.as_deref())).collect();
        assert!(codes.contains(&("import", None)), "{codes:?}");
        let import = diagnostics.iter().find(|d| d.code == "import").expect("import");
        assert_eq!(import.span.as_ref().map(|s| s.pointer.as_str()), Some("/imports/kit"), "at its entry");
        // Its uses are counted in it, not said one by one (a design on a library nib cannot
        // find said it 1,416 times).
        assert!(import.message.ends_with("(used 1 time)"), "{}", import.message);
        assert!(!codes.iter().any(|(_, node)| *node == Some("i")), "{codes:?}");
        // The missing image is said by the display list of the frame that holds it.
        let key = compiled.scene.node_by_id("f").expect("frame");
        let list = compiled.display(RenderTarget::Node(key)).expect("builds");
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

    #[test]
    fn a_theme_is_compiled_once_per_revision_and_kept_apart_from_the_document() {
        let doc = document(
            r##"{"version":"2.10","themes":{"Mode":["Light","Dark"]},
                "variables":{"bg":{"type":"color","value":[{"value":"#ffffff"},{"value":"#000000","theme":{"Mode":"Dark"}}]}},
                "children":[{"type":"frame","id":"f","width":4,"height":4,"fill":"$bg"}]}"##,
        );
        let host = MemoryHost::new();
        let mut compiler = Compiler::new(&host);
        let dark = CompileOptions {
            parts_of: Some(vec!["f".into()]),
            theme: Some(ThemeChoice { axes: vec![("Mode".into(), "Dark".into())], nodes: vec!["f".into()] }),
            keep_variables: false,
        };
        let pixel = |compiled: &mut Compiled<'_>| {
            let key = compiled.scene.node_by_id("f").expect("there");
            let rendered = compiled.render(RenderTarget::Node(key), &RenderOptions::default()).expect("renders");
            let pixel = rendered.pixmap.pixel(1, 1).expect("inside");
            (pixel.red(), pixel.alpha())
        };
        let (first, themed_layout) = {
            let mut compiled = compiler.compiled(&doc, &dark).expect("compiles");
            (pixel(&mut compiled), Arc::clone(&compiled.layout))
        };
        assert_eq!(first, (0, 255), "dark");
        let again = compiler.compiled(&doc, &dark).expect("compiles");
        assert!(Arc::ptr_eq(&again.layout, &themed_layout), "the second themed compile is answered from the cache");
        assert_ne!(again.document().to_pen_string(), doc.to_pen_string(), "a themed copy is drawn");
        drop(again);
        let mut own = compiler.compiled(&doc, &CompileOptions::default()).expect("compiles");
        assert_eq!(pixel(&mut own), (255, 255), "the document's own look");
        drop(own);
        let themed_again = compiler.compiled(&doc, &dark).expect("compiles");
        assert!(Arc::ptr_eq(&themed_again.layout, &themed_layout), "the document's own compile keeps the theme's");
        drop(themed_again);
        // An axis the document does not define is the error, naming the ones it does.
        let wrong = CompileOptions {
            theme: Some(ThemeChoice { axes: vec![("Mood".into(), "Dark".into())], nodes: Vec::new() }),
            ..CompileOptions::default()
        };
        let refused = compiler.compiled(&doc, &wrong).expect_err("no such axis");
        assert_eq!(refused.code, "theme");
    }

    #[test]
    fn the_scene_with_variables_kept_comes_from_the_compilers_cache() {
        let doc = document(
            r##"{"version":"2.10","variables":{"bg":{"type":"color","value":"#ff0000"}},
                "children":[{"type":"frame","id":"f","width":4,"height":4,"fill":"$bg"}]}"##,
        );
        let host = MemoryHost::new();
        let mut compiler = Compiler::new(&host);
        let options = CompileOptions { keep_variables: true, ..CompileOptions::default() };
        let first = compiler.compiled(&doc, &options).expect("compiles");
        let kept = first.kept_variables().expect("asked for") as *const Scene;
        assert!(compile(&host, &doc, &CompileOptions::default()).expect("compiles").kept_variables().is_none());
        drop(first);
        let second = compiler.compiled(&doc, &options).expect("compiles");
        assert!(std::ptr::eq(second.kept_variables().expect("asked for"), kept), "made once per revision");
    }

    fn solid(width: u32, height: u32, [r, g, b, a]: [u8; 4]) -> tiny_skia::Pixmap {
        let mut pixmap = tiny_skia::Pixmap::new(width, height).expect("size");
        pixmap.fill(tiny_skia::Color::from_rgba8(r, g, b, a));
        pixmap
    }
}
