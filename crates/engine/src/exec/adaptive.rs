//! The adaptive executor: the global-order sequential executor where events are too sparse
//! for threads to pay, the asynchronous executor where they pay, switching between the two
//! while the run goes on.
//!
//! Both executors handle every LP's events in key order, so a run that changes executor where
//! no event is in flight (at a window boundary of the sequential executor, at a sync of the
//! asynchronous one) gives exactly the results of either: the pending events are handed over
//! whole, and each LP keeps its state, random stream and send sequence.
//!
//! The measured policy ([`SwitchPolicy::Measured`]) watches the run in epochs of [`EPOCH`] of
//! wall time. While sequential, an epoch averaging at least [`DENSE_WINDOW_EVENTS`] events per
//! window records the sequential event rate; after [`FIRST_TRIAL_AFTER`] such epochs it moves
//! to threads (so a short run or a short dense stretch does not pay for a trial). A run's event
//! rate changes with its phases by 2 x and more, so threads are judged against a fresh
//! baseline: after [`PROBE_EVERY`] epochs on threads, or sooner when an epoch falls below
//! [`GAIN_TO_STAY`] times the last sequential rate, one sequential epoch (a probe) measures
//! the rate of the same stretch on one thread. Threads resume at once if their epochs were at
//! least [`GAIN_TO_STAY`] faster than the probe; otherwise the next trial waits four times as
//! many dense epochs as the last (up to [`MAX_BACKOFF`]), so a run whose threads do not pay
//! (another process on a core, a hot cluster) spends a vanishing share of its time in trials.
//! A sparse epoch on threads returns to one thread without counting as a failed trial, and
//! threads resume after [`AFTER_SPARSE`] dense epochs, dealt out as they last were.

use super::{asynchronous, sequential, Segment, Tally, Until};
use crate::error::EngineError;
use crate::lp::LogicalProcess;
use crate::pending::{BucketRing, HeapSet, PendingKind, PendingSet, WindowSet};
use crate::sim::{Executor, RunInput};
use crate::stats::{RunStats, ThreadStats};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wall time over which the measured policy judges an executor.
pub const EPOCH: Duration = Duration::from_millis(40);

/// Events per lookahead window below which several threads are not tried: threads wait on each
/// other's clocks about once a window, which costs more than a few events' work. Measured on a
/// 2-core machine (docs/performance.md, "Threads"): runs averaging 60 events per window gained
/// 1.6 x on 2 threads, runs averaging 2-3 lost several times over.
pub const DENSE_WINDOW_EVENTS: f64 = 32.0;

/// How much faster than one thread (1.05: 5 %) the asynchronous executor must run an epoch to keep
/// running: where the two are level, one thread uses less of the machine.
pub const GAIN_TO_STAY: f64 = 1.05;

/// Dense epochs before the first parallel trial, and after a trial that paid and then stopped
/// paying: a short run, or a short dense stretch, does not pay for a trial.
pub const FIRST_TRIAL_AFTER: u32 = 4;

/// Dense epochs before threads resume after a sparse stretch ended a stint on them: the
/// run's bursts of I/O come back between pauses, and threads paid in the last one.
pub const AFTER_SPARSE: u32 = 1;

/// The most dense epochs the measured policy waits between two parallel trials.
pub const MAX_BACKOFF: u32 = 128;

/// Epochs on threads between two sequential probes of the event rate: a probe costs one epoch
/// at the one-thread rate, an eighth of the time at most.
pub const PROBE_EVERY: u32 = 8;

/// Windows between two looks at the clock, a power of two (a look costs tens of nanoseconds, a
/// sparse window not much more).
const CHECK_EVERY: u64 = 16;

/// When the adaptive executor changes executor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SwitchPolicy {
    /// By the event rates measured during the run (see the module documentation).
    #[default]
    Measured,
    /// After every `windows` windows, alternating sequential and parallel (to check that
    /// switching never changes results).
    Alternate {
        /// Windows per segment (at least 1).
        windows: u64,
    },
}

/// Runs sequentially or on up to `threads` threads, whichever pays at the time, with results
/// identical to both.
#[derive(Clone, Copy, Debug)]
pub struct Adaptive {
    /// Worker threads of the parallel segments (1: always sequential).
    pub threads: usize,
    /// Pending-event structure of both executors.
    pub pending: PendingKind,
    /// When to switch.
    pub policy: SwitchPolicy,
}

impl Adaptive {
    /// The measured policy over up to `threads` threads, with the default pending set.
    pub fn new(threads: usize) -> Self {
        Adaptive {
            threads: threads.max(1),
            pending: PendingKind::default(),
            policy: SwitchPolicy::Measured,
        }
    }
}

impl Executor for Adaptive {
    fn execute<L: LogicalProcess>(&self, input: RunInput<'_, L>) -> Result<RunStats, EngineError> {
        match self.pending {
            PendingKind::Heap => run::<L, HeapSet<L::Event>>(self, input),
            PendingKind::Ring => run::<L, BucketRing<L::Event>>(self, input),
            PendingKind::Window => run::<L, WindowSet<L::Event>>(self, input),
        }
    }
}

/// Where the measured policy stands.
struct Meter {
    parallel: bool,
    /// Clock, windows and events at the start of the current epoch.
    epoch_start: Instant,
    epoch_windows: u64,
    epoch_events: u64,
    /// Events per second of the last dense sequential epoch.
    sequential_rate: Option<f64>,
    /// Dense sequential epochs still to wait before the next parallel trial.
    wait: u32,
    /// The wait after the next failed trial.
    backoff: u32,
    /// Events and seconds of the epochs on threads since the last probe.
    stint_events: f64,
    stint_secs: f64,
    stint_epochs: u32,
    /// The sequential epoch under way is a probe after a stint on threads.
    probing: bool,
}

/// The switching decision of one run.
struct Policy {
    policy: SwitchPolicy,
    meter: Mutex<Meter>,
}

impl Policy {
    fn new(policy: SwitchPolicy) -> Self {
        Policy {
            policy,
            meter: Mutex::new(Meter::new()),
        }
    }

    fn meter(&self) -> std::sync::MutexGuard<'_, Meter> {
        self.meter.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A segment starts on the parallel executor or not.
    fn start(&self, parallel: bool) {
        let mut m = self.meter();
        m.parallel = parallel;
        m.epoch_start = Instant::now();
        m.epoch_windows = 0;
        m.epoch_events = 0;
    }

    /// Whether to hand over at this point of the segment.
    fn switch_now(&self, Tally { windows, events }: Tally) -> bool {
        match self.policy {
            SwitchPolicy::Alternate { windows: w } => windows >= w.max(1),
            SwitchPolicy::Measured => {
                let now = Instant::now();
                let mut m = self.meter();
                let elapsed = now.duration_since(m.epoch_start);
                if elapsed < EPOCH {
                    return false;
                }
                let (dw, de) = (windows - m.epoch_windows, events - m.epoch_events);
                m.epoch_start = now;
                m.epoch_windows = windows;
                m.epoch_events = events;
                let dense = dw > 0 && de as f64 >= DENSE_WINDOW_EVENTS * dw as f64;
                m.judge(dense, de as f64, elapsed.as_secs_f64())
            }
        }
    }
}

impl Meter {
    /// Sequential, nothing measured yet, a trial due at the first dense epoch.
    fn new() -> Self {
        Meter {
            parallel: false,
            epoch_start: Instant::now(),
            epoch_windows: 0,
            epoch_events: 0,
            sequential_rate: None,
            wait: FIRST_TRIAL_AFTER,
            backoff: FIRST_TRIAL_AFTER,
            stint_events: 0.0,
            stint_secs: 0.0,
            stint_epochs: 0,
            probing: false,
        }
    }

    /// Judges one epoch of `events` events in `secs` seconds (`dense`: enough events per
    /// window); returns whether to switch executor.
    fn judge(&mut self, dense: bool, events: f64, secs: f64) -> bool {
        let rate = events / secs.max(f64::MIN_POSITIVE);
        if !self.parallel {
            if !dense {
                return false;
            }
            self.sequential_rate = Some(rate);
            if self.probing {
                self.probing = false;
                let threads_rate = self.stint_events / self.stint_secs.max(f64::MIN_POSITIVE);
                self.end_stint();
                if threads_rate >= rate * GAIN_TO_STAY {
                    self.backoff = FIRST_TRIAL_AFTER;
                    return true;
                }
                self.wait = self.backoff;
                self.backoff = (self.backoff * 4).min(MAX_BACKOFF);
                return false;
            }
            if self.wait > 0 {
                self.wait -= 1;
                return false;
            }
            return true;
        }
        if !dense {
            // A pause between bursts, not a verdict on threads: the next dense epoch decides.
            self.end_stint();
            self.wait = AFTER_SPARSE;
            return true;
        }
        self.stint_events += events;
        self.stint_secs += secs;
        self.stint_epochs += 1;
        let doubt = self
            .sequential_rate
            .is_some_and(|s| rate < s * GAIN_TO_STAY);
        if doubt || self.stint_epochs >= PROBE_EVERY {
            self.probing = true;
            return true;
        }
        false
    }

    fn end_stint(&mut self) {
        self.stint_events = 0.0;
        self.stint_secs = 0.0;
        self.stint_epochs = 0;
    }
}

fn run<L: LogicalProcess, P: PendingSet<L::Event>>(
    ex: &Adaptive,
    input: RunInput<'_, L>,
) -> Result<RunStats, EngineError> {
    let started = Instant::now();
    let threads = ex.threads.max(1);
    if threads == 1 {
        return sequential::run_segment::<L, P>(input, None).map(|s| s.stats);
    }
    let (slots, channels) = (input.slots, input.channels);
    let (end_time, progress) = (input.end_time, input.progress);
    let policy = Policy::new(ex.policy);
    let ask = |tally: Tally| policy.switch_now(tally);
    let until = Until {
        every_mask: match ex.policy {
            SwitchPolicy::Measured => CHECK_EVERY - 1,
            SwitchPolicy::Alternate { .. } => 0,
        },
        ask: &ask,
    };
    let mut pending = input.initial;
    let mut parallel = false;
    let mut total: Option<RunStats> = None;
    let mut loads: Vec<u64> = Vec::new();
    loop {
        policy.start(parallel);
        let input = RunInput {
            slots: &mut *slots,
            initial: std::mem::take(&mut pending),
            channels,
            end_time,
            progress,
        };
        let Segment {
            stats,
            left,
            handed_over,
            loads: measured,
        } = if parallel {
            asynchronous::run_segment::<L, P>(threads, input, Some(until), Some(&loads))?
        } else {
            sequential::run_segment::<L, P>(input, Some(until))?
        };
        let so_far = match total.take() {
            None => stats,
            Some(t) => merge(t, stats),
        };
        if !handed_over {
            return Ok(RunStats {
                wall: started.elapsed(),
                ..so_far
            });
        }
        total = Some(so_far);
        pending = left;
        if !measured.is_empty() {
            // The next stretch on threads starts dealt out as the last one ended.
            loads = measured;
        }
        parallel = !parallel;
    }
}

/// The statistics of two consecutive segments as one run's.
fn merge(a: RunStats, b: RunStats) -> RunStats {
    let mut per_thread = a.per_thread;
    if per_thread.len() < b.per_thread.len() {
        per_thread.resize(b.per_thread.len(), ThreadStats::default());
    }
    for (t, s) in per_thread.iter_mut().zip(&b.per_thread) {
        t.events += s.events;
        t.barrier_wait += s.barrier_wait;
        t.cluster_windows += s.cluster_windows;
    }
    RunStats {
        events: a.events + b.events,
        windows: a.windows + b.windows,
        last_event_time: a.last_event_time.max(b.last_event_time),
        window: a.window,
        threads: a.threads.max(b.threads),
        parallel_events: a.parallel_events + b.parallel_events,
        clusters: a.clusters.max(b.clusters),
        per_thread,
        wall: a.wall + b.wall,
        stop: b.stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meter() -> Meter {
        Meter::new()
    }

    /// Judges one epoch of 40 ms at `rate` events per second.
    fn epoch(m: &mut Meter, dense: bool, rate: f64) -> bool {
        m.judge(dense, rate * 0.04, 0.04)
    }

    /// Feeds `n` epochs of 40 ms at `rate` events per second; returns the switch decisions.
    fn epochs(m: &mut Meter, n: usize, dense: bool, rate: f64) -> Vec<bool> {
        (0..n).map(|_| epoch(m, dense, rate)).collect()
    }

    #[test]
    fn sparse_epochs_never_try_threads() {
        let mut m = meter();
        assert!(epochs(&mut m, 100, false, 1e6).iter().all(|&s| !s));
        assert_eq!(m.sequential_rate, None);
    }

    #[test]
    fn threads_that_pay_are_probed_every_few_epochs_and_resume() {
        let mut m = meter();
        for _ in 0..FIRST_TRIAL_AFTER {
            assert!(!epoch(&mut m, true, 1e6), "dense, but not for long yet");
            assert!(!epoch(&mut m, false, 1e6), "sparse epochs do not count");
        }
        assert!(epoch(&mut m, true, 1e6), "dense long enough: try threads");
        m.parallel = true;
        let stint = epochs(&mut m, PROBE_EVERY as usize, true, 1.6e6);
        assert!(stint[..stint.len() - 1].iter().all(|&s| !s), "{stint:?}");
        assert!(stint[stint.len() - 1], "a probe after {PROBE_EVERY} epochs");
        m.parallel = false;
        assert!(m.probing);
        // The phase slowed down: one thread now does 0.8 M/s, threads did 1.6 M/s.
        assert!(epoch(&mut m, true, 0.8e6), "threads paid: back at once");
        assert_eq!(m.sequential_rate, Some(0.8e6));
        assert_eq!(m.backoff, FIRST_TRIAL_AFTER);
    }

    #[test]
    fn an_epoch_below_the_last_sequential_rate_calls_a_probe_that_decides() {
        let mut m = meter();
        m.sequential_rate = Some(2e6);
        m.parallel = true;
        // Below 1.05 x the stale rate: probe, even though the phase may just be slower.
        assert!(epoch(&mut m, true, 1.5e6));
        m.parallel = false;
        // The probe: one thread does 1.0 M/s here, so 1.5 M/s on threads paid.
        assert!(epoch(&mut m, true, 1e6));
        m.parallel = true;
        // Now threads run at 1.02 M/s against 1.0: not enough.
        assert!(epoch(&mut m, true, 1.02e6));
        m.parallel = false;
        assert!(!epoch(&mut m, true, 1e6), "1.02 x: stay on one thread");
        assert_eq!(m.wait, FIRST_TRIAL_AFTER);
        assert_eq!(m.backoff, FIRST_TRIAL_AFTER * 4);
        // A sparse probe epoch says nothing: keep probing.
        m.probing = true;
        assert!(!epoch(&mut m, false, 1e6));
        assert!(m.probing);
    }

    #[test]
    fn failed_trials_back_off_exponentially_up_to_the_cap() {
        let mut m = meter();
        let mut waits = Vec::new();
        for _ in 0..10 {
            m.parallel = false;
            let mut dense_epochs = 0;
            while !epoch(&mut m, true, 1e6) {
                dense_epochs += 1;
            }
            waits.push(dense_epochs);
            m.parallel = true;
            assert!(epoch(&mut m, true, 0.5e6), "slower: probe");
            m.parallel = false;
            assert!(!epoch(&mut m, true, 1e6), "the probe confirms: stay");
        }
        assert_eq!(waits, [4, 4, 16, 64, 128, 128, 128, 128, 128, 128]);
        // A sparse epoch on threads returns to one thread without backing off.
        m.parallel = true;
        let backoff = m.backoff;
        assert!(epoch(&mut m, false, 1e9));
        assert_eq!((m.wait, m.backoff), (AFTER_SPARSE, backoff));
    }
}
