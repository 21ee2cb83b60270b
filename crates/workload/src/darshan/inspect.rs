//! `bbsim trace inspect`: a summary of a Darshan log, as JSON (via serde) or text.

use super::{mpiio, posix, stdio, CounterRecord, DarshanError, DarshanLog, DxtRecord};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Byte and operation totals (bytes, counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct IoTotals {
    /// Bytes read.
    pub bytes_read: i64,
    /// Bytes written.
    pub bytes_written: i64,
    /// Read operations.
    pub reads: i64,
    /// Write operations.
    pub writes: i64,
}

impl IoTotals {
    fn add(&mut self, br: i64, bw: i64, r: i64, w: i64) {
        self.bytes_read = self.bytes_read.saturating_add(br);
        self.bytes_written = self.bytes_written.saturating_add(bw);
        self.reads = self.reads.saturating_add(r);
        self.writes = self.writes.saturating_add(w);
    }
}

/// Summary of one module present in the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleSummary {
    /// Module record format version.
    pub version: u32,
    /// Partial-data flag (records missing because the runtime ran out of memory).
    pub partial: bool,
    /// Whether the module was decoded (false: present but skipped).
    pub parsed: bool,
    /// Compressed size of the module region, in bytes.
    pub region_bytes: u64,
    /// Number of records (decoded modules only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<u64>,
    /// Bytes read over all records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_read: Option<i64>,
    /// Bytes written over all records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<i64>,
    /// Read operations over all records (segments for DXT).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reads: Option<i64>,
    /// Write operations over all records (segments for DXT).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writes: Option<i64>,
}

/// DXT totals of one DXT module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DxtSummary {
    /// Records (file x rank).
    pub records: u64,
    /// Read segments.
    pub read_segments: u64,
    /// Write segments.
    pub write_segments: u64,
    /// Bytes read over all read segments.
    pub bytes_read: i64,
    /// Bytes written over all write segments.
    pub bytes_written: i64,
}

/// Summary of a Darshan log; its serde JSON form is the `--format json` output of
/// `bbsim trace inspect`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogSummary {
    /// Path or label of the log.
    pub file: String,
    /// Log format version, e.g. `"3.21"`.
    pub darshan_version: String,
    /// Byte order of the log.
    pub byte_order: super::ByteOrder,
    /// Compression of the regions.
    pub compression: super::Compression,
    /// Number of MPI processes.
    pub nprocs: i64,
    /// Job start, seconds since the Unix epoch.
    pub start_time: i64,
    /// Nanoseconds part of the start (0 before format 3.41).
    pub start_time_nsec: i64,
    /// Job end, seconds since the Unix epoch.
    pub end_time: i64,
    /// Nanoseconds part of the end (0 before format 3.41).
    pub end_time_nsec: i64,
    /// Batch job id.
    pub jobid: i64,
    /// User id.
    pub uid: i64,
    /// Executable line.
    pub exe: String,
    /// Number of name records (distinct file ids).
    pub name_records: usize,
    /// POSIX v1 records dropped because they also held STDIO counters.
    pub dropped_records: u64,
    /// Modules present, by name.
    pub modules: BTreeMap<String, ModuleSummary>,
    /// POSIX totals per rank; rank -1 holds records of files shared by all ranks.
    pub ranks: BTreeMap<i64, IoTotals>,
    /// DXT totals per DXT module (absent when the log has no DXT module).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dxt: Option<BTreeMap<String, DxtSummary>>,
}

/// Reads the log at `path` and summarises it.
pub fn inspect(path: &Path) -> Result<LogSummary, DarshanError> {
    let log = super::read_log(path)?;
    Ok(LogSummary::from_log(&log, &path.display().to_string()))
}

fn counter_totals<const C: usize, const F: usize>(
    recs: &[CounterRecord<C, F>],
    f: impl Fn(&CounterRecord<C, F>) -> (i64, i64, i64, i64),
) -> IoTotals {
    let mut t = IoTotals::default();
    for r in recs {
        let (a, b, c, d) = f(r);
        t.add(a, b, c, d);
    }
    t
}

fn dxt_summary(recs: &[DxtRecord]) -> DxtSummary {
    let mut s = DxtSummary {
        records: recs.len() as u64,
        read_segments: 0,
        write_segments: 0,
        bytes_read: 0,
        bytes_written: 0,
    };
    for r in recs {
        s.read_segments += r.reads.len() as u64;
        s.write_segments += r.writes.len() as u64;
        s.bytes_read = r
            .reads
            .iter()
            .fold(s.bytes_read, |a, g| a.saturating_add(g.length));
        s.bytes_written = r
            .writes
            .iter()
            .fold(s.bytes_written, |a, g| a.saturating_add(g.length));
    }
    s
}

fn posix_io(r: &posix::PosixRecord) -> (i64, i64, i64, i64) {
    let c = &r.counters;
    (
        c[posix::BYTES_READ],
        c[posix::BYTES_WRITTEN],
        c[posix::READS],
        c[posix::WRITES],
    )
}

impl LogSummary {
    /// Summarises an already decoded log; `file` is the label reported.
    pub fn from_log(log: &DarshanLog, file: &str) -> Self {
        let mut modules = BTreeMap::new();
        let mut dxt = BTreeMap::new();
        for m in &log.modules {
            let totals: Option<(u64, IoTotals)> = match m.name.as_str() {
                "POSIX" => Some((log.posix.len() as u64, counter_totals(&log.posix, posix_io))),
                "MPI-IO" => Some((
                    log.mpiio.len() as u64,
                    counter_totals(&log.mpiio, |r| {
                        (
                            r.counters[mpiio::BYTES_READ],
                            r.counters[mpiio::BYTES_WRITTEN],
                            mpiio::reads(r),
                            mpiio::writes(r),
                        )
                    }),
                )),
                "STDIO" => Some((
                    log.stdio.len() as u64,
                    counter_totals(&log.stdio, |r| {
                        let c = &r.counters;
                        (
                            c[stdio::BYTES_READ],
                            c[stdio::BYTES_WRITTEN],
                            c[stdio::READS],
                            c[stdio::WRITES],
                        )
                    }),
                )),
                "DXT_POSIX" | "DXT_MPIIO" => {
                    let recs = if m.name == "DXT_POSIX" {
                        &log.dxt_posix
                    } else {
                        &log.dxt_mpiio
                    };
                    let s = dxt_summary(recs);
                    dxt.insert(m.name.clone(), s);
                    Some((
                        s.records,
                        IoTotals {
                            bytes_read: s.bytes_read,
                            bytes_written: s.bytes_written,
                            reads: s.read_segments as i64,
                            writes: s.write_segments as i64,
                        },
                    ))
                }
                _ => None,
            };
            modules.insert(
                m.name.clone(),
                ModuleSummary {
                    version: m.version,
                    partial: m.partial,
                    parsed: m.parsed,
                    region_bytes: m.region_bytes,
                    records: totals.map(|t| t.0),
                    bytes_read: totals.map(|t| t.1.bytes_read),
                    bytes_written: totals.map(|t| t.1.bytes_written),
                    reads: totals.map(|t| t.1.reads),
                    writes: totals.map(|t| t.1.writes),
                },
            );
        }
        let mut ranks: BTreeMap<i64, IoTotals> = BTreeMap::new();
        for r in &log.posix {
            let (a, b, c, d) = posix_io(r);
            ranks.entry(r.rank).or_default().add(a, b, c, d);
        }
        LogSummary {
            file: file.to_string(),
            darshan_version: log.version.clone(),
            byte_order: log.byte_order,
            compression: log.compression,
            nprocs: log.job.nprocs,
            start_time: log.job.start_time_sec,
            start_time_nsec: log.job.start_time_nsec,
            end_time: log.job.end_time_sec,
            end_time_nsec: log.job.end_time_nsec,
            jobid: log.job.jobid,
            uid: log.job.uid,
            exe: log.job.exe.clone(),
            name_records: log.names.len(),
            dropped_records: log.dropped_records,
            modules,
            ranks,
            dxt: if dxt.is_empty() { None } else { Some(dxt) },
        }
    }

    /// Human-readable form of the summary (the default output of `bbsim trace inspect`).
    pub fn render_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "file:            {}", self.file);
        let _ = writeln!(
            s,
            "darshan version: {} ({:?}-endian, {:?} compression)",
            self.darshan_version, self.byte_order, self.compression
        );
        let _ = writeln!(s, "job id:          {} (uid {})", self.jobid, self.uid);
        let _ = writeln!(s, "processes:       {}", self.nprocs);
        let run = (self.end_time as f64 - self.start_time as f64)
            + (self.end_time_nsec as f64 - self.start_time_nsec as f64) * 1e-9;
        let _ = writeln!(
            s,
            "start / end:     {} / {} (unix seconds; run time {:.3} s)",
            self.start_time, self.end_time, run
        );
        if !self.exe.is_empty() {
            let _ = writeln!(s, "executable:      {}", self.exe);
        }
        let _ = writeln!(s, "name records:    {}", self.name_records);
        if self.dropped_records > 0 {
            let _ = writeln!(
                s,
                "dropped:         {} POSIX v1 records holding STDIO counters",
                self.dropped_records
            );
        }
        let _ = writeln!(s, "\nmodules:");
        let _ = writeln!(
            s,
            "  {:<12} {:>3} {:>8} {:>16} {:>16} {:>10} {:>10}",
            "module", "ver", "records", "bytes read", "bytes written", "reads", "writes"
        );
        for (name, m) in &self.modules {
            let opt = |v: Option<i64>| v.map(|x| x.to_string()).unwrap_or_else(|| "-".into());
            let flag = if m.partial { " (partial)" } else { "" };
            let skipped = if m.parsed { "" } else { " (skipped)" };
            let _ = writeln!(
                s,
                "  {:<12} {:>3} {:>8} {:>16} {:>16} {:>10} {:>10}{flag}{skipped}",
                name,
                m.version,
                m.records
                    .map(|x| x.to_string())
                    .unwrap_or_else(|| "-".into()),
                opt(m.bytes_read),
                opt(m.bytes_written),
                opt(m.reads),
                opt(m.writes),
            );
        }
        if !self.ranks.is_empty() {
            let _ = writeln!(s, "\nPOSIX per rank (rank -1: shared files):");
            let _ = writeln!(
                s,
                "  {:>6} {:>16} {:>16} {:>10} {:>10}",
                "rank", "bytes read", "bytes written", "reads", "writes"
            );
            for (rank, t) in &self.ranks {
                let _ = writeln!(
                    s,
                    "  {:>6} {:>16} {:>16} {:>10} {:>10}",
                    rank, t.bytes_read, t.bytes_written, t.reads, t.writes
                );
            }
        }
        if let Some(dxt) = &self.dxt {
            let _ = writeln!(s, "\nDXT:");
            for (name, d) in dxt {
                let _ = writeln!(
                    s,
                    "  {name}: {} records, {} write segments ({} bytes), {} read segments ({} bytes)",
                    d.records, d.write_segments, d.bytes_written, d.read_segments, d.bytes_read
                );
            }
        }
        s
    }
}
