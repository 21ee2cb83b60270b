//! MPI-IO module records (versions 1 to 3), up-converted to the version-3 layout.
//!
//! Versions 1 and 2 lack `F_CLOSE_START_TIMESTAMP` and `F_OPEN_END_TIMESTAMP` (set to -1).

use super::counters::{parse_records, unsupported_version, CounterRecord};
use super::error::FormatError;

/// An MPI-IO record in the version-3 layout.
pub type MpiioRecord = CounterRecord<51, 17>;

/// Names of the MPI-IO integer counters, in record order.
pub const COUNTER_NAMES: [&str; 51] = [
    "MPIIO_INDEP_OPENS",
    "MPIIO_COLL_OPENS",
    "MPIIO_INDEP_READS",
    "MPIIO_INDEP_WRITES",
    "MPIIO_COLL_READS",
    "MPIIO_COLL_WRITES",
    "MPIIO_SPLIT_READS",
    "MPIIO_SPLIT_WRITES",
    "MPIIO_NB_READS",
    "MPIIO_NB_WRITES",
    "MPIIO_SYNCS",
    "MPIIO_HINTS",
    "MPIIO_VIEWS",
    "MPIIO_MODE",
    "MPIIO_BYTES_READ",
    "MPIIO_BYTES_WRITTEN",
    "MPIIO_RW_SWITCHES",
    "MPIIO_MAX_READ_TIME_SIZE",
    "MPIIO_MAX_WRITE_TIME_SIZE",
    "MPIIO_SIZE_READ_AGG_0_100",
    "MPIIO_SIZE_READ_AGG_100_1K",
    "MPIIO_SIZE_READ_AGG_1K_10K",
    "MPIIO_SIZE_READ_AGG_10K_100K",
    "MPIIO_SIZE_READ_AGG_100K_1M",
    "MPIIO_SIZE_READ_AGG_1M_4M",
    "MPIIO_SIZE_READ_AGG_4M_10M",
    "MPIIO_SIZE_READ_AGG_10M_100M",
    "MPIIO_SIZE_READ_AGG_100M_1G",
    "MPIIO_SIZE_READ_AGG_1G_PLUS",
    "MPIIO_SIZE_WRITE_AGG_0_100",
    "MPIIO_SIZE_WRITE_AGG_100_1K",
    "MPIIO_SIZE_WRITE_AGG_1K_10K",
    "MPIIO_SIZE_WRITE_AGG_10K_100K",
    "MPIIO_SIZE_WRITE_AGG_100K_1M",
    "MPIIO_SIZE_WRITE_AGG_1M_4M",
    "MPIIO_SIZE_WRITE_AGG_4M_10M",
    "MPIIO_SIZE_WRITE_AGG_10M_100M",
    "MPIIO_SIZE_WRITE_AGG_100M_1G",
    "MPIIO_SIZE_WRITE_AGG_1G_PLUS",
    "MPIIO_ACCESS1_ACCESS",
    "MPIIO_ACCESS2_ACCESS",
    "MPIIO_ACCESS3_ACCESS",
    "MPIIO_ACCESS4_ACCESS",
    "MPIIO_ACCESS1_COUNT",
    "MPIIO_ACCESS2_COUNT",
    "MPIIO_ACCESS3_COUNT",
    "MPIIO_ACCESS4_COUNT",
    "MPIIO_FASTEST_RANK",
    "MPIIO_FASTEST_RANK_BYTES",
    "MPIIO_SLOWEST_RANK",
    "MPIIO_SLOWEST_RANK_BYTES",
];
/// Names of the MPI-IO floating-point counters (seconds), in record order.
pub const FCOUNTER_NAMES: [&str; 17] = [
    "MPIIO_F_OPEN_START_TIMESTAMP",
    "MPIIO_F_READ_START_TIMESTAMP",
    "MPIIO_F_WRITE_START_TIMESTAMP",
    "MPIIO_F_CLOSE_START_TIMESTAMP",
    "MPIIO_F_OPEN_END_TIMESTAMP",
    "MPIIO_F_READ_END_TIMESTAMP",
    "MPIIO_F_WRITE_END_TIMESTAMP",
    "MPIIO_F_CLOSE_END_TIMESTAMP",
    "MPIIO_F_READ_TIME",
    "MPIIO_F_WRITE_TIME",
    "MPIIO_F_META_TIME",
    "MPIIO_F_MAX_READ_TIME",
    "MPIIO_F_MAX_WRITE_TIME",
    "MPIIO_F_FASTEST_RANK_TIME",
    "MPIIO_F_SLOWEST_RANK_TIME",
    "MPIIO_F_VARIANCE_RANK_TIME",
    "MPIIO_F_VARIANCE_RANK_BYTES",
];

/// Indices of the read-operation counters (independent, collective, split, non-blocking).
pub const READ_OPS: [usize; 4] = [2, 4, 6, 8];
/// Indices of the write-operation counters (independent, collective, split, non-blocking).
pub const WRITE_OPS: [usize; 4] = [3, 5, 7, 9];
/// Index of `MPIIO_BYTES_READ`.
pub const BYTES_READ: usize = 14;
/// Index of `MPIIO_BYTES_WRITTEN`.
pub const BYTES_WRITTEN: usize = 15;
/// Index of `MPIIO_SIZE_READ_AGG_0_100`, first of the 10 read-size histogram bins.
pub const SIZE_READ_AGG_0_100: usize = 19;
/// Index of `MPIIO_SIZE_WRITE_AGG_0_100`, first of the 10 write-size histogram bins.
pub const SIZE_WRITE_AGG_0_100: usize = 29;
/// Index of `MPIIO_ACCESS1_ACCESS`.
pub const ACCESS1_ACCESS: usize = 39;
/// Index of `MPIIO_ACCESS1_COUNT`.
pub const ACCESS1_COUNT: usize = 43;

/// Reads (all kinds) counted in an MPI-IO record (saturating sum).
pub fn reads(r: &MpiioRecord) -> i64 {
    READ_OPS
        .iter()
        .fold(0i64, |a, &i| a.saturating_add(r.counters[i]))
}

/// Writes (all kinds) counted in an MPI-IO record (saturating sum).
pub fn writes(r: &MpiioRecord) -> i64 {
    WRITE_OPS
        .iter()
        .fold(0i64, |a, &i| a.saturating_add(r.counters[i]))
}

pub(crate) fn parse(
    data: &[u8],
    big_endian: bool,
    version: u32,
) -> Result<Vec<MpiioRecord>, FormatError> {
    const R: &str = "MPI-IO";
    match version {
        3 => parse_records(data, big_endian, R, version, 51, 17, |id, rank, c, f| {
            Some(MpiioRecord::from_words(id, rank, c, f))
        }),
        1 | 2 => parse_records(data, big_endian, R, version, 51, 15, |id, rank, c, f| {
            let mut floats = f.to_vec();
            floats.splice(3..3, [-1.0, -1.0]);
            Some(MpiioRecord::from_words(id, rank, c, &floats))
        }),
        v => Err(unsupported_version(R, v, 3)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_constants_match_names() {
        for (i, n) in READ_OPS.iter().zip(["INDEP", "COLL", "SPLIT", "NB"]) {
            assert_eq!(COUNTER_NAMES[*i], format!("MPIIO_{n}_READS"));
        }
        for (i, n) in WRITE_OPS.iter().zip(["INDEP", "COLL", "SPLIT", "NB"]) {
            assert_eq!(COUNTER_NAMES[*i], format!("MPIIO_{n}_WRITES"));
        }
        assert_eq!(COUNTER_NAMES[BYTES_READ], "MPIIO_BYTES_READ");
        assert_eq!(COUNTER_NAMES[BYTES_WRITTEN], "MPIIO_BYTES_WRITTEN");
        assert_eq!(
            COUNTER_NAMES[SIZE_READ_AGG_0_100],
            "MPIIO_SIZE_READ_AGG_0_100"
        );
        assert_eq!(
            COUNTER_NAMES[SIZE_WRITE_AGG_0_100],
            "MPIIO_SIZE_WRITE_AGG_0_100"
        );
        assert_eq!(COUNTER_NAMES[ACCESS1_ACCESS], "MPIIO_ACCESS1_ACCESS");
        assert_eq!(COUNTER_NAMES[ACCESS1_COUNT], "MPIIO_ACCESS1_COUNT");
        assert_eq!(FCOUNTER_NAMES[3], "MPIIO_F_CLOSE_START_TIMESTAMP");
    }
}
