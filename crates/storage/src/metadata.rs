//! The PFS metadata service (Lustre's MDS): every open, close and delete of a PFS file is one
//! operation on it. Many small files are limited by it rather than by the storage servers.
//!
//! The service has `threads` service threads and serves operations first come first served,
//! each in `latency` ps: an operation arriving at `t` starts when a thread is free (at
//! `max(t, earliest free thread)`) and finishes `latency` later. `F` operations arriving
//! together therefore finish after `⌈F / threads⌉ · latency`, and `F` operations issued one
//! after another by one client take `F · latency` plus the round trips. What is not modelled:
//! per-directory locking, the metadata target's storage (its cost is part of `latency`),
//! and several metadata servers (DNE): `threads` stands for all of them.

use crate::error::{positive, ConfigError, PfsField};
use bbsim_engine::Time;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The metadata service's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataConfig {
    /// Service time of one operation (ps).
    pub latency: Time,
    /// Operations served at once.
    pub threads: u32,
}

impl MetadataConfig {
    /// Checks both settings: a positive latency and at least one thread.
    pub fn validate(&self) -> Result<(), ConfigError<PfsField>> {
        positive(PfsField::MetadataLatency, self.latency)?;
        positive(PfsField::MetadataThreads, u64::from(self.threads))
    }
}

/// Counters of the metadata service.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetadataStats {
    /// Operations served.
    pub ops: u64,
    /// Sum over operations of the time they waited for a free thread (ps).
    pub waited: Time,
}

/// The metadata service's state: when each thread is free.
#[derive(Clone, Debug)]
pub struct MetadataService {
    latency: Time,
    /// When each thread is next free (a min-heap; fewer entries than threads: the others
    /// are idle).
    busy_until: BinaryHeap<Reverse<Time>>,
    threads: usize,
    stats: MetadataStats,
}

impl MetadataService {
    /// An idle service with `cfg` (validated by the caller).
    pub fn new(cfg: MetadataConfig) -> Self {
        MetadataService {
            latency: cfg.latency,
            busy_until: BinaryHeap::new(),
            threads: cfg.threads.max(1) as usize,
            stats: MetadataStats::default(),
        }
    }

    /// An operation arrives at `now` (arrivals in time order): returns when it finishes.
    pub fn serve(&mut self, now: Time) -> Time {
        while self.busy_until.peek().is_some_and(|r| r.0 <= now) {
            self.busy_until.pop();
        }
        let start = if self.busy_until.len() < self.threads {
            now
        } else {
            self.busy_until.pop().map_or(now, |r| r.0)
        };
        let end = start.saturating_add(self.latency);
        self.busy_until.push(Reverse(end));
        self.stats.ops += 1;
        self.stats.waited += start - now;
        end
    }

    /// Counters.
    pub fn stats(&self) -> MetadataStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(latency: Time, threads: u32) -> MetadataService {
        MetadataService::new(MetadataConfig { latency, threads })
    }

    #[test]
    fn operations_arriving_together_finish_in_waves_of_threads() {
        for (f, c) in [(1u64, 1u32), (10, 1), (10, 3), (12, 4), (5, 8)] {
            let mut s = service(100, c);
            let last = (0..f).map(|_| s.serve(0)).max().unwrap();
            assert_eq!(last, f.div_ceil(u64::from(c)) * 100, "{f} ops, {c} threads");
            assert_eq!(s.stats().ops, f);
        }
    }

    #[test]
    fn operations_one_after_another_take_one_latency_each() {
        let mut s = service(100, 1);
        let mut t = 0;
        for _ in 0..7 {
            t = s.serve(t + 5);
        }
        assert_eq!(t, 7 * 105);
        assert_eq!(s.stats().waited, 0);
        // A thread freed before an arrival serves it at once; a busy one makes it wait.
        let mut s = service(100, 2);
        assert_eq!((s.serve(0), s.serve(0), s.serve(50)), (100, 100, 200));
        assert_eq!(s.serve(250), 350);
        assert_eq!(s.stats().waited, 50);
    }

    #[test]
    fn bad_settings_name_their_field() {
        let bad = MetadataConfig {
            latency: 0,
            threads: 1,
        };
        assert_eq!(bad.validate().unwrap_err().field, PfsField::MetadataLatency);
        let bad = MetadataConfig {
            latency: 1,
            threads: 0,
        };
        assert_eq!(bad.validate().unwrap_err().field, PfsField::MetadataThreads);
    }
}
