//! Which `[[jobs]]` keys apply to which workload source, and the scenario key paths of a job.

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{JobSection, JobSource};

/// The scenario key path of key `k` of job `idx`: `jobs[idx].k`.
pub(super) fn job_key(idx: usize, k: &str) -> String {
    format!("jobs[{idx}].{k}")
}

/// Keys of `[[jobs]]` that apply only to some sources, with the sources they apply to.
const SOURCE_KEYS: &[(&str, &[&str])] = &[
    ("preset", &["preset"]),
    ("bytes_per_rank", &["preset", "checkpoint"]),
    (
        "compute",
        &["preset", "analysis", "quota-user", "small-reads"],
    ),
    ("phases", &["preset"]),
    ("files_per_rank", &["preset"]),
    ("ior", &["ior"]),
    ("block_size", &["ior"]),
    ("segments", &["ior"]),
    ("write", &["ior"]),
    ("read", &["ior"]),
    ("repetitions", &["ior"]),
    ("file_per_process", &["ior", "checkpoint"]),
    ("period", &["checkpoint"]),
    ("checkpoints", &["checkpoint"]),
    ("log", &["darshan"]),
    (
        "transfer_size",
        &["preset", "ior", "checkpoint", "analysis", "quota-user"],
    ),
    ("inputs", &["analysis"]),
    ("output_files", &["analysis"]),
    ("output_bytes", &["analysis"]),
    ("quota", &["quota-user"]),
    ("checkpoint_bytes", &["quota-user"]),
    ("plot_bytes", &["quota-user"]),
    ("steps", &["quota-user"]),
    ("dataset_bytes", &["small-reads"]),
    ("reads_per_rank", &["small-reads"]),
];

/// The scenario spelling of a workload source (`source = "..."`).
pub(super) fn source_name(s: JobSource) -> &'static str {
    match s {
        JobSource::Preset => "preset",
        JobSource::Ior => "ior",
        JobSource::Checkpoint => "checkpoint",
        JobSource::Darshan => "darshan",
        JobSource::Analysis => "analysis",
        JobSource::QuotaUser => "quota-user",
        JobSource::SmallReads => "small-reads",
    }
}

/// The source-specific keys that job `j` gives, in [`SOURCE_KEYS`] order.
fn present_keys(j: &JobSection) -> Vec<&'static str> {
    let mut v = Vec::new();
    let mut add = |cond: bool, k: &'static str| {
        if cond {
            v.push(k)
        }
    };
    add(j.preset.is_some(), "preset");
    add(j.bytes_per_rank.is_some(), "bytes_per_rank");
    add(j.compute.is_some(), "compute");
    add(j.phases.is_some(), "phases");
    add(j.files_per_rank.is_some(), "files_per_rank");
    add(j.ior.is_some(), "ior");
    add(j.block_size.is_some(), "block_size");
    add(j.segments.is_some(), "segments");
    add(j.write.is_some(), "write");
    add(j.read.is_some(), "read");
    add(j.repetitions.is_some(), "repetitions");
    add(j.file_per_process.is_some(), "file_per_process");
    add(j.period.is_some(), "period");
    add(j.checkpoints.is_some(), "checkpoints");
    add(j.log.is_some(), "log");
    add(j.transfer_size.is_some(), "transfer_size");
    add(j.inputs.is_some(), "inputs");
    add(j.output_files.is_some(), "output_files");
    add(j.output_bytes.is_some(), "output_bytes");
    add(j.quota.is_some(), "quota");
    add(j.checkpoint_bytes.is_some(), "checkpoint_bytes");
    add(j.plot_bytes.is_some(), "plot_bytes");
    add(j.steps.is_some(), "steps");
    add(j.dataset_bytes.is_some(), "dataset_bytes");
    add(j.reads_per_rank.is_some(), "reads_per_rank");
    v
}

/// Rejects keys of job `idx` that do not apply to its source (`in_transit` first, then the
/// source-specific keys in [`SOURCE_KEYS`] order), naming the sources they apply to.
pub(super) fn check_source_keys(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
) -> Result<(), Diagnostic> {
    if j.in_transit && j.source != JobSource::Analysis {
        return Err(map.error_at(
            &job_key(idx, "in_transit"),
            "`in_transit` applies to source = \"analysis\" only",
        ));
    }
    let src = source_name(j.source);
    for k in present_keys(j) {
        let allowed = SOURCE_KEYS
            .iter()
            .find(|(name, _)| *name == k)
            .map(|(_, s)| *s)
            .unwrap_or(&[]);
        if !allowed.contains(&src) {
            return Err(map.error_at(
                &job_key(idx, k),
                format!(
                    "`{k}` does not apply to source = \"{src}\" (it applies to: {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// An error at `key` with message `why` when `present` (a key given where it does not apply).
pub(super) fn reject(
    map: &SourceMap,
    key: &str,
    present: bool,
    why: &str,
) -> Result<(), Diagnostic> {
    if present {
        Err(map.error_at(key, why.to_string()))
    } else {
        Ok(())
    }
}
