//! Capacity accounting of a BB server: the whole server and each job or reservation.

use crate::error::{ConfigError, Reservation};
use crate::occupancy::OccupancyLog;
use bbsim_engine::Time;
use std::collections::BTreeMap;

/// What a BB server does with a write that does not fit (`burst_buffer.full_policy`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FullPolicy {
    /// The writer waits (FIFO) until drained data is evicted. Stalled writers make every
    /// allocation's dirty data eligible for draining at once, whatever the drain policy, except
    /// [`crate::DrainPolicy::None`], which never drains: there a full device stays full and
    /// its writers wait for ever (the run reports that it cannot finish).
    #[default]
    Stall,
    /// The write is forwarded to the PFS and acknowledged when the PFS has it.
    Spill,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Usage {
    limit: Option<u64>,
    used: u64,
    peak: u64,
}

/// Bytes of capacity in use, server-wide and per allocation (job or reservation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapacityLedger {
    total: u64,
    used: u64,
    allocs: BTreeMap<u32, Usage>,
    log: OccupancyLog,
}

impl CapacityLedger {
    /// A ledger for a server of `total` bytes.
    pub fn new(total: u64) -> Self {
        CapacityLedger {
            total,
            used: 0,
            allocs: BTreeMap::new(),
            log: OccupancyLog::new(),
        }
    }

    /// Server capacity (bytes).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes in use on the server.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Fraction of the server in use.
    pub fn fill(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.used as f64 / self.total as f64
        }
    }

    /// Bytes in use by allocation `alloc`.
    pub fn used_by(&self, alloc: u32) -> u64 {
        self.allocs.get(&alloc).map_or(0, |u| u.used)
    }

    /// The limit of `alloc` (`None`: only the server capacity limits it).
    pub fn limit_of(&self, alloc: u32) -> Option<u64> {
        self.allocs.get(&alloc).and_then(|u| u.limit)
    }

    /// The smallest reservation limit of any allocation (`None`: no allocation has one).
    pub fn smallest_limit(&self) -> Option<u64> {
        self.allocs.values().filter_map(|u| u.limit).min()
    }

    /// Grants `alloc` at most `bytes` on this server (a reservation, e.g. DataWarp grains).
    /// Fails if the reservations would exceed the server.
    pub fn reserve(&mut self, alloc: u32, bytes: u64) -> Result<(), ConfigError<Reservation>> {
        let others: u64 = self
            .allocs
            .iter()
            .filter(|(&a, _)| a != alloc)
            .filter_map(|(_, u)| u.limit)
            .sum();
        if others.saturating_add(bytes) > self.total {
            return Err(ConfigError::new(
                Reservation { alloc },
                format!("{bytes} bytes"),
                format!(
                    "must be at most the {} bytes not yet reserved ({others} of {} bytes \
                     already reserved)",
                    self.total.saturating_sub(others),
                    self.total
                ),
            ));
        }
        self.allocs.entry(alloc).or_default().limit = Some(bytes);
        Ok(())
    }

    /// Whether `alloc` may take `bytes` more.
    pub fn fits(&self, alloc: u32, bytes: u64) -> bool {
        if self.used.saturating_add(bytes) > self.total {
            return false;
        }
        let u = self.allocs.get(&alloc).copied().unwrap_or_default();
        u.limit.is_none_or(|l| u.used.saturating_add(bytes) <= l)
    }

    /// Takes `bytes` for `alloc` at `now` (ps; callers check [`CapacityLedger::fits`]
    /// first).
    pub fn take(&mut self, alloc: u32, bytes: u64, now: Time) {
        self.used += bytes;
        let u = self.allocs.entry(alloc).or_default();
        u.used += bytes;
        u.peak = u.peak.max(u.used);
        self.log.set(now, self.used);
    }

    /// Returns `bytes` of `alloc` at `now` (ps).
    pub fn release(&mut self, alloc: u32, bytes: u64, now: Time) {
        self.used = self.used.saturating_sub(bytes);
        if let Some(u) = self.allocs.get_mut(&alloc) {
            u.used = u.used.saturating_sub(bytes);
        }
        self.log.set(now, self.used);
    }

    /// The most bytes `alloc` held at once.
    pub fn peak_of(&self, alloc: u32) -> u64 {
        self.allocs.get(&alloc).map_or(0, |u| u.peak)
    }

    /// Every allocation that held bytes, with the most it held at once.
    pub fn peaks(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.allocs
            .iter()
            .filter(|(_, u)| u.peak > 0)
            .map(|(&a, u)| (a, u.peak))
    }

    /// The server's occupancy over time: peak, when, and a thinned record.
    pub fn occupancy(&self) -> &OccupancyLog {
        &self.log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_and_reservation_limits() {
        let mut c = CapacityLedger::new(100);
        assert!(c.fits(1, 100));
        assert!(!c.fits(1, 101));
        c.reserve(1, 30).unwrap();
        assert_eq!(
            c.reserve(2, 71).unwrap_err().field,
            Reservation { alloc: 2 }
        );
        c.reserve(2, 70).unwrap();
        assert!(c.fits(1, 30));
        assert!(!c.fits(1, 31));
        c.take(1, 20, 5);
        assert!(!c.fits(1, 11));
        assert_eq!(c.used_by(1), 20);
        c.take(3, 60, 6); // no reservation: the server limit only
        assert!(!c.fits(3, 21));
        assert!((c.fill() - 0.8).abs() < 1e-12);
        c.release(1, 20, 7);
        assert_eq!(c.used(), 60);
        assert_eq!(c.limit_of(2), Some(70));
        assert_eq!(c.limit_of(3), None);
        // Peaks: 80 bytes in all at t = 6; allocation 1 held 20 at most.
        assert_eq!(c.occupancy().peak(), 80);
        assert_eq!(c.occupancy().peak_at(), 6);
        assert_eq!(c.peak_of(1), 20);
        assert_eq!(c.peaks().collect::<Vec<_>>(), vec![(1, 20), (3, 60)]);
    }
}
