//! Parameterised synthetic applications.
//!
//! Each generator is a parameter struct whose `job()` builds the [`JobSpec`]. For the study's
//! applications (those of [`App`]) `Default` is the configuration of the burst-buffer
//! placement study (rank counts and bytes per rank of its Table II); [`QuotaUserParams`],
//! [`SmallReadsParams`] and [`AnalysisParams`] are building blocks for other experiments
//! (SSD isolation, small-read analysis, consumer jobs) that the simulator wires itself.
//! Sizes are bytes (the study's "MB" are 10^6 bytes), times picoseconds. Generation is
//! deterministic (random choices use the `seed` field).

pub mod analysis;
pub mod checkpoint;
pub mod error;
pub mod gtc;
pub mod hacc;
pub mod ior;
pub mod ior_cli;
pub mod lammps;
pub mod quota;
pub mod s3d;
pub mod small_reads;

pub use analysis::AnalysisParams;
pub use checkpoint::CheckpointParams;
pub use error::{AnalysisField, ParamError, QuotaField, SmallReadsField};
pub use gtc::GtcParams;
pub use hacc::HaccParams;
pub use ior::{IorApi, IorParams};
pub use lammps::LammpsParams;
pub use quota::QuotaUserParams;
pub use s3d::S3dParams;
pub use small_reads::SmallReadsParams;

use crate::op::{FileId, Op};
use crate::rng::Rng;
use crate::workload::{JobSpec, RankOps, RankOpsBuilder};

/// One megabyte as the study counts it (10^6 bytes).
pub const MB: u64 = 1_000_000;
/// One mebibyte (2^20 bytes).
pub const MIB: u64 = 1 << 20;
/// One kibibyte (2^10 bytes).
pub const KIB: u64 = 1 << 10;
/// One gibibyte (2^30 bytes).
pub const GIB: u64 = 1 << 30;

/// Appends `op(offset, size)` for consecutive pieces of at most `transfer` bytes covering
/// `[offset, offset + bytes)` (the last piece may be shorter; nothing when `bytes` is 0).
fn push_transfers(
    out: &mut Vec<Op>,
    offset: u64,
    bytes: u64,
    transfer: u64,
    op: impl Fn(u64, u64) -> Op,
) {
    let t = transfer.max(1);
    let mut done = 0;
    while done < bytes {
        let size = t.min(bytes - done);
        out.push(op(offset + done, size));
        done += size;
    }
}

/// Appends writes of `bytes` bytes to `file` starting at `offset`, in transfers of at most
/// `transfer` bytes (the last one may be shorter).
pub(crate) fn push_writes(out: &mut Vec<Op>, file: FileId, offset: u64, bytes: u64, transfer: u64) {
    push_transfers(out, offset, bytes, transfer, |offset, size| Op::Write {
        file,
        offset,
        size,
    });
}

/// Appends reads of `bytes` bytes of `file` starting at `offset`, in transfers of at most
/// `transfer` bytes (the last one may be shorter).
pub(crate) fn push_reads(out: &mut Vec<Op>, file: FileId, offset: u64, bytes: u64, transfer: u64) {
    push_transfers(out, offset, bytes, transfer, |offset, size| Op::Read {
        file,
        offset,
        size,
    });
}

/// Appends a whole file written once: Open, writes of `bytes` bytes from offset 0 in
/// transfers of at most `transfer` bytes, Close.
pub(crate) fn push_file_write(out: &mut Vec<Op>, file: FileId, bytes: u64, transfer: u64) {
    out.push(Op::Open { file });
    push_writes(out, file, 0, bytes, transfer);
    out.push(Op::Close { file });
}

/// The streams of `ranks` ranks, rank `r`'s built by `f(r, ops)` appending to an empty `ops`.
pub(crate) fn rank_ops(ranks: u32, mut f: impl FnMut(u32, &mut Vec<Op>)) -> RankOps {
    let mut b = RankOpsBuilder::default();
    let mut ops = Vec::new();
    for r in 0..ranks {
        ops.clear();
        f(r, &mut ops);
        b.extend(ops.iter().copied());
        b.end_rank();
    }
    b.finish()
}

/// `value` scaled by `1 + jitter * u`, `u` uniform in `[-1, 1)`, rounded (`jitter` is clamped
/// to `[0, 1]`). Always draws one number from `rng`, so the stream does not depend on `jitter`.
pub(crate) fn jittered(value: u64, jitter: f64, rng: &mut Rng) -> u64 {
    let u = rng.uniform() * 2.0 - 1.0;
    let j = if jitter.is_nan() {
        0.0
    } else {
        jitter.clamp(0.0, 1.0)
    };
    (value as f64 * (1.0 + j * u)).round() as u64
}

/// A study application, by name, with its default parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum App {
    /// IOR benchmark.
    Ior(IorParams),
    /// Generic checkpointing application.
    Checkpoint(CheckpointParams),
    /// GTC (gyrokinetic toroidal code).
    Gtc(GtcParams),
    /// LAMMPS (molecular dynamics).
    Lammps(LammpsParams),
    /// S3D (combustion).
    S3d(S3dParams),
    /// HACC (cosmology).
    Hacc(HaccParams),
}

/// Upper bounds of what an application's job moves, computed from its parameters without
/// generating it (in saturating 128-bit arithmetic, so absurd parameters cannot overflow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Volume {
    /// Bytes written plus read by all ranks, at most.
    pub bytes: u128,
    /// Read and write operations of all ranks, at most.
    pub operations: u128,
}

impl Volume {
    /// `bytes` per rank split over `calls` write calls, each rounded up to whole transfers of
    /// `transfer` bytes, by each of `ranks` ranks: at most one transfer more per call than the
    /// bytes alone need.
    fn split(ranks: u32, bytes: u64, transfer: u64, calls: u32) -> Self {
        let v = Volume::of(ranks, 1, bytes, transfer);
        let extra = u128::from(calls.max(1)) * u128::from(ranks.max(1));
        Volume {
            operations: v.operations.saturating_add(extra),
            ..v
        }
    }

    /// `calls` calls of `bytes` each, split into operations of `transfer` bytes, by each of
    /// `ranks` ranks.
    fn of(ranks: u32, calls: u128, bytes: u64, transfer: u64) -> Self {
        let ranks = u128::from(ranks.max(1));
        let per_call_ops = u128::from(bytes.div_ceil(transfer.max(1)).max(1));
        let calls = ranks.saturating_mul(calls);
        Volume {
            bytes: calls.saturating_mul(u128::from(bytes)),
            operations: calls.saturating_mul(per_call_ops),
        }
    }
}

impl App {
    /// What the job moves at most, from the parameters alone: lets a caller refuse a job too
    /// large to represent before generating it.
    pub fn volume(&self) -> Volume {
        match self {
            App::Ior(p) => {
                let phases = u128::from(p.write) + u128::from(p.read);
                let calls = u128::from(p.repetitions) * phases * u128::from(p.segments);
                // At most 2 * 2^64: cannot overflow.
                Volume::of(p.ranks, calls, p.block_size, p.transfer_size)
            }
            App::Checkpoint(p) => Volume::of(
                p.ranks,
                u128::from(p.checkpoints),
                p.bytes_per_rank,
                p.transfer_size,
            ),
            App::Gtc(p) => {
                // Each rank writes within `spread` (at most 100 %) of `bytes_per_rank`.
                let most = p.bytes_per_rank.saturating_mul(2);
                Volume::of(p.ranks, 1, most, p.transfer_size)
            }
            // One write call per file (LAMMPS) or per phase (S3D, HACC); each call's writes
            // round up separately.
            App::Lammps(p) => {
                Volume::split(p.ranks, p.bytes_per_rank, p.transfer_size, p.files_per_rank)
            }
            App::S3d(p) => Volume::split(p.ranks, p.bytes_per_rank, p.transfer_size, p.phases),
            App::Hacc(p) => Volume::split(p.ranks, p.bytes_per_rank, p.transfer_size, p.phases),
        }
    }

    /// The application called `name` (`ior`, `checkpoint`, `gtc`, `lammps`, `s3d`, `hacc`,
    /// case-insensitive) with the study's defaults.
    pub fn by_name(name: &str) -> Option<App> {
        Some(match name.to_ascii_lowercase().as_str() {
            "ior" => App::Ior(IorParams::default()),
            "checkpoint" => App::Checkpoint(CheckpointParams::default()),
            "gtc" => App::Gtc(GtcParams::default()),
            "lammps" => App::Lammps(LammpsParams::default()),
            "s3d" => App::S3d(S3dParams::default()),
            "hacc" => App::Hacc(HaccParams::default()),
            _ => return None,
        })
    }

    /// Builds the application's job.
    pub fn job(&self) -> JobSpec {
        match self {
            App::Ior(p) => p.job(),
            App::Checkpoint(p) => p.job(),
            App::Gtc(p) => p.job(),
            App::Lammps(p) => p.job(),
            App::S3d(p) => p.job(),
            App::Hacc(p) => p.job(),
        }
    }
}
