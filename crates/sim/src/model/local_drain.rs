//! Background stage-out of a node-local SSD: a data mover on the compute node copies what the
//! ranks wrote to the SSD on to the PFS while they compute (VPIC-style asynchronous drain).
//!
//! Each completed local write is queued; the mover reads it back from the SSD and writes it to
//! the PFS through the node's NIC, at most `max_outstanding` copies at a time and paced to
//! `bandwidth` bytes/s. Policy `immediate` drains as soon as data lands; `job-end` once every
//! rank on the node has finished.

use bbsim_engine::Time;
use bbsim_storage::units::transfer_ps;
use bbsim_storage::DrainPolicy;
use std::collections::{BTreeMap, VecDeque};

/// Settings of the node-local mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalDrainConfig {
    /// When it runs: [`DrainPolicy::Immediate`] or [`DrainPolicy::JobEnd`] (a node has no
    /// fill threshold; [`DrainPolicy::None`] means no mover).
    pub policy: DrainPolicy,
    /// Pacing bandwidth (bytes/s).
    pub bandwidth: u64,
    /// Copies in flight at once.
    pub max_outstanding: u32,
}

/// One extent to copy: global file, offset in the file, bytes, SSD address.
pub type Extent = (u64, u64, u64, u64);

/// The mover's state on one compute node.
#[derive(Clone, Debug)]
pub struct LocalDrain {
    cfg: LocalDrainConfig,
    queue: VecDeque<Extent>,
    /// SSD read-backs in progress, by SSD tag.
    pub reads: BTreeMap<u64, Extent>,
    /// PFS writes in progress, by application-request id.
    pub writes: BTreeMap<u64, Extent>,
    ready_at: Time,
    /// A pacing wake-up is pending.
    pub tick: bool,
    /// Whether the policy allows draining now.
    pub open: bool,
    /// Bytes handed to the PFS.
    pub handed: u64,
    /// Bytes the PFS acknowledged.
    pub acked: u64,
    /// When the PFS last acknowledged drained bytes (ps; 0 if none).
    pub done_at: Time,
}

impl LocalDrain {
    /// An idle mover.
    pub fn new(cfg: LocalDrainConfig) -> Self {
        LocalDrain {
            cfg,
            queue: VecDeque::new(),
            reads: BTreeMap::new(),
            writes: BTreeMap::new(),
            ready_at: 0,
            tick: false,
            open: cfg.policy == DrainPolicy::Immediate,
            handed: 0,
            acked: 0,
            done_at: 0,
        }
    }

    /// Queues a written extent.
    pub fn push(&mut self, e: Extent) {
        self.queue.push_back(e);
    }

    /// Bytes written locally and not yet acknowledged by the PFS.
    pub fn pending(&self) -> u64 {
        let queued: u64 = self.queue.iter().map(|e| e.2).sum();
        let reading: u64 = self.reads.values().map(|e| e.2).sum();
        queued + reading + self.handed - self.acked
    }

    /// The next extent to copy at `now`, if the policy, the outstanding limit and the pacing
    /// allow; `Err(wait)` when pacing holds it back for `wait` ps.
    pub fn next(&mut self, now: Time) -> Result<Option<Extent>, Time> {
        if !self.open || self.queue.is_empty() {
            return Ok(None);
        }
        if (self.reads.len() + self.writes.len()) as u32 >= self.cfg.max_outstanding {
            return Ok(None);
        }
        if now < self.ready_at {
            return Err(self.ready_at - now);
        }
        let e = self.queue.pop_front();
        if let Some(e) = e {
            self.ready_at = now.max(self.ready_at) + transfer_ps(e.2, self.cfg.bandwidth);
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paced_to_the_bandwidth_and_limited_in_flight() {
        let mut d = LocalDrain::new(LocalDrainConfig {
            policy: DrainPolicy::Immediate,
            bandwidth: 1_000_000_000,
            max_outstanding: 2,
        });
        for i in 0..3 {
            d.push((1, i * 1000, 1000, i * 1000));
        }
        let a = d.next(0).unwrap().unwrap();
        d.reads.insert(1, a);
        // 1000 bytes at 1 GB/s: the next may start 1 us later.
        assert_eq!(d.next(0), Err(1_000_000));
        let b = d.next(1_000_000).unwrap().unwrap();
        d.reads.insert(2, b);
        assert_eq!(d.next(5_000_000), Ok(None), "two in flight");
        assert_eq!(d.pending(), 3000);
        let mut closed = LocalDrain::new(LocalDrainConfig {
            policy: DrainPolicy::JobEnd,
            bandwidth: 1,
            max_outstanding: 1,
        });
        closed.push((1, 0, 10, 0));
        assert_eq!(closed.next(0), Ok(None));
        closed.open = true;
        assert!(closed.next(0).unwrap().is_some());
    }
}
