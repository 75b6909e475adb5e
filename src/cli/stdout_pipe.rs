//! The pipe an MCP client reads nib's answers from.

/// Bytes the pipe on stdout holds once widened: Linux's limit for a process without privileges
/// (`/proc/sys/fs/pipe-max-size`). At the default 64 KiB a screenshot's answer (136–311 KB for
/// the corpus frames that were timed) is written a pipeful at a time, each waiting for the
/// client to read: a repeated screenshot of cirrus TBCqR (311 KB), read by a Python client
/// through stdio, three interleaved rounds of 500: 0.60 / 0.72 / 0.64 ms → 0.50 / 0.52 /
/// 0.49 ms median, p99 0.94 / 0.88 / 0.92 → 0.77 / 0.71 / 0.63 ms.
#[cfg(target_os = "linux")]
const WIDENED_BYTES: libc::c_int = 1 << 20;

/// Widens stdout's pipe, if stdout is one. Nothing happens to a file or a terminal, nor where
/// the system allows less (the pipe keeps the size it had).
pub fn widen() {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let stdout = std::io::stdout().as_raw_fd();
        // SAFETY: F_SETPIPE_SZ takes an integer, not a pointer; on what is not a pipe, or beyond
        // the limit, it fails and changes nothing.
        let size = unsafe { libc::fcntl(stdout, libc::F_SETPIPE_SZ, WIDENED_BYTES) };
        tracing::debug!(size, "stdout's pipe widened (-1: not a pipe, or not allowed)");
    }
}
