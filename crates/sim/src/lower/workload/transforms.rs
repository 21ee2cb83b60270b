//! A job's `transforms`: weak and strong scaling, repetition, collation of small requests, and
//! inserted barriers, applied in the order given.

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{JobSection, TransformSection};
use bbsim_workload::transform::{self, BarrierScope};
use bbsim_workload::JobSpec;

/// Denominator of the fraction a strong-scaling factor is expressed as (millionths).
const STRONG_SCALE_DENOMINATOR: u64 = 1_000_000;

/// Applies one transform (entry `t_idx` of job `idx`) to `job`, after checking its parameter.
fn apply_transform(
    job: &JobSpec,
    t: &TransformSection,
    idx: usize,
    t_idx: usize,
    map: &SourceMap,
) -> Result<JobSpec, Diagnostic> {
    let key = |k: &str| format!("jobs[{idx}].transforms[{t_idx}].{k}");
    Ok(match t {
        TransformSection::WeakScale { ranks } => {
            if *ranks == 0 {
                return Err(map.error_at(&key("ranks"), "ranks must be at least 1"));
            }
            transform::weak_scale(job, *ranks)
        }
        TransformSection::StrongScale { factor } => {
            if !(factor.is_finite() && *factor > 0.0) {
                return Err(map.error_at(&key("factor"), "factor must be a positive number"));
            }
            let den = STRONG_SCALE_DENOMINATOR;
            let num = (factor * den as f64).round().max(1.0) as u64;
            transform::strong_scale(job, num, den)
        }
        TransformSection::Repeat { count, interval } => {
            if *count == 0 {
                return Err(map.error_at(&key("count"), "count must be at least 1"));
            }
            transform::repeat(job, *count, interval.0)
        }
        TransformSection::Collate { size } => {
            if size.0 == 0 {
                return Err(map.error_at(&key("size"), "size must be > 0"));
            }
            transform::collate(job, size.0)
        }
        TransformSection::Barriers { group } => {
            let scope = if *group == 0 {
                BarrierScope::Global
            } else {
                BarrierScope::Groups(*group)
            };
            transform::insert_barriers(job, scope)
        }
    })
}

/// Applies the `transforms` of job `idx` to `job`, in order.
pub(super) fn apply_transforms(
    mut job: JobSpec,
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
) -> Result<JobSpec, Diagnostic> {
    for (t_idx, t) in j.transforms.iter().enumerate() {
        job = apply_transform(&job, t, idx, t_idx, map)?;
    }
    Ok(job)
}
