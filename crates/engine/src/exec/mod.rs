//! Executors: the sequential reference executor, the conservative parallel executor, and the
//! adaptive executor that switches between them at window boundaries.

mod adaptive;
mod barrier;
mod parallel;
mod sequential;

pub use adaptive::{Adaptive, SwitchPolicy, DENSE_WINDOW_EVENTS, EPOCH, GAIN_TO_STAY, MAX_BACKOFF};
pub use barrier::{Poisoned, SpinBarrier, WindowReduction};
pub use parallel::Parallel;
pub use sequential::{Sequential, SequentialOrder};

use crate::error::EngineError;
use crate::event::{Event, EventKey};
use crate::stats::RunStats;

/// Asked at a window boundary with the windows ended and the events handled so far in the
/// current segment: whether to end the segment there and hand the pending events to another
/// executor.
pub(crate) type Until<'a> = &'a (dyn Fn(u64, u64) -> bool + Sync);

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
