//! Negative cumulative times. Darshan's runtime can record a `*_F_READ_TIME` or
//! `*_F_WRITE_TIME` counter (the seconds a rank spent reading or writing a file) below zero, from its clock
//! arithmetic on STDIO streams. A duration cannot be negative, so the replay reads such a
//! counter as unknown; this module finds them so that the reading is said, not silent.

use super::counters::CounterRecord;
use super::{mpiio, posix, stdio, DarshanLog};
use std::fmt;

/// The records of one module whose cumulative-time counter `counter` is negative.
#[derive(Debug, Clone, PartialEq)]
pub struct NegativeTime {
    /// Module name (`POSIX`, `MPI-IO`, `STDIO`).
    pub module: &'static str,
    /// Counter name, e.g. `STDIO_F_WRITE_TIME`.
    pub counter: &'static str,
    /// How many records hold a negative value of it.
    pub records: usize,
    /// The most negative value, in seconds.
    pub lowest: f64,
    /// Index (in the module's records) and rank of the first such record.
    pub first: (usize, i64),
}

impl fmt::Display for NegativeTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} record(s) hold a negative {} (lowest {} s; first: record {}, rank {}); a duration cannot be negative, so it is read as unknown",
            self.records, self.module, self.counter, self.lowest, self.first.0, self.first.1
        )
    }
}

/// Every negative cumulative read or write time (`*_F_READ_TIME`, `*_F_WRITE_TIME`: the times
/// the replay reads) of the POSIX, MPI-IO and STDIO records of `log`, one entry per module and
/// counter, in module and counter order.
pub fn negative_times(log: &DarshanLog) -> Vec<NegativeTime> {
    let mut out = Vec::new();
    scan(&mut out, "POSIX", &posix::FCOUNTER_NAMES, &log.posix);
    scan(&mut out, "MPI-IO", &mpiio::FCOUNTER_NAMES, &log.mpiio);
    scan(&mut out, "STDIO", &stdio::FCOUNTER_NAMES, &log.stdio);
    out
}

fn scan<const C: usize, const F: usize>(
    out: &mut Vec<NegativeTime>,
    module: &'static str,
    names: &[&'static str],
    records: &[CounterRecord<C, F>],
) {
    for (k, &counter) in names.iter().enumerate().take(F) {
        if !(counter.ends_with("_F_READ_TIME") || counter.ends_with("_F_WRITE_TIME")) {
            continue;
        }
        let mut found: Option<NegativeTime> = None;
        for (i, r) in records.iter().enumerate() {
            let v = r.fcounters[k];
            if v < 0.0 {
                let n = found.get_or_insert(NegativeTime {
                    module,
                    counter,
                    records: 0,
                    lowest: v,
                    first: (i, r.rank),
                });
                n.records += 1;
                n.lowest = n.lowest.min(v);
            }
        }
        out.extend(found);
    }
}
