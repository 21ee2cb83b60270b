//! GTC pattern: one write phase near the end of the run; every rank but rank 0 writes a
//! similar amount (within `spread` of `bytes_per_rank`) to its own restart file.

use super::{push_writes, MIB};
use crate::op::{CommId, Op, PS_PER_SEC};
use crate::rng::Rng;
use crate::workload::{JobSpec, RankOpsBuilder, Sharing};

/// GTC parameters (sizes in bytes, times in picoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct GtcParams {
    /// MPI ranks (study: 7,680).
    pub ranks: u32,
    /// Ranks per node.
    pub ranks_per_node: u32,
    /// Mean bytes written per writing rank (study: 669.41 MB).
    pub bytes_per_rank: u64,
    /// Relative spread of per-rank sizes: each rank writes `bytes_per_rank * (1 + u)`,
    /// `u` uniform in `[-spread, spread]`.
    pub spread: f64,
    /// Compute time before the write phase, picoseconds.
    pub compute_ps: u64,
    /// Compute time after the write phase (the rest of the run), picoseconds.
    pub tail_ps: u64,
    /// Bytes per write call.
    pub transfer_size: u64,
    /// Seed of the size spread.
    pub seed: u64,
}

impl Default for GtcParams {
    fn default() -> Self {
        GtcParams {
            ranks: 7680,
            ranks_per_node: 6,
            bytes_per_rank: 669_410_000,
            spread: 0.02,
            compute_ps: 900 * PS_PER_SEC,
            tail_ps: 10 * PS_PER_SEC,
            transfer_size: 4 * MIB,
            seed: 1,
        }
    }
}

impl GtcParams {
    /// Bytes rank `r` writes (0 for rank 0).
    pub fn rank_bytes(&self, r: u32) -> u64 {
        if r == 0 {
            return 0;
        }
        let mut rng = Rng::derive(self.seed, u64::from(r));
        let u = rng.uniform() * 2.0 - 1.0;
        let f = 1.0 + self.spread.clamp(0.0, 1.0) * u;
        (self.bytes_per_rank as f64 * f).round() as u64
    }

    /// Builds the job.
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let mut job = JobSpec::new("gtc", ranks, self.ranks_per_node.max(1));
        let mut b = RankOpsBuilder::default();
        let mut ops = Vec::new();
        for r in 0..ranks {
            ops.clear();
            ops.push(Op::Compute {
                ps: self.compute_ps,
            });
            ops.push(Op::Barrier {
                comm: CommId::WORLD,
            });
            let bytes = self.rank_bytes(r);
            if bytes > 0 {
                let f = job.add_file(format!("gtc/restart/rank{r:06}"), Sharing::PerRank(r));
                ops.push(Op::Open { file: f });
                push_writes(&mut ops, f, 0, bytes, self.transfer_size);
                ops.push(Op::Close { file: f });
            }
            ops.push(Op::Barrier {
                comm: CommId::WORLD,
            });
            if self.tail_ps > 0 {
                ops.push(Op::Compute { ps: self.tail_ps });
            }
            b.extend(ops.iter().copied());
            b.end_rank();
        }
        job.ops = b.finish();
        job
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::MB;

    #[test]
    fn all_but_rank0_write_similar_amounts() {
        let p = GtcParams {
            ranks: 64,
            bytes_per_rank: 100 * MB,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        assert_eq!(j.rank_totals(0).bytes_written, 0);
        for r in 1..64 {
            let b = j.rank_totals(r).bytes_written as f64;
            assert!(
                (b / (100 * MB) as f64 - 1.0).abs() <= 0.0201,
                "rank {r}: {b}"
            );
        }
        assert_eq!(j, p.job());
        assert_eq!(GtcParams::default().ranks, 7680);
    }
}
