//! DXT (Darshan eXtended Tracing) records: every read and write segment of a file by a rank.
//!
//! Record layout: `u64 id, i64 rank, i64 shared_record, char hostname[64], i64 write_count,
//! i64 read_count` (104 bytes), then `write_count + read_count` segments of
//! `i64 offset, i64 length, double start, double end` (32 bytes), writes first.
//! DXT_MPIIO version 1 recorded no offsets: they read as -1.

use super::bytes::{c_string, Cursor};
use super::counters::unsupported_version;
use super::error::{FormatError, Location};
use serde::Serialize;

const HEADER_LEN: usize = 104;
const SEGMENT_LEN: usize = 32;

/// One traced read or write.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Segment {
    /// File offset in bytes (-1 when not recorded).
    pub offset: i64,
    /// Bytes transferred.
    pub length: i64,
    /// Start, seconds since the job started.
    pub start: f64,
    /// End, seconds since the job started.
    pub end: f64,
}

/// The traced operations of one rank on one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DxtRecord {
    /// Record id of the file (see [`super::DarshanLog::names`]).
    pub id: u64,
    /// Rank that issued the operations.
    pub rank: i64,
    /// Host the rank ran on.
    pub hostname: String,
    /// Write segments in the order recorded.
    pub writes: Vec<Segment>,
    /// Read segments in the order recorded.
    pub reads: Vec<Segment>,
}

pub(crate) fn parse(
    data: &[u8],
    big_endian: bool,
    region: &str,
    version: u32,
    max_version: u32,
    offsets_valid: bool,
) -> Result<Vec<DxtRecord>, FormatError> {
    if version == 0 || version > max_version {
        return Err(unsupported_version(region, version, max_version));
    }
    let mut out = Vec::new();
    let mut c = Cursor::new(data, big_endian);
    while c.remaining() > 0 {
        let at = c.pos();
        if c.remaining() < HEADER_LEN {
            return Err(FormatError::new(
                region,
                Location::Decompressed(at as u64),
                format!(
                    "expected a {HEADER_LEN}-byte DXT record header, only {} bytes remain (truncated)",
                    c.remaining()
                ),
            ));
        }
        let id = c.u64().unwrap_or(0);
        let rank = c.i64().unwrap_or(0);
        let _shared = c.i64().unwrap_or(0);
        let hostname = c_string(c.take(64).unwrap_or_default());
        let wc = c.i64().unwrap_or(0);
        let rc = c.i64().unwrap_or(0);
        let fits = |n: i64| -> Option<usize> {
            let n = usize::try_from(n).ok()?;
            let bytes = n.checked_mul(SEGMENT_LEN)?;
            (bytes <= c.remaining()).then_some(n)
        };
        let (Some(nw), Some(nr)) = (fits(wc), fits(rc)) else {
            return Err(FormatError::new(
                region,
                Location::Decompressed(at as u64 + 88),
                format!(
                    "expected non-negative segment counts that fit in the {} remaining bytes, found write_count {wc}, read_count {rc} (corrupt or truncated)",
                    c.remaining()
                ),
            ));
        };
        if (nw + nr) * SEGMENT_LEN > c.remaining() {
            return Err(FormatError::new(
                region,
                Location::Decompressed(at as u64 + 88),
                format!(
                    "expected {} segments of {SEGMENT_LEN} bytes, only {} bytes remain (truncated)",
                    nw + nr,
                    c.remaining()
                ),
            ));
        }
        let seg = |c: &mut Cursor<'_>| {
            let offset = c.i64().unwrap_or(0);
            Segment {
                offset: if offsets_valid { offset } else { -1 },
                length: c.i64().unwrap_or(0),
                start: c.f64().unwrap_or(0.0),
                end: c.f64().unwrap_or(0.0),
            }
        };
        let writes = (0..nw).map(|_| seg(&mut c)).collect();
        let reads = (0..nr).map(|_| seg(&mut c)).collect();
        out.push(DxtRecord {
            id,
            rank,
            hostname,
            writes,
            reads,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(wc: i64, rc: i64, segs: usize) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend(1u64.to_le_bytes());
        v.extend(3i64.to_le_bytes());
        v.extend(0i64.to_le_bytes());
        let mut host = [0u8; 64];
        host[..4].copy_from_slice(b"nid1");
        v.extend(host);
        v.extend(wc.to_le_bytes());
        v.extend(rc.to_le_bytes());
        for i in 0..segs {
            v.extend((i as i64 * 10).to_le_bytes());
            v.extend(10i64.to_le_bytes());
            v.extend((i as f64).to_le_bytes());
            v.extend((i as f64 + 0.5).to_le_bytes());
        }
        v
    }

    #[test]
    fn parses_and_validates_counts() {
        let r = parse(&rec(2, 1, 3), false, "DXT_POSIX", 1, 1, true).unwrap();
        assert_eq!(r[0].hostname, "nid1");
        assert_eq!(r[0].writes.len(), 2);
        assert_eq!(r[0].reads[0].offset, 20);
        let r = parse(&rec(2, 1, 3), false, "DXT_MPIIO", 1, 2, false).unwrap();
        assert_eq!(r[0].reads[0].offset, -1);
        assert!(parse(&rec(2, 2, 3), false, "DXT_POSIX", 1, 1, true).is_err());
        assert!(parse(&rec(-1, 0, 0), false, "DXT_POSIX", 1, 1, true).is_err());
        let e = parse(&rec(i64::MAX, 0, 0), false, "DXT_POSIX", 1, 1, true).unwrap_err();
        assert_eq!(e.location, Location::Decompressed(88));
        assert!(parse(&rec(0, 0, 0)[..50], false, "DXT_POSIX", 1, 1, true).is_err());
        assert!(parse(&rec(0, 0, 0), false, "DXT_POSIX", 2, 1, true).is_err());
    }
}
