//! How full a device got over time: the exact peak (bytes and when) and a thinned record of
//! the occupancy, for sizing reports and the occupancy plot.
//!
//! The record keeps a point whenever the occupancy has moved by at least 1/[`RESOLUTION`] of
//! the highest occupancy so far (the peak) since the last point kept, so a run that fills and
//! empties a device keeps a few hundred points per cycle, not one per write, and a device that
//! never gets near full is still drawn in detail. Read as a step function, the record is within
//! peak/[`RESOLUTION`] bytes of the true occupancy at every instant; the peak itself is kept
//! exactly on its own.

use bbsim_engine::Time;

/// Fraction of the peak so far (1/`RESOLUTION`) the occupancy must move before a point is
/// kept.
pub const RESOLUTION: u64 = 128;

/// The occupancy history of one device (an SSD, a BB server, a node-local SSD).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OccupancyLog {
    current: u64,
    peak: u64,
    peak_at: Time,
    points: Vec<(Time, u64)>,
}

impl OccupancyLog {
    /// An empty log.
    pub fn new() -> Self {
        OccupancyLog::default()
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
        let step = (self.peak / RESOLUTION).max(1);
        if used.abs_diff(last) >= step || used == 0 && last != 0 {
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
        let mut o = OccupancyLog::new();
        for t in 1..=12_800u64 {
            o.set(t, t); // one byte at a time: a point every peak/128 bytes
        }
        o.set(20_000, 12_750);
        o.set(30_000, 0);
        assert_eq!((o.peak(), o.peak_at()), (12_800, 12_800));
        assert_eq!(o.current(), 0);
        // The way up is thinned to about 128 points per factor e of growth; the 50-byte drop
        // is under the 100-byte step; the return to empty is kept.
        let n = o.points().len();
        assert!((100..1000).contains(&n), "{n} points");
        assert_ne!(o.points()[n - 2].1, 12_750);
        assert_eq!(o.points().last(), Some(&(30_000, 0)));
        // Within peak/128 of the truth on the way up.
        for w in o.points()[..n - 1].windows(2) {
            assert!(w[1].1 - w[0].1 <= 12_800 / 128 + 1);
        }
    }

    #[test]
    fn falls_are_kept_once_they_exceed_the_step() {
        let mut o = OccupancyLog::new();
        o.set(0, 1280);
        o.set(1, 1275);
        o.set(2, 1265);
        o.set(3, 1265);
        assert_eq!(o.points(), &[(0, 1280), (2, 1265)]);
    }
}
