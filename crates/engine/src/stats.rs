//! Run statistics reported by the executors.

use crate::time::Time;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// No events remained.
    Drained,
    /// The next event was at or after the end time.
    EndTime,
    /// A model asked to stop.
    Requested,
    /// The run was cancelled from outside through [`Progress::cancel`] (e.g. Ctrl-C).
    Cancelled,
}

impl StopReason {
    /// The name written into `summary.json` (`drained`, `end-time`, `requested`, `cancelled`).
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Drained => "drained",
            StopReason::EndTime => "end-time",
            StopReason::Requested => "requested",
            StopReason::Cancelled => "cancelled",
        }
    }
}

/// Live progress of a run, readable from another thread (for progress bars) and the means to
/// cancel it. Executors update it once per lookahead window (the sequential global-order
/// executor every 65,536 events).
#[derive(Debug, Default)]
pub struct Progress {
    now: AtomicU64,
    events: AtomicU64,
    cancel: AtomicBool,
}

impl Progress {
    /// Simulated time reached (ps).
    pub fn now(&self) -> Time {
        self.now.load(Ordering::Relaxed)
    }

    /// Events committed so far.
    pub fn events(&self) -> u64 {
        self.events.load(Ordering::Relaxed)
    }

    /// Asks the run to stop at the end of the current window; the run reports
    /// [`StopReason::Cancelled`].
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether cancellation was requested.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    pub(crate) fn set_now(&self, t: Time) {
        self.now.store(t, Ordering::Relaxed);
    }

    pub(crate) fn add_events(&self, n: u64) {
        self.events.fetch_add(n, Ordering::Relaxed);
    }
}

/// What one worker thread did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadStats {
    /// Events this thread handled.
    pub events: u64,
    /// Wall time spent waiting in the window barrier (the asynchronous executor: blocked on
    /// the other threads' clocks, or at a sync).
    pub barrier_wait: Duration,
    /// Cluster-windows this thread processed (the asynchronous executor: lookahead windows of
    /// its own events).
    pub cluster_windows: u64,
    /// Wall time this thread was ready to run but waited for a core held by other work (the
    /// kernel's run-queue delay; zero where the operating system does not report it).
    pub core_wait: Duration,
    /// Times this thread met every other thread with nothing in flight (the asynchronous
    /// executor's syncs: to end, hand over, rebalance, or move every clock past an idle
    /// stretch that no jump crossed; zero on the other executors, whose meetings are their
    /// windows). A sync is two barrier trips, three where it moves clusters between threads.
    pub syncs: u64,
    /// Times this thread moved every thread's clock past an idle stretch from a consistent
    /// look at the other idle threads' heads and mail, without a sync (the asynchronous
    /// executor; zero on the others).
    pub jumps: u64,
}

/// Statistics of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunStats {
    /// Events committed (handled) in total.
    pub events: u64,
    /// Lookahead windows executed.
    pub windows: u64,
    /// Time of the last handled event (ps).
    pub last_event_time: Time,
    /// Window width used (ps).
    pub window: Time,
    /// Worker threads used (1 for the sequential executor; the most used at once by the
    /// adaptive executor).
    pub threads: usize,
    /// Events handled by the parallel executor on several threads (the rest ran on one).
    pub parallel_events: u64,
    /// Clusters the LPs were grouped into.
    pub clusters: usize,
    /// Per-thread figures.
    pub per_thread: Vec<ThreadStats>,
    /// Wall-clock duration of the run.
    pub wall: Duration,
    /// Why the run ended.
    pub stop: StopReason,
}

impl RunStats {
    /// Average events per window.
    pub fn events_per_window(&self) -> f64 {
        if self.windows == 0 {
            0.0
        } else {
            self.events as f64 / self.windows as f64
        }
    }

    /// Committed events per second of wall time.
    pub fn events_per_second(&self) -> f64 {
        let s = self.wall.as_secs_f64();
        if s > 0.0 {
            self.events as f64 / s
        } else {
            0.0
        }
    }

    /// Total wall time all threads spent waiting in barriers.
    pub fn barrier_wait(&self) -> Duration {
        self.per_thread.iter().map(|t| t.barrier_wait).sum()
    }

    /// Total wall time the threads of the parallel stretches waited for a core.
    pub fn core_wait(&self) -> Duration {
        self.per_thread.iter().map(|t| t.core_wait).sum()
    }

    /// Times the threads of the parallel stretches met with nothing in flight (every thread
    /// takes part in each, so this is the most any thread counted).
    pub fn syncs(&self) -> u64 {
        self.per_thread.iter().map(|t| t.syncs).max().unwrap_or(0)
    }

    /// Times a thread of the parallel stretches moved every clock past an idle stretch
    /// without a sync, in all.
    pub fn jumps(&self) -> u64 {
        self.per_thread.iter().map(|t| t.jumps).sum()
    }
}
