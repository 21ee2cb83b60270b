//! A job's `transforms`: weak and strong scaling, repetition, collation of small requests, and
//! inserted barriers, applied in the order given.

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{JobSection, TransformSection};
use bbsim_workload::transform::{self, BarrierScope};
use bbsim_workload::JobSpec;

/// Denominator of the fraction a strong-scaling factor is expressed as (millionths).
const STRONG_SCALE_DENOMINATOR: u64 = 1_000_000;

/// Checks the parameter of one transform (entry `t_idx` of job `idx`).
fn check_transform(
    t: &TransformSection,
    idx: usize,
    t_idx: usize,
    map: &SourceMap,
) -> Result<(), Diagnostic> {
    let key = |k: &str| format!("jobs[{idx}].transforms[{t_idx}].{k}");
    match t {
        TransformSection::WeakScale { ranks: 0 } => {
            Err(map.error_at(&key("ranks"), "ranks must be at least 1"))
        }
        TransformSection::StrongScale { factor } if !(factor.is_finite() && *factor > 0.0) => {
            Err(map.error_at(&key("factor"), "factor must be a positive number"))
        }
        TransformSection::Repeat { count: 0, .. } => {
            Err(map.error_at(&key("count"), "count must be at least 1"))
        }
        TransformSection::Collate { size } if size.0 == 0 => {
            Err(map.error_at(&key("size"), "size must be > 0"))
        }
        _ => Ok(()),
    }
}

/// Applies one transform, its parameter checked, to `job`.
fn apply_transform(job: &JobSpec, t: &TransformSection) -> JobSpec {
    match t {
        TransformSection::WeakScale { ranks } => transform::weak_scale(job, *ranks),
        TransformSection::StrongScale { factor } => {
            let den = STRONG_SCALE_DENOMINATOR;
            let num = (factor * den as f64).round().max(1.0) as u64;
            transform::strong_scale(job, num, den)
        }
        TransformSection::Repeat { count, interval } => transform::repeat(job, *count, interval.0),
        TransformSection::Collate { size } => transform::collate(job, size.0),
        TransformSection::Barriers { group } => {
            let scope = if *group == 0 {
                BarrierScope::Global
            } else {
                BarrierScope::Groups(*group)
            };
            transform::insert_barriers(job, scope)
        }
    }
}

/// Checks the parameters of every transform of job `idx`, in order, without applying them.
pub(super) fn check_transforms(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
) -> Result<(), Diagnostic> {
    for (t_idx, t) in j.transforms.iter().enumerate() {
        check_transform(t, idx, t_idx, map)?;
    }
    Ok(())
}

/// Applies the `transforms` of job `idx` to `job`, in order, each after checking its parameter.
pub(super) fn apply_transforms(
    mut job: JobSpec,
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
) -> Result<JobSpec, Diagnostic> {
    for (t_idx, t) in j.transforms.iter().enumerate() {
        check_transform(t, idx, t_idx, map)?;
        job = apply_transform(&job, t);
    }
    Ok(job)
}

/// The rank count of a job of `ranks` ranks after the `transforms` of `j`: only weak scaling
/// changes it (to its `ranks`).
pub(super) fn ranks_after(j: &JobSection, ranks: u32) -> u32 {
    j.transforms.iter().fold(ranks, |r, t| match t {
        TransformSection::WeakScale { ranks } => *ranks,
        _ => r,
    })
}
