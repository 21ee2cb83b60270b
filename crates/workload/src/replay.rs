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

use crate::darshan::{mpiio, posix, stdio, CounterRecord, DarshanLog, DxtRecord};
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
            max_ops: crate::MAX_JOB_OPERATIONS,
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
    /// The job record's process count is not positive.
    #[error("job record: nprocs = {0}: expected at least 1 process")]
    BadNprocs(i64),
    /// A record holds a value no trace can hold.
    #[error("{module} record {record} (record id {id:#x}, rank {rank}): {field} = {value}: expected {expected}")]
    BadValue {
        /// Module of the record (`POSIX`, `DXT_POSIX`, ...).
        module: String,
        /// Position of the record in its module, from 0.
        record: usize,
        /// Record id (file name hash).
        id: u64,
        /// Rank of the record.
        rank: i64,
        /// Counter or segment field, e.g. `POSIX_BYTES_READ` or `write segment 3 start`.
        field: String,
        /// Value found.
        value: String,
        /// What a trace can hold.
        expected: String,
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
    if log.job.nprocs < 1 {
        return Err(ReplayError::BadNprocs(log.job.nprocs));
    }
    let n = log.job.nprocs.max(max_rank.saturating_add(1)).max(1);
    match u32::try_from(n) {
        Ok(r) if r <= limit => Ok(r),
        _ => Err(ReplayError::TooManyRanks {
            ranks: n,
            max: limit,
        }),
    }
}

/// Latest time, in seconds since the job started, that a trace may hold: simulated time is
/// a 64-bit count of picoseconds (at most about 1.8e7 s) and the simulation needs room past
/// the trace's last operation.
pub const MAX_TRACE_SECS: f64 = 9.0e6;

fn bad(
    module: &str,
    record: usize,
    id: u64,
    rank: i64,
    field: impl Into<String>,
    value: impl ToString,
    expected: impl Into<String>,
) -> ReplayError {
    ReplayError::BadValue {
        module: module.to_string(),
        record,
        id,
        rank,
        field: field.into(),
        value: value.to_string(),
        expected: expected.into(),
    }
}

/// Checks a time in seconds: finite, not negative, at most [`MAX_TRACE_SECS`].
fn check_secs(v: f64) -> Result<(), String> {
    if !v.is_finite() || v < 0.0 {
        Err("a finite, non-negative number of seconds".into())
    } else if v > MAX_TRACE_SECS {
        Err(format!(
            "at most {MAX_TRACE_SECS:e} s (about 104 days; simulated time counts picoseconds in 64 bits)"
        ))
    } else {
        Ok(())
    }
}

/// Checks the DXT segments of `recs` (module `module`): lengths not negative, offsets -1 (not
/// recorded) or more, start and end finite, not negative, within [`MAX_TRACE_SECS`] and in
/// order.
pub fn check_dxt(module: &str, recs: &[DxtRecord]) -> Result<(), ReplayError> {
    for (i, r) in recs.iter().enumerate() {
        for (dir, segs) in [("write", &r.writes), ("read", &r.reads)] {
            for (k, s) in segs.iter().enumerate() {
                let field = |f: &str| format!("{dir} segment {k} {f}");
                if s.length < 0 {
                    return Err(bad(
                        module,
                        i,
                        r.id,
                        r.rank,
                        field("length"),
                        s.length,
                        "a byte count of 0 or more",
                    ));
                }
                if s.offset < -1 {
                    return Err(bad(
                        module,
                        i,
                        r.id,
                        r.rank,
                        field("offset"),
                        s.offset,
                        "a file offset of 0 or more (-1: not recorded)",
                    ));
                }
                for (name, v) in [("start", s.start), ("end", s.end)] {
                    check_secs(v).map_err(|e| bad(module, i, r.id, r.rank, field(name), v, e))?;
                }
                if s.end < s.start {
                    return Err(bad(
                        module,
                        i,
                        r.id,
                        r.rank,
                        field("end"),
                        s.end,
                        format!("at or after its start, {}", s.start),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Checks the counters of one record that reconstruction uses: `counts` (indices into
/// `names`) not negative, `times` (indices into `fnames`) valid times, and each `(start, end)`
/// pair in order.
#[allow(clippy::too_many_arguments)]
fn check_counter_record<const C: usize, const F: usize>(
    module: &str,
    i: usize,
    r: &CounterRecord<C, F>,
    names: &[&str],
    fnames: &[&str],
    counts: &[usize],
    times: &[usize],
    pairs: &[(usize, usize)],
) -> Result<(), ReplayError> {
    for &c in counts {
        let v = r.counters[c];
        if v < 0 {
            return Err(bad(
                module,
                i,
                r.id,
                r.rank,
                names[c],
                v,
                "a count of 0 or more",
            ));
        }
    }
    for &f in times {
        let v = r.fcounters[f];
        // Cumulative times (`*_TIME`) below zero occur in real logs (the runtime's clock
        // arithmetic on STDIO streams): they read as unknown (0); timestamps cannot.
        let v_checked = if fnames[f].ends_with("_TIME") {
            v.max(0.0)
        } else {
            v
        };
        if !v.is_finite() {
            return Err(bad(
                module,
                i,
                r.id,
                r.rank,
                fnames[f],
                v,
                "a finite, non-negative number of seconds",
            ));
        }
        check_secs(v_checked).map_err(|e| bad(module, i, r.id, r.rank, fnames[f], v, e))?;
    }
    for &(a, b) in pairs {
        let (start, end) = (r.fcounters[a], r.fcounters[b]);
        if end < start {
            return Err(bad(
                module,
                i,
                r.id,
                r.rank,
                fnames[b],
                end,
                format!("at or after {}, {start}", fnames[a]),
            ));
        }
    }
    Ok(())
}

/// Checks the counter records reconstruction reads (`layer`, and STDIO when `with_stdio`):
/// operation and byte counts, histograms and access counts not negative; timestamps finite,
/// not negative and within [`MAX_TRACE_SECS`]; cumulative times finite and within the limit
/// (negative ones, which real logs hold, read as unknown); each direction's end at or after
/// its start.
pub fn check_counters(log: &DarshanLog, layer: Layer, with_stdio: bool) -> Result<(), ReplayError> {
    match layer {
        Layer::Posix => {
            let mut counts = vec![
                posix::READS,
                posix::WRITES,
                posix::BYTES_READ,
                posix::BYTES_WRITTEN,
            ];
            counts.extend(posix::SIZE_READ_0_100..posix::SIZE_WRITE_0_100 + 10);
            counts.extend(posix::ACCESS1_ACCESS..posix::ACCESS1_COUNT + 4);
            let times = [
                posix::F_OPEN_START,
                posix::F_READ_START,
                posix::F_WRITE_START,
                posix::F_READ_END,
                posix::F_WRITE_END,
                posix::F_CLOSE_END,
                posix::F_READ_TIME,
                posix::F_WRITE_TIME,
            ];
            let pairs = [
                (posix::F_READ_START, posix::F_READ_END),
                (posix::F_WRITE_START, posix::F_WRITE_END),
            ];
            for (i, r) in log.posix.iter().enumerate() {
                check_counter_record(
                    "POSIX",
                    i,
                    r,
                    &posix::COUNTER_NAMES,
                    &posix::FCOUNTER_NAMES,
                    &counts,
                    &times,
                    &pairs,
                )?;
            }
        }
        Layer::MpiIo => {
            let mut counts: Vec<usize> = mpiio::READ_OPS
                .iter()
                .chain(&mpiio::WRITE_OPS)
                .copied()
                .collect();
            counts.extend([mpiio::BYTES_READ, mpiio::BYTES_WRITTEN]);
            counts.extend(mpiio::SIZE_READ_AGG_0_100..mpiio::SIZE_WRITE_AGG_0_100 + 10);
            counts.extend(mpiio::ACCESS1_ACCESS..mpiio::ACCESS1_COUNT + 4);
            let times = [0, 1, 2, 5, 6, 7, 8, 9];
            for (i, r) in log.mpiio.iter().enumerate() {
                check_counter_record(
                    "MPI-IO",
                    i,
                    r,
                    &mpiio::COUNTER_NAMES,
                    &mpiio::FCOUNTER_NAMES,
                    &counts,
                    &times,
                    &[(1, 5), (2, 6)],
                )?;
            }
        }
    }
    if with_stdio {
        let counts = [
            stdio::READS,
            stdio::WRITES,
            stdio::BYTES_READ,
            stdio::BYTES_WRITTEN,
        ];
        let times = [
            stdio::F_OPEN_START,
            stdio::F_READ_START,
            stdio::F_WRITE_START,
            stdio::F_READ_END,
            stdio::F_WRITE_END,
            stdio::F_CLOSE_END,
            stdio::F_READ_TIME,
            stdio::F_WRITE_TIME,
        ];
        let pairs = [
            (stdio::F_READ_START, stdio::F_READ_END),
            (stdio::F_WRITE_START, stdio::F_WRITE_END),
        ];
        for (i, r) in log.stdio.iter().enumerate() {
            check_counter_record(
                "STDIO",
                i,
                r,
                &stdio::COUNTER_NAMES,
                &stdio::FCOUNTER_NAMES,
                &counts,
                &times,
                &pairs,
            )?;
        }
    }
    Ok(())
}

/// Warnings about data the Darshan runtime left out: one line per module of `log` flagged
/// partial (it ran out of memory, so records or DXT segments are missing and a replay
/// issues less I/O than the job did).
pub fn partial_warnings(log: &DarshanLog) -> Vec<String> {
    log.modules
        .iter()
        .filter(|m| m.partial)
        .map(|m| {
            let traced = |recs: &[DxtRecord]| -> i128 {
                recs.iter()
                    .flat_map(|r| r.writes.iter().chain(&r.reads))
                    .map(|s| i128::from(s.length.max(0)))
                    .sum()
            };
            let counted = match m.name.as_str() {
                "DXT_POSIX" => Some((
                    traced(&log.dxt_posix),
                    log.posix
                        .iter()
                        .map(|r| {
                            i128::from(r.counters[posix::BYTES_READ].max(0))
                                + i128::from(r.counters[posix::BYTES_WRITTEN].max(0))
                        })
                        .sum::<i128>(),
                    "POSIX",
                )),
                "DXT_MPIIO" => Some((
                    traced(&log.dxt_mpiio),
                    log.mpiio
                        .iter()
                        .map(|r| {
                            i128::from(r.counters[mpiio::BYTES_READ].max(0))
                                + i128::from(r.counters[mpiio::BYTES_WRITTEN].max(0))
                        })
                        .sum::<i128>(),
                    "MPI-IO",
                )),
                _ => None,
            };
            let bytes = match counted {
                Some((t, c, counters)) if c > 0 => {
                    format!(" (its segments hold {t} of the {c} B the {counters} counters record)")
                }
                _ => String::new(),
            };
            format!(
                "module {} holds partial data{bytes}: the Darshan runtime ran out of memory for it, so records or segments are missing and the job replays less I/O than it did",
                m.name
            )
        })
        .collect()
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
    let module = match layer {
        Layer::Posix => "DXT_POSIX",
        Layer::MpiIo => "DXT_MPIIO",
    };
    check_dxt(module, recs)?;
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
