//! # bbsim-engine
//!
//! A conservative parallel discrete-event simulation (PDES) kernel. It knows nothing about
//! networks or storage: models implement [`LogicalProcess`], send events through [`Ctx`], and
//! declare the minimum delay (lookahead) of each channel between LP classes in a
//! [`LookaheadTable`].
//!
//! Time is an integer number of picoseconds ([`Time`]). Events are totally ordered by
//! `(time, priority, source LP, source sequence)`; each LP has its own random stream seeded from
//! the run seed and its id. Together these make every result bit-identical for any number of
//! threads and any partitioning.
//!
//! Two executors implement [`Executor`]: [`Sequential`] (the reference) and [`Parallel`]
//! (lookahead windows, dynamic cluster claiming, one reducing barrier per window).

pub mod digest;
pub mod error;
pub mod event;
pub mod exec;
pub mod hint;
pub mod lookahead;
pub mod lp;
pub mod partition;
pub mod pending;
pub mod phold;
pub mod rng;
pub mod sim;
pub mod stats;
pub mod time;

pub use error::EngineError;
pub use event::{Event, EventKey, LpId, ENVIRONMENT};
pub use exec::{Parallel, Sequential, SequentialOrder};
pub use hint::prefetch;
pub use lookahead::LookaheadTable;
pub use lp::{Ctx, LogicalProcess, LpSlot};
pub use partition::{Partition, PartitionSpec};
pub use pending::PendingKind;
pub use rng::Rng;
pub use sim::{Executor, SimConfig, Simulation};
pub use stats::{Progress, RunStats, StopReason, ThreadStats};
pub use time::Time;

/// Worker threads per core that a run may ask for: more only adds scheduling cost.
pub const THREADS_PER_CORE: usize = 4;

/// The most worker threads a run may use on this machine: [`THREADS_PER_CORE`] per core the
/// operating system reports, and never fewer than 4 (so the determinism checks over 1-4
/// threads run everywhere).
pub fn thread_limit() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_mul(THREADS_PER_CORE)
        .max(4)
}

/// Checks a thread count against `1..=`[`thread_limit`]; the error says what was expected.
pub fn check_threads(threads: usize) -> Result<(), String> {
    let limit = thread_limit();
    if threads == 0 {
        return Err("must be at least 1".into());
    }
    if threads > limit {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        return Err(format!(
            "must be at most {limit} on this machine ({THREADS_PER_CORE} per core, {cores} cores), got {threads}"
        ));
    }
    Ok(())
}

/// Runs `sim` with the executor suited to `threads`: the sequential reference executor for one
/// thread, the parallel executor otherwise.
pub fn run_with_threads<L: LogicalProcess>(
    sim: &mut Simulation<L>,
    threads: usize,
) -> Result<RunStats, EngineError> {
    if threads <= 1 {
        sim.run(&Sequential::default())
    } else {
        sim.run(&Parallel::new(threads))
    }
}
