//! IOR-like benchmark: each rank writes and/or reads `segments` blocks of `block_size`
//! bytes in `transfer_size` transfers, to its own file or to one shared file (IOR's segmented
//! layout: segment `s` of rank `r` at `(s * ranks + r) * block_size`), `repetitions` times,
//! with a barrier after each phase.
//!
//! The options follow IOR's own (hpc/ior, `src/ior.h` and `src/parse_options.c`); the
//! command-line form is parsed by [`super::ior_cli`]. What each option does to the generated
//! operations:
//!
//! - `-z` (random offsets): each rank visits its transfers in a random order (a seeded
//!   permutation of its own transfer offsets over all its segments), every byte once;
//! - `-C` (reorder tasks): the read phase of rank `r` reads what rank
//!   `(r + task_per_node_offset * ranks_per_node) mod ranks` wrote (IOR's read-back from
//!   another node, so that nothing is read from the writer's own cache);
//! - `-g` (intra-test barriers): barriers after the open and after the transfers too;
//! - without `-k` (keep file) the file is deleted at the end of each repetition (by each
//!   rank for file per process, by rank 0 for a shared file, after a barrier), as IOR does;
//! - `-c` (collective, MPI-IO only): recorded in [`IorParams::collective`]; lowering serves
//!   the shared file's transfers as collective calls by ROMIO's two-phase I/O
//!   ([`crate::collective`]).
//!
//! `-e` (fsync at close) and the API (`-a POSIX` or `-a MPIIO`) change no operation: the model
//! has no client write-back cache, so every write is durable when it completes and an fsync
//! has nothing left to flush; MPI-IO without `-c` issues the same independent transfers as
//! POSIX.

use super::{push_reads, push_writes, MIB};
use crate::op::{CommId, FileId, Op};
use crate::rng::Rng;
use crate::workload::{JobSpec, RankOpsBuilder, Sharing};

/// The I/O interface of IOR's `-a` option (IOR's `api`; default `POSIX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IorApi {
    /// POSIX `open`/`write`/`read` (IOR's default).
    #[default]
    Posix,
    /// MPI-IO (`MPI_File_write_at`, or `_at_all` with `-c`).
    MpiIo,
}

impl IorApi {
    /// IOR's spelling of the API.
    pub fn name(self) -> &'static str {
        match self {
            IorApi::Posix => "POSIX",
            IorApi::MpiIo => "MPIIO",
        }
    }
}

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
    /// Compute time between repetitions, picoseconds (IOR `-d`, given in seconds).
    pub inter_repetition_ps: u64,
    /// I/O interface (IOR `-a`).
    pub api: IorApi,
    /// Transfers at random offsets (IOR `-z`): each rank's transfers in a seeded random order.
    pub random_offsets: bool,
    /// Seed of the random order of `random_offsets`.
    pub seed: u64,
    /// Read back another node's data (IOR `-C`).
    pub reorder_tasks: bool,
    /// Nodes to shift the read-back by with `reorder_tasks` (IOR `-Q`, default 1).
    pub task_per_node_offset: u32,
    /// fsync when a write phase closes its file (IOR `-e`; no effect on timing, see above).
    pub fsync: bool,
    /// Collective I/O (IOR `-c`, MPI-IO only).
    pub collective: bool,
    /// Keep the file at the end of each repetition (IOR `-k`); otherwise it is deleted.
    pub keep_file: bool,
    /// Barriers between open, transfers and close (IOR `-g`).
    pub intra_test_barriers: bool,
    /// File name (IOR `-o`); with a file per process, rank `r`'s is `{test_file}.{r:08}`.
    pub test_file: String,
}

impl Default for IorParams {
    /// The placement study's IOR (768 ranks, 1 GiB per rank in 1 MiB transfers, file per
    /// process, write only, files kept), which the keyed scenario form starts from.
    fn default() -> Self {
        IorParams {
            block_size: 1024 * MIB,
            transfer_size: MIB,
            file_per_process: true,
            write: true,
            keep_file: true,
            test_file: "ior/testFile".into(),
            ..Self::ior_defaults(768, 6)
        }
    }
}

impl IorParams {
    /// IOR's own defaults, before any option (`init_IOR_Param_t` in hpc/ior's `src/ior.c`):
    /// block 1 MiB (`blockSize = 1048576`), transfer 256 KiB (`transferSize = 262144`), one
    /// segment, one repetition, one shared file, API POSIX, `taskPerNodeOffset = 1`, the file
    /// removed at the end (no `-k`), file name `testFile`. Neither phase is on: when the command line turns on
    /// neither `-w` nor `-r`, IOR runs both (`CheckRunSettings` in `src/parse_options.c`),
    /// which [`super::ior_cli::parse`] applies after the options.
    pub fn ior_defaults(ranks: u32, ranks_per_node: u32) -> Self {
        IorParams {
            ranks,
            ranks_per_node,
            block_size: MIB,
            transfer_size: 256 * 1024,
            segments: 1,
            file_per_process: false,
            write: false,
            read: false,
            repetitions: 1,
            inter_repetition_ps: 0,
            api: IorApi::Posix,
            random_offsets: false,
            seed: 0,
            reorder_tasks: false,
            task_per_node_offset: 1,
            fsync: false,
            collective: false,
            keep_file: false,
            intra_test_barriers: false,
            test_file: "testFile".into(),
        }
    }

    /// Ranks to shift the read-back by (IOR's `taskPerNodeOffset * tasksPerNode`, modulo the
    /// rank count); 0 without `reorder_tasks`.
    pub fn read_shift(&self) -> u32 {
        if !self.reorder_tasks {
            return 0;
        }
        let ranks = u64::from(self.ranks.max(1));
        let shift = u64::from(self.task_per_node_offset) * u64::from(self.ranks_per_node.max(1));
        (shift % ranks) as u32
    }

    /// Offset in the file of `whose` of byte `within` of segment `s`'s block of rank `whose`.
    fn block_base(&self, ranks: u32, whose: u32, s: u64) -> u64 {
        if self.file_per_process {
            s * self.block_size
        } else {
            (s * u64::from(ranks) + u64::from(whose)) * self.block_size
        }
    }

    /// IOR's random offsets (`GetOffsetArrayRandom` in hpc/ior's `src/ior.c`) for one phase,
    /// drawn from stream `phase` of `seed`: per rank, the offsets of its transfers in the
    /// order it issues them. With a file per process, rank `r` visits every transfer-sized
    /// slot of its own file; with a shared file, every slot of the whole file goes to a rank
    /// drawn uniformly (so ranks move about, not exactly, `segments * block_size` bytes each).
    /// Each rank then shuffles its slots.
    fn random_offsets_of(&self, ranks: u32, phase: u64) -> Vec<Vec<u64>> {
        let t = self.transfer_size.max(1);
        let per_rank = self.block_size.saturating_mul(u64::from(self.segments));
        let mut slots: Vec<Vec<u64>> = vec![Vec::new(); ranks as usize];
        if self.file_per_process {
            for v in &mut slots {
                v.extend((0..per_rank.div_ceil(t)).map(|k| k * t));
            }
        } else {
            let mut owner = Rng::derive(self.seed, phase.wrapping_mul(2));
            let size = per_rank.saturating_mul(u64::from(ranks));
            for k in 0..size.div_ceil(t) {
                slots[owner.below(u64::from(ranks)) as usize].push(k * t);
            }
        }
        for (r, v) in slots.iter_mut().enumerate() {
            let stream = phase.wrapping_mul(2).wrapping_add(1) ^ ((r as u64) << 32);
            Rng::derive(self.seed, stream).shuffle(v);
        }
        slots
    }

    /// Builds the job.
    pub fn job(&self) -> JobSpec {
        let ranks = self.ranks.max(1);
        let mut job = JobSpec::new("ior", ranks, self.ranks_per_node.max(1));
        let files: Vec<FileId> = if self.file_per_process {
            (0..ranks)
                .map(|r| job.add_file(format!("{}.{r:08}", self.test_file), Sharing::PerRank(r)))
                .collect()
        } else {
            vec![job.add_file(self.test_file.clone(), Sharing::Shared)]
        };
        let per_block = self.block_size.div_ceil(self.transfer_size.max(1));
        let phases = u64::from(self.write) + u64::from(self.read);
        let per_rank =
            u64::from(self.repetitions) * phases * (u64::from(self.segments) * per_block + 5) + 4;
        let mut b = RankOpsBuilder::with_capacity((per_rank * u64::from(ranks)) as usize);
        let shift = self.read_shift();
        let world = Op::Barrier {
            comm: CommId::WORLD,
        };
        // Random offsets of each (repetition, phase), drawn once for every rank.
        let random: Vec<Vec<Vec<u64>>> = if self.random_offsets {
            (0..u64::from(self.repetitions) * 2)
                .map(|phase| self.random_offsets_of(ranks, phase))
                .collect()
        } else {
            Vec::new()
        };
        let mut ops = Vec::new();
        for r in 0..ranks {
            ops.clear();
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
                    // The rank whose data this phase moves.
                    let whose = if is_write { r } else { (r + shift) % ranks };
                    let file = files[if self.file_per_process {
                        whose as usize
                    } else {
                        0
                    }];
                    ops.push(Op::Open { file });
                    if self.intra_test_barriers {
                        ops.push(world);
                    }
                    if self.random_offsets {
                        let phase = u64::from(rep) * 2 + u64::from(!is_write);
                        for &offset in &random[phase as usize][whose as usize] {
                            let size = self.transfer_size.max(1);
                            ops.push(if is_write {
                                Op::Write { file, offset, size }
                            } else {
                                Op::Read { file, offset, size }
                            });
                        }
                    } else {
                        for s in 0..u64::from(self.segments) {
                            let base = self.block_base(ranks, whose, s);
                            let push = if is_write { push_writes } else { push_reads };
                            push(&mut ops, file, base, self.block_size, self.transfer_size);
                        }
                    }
                    if self.intra_test_barriers {
                        ops.push(world);
                    }
                    ops.push(Op::Close { file });
                    ops.push(world);
                }
                if !self.keep_file && phases > 0 {
                    if self.file_per_process {
                        ops.push(Op::Delete {
                            file: files[r as usize],
                        });
                    } else if r == 0 {
                        ops.push(Op::Delete { file: files[0] });
                    }
                    ops.push(world);
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

    /// The (offset, size) of every write (or read) of `rank`, in order.
    fn io_of(j: &JobSpec, rank: u32, write: bool) -> Vec<(u64, u64)> {
        j.ops
            .rank(rank)
            .filter_map(|op| match op {
                Op::Write { offset, size, .. } if write => Some((offset, size)),
                Op::Read { offset, size, .. } if !write => Some((offset, size)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn random_offsets_visit_every_transfer_once_in_a_seeded_order() {
        let p = IorParams {
            ranks: 2,
            block_size: 64 * 4096,
            transfer_size: 4096,
            segments: 3,
            random_offsets: true,
            read: true,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        let w = io_of(&j, 1, true);
        let mut sorted = w.clone();
        sorted.sort_unstable();
        let sequential: Vec<(u64, u64)> = (0..3 * 64).map(|k| (k * 4096, 4096)).collect();
        assert_eq!(sorted, sequential);
        assert_ne!(w, sequential, "the order is random");
        assert_eq!(
            io_of(&p.job(), 1, true),
            w,
            "and the same for the same seed"
        );
        let other = IorParams {
            seed: 7,
            ..p.clone()
        };
        assert_ne!(io_of(&other.job(), 1, true), w);
    }

    #[test]
    fn random_offsets_in_a_shared_file_cover_every_slot_once() {
        let p = IorParams {
            ranks: 5,
            block_size: 16 * 4096,
            transfer_size: 4096,
            segments: 2,
            file_per_process: false,
            random_offsets: true,
            read: true,
            ..Default::default()
        };
        let j = p.job();
        j.validate().unwrap();
        for write in [true, false] {
            let mut all: Vec<(u64, u64)> = (0..5).flat_map(|r| io_of(&j, r, write)).collect();
            all.sort_unstable();
            let slots: Vec<(u64, u64)> = (0..5 * 2 * 16).map(|k| (k * 4096, 4096)).collect();
            assert_eq!(all, slots);
        }
        assert_ne!(
            io_of(&j, 0, true),
            io_of(&j, 0, false),
            "each phase draws anew"
        );
    }

    #[test]
    fn reordered_read_back_reads_the_next_nodes_data() {
        // 4 nodes of 2 ranks: rank r reads what rank (r + 2) mod 8 wrote.
        for fpp in [true, false] {
            let p = IorParams {
                ranks: 8,
                ranks_per_node: 2,
                block_size: 8,
                transfer_size: 4,
                file_per_process: fpp,
                read: true,
                reorder_tasks: true,
                ..Default::default()
            };
            assert_eq!(p.read_shift(), 2);
            let j = p.job();
            j.validate().unwrap();
            for r in 0..8u32 {
                let src = (r + 2) % 8;
                assert_eq!(io_of(&j, r, false), io_of(&j, src, true), "rank {r}");
                let read_file = j.ops.rank(r).find_map(|op| match op {
                    Op::Read { file, .. } => Some(file),
                    _ => None,
                });
                let wrote = j.ops.rank(src).find_map(|op| match op {
                    Op::Write { file, .. } => Some(file),
                    _ => None,
                });
                assert_eq!(read_file, wrote);
            }
        }
        let one_node = IorParams {
            ranks: 4,
            ranks_per_node: 4,
            reorder_tasks: true,
            ..Default::default()
        };
        assert_eq!(one_node.read_shift(), 0);
    }

    #[test]
    fn without_keep_file_the_file_is_removed_each_repetition() {
        let count = |j: &JobSpec, r: u32| {
            j.ops
                .rank(r)
                .filter(|op| matches!(*op, Op::Delete { .. }))
                .count()
        };
        let fpp = IorParams {
            ranks: 3,
            block_size: 4,
            transfer_size: 4,
            repetitions: 2,
            keep_file: false,
            ..Default::default()
        };
        let j = fpp.job();
        j.validate().unwrap();
        assert_eq!((count(&j, 0), count(&j, 2)), (2, 2));
        let shared = IorParams {
            file_per_process: false,
            ..fpp
        };
        let j = shared.job();
        assert_eq!((count(&j, 0), count(&j, 1)), (2, 0));
    }
}
