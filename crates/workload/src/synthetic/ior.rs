//! IOR-like benchmark: each rank writes and/or reads `segments` blocks of `block_size`
//! bytes in `transfer_size` transfers, to its own file or to one shared file (IOR's segmented
//! layout: segment `s` of rank `r` at `(s * ranks + r) * block_size`), `repetitions` times,
//! with a barrier after each phase.

use super::{push_writes, MIB};
use crate::op::{CommId, FileId, Op};
use crate::workload::{JobSpec, RankOpsBuilder, Sharing};

/// IOR parameters (sizes in bytes, times in picoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct IorParams {
    /// MPI ranks (study: 768).
    pub ranks: u32,
    /// Ranks per node.
    pub ranks_per_node: u32,
    /// Bytes per block (IOR `-b`; study: 1,024 MiB per rank in one block).
    pub block_size: u64,
    /// Bytes per transfer (IOR `-t`).
    pub transfer_size: u64,
    /// Blocks per rank (IOR `-s`).
    pub segments: u32,
    /// One file per rank (IOR `-F`) instead of one shared file.
    pub file_per_process: bool,
    /// Run the write phase (IOR `-w`).
    pub write: bool,
    /// Run the read phase (IOR `-r`).
    pub read: bool,
    /// Repetitions (IOR `-i`).
    pub repetitions: u32,
    /// Compute time between repetitions, picoseconds (IOR `-d`).
    pub inter_repetition_ps: u64,
}

impl Default for IorParams {
    fn default() -> Self {
        IorParams {
            ranks: 768,
            ranks_per_node: 6,
            block_size: 1024 * MIB,
            transfer_size: MIB,
            segments: 1,
            file_per_process: true,
            write: true,
            read: false,
            repetitions: 1,
            inter_repetition_ps: 0,
        }
    }
}

impl IorParams {
    /// Builds the job.
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let mut job = JobSpec::new("ior", ranks, self.ranks_per_node.max(1));
        let files: Vec<FileId> = if self.file_per_process {
            (0..ranks)
                .map(|r| job.add_file(format!("ior/testFile.{r:08}"), Sharing::PerRank(r)))
                .collect()
        } else {
            vec![job.add_file("ior/testFile", Sharing::Shared)]
        };
        let per_block = self.block_size.div_ceil(self.transfer_size.max(1));
        let phases = u64::from(self.write) + u64::from(self.read);
        let per_rank =
            u64::from(self.repetitions) * phases * (u64::from(self.segments) * per_block + 3) + 2;
        let mut b = RankOpsBuilder::with_capacity((per_rank * u64::from(ranks)) as usize);
        let mut ops = Vec::new();
        for r in 0..ranks {
            ops.clear();
            let file = files[if self.file_per_process { r as usize } else { 0 }];
            for rep in 0..self.repetitions {
                if rep > 0 && self.inter_repetition_ps > 0 {
                    ops.push(Op::Compute {
                        ps: self.inter_repetition_ps,
                    });
                }
                for is_write in [true, false] {
                    if (is_write && !self.write) || (!is_write && !self.read) {
                        continue;
                    }
                    ops.push(Op::Open { file });
                    for s in 0..u64::from(self.segments) {
                        let base = if self.file_per_process {
                            s * self.block_size
                        } else {
                            (s * u64::from(ranks) + u64::from(r)) * self.block_size
                        };
                        if is_write {
                            push_writes(&mut ops, file, base, self.block_size, self.transfer_size);
                        } else {
                            let t = self.transfer_size.max(1);
                            let mut done = 0;
                            while done < self.block_size {
                                let size = t.min(self.block_size - done);
                                ops.push(Op::Read {
                                    file,
                                    offset: base + done,
                                    size,
                                });
                                done += size;
                            }
                        }
                    }
                    ops.push(Op::Close { file });
                    ops.push(Op::Barrier {
                        comm: CommId::WORLD,
                    });
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
    fn defaults_match_the_study() {
        let p = IorParams {
            ranks: 8,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        assert_eq!(j.rank_totals(3).bytes_written, 1024 * MIB);
        assert_eq!(j.files.len(), 8);
        assert_eq!(IorParams::default().ranks, 768);
    }

    #[test]
    fn transfers_are_stored_as_runs() {
        // Cori's rank: 8 GiB in 1 MiB transfers, written and read back. Each pass is one run
        // (open, transfers, close, barrier), so the stored stream does not grow with the block.
        let p = IorParams {
            ranks: 3,
            block_size: 8 << 30,
            transfer_size: MIB,
            read: true,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        assert_eq!(j.ops.rank(2).len(), 2 * (8192 + 3));
        assert_eq!(j.ops.rank_runs(2).len(), 8);
        assert_eq!(j.ops.total_runs(), 3 * 8);
        let t = j.rank_totals(2);
        assert_eq!((t.writes, t.reads, t.bytes_read), (8192, 8192, 8 << 30));
        assert_eq!(std::mem::size_of::<crate::OpRun>(), 32);
        assert!(j.ops.heap_bytes() < 4096, "{} bytes", j.ops.heap_bytes());
    }

    #[test]
    fn shared_file_segmented_layout_and_read_back() {
        let p = IorParams {
            ranks: 4,
            block_size: 10,
            transfer_size: 4,
            segments: 2,
            file_per_process: false,
            read: true,
            repetitions: 2,
            inter_repetition_ps: 5,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        let t = j.totals();
        assert_eq!(t.bytes_written, 4 * 2 * 10 * 2);
        assert_eq!(t.bytes_read, t.bytes_written);
        assert_eq!(t.writes, 4 * 2 * 3 * 2);
        // every byte of the shared file is written exactly once per repetition
        let mut cover = vec![0u32; 80];
        for op in j.ops.all_ops() {
            if let Op::Write { offset, size, .. } = op {
                for b in offset..offset + size {
                    cover[b as usize] += 1;
                }
            }
        }
        assert!(cover.iter().all(|&c| c == 2));
    }
}
