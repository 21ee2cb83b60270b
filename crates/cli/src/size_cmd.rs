//! `bbsim size`: the cheapest burst-buffer design that meets the user's targets, found by a
//! search over the product of the given dimensions that runs far fewer designs than the
//! product (`bbsim_sim::sizing::search`), or all of them with `--exhaustive`.

use crate::edits::ScenarioEdits;
use crate::heap::release_freed_memory;
use crate::heartbeat::HeartbeatArg;
use crate::run_cmd::{
    default_out, install_interrupt_handler, run_loaded, scenario_path, threads_per_run, Watch,
};
use bbsim_engine::Threads;
use bbsim_sim::output::sweep::SweepPlan;
use bbsim_sim::output::{OutputSet, INTERRUPTED};
use bbsim_sim::run::{load_scenario_edited, Loaded};
use bbsim_sim::sizing::metrics::{fmt_value, Target, TARGET_SYNTAX};
use bbsim_sim::sizing::report::{sizing_csv, sizing_svg};
use bbsim_sim::sizing::search::{exhaustive, search, Space};
use bbsim_sim::sizing::{best_per_target, design_label, judge, Dim, Tried};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Arguments of `bbsim size`.
#[derive(clap::Args, Debug)]
pub struct SizeArgs {
    /// Scenario file.
    pub scenario: Option<PathBuf>,
    /// A dimension of the design space: a scenario key and its values,
    /// `KEY=V1,V2,...`, `KEY=A..B` (A, 2A, 4A, ... up to B) or `KEY=A..B+STEP`; values in
    /// scenario units (`1.6TB`, `2GB/s`). Numeric values are ordered (larger assumed never
    /// worse); others (e.g. placements) are enumerated. Repeatable.
    #[arg(long = "dim", value_name = "KEY=V1,V2,...")]
    pub dim: Vec<String>,
    /// A target every chosen design must meet: `METRIC<=VALUE` or `METRIC[JOB]<=VALUE`, e.g.
    /// `io_time_max_s<=2s` (repeatable; `--target help` lists the metrics).
    #[arg(long = "target", value_name = "METRIC<=VALUE")]
    pub target: Vec<String>,
    /// A numeric `--dim` key to enumerate instead of assuming larger is never worse
    /// (repeatable).
    #[arg(long = "unordered", value_name = "KEY")]
    pub unordered: Vec<String>,
    /// `--unset` and `--set`, applied to every design before its `--dim` values.
    #[command(flatten)]
    pub edits: ScenarioEdits,
    /// Designs run at the same time (the search runs this many candidates per round).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Threads per run (default: the scenario's `simulation.threads`).
    #[arg(long)]
    pub threads: Option<Threads>,
    /// Output directory (default: `<scenario name>-size` next to the scenario).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Only the final result.
    #[arg(long, short)]
    pub quiet: bool,
    /// `--heartbeat`, for each design's run.
    #[command(flatten)]
    pub heartbeat: HeartbeatArg,
    /// Run every design of the product (to check the search).
    #[arg(long)]
    pub exhaustive: bool,
}

/// `bbsim size`.
pub fn run(a: &SizeArgs) -> Result<(), String> {
    install_interrupt_handler();
    crate::heap::map_large_blocks();
    if a.target.iter().any(|t| t == "help") {
        println!(
            "targets: {TARGET_SYNTAX}\nmetrics:\n{}",
            bbsim_sim::sizing::metrics::metrics_help()
        );
        return Ok(());
    }
    if a.jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    let dims: Vec<Dim> = a
        .dim
        .iter()
        .map(|d| {
            let key = d.split_once('=').map_or(d.as_str(), |p| p.0).trim();
            Dim::parse(d, a.unordered.iter().any(|u| u == key))
        })
        .collect::<Result<_, _>>()?;
    if dims.is_empty() {
        return Err("give at least one --dim KEY=V1,V2,... (or KEY=A..B)".into());
    }
    for (i, d) in dims.iter().enumerate() {
        if dims[..i].iter().any(|e| e.key == d.key) {
            return Err(format!(
                "--dim {} is given twice: list all its values in one --dim {}=V1,V2,...",
                d.key, d.key
            ));
        }
    }
    for u in &a.unordered {
        if !dims.iter().any(|d| &d.key == u) {
            return Err(format!("--unordered {u}: no --dim {u}=..."));
        }
    }
    if a.target.is_empty() {
        return Err(format!("give at least one --target {TARGET_SYNTAX}"));
    }
    let (path, builtin) = scenario_path(&a.scenario)?;
    let plan = SweepPlan::new(
        dims.iter()
            .map(|d| (d.key.clone(), d.values.clone()))
            .collect(),
    );
    let space = Space {
        sizes: dims.iter().map(|d| d.values.len()).collect(),
        ordered: dims.iter().map(|d| d.ordered).collect(),
    };
    // Load (and so validate) every design and price it before running any.
    let first = load_design(a, &path, &plan, 0)?;
    let jobs = first.job_names();
    let targets: Vec<Target> = a
        .target
        .iter()
        .map(|t| Target::parse(t, &jobs))
        .collect::<Result<_, _>>()?;
    let costs = price_all(a, &path, &plan)?;
    let out = a.out.clone().unwrap_or_else(|| {
        let d = default_out(&path, builtin, &first.scenario.name);
        d.with_file_name(format!(
            "{}-size",
            first.scenario.name.replace(['/', ' '], "_")
        ))
    });
    let name = first.scenario.name.clone();
    drop(first);
    let labels: Vec<String> = plan.combos.iter().map(|c| design_label(&dims, c)).collect();
    let total = plan.len();
    if !a.quiet {
        println!(
            "{total} designs; targets: {}{}",
            targets
                .iter()
                .map(|t| t.label(&jobs))
                .collect::<Vec<_>>()
                .join(", "),
            if a.exhaustive {
                " (running all of them)"
            } else {
                ""
            }
        );
    }
    let tried: Mutex<Vec<Tried>> = Mutex::new(Vec::new());
    let runner = |batch: &[usize]| -> Result<Vec<bool>, String> {
        let done = run_batch(a, &path, &plan, &costs, &targets, &jobs, &out, batch)?;
        let mut g = tried
            .lock()
            .map_err(|_| "a sizing worker panicked".to_string())?;
        let mut ok = Vec::with_capacity(done.len());
        for t in done {
            if !a.quiet {
                println!("{}", line(&t, &labels, &targets, &jobs, g.len() + 1));
            }
            ok.push(t.verdict.feasible);
            g.push(t);
        }
        Ok(ok)
    };
    let outcome = if a.exhaustive {
        exhaustive(&space, &costs, a.jobs, runner)?
    } else {
        search(&space, &costs, a.jobs, runner)?
    };
    let tried = tried
        .into_inner()
        .map_err(|_| "a sizing worker panicked".to_string())?;
    let mut set = OutputSet::new(&out).map_err(|e| e.to_string())?;
    set.write(
        "sizing.csv",
        sizing_csv(&dims, &targets, &jobs, &tried).as_bytes(),
    )
    .map_err(|e| e.to_string())?;
    let tried_labels: Vec<String> = tried.iter().map(|t| labels[t.design].clone()).collect();
    let chosen_pos = outcome
        .chosen
        .and_then(|c| tried.iter().position(|t| t.design == c));
    let title = format!("{}: cost against {}", name, targets[0].column_name(&jobs));
    let svg = sizing_svg(
        &title,
        &targets[0],
        &jobs,
        &tried,
        &tried_labels,
        chosen_pos,
    );
    set.write("sizing.svg", svg.as_bytes())
        .map_err(|e| e.to_string())?;
    let written = set.commit().map_err(|e| e.to_string())?;
    let ran = tried.len();
    let summary = format!(
        "ran {ran} of {total} designs (saved {})",
        total.saturating_sub(ran)
    );
    let files = written
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    match chosen_pos {
        Some(i) => {
            let t = &tried[i];
            println!(
                "chosen: {} cost ${:.2}; {}",
                labels[t.design],
                t.cost,
                metric_list(t, &targets, &jobs)
            );
            println!("{summary}; wrote {files}");
            Ok(())
        }
        None => {
            println!("{summary}; wrote {files}");
            Err(no_design(&targets, &jobs, &tried, &labels))
        }
    }
}

/// Loads design `i` of `plan`: the scenario with `--unset`, then `--set`, then the design's
/// `--dim` values applied. The error names the design's values after the diagnostic.
fn load_design(a: &SizeArgs, path: &Path, plan: &SweepPlan, i: usize) -> Result<Loaded, String> {
    load_scenario_edited(path, &a.edits.unset, &plan.overrides(i, &a.edits.set))
        .map_err(|d| format!("{d}\n(in the design {})", plan.overrides(i, &[]).join(" ")))
}

/// Loads every design of `plan` (`--jobs` at a time) and returns its total cost (US$), or
/// the first design that does not load.
fn price_all(a: &SizeArgs, path: &Path, plan: &SweepPlan) -> Result<Vec<f64>, String> {
    let n = plan.len();
    let next = AtomicUsize::new(0);
    let costs: Mutex<Vec<Result<f64, String>>> =
        Mutex::new((0..n).map(|_| Err(String::new())).collect());
    std::thread::scope(|s| {
        for _ in 0..a.jobs.min(n) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    return;
                }
                let c = load_design(a, path, plan, i).map(|l| l.cost().total);
                if let Ok(mut g) = costs.lock() {
                    g[i] = c;
                }
            });
        }
    });
    costs
        .into_inner()
        .map_err(|_| "a pricing worker panicked".to_string())?
        .into_iter()
        .collect()
}

/// Runs the designs of `batch` (`--jobs` at a time), each into its directory under `out`,
/// and judges them; in batch order.
#[allow(clippy::too_many_arguments)]
fn run_batch(
    a: &SizeArgs,
    path: &Path,
    plan: &SweepPlan,
    costs: &[f64],
    targets: &[Target],
    jobs: &[String],
    out: &Path,
    batch: &[usize],
) -> Result<Vec<Tried>, String> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Tried>>> = Mutex::new(batch.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..a.jobs.min(batch.len()) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= batch.len() || INTERRUPTED.load(Ordering::SeqCst) {
                    return;
                }
                let i = batch[k];
                let dir = plan.dir_name(i);
                let result = load_design(a, path, plan, i).and_then(|l| {
                    let threads =
                        threads_per_run(a.threads.unwrap_or(l.scenario.simulation.threads), a.jobs);
                    run_loaded(
                        &l,
                        threads,
                        &out.join(&dir),
                        Watch::log(a.heartbeat.heartbeat),
                    )
                    .map(|f| f.2.results)
                });
                let verdict = judge(targets, jobs, result.as_ref().map_err(String::as_str));
                drop(result);
                release_freed_memory();
                let t = Tried {
                    design: i,
                    values: plan.combos[i].clone(),
                    dir,
                    cost: costs[i],
                    verdict,
                };
                if let Ok(mut g) = done.lock() {
                    g[k] = Some(t);
                }
            });
        }
    });
    if INTERRUPTED.load(Ordering::SeqCst) {
        return Err(
            "interrupted: sizing.csv was not written (finished runs keep their directories)".into(),
        );
    }
    done.into_inner()
        .map_err(|_| "a sizing worker panicked".to_string())?
        .into_iter()
        .map(|t| t.ok_or_else(|| "a sizing run did not finish".to_string()))
        .collect()
}

/// `io_time_max_s=0.05 s, ...` of a tried design.
fn metric_list(t: &Tried, targets: &[Target], jobs: &[String]) -> String {
    targets
        .iter()
        .zip(&t.verdict.values)
        .map(|(tg, v)| {
            format!(
                "{}={}",
                tg.column_name(jobs),
                v.map_or("-".to_string(), |v| format!(
                    "{} {}",
                    fmt_value(v),
                    tg.metric.unit.symbol()
                ))
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The line printed for the `n`th design run.
fn line(t: &Tried, labels: &[String], targets: &[Target], jobs: &[String], n: usize) -> String {
    let status = if t.verdict.feasible {
        "meets every target".to_string()
    } else {
        format!("misses: {}", t.verdict.reason)
    };
    format!(
        "[{n}] design {} ({}): ${:.2}; {}; {status}",
        t.design,
        labels[t.design],
        t.cost,
        metric_list(t, targets, jobs)
    )
}

/// The error when no design meets every target: the targets no design met, and for each
/// target the best value reached and by which design.
fn no_design(targets: &[Target], jobs: &[String], tried: &[Tried], labels: &[String]) -> String {
    let best = best_per_target(targets, tried);
    let mut msg = String::from("no design meets every target");
    let never: Vec<String> = targets
        .iter()
        .zip(&best)
        .filter(|(t, b)| !b.is_some_and(|(v, _)| t.met(v)))
        .map(|(t, _)| t.label(jobs))
        .collect();
    if !never.is_empty() {
        msg.push_str(&format!("; no design run meets {}", never.join(", ")));
    }
    msg.push_str(&format!(
        "\nbest reached per target (among the {} designs run):",
        tried.len()
    ));
    for (t, b) in targets.iter().zip(&best) {
        let u = t.metric.unit.symbol();
        match b {
            Some((v, by)) => msg.push_str(&format!(
                "\n  {}: {} {u} (target {} {u}, {}) by design {} ({})",
                t.column_name(jobs),
                fmt_value(*v),
                fmt_value(t.limit),
                if t.met(*v) {
                    "met".to_string()
                } else {
                    format!("{:.1}x the target", v / t.limit.max(f64::MIN_POSITIVE))
                },
                by.design,
                labels[by.design]
            )),
            None => msg.push_str(&format!(
                "\n  {}: no design produced a value",
                t.column_name(jobs)
            )),
        }
    }
    if let Some(f) = tried
        .iter()
        .find(|t| t.verdict.reason.starts_with("run failed"))
    {
        msg.push_str(&format!(
            "\n(some runs failed, e.g. design {}: {})",
            f.design, f.verdict.reason
        ));
    }
    msg
}
