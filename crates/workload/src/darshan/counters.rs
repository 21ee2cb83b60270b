//! Fixed-size counter records shared by the POSIX, MPI-IO and STDIO modules: a base record
//! (`u64 id`, `i64 rank`) followed by `int64` counters and `double` counters.

use super::bytes::Cursor;
use super::error::{FormatError, Location};

/// One counter record of a module: the file (`id`), the rank (`-1` for a record shared by
/// all ranks), `C` integer counters and `F` floating-point counters (seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct CounterRecord<const C: usize, const F: usize> {
    /// Record id (hash of the file name; see [`super::DarshanLog::names`]).
    pub id: u64,
    /// MPI rank, or -1 for a file shared by all ranks (reduced over ranks).
    pub rank: i64,
    /// Integer counters, in the order of the module's `COUNTER_NAMES`.
    pub counters: [i64; C],
    /// Floating-point counters, in the order of the module's `FCOUNTER_NAMES`.
    pub fcounters: [f64; F],
}

impl<const C: usize, const F: usize> CounterRecord<C, F> {
    /// Builds a record from counter values given in the current layout order.
    pub(crate) fn from_words(id: u64, rank: i64, ints: &[i64], floats: &[f64]) -> Self {
        let mut counters = [0i64; C];
        let mut fcounters = [0f64; F];
        for (d, s) in counters.iter_mut().zip(ints) {
            *d = *s;
        }
        for (d, s) in fcounters.iter_mut().zip(floats) {
            *d = *s;
        }
        CounterRecord {
            id,
            rank,
            counters,
            fcounters,
        }
    }
}

/// Splits `data` into records of `nints` int64 and `nfloats` double fields after the base
/// record and passes each to `build` (which may drop a record by returning `None`).
pub(crate) fn parse_records<T>(
    data: &[u8],
    big_endian: bool,
    region: &str,
    version: u32,
    nints: usize,
    nfloats: usize,
    mut build: impl FnMut(u64, i64, &[i64], &[f64]) -> Option<T>,
) -> Result<Vec<T>, FormatError> {
    let rec_len = 16 + 8 * (nints + nfloats);
    let whole = data.len() - data.len() % rec_len;
    if whole != data.len() {
        return Err(FormatError::new(
            region,
            Location::Decompressed(whole as u64),
            format!(
                "expected whole {rec_len}-byte records (module version {version}), the region holds {} bytes: {} trailing bytes (truncated or corrupt)",
                data.len(),
                data.len() - whole
            ),
        ));
    }
    let mut out = Vec::with_capacity(data.len() / rec_len);
    let mut c = Cursor::new(data, big_endian);
    let mut ints = vec![0i64; nints];
    let mut floats = vec![0f64; nfloats];
    while c.remaining() >= rec_len {
        let id = c.u64().unwrap_or(0);
        let rank = c.i64().unwrap_or(0);
        for v in ints.iter_mut() {
            *v = c.i64().unwrap_or(0);
        }
        for v in floats.iter_mut() {
            *v = c.f64().unwrap_or(0.0);
        }
        if let Some(r) = build(id, rank, &ints, &floats) {
            out.push(r);
        }
    }
    Ok(out)
}

/// Error for a module version this reader does not know.
pub(crate) fn unsupported_version(region: &str, version: u32, max: u32) -> FormatError {
    FormatError::new(
        region,
        Location::Decompressed(0),
        format!("expected module version 1 to {max}, found {version}"),
    )
}
