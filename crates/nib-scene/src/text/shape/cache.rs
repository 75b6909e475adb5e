//! The shapes an engine keeps in memory (not the font folder of `text/cache.rs`): shaped texts by
//! text, family, style and wrapping width, and cosmic-text's buffers to wrap a text again at
//! another width, each bounded; the hashes that key them, computed once per prepared text; and
//! shaping through them. Separate from shaping itself, which knows nothing of what is kept.

use std::collections::HashMap;
use std::sync::Arc;

use cosmic_text::Buffer;

use super::{PreparedText, SHAPING, TextEngine};
use crate::doc::values::TextAlign;
use crate::text::relayout;
use crate::text::shaped::{LineRule, ShapedText};
use crate::text::style::TextStyle;

/// Cached shapes kept before the cache is emptied (a long session must not grow without bound).
pub(super) const CACHE_LIMIT: usize = 50_000;

/// Bytes of text whose shaped buffers are kept before they are all dropped: cosmic-text keeps
/// about 400 bytes for each character it shaped, so a document's texts must not all stay
/// shaped (a buffer only saves shaping a text again to wrap it at another width).
pub(super) const BUFFERED_TEXT_LIMIT: usize = 256 * 1024;

/// What a cached shape was made from, to tell a hash collision from a hit.
#[derive(Debug)]
pub(super) struct CacheEntry {
    text: String,
    family: String,
    signature: Signature,
    wrap: Option<u32>,
    shaped: Arc<ShapedText>,
}

/// A text shaped by cosmic-text, ready to be wrapped at any width.
pub(super) struct ShapedBuffer {
    pub(super) text: String,
    pub(super) family: String,
    pub(super) signature: Signature,
    pub(super) buffer: Buffer,
    /// Its paragraphs as shaped, corrected where the browser shapes otherwise (`relayout`);
    /// `None` when the buffer's own shaping is right.
    pub(super) corrected: Option<relayout::Corrected>,
    /// How its lines are built.
    pub(super) rule: LineRule,
}

/// The parts of a style that change the shapes (alignment only matters when justified).
pub(super) type Signature = (u16, bool, bool, u32, u32, u32);

pub(super) fn signature(style: &TextStyle) -> Signature {
    let justify = style.align == TextAlign::Justify;
    (
        style.weight,
        style.italic,
        justify,
        style.size.to_bits(),
        style.letter_spacing.to_bits(),
        style.line_height.to_bits(),
    )
}

/// The cache is keyed by hashes computed once per prepared text: hash them no further.
#[derive(Default)]
pub(super) struct PrehashedKey(u64);

impl std::hash::Hasher for PrehashedKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = crate::hash::fnv1a_from(self.0, bytes);
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// A fast, non-cryptographic hash for cache keys (collisions are checked on lookup): words of
/// eight bytes folded with a multiply, as rustc's FxHasher does.
#[derive(Default)]
pub(super) struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let mut rest = [0u8; 8];
        rest[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.add(u64::from_le_bytes(rest) ^ bytes.len() as u64);
    }

    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

pub(super) type PrehashedMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<PrehashedKey>>;

impl TextEngine {
    /// Shapes a prepared text (see [`TextEngine::shape`]).
    pub(crate) fn shape_prepared(&mut self, prepared: &PreparedText<'_>, wrap_width: Option<f32>) -> Arc<ShapedText> {
        let wrap = wrap_width.filter(|w| w.is_finite()).map(|w| w.max(0.0).to_bits());
        let key =
            prepared.hash ^ wrap.map_or(0x9e37_79b9_7f4a_7c15, |w| u64::from(w).wrapping_mul(0xff51_afd7_ed55_8ccd));
        if let Some(entry) = self.cache.get(&key)
            && entry.wrap == wrap
            && entry.text == *prepared.text
            && entry.family == prepared.family.family
            && entry.signature == signature(&prepared.style)
        {
            return Arc::clone(&entry.shaped);
        }
        let started = SHAPING.get().map(|_| std::time::Instant::now());
        let shaped = Arc::new(self.shape_uncached(prepared, wrap.map(f32::from_bits)));
        if let (Some(started), Some(spent)) = (started, SHAPING.get()) {
            SHAPING.set(Some(spent + started.elapsed()));
        }
        if self.cache.len() >= CACHE_LIMIT {
            self.cache.clear();
        }
        let entry = CacheEntry {
            text: prepared.text.clone().into_owned(),
            family: prepared.family.family.clone(),
            signature: signature(&prepared.style),
            wrap,
            shaped: Arc::clone(&shaped),
        };
        self.cache.insert(key, entry);
        shaped
    }
}
