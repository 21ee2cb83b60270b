//! A spinning, sense-counting barrier that also reduces each window's values.
//!
//! Threads spin with exponential backoff, then yield, and after [`PARK_AFTER`] of waiting
//! sleep on a condition variable until the last thread arrives, so on an oversubscribed machine
//! (more engine threads than free cores) a waiting thread gives its core to the late one
//! instead of spinning through its time slices. The reduction (minimum next-event time, OR of flags) is double-buffered by
//! barrier generation, so a thread can read the result after release while the next
//! generation's slots are being filled.

use super::workers::lock;
use crossbeam::utils::{Backoff, CachePadded};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a thread spins and yields at a barrier before it sleeps until released: long
/// next to a window's usual imbalance on free cores (microseconds), short next to a
/// scheduler time slice (milliseconds), which is what a descheduled peer costs.
pub const PARK_AFTER: Duration = Duration::from_micros(200);

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
    /// Threads asleep (or about to sleep) on `wake`; the releasing thread notifies only if
    /// this is non-zero.
    sleepers: CachePadded<AtomicUsize>,
    /// Times a thread went to sleep, for tests and diagnostics.
    parks: AtomicU64,
    lock: Mutex<()>,
    wake: Condvar,
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
            sleepers: CachePadded::new(AtomicUsize::new(0)),
            parks: AtomicU64::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Marks the barrier failed: every waiting and future caller returns [`Poisoned`].
    pub fn poison(&self) {
        self.poisoned.store(true, Ordering::SeqCst);
        self.wake_sleepers();
    }

    /// Whether [`Self::poison`] was called.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::Acquire)
    }

    /// How many times a waiting thread has gone to sleep (instead of spinning) so far.
    pub fn parks(&self) -> u64 {
        self.parks.load(Ordering::Relaxed)
    }

    /// Wakes the threads asleep in [`Self::wait`]. Called after the generation or the poison
    /// flag changed (both `SeqCst`): a sleeper registers in `sleepers` (`SeqCst`) before it
    /// rechecks them under the lock, so either this sees it and takes the lock (after it is
    /// waiting, or before its recheck, which then sees the change), or it sees the change.
    fn wake_sleepers(&self) {
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = lock(&self.lock);
            self.wake.notify_all();
        }
    }

    /// Sleeps until the generation moves on from `generation` or the barrier is poisoned.
    fn sleep_until_released(&self, generation: usize) {
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        self.parks.fetch_add(1, Ordering::Relaxed);
        let mut guard = lock(&self.lock);
        while self.generation.load(Ordering::SeqCst) == generation
            && !self.poisoned.load(Ordering::SeqCst)
        {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        drop(guard);
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
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
                .store(generation.wrapping_add(1), Ordering::SeqCst);
            self.wake_sleepers();
        } else {
            let backoff = Backoff::new();
            let mut yielding_since: Option<Instant> = None;
            while self.generation.load(Ordering::Acquire) == generation {
                if self.poisoned.load(Ordering::Acquire) {
                    return Err(Poisoned);
                }
                if !backoff.is_completed() {
                    backoff.snooze();
                    continue;
                }
                let since = *yielding_since.get_or_insert_with(Instant::now);
                if since.elapsed() < PARK_AFTER {
                    std::thread::yield_now();
                } else {
                    self.sleep_until_released(generation);
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
            wait_for_parks(&b, 1);
            b.poison();
            assert!(h.join().expect("joins"));
        });
        assert_eq!(b.parks(), 1, "the waiter slept, and poison woke it");
    }

    /// Polls until `n` waits have gone to sleep; a liveness guard, not a timing check.
    fn wait_for_parks(b: &SpinBarrier, n: u64) {
        let start = Instant::now();
        while b.parks() < n {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "waiters never went to sleep: {} of {n} parks",
                b.parks()
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// A thread that arrives after the others have gone to sleep wakes them by arriving, and
    /// the reduction is right in every generation, asleep or not.
    #[test]
    fn late_arrivals_wake_sleeping_waiters() {
        let threads = 3;
        let b = SpinBarrier::new(threads);
        std::thread::scope(|s| {
            for t in 0..threads {
                let b = &b;
                s.spawn(move || {
                    for g in 0..6u64 {
                        // In even generations one thread waits until the other two sleep.
                        if g % 2 == 0 && t == (g as usize / 2) % threads {
                            wait_for_parks(b, (g / 2 + 1) * (threads as u64 - 1));
                        }
                        let mine = WindowReduction {
                            min_time: 50 - g * 5 - t as u64,
                            flags: 1 << t,
                        };
                        let r = b.wait(mine, || {}).expect("not poisoned");
                        assert_eq!(r.min_time, 50 - g * 5 - (threads as u64 - 1));
                        assert_eq!(r.flags, 0b111);
                    }
                });
            }
        });
        assert!(b.parks() >= 6, "{} parks", b.parks());
    }
}
