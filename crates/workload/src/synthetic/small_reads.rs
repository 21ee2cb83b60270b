//! ATLAS-like analysis: millions of small reads from a dataset stored like a ROOT file.
//!
//! Every rank reads its own input file (file id = rank). The file is divided into `branches`
//! equal contiguous regions (ROOT branches stored in baskets), each read sequentially. A rank
//! opens its file, then does `reads_per_rank` reads cycling over the branches in a fixed
//! random order (one permutation per rank): read `i` goes to branch `perm[i % branches]` at
//! that branch's cursor and advances it; a read that would cross the end of the region
//! starts again at the region's start. Each read is followed by `compute_ps` of compute;
//! finally the rank closes the file.

use super::error::{check, check_nonzero, ParamError, SmallReadsField as F};
use super::{rank_ops, GIB, KIB};
use crate::op::{FileId, Op, PS_PER_US};
use crate::rng::Rng;
use crate::workload::{JobSpec, Sharing};
use std::ops::Range;

/// Small-read analysis parameters (sizes in bytes, times in picoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct SmallReadsParams {
    /// MPI ranks (default 64).
    pub ranks: u32,
    /// Ranks per node (default 8).
    pub ranks_per_node: u32,
    /// Bytes of each rank's input file (default 1 GiB).
    pub dataset_bytes: u64,
    /// Equal contiguous regions of the file, each read sequentially (default 100).
    pub branches: u32,
    /// Smallest read, bytes (default 2 KiB).
    pub read_min: u64,
    /// Largest read, bytes; sizes are uniform in `[read_min, read_max]`, cut to the branch
    /// length if the branch is shorter (default 32 KiB).
    pub read_max: u64,
    /// Reads each rank does (default 20,000).
    pub reads_per_rank: u32,
    /// Compute time after each read, picoseconds (default 5 us).
    pub compute_ps: u64,
    /// Seed of the branch order and read sizes (default 1).
    pub seed: u64,
}

impl Default for SmallReadsParams {
    fn default() -> Self {
        SmallReadsParams {
            ranks: 64,
            ranks_per_node: 8,
            dataset_bytes: GIB,
            branches: 100,
            read_min: 2 * KIB,
            read_max: 32 * KIB,
            reads_per_rank: 20_000,
            compute_ps: 5 * PS_PER_US,
            seed: 1,
        }
    }
}

impl SmallReadsParams {
    /// Branches actually used: `branches`, at least 1 and at most `dataset_bytes` (so that
    /// no branch is empty when the file has bytes).
    pub fn branch_count(&self) -> u32 {
        let most = u32::try_from(self.dataset_bytes.max(1)).unwrap_or(u32::MAX);
        self.branches.clamp(1, most)
    }

    /// Byte range of branch `b` (`b < branch_count()`):
    /// `[dataset_bytes * b / n, dataset_bytes * (b + 1) / n)`.
    pub fn branch_range(&self, b: u32) -> Range<u64> {
        let n = u128::from(self.branch_count());
        let at = |k: u32| (u128::from(self.dataset_bytes) * u128::from(k) / n) as u64;
        at(b)..at(b + 1)
    }

    /// Checks the parameters; the error names the offending field.
    pub fn validate(&self) -> Result<(), ParamError<F>> {
        check_nonzero(&[
            (F::Ranks, u64::from(self.ranks)),
            (F::RanksPerNode, u64::from(self.ranks_per_node)),
            (F::Branches, u64::from(self.branches)),
            (F::ReadMin, self.read_min),
        ])?;
        check(
            self.dataset_bytes >= u64::from(self.branches),
            F::DatasetBytes,
            format!("{} bytes", self.dataset_bytes),
            || {
                format!(
                    "must be at least one byte for each of the {} branches",
                    self.branches
                )
            },
        )?;
        check(
            self.read_max >= self.read_min,
            F::ReadMax,
            self.read_max,
            || format!("must not be below read_min ({})", self.read_min),
        )
    }

    /// Builds the job. Rank `r` reads file id `r` (`Sharing::PerRank(r)`).
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let nb = self.branch_count();
        let lo = self.read_min.max(1);
        let hi = self.read_max.max(lo);
        let mut job = JobSpec::new("small_reads", ranks, self.ranks_per_node.max(1));
        for r in 0..ranks {
            job.add_file(format!("small_reads/input.{r:06}"), Sharing::PerRank(r));
        }
        let regions: Vec<Range<u64>> = (0..nb).map(|b| self.branch_range(b)).collect();
        let mut perm: Vec<u32> = Vec::with_capacity(nb as usize);
        let mut cursors: Vec<u64> = Vec::with_capacity(nb as usize);
        job.ops = rank_ops(ranks, |r, ops| {
            let file = FileId(r);
            let mut rng = Rng::derive(self.seed, u64::from(r));
            perm.clear();
            perm.extend(0..nb);
            rng.shuffle(&mut perm);
            cursors.clear();
            cursors.extend(regions.iter().map(|g| g.start));
            ops.push(Op::Open { file });
            for i in 0..self.reads_per_rank as usize {
                let br = perm[i % perm.len()] as usize;
                let region = &regions[br];
                let size = rng.range_inclusive(lo, hi).min(region.end - region.start);
                if cursors[br] + size > region.end {
                    cursors[br] = region.start;
                }
                if size > 0 {
                    ops.push(Op::Read {
                        file,
                        offset: cursors[br],
                        size,
                    });
                }
                cursors[br] += size;
                if cursors[br] >= region.end {
                    cursors[br] = region.start;
                }
                if self.compute_ps > 0 {
                    ops.push(Op::Compute {
                        ps: self.compute_ps,
                    });
                }
            }
            ops.push(Op::Close { file });
        });
        job
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> SmallReadsParams {
        SmallReadsParams {
            ranks: 4,
            ranks_per_node: 2,
            dataset_bytes: 10_000_003,
            branches: 7,
            reads_per_rank: 3000,
            ..Default::default()
        }
    }

    #[test]
    fn reads_stay_in_their_branch_and_file() {
        let p = small();
        p.validate().unwrap();
        let j = p.job();
        j.validate().unwrap();
        assert_eq!(j.files.len(), 4);
        let regions: Vec<_> = (0..7).map(|b| p.branch_range(b)).collect();
        assert_eq!(regions[0].start, 0);
        assert_eq!(regions[6].end, p.dataset_bytes);
        for r in 0..4 {
            let ops = j.ops.rank(r);
            assert_eq!(ops.clone().next(), Some(Op::Open { file: FileId(r) }));
            assert_eq!(ops.clone().last(), Some(Op::Close { file: FileId(r) }));
            let t = j.rank_totals(r);
            assert_eq!(t.reads, 3000);
            assert_eq!(t.compute_ps, 3000 * 5 * PS_PER_US);
            let mut cursor: Vec<u64> = regions.iter().map(|g| g.start).collect();
            let mut order = Vec::new();
            for op in ops {
                if let Op::Read { file, offset, size } = op {
                    assert_eq!(file, FileId(r));
                    assert!((2 * KIB..=32 * KIB).contains(&size), "size {size}");
                    assert!(offset + size <= p.dataset_bytes);
                    let b = regions.iter().position(|g| g.contains(&offset)).unwrap();
                    assert!(offset + size <= regions[b].end, "read crosses its branch");
                    // Sequential within the branch, or wrapped to its start.
                    assert!(offset == cursor[b] || offset == regions[b].start);
                    cursor[b] = offset + size;
                    order.push(b);
                }
            }
            // A fixed permutation of the branches, repeated.
            let first: Vec<usize> = order[..7].to_vec();
            let mut sorted = first.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..7).collect::<Vec<_>>());
            assert!(order.chunks(7).all(|c| c == &first[..c.len()]));
        }
    }

    #[test]
    fn wraps_short_branches_and_is_deterministic() {
        let p = SmallReadsParams {
            dataset_bytes: 100 * KIB,
            branches: 5,
            ..small()
        };
        let j = p.job();
        j.validate().unwrap();
        // 20 KiB branches wrap many times; every read still lies inside its branch.
        for op in j.ops.all_ops() {
            if let Op::Read { offset, size, .. } = op {
                let g = p.branch_range((offset / (20 * KIB)) as u32);
                assert!(g.start <= offset && offset + size <= g.end);
                assert!(size <= 20 * KIB);
            }
        }
        assert_eq!(p.job(), j);
        assert_ne!(SmallReadsParams { seed: 9, ..p }.job().ops, j.ops);
        let e = SmallReadsParams {
            read_max: KIB,
            ..small()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field, F::ReadMax, "{e}");
        SmallReadsParams::default().validate().unwrap();
    }
}
