//! How full a device got over time: the exact peak (bytes and when) and a thinned record of
//! the occupancy, for sizing reports and the occupancy plot.
//!
//! The record keeps a point whenever the occupancy has moved by at least 1/[`RESOLUTION`] of
//! the capacity since the last point kept, so a run that fills and empties a device keeps at
//! most a few hundred points per cycle, not one per write. Read as a step function, the record
//! is within capacity/[`RESOLUTION`] bytes of the true occupancy at every instant; the peak is
//! kept exactly on its own.

use bbsim_engine::Time;

/// Fraction of the capacity (1/`RESOLUTION`) the occupancy must move before a point is kept.
pub const RESOLUTION: u64 = 256;

/// The occupancy history of one device (an SSD, a BB server, a node-local SSD).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OccupancyLog {
    step: u64,
    current: u64,
    peak: u64,
    peak_at: Time,
    points: Vec<(Time, u64)>,
}

impl OccupancyLog {
    /// An empty log for a device of `capacity` bytes.
    pub fn new(capacity: u64) -> Self {
        OccupancyLog {
            step: (capacity / RESOLUTION).max(1),
            ..OccupancyLog::default()
        }
    }

    /// The occupancy is `used` bytes from `now` (ps) on.
    pub fn set(&mut self, now: Time, used: u64) {
        self.current = used;
        let new_peak = used > self.peak;
        if new_peak {
            self.peak = used;
            self.peak_at = now;
        }
        let last = self.points.last().map_or(0, |p| p.1);
        if used.abs_diff(last) >= self.step || used == 0 && last != 0 {
            match self.points.last_mut() {
                Some(p) if p.0 == now => p.1 = used,
                _ => self.points.push((now, used)),
            }
        }
    }

    /// Bytes in use now.
    pub fn current(&self) -> u64 {
        self.current
    }

    /// The largest occupancy reached (bytes).
    pub fn peak(&self) -> u64 {
        self.peak
    }

    /// When the peak was first reached (ps; 0 if the device was never written).
    pub fn peak_at(&self) -> Time {
        self.peak_at
    }

    /// The kept points (time ps, bytes in use from then on), in time order.
    pub fn points(&self) -> &[(Time, u64)] {
        &self.points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_is_exact_and_small_moves_are_thinned() {
        let mut o = OccupancyLog::new(256 * 10);
        for t in 1..=100u64 {
            o.set(t, t); // one byte at a time: a point every 10 bytes (the step)
        }
        o.set(200, 95);
        o.set(300, 0);
        assert_eq!((o.peak(), o.peak_at()), (100, 100));
        assert_eq!(o.current(), 0);
        // Ten points on the way up; the 5-byte drop is under the 10-byte step; the return to
        // empty is kept.
        assert_eq!(o.points().len(), 11);
        assert_eq!(o.points()[9], (100, 100));
        assert_eq!(o.points().last(), Some(&(300, 0)));
    }

    #[test]
    fn falls_are_kept_once_they_exceed_the_step() {
        let mut o = OccupancyLog::new(2560);
        o.set(0, 1000);
        o.set(1, 995);
        o.set(2, 985);
        o.set(3, 985);
        assert_eq!(o.points(), &[(0, 1000), (2, 985)]);
    }
}
