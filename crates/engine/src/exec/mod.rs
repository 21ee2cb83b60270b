//! Executors: the sequential reference executor, the conservative parallel executor, and the
//! adaptive executor that switches between them at window boundaries.

mod adaptive;
mod barrier;
mod parallel;
mod sequential;
mod threads;

pub use adaptive::{Adaptive, SwitchPolicy, DENSE_WINDOW_EVENTS, EPOCH, GAIN_TO_STAY, MAX_BACKOFF};
pub use barrier::{Poisoned, SpinBarrier, WindowReduction};
pub use parallel::Parallel;
pub use sequential::{Sequential, SequentialOrder};
pub use threads::ThreadsExecutor;

use crate::error::EngineError;
use crate::event::{Event, EventKey};
use crate::stats::RunStats;

/// When a segment may end: at a window boundary after a multiple of `every_mask + 1` windows
/// (a power of two, so the test is one mask), `ask` is given the windows ended and the events
/// handled so far in the segment and says whether to end it there and hand the pending events
/// to another executor.
#[derive(Clone, Copy)]
pub(crate) struct Until<'a> {
    pub every_mask: u64,
    pub ask: &'a (dyn Fn(u64, u64) -> bool + Sync),
}

impl Until<'_> {
    /// Whether to hand over after `windows` windows and `events` events.
    #[inline]
    pub fn now(&self, windows: u64, events: u64) -> bool {
        windows & self.every_mask == 0 && (self.ask)(windows, events)
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
