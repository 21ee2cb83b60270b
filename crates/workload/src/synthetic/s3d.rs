//! S3D pattern: `phases` write phases; in each, every rank writes its own file, staggered by
//! rank so that about `concurrent_writers` ranks write at any time: rank `r` belongs to group
//! `r / concurrent_writers` and starts `group * stagger_ps` after the phase begins.

use super::{push_writes, MIB};
use crate::op::{Op, PS_PER_SEC};
use crate::workload::{JobSpec, RankOpsBuilder, Sharing};

/// S3D parameters (sizes in bytes, times in picoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct S3dParams {
    /// MPI ranks (study: 6,000).
    pub ranks: u32,
    /// Ranks per node.
    pub ranks_per_node: u32,
    /// Bytes written per rank over all phases (study: 154.49 MB).
    pub bytes_per_rank: u64,
    /// Number of write phases (study: 3).
    pub phases: u32,
    /// Ranks writing at the same time (study: about 400).
    pub concurrent_writers: u32,
    /// Delay between consecutive groups' starts, picoseconds.
    pub stagger_ps: u64,
    /// Compute time before each phase, picoseconds.
    pub compute_ps: u64,
    /// Bytes per write call.
    pub transfer_size: u64,
}

impl Default for S3dParams {
    fn default() -> Self {
        S3dParams {
            ranks: 6000,
            ranks_per_node: 6,
            bytes_per_rank: 154_490_000,
            phases: 3,
            concurrent_writers: 400,
            stagger_ps: 2 * PS_PER_SEC,
            compute_ps: 300 * PS_PER_SEC,
            transfer_size: 4 * MIB,
        }
    }
}

impl S3dParams {
    /// Builds the job. Every rank computes the same total time: the stagger delay before its
    /// write is balanced by the complementary delay after it.
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let phases = self.phases.max(1);
        let cw = self.concurrent_writers.max(1);
        let groups = ranks.div_ceil(cw);
        let mut job = JobSpec::new("s3d", ranks, self.ranks_per_node.max(1));
        for p in 0..phases {
            for r in 0..ranks {
                job.add_file(format!("s3d/field.{p:02}/rank{r:06}"), Sharing::PerRank(r));
            }
        }
        let per_phase = self.bytes_per_rank / u64::from(phases);
        let extra = self.bytes_per_rank % u64::from(phases);
        let mut b = RankOpsBuilder::default();
        let mut ops = Vec::new();
        for r in 0..ranks {
            ops.clear();
            let g = u64::from(r / cw);
            for p in 0..phases {
                let lead = self.compute_ps + g * self.stagger_ps;
                if lead > 0 {
                    ops.push(Op::Compute { ps: lead });
                }
                let file = crate::op::FileId(p * ranks + r);
                let bytes = per_phase + u64::from(u64::from(p) < extra);
                ops.push(Op::Open { file });
                push_writes(&mut ops, file, 0, bytes, self.transfer_size);
                ops.push(Op::Close { file });
                let trail = (u64::from(groups) - 1 - g) * self.stagger_ps;
                if trail > 0 {
                    ops.push(Op::Compute { ps: trail });
                }
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
    fn staggered_phases() {
        let p = S3dParams {
            ranks: 10,
            concurrent_writers: 4,
            bytes_per_rank: 3_000_001,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        assert_eq!(j.files.len(), 30);
        let first_write_time = |r: u32| -> u64 {
            let mut t = 0;
            for op in j.ops.rank(r) {
                match op {
                    Op::Compute { ps } => t += ps,
                    Op::Write { .. } => return t,
                    _ => {}
                }
            }
            unreachable!()
        };
        assert_eq!(first_write_time(0), first_write_time(3));
        assert_eq!(first_write_time(4) - first_write_time(0), 2 * PS_PER_SEC);
        assert_eq!(first_write_time(9) - first_write_time(0), 4 * PS_PER_SEC);
        for r in 0..10 {
            let t = j.rank_totals(r);
            assert_eq!(t.bytes_written, 3_000_001);
            assert_eq!(t.opens, 3);
            assert_eq!(t.compute_ps, j.rank_totals(0).compute_ps);
        }
    }
}
