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
mod mpi_io;
mod recipe;
mod study_apps;
mod synthetic;
mod transforms;

pub use dependencies::job_parents;

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{JobSection, JobSource, Scenario};
use bbsim_workload::synthetic::App;
use bbsim_workload::{JobSpec, Workload, MAX_JOB_OPERATIONS, MAX_WORKLOAD_BYTES};
use keys::{job_key, source_name};
use recipe::Recipe;
use std::path::Path;

/// What lowering a job needs besides the job: where errors point, the directory relative paths
/// start from (the scenario file's), the scenario's random seed, and the machine's compute
/// node count.
struct Context<'a> {
    map: &'a SourceMap,
    base_dir: &'a Path,
    seed: u64,
    compute_nodes: u32,
}

/// How many compute nodes a job needs: `ceil(ranks / ranks_per_node)`.
struct JobSize {
    name: String,
    ranks: u32,
    ranks_per_node: u32,
}

impl JobSize {
    fn of(job: &JobSpec) -> JobSize {
        JobSize {
            name: job.name.clone(),
            ranks: job.ranks(),
            ranks_per_node: job.ranks_per_node,
        }
    }

    fn nodes(&self) -> u32 {
        self.ranks.div_ceil(self.ranks_per_node.max(1))
    }
}

/// A job lowered as far as the machine allows.
enum Lowered {
    /// Generated and checked.
    Job(JobSpec),
    /// Checked but not generated: the job (or the job whose files it reads) needs more compute
    /// nodes than the machine has, so the scenario cannot run.
    Sized(JobSize),
}

impl Lowered {
    fn name(&self) -> &str {
        match self {
            Lowered::Job(job) => &job.name,
            Lowered::Sized(size) => &size.name,
        }
    }

    fn job(&self) -> Option<&JobSpec> {
        match self {
            Lowered::Job(job) => Some(job),
            Lowered::Sized(_) => None,
        }
    }

    fn into_job(self) -> Option<JobSpec> {
        match self {
            Lowered::Job(job) => Some(job),
            Lowered::Sized(_) => None,
        }
    }

    fn into_size(self) -> JobSize {
        match self {
            Lowered::Job(job) => JobSize::of(&job),
            Lowered::Sized(size) => size,
        }
    }
}

/// The generator of one `[[jobs]]` entry's application (before transforms), after checking
/// that every key it gives applies to its source and that its parameters are valid; `earlier`
/// are the jobs listed before it.
fn recipe(
    j: &JobSection,
    idx: usize,
    cx: &Context,
    earlier: &[Lowered],
) -> Result<Recipe, Diagnostic> {
    let Context {
        map,
        base_dir,
        seed,
        ..
    } = *cx;
    keys::check_source_keys(j, idx, map)?;
    let app = match j.source {
        JobSource::Preset => study_apps::study_app(j, idx, map, seed)?,
        JobSource::Ior => benchmarks::ior(j, idx, map)?,
        JobSource::Checkpoint => benchmarks::checkpoint(j, idx, map)?,
        JobSource::Analysis => return analysis::consumer(j, idx, map, earlier),
        JobSource::QuotaUser => {
            return synthetic::quota_user(j, idx, map, seed).map(Recipe::QuotaUser)
        }
        JobSource::SmallReads => {
            return synthetic::small_reads(j, idx, map, seed).map(Recipe::SmallReads)
        }
        JobSource::Darshan => return darshan::replay(j, idx, map, base_dir),
    };
    if j.ranks == Some(0) {
        return Err(map.error_at(&job_key(idx, "ranks"), "ranks must be at least 1"));
    }
    Ok(Recipe::App(app))
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
/// the start of the simulation) and allocation policy, checked as a whole. A job that needs
/// more compute nodes than the machine has is checked but not generated.
fn lower_job(
    j: &JobSection,
    idx: usize,
    cx: &Context,
    earlier: &[Lowered],
) -> Result<Lowered, Diagnostic> {
    let map = cx.map;
    check_node_keys(j, idx, map)?;
    let recipe = recipe(j, idx, cx, earlier)?;
    let ior_collective = matches!(&recipe, Recipe::App(App::Ior(p)) if p.collective);
    let size = JobSize {
        name: job_name(j, idx),
        ranks: transforms::ranks_after(j, recipe.ranks()),
        ranks_per_node: j.ranks_per_node,
    };
    check_volume(&recipe, size.ranks, idx, map)?;
    // Generating a job larger than the machine can take gigabytes and seconds, for an error.
    let fits = size.nodes() <= cx.compute_nodes;
    let Some(job) = fits.then(|| recipe.generate()).flatten() else {
        transforms::check_transforms(j, idx, map)?;
        allocation::allocation(j, idx, map, cx.base_dir, &size.name, earlier)?;
        return Ok(Lowered::Sized(size));
    };
    let mut job = transforms::apply_transforms(job, j, idx, map)?;
    job.name = size.name;
    job.ranks_per_node = j.ranks_per_node;
    job.start_ps = j.start.0;
    let mut job = mpi_io::apply(job, j, idx, map, ior_collective)?;
    job.allocation = allocation::allocation(j, idx, map, cx.base_dir, &job.name, earlier)?;
    job.validate()
        .map_err(|e| map.error_at(&format!("jobs[{idx}]"), e.to_string()))?;
    let moved = job.totals().bytes_moved();
    if moved > MAX_WORKLOAD_BYTES {
        return Err(map.error_at(
            &format!("jobs[{idx}]"),
            format!(
                "the job moves {} bytes (written plus read): expected at most \
                 {MAX_WORKLOAD_BYTES} (4 EiB), the most the model's 64-bit byte counters can add up",
                at_least(moved)
            ),
        ));
    }
    Ok(Lowered::Job(job))
}

/// A byte count for a message: `moved`, or "more than 2^64 - 1" when it saturated.
fn at_least(moved: u64) -> String {
    if moved == u64::MAX {
        "more than 18446744073709551615".into()
    } else {
        moved.to_string()
    }
}

/// Refuses, before generating it, a study application's job that would move more bytes than
/// the model can count or hold more operations than fit in memory (`ranks`: after
/// transforms).
fn check_volume(
    recipe: &Recipe,
    ranks: u32,
    idx: usize,
    map: &SourceMap,
) -> Result<(), Diagnostic> {
    let Some(v) = recipe.volume() else {
        return Ok(());
    };
    let scale = u128::from(ranks.div_ceil(recipe.ranks().max(1)).max(1));
    let (bytes, ops) = (
        v.bytes.saturating_mul(scale),
        v.operations.saturating_mul(scale),
    );
    if bytes > u128::from(MAX_WORKLOAD_BYTES) {
        return Err(map.error_at(
            &format!("jobs[{idx}]"),
            format!(
                "the job would move {bytes} bytes (written plus read): expected at most \
                 {MAX_WORKLOAD_BYTES} (4 EiB), the most the model's 64-bit byte counters can add up"
            ),
        ));
    }
    if ops > u128::from(MAX_JOB_OPERATIONS) {
        return Err(map.error_at(
            &format!("jobs[{idx}]"),
            format!(
                "the job would have {ops} read and write operations: expected at most \
                 {MAX_JOB_OPERATIONS} (they are held in memory); use a larger transfer_size"
            ),
        ));
    }
    Ok(())
}

/// The error of a scenario whose jobs need more compute nodes than the machine has, with what
/// each job needs.
fn too_few_nodes(sizes: &[JobSize], compute_nodes: u32, map: &SourceMap) -> Diagnostic {
    let needed: u64 = sizes.iter().map(|s| u64::from(s.nodes())).sum();
    let detail: Vec<String> = sizes
        .iter()
        .map(|s| {
            format!(
                "{} needs {} ({} ranks / {} per node)",
                s.name,
                s.nodes(),
                s.ranks,
                s.ranks_per_node
            )
        })
        .collect();
    map.error_at(
        "jobs",
        format!(
            "the jobs need {needed} compute nodes but the machine has {compute_nodes}: {}",
            detail.join("; ")
        ),
    )
}

/// Builds the workload of a scenario for a machine of `compute_nodes` compute nodes.
/// `base_dir` resolves relative paths (logs, allocation files) against the scenario file's
/// directory.
///
/// When a job needs more nodes than the machine has, no job that large is generated: every job
/// is still checked, then the dependencies between jobs (as [`job_parents`] does), and the
/// error is the one model assembly gives for jobs that need more nodes than the machine has.
pub fn build_workload(
    s: &Scenario,
    map: &SourceMap,
    base_dir: &Path,
    compute_nodes: u32,
) -> Result<Workload, Diagnostic> {
    if s.jobs.is_empty() {
        return Err(map.error_at("jobs", "the scenario needs at least one [[jobs]] entry"));
    }
    let cx = Context {
        map,
        base_dir,
        seed: s.simulation.seed,
        compute_nodes,
    };
    // Names are unique: dependencies (`after`) and the outputs refer to jobs by name.
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (idx, j) in s.jobs.iter().enumerate() {
        let name = job_name(j, idx);
        if let Some(first) = seen.insert(name.clone(), idx) {
            return Err(map.error_at(
                &job_key(idx, "name"),
                format!(
                    "jobs[{idx}] and jobs[{first}] are both named `{name}`: expected a unique name per job (`after` and the outputs refer to jobs by name)"
                ),
            ));
        }
    }
    let mut lowered = Vec::with_capacity(s.jobs.len());
    for (idx, j) in s.jobs.iter().enumerate() {
        let job = lower_job(j, idx, &cx, &lowered)?;
        lowered.push(job);
    }
    if lowered.iter().all(|l| l.job().is_some()) {
        let moved = lowered
            .iter()
            .filter_map(Lowered::job)
            .map(|j| j.totals().bytes_moved())
            .fold(0, u64::saturating_add);
        if moved > MAX_WORKLOAD_BYTES {
            return Err(map.error_at(
                "jobs",
                format!(
                    "the jobs move {} bytes in all (written plus read): expected at most \
                     {MAX_WORKLOAD_BYTES} (4 EiB), the most the model's 64-bit byte counters \
                     can add up",
                    at_least(moved)
                ),
            ));
        }
        let jobs = lowered.into_iter().filter_map(Lowered::into_job);
        return Ok(Workload::new(jobs.collect()));
    }
    let names: Vec<&str> = lowered.iter().map(Lowered::name).collect();
    dependencies::parents_by_name(s, map, &names)?;
    let sizes: Vec<JobSize> = lowered.into_iter().map(Lowered::into_size).collect();
    Err(too_few_nodes(&sizes, compute_nodes, map))
}

#[cfg(test)]
mod tests {
    use super::build_workload;
    use crate::diag::{load_str, Diagnostic};
    use crate::scenario::Scenario;
    use bbsim_workload::Workload;
    use std::path::Path;

    /// The compute nodes of `scenarios/quickstart.toml` (a 3-level fat tree of 8-port
    /// switches).
    const QUICKSTART_NODES: u32 = 128;

    /// The workload of `scenarios/quickstart.toml` (an IOR job of 48 ranks, then a checkpointer
    /// of 48 ranks, 6 per node), its text passed through `edit`, with `overrides`.
    fn quickstart(
        edit: impl Fn(&str) -> String,
        overrides: &[&str],
    ) -> Result<Workload, Diagnostic> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let text = std::fs::read_to_string(dir.join("quickstart.toml")).expect("quickstart");
        let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let (s, map): (Scenario, _) =
            load_str("quickstart.toml", &edit(&text), &overrides).expect("valid scenario");
        build_workload(&s, &map, &dir, QUICKSTART_NODES)
    }

    #[test]
    fn a_job_larger_than_the_machine_is_refused_before_it_is_generated() {
        // Generating these ten million ranks took seconds and gigabytes before the check.
        let e = quickstart(str::to_string, &["jobs.0.ranks=10000000"]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("jobs"));
        assert_eq!(
            e.message,
            "the jobs need 1666675 compute nodes but the machine has 128: ior needs 1666667 \
             (10000000 ranks / 6 per node); checkpoint needs 8 (48 ranks / 6 per node)"
        );
    }

    #[test]
    fn later_errors_still_come_first_for_a_job_larger_than_the_machine() {
        let e = quickstart(
            str::to_string,
            &["jobs.0.ranks=10000000", "jobs.1.transfer_size=0B"],
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("jobs[1].transfer_size"));
        let e = quickstart(
            |t| {
                t.replacen(
                    "name = \"checkpoint\"",
                    "name = \"checkpoint\"\nafter = [\"io\"]",
                    1,
                )
            },
            &["jobs.0.ranks=10000000"],
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("jobs[1].after[0]"));
        assert_eq!(e.message, "no job is named `io`; did you mean `ior`?");
    }

    #[test]
    fn duplicate_job_names_are_refused_naming_both_jobs() {
        let e = quickstart(str::to_string, &["jobs.1.name=ior"]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("jobs[1].name"));
        assert_eq!(e.file, "--set jobs.1.name=ior");
        assert!(
            e.message
                .starts_with("jobs[1] and jobs[0] are both named `ior`: expected a unique name"),
            "{e}"
        );
        let e = quickstart(
            |t| t.replacen("name = \"checkpoint\"", "name = \"ior\"", 1),
            &[],
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("quickstart.toml:"), "{e}");
        assert!(e.message.contains("both named `ior`"), "{e}");
    }

    #[test]
    fn a_job_weak_scaled_back_onto_the_machine_is_generated() {
        let scaled = |t: &str| {
            t.replacen(
                "allocation = \"fragmented\"",
                "allocation = \"fragmented\"\ntransforms = [{ kind = \"weak-scale\", ranks = 48 }]",
                1,
            )
        };
        // 1,000 ranks need 167 nodes of the 128, but the job is scaled to 48 ranks.
        let w = quickstart(scaled, &["jobs.0.ranks=1000"]).expect("fits");
        assert_eq!(w.jobs[0].ranks(), 48);
        assert_eq!(w.jobs[1].ranks(), 48);
    }
}
