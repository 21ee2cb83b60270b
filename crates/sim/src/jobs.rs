//! Turns the scenario's `[[jobs]]` into workload jobs: applications with their parameters,
//! Darshan logs, transforms, allocation policies.

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{
    AllocationKind, JobNames, JobSection, JobSource, Scenario, TransformSection,
};
use bbsim_workload::alloc::{parse_allocation_file, AllocationPolicy, ChunkSizes};
use bbsim_workload::replay::{job_from_log, LogJobOptions};
use bbsim_workload::synthetic::{AnalysisParams, App, QuotaUserParams, SmallReadsParams};
use bbsim_workload::transform::{self, BarrierScope};
use bbsim_workload::Op;
use bbsim_workload::{JobSpec, Workload};
use std::path::Path;

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

fn source_name(s: JobSource) -> &'static str {
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

/// Builds the application job of one `[[jobs]]` entry (before transforms).
fn base_job(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    base_dir: &Path,
    seed: u64,
    earlier: &[JobSpec],
) -> Result<JobSpec, Diagnostic> {
    let key = |k: &str| format!("jobs[{idx}].{k}");
    if j.in_transit && j.source != JobSource::Analysis {
        return Err(map.error_at(
            &key("in_transit"),
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
                &key(k),
                format!(
                    "`{k}` does not apply to source = \"{src}\" (it applies to: {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    let ranks = j.ranks;
    let rpn = j.ranks_per_node;
    let app = match j.source {
        JobSource::Preset => {
            let name = j.preset.as_deref().ok_or_else(|| {
                map.error_at(
                    &key("preset"),
                    "source = \"preset\" needs `preset` = \"gtc\", \"lammps\", \"s3d\" or \"hacc\"",
                )
            })?;
            let mut app = match App::by_name(name) {
                Some(a @ (App::Gtc(_) | App::Lammps(_) | App::S3d(_) | App::Hacc(_))) => a,
                _ => {
                    let hint = crate::diag::suggest(name, ["gtc", "lammps", "s3d", "hacc"])
                        .map(|s| format!("; did you mean `{s}`?"))
                        .unwrap_or_default();
                    return Err(map.error_at(
                        &key("preset"),
                        format!(
                            "unknown preset `{name}`{hint} (expected gtc, lammps, s3d or hacc)"
                        ),
                    ));
                }
            };
            // Parameters every study application takes.
            macro_rules! common {
                ($p:expr) => {{
                    let p = $p;
                    p.ranks = ranks.unwrap_or(p.ranks);
                    p.ranks_per_node = rpn;
                    p.bytes_per_rank = j.bytes_per_rank.map_or(p.bytes_per_rank, |b| b.0);
                    p.compute_ps = j.compute.map_or(p.compute_ps, |d| d.0);
                    p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
                }};
            }
            let only_lammps = "only LAMMPS takes files_per_rank";
            let one_phase = "this application has one write phase";
            match &mut app {
                App::Gtc(p) => {
                    common!(&mut *p);
                    p.seed = seed ^ idx as u64;
                    reject(map, &key("phases"), j.phases.is_some(), one_phase)?;
                    reject(
                        map,
                        &key("files_per_rank"),
                        j.files_per_rank.is_some(),
                        only_lammps,
                    )?;
                }
                App::Lammps(p) => {
                    common!(&mut *p);
                    p.files_per_rank = j.files_per_rank.unwrap_or(p.files_per_rank);
                    reject(map, &key("phases"), j.phases.is_some(), one_phase)?;
                }
                App::S3d(p) => {
                    common!(&mut *p);
                    p.phases = j.phases.unwrap_or(p.phases);
                    reject(
                        map,
                        &key("files_per_rank"),
                        j.files_per_rank.is_some(),
                        only_lammps,
                    )?;
                }
                App::Hacc(p) => {
                    common!(&mut *p);
                    p.phases = j.phases.unwrap_or(p.phases);
                    p.seed = seed ^ idx as u64;
                    reject(
                        map,
                        &key("files_per_rank"),
                        j.files_per_rank.is_some(),
                        only_lammps,
                    )?;
                }
                App::Ior(_) | App::Checkpoint(_) => {}
            }
            app
        }
        JobSource::Ior => {
            let Some(App::Ior(mut p)) = App::by_name("ior") else {
                return Err(map.error_at(&key("source"), "IOR is not available"));
            };
            p.ranks = ranks.unwrap_or(p.ranks);
            p.ranks_per_node = rpn;
            p.block_size = j.block_size.map_or(p.block_size, |b| b.0);
            p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
            p.segments = j.segments.unwrap_or(p.segments);
            p.file_per_process = j.file_per_process.unwrap_or(p.file_per_process);
            p.write = j.write.unwrap_or(p.write);
            p.read = j.read.unwrap_or(p.read);
            p.repetitions = j.repetitions.unwrap_or(p.repetitions);
            if p.transfer_size == 0 || p.block_size == 0 {
                return Err(map.error_at(
                    &key("block_size"),
                    "block_size and transfer_size must be > 0",
                ));
            }
            if p.block_size % p.transfer_size != 0 {
                return Err(map.error_at(
                    &key("block_size"),
                    format!(
                        "block_size ({}) must be a multiple of transfer_size ({})",
                        crate::units::format_bytes(p.block_size),
                        crate::units::format_bytes(p.transfer_size)
                    ),
                ));
            }
            if !p.write && !p.read {
                return Err(map.error_at(&key("write"), "IOR needs write = true or read = true"));
            }
            App::Ior(p)
        }
        JobSource::Checkpoint => {
            let Some(App::Checkpoint(mut p)) = App::by_name("checkpoint") else {
                return Err(map.error_at(&key("source"), "checkpoint is not available"));
            };
            p.ranks = ranks.unwrap_or(p.ranks);
            p.ranks_per_node = rpn;
            p.period_ps = j.period.map_or(p.period_ps, |d| d.0);
            p.bytes_per_rank = j.bytes_per_rank.map_or(p.bytes_per_rank, |b| b.0);
            p.checkpoints = j.checkpoints.unwrap_or(p.checkpoints);
            p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
            p.file_per_process = j.file_per_process.unwrap_or(p.file_per_process);
            if p.transfer_size == 0 {
                return Err(map.error_at(&key("transfer_size"), "transfer_size must be > 0"));
            }
            App::Checkpoint(p)
        }
        JobSource::Analysis => return analysis_job(j, idx, map, earlier),
        JobSource::QuotaUser => {
            let mut p = QuotaUserParams {
                ranks: ranks.unwrap_or(1),
                ranks_per_node: rpn,
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
                .map_err(|e| map.error_at(&key(quota_key(&e)), e))?;
            return Ok(p.job());
        }
        JobSource::SmallReads => {
            let mut p = SmallReadsParams {
                ranks: ranks.unwrap_or(64),
                ranks_per_node: rpn,
                seed: seed ^ idx as u64,
                ..SmallReadsParams::default()
            };
            p.dataset_bytes = j.dataset_bytes.map_or(p.dataset_bytes, |b| b.0);
            p.reads_per_rank = j
                .reads_per_rank
                .map_or(Ok(p.reads_per_rank), u32::try_from)
                .map_err(|_| map.error_at(&key("reads_per_rank"), "at most 4294967295"))?;
            p.compute_ps = j.compute.map_or(p.compute_ps, |d| d.0);
            if p.dataset_bytes == 0 {
                return Err(map.error_at(&key("dataset_bytes"), "must be > 0"));
            }
            return Ok(p.job());
        }
        JobSource::Darshan => {
            let rel = j.log.as_ref().ok_or_else(|| {
                map.error_at(
                    &key("log"),
                    "source = \"darshan\" needs `log` = \"path/to/log.darshan\"",
                )
            })?;
            let path = base_dir.join(rel);
            let log = bbsim_workload::darshan::read_log(&path)
                .map_err(|e| map.error_at(&key("log"), e.to_string()))?;
            let opts = LogJobOptions {
                ranks_per_node: rpn,
                ..LogJobOptions::default()
            };
            let mut job = job_from_log(&log, &opts)
                .map_err(|e| map.error_at(&key("log"), format!("{}: {e}", path.display())))?;
            if let Some(r) = ranks {
                if r != job.ranks() {
                    job = transform::weak_scale(&job, r);
                }
            }
            return Ok(job);
        }
    };
    if ranks == Some(0) {
        return Err(map.error_at(&key("ranks"), "ranks must be at least 1"));
    }
    Ok(app.job())
}

/// The scenario key a quota-user parameter error is about (the message names the field).
fn quota_key(msg: &str) -> &'static str {
    for k in ["checkpoint_bytes", "plot_bytes", "transfer_size", "steps"] {
        if msg.contains(k) {
            return k;
        }
    }
    "quota"
}

/// The byte extent of each file of `job`, in file-id order.
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

/// A consumer of an earlier job's files (`source = "analysis"`).
fn analysis_job(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    earlier: &[JobSpec],
) -> Result<JobSpec, Diagnostic> {
    let key = |k: &str| format!("jobs[{idx}].{k}");
    let name = j.inputs.as_deref().ok_or_else(|| {
        map.error_at(
            &key("inputs"),
            "source = \"analysis\" needs `inputs` = \"<name of the job whose files it reads>\"",
        )
    })?;
    let producer = earlier.iter().find(|p| p.name == name).ok_or_else(|| {
        let hint = crate::diag::suggest(name, earlier.iter().map(|p| p.name.as_str()))
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        map.error_at(
            &key("inputs"),
            format!("no earlier job is named `{name}`{hint}"),
        )
    })?;
    let mut p = AnalysisParams {
        ranks: j.ranks.unwrap_or(AnalysisParams::default().ranks),
        ranks_per_node: j.ranks_per_node,
        inputs: extents(producer),
        ..AnalysisParams::default()
    };
    p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
    p.compute_ps = j.compute.map_or(p.compute_ps, |d| d.0);
    p.output_files = match j.output_files {
        Some(n) => u32::try_from(n)
            .map_err(|_| map.error_at(&key("output_files"), "at most 4294967295"))?,
        None => 0,
    };
    p.output_bytes = j.output_bytes.map_or(0, |b| b.0);
    if p.ranks == 0 {
        return Err(map.error_at(&key("ranks"), "ranks must be at least 1"));
    }
    if p.transfer_size == 0 {
        return Err(map.error_at(&key("transfer_size"), "transfer_size must be > 0"));
    }
    Ok(p.job())
}

fn reject(map: &SourceMap, key: &str, present: bool, why: &str) -> Result<(), Diagnostic> {
    if present {
        Err(map.error_at(key, why.to_string()))
    } else {
        Ok(())
    }
}

fn apply_transforms(
    mut job: JobSpec,
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
) -> Result<JobSpec, Diagnostic> {
    for (t_idx, t) in j.transforms.iter().enumerate() {
        let key = |k: &str| format!("jobs[{idx}].transforms[{t_idx}].{k}");
        job = match t {
            TransformSection::WeakScale { ranks } => {
                if *ranks == 0 {
                    return Err(map.error_at(&key("ranks"), "ranks must be at least 1"));
                }
                transform::weak_scale(&job, *ranks)
            }
            TransformSection::StrongScale { factor } => {
                if !(factor.is_finite() && *factor > 0.0) {
                    return Err(map.error_at(&key("factor"), "factor must be a positive number"));
                }
                // Express the factor as a fraction with a millionths denominator.
                let den = 1_000_000u64;
                let num = (factor * den as f64).round().max(1.0) as u64;
                transform::strong_scale(&job, num, den)
            }
            TransformSection::Repeat { count, interval } => {
                if *count == 0 {
                    return Err(map.error_at(&key("count"), "count must be at least 1"));
                }
                transform::repeat(&job, *count, interval.0)
            }
            TransformSection::Collate { size } => {
                if size.0 == 0 {
                    return Err(map.error_at(&key("size"), "size must be > 0"));
                }
                transform::collate(&job, size.0)
            }
            TransformSection::Barriers { group } => {
                let scope = if *group == 0 {
                    BarrierScope::Global
                } else {
                    BarrierScope::Groups(*group)
                };
                transform::insert_barriers(&job, scope)
            }
        };
    }
    Ok(job)
}

fn allocation(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    base_dir: &Path,
    this: &str,
    earlier: &[JobSpec],
) -> Result<AllocationPolicy, Diagnostic> {
    let key = |k: &str| format!("jobs[{idx}].{k}");
    if j.next_to.is_some() && j.allocation != AllocationKind::NextTo {
        return Err(map.error_at(
            &key("next_to"),
            "`next_to` applies to allocation = \"next-to\" only",
        ));
    }
    for (given, k) in [
        (j.allocation_file.is_some(), "allocation_file"),
        (j.allocation_line.is_some(), "allocation_line"),
    ] {
        if given && j.allocation != AllocationKind::File {
            return Err(map.error_at(
                &key(k),
                format!("`{k}` applies to allocation = \"file\" only"),
            ));
        }
    }
    Ok(match j.allocation {
        AllocationKind::Contiguous => AllocationPolicy::Contiguous,
        AllocationKind::Random => AllocationPolicy::Random,
        AllocationKind::Fragmented => {
            if !(j.chunk_mean.is_finite() && j.chunk_mean >= 1.0) {
                return Err(map.error_at(&key("chunk_mean"), "chunk_mean must be at least 1 node"));
            }
            AllocationPolicy::Fragmented {
                chunks: ChunkSizes::Geometric { mean: j.chunk_mean },
            }
        }
        AllocationKind::File => {
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
            let lines = parse_allocation_file(&text).map_err(|e| {
                map.error_at(&key("allocation_file"), format!("{}: {e}", path.display()))
            })?;
            let line = j.allocation_line.unwrap_or(idx);
            let nodes = lines.get(line).cloned().ok_or_else(|| {
                map.error_at(
                    &key("allocation_line"),
                    format!(
                        "{} has {} job lines; line {line} does not exist",
                        path.display(),
                        lines.len()
                    ),
                )
            })?;
            AllocationPolicy::Explicit(nodes)
        }
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
    earlier: &[JobSpec],
) -> Result<Vec<usize>, Diagnostic> {
    let names = j.next_to.as_ref().ok_or_else(|| {
        map.error_at(
            &format!("jobs[{idx}].next_to"),
            "allocation = \"next-to\" needs `next_to` = \"<name of an earlier job>\" (or a \
             list of names)",
        )
    })?;
    if names.names().is_empty() {
        return Err(map.error_at(
            &format!("jobs[{idx}].next_to"),
            "`next_to` names no job; give at least one earlier job",
        ));
    }
    let mut jobs = Vec::new();
    for (k, name) in names.names().iter().enumerate() {
        let key = match names {
            JobNames::One(_) => format!("jobs[{idx}].next_to"),
            JobNames::Many(_) => format!("jobs[{idx}].next_to[{k}]"),
        };
        if name == this {
            return Err(map.error_at(
                &key,
                format!("job `{name}` cannot be allocated next to itself"),
            ));
        }
        let Some(p) = earlier.iter().position(|e| e.name == *name) else {
            let hint = crate::diag::suggest(name, earlier.iter().map(|e| e.name.as_str()))
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

/// Builds the workload of a scenario. `base_dir` resolves relative paths (logs, allocation
/// files) against the scenario file's directory.
pub fn build_workload(
    s: &Scenario,
    map: &SourceMap,
    base_dir: &Path,
) -> Result<Workload, Diagnostic> {
    if s.jobs.is_empty() {
        return Err(map.error_at("jobs", "the scenario needs at least one [[jobs]] entry"));
    }
    let mut jobs = Vec::with_capacity(s.jobs.len());
    for (idx, j) in s.jobs.iter().enumerate() {
        if j.ranks_per_node == 0 {
            return Err(map.error_at(&format!("jobs[{idx}].ranks_per_node"), "must be at least 1"));
        }
        if j.read_cache_block.0 == 0 {
            return Err(map.error_at(&format!("jobs[{idx}].read_cache_block"), "must be > 0"));
        }
        let job = base_job(j, idx, map, base_dir, s.simulation.seed, &jobs)?;
        let mut job = apply_transforms(job, j, idx, map)?;
        job.name = j.name.clone().unwrap_or_else(|| {
            let base = match j.source {
                JobSource::Preset => j.preset.clone().unwrap_or_else(|| "preset".into()),
                other => source_name(other).to_string(),
            };
            format!("{base}-{idx}")
        });
        job.ranks_per_node = j.ranks_per_node;
        job.start_ps = j.start.0;
        job.allocation = allocation(j, idx, map, base_dir, &job.name, &jobs)?;
        job.validate()
            .map_err(|e| map.error_at(&format!("jobs[{idx}]"), e.to_string()))?;
        jobs.push(job);
    }
    Ok(Workload::new(jobs))
}

/// The parents of every job (indices), from the jobs' `after` lists. Unknown names, a job
/// waiting for itself and cycles are errors naming the key.
pub fn job_parents(
    s: &Scenario,
    map: &SourceMap,
    w: &Workload,
) -> Result<Vec<Vec<usize>>, Diagnostic> {
    let names: Vec<&str> = w.jobs.iter().map(|j| j.name.as_str()).collect();
    let mut parents = Vec::with_capacity(s.jobs.len());
    for (i, j) in s.jobs.iter().enumerate() {
        let mut ps = Vec::new();
        for (k, name) in j.after.iter().enumerate() {
            let key = format!("jobs[{i}].after[{k}]");
            let Some(p) = names.iter().position(|n| n == name) else {
                let hint = crate::diag::suggest(name, names.iter().copied())
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                return Err(map.error_at(&key, format!("no job is named `{name}`{hint}")));
            };
            if p == i {
                return Err(map.error_at(&key, format!("job `{name}` cannot wait for itself")));
            }
            if !ps.contains(&p) {
                ps.push(p);
            }
        }
        // A post-processing consumer (not in transit) starts after its producer.
        if let (Some(name), false) = (&j.inputs, j.in_transit) {
            if let Some(p) = names.iter().position(|n| n == name) {
                if p != i && !ps.contains(&p) {
                    ps.push(p);
                }
            }
        }
        parents.push(ps);
    }
    // Cycle check: repeatedly remove jobs whose parents are all removed.
    let mut done = vec![false; parents.len()];
    loop {
        let mut progressed = false;
        for i in 0..parents.len() {
            if !done[i] && parents[i].iter().all(|&p| done[p]) {
                done[i] = true;
                progressed = true;
            }
        }
        if !progressed {
            break;
        }
    }
    if let Some(i) = done.iter().position(|d| !d) {
        return Err(map.error_at(
            &format!("jobs[{i}].after"),
            format!("job `{}` is part of a dependency cycle", names[i]),
        ));
    }
    Ok(parents)
}
