//! Executors: the sequential reference executor, the conservative parallel executor (a barrier
//! per lookahead window), the asynchronous conservative executor (published clocks, no
//! per-window barrier), the adaptive executor that switches between them while a run goes on,
//! and the reference executor measuring the run's critical path.

mod adaptive;
mod asynchronous;
mod barrier;
mod core_wait;
mod critical_path;
mod parallel;
mod sequential;
mod threads;
mod workers;

pub use adaptive::{
    Adaptive, SwitchPolicy, CORE_SHORT, DENSE_WINDOW_EVENTS, EPOCH, GAIN_TO_STAY, MAX_BACKOFF,
};
pub use asynchronous::{Asynchronous, HOUSEKEEPING};
pub use barrier::{Poisoned, SpinBarrier, WindowReduction};
pub use critical_path::{CriticalPath, Dependencies};
pub use parallel::Parallel;
pub use sequential::{Sequential, SequentialOrder};
pub use threads::ThreadsExecutor;

use crate::error::EngineError;
use crate::event::{Event, EventKey};
use crate::stats::RunStats;
use crate::time::Time;
use std::time::Duration;

/// When a segment may end: at a window boundary after a multiple of `every_mask + 1` windows
/// (a power of two, so the test is one mask), `ask` is given how far the segment has come and
/// says whether to end it there and hand the pending events to another executor.
#[derive(Clone, Copy)]
pub(crate) struct Until<'a> {
    pub every_mask: u64,
    pub ask: &'a (dyn Fn(Tally) -> bool + Sync),
}

/// How far a segment has come: windows ended, events handled and, on threads where the
/// operating system reports it, the time its threads have waited for a core in all.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    pub windows: u64,
    pub events: u64,
    pub core_wait: Option<Duration>,
}

impl Until<'_> {
    /// Whether to hand over at this point.
    #[inline]
    pub fn now(&self, tally: Tally) -> bool {
        tally.windows & self.every_mask == 0 && (self.ask)(tally)
    }
}

/// What one segment of a run returns.
pub(crate) struct Segment<E> {
    pub stats: RunStats,
    /// Every pending event at the window boundary where the segment was handed over (empty
    /// when the run ended).
    pub left: Vec<Event<E>>,
    /// The segment ended at a window boundary to continue on another executor.
    pub handed_over: bool,
    /// Events per cluster over the segment's last stretch, where the executor measures them
    /// (the asynchronous one; empty otherwise): how the next segment on threads deals the
    /// clusters out.
    pub loads: Vec<u64>,
}

/// The time (ps, exclusive) at which a stop requested at `t` ends the run: every event before
/// `t` plus the window width `window` is still handled. An event sent across clusters by the
/// requesting event lands no earlier, so no executor can have gone past it when it learns of
/// the request.
#[inline]
pub(crate) fn stop_end(t: Time, window: Time) -> Time {
    t.saturating_add(window)
}

/// A failure found while handling the event with key `at`; the smallest such key wins, so the
/// reported error does not depend on thread count.
pub(crate) struct Failure {
    pub at: EventKey,
    pub error: EngineError,
}

impl Failure {
    pub(crate) fn earliest(a: Option<Failure>, b: Option<Failure>) -> Option<Failure> {
        match (a, b) {
            (Some(x), Some(y)) => Some(if y.at < x.at { y } else { x }),
            (x, y) => x.or(y),
        }
    }
}
