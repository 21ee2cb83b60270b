//! `source = "quota-user"` and `source = "small-reads"`: the synthetic jobs of the SSD-isolation
//! and ATLAS small-read experiments.

use super::keys::job_key;
use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::JobSection;
use bbsim_workload::synthetic::{QuotaField, QuotaUserParams, SmallReadsParams};

/// The parameters of the quota-limited SSD user of job `idx`: each rank writes plot files and checkpoints
/// (`plot_bytes`, `checkpoint_bytes`, bytes) for `steps` periods of `compute` (ps), deleting
/// its oldest files to stay under `quota` bytes. One rank unless `ranks` is given.
pub(super) fn quota_user(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    seed: u64,
) -> Result<QuotaUserParams, Diagnostic> {
    let mut p = QuotaUserParams {
        ranks: j.ranks.unwrap_or(1),
        ranks_per_node: j.ranks_per_node,
        seed: seed ^ idx as u64,
        ..QuotaUserParams::default()
    };
    p.quota = j.quota.map_or(p.quota, |b| b.0);
    p.checkpoint_bytes = j.checkpoint_bytes.map_or(p.checkpoint_bytes, |b| b.0);
    p.plot_bytes = j.plot_bytes.map_or(p.plot_bytes, |b| b.0);
    p.steps = j.steps.unwrap_or(p.steps);
    p.compute_ps = j.compute.map_or(p.compute_ps, |d| d.0);
    p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
    p.validate()
        .map_err(|e| map.error_at(&job_key(idx, quota_key(e.field)), e.to_string()))?;
    Ok(p)
}

/// The job key that sets a quota-user parameter (the deletion threshold and the jitter are
/// fixed: their limits are the quota's).
fn quota_key(field: QuotaField) -> &'static str {
    match field {
        QuotaField::Ranks => "ranks",
        QuotaField::RanksPerNode => "ranks_per_node",
        QuotaField::TransferSize => "transfer_size",
        QuotaField::Quota | QuotaField::DeleteAt | QuotaField::Jitter => "quota",
        QuotaField::CheckpointBytes => "checkpoint_bytes",
        QuotaField::PlotBytes => "plot_bytes",
    }
}

/// The parameters of the small-read analysis of job `idx`: each rank reads `reads_per_rank` small pieces of its
/// own `dataset_bytes`-byte input file, with `compute` (ps) after each read. 64 ranks unless
/// `ranks` is given.
pub(super) fn small_reads(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    seed: u64,
) -> Result<SmallReadsParams, Diagnostic> {
    let mut p = SmallReadsParams {
        ranks: j.ranks.unwrap_or(64),
        ranks_per_node: j.ranks_per_node,
        seed: seed ^ idx as u64,
        ..SmallReadsParams::default()
    };
    p.dataset_bytes = j.dataset_bytes.map_or(p.dataset_bytes, |b| b.0);
    p.reads_per_rank = j
        .reads_per_rank
        .map_or(Ok(p.reads_per_rank), u32::try_from)
        .map_err(|_| map.error_at(&job_key(idx, "reads_per_rank"), "at most 4294967295"))?;
    p.compute_ps = j.compute.map_or(p.compute_ps, |d| d.0);
    if p.dataset_bytes == 0 {
        return Err(map.error_at(&job_key(idx, "dataset_bytes"), "must be > 0"));
    }
    Ok(p)
}
