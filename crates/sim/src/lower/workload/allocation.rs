//! How a job's compute nodes are chosen: contiguous, random, fragmented in chunks, listed in
//! an allocation file, or next to earlier jobs.

use super::keys::job_key;
use super::Lowered;
use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{AllocationKind, JobNames, JobSection};
use bbsim_workload::alloc::{parse_allocation_file, AllocationPolicy, ChunkSizes};
use std::path::Path;

/// Rejects the keys of the `file` and `next-to` policies when job `idx` uses another policy.
fn check_policy_keys(j: &JobSection, idx: usize, map: &SourceMap) -> Result<(), Diagnostic> {
    if j.next_to.is_some() && j.allocation != AllocationKind::NextTo {
        return Err(map.error_at(
            &job_key(idx, "next_to"),
            "`next_to` applies to allocation = \"next-to\" only",
        ));
    }
    for (given, k) in [
        (j.allocation_file.is_some(), "allocation_file"),
        (j.allocation_line.is_some(), "allocation_line"),
    ] {
        if given && j.allocation != AllocationKind::File {
            return Err(map.error_at(
                &job_key(idx, k),
                format!("`{k}` applies to allocation = \"file\" only"),
            ));
        }
    }
    Ok(())
}

/// The explicit node list of job `idx`: line `allocation_line` (default: the job's index) of
/// its `allocation_file` (relative to `base_dir`, the scenario file's directory).
fn nodes_from_file(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    base_dir: &Path,
) -> Result<Vec<u32>, Diagnostic> {
    let key = |k: &str| job_key(idx, k);
    let rel = j.allocation_file.as_ref().ok_or_else(|| {
        map.error_at(
            &key("allocation_file"),
            "allocation = \"file\" needs `allocation_file`",
        )
    })?;
    let path = base_dir.join(rel);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        map.error_at(
            &key("allocation_file"),
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let lines = parse_allocation_file(&text)
        .map_err(|e| map.error_at(&key("allocation_file"), format!("{}: {e}", path.display())))?;
    let line = j.allocation_line.unwrap_or(idx);
    lines.get(line).cloned().ok_or_else(|| {
        map.error_at(
            &key("allocation_line"),
            format!(
                "{} has {} job lines; line {line} does not exist",
                path.display(),
                lines.len()
            ),
        )
    })
}

/// The allocation policy of job `idx` (named `this`; `earlier` are the jobs listed before it).
pub(super) fn allocation(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    base_dir: &Path,
    this: &str,
    earlier: &[Lowered],
) -> Result<AllocationPolicy, Diagnostic> {
    check_policy_keys(j, idx, map)?;
    Ok(match j.allocation {
        AllocationKind::Contiguous => AllocationPolicy::Contiguous,
        AllocationKind::Random => AllocationPolicy::Random,
        AllocationKind::Fragmented => {
            if !(j.chunk_mean.is_finite() && j.chunk_mean >= 1.0) {
                return Err(map.error_at(
                    &job_key(idx, "chunk_mean"),
                    "chunk_mean must be at least 1 node",
                ));
            }
            AllocationPolicy::Fragmented {
                chunks: ChunkSizes::Geometric { mean: j.chunk_mean },
            }
        }
        AllocationKind::File => AllocationPolicy::Explicit(nodes_from_file(j, idx, map, base_dir)?),
        AllocationKind::NextTo => AllocationPolicy::NextTo {
            jobs: next_to_jobs(j, idx, map, this, earlier)?,
        },
    })
}

/// The indices of the earlier jobs named by the `next_to` of job `this` (each once, in the order
/// given). Unknown names, the job itself and later jobs are errors naming the key.
fn next_to_jobs(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    this: &str,
    earlier: &[Lowered],
) -> Result<Vec<usize>, Diagnostic> {
    let names = j.next_to.as_ref().ok_or_else(|| {
        map.error_at(
            &job_key(idx, "next_to"),
            "allocation = \"next-to\" needs `next_to` = \"<name of an earlier job>\" (or a \
             list of names)",
        )
    })?;
    if names.names().is_empty() {
        return Err(map.error_at(
            &job_key(idx, "next_to"),
            "`next_to` names no job; give at least one earlier job",
        ));
    }
    let mut jobs = Vec::new();
    for (k, name) in names.names().iter().enumerate() {
        let key = match names {
            JobNames::One(_) => job_key(idx, "next_to"),
            JobNames::Many(_) => format!("jobs[{idx}].next_to[{k}]"),
        };
        if name == this {
            return Err(map.error_at(
                &key,
                format!("job `{name}` cannot be allocated next to itself"),
            ));
        }
        let Some(p) = earlier.iter().position(|e| e.name() == name) else {
            let hint = crate::diag::suggest(name, earlier.iter().map(Lowered::name))
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err(map.error_at(
                &key,
                format!(
                    "no earlier job is named `{name}`{hint} (a job can only be allocated next \
                     to jobs listed before it)"
                ),
            ));
        };
        if !jobs.contains(&p) {
            jobs.push(p);
        }
    }
    Ok(jobs)
}
