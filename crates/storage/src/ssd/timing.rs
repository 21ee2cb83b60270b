//! Processor sharing of a device's bandwidth among the requests in their transfer phase.
//!
//! Each request needs `D` picoseconds of exclusive device time (its bytes at its bandwidth plus
//! garbage-collection work). While `k` requests transfer, each receives `1/k` of the device.
//! A virtual clock `V` (exclusive picoseconds received by every active request, scaled by
//! [`SCALE`]) advances at `SCALE/k` per picosecond; a request that starts at `V₀` finishes when
//! `V = V₀ + D·SCALE`. With one request the finish time is exactly `D` after the start.

use bbsim_engine::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Virtual-time resolution: lcm(1..=16), so sharing among up to 16 requests is exact.
pub const SCALE: u128 = 720_720;

/// The processor-sharing state of one device.
#[derive(Clone, Debug, Default)]
pub struct Sharing {
    v: u128,
    last: Time,
    active: BinaryHeap<Reverse<(u128, u32)>>,
}

impl Sharing {
    /// Requests currently transferring.
    pub fn active(&self) -> usize {
        self.active.len()
    }

    /// Advances the virtual clock to real time `now` (ps).
    pub fn advance(&mut self, now: Time) {
        let k = self.active.len() as u128;
        if k > 0 && now > self.last {
            self.v += u128::from(now - self.last) * SCALE / k;
        }
        self.last = self.last.max(now);
    }

    /// Starts request `id` needing `work` ps of exclusive device time, at `now`.
    pub fn add(&mut self, now: Time, id: u32, work: Time) {
        self.advance(now);
        self.active
            .push(Reverse((self.v + u128::from(work) * SCALE, id)));
    }

    /// When the next request finishes, if any (absolute ps).
    pub fn next_finish(&self) -> Option<Time> {
        let Reverse((f, _)) = *self.active.peek()?;
        let k = self.active.len() as u128;
        let left = f.saturating_sub(self.v) * k;
        let dt = left.div_ceil(SCALE);
        Some(
            self.last
                .saturating_add(u64::try_from(dt).unwrap_or(Time::MAX)),
        )
    }

    /// Removes and returns the requests finished by real time `now`, in finish order.
    pub fn pop_finished(&mut self, now: Time, out: &mut Vec<u32>) {
        self.advance(now);
        while let Some(&Reverse((f, id))) = self.active.peek() {
            if f > self.v {
                break;
            }
            self.active.pop();
            out.push(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_request_is_exact_and_sharing_halves_the_rate() {
        let mut s = Sharing::default();
        s.add(100, 0, 1_000_003);
        assert_eq!(s.next_finish(), Some(1_000_103));
        // A second request of the same work at time 100 + 500_000: both now run at half rate.
        s.add(500_100, 1, 1_000_003);
        // Request 0 has 500_003 ps of work left, at half rate: 1_000_006 more.
        assert_eq!(s.next_finish(), Some(500_100 + 1_000_006));
        let mut out = Vec::new();
        s.pop_finished(1_500_105, &mut out);
        assert!(out.is_empty());
        s.pop_finished(1_500_106, &mut out);
        assert_eq!(out, vec![0]);
        // Request 1 received 500_003 ps of service; 500_000 left alone.
        assert_eq!(s.next_finish(), Some(2_000_106));
        out.clear();
        s.pop_finished(2_000_106, &mut out);
        assert_eq!(out, vec![1]);
        assert_eq!(s.active(), 0);
        assert_eq!(s.next_finish(), None);
    }

    #[test]
    fn equal_requests_started_together_finish_together() {
        let mut s = Sharing::default();
        for id in 0..7 {
            s.add(0, id, 3_333_333);
        }
        assert_eq!(s.next_finish(), Some(7 * 3_333_333));
        let mut out = Vec::new();
        s.pop_finished(7 * 3_333_333, &mut out);
        assert_eq!(out.len(), 7);
    }
}
