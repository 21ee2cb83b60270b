//! HACC pattern: `phases` write phases to one shared file each; ranks open the file together
//! (barrier, open) but start writing after a delay drawn uniformly in
//! `[delay_min_ps, delay_max_ps]` (study: 1-40 s); rank `r` writes the contiguous block
//! `[r * b, (r + 1) * b)` of the phase's file.

use super::{push_writes, MIB};
use crate::op::{CommId, Op, PS_PER_SEC};
use crate::rng::Rng;
use crate::workload::{JobSpec, RankOpsBuilder, Sharing};

/// HACC parameters (sizes in bytes, times in picoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct HaccParams {
    /// MPI ranks (study: 8,192).
    pub ranks: u32,
    /// Ranks per node.
    pub ranks_per_node: u32,
    /// Bytes written per rank over all phases (study: 386.39 MB).
    pub bytes_per_rank: u64,
    /// Number of write phases (study: 2).
    pub phases: u32,
    /// Smallest delay between open and first write, picoseconds.
    pub delay_min_ps: u64,
    /// Largest delay between open and first write, picoseconds.
    pub delay_max_ps: u64,
    /// Compute time before each phase, picoseconds.
    pub compute_ps: u64,
    /// Bytes per write call.
    pub transfer_size: u64,
    /// Seed of the delays.
    pub seed: u64,
}

impl Default for HaccParams {
    fn default() -> Self {
        HaccParams {
            ranks: 8192,
            ranks_per_node: 6,
            bytes_per_rank: 386_390_000,
            phases: 2,
            delay_min_ps: PS_PER_SEC,
            delay_max_ps: 40 * PS_PER_SEC,
            compute_ps: 600 * PS_PER_SEC,
            transfer_size: 8 * MIB,
            seed: 1,
        }
    }
}

impl HaccParams {
    /// Delay of rank `r` in phase `p`, picoseconds.
    pub fn delay_ps(&self, r: u32, p: u32) -> u64 {
        let mut rng = Rng::derive(self.seed, (u64::from(p) << 32) | u64::from(r));
        rng.range_inclusive(self.delay_min_ps, self.delay_max_ps.max(self.delay_min_ps))
    }

    /// Builds the job.
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let phases = self.phases.max(1);
        let mut job = JobSpec::new("hacc", ranks, self.ranks_per_node.max(1));
        let files: Vec<_> = (0..phases)
            .map(|p| job.add_file(format!("hacc/output.{p:02}"), Sharing::Shared))
            .collect();
        let per_phase = self.bytes_per_rank / u64::from(phases);
        let extra = self.bytes_per_rank % u64::from(phases);
        let mut b = RankOpsBuilder::default();
        let mut ops = Vec::new();
        for r in 0..ranks {
            ops.clear();
            for (p, &file) in files.iter().enumerate() {
                let p32 = p as u32;
                if self.compute_ps > 0 {
                    ops.push(Op::Compute {
                        ps: self.compute_ps,
                    });
                }
                ops.push(Op::Barrier {
                    comm: CommId::WORLD,
                });
                ops.push(Op::Open { file });
                ops.push(Op::Compute {
                    ps: self.delay_ps(r, p32),
                });
                // every rank writes per_phase (+1 in the first `extra` phases), at a block
                // offset that is the same for all ranks' blocks of this phase
                let block = per_phase + u64::from(u64::from(p32) < extra);
                push_writes(
                    &mut ops,
                    file,
                    u64::from(r) * block,
                    block,
                    self.transfer_size,
                );
                ops.push(Op::Close { file });
                ops.push(Op::Barrier {
                    comm: CommId::WORLD,
                });
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

    #[test]
    fn shared_file_with_scattered_delays() {
        let p = HaccParams {
            ranks: 50,
            bytes_per_rank: 2 * MIB + 1,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        assert_eq!(j.files.len(), 2);
        let mut delays = Vec::new();
        for r in 0..50 {
            assert_eq!(j.rank_totals(r).bytes_written, 2 * MIB + 1);
            let d = p.delay_ps(r, 0);
            assert!((PS_PER_SEC..=40 * PS_PER_SEC).contains(&d));
            delays.push(d);
        }
        delays.sort_unstable();
        delays.dedup();
        assert!(delays.len() > 40, "delays should be scattered");
        assert_eq!(j, p.job());
    }
}
