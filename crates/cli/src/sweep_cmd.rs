//! `bbsim sweep`: run the cartesian product of varied values, one directory per run, and
//! collect the headline metrics in `sweep.csv`.

use crate::run_cmd::{default_out, install_interrupt_handler, run_loaded, scenario_path};
use bbsim_sim::output::sweep::{sweep_csv, RunFigures, SweepPlan, SweepRun};
use bbsim_sim::output::{OutputSet, INTERRUPTED};
use bbsim_sim::run::{load_scenario, Loaded};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Arguments of `bbsim sweep`.
#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// Scenario file.
    pub scenario: Option<PathBuf>,
    /// A key and its values, e.g. `--vary burst_buffer.placement=node-local,grouped,global`
    /// (repeatable; runs the cartesian product).
    #[arg(long = "vary", value_name = "KEY=V1,V2,...")]
    pub vary: Vec<String>,
    /// Fixed overrides applied to every run, as with `bbsim run --set`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Runs executed at the same time.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Threads per run (default: the scenario's `simulation.threads`).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output directory (default: `<scenario name>-sweep` next to the scenario).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No per-run messages.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Parses `key=v1,v2` into the key and its values.
fn parse_vary(v: &str) -> Result<(String, Vec<String>), String> {
    let (k, vals) = v
        .split_once('=')
        .ok_or_else(|| format!("--vary {v}: expected KEY=V1,V2,..."))?;
    let vals: Vec<String> = vals
        .split(',')
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

/// `bbsim sweep`.
pub fn run(a: &SweepArgs) -> Result<(), String> {
    install_interrupt_handler();
    if a.jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    if let Some(t) = a.threads {
        bbsim_engine::check_threads(t).map_err(|why| format!("--threads {why}"))?;
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
    let base = load_scenario(&path, &a.set).map_err(|d| d.to_string())?;
    let out = a.out.clone().unwrap_or_else(|| {
        let d = default_out(&path, builtin, &base.scenario.name);
        d.with_file_name(format!(
            "{}-sweep",
            base.scenario.name.replace(['/', ' '], "_")
        ))
    });
    crate::out_dir::check(&out)?;
    let plan = SweepPlan::new(vars);
    // Validate every combination before running any.
    let loaded = (0..plan.len())
        .map(|i| {
            let mut sets = plan.overrides(i, &a.set);
            // Varied values are named `--vary key=value` in messages.
            for v in &mut sets[a.set.len()..] {
                v.insert_str(0, bbsim_sim::diag::VARY_ORIGIN);
            }
            load_scenario(&path, &sets)
                .map_err(|d| format!("{d}\n(in the sweep combination {})", sets.join(" ")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let runs = run_all(a, &plan, &loaded, &out)?;
    let failed = runs.iter().filter(|r| r.outcome.is_err()).count();
    let mut set = OutputSet::new(&out).map_err(|e| e.to_string())?;
    set.write("sweep.csv", sweep_csv(&plan, &runs).as_bytes())
        .map_err(|e| e.to_string())?;
    let written = set.commit().map_err(|e| e.to_string())?;
    if !a.quiet {
        println!(
            "{} runs ({failed} failed); wrote {}",
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

/// Runs every combination of `plan` (`loaded`, in plan order) on `--jobs` workers, each into
/// its directory under `out`, printing one line per finished run unless `--quiet`. Error if
/// the user interrupted the sweep.
fn run_all(
    a: &SweepArgs,
    plan: &SweepPlan,
    loaded: &[Loaded],
    out: &Path,
) -> Result<Vec<SweepRun>, String> {
    let n = plan.len();
    let next = AtomicUsize::new(0);
    let runs: Mutex<Vec<Option<SweepRun>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..a.jobs.min(n) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || INTERRUPTED.load(Ordering::SeqCst) {
                    return;
                }
                let run = run_one(a, plan, i, &loaded[i], out);
                if !a.quiet {
                    match &run.outcome {
                        Ok(_) => eprintln!("[{}/{n}] {} done", i + 1, run.dir),
                        Err(e) => eprintln!("[{}/{n}] {} failed: {e}", i + 1, run.dir),
                    }
                }
                if let Ok(mut g) = runs.lock() {
                    g[i] = Some(run);
                }
            });
        }
    });
    if INTERRUPTED.load(Ordering::SeqCst) {
        return Err(
            "interrupted: sweep.csv was not written (finished runs keep their directories)".into(),
        );
    }
    Ok(runs
        .into_inner()
        .map_err(|_| "a sweep worker panicked".to_string())?
        .into_iter()
        .flatten()
        .collect())
}

/// Runs combination `i` of `plan` into its directory under `out`.
fn run_one(a: &SweepArgs, plan: &SweepPlan, i: usize, l: &Loaded, out: &Path) -> SweepRun {
    let dir = plan.dir_name(i);
    let threads = a.threads.unwrap_or(l.scenario.simulation.threads);
    let started = std::time::Instant::now();
    let outcome = run_loaded(l, threads, &out.join(&dir), false).map(|(_, _, f)| RunFigures {
        results: f.results,
        events: f.stats.events,
        wall_s: started.elapsed().as_secs_f64(),
    });
    SweepRun {
        values: plan.combos[i].clone(),
        dir,
        cost: l.cost(),
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vary_parses_a_key_and_its_values() {
        assert!(parse_vary("k").is_err());
        assert!(parse_vary("k=").is_err());
        assert_eq!(parse_vary("n.k=a, b").expect("ok").1, vec!["a", "b"]);
    }
}
