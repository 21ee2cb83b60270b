//! DXT replay: a Darshan log with DXT traces turned into a job that issues every traced
//! segment with its offset and length, the gaps between a rank's segments kept as compute.
//!
//! Per rank, segments of all files are ordered by start time. Before each segment the rank
//! computes for `start - cursor` picoseconds (when positive), where `cursor` is when the
//! previous segment ends if every segment takes exactly its traced duration. So with traced
//! I/O times every segment starts at its traced start, except segments that overlap their
//! predecessor (threads, asynchronous I/O): the op model is blocking, so those are
//! serialised and start when the predecessor ends; the following compute gap absorbs the
//! delay and the rank is back on the traced timeline at the next gap that is long enough. A file is opened just before a rank's first segment on it and closed after
//! the rank's last operation.

use crate::darshan::{DarshanLog, DxtRecord};
use crate::op::{secs_to_ps, FileId, Op};
use crate::workload::{JobSpec, RankOpsBuilder, Sharing};
use std::collections::{BTreeMap, BTreeSet};

/// Which I/O layer of a log to turn into operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// POSIX (what reaches the file system; the default).
    Posix,
    /// MPI-IO (application-level requests, before collective buffering).
    MpiIo,
}

/// Options for turning a log into a job.
#[derive(Debug, Clone, PartialEq)]
pub struct LogJobOptions {
    /// Ranks per compute node of the job.
    pub ranks_per_node: u32,
    /// Layer to use; `None` picks POSIX when present, else MPI-IO.
    pub layer: Option<Layer>,
    /// Also reconstruct STDIO records (counter reconstruction only).
    pub include_stdio: bool,
    /// Refuse to build jobs with more operations than this (memory guard).
    pub max_ops: u64,
    /// Refuse to build jobs with more ranks than this (memory guard against a corrupt
    /// process count).
    pub max_ranks: u32,
}

impl Default for LogJobOptions {
    fn default() -> Self {
        LogJobOptions {
            ranks_per_node: 1,
            layer: None,
            include_stdio: true,
            max_ops: 200_000_000,
            max_ranks: 1 << 22,
        }
    }
}

/// Why a log cannot be turned into a job.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The log has no data for the requested layer.
    #[error("the log has no {0} records to replay or reconstruct")]
    NoData(String),
    /// The job would exceed the operation limit.
    #[error("the job would have {ops} operations, more than the limit of {max}")]
    TooManyOps {
        /// Operations the job would need.
        ops: u64,
        /// Limit in force.
        max: u64,
    },
    /// The log's process count (or a record's rank) exceeds the rank limit.
    #[error("the job would have {ranks} ranks, more than the limit of {max}")]
    TooManyRanks {
        /// Ranks the job would need.
        ranks: i64,
        /// Limit in force.
        max: u32,
    },
    /// A record names a rank outside the job.
    #[error("record for file {id:#x} has rank {rank}, but the job has {nprocs} processes")]
    BadRank {
        /// Record id.
        id: u64,
        /// Rank found.
        rank: i64,
        /// Processes in the job.
        nprocs: i64,
    },
}

/// One operation of a DXT timeline, with its traced start and end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TracedOp {
    /// Traced start, picoseconds since the job started.
    pub start_ps: u64,
    /// Traced end, picoseconds since the job started.
    pub end_ps: u64,
    /// The read or write.
    pub op: Op,
}

/// Files of a log's records: record id to file id, with sharing.
pub(crate) struct FileMap {
    pub ids: BTreeMap<u64, FileId>,
}

pub(crate) fn build_files<'a>(
    job: &mut JobSpec,
    log: &DarshanLog,
    uses: impl Iterator<Item = (u64, i64)> + 'a,
) -> FileMap {
    let mut ranks: BTreeMap<u64, BTreeSet<i64>> = BTreeMap::new();
    for (id, rank) in uses {
        ranks.entry(id).or_default().insert(rank);
    }
    for r in &log.posix {
        if r.rank < 0 {
            ranks.entry(r.id).or_default().insert(-1);
        }
    }
    let mut ids = BTreeMap::new();
    for (id, rs) in &ranks {
        let sharing = match (rs.len(), rs.iter().next()) {
            (1, Some(&r)) if r >= 0 => Sharing::PerRank(r as u32),
            _ => Sharing::Shared,
        };
        let name = match log.names.get(id) {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("darshan-record-{id:016x}"),
        };
        ids.insert(*id, job.add_file(name, sharing));
    }
    FileMap { ids }
}

pub(crate) fn job_ranks(log: &DarshanLog, max_rank: i64, limit: u32) -> Result<u32, ReplayError> {
    let n = log.job.nprocs.max(max_rank.saturating_add(1)).max(1);
    match u32::try_from(n) {
        Ok(r) if r <= limit => Ok(r),
        _ => Err(ReplayError::TooManyRanks {
            ranks: n,
            max: limit,
        }),
    }
}

fn dxt_records(log: &DarshanLog, layer: Option<Layer>) -> Option<(&[DxtRecord], Layer)> {
    match layer {
        Some(Layer::Posix) => Some((&log.dxt_posix, Layer::Posix)),
        Some(Layer::MpiIo) => Some((&log.dxt_mpiio, Layer::MpiIo)),
        None if !log.dxt_posix.is_empty() => Some((&log.dxt_posix, Layer::Posix)),
        None if !log.dxt_mpiio.is_empty() => Some((&log.dxt_mpiio, Layer::MpiIo)),
        None => None,
    }
}

/// The traced reads and writes of each rank, ordered by start time, with file ids of `files`.
fn timeline(recs: &[DxtRecord], files: &FileMap, ranks: u32) -> Vec<Vec<TracedOp>> {
    let mut per_rank: Vec<Vec<(TracedOp, u64)>> = vec![Vec::new(); ranks as usize];
    let mut seq = 0u64;
    for r in recs {
        let Some(list) = usize::try_from(r.rank)
            .ok()
            .and_then(|k| per_rank.get_mut(k))
        else {
            continue;
        };
        let file = files.ids.get(&r.id).copied().unwrap_or(FileId(0));
        for (is_write, segs) in [(true, &r.writes), (false, &r.reads)] {
            let mut next_off = 0u64;
            for s in segs {
                let size = u64::try_from(s.length).unwrap_or(0);
                let offset = u64::try_from(s.offset).unwrap_or(next_off);
                next_off = offset.saturating_add(size);
                let op = if is_write {
                    Op::Write { file, offset, size }
                } else {
                    Op::Read { file, offset, size }
                };
                let start_ps = secs_to_ps(s.start);
                let end_ps = secs_to_ps(s.end).max(start_ps);
                list.push((
                    TracedOp {
                        start_ps,
                        end_ps,
                        op,
                    },
                    seq,
                ));
                seq += 1;
            }
        }
    }
    per_rank
        .into_iter()
        .map(|mut v| {
            v.sort_by_key(|(t, s)| (t.start_ps, t.end_ps, *s));
            v.into_iter().map(|(t, _)| t).collect()
        })
        .collect()
}

/// The DXT timeline of `log` (POSIX layer if present): per rank, its traced operations in
/// start order, with file ids numbered as in [`replay_dxt`]'s job.
pub fn dxt_timeline(log: &DarshanLog, layer: Option<Layer>) -> Vec<Vec<TracedOp>> {
    let Some((recs, _)) = dxt_records(log, layer) else {
        return Vec::new();
    };
    let mut job = JobSpec::new("", 0, 1);
    let files = build_files(&mut job, log, recs.iter().map(|r| (r.id, r.rank)));
    let max_rank = recs.iter().map(|r| r.rank).max().unwrap_or(0);
    let ranks = job_ranks(log, max_rank, LogJobOptions::default().max_ranks).unwrap_or(0);
    timeline(recs, &files, ranks)
}

/// Replays the DXT traces of `log` as a job (see the module documentation).
pub fn replay_dxt(log: &DarshanLog, opts: &LogJobOptions) -> Result<JobSpec, ReplayError> {
    let (recs, layer) = dxt_records(log, opts.layer)
        .filter(|(r, _)| !r.is_empty())
        .ok_or_else(|| ReplayError::NoData("DXT".into()))?;
    let nsegs: u64 = recs
        .iter()
        .map(|r| (r.reads.len() + r.writes.len()) as u64)
        .sum();
    if nsegs.saturating_mul(2) > opts.max_ops {
        return Err(ReplayError::TooManyOps {
            ops: nsegs.saturating_mul(2),
            max: opts.max_ops,
        });
    }
    if let Some(r) = recs.iter().find(|r| r.rank < 0) {
        return Err(ReplayError::BadRank {
            id: r.id,
            rank: r.rank,
            nprocs: log.job.nprocs,
        });
    }
    let mut job = JobSpec::new(
        format!("darshan-{}-dxt-{:?}", log.job.jobid, layer).to_lowercase(),
        0,
        opts.ranks_per_node.max(1),
    );
    let files = build_files(&mut job, log, recs.iter().map(|r| (r.id, r.rank)));
    let max_rank = recs.iter().map(|r| r.rank).max().unwrap_or(0);
    let ranks = job_ranks(log, max_rank, opts.max_ranks)?;
    let tl = timeline(recs, &files, ranks);
    let mut b = RankOpsBuilder::with_capacity(nsegs as usize * 3);
    let mut opened: Vec<FileId> = Vec::new();
    let mut is_open: BTreeSet<FileId> = BTreeSet::new();
    for rank_ops in &tl {
        let mut cursor = 0u64;
        opened.clear();
        is_open.clear();
        for t in rank_ops {
            let gap = t.start_ps.saturating_sub(cursor);
            if gap > 0 {
                b.push(Op::Compute { ps: gap });
            }
            if let Some(f) = t.op.file() {
                if is_open.insert(f) {
                    opened.push(f);
                    b.push(Op::Open { file: f });
                }
            }
            b.push(t.op);
            // where the rank is once this op has taken its traced duration
            cursor = cursor.max(t.start_ps).saturating_add(t.end_ps - t.start_ps);
        }
        for &f in &opened {
            b.push(Op::Close { file: f });
        }
        b.end_rank();
    }
    job.ops = b.finish();
    Ok(job)
}

/// Turns `log` into a job: DXT replay when the log has DXT traces, otherwise reconstruction
/// from counters ([`crate::reconstruct::reconstruct`]).
pub fn job_from_log(log: &DarshanLog, opts: &LogJobOptions) -> Result<JobSpec, ReplayError> {
    if dxt_records(log, opts.layer).is_some_and(|(r, _)| !r.is_empty()) {
        replay_dxt(log, opts)
    } else {
        crate::reconstruct::reconstruct(log, opts)
    }
}
