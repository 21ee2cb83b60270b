//! A job's I/O phases: the union of its ranks' I/O busy intervals, split wherever the whole
//! job was idle for longer than `outputs.phase_gap`, with per-phase time-in-I/O figures.

use super::collect::secs_f;
use bbsim_engine::Time;
use serde::Serialize;

/// One I/O phase of a job in `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct IoPhase {
    /// First I/O start in the phase (s).
    pub start_s: f64,
    /// Last I/O end in the phase (s).
    pub end_s: f64,
    /// End minus start (s).
    pub length_s: f64,
    /// Ranks with I/O in the phase.
    pub ranks: u32,
    /// Largest time in I/O of any rank within the phase (s): the sum of its I/O operations'
    /// durations there.
    pub time_in_io_max_s: f64,
    /// 99th percentile (nearest rank) of the phase's ranks' time in I/O within the phase
    /// (s): steadier than the maximum where a few ranks meet another job's burst.
    pub time_in_io_p99_s: f64,
}

/// One I/O phase in picoseconds (see [`io_phases`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseSpan {
    /// First I/O start (ps).
    pub start: Time,
    /// Last I/O end (ps).
    pub end: Time,
    /// Ranks with I/O in the phase.
    pub ranks: u32,
    /// Largest per-rank sum of I/O durations within the phase (ps).
    pub time_in_io_max: Time,
    /// 99th percentile (nearest rank) of the per-rank sums of I/O durations within the
    /// phase (ps).
    pub time_in_io_p99: Time,
}

impl PhaseSpan {
    /// The phase in seconds, for `summary.json`.
    pub fn to_io_phase(self) -> IoPhase {
        IoPhase {
            start_s: secs_f(self.start),
            end_s: secs_f(self.end),
            length_s: secs_f(self.end - self.start),
            ranks: self.ranks,
            time_in_io_max_s: secs_f(self.time_in_io_max),
            time_in_io_p99_s: secs_f(self.time_in_io_p99),
        }
    }
}

/// A job's I/O phases from its ranks' busy intervals `(rank, start, end)` (any order): the
/// union of the intervals, split wherever no interval is in progress for longer than `gap`
/// (an idle stretch of exactly `gap` does not split). Independent of the input order.
pub fn io_phases(intervals: &[(u32, Time, Time)], gap: Time) -> Vec<PhaseSpan> {
    let mut sorted: Vec<(Time, Time, u32)> = intervals.iter().map(|&(r, a, b)| (a, b, r)).collect();
    sorted.sort_unstable();
    // (phase, rank, duration) of every interval, then folded per phase and rank.
    let mut per_rank: Vec<(usize, u32, Time)> = Vec::with_capacity(sorted.len());
    let mut phases: Vec<PhaseSpan> = Vec::new();
    for &(a, b, r) in &sorted {
        match phases.last_mut() {
            Some(p) if a <= p.end.saturating_add(gap) => p.end = p.end.max(b),
            _ => phases.push(PhaseSpan {
                start: a,
                end: b,
                ranks: 0,
                time_in_io_max: 0,
                time_in_io_p99: 0,
            }),
        }
        per_rank.push((phases.len() - 1, r, b - a));
    }
    per_rank.sort_unstable();
    // Per phase, every rank's sum of I/O durations there (phases come in order).
    let mut sums: Vec<Vec<Time>> = vec![Vec::new(); phases.len()];
    let mut k = 0;
    while k < per_rank.len() {
        let (p, r, _) = per_rank[k];
        let mut sum = 0;
        while k < per_rank.len() && per_rank[k].0 == p && per_rank[k].1 == r {
            sum += per_rank[k].2;
            k += 1;
        }
        sums[p].push(sum);
    }
    for (phase, mut s) in phases.iter_mut().zip(sums) {
        s.sort_unstable();
        phase.ranks = s.len() as u32;
        phase.time_in_io_max = s.last().copied().unwrap_or(0);
        phase.time_in_io_p99 = percentile(&s, 0.99);
    }
    phases
}

/// The nearest-rank percentile `p` (0 to 1) of `sorted` (ascending); 0 when empty.
pub(super) fn percentile(sorted: &[Time], p: f64) -> Time {
    if sorted.is_empty() {
        return 0;
    }
    let idx = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[idx]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_split_only_on_idle_stretches_longer_than_the_gap() {
        // Rank 0: [0,10) [10,20) [50,55); rank 1: [5,30) [60,61); rank 2: [100,100).
        let iv = [
            (0, 0, 10),
            (0, 10, 20),
            (1, 5, 30),
            (0, 50, 55),
            (1, 60, 61),
            (2, 100, 100),
        ];
        let span = |start, end, ranks, max| PhaseSpan {
            start,
            end,
            ranks,
            time_in_io_max: max,
            // With at most 100 ranks the nearest-rank 99th percentile is the maximum.
            time_in_io_p99: max,
        };
        // Idle 30..50 (20 ps) and 61..100 (39 ps).
        assert_eq!(
            io_phases(&iv, 19),
            vec![span(0, 30, 2, 25), span(50, 61, 2, 5), span(100, 100, 1, 0)]
        );
        // An idle stretch of exactly the gap does not split.
        assert_eq!(
            io_phases(&iv, 20),
            vec![span(0, 61, 2, 26), span(100, 100, 1, 0)]
        );
        assert_eq!(io_phases(&iv, 39), vec![span(0, 100, 3, 26)]);
        // The input order does not matter.
        let mut rev = iv.to_vec();
        rev.reverse();
        assert_eq!(io_phases(&rev, 19), io_phases(&iv, 19));
        assert!(io_phases(&[], 1).is_empty());
        let p = span(2_000_000_000_000, 3_500_000_000_000, 4, 1_000_000_000_000).to_io_phase();
        assert_eq!(
            (p.start_s, p.end_s, p.length_s, p.ranks, p.time_in_io_max_s),
            (2.0, 3.5, 1.5, 4, 1.0)
        );
        assert_eq!(p.time_in_io_p99_s, 1.0);
    }

    #[test]
    fn a_phase_p99_leaves_out_the_slowest_hundredth_of_its_ranks() {
        // 1,000 ranks in one phase; rank r spends r + 1 ps in I/O, in two operations for the
        // even ranks. Nearest rank: the 990th smallest sum, 990 ps; the maximum is 1,000.
        let mut iv = Vec::new();
        for r in 0..1000u32 {
            let d = Time::from(r) + 1;
            if r % 2 == 0 {
                iv.push((r, 0, d / 2));
                iv.push((r, 5, 5 + d - d / 2));
            } else {
                iv.push((r, 0, d));
            }
        }
        let p = io_phases(&iv, 10);
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].ranks, p[0].time_in_io_max, p[0].time_in_io_p99),
            (1000, 1000, 990)
        );
        // A second phase far later with one slow rank among 200: its p99 is the 198th sum.
        let mut later: Vec<(u32, Time, Time)> =
            (0..200u32).map(|r| (r, 1_000_000, 1_000_010)).collect();
        later[7].2 = 1_005_000;
        iv.extend(later);
        let p = io_phases(&iv, 10);
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[1].ranks, p[1].time_in_io_max, p[1].time_in_io_p99),
            (200, 5_000, 10)
        );
        assert_eq!(p[0].time_in_io_p99, 990);
    }
}
