//! Giving freed heap memory back to the system between the runs of one process (`bbsim
//! sweep`, `bbsim size`).
//!
//! glibc's allocator keeps what a run frees for reuse, and the next run does not reuse all of
//! it: the study's largest sweep (S3D+LAMMPS on the Summit-like tapered grouped placement,
//! three points) peaked at 1.98 GB of resident memory against 1.83 GB for its largest point
//! alone, with the same peak heap. Trimming after each run brings that sweep to 1.84 GB, but
//! not every sweep to its points' peak: glibc also raises its threshold for giving a large
//! block its own mapping each time such a block is freed, so later large blocks come from the
//! heap and fragment it. With the threshold held at 1 MiB as well, a sweep at a tenth of the
//! ranks peaks at its largest point's 236 MB (261 MB with the trim alone), and LAMMPS+IOR on
//! the tapered grouped placement at 1.62 GB, its points alone 1.59-1.61 GB (the matrix's sweep
//! of it with the trim alone, on a build that boxed one-unit pages, logged 2.01 GB).

/// Hands the heap's free pages back to the system (glibc's `malloc_trim`); elsewhere it does
/// nothing. Call it when a run's state has been dropped.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only gives free heap memory back to the system; it has no
    // preconditions and is safe to call from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Keeps large allocations (1 MiB and more) in their own mappings, given back as soon as they
/// are freed, instead of letting glibc raise that threshold as the run frees large blocks.
pub fn map_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's threshold; it has no preconditions.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}
