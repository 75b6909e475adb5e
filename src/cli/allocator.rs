//! The binary's allocator and how it is tuned: the library leaves both to its users.

/// mimalloc keeps freed memory for the next allocation instead of returning large blocks to
/// the system, where every later layer of a render would fault its pages in again (glibc's
/// default): a few milliseconds of a `nib render --node` process.
///
/// It is built without its 4 MiB "large" pages (`MI_ENABLE_LARGE_PAGES=0`, set for its C code
/// in `.cargo/config.toml`): with them every size class of 84–512 KiB a thread uses takes a 4
/// MiB page of its own, whose first touch zeroes a 2 MiB transparent huge page for a few hundred
/// KiB of use; without them such a block is a page of its own size, next to the others. `nib
/// render --node hhC2R`: 29 → 14 huge pages zeroed, peak RSS 90.6 → 63.6 MB, 16.3 → 14.3 ms.
///
/// Nor does it collect its memory at exit (`MI_SKIP_COLLECT_ON_EXIT`, the same file): that
/// collection is for a mimalloc inside a library loaded and unloaded again; for a process it
/// only handed back, one `madvise` per run of pages, what the exit frees at once (140 calls,
/// 1.7–3.2 ms of a `nib render --node` process).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the 16th option of `mi_option_e` in mimalloc 3's
/// `mimalloc.h`; `libmimalloc-sys` names no constant for it).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory stays with the process before mimalloc gives it back to the system.
/// Its default, 1 s, gave back what a picture freed before the next picture could take it, and
/// fresh pages come zeroed by the kernel (2 MiB at a time with transparent huge pages): a
/// server answering get_screenshot spent 42 % of its time in that zeroing, and the first
/// pictures of the smalti file took up to 72 ms (15 ms with memory kept). Thirty seconds keeps
/// it between an agent's calls and still returns it when the agent stops.
const KEEP_FREED_MEMORY_MS: std::ffi::c_long = 30_000;

/// Keeps freed memory for [`KEEP_FREED_MEMORY_MS`], unless `MIMALLOC_PURGE_DELAY` says otherwise.
pub fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: setting an option is a plain store mimalloc allows at any time; the option
        // is read each time memory is freed.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, KEEP_FREED_MEMORY_MS) };
    }
}

/// For a process that answers many calls (`nib mcp`, `nib serve`): no transparent huge pages.
///
/// mimalloc asks for them on its whole arena, and a fault there zeroes 2 MiB however little of
/// it a picture then uses; in a server that memory is faulted once and reused, so the huge
/// pages buy nothing and their zeroing shows as the slowest answers. `cargo bench --bench
/// screenshot`, first pictures of 331 corpus frames: max 49.9 → 24.2 ms, p95 18.8 → 14.0 ms,
/// "transport and the rest" max 41.2 → 7.7 ms. A one-shot `nib render` is the other way round
/// (its memory is all fresh, and 4 KiB faults cost more than 2 MiB ones: median 29.5 → 45.7 ms
/// with them off), so only servers turn them off.
pub fn for_a_server() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes no pointer; it only sets a flag of this process, which
    // the kernel checks on each later page fault.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        // The number of the option is mimalloc's enum order: its default (1 s in mimalloc 3)
        // shows that number still names the purge delay.
        // SAFETY: reading an option.
        let before = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(before, 1000, "mimalloc's option {PURGE_DELAY} is not the purge delay any more");
        }
        keep_freed_memory();
        // SAFETY: reading an option.
        let after = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(after, KEEP_FREED_MEMORY_MS);
        }
    }

    #[test]
    fn blocks_of_a_few_hundred_kib_lie_side_by_side_instead_of_a_large_page_each() {
        // On a thread of its own, so no block of its size classes is kept from earlier.
        let span = std::thread::spawn(|| {
            // Eight size classes between 84 and 512 KiB: with mimalloc's large pages each takes a
            // 4 MiB page of its own, so they span at least 28 MiB.
            let blocks: Vec<Vec<u8>> =
                [90, 130, 170, 210, 260, 330, 400, 480].iter().map(|kib| Vec::with_capacity(kib * 1024)).collect();
            let starts = blocks.iter().map(|block| block.as_ptr() as usize);
            let (low, high) = (starts.clone().min().unwrap_or(0), starts.max().unwrap_or(0));
            high - low
        })
        .join()
        .expect("the allocating thread");
        assert!(
            span < 16 << 20,
            "blocks of 90–480 KiB span {} MiB: is mimalloc built with MI_ENABLE_LARGE_PAGES=0 (.cargo/config.toml)?",
            span >> 20
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_server_has_no_transparent_huge_pages() {
        for_a_server();
        // SAFETY: PR_GET_THP_DISABLE takes no pointer.
        assert_eq!(unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) }, 1);
    }
}
