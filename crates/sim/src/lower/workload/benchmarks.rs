//! `source = "ior"` and `source = "checkpoint"`: the IOR benchmark and a generic periodic
//! checkpointer, with the job's overrides of their parameters.

use super::keys::job_key;
use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::JobSection;
use crate::units::format_bytes;
use bbsim_workload::synthetic::App;

/// The IOR run of job `idx`: block and transfer sizes (bytes), segments, file per process or
/// shared file, write and/or read phases, repetitions. The block size must be a whole number of
/// transfers and at least one of the phases must be on.
pub(super) fn ior(j: &JobSection, idx: usize, map: &SourceMap) -> Result<App, Diagnostic> {
    let Some(App::Ior(mut p)) = App::by_name("ior") else {
        return Err(map.error_at(&job_key(idx, "source"), "IOR is not available"));
    };
    p.ranks = j.ranks.unwrap_or(p.ranks);
    p.ranks_per_node = j.ranks_per_node;
    p.block_size = j.block_size.map_or(p.block_size, |b| b.0);
    p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
    p.segments = j.segments.unwrap_or(p.segments);
    p.file_per_process = j.file_per_process.unwrap_or(p.file_per_process);
    p.write = j.write.unwrap_or(p.write);
    p.read = j.read.unwrap_or(p.read);
    p.repetitions = j.repetitions.unwrap_or(p.repetitions);
    if p.transfer_size == 0 || p.block_size == 0 {
        return Err(map.error_at(
            &job_key(idx, "block_size"),
            "block_size and transfer_size must be > 0",
        ));
    }
    if p.block_size % p.transfer_size != 0 {
        return Err(map.error_at(
            &job_key(idx, "block_size"),
            format!(
                "block_size ({}) must be a multiple of transfer_size ({})",
                format_bytes(p.block_size),
                format_bytes(p.transfer_size)
            ),
        ));
    }
    if !p.write && !p.read {
        return Err(map.error_at(
            &job_key(idx, "write"),
            "IOR needs write = true or read = true",
        ));
    }
    Ok(App::Ior(p))
}

/// The checkpointer of job `idx`: every `period` (ps) of compute, each rank writes
/// `bytes_per_rank` bytes in `transfer_size` calls, `checkpoints` times, to its own file or a
/// shared one.
pub(super) fn checkpoint(j: &JobSection, idx: usize, map: &SourceMap) -> Result<App, Diagnostic> {
    let Some(App::Checkpoint(mut p)) = App::by_name("checkpoint") else {
        return Err(map.error_at(&job_key(idx, "source"), "checkpoint is not available"));
    };
    p.ranks = j.ranks.unwrap_or(p.ranks);
    p.ranks_per_node = j.ranks_per_node;
    p.period_ps = j.period.map_or(p.period_ps, |d| d.0);
    p.bytes_per_rank = j.bytes_per_rank.map_or(p.bytes_per_rank, |b| b.0);
    p.checkpoints = j.checkpoints.unwrap_or(p.checkpoints);
    p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
    p.file_per_process = j.file_per_process.unwrap_or(p.file_per_process);
    if p.transfer_size == 0 {
        return Err(map.error_at(&job_key(idx, "transfer_size"), "transfer_size must be > 0"));
    }
    Ok(App::Checkpoint(p))
}
