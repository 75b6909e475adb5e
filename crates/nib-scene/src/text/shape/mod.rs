//! Shaping and measuring text with cosmic-text over the [`FontBook`], with the rules Pen's
//! text boxes follow: a line is `round(lineHeight × fontSize)` pixels; when the line height is
//! the font's own (`normal`), a line is built as the browser builds it — every face that draws
//! on the line (the text's own, and fallback faces for symbols, emoji or other scripts) brings
//! its ascent, descent and line gap, each rounded to whole pixels, the gap split half above and
//! half below, and the line is their union (Inter 14 → 17 px; "⬡ 0 plugins" in JetBrains Mono
//! grows to the symbol face's height); letter
//! spacing is added after every character; `\n` starts a line; an empty text still has one line;
//! fixed-width text wraps at word boundaries and breaks words longer than the line.
//!
//! Results are cached by text and style, so measuring the same text again (a relayout after an
//! unrelated edit, the renderer after layout) costs a hash lookup. A text longer than
//! [`PIECE_BYTES`](super::pieces::PIECE_BYTES) is shaped a piece at a time and kept only as its
//! compact result (`pieces`).
//!
//! This file is the engine's face: the engine, its fonts and what it tells about them, and
//! preparing a text. The caches of shaped texts and their keys are in `cache.rs`; shaping a
//! text with cosmic-text (choosing faces, building lines, long texts a piece at a time) is in
//! `shaping.rs`.

mod cache;
mod shaping;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use cosmic_text::{FontSystem, fontdb};

use self::cache::{CacheEntry, FastHasher, PrehashedMap, ShapedBuffer, signature};
use super::document_fonts::DocumentFonts;
use super::faces::Origin;
use super::fonts::{FamilyChoice, FamilyEntry, FontBook};
use super::registry::{FaceFile, FaceUse, GlyphFace, REGISTERED, Registry, UsedFont};
use super::runs::Chain;
use super::shaped::ShapedText;
use super::style::TextStyle;
use crate::diagnostic::Diagnostic;

/// A text and its style made ready for repeated shaping: the family chosen and the cache key
/// hashed once, so that measuring it again (layout asks several times) costs no allocation.
#[derive(Debug, Clone)]
pub struct PreparedText<'a> {
    text: Cow<'a, str>,
    style: TextStyle,
    family: Arc<FamilyChoice>,
    hash: u64,
}

impl PreparedText<'_> {
    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The style.
    pub fn style(&self) -> &TextStyle {
        &self.style
    }

    /// The family shaped with, and the one it replaces when the requested one is missing.
    pub fn family(&self) -> &FamilyChoice {
        &self.family
    }
}

/// Shapes text with the fonts of one [`FontBook`] (and a document's own fonts). Not shared
/// between threads: each thread that lays out or renders keeps its own.
pub struct TextEngine {
    book: Arc<FontBook>,
    system: FontSystem,
    /// The faces read so far and their entries in `system`'s database.
    registry: Registry,
    /// Faces tried per character, by family, weight and style.
    chains: Vec<Chain>,
    chain_index: HashMap<(String, u16, bool), usize>,
    /// The families tried after a text's own, made on first use.
    fallbacks: Option<Arc<Vec<FamilyEntry>>>,
    /// The document's own fonts (its top-level `fonts` list).
    document: Arc<DocumentFonts>,
    cache: PrehashedMap<CacheEntry>,
    /// Shaped texts, kept to lay them out again at other widths without shaping them again.
    buffers: PrehashedMap<ShapedBuffer>,
    /// Bytes of text in `buffers`.
    buffered_bytes: usize,
    /// Glyph outlines by face entry and glyph (see [`TextEngine::glyph_outline`]).
    pub(super) outlines: HashMap<(fontdb::ID, u16), Arc<super::outline::GlyphOutline>>,
    /// Icons by family, name and weight (see [`TextEngine::icon`]).
    pub(super) icons: HashMap<(String, String, u16), Option<Arc<super::icons::IconDrawing>>>,
    /// The family each requested family name is shaped with.
    family_choices: HashMap<String, Arc<FamilyChoice>>,
}

impl std::fmt::Debug for TextEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextEngine").field("cached", &self.cache.len()).finish_non_exhaustive()
    }
}

thread_local! {
    /// Time spent shaping on this thread, while someone measures it (`nib render --timings`):
    /// layout shapes as it measures, and the two are told apart only by this clock.
    static SHAPING: std::cell::Cell<Option<std::time::Duration>> = const { std::cell::Cell::new(None) };
}

/// Starts measuring the time this thread spends shaping text.
pub fn start_shaping_clock() {
    SHAPING.set(Some(std::time::Duration::ZERO));
}

/// Stops measuring, and answers the time spent shaping since [`start_shaping_clock`].
pub fn stop_shaping_clock() -> Option<std::time::Duration> {
    SHAPING.replace(None)
}

impl TextEngine {
    /// An engine over `book`. Nothing is read until a text is shaped.
    pub fn new(book: Arc<FontBook>) -> TextEngine {
        let registry = Registry::new(Arc::clone(book.files()));
        TextEngine::with_database(book, fontdb::Database::new(), registry)
    }

    /// A new engine for another thread that names every face as this one does, so it can draw
    /// text this one shaped. Caches start empty.
    pub fn fork(&self) -> TextEngine {
        let mut forked =
            TextEngine::with_database(Arc::clone(&self.book), self.system.db().clone(), self.registry.clone());
        forked.document = Arc::clone(&self.document);
        forked
    }

    fn with_database(book: Arc<FontBook>, database: fontdb::Database, registry: Registry) -> TextEngine {
        // A fixed locale and no fallback of the shaper's own: the faces are chosen in `runs`.
        let system = FontSystem::new_with_locale_and_db_and_fallback("en-US".to_owned(), database, NoFallback);
        TextEngine {
            book,
            system,
            registry,
            chains: Vec::new(),
            chain_index: HashMap::new(),
            fallbacks: None,
            document: Arc::new(DocumentFonts::default()),
            cache: PrehashedMap::default(),
            buffers: PrehashedMap::default(),
            buffered_bytes: 0,
            outlines: HashMap::new(),
            icons: HashMap::new(),
            family_choices: HashMap::new(),
        }
    }

    /// Uses `fonts` (a document's own) from now on; what was measured with other document fonts
    /// is forgotten.
    pub fn set_document_fonts(&mut self, fonts: Arc<DocumentFonts>) {
        if *self.document == *fonts {
            return;
        }
        self.document = fonts;
        self.family_choices.clear();
        self.chains.clear();
        self.chain_index.clear();
        self.fallbacks = None;
        self.cache.clear();
        self.buffers.clear();
        self.buffered_bytes = 0;
    }

    /// The document fonts in use.
    pub fn document_fonts(&self) -> &Arc<DocumentFonts> {
        &self.document
    }

    /// The font files the texts shaped so far used, sorted (for `nib render --json`).
    pub fn fonts_used(&self) -> Vec<UsedFont> {
        self.registry.used()
    }

    /// Font files that could not be read when a text needed them, with why (`font-file`
    /// warnings the compiler says with the rest).
    pub fn font_failures(&self) -> &[Diagnostic] {
        self.registry.failures()
    }

    /// The font file a shaped glyph's `font` entry is read from.
    pub fn font_of(&self, font: fontdb::ID) -> Option<UsedFont> {
        self.registry.font_of(font)
    }

    /// The face of the database entry `font` of a shaped glyph, with its file, as a page ships it.
    pub fn face_file(&self, font: fontdb::ID) -> Option<FaceFile> {
        self.registry.face_file(self.system.db(), font)
    }

    /// The face of the database entry `font` of a shaped glyph, as a PDF embeds it.
    pub fn glyph_face(&self, font: fontdb::ID) -> Option<GlyphFace> {
        self.registry.glyph_face(font)
    }

    /// How the database entry `font` of a shaped glyph is drawn (weight, slant).
    pub(crate) fn face_use(&self, font: fontdb::ID) -> Option<FaceUse> {
        self.registry.face_use(font)
    }

    /// The cosmic-text font system (its database holds the faces glyphs name).
    pub(crate) fn font_system(&self) -> &FontSystem {
        &self.system
    }

    /// The faces read so far (those of the text shaped) under their real family names, weights
    /// and styles: for renderers that look fonts up by name (an SVG rasteriser, a PDF writer, a
    /// page's `@font-face`); the shaping database names each face by an internal key.
    pub fn named_database(&self) -> fontdb::Database {
        self.registry.named_database(self.system.db())
    }

    /// The fonts this engine shapes with.
    pub fn book(&self) -> &Arc<FontBook> {
        &self.book
    }

    /// The family `requested` is shaped with: the document's own font of that name, else what
    /// the [`FontBook`] chooses.
    pub fn choose_family(&mut self, requested: &str) -> Arc<FamilyChoice> {
        if let Some(choice) = self.family_choices.get(requested) {
            return Arc::clone(choice);
        }
        let choice = Arc::new(match self.document.family(requested) {
            Some(entry) => FamilyChoice {
                family: entry.name.clone(),
                replaced: None,
                substitution: None,
                origin: Origin::Document,
            },
            None => self.book.choose_family(requested),
        });
        self.family_choices.insert(requested.to_owned(), Arc::clone(&choice));
        choice
    }

    /// Prepares `text` in `style` for shaping (see [`PreparedText`]).
    pub(crate) fn prepare<'a>(&mut self, text: impl Into<Cow<'a, str>>, style: &TextStyle) -> PreparedText<'a> {
        let text = text.into();
        let family = self.choose_family(&style.family);
        let mut hasher = FastHasher::default();
        hasher.write(text.as_bytes());
        hasher.write(family.family.as_bytes());
        signature(style).hash(&mut hasher);
        PreparedText { text, style: style.clone(), family, hash: hasher.finish() }
    }

    /// Shapes `text`; `wrap_width` wraps lines at that many pixels, `None` keeps one line per
    /// paragraph.
    pub fn shape(&mut self, text: &str, style: &TextStyle, wrap_width: Option<f32>) -> Arc<ShapedText> {
        let prepared = self.prepare(text, style);
        self.shape_prepared(&prepared, wrap_width)
    }
}

/// No fallback of cosmic-text's own: every run names the face that has its characters (see
/// `runs`), and a character no face has must stay a missing glyph rather than take whatever
/// face the database happens to hold.
struct NoFallback;

impl cosmic_text::Fallback for NoFallback {
    fn common_fallback(&self) -> &[&'static str] {
        &[]
    }

    fn forbidden_fallback(&self) -> &[&'static str] {
        &[REGISTERED]
    }

    fn script_fallback(&self, _script: unicode_script::Script, _locale: &str) -> &[&'static str] {
        &[]
    }
}
