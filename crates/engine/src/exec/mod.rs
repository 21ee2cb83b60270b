//! Executors: the sequential reference executor and the conservative parallel executor.

mod barrier;
mod parallel;
mod sequential;

pub use barrier::{Poisoned, SpinBarrier, WindowReduction};
pub use parallel::Parallel;
pub use sequential::{Sequential, SequentialOrder};

use crate::error::EngineError;
use crate::event::EventKey;

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
