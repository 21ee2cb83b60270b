//! One user of a shared burst-buffer SSD under a capacity quota (the "SSD isolation"
//! experiment of multi-stream SSD studies): a simulation that periodically writes plot files
//! and checkpoints and deletes its oldest files to stay under its share of the device.
//!
//! Every rank is independent and owns its files. A rank repeats `steps` times: for each of
//! `plots_per_checkpoint` plot files and then one checkpoint file, compute, then write the
//! file (Open, writes, Close). Before it opens a new file of `s` bytes, if its live bytes
//! (written minus deleted) plus `s` exceed [`QuotaUserParams::limit`] (`delete_at * quota`),
//! it deletes its oldest files first (FIFO) until they do not. File sizes and compute times
//! are jittered by `±jitter` from `seed`, so several users desynchronise.

use super::error::{check, check_nonzero, ParamError, QuotaField as F};
use super::{jittered, push_file_write, rank_ops, GIB, MIB};
use crate::op::{FileId, Op, PS_PER_SEC};
use crate::rng::Rng;
use crate::workload::{JobSpec, Sharing};
use std::collections::VecDeque;

/// Parameters of one quota-limited SSD user (sizes in bytes, times in picoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaUserParams {
    /// MPI ranks; each writes and deletes its own files independently (default 1).
    pub ranks: u32,
    /// Ranks per node (default 1).
    pub ranks_per_node: u32,
    /// Bytes each rank may keep on the device (default 64 GiB).
    pub quota: u64,
    /// Mean bytes of one checkpoint file (default 8 GiB).
    pub checkpoint_bytes: u64,
    /// Mean bytes of one plot file (default 1 GiB).
    pub plot_bytes: u64,
    /// Plot files written before each checkpoint (default 4).
    pub plots_per_checkpoint: u32,
    /// Number of checkpoint periods (default 10).
    pub steps: u32,
    /// Mean compute time before each output file, picoseconds (default 10 s).
    pub compute_ps: u64,
    /// Bytes per write call (default 4 MiB).
    pub transfer_size: u64,
    /// Fraction of `quota` above which the oldest files are deleted before a new file is
    /// written (default 0.9).
    pub delete_at: f64,
    /// Relative jitter of file sizes and compute times: each is scaled by `1 + jitter * u`,
    /// `u` uniform in `[-1, 1)` (default 0.1, i.e. ±10 %).
    pub jitter: f64,
    /// Seed of the jitter (default 1).
    pub seed: u64,
}

impl Default for QuotaUserParams {
    fn default() -> Self {
        QuotaUserParams {
            ranks: 1,
            ranks_per_node: 1,
            quota: 64 * GIB,
            checkpoint_bytes: 8 * GIB,
            plot_bytes: GIB,
            plots_per_checkpoint: 4,
            steps: 10,
            compute_ps: 10 * PS_PER_SEC,
            transfer_size: 4 * MIB,
            delete_at: 0.9,
            jitter: 0.1,
            seed: 1,
        }
    }
}

impl QuotaUserParams {
    /// Bytes a rank keeps on the device at most: `floor(delete_at * quota)` (`delete_at`
    /// clamped to `[0, 1]`).
    pub fn limit(&self) -> u64 {
        let f = if self.delete_at.is_nan() {
            0.0
        } else {
            self.delete_at.clamp(0.0, 1.0)
        };
        (self.quota as f64 * f).floor() as u64
    }

    /// Checks the parameters; the error names the offending field. The main condition is
    /// that the largest possible file (mean size times `1 + jitter`) fits under
    /// [`limit`](Self::limit); [`job`](Self::job) clamps larger files to the limit.
    pub fn validate(&self) -> Result<(), ParamError<F>> {
        check_nonzero(&[
            (F::Ranks, u64::from(self.ranks)),
            (F::RanksPerNode, u64::from(self.ranks_per_node)),
            (F::TransferSize, self.transfer_size),
            (F::Quota, self.quota),
        ])?;
        check(
            self.delete_at > 0.0 && self.delete_at <= 1.0,
            F::DeleteAt,
            self.delete_at,
            || "must be in (0, 1]".into(),
        )?;
        check(
            (0.0..1.0).contains(&self.jitter),
            F::Jitter,
            self.jitter,
            || "must be in [0, 1)".into(),
        )?;
        let limit = self.limit();
        let largest = |bytes: u64| (bytes as f64 * (1.0 + self.jitter)).ceil() as u64;
        let size = |bytes: u64| format!("{bytes} bytes (up to {} with jitter)", largest(bytes));
        let fit = || format!("must fit under delete_at * quota = {limit} bytes");
        check(
            largest(self.checkpoint_bytes) <= limit,
            F::CheckpointBytes,
            size(self.checkpoint_bytes),
            fit,
        )?;
        check(
            self.plots_per_checkpoint == 0 || largest(self.plot_bytes) <= limit,
            F::PlotBytes,
            size(self.plot_bytes),
            fit,
        )
    }

    /// Builds the job. Files are numbered in the order they are written, rank by rank; each
    /// file is written once, from offset 0. A file larger than [`limit`](Self::limit) (see
    /// [`validate`](Self::validate)) is clamped to it, so a rank's live bytes never exceed
    /// the limit.
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let limit = self.limit();
        let mut job = JobSpec::new("quota_user", ranks, self.ranks_per_node.max(1));
        // Live files of the current rank, oldest first, with their sizes.
        let mut live: VecDeque<(FileId, u64)> = VecDeque::new();
        job.ops = rank_ops(ranks, |r, ops| {
            live.clear();
            let mut used = 0u64;
            let mut rng = Rng::derive(self.seed, u64::from(r));
            for s in 0..self.steps {
                for p in 0..=self.plots_per_checkpoint {
                    let is_ckpt = p == self.plots_per_checkpoint;
                    let compute = jittered(self.compute_ps, self.jitter, &mut rng);
                    let mean = if is_ckpt {
                        self.checkpoint_bytes
                    } else {
                        self.plot_bytes
                    };
                    let size = jittered(mean, self.jitter, &mut rng).min(limit);
                    if compute > 0 {
                        ops.push(Op::Compute { ps: compute });
                    }
                    while used + size > limit {
                        let Some((old, bytes)) = live.pop_front() else {
                            break;
                        };
                        ops.push(Op::Delete { file: old });
                        used -= bytes;
                    }
                    let name = if is_ckpt {
                        format!("quota/rank{r:06}/ckpt.{s:04}")
                    } else {
                        format!("quota/rank{r:06}/plot.{s:04}.{p:02}")
                    };
                    let file = job.add_file(name, Sharing::PerRank(r));
                    push_file_write(ops, file, size, self.transfer_size);
                    live.push_back((file, size));
                    used += size;
                }
            }
        });
        job
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::MB;

    fn small() -> QuotaUserParams {
        QuotaUserParams {
            ranks: 3,
            quota: 100 * MB,
            checkpoint_bytes: 30 * MB,
            plot_bytes: 7 * MB,
            plots_per_checkpoint: 3,
            steps: 6,
            transfer_size: MB,
            ..Default::default()
        }
    }

    /// Walks one rank's ops: live bytes after every op never exceed the limit, and every
    /// delete removes the oldest live file. Returns (files written, files deleted).
    fn check_rank(ops: impl Iterator<Item = Op>, limit: u64) -> (usize, usize) {
        let mut live: VecDeque<(FileId, u64)> = VecDeque::new();
        let mut used = 0u64;
        let (mut written, mut deleted) = (0, 0);
        for op in ops {
            match op {
                Op::Open { file } => {
                    assert!(live.iter().all(|&(f, _)| f != file), "file reopened");
                    live.push_back((file, 0));
                    written += 1;
                }
                Op::Write { file, size, .. } => {
                    let last = live.back_mut().unwrap();
                    assert_eq!(last.0, file);
                    last.1 += size;
                    used += size;
                }
                Op::Delete { file } => {
                    let (oldest, bytes) = live.pop_front().unwrap();
                    assert_eq!(oldest, file, "not the oldest file");
                    used -= bytes;
                    deleted += 1;
                }
                _ => {}
            }
            assert!(used <= limit, "{used} live bytes > limit {limit}");
        }
        (written, deleted)
    }

    #[test]
    fn stays_under_quota_deleting_oldest_first() {
        let p = small();
        p.validate().unwrap();
        let j = p.job();
        j.validate().unwrap();
        assert_eq!(p.limit(), 90 * MB);
        let per_rank = (p.steps * (p.plots_per_checkpoint + 1)) as usize;
        assert_eq!(j.files.len(), 3 * per_rank);
        let mut total_deleted = 0;
        for r in 0..3 {
            let (written, deleted) = check_rank(j.ops.rank(r), p.limit());
            assert_eq!(written, per_rank);
            assert!(deleted > 0 && deleted < written);
            total_deleted += deleted;
            for op in j.ops.rank(r) {
                if let Some(f) = op.file() {
                    assert_eq!(j.files[f.0 as usize].sharing, Sharing::PerRank(r));
                }
            }
        }
        assert!(total_deleted > 0);
    }

    #[test]
    fn totals_without_jitter() {
        let p = QuotaUserParams {
            jitter: 0.0,
            ..small()
        };
        let j = p.job();
        j.validate().unwrap();
        for r in 0..3 {
            let t = j.rank_totals(r);
            assert_eq!(t.bytes_written, 6 * (3 * 7 * MB + 30 * MB));
            assert_eq!(t.opens, 24);
            assert_eq!(t.compute_ps, 24 * 10 * PS_PER_SEC);
            assert_eq!(t.writes, 6 * (3 * 7 + 30));
        }
        // Jittered totals are the sum of the (distinct) file sizes.
        let jit = small().job();
        let t = jit.rank_totals(0);
        assert_ne!(t.bytes_written, 6 * (3 * 7 * MB + 30 * MB));
        assert!(t.bytes_written.abs_diff(6 * (3 * 7 * MB + 30 * MB)) <= 6 * 51 * MB / 10);
    }

    #[test]
    fn deterministic_per_seed() {
        let p = small();
        assert_eq!(p.job(), p.job());
        let other = QuotaUserParams { seed: 2, ..small() };
        assert_ne!(p.job().ops, other.job().ops);
        // Ranks of one job are desynchronised too.
        assert!(!p.job().ops.rank(0).eq(p.job().ops.rank(1)));
    }

    #[test]
    fn oversized_file_is_a_parameter_error_but_job_clamps() {
        let p = QuotaUserParams {
            checkpoint_bytes: 95 * MB,
            ..small()
        };
        let e = p.validate().unwrap_err();
        assert_eq!(e.field, F::CheckpointBytes, "{e}");
        let j = p.job();
        j.validate().unwrap();
        for r in 0..3 {
            check_rank(j.ops.rank(r), p.limit());
        }
        let e = QuotaUserParams {
            delete_at: 1.5,
            ..small()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field, F::DeleteAt, "{e}");
        QuotaUserParams::default().validate().unwrap();
    }
}
