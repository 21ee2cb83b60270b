//! Pure transforms of a job. Each returns a new [`JobSpec`] and leaves its input untouched;
//! the tests check what each conserves.

use crate::op::{CommId, FileId, Op};
use crate::workload::{JobSpec, RankOps, RankOpsBuilder, Sharing};
use std::collections::BTreeMap;

/// Weak scaling: a job of `ranks` ranks in which rank `r` behaves like rank `r % R` of the
/// original `R`-rank job. Copy `c = r / R` of a per-rank file is a new file (`name.c<c>`);
/// shared files stay shared and copy `c` accesses them shifted by `c` times the file's
/// extent, so copies do not overwrite each other. Sub-communicators are replicated per copy.
///
/// Conserves every rank's sequence of operations (up to file ids and shared-file offsets);
/// totals grow by `ranks / R`.
pub fn weak_scale(job: &JobSpec, ranks: u32) -> JobSpec {
    let orig = job.ranks().max(1);
    let copies = ranks.div_ceil(orig);
    let mut out = JobSpec {
        ops: RankOps::default(),
        files: job.files.clone(),
        subcomms: Vec::new(),
        ..job.clone()
    };
    // extent of each shared file
    let mut extent: BTreeMap<FileId, u64> = BTreeMap::new();
    for run in job.ops.runs() {
        if let Op::Write { file, offset, size } | Op::Read { file, offset, size } = run.last() {
            let e = extent.entry(file).or_default();
            *e = (*e).max(offset.saturating_add(size));
        }
    }
    // per-rank file copies: (copy, original file) -> new id
    let mut copy_id: BTreeMap<(u32, FileId), FileId> = BTreeMap::new();
    for c in 1..copies {
        for (i, f) in job.files.iter().enumerate() {
            if let Sharing::PerRank(r) = f.sharing {
                let new_rank = c * orig + r;
                if new_rank < ranks {
                    let id = out.add_file(format!("{}.c{c}", f.name), Sharing::PerRank(new_rank));
                    copy_id.insert((c, FileId(i as u32)), id);
                }
            }
        }
    }
    for c in 0..copies {
        for members in &job.subcomms {
            let m: Vec<u32> = members
                .iter()
                .map(|&r| c * orig + r)
                .filter(|&r| r < ranks)
                .collect();
            out.subcomms.push(m);
        }
    }
    let ncomm = job.subcomms.len() as u32;
    let mut b = RankOpsBuilder::with_capacity(job.ops.total_ops() * copies as usize);
    for r in 0..ranks {
        let c = r / orig;
        let src = r % orig;
        for op in job.ops.rank(src) {
            let op = match op {
                Op::Barrier { comm } if comm != CommId::WORLD => Op::Barrier {
                    comm: CommId(c * ncomm + comm.0),
                },
                other => other,
            };
            let op = if c == 0 {
                op
            } else {
                let shift = |file: FileId, offset: u64| -> (FileId, u64) {
                    match copy_id.get(&(c, file)) {
                        Some(&id) => (id, offset),
                        None => {
                            let e = extent.get(&file).copied().unwrap_or(0);
                            (file, offset.saturating_add(e.saturating_mul(u64::from(c))))
                        }
                    }
                };
                match op {
                    Op::Write { file, offset, size } => {
                        let (file, offset) = shift(file, offset);
                        Op::Write { file, offset, size }
                    }
                    Op::Read { file, offset, size } => {
                        let (file, offset) = shift(file, offset);
                        Op::Read { file, offset, size }
                    }
                    other => other.with_file(|f| copy_id.get(&(c, f)).copied().unwrap_or(f)),
                }
            };
            b.push(op);
        }
        b.end_rank();
    }
    out.ops = b.finish();
    out
}

/// Strong scaling of bytes: every read and write size (and offset) is multiplied by
/// `num / den`. Operation counts are unchanged, and each rank's bytes become exactly
/// `floor(bytes * num / den)` per direction (rounding is carried from one operation to
/// the next).
pub fn strong_scale(job: &JobSpec, num: u64, den: u64) -> JobSpec {
    let den = den.max(1);
    let scale = |x: u128| -> u64 {
        u64::try_from(x * u128::from(num) / u128::from(den)).unwrap_or(u64::MAX)
    };
    let ops = job.ops.map_ranks(|_, ops, out| {
        let (mut cw, mut cr) = (0u128, 0u128);
        for &op in ops {
            out.push(match op {
                Op::Write { file, offset, size } => {
                    let before = scale(cw);
                    cw += u128::from(size);
                    Op::Write {
                        file,
                        offset: scale(u128::from(offset)),
                        size: scale(cw) - before,
                    }
                }
                Op::Read { file, offset, size } => {
                    let before = scale(cr);
                    cr += u128::from(size);
                    Op::Read {
                        file,
                        offset: scale(u128::from(offset)),
                        size: scale(cr) - before,
                    }
                }
                other => other,
            });
        }
    });
    JobSpec { ops, ..job.clone() }
}

/// Repetition: each rank runs its operations `n` times, with `interval_ps` of compute
/// between consecutive iterations. Totals of bytes and operations are multiplied by `n`;
/// each rank's compute grows to `n * compute + (n - 1) * interval_ps`.
pub fn repeat(job: &JobSpec, n: u32, interval_ps: u64) -> JobSpec {
    let ops = job.ops.map_ranks(|_, ops, out| {
        for i in 0..n {
            if i > 0 && interval_ps > 0 {
                out.push(Op::Compute { ps: interval_ps });
            }
            out.extend_from_slice(ops);
        }
    });
    JobSpec { ops, ..job.clone() }
}

/// Collation: consecutive writes of a rank to the same file at contiguous offsets, with no
/// other operation between them, are merged while the merged size stays at most `max_size`
/// bytes. Conserves every rank's bytes per file and the byte ranges written; reduces the
/// number of writes.
pub fn collate(job: &JobSpec, max_size: u64) -> JobSpec {
    let ops = job.ops.map_ranks(|_, ops, out| {
        for &op in ops {
            if let Op::Write { file, offset, size } = op {
                if let Some(Op::Write {
                    file: pf,
                    offset: po,
                    size: ps,
                }) = out.last_mut()
                {
                    if *pf == file
                        && po.checked_add(*ps) == Some(offset)
                        && ps.saturating_add(size) <= max_size
                    {
                        *ps += size;
                        continue;
                    }
                }
            }
            out.push(op);
        }
    });
    JobSpec { ops, ..job.clone() }
}

/// Which ranks synchronise in [`insert_barriers`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierScope {
    /// All ranks of the job.
    Global,
    /// Groups of `n` consecutive ranks (for example the ranks of one node); one
    /// sub-communicator is added per group.
    Groups(u32),
}

/// Barrier insertion: a barrier before and after every I/O phase of every rank (an I/O phase
/// is a maximal run of open/read/write/close/delete operations). Ranks of a communicator with
/// fewer phases than the others get the missing barrier pairs at their end, so that every
/// member calls the same number of barriers. Conserves all other operations and their order.
pub fn insert_barriers(job: &JobSpec, scope: BarrierScope) -> JobSpec {
    let ranks = job.ranks();
    let is_io = |op: &Op| !matches!(op, Op::Compute { .. } | Op::Barrier { .. });
    let phases = |ops: crate::workload::RankIter<'_>| -> u64 {
        let mut n = 0;
        let mut in_phase = false;
        for op in ops {
            let io = is_io(&op);
            if io && !in_phase {
                n += 1;
            }
            in_phase = io;
        }
        n
    };
    let mut out = job.clone();
    let (group_of, comm_base): (Box<dyn Fn(u32) -> u32>, u32) = match scope {
        BarrierScope::Global => (Box::new(|_| 0), 0),
        BarrierScope::Groups(n) => {
            let n = n.max(1);
            let base = job.subcomms.len() as u32;
            for g in 0..ranks.div_ceil(n) {
                out.subcomms
                    .push((g * n..((g + 1) * n).min(ranks)).collect());
            }
            (Box::new(move |r| r / n), base)
        }
    };
    let comm_of = |r: u32| match scope {
        BarrierScope::Global => CommId::WORLD,
        BarrierScope::Groups(_) => CommId(comm_base + group_of(r) + 1),
    };
    let mut max_phases: BTreeMap<u32, u64> = BTreeMap::new();
    for (r, ops) in job.ops.iter() {
        let e = max_phases.entry(group_of(r)).or_default();
        *e = (*e).max(phases(ops));
    }
    out.ops = job.ops.map_ranks(|r, ops, o| {
        let comm = comm_of(r);
        let mut in_phase = false;
        let mut n = 0u64;
        for &op in ops {
            let io = is_io(&op);
            if io && !in_phase {
                o.push(Op::Barrier { comm });
                n += 1;
            }
            if !io && in_phase {
                o.push(Op::Barrier { comm });
            }
            o.push(op);
            in_phase = io;
        }
        if in_phase {
            o.push(Op::Barrier { comm });
        }
        let want = max_phases.get(&group_of(r)).copied().unwrap_or(0);
        for _ in n..want {
            o.push(Op::Barrier { comm });
            o.push(Op::Barrier { comm });
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{HaccParams, IorParams, LammpsParams};
    use crate::workload::JobTotals;

    fn small_ior(shared: bool) -> JobSpec {
        IorParams {
            ranks: 6,
            block_size: 1000,
            transfer_size: 100,
            segments: 2,
            file_per_process: !shared,
            read: true,
            ..Default::default()
        }
        .job()
    }

    #[test]
    fn weak_scaling_replicates_ranks() {
        for shared in [false, true] {
            let j = small_ior(shared);
            let w = weak_scale(&j, 15);
            w.validate().unwrap();
            assert_eq!(w.ranks(), 15);
            for r in 0..15 {
                let a = w.rank_totals(r);
                let b = j.rank_totals(r % 6);
                assert_eq!(a, b, "rank {r}");
                assert_eq!(w.ops.rank(r).len(), j.ops.rank(r % 6).len());
            }
            if shared {
                assert_eq!(w.files.len(), 1);
                // copies write disjoint byte ranges of the shared file
                let mut ranges: Vec<(u64, u64)> = w
                    .ops
                    .all_ops()
                    .filter_map(|o| match o {
                        Op::Write { offset, size, .. } => Some((offset, offset + size)),
                        _ => None,
                    })
                    .collect();
                ranges.sort_unstable();
                assert!(ranges.windows(2).all(|p| p[0].1 <= p[1].0));
            } else {
                assert_eq!(w.files.len(), 15);
                for (i, f) in w.files.iter().enumerate() {
                    assert_eq!(f.sharing, Sharing::PerRank(i as u32), "{}", f.name);
                }
            }
        }
    }

    #[test]
    fn strong_scaling_is_exact_per_rank() {
        let j = small_ior(true);
        let s = strong_scale(&j, 2, 3);
        s.validate().unwrap();
        for r in 0..6 {
            let a = j.rank_totals(r);
            let b = s.rank_totals(r);
            assert_eq!((a.writes, a.reads, a.opens), (b.writes, b.reads, b.opens));
            assert_eq!(b.bytes_written, a.bytes_written * 2 / 3);
            assert_eq!(b.bytes_read, a.bytes_read * 2 / 3);
        }
        let d = strong_scale(&j, 3, 1);
        assert_eq!(d.totals().bytes_written, 3 * j.totals().bytes_written);
    }

    #[test]
    fn repetition_multiplies_totals() {
        let j = HaccParams {
            ranks: 8,
            bytes_per_rank: 1 << 20,
            ..Default::default()
        }
        .job();
        let r = repeat(&j, 3, 1000);
        r.validate().unwrap();
        for k in 0..8 {
            let a = j.rank_totals(k);
            let b = r.rank_totals(k);
            assert_eq!(b.bytes_written, 3 * a.bytes_written);
            assert_eq!(b.writes, 3 * a.writes);
            assert_eq!(b.barriers, 3 * a.barriers);
            assert_eq!(b.compute_ps, 3 * a.compute_ps + 2 * 1000);
        }
        assert_eq!(repeat(&j, 1, 5), j);
    }

    #[test]
    fn collation_merges_contiguous_writes_and_conserves_bytes() {
        let j = small_ior(false);
        let c = collate(&j, 450);
        c.validate().unwrap();
        for r in 0..6 {
            let a = j.rank_totals(r);
            let b = c.rank_totals(r);
            assert_eq!(a.bytes_written, b.bytes_written);
            assert_eq!(a.reads, b.reads);
            // 2 contiguous blocks x 10 transfers of 100 bytes: 2000 bytes in 4 x 400 + 400
            assert_eq!(b.writes, 5);
        }
        for op in c.ops.all_ops() {
            assert!(op.bytes_written() <= 450);
        }
        // the byte ranges written are unchanged
        let ranges = |j: &JobSpec| -> Vec<(FileId, u64, u64)> {
            let mut v: Vec<(FileId, u64, u64)> = Vec::new();
            for op in j.ops.all_ops() {
                if let Op::Write { file, offset, size } = op {
                    for b in (offset..offset + size).step_by(50) {
                        v.push((file, b, 0));
                    }
                }
            }
            v.sort_unstable();
            v
        };
        assert_eq!(ranges(&j), ranges(&c));
        assert_eq!(collate(&j, 0), j);
    }

    #[test]
    fn barriers_around_io_phases_are_consistent() {
        let mut j = LammpsParams {
            ranks: 7,
            files_per_rank: 2,
            bytes_per_rank: 1000,
            ..Default::default()
        }
        .job();
        // make rank 3 do an extra I/O phase so the counts differ before padding
        let mut per: Vec<Vec<Op>> = j.ops.iter().map(|(_, o)| o.collect()).collect();
        per[3].push(Op::Compute { ps: 5 });
        per[3].push(Op::Open { file: FileId(6) });
        per[3].push(Op::Close { file: FileId(6) });
        j.ops = RankOps::from_vecs(per);
        for scope in [BarrierScope::Global, BarrierScope::Groups(3)] {
            let b = insert_barriers(&j, scope);
            b.validate().unwrap_or_else(|e| panic!("{scope:?}: {e}"));
            for r in 0..7 {
                let without: Vec<Op> = b
                    .ops
                    .rank(r)
                    .filter(|o| !matches!(o, Op::Barrier { .. }))
                    .collect();
                let orig: Vec<Op> = j.ops.rank(r).collect();
                assert_eq!(without, orig, "{scope:?} rank {r}");
            }
            let t: JobTotals = b.totals();
            assert_eq!(t.bytes_written, j.totals().bytes_written);
        }
        let g = insert_barriers(&j, BarrierScope::Global);
        assert_eq!(g.rank_totals(0).barriers, 4);
        let s = insert_barriers(&j, BarrierScope::Groups(3));
        assert_eq!(s.subcomms.len(), 3);
        assert_eq!(s.rank_totals(0).barriers, 2);
        assert_eq!(s.rank_totals(4).barriers, 4); // group 1 holds rank 3
        assert_eq!(s.rank_totals(6).barriers, 2);
    }
}
