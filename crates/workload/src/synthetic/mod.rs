//! Parameterised synthetic applications.
//!
//! Each generator is a parameter struct whose `Default` is the configuration of the
//! burst-buffer placement study (rank counts and bytes per rank of its Table II) and whose
//! `job()` builds the [`JobSpec`]. Sizes are bytes (the study's "MB" are 10^6 bytes), times
//! picoseconds. Generation is deterministic (random choices use the `seed` field).

pub mod checkpoint;
pub mod gtc;
pub mod hacc;
pub mod ior;
pub mod lammps;
pub mod s3d;

pub use checkpoint::CheckpointParams;
pub use gtc::GtcParams;
pub use hacc::HaccParams;
pub use ior::IorParams;
pub use lammps::LammpsParams;
pub use s3d::S3dParams;

use crate::op::{FileId, Op};
use crate::workload::JobSpec;

/// One megabyte as the study counts it (10^6 bytes).
pub const MB: u64 = 1_000_000;
/// One mebibyte (2^20 bytes).
pub const MIB: u64 = 1 << 20;

/// Appends writes of `bytes` bytes to `file` starting at `offset`, in transfers of at most
/// `transfer` bytes (the last one may be shorter).
pub(crate) fn push_writes(out: &mut Vec<Op>, file: FileId, offset: u64, bytes: u64, transfer: u64) {
    let t = transfer.max(1);
    let mut done = 0;
    while done < bytes {
        let size = t.min(bytes - done);
        out.push(Op::Write {
            file,
            offset: offset + done,
            size,
        });
        done += size;
    }
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

impl App {
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
