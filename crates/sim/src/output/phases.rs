//! A job's I/O phases: the union of its ranks' I/O busy intervals, split wherever the whole
//! job was idle for longer than a gap, with per-phase bytes, bandwidth and time-in-I/O figures.
//!
//! The gap is found from the job's own pattern unless `outputs.phase_gap` gives it: the job's
//! *bursts* are the stretches during which at least one of its ranks has I/O in progress
//! (intervals that overlap or touch merge), and an idle stretch between two bursts splits two
//! phases when it is longer than [`AUTO_FACTOR`] times the median burst length, and never
//! when it is [`AUTO_FLOOR`] or shorter (see [`auto_gap`]). Three 2 s checkpoints 60 s apart
//! are three phases (the gap is 20 s); writers staggered by a second or two inside one phase
//! whose writes take a few tenths of a second stay one phase.

use super::collect::secs_f;
use bbsim_engine::Time;
use serde::Serialize;

/// The automatic gap is never below 1 ms (ps): pauses of barriers, metadata operations and
/// message latencies inside one phase do not split it.
pub const AUTO_FLOOR: Time = 1_000_000_000;

/// The automatic gap is this many times the job's median burst length.
pub const AUTO_FACTOR: Time = 10;

/// How a job's I/O is split into phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseSplit {
    /// From the job's own bursts ([`auto_gap`]).
    Auto,
    /// Wherever the job is idle for longer than this (ps): `outputs.phase_gap`.
    Gap(Time),
}

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
    /// Bytes the phase's operations moved (written and read).
    pub bytes: u64,
    /// `bytes` over `length_s` (bytes per second; 0 for a phase of no length).
    #[serde(rename = "bandwidth_Bps")]
    pub bandwidth_bps: f64,
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
    /// Bytes moved (written and read).
    pub bytes: u64,
    /// Largest per-rank sum of I/O durations within the phase (ps).
    pub time_in_io_max: Time,
    /// 99th percentile (nearest rank) of the per-rank sums of I/O durations within the
    /// phase (ps).
    pub time_in_io_p99: Time,
}

impl PhaseSpan {
    /// The phase in seconds, for `summary.json`.
    pub fn to_io_phase(self) -> IoPhase {
        let length_s = secs_f(self.end - self.start);
        IoPhase {
            start_s: secs_f(self.start),
            end_s: secs_f(self.end),
            length_s,
            ranks: self.ranks,
            bytes: self.bytes,
            bandwidth_bps: if length_s > 0.0 {
                self.bytes as f64 / length_s
            } else {
                0.0
            },
            time_in_io_max_s: secs_f(self.time_in_io_max),
            time_in_io_p99_s: secs_f(self.time_in_io_p99),
        }
    }
}

/// A job's busy intervals `(rank, start ps, end ps, bytes)`.
pub type BusyInterval = (u32, Time, Time, u64);

/// The automatic gap (ps) of a job whose I/O intervals `(start, end)` are `sorted` by start:
/// [`AUTO_FACTOR`] times the median length of its bursts (the stretches with I/O in
/// progress; the lower median, nearest rank; bursts of no length left out), at least
/// [`AUTO_FLOOR`].
pub fn auto_gap(sorted: &[(Time, Time)]) -> Time {
    let mut bursts: Vec<Time> = Vec::new();
    let mut cur: Option<(Time, Time)> = None;
    for &(a, b) in sorted {
        match cur.as_mut() {
            Some(c) if a <= c.1 => c.1 = c.1.max(b),
            _ => {
                if let Some((s, e)) = cur.replace((a, b)) {
                    bursts.push(e - s);
                }
            }
        }
    }
    bursts.extend(cur.map(|(s, e)| e - s));
    bursts.retain(|&len| len > 0);
    bursts.sort_unstable();
    percentile(&bursts, 0.5)
        .saturating_mul(AUTO_FACTOR)
        .max(AUTO_FLOOR)
}

/// A job's I/O phases from its ranks' busy intervals `(rank, start, end, bytes)` (any order),
/// with the gap (ps) that split them: the union of the intervals, split wherever no interval
/// is in progress for longer than the gap (an idle stretch of exactly the gap does not
/// split). Independent of the input order.
pub fn io_phases(intervals: &[BusyInterval], split: PhaseSplit) -> (Vec<PhaseSpan>, Time) {
    let mut sorted: Vec<(Time, Time, u32, u64)> =
        intervals.iter().map(|&(r, a, b, n)| (a, b, r, n)).collect();
    sorted.sort_unstable();
    let gap = match split {
        PhaseSplit::Gap(g) => g,
        PhaseSplit::Auto => {
            let spans: Vec<(Time, Time)> = sorted.iter().map(|&(a, b, _, _)| (a, b)).collect();
            auto_gap(&spans)
        }
    };
    // (phase, rank, duration) of every interval, then folded per phase and rank.
    let mut per_rank: Vec<(usize, u32, Time)> = Vec::with_capacity(sorted.len());
    let mut phases: Vec<PhaseSpan> = Vec::new();
    for &(a, b, r, n) in &sorted {
        match phases.last_mut() {
            Some(p) if a <= p.end.saturating_add(gap) => {
                p.end = p.end.max(b);
                p.bytes += n;
            }
            _ => phases.push(PhaseSpan {
                start: a,
                end: b,
                ranks: 0,
                bytes: n,
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
    (phases, gap)
}

/// The nearest-rank percentile `p` (0 to 1) of `sorted` (ascending); 0 when empty.
pub(super) fn percentile(sorted: &[Time], p: f64) -> Time {
    if sorted.is_empty() {
        return 0;
    }
    let idx = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[idx]
}

/// Seconds for people: `1.234 s`, `12.345 ms` below a second, `0.123 us` below a millisecond.
fn human_secs(s: f64) -> String {
    if s >= 1.0 || s == 0.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.3} us", s * 1e6)
    }
}

/// A job's phases in one line of the terminal table: each phase's length and bandwidth when
/// there are at most four, else their count and the minimum, median and maximum length and
/// bandwidth (nearest-rank median).
pub fn phases_line(phases: &[IoPhase]) -> String {
    use crate::units::human_bandwidth;
    match phases.len() {
        0 => "no I/O".to_string(),
        1..=4 => {
            let each: Vec<String> = phases
                .iter()
                .map(|p| {
                    let bw = human_bandwidth(p.bandwidth_bps);
                    format!("{} at {bw}", human_secs(p.length_s))
                })
                .collect();
            let n = phases.len();
            format!(
                "{n} phase{}: {}",
                if n == 1 { "" } else { "s" },
                each.join(", ")
            )
        }
        n => {
            let spread = |v: fn(&IoPhase) -> f64| {
                let mut x: Vec<f64> = phases.iter().map(v).collect();
                x.sort_by(f64::total_cmp);
                (x[0], x[x.len().div_ceil(2) - 1], x[x.len() - 1])
            };
            let (l0, l1, l2) = spread(|p| p.length_s);
            let (b0, b1, b2) = spread(|p| p.bandwidth_bps);
            format!(
                "{n} phases, length {} / {} / {}, bandwidth {} / {} / {} (min / median / max)",
                human_secs(l0),
                human_secs(l1),
                human_secs(l2),
                human_bandwidth(b0),
                human_bandwidth(b1),
                human_bandwidth(b2)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_split_only_on_idle_stretches_longer_than_the_gap() {
        // Rank 0: [0,10) [10,20) [50,55); rank 1: [5,30) [60,61); rank 2: [100,100).
        let iv = [
            (0, 0, 10, 1),
            (0, 10, 20, 2),
            (1, 5, 30, 4),
            (0, 50, 55, 8),
            (1, 60, 61, 16),
            (2, 100, 100, 32),
        ];
        let span = |start, end, ranks, bytes, max| PhaseSpan {
            start,
            end,
            ranks,
            bytes,
            time_in_io_max: max,
            // With at most 100 ranks the nearest-rank 99th percentile is the maximum.
            time_in_io_p99: max,
        };
        // Idle 30..50 (20 ps) and 61..100 (39 ps).
        let gap = |g| io_phases(&iv, PhaseSplit::Gap(g)).0;
        assert_eq!(
            gap(19),
            vec![
                span(0, 30, 2, 7, 25),
                span(50, 61, 2, 24, 5),
                span(100, 100, 1, 32, 0)
            ]
        );
        // An idle stretch of exactly the gap does not split.
        assert_eq!(
            gap(20),
            vec![span(0, 61, 2, 31, 26), span(100, 100, 1, 32, 0)]
        );
        assert_eq!(gap(39), vec![span(0, 100, 3, 63, 26)]);
        assert_eq!(io_phases(&iv, PhaseSplit::Gap(39)).1, 39);
        // The input order does not matter.
        let mut rev = iv.to_vec();
        rev.reverse();
        assert_eq!(io_phases(&rev, PhaseSplit::Gap(19)).0, gap(19));
        assert!(io_phases(&[], PhaseSplit::Gap(1)).0.is_empty());
        assert!(io_phases(&[], PhaseSplit::Auto).0.is_empty());
        let p = span(
            2_000_000_000_000,
            3_500_000_000_000,
            4,
            3_000,
            1_000_000_000_000,
        )
        .to_io_phase();
        assert_eq!(
            (p.start_s, p.end_s, p.length_s, p.ranks, p.time_in_io_max_s),
            (2.0, 3.5, 1.5, 4, 1.0)
        );
        assert_eq!((p.bytes, p.bandwidth_bps), (3_000, 2_000.0));
        assert_eq!(p.time_in_io_p99_s, 1.0);
        // A phase of no length has no bandwidth.
        assert_eq!(span(5, 5, 1, 9, 0).to_io_phase().bandwidth_bps, 0.0);
    }

    #[test]
    fn a_phase_p99_leaves_out_the_slowest_hundredth_of_its_ranks() {
        // 1,000 ranks in one phase; rank r spends r + 1 ps in I/O, in two operations for the
        // even ranks. Nearest rank: the 990th smallest sum, 990 ps; the maximum is 1,000.
        let mut iv = Vec::new();
        for r in 0..1000u32 {
            let d = Time::from(r) + 1;
            if r % 2 == 0 {
                iv.push((r, 0, d / 2, 0));
                iv.push((r, 5, 5 + d - d / 2, 0));
            } else {
                iv.push((r, 0, d, 0));
            }
        }
        let p = io_phases(&iv, PhaseSplit::Gap(10)).0;
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].ranks, p[0].time_in_io_max, p[0].time_in_io_p99),
            (1000, 1000, 990)
        );
        // A second phase far later with one slow rank among 200: its p99 is the 198th sum.
        let mut later: Vec<BusyInterval> =
            (0..200u32).map(|r| (r, 1_000_000, 1_000_010, 0)).collect();
        later[7].2 = 1_005_000;
        iv.extend(later);
        let p = io_phases(&iv, PhaseSplit::Gap(10)).0;
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[1].ranks, p[1].time_in_io_max, p[1].time_in_io_p99),
            (200, 5_000, 10)
        );
        assert_eq!(p[0].time_in_io_p99, 990);
    }

    const S: Time = 1_000_000_000_000;

    /// `n` ranks each writing `bytes` over `[start, start + len)` (ps).
    fn burst(n: u32, start: Time, len: Time, bytes: u64) -> Vec<BusyInterval> {
        (0..n).map(|r| (r, start, start + len, bytes)).collect()
    }

    #[test]
    fn automatic_gap_is_ten_median_bursts_at_least_a_millisecond() {
        // Bursts of 1, 2 and 9 s (two of them overlapping intervals, one touching): the
        // median is 2 s, the gap 20 s.
        let iv = [
            (0, S),
            (10 * S, 11 * S),
            (10 * S + S / 2, 12 * S),
            (50 * S, 55 * S),
            (55 * S, 59 * S),
        ];
        assert_eq!(auto_gap(&iv), 20 * S);
        // Two bursts: the lower median (nearest rank).
        assert_eq!(auto_gap(&[(0, S), (10 * S, 13 * S)]), 10 * S);
        // Bursts of no length are left out; short bursts meet the 1 ms floor.
        assert_eq!(auto_gap(&[(0, 0), (5, 5), (9, 9)]), AUTO_FLOOR);
        assert_eq!(
            auto_gap(&[(0, 1_000), (S, S + 7), (2 * S, 2 * S)]),
            AUTO_FLOOR
        );
        assert_eq!(
            auto_gap(&[(0, 3), (4, 4), (9, 9 + S), (2 * S, 3 * S)]),
            10 * S
        );
        assert_eq!(auto_gap(&[]), AUTO_FLOOR);
    }

    #[test]
    fn three_checkpoints_a_minute_apart_are_three_phases() {
        // 8 ranks write 2 s checkpoints of 1 GB each, 60 s of computation between them: the
        // bursts are 2 s, the gap 20 s, and each checkpoint is a phase of 8 GB at 4 GB/s.
        let mut iv = Vec::new();
        for k in 0..3 {
            iv.extend(burst(8, k * 62 * S, 2 * S, 1_000_000_000));
        }
        let (p, gap) = io_phases(&iv, PhaseSplit::Auto);
        assert_eq!(gap, 20 * S);
        assert_eq!(p.len(), 3);
        for (k, ph) in p.iter().enumerate() {
            let ph = ph.to_io_phase();
            assert_eq!((ph.start_s, ph.length_s), (62.0 * k as f64, 2.0));
            assert_eq!(
                (ph.ranks, ph.bytes, ph.bandwidth_bps),
                (8, 8_000_000_000, 4e9)
            );
        }
        // The old fixed 60 s gap merges them into one 126 s phase.
        let (one, _) = io_phases(&iv, PhaseSplit::Gap(60 * S));
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].end - one[0].start, 126 * S);
    }

    #[test]
    fn staggered_writers_stay_one_phase() {
        // 10 groups 2 s apart, each writing for 0.5 s (idle 1.5 s between groups), then 300 s
        // of computation and the same again: the gap is 5 s, so 2 phases of 18.5 s.
        let mut iv = Vec::new();
        for phase in 0..2 {
            for g in 0..10 {
                let t = phase * 320 * S + g * 2 * S;
                iv.extend(
                    burst(4, t, S / 2, 100)
                        .into_iter()
                        .map(|(r, a, b, n)| (r + 4 * g as u32, a, b, n)),
                );
            }
        }
        let (p, gap) = io_phases(&iv, PhaseSplit::Auto);
        assert_eq!(gap, 5 * S);
        assert_eq!(p.len(), 2);
        for ph in &p {
            assert_eq!(
                (ph.end - ph.start, ph.ranks, ph.bytes),
                (18 * S + S / 2, 40, 4_000)
            );
        }
        // Pauses at or under the 1 ms floor never split, however short the bursts.
        let tiny = [(0, 0, 10, 1), (0, 1_000_000_010, 1_000_000_020, 1)];
        assert_eq!(io_phases(&tiny, PhaseSplit::Auto).0.len(), 1);
        let apart = [(0, 0, 10, 1), (0, 1_000_000_011, 1_000_000_020, 1)];
        assert_eq!(io_phases(&apart, PhaseSplit::Auto).0.len(), 2);
    }

    #[test]
    fn the_table_line_lists_few_phases_and_summarises_many() {
        let ph = |len: f64, bw: f64| IoPhase {
            start_s: 0.0,
            end_s: len,
            length_s: len,
            ranks: 1,
            bytes: (len * bw) as u64,
            bandwidth_bps: bw,
            time_in_io_max_s: len,
            time_in_io_p99_s: len,
        };
        assert_eq!(phases_line(&[]), "no I/O");
        assert_eq!(
            phases_line(&[ph(2.0, 137e9), ph(0.02, 1.2e9)]),
            "2 phases: 2.000 s at 137.00GB/s, 20.000 ms at 1.20GB/s"
        );
        let many: Vec<IoPhase> = (1..=5).map(|k| ph(k as f64, 1e9 * k as f64)).collect();
        assert_eq!(
            phases_line(&many),
            "5 phases, length 1.000 s / 3.000 s / 5.000 s, bandwidth 1.00GB/s / 3.00GB/s / \
             5.00GB/s (min / median / max)"
        );
    }
}
