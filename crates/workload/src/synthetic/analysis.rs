//! Consumer job: reads another job's output files and writes its own products (in-transit
//! analysis, or a post-processing step).
//!
//! Input file `k` (file id `k`, shared by the job) has `inputs[k]` bytes. For each input in
//! order, every rank `r` opens it, reads its contiguous block
//! `[extent * r / ranks, extent * (r + 1) / ranks)` in `transfer_size` reads (none when the
//! block is empty), closes it, waits on a barrier of the whole job, computes `compute_ps`,
//! and writes its share of the outputs that belong to input `k`.
//!
//! The `output_files` outputs (file ids `inputs.len()..`) are spread evenly over the inputs
//! in order (the first `output_files % inputs.len()` inputs get one more); output `j` is
//! written, whole, by rank `j % ranks` and holds `output_bytes / output_files` bytes (the
//! first `output_bytes % output_files` outputs one more).

use super::error::{check, check_nonzero, AnalysisField as F, ParamError};
use super::{push_file_write, push_reads, rank_ops, GIB, MIB};
use crate::op::{CommId, FileId, Op, PS_PER_SEC};
use crate::workload::{JobSpec, Sharing};
use std::ops::Range;

/// Consumer-job parameters (sizes in bytes, times in picoseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisParams {
    /// MPI ranks (default 64).
    pub ranks: u32,
    /// Ranks per node (default 8).
    pub ranks_per_node: u32,
    /// Byte extent of each input file, in the order they are produced; input `k` is this
    /// job's file id `k` (default 8 inputs of 4 GiB).
    pub inputs: Vec<u64>,
    /// Bytes per read call (default 4 MiB).
    pub transfer_size: u64,
    /// Compute time after reading each input, picoseconds (default 30 s).
    pub compute_ps: u64,
    /// Total number of output files (default 16).
    pub output_files: u32,
    /// Total bytes over all output files (default 1 GiB).
    pub output_bytes: u64,
    /// Bytes per write call of the outputs (default 1 MiB).
    pub output_transfer_size: u64,
}

impl Default for AnalysisParams {
    fn default() -> Self {
        AnalysisParams {
            ranks: 64,
            ranks_per_node: 8,
            inputs: vec![4 * GIB; 8],
            transfer_size: 4 * MIB,
            compute_ps: 30 * PS_PER_SEC,
            output_files: 16,
            output_bytes: GIB,
            output_transfer_size: MIB,
        }
    }
}

impl AnalysisParams {
    /// Bytes of input `input` that `rank` reads:
    /// `[extent * rank / ranks, extent * (rank + 1) / ranks)` (empty for an unknown input).
    pub fn read_range(&self, input: usize, rank: u32) -> Range<u64> {
        let extent = u128::from(self.inputs.get(input).copied().unwrap_or(0));
        let n = u128::from(self.ranks.max(1));
        let at = |r: u32| (extent * u128::from(r) / n) as u64;
        at(rank)..at(rank + 1)
    }

    /// Output files actually written: `output_files`, or 0 when there are no inputs.
    pub fn output_count(&self) -> u32 {
        if self.inputs.is_empty() {
            0
        } else {
            self.output_files
        }
    }

    /// Indices `j` of the outputs that belong to input `input` (file ids
    /// `inputs.len() + j`).
    pub fn outputs_of(&self, input: usize) -> Range<u32> {
        let k = self.inputs.len() as u64;
        let f = u64::from(self.output_count());
        if input as u64 >= k {
            return 0..0;
        }
        // Input i gets f / k outputs, the first f % k inputs one more.
        let first = |i: u64| (i * (f / k) + i.min(f % k)) as u32;
        first(input as u64)..first(input as u64 + 1)
    }

    /// Bytes of output `j`: `output_bytes / output_files`, the first
    /// `output_bytes % output_files` outputs one more.
    pub fn output_size(&self, j: u32) -> u64 {
        let f = u64::from(self.output_count());
        if u64::from(j) >= f {
            return 0;
        }
        self.output_bytes / f + u64::from(u64::from(j) < self.output_bytes % f)
    }

    /// Checks the parameters; the error names the offending field.
    pub fn validate(&self) -> Result<(), ParamError<F>> {
        check_nonzero(&[
            (F::Ranks, u64::from(self.ranks)),
            (F::RanksPerNode, u64::from(self.ranks_per_node)),
            (F::TransferSize, self.transfer_size),
            (F::OutputTransferSize, self.output_transfer_size),
        ])?;
        check(
            self.output_files == 0 || !self.inputs.is_empty(),
            F::OutputFiles,
            self.output_files,
            || "must be 0 when there are no inputs".into(),
        )?;
        check(
            self.output_bytes == 0 || self.output_files > 0,
            F::OutputBytes,
            self.output_bytes,
            || "must be 0 when there are no output files".into(),
        )
    }

    /// Builds the job: input files first (`Sharing::Shared`), then output `j` as file id
    /// `inputs.len() + j` (`Sharing::PerRank` of its writer).
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let nin = self.inputs.len() as u32;
        let mut job = JobSpec::new("analysis", ranks, self.ranks_per_node.max(1));
        for k in 0..nin {
            job.add_file(format!("analysis/input.{k:04}"), Sharing::Shared);
        }
        for j in 0..self.output_count() {
            job.add_file(
                format!("analysis/output.{j:06}"),
                Sharing::PerRank(j % ranks),
            );
        }
        job.ops = rank_ops(ranks, |r, ops| {
            for k in 0..self.inputs.len() {
                let input = FileId(k as u32);
                let block = self.read_range(k, r);
                ops.push(Op::Open { file: input });
                push_reads(
                    ops,
                    input,
                    block.start,
                    block.end - block.start,
                    self.transfer_size,
                );
                ops.push(Op::Close { file: input });
                ops.push(Op::Barrier {
                    comm: CommId::WORLD,
                });
                if self.compute_ps > 0 {
                    ops.push(Op::Compute {
                        ps: self.compute_ps,
                    });
                }
                for j in self.outputs_of(k).filter(|j| j % ranks == r) {
                    let file = FileId(nin + j);
                    let bytes = self.output_size(j);
                    push_file_write(ops, file, bytes, self.output_transfer_size);
                }
            }
        });
        job
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> AnalysisParams {
        AnalysisParams {
            ranks: 6,
            ranks_per_node: 2,
            inputs: vec![10_000_003, 3, 0, 5 * MIB + 1],
            transfer_size: MIB,
            compute_ps: PS_PER_SEC,
            output_files: 11,
            output_bytes: 7_000_005,
            output_transfer_size: 512 * 1024,
        }
    }

    #[test]
    fn reads_cover_each_input_exactly_once() {
        let p = small();
        p.validate().unwrap();
        let j = p.job();
        j.validate().unwrap();
        assert_eq!(j.files.len(), 4 + 11);
        for (k, &extent) in p.inputs.iter().enumerate() {
            assert_eq!(j.files[k].sharing, Sharing::Shared);
            let mut pieces: Vec<(u64, u64)> = j
                .ops
                .all_ops()
                .filter_map(|op| match op {
                    Op::Read { file, offset, size } if file.0 as usize == k => {
                        assert!(size > 0 && size <= MIB);
                        Some((offset, size))
                    }
                    _ => None,
                })
                .collect();
            pieces.sort_unstable();
            let mut at = 0;
            for (offset, size) in pieces {
                assert_eq!(offset, at, "input {k}: gap or overlap");
                at += size;
            }
            assert_eq!(at, extent, "input {k}");
        }
        // Every rank opens and closes every input, even with nothing to read.
        for r in 0..6 {
            let t = j.rank_totals(r);
            assert_eq!(t.barriers, 4);
            assert_eq!(t.compute_ps, 4 * PS_PER_SEC);
            for k in 0..4 {
                assert!(j.ops.rank(r).any(|o| o
                    == Op::Open {
                        file: FileId(k as u32)
                    }));
            }
        }
        assert_eq!(j.totals().bytes_read, p.inputs.iter().sum::<u64>());
    }

    #[test]
    fn outputs_exact_and_after_their_input() {
        let p = small();
        let j = p.job();
        let t = j.totals();
        assert_eq!(t.bytes_written, 7_000_005);
        assert_eq!(t.opens, 6 * 4 + 11);
        let mut per_output = [0u64; 11];
        let nin = p.inputs.len() as u32;
        assert_eq!(p.outputs_of(0), 0..3);
        assert_eq!(p.outputs_of(3), 9..11);
        for r in 0..6 {
            // Inputs whose reads this rank has finished, and barriers passed.
            let mut closed = 0usize;
            let mut barriers = 0usize;
            for op in j.ops.rank(r) {
                match op {
                    Op::Close { file } if file.0 < nin => closed = file.0 as usize + 1,
                    Op::Barrier { .. } => barriers += 1,
                    Op::Write { file, offset, size } => {
                        let out = file.0 - nin;
                        let k = (0..p.inputs.len())
                            .find(|&k| p.outputs_of(k).contains(&out))
                            .unwrap();
                        assert!(closed > k && barriers > k, "output {out} before input {k}");
                        assert_eq!(j.files[file.0 as usize].sharing, Sharing::PerRank(r));
                        assert_eq!(offset, per_output[out as usize]);
                        per_output[out as usize] += size;
                    }
                    _ => {}
                }
            }
        }
        for (o, &bytes) in per_output.iter().enumerate() {
            assert_eq!(bytes, p.output_size(o as u32));
        }
        assert_eq!(per_output.iter().sum::<u64>(), 7_000_005);
        assert_eq!(p.output_size(0), 636_365);
        assert_eq!(p.output_size(10), 636_364);
    }

    #[test]
    fn degenerate_parameters() {
        let none = AnalysisParams {
            inputs: Vec::new(),
            ..small()
        };
        assert_eq!(none.validate().unwrap_err().field, F::OutputFiles);
        let j = none.job();
        j.validate().unwrap();
        assert_eq!(j.files.len(), 0);
        assert_eq!(j.totals().opens, 0);
        AnalysisParams::default().validate().unwrap();
        let d = AnalysisParams::default().job();
        d.validate().unwrap();
        assert_eq!(d.totals().bytes_read, 32 * GIB);
        assert_eq!(d.totals().bytes_written, GIB);
    }
}
