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
//! threads resume after [`AFTER_SPARSE`] dense epochs, dealt out as they last were. An epoch on
//! threads whose threads waited for a core ([`CORE_SHORT`]) is a failed trial at once, with no
//! probe: another process holds a core, and each thread that waits for it stalls the others.
//!
//! The requested-threads policy ([`SwitchPolicy::Requested`]), which an explicit thread count
//! runs on, keeps the threads asked for whatever the density, and steps down to one thread only
//! while they wait for a core: a housekeeping stretch ([`HOUSEKEEPING`]) on threads short of a
//! core hands over to one thread, and threads are tried again after [`CORE_RETRY_AFTER`] epochs
//! of any density, backing off as above.
//!
//! Under either policy a move to threads first looks at the machine's run queue: while other
//! work is ready to run on the cores the threads need, the trial counts as failed without
//! being made. And when threads step down short of a core but the run queue, looked at with
//! one thread left, shows no other work, the shortage was a passing one: threads are tried
//! again after one epoch, without backing off.

use super::workers::lock;
use super::{asynchronous, core_wait, sequential, Segment, Tally, Until, HOUSEKEEPING};
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

/// The share of an epoch's wall time the threads together must wait for a core (0.5: half a
/// thread's worth) for the epoch to count as short of a core. Measured with the kernel's
/// run-queue delay on a 2-core machine (docs/performance.md, "Threads"): two threads sharing
/// the one core another process leaves free wait 0.6-1.0; on a quiet machine they mostly wait
/// under 0.01, but a sparse run has a single stretch of 0.55-0.98 a few times a minute (cause
/// not established), which the run queue then tells apart (see the module documentation).
pub const CORE_SHORT: f64 = 0.5;

/// Epochs the requested-threads policy runs on one thread before it tries threads that were
/// short of a core again, at first (four times as many after each further shortage, up to
/// [`MAX_BACKOFF`]): a trial while the core is still taken costs about a housekeeping stretch,
/// so even a run of a few tenths of a second pays for at most one.
pub const CORE_RETRY_AFTER: u32 = 16;

/// Windows between two looks at the clock, a power of two (a look costs tens of nanoseconds, a
/// sparse window not much more).
const CHECK_EVERY: u64 = 16;

/// When the adaptive executor changes executor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SwitchPolicy {
    /// By the event rates measured during the run (see the module documentation).
    #[default]
    Measured,
    /// The threads asked for from the start, whatever the density, but one thread while the
    /// threads wait for a core (see the module documentation): what an explicit thread count
    /// runs on.
    Requested,
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
    /// Whether the machine's run queue is looked at before a move to threads and after threads
    /// step down short of a core (see the module documentation). Without it only the threads'
    /// own measured waits for a core count (for tests that must see trials whatever else the
    /// machine runs).
    pub watch_run_queue: bool,
}

impl Adaptive {
    /// The measured policy over up to `threads` threads, with the default pending set.
    pub fn new(threads: usize) -> Self {
        Adaptive {
            threads: threads.max(1),
            pending: PendingKind::default(),
            policy: SwitchPolicy::Measured,
            watch_run_queue: true,
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
    /// Clock, windows, events and the threads' wait for a core at the start of the current
    /// epoch.
    epoch_start: Instant,
    epoch_windows: u64,
    epoch_events: u64,
    epoch_core_wait: Duration,
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
    /// The last stint on threads ended short of a core; the backoff before that shortage.
    short_from: Option<u32>,
}

/// The switching decision of one run.
struct Policy {
    policy: SwitchPolicy,
    meter: Mutex<Meter>,
    /// The threads of the parallel segments, and whether the cores they need look free right
    /// now ([`cores_look_free`]; tests replace it).
    threads: usize,
    cores_free: fn(usize) -> bool,
}

impl Policy {
    fn new(policy: SwitchPolicy, threads: usize, cores_free: fn(usize) -> bool) -> Self {
        let mut meter = Meter::new();
        if policy == SwitchPolicy::Requested {
            meter.backoff = CORE_RETRY_AFTER;
        }
        Policy {
            policy,
            meter: Mutex::new(meter),
            threads,
            cores_free,
        }
    }

    fn meter(&self) -> std::sync::MutexGuard<'_, Meter> {
        lock(&self.meter)
    }

    /// A segment starts on the parallel executor or not.
    fn start(&self, parallel: bool) {
        let mut m = self.meter();
        if let Some(backoff) = m.short_from.take() {
            // The threads have just stepped down short of a core. With one thread left the run
            // queue says whether other work holds the cores: if none does, the shortage was a
            // passing one (a stretch of many wake-ups, another process's moment), and threads
            // are tried again after one epoch, without backing off.
            if !parallel && (self.cores_free)(self.threads) {
                m.wait = 0;
                m.backoff = backoff;
            }
        }
        m.parallel = parallel;
        m.epoch_start = Instant::now();
        m.epoch_windows = 0;
        m.epoch_events = 0;
        m.epoch_core_wait = Duration::ZERO;
    }

    /// Whether to hand over at this point of the segment.
    fn switch_now(
        &self,
        Tally {
            windows,
            events,
            core_wait,
        }: Tally,
    ) -> bool {
        match self.policy {
            SwitchPolicy::Alternate { windows: w } => windows >= w.max(1),
            SwitchPolicy::Measured | SwitchPolicy::Requested => {
                let now = Instant::now();
                let mut m = self.meter();
                let elapsed = now.duration_since(m.epoch_start);
                // Threads short of a core lose several times their work: the requested-threads
                // policy judges them at every housekeeping sync, not only once an epoch.
                let epoch = if self.policy == SwitchPolicy::Requested && m.parallel {
                    HOUSEKEEPING
                } else {
                    EPOCH
                };
                if elapsed < epoch {
                    return false;
                }
                let (dw, de) = (windows - m.epoch_windows, events - m.epoch_events);
                m.epoch_start = now;
                m.epoch_windows = windows;
                m.epoch_events = events;
                let secs = elapsed.as_secs_f64();
                let waited = core_wait.map(|c| c.saturating_sub(m.epoch_core_wait));
                m.epoch_core_wait = core_wait.unwrap_or_default();
                let short = waited.is_some_and(|w| w.as_secs_f64() >= CORE_SHORT * secs);
                let dense = dw > 0 && de as f64 >= DENSE_WINDOW_EVENTS * dw as f64;
                let switch = if self.policy == SwitchPolicy::Requested {
                    m.judge_requested(short)
                } else {
                    m.judge(dense, de as f64, secs, short)
                };
                if switch && !m.parallel && !(self.cores_free)(self.threads) {
                    // A trial now would be short of a core from its start: count it failed.
                    m.end_stint();
                    m.back_off();
                    return false;
                }
                switch
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
            epoch_core_wait: Duration::ZERO,
            sequential_rate: None,
            wait: FIRST_TRIAL_AFTER,
            backoff: FIRST_TRIAL_AFTER,
            stint_events: 0.0,
            stint_secs: 0.0,
            stint_epochs: 0,
            probing: false,
            short_from: None,
        }
    }

    /// The requested-threads policy's verdict on one epoch (`short`: on threads, they waited
    /// for a core); returns whether to switch executor.
    fn judge_requested(&mut self, short: bool) -> bool {
        if self.parallel {
            if short {
                self.short_from = Some(self.backoff);
                self.back_off();
                return true;
            }
            self.backoff = CORE_RETRY_AFTER;
            return false;
        }
        if self.wait > 0 {
            self.wait -= 1;
            return false;
        }
        true
    }

    /// A trial on threads failed: wait for the current backoff, and four times longer after
    /// the next failure.
    fn back_off(&mut self) {
        self.wait = self.backoff;
        self.backoff = (self.backoff * 4).min(MAX_BACKOFF);
    }

    /// Judges one epoch of `events` events in `secs` seconds (`dense`: enough events per
    /// window; `short`: on threads, they waited for a core); returns whether to switch
    /// executor.
    fn judge(&mut self, dense: bool, events: f64, secs: f64, short: bool) -> bool {
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
                self.back_off();
                return false;
            }
            if self.wait > 0 {
                self.wait -= 1;
                return false;
            }
            return true;
        }
        if short {
            // Another process holds a core: no probe needed to know threads do not pay now.
            self.end_stint();
            self.short_from = Some(self.backoff);
            self.back_off();
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

/// Whether other work leaves `threads` threads the cores they could have now: no more threads
/// of other work are ready to run than the cores the threads leave free (true where the
/// operating system does not say). More threads than cores, asked for, are not held against
/// themselves here; their own waits for a core are.
fn cores_look_free(threads: usize) -> bool {
    let cores = crate::cores();
    core_wait::busy_elsewhere().is_none_or(|busy| busy + threads.min(cores) <= cores)
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
    let cores_free: fn(usize) -> bool = if ex.watch_run_queue {
        cores_look_free
    } else {
        |_| true
    };
    let policy = Policy::new(ex.policy, threads, cores_free);
    let ask = |tally: Tally| policy.switch_now(tally);
    let until = Until {
        every_mask: match ex.policy {
            SwitchPolicy::Measured | SwitchPolicy::Requested => CHECK_EVERY - 1,
            SwitchPolicy::Alternate { .. } => 0,
        },
        ask: &ask,
    };
    let mut pending = input.initial;
    let mut parallel = ex.policy == SwitchPolicy::Requested;
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
        t.core_wait += s.core_wait;
        t.syncs += s.syncs;
        t.jumps += s.jumps;
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
        m.judge(dense, rate * 0.04, 0.04, false)
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

    /// Counts the epochs one thread runs before the requested-threads policy tries threads again.
    fn epochs_before_retry(m: &mut Meter) -> u32 {
        let mut n = 0;
        while !m.judge_requested(false) {
            n += 1;
        }
        n
    }

    #[test]
    fn requested_threads_stay_unless_short_of_a_core_then_retry_backing_off() {
        let mut m = Policy::new(SwitchPolicy::Requested, 2, |_| true)
            .meter
            .into_inner()
            .unwrap();
        m.parallel = true;
        assert!(
            (0..50).all(|_| !m.judge_requested(false)),
            "cores free: stay"
        );
        let mut waits = Vec::new();
        for _ in 0..6 {
            m.parallel = true;
            assert!(m.judge_requested(true), "short of a core: one thread");
            m.parallel = false;
            waits.push(epochs_before_retry(&mut m));
        }
        assert_eq!(waits, [16, 64, 128, 128, 128, 128]);
        // The core came back: a retry that is not short stays, and the next shortage waits
        // the first backoff again.
        m.parallel = true;
        assert!(!m.judge_requested(false));
        assert!(m.judge_requested(true));
        m.parallel = false;
        assert_eq!(epochs_before_retry(&mut m), CORE_RETRY_AFTER);
    }

    #[test]
    fn measured_threads_short_of_a_core_fail_their_trial_without_a_probe() {
        let mut m = meter();
        m.sequential_rate = Some(1e6);
        m.parallel = true;
        // Faster than one thread so far, but short of a core: back at once, no probe.
        assert!(m.judge(true, 2e6 * 0.04, 0.04, true));
        assert!(!m.probing);
        assert_eq!(
            (m.wait, m.backoff),
            (FIRST_TRIAL_AFTER, FIRST_TRIAL_AFTER * 4)
        );
        assert_eq!(m.stint_epochs, 0);
    }

    #[test]
    fn an_epoch_is_short_of_a_core_by_the_wait_within_it() {
        let policy = Policy::new(SwitchPolicy::Requested, 2, |_| true);
        policy.start(true);
        let epoch_ago = |p: &Policy| {
            if let Some(t) = Instant::now().checked_sub(EPOCH) {
                p.meter().epoch_start = t;
            }
        };
        let tally = |events: u64, wait_ms: Option<u64>| Tally {
            windows: events / 100,
            events,
            core_wait: wait_ms.map(Duration::from_millis),
        };
        epoch_ago(&policy);
        // A tenth of a thread's worth over a 40 ms epoch: not short.
        assert!(!policy.switch_now(tally(1000, Some(4))));
        epoch_ago(&policy);
        // 4 ms before, 30 ms now: 26 ms of 40, more than half a thread's worth.
        assert!(policy.switch_now(tally(2000, Some(30))));
        policy.start(true);
        epoch_ago(&policy);
        // Not reported: never short.
        assert!(!policy.switch_now(tally(1000, None)));
        // Less than an epoch since the last look: no verdict.
        assert!(!policy.switch_now(tally(2000, Some(1000))));
    }

    #[test]
    fn a_passing_shortage_retries_after_one_epoch_a_lasting_one_backs_off() {
        for (free, epochs) in [(true, 0), (false, CORE_RETRY_AFTER)] {
            let cores_free: fn(usize) -> bool = if free { |_| true } else { |_| false };
            let policy = Policy::new(SwitchPolicy::Requested, 2, cores_free);
            policy.start(true);
            assert!(policy.meter().judge_requested(true), "short: step down");
            policy.start(false);
            let mut m = policy.meter();
            assert_eq!(m.wait, epochs, "cores free: {free}");
            let before_retry = (0..).take_while(|_| !m.judge_requested(false)).count();
            assert_eq!(before_retry, epochs as usize);
            let next = if free {
                CORE_RETRY_AFTER
            } else {
                CORE_RETRY_AFTER * 4
            };
            assert_eq!(m.backoff, next, "a passing shortage does not back off");
        }
    }
}
