//! `bbsim sweep`: run the cartesian product of varied values, one directory per run, and
//! collect the headline metrics in `sweep.csv`.

use crate::run_cmd::{default_out, install_interrupt_handler, run_loaded, scenario_path};
use bbsim_sim::cost::Cost;
use bbsim_sim::output::{OutputSet, INTERRUPTED};
use bbsim_sim::results::{IoPhase, Results};
use bbsim_sim::run::load_scenario;
use std::path::PathBuf;
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

/// The cartesian product of the varied values, in odometer order (last key fastest).
fn product(vars: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for (_, vals) in vars {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                vals.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect();
    }
    out
}

fn dir_name(i: usize, keys: &[(String, Vec<String>)], vals: &[String]) -> String {
    let mut s = format!("run-{i:03}");
    for ((k, _), v) in keys.iter().zip(vals) {
        let short = k.rsplit('.').next().unwrap_or(k);
        s.push('_');
        s.push_str(short);
        s.push('=');
        s.push_str(v);
    }
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_=.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Per-job columns of `sweep.csv` (each prefixed with `job<N>_`).
const JOB_COLUMNS: [&str; 12] = [
    "name",
    "io_phase_s",
    "time_in_io_mean_s",
    "time_in_io_max_s",
    "bandwidth_Bps",
    "avg_hops",
    "nonminimal_fraction",
    "io_phases",
    "io_phase_lengths_s",
    "io_phase_time_in_io_max_s",
    "time_in_io_p99_s",
    "io_phase_time_in_io_p99_s",
];

/// One value per I/O phase, `;`-separated (no CSV quoting needed), in seconds.
fn phase_list(phases: &[IoPhase], value: impl Fn(&IoPhase) -> f64) -> String {
    phases
        .iter()
        .map(|p| format!("{:.9}", value(p)))
        .collect::<Vec<_>>()
        .join(";")
}

struct Row {
    vals: Vec<String>,
    dir: String,
    cost: Cost,
    outcome: Result<(Results, u64, f64), String>,
}

/// The I/O phase (s) of job 0 in the run that differs from `row` only by having no burst
/// buffer, if the sweep has one.
fn pfs_baseline(rows: &[Row], row: &Row, vars: &[(String, Vec<String>)]) -> Option<f64> {
    let p = vars
        .iter()
        .position(|(k, _)| k == "burst_buffer.placement")?;
    rows.iter()
        .find(|r| {
            r.vals[p] == "none"
                && r.vals
                    .iter()
                    .zip(&row.vals)
                    .enumerate()
                    .all(|(i, (a, b))| i == p || a == b)
        })
        .and_then(|r| r.outcome.as_ref().ok())
        .and_then(|(res, _, _)| res.jobs.first().map(|j| j.io_phase_s))
}

/// `bbsim sweep`.
pub fn run(a: &SweepArgs) -> Result<(), String> {
    install_interrupt_handler();
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
    let combos = product(&vars);
    // Validate every combination before running any.
    let mut loaded = Vec::with_capacity(combos.len());
    for vals in &combos {
        let mut sets = a.set.clone();
        sets.extend(vars.iter().zip(vals).map(|((k, _), v)| format!("{k}={v}")));
        let l = load_scenario(&path, &sets)
            .map_err(|d| format!("{d}\n(in the sweep combination {})", sets.join(" ")))?;
        loaded.push(l);
    }
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<Option<Row>>> = Mutex::new((0..combos.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..a.jobs.min(combos.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= combos.len() || INTERRUPTED.load(Ordering::SeqCst) {
                    return;
                }
                let l = &loaded[i];
                let dir = dir_name(i, &vars, &combos[i]);
                let threads = a.threads.unwrap_or(l.scenario.simulation.threads).max(1);
                let started = std::time::Instant::now();
                let outcome = run_loaded(l, threads, &out.join(&dir), false)
                    .map(|(_, _, f)| (f.results, f.stats.events, started.elapsed().as_secs_f64()));
                if !a.quiet {
                    match &outcome {
                        Ok(_) => eprintln!("[{}/{}] {dir} done", i + 1, combos.len()),
                        Err(e) => eprintln!("[{}/{}] {dir} failed: {e}", i + 1, combos.len()),
                    }
                }
                if let Ok(mut g) = rows.lock() {
                    g[i] = Some(Row {
                        vals: combos[i].clone(),
                        dir,
                        cost: l.cost(),
                        outcome,
                    });
                }
            });
        }
    });
    if INTERRUPTED.load(Ordering::SeqCst) {
        return Err(
            "interrupted: sweep.csv was not written (finished runs keep their directories)".into(),
        );
    }
    let rows: Vec<Row> = rows
        .into_inner()
        .map_err(|_| "a sweep worker panicked".to_string())?
        .into_iter()
        .flatten()
        .collect();
    let max_jobs = rows
        .iter()
        .filter_map(|r| r.outcome.as_ref().ok().map(|o| o.0.jobs.len()))
        .max()
        .unwrap_or(0);
    let mut csv = String::from("run,dir");
    for (k, _) in &vars {
        csv.push(',');
        csv.push_str(&csv_field(k));
    }
    csv.push_str(",status,simulated_time_s,events,wall_s,cost_capital_usd,cost_energy_usd,cost_total_usd,usd_per_gb_per_s,usd_per_tb,job0_speedup_vs_pfs,job0_speedup_per_musd");
    for j in 0..max_jobs {
        for m in JOB_COLUMNS {
            csv.push_str(&format!(",job{j}_{m}"));
        }
    }
    csv.push('\n');
    let mut failed = 0;
    for (i, r) in rows.iter().enumerate() {
        csv.push_str(&format!("{i},{}", csv_field(&r.dir)));
        for v in &r.vals {
            csv.push(',');
            csv.push_str(&csv_field(v));
        }
        match &r.outcome {
            Ok((res, events, wall)) => {
                csv.push_str(&format!(
                    ",ok,{:.12},{events},{wall:.3}",
                    res.sim_end as f64 / 1e12
                ));
                let c = &r.cost;
                let opt = |v: Option<f64>| v.map(|x| format!("{x:.2}")).unwrap_or_default();
                let speedup = pfs_baseline(&rows, r, &vars).and_then(|base| {
                    let mine = res.jobs.first()?.io_phase_s;
                    (mine > 0.0).then(|| base / mine)
                });
                let per_musd = speedup.and_then(|s| (c.total > 0.0).then(|| s / (c.total / 1e6)));
                csv.push_str(&format!(
                    ",{:.2},{:.2},{:.2},{},{},{},{}",
                    c.capital,
                    c.energy,
                    c.total,
                    opt(c.usd_per_gb_per_s),
                    opt(c.usd_per_tb),
                    speedup.map(|x| format!("{x:.4}")).unwrap_or_default(),
                    per_musd.map(|x| format!("{x:.4}")).unwrap_or_default()
                ));
                for j in 0..max_jobs {
                    match res.jobs.get(j) {
                        Some(js) => csv.push_str(&format!(
                            ",{},{:.9},{:.9},{:.9},{:.0},{:.4},{:.4},{},{},{},{:.9},{}",
                            csv_field(&js.name),
                            js.io_phase_s,
                            js.time_in_io_mean_s,
                            js.time_in_io_max_s,
                            js.effective_bandwidth,
                            js.avg_hops,
                            js.nonminimal_fraction,
                            js.io_phases.len(),
                            phase_list(&js.io_phases, |p| p.length_s),
                            phase_list(&js.io_phases, |p| p.time_in_io_max_s),
                            js.time_in_io_p99_s,
                            phase_list(&js.io_phases, |p| p.time_in_io_p99_s)
                        )),
                        None => csv.push_str(&",".repeat(JOB_COLUMNS.len())),
                    }
                }
            }
            Err(e) => {
                failed += 1;
                csv.push_str(&format!(
                    ",{},,,,,,,,,,",
                    csv_field(&format!("failed: {e}"))
                ));
                for _ in 0..max_jobs {
                    csv.push_str(&",".repeat(JOB_COLUMNS.len()));
                }
            }
        }
        csv.push('\n');
    }
    let mut set = OutputSet::new(&out).map_err(|e| e.to_string())?;
    set.write("sweep.csv", csv.as_bytes())
        .map_err(|e| e.to_string())?;
    let written = set.commit().map_err(|e| e.to_string())?;
    if !a.quiet {
        println!(
            "{} runs ({failed} failed); wrote {}",
            rows.len(),
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
            rows.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_is_odometer_ordered() {
        let v = vec![
            ("a".to_string(), vec!["1".to_string(), "2".to_string()]),
            (
                "b".to_string(),
                vec!["x".to_string(), "y".to_string(), "z".to_string()],
            ),
        ];
        let p = product(&v);
        assert_eq!(p.len(), 6);
        assert_eq!(p[0], vec!["1", "x"]);
        assert_eq!(p[5], vec!["2", "z"]);
        assert!(parse_vary("k").is_err());
        assert!(parse_vary("k=").is_err());
        assert_eq!(parse_vary("n.k=a, b").expect("ok").1, vec!["a", "b"]);
        assert_eq!(dir_name(3, &v, &p[4]), "run-003_a=2_b=y");
    }
}
