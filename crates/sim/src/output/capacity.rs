//! Sizing figures: how full every burst-buffer device got and when, how long writers waited
//! for space, what was spilled to and drained to the PFS, per device and per job; and the
//! occupancy over time (`occupancy.csv`).
//!
//! A device here is a BB server (all its SSDs, as one capacity) or a node-local SSD. Its peak
//! is exact; the occupancy series is thinned (a point whenever the occupancy moved by 1/128 of
//! the device's peak so far), so it is within peak/128 bytes of the truth at every instant.

use super::collect::secs_f;
use crate::model::hosts::BbHost;
use crate::model::node::NodeLp;
use bbsim_engine::Time;
use serde::Serialize;
use std::fmt::Write;

/// One burst-buffer device in `summary.json` (`capacity`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct CapacityRow {
    /// `bb-server` or `node-local`.
    pub kind: &'static str,
    /// BB server index or compute node id.
    pub host: u32,
    /// Capacity (bytes).
    pub capacity_bytes: u64,
    /// Most bytes held at once.
    pub peak_bytes: u64,
    /// The peak as a percentage of the capacity.
    pub peak_pct: f64,
    /// When the peak was first reached (s).
    pub peak_at_s: f64,
    /// Bytes held at the end.
    pub end_bytes: u64,
    /// Writes that waited for space (`full_policy = "stall"`).
    pub stalled_writes: u64,
    /// Time those writes waited, summed over writes (s).
    pub stall_time_s: f64,
    /// Client write bytes sent to the PFS instead because the device was full
    /// (`full_policy = "spill"`).
    pub spilled_bytes: u64,
    /// Bytes drained to the PFS (acknowledged by it).
    pub drained_bytes: u64,
    /// When the last drained bytes reached the PFS (s), if any were drained.
    pub drain_done_s: Option<f64>,
    /// The occupancy over time: (ps, bytes held from then on).
    #[serde(skip)]
    pub points: Vec<(Time, u64)>,
}

/// Per job: what it held on the burst buffer, how long its ranks waited for space, what it
/// spilled and drained (`summary.json` `jobs[].sizing`).
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct JobSizing {
    /// Sum over the devices the job wrote to of the most bytes it held on each at once: its
    /// peak footprint when its devices fill together (striped writes, node-local checkpoints),
    /// an upper bound otherwise.
    pub peak_bytes: u64,
    /// Capacity of the devices the job held data on (bytes).
    pub capacity_bytes: u64,
    /// `peak_bytes` as a percentage of `capacity_bytes`.
    pub peak_pct: f64,
    /// Time its ranks' writes waited for space, summed over ranks (s).
    pub time_stalled_sum_s: f64,
    /// The longest any one rank's writes waited for space in all (s).
    pub time_stalled_max_s: f64,
    /// Write bytes sent to the PFS instead because a device was full.
    pub spilled_bytes: u64,
    /// Bytes of the job drained to the PFS.
    pub drained_bytes: u64,
    /// When the job's last drained bytes reached the PFS (s), if any were drained.
    pub drain_done_s: Option<f64>,
}

/// Gathers the capacity rows and per-job sizing figures while the LPs are visited.
#[derive(Clone, Debug, Default)]
pub struct CapacityTally {
    /// Device rows, in LP order.
    pub rows: Vec<CapacityRow>,
    /// Per job (indexed by job): figures summed over its devices.
    pub jobs: Vec<JobSizing>,
    /// Per job: when its last drained bytes reached the PFS (ps).
    drain_done: Vec<Option<Time>>,
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
pub(crate) fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// The device that got fullest (highest peak as a share of its capacity; the lower host on a
/// tie), if there is any.
pub fn fullest(rows: &[CapacityRow]) -> Option<&CapacityRow> {
    rows.iter()
        .max_by(|a, b| a.peak_pct.total_cmp(&b.peak_pct).then(b.host.cmp(&a.host)))
}

/// The fullest device's peak, % of its capacity (0 without a device).
pub fn fullest_pct(rows: &[CapacityRow]) -> f64 {
    fullest(rows).map_or(0.0, |r| r.peak_pct.max(0.0))
}

impl CapacityTally {
    /// A tally for `jobs` jobs.
    pub fn new(jobs: usize) -> Self {
        CapacityTally {
            rows: Vec::new(),
            jobs: vec![JobSizing::default(); jobs],
            drain_done: vec![None; jobs],
        }
    }

    fn job_drained(&mut self, j: usize, bytes: u64, at: Time) {
        if let Some(s) = self.jobs.get_mut(j) {
            s.drained_bytes += bytes;
            let d = &mut self.drain_done[j];
            *d = Some(d.map_or(at, |t| t.max(at)));
        }
    }

    /// A BB server. Allocations beyond the jobs (persistent reservations) count for no job.
    pub fn bb_server(&mut self, index: u32, b: &BbHost) {
        let cap = b.server.capacity();
        let ledger = b.server.ledger();
        let occ = cap.occupancy();
        self.rows.push(CapacityRow {
            kind: "bb-server",
            host: index,
            capacity_bytes: cap.total(),
            peak_bytes: occ.peak(),
            peak_pct: pct(occ.peak(), cap.total()),
            peak_at_s: secs_f(occ.peak_at()),
            end_bytes: cap.used(),
            stalled_writes: ledger.stalls,
            stall_time_s: secs_f(ledger.stall_time),
            spilled_bytes: ledger.spilled,
            drained_bytes: ledger.drain_acked,
            drain_done_s: (ledger.drain_acked > 0).then(|| secs_f(ledger.drain_done_at)),
            points: occ.points().to_vec(),
        });
        for (alloc, peak) in cap.peaks() {
            if let Some(s) = self.jobs.get_mut(alloc as usize) {
                s.peak_bytes += peak;
                s.capacity_bytes += cap.total();
            }
        }
        for (&alloc, t) in b.server.alloc_totals() {
            if let Some(s) = self.jobs.get_mut(alloc as usize) {
                s.spilled_bytes += t.spilled;
            }
            if t.drained > 0 {
                self.job_drained(alloc as usize, t.drained, t.drain_done_at);
            }
        }
    }

    /// A compute node's node-local SSD and its ranks' waits.
    pub fn node(&mut self, n: &NodeLp) {
        let Some(j) = n.job else { return };
        let j = j as usize;
        if let Some(s) = self.jobs.get_mut(j) {
            for io in &n.rank_io {
                s.time_stalled_sum_s += secs_f(io.time_stalled);
                s.time_stalled_max_s = s.time_stalled_max_s.max(secs_f(io.time_stalled));
            }
        }
        let Some(store) = n.local_store() else { return };
        let cap = store.ledger();
        let occ = cap.occupancy();
        let (_, drained, _) = n.drain_totals();
        let done = n.drain_done_at();
        self.rows.push(CapacityRow {
            kind: "node-local",
            host: n.terminal,
            capacity_bytes: cap.total(),
            peak_bytes: occ.peak(),
            peak_pct: pct(occ.peak(), cap.total()),
            peak_at_s: secs_f(occ.peak_at()),
            end_bytes: cap.used(),
            stalled_writes: store.waits,
            stall_time_s: secs_f(store.wait_time),
            spilled_bytes: store.spilled,
            drained_bytes: drained,
            drain_done_s: done.map(secs_f),
            points: occ.points().to_vec(),
        });
        if let Some(s) = self.jobs.get_mut(j) {
            s.peak_bytes += occ.peak();
            if occ.peak() > 0 {
                s.capacity_bytes += cap.total();
            }
            s.spilled_bytes += store.spilled;
        }
        if let Some(at) = done {
            self.job_drained(j, drained, at);
        }
    }

    /// The per-job figures, finished.
    pub fn finish(mut self) -> (Vec<CapacityRow>, Vec<JobSizing>) {
        for (s, d) in self.jobs.iter_mut().zip(&self.drain_done) {
            s.peak_pct = pct(s.peak_bytes, s.capacity_bytes);
            s.drain_done_s = d.map(secs_f);
        }
        (self.rows, self.jobs)
    }
}

/// `occupancy.csv`: one row per kept point of every device, in device order then time:
/// `kind,host,time_s,occupied_bytes,capacity_bytes,fill_pct`. Each device starts at time 0
/// with 0 bytes and ends with a row at `end` (ps).
pub fn occupancy_csv(rows: &[CapacityRow], end: Time) -> String {
    let mut s = String::from("kind,host,time_s,occupied_bytes,capacity_bytes,fill_pct\n");
    for r in rows {
        let mut line = |t: Time, b: u64| {
            let _ = writeln!(
                s,
                "{},{},{:.9},{},{},{:.3}",
                r.kind,
                r.host,
                secs_f(t),
                b,
                r.capacity_bytes,
                pct(b, r.capacity_bytes)
            );
        };
        if r.points.first().is_none_or(|p| p.0 > 0) {
            line(0, 0);
        }
        for &(t, b) in &r.points {
            line(t, b);
        }
        let last = r.points.last().map_or(0, |p| p.0);
        if end > last {
            line(end, r.end_bytes);
        }
    }
    s
}

/// The summed occupancy of `rows` over time as a step function: (ps, bytes held from then on).
pub fn total_occupancy(rows: &[&CapacityRow]) -> Vec<(Time, u64)> {
    let mut changes: Vec<(Time, i128)> = Vec::new();
    for r in rows {
        let mut prev = 0i128;
        for &(t, b) in &r.points {
            changes.push((t, i128::from(b) - prev));
            prev = i128::from(b);
        }
    }
    changes.sort_by_key(|c| c.0);
    let mut out: Vec<(Time, u64)> = Vec::new();
    let mut total = 0i128;
    for (t, d) in changes {
        total += d;
        let v = u64::try_from(total.max(0)).unwrap_or(u64::MAX);
        match out.last_mut() {
            Some(p) if p.0 == t => p.1 = v,
            _ => out.push((t, v)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(points: Vec<(Time, u64)>) -> CapacityRow {
        CapacityRow {
            kind: "bb-server",
            capacity_bytes: 100,
            end_bytes: points.last().map_or(0, |p| p.1),
            points,
            ..Default::default()
        }
    }

    #[test]
    fn totals_sum_step_functions() {
        let a = row(vec![(10, 50), (30, 0)]);
        let b = row(vec![(20, 40), (30, 10)]);
        assert_eq!(
            total_occupancy(&[&a, &b]),
            vec![(10, 50), (20, 90), (30, 10)]
        );
    }

    #[test]
    fn csv_starts_empty_and_ends_at_the_end() {
        let a = row(vec![(1_000_000_000_000, 50)]);
        let csv = occupancy_csv(&[a], 2_000_000_000_000);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[1], "bb-server,0,0.000000000,0,100,0.000");
        assert_eq!(lines[2], "bb-server,0,1.000000000,50,100,50.000");
        assert_eq!(lines[3], "bb-server,0,2.000000000,50,100,50.000");
    }
}
