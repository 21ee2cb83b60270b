//! A spinning, sense-counting barrier that also reduces each window's values.
//!
//! Threads spin with exponential backoff and then yield, so an oversubscribed machine still
//! makes progress. The reduction (minimum next-event time, OR of flags) is double-buffered by
//! barrier generation, so a thread can read the result after release while the next
//! generation's slots are being filled.

use crossbeam::utils::{Backoff, CachePadded};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// The values every thread contributes at a window barrier, and their reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowReduction {
    /// Minimum over threads of the earliest pending or sent event time (ps).
    pub min_time: u64,
    /// Bitwise OR of the threads' flags.
    pub flags: u32,
}

/// Flag: a model requested a stop.
pub const FLAG_STOP: u32 = 1;
/// Flag: a thread hit an error.
pub const FLAG_ERROR: u32 = 2;
/// Flag: a thread saw the run's cancellation switch set.
pub const FLAG_CANCEL: u32 = 4;

/// A reusable barrier for a fixed number of threads, with a min/OR reduction.
pub struct SpinBarrier {
    threads: usize,
    arrived: CachePadded<AtomicUsize>,
    generation: CachePadded<AtomicUsize>,
    min_time: [CachePadded<AtomicU64>; 2],
    flags: [CachePadded<AtomicU32>; 2],
    poisoned: AtomicBool,
}

/// The barrier was poisoned because another thread failed.
#[derive(Debug)]
pub struct Poisoned;

impl SpinBarrier {
    /// A barrier for `threads` participants.
    pub fn new(threads: usize) -> Self {
        SpinBarrier {
            threads: threads.max(1),
            arrived: CachePadded::new(AtomicUsize::new(0)),
            generation: CachePadded::new(AtomicUsize::new(0)),
            min_time: [
                CachePadded::new(AtomicU64::new(u64::MAX)),
                CachePadded::new(AtomicU64::new(u64::MAX)),
            ],
            flags: [
                CachePadded::new(AtomicU32::new(0)),
                CachePadded::new(AtomicU32::new(0)),
            ],
            poisoned: AtomicBool::new(false),
        }
    }

    /// Marks the barrier failed: every waiting and future caller returns [`Poisoned`].
    pub fn poison(&self) {
        self.poisoned.store(true, Ordering::Release);
    }

    /// Contributes `mine`, waits for all threads, and returns the reduction. The last thread to
    /// arrive runs `leader` before releasing the others.
    pub fn wait(
        &self,
        mine: WindowReduction,
        leader: impl FnOnce(),
    ) -> Result<WindowReduction, Poisoned> {
        let generation = self.generation.load(Ordering::Acquire);
        let slot = generation & 1;
        self.min_time[slot].fetch_min(mine.min_time, Ordering::AcqRel);
        self.flags[slot].fetch_or(mine.flags, Ordering::AcqRel);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            // Reset the other slot for the next generation; every thread has read it by now
            // (they read it before arriving here).
            self.min_time[slot ^ 1].store(u64::MAX, Ordering::Relaxed);
            self.flags[slot ^ 1].store(0, Ordering::Relaxed);
            self.arrived.store(0, Ordering::Relaxed);
            leader();
            self.generation
                .store(generation.wrapping_add(1), Ordering::Release);
        } else {
            let backoff = Backoff::new();
            while self.generation.load(Ordering::Acquire) == generation {
                if self.poisoned.load(Ordering::Acquire) {
                    return Err(Poisoned);
                }
                if backoff.is_completed() {
                    std::thread::yield_now();
                } else {
                    backoff.snooze();
                }
            }
        }
        Ok(WindowReduction {
            min_time: self.min_time[slot].load(Ordering::Acquire),
            flags: self.flags[slot].load(Ordering::Acquire),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn reduces_across_threads_many_generations() {
        let threads = 4;
        let b = SpinBarrier::new(threads);
        let leader_runs = AtomicU64::new(0);
        std::thread::scope(|s| {
            for t in 0..threads {
                let b = &b;
                let leader_runs = &leader_runs;
                s.spawn(move || {
                    for g in 0..500u64 {
                        let mine = WindowReduction {
                            min_time: 1000 + g * 10 + t as u64,
                            flags: if g % 7 == 0 && t == 2 { FLAG_STOP } else { 0 },
                        };
                        let r = b
                            .wait(mine, || {
                                leader_runs.fetch_add(1, Ordering::Relaxed);
                            })
                            .expect("not poisoned");
                        assert_eq!(r.min_time, 1000 + g * 10);
                        assert_eq!(r.flags, if g % 7 == 0 { FLAG_STOP } else { 0 });
                    }
                });
            }
        });
        assert_eq!(leader_runs.load(Ordering::Relaxed), 500);
    }

    #[test]
    fn poison_releases_waiters() {
        let b = SpinBarrier::new(2);
        std::thread::scope(|s| {
            let h = s.spawn(|| {
                b.wait(
                    WindowReduction {
                        min_time: 0,
                        flags: 0,
                    },
                    || {},
                )
                .is_err()
            });
            std::thread::sleep(std::time::Duration::from_millis(20));
            b.poison();
            assert!(h.join().expect("joins"));
        });
    }
}
