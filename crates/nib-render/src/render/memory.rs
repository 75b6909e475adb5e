//! The memory rendering may take, bounded for the whole process.
//!
//! A render's memory is its layers: a node with opacity, a blur or a clip paints into a layer as
//! large as what it covers, and layers nest, so their memory is depth × area: 30 nested
//! 8000 × 8000 frames, each with opacity and a blur, asked 7.85 GB of a 4.8 KB document, and
//! frames rendered side by side on every core add up. Every layer, mask and blur
//! buffer is taken from one [`Pool`] of [`RENDER_MEMORY`] bytes first:
//!
//! - A render that needs more than the pool alone stops with an error that names the node
//!   ([`RenderError::Memory`](super::RenderError::Memory)) — never an abort, never a blank
//!   picture. This depends only on the document, the node and the scale, not on what else runs.
//! - Renders side by side share the pool without deadlock: the oldest render waits for memory
//!   the others give back; any other render that finds the pool taken gives back everything it
//!   holds, waits until there is room (or until it is the oldest) and starts again. Nobody
//!   waits while holding memory, so the oldest always finishes; a render started again paints
//!   the same bytes.
//!
//! Decoded images are bounded apart ([`super::images`]): they outlive renders.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// Bytes all renders of the process may hold at once: layers, masks and blur buffers. With the
/// decoded images ([`super::images::IMAGE_CACHE_BYTES`]) a render stays within the 1 GB a tool
/// call may take (DESIGN.md). The largest corpus frame at 2× takes about 40 MB.
pub const RENDER_MEMORY: u64 = 768 * 1024 * 1024;

/// Bytes a layer costs per pixel: four for its pixels and one for the mask that clips or cuts it.
pub(crate) const LAYER_BYTES_PER_PIXEL: u64 = 5;

/// What a render may hold, shared by every render of the process.
#[derive(Debug)]
pub(crate) struct Pool {
    limit: AtomicU64,
    state: Mutex<PoolState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct PoolState {
    used: u64,
    /// The renders under way, by the order they started: the first is the oldest.
    active: BTreeSet<u64>,
    next: u64,
}

/// The process's pool: [`RENDER_MEMORY`] until the program sets another budget
/// ([`set_render_memory`]; the `nib` binary reads `NIB_RENDER_MEMORY` for it).
pub(crate) fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool::new(RENDER_MEMORY))
}

/// Sets the bytes all renders of this process may hold from now on (see [`RENDER_MEMORY`]), for
/// machines with less memory or more: the program decides it (the `nib` binary from
/// `NIB_RENDER_MEMORY`), before its first render or between renders.
pub fn set_render_memory(bytes: u64) {
    pool().limit.store(bytes.max(1), Ordering::Relaxed);
    pool().changed.notify_all();
}

/// The bytes all renders of this process may hold.
pub(crate) fn render_memory() -> u64 {
    pool().limit()
}

/// `512MB`, `2GB`, `1000000`: bytes, with an optional decimal unit; `None` for anything else
/// and for 0.
pub fn parse_bytes(text: &str) -> Option<u64> {
    let text = text.trim().to_ascii_uppercase();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text.as_str(), ""),
    };
    let scale = match unit.trim() {
        "" | "B" => 1,
        "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(scale).filter(|bytes| *bytes > 0)
}

impl Pool {
    /// A pool of `limit` bytes.
    pub(crate) fn new(limit: u64) -> Pool {
        Pool { limit: AtomicU64::new(limit), state: Mutex::new(PoolState::default()), changed: Condvar::new() }
    }

    fn limit(&self) -> u64 {
        self.limit.load(Ordering::Relaxed)
    }

    /// Registers a render; its memory comes from this pool until the account is dropped.
    pub(crate) fn open(&'static self) -> Arc<Account> {
        let mut state = self.lock();
        let ticket = state.next;
        state.next += 1;
        state.active.insert(ticket);
        Arc::new(Account { pool: self, ticket, held: AtomicU64::new(0), shortfall: Mutex::new(None) })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Why memory was not given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shortfall {
    /// This render alone would hold more than the pool: it cannot be drawn at this size.
    Exceeded {
        /// What it asked for.
        asked: u64,
        /// What it held already.
        held: u64,
    },
    /// Other renders hold the memory: start again when there is room.
    Busy {
        /// What it asked for.
        asked: u64,
    },
}

/// Who asked for what was refused: the band of the picture being painted on the thread then
/// (`None` outside bands).
#[derive(Debug, Clone, Copy)]
struct Refused {
    band: Option<usize>,
}

thread_local! {
    /// The band this thread is painting, while it paints it: the account of its render (by
    /// address) and the band's place in the picture.
    static PAINTING: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Runs `paint` as band `band` of a picture drawn from `account`: memory refused to what it
/// asks is that band's. A band's task waiting on the pool may run another band's task (of this
/// render or another) meanwhile on the same thread; that one marks the thread as its own while
/// it runs and gives it back after.
pub(crate) fn as_band<T>(account: &Arc<Account>, band: usize, paint: impl FnOnce() -> T) -> T {
    let before = PAINTING.replace(Some((Arc::as_ptr(account) as usize, band)));
    let painted = paint();
    PAINTING.set(before);
    painted
}

/// One render's share of the pool.
#[derive(Debug)]
pub(crate) struct Account {
    pool: &'static Pool,
    ticket: u64,
    held: AtomicU64,
    /// The first request that was refused: the render stops there.
    shortfall: Mutex<Option<(Shortfall, Refused)>>,
}

impl Account {
    /// `bytes` from the pool, held until the lease is dropped; `None` when refused (the reason
    /// is kept in [`Account::shortfall`]).
    pub(crate) fn take(self: &Arc<Self>, bytes: u64) -> Option<Lease> {
        if self.failed() {
            return None;
        }
        match self.reserve(bytes) {
            Ok(()) => Some(Lease { account: Arc::clone(self), bytes }),
            Err(shortfall) => {
                self.refuse(shortfall);
                None
            }
        }
    }

    /// `bytes` held until the render ends (shadow coverages kept for reuse).
    pub(crate) fn keep(self: &Arc<Self>, bytes: u64) -> bool {
        if self.failed() {
            return false;
        }
        match self.reserve(bytes) {
            // Counted in `held` only: given back when the account is dropped or reset.
            Ok(()) => true,
            Err(shortfall) => {
                self.refuse(shortfall);
                false
            }
        }
    }

    /// True when a request was refused: the render must stop.
    pub(crate) fn failed(&self) -> bool {
        self.shortfall.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    /// The refused request, if any.
    pub(crate) fn shortfall(&self) -> Option<Shortfall> {
        self.shortfall.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|(shortfall, _)| shortfall.clone())
    }

    /// The band of this account's picture painting on this thread, if any.
    fn band_here(&self) -> Option<usize> {
        PAINTING.get().filter(|(account, _)| *account == std::ptr::from_ref(self) as usize).map(|(_, band)| band)
    }

    /// Notes the first refusal, and which band of the picture asked (see [`as_band`]).
    fn refuse(&self, shortfall: Shortfall) {
        let band = self.band_here();
        self.shortfall.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert((shortfall, Refused { band }));
    }

    /// True when the refusal was of a request of the band painting on this thread (or of a
    /// picture painted whole): that band names the node it was painting. Another band, which
    /// only finds the render stopped, names none.
    pub(crate) fn refused_here(&self) -> bool {
        let band = self.band_here();
        self.shortfall
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .is_some_and(|(_, refused)| refused.band == band)
    }

    /// Forgets a refusal (before a render starts again) and gives back what leases kept.
    pub(crate) fn reset(&self) {
        *self.shortfall.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let kept = self.held.swap(0, Ordering::Relaxed);
        self.release(kept, false);
    }

    /// Waits without holding anything until `asked` bytes are free or this render is the oldest.
    pub(crate) fn wait_for_room(&self, asked: u64) {
        let pool = self.pool;
        let mut state = pool.lock();
        while state.used.saturating_add(asked) > pool.limit() && state.active.first() != Some(&self.ticket) {
            state = pool.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn reserve(&self, bytes: u64) -> Result<(), Shortfall> {
        let pool = self.pool;
        let held = self.held.load(Ordering::Relaxed);
        let limit = pool.limit();
        if held.saturating_add(bytes) > limit {
            return Err(Shortfall::Exceeded { asked: bytes, held });
        }
        let mut state = pool.lock();
        loop {
            if state.used.saturating_add(bytes) <= limit {
                state.used += bytes;
                self.held.fetch_add(bytes, Ordering::Relaxed);
                return Ok(());
            }
            // Only the oldest render waits holding memory: the others give theirs back.
            if state.active.first() != Some(&self.ticket) {
                return Err(Shortfall::Busy { asked: bytes });
            }
            state = pool.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn release(&self, bytes: u64, own: bool) {
        if bytes == 0 {
            return;
        }
        if own {
            self.held.fetch_sub(bytes, Ordering::Relaxed);
        }
        let mut state = self.pool.lock();
        state.used = state.used.saturating_sub(bytes);
        drop(state);
        self.pool.changed.notify_all();
    }
}

impl Drop for Account {
    fn drop(&mut self) {
        let kept = self.held.swap(0, Ordering::Relaxed);
        let mut state = self.pool.lock();
        state.used = state.used.saturating_sub(kept);
        state.active.remove(&self.ticket);
        drop(state);
        self.pool.changed.notify_all();
    }
}

/// Memory taken from the pool; given back when dropped.
#[derive(Debug)]
pub(crate) struct Lease {
    account: Arc<Account>,
    bytes: u64,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.account.release(self.bytes, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaked(limit: u64) -> &'static Pool {
        Box::leak(Box::new(Pool::new(limit)))
    }

    #[test]
    fn a_render_larger_than_the_pool_is_refused_whatever_else_runs() {
        let pool = leaked(100);
        let account = pool.open();
        let first = account.take(60).expect("fits");
        assert!(account.take(50).is_none());
        assert_eq!(account.shortfall(), Some(Shortfall::Exceeded { asked: 50, held: 60 }));
        drop(first);
        account.reset();
        assert!(account.take(100).is_some(), "the whole pool, alone");
    }

    #[test]
    fn a_younger_render_gives_way_and_the_oldest_waits_for_it() {
        let pool = leaked(100);
        let oldest = pool.open();
        let younger = pool.open();
        let held = younger.take(50).expect("room");
        let first = oldest.take(40).expect("room");
        assert!(younger.take(30).is_none(), "the younger one is told the pool is busy");
        assert_eq!(younger.shortfall(), Some(Shortfall::Busy { asked: 30 }));
        // The oldest waits until the younger one gives its memory back.
        let waiting = std::thread::spawn(move || {
            let more = oldest.take(50).map(|lease| lease.bytes);
            drop(first);
            more
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiting.is_finished());
        drop(held);
        younger.reset();
        assert_eq!(waiting.join().unwrap(), Some(50));
    }

    #[test]
    fn sizes_read_as_bytes_with_decimal_units() {
        assert_eq!(parse_bytes("512MB"), Some(512_000_000));
        assert_eq!(parse_bytes(" 2gb "), Some(2_000_000_000));
        assert_eq!(parse_bytes("1000"), Some(1000));
        assert_eq!(parse_bytes("0"), None);
        assert_eq!(parse_bytes("lots"), None);
    }

    #[test]
    fn kept_memory_returns_when_the_render_ends() {
        let pool = leaked(100);
        let account = pool.open();
        assert!(account.keep(70));
        drop(account);
        let next = pool.open();
        assert!(next.take(100).is_some());
    }
}
