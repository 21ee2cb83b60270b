//! `source = "analysis"`: a consumer of an earlier job's files, in transit or as a
//! post-processing step.

use super::keys::job_key;
use super::recipe::Recipe;
use super::Lowered;
use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::JobSection;
use bbsim_workload::synthetic::AnalysisParams;
use bbsim_workload::{JobSpec, Op};

/// The byte extent of each file of `job` (the end of its furthest write or read), in file-id
/// order.
fn extents(job: &JobSpec) -> Vec<u64> {
    let mut ext = vec![0u64; job.files.len()];
    for run in job.ops.runs() {
        if let Op::Write { file, offset, size } | Op::Read { file, offset, size } = run.last() {
            if let Some(e) = ext.get_mut(file.0 as usize) {
                *e = (*e).max(offset.saturating_add(size));
            }
        }
    }
    ext
}

/// The earlier job named by the `inputs` key of job `idx`, whose files it reads.
fn producer<'a>(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    earlier: &'a [Lowered],
) -> Result<&'a Lowered, Diagnostic> {
    let name = j.inputs.as_deref().ok_or_else(|| {
        map.error_at(
            &job_key(idx, "inputs"),
            "source = \"analysis\" needs `inputs` = \"<name of the job whose files it reads>\"",
        )
    })?;
    earlier.iter().find(|p| p.name() == name).ok_or_else(|| {
        let hint = crate::diag::suggest(name, earlier.iter().map(Lowered::name))
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        map.error_at(
            &job_key(idx, "inputs"),
            format!("no earlier job is named `{name}`{hint}"),
        )
    })
}

/// The consumer of job `idx`: reads every file of its producer (one of `earlier`, the jobs
/// listed before it) in `transfer_size`-byte calls, computes `compute` (ps) after each, and
/// writes `output_files` files of `output_bytes` bytes in all (none unless given).
pub(super) fn consumer(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    earlier: &[Lowered],
) -> Result<Recipe, Diagnostic> {
    let producer = producer(j, idx, map, earlier)?.job();
    let mut p = AnalysisParams {
        ranks: j.ranks.unwrap_or(AnalysisParams::default().ranks),
        ranks_per_node: j.ranks_per_node,
        inputs: producer.map(extents).unwrap_or_default(),
        ..AnalysisParams::default()
    };
    p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
    p.compute_ps = j.compute.map_or(p.compute_ps, |d| d.0);
    p.output_files = match j.output_files {
        Some(n) => u32::try_from(n)
            .map_err(|_| map.error_at(&job_key(idx, "output_files"), "at most 4294967295"))?,
        None => 0,
    };
    p.output_bytes = j.output_bytes.map_or(0, |b| b.0);
    if p.ranks == 0 {
        return Err(map.error_at(&job_key(idx, "ranks"), "ranks must be at least 1"));
    }
    if p.transfer_size == 0 {
        return Err(map.error_at(&job_key(idx, "transfer_size"), "transfer_size must be > 0"));
    }
    Ok(Recipe::Analysis {
        params: p,
        inputs_known: producer.is_some(),
    })
}
