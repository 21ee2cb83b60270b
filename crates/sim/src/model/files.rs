//! Where each job's files live: its own files in its burst-buffer namespace (per-node stripe
//! sets, a DataWarp scratch reservation or a persistent reservation), input files written by
//! another job, and the client-side read cache settings.

use bbsim_storage::datawarp::DwAllocation;
use std::sync::Arc;

/// Files a job reads from another job (`source = "analysis"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inputs {
    /// The producing job.
    pub producer: u32,
    /// The job's files `0..count` are the producer's files `0..count`.
    pub count: u32,
    /// The consumer runs beside the producer and opens each input once it is closed.
    pub in_transit: bool,
}

/// A client-side read cache (per rank): capacity and block size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheSpec {
    /// Bytes the cache holds.
    pub capacity: u64,
    /// Bytes fetched and kept per block.
    pub block: u64,
}

/// How one job's files map to storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobFiles {
    /// Capacity account at the BB servers (the job's index, or the persistent reservation's
    /// `jobs + index`).
    pub alloc: u32,
    /// The DataWarp allocation holding the job's files; `None` with per-node stripe sets.
    pub dw: Option<Arc<DwAllocation>>,
    /// `dw` is a persistent reservation (its files outlive the job).
    pub persistent: bool,
    /// Whether the job writes to BB servers at all (with DataWarp grains, only jobs with a
    /// reservation do).
    pub uses_bb: bool,
    /// Input files from another job.
    pub inputs: Option<Inputs>,
    /// Some consumer reads this job's files in transit: its ranks report every close.
    pub watched: bool,
    /// The read cache of each rank.
    pub cache: Option<CacheSpec>,
}

impl JobFiles {
    /// A job whose files follow the placement (per-node stripe sets, node-local or PFS).
    pub fn plain(job: u32) -> Self {
        JobFiles {
            alloc: job,
            dw: None,
            persistent: false,
            uses_bb: true,
            inputs: None,
            watched: false,
            cache: None,
        }
    }

    /// Whether job-local file `file` is an input written by another job; if so the producer.
    pub fn producer_of(&self, file: u32) -> Option<u32> {
        self.inputs.filter(|i| file < i.count).map(|i| i.producer)
    }
}
