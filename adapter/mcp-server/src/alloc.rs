//! How the adapter's memory goes back to the system: glibc malloc tuning for a server whose
//! per-run buffers come and go (bench/soak.md).
//!
//! Two measures, both no-ops off linux-gnu:
//! - [`pin_mmap_threshold`], first thing in `main`: blocks of 128 KiB or more stay in their own
//!   mappings, returned when freed;
//! - `trim_idle`, when the run table becomes empty and once after the `tools/list` listing is
//!   built: the free pages inside the heap go back.

/// glibc's mmap threshold for large blocks (its own initial value, `DEFAULT_MMAP_THRESHOLD_MIN`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 * 1024;

/// Keeps every block of 128 KiB or more in its own mapping, returned to the system when freed.
///
/// glibc starts with that threshold but raises it to the size of the first mapped block freed
/// (up to 32 MiB), after which such blocks come from the malloc arenas. Every run allocates a
/// 256 KiB read buffer (`cmk_engine::driver`), and long lines and event pages make other blocks that
/// size, so once the threshold moved these landed in the arena of whichever thread allocated
/// them, and each arena's heap ratcheted up to its own high-water mark of interleaved large and
/// small blocks: +1.1 MiB of RSS over the first ~2 000 runs of the soak, with the adapter idle
/// at both samples (bench/soak.md). Setting the threshold explicitly turns that adjustment off
/// (and with it the matching rise of the trim threshold), so a released run's large buffers
/// leave the process's RSS; a mapped block also only costs the pages actually touched.
pub fn pin_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt(3) only changes glibc's allocator parameters; it is called first thing in
    // main, before any other thread exists, and M_MMAP_THRESHOLD with a value under glibc's
    // maximum (32 MiB on 64-bit) is always accepted. A failure (returns 0) would only leave the
    // default behaviour, so the result is not checked.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Returns the heap's free pages to the system; called when the last retained run is released,
/// and once after the `tools/list` listing is first built (the trees it was built from left
/// ~0.5 MiB of free heap resident in an adapter that then idles; bench/startup.md, third round).
///
/// With large blocks mapped, a run's remaining buffers (event lines, the stream decoder, JSON
/// values) are small blocks in the heap. glibc gives heap memory back only from the top, so a
/// small block that outlives a busy moment (a table entry, a task, a channel) keeps the freed
/// space under it resident: in the soak the main heap swung between 5.0 and 6.6 MiB from one idle
/// sample to the next, as live blocks happened to land. `malloc_trim(0)` also releases whole
/// free pages inside the heap (`MADV_DONTNEED`), so an idle adapter holds what is live plus
/// partial pages. Only on those two occasions (the transition to an empty table, the listing
/// built once): a busy adapter never pays for it (~0.12 ms a call, bench/soak.md).
pub(crate) fn trim_idle() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim(3) takes each arena's lock itself and only releases memory that is
    // free; it is safe to call from any thread at any time. Its result (whether memory was
    // released) is of no use here.
    unsafe {
        libc::malloc_trim(0);
    }
}
