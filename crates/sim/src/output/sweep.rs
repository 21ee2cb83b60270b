//! `sweep.csv`, the table `bbsim sweep` writes: the sweep's plan (the cartesian product of the
//! varied values and one directory per run), and one row per run with its headline metrics,
//! its design's cost, its job 0's speed-up over the PFS-only baseline and per-job columns;
//! and the same figures in long form ([`tidy`]) for data-frame tools.
//!
//! Every cell of `sweep.csv` is one number or one label: a varied value with a unit is given
//! as written and as a number in its base unit (the column named with the unit, as in the
//! long tables), and per-phase figures are in `sweep-phases.csv`, apart from each job's first
//! I/O phase (`job<N>_phase1_...`).

use super::capacity::JobSizing;
use super::collect::{JobSummary, Results};
use super::cost::Cost;
use super::phases::IoPhase;
use super::report::csv_field;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

pub mod tidy;

/// The varied key whose value [`NO_BURST_BUFFER`] marks a PFS-only baseline run.
pub const PLACEMENT_KEY: &str = "burst_buffer.placement";

/// The placement value of a run without burst buffers.
pub const NO_BURST_BUFFER: &str = "none";

/// Per-run columns of `sweep.csv` after `run`, `dir` and the varied keys.
const RUN_COLUMNS: [&str; 14] = [
    "status",
    "simulated_time_s",
    "events",
    "wall_s",
    "cost_capital_usd",
    "cost_energy_usd",
    "cost_total_usd",
    "usd_per_gb_per_s",
    "usd_per_tb",
    "cost_ssds_usd",
    "cost_servers_usd",
    "cost_network_usd",
    "job0_speedup_vs_pfs",
    "job0_speedup_per_musd",
];

/// Per-job columns of `sweep.csv` (each prefixed with `job<N>_`); `phase1_...` are of the
/// job's first I/O phase (empty without one).
const JOB_COLUMNS: [&str; 14] = [
    "name",
    "io_phase_s",
    "time_in_io_mean_s",
    "time_in_io_max_s",
    "bandwidth_Bps",
    "avg_hops",
    "nonminimal_fraction",
    "io_phases",
    "phase1_time_in_io_max_s",
    "time_in_io_p99_s",
    "phase1_time_in_io_p99_s",
    "io_time_s",
    "packet_hops",
    "packet_nonminimal_share",
];

/// A sweep's runs: the varied keys with their values, and every combination of them.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    /// (scenario key, values), in the order given.
    pub vars: Vec<(String, Vec<String>)>,
    /// Every combination of values (one per key, in key order), in odometer order: the last
    /// key varies fastest.
    pub combos: Vec<Vec<String>>,
}

impl SweepPlan {
    /// The plan for `vars`: their cartesian product.
    pub fn new(vars: Vec<(String, Vec<String>)>) -> Self {
        let mut combos: Vec<Vec<String>> = vec![Vec::new()];
        for (_, vals) in &vars {
            combos = combos
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
        SweepPlan { vars, combos }
    }

    /// The number of runs.
    pub fn len(&self) -> usize {
        self.combos.len()
    }

    /// Whether the plan has no runs.
    pub fn is_empty(&self) -> bool {
        self.combos.is_empty()
    }

    /// The directory of run `i`: `run-<i>` and each varied key's last segment with its value
    /// (`run-003_placement=grouped`), characters other than letters, digits and `-_=.`
    /// replaced by `_`.
    pub fn dir_name(&self, i: usize) -> String {
        let mut s = format!("run-{i:03}");
        for ((k, _), v) in self.vars.iter().zip(&self.combos[i]) {
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

    /// The `--set` overrides of run `i`: `fixed`, then `key=value` for each varied key.
    pub fn overrides(&self, i: usize, fixed: &[String]) -> Vec<String> {
        let mut sets = fixed.to_vec();
        sets.extend(
            self.vars
                .iter()
                .zip(&self.combos[i])
                .map(|((k, _), v)| format!("{k}={v}")),
        );
        sets
    }
}

/// What a finished run contributes to `sweep.csv`: everything its row needs, and no more,
/// so that a run on another machine (a Slurm array task) can hand it over as JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunFigures {
    /// Simulated time at the end (ps).
    pub sim_end: u64,
    /// Per-job summaries.
    pub jobs: Vec<JobSummary>,
    /// Per-job burst-buffer figures.
    pub sizing: Vec<JobSizing>,
    /// The fullest burst-buffer device's peak (% of its capacity; 0 without one).
    pub fullest_device_peak_pct: f64,
    /// Writes that waited for space on any device.
    pub stalled_writes: u64,
    /// Events executed.
    pub events: u64,
    /// Wall time of the run, outputs included (s).
    pub wall_s: f64,
}

impl RunFigures {
    /// The figures of a finished run with `events` events and `wall_s` seconds of wall time.
    pub fn of(r: &Results, events: u64, wall_s: f64) -> Self {
        RunFigures {
            sim_end: r.sim_end,
            jobs: r.jobs.clone(),
            sizing: r.sizing.clone(),
            fullest_device_peak_pct: super::capacity::fullest_pct(&r.capacity),
            stalled_writes: r.capacity.iter().map(|c| c.stalled_writes).sum(),
            events,
            wall_s,
        }
    }
}

/// One run of a sweep, as `sweep.csv` records it.
#[derive(Clone, Debug)]
pub struct SweepRun {
    /// Its number in the sweep (0-based, in plan order).
    pub index: usize,
    /// Its varied values, in key order.
    pub values: Vec<String>,
    /// Its directory, relative to the sweep's.
    pub dir: String,
    /// Its burst-buffer design's cost.
    pub cost: Cost,
    /// Its figures, or why it failed.
    pub outcome: Result<RunFigures, String>,
}

/// The text of `sweep.csv` for the runs of `plan`, in run order: a header line, then one
/// line per run. Times are in seconds, bandwidths in bytes per second, costs in US dollars.
/// No cell holds a `;`.
pub fn sweep_csv(plan: &SweepPlan, runs: &[SweepRun]) -> String {
    let max_jobs = runs
        .iter()
        .filter_map(|r| r.outcome.as_ref().ok().map(|o| o.jobs.len()))
        .max()
        .unwrap_or(0);
    let lead = tidy::Leading::with_given(plan);
    let mut csv = header(&lead.header, max_jobs);
    let placement = plan.vars.iter().position(|(k, _)| k == PLACEMENT_KEY);
    for r in runs {
        csv.push_str(&lead.cells(r));
        match &r.outcome {
            Ok(f) => {
                let base = placement.and_then(|p| pfs_baseline(runs, r, p));
                csv.push_str(&run_columns(f, &r.cost, base));
                for j in 0..max_jobs {
                    csv.push_str(&job_columns(f.jobs.get(j)));
                }
                csv.push_str(&sizing_columns(f, max_jobs));
            }
            Err(e) => csv.push_str(&failed_columns(e, max_jobs)),
        }
        csv.push('\n');
    }
    csv
}

/// The header line of `sweep.csv` for runs with at most `max_jobs` jobs, after the leading
/// names `lead` (`run`, `dir` and the varied keys).
fn header(lead: &str, max_jobs: usize) -> String {
    let mut csv = lead.to_string();
    for c in RUN_COLUMNS {
        csv.push(',');
        csv.push_str(c);
    }
    for j in 0..max_jobs {
        for m in JOB_COLUMNS {
            let _ = write!(csv, ",job{j}_{m}");
        }
    }
    for c in SIZING_RUN_COLUMNS {
        csv.push(',');
        csv.push_str(c);
    }
    for j in 0..max_jobs {
        for m in SIZING_JOB_COLUMNS {
            let _ = write!(csv, ",job{j}_{m}");
        }
    }
    csv.push('\n');
    csv
}

/// The run's sizing columns: the fullest burst-buffer device's peak (% of its capacity) and
/// the writes that waited for space.
pub const SIZING_RUN_COLUMNS: [&str; 2] = ["fullest_device_peak_pct", "stalled_writes"];

/// Each job's sizing columns (after every job's [`JOB_COLUMNS`]).
pub const SIZING_JOB_COLUMNS: [&str; 7] = [
    "peak_held_bytes",
    "peak_held_pct",
    "time_stalled_sum_s",
    "time_stalled_max_s",
    "spilled_bytes",
    "drained_bytes",
    "drain_done_s",
];

/// The [`SIZING_RUN_COLUMNS`] and, per job, [`SIZING_JOB_COLUMNS`] of a finished run.
fn sizing_columns(r: &RunFigures, max_jobs: usize) -> String {
    let mut s = format!(",{:.3},{}", r.fullest_device_peak_pct, r.stalled_writes);
    for j in 0..max_jobs {
        s.push_str(&job_sizing_cells(r.sizing.get(j)));
    }
    s
}

/// One job's [`SIZING_JOB_COLUMNS`] cells, each after a comma (empty cells without one).
fn job_sizing_cells(z: Option<&JobSizing>) -> String {
    let Some(z) = z else {
        return ",".repeat(SIZING_JOB_COLUMNS.len());
    };
    format!(
        ",{},{:.3},{:.9},{:.9},{},{},{}",
        z.peak_bytes,
        z.peak_pct,
        z.time_stalled_sum_s,
        z.time_stalled_max_s,
        z.spilled_bytes,
        z.drained_bytes,
        z.drain_done_s
            .map(|t| format!("{t:.9}"))
            .unwrap_or_default()
    )
}

/// The I/O phase (s) of job 0 in the run that differs from `run` only by having no burst
/// buffer (`placement`, the index of [`PLACEMENT_KEY`] among the varied keys, set to
/// [`NO_BURST_BUFFER`]), if the sweep has that run and it succeeded.
fn pfs_baseline(runs: &[SweepRun], run: &SweepRun, placement: usize) -> Option<f64> {
    runs.iter()
        .find(|r| {
            r.values[placement] == NO_BURST_BUFFER
                && r.values
                    .iter()
                    .zip(&run.values)
                    .enumerate()
                    .all(|(i, (a, b))| i == placement || a == b)
        })
        .and_then(|r| r.outcome.as_ref().ok())
        .and_then(|f| f.jobs.first().map(|j| j.io_phase_s))
}

/// The [`RUN_COLUMNS`] of a finished run: `ok`, its simulated time, events, wall time and
/// cost, and job 0's speed-up over the PFS baseline's I/O phase `pfs_phase_s` (s), also per
/// million dollars of the design's total cost.
fn run_columns(f: &RunFigures, c: &Cost, pfs_phase_s: Option<f64>) -> String {
    let opt = |v: Option<f64>| v.map(|x| format!("{x:.2}")).unwrap_or_default();
    let speedup = pfs_phase_s.and_then(|base| {
        let mine = f.jobs.first()?.io_phase_s;
        (mine > 0.0).then(|| base / mine)
    });
    let per_musd = speedup.and_then(|s| (c.total > 0.0).then(|| s / (c.total / 1e6)));
    format!(
        ",ok,{:.12},{},{:.3},{:.2},{:.2},{:.2},{},{},{:.2},{:.2},{:.2},{},{}",
        f.sim_end as f64 / 1e12,
        f.events,
        f.wall_s,
        c.capital,
        c.energy,
        c.total,
        opt(c.usd_per_gb_per_s),
        opt(c.usd_per_tb),
        c.capital_ssds,
        c.capital_servers,
        c.capital_network,
        speedup.map(|x| format!("{x:.4}")).unwrap_or_default(),
        per_musd.map(|x| format!("{x:.4}")).unwrap_or_default()
    )
}

/// The columns of a failed run: its status `failed: <why>` on one line (runs of white space
/// as one space, `;` as `,`), then empty cells.
fn failed_columns(why: &str, max_jobs: usize) -> String {
    let why = why
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(';', ",");
    let mut s = format!(",{}", csv_field(&format!("failed: {why}")));
    s.push_str(&",".repeat(RUN_COLUMNS.len() - 1));
    for _ in 0..max_jobs {
        s.push_str(&job_columns(None));
    }
    s.push_str(&",".repeat(SIZING_RUN_COLUMNS.len() + max_jobs * SIZING_JOB_COLUMNS.len()));
    s
}

/// The [`JOB_COLUMNS`] of one job (empty cells without one).
fn job_columns(js: Option<&JobSummary>) -> String {
    let Some(js) = js else {
        return ",".repeat(JOB_COLUMNS.len());
    };
    format!(
        ",{},{:.9},{:.9},{:.9},{:.0},{:.4},{:.4},{},{},{:.9},{},{:.9},{:.4},{:.4}",
        csv_field(&js.name),
        js.io_phase_s,
        js.time_in_io_mean_s,
        js.time_in_io_max_s,
        js.effective_bandwidth,
        js.avg_hops,
        js.nonminimal_fraction,
        js.io_phases.len(),
        first_phase(js, |p| p.time_in_io_max_s),
        js.time_in_io_p99_s,
        first_phase(js, |p| p.time_in_io_p99_s),
        js.io_time_s,
        js.packet_hops,
        js.packet_nonminimal_share,
    )
}

/// `value` (s) of the job's first I/O phase, empty without one.
fn first_phase(js: &JobSummary, value: impl Fn(&IoPhase) -> f64) -> String {
    js.io_phases
        .first()
        .map(|p| format!("{:.9}", value(p)))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> SweepPlan {
        SweepPlan::new(vec![
            ("a".to_string(), vec!["1".to_string(), "2".to_string()]),
            (
                "n.b".to_string(),
                vec!["x".to_string(), "y y".to_string(), "z".to_string()],
            ),
        ])
    }

    #[test]
    fn plan_is_odometer_ordered() {
        let p = plan();
        assert_eq!(p.len(), 6);
        assert_eq!(p.combos[0], vec!["1", "x"]);
        assert_eq!(p.combos[5], vec!["2", "z"]);
        assert_eq!(p.dir_name(4), "run-004_a=2_b=y_y");
        assert_eq!(
            p.overrides(4, &["k=v".to_string()]),
            vec!["k=v", "a=2", "n.b=y y"]
        );
    }

    #[test]
    fn failed_runs_keep_the_column_count() {
        let plan = SweepPlan::new(vec![(PLACEMENT_KEY.to_string(), vec!["none".to_string()])]);
        let head = header(&tidy::Leading::with_given(&plan).header, 1);
        assert!(head.starts_with(
            "run,dir,burst_buffer.placement,status,simulated_time_s,events,wall_s,\
             cost_capital_usd,cost_energy_usd,cost_total_usd,usd_per_gb_per_s,usd_per_tb,\
             cost_ssds_usd,cost_servers_usd,cost_network_usd,job0_speedup_vs_pfs,job0_speedup_per_musd,job0_name,job0_io_phase_s,"
        ));
        assert!(head.contains(
            ",job0_io_phases,job0_phase1_time_in_io_max_s,job0_time_in_io_p99_s,\
             job0_phase1_time_in_io_p99_s,job0_io_time_s,job0_packet_hops,\
             job0_packet_nonminimal_share,fullest_device_peak_pct,"
        ));
        assert!(head.ends_with(",job0_drain_done_s\n"));
        let failed = failed_columns("no \"luck\", sorry;\n  try   again", 1);
        let status = "\"failed: no \"\"luck\"\", sorry, try again\"";
        assert!(failed.starts_with(&format!(",{status},")), "{failed}");
        // One cell per column after run, dir and the varied key.
        let cells = |s: &str| s.matches(',').count();
        assert_eq!(cells(&failed) - cells(status), 14 + 14 + 2 + 7);
        assert_eq!(cells(&head) - 2, 14 + 14 + 2 + 7);
    }

    #[test]
    fn varied_values_with_units_are_given_and_in_base_units() {
        let plan = SweepPlan::new(vec![
            (
                "burst_buffer.ssd.op_overhead".to_string(),
                vec!["0us".to_string(), "45us".to_string()],
            ),
            (PLACEMENT_KEY.to_string(), vec!["grouped".to_string()]),
        ]);
        let runs: Vec<SweepRun> = (0..plan.len())
            .map(|i| SweepRun {
                index: i,
                values: plan.combos[i].clone(),
                dir: plan.dir_name(i),
                cost: super::super::cost::price(
                    &crate::scenario::CostSection::default(),
                    &super::super::cost::Bill::default(),
                ),
                outcome: Err("bad;\nvery bad".to_string()),
            })
            .collect();
        let csv = sweep_csv(&plan, &runs);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].starts_with(
            "run,dir,burst_buffer.ssd.op_overhead,burst_buffer.ssd.op_overhead_s,\
             burst_buffer.placement,status,"
        ));
        assert!(lines[2].starts_with("1,run-001_op_overhead=45us_placement=grouped,45us,0.000045,grouped,\"failed: bad, very bad\","));
        assert!(!csv.contains(';'), "{csv}");
    }
}
