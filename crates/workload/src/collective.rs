//! Collective buffering: ROMIO's two-phase I/O for collective MPI-IO calls on a shared file.
//!
//! A collective write (`MPI_File_write_all`, `write_at_all`) of the job's ranks becomes:
//!
//! 1. a barrier on the job's communicator: the allgather of every rank's start and end offsets
//!    that ROMIO does before it decides how to serve the call;
//! 2. if collective buffering is on for the call (`romio_cb_write = enable`, or `automatic`
//!    and the ranks' ranges interleave, ROMIO's test), the file range the call touches
//!    (lowest start to highest end) is cut into `cb_nodes` contiguous file domains of equal
//!    size, one per aggregator; the aggregators are the first rank of each of the job's first
//!    `cb_nodes` nodes (ROMIO's default `cb_config_list` of one aggregator per node);
//! 3. each aggregator serves the part of its domain that was accessed in rounds of at most
//!    `cb_buffer_size` bytes of file: in every round each rank sends the bytes of its data that
//!    fall in that window to the aggregator ([`Op::Send`]; a piece for a rank on the same node
//!    is a memory copy, and an aggregator's own piece is not sent), the aggregator receives
//!    them ([`Op::Recv`]) and writes the window's data, one write per contiguous extent.
//!
//! Reads run the other way: in each round the aggregator reads its window and sends every
//! rank its pieces, which the ranks receive. Without collective buffering the call is the
//! ranks' own (independent) operation, after the barrier.
//!
//! A collective call is matched across ranks by position: the `k`-th read or write of a
//! shared file in each rank's stream is the job's `k`-th collective call. Every rank must so
//! make the same sequence of calls (same file, same direction); a rank with nothing to
//! transfer in a call makes a zero-byte operation, as MPI requires.
//!
//! Deterministic: the output depends only on the job and the hints.

use crate::op::{CommId, FileId, Op};
use crate::workload::{JobSpec, RankOpsBuilder, Sharing, MAX_JOB_OPERATIONS};
use serde::{Deserialize, Serialize};
use std::fmt;

/// ROMIO's `romio_cb_write` / `romio_cb_read` hint: whether a collective call uses
/// collective buffering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CbMode {
    /// Always aggregate.
    Enable,
    /// Never aggregate: every rank does its own I/O after the offsets' allgather.
    Disable,
    /// Aggregate only when the ranks' file ranges interleave (a rank starts before the
    /// previous rank ends), ROMIO's default.
    #[default]
    Automatic,
}

impl CbMode {
    /// The hint's value as ROMIO spells it.
    pub fn name(self) -> &'static str {
        match self {
            CbMode::Enable => "enable",
            CbMode::Disable => "disable",
            CbMode::Automatic => "automatic",
        }
    }
}

/// ROMIO's default `cb_buffer_size`: 16 MiB.
pub const DEFAULT_CB_BUFFER_SIZE: u64 = 16 << 20;

/// The MPI-IO hints of collective buffering for one job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CbHints {
    /// Number of aggregators (`cb_nodes`): one per node of the first `cb_nodes` nodes.
    pub cb_nodes: u32,
    /// Bytes of file an aggregator serves per round (`cb_buffer_size`).
    pub cb_buffer_size: u64,
    /// Collective buffering for writes (`romio_cb_write`).
    pub write: CbMode,
    /// Collective buffering for reads (`romio_cb_read`).
    pub read: CbMode,
}

/// Why a job's collective calls could not be turned into two-phase I/O.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CbError {
    /// `cb_nodes` is 0 or more than the job's nodes.
    CbNodes {
        /// Value given.
        cb_nodes: u32,
        /// The job's nodes.
        nodes: u32,
    },
    /// `cb_buffer_size` is 0.
    BufferSize,
    /// The ranks do not make the same sequence of collective calls.
    Mismatch {
        /// The call (0-based) where they differ.
        call: usize,
        /// A rank that differs from rank 0 there.
        rank: u32,
    },
    /// The transformed job has more operations than [`MAX_JOB_OPERATIONS`].
    TooManyOps {
        /// Operations it would have (at least).
        ops: u64,
    },
}

impl fmt::Display for CbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CbError::CbNodes { cb_nodes, nodes } => write!(
                f,
                "cb_nodes = {cb_nodes}: expected 1 to the job's {nodes} node(s)"
            ),
            CbError::BufferSize => write!(f, "cb_buffer_size = 0: expected at least 1 byte"),
            CbError::Mismatch { call, rank } => write!(
                f,
                "collective call {call}: rank {rank} does not make the same call (file and \
                 direction) as rank 0"
            ),
            CbError::TooManyOps { ops } => write!(
                f,
                "two-phase I/O would give the job {ops} operations, more than the \
                 {MAX_JOB_OPERATIONS} a job may have"
            ),
        }
    }
}

impl std::error::Error for CbError {}

/// One rank's piece of a collective call in one aggregator's round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Piece {
    round: u64,
    agg: u32,
    offset: u64,
    rank: u32,
    len: u64,
}

/// The file domains of one call: `[start + a * size, start + (a + 1) * size)` for aggregator
/// `a`, the last one clipped at `end` (ROMIO's `ADIOI_Calc_file_domains` without alignment).
#[derive(Debug, Clone, Copy)]
struct Domains {
    start: u64,
    end: u64,
    size: u64,
}

impl Domains {
    fn new(start: u64, end: u64, aggregators: u32) -> Self {
        let size = (end - start).div_ceil(u64::from(aggregators)).max(1);
        Domains { start, end, size }
    }

    /// Aggregator whose domain holds byte `off`.
    fn of(&self, off: u64) -> u32 {
        ((off - self.start) / self.size) as u32
    }

    /// End of aggregator `a`'s domain.
    fn end_of(&self, a: u32) -> u64 {
        (self.start + (u64::from(a) + 1) * self.size).min(self.end)
    }
}

/// Checks `hints` against `job`: `cb_nodes` from 1 to the job's nodes, `cb_buffer_size` at
/// least 1 byte.
pub fn check_hints(job: &JobSpec, hints: &CbHints) -> Result<(), CbError> {
    let nodes = job.ranks().div_ceil(job.ranks_per_node.max(1));
    if hints.cb_nodes == 0 || hints.cb_nodes > nodes {
        return Err(CbError::CbNodes {
            cb_nodes: hints.cb_nodes,
            nodes,
        });
    }
    if hints.cb_buffer_size == 0 {
        return Err(CbError::BufferSize);
    }
    Ok(())
}

/// The job with its collective calls served by two-phase I/O under `hints` (see the module
/// docs). Files that are not shared, and operations other than reads and writes of shared
/// files, are untouched.
pub fn two_phase(job: &JobSpec, hints: &CbHints) -> Result<JobSpec, CbError> {
    check_hints(job, hints)?;
    let ranks = job.ranks();
    let rpn = job.ranks_per_node.max(1);
    let shared = |f: FileId| {
        job.file(f)
            .is_some_and(|s| matches!(s.sharing, Sharing::Shared))
    };
    let collective = |op: &Op| match *op {
        Op::Write { file, .. } | Op::Read { file, .. } => shared(file),
        _ => false,
    };
    let streams: Vec<Vec<Op>> = (0..ranks).map(|r| job.ops.rank(r).collect()).collect();
    let calls: Vec<Vec<Op>> = streams
        .iter()
        .map(|s| s.iter().copied().filter(collective).collect())
        .collect();
    let n_calls = calls.first().map_or(0, Vec::len);
    for (r, c) in calls.iter().enumerate() {
        let same = |k: usize| key(&c[k]) == key(&calls[0][k]);
        if c.len() != n_calls || !(0..n_calls).all(same) {
            let call = (0..n_calls.min(c.len()))
                .find(|&k| !same(k))
                .unwrap_or(n_calls.min(c.len()));
            return Err(CbError::Mismatch {
                call,
                rank: r as u32,
            });
        }
    }
    let agg_rank = |a: u32| a * rpn;
    let mut out: Vec<Vec<Op>> = vec![Vec::new(); ranks as usize];
    let mut next = vec![0usize; ranks as usize];
    let mut budget = 0u64;
    for k in 0..n_calls {
        // Copy every rank's operations up to its k-th call.
        for (r, s) in streams.iter().enumerate() {
            while let Some(op) = s.get(next[r]) {
                next[r] += 1;
                if collective(op) {
                    break;
                }
                out[r].push(*op);
            }
        }
        let (write, file) = key(&calls[0][k]);
        let pieces: Vec<(u64, u64)> = calls.iter().map(|c| extent(&c[k])).collect();
        for o in out.iter_mut() {
            o.push(Op::Barrier {
                comm: CommId::WORLD,
            });
        }
        let mode = if write { hints.write } else { hints.read };
        let aggregate = match mode {
            CbMode::Enable => true,
            CbMode::Disable => false,
            CbMode::Automatic => interleaved(&pieces),
        };
        if !aggregate {
            for (r, o) in out.iter_mut().enumerate() {
                o.push(calls[r][k]);
            }
            continue;
        }
        let split = split_call(&pieces, hints);
        budget += 3 * split.len() as u64;
        if budget > MAX_JOB_OPERATIONS {
            return Err(CbError::TooManyOps { ops: budget });
        }
        emit(&split, write, file, agg_rank, &mut out);
    }
    for (r, s) in streams.iter().enumerate() {
        out[r].extend_from_slice(&s[next[r]..]);
    }
    let mut b = RankOpsBuilder::default();
    for ops in out {
        b.extend(ops);
        b.end_rank();
    }
    Ok(JobSpec {
        ops: b.finish(),
        ..job.clone()
    })
}

/// A call's direction (write: true) and file.
fn key(op: &Op) -> (bool, FileId) {
    match *op {
        Op::Write { file, .. } => (true, file),
        Op::Read { file, .. } => (false, file),
        _ => (false, FileId(u32::MAX)),
    }
}

/// A read's or write's `(offset, size)`.
fn extent(op: &Op) -> (u64, u64) {
    match *op {
        Op::Write { offset, size, .. } | Op::Read { offset, size, .. } => (offset, size),
        _ => (0, 0),
    }
}

/// ROMIO's interleave test: some rank (with data) starts before the previous one ends.
fn interleaved(pieces: &[(u64, u64)]) -> bool {
    let mut prev_end: Option<u64> = None;
    for &(off, len) in pieces.iter().filter(|p| p.1 > 0) {
        if prev_end.is_some_and(|e| off < e) {
            return true;
        }
        prev_end = Some(off + len);
    }
    false
}

/// Cuts every rank's piece of one call by file domain and by round, sorted by round,
/// aggregator and offset.
fn split_call(pieces: &[(u64, u64)], hints: &CbHints) -> Vec<Piece> {
    let data = || pieces.iter().filter(|p| p.1 > 0);
    let (Some(start), Some(end)) = (data().map(|p| p.0).min(), data().map(|p| p.0 + p.1).max())
    else {
        return Vec::new();
    };
    let dom = Domains::new(start, end, hints.cb_nodes);
    // First accessed byte of each domain: a round window starts there.
    let mut first = vec![u64::MAX; hints.cb_nodes as usize];
    for &(off, len) in pieces {
        let mut at = off;
        while at < off + len {
            let a = dom.of(at);
            first[a as usize] = first[a as usize].min(at);
            at = dom.end_of(a).min(off + len);
        }
    }
    let buf = hints.cb_buffer_size;
    let mut out = Vec::new();
    for (r, &(off, len)) in pieces.iter().enumerate() {
        let mut at = off;
        while at < off + len {
            let a = dom.of(at);
            let round = (at - first[a as usize]) / buf;
            let window_end = first[a as usize] + (round + 1) * buf;
            let stop = dom.end_of(a).min(window_end).min(off + len);
            out.push(Piece {
                round,
                agg: a,
                offset: at,
                rank: r as u32,
                len: stop - at,
            });
            at = stop;
        }
    }
    out.sort_unstable();
    out
}

/// Appends the exchange and the aggregators' I/O of one call to the ranks' streams.
fn emit(
    split: &[Piece],
    write: bool,
    file: FileId,
    agg_rank: impl Fn(u32) -> u32,
    out: &mut [Vec<Op>],
) {
    for round in split.chunk_by(|a, b| a.round == b.round) {
        if write {
            for p in round.iter().filter(|p| p.rank != agg_rank(p.agg)) {
                out[p.rank as usize].push(Op::Send {
                    to: agg_rank(p.agg),
                    bytes: p.len,
                });
            }
        }
        for window in round.chunk_by(|a, b| a.agg == b.agg) {
            let agg = agg_rank(window[0].agg);
            let mut by_rank: Vec<&Piece> = window.iter().filter(|p| p.rank != agg).collect();
            by_rank.sort_by_key(|p| p.rank);
            if write {
                for p in &by_rank {
                    out[agg as usize].push(Op::Recv {
                        from: p.rank,
                        bytes: p.len,
                    });
                }
            }
            for (offset, size) in merged(window) {
                out[agg as usize].push(if write {
                    Op::Write { file, offset, size }
                } else {
                    Op::Read { file, offset, size }
                });
            }
            if !write {
                for p in &by_rank {
                    out[agg as usize].push(Op::Send {
                        to: p.rank,
                        bytes: p.len,
                    });
                }
            }
        }
        if !write {
            for p in round.iter().filter(|p| p.rank != agg_rank(p.agg)) {
                out[p.rank as usize].push(Op::Recv {
                    from: agg_rank(p.agg),
                    bytes: p.len,
                });
            }
        }
    }
}

/// The contiguous extents `(offset, size)` covered by a window's pieces (sorted by offset).
fn merged(window: &[Piece]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for p in window {
        match out.last_mut() {
            Some((o, s)) if *o + *s >= p.offset => {
                *s = (*s).max(p.offset + p.len - *o);
            }
            _ => out.push((p.offset, p.len)),
        }
    }
    out
}

/// Bytes the two-phase exchange of a job moves between compute nodes: [`Op::Send`]s to a
/// rank on another node (the ranks of node `n` are `n * ranks_per_node ..`).
pub fn off_node_bytes(job: &JobSpec) -> u64 {
    let rpn = job.ranks_per_node.max(1);
    let mut total = 0;
    for (r, ops) in job.ops.iter() {
        for op in ops {
            if let Op::Send { to, bytes } = op {
                if to / rpn != r / rpn {
                    total += bytes;
                }
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::RankOps;

    const MIB: u64 = 1 << 20;

    /// IOR's segmented shared file: `segments` segments of `ranks` blocks of `block` bytes,
    /// each block written in transfers of `xfer` bytes, one collective call per transfer.
    fn ior(ranks: u32, rpn: u32, block: u64, xfer: u64, segments: u64, write: bool) -> JobSpec {
        let mut j = JobSpec::new("ior", ranks, rpn);
        let file = j.add_file("/shared", Sharing::Shared);
        j.ops = RankOps::from_vecs(
            (0..ranks)
                .map(|r| {
                    let mut v = vec![Op::Open { file }];
                    for s in 0..segments {
                        for t in 0..block / xfer {
                            let offset = (s * u64::from(ranks) + u64::from(r)) * block + t * xfer;
                            v.push(if write {
                                Op::Write {
                                    file,
                                    offset,
                                    size: xfer,
                                }
                            } else {
                                Op::Read {
                                    file,
                                    offset,
                                    size: xfer,
                                }
                            });
                        }
                    }
                    v.push(Op::Close { file });
                    v
                })
                .collect(),
        );
        j
    }

    fn hints(cb_nodes: u32, cb_buffer_size: u64) -> CbHints {
        CbHints {
            cb_nodes,
            cb_buffer_size,
            write: CbMode::Enable,
            read: CbMode::Enable,
        }
    }

    /// Every write (or read) of the job as `(offset, size)`, sorted.
    fn extents(job: &JobSpec, write: bool) -> Vec<(u64, u64)> {
        let mut v: Vec<(u64, u64)> = job
            .ops
            .all_ops()
            .filter_map(|op| match op {
                Op::Write { offset, size, .. } if write => Some((offset, size)),
                Op::Read { offset, size, .. } if !write => Some((offset, size)),
                _ => None,
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// The extents merged into disjoint ranges, asserting that none overlaps another.
    fn tiled(v: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &(o, s) in v {
            match out.last_mut() {
                Some((lo, ls)) if *lo + *ls == o => *ls += s,
                Some((lo, ls)) => {
                    assert!(*lo + *ls < o, "byte written twice at {o}");
                    out.push((o, s));
                }
                None => out.push((o, s)),
            }
        }
        out
    }

    #[test]
    fn every_byte_is_written_once_at_its_offset() {
        for (cb, buf) in [(1, MIB), (2, 3 * MIB), (4, 16 * MIB), (3, 5 * MIB / 2)] {
            let job = ior(8, 2, 4 * MIB, MIB, 3, true);
            let out = two_phase(&job, &hints(cb, buf)).unwrap();
            assert_eq!(out.totals().bytes_written, job.totals().bytes_written);
            assert_eq!(tiled(&extents(&out, true)), tiled(&extents(&job, true)));
            let read = two_phase(&ior(8, 2, 4 * MIB, MIB, 3, false), &hints(cb, buf)).unwrap();
            out.validate().unwrap();
            read.validate().unwrap();
            assert_eq!(tiled(&extents(&read, false)), tiled(&extents(&job, true)));
            // What is sent is received, rank pair by rank pair.
            for j in [&out, &read] {
                let mut flow = std::collections::BTreeMap::<(u32, u32), i128>::new();
                for (r, ops) in j.ops.iter() {
                    for op in ops {
                        match op {
                            Op::Send { to, bytes } => {
                                *flow.entry((r, to)).or_default() += bytes as i128
                            }
                            Op::Recv { from, bytes } => {
                                *flow.entry((from, r)).or_default() -= bytes as i128
                            }
                            _ => {}
                        }
                    }
                }
                assert!(flow.values().all(|&b| b == 0), "{flow:?}");
            }
        }
    }

    #[test]
    fn own_domains_move_nothing() {
        // One rank per node, cb_nodes = ranks, one block per rank per call: rank r's data is
        // aggregator r's whole domain.
        let job = ior(4, 1, 8 * MIB, 8 * MIB, 2, true);
        let out = two_phase(&job, &hints(4, 16 * MIB)).unwrap();
        assert_eq!(out.totals().bytes_sent, 0);
        for r in 0..4 {
            let mine: Vec<Op> = job.ops.rank(r).collect();
            let got: Vec<Op> = out
                .ops
                .rank(r)
                .filter(|o| !matches!(o, Op::Barrier { .. }))
                .collect();
            assert_eq!(got, mine);
            let barriers = out
                .ops
                .rank(r)
                .filter(|o| matches!(o, Op::Barrier { .. }))
                .count();
            assert_eq!(barriers, 2, "one offsets' allgather per call");
        }
    }

    #[test]
    fn aggregator_writes_are_ceil_domain_over_buffer() {
        // One call: 16 ranks of 2 nodes write 3 MiB each; 2 aggregators of 24 MiB domains.
        let job = ior(16, 8, 3 * MIB, 3 * MIB, 1, true);
        for buf in [MIB, 5 * MIB, 7 * MIB, 24 * MIB, 64 * MIB] {
            let out = two_phase(&job, &hints(2, buf)).unwrap();
            for (agg, r) in [(0u32, 0u32), (1, 8)] {
                let writes = out
                    .ops
                    .rank(r)
                    .filter(|o| matches!(o, Op::Write { .. }))
                    .count() as u64;
                assert_eq!(
                    writes,
                    (24 * MIB).div_ceil(buf),
                    "aggregator {agg}, buffer {buf}"
                );
            }
            for r in (1..16).filter(|r| r % 8 != 0) {
                assert_eq!(out.ops.rank(r).filter(|o| o.is_data()).count(), 0);
            }
        }
    }

    #[test]
    fn exchanged_bytes_match_the_closed_form() {
        // One call, transfer = block = B, R ranks on N nodes of P ranks, A aggregators on the
        // first A nodes; domain a covers the blocks of nodes a*N/A ..: the bytes a rank sends
        // are its block unless it is the aggregator; off node unless the domain's aggregator
        // runs on its own node.
        let b = 2 * MIB;
        let (ranks, p) = (32u32, 4u32);
        let nodes = ranks / p;
        for a in [1u32, 2, 4, 8] {
            let job = ior(ranks, p, b, b, 1, true);
            let out = two_phase(&job, &hints(a, 64 * MIB)).unwrap();
            let g = nodes / a;
            let own_node_domains = if g == 1 { nodes } else { 1 };
            let off = u64::from(ranks - own_node_domains * p) * b;
            assert_eq!(off_node_bytes(&out), off, "cb_nodes = {a}");
            // An aggregator keeps its own block only when that block lies in its domain.
            let kept = if g == 1 { a } else { 1 };
            assert_eq!(out.totals().bytes_sent, u64::from(ranks - kept) * b);
        }
    }

    #[test]
    fn automatic_aggregates_only_interleaved_calls() {
        let job = ior(4, 1, MIB, MIB, 2, true);
        let auto = CbHints {
            write: CbMode::Automatic,
            ..hints(2, 16 * MIB)
        };
        let out = two_phase(&job, &auto).unwrap();
        assert_eq!(out.totals().bytes_sent, 0);
        assert_eq!(out.totals().writes, job.totals().writes);
        // Ranks in reverse file order interleave: rank 1 starts before rank 0 ends.
        let mut rev = JobSpec::new("rev", 2, 1);
        let file = rev.add_file("/s", Sharing::Shared);
        rev.ops = RankOps::from_vecs(vec![
            vec![Op::Write {
                file,
                offset: MIB,
                size: MIB,
            }],
            vec![Op::Write {
                file,
                offset: 0,
                size: MIB,
            }],
        ]);
        assert!(two_phase(&rev, &auto).unwrap().totals().bytes_sent > 0);
        let off = CbHints {
            write: CbMode::Disable,
            ..auto
        };
        assert_eq!(two_phase(&rev, &off).unwrap().totals().bytes_sent, 0);
    }

    #[test]
    fn bad_hints_and_mismatched_calls_are_errors() {
        let job = ior(8, 2, MIB, MIB, 1, true);
        assert_eq!(
            two_phase(&job, &hints(0, MIB)),
            Err(CbError::CbNodes {
                cb_nodes: 0,
                nodes: 4
            })
        );
        assert!(matches!(
            two_phase(&job, &hints(5, MIB)),
            Err(CbError::CbNodes { .. })
        ));
        assert_eq!(two_phase(&job, &hints(1, 0)), Err(CbError::BufferSize));
        let mut odd = JobSpec::new("odd", 2, 1);
        let file = odd.add_file("/s", Sharing::Shared);
        odd.ops = RankOps::from_vecs(vec![
            vec![Op::Write {
                file,
                offset: 0,
                size: 1,
            }],
            vec![Op::Read {
                file,
                offset: 0,
                size: 1,
            }],
        ]);
        assert_eq!(
            two_phase(&odd, &hints(1, MIB)),
            Err(CbError::Mismatch { call: 0, rank: 1 })
        );
    }

    #[test]
    fn unmatched_messages_are_invalid() {
        let mut j = JobSpec::new("p2p", 2, 1);
        j.ops = RankOps::from_vecs(vec![vec![Op::Send { to: 1, bytes: 8 }], vec![]]);
        assert!(j
            .validate()
            .unwrap_err()
            .to_string()
            .contains("8 bytes more"));
        j.ops = RankOps::from_vecs(vec![vec![Op::Send { to: 2, bytes: 8 }], vec![]]);
        assert!(j
            .validate()
            .unwrap_err()
            .to_string()
            .contains("outside the job"));
    }

    #[test]
    fn per_rank_files_are_untouched() {
        let mut j = JobSpec::new("fpp", 2, 1);
        let f0 = j.add_file("/0", Sharing::PerRank(0));
        let f1 = j.add_file("/1", Sharing::PerRank(1));
        j.ops = RankOps::from_vecs(vec![
            vec![Op::Write {
                file: f0,
                offset: 0,
                size: MIB,
            }],
            vec![Op::Write {
                file: f1,
                offset: 0,
                size: MIB,
            }],
        ]);
        assert_eq!(two_phase(&j, &hints(2, MIB)).unwrap(), j);
    }
}
