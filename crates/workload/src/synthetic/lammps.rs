//! LAMMPS pattern: every rank opens many files of its own and writes a little to each.

use super::{push_writes, MIB};
use crate::op::{Op, PS_PER_SEC};
use crate::workload::{JobSpec, RankOpsBuilder, Sharing};

/// LAMMPS parameters (sizes in bytes, times in picoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct LammpsParams {
    /// MPI ranks (study: 21,600).
    pub ranks: u32,
    /// Ranks per node.
    pub ranks_per_node: u32,
    /// Bytes written per rank over all its files (study: 19.78 MB).
    pub bytes_per_rank: u64,
    /// Files each rank writes.
    pub files_per_rank: u32,
    /// Compute time before the output phase, picoseconds.
    pub compute_ps: u64,
    /// Bytes per write call.
    pub transfer_size: u64,
}

impl Default for LammpsParams {
    fn default() -> Self {
        LammpsParams {
            ranks: 21_600,
            ranks_per_node: 6,
            bytes_per_rank: 19_780_000,
            files_per_rank: 64,
            compute_ps: 120 * PS_PER_SEC,
            transfer_size: MIB,
        }
    }
}

impl LammpsParams {
    /// Builds the job. File `f` of rank `r` is file id `r * files_per_rank + f`.
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let nf = self.files_per_rank.max(1);
        let mut job = JobSpec::new("lammps", ranks, self.ranks_per_node.max(1));
        job.files.reserve(ranks as usize * nf as usize);
        for r in 0..ranks {
            for f in 0..nf {
                job.add_file(format!("lammps/dump.{f:04}.{r:06}"), Sharing::PerRank(r));
            }
        }
        let per_file = self.bytes_per_rank / u64::from(nf);
        let extra = self.bytes_per_rank % u64::from(nf);
        let writes_per_file = per_file.div_ceil(self.transfer_size.max(1)).max(1);
        let per_rank = 1 + u64::from(nf) * (2 + writes_per_file);
        let mut b = RankOpsBuilder::with_capacity((per_rank * u64::from(ranks)) as usize);
        let mut ops = Vec::with_capacity(per_rank as usize);
        for r in 0..ranks {
            ops.clear();
            if self.compute_ps > 0 {
                ops.push(Op::Compute {
                    ps: self.compute_ps,
                });
            }
            for f in 0..nf {
                let file = crate::op::FileId(r * nf + f);
                let bytes = per_file + u64::from(u64::from(f) < extra);
                ops.push(Op::Open { file });
                push_writes(&mut ops, file, 0, bytes, self.transfer_size);
                ops.push(Op::Close { file });
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
    fn many_small_files_per_rank() {
        let p = LammpsParams {
            ranks: 12,
            files_per_rank: 10,
            bytes_per_rank: 1_000_003,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        for r in 0..12 {
            let t = j.rank_totals(r);
            assert_eq!(t.bytes_written, 1_000_003);
            assert_eq!(t.opens, 10);
        }
        assert_eq!(j.files.len(), 120);
        assert_eq!(j.files[13].sharing, Sharing::PerRank(1));
    }
}
