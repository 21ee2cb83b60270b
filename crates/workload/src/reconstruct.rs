//! Reconstruction of per-rank operations from Darshan counters (logs without DXT).
//!
//! For every record (one file accessed by one rank, or by all ranks for rank -1) and each
//! direction (read, write):
//!
//! 1. **Counts and bytes** are taken from `READS`/`WRITES` and `BYTES_READ`/`BYTES_WRITTEN`
//!    and conserved exactly.
//! 2. **Sizes**: the access-size histogram gives how many operations fall in each size bin
//!    (scaled to the operation count if it disagrees). Operations whose size is one of the
//!    four most common access sizes (`ACCESS1..4`, shared by reads and writes; writes get
//!    them first) keep that exact size. The other operations of a bin start at the bin's
//!    common size or midpoint and are then adjusted, staying inside their bin, so that the
//!    total equals the byte counter exactly. Inconsistent counters (bytes impossible within
//!    the bins) relax the bins; bytes without any operation become one operation.
//! 3. **Time**: operations are spread evenly over `[F_*_START_TIMESTAMP,
//!    F_*_END_TIMESTAMP]`; each is expected to last `F_*_TIME / count`. A rank's operations
//!    over all files are merged by time and the gaps become compute.
//! 4. **Offsets** are sequential, starting at `MAX_BYTE_* + 1 - BYTES_*` when that is
//!    non-negative (so the highest byte touched is kept), else at 0.
//! 5. **Shared records** (rank -1) are split across all `nprocs` ranks: rank `k` gets a
//!    contiguous share of the operations (counts differ by at most one) and the matching
//!    contiguous byte range; the totals over ranks equal the record's counters.
//! 6. Files both read and written keep both streams, merged by time. Each rank opens a file
//!    once (at `F_OPEN_START_TIMESTAMP`) and closes it once (at the later of
//!    `F_CLOSE_END_TIMESTAMP` and its last operation).

use crate::darshan::{mpiio, posix, stdio, DarshanLog};
use crate::op::{secs_to_ps, FileId, Op};
use crate::replay::{build_files, check_counters, job_ranks, Layer, LogJobOptions, ReplayError};
use crate::workload::{JobSpec, RankOpsBuilder};

/// Upper bounds (inclusive) of Darshan's ten access-size bins, in bytes.
pub const BIN_UPPER: [u64; 10] = [
    100,
    1024,
    10 * 1024,
    100 * 1024,
    1024 * 1024,
    4 * 1024 * 1024,
    10 * 1024 * 1024,
    100 * 1024 * 1024,
    1024 * 1024 * 1024,
    u64::MAX,
];

fn bin_bounds(b: usize) -> (u64, u64) {
    let lo = if b == 0 { 0 } else { BIN_UPPER[b - 1] + 1 };
    (lo, BIN_UPPER[b])
}

/// Index of the size bin holding `size`.
pub fn bin_of(size: u64) -> usize {
    BIN_UPPER.iter().position(|&u| size <= u).unwrap_or(9)
}

/// What the counters say about one direction of one record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirectionCounters {
    /// Operations.
    pub ops: u64,
    /// Bytes.
    pub bytes: u64,
    /// Size histogram (10 Darshan bins), all zero when unknown.
    pub histogram: [u64; 10],
    /// Highest byte offset touched (`-1` unknown).
    pub max_byte: i64,
    /// First and last timestamps, seconds since job start.
    pub start: f64,
    /// Last timestamp, seconds since job start.
    pub end: f64,
    /// Cumulative time spent, seconds.
    pub time: f64,
}

/// Sizes of a direction's operations as runs of `(size, count)`: exactly `ops` operations
/// whose sizes sum to exactly `bytes` (one operation is produced if `ops == 0 < bytes`).
/// `common` holds the most common access sizes `(size, count)`; used counts are decremented.
pub fn op_sizes(
    ops: u64,
    bytes: u64,
    histogram: &[u64; 10],
    common: &mut [(u64, u64)],
) -> Vec<(u64, u64)> {
    let n = if ops == 0 && bytes > 0 { 1 } else { ops };
    if n == 0 {
        return Vec::new();
    }
    // Operations per bin, scaled to n (largest remainder) if the histogram disagrees.
    let hsum: u128 = histogram.iter().map(|&h| u128::from(h)).sum();
    let mut counts = [0u64; 10];
    let mut unbounded = false;
    if hsum == 0 {
        unbounded = true;
        counts[9] = n;
    } else if hsum == u128::from(n) {
        counts = *histogram;
    } else {
        let mut rem: Vec<(u128, usize)> = Vec::new();
        let mut given = 0u64;
        for b in 0..10 {
            let exact = u128::from(histogram[b]) * u128::from(n);
            counts[b] = (exact / hsum) as u64;
            given += counts[b];
            rem.push((exact % hsum, b));
        }
        rem.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, b) in rem.into_iter().take((n - given) as usize) {
            counts[b] += 1;
        }
    }
    // groups: (lo, hi, count, size, pinned)
    struct Group {
        lo: u64,
        hi: u64,
        count: u64,
        size: u64,
        pinned: bool,
    }
    let mut groups: Vec<Group> = Vec::new();
    for (b, &c) in counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let (lo, hi) = if unbounded {
            (0, u64::MAX)
        } else {
            bin_bounds(b)
        };
        let mut left = c;
        let mut rep = None;
        for cs in common.iter_mut() {
            if left == 0 {
                break;
            }
            if cs.1 > 0 && cs.0 >= lo && cs.0 <= hi && !unbounded {
                let take = cs.1.min(left);
                groups.push(Group {
                    lo,
                    hi,
                    count: take,
                    size: cs.0,
                    pinned: true,
                });
                rep.get_or_insert(cs.0);
                cs.1 -= take;
                left -= take;
            }
        }
        if left > 0 {
            let mid = if unbounded {
                bytes / n
            } else if b == 9 {
                lo.saturating_mul(2)
            } else {
                lo + (hi - lo) / 2
            };
            groups.push(Group {
                lo,
                hi,
                count: left,
                size: rep.unwrap_or(mid),
                pinned: false,
            });
        }
    }
    let total = |g: &[Group]| -> u128 {
        g.iter()
            .map(|x| u128::from(x.size) * u128::from(x.count))
            .sum()
    };
    let target = u128::from(bytes);
    if total(&groups) != target && groups.iter().all(|g| g.pinned) {
        for g in groups.iter_mut() {
            g.pinned = false;
        }
    }
    // Runs: each free group becomes (size + q) x (count - r) and (size + q + 1) x r.
    let mut runs: Vec<(u64, u64)> = Vec::new();
    let cur = total(&groups);
    let free: Vec<usize> = (0..groups.len()).filter(|&i| !groups[i].pinned).collect();
    let mut extra = vec![0u128; groups.len()]; // bytes added (or removed) per free group
    let increase = target >= cur;
    let mut delta = if increase { target - cur } else { cur - target };
    let cap = |g: &Group| -> u128 {
        let per = if increase {
            g.hi - g.size
        } else {
            g.size - g.lo
        };
        u128::from(per) * u128::from(g.count)
    };
    let total_cap: u128 = free.iter().map(|&i| cap(&groups[i])).sum();
    if delta > 0 && total_cap > 0 {
        let use_ = delta.min(total_cap);
        let mut given = 0u128;
        for &i in &free {
            let share = use_ * cap(&groups[i]) / total_cap;
            extra[i] = share;
            given += share;
        }
        let mut left = use_ - given;
        for &i in &free {
            let room = cap(&groups[i]) - extra[i];
            let add = room.min(left);
            extra[i] += add;
            left -= add;
        }
        delta -= use_;
    }
    // Whatever is left (inconsistent counters) is spread over all free operations, ignoring
    // the bins.
    let free_ops: u128 = free.iter().map(|&i| u128::from(groups[i].count)).sum();
    for (k, g) in groups.iter().enumerate() {
        if g.pinned {
            runs.push((g.size, g.count));
            continue;
        }
        let mut e = extra[k];
        if delta > 0 && free_ops > 0 {
            // proportional share of the leftover by operation count; remainder to the last
            let share = delta * u128::from(g.count) / free_ops;
            e += share;
        }
        let c = u128::from(g.count);
        let (q, r) = (e / c, e % c);
        let apply = |s: u64, d: u128| -> u64 {
            if increase {
                (u128::from(s) + d).min(u128::from(u64::MAX)) as u64
            } else {
                (u128::from(s).saturating_sub(d)) as u64
            }
        };
        let base = apply(g.size, q);
        let bumped = apply(g.size, q + 1);
        if g.count - r as u64 > 0 {
            runs.push((base, g.count - r as u64));
        }
        if r > 0 {
            runs.push((bumped, r as u64));
        }
    }
    // Exact fix-up of rounding in the leftover spread: adjust operations one by one.
    let mut sum: u128 = runs
        .iter()
        .map(|&(s, c)| u128::from(s) * u128::from(c))
        .sum();
    for _ in 0..64 {
        if sum == target {
            break;
        }
        let Some(last) = runs
            .iter_mut()
            .rev()
            .find(|r| r.1 > 0 && (sum < target || r.0 > 0))
        else {
            break;
        };
        let (size, count) = *last;
        if sum < target {
            let need = target - sum;
            let add = need / u128::from(count);
            if add > 0 {
                last.0 = size.saturating_add(add as u64);
                sum += add * u128::from(count);
            } else {
                last.1 -= 1;
                let s2 = size.saturating_add(need as u64);
                runs.push((s2, 1));
                sum += need;
            }
        } else {
            let over = sum - target;
            let sub = (over / u128::from(count)).min(u128::from(size));
            if sub > 0 {
                last.0 = size - sub as u64;
                sum -= sub * u128::from(count);
            } else {
                last.1 -= 1;
                let s2 = size.saturating_sub(over as u64);
                sum -= u128::from(size - s2);
                runs.push((s2, 1));
            }
        }
    }
    runs.retain(|r| r.1 > 0);
    runs
}

/// One record, normalised from POSIX, MPI-IO or STDIO counters.
struct RecordIo {
    id: u64,
    rank: i64,
    write: DirectionCounters,
    read: DirectionCounters,
    common: Vec<(u64, u64)>,
    open: f64,
    close: f64,
}

fn nn(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn hist(c: &[i64], at: usize) -> [u64; 10] {
    let mut h = [0u64; 10];
    for (b, slot) in h.iter_mut().enumerate() {
        *slot = nn(c[at + b]);
    }
    h
}

/// The four most common access sizes and their counts, from the counters at `access` and
/// `count` onwards.
fn common_accesses(c: &[i64], access: usize, count: usize) -> Vec<(u64, u64)> {
    (0..4)
        .map(|k| (nn(c[access + k]), nn(c[count + k])))
        .collect()
}

fn records(log: &DarshanLog, layer: Layer, with_stdio: bool) -> Vec<RecordIo> {
    let mut out = Vec::new();
    match layer {
        Layer::Posix => {
            for r in &log.posix {
                let c = &r.counters;
                let f = &r.fcounters;
                out.push(RecordIo {
                    id: r.id,
                    rank: r.rank,
                    write: DirectionCounters {
                        ops: nn(c[posix::WRITES]),
                        bytes: nn(c[posix::BYTES_WRITTEN]),
                        histogram: hist(c, posix::SIZE_WRITE_0_100),
                        max_byte: c[posix::MAX_BYTE_WRITTEN],
                        start: f[posix::F_WRITE_START],
                        end: f[posix::F_WRITE_END],
                        time: f[posix::F_WRITE_TIME],
                    },
                    read: DirectionCounters {
                        ops: nn(c[posix::READS]),
                        bytes: nn(c[posix::BYTES_READ]),
                        histogram: hist(c, posix::SIZE_READ_0_100),
                        max_byte: c[posix::MAX_BYTE_READ],
                        start: f[posix::F_READ_START],
                        end: f[posix::F_READ_END],
                        time: f[posix::F_READ_TIME],
                    },
                    common: common_accesses(c, posix::ACCESS1_ACCESS, posix::ACCESS1_COUNT),
                    open: f[posix::F_OPEN_START],
                    close: f[posix::F_CLOSE_END],
                });
            }
        }
        Layer::MpiIo => {
            for r in &log.mpiio {
                let c = &r.counters;
                let f = &r.fcounters;
                out.push(RecordIo {
                    id: r.id,
                    rank: r.rank,
                    write: DirectionCounters {
                        ops: nn(mpiio::writes(r)),
                        bytes: nn(c[mpiio::BYTES_WRITTEN]),
                        histogram: hist(c, mpiio::SIZE_WRITE_AGG_0_100),
                        max_byte: -1,
                        start: f[2],
                        end: f[6],
                        time: f[9],
                    },
                    read: DirectionCounters {
                        ops: nn(mpiio::reads(r)),
                        bytes: nn(c[mpiio::BYTES_READ]),
                        histogram: hist(c, mpiio::SIZE_READ_AGG_0_100),
                        max_byte: -1,
                        start: f[1],
                        end: f[5],
                        time: f[8],
                    },
                    common: common_accesses(c, mpiio::ACCESS1_ACCESS, mpiio::ACCESS1_COUNT),
                    open: f[0],
                    close: f[7],
                });
            }
        }
    }
    if with_stdio {
        for r in &log.stdio {
            let c = &r.counters;
            let f = &r.fcounters;
            out.push(RecordIo {
                id: r.id,
                rank: r.rank,
                write: DirectionCounters {
                    ops: nn(c[stdio::WRITES]),
                    bytes: nn(c[stdio::BYTES_WRITTEN]),
                    histogram: [0; 10],
                    max_byte: -1,
                    start: f[stdio::F_WRITE_START],
                    end: f[stdio::F_WRITE_END],
                    time: f[stdio::F_WRITE_TIME],
                },
                read: DirectionCounters {
                    ops: nn(c[stdio::READS]),
                    bytes: nn(c[stdio::BYTES_READ]),
                    histogram: [0; 10],
                    max_byte: -1,
                    start: f[stdio::F_READ_START],
                    end: f[stdio::F_READ_END],
                    time: f[stdio::F_READ_TIME],
                },
                common: Vec::new(),
                open: f[stdio::F_OPEN_START],
                close: f[stdio::F_CLOSE_END],
            });
        }
    }
    out
}

/// An operation with its planned time: `(time_ps, expected duration ps, tie-break, op)`.
type Event = (u64, u64, u64, Op);

fn direction_events(
    d: &DirectionCounters,
    runs: &[(u64, u64)],
    file: FileId,
    write: bool,
    ranks: &[u32],
    open_ps: u64,
    close_ps: u64,
    per_rank: &mut [Vec<Event>],
    seq: &mut u64,
) {
    let n: u64 = runs.iter().map(|r| r.1).sum();
    if n == 0 {
        return;
    }
    let mut start = secs_to_ps(d.start);
    let mut end = secs_to_ps(d.end);
    if d.start <= 0.0 && d.end <= 0.0 || end < start {
        start = open_ps;
        end = close_ps.max(open_ps);
    }
    let dur = secs_to_ps(d.time) / n.max(1);
    let base = u64::try_from(d.max_byte)
        .ok()
        .and_then(|m| m.checked_add(1))
        .and_then(|m| m.checked_sub(d.bytes))
        .unwrap_or(0);
    let m = ranks.len() as u64;
    let mut run_idx = 0usize;
    let mut run_left = runs.first().map(|r| r.1).unwrap_or(0);
    let mut offset = base;
    for (k, &rank) in ranks.iter().enumerate() {
        let k = k as u64;
        let nk = n / m + u64::from(k < n % m);
        let span = end - start;
        for j in 0..nk {
            while run_left == 0 && run_idx + 1 < runs.len() {
                run_idx += 1;
                run_left = runs[run_idx].1;
            }
            let size = runs.get(run_idx).map(|r| r.0).unwrap_or(0);
            run_left = run_left.saturating_sub(1);
            let t = start + ((u128::from(span) * u128::from(j)) / u128::from(nk)) as u64;
            let op = if write {
                Op::Write { file, offset, size }
            } else {
                Op::Read { file, offset, size }
            };
            offset = offset.saturating_add(size);
            per_rank[rank as usize].push((t, dur, *seq, op));
            *seq += 1;
        }
    }
}

/// Reconstructs a job from the counters of `log` (see the module documentation).
pub fn reconstruct(log: &DarshanLog, opts: &LogJobOptions) -> Result<JobSpec, ReplayError> {
    let layer = match opts.layer {
        Some(l) => l,
        None if !log.posix.is_empty() => Layer::Posix,
        None if !log.mpiio.is_empty() => Layer::MpiIo,
        None => Layer::Posix,
    };
    check_counters(log, layer, opts.include_stdio)?;
    let recs = records(log, layer, opts.include_stdio);
    if recs.is_empty() {
        return Err(ReplayError::NoData(format!("{layer:?} or STDIO")));
    }
    let max_rank = recs.iter().map(|r| r.rank).max().unwrap_or(0);
    let ranks = job_ranks(log, max_rank, opts.max_ranks)?;
    if let Some(r) = recs.iter().find(|r| r.rank < -1) {
        return Err(ReplayError::BadRank {
            id: r.id,
            rank: r.rank,
            nprocs: log.job.nprocs,
        });
    }
    let mut total_ops = 0u64;
    for r in &recs {
        let share = if r.rank < 0 { u64::from(ranks) } else { 1 };
        total_ops = total_ops
            .saturating_add(r.write.ops.max(u64::from(r.write.bytes > 0)))
            .saturating_add(r.read.ops.max(u64::from(r.read.bytes > 0)))
            .saturating_add(share.saturating_mul(3));
    }
    if total_ops > opts.max_ops {
        return Err(ReplayError::TooManyOps {
            ops: total_ops,
            max: opts.max_ops,
        });
    }
    let mut job = JobSpec::new(
        format!("darshan-{}-counters-{:?}", log.job.jobid, layer).to_lowercase(),
        0,
        opts.ranks_per_node.max(1),
    );
    let files = build_files(&mut job, log, recs.iter().map(|r| (r.id, r.rank)));
    let mut per_rank: Vec<Vec<Event>> = vec![Vec::new(); ranks as usize];
    let all: Vec<u32> = (0..ranks).collect();
    let mut seq = 0u64;
    for r in &recs {
        let file = files.ids.get(&r.id).copied().unwrap_or(FileId(0));
        let single = [r.rank.max(0) as u32];
        let targets: &[u32] = if r.rank < 0 { &all } else { &single };
        let mut common = r.common.clone();
        let wruns = op_sizes(r.write.ops, r.write.bytes, &r.write.histogram, &mut common);
        let rruns = op_sizes(r.read.ops, r.read.bytes, &r.read.histogram, &mut common);
        let first_data = [(&r.write, &wruns), (&r.read, &rruns)]
            .iter()
            .filter(|(_, runs)| !runs.is_empty())
            .map(|(d, _)| secs_to_ps(d.start))
            .min();
        let open_ps = if r.open > 0.0 {
            secs_to_ps(r.open)
        } else {
            first_data.unwrap_or(0)
        };
        let close_ps = secs_to_ps(r.close).max(open_ps);
        let open_seq = seq;
        seq += 1;
        let before: Vec<usize> = targets
            .iter()
            .map(|&t| per_rank[t as usize].len())
            .collect();
        direction_events(
            &r.write,
            &wruns,
            file,
            true,
            targets,
            open_ps,
            close_ps,
            &mut per_rank,
            &mut seq,
        );
        direction_events(
            &r.read,
            &rruns,
            file,
            false,
            targets,
            open_ps,
            close_ps,
            &mut per_rank,
            &mut seq,
        );
        for (k, &t) in targets.iter().enumerate() {
            let list = &mut per_rank[t as usize];
            let first_op = list[before[k]..].iter().map(|e| e.0).min();
            let last_op = list[before[k]..]
                .iter()
                .map(|e| e.0.saturating_add(e.1))
                .max();
            if first_op.is_none() && r.rank < 0 {
                continue; // this rank got no share of the shared file's operations
            }
            let o = first_op.map_or(open_ps, |f| open_ps.min(f));
            let c = last_op.map_or(close_ps, |l| close_ps.max(l));
            list.push((o, 0, open_seq, Op::Open { file }));
            list.push((c, 0, u64::MAX - open_seq, Op::Close { file }));
        }
    }
    let mut b = RankOpsBuilder::with_capacity(total_ops as usize);
    for mut events in per_rank {
        events.sort_by_key(|e| (e.0, matches!(e.3, Op::Close { .. }), e.2));
        let mut cursor = 0u64;
        for (t, dur, _, op) in events {
            let gap = t.saturating_sub(cursor);
            if gap > 0 {
                b.push(Op::Compute { ps: gap });
            }
            b.push(op);
            cursor = cursor.max(t.saturating_add(dur));
        }
        b.end_rank();
    }
    job.ops = b.finish();
    Ok(job)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(r: &[(u64, u64)]) -> (u64, u128) {
        (
            r.iter().map(|x| x.1).sum(),
            r.iter().map(|x| u128::from(x.0) * u128::from(x.1)).sum(),
        )
    }

    #[test]
    fn sizes_conserve_counts_and_bytes_and_respect_bins() {
        let mut h = [0u64; 10];
        h[4] = 10; // 100K..1M
        h[1] = 5; // 100..1K
        let mut common = vec![(262_144, 8), (0, 0), (0, 0), (0, 0)];
        let runs = op_sizes(15, 8 * 262_144 + 2 * 500_000 + 5 * 700, &h, &mut common);
        assert_eq!(
            sum(&runs),
            (15, (8 * 262_144 + 2 * 500_000 + 5 * 700) as u128)
        );
        assert!(runs.contains(&(262_144, 8)), "{runs:?}");
        for &(s, _) in &runs {
            let b = bin_of(s);
            assert!(b == 1 || b == 4, "{s} in bin {b}: {runs:?}");
        }
        assert_eq!(common[0].1, 0);
    }

    #[test]
    fn sizes_handle_inconsistent_counters() {
        let h = [0u64; 10];
        assert_eq!(sum(&op_sizes(7, 100, &h, &mut [])), (7, 100));
        assert_eq!(sum(&op_sizes(0, 100, &h, &mut [])), (1, 100));
        assert_eq!(sum(&op_sizes(3, 0, &h, &mut [])), (3, 0));
        let mut h = [0u64; 10];
        h[0] = 4; // claims 4 ops <= 100 bytes but 1 MB in total
        assert_eq!(sum(&op_sizes(4, 1 << 20, &h, &mut [])), (4, 1 << 20));
        h[9] = 2; // histogram disagrees with the count
        assert_eq!(
            sum(&op_sizes(3, 5_000_000_000, &h, &mut [])),
            (3, 5_000_000_000)
        );
        let mut common = vec![(50, 10)];
        let mut h = [0u64; 10];
        h[0] = 2;
        assert_eq!(sum(&op_sizes(2, 77, &h, &mut common)), (2, 77));
    }
}
