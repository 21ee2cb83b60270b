//! Generic checkpointing application: compute for `period_ps`, then every rank writes
//! `bytes_per_rank` to a checkpoint file, `checkpoints` times; optionally the previous
//! checkpoint is deleted once the new one is written (keeping the latest only).

use super::{push_writes, MB, MIB};
use crate::op::{CommId, FileId, Op, PS_PER_SEC};
use crate::workload::{JobSpec, RankOpsBuilder, Sharing};

/// Checkpointing parameters (sizes in bytes, times in picoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointParams {
    /// MPI ranks.
    pub ranks: u32,
    /// Ranks per node.
    pub ranks_per_node: u32,
    /// Compute time before each checkpoint, picoseconds.
    pub period_ps: u64,
    /// Bytes each rank writes per checkpoint.
    pub bytes_per_rank: u64,
    /// Number of checkpoints.
    pub checkpoints: u32,
    /// Bytes per write call.
    pub transfer_size: u64,
    /// One file per rank per checkpoint (else one shared file per checkpoint, rank blocks).
    pub file_per_process: bool,
    /// Delete checkpoint `k - 1` after checkpoint `k` is written.
    pub delete_previous: bool,
    /// Barrier on the whole job after each checkpoint.
    pub barrier: bool,
}

impl Default for CheckpointParams {
    fn default() -> Self {
        CheckpointParams {
            ranks: 1024,
            ranks_per_node: 6,
            period_ps: 600 * PS_PER_SEC,
            bytes_per_rank: 100 * MB,
            checkpoints: 5,
            transfer_size: 4 * MIB,
            file_per_process: true,
            delete_previous: false,
            barrier: true,
        }
    }
}

impl CheckpointParams {
    /// Builds the job.
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let mut job = JobSpec::new("checkpoint", ranks, self.ranks_per_node.max(1));
        // files[c][r] (or files[c][0] when shared)
        let mut files: Vec<Vec<FileId>> = Vec::new();
        for c in 0..self.checkpoints {
            if self.file_per_process {
                files.push(
                    (0..ranks)
                        .map(|r| {
                            job.add_file(format!("ckpt/{c:04}/rank{r:06}"), Sharing::PerRank(r))
                        })
                        .collect(),
                );
            } else {
                files.push(vec![job.add_file(format!("ckpt/{c:04}"), Sharing::Shared)]);
            }
        }
        let mut b = RankOpsBuilder::default();
        let mut ops = Vec::new();
        for r in 0..ranks {
            ops.clear();
            let pick = |c: usize| files[c][if self.file_per_process { r as usize } else { 0 }];
            for c in 0..self.checkpoints as usize {
                if self.period_ps > 0 {
                    ops.push(Op::Compute { ps: self.period_ps });
                }
                let f = pick(c);
                let base = if self.file_per_process {
                    0
                } else {
                    u64::from(r) * self.bytes_per_rank
                };
                ops.push(Op::Open { file: f });
                push_writes(&mut ops, f, base, self.bytes_per_rank, self.transfer_size);
                ops.push(Op::Close { file: f });
                if self.barrier {
                    ops.push(Op::Barrier {
                        comm: CommId::WORLD,
                    });
                }
                if self.delete_previous && c > 0 && (self.file_per_process || r == 0) {
                    ops.push(Op::Delete { file: pick(c - 1) });
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
    fn periods_bytes_and_deletes() {
        let p = CheckpointParams {
            ranks: 4,
            bytes_per_rank: 10 * MB,
            checkpoints: 3,
            delete_previous: true,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        let t = j.rank_totals(2);
        assert_eq!(t.bytes_written, 30 * MB);
        assert_eq!(t.compute_ps, 3 * 600 * PS_PER_SEC);
        let deletes = j
            .ops
            .rank(2)
            .filter(|o| matches!(o, Op::Delete { .. }))
            .count();
        assert_eq!(deletes, 2);
        let shared = CheckpointParams {
            ranks: 4,
            file_per_process: false,
            ..p
        }
        .job();
        shared.validate().unwrap();
        assert_eq!(shared.files.len(), 3);
    }
}
