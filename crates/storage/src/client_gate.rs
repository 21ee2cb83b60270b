//! A compute node's file-system client (the DataWarp/DVS client for burst-buffer I/O, the
//! Lustre client for PFS I/O) as a limit on what the node sends, besides its NIC: a bandwidth
//! of its own and a most requests in flight.
//!
//! Every per-server request that the node's ranks send to the client's targets passes the
//! gate, first come first served. A request is admitted when fewer than `max_requests` of the
//! client's requests are in flight; it stays in flight until its reply arrives
//! ([`ClientGate::done`]). An admitted request's bytes then pass the client, one request after
//! another, at `bandwidth`: it leaves for the network at `max(admitted, previous leaves) +
//! ⌈len · 10¹² / bandwidth⌉` ps. The client is thus a stage in series with the NIC: `n`
//! requests of `s` bytes leave the node by `n · s / bandwidth`, and a lone request pays its
//! bytes' time once more than without a client limit. A read's bytes are charged before its
//! request leaves rather than as its data come back: the same rate, and the same time for a
//! lone request. With `W` requests of `s` bytes in flight and a round trip of `R` ps
//! (request, service, reply), one node moves at most `min(NIC, bandwidth, W · s / R)` bytes
//! per second.
//!
//! The gate lives in its node's LP and changes only on that LP's events, so it is
//! deterministic for any thread count.

use crate::request::{Endpoint, IoRequest};
use crate::units::transfer_ps;
use bbsim_engine::Time;
use std::collections::{BTreeSet, VecDeque};

/// A client's limits; `None` means none.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientLimits {
    /// Bytes per second the client moves (`None`: only the NIC limits it).
    pub bandwidth: Option<u64>,
    /// Requests in flight at once (`None`: unlimited).
    pub max_requests: Option<u32>,
}

impl ClientLimits {
    /// Whether the client limits anything.
    pub fn is_limited(&self) -> bool {
        self.bandwidth.is_some() || self.max_requests.is_some()
    }
}

/// A compute node's two file-system clients' limits.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FsClients {
    /// The burst-buffer client's (DataWarp/DVS): requests to BB servers.
    pub burst_buffer: ClientLimits,
    /// The PFS client's (Lustre): requests to PFS I/O nodes, the node-local drain's included.
    pub pfs: ClientLimits,
}

/// The gate of one client on one node.
#[derive(Clone, Debug, Default)]
pub struct ClientGate {
    limits: ClientLimits,
    /// When the client has passed the bytes of every admitted request (ps).
    free_at: Time,
    /// Ids of the requests admitted and not yet answered (kept only with `max_requests`).
    in_flight: BTreeSet<u64>,
    /// Requests not yet admitted, in arrival order.
    waiting: VecDeque<(Endpoint, IoRequest)>,
    /// Admitted requests and when they leave, in leaving order.
    leaving: VecDeque<(Time, Endpoint, IoRequest)>,
}

impl ClientGate {
    /// A gate with `limits`.
    pub fn new(limits: ClientLimits) -> Self {
        ClientGate {
            limits,
            ..ClientGate::default()
        }
    }

    /// Queues a request for `to`.
    pub fn submit(&mut self, to: Endpoint, req: IoRequest) {
        self.waiting.push_back((to, req));
    }

    /// The reply to request `id` arrived: if it was one of this client's, its slot is free.
    /// Returns whether it was.
    pub fn done(&mut self, id: u64) -> bool {
        self.in_flight.remove(&id)
    }

    /// Requests in flight (admitted, not answered); counted only with a request limit.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Requests queued in the client (not yet admitted, or admitted and not yet left).
    pub fn queued(&self) -> usize {
        self.waiting.len() + self.leaving.len()
    }

    /// Admits what the request limit allows, appends the requests that leave at or before
    /// `now` to `out`, and returns the next later departure, if any (for a wake-up).
    pub fn pump(&mut self, now: Time, out: &mut Vec<(Endpoint, IoRequest)>) -> Option<Time> {
        while self
            .limits
            .max_requests
            .is_none_or(|cap| self.in_flight.len() < cap as usize)
        {
            let Some((to, req)) = self.waiting.pop_front() else {
                break;
            };
            if self.limits.max_requests.is_some() {
                self.in_flight.insert(req.id);
            }
            let leaves = match self.limits.bandwidth {
                Some(bw) => self
                    .free_at
                    .max(now)
                    .saturating_add(transfer_ps(req.len, bw)),
                None => now,
            };
            self.free_at = leaves;
            self.leaving.push_back((leaves, to, req));
        }
        while let Some(&(t, _, _)) = self.leaving.front() {
            if t > now {
                return Some(t);
            }
            if let Some((_, to, req)) = self.leaving.pop_front() {
                out.push((to, req));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::test_write as req;

    #[test]
    fn the_request_limit_holds_requests_until_replies_in_arrival_order() {
        let mut g = ClientGate::new(ClientLimits {
            bandwidth: None,
            max_requests: Some(2),
        });
        for id in 0..5 {
            g.submit(Endpoint(1), req(id, 10));
        }
        let mut out = Vec::new();
        assert_eq!(g.pump(0, &mut out), None);
        assert_eq!((out.len(), g.in_flight(), g.queued()), (2, 2, 3));
        // A reply to another client's request frees nothing.
        assert!(!g.done(99));
        assert!(g.done(1));
        out.clear();
        g.pump(7, &mut out);
        assert_eq!((out.len(), g.in_flight()), (1, 2));
        assert!(g.done(0) && g.done(2));
        g.pump(8, &mut out);
        let ids: Vec<u64> = out.iter().map(|(_, r)| r.id).collect();
        assert_eq!(ids, vec![2, 3, 4]);
        assert_eq!(g.queued(), 0);
    }

    #[test]
    fn the_bandwidth_passes_requests_one_after_another() {
        // 1 GB/s: 1,000 bytes take 1 us = 10^6 ps.
        let mut g = ClientGate::new(ClientLimits {
            bandwidth: Some(1_000_000_000),
            max_requests: None,
        });
        for id in 0..3 {
            g.submit(Endpoint(1), req(id, 1000));
        }
        let mut out = Vec::new();
        assert_eq!(g.pump(0, &mut out), Some(1_000_000));
        assert!(out.is_empty());
        assert_eq!(g.pump(1_000_000, &mut out), Some(2_000_000));
        assert_eq!(g.pump(2_000_000, &mut out), Some(3_000_000));
        assert_eq!(g.pump(3_000_000, &mut out), None);
        assert_eq!(out.len(), 3);
        // An idle client passes a lone request in its bytes' time.
        g.submit(Endpoint(1), req(3, 1000));
        out.clear();
        assert_eq!(g.pump(9_000_000, &mut out), Some(10_000_000));
        assert_eq!(g.pump(10_000_000, &mut out), None);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn both_limits_pace_only_the_admitted_requests() {
        let mut g = ClientGate::new(ClientLimits {
            bandwidth: Some(1_000_000_000),
            max_requests: Some(1),
        });
        g.submit(Endpoint(1), req(0, 1000));
        g.submit(Endpoint(1), req(1, 1000));
        let mut out = Vec::new();
        assert_eq!(g.pump(0, &mut out), Some(1_000_000));
        assert_eq!(g.pump(1_000_000, &mut out), None);
        assert_eq!(out.len(), 1);
        // The second is admitted when the first's reply comes, and passes from then.
        assert!(g.done(0));
        assert_eq!(g.pump(5_000_000, &mut out), Some(6_000_000));
        assert_eq!(g.pump(6_000_000, &mut out), None);
        assert_eq!(out.len(), 2);
    }
}
