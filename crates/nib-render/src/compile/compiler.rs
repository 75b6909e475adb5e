//! The incremental compiler: one document compiled again and again as it is edited, over one
//! [`Host`]. It keeps what it made for the last revision it saw — the Scene per options, the
//! layout, the laid-out parts of single frames, the text engine with what it measured, the
//! decoded images — and each call rebuilds only what the edits since touched (resolve reuses
//! unchanged parts, layout unchanged part layouts). The workspace of the tools keeps one per
//! open document; [`super::compile`] is one call of a fresh one.
//!
//! Revisions only go up (an undo is a revision too), so a cache entry for the document's
//! current revision is current. A compiler serves one document through its revisions: a
//! document loaded again from its file gets a new compiler.

use std::cell::RefCell;
use std::sync::Arc;

use super::{CompileOptions, Compiled, DocumentRef, Held, SharedImports, ThemeChoice, resolve_diagnostic};
use crate::diagnostic::Diagnostic;
use crate::display::pictures::Pictures;
use crate::doc::json::RawJson;
use crate::doc::{Document, NodeKey};
use crate::host::Host;
use crate::layout::Layout;
use crate::layout::space::{CanvasBoxes, Rect};
use crate::render::timings::{Stage, stage};
use crate::resolve::{Scene, SceneOptions, part_root, themed, update_scene, update_scene_of};
use crate::text::{FamilyChoice, TextEngine};

/// How many frames' parts are kept laid out at the current revision for pictures of single
/// nodes: an agent moves between a handful of screens.
const KEPT_PARTS: usize = 16;

/// The Scene options of the Scene whose variables are kept as references (code exports).
const KEPT_VARIABLES: SceneOptions = SceneOptions { expand_instances: true, substitute_variables: false };

/// The host a compiler asks: borrowed for one compile, shared for a session.
#[derive(Clone)]
pub(super) enum HostRef<'h> {
    Borrowed(&'h dyn Host),
    Shared(Arc<dyn Host + Send + Sync>),
}

impl HostRef<'_> {
    pub(super) fn get(&self) -> &dyn Host {
        match self {
            HostRef::Borrowed(host) => *host,
            HostRef::Shared(host) => host.as_ref(),
        }
    }
}

/// A document compiled under a theme: its themed copy, for one revision of the document and
/// one choice, and the compiler of that copy (whose caches answer the next call alike).
struct Themed<'h> {
    revision: u64,
    choice: ThemeChoice,
    document: Arc<Document>,
    compiler: Compiler<'h>,
}

/// What one compile made, before it is handed out with the engine and images that drew it.
struct Made {
    scene: Arc<Scene>,
    layout: Arc<Layout>,
    kept_variables: Option<Arc<Scene>>,
    imports: SharedImports,
    found: Vec<Diagnostic>,
    /// The themed copy compiled instead of the document, under a theme.
    themed: Option<Arc<Document>>,
}

/// One document compiled through its revisions; see the module's text.
pub struct Compiler<'h> {
    host: HostRef<'h>,
    /// The imported documents, loaded on first use, with what could not be loaded.
    imports: Option<(SharedImports, Vec<Diagnostic>)>,
    /// The latest Scene per options, with the revision it is for.
    scenes: Vec<(u64, SceneOptions, Arc<Scene>)>,
    /// The latest layout of the full Scene, with the revision it is for.
    layout: Option<(u64, Arc<Layout>)>,
    /// Scenes and layouts of single top-level parts, for nodes shown while the full layout is
    /// not current: (revision, part root, Scene, layout), the most recent last.
    parts: Vec<(u64, NodeKey, Arc<Scene>, Arc<Layout>)>,
    /// Shapes text; made on first use, again when the host's fonts change.
    text: Option<TextEngine>,
    /// What the host said of its fonts when the engine was made.
    book_diagnostics: Vec<Diagnostic>,
    /// The document's `fonts` list the engine's document fonts were read for, and what could
    /// not be read of them.
    fonts_read_for: Option<(Option<RawJson>, Vec<Diagnostic>)>,
    /// The document's images, decoded once and kept across pictures.
    pictures: Option<Box<dyn Pictures + Send>>,
    /// The last theme compiled, with its own compiler.
    themed: Option<Box<Themed<'h>>>,
}

impl std::fmt::Debug for Compiler<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiler")
            .field("scenes", &self.scenes.len())
            .field("layout", &self.layout.as_ref().map(|(at, _)| at))
            .field("parts", &self.parts.len())
            .finish_non_exhaustive()
    }
}

impl<'h> Compiler<'h> {
    /// A compiler asking `host`, for one compile or a few.
    pub fn new(host: &'h dyn Host) -> Compiler<'h> {
        Compiler::over(HostRef::Borrowed(host))
    }

    fn over(host: HostRef<'h>) -> Compiler<'h> {
        Compiler {
            host,
            imports: None,
            scenes: Vec::new(),
            layout: None,
            parts: Vec::new(),
            text: None,
            book_diagnostics: Vec::new(),
            fonts_read_for: None,
            pictures: None,
            themed: None,
        }
    }

    /// The host it asks.
    pub fn host(&self) -> &dyn Host {
        self.host.get()
    }

    /// The documents `document` imports, loaded from the host on first use.
    pub fn imports(&mut self, document: &Document) -> SharedImports {
        Arc::clone(&self.loaded_imports(document).0)
    }

    /// What could not be loaded of `document`'s imports.
    pub fn import_diagnostics(&mut self, document: &Document) -> &[Diagnostic] {
        &self.loaded_imports(document).1
    }

    fn loaded_imports(&mut self, document: &Document) -> &(SharedImports, Vec<Diagnostic>) {
        if self.imports.is_none() {
            let (imports, diagnostics) = stage(Stage::Resolve, || self.host().imports(document));
            self.imports = Some((Arc::from(imports), diagnostics));
        }
        self.imports.as_ref().expect("loaded above")
    }

    /// The Scene for `options` at the document's revision, updated from the previous one; an
    /// error when the document expands past its budget (the Scene would be partial).
    pub fn scene(&mut self, document: &Document, options: SceneOptions) -> Result<Arc<Scene>, Box<Diagnostic>> {
        let scene = self.partial_scene(document, options);
        match scene.error() {
            Some(error) => Err(Box::new(resolve_diagnostic(error))),
            None => Ok(scene),
        }
    }

    /// The Scene for `options` at the document's revision, partial when the document expands
    /// past its budget. Kept even then: the next update reuses the parts that fit.
    pub fn partial_scene(&mut self, document: &Document, options: SceneOptions) -> Arc<Scene> {
        let revision = document.revision();
        let cached = self.scenes.iter().position(|(_, o, _)| *o == options);
        if let Some(index) = cached
            && self.scenes[index].0 == revision
        {
            return Arc::clone(&self.scenes[index].2);
        }
        // The first full Scene starts from the parts laid out to show single nodes, so they stay
        // the same parts (a write's answer lays the whole document out after a screenshot of
        // one frame, whose cached picture holds while its part does).
        let previous = cached.map(|index| Arc::clone(&self.scenes[index].2)).or_else(|| {
            (options == SceneOptions::FULL)
                .then(|| self.parts.last().map(|(_, _, scene, _)| Arc::clone(scene)))
                .flatten()
        });
        let imports = self.imports(document);
        let scene =
            stage(Stage::Resolve, || Arc::new(update_scene(previous.as_deref(), document, imports.as_ref(), options)));
        match cached {
            Some(index) => self.scenes[index] = (revision, options, Arc::clone(&scene)),
            None => self.scenes.push((revision, options, Arc::clone(&scene))),
        }
        scene
    }

    /// The full Scene and its layout at the document's revision, updated from the previous
    /// ones; an error when the document expands past its budget.
    pub fn layout(&mut self, document: &Document) -> Result<(Arc<Scene>, Arc<Layout>), Box<Diagnostic>> {
        let scene = self.scene(document, SceneOptions::FULL)?;
        let revision = document.revision();
        stage(Stage::Fonts, || {
            self.text(document);
        });
        if let Some((at, layout)) = &self.layout
            && *at == revision
        {
            return Ok((scene, Arc::clone(layout)));
        }
        let previous = self
            .layout
            .take()
            .map(|(_, layout)| layout)
            .or_else(|| self.parts.last().map(|(.., layout)| Arc::clone(layout)));
        let text = self.text.as_mut().expect("made above");
        let layout = stage(Stage::Layout, || Arc::new(Layout::update(previous.as_deref(), &scene, text)));
        self.layout = Some((revision, Arc::clone(&layout)));
        Ok((scene, layout))
    }

    /// The Scene and layout that show the node `id`: the full ones when they are current,
    /// otherwise only its top-level part, so that showing one node of a freshly opened or
    /// edited file costs that part and not the file. Node keys are those of the Scene returned.
    pub(crate) fn layout_for_node(
        &mut self,
        document: &Document,
        id: &str,
    ) -> Result<(Arc<Scene>, Arc<Layout>), Box<Diagnostic>> {
        let revision = document.revision();
        let full_is_current = self.layout.as_ref().is_some_and(|(at, _)| *at == revision);
        let root = part_root(document, id);
        let Some(root) = root.filter(|_| !full_is_current) else { return self.layout(document) };
        // Each frame an agent looked at keeps its part at this revision, so going back to one
        // answers from the same part (and its picture from a render cache) instead of resolving
        // and laying it out again.
        if let Some((_, _, scene, layout)) =
            self.parts.iter().find(|(at, part_root, ..)| *at == revision && *part_root == root)
        {
            return Ok((Arc::clone(scene), Arc::clone(layout)));
        }
        let (scene, layout) = self.lay_out_parts(document, &[root])?;
        // Parts laid out at an older revision were the starting point; they answer nothing now.
        self.parts.retain(|(at, ..)| *at == revision);
        self.parts.push((revision, root, Arc::clone(&scene), Arc::clone(&layout)));
        if self.parts.len() > KEPT_PARTS {
            self.parts.remove(0);
        }
        Ok((scene, layout))
    }

    /// A Scene and layout holding only the top-level parts `roots`, started from the latest
    /// full or partial ones (what is unchanged there is reused as it is).
    fn lay_out_parts(
        &mut self,
        document: &Document,
        roots: &[NodeKey],
    ) -> Result<(Arc<Scene>, Arc<Layout>), Box<Diagnostic>> {
        let (previous_scene, previous_layout) = match self.parts.last() {
            Some((_, _, scene, layout)) if self.layout.is_none() => (Some(Arc::clone(scene)), Some(Arc::clone(layout))),
            _ => (self.last_full_scene(), self.layout.as_ref().map(|(_, layout)| Arc::clone(layout))),
        };
        let imports = self.imports(document);
        let scene = stage(Stage::Resolve, || {
            Arc::new(update_scene_of(previous_scene.as_deref(), document, imports.as_ref(), SceneOptions::FULL, roots))
        });
        if let Some(error) = scene.error() {
            return Err(Box::new(resolve_diagnostic(error)));
        }
        let text = stage(Stage::Fonts, || self.text(document));
        let layout = stage(Stage::Layout, || Arc::new(Layout::update(previous_layout.as_deref(), &scene, text)));
        Ok((scene, layout))
    }

    /// The latest full Scene, whatever revision it is for (a starting point for updates).
    fn last_full_scene(&self) -> Option<Arc<Scene>> {
        self.scenes.iter().find(|(_, o, _)| *o == SceneOptions::FULL).map(|(_, _, s)| Arc::clone(s))
    }

    /// The text engine for `document`: the host's fonts (made again when they changed) and the
    /// document's own font files (read again when its `fonts` list changed). Either change
    /// drops the layouts: other fonts measure differently.
    pub fn text(&mut self, document: &Document) -> &mut TextEngine {
        let (book, book_diagnostics) = self.host().font_book();
        if self.text.as_ref().is_some_and(|engine| !Arc::ptr_eq(engine.book(), &book)) {
            self.forget_measures();
            self.text = None;
        }
        if self.text.is_none() {
            self.text = Some(TextEngine::new(book));
            self.book_diagnostics = book_diagnostics;
            self.fonts_read_for = None;
        }
        let list = document.unknown_keys().iter().find(|(key, _)| key == "fonts").map(|(_, value)| value.clone());
        if self.fonts_read_for.as_ref().is_none_or(|(read_for, _)| *read_for != list) {
            let (fonts, diagnostics) = self.host().document_fonts(document);
            let engine = self.text.as_mut().expect("made above");
            if **engine.document_fonts() != fonts {
                engine.set_document_fonts(Arc::new(fonts));
                self.layout = None;
                self.parts.clear();
            }
            self.fonts_read_for = Some((list, diagnostics));
        }
        self.text.as_mut().expect("made above")
    }

    /// Layouts measured with fonts that are no longer the engine's are dropped.
    fn forget_measures(&mut self) {
        self.layout = None;
        self.parts.clear();
    }

    /// The document's images, kept across pictures.
    pub fn pictures(&mut self) -> &mut (dyn Pictures + Send) {
        if self.pictures.is_none() {
            self.pictures = Some(self.host().pictures());
        }
        self.pictures.as_deref_mut().expect("made above")
    }

    /// What could not be read of the host's fonts and of `document`'s own font files.
    pub fn font_diagnostics(&mut self, document: &Document) -> Vec<Diagnostic> {
        self.text(document);
        let document_fonts = self.fonts_read_for.iter().flat_map(|(_, fonts)| fonts);
        self.book_diagnostics.iter().chain(document_fonts).cloned().collect()
    }

    /// `document` compiled as `options` ask, lending its text engine and decoded images: what a
    /// session's screenshots and exports draw from. What it makes is kept for the next call
    /// (under a theme too: the themed copy and what it makes of it are kept while the document
    /// and the theme stay the same).
    pub fn compiled<'c>(
        &'c mut self,
        document: &'c Document,
        options: &CompileOptions,
    ) -> Result<Compiled<'c>, Box<Diagnostic>> {
        let host = self.host.clone();
        let made = self.make(document, options)?;
        let (compiler, document) = match &made.themed {
            Some(copy) => (&mut self.themed.as_mut().expect("made under the theme").compiler, Compiled::shared(copy)),
            None => (self, DocumentRef::Borrowed(document)),
        };
        compiler.pictures();
        let Compiler { text, pictures, .. } = compiler;
        let text = Held::Lent(text.as_mut().expect("made by the layout"));
        let pictures = Held::Lent(pictures.as_deref_mut().expect("made above"));
        Ok(hand_out(made, document, host, text, pictures))
    }

    /// Compiles `document` once, as [`super::compile`] does, handing over what was made.
    pub fn compile<'d>(
        mut self,
        document: &'d Document,
        options: &CompileOptions,
    ) -> Result<Compiled<'d>, Box<Diagnostic>>
    where
        'h: 'd,
    {
        let made = self.make(document, options)?;
        let (text, pictures) = self.hand_over(made.themed.is_some());
        let host = self.host.clone();
        let document = match &made.themed {
            Some(copy) => Compiled::shared(copy),
            None => DocumentRef::Borrowed(document),
        };
        Ok(hand_out(made, document, host, text, pictures))
    }

    /// Compiles `document` once, as [`Compiler::compile`] does, keeping it: a result that
    /// lives as long as the host.
    pub fn compile_owned(
        mut self,
        document: Document,
        options: &CompileOptions,
    ) -> Result<Compiled<'h>, Box<Diagnostic>> {
        let made = self.make(&document, options)?;
        let (text, pictures) = self.hand_over(made.themed.is_some());
        let host = self.host.clone();
        let document = match &made.themed {
            Some(copy) => Compiled::shared(copy),
            None => DocumentRef::Shared(Arc::new(document)),
        };
        Ok(hand_out(made, document, host, text, pictures))
    }

    /// The text engine and images of the compiler that made the last result (the themed
    /// copy's when `themed`), taken out of it.
    fn hand_over(&mut self, themed: bool) -> (Held<'static, TextEngine>, Held<'static, dyn Pictures + Send>) {
        let compiler = match self.themed.as_mut().filter(|_| themed) {
            Some(themed) => &mut themed.compiler,
            None => self,
        };
        let pictures = compiler.pictures.take().unwrap_or_else(|| compiler.host().pictures());
        let text = Box::new(compiler.text.take().expect("made by the layout"));
        (Held::Own(text), Held::Own(pictures))
    }

    /// The Scene and layout `options` ask for, with what the host said on the way; under a
    /// theme, made by the themed copy's compiler.
    fn make(&mut self, document: &Document, options: &CompileOptions) -> Result<Made, Box<Diagnostic>> {
        if let Some(choice) = &options.theme {
            let themed = self.themed_compiler(document, choice)?;
            let own = CompileOptions { theme: None, ..options.clone() };
            let copy = Arc::clone(&themed.document);
            let made = themed.compiler.make(&copy, &own)?;
            return Ok(Made { themed: Some(copy), ..made });
        }
        let (scene, layout) = match options.parts_of.as_deref() {
            Some([id]) => self.layout_for_node(document, id)?,
            Some(ids) => match ids.iter().map(|id| part_root(document, id)).collect::<Option<Vec<_>>>() {
                Some(roots) => self.lay_out_parts(document, &roots)?,
                None => self.layout(document)?,
            },
            None => self.layout(document)?,
        };
        let kept_variables = options.keep_variables.then(|| self.scene(document, KEPT_VARIABLES)).transpose()?;
        let mut found = self.import_diagnostics(document).to_vec();
        found.extend(self.font_diagnostics(document));
        let imports = self.imports(document);
        Ok(Made { scene, layout, kept_variables, imports, found, themed: None })
    }

    /// The compiler of `document` under `choice`: the one kept from the last call when the
    /// document and the choice are the same, otherwise one over a new themed copy.
    fn themed_compiler(
        &mut self,
        document: &Document,
        choice: &ThemeChoice,
    ) -> Result<&mut Themed<'h>, Box<Diagnostic>> {
        let revision = document.revision();
        let current = self.themed.as_ref().is_some_and(|t| t.revision == revision && t.choice == *choice);
        if !current {
            let imports = self.imports(document);
            let nodes: Vec<&str> = choice.nodes.iter().map(String::as_str).collect();
            let copy = themed(document, imports.as_ref(), &nodes, &choice.axes)?;
            self.themed = Some(Box::new(Themed {
                revision,
                choice: choice.clone(),
                document: Arc::new(copy),
                compiler: Compiler::over(self.host.clone()),
            }));
        }
        Ok(self.themed.as_mut().expect("made above"))
    }

    /// The canvas of `document` as a batch edits it: top-level boxes laid out from the latest
    /// full Scene and layout (only the parts the batch touched are resolved and laid out again),
    /// family choices by this compiler's text engine.
    pub fn canvas<'c>(&'c mut self, document: &Document) -> CompilerCanvas<'c, 'h> {
        self.text(document);
        let previous = (self.last_full_scene(), self.layout.as_ref().map(|(_, layout)| Arc::clone(layout)));
        CompilerCanvas { compiler: RefCell::new(self), previous: RefCell::new(previous) }
    }
}

impl Compiler<'static> {
    /// A compiler asking `host` for as long as it lives: a session's open document.
    pub fn shared(host: Arc<dyn Host + Send + Sync>) -> Compiler<'static> {
        Compiler::over(HostRef::Shared(host))
    }
}

/// A compiler lending its layouts to a batch that places new top-level nodes by their real
/// (hugging) sizes, and its text engine to the checks that name stand-in fonts.
///
/// What it lays out is kept here, not in the compiler: a batch edits inside one transaction, so
/// the document's revision does not move until it commits (and a batch that fails is rolled
/// back), and a layout kept by revision would answer for a document that never was.
pub struct CompilerCanvas<'c, 'h> {
    compiler: RefCell<&'c mut Compiler<'h>>,
    /// The Scene and layout of the last call, the starting point of the next.
    previous: RefCell<LaidOut>,
}

/// A Scene and its layout, when there are any.
type LaidOut = (Option<Arc<Scene>>, Option<Arc<Layout>>);

impl CanvasBoxes for CompilerCanvas<'_, '_> {
    /// `None` when the document expands past its budget: laying out a partial Scene would
    /// place new nodes by boxes that are not the design's, and the work is what the budget is
    /// there to refuse. batch_design then places by the document's numbers, so an agent can
    /// still edit the document and remove what expands too far.
    fn top_level_boxes(&self, document: &Document) -> Option<Vec<(NodeKey, Rect)>> {
        let mut compiler = self.compiler.borrow_mut();
        let mut previous = self.previous.borrow_mut();
        let imports = compiler.imports(document);
        let scene = Arc::new(update_scene(previous.0.as_deref(), document, imports.as_ref(), SceneOptions::FULL));
        if scene.error().is_some() {
            // Kept, so the next call reuses the parts that fit instead of expanding again.
            previous.0 = Some(scene);
            return None;
        }
        let layout = Arc::new(Layout::update(previous.1.as_deref(), &scene, compiler.text(document)));
        let boxes = scene
            .parts()
            .iter()
            .zip(layout.parts())
            .filter_map(|(part, laid_out)| {
                let b = laid_out.bounds(0)?;
                let (x, y, width, height) = (b.left, b.top, b.width, b.height);
                Some((
                    part.source_root(),
                    Rect { x: x.into(), y: y.into(), width: width.into(), height: height.into() },
                ))
            })
            .collect();
        *previous = (Some(scene), Some(layout));
        Some(boxes)
    }

    fn choose_family(&self, family: &str) -> Option<Arc<FamilyChoice>> {
        let mut compiler = self.compiler.borrow_mut();
        compiler.text.as_mut().map(|engine| engine.choose_family(family))
    }

    fn part_scene(&self, document: &Document, root: NodeKey) -> Option<Arc<Scene>> {
        let mut compiler = self.compiler.borrow_mut();
        let previous = self.previous.borrow().0.clone().or_else(|| compiler.last_full_scene());
        let imports = compiler.imports(document);
        Some(Arc::new(update_scene_of(previous.as_deref(), document, imports.as_ref(), SceneOptions::FULL, &[root])))
    }
}

/// A result of what `made` holds, the document compiled, and the engine and images to draw
/// with.
fn hand_out<'a>(
    made: Made,
    document: DocumentRef<'a>,
    host: HostRef<'a>,
    text: Held<'a, TextEngine>,
    pictures: Held<'a, dyn Pictures + Send>,
) -> Compiled<'a> {
    let Made { scene, layout, kept_variables, imports, found, .. } = made;
    let pictures = std::sync::Mutex::new(pictures);
    Compiled { document, host, scene, layout, kept_variables, text, pictures, imports, found }
}

/// One warning per import that was not loaded, saying how many uses it has, instead of one per
/// use: a 4,835-node design built on a library nib cannot find said it 1,416 times. A use is an
/// `import` finding at a node and at the import's entry (resolve makes them); the warnings of
/// the display list about the same nodes (a dashed outline for an instance, a variable that
/// paints nothing) follow from it and go too. Without a warning about the import (a host that
/// says nothing of it) the uses stay as they are.
pub(super) fn fold_import_uses(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let pointer = |d: &Diagnostic| d.span.as_ref().map(|span| span.pointer.clone());
    let said: std::collections::HashSet<String> =
        diagnostics.iter().filter(|d| d.code == "import" && d.node.is_none()).filter_map(pointer).collect();
    let is_use =
        |d: &Diagnostic| d.code == "import" && d.node.is_some() && pointer(d).is_some_and(|p| said.contains(&p));
    let mut uses: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut nodes = std::collections::HashSet::new();
    for diagnostic in diagnostics.iter().filter(|d| is_use(d)) {
        *uses.entry(pointer(diagnostic).unwrap_or_default()).or_default() += 1;
        nodes.extend(diagnostic.node.clone());
    }
    diagnostics
        .into_iter()
        .filter(|d| !is_use(d))
        .filter(|d| !(d.code == "unresolved" && d.node.as_ref().is_some_and(|node| nodes.contains(node))))
        .map(|mut d| {
            if let Some(count) = pointer(&d).and_then(|p| uses.get(&p)).filter(|_| d.node.is_none()) {
                d.message = format!("{} (used {count} time{})", d.message, if *count == 1 { "" } else { "s" });
            }
            d
        })
        .collect()
}
