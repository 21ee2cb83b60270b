//! `bbsim sweep`: run the cartesian product of varied values, one directory per run, and
//! collect the headline metrics in `sweep.csv`.

use crate::edits::ScenarioEdits;
use crate::heap::release_freed_memory;
use crate::heartbeat::HeartbeatArg;
use crate::run_cmd::{
    default_out, install_interrupt_handler, run_loaded, scenario_path, threads_per_run,
    warn_unused, Watch,
};
use crate::sweep_plan::{self, PointRecord};
use bbsim_engine::Threads;
use bbsim_sim::output::cost::Cost;
use bbsim_sim::output::sweep::{sweep_csv, tidy, RunFigures, SweepPlan, SweepRun};
use bbsim_sim::output::{OutputSet, INTERRUPTED};
use bbsim_sim::run::{load_scenario_edited, Loaded, Parsed};
use progress::SweepProgress;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

mod progress;

/// Arguments of `bbsim sweep`.
#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// Scenario file; with `--point`, `--array-task`, `--slurm` or `--collect`, the plan
    /// directory written by `--plan`.
    pub scenario: Option<PathBuf>,
    /// A key and its values, e.g. `--vary burst_buffer.placement=node-local,grouped,global`
    /// (repeatable; runs the cartesian product). Values may be TOML lists or inline tables:
    /// `--vary network.dims=[4,4],[8,2]`.
    #[arg(long = "vary", value_name = "KEY=V1,V2,...")]
    pub vary: Vec<String>,
    /// `--unset` and `--set`, applied to every run before `--vary`.
    #[command(flatten)]
    pub edits: ScenarioEdits,
    /// Runs executed at the same time.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Threads per run (default: the scenario's `simulation.threads`).
    #[arg(long)]
    pub threads: Option<Threads>,
    /// Output directory (default: `<scenario name>-sweep` next to the scenario).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No per-run messages and no progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// `--heartbeat`, for each run (also with `--point` and `--array-task`).
    #[command(flatten)]
    pub heartbeat: HeartbeatArg,
    /// Validate every point and write the sweep's plan into DIR (`DIR/plan.json`) without
    /// running it: run its points with `--point` or `--slurm`, gather them with `--collect`.
    #[arg(long, value_name = "DIR")]
    pub plan: Option<PathBuf>,
    /// Run point N of the plan in the directory given in place of the scenario.
    #[arg(long, value_name = "N", conflicts_with_all = ["array_task", "slurm", "collect", "plan"])]
    pub point: Option<usize>,
    /// Run the points of Slurm array task `SLURM_ARRAY_TASK_ID` (`--points-per-task` each).
    #[arg(long, conflicts_with_all = ["slurm", "collect", "plan"])]
    pub array_task: bool,
    /// Points each Slurm array task runs (`--array-task`, `--slurm`).
    #[arg(long, default_value_t = 1, value_name = "K")]
    pub points_per_task: usize,
    /// Run every point again, also those an earlier run of the same sweep (or plan) finished.
    #[arg(long)]
    pub force: bool,
    /// Write `DIR/sweep.sbatch`, a Slurm array job over the plan in DIR.
    #[arg(long, conflicts_with_all = ["collect", "plan"])]
    pub slurm: bool,
    /// With `--slurm`: submit the array with `sbatch`.
    #[arg(long, requires = "slurm")]
    pub submit: bool,
    /// With `--slurm`: the partition (`#SBATCH --partition`).
    #[arg(long, requires = "slurm")]
    pub partition: Option<String>,
    /// With `--slurm`: each task's time limit, in Slurm's syntax (e.g. `1:00:00`).
    #[arg(long, requires = "slurm")]
    pub time: Option<String>,
    /// With `--slurm`: each task's memory, in Slurm's syntax (e.g. `8G`).
    #[arg(long, requires = "slurm")]
    pub mem: Option<String>,
    /// With `--slurm`: CPUs per task.
    #[arg(long, requires = "slurm")]
    pub cpus: Option<usize>,
    /// Gather the recorded points of the plan in DIR into `DIR/sweep.csv`; list the missing
    /// and failed ones and the command that runs only those.
    #[arg(long, conflicts_with = "plan")]
    pub collect: bool,
}

/// Parses `key=v1,v2` into the key and its values. Values are split at the commas outside
/// brackets, braces and quotes, so a value may be a TOML list or inline table:
/// `network.dims=[4,4],[8,2]` varies `network.dims` over `[4,4]` and `[8,2]`.
fn parse_vary(v: &str) -> Result<(String, Vec<String>), String> {
    let (k, vals) = v
        .split_once('=')
        .ok_or_else(|| format!("--vary {v}: expected KEY=V1,V2,..."))?;
    let vals: Vec<String> = split_values(vals)
        .map_err(|why| format!("--vary {v}: {why}"))?
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if k.trim().is_empty() || vals.is_empty() {
        return Err(format!(
            "--vary {v}: expected KEY=V1,V2,... with at least one value"
        ));
    }
    Ok((k.trim().to_string(), vals))
}

/// Splits `text` at the commas that are outside `[...]`, `{...}` and quotes. Error naming
/// the offset of a closing bracket without its opening one, or what is left open.
fn split_values(text: &str) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let mut open: Vec<(char, usize)> = Vec::new();
    let mut quote: Option<(char, usize)> = None;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if let Some((q, _)) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some((c, at)),
            '[' | '{' => open.push((c, at)),
            ']' | '}' => {
                let want = if c == ']' { '[' } else { '{' };
                match open.pop() {
                    Some((o, _)) if o == want => {}
                    Some((o, from)) => {
                        return Err(format!(
                            "`{c}` at offset {at} of the values closes the `{o}` at offset \
                             {from}; expected values such as `[1,2],[3,4]`"
                        ))
                    }
                    None => {
                        return Err(format!(
                            "`{c}` at offset {at} of the values closes nothing; expected \
                             values such as `[1,2],[3,4]`"
                        ))
                    }
                }
            }
            ',' if open.is_empty() => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    if let Some((q, at)) = quote {
        return Err(format!(
            "the quote `{q}` at offset {at} of the values is not closed"
        ));
    }
    if let Some((o, at)) = open.pop() {
        return Err(format!(
            "the `{o}` at offset {at} of the values is not closed"
        ));
    }
    parts.push(&text[start..]);
    Ok(parts)
}

/// `bbsim sweep`.
pub fn run(a: &SweepArgs) -> Result<(), String> {
    install_interrupt_handler();
    crate::heap::map_large_blocks();
    if a.point.is_some() || a.array_task || a.slurm || a.collect {
        return planned(a);
    }
    if a.jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    let vars: Vec<(String, Vec<String>)> = a
        .vary
        .iter()
        .map(|v| parse_vary(v))
        .collect::<Result<_, _>>()?;
    if vars.is_empty() {
        return Err("give at least one --vary KEY=V1,V2,...".into());
    }
    for (i, (key, _)) in vars.iter().enumerate() {
        if vars[..i].iter().any(|(k, _)| k == key) {
            return Err(format!(
                "--vary {key} is given twice: list all its values in one --vary {key}=V1,V2,..."
            ));
        }
    }
    let (path, builtin) = scenario_path(&a.scenario)?;
    // Validate the base scenario first, so a typo fails before any run starts.
    let base =
        load_scenario_edited(&path, &a.edits.unset, &a.edits.set).map_err(|d| d.to_string())?;
    let out = a.out.clone().unwrap_or_else(|| {
        let d = default_out(&path, builtin, &base.scenario.name);
        d.with_file_name(format!(
            "{}-sweep",
            base.scenario.name.replace(['/', ' '], "_")
        ))
    });
    crate::out_dir::check(&out)?;
    drop(base);
    let plan = SweepPlan::new(vars);
    // Validate every combination before running any.
    let mut checked = Vec::with_capacity(plan.len());
    for i in 0..plan.len() {
        let l = load_point(a, &plan, &path, i)?;
        if !a.quiet {
            warn_unused(&l, Some(&plan.dir_name(i)));
        }
        checked.push(Checked::of(l)?);
    }
    // The designs lowered for validation are gone; their pages go back before the runs.
    release_freed_memory();
    if let Some(dir) = &a.plan {
        let file = sweep_plan::write_plan(dir, &path, builtin, &a.edits, &plan, a.threads)?;
        if !a.quiet {
            println!(
                "planned {} points; wrote {}\nrun them with `bbsim sweep --point N {}` or \
                 `bbsim sweep --slurm {} --submit`, then `bbsim sweep --collect {}`",
                plan.len(),
                file.display(),
                dir.display(),
                dir.display(),
                dir.display()
            );
        }
        return Ok(());
    }
    let (runs, kept) = run_all(a, &plan, &checked, &out)?;
    let failed = runs.iter().filter(|r| r.outcome.is_err()).count();
    let written = write_tables(&out, &plan, &runs)?;
    if !a.quiet {
        let kept = if kept > 0 {
            format!(", {kept} kept from an earlier run")
        } else {
            String::new()
        };
        println!(
            "{} runs ({failed} failed{kept}); wrote {}",
            runs.len(),
            written
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if failed > 0 {
        return Err(format!(
            "{failed} of {} sweep runs failed (see sweep.csv)",
            runs.len()
        ));
    }
    Ok(())
}

/// Writes the sweep's tables for `runs` (the finished points, in point order) into `out`,
/// all of them atomically: `sweep.csv` and its long forms (`sweep-points.csv`,
/// `sweep-jobs.csv`, `sweep-phases.csv`). Returns the files written.
pub fn write_tables(
    out: &Path,
    plan: &SweepPlan,
    runs: &[SweepRun],
) -> Result<Vec<PathBuf>, String> {
    // The tables record finished points, so a point that finishes while the sweep is being
    // interrupted is still added to them.
    let mut set = OutputSet::for_finished_work(out).map_err(|e| e.to_string())?;
    let tables = [
        ("sweep.csv", sweep_csv(plan, runs)),
        (tidy::POINTS_FILE, tidy::points_csv(plan, runs)),
        (tidy::JOBS_FILE, tidy::jobs_csv(plan, runs)),
        (tidy::PHASES_FILE, tidy::phases_csv(plan, runs)),
    ];
    for (name, text) in &tables {
        set.write(name, text.as_bytes())
            .map_err(|e| e.to_string())?;
    }
    set.commit().map_err(|e| e.to_string())
}

/// Point `i` of `plan` as an earlier run of the same sweep into `out` left it, if it finished
/// there: its record names the same resolved scenario (`digest`), the run succeeded and its
/// directory is still there.
fn finished_earlier(plan: &SweepPlan, i: usize, digest: &str, out: &Path) -> Option<SweepRun> {
    let dir = plan.dir_name(i);
    let rec = sweep_plan::read_record(&sweep_plan::record_path(out, &dir))?;
    let same = rec.scenario_digest.as_deref() == Some(digest);
    if !same || rec.outcome.is_err() || !out.join(&dir).is_dir() {
        return None;
    }
    Some(SweepRun {
        index: i,
        values: plan.combos[i].clone(),
        dir,
        cost: rec.cost,
        outcome: rec.outcome,
    })
}

/// A validated point of a sweep, kept without its lowered design while it waits to run: at
/// the study's full scale a design holds hundreds of MB of generated workload, and the points
/// of a sweep were all held at once (the study's LAMMPS sweep peaked at 2.8 GB against 2.0 GB
/// for one point). The scenario stays in memory as validated, so edits to its files during
/// the sweep change nothing; the design is lowered again from it when the point runs, and a
/// data file it reads (a trace, an allocation list) that changed meanwhile fails the point.
struct Checked {
    /// The point as validated.
    parsed: Parsed,
    /// The point's scenario digest ([`sweep_plan::point_digest`]).
    digest: String,
    /// Its burst-buffer design's cost.
    cost: Cost,
}

impl Checked {
    /// Keeps what running `l` again needs, its digest and cost; drops its design.
    fn of(l: Loaded) -> Result<Self, String> {
        Ok(Checked {
            digest: sweep_plan::point_digest(&l)?,
            cost: l.cost(),
            parsed: l.into_parsed(),
        })
    }

    /// The point loaded again: its design lowered from the validated scenario, and its digest
    /// checked against the one taken at validation.
    fn load(&self) -> Result<Loaded, String> {
        let l = self.parsed.lower().map_err(|d| d.to_string())?;
        if sweep_plan::point_digest(&l)? != self.digest {
            return Err(format!(
                "a file this point reads changed after the sweep started ({} or the traces and \
                 node lists it names); run the sweep again to run it with the new contents",
                self.parsed.path.display()
            ));
        }
        Ok(l)
    }
}

/// Loads point `i` of `plan` over the scenario at `path`, its varied values named
/// `--vary key=value` in messages.
fn load_point(a: &SweepArgs, plan: &SweepPlan, path: &Path, i: usize) -> Result<Loaded, String> {
    let mut sets = plan.overrides(i, &a.edits.set);
    for v in &mut sets[a.edits.set.len()..] {
        v.insert_str(0, bbsim_sim::diag::VARY_ORIGIN);
    }
    load_scenario_edited(path, &a.edits.unset, &sets)
        .map_err(|d| format!("{d}\n(in the sweep combination {})", sets.join(" ")))
}

/// Runs the points of `plan` (validated in `checked`, in plan order) that have not finished
/// in `out` before (all of them with `--force`) on `--jobs` workers, each into its directory
/// under `out`. Each finished point is recorded in `out/points/` and
/// `sweep.csv` is rewritten with every point finished so far, so an interrupted sweep leaves
/// a valid partial table and running it again runs only the missing points. Returns the
/// runs in point order and how many were kept from before; error if the user interrupted
/// the sweep.
fn run_all(
    a: &SweepArgs,
    plan: &SweepPlan,
    checked: &[Checked],
    out: &Path,
) -> Result<(Vec<SweepRun>, usize), String> {
    let n = plan.len();
    let slots: Vec<Option<SweepRun>> = (0..n)
        .map(|i| (!a.force).then(|| finished_earlier(plan, i, &checked[i].digest, out))?)
        .collect();
    let todo: Vec<usize> = (0..n).filter(|&i| slots[i].is_none()).collect();
    let kept = n - todo.len();
    let progress = SweepProgress::new(todo.len(), a.quiet);
    if kept > 0 {
        progress.note(&format!(
            "{kept} of {n} points finished in an earlier run of this sweep: running the other {} \
             (--force runs them all again)",
            todo.len()
        ));
    }
    let slots = Mutex::new(slots);
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..a.jobs.min(todo.len()) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= todo.len() || INTERRUPTED.load(Ordering::SeqCst) {
                    return;
                }
                let i = todo[k];
                let started = std::time::Instant::now();
                let run = run_one(a, plan, i, &checked[i], out);
                release_freed_memory();
                if run.outcome.is_err() && INTERRUPTED.load(Ordering::SeqCst) {
                    return; // cancelled half-way: not a result
                }
                let secs = started.elapsed().as_secs_f64();
                let rec = PointRecord {
                    cost: run.cost.clone(),
                    outcome: run.outcome.clone(),
                    scenario_digest: Some(checked[i].digest.clone()),
                };
                let record = sweep_plan::record_path(out, &run.dir);
                if let Err(e) = sweep_plan::write_record(&record, &rec) {
                    progress.note(&format!("{}: not recorded ({e})", run.dir));
                }
                let Ok(mut g) = slots.lock() else {
                    return;
                };
                let error = run.outcome.as_ref().err().cloned();
                let dir = run.dir.clone();
                g[i] = Some(run);
                let so_far: Vec<SweepRun> = g.iter().flatten().cloned().collect();
                if let Err(e) = write_tables(out, plan, &so_far) {
                    progress.note(&format!("cannot write sweep.csv: {e}"));
                }
                progress.finished(&dir, secs, error.as_deref());
            });
        }
    });
    progress.finish();
    let runs: Vec<SweepRun> = slots
        .into_inner()
        .map_err(|_| "a sweep worker panicked".to_string())?
        .into_iter()
        .flatten()
        .collect();
    if INTERRUPTED.load(Ordering::SeqCst) {
        return Err(format!(
            "interrupted: {} of {n} points finished (in sweep.csv); run the same command again \
             to run only the others",
            runs.len()
        ));
    }
    Ok((runs, kept))
}

/// Runs combination `i` of `plan` (validated as `c`) into its directory under `out`.
fn run_one(a: &SweepArgs, plan: &SweepPlan, i: usize, c: &Checked, out: &Path) -> SweepRun {
    let dir = plan.dir_name(i);
    let started = std::time::Instant::now();
    let outcome = c.load().and_then(|l| {
        let threads = threads_per_run(a.threads.unwrap_or(l.scenario.simulation.threads), a.jobs);
        run_loaded(
            &l,
            threads,
            &out.join(&dir),
            Watch::log(a.heartbeat.heartbeat),
        )
        .map(|(_, _, f)| {
            RunFigures::of(&f.results, f.stats.events, started.elapsed().as_secs_f64())
        })
    });
    SweepRun {
        index: i,
        values: plan.combos[i].clone(),
        dir,
        cost: c.cost.clone(),
        outcome,
    }
}

/// The modes that work on a plan directory: `--point`, `--array-task`, `--slurm`, `--collect`.
fn planned(a: &SweepArgs) -> Result<(), String> {
    let dir = a
        .scenario
        .clone()
        .ok_or("give the plan directory written by `bbsim sweep SCENARIO --vary ... --plan DIR`")?;
    if !a.vary.is_empty() || !a.edits.is_empty() {
        return Err(
            "--vary, --set and --unset belong to the plan: give them when writing it with --plan"
                .into(),
        );
    }
    let plan = sweep_plan::read_plan(&dir)?;
    if a.collect {
        let c = sweep_plan::collect(&dir, &plan)?;
        let written = write_tables(&dir, &SweepPlan::new(plan.vary.clone()), &c.runs)?;
        let n = plan.points.len();
        let done = n - c.missing.len();
        if !a.quiet {
            println!(
                "{done} of {n} points recorded ({} failed); wrote {}",
                c.failed.len(),
                written
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let mut todo: Vec<usize> = c.missing.iter().chain(&c.failed).copied().collect();
        todo.sort_unstable();
        if todo.is_empty() {
            return Ok(());
        }
        let list = sweep_plan::array_list(&todo);
        let mut what = Vec::new();
        if !c.missing.is_empty() {
            what.push(format!(
                "points missing: {}",
                sweep_plan::array_list(&c.missing)
            ));
        }
        if !c.failed.is_empty() {
            what.push(format!(
                "points failed: {}",
                sweep_plan::array_list(&c.failed)
            ));
        }
        return Err(format!(
            "{}\nrun only those with\n  sbatch --array={list} {} \
             (written with --points-per-task 1)\nor one by one with `bbsim sweep --force --point N {}`",
            what.join("; "),
            dir.join("sweep.sbatch").display(),
            dir.display()
        ));
    }
    if a.slurm {
        let s = sweep_plan::SlurmSettings {
            partition: a.partition.clone(),
            time: a.time.clone(),
            mem: a.mem.clone(),
            cpus: a.cpus,
            points_per_task: a.points_per_task,
            heartbeat: a.heartbeat.heartbeat,
        };
        if a.points_per_task == 0 {
            return Err("--points-per-task must be at least 1".into());
        }
        let script = sweep_plan::write_sbatch(&dir, &plan, &s)?;
        if a.submit {
            let job = sweep_plan::submit(&script)?;
            println!("submitted {} as Slurm job {job}", script.display());
        } else if !a.quiet {
            println!(
                "wrote {}; submit it with `sbatch {}`",
                script.display(),
                script.display()
            );
        }
        return Ok(());
    }
    let points = sweep_plan::points_to_run(&plan, a.point, a.points_per_task)?;
    let mut failed = 0;
    for i in points {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err("interrupted".into());
        }
        let report = sweep_plan::run_point(&dir, &plan, i, a.force, a.heartbeat.heartbeat)?;
        failed += usize::from(report.failed);
        if !a.quiet {
            eprintln!("{}", report.line);
        }
    }
    if failed > 0 {
        return Err(format!("{failed} point(s) failed (recorded for --collect)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point waiting to run keeps its scenario as validated (an edit of the file changes
    /// nothing) and is lowered again when it runs; a data file it reads that changed
    /// meanwhile (here its node list) fails it, naming the reason.
    #[test]
    fn a_waiting_point_runs_as_validated_or_says_what_changed() {
        let dir = std::env::temp_dir().join(format!("bbsim-sweep-checked-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let scn = dir.join("q.toml");
        let quickstart = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/quickstart.toml"
        );
        std::fs::copy(quickstart, &scn).expect("copy");
        std::fs::write(dir.join("nodes.txt"), "0 1\n").expect("write");
        let sets: Vec<String> = [
            "jobs.0.ranks=12",
            "jobs.0.block_size=2MiB",
            "jobs.0.allocation=\"file\"",
            "jobs.0.allocation_file=\"nodes.txt\"",
            "jobs.1.ranks=12",
            "jobs.1.bytes_per_rank=2MiB",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let l = load_scenario_edited(&scn, &[], &sets).expect("valid");
        let nodes = l.design.jobs.nodes[0].clone();
        let c = Checked::of(l).expect("digest");
        std::fs::write(&scn, "not a scenario").expect("overwrite");
        let again = c.load().expect("the scenario is kept as validated");
        assert_eq!(again.design.jobs.nodes[0], nodes);
        std::fs::write(dir.join("nodes.txt"), "2 3\n").expect("rewrite");
        let e = c.load().err().expect("a changed node list fails the point");
        assert!(e.contains("changed after the sweep started"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn vary_parses_a_key_and_its_values() {
        assert!(parse_vary("k").is_err());
        assert!(parse_vary("k=").is_err());
        assert_eq!(parse_vary("n.k=a, b").expect("ok").1, vec!["a", "b"]);
    }

    #[test]
    fn vary_values_may_be_lists_and_tables() {
        let (k, v) = parse_vary("network.dims=[4, 4],[8,2], \"a,b\",{x=1,y=[2,3]}").expect("ok");
        assert_eq!(k, "network.dims");
        assert_eq!(v, vec!["[4, 4]", "[8,2]", "\"a,b\"", "{x=1,y=[2,3]}"]);
        let e = parse_vary("k=[1,2").expect_err("open");
        assert!(
            e.starts_with("--vary k=[1,2: ") && e.contains("`[` at offset 0"),
            "{e}"
        );
        let e = parse_vary("k=1],2").expect_err("close");
        assert!(e.contains("`]` at offset 1"), "{e}");
        let e = parse_vary("k=[1,2}").expect_err("mismatch");
        assert!(
            e.contains("`}` at offset 4 of the values closes the `[` at offset 0"),
            "{e}"
        );
        assert!(parse_vary("k=\"a,b")
            .expect_err("quote")
            .contains("quote `\"` at offset 0"));
    }
}
