//! A sweep as a plan on disk, for running its points elsewhere (a Slurm job array, or any
//! machine that sees the same files):
//!
//! - `bbsim sweep SCENARIO --vary ... --plan DIR` validates every point and writes `DIR/plan.json`
//!   (the scenario, the fixed and varied overrides, one entry per point) without running;
//! - `bbsim sweep --point N DIR` runs point N (`--array-task`: the points of Slurm array task
//!   `SLURM_ARRAY_TASK_ID`) into `DIR/runs/<point>/` and records its `sweep.csv` row in
//!   `DIR/points/<point>.json`. The record is written last and atomically, so a point is either
//!   done or missing; a done point is skipped when run again;
//! - `bbsim sweep --slurm DIR [--submit]` writes `DIR/sweep.sbatch`, an array job with one task
//!   per `--points-per-task` points, and with `--submit` hands it to `sbatch`;
//! - `bbsim sweep --collect DIR` writes `DIR/sweep.csv` and its long forms from the recorded
//!   points (the same rows a local `bbsim sweep` writes), lists the missing and failed points, and prints the command
//!   that runs only those.

use crate::edits::ScenarioEdits;
use crate::run_cmd::{run_loaded, Watch};
use bbsim_engine::digest::Digest;
use bbsim_engine::Threads;
use bbsim_sim::output::cost::Cost;
use bbsim_sim::output::sweep::{RunFigures, SweepPlan, SweepRun};
use bbsim_sim::output::OutputSet;
use bbsim_sim::run::{load_scenario_edited, Loaded};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The plan file's name in a plan directory.
pub const PLAN_FILE: &str = "plan.json";

/// What `--plan` writes: everything needed to run any point again, anywhere the scenario's
/// files are visible at the same paths.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The bbsim version that wrote the plan.
    pub bbsim_version: String,
    /// The scenario file (absolute).
    pub scenario: PathBuf,
    /// Digest of the scenario file's bytes when the plan was written (hex): a point refuses
    /// to run a scenario that has changed since.
    pub scenario_digest: String,
    /// `--unset` keys applied to every point.
    #[serde(default)]
    pub unset: Vec<String>,
    /// `--set` overrides applied to every point.
    pub set: Vec<String>,
    /// The varied keys and their values, in `--vary` order.
    pub vary: Vec<(String, Vec<String>)>,
    /// Threads per run (`None`: the scenario's `simulation.threads`).
    pub threads: Option<Threads>,
    /// The points, in sweep order.
    pub points: Vec<PlannedPoint>,
}

/// One point of a plan.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlannedPoint {
    /// Its directory under `runs/` (also the name of its record under `points/`).
    pub dir: String,
    /// Its varied values, in key order.
    pub values: Vec<String>,
    /// Every override it runs with (the fixed ones, then its varied values).
    pub overrides: Vec<String>,
}

/// A finished point's record: what `sweep.csv` needs of it, and which scenario it ran.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PointRecord {
    /// Its burst-buffer design's cost.
    pub cost: Cost,
    /// The run's figures, or why it failed.
    pub outcome: Result<RunFigures, String>,
    /// [`point_digest`] of the scenario the point ran (absent in records of older builds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_digest: Option<String>,
}

/// Digest (hex) of a point's resolved scenario, the files its jobs read and the bbsim version
/// that runs it: the scenario file with its `--unset`, `--set` and `--vary` overrides applied
/// and every default filled in, as `summary.json` echoes it, plus the bytes of every Darshan
/// log and allocation file it names. A recorded point whose digest differs ran another
/// scenario, another trace (or another release).
pub fn point_digest(l: &Loaded) -> Result<String, String> {
    let json = serde_json::to_vec(&l.written).map_err(|e| e.to_string())?;
    let mut d = Digest::new();
    d.bytes(env!("CARGO_PKG_VERSION").as_bytes());
    d.bytes(&json);
    let base = l.path.parent().unwrap_or_else(|| Path::new("."));
    for j in &l.written.jobs {
        for file in [&j.log, &j.allocation_file].into_iter().flatten() {
            let bytes = std::fs::read(base.join(file))
                .map_err(|e| format!("cannot read {}: {e}", base.join(file).display()))?;
            d.bytes(&bytes);
        }
    }
    Ok(format!("{:016x}", d.finish()))
}

/// Reads the point record at `path`: `None` if it is absent or not a record.
pub fn read_record(path: &Path) -> Option<PointRecord> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Writes the point record `rec` to `path` atomically (its directory created if missing).
pub fn write_record(path: &Path, rec: &PointRecord) -> Result<(), String> {
    let json = serde_json::to_string_pretty(rec).map_err(|e| e.to_string())? + "\n";
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_atomic(path, json.as_bytes())
}

/// Digest of a file's bytes (hex), or an error naming it.
fn file_digest(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut d = Digest::new();
    d.bytes(&bytes);
    Ok(format!("{:016x}", d.finish()))
}

/// Writes `bytes` to `path` atomically (a temporary file in the same directory, renamed),
/// even after an interrupt: what it writes (a plan, a point's record, a batch script) describes
/// work already prepared or finished.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let mut set = OutputSet::for_finished_work(dir).map_err(|e| e.to_string())?;
    set.write(name, bytes).map_err(|e| e.to_string())?;
    set.commit().map_err(|e| e.to_string())?;
    Ok(())
}

/// Writes the plan of `plan` (points already validated) for `scenario`, edited by `edits`, into
/// `dir`. A built-in scenario (`builtin`) is copied into the plan directory, since its
/// temporary file goes away.
pub fn write_plan(
    dir: &Path,
    scenario: &Path,
    builtin: bool,
    edits: &ScenarioEdits,
    plan: &SweepPlan,
    threads: Option<Threads>,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create plan directory {}: {e}", dir.display()))?;
    let scenario = if builtin {
        let copy = dir.join("scenario.toml");
        let text = std::fs::read(scenario)
            .map_err(|e| format!("cannot read {}: {e}", scenario.display()))?;
        write_atomic(&copy, &text)?;
        copy
    } else {
        scenario.to_path_buf()
    };
    let scenario = std::fs::canonicalize(&scenario)
        .map_err(|e| format!("cannot resolve {}: {e}", scenario.display()))?;
    let p = Plan {
        bbsim_version: env!("CARGO_PKG_VERSION").to_string(),
        scenario_digest: file_digest(&scenario)?,
        scenario,
        unset: edits.unset.clone(),
        set: edits.set.clone(),
        vary: plan.vars.clone(),
        threads,
        points: (0..plan.len())
            .map(|i| PlannedPoint {
                dir: plan.dir_name(i),
                values: plan.combos[i].clone(),
                overrides: plan.overrides(i, &edits.set),
            })
            .collect(),
    };
    let json = serde_json::to_string_pretty(&p).map_err(|e| e.to_string())? + "\n";
    let path = dir.join(PLAN_FILE);
    write_atomic(&path, json.as_bytes())?;
    Ok(path)
}

/// Reads `DIR/plan.json`.
pub fn read_plan(dir: &Path) -> Result<Plan, String> {
    let path = dir.join(PLAN_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: {e} (write a plan first with `bbsim sweep SCENARIO --vary ... --plan {}`)",
            path.display(),
            dir.display()
        )
    })?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not a sweep plan: {e}", path.display()))
}

/// The record file of the point with directory name `point` in plan (or sweep) directory
/// `dir`: `dir/points/<point>.json`.
pub fn record_path(dir: &Path, point: &str) -> PathBuf {
    dir.join("points").join(format!("{point}.json"))
}

/// The points a `--point` invocation runs: point `n` if given, else the `per_task` points of
/// Slurm array task `SLURM_ARRAY_TASK_ID`.
pub fn points_to_run(plan: &Plan, n: Option<usize>, per_task: usize) -> Result<Vec<usize>, String> {
    let total = plan.points.len();
    let range = match n {
        Some(i) => i..i + 1,
        None => {
            let task = std::env::var("SLURM_ARRAY_TASK_ID").map_err(|_| {
                "--point needs a point number, or SLURM_ARRAY_TASK_ID (set in a Slurm array \
                 task)"
                    .to_string()
            })?;
            let t: usize = task
                .trim()
                .parse()
                .map_err(|_| format!("SLURM_ARRAY_TASK_ID={task}: expected a task number"))?;
            let per = per_task.max(1);
            t.saturating_mul(per)..t.saturating_mul(per).saturating_add(per).min(total)
        }
    };
    if range.start >= total {
        return Err(format!(
            "point {} does not exist: the plan has {total} points (0 to {})",
            range.start,
            total.saturating_sub(1)
        ));
    }
    Ok(range.collect())
}

/// What running one point did.
pub struct PointReport {
    /// One line for the user: done, already done, or failed and why.
    pub line: String,
    /// The run failed (its failure is recorded for `--collect`).
    pub failed: bool,
}

/// Runs point `i` of the plan in `dir` unless it is already recorded (`force` runs it again),
/// printing a heartbeat line every `heartbeat` of wall time where given.
pub fn run_point(
    dir: &Path,
    plan: &Plan,
    i: usize,
    force: bool,
    heartbeat: Option<std::time::Duration>,
) -> Result<PointReport, String> {
    let p = &plan.points[i];
    let record = record_path(dir, &p.dir);
    if record.exists() && !force {
        return Ok(PointReport {
            line: format!("point {i} ({}) already done", p.dir),
            failed: false,
        });
    }
    let digest = file_digest(&plan.scenario)?;
    if digest != plan.scenario_digest {
        return Err(format!(
            "{} changed since the plan was written; write the plan again",
            plan.scenario.display()
        ));
    }
    let loaded = load_scenario_edited(&plan.scenario, &plan.unset, &p.overrides)
        .map_err(|d| d.to_string())?;
    let threads = plan.threads.unwrap_or(loaded.scenario.simulation.threads);
    let started = std::time::Instant::now();
    let out = dir.join("runs").join(&p.dir);
    let outcome = run_loaded(&loaded, threads, &out, Watch::log(heartbeat)).map(|(_, _, f)| {
        RunFigures::of(&f.results, f.stats.events, started.elapsed().as_secs_f64())
    });
    let report = match &outcome {
        Ok(_) => PointReport {
            line: format!("point {i} ({}) done", p.dir),
            failed: false,
        },
        Err(e) => PointReport {
            line: format!("point {i} ({}) failed: {e}", p.dir),
            failed: true,
        },
    };
    let rec = PointRecord {
        cost: loaded.cost(),
        outcome,
        scenario_digest: Some(point_digest(&loaded)?),
    };
    write_record(&record, &rec)?;
    Ok(report)
}

/// Settings of the `sbatch` script.
#[derive(Clone, Debug, Default)]
pub struct SlurmSettings {
    /// `--partition`.
    pub partition: Option<String>,
    /// `--time` (Slurm's syntax, e.g. `1:00:00`).
    pub time: Option<String>,
    /// `--mem` (Slurm's syntax, e.g. `8G`).
    pub mem: Option<String>,
    /// `--cpus-per-task`.
    pub cpus: Option<usize>,
    /// Points each array task runs, one after the other.
    pub points_per_task: usize,
    /// `--heartbeat` for each point's run, into the task's log.
    pub heartbeat: Option<std::time::Duration>,
}

/// The text of `sweep.sbatch` for the plan in `dir` (absolute), run by the `bbsim` at `exe`.
pub fn sbatch_script(dir: &Path, plan: &Plan, exe: &Path, s: &SlurmSettings) -> String {
    let per = s.points_per_task.max(1);
    let tasks = plan.points.len().div_ceil(per);
    let mut lines = vec![
        "#!/bin/bash".to_string(),
        "# A bbsim sweep as a Slurm job array: each task runs its points of the plan in this"
            .to_string(),
        "# directory; `bbsim sweep --collect` gathers them into sweep.csv.".to_string(),
        "#SBATCH --job-name=bbsim-sweep".to_string(),
        format!("#SBATCH --array=0-{}", tasks.saturating_sub(1)),
        format!("#SBATCH --output={}/logs/%A_%a.out", dir.display()),
        format!("#SBATCH --chdir={}", dir.display()),
        "#SBATCH --ntasks=1".to_string(),
    ];
    if let Some(p) = &s.partition {
        lines.push(format!("#SBATCH --partition={p}"));
    }
    if let Some(t) = &s.time {
        lines.push(format!("#SBATCH --time={t}"));
    }
    if let Some(m) = &s.mem {
        lines.push(format!("#SBATCH --mem={m}"));
    }
    if let Some(c) = s.cpus {
        lines.push(format!("#SBATCH --cpus-per-task={c}"));
    }
    let heartbeat = s
        .heartbeat
        .map(|d| format!(" --heartbeat {}ms", d.as_millis()))
        .unwrap_or_default();
    lines.push(format!(
        "exec '{}' sweep --quiet --array-task --points-per-task {per}{heartbeat} '{}'",
        exe.display(),
        dir.display()
    ));
    lines.join("\n") + "\n"
}

/// Writes `DIR/sweep.sbatch` (and `DIR/logs/`); returns its path.
pub fn write_sbatch(dir: &Path, plan: &Plan, s: &SlurmSettings) -> Result<PathBuf, String> {
    let dir = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the bbsim binary: {e}"))?;
    std::fs::create_dir_all(dir.join("logs")).map_err(|e| e.to_string())?;
    let path = dir.join("sweep.sbatch");
    write_atomic(&path, sbatch_script(&dir, plan, &exe, s).as_bytes())?;
    Ok(path)
}

/// Submits `script` with `sbatch --parsable`; returns the job id.
pub fn submit(script: &Path) -> Result<String, String> {
    let out = std::process::Command::new("sbatch")
        .arg("--parsable")
        .arg(script)
        .output()
        .map_err(|e| format!("cannot run sbatch (is Slurm installed and on PATH?): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "sbatch {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// What `--collect` found.
pub struct Collected {
    /// The recorded points, in plan order.
    pub runs: Vec<SweepRun>,
    /// Points not recorded yet.
    pub missing: Vec<usize>,
    /// Points recorded as failed.
    pub failed: Vec<usize>,
}

/// Gathers the recorded points of the plan in `dir`.
pub fn collect(dir: &Path, plan: &Plan) -> Result<Collected, String> {
    let mut runs = Vec::new();
    let (mut missing, mut failed) = (Vec::new(), Vec::new());
    for (i, p) in plan.points.iter().enumerate() {
        let path = record_path(dir, &p.dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(_) => {
                missing.push(i);
                continue;
            }
        };
        let rec: PointRecord = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a point record: {e}", path.display()))?;
        if rec.outcome.is_err() {
            failed.push(i);
        }
        runs.push(SweepRun {
            index: i,
            values: p.values.clone(),
            dir: p.dir.clone(),
            cost: rec.cost,
            outcome: rec.outcome,
        });
    }
    Ok(Collected {
        runs,
        missing,
        failed,
    })
}

/// Point numbers as Slurm's `--array` list (`3,7-9`).
pub fn array_list(points: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < points.len() {
        let start = points[i];
        let mut end = start;
        while i + 1 < points.len() && points[i + 1] == end + 1 {
            i += 1;
            end = points[i];
        }
        out.push(if end > start {
            format!("{start}-{end}")
        } else {
            start.to_string()
        });
        i += 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_lists_join_runs() {
        assert_eq!(array_list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(array_list(&[4]), "4");
        assert_eq!(array_list(&[]), "");
    }

    #[test]
    fn the_script_has_one_task_per_group_of_points() {
        let plan = Plan {
            bbsim_version: "x".into(),
            scenario: "/s.toml".into(),
            scenario_digest: "0".into(),
            unset: vec![],
            set: vec![],
            vary: vec![],
            threads: None,
            points: (0..5)
                .map(|i| PlannedPoint {
                    dir: format!("run-{i:03}"),
                    values: vec![],
                    overrides: vec![],
                })
                .collect(),
        };
        let s = SlurmSettings {
            partition: Some("debug".into()),
            points_per_task: 2,
            ..SlurmSettings::default()
        };
        let text = sbatch_script(Path::new("/p"), &plan, Path::new("/bin/bbsim"), &s);
        assert!(text.contains("#SBATCH --array=0-2\n"), "{text}");
        assert!(text.contains("#SBATCH --partition=debug\n"));
        assert!(text.contains("'/bin/bbsim' sweep --quiet --array-task --points-per-task 2 '/p'"));
        let s = SlurmSettings {
            heartbeat: Some(std::time::Duration::from_secs(600)),
            ..s
        };
        let text = sbatch_script(Path::new("/p"), &plan, Path::new("/bin/bbsim"), &s);
        assert!(
            text.contains("--points-per-task 2 --heartbeat 600000ms '/p'"),
            "{text}"
        );
    }
}
