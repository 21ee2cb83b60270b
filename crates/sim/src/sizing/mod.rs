//! `bbsim size`: the cheapest burst-buffer design that meets the user's targets.
//!
//! - [`metrics`]: the table of metrics a target can bound, and target parsing;
//! - [`search`]: the search over the product of dimensions (cost order, dominance pruning,
//!   bisection), independent of the simulator;
//! - [`report`]: `sizing.csv` and the `sizing.svg` picture of cost against the first target.
//!
//! This module also reads the dimensions (`KEY=V1,V2,...` or a range `KEY=A..B`) and judges
//! a finished run against the targets.

pub mod metrics;
pub mod report;
pub mod search;

use crate::output::Results;
use crate::units::{parse_bandwidth, parse_bytes};
use metrics::{fmt_value, Target};

/// One dimension of the design space: a scenario key and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Dim {
    /// The scenario key, as `--set` takes it.
    pub key: String,
    /// Its values as given to `--set`; ascending when `ordered`.
    pub values: Vec<String>,
    /// Whether the values are numbers (plain, sizes or bandwidths), sorted ascending, and a
    /// larger value is assumed never to make a metric worse nor the cost lower.
    pub ordered: bool,
}

/// The magnitude of a numeric value: a plain number, a size or a bandwidth (not a duration:
/// a longer time is not better).
fn magnitude(v: &str) -> Option<f64> {
    let v = v.trim();
    v.parse::<f64>()
        .ok()
        .or_else(|| parse_bytes(v).ok().map(|b| b as f64))
        .or_else(|| parse_bandwidth(v).ok().map(|b| b as f64))
}

/// Splits `1.5TB` into `(1.5, "TB")`.
fn split_number(v: &str) -> Option<(f64, &str)> {
    let end = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    Some((v[..end].parse().ok()?, &v[end..]))
}

/// The values of a range `A..B` (doubling from A while at most B, then B) or `A..B+S` (steps
/// of S); A and B may carry one unit suffix (`1TB..8TB`, `1..8TB`).
fn range(spec: &str) -> Result<Vec<String>, String> {
    let (a, rest) = spec.split_once("..").ok_or("no `..`")?;
    let (b, step) = match rest.split_once('+') {
        Some((b, s)) => (b, Some(s)),
        None => (rest, None),
    };
    let (a, b) = (a.trim(), b.trim());
    let bad = || format!("`{spec}`: expected A..B (doubling) or A..B+STEP, e.g. 1..64 or 1TB..8TB");
    let (x0, ua) = split_number(a).ok_or_else(bad)?;
    let (x1, ub) = split_number(b).ok_or_else(bad)?;
    let unit = match (ua, ub) {
        ("", u) | (u, "") => u,
        (u, w) if u == w => u,
        _ => return Err(format!("`{spec}`: both ends must have the same unit")),
    };
    if !(x0 > 0.0 && x1 >= x0) {
        return Err(format!("`{spec}`: a range needs 0 < A <= B"));
    }
    let step = match step {
        Some(s) => {
            let (s, us) = split_number(s.trim()).ok_or_else(bad)?;
            if !(us.is_empty() || us == unit) || s <= 0.0 {
                return Err(bad());
            }
            Some(s)
        }
        None => None,
    };
    let mut vals = Vec::new();
    let mut x = x0;
    while x <= x1 * (1.0 + 1e-12) && vals.len() < 10_000 {
        vals.push(x);
        x = match step {
            Some(s) => x + s,
            None => x * 2.0,
        };
    }
    if vals.last().is_some_and(|&l| (l - x1).abs() > 1e-9 * x1) {
        vals.push(x1);
    }
    Ok(vals
        .into_iter()
        .map(|v| format!("{}{unit}", fmt_value(v)))
        .collect())
}

impl Dim {
    /// Parses `KEY=V1,V2,...` or `KEY=A..B` / `KEY=A..B+STEP`. Numeric values are sorted
    /// ascending (duplicates dropped) and the dimension is ordered, unless `categorical`.
    pub fn parse(text: &str, categorical: bool) -> Result<Dim, String> {
        let (k, vals) = text
            .split_once('=')
            .ok_or_else(|| format!("--dim {text}: expected KEY=V1,V2,... or KEY=A..B"))?;
        let key = k.trim().to_string();
        let vals = vals.trim();
        let mut values: Vec<String> = if vals.contains("..") {
            range(vals).map_err(|e| format!("--dim {text}: {e}"))?
        } else {
            vals.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        };
        if key.is_empty() || values.is_empty() {
            return Err(format!(
                "--dim {text}: expected KEY=V1,V2,... with at least one value"
            ));
        }
        let mags: Option<Vec<f64>> = values.iter().map(|v| magnitude(v)).collect();
        let ordered = !categorical && mags.is_some();
        if let (Some(m), true) = (mags, ordered) {
            let mut pairs: Vec<(f64, String)> = m.into_iter().zip(values).collect();
            pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
            pairs.dedup_by(|a, b| a.0 == b.0);
            values = pairs.into_iter().map(|p| p.1).collect();
        } else {
            let mut seen = Vec::new();
            values.retain(|v| {
                let new = !seen.contains(v);
                seen.push(v.clone());
                new
            });
        }
        Ok(Dim {
            key,
            values,
            ordered,
        })
    }
}

/// A design's standing against the targets: each target's value (`None`: the run lacks
/// it), whether all are met, and if not, why.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Each target's metric value, in target order.
    pub values: Vec<Option<f64>>,
    /// Whether every target is met.
    pub feasible: bool,
    /// Empty when feasible; else the targets missed (`io_time_max_s=0.1 s > 0.06 s`) or why
    /// the run failed.
    pub reason: String,
}

/// Judges a finished run (`Ok(results)`) or a failed one (`Err(why)`) against `targets`.
pub fn judge(targets: &[Target], jobs: &[String], run: Result<&Results, &str>) -> Verdict {
    let r = match run {
        Ok(r) => r,
        Err(why) => {
            return Verdict {
                values: vec![None; targets.len()],
                feasible: false,
                reason: format!("run failed: {why}"),
            }
        }
    };
    let values: Vec<Option<f64>> = targets.iter().map(|t| t.value(r)).collect();
    let missed: Vec<String> = targets
        .iter()
        .zip(&values)
        .filter_map(|(t, v)| match v {
            Some(v) if t.met(*v) => None,
            Some(v) => Some(format!(
                "{}={} {u} > {} {u}",
                t.column_name(jobs),
                fmt_value(*v),
                fmt_value(t.limit),
                u = t.metric.unit.symbol()
            )),
            None => Some(format!(
                "{}: no value (did every job finish?)",
                t.column_name(jobs)
            )),
        })
        .collect();
    Verdict {
        values,
        feasible: missed.is_empty(),
        reason: missed.join("; "),
    }
}

/// One design run by `bbsim size`.
#[derive(Clone, Debug)]
pub struct Tried {
    /// Its index in the product (odometer order of the dimensions' values).
    pub design: usize,
    /// Its value of each dimension.
    pub values: Vec<String>,
    /// Its run directory, relative to the output directory.
    pub dir: String,
    /// Its total cost (US$).
    pub cost: f64,
    /// How it did against the targets.
    pub verdict: Verdict,
}

/// For each target, the best value any tried design reached and the first design (in tried
/// order) that reached it; `None` where no run had a value.
pub fn best_per_target<'a>(
    targets: &[Target],
    tried: &'a [Tried],
) -> Vec<Option<(f64, &'a Tried)>> {
    (0..targets.len())
        .map(|i| {
            tried
                .iter()
                .filter_map(|t| t.verdict.values[i].map(|v| (v, t)))
                .fold(None, |best: Option<(f64, &Tried)>, (v, t)| match best {
                    Some((b, _)) if b <= v => best,
                    _ => Some((v, t)),
                })
        })
        .collect()
}

/// `key=value ...` of a design, with the keys' last segments.
pub fn design_label(dims: &[Dim], values: &[String]) -> String {
    dims.iter()
        .zip(values)
        .map(|(d, v)| format!("{}={v}", d.key.rsplit('.').next().unwrap_or(&d.key)))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_parse_lists_and_ranges() {
        let d = Dim::parse("burst_buffer.servers=1..64", false).expect("ok");
        assert_eq!(d.values, ["1", "2", "4", "8", "16", "32", "64"]);
        assert!(d.ordered);
        let d = Dim::parse("k=1..10+4", false).expect("ok");
        assert_eq!(d.values, ["1", "5", "9", "10"]);
        let d = Dim::parse("k=1TB..4TB", false).expect("ok");
        assert_eq!(d.values, ["1TB", "2TB", "4TB"]);
        let d = Dim::parse("k=2GB/s, 500MB/s,1GB/s,1GB/s", false).expect("ok");
        assert_eq!(d.values, ["500MB/s", "1GB/s", "2GB/s"]);
        let d = Dim::parse("burst_buffer.placement=grouped,none", false).expect("ok");
        assert!(!d.ordered);
        assert_eq!(d.values, ["grouped", "none"]);
        assert!(!Dim::parse("k=4,2", true).expect("ok").ordered);
        assert!(Dim::parse("k", false).is_err());
        assert!(Dim::parse("k=8..1", false).is_err());
        assert!(Dim::parse("k=1TB..8GB", false).is_err());
    }
}
