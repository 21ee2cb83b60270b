//! Native reader for Darshan 3.x logs (format versions 3.00 to 3.41 and later).
//!
//! No C library is involved: the header, the zlib/bzip2/uncompressed regions (one or more
//! streams each), both byte orders, the job record, name records and the POSIX, MPI-IO,
//! STDIO, DXT_POSIX and DXT_MPIIO modules are decoded here; other modules are listed and
//! skipped. See `docs/darshan.md` for the format notes.

mod bytes;
pub mod counters;
pub mod dxt;
pub mod error;
pub mod header;
pub mod inspect;
pub mod job;
pub mod mpiio;
mod names;
pub mod negative_times;
pub mod posix;
mod region;
pub mod stdio;

pub use counters::CounterRecord;
pub use dxt::{DxtRecord, Segment};
pub use error::{DarshanError, Location};
pub use header::{ByteOrder, Compression};
pub use inspect::{inspect, LogSummary};
pub use job::Job;
pub use mpiio::MpiioRecord;
pub use negative_times::{negative_times, NegativeTime};
pub use posix::PosixRecord;
pub use stdio::StdioRecord;

use error::FormatError;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// A module present in a log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleInfo {
    /// Slot in the 3.41 module numbering.
    pub slot: usize,
    /// Module name (`POSIX`, `MPI-IO`, `DXT_POSIX`, ...).
    pub name: String,
    /// Module record format version.
    pub version: u32,
    /// The runtime ran out of memory for this module: some records are missing.
    pub partial: bool,
    /// Compressed size of the module's region, in bytes.
    pub region_bytes: u64,
    /// Whether this reader decoded the module's records (false: skipped).
    pub parsed: bool,
}

/// Everything bbsim reads from a Darshan log.
#[derive(Debug, Clone, PartialEq)]
pub struct DarshanLog {
    /// Log format version string, e.g. `"3.21"`.
    pub version: String,
    /// Byte order the log was written in.
    pub byte_order: ByteOrder,
    /// Compression of the regions.
    pub compression: Compression,
    /// Job record.
    pub job: Job,
    /// Record id to file name.
    pub names: BTreeMap<u64, String>,
    /// Modules present, in slot order.
    pub modules: Vec<ModuleInfo>,
    /// POSIX records (version-4 layout).
    pub posix: Vec<PosixRecord>,
    /// MPI-IO records (version-3 layout).
    pub mpiio: Vec<MpiioRecord>,
    /// STDIO records (version-2 layout).
    pub stdio: Vec<StdioRecord>,
    /// DXT_POSIX trace records.
    pub dxt_posix: Vec<DxtRecord>,
    /// DXT_MPIIO trace records.
    pub dxt_mpiio: Vec<DxtRecord>,
    /// POSIX version-1 records dropped because they mixed in STDIO counters (as darshan-util).
    pub dropped_records: u64,
}

impl DarshanLog {
    /// Start of the job, in nanoseconds since the Unix epoch.
    pub fn start_ns(&self) -> i128 {
        i128::from(self.job.start_time_sec) * 1_000_000_000 + i128::from(self.job.start_time_nsec)
    }

    /// The module called `name`, if present.
    pub fn module(&self, name: &str) -> Option<&ModuleInfo> {
        self.modules.iter().find(|m| m.name == name)
    }

    /// Whether the log holds DXT traces.
    pub fn has_dxt(&self) -> bool {
        !self.dxt_posix.is_empty() || !self.dxt_mpiio.is_empty()
    }

    /// Name of record `id` (empty if the log has no name record for it).
    pub fn name(&self, id: u64) -> &str {
        self.names.get(&id).map(String::as_str).unwrap_or("")
    }
}

/// Reads and decodes the Darshan log at `path`.
pub fn read_log(path: &Path) -> Result<DarshanLog, DarshanError> {
    let label = path.display().to_string();
    let data = std::fs::read(path).map_err(|source| DarshanError::Io {
        file: label.clone(),
        source,
    })?;
    parse_log(&data, &label)
}

/// Decodes a Darshan log held in memory; `label` names it in error messages.
pub fn parse_log(data: &[u8], label: &str) -> Result<DarshanLog, DarshanError> {
    parse_inner(data).map_err(|e| e.in_file(label))
}

fn parse_inner(data: &[u8]) -> Result<DarshanLog, FormatError> {
    let h = header::parse_header(data)?;
    let big = h.byte_order == ByteOrder::Big;
    let job_bytes = region::read_region(data, h.job_map, h.compression, "job record")?;
    let job = job::parse_job(&job_bytes, big, h.minor >= 41)?;
    let names = if h.name_map.len > 0 {
        let raw = region::read_region(data, h.name_map, h.compression, "name records")?;
        names::parse_names(&raw, big, h.minor == 0)?
    } else {
        BTreeMap::new()
    };
    let mut log = DarshanLog {
        version: h.version.clone(),
        byte_order: h.byte_order,
        compression: h.compression,
        job,
        names,
        modules: Vec::new(),
        posix: Vec::new(),
        mpiio: Vec::new(),
        stdio: Vec::new(),
        dxt_posix: Vec::new(),
        dxt_mpiio: Vec::new(),
        dropped_records: 0,
    };
    for slot in &h.modules {
        let name = header::module_name(slot.canonical);
        let known = matches!(
            slot.canonical,
            header::POSIX | header::MPIIO | header::STDIO | header::DXT_POSIX | header::DXT_MPIIO
        );
        if known {
            let raw = region::read_region(data, slot.map, h.compression, &name)?;
            let v = slot.version;
            match slot.canonical {
                header::POSIX => {
                    let (recs, dropped) = posix::parse(&raw, big, v)?;
                    log.posix = recs;
                    log.dropped_records += dropped;
                }
                header::MPIIO => log.mpiio = mpiio::parse(&raw, big, v)?,
                header::STDIO => log.stdio = stdio::parse(&raw, big, v)?,
                header::DXT_POSIX => log.dxt_posix = dxt::parse(&raw, big, &name, v, 1, true)?,
                _ => log.dxt_mpiio = dxt::parse(&raw, big, &name, v, 2, v >= 2)?,
            }
        }
        log.modules.push(ModuleInfo {
            slot: slot.canonical,
            name,
            version: slot.version,
            partial: slot.canonical < 64 && h.partial & (1u64 << slot.canonical) != 0,
            region_bytes: slot.map.len,
            parsed: known,
        });
    }
    Ok(log)
}
