//! Processor sharing of a device's bandwidth among the requests in their transfer phase.
//!
//! Each request needs `D` picoseconds of exclusive device time (its bytes at its bandwidth plus
//! garbage-collection work) and has a weight `w` (the service slots it holds: 1 for a plain
//! request, up to `min(pieces, channels)` for a batch, see [`super::Ssd::submit_batch`]).
//! While requests of total weight `W` transfer, each receives `w/W` of the device. A virtual
//! clock `V` (exclusive picoseconds received per unit of weight, scaled by [`SCALE`]) advances
//! at `SCALE/W` per picosecond; a request that starts at `V₀` finishes when
//! `V = V₀ + D·SCALE/w`. With one request the finish time is exactly `D` after the start; with
//! all weights 1 this is plain processor sharing.

use bbsim_engine::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Virtual-time resolution: lcm(1..=16), so sharing is exact while the total weight of the
/// transferring requests is at most 16.
pub const SCALE: u128 = 720_720;

/// The processor-sharing state of one device.
#[derive(Clone, Debug, Default)]
pub struct Sharing {
    v: u128,
    last: Time,
    /// Sum of the weights of the active requests.
    weight: u128,
    /// The device is shared as if at least this much weight were transferring (the drives of
    /// a pooled array, see [`super::SsdConfig::drives`]; 0 or 1 for one drive).
    floor: u128,
    /// (virtual finish, id, weight) of every transferring request.
    active: BinaryHeap<Reverse<(u128, u32, u32)>>,
}

impl Sharing {
    /// The sharing state of a device of `drives` pooled drives: a request of weight `w`
    /// receives `w / max(total weight, drives)` of the device, so below `drives` slots in use
    /// each slot runs at one drive's share.
    pub fn with_drives(drives: u32) -> Self {
        Sharing {
            floor: u128::from(drives),
            ..Sharing::default()
        }
    }

    /// The weight the device is divided by: the active weight, at least the drive count.
    fn divisor(&self) -> u128 {
        self.weight.max(self.floor)
    }

    /// Requests currently transferring.
    pub fn active(&self) -> usize {
        self.active.len()
    }

    /// Total weight of the requests currently transferring.
    pub fn weight(&self) -> u128 {
        self.weight
    }

    /// Advances the virtual clock to real time `now` (ps).
    pub fn advance(&mut self, now: Time) {
        let k = self.divisor();
        if self.weight > 0 && now > self.last {
            self.v += u128::from(now - self.last) * SCALE / k;
        }
        self.last = self.last.max(now);
    }

    /// Starts request `id` of weight 1 needing `work` ps of exclusive device time, at `now`.
    pub fn add(&mut self, now: Time, id: u32, work: Time) {
        self.add_weighted(now, id, work, 1);
    }

    /// Starts request `id` of weight `weight` (treated as at least 1) needing `work` ps of
    /// exclusive device time, at `now`: alone it finishes `work` ps later; beside others it
    /// receives `weight / total weight` of the device.
    pub fn add_weighted(&mut self, now: Time, id: u32, work: Time, weight: u32) {
        self.advance(now);
        let w = weight.max(1);
        self.weight += u128::from(w);
        let need = (u128::from(work) * SCALE).div_ceil(u128::from(w));
        self.active.push(Reverse((self.v + need, id, w)));
    }

    /// Changes the weight of transferring request `id` to `weight` (at least 1) at `now`; the
    /// exclusive device time it still needs is kept. No effect if `id` is not transferring.
    pub fn reweight(&mut self, now: Time, id: u32, weight: u32) {
        self.advance(now);
        let w = weight.max(1);
        let mut entries = std::mem::take(&mut self.active).into_vec();
        for e in &mut entries {
            let Reverse((f, i, old)) = *e;
            if i == id {
                // Remaining exclusive ps (scaled by SCALE) = remaining virtual time x weight.
                let left = f.saturating_sub(self.v) * u128::from(old);
                self.weight = self.weight - u128::from(old) + u128::from(w);
                *e = Reverse((self.v + left.div_ceil(u128::from(w)), i, w));
            }
        }
        self.active = BinaryHeap::from(entries);
    }

    /// When the next request finishes, if any (absolute ps).
    pub fn next_finish(&self) -> Option<Time> {
        let Reverse((f, _, _)) = *self.active.peek()?;
        let k = self.divisor();
        let left = f.saturating_sub(self.v) * k;
        let dt = left.div_ceil(SCALE);
        Some(
            self.last
                .saturating_add(u64::try_from(dt).unwrap_or(Time::MAX)),
        )
    }

    /// When the next request finishes if requests join at known future times: `joins` are
    /// `(time, work, weight)` in the order [`Sharing::add_weighted`] would be called for them
    /// (nondecreasing times, none before the last advance). The arithmetic is exactly that of
    /// advancing and adding them in turn and then calling [`Sharing::next_finish`], stopping
    /// at the first request that finishes before (or when) the next one joins, so a device can
    /// keep one timer for its next completion instead of one event per join.
    pub fn next_finish_with_joins(&self, joins: &[(Time, Time, u32)]) -> Option<Time> {
        let (mut v, mut last, mut weight) = (self.v, self.last, self.weight);
        let mut head = self.active.peek().map(|Reverse((f, _, _))| *f);
        let finish = |f: u128, v: u128, last: Time, weight: u128| {
            let left = f.saturating_sub(v) * weight.max(self.floor);
            last.saturating_add(u64::try_from(left.div_ceil(SCALE)).unwrap_or(Time::MAX))
        };
        for &(t, work, w) in joins {
            if let Some(f) = head {
                let done = finish(f, v, last, weight);
                if done <= t {
                    return Some(done);
                }
            }
            if weight > 0 && t > last {
                v += u128::from(t - last) * SCALE / weight.max(self.floor);
            }
            last = last.max(t);
            let w = u128::from(w.max(1));
            weight += w;
            let f = v + (u128::from(work) * SCALE).div_ceil(w);
            head = Some(head.map_or(f, |h| h.min(f)));
        }
        head.map(|f| finish(f, v, last, weight))
    }

    /// Removes and returns the requests finished by real time `now`, in finish order.
    pub fn pop_finished(&mut self, now: Time, out: &mut Vec<u32>) {
        self.advance(now);
        while let Some(&Reverse((f, id, w))) = self.active.peek() {
            if f > self.v {
                break;
            }
            self.active.pop();
            self.weight -= u128::from(w);
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
    fn a_pooled_device_gives_fewer_slots_than_drives_one_drives_share_each() {
        // Four drives pooled: work is in exclusive ps of the whole (4-drive) device.
        let mut s = Sharing::with_drives(4);
        s.add_weighted(0, 0, 1_000, 1);
        assert_eq!(
            s.next_finish(),
            Some(4_000),
            "one slot runs at one drive's rate"
        );
        let mut out = Vec::new();
        s.pop_finished(4_000, &mut out);
        assert_eq!(out, vec![0]);
        s.add_weighted(10_000, 1, 1_000, 2);
        assert_eq!(s.next_finish(), Some(12_000), "two slots: two drives");
        s.pop_finished(12_000, &mut out);
        s.add_weighted(20_000, 2, 1_000, 4);
        assert_eq!(
            s.next_finish(),
            Some(21_000),
            "as many slots as drives: the whole device"
        );
        s.pop_finished(21_000, &mut out);
        s.add_weighted(30_000, 3, 1_000, 8);
        assert_eq!(
            s.next_finish(),
            Some(31_000),
            "more slots than drives: still the whole"
        );
        // One drive (the default) is plain processor sharing.
        let mut d = Sharing::with_drives(1);
        d.add_weighted(0, 0, 1_000, 1);
        assert_eq!(d.next_finish(), Some(1_000));
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

    #[test]
    fn a_weighted_request_gets_its_share_and_alone_is_exact() {
        // Weight 3 beside weight 1: the weighted request gets 3/4 of the device.
        let mut s = Sharing::default();
        s.add_weighted(0, 0, 3_000_001, 3);
        assert_eq!(s.next_finish(), Some(3_000_001));
        s.add(0, 1, 1_000_000);
        // Both need 4/3 of their work at their share: 4_000_001.33 and 4_000_000.
        assert_eq!(s.next_finish(), Some(4_000_000));
        let mut out = Vec::new();
        s.pop_finished(4_000_000, &mut out);
        assert_eq!(out, vec![1]);
        assert_eq!(s.weight(), 3);
        // Request 0 received 3_000_000 ps of service; 1 left alone.
        assert_eq!(s.next_finish(), Some(4_000_001));
        // Weight w with w equal requests' total work matches w plain requests started together.
        let mut a = Sharing::default();
        a.add_weighted(0, 0, 8 * 777_777, 8);
        let mut b = Sharing::default();
        for id in 0..8 {
            b.add(0, id, 777_777);
        }
        assert_eq!(a.next_finish(), b.next_finish());
    }

    #[test]
    fn the_forecast_with_joins_equals_joining_then_asking() {
        // Random request mixes: the forecast made before the joins equals next_finish after
        // advancing and adding them, or the first finish that comes before a join.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for case in 0..2_000 {
            let mut s = Sharing::with_drives(1 + (case % 3) as u32);
            let mut now = 0;
            for id in 0..rnd(4) as u32 {
                now += rnd(1_000);
                s.add_weighted(now, id, 1 + rnd(5_000_000), 1 + rnd(4) as u32);
            }
            let mut joins = Vec::new();
            let mut t = now;
            for _ in 0..rnd(4) {
                t += rnd(2_000_000);
                joins.push((t, 1 + rnd(5_000_000), 1 + rnd(4) as u32));
            }
            let forecast = s.next_finish_with_joins(&joins);
            let mut real = s.clone();
            let mut expected = None;
            for (k, &(t, work, w)) in joins.iter().enumerate() {
                if let Some(f) = real.next_finish() {
                    if f <= t {
                        expected = Some(f);
                        break;
                    }
                }
                real.add_weighted(t, 100 + k as u32, work, w);
            }
            let expected = expected.or_else(|| real.next_finish());
            assert_eq!(forecast, expected, "case {case}");
        }
        assert_eq!(Sharing::default().next_finish_with_joins(&[]), None);
    }

    #[test]
    fn reweighting_keeps_the_remaining_work() {
        // Weight 3 beside weight 5 (total 8): after 800 ps request 0 has received 300 of its
        // 1_500 ps; raised to weight 5 (total 10) it gets half the device: 2_400 ps more.
        let mut s = Sharing::default();
        s.add_weighted(0, 0, 1_500, 3);
        s.add_weighted(0, 1, 100_000, 5);
        s.reweight(800, 0, 5);
        assert_eq!(s.weight(), 10);
        assert_eq!(s.next_finish(), Some(800 + 2_400));
        s.reweight(800, 7, 2); // not transferring: nothing changes
        assert_eq!(s.weight(), 10);
    }
}
