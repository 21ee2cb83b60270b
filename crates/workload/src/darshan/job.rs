//! The job record: uid, times, process count, job id, metadata, then the executable line and
//! the mount table as text.
//!
//! Before 3.41 the record is `int64 uid, start_time, end_time, nprocs, jobid` and 1024 bytes
//! of metadata; 3.41 adds `start_time_nsec` after `start_time` and `end_time_nsec` after
//! `end_time`. Like darshan-util, only the first 4096 decompressed bytes are used.

use super::bytes::{c_string, Cursor};
use super::error::{FormatError, Location};
use serde::Serialize;

/// Size of the job region darshan-util reads, in bytes.
const JOB_RECORD_SIZE: usize = 4096;
/// Length of the metadata field, in bytes.
const METADATA_LEN: usize = 1024;

/// Job-level data of a log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Job {
    /// User id.
    pub uid: i64,
    /// Start time, seconds since the Unix epoch.
    pub start_time_sec: i64,
    /// Nanoseconds part of the start time (0 before log format 3.41).
    pub start_time_nsec: i64,
    /// End time, seconds since the Unix epoch.
    pub end_time_sec: i64,
    /// Nanoseconds part of the end time (0 before log format 3.41).
    pub end_time_nsec: i64,
    /// Number of MPI processes.
    pub nprocs: i64,
    /// Batch-system job id.
    pub jobid: i64,
    /// `key=value` metadata lines (library version, hints).
    pub metadata: String,
    /// Executable and arguments (empty if the log has no newline-terminated command line,
    /// as darshan-util reports it).
    pub exe: String,
    /// Mount table: `(file-system type, mount point)`.
    pub mounts: Vec<(String, String)>,
}

pub(crate) fn parse_job(
    data: &[u8],
    big_endian: bool,
    ns_fields: bool,
) -> Result<Job, FormatError> {
    let data = &data[..data.len().min(JOB_RECORD_SIZE)];
    let fields = if ns_fields { 7 } else { 5 };
    let fixed = fields * 8 + METADATA_LEN;
    if data.len() <= fixed {
        return Err(FormatError::new(
            "job record",
            Location::Decompressed(data.len() as u64),
            format!(
                "expected more than {fixed} bytes of job record, found {} (truncated or corrupt)",
                data.len()
            ),
        ));
    }
    let mut c = Cursor::new(data, big_endian);
    let mut v = [0i64; 7];
    for slot in v.iter_mut().take(fields) {
        *slot = c.i64().unwrap_or(0);
    }
    let (uid, ss, sn, es, en, np, jid) = if ns_fields {
        (v[0], v[1], v[2], v[3], v[4], v[5], v[6])
    } else {
        (v[0], v[1], 0, v[2], 0, v[3], v[4])
    };
    let metadata = c_string(c.take(METADATA_LEN).unwrap_or_default());
    let trailing = c_string(&data[fixed..]);
    let (exe, mounts) = match trailing.split_once('\n') {
        Some((exe, rest)) => {
            let mounts = rest
                .split('\n')
                .filter_map(|line| {
                    let mut it = line.split_whitespace();
                    let t = it.next()?;
                    let p = it.next()?;
                    Some((t.to_string(), p.to_string()))
                })
                .collect();
            (exe.to_string(), mounts)
        }
        None => (String::new(), Vec::new()),
    };
    Ok(Job {
        uid,
        start_time_sec: ss,
        start_time_nsec: sn,
        end_time_sec: es,
        end_time_nsec: en,
        nprocs: np,
        jobid: jid,
        metadata,
        exe,
        mounts,
    })
}
