//! The executor a thread setting ([`Threads`]) runs on, chosen in one place for every command:
//! one thread runs the global-order sequential reference executor; several the asynchronous
//! conservative executor, handing over to one thread only while the threads wait for a core
//! another process holds ([`SwitchPolicy::Requested`]); and `auto` the adaptive executor, which
//! runs sequentially and moves to the asynchronous executor over up to one thread per core
//! ([`crate::auto_threads`]) only while that is measured to pay. Results are identical on all.

use super::{Adaptive, Sequential, SwitchPolicy};
use crate::error::EngineError;
use crate::lp::LogicalProcess;
use crate::pending::PendingKind;
use crate::sim::{Executor, RunInput};
use crate::stats::RunStats;
use crate::Threads;

/// The executor for a [`Threads`] setting ([`ThreadsExecutor::new`]).
#[derive(Clone, Copy, Debug)]
pub enum ThreadsExecutor {
    /// One thread: the global-order sequential executor.
    One(Sequential),
    /// A number of threads above one: the adaptive executor with the requested-threads policy.
    Many(Adaptive),
    /// `auto`: the adaptive executor.
    Auto(Adaptive),
}

impl ThreadsExecutor {
    /// The executor for `threads`, each with the pending-event structure `pending`.
    pub fn new(threads: Threads, pending: PendingKind) -> Self {
        match threads {
            Threads::Count(n) if n <= 1 => ThreadsExecutor::One(Sequential::reference(pending)),
            Threads::Count(n) => ThreadsExecutor::Many(Adaptive {
                threads: n,
                pending,
                policy: SwitchPolicy::Requested,
                watch_run_queue: true,
            }),
            Threads::Auto => ThreadsExecutor::Auto(Adaptive {
                threads: crate::auto_threads(),
                pending,
                policy: SwitchPolicy::Measured,
                watch_run_queue: true,
            }),
        }
    }
}

impl Executor for ThreadsExecutor {
    fn execute<L: LogicalProcess>(&self, input: RunInput<'_, L>) -> Result<RunStats, EngineError> {
        match self {
            ThreadsExecutor::One(x) => x.execute(input),
            ThreadsExecutor::Many(x) => x.execute(input),
            ThreadsExecutor::Auto(x) => x.execute(input),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setting_picks_its_executor() {
        let p = PendingKind::Ring;
        assert!(matches!(
            ThreadsExecutor::new(Threads::Count(0), p),
            ThreadsExecutor::One(s) if s.pending == p
        ));
        assert!(matches!(
            ThreadsExecutor::new(Threads::Count(1), p),
            ThreadsExecutor::One(_)
        ));
        assert!(matches!(
            ThreadsExecutor::new(Threads::Count(3), p),
            ThreadsExecutor::Many(x)
                if x.threads == 3 && x.pending == p && x.policy == SwitchPolicy::Requested
        ));
        assert!(matches!(
            ThreadsExecutor::new(Threads::Auto, p),
            ThreadsExecutor::Auto(a) if a.pending == p && a.policy == SwitchPolicy::Measured
        ));
    }
}
