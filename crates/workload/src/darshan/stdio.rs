//! STDIO module records (versions 1 and 2), up-converted to the version-2 layout.
//!
//! Version 1 lacks `STDIO_FDOPENS` (set to -1).

use super::counters::{parse_records, unsupported_version, CounterRecord};
use super::error::FormatError;

/// A STDIO record in the version-2 layout.
pub type StdioRecord = CounterRecord<14, 15>;

/// Names of the STDIO integer counters, in record order.
pub const COUNTER_NAMES: [&str; 14] = [
    "STDIO_OPENS",
    "STDIO_FDOPENS",
    "STDIO_READS",
    "STDIO_WRITES",
    "STDIO_SEEKS",
    "STDIO_FLUSHES",
    "STDIO_BYTES_WRITTEN",
    "STDIO_BYTES_READ",
    "STDIO_MAX_BYTE_READ",
    "STDIO_MAX_BYTE_WRITTEN",
    "STDIO_FASTEST_RANK",
    "STDIO_FASTEST_RANK_BYTES",
    "STDIO_SLOWEST_RANK",
    "STDIO_SLOWEST_RANK_BYTES",
];
/// Names of the STDIO floating-point counters (seconds), in record order.
pub const FCOUNTER_NAMES: [&str; 15] = [
    "STDIO_F_META_TIME",
    "STDIO_F_WRITE_TIME",
    "STDIO_F_READ_TIME",
    "STDIO_F_OPEN_START_TIMESTAMP",
    "STDIO_F_CLOSE_START_TIMESTAMP",
    "STDIO_F_WRITE_START_TIMESTAMP",
    "STDIO_F_READ_START_TIMESTAMP",
    "STDIO_F_OPEN_END_TIMESTAMP",
    "STDIO_F_CLOSE_END_TIMESTAMP",
    "STDIO_F_WRITE_END_TIMESTAMP",
    "STDIO_F_READ_END_TIMESTAMP",
    "STDIO_F_FASTEST_RANK_TIME",
    "STDIO_F_SLOWEST_RANK_TIME",
    "STDIO_F_VARIANCE_RANK_TIME",
    "STDIO_F_VARIANCE_RANK_BYTES",
];

/// Index of `STDIO_OPENS`.
pub const OPENS: usize = 0;
/// Index of `STDIO_READS`.
pub const READS: usize = 2;
/// Index of `STDIO_WRITES`.
pub const WRITES: usize = 3;
/// Index of `STDIO_BYTES_WRITTEN`.
pub const BYTES_WRITTEN: usize = 6;
/// Index of `STDIO_BYTES_READ`.
pub const BYTES_READ: usize = 7;
/// Index of `STDIO_F_OPEN_START_TIMESTAMP`.
pub const F_OPEN_START: usize = 3;
/// Index of `STDIO_F_WRITE_START_TIMESTAMP`.
pub const F_WRITE_START: usize = 5;
/// Index of `STDIO_F_READ_START_TIMESTAMP`.
pub const F_READ_START: usize = 6;
/// Index of `STDIO_F_CLOSE_END_TIMESTAMP`.
pub const F_CLOSE_END: usize = 8;
/// Index of `STDIO_F_WRITE_END_TIMESTAMP`.
pub const F_WRITE_END: usize = 9;
/// Index of `STDIO_F_READ_END_TIMESTAMP`.
pub const F_READ_END: usize = 10;
/// Index of `STDIO_F_WRITE_TIME`.
pub const F_WRITE_TIME: usize = 1;
/// Index of `STDIO_F_READ_TIME`.
pub const F_READ_TIME: usize = 2;

pub(crate) fn parse(
    data: &[u8],
    big_endian: bool,
    version: u32,
) -> Result<Vec<StdioRecord>, FormatError> {
    const R: &str = "STDIO";
    match version {
        2 => parse_records(data, big_endian, R, version, 14, 15, |id, rank, c, f| {
            Some(StdioRecord::from_words(id, rank, c, f))
        }),
        1 => parse_records(data, big_endian, R, version, 13, 15, |id, rank, c, f| {
            let mut ints = c.to_vec();
            ints.insert(1, -1);
            Some(StdioRecord::from_words(id, rank, &ints, f))
        }),
        v => Err(unsupported_version(R, v, 2)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_constants_match_names() {
        assert_eq!(COUNTER_NAMES[OPENS], "STDIO_OPENS");
        assert_eq!(COUNTER_NAMES[READS], "STDIO_READS");
        assert_eq!(COUNTER_NAMES[WRITES], "STDIO_WRITES");
        assert_eq!(COUNTER_NAMES[BYTES_WRITTEN], "STDIO_BYTES_WRITTEN");
        assert_eq!(COUNTER_NAMES[BYTES_READ], "STDIO_BYTES_READ");
        assert_eq!(FCOUNTER_NAMES[F_OPEN_START], "STDIO_F_OPEN_START_TIMESTAMP");
        assert_eq!(
            FCOUNTER_NAMES[F_WRITE_START],
            "STDIO_F_WRITE_START_TIMESTAMP"
        );
        assert_eq!(FCOUNTER_NAMES[F_READ_START], "STDIO_F_READ_START_TIMESTAMP");
        assert_eq!(FCOUNTER_NAMES[F_CLOSE_END], "STDIO_F_CLOSE_END_TIMESTAMP");
        assert_eq!(FCOUNTER_NAMES[F_WRITE_END], "STDIO_F_WRITE_END_TIMESTAMP");
        assert_eq!(FCOUNTER_NAMES[F_READ_END], "STDIO_F_READ_END_TIMESTAMP");
        assert_eq!(FCOUNTER_NAMES[F_WRITE_TIME], "STDIO_F_WRITE_TIME");
        assert_eq!(FCOUNTER_NAMES[F_READ_TIME], "STDIO_F_READ_TIME");
    }
}
