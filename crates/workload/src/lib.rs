//! bbsim workload: what the ranks of each job do.
//!
//! Plain data and parsing; of the simulation engine it uses only the random number generator
//! ([`bbsim_engine::rng`]), never its logical processes or events.
//!
//! * [`op`]: the per-rank operation model ([`Op`], picosecond times, byte sizes).
//! * [`workload`]: jobs ([`JobSpec`]) with file tables, communicators and compact per-rank
//!   operation streams ([`RankOps`]), and [`Workload`] (several jobs).
//! * [`darshan`]: a native reader for Darshan 3.x logs and `trace inspect` summaries.
//! * [`replay`] and [`reconstruct`]: a Darshan log turned into a job (DXT replay, or
//!   reconstruction from counters).
//! * [`synthetic`]: IOR, checkpointing and the study's applications (GTC, LAMMPS, S3D, HACC);
//!   a quota-limited SSD user, a small-read analysis and a consumer (analysis) job.
//! * [`transform`]: weak and strong scaling, repetition, collation, barrier insertion.
//! * [`collective`]: ROMIO's two-phase I/O (collective buffering) for collective MPI-IO calls.
//! * [`alloc`]: node allocation policies and CODES allocation files.
//! * [`rng`]: the deterministic random number generator used throughout.

pub mod alloc;
pub mod collective;
pub mod darshan;
pub mod op;
/// The workload's random streams: xoshiro256** ([`bbsim_engine::rng::RngStarStar`]) seeded
/// through SplitMix64, so the same seed gives the same workload on every platform.
pub mod rng {
    pub use bbsim_engine::rng::RngStarStar as Rng;
}
pub mod workload;

pub use alloc::{
    allocate, allocate_workload, AllocError, AllocationPolicy, ChunkSizes, JobAllocError,
};
pub use darshan::{inspect, read_log, DarshanError, DarshanLog, LogSummary};
pub use op::{secs_to_ps, CommId, FileId, Op, PS_PER_MS, PS_PER_SEC, PS_PER_US};
pub use workload::{
    FileSpec, GlobalFile, JobSpec, JobTotals, OpCursor, OpRun, RankIter, RankOps, RankOpsBuilder,
    Sharing, Workload, WorkloadError, MAX_JOB_OPERATIONS, MAX_WORKLOAD_BYTES,
};
pub mod reconstruct;
pub mod replay;

pub use replay::{dxt_timeline, job_from_log, replay_dxt, Layer, LogJobOptions, ReplayError};
pub mod synthetic;
pub mod transform;
