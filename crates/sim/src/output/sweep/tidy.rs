//! The sweep's tables in long form, for data-frame tools (pandas, R, DuckDB): every cell one
//! number or one label, units in the column names, one row per observation.
//!
//! - `sweep-points.csv`: one row per point: its varied values, status, error, simulated time,
//!   events, wall time, cost, job 0's speed-up over the PFS-only run and the sizing figures;
//! - `sweep-jobs.csv`: one row per point and job: the job's I/O figures and burst-buffer
//!   sizing;
//! - `sweep-phases.csv`: one row per point, job and I/O phase.
//!
//! Every table starts with `run` (the point's number, as in `sweep.csv`), `dir` and the
//! varied keys. A varied value with a unit is written as a number: sizes in bytes (column
//! `<key>_bytes`), durations in seconds (`<key>_s`), bandwidths in bytes per second
//! (`<key>_Bps`); other values (names, plain numbers, lists) as given.

use super::{
    job_sizing_cells, pfs_baseline, run_columns, RunFigures, SweepPlan, SweepRun, PLACEMENT_KEY,
    RUN_COLUMNS, SIZING_JOB_COLUMNS, SIZING_RUN_COLUMNS,
};
use crate::output::collect::JobSummary;
use crate::output::report::csv_field;
use crate::scenario::units::{parse_bandwidth, parse_bytes, parse_duration};
use std::fmt::Write as _;

/// File name of the per-point table.
pub const POINTS_FILE: &str = "sweep-points.csv";
/// File name of the per-point, per-job table.
pub const JOBS_FILE: &str = "sweep-jobs.csv";
/// File name of the per-point, per-job, per-phase table.
pub const PHASES_FILE: &str = "sweep-phases.csv";

/// Columns of `sweep-jobs.csv` after `job` and `name`, before the job's sizing columns
/// ([`SIZING_JOB_COLUMNS`], as in `sweep.csv`).
pub const JOB_TABLE_COLUMNS: [&str; 15] = [
    "ranks",
    "nodes",
    "bytes_written",
    "bytes_read",
    "io_phase_s",
    "io_phases",
    "io_time_s",
    "time_in_io_mean_s",
    "time_in_io_p99_s",
    "time_in_io_max_s",
    "bandwidth_Bps",
    "avg_hops",
    "nonminimal_fraction",
    "packet_hops",
    "packet_nonminimal_share",
];

/// Columns of `sweep-phases.csv` after `job`, `name` and `phase`.
pub const PHASE_TABLE_COLUMNS: [&str; 8] = [
    "start_s",
    "end_s",
    "length_s",
    "ranks",
    "bytes",
    "time_in_io_max_s",
    "time_in_io_p99_s",
    "bandwidth_Bps",
];

/// The unit a varied key's values are converted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    /// Written as given.
    AsGiven,
    /// Durations, in seconds.
    Seconds,
    /// Bandwidths, in bytes per second.
    BytesPerSecond,
    /// Sizes, in bytes.
    Bytes,
}

impl Unit {
    /// The unit of `values`: the first of durations, bandwidths and sizes that reads every
    /// value, if at least one value names a unit; otherwise as given.
    fn of(values: &[String]) -> Unit {
        if !values
            .iter()
            .any(|v| v.chars().any(|c| c.is_ascii_alphabetic()))
        {
            return Unit::AsGiven;
        }
        let all = |ok: fn(&str) -> bool| values.iter().all(|v| ok(v));
        if all(|v| parse_duration(v).is_ok()) {
            Unit::Seconds
        } else if all(|v| parse_bandwidth(v).is_ok()) {
            Unit::BytesPerSecond
        } else if all(|v| parse_bytes(v).is_ok()) {
            Unit::Bytes
        } else {
            Unit::AsGiven
        }
    }

    /// The column name of key `key` in this unit.
    fn column(self, key: &str) -> String {
        match self {
            Unit::AsGiven => key.to_string(),
            Unit::Seconds => format!("{key}_s"),
            Unit::BytesPerSecond => format!("{key}_Bps"),
            Unit::Bytes => format!("{key}_bytes"),
        }
    }

    /// The cell of value `v` in this unit (a value that does not read is written as given).
    fn cell(self, v: &str) -> String {
        let number = match self {
            Unit::AsGiven => None,
            Unit::Seconds => parse_duration(v).ok().map(exact_seconds),
            Unit::BytesPerSecond => parse_bandwidth(v).ok().map(|b| b.to_string()),
            Unit::Bytes => parse_bytes(v).ok().map(|b| b.to_string()),
        };
        number.unwrap_or_else(|| csv_field(v))
    }
}

/// Picoseconds as exact decimal seconds, without trailing zeros (`45000000` → `0.000045`).
fn exact_seconds(ps: u64) -> String {
    let (whole, frac) = (ps / 1_000_000_000_000, ps % 1_000_000_000_000);
    if frac == 0 {
        return whole.to_string();
    }
    let frac = format!("{frac:012}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

/// The leading columns of a sweep table: `run`, `dir` and the varied keys. The long tables
/// give each varied value in its unit ([`Leading::of`]); `sweep.csv` gives it as written and,
/// where it has a unit, also in its unit ([`Leading::with_given`]).
pub(super) struct Leading {
    units: Vec<Unit>,
    keep_given: bool,
    /// The header's leading names, comma-separated (no line break).
    pub(super) header: String,
}

impl Leading {
    /// Each varied key once: a number in its base unit where its values have a unit (column
    /// `<key>_bytes`, `<key>_s`, `<key>_Bps`), else as given (column `<key>`).
    pub(super) fn of(plan: &SweepPlan) -> Self {
        Self::new(plan, false)
    }

    /// Each varied key as given (column `<key>`), followed where its values have a unit by
    /// the same value as a number in the base unit (`<key>_bytes`, `<key>_s`, `<key>_Bps`).
    pub(super) fn with_given(plan: &SweepPlan) -> Self {
        Self::new(plan, true)
    }

    fn new(plan: &SweepPlan, keep_given: bool) -> Self {
        let units: Vec<Unit> = plan.vars.iter().map(|(_, vals)| Unit::of(vals)).collect();
        let mut header = String::from("run,dir");
        for ((k, _), u) in plan.vars.iter().zip(&units) {
            if keep_given && *u != Unit::AsGiven {
                header.push(',');
                header.push_str(&csv_field(k));
            }
            header.push(',');
            header.push_str(&csv_field(&u.column(k)));
        }
        Leading {
            units,
            keep_given,
            header,
        }
    }

    /// The leading cells of run `r`'s rows.
    pub(super) fn cells(&self, r: &SweepRun) -> String {
        let mut s = format!("{},{}", r.index, csv_field(&r.dir));
        for (v, u) in r.values.iter().zip(&self.units) {
            if self.keep_given && *u != Unit::AsGiven {
                s.push(',');
                s.push_str(&csv_field(v));
            }
            s.push(',');
            s.push_str(&u.cell(v));
        }
        s
    }
}

/// Appends `,name` for each name to `line`, then a line break.
fn end_header(mut line: String, names: &[&str]) -> String {
    for n in names {
        line.push(',');
        line.push_str(n);
    }
    line.push('\n');
    line
}

/// `sweep-points.csv` for the runs of `plan`, in run order.
pub fn points_csv(plan: &SweepPlan, runs: &[SweepRun]) -> String {
    let lead = Leading::of(plan);
    let mut names: Vec<&str> = RUN_COLUMNS.to_vec();
    names.extend(SIZING_RUN_COLUMNS);
    names.push("error");
    let mut csv = end_header(lead.header.clone(), &names);
    let placement = plan.vars.iter().position(|(k, _)| k == PLACEMENT_KEY);
    for r in runs {
        csv.push_str(&lead.cells(r));
        match &r.outcome {
            Ok(f) => {
                let base = placement.and_then(|p| pfs_baseline(runs, r, p));
                csv.push_str(&run_columns(f, &r.cost, base));
                let _ = write!(
                    csv,
                    ",{:.3},{},",
                    f.fullest_device_peak_pct, f.stalled_writes
                );
            }
            Err(e) => {
                let why = e.split_whitespace().collect::<Vec<_>>().join(" ");
                csv.push_str(",failed");
                csv.push_str(&",".repeat(RUN_COLUMNS.len() - 1 + SIZING_RUN_COLUMNS.len()));
                csv.push(',');
                csv.push_str(&csv_field(&why));
            }
        }
        csv.push('\n');
    }
    csv
}

/// Every job of the finished runs of `runs`, in run and job order: the run, its figures, the
/// job's index and summary.
fn finished_jobs(
    runs: &[SweepRun],
) -> impl Iterator<Item = (&SweepRun, &RunFigures, usize, &JobSummary)> {
    runs.iter()
        .filter_map(|r| r.outcome.as_ref().ok().map(|f| (r, f)))
        .flat_map(|(r, f)| f.jobs.iter().enumerate().map(move |(j, js)| (r, f, j, js)))
}

/// `sweep-jobs.csv` for the runs of `plan`: one row per finished run and job, in run and
/// job order.
pub fn jobs_csv(plan: &SweepPlan, runs: &[SweepRun]) -> String {
    let lead = Leading::of(plan);
    let mut names = vec!["job", "name"];
    names.extend(JOB_TABLE_COLUMNS);
    names.extend(SIZING_JOB_COLUMNS);
    let mut csv = end_header(lead.header.clone(), &names);
    for (r, f, j, js) in finished_jobs(runs) {
        let _ = write!(
            csv,
            "{},{j},{},{},{},{},{},{:.9},{},{:.9},{:.9},{:.9},{:.9},{:.0},{:.4},{:.4},{:.4},{:.4}",
            lead.cells(r),
            csv_field(&js.name),
            js.ranks,
            js.nodes,
            js.bytes_written,
            js.bytes_read,
            js.io_phase_s,
            js.io_phases.len(),
            js.io_time_s,
            js.time_in_io_mean_s,
            js.time_in_io_p99_s,
            js.time_in_io_max_s,
            js.effective_bandwidth,
            js.avg_hops,
            js.nonminimal_fraction,
            js.packet_hops,
            js.packet_nonminimal_share
        );
        csv.push_str(&job_sizing_cells(f.sizing.get(j)));
        csv.push('\n');
    }
    csv
}

/// `sweep-phases.csv` for the runs of `plan`: one row per finished run, job and I/O phase
/// (phases numbered from 0 in time order).
pub fn phases_csv(plan: &SweepPlan, runs: &[SweepRun]) -> String {
    let lead = Leading::of(plan);
    let mut names = vec!["job", "name", "phase"];
    names.extend(PHASE_TABLE_COLUMNS);
    let mut csv = end_header(lead.header.clone(), &names);
    for (r, _, j, js) in finished_jobs(runs) {
        for (k, p) in js.io_phases.iter().enumerate() {
            let _ = writeln!(
                csv,
                "{},{j},{},{k},{:.9},{:.9},{:.9},{},{},{:.9},{:.9},{:.0}",
                lead.cells(r),
                csv_field(&js.name),
                p.start_s,
                p.end_s,
                p.length_s,
                p.ranks,
                p.bytes,
                p.time_in_io_max_s,
                p.time_in_io_p99_s,
                p.bandwidth_bps
            );
        }
    }
    csv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn values_with_units_become_numbers_in_base_units() {
        assert_eq!(Unit::of(&strings(&["0us", "45us", "1.5s"])), Unit::Seconds);
        assert_eq!(Unit::of(&strings(&["100GB", "1TiB", "512"])), Unit::Bytes);
        assert_eq!(
            Unit::of(&strings(&["10GB/s", "100Gbit/s"])),
            Unit::BytesPerSecond
        );
        assert_eq!(Unit::of(&strings(&["1", "4"])), Unit::AsGiven);
        assert_eq!(Unit::of(&strings(&["grouped", "global"])), Unit::AsGiven);
        assert_eq!(Unit::of(&strings(&["[4,4]", "[8,2]"])), Unit::AsGiven);
        assert_eq!(Unit::of(&strings(&["100GB", "45us"])), Unit::AsGiven);
        assert_eq!(Unit::Seconds.cell("45us"), "0.000045");
        assert_eq!(Unit::Seconds.cell("2min"), "120");
        assert_eq!(Unit::Seconds.column("k.op_overhead"), "k.op_overhead_s");
        assert_eq!(Unit::Bytes.cell("100GB"), "100000000000");
        assert_eq!(Unit::Bytes.cell("1KiB"), "1024");
        assert_eq!(Unit::BytesPerSecond.cell("100Gbit/s"), "12500000000");
        assert_eq!(Unit::AsGiven.cell("[4,4]"), "\"[4,4]\"");
        assert_eq!(exact_seconds(1), "0.000000000001");
        assert_eq!(exact_seconds(3_500_000_000_000), "3.5");
    }
}
