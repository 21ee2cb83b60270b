//! Per-rank I/O totals, accumulated as operations finish, so that `ranks.csv`, the job summaries,
//! the conservation check and the timeline plot need no per-operation record. Records
//! ([`super::OpRecord`], 48 bytes each) are kept only when `timeline.csv` is written; a
//! full-scale IOR run has tens of millions of operations.

use bbsim_engine::Time;

/// One rank's I/O so far. Times in ps, sizes in bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankIo {
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// I/O operations (including zero-byte ones and read-cache hits).
    pub io_ops: u64,
    /// Sum of the operations' durations (ps).
    pub time_in_io: Time,
    /// First operation start (ps).
    pub first_io_start: Option<Time>,
    /// Last operation end (ps).
    pub last_io_end: Option<Time>,
    /// Operations that crossed the network (to BB servers or the PFS).
    pub net_ops: u64,
    /// Sum of those operations' request-path router hops.
    pub net_hops: u64,
    /// Time its writes waited for room on a full device (ps; part of `time_in_io`).
    pub time_stalled: Time,
    /// When its writes waited for room on a full device: `[start, end)` in ps per write that
    /// waited, in completion order (for the timeline plot).
    pub stalls: Vec<(Time, Time)>,
    /// Time it waited for the PFS metadata server: opens, closes and deletes of PFS files
    /// (ps; part of `time_in_io`, not counted in `io_ops`).
    pub time_in_metadata: Time,
    /// Busy intervals `[start, end)` in ps before the last one, with the bytes their
    /// operations moved, in completion order.
    closed: Vec<(Time, Time, u64)>,
    /// The last busy interval, kept inline: a stream of back-to-back operations extends it
    /// without touching `closed` (one cache line per operation at full scale, not two).
    last: Option<(Time, Time, u64)>,
}

impl RankIo {
    /// Adds one finished operation of `bytes` (written if `write`), `[start, end)`, with
    /// `hops` router hops if it crossed the network.
    pub fn add(&mut self, write: bool, bytes: u64, start: Time, end: Time, net_hops: Option<u16>) {
        if write {
            self.bytes_written += bytes;
        } else {
            self.bytes_read += bytes;
        }
        self.io_ops += 1;
        if let Some(h) = net_hops {
            self.net_ops += 1;
            self.net_hops += u64::from(h);
        }
        self.busy_from(start, end, bytes);
    }

    /// Adds one metadata operation, `[start, end)`: I/O time without bytes or an operation.
    pub fn add_metadata(&mut self, start: Time, end: Time) {
        self.time_in_metadata += end - start;
        self.busy_from(start, end, 0);
    }

    /// Adds `[start, end)`, in which `bytes` moved, to the time in I/O and the busy intervals.
    fn busy_from(&mut self, start: Time, end: Time, bytes: u64) {
        self.time_in_io += end - start;
        self.first_io_start = Some(self.first_io_start.map_or(start, |s| s.min(start)));
        self.last_io_end = Some(self.last_io_end.map_or(end, |e| e.max(end)));
        match self.last.as_mut() {
            Some(last) if last.1 == start && end > start => {
                last.1 = end;
                last.2 += bytes;
            }
            Some(last) => self
                .closed
                .push(std::mem::replace(last, (start, end, bytes))),
            None => self.last = Some((start, end, bytes)),
        }
    }

    /// Busy intervals `[start, end)` in ps, in completion order, an operation that starts
    /// when the previous one ended extending it (for the timeline plot).
    pub fn busy(&self) -> impl Iterator<Item = (Time, Time)> + '_ {
        self.busy_bytes().map(|(a, b, _)| (a, b))
    }

    /// [`Self::busy`] with the bytes (written and read) of each interval's operations (for
    /// the per-phase bandwidth).
    pub fn busy_bytes(&self) -> impl Iterator<Item = (Time, Time, u64)> + '_ {
        self.closed.iter().copied().chain(self.last)
    }
}

/// Bytes a node's ranks wrote, by where they went (for the conservation check).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WrittenTo {
    /// To the node-local SSD.
    pub local: u64,
    /// To BB servers.
    pub bb: u64,
    /// Straight to the PFS.
    pub pfs: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_and_merged_busy_intervals() {
        let mut r = RankIo::default();
        r.add(true, 10, 5, 8, Some(3));
        r.add(true, 10, 8, 12, Some(5));
        r.add(false, 4, 20, 21, None);
        r.add(false, 0, 21, 21, None);
        assert_eq!((r.bytes_written, r.bytes_read, r.io_ops), (20, 4, 4));
        assert_eq!(r.time_in_io, 3 + 4 + 1);
        assert_eq!((r.first_io_start, r.last_io_end), (Some(5), Some(21)));
        assert_eq!((r.net_ops, r.net_hops), (2, 8));
        assert_eq!(
            r.busy().collect::<Vec<_>>(),
            vec![(5, 12), (20, 21), (21, 21)]
        );
        assert_eq!(
            r.busy_bytes().collect::<Vec<_>>(),
            vec![(5, 12, 20), (20, 21, 4), (21, 21, 0)]
        );
        // A metadata operation right after extends the last interval, with no operation.
        r.add_metadata(21, 30);
        assert_eq!((r.io_ops, r.time_in_io, r.time_in_metadata), (4, 17, 9));
        assert_eq!(r.busy().last(), Some((21, 30)));
    }
}
