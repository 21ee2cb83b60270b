//! POSIX module records (versions 1 to 4), up-converted to the version-4 layout exactly as
//! darshan-util does.
//!
//! * v4 (darshan 3.2+): 69 counters, 17 fcounters.
//! * v3: no `FILENOS`, `DUPS` (set to -1), `RENAME_SOURCES`, `RENAME_TARGETS` (-1) and
//!   `RENAMED_FROM` (0): 64 counters.
//! * v2: also no `F_CLOSE_START_TIMESTAMP`, `F_OPEN_END_TIMESTAMP` (set to -1): 15 fcounters.
//! * v1: 68 counters, four STDIO counters at 6..9; records whose fopen count is non-zero
//!   cannot be converted and are dropped (darshan-util drops them too).

use super::counters::{parse_records, unsupported_version, CounterRecord};
use super::error::FormatError;

/// A POSIX record in the version-4 layout.
pub type PosixRecord = CounterRecord<69, 17>;

/// Names of the POSIX integer counters, in record order.
pub const COUNTER_NAMES: [&str; 69] = [
    "POSIX_OPENS",
    "POSIX_FILENOS",
    "POSIX_DUPS",
    "POSIX_READS",
    "POSIX_WRITES",
    "POSIX_SEEKS",
    "POSIX_STATS",
    "POSIX_MMAPS",
    "POSIX_FSYNCS",
    "POSIX_FDSYNCS",
    "POSIX_RENAME_SOURCES",
    "POSIX_RENAME_TARGETS",
    "POSIX_RENAMED_FROM",
    "POSIX_MODE",
    "POSIX_BYTES_READ",
    "POSIX_BYTES_WRITTEN",
    "POSIX_MAX_BYTE_READ",
    "POSIX_MAX_BYTE_WRITTEN",
    "POSIX_CONSEC_READS",
    "POSIX_CONSEC_WRITES",
    "POSIX_SEQ_READS",
    "POSIX_SEQ_WRITES",
    "POSIX_RW_SWITCHES",
    "POSIX_MEM_NOT_ALIGNED",
    "POSIX_MEM_ALIGNMENT",
    "POSIX_FILE_NOT_ALIGNED",
    "POSIX_FILE_ALIGNMENT",
    "POSIX_MAX_READ_TIME_SIZE",
    "POSIX_MAX_WRITE_TIME_SIZE",
    "POSIX_SIZE_READ_0_100",
    "POSIX_SIZE_READ_100_1K",
    "POSIX_SIZE_READ_1K_10K",
    "POSIX_SIZE_READ_10K_100K",
    "POSIX_SIZE_READ_100K_1M",
    "POSIX_SIZE_READ_1M_4M",
    "POSIX_SIZE_READ_4M_10M",
    "POSIX_SIZE_READ_10M_100M",
    "POSIX_SIZE_READ_100M_1G",
    "POSIX_SIZE_READ_1G_PLUS",
    "POSIX_SIZE_WRITE_0_100",
    "POSIX_SIZE_WRITE_100_1K",
    "POSIX_SIZE_WRITE_1K_10K",
    "POSIX_SIZE_WRITE_10K_100K",
    "POSIX_SIZE_WRITE_100K_1M",
    "POSIX_SIZE_WRITE_1M_4M",
    "POSIX_SIZE_WRITE_4M_10M",
    "POSIX_SIZE_WRITE_10M_100M",
    "POSIX_SIZE_WRITE_100M_1G",
    "POSIX_SIZE_WRITE_1G_PLUS",
    "POSIX_STRIDE1_STRIDE",
    "POSIX_STRIDE2_STRIDE",
    "POSIX_STRIDE3_STRIDE",
    "POSIX_STRIDE4_STRIDE",
    "POSIX_STRIDE1_COUNT",
    "POSIX_STRIDE2_COUNT",
    "POSIX_STRIDE3_COUNT",
    "POSIX_STRIDE4_COUNT",
    "POSIX_ACCESS1_ACCESS",
    "POSIX_ACCESS2_ACCESS",
    "POSIX_ACCESS3_ACCESS",
    "POSIX_ACCESS4_ACCESS",
    "POSIX_ACCESS1_COUNT",
    "POSIX_ACCESS2_COUNT",
    "POSIX_ACCESS3_COUNT",
    "POSIX_ACCESS4_COUNT",
    "POSIX_FASTEST_RANK",
    "POSIX_FASTEST_RANK_BYTES",
    "POSIX_SLOWEST_RANK",
    "POSIX_SLOWEST_RANK_BYTES",
];
/// Names of the POSIX floating-point counters (seconds), in record order.
pub const FCOUNTER_NAMES: [&str; 17] = [
    "POSIX_F_OPEN_START_TIMESTAMP",
    "POSIX_F_READ_START_TIMESTAMP",
    "POSIX_F_WRITE_START_TIMESTAMP",
    "POSIX_F_CLOSE_START_TIMESTAMP",
    "POSIX_F_OPEN_END_TIMESTAMP",
    "POSIX_F_READ_END_TIMESTAMP",
    "POSIX_F_WRITE_END_TIMESTAMP",
    "POSIX_F_CLOSE_END_TIMESTAMP",
    "POSIX_F_READ_TIME",
    "POSIX_F_WRITE_TIME",
    "POSIX_F_META_TIME",
    "POSIX_F_MAX_READ_TIME",
    "POSIX_F_MAX_WRITE_TIME",
    "POSIX_F_FASTEST_RANK_TIME",
    "POSIX_F_SLOWEST_RANK_TIME",
    "POSIX_F_VARIANCE_RANK_TIME",
    "POSIX_F_VARIANCE_RANK_BYTES",
];

/// Index of `POSIX_OPENS`.
pub const OPENS: usize = 0;
/// Index of `POSIX_READS`.
pub const READS: usize = 3;
/// Index of `POSIX_WRITES`.
pub const WRITES: usize = 4;
/// Index of `POSIX_BYTES_READ`.
pub const BYTES_READ: usize = 14;
/// Index of `POSIX_BYTES_WRITTEN`.
pub const BYTES_WRITTEN: usize = 15;
/// Index of `POSIX_MAX_BYTE_READ`.
pub const MAX_BYTE_READ: usize = 16;
/// Index of `POSIX_MAX_BYTE_WRITTEN`.
pub const MAX_BYTE_WRITTEN: usize = 17;
/// Index of `POSIX_SIZE_READ_0_100`, first of the 10 read-size histogram bins.
pub const SIZE_READ_0_100: usize = 29;
/// Index of `POSIX_SIZE_WRITE_0_100`, first of the 10 write-size histogram bins.
pub const SIZE_WRITE_0_100: usize = 39;
/// Index of `POSIX_ACCESS1_ACCESS`, first of the 4 most common access sizes.
pub const ACCESS1_ACCESS: usize = 57;
/// Index of `POSIX_ACCESS1_COUNT`, first of the counts of the 4 most common access sizes.
pub const ACCESS1_COUNT: usize = 61;
/// Index of `POSIX_F_OPEN_START_TIMESTAMP`.
pub const F_OPEN_START: usize = 0;
/// Index of `POSIX_F_READ_START_TIMESTAMP`.
pub const F_READ_START: usize = 1;
/// Index of `POSIX_F_WRITE_START_TIMESTAMP`.
pub const F_WRITE_START: usize = 2;
/// Index of `POSIX_F_READ_END_TIMESTAMP`.
pub const F_READ_END: usize = 5;
/// Index of `POSIX_F_WRITE_END_TIMESTAMP`.
pub const F_WRITE_END: usize = 6;
/// Index of `POSIX_F_CLOSE_END_TIMESTAMP`.
pub const F_CLOSE_END: usize = 7;
/// Index of `POSIX_F_READ_TIME`.
pub const F_READ_TIME: usize = 8;
/// Index of `POSIX_F_WRITE_TIME`.
pub const F_WRITE_TIME: usize = 9;

pub(crate) fn parse(
    data: &[u8],
    big_endian: bool,
    version: u32,
) -> Result<(Vec<PosixRecord>, u64), FormatError> {
    const R: &str = "POSIX";
    let mut dropped = 0u64;
    let recs = match version {
        4 => parse_records(data, big_endian, R, version, 69, 17, |id, rank, c, f| {
            Some(PosixRecord::from_words(id, rank, c, f))
        })?,
        1..=3 => {
            let nints = if version == 1 { 68 } else { 64 };
            let nfloats = if version == 3 { 17 } else { 15 };
            parse_records(
                data,
                big_endian,
                R,
                version,
                nints,
                nfloats,
                |id, rank, c, f| {
                    let mut c64: Vec<i64> = c.to_vec();
                    if version == 1 {
                        if c64[6] > 0 {
                            dropped += 1;
                            return None;
                        }
                        c64.drain(6..10);
                    }
                    let mut ints = Vec::with_capacity(69);
                    ints.push(c64[0]);
                    ints.extend([-1, -1]);
                    ints.extend_from_slice(&c64[1..8]);
                    ints.extend([-1, -1, 0]);
                    ints.extend_from_slice(&c64[8..]);
                    let mut floats = f.to_vec();
                    if version <= 2 {
                        floats.splice(3..3, [-1.0, -1.0]);
                    }
                    Some(PosixRecord::from_words(id, rank, &ints, &floats))
                },
            )?
        }
        v => return Err(unsupported_version(R, v, 4)),
    };
    Ok((recs, dropped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_constants_match_names() {
        assert_eq!(COUNTER_NAMES[OPENS], "POSIX_OPENS");
        assert_eq!(COUNTER_NAMES[READS], "POSIX_READS");
        assert_eq!(COUNTER_NAMES[WRITES], "POSIX_WRITES");
        assert_eq!(COUNTER_NAMES[BYTES_READ], "POSIX_BYTES_READ");
        assert_eq!(COUNTER_NAMES[BYTES_WRITTEN], "POSIX_BYTES_WRITTEN");
        assert_eq!(COUNTER_NAMES[MAX_BYTE_READ], "POSIX_MAX_BYTE_READ");
        assert_eq!(COUNTER_NAMES[MAX_BYTE_WRITTEN], "POSIX_MAX_BYTE_WRITTEN");
        assert_eq!(COUNTER_NAMES[SIZE_READ_0_100], "POSIX_SIZE_READ_0_100");
        assert_eq!(COUNTER_NAMES[SIZE_WRITE_0_100], "POSIX_SIZE_WRITE_0_100");
        assert_eq!(COUNTER_NAMES[ACCESS1_ACCESS], "POSIX_ACCESS1_ACCESS");
        assert_eq!(COUNTER_NAMES[ACCESS1_COUNT], "POSIX_ACCESS1_COUNT");
        assert_eq!(FCOUNTER_NAMES[F_OPEN_START], "POSIX_F_OPEN_START_TIMESTAMP");
        assert_eq!(FCOUNTER_NAMES[F_READ_START], "POSIX_F_READ_START_TIMESTAMP");
        assert_eq!(
            FCOUNTER_NAMES[F_WRITE_START],
            "POSIX_F_WRITE_START_TIMESTAMP"
        );
        assert_eq!(FCOUNTER_NAMES[F_READ_END], "POSIX_F_READ_END_TIMESTAMP");
        assert_eq!(FCOUNTER_NAMES[F_WRITE_END], "POSIX_F_WRITE_END_TIMESTAMP");
        assert_eq!(FCOUNTER_NAMES[F_CLOSE_END], "POSIX_F_CLOSE_END_TIMESTAMP");
        assert_eq!(FCOUNTER_NAMES[F_READ_TIME], "POSIX_F_READ_TIME");
        assert_eq!(FCOUNTER_NAMES[F_WRITE_TIME], "POSIX_F_WRITE_TIME");
    }
}
