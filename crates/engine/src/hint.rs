//! Hints to the CPU that have no effect on results.

/// Asks the CPU to start loading the first cache lines of `r` (up to 256 bytes), so that a
/// later access finds them in cache. A hint only: no effect on results, and a no-op on other
/// architectures than x86-64.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (r as *const T).cast::<i8>();
        let bytes = std::mem::size_of::<T>().clamp(1, 256);
        let mut off = 0;
        while off < bytes {
            // SAFETY: SSE is part of the x86-64 baseline, and a prefetch never faults or
            // reads into the program: any address is allowed (here, bytes of `*r`).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off)) };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
