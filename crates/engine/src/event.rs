//! Events and their total order.

use crate::time::Time;
use std::cmp::Ordering;

/// Identifier of a logical process: its index in the simulation's LP vector.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LpId(pub u32);

impl LpId {
    /// The LP index as a `usize`, for indexing.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for LpId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if *self == ENVIRONMENT {
            write!(f, "environment")
        } else {
            write!(f, "LP {}", self.0)
        }
    }
}

/// The pseudo-source of events scheduled from outside the model before the run starts.
pub const ENVIRONMENT: LpId = LpId(u32::MAX);

/// The key that totally orders events: `(time, priority, source LP, source sequence)`.
///
/// `time` is in picoseconds; a smaller `priority` runs first among events at the same time;
/// `source` and `seq` (the sender's own running count of sends) make every key unique, so the
/// order never depends on threads, partitioning or arrival order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventKey {
    /// Receive time in picoseconds.
    pub time: Time,
    /// `priority << 32 | source LP`: priority first, then the sender.
    pub order: u64,
    /// The sender's sequence number for this send.
    pub seq: u64,
}

impl EventKey {
    /// Builds a key from its parts.
    #[inline]
    pub fn new(time: Time, priority: u8, source: LpId, seq: u64) -> Self {
        EventKey {
            time,
            order: (u64::from(priority) << 32) | u64::from(source.0),
            seq,
        }
    }

    /// The priority class (smaller runs first at equal times).
    pub fn priority(&self) -> u8 {
        (self.order >> 32) as u8
    }

    /// The LP that sent the event.
    pub fn source(&self) -> LpId {
        LpId(self.order as u32)
    }
}

/// A scheduled event: its ordering key, its destination and the model's payload.
#[derive(Clone, Debug)]
pub struct Event<E> {
    /// Total-order key (receive time first).
    pub key: EventKey,
    /// Destination LP.
    pub dst: LpId,
    /// Model-defined payload.
    pub payload: E,
}

impl<E> Event<E> {
    /// Receive time in picoseconds.
    #[inline]
    pub fn time(&self) -> Time {
        self.key.time
    }
}

impl<E> PartialEq for Event<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Event<E> {}
impl<E> PartialOrd for Event<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Event<E> {
    /// Events compare by key only (keys are unique within a run).
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_orders_time_priority_source_seq() {
        let a = EventKey::new(10, 0, LpId(5), 9);
        let b = EventKey::new(10, 1, LpId(0), 0);
        let c = EventKey::new(10, 0, LpId(6), 0);
        let d = EventKey::new(10, 0, LpId(5), 10);
        let e = EventKey::new(9, 255, LpId(99), 99);
        let mut v = vec![a, b, c, d, e];
        v.sort();
        assert_eq!(v, vec![e, a, d, c, b]);
        assert_eq!(b.priority(), 1);
        assert_eq!(c.source(), LpId(6));
        assert_eq!(ENVIRONMENT.to_string(), "environment");
    }
}
