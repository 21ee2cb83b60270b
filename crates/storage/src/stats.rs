//! Per-device statistics: bytes, write amplification, wear, busy time and queue length.

use bbsim_engine::time::{Time, SEC};

/// Picoseconds in one day, for drive-writes-per-day.
pub const DAY: Time = 86_400 * SEC;

/// Queue length over time: the time-weighted mean per fixed interval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueTrace {
    /// Interval width (ps); 0 disables the trace.
    pub interval: Time,
    /// Integral of the queue length over each interval (operations × ps); divide by `interval`
    /// for the mean queue length in that interval.
    pub area: Vec<u128>,
}

impl QueueTrace {
    fn add(&mut self, from: Time, to: Time, len: u64) {
        if self.interval == 0 || len == 0 || to <= from {
            return;
        }
        let mut t = from;
        while t < to {
            let i = (t / self.interval) as usize;
            let end = ((i as u64 + 1) * self.interval).min(to);
            if self.area.len() <= i {
                self.area.resize(i + 1, 0);
            }
            self.area[i] += u128::from(len) * u128::from(end - t);
            t = end;
        }
    }

    /// Mean queue length in each interval.
    pub fn means(&self) -> Vec<f64> {
        self.area
            .iter()
            .map(|&a| a as f64 / self.interval.max(1) as f64)
            .collect()
    }
}

/// Counters of one storage device (an SSD, a PFS storage server).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceStats {
    /// Bytes the host asked to write.
    pub host_bytes_written: u64,
    /// Bytes the host asked to read.
    pub host_bytes_read: u64,
    /// Bytes programmed into NAND (host pages plus GC copies, whole mapping units). Equal to
    /// host bytes written when the device has no FTL.
    pub nand_bytes_written: u64,
    /// Bytes copied by garbage collection.
    pub gc_bytes_copied: u64,
    /// Erase blocks erased.
    pub erases: u64,
    /// Read operations submitted (each charged one per-operation overhead; every piece of a
    /// batched SSD request counts).
    pub reads: u64,
    /// Write operations submitted (each charged one per-operation overhead; every piece of a
    /// batched SSD request counts).
    pub writes: u64,
    /// Device requests submitted: a plain request and a whole batch of pieces count one each, so
    /// `reads + writes - requests` is the number of operations batching folded into others.
    /// (Stays 0 for devices without batching, such as PFS servers.)
    pub requests: u64,
    /// Total time with at least one request in the device (ps).
    pub busy_time: Time,
    /// Largest number of operations in the device (queued or in service) at once; a batch
    /// counts its pieces until the whole batch completes.
    pub max_queue: u64,
    /// Integral of the number of operations in the device over time (operations × ps); a
    /// batch counts its pieces until the whole batch completes.
    pub queue_area: u128,
    /// Queue length per interval.
    pub queue_trace: QueueTrace,
    current: u64,
    last_change: Time,
}

impl DeviceStats {
    /// Statistics with a queue trace of the given interval (ps, 0 for none).
    pub fn with_trace(interval: Time) -> Self {
        DeviceStats {
            queue_trace: QueueTrace {
                interval,
                area: Vec::new(),
            },
            ..DeviceStats::default()
        }
    }

    /// Operations in the device now.
    pub fn queue_len(&self) -> u64 {
        self.current
    }

    /// Records that the number of operations in the device changed by `delta` at `now`.
    pub(crate) fn queue_change(&mut self, now: Time, delta: i64) {
        let dt = now.saturating_sub(self.last_change);
        if self.current > 0 {
            self.busy_time += dt;
            self.queue_area += u128::from(self.current) * u128::from(dt);
            self.queue_trace.add(self.last_change, now, self.current);
        }
        self.last_change = self.last_change.max(now);
        self.current = self.current.saturating_add_signed(delta);
        self.max_queue = self.max_queue.max(self.current);
    }

    /// Brings the time integrals up to `now` (call before reporting).
    pub fn settle(&mut self, now: Time) {
        self.queue_change(now, 0);
    }

    /// NAND bytes per host byte written (1 when nothing was written).
    pub fn write_amplification(&self) -> f64 {
        if self.host_bytes_written == 0 {
            1.0
        } else {
            self.nand_bytes_written as f64 / self.host_bytes_written as f64
        }
    }

    /// Drive writes per day: host bytes written / capacity / (period in days).
    pub fn drive_writes_per_day(&self, capacity: u64, period: Time) -> f64 {
        if capacity == 0 || period == 0 {
            return 0.0;
        }
        self.host_bytes_written as f64 / capacity as f64 / (period as f64 / DAY as f64)
    }

    /// Mean number of requests in the device over `[0, period)`.
    pub fn mean_queue(&self, period: Time) -> f64 {
        if period == 0 {
            0.0
        } else {
            self.queue_area as f64 / period as f64
        }
    }

    /// Fraction of `period` the device was busy.
    pub fn utilisation(&self, period: Time) -> f64 {
        if period == 0 {
            0.0
        } else {
            self.busy_time as f64 / period as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_integrals_and_trace() {
        let mut s = DeviceStats::with_trace(10);
        s.queue_change(5, 1);
        s.queue_change(15, 1);
        s.queue_change(25, -2);
        s.settle(40);
        assert_eq!(s.busy_time, 20);
        assert_eq!(s.queue_area, 10 + 20);
        assert_eq!(s.max_queue, 2);
        assert_eq!(s.queue_trace.area, vec![5, 5 + 10, 10]);
        assert_eq!(s.queue_trace.means(), vec![0.5, 1.5, 1.0]);
        assert!((s.mean_queue(40) - 0.75).abs() < 1e-12);
        assert!((s.utilisation(40) - 0.5).abs() < 1e-12);
        s.host_bytes_written = 2 * 1000;
        s.nand_bytes_written = 3 * 1000;
        assert!((s.write_amplification() - 1.5).abs() < 1e-12);
        assert!((s.drive_writes_per_day(1000, DAY) - 2.0).abs() < 1e-12);
        assert_eq!(s.drive_writes_per_day(0, DAY), 0.0);
    }
}
