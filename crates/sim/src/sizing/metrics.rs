//! The metrics a sizing target can bound, in one table ([`METRICS`]), and the targets
//! themselves (`METRIC<=VALUE` or `METRIC[JOB]<=VALUE`).
//!
//! A metric is read from a finished run's [`Results`]. Per-job metrics take one job's
//! [`JobSummary`]; without a job in brackets, a target bounds the largest value over all jobs.
//! Run metrics take the whole [`Results`] and refuse a job. Every metric is "lower is
//! better": a target is an upper bound.

use crate::output::capacity::{fullest_pct, JobSizing};
use crate::output::collect::{JobSummary, Results};
use crate::units::{parse_bytes, parse_duration};

/// The unit of a metric's values, which also says how a target's value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Seconds of simulated time; targets accept durations (`2`, `2s`, `500ms`).
    Seconds,
    /// Bytes; targets accept sizes (`0`, `512MiB`, `1.5GB`).
    Bytes,
    /// Percent; targets accept a number with or without `%` (`90`, `90%`).
    Percent,
}

impl Unit {
    /// The unit's symbol, as used in column names and axis labels (`s`, `B`).
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Seconds => "s",
            Unit::Bytes => "B",
            Unit::Percent => "%",
        }
    }

    /// Reads a target's value in this unit: a bare number is taken in the unit itself.
    fn parse(self, text: &str) -> Result<f64, String> {
        let t = text.trim();
        if let Ok(v) = t.parse::<f64>() {
            return Ok(v);
        }
        match self {
            Unit::Seconds => parse_duration(t).map(|ps| ps as f64 / 1e12),
            Unit::Bytes => parse_bytes(t).map(|b| b as f64),
            Unit::Percent => t
                .strip_suffix('%')
                .and_then(|n| n.trim().parse::<f64>().ok())
                .ok_or_else(|| format!("expected a percentage such as `90` or `90%`, got `{t}`")),
        }
    }
}

/// How a metric is read from a run.
#[derive(Clone, Copy)]
pub enum Extract {
    /// From one job (`None`: the job has no such value, e.g. it never finished).
    Job(fn(&JobSummary) -> Option<f64>),
    /// From one job's burst-buffer figures (peak held, time stalled, drain).
    Sizing(fn(&JobSizing) -> Option<f64>),
    /// From the whole run.
    Run(fn(&Results) -> Option<f64>),
}

/// One metric a target can bound.
#[derive(Clone, Copy)]
pub struct Metric {
    /// Its name in targets.
    pub name: &'static str,
    /// What it measures.
    pub description: &'static str,
    /// Its unit.
    pub unit: Unit,
    /// How to read it.
    pub extract: Extract,
}

const fn job(
    name: &'static str,
    unit: Unit,
    description: &'static str,
    f: fn(&JobSummary) -> Option<f64>,
) -> Metric {
    Metric {
        name,
        description,
        unit,
        extract: Extract::Job(f),
    }
}

const fn sized(
    name: &'static str,
    unit: Unit,
    description: &'static str,
    f: fn(&JobSizing) -> Option<f64>,
) -> Metric {
    Metric {
        name,
        description,
        unit,
        extract: Extract::Sizing(f),
    }
}

const fn run(
    name: &'static str,
    unit: Unit,
    description: &'static str,
    f: fn(&Results) -> Option<f64>,
) -> Metric {
    Metric {
        name,
        description,
        unit,
        extract: Extract::Run(f),
    }
}

use Unit::{Bytes, Percent, Seconds};

/// Every metric a target can bound: one line each. Per-job metrics (`job`) may be scoped to
/// a job (`NAME[JOB]`); unscoped they bound every job (the largest value over the jobs). A new
/// metric is one more line: `job(name, unit, description, |j: &JobSummary| ...)` or
/// `run(name, unit, description, |r: &Results| ...)`, returning `None` when the run lacks it;
/// every metric must be lower-is-better. Add it to the table in docs/sizing.md too.
#[rustfmt::skip]
pub const METRICS: &[Metric] = &[
    job("io_time_max_s", Seconds, "largest time in I/O of any rank of the job", |j| Some(j.time_in_io_max_s)),
    job("io_time_mean_s", Seconds, "mean time in I/O per rank of the job", |j| Some(j.time_in_io_mean_s)),
    job("io_time_p99_s", Seconds, "99th percentile of the job's ranks' time in I/O", |j| Some(j.time_in_io_p99_s)),
    job("io_phase_s", Seconds, "the job's first I/O start to its last I/O end", |j| Some(j.io_phase_s)),
    job("io_phase_max_s", Seconds, "the job's longest I/O phase (see outputs.phase_gap)", |j| Some(j.io_phases.iter().map(|p| p.length_s).fold(0.0, f64::max))),
    job("end_time_s", Seconds, "when the job finished (unscoped: the last job's end)", |j| j.end_s),
    job("run_time_s", Seconds, "the job's end minus its start", |j| j.run_time_s),
    job("stage_out_s", Seconds, "the job's stage-out after its end", |j| Some(j.stage_out_s.unwrap_or(0.0))),
    sized("time_stalled_max_s", Seconds, "the longest any rank of the job waited for space on a full device", |z| Some(z.time_stalled_max_s)),
    sized("time_stalled_sum_s", Seconds, "time the job's ranks waited for space, summed over ranks", |z| Some(z.time_stalled_sum_s)),
    sized("spilled_bytes", Bytes, "the job's writes sent to the PFS because a device was full", |z| Some(z.spilled_bytes as f64)),
    sized("drain_done_s", Seconds, "when the job's last drained byte reached the PFS (0: nothing drained)", |z| Some(z.drain_done_s.unwrap_or(0.0))),
    run("makespan_s", Seconds, "first job start to last job end", |r| r.makespan.map(|t| t as f64 / 1e12)),
    run("last_activity_s", Seconds, "time of the last event, drains and stage-outs included", |r| Some(r.last_activity as f64 / 1e12)),
    run("pfs_direct_bytes", Bytes, "bytes the ranks wrote straight to the PFS", |r| Some(r.conservation.to_pfs as f64)),
    run("pfs_spilled_bytes", Bytes, "bytes full BB servers spilled to the PFS", |r| Some(r.conservation.pfs_spilled as f64)),
    run("peak_fill_pct", Percent, "the fullest burst-buffer device's peak occupancy, % of its capacity", |r| Some(fullest_pct(&r.capacity))),
    run("drain_end_s", Seconds, "when the last drained byte reached the PFS (0: nothing drained)", |r| Some(r.capacity.iter().filter_map(|c| c.drain_done_s).fold(0.0, f64::max))),
];

/// A per-job metric `f` over `jobs`: job `job`'s value, or without a job the largest over
/// all jobs (`None` if any job lacks it).
fn per_job<T>(jobs: &[T], job: Option<usize>, f: fn(&T) -> Option<f64>) -> Option<f64> {
    match job {
        Some(j) => jobs.get(j).and_then(f),
        None => {
            let vals: Option<Vec<f64>> = jobs.iter().map(f).collect();
            vals?.into_iter().reduce(f64::max)
        }
    }
}

/// The syntax of a target, for messages.
pub const TARGET_SYNTAX: &str =
    "METRIC<=VALUE or METRIC[JOB]<=VALUE, e.g. io_time_max_s<=2s or io_phase_max_s[ckpt]<=500ms";

/// A bound on a metric: the metric (optionally of one job) must be at most `limit`.
#[derive(Clone, Copy)]
pub struct Target {
    /// The metric.
    pub metric: &'static Metric,
    /// The job it is scoped to (index in job order), if any.
    pub job: Option<usize>,
    /// The bound, in the metric's unit.
    pub limit: f64,
}

/// The metric called `name`, or an error listing the known ones.
pub fn metric(name: &str) -> Result<&'static Metric, String> {
    METRICS.iter().find(|m| m.name == name).ok_or_else(|| {
        format!(
            "unknown metric `{name}`; known metrics:\n{}",
            metrics_help()
        )
    })
}

/// One line per metric: name, unit, whether it takes a job, description.
pub fn metrics_help() -> String {
    METRICS
        .iter()
        .map(|m| {
            let scope = match m.extract {
                Extract::Job(_) | Extract::Sizing(_) => "[JOB]",
                Extract::Run(_) => "",
            };
            format!(
                "  {}{scope} ({}): {}",
                m.name,
                m.unit.symbol(),
                m.description
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Target {
    /// Parses `METRIC<=VALUE` or `METRIC[JOB]<=VALUE`; `jobs` are the scenario's job names in
    /// job order.
    pub fn parse(text: &str, jobs: &[String]) -> Result<Target, String> {
        let bad = |why: &str| format!("--target {text}: {why}; expected {TARGET_SYNTAX}");
        let (lhs, rhs) = match text.split_once("<=") {
            Some(p) => p,
            None if text.contains(">=") || text.contains('>') => {
                return Err(bad(
                    "targets are upper bounds (every metric is lower-is-better), write `<=`",
                ))
            }
            None => return Err(bad("no `<=`")),
        };
        let lhs = lhs.trim();
        let (name, job_name) = match lhs.split_once('[') {
            Some((n, rest)) => {
                let j = rest
                    .strip_suffix(']')
                    .ok_or_else(|| bad("a job name in brackets must end with `]`"))?;
                (n.trim(), Some(j.trim()))
            }
            None => (lhs, None),
        };
        if name.is_empty() {
            return Err(bad("no metric name"));
        }
        let metric = metric(name).map_err(|e| format!("--target {text}: {e}"))?;
        let job = match job_name {
            None => None,
            Some(j) => {
                if matches!(metric.extract, Extract::Run(_)) {
                    return Err(bad(&format!(
                        "`{name}` is a metric of the whole run; it takes no job"
                    )));
                }
                Some(jobs.iter().position(|n| n == j).ok_or_else(|| {
                    format!(
                        "--target {text}: no job named `{j}`; the scenario's jobs are: {}",
                        jobs.join(", ")
                    )
                })?)
            }
        };
        let rhs = rhs.trim();
        if rhs.is_empty() {
            return Err(bad("no value after `<=`"));
        }
        if rhs.starts_with('-') {
            return Err(bad(&format!(
                "`{rhs}` can never be met: `{name}` is never negative"
            )));
        }
        let limit = metric.unit.parse(rhs).map_err(|e| {
            bad(&format!(
                "cannot read `{rhs}` as a value in {}: {e}",
                metric.unit.symbol()
            ))
        })?;
        if !limit.is_finite() || limit < 0.0 {
            return Err(bad(&format!(
                "`{rhs}` can never be met: `{name}` is never negative"
            )));
        }
        Ok(Target { metric, job, limit })
    }

    /// The target as written back: `name[job]<=limit unit`.
    pub fn label(&self, jobs: &[String]) -> String {
        format!(
            "{}<={} {}",
            self.column_name(jobs),
            fmt_value(self.limit),
            self.metric.unit.symbol()
        )
    }

    /// The metric with its job scope: `name` or `name[job]`.
    pub fn column_name(&self, jobs: &[String]) -> String {
        match self.job {
            Some(j) => format!("{}[{}]", self.metric.name, jobs[j]),
            None => self.metric.name.to_string(),
        }
    }

    /// The metric's value in a finished run; `None` when the run lacks it (a job never
    /// finished, or no job has it).
    pub fn value(&self, r: &Results) -> Option<f64> {
        match self.metric.extract {
            Extract::Run(f) => f(r),
            Extract::Job(f) => per_job(&r.jobs, self.job, f),
            Extract::Sizing(f) => per_job(&r.sizing, self.job, f),
        }
    }

    /// Whether `value` meets the target.
    pub fn met(&self, value: f64) -> bool {
        value <= self.limit
    }
}

/// A metric value for messages and CSV cells: 6 significant digits.
pub fn fmt_value(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (5 - v.abs().log10().floor() as i32).max(0) as usize;
    let t = format!("{v:.digits$}");
    if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs() -> Vec<String> {
        vec!["ior".into(), "ckpt".into()]
    }

    #[test]
    fn targets_parse_with_units_and_jobs() {
        let t = Target::parse("io_phase_max_s[ckpt]<=500ms", &jobs()).expect("ok");
        assert_eq!(t.job, Some(1));
        assert!((t.limit - 0.5).abs() < 1e-12);
        let t = Target::parse("io_time_max_s <= 2", &jobs()).expect("ok");
        assert_eq!((t.job, t.limit), (None, 2.0));
        let t = Target::parse("pfs_direct_bytes<=1KiB", &jobs()).expect("ok");
        assert_eq!(t.limit, 1024.0);
    }

    #[test]
    fn bad_targets_say_why() {
        let e = Target::parse("nope<=2", &jobs()).err().expect("error");
        assert!(
            e.contains("unknown metric `nope`") && e.contains("io_time_max_s"),
            "{e}"
        );
        let e = Target::parse("io_time_max_s[x]<=2", &jobs())
            .err()
            .expect("error");
        assert!(
            e.contains("no job named `x`") && e.contains("ior, ckpt"),
            "{e}"
        );
        let e = Target::parse("io_time_max_s=2", &jobs())
            .err()
            .expect("error");
        assert!(e.contains("expected METRIC<=VALUE"), "{e}");
        let e = Target::parse("io_time_max_s<=-1", &jobs())
            .err()
            .expect("error");
        assert!(e.contains("never be met"), "{e}");
        let e = Target::parse("io_time_max_s<=fast", &jobs())
            .err()
            .expect("error");
        assert!(e.contains("cannot read `fast`"), "{e}");
        let e = Target::parse("makespan_s[ior]<=1", &jobs())
            .err()
            .expect("error");
        assert!(e.contains("takes no job"), "{e}");
        assert!(Target::parse("io_time_max_s>=1", &jobs()).is_err());
    }

    #[test]
    fn values_print_short() {
        assert_eq!(fmt_value(0.0725), "0.0725");
        assert_eq!(fmt_value(916289.6), "916290");
        assert_eq!(fmt_value(1.0), "1");
    }
}
