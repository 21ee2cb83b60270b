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
//! Three executors implement [`Executor`]: [`Sequential`] (the reference), [`Parallel`]
//! (lookahead windows, dynamic cluster claiming, one reducing barrier per window) and
//! [`Adaptive`] (either of the two at a time, switching at window boundaries where the
//! measured event rates say threads pay or stop paying).

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
pub use exec::{
    Adaptive, Asynchronous, CriticalPath, Dependencies, Parallel, Sequential, SequentialOrder,
    SwitchPolicy, ThreadsExecutor,
};
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

/// The cores the operating system reports (1 if it does not say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most worker threads a run may use on this machine: [`THREADS_PER_CORE`] per core the
/// operating system reports, and never fewer than 4 (so the determinism checks over 1-4
/// threads run everywhere).
pub fn thread_limit() -> usize {
    cores().saturating_mul(THREADS_PER_CORE).max(4)
}

/// Checks a thread count against `1..=`[`thread_limit`]; the error says what was expected.
pub fn check_threads(threads: usize) -> Result<(), String> {
    let limit = thread_limit();
    if threads == 0 {
        return Err("must be at least 1".into());
    }
    if threads > limit {
        let cores = cores();
        return Err(format!(
            "must be at most {limit} on this machine ({THREADS_PER_CORE} per core, {cores} cores), got {threads}"
        ));
    }
    Ok(())
}

/// How many worker threads a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Threads {
    /// Up to [`auto_threads`], used only while they pay: the [`Adaptive`] executor, which runs
    /// on one thread where events are sparse or the threads are measured not to gain.
    #[default]
    Auto,
    /// Exactly this many: one runs the sequential executor, more the parallel executor.
    Count(usize),
}

impl std::str::FromStr for Threads {
    type Err = String;

    /// `auto` or a whole number of threads (checked by [`check_threads`]).
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("auto") {
            return Ok(Threads::Auto);
        }
        let n: usize = s
            .parse()
            .map_err(|_| format!("expected `auto` or a whole number of threads, got `{s}`"))?;
        check_threads(n)?;
        Ok(Threads::Count(n))
    }
}

/// A thread count: `Count(n)`.
impl From<usize> for Threads {
    fn from(n: usize) -> Self {
        Threads::Count(n)
    }
}

impl std::fmt::Display for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Threads::Auto => f.write_str("auto"),
            Threads::Count(n) => write!(f, "{n}"),
        }
    }
}

/// Written as `"auto"` or a number, as in a scenario file.
impl serde::Serialize for Threads {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Threads::Auto => s.serialize_str("auto"),
            Threads::Count(n) => s.serialize_u64(*n as u64),
        }
    }
}

/// Read from `"auto"` or a whole number of threads (1 to [`thread_limit`]).
impl<'de> serde::Deserialize<'de> for Threads {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Threads;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("`auto` or a whole number of threads")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Threads, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Threads, E> {
                let n = usize::try_from(v).unwrap_or(usize::MAX);
                check_threads(n).map_err(E::custom)?;
                Ok(Threads::Count(n))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Threads, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::custom(format!("must be at least 1, got {v}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// The most threads [`Threads::Auto`] uses: one per core the operating system reports, at most
/// [`MAX_AUTO_THREADS`].
pub fn auto_threads() -> usize {
    cores().min(MAX_AUTO_THREADS)
}

/// The cap of [`auto_threads`]: beyond it the threads' waits on each other's clocks cost more
/// than the clusters of the study's machines give them to do.
pub const MAX_AUTO_THREADS: usize = 8;

/// Runs `sim` with the executor suited to `threads` ([`ThreadsExecutor`]): the sequential
/// reference executor for one thread, the asynchronous executor otherwise (one thread while
/// its threads wait for a core another process holds).
pub fn run_with_threads<L: LogicalProcess>(
    sim: &mut Simulation<L>,
    threads: usize,
) -> Result<RunStats, EngineError> {
    sim.run(&ThreadsExecutor::new(
        Threads::Count(threads),
        PendingKind::default(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_read_auto_or_a_count_within_the_limit() {
        assert_eq!("auto".parse::<Threads>(), Ok(Threads::Auto));
        assert_eq!(" AUTO ".parse::<Threads>(), Ok(Threads::Auto));
        assert_eq!("2".parse::<Threads>(), Ok(Threads::Count(2)));
        assert!("0".parse::<Threads>().unwrap_err().contains("at least 1"));
        assert!("two"
            .parse::<Threads>()
            .unwrap_err()
            .contains("expected `auto` or a whole number"));
        let over = (thread_limit() + 1).to_string();
        assert!(over.parse::<Threads>().unwrap_err().contains("at most"));
        assert_eq!(Threads::Auto.to_string(), "auto");
        assert_eq!(Threads::Count(3).to_string(), "3");
    }
}
