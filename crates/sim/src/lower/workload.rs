//! Workload lowering: turns the scenario's `[[jobs]]` into the workload crate's jobs
//! ([`JobSpec`]): synthetic applications with their parameters, Darshan replays, transforms,
//! allocation policies, and the dependencies between jobs. Every error names the scenario key
//! it is about.
//!
//! One submodule per workload source (the study applications, IOR and checkpoint benchmarks,
//! the synthetic quota-user and small-reads jobs, analysis consumers, Darshan replay), plus
//! the keys each source takes, transforms, allocation, and dependencies.

mod allocation;
mod analysis;
mod benchmarks;
mod darshan;
mod dependencies;
mod keys;
mod study_apps;
mod synthetic;
mod transforms;

pub use dependencies::job_parents;

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{JobSection, JobSource, Scenario};
use bbsim_workload::{JobSpec, Workload};
use keys::{job_key, source_name};
use std::path::Path;

/// What lowering a job needs besides the job: where errors point, the directory relative paths
/// start from (the scenario file's), and the scenario's random seed.
struct Context<'a> {
    map: &'a SourceMap,
    base_dir: &'a Path,
    seed: u64,
}

/// Builds the application job of one `[[jobs]]` entry (before transforms), after checking that
/// every key it gives applies to its source; `earlier` are the jobs listed before it.
fn base_job(
    j: &JobSection,
    idx: usize,
    cx: &Context,
    earlier: &[JobSpec],
) -> Result<JobSpec, Diagnostic> {
    let Context {
        map,
        base_dir,
        seed,
    } = *cx;
    keys::check_source_keys(j, idx, map)?;
    let app = match j.source {
        JobSource::Preset => study_apps::study_app(j, idx, map, seed)?,
        JobSource::Ior => benchmarks::ior(j, idx, map)?,
        JobSource::Checkpoint => benchmarks::checkpoint(j, idx, map)?,
        JobSource::Analysis => return analysis::analysis_job(j, idx, map, earlier),
        JobSource::QuotaUser => return synthetic::quota_user_job(j, idx, map, seed),
        JobSource::SmallReads => return synthetic::small_reads_job(j, idx, map, seed),
        JobSource::Darshan => return darshan::darshan_job(j, idx, map, base_dir),
    };
    if j.ranks == Some(0) {
        return Err(map.error_at(&job_key(idx, "ranks"), "ranks must be at least 1"));
    }
    Ok(app.job())
}

/// Checks the keys of job `idx` that every source takes: ranks per node, and the block size of
/// its node's read cache (bytes).
fn check_node_keys(j: &JobSection, idx: usize, map: &SourceMap) -> Result<(), Diagnostic> {
    if j.ranks_per_node == 0 {
        return Err(map.error_at(&job_key(idx, "ranks_per_node"), "must be at least 1"));
    }
    if j.read_cache_block.0 == 0 {
        return Err(map.error_at(&job_key(idx, "read_cache_block"), "must be > 0"));
    }
    Ok(())
}

/// The name of job `idx`: its `name`, or else its preset or source followed by its index
/// (`gtc-0`, `ior-1`).
fn job_name(j: &JobSection, idx: usize) -> String {
    j.name.clone().unwrap_or_else(|| {
        let base = match j.source {
            JobSource::Preset => j.preset.clone().unwrap_or_else(|| "preset".into()),
            other => source_name(other).to_string(),
        };
        format!("{base}-{idx}")
    })
}

/// Lowers job `idx`: its application, transforms, name, ranks per node, start time (ps from
/// the start of the simulation) and allocation policy, checked as a whole.
fn lower_job(
    j: &JobSection,
    idx: usize,
    cx: &Context,
    earlier: &[JobSpec],
) -> Result<JobSpec, Diagnostic> {
    let map = cx.map;
    check_node_keys(j, idx, map)?;
    let job = base_job(j, idx, cx, earlier)?;
    let mut job = transforms::apply_transforms(job, j, idx, map)?;
    job.name = job_name(j, idx);
    job.ranks_per_node = j.ranks_per_node;
    job.start_ps = j.start.0;
    job.allocation = allocation::allocation(j, idx, map, cx.base_dir, &job.name, earlier)?;
    job.validate()
        .map_err(|e| map.error_at(&format!("jobs[{idx}]"), e.to_string()))?;
    Ok(job)
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
    let cx = Context {
        map,
        base_dir,
        seed: s.simulation.seed,
    };
    let mut jobs = Vec::with_capacity(s.jobs.len());
    for (idx, j) in s.jobs.iter().enumerate() {
        let job = lower_job(j, idx, &cx, &jobs)?;
        jobs.push(job);
    }
    Ok(Workload::new(jobs))
}
