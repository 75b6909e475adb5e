//! Screenshots already rendered, answered again while nothing they show has changed.
//!
//! An entry holds the laid-out parts it was drawn from. Parts are rebuilt (new `Arc`s) whenever
//! an edit touches them, a component or variable they use, or the fonts they were measured
//! with; an untouched part is shared from one revision to the next. So an entry is valid exactly
//! while the layout shows the very same parts, and holding them keeps their addresses from
//! being reused by other parts.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::layout::{Layout, PartLayout};
use crate::render::{Painted, RenderOptions};

/// Most screenshots kept per document.
pub const MAX_ENTRIES: usize = 32;

/// Most bytes of base64 PNG kept per document: a few full-size screenshots (each at most
/// 4 MiB of PNG).
pub const MAX_BYTES: usize = 32 * 1024 * 1024;

/// Most pixels of the pictures kept unencoded for a repaint, all together, with the layers of
/// their translucent containers (16 MB of pixmaps): a picture larger than 2048 × 2048 after an
/// edit is painted whole again.
pub const MAX_KEPT_PIXELS: u64 = 4 * 1024 * 1024;

/// Most pictures kept unencoded for a repaint: an agent going back and forth between a few
/// frames (a screen and the component it edits, two screens of a flow) repaints each one.
pub const MAX_KEPT_PICTURES: usize = 4;

/// What a screenshot is of: a node id (or `None` for the canvas), under a theme, at a scale,
/// with options.
#[derive(Debug, Clone, PartialEq)]
pub struct ShotKey {
    /// The node, or `None` for the whole canvas.
    pub node: Option<String>,
    /// The theme it is drawn under (axis, value), or `None` for the document's own look.
    pub theme: Option<Vec<(String, String)>>,
    /// Device pixels per canvas pixel.
    pub scale: f32,
    /// The rest of the rendering options.
    pub options: RenderOptions,
}

/// A rendered screenshot.
#[derive(Debug, Clone)]
pub struct Shot {
    /// The PNG, base64-encoded as answered (a hit then costs a copy, not an encoding).
    pub data: Arc<str>,
    /// Its size in pixels.
    pub width: u32,
    /// Its size in pixels.
    pub height: u32,
    /// The scale it was finally drawn at (smaller than asked when the PNG was too heavy).
    pub scale: f32,
    /// What could not be drawn as written.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
}

struct Entry {
    key: ShotKey,
    parts: Vec<Arc<PartLayout>>,
    shot: Shot,
}

/// The screenshots of one document, most recently used last.
#[derive(Default)]
pub struct RenderCache {
    entries: VecDeque<Entry>,
    bytes: usize,
    hits: u64,
    misses: u64,
    /// The last screenshots drawn, kept unencoded with their display lists, most recent last:
    /// the next screenshot of one of their targets after an edit repaints only what the edit
    /// changed.
    kept: VecDeque<Kept>,
    /// Pictures painted only where an edit changed them, or not at all.
    repainted: u64,
}

/// A picture kept for a repaint: its target, the picture with its display list, its answer.
struct Kept {
    key: ShotKey,
    painted: Painted,
    shot: Shot,
}

impl Kept {
    /// The picture's pixels and its kept layers'.
    fn pixels(&self) -> u64 {
        self.painted.pixels()
    }
}

/// The parts a screenshot of `part` (one top-level part, or every part for the canvas) shows.
pub(crate) fn parts_shown(layout: &Layout, part: Option<usize>) -> Vec<Arc<PartLayout>> {
    match part {
        Some(index) => layout.parts().get(index).into_iter().cloned().collect(),
        None => layout.parts().to_vec(),
    }
}

impl RenderCache {
    /// The screenshot for `key` if it was drawn from exactly `parts`.
    pub fn get(&mut self, key: &ShotKey, parts: &[Arc<PartLayout>]) -> Option<Shot> {
        let shot = self.lookup(key, parts);
        match shot {
            Some(_) => self.hits += 1,
            None => self.misses += 1,
        }
        shot
    }

    fn lookup(&mut self, key: &ShotKey, parts: &[Arc<PartLayout>]) -> Option<Shot> {
        let index = self.entries.iter().position(|e| e.key == *key)?;
        let entry = &self.entries[index];
        let same = entry.parts.len() == parts.len() && entry.parts.iter().zip(parts).all(|(a, b)| Arc::ptr_eq(a, b));
        if !same {
            // What it showed has changed: it can never be answered again.
            let stale = self.entries.remove(index)?;
            self.bytes -= stale.shot.data.len();
            return None;
        }
        let entry = self.entries.remove(index)?;
        let shot = entry.shot.clone();
        self.entries.push_back(entry);
        Some(shot)
    }

    /// Keeps `shot`, dropping the least recently used screenshots beyond the bounds.
    pub fn put(&mut self, key: ShotKey, parts: Vec<Arc<PartLayout>>, shot: Shot) {
        if shot.data.len() > MAX_BYTES {
            return;
        }
        if let Some(old) = self.entries.iter().position(|e| e.key == key).and_then(|index| self.entries.remove(index)) {
            self.bytes -= old.shot.data.len();
        }
        self.bytes += shot.data.len();
        self.entries.push_back(Entry { key, parts, shot });
        while self.entries.len() > MAX_ENTRIES || self.bytes > MAX_BYTES {
            let Some(oldest) = self.entries.pop_front() else { break };
            self.bytes -= oldest.shot.data.len();
        }
    }

    /// Takes the last picture drawn for `key` (kept by [`RenderCache::keep_painted`]), to
    /// repaint it after an edit.
    pub(crate) fn take_painted(&mut self, key: &ShotKey) -> Option<(Painted, Shot)> {
        let index = self.kept.iter().position(|kept| kept.key == *key)?;
        self.kept.remove(index).map(|kept| (kept.painted, kept.shot))
    }

    /// Keeps `painted` (drawn for `key`, answered as `shot`) as the most recent picture,
    /// dropping the oldest beyond [`MAX_KEPT_PICTURES`] or [`MAX_KEPT_PIXELS`] in all; a picture
    /// larger than that alone is not kept.
    pub(crate) fn keep_painted(&mut self, key: ShotKey, painted: Painted, shot: Shot) {
        self.kept.retain(|kept| kept.key != key);
        let mut kept = Kept { key, painted, shot };
        if kept.pixels() > MAX_KEPT_PIXELS {
            // The picture alone may still fit: a repaint then paints its containers' children.
            kept.painted.drop_layers();
            if kept.pixels() > MAX_KEPT_PIXELS {
                return;
            }
        }
        self.kept.push_back(kept);
        while self.kept.len() > MAX_KEPT_PICTURES || self.kept.iter().map(Kept::pixels).sum::<u64>() > MAX_KEPT_PIXELS {
            self.kept.pop_front();
        }
    }

    /// Counts a picture drawn with `damage` painted again.
    pub(crate) fn count_repaint(&mut self, damage: crate::render::Damage) {
        if damage != crate::render::Damage::Everything {
            self.repainted += 1;
        }
    }

    /// How many pictures were painted only where an edit changed them (or not at all, when
    /// nothing visible changed).
    pub fn repainted(&self) -> u64 {
        self.repainted
    }

    /// How many screenshots were answered from the cache, and how many had to be drawn.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// How many screenshots are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when none is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every screenshot (the files they show may have changed, e.g. images).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
        self.kept.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(node: &str) -> ShotKey {
        ShotKey { node: Some(node.into()), theme: None, scale: 1.0, options: RenderOptions::default() }
    }

    fn shot(bytes: usize) -> Shot {
        Shot { data: "A".repeat(bytes).into(), width: 1, height: 1, scale: 1.0, warnings: Vec::new() }
    }

    #[test]
    fn the_least_recently_used_screenshots_go_first_beyond_the_bounds() {
        let mut cache = RenderCache::default();
        for i in 0..MAX_ENTRIES + 3 {
            cache.put(key(&i.to_string()), Vec::new(), shot(10));
        }
        assert_eq!(cache.len(), MAX_ENTRIES);
        assert!(cache.get(&key("0"), &[]).is_none());
        assert!(cache.get(&key("3"), &[]).is_some());
        // Bytes bound: two halves fit, a third pushes the oldest out.
        let mut cache = RenderCache::default();
        cache.put(key("a"), Vec::new(), shot(MAX_BYTES / 2));
        cache.put(key("b"), Vec::new(), shot(MAX_BYTES / 2));
        assert_eq!(cache.len(), 2);
        cache.put(key("c"), Vec::new(), shot(1));
        assert!(cache.get(&key("a"), &[]).is_none() && cache.get(&key("c"), &[]).is_some());
    }

    #[test]
    fn another_scale_or_option_is_another_screenshot() {
        let mut cache = RenderCache::default();
        cache.put(key("a"), Vec::new(), shot(1));
        assert!(cache.get(&ShotKey { scale: 2.0, ..key("a") }, &[]).is_none());
        let options = RenderOptions { mark_missing: true, ..RenderOptions::default() };
        assert!(cache.get(&ShotKey { options, ..key("a") }, &[]).is_none());
        assert!(cache.get(&key("a"), &[]).is_some());
    }
}
