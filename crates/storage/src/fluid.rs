//! Max-min fair sharing of bandwidth among flows, each crossing one server of limited
//! bandwidth and a shared aggregate limit (the PFS backend).
//!
//! Rates are exact rationals recomputed by progressive filling whenever a flow starts or ends;
//! remaining work is kept in byte·10¹² units so a lone flow takes exactly
//! `ceil(bytes · 10¹² / min(server, aggregate))` ps. All flows on a server share its rate, so
//! each server keeps one service clock and its flows' finish tags: thousands of ranks writing
//! to one OST cost a step per busy server per event, not one per flow.

use crate::units::PS_PER_SEC;
use bbsim_engine::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The flows on one server. Every flow on a server gets the same rate, so the server keeps one
/// clock of the service each of its flows has received (`served`, bytes × 10¹²) and each flow
/// is a finish tag on that clock: a flow is done when `served` reaches its tag. An event then
/// costs a step per busy server, not per flow.
#[derive(Clone, Debug, Default)]
struct Server {
    /// Service received by every flow on this server since the simulation began (bytes × 10¹²).
    served: u128,
    /// Flows in progress, earliest finish tag first: (tag, start sequence, owner).
    flows: BinaryHeap<Reverse<(u128, u64, u64)>>,
    /// Each flow's rate as `num / den` bytes per second.
    num: u128,
    den: u128,
}

/// Flows sharing per-server bandwidths and an aggregate bandwidth (bytes/s).
#[derive(Clone, Debug)]
pub struct Fluid {
    caps: Vec<u64>,
    aggregate: u64,
    servers: Vec<Server>,
    /// Servers with flows in progress, ascending.
    busy: Vec<usize>,
    flows: usize,
    started: u64,
    last: Time,
    counts: Vec<u64>,
}

impl Fluid {
    /// `servers` servers of `server_bw` each behind an `aggregate` limit (bytes/s, all > 0).
    pub fn new(servers: usize, server_bw: u64, aggregate: u64) -> Self {
        Fluid {
            caps: vec![server_bw; servers],
            aggregate,
            servers: vec![Server::default(); servers],
            busy: Vec::new(),
            flows: 0,
            started: 0,
            last: 0,
            counts: vec![0; servers],
        }
    }

    /// Flows in progress.
    pub fn len(&self) -> usize {
        self.flows
    }

    /// Whether no flow is in progress.
    pub fn is_empty(&self) -> bool {
        self.flows == 0
    }

    /// Flows in progress on each server.
    pub fn per_server(&self) -> &[u64] {
        &self.counts
    }

    /// Moves every flow forward to `now`.
    pub fn advance(&mut self, now: Time) {
        if now > self.last {
            let dt = u128::from(now - self.last);
            for &s in &self.busy {
                let sv = &mut self.servers[s];
                sv.served += sv.num * dt / sv.den;
            }
        }
        self.last = self.last.max(now);
    }

    /// Starts a flow of `bytes` on `server` at `now` for `owner`.
    pub fn add(&mut self, now: Time, server: u32, bytes: u64, owner: u64) {
        self.advance(now);
        let sv = &mut self.servers[server as usize];
        let tag = sv.served + u128::from(bytes) * PS_PER_SEC;
        sv.flows.push(Reverse((tag, self.started, owner)));
        self.started += 1;
        self.flows += 1;
        self.rates();
    }

    /// Removes the flows finished by `now`, appending their owners (in start order).
    pub fn pop_finished(&mut self, now: Time, out: &mut Vec<u64>) {
        self.advance(now);
        let mut done: Vec<(u64, u64)> = Vec::new();
        for &s in &self.busy {
            let sv = &mut self.servers[s];
            while let Some(&Reverse((tag, seq, owner))) = sv.flows.peek() {
                if tag > sv.served {
                    break;
                }
                sv.flows.pop();
                done.push((seq, owner));
            }
        }
        if !done.is_empty() {
            done.sort_unstable();
            self.flows -= done.len();
            out.extend(done.into_iter().map(|(_, owner)| owner));
            self.rates();
        }
    }

    /// When the next flow finishes (absolute ps), if any.
    pub fn next_finish(&self) -> Option<Time> {
        self.busy
            .iter()
            .filter_map(|&s| {
                let sv = &self.servers[s];
                let Reverse((tag, _, _)) = sv.flows.peek()?;
                let rem = tag.saturating_sub(sv.served);
                Some((rem * sv.den).div_ceil(sv.num.max(1)))
            })
            .min()
            .map(|dt| {
                self.last
                    .saturating_add(u64::try_from(dt).unwrap_or(Time::MAX))
            })
    }

    /// Progressive filling: servers in increasing order of fair share `cap / flows` are
    /// saturated while that share is below the aggregate's fair share; the rest split what
    /// remains of the aggregate equally.
    fn rates(&mut self) {
        for &s in &self.busy {
            self.counts[s] = 0;
        }
        self.busy.clear();
        for (s, sv) in self.servers.iter().enumerate() {
            if !sv.flows.is_empty() {
                self.counts[s] = sv.flows.len() as u64;
                self.busy.push(s);
            }
        }
        let mut order = self.busy.clone();
        // Ascending cap/count, compared exactly by cross-multiplication; ties by index.
        order.sort_by(|&a, &b| {
            let l = u128::from(self.caps[a]) * u128::from(self.counts[b]);
            let r = u128::from(self.caps[b]) * u128::from(self.counts[a]);
            l.cmp(&r).then(a.cmp(&b))
        });
        let mut c = u128::from(self.aggregate);
        let mut n = self.flows as u128;
        let mut rest = false;
        for &s in &order {
            let (cap, cnt) = (u128::from(self.caps[s]), u128::from(self.counts[s]));
            let sv = &mut self.servers[s];
            if !rest && cap * n <= c * cnt {
                (sv.num, sv.den) = (cap, cnt);
                c -= cap;
                n -= cnt;
            } else {
                rest = true;
                (sv.num, sv.den) = (c, n.max(1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bbsim_engine::time::SEC;

    #[test]
    fn lone_flow_runs_at_the_tighter_limit() {
        let mut f = Fluid::new(4, 100, 1000);
        f.add(0, 2, 300, 7);
        assert_eq!(f.next_finish(), Some(3 * SEC));
        let mut f = Fluid::new(4, 1000, 100);
        f.add(5, 2, 300, 7);
        assert_eq!(f.next_finish(), Some(5 + 3 * SEC));
        let mut out = Vec::new();
        f.pop_finished(5 + 3 * SEC - 1, &mut out);
        assert!(out.is_empty());
        f.pop_finished(5 + 3 * SEC, &mut out);
        assert_eq!(out, vec![7]);
        assert!(f.is_empty());
    }

    #[test]
    fn max_min_shares_servers_and_aggregate() {
        // Servers of 100 B/s, aggregate 250 B/s, flows 2 / 3 / 1 on servers 0 / 1 / 2. Server 1
        // (share 100/3) and server 0 (share 50) saturate; server 2's lone flow gets what the
        // aggregate leaves: 250 - 100 - 100 = 50 B/s rather than its server's 100.
        let mut f = Fluid::new(3, 100, 250);
        f.add(0, 0, 1000, 1);
        f.add(0, 0, 1000, 2);
        for o in 3..6 {
            f.add(0, 1, 1000, o);
        }
        f.add(0, 2, 1000, 6);
        assert_eq!(f.per_server(), &[2, 3, 1]);
        let rates: Vec<(u128, u128)> = f.servers.iter().map(|x| (x.num, x.den)).collect();
        assert_eq!(rates[0], (100, 2));
        assert_eq!(rates[1], (100, 3));
        assert_eq!(rates[2], (50, 1));
        // Server 0's flows (50 B/s) finish first, at 20 s.
        assert_eq!(f.next_finish(), Some(20 * SEC));
    }

    /// The per-flow definition: every flow keeps its own remaining work and rate.
    struct PerFlow {
        caps: Vec<u64>,
        aggregate: u64,
        /// (server, remaining bytes × 10¹², owner, num, den)
        flows: Vec<(u32, u128, u64, u128, u128)>,
        last: Time,
    }

    impl PerFlow {
        fn advance(&mut self, now: Time) {
            if now > self.last {
                let dt = u128::from(now - self.last);
                for f in &mut self.flows {
                    f.1 = f.1.saturating_sub(f.3 * dt / f.4);
                }
            }
            self.last = self.last.max(now);
        }

        fn rates(&mut self) {
            let mut counts = vec![0u64; self.caps.len()];
            for f in &self.flows {
                counts[f.0 as usize] += 1;
            }
            let mut order: Vec<usize> = (0..self.caps.len()).filter(|&s| counts[s] > 0).collect();
            order.sort_by(|&a, &b| {
                let l = u128::from(self.caps[a]) * u128::from(counts[b]);
                let r = u128::from(self.caps[b]) * u128::from(counts[a]);
                l.cmp(&r).then(a.cmp(&b))
            });
            let mut share = vec![(0u128, 1u128); self.caps.len()];
            let (mut c, mut n, mut rest) =
                (u128::from(self.aggregate), self.flows.len() as u128, false);
            for &s in &order {
                let (cap, cnt) = (u128::from(self.caps[s]), u128::from(counts[s]));
                if !rest && cap * n <= c * cnt {
                    share[s] = (cap, cnt);
                    c -= cap;
                    n -= cnt;
                } else {
                    rest = true;
                    share[s] = (c, n.max(1));
                }
            }
            for f in &mut self.flows {
                (f.3, f.4) = share[f.0 as usize];
            }
        }

        /// Removes the flows finished by `now`, returning their owners in start order.
        fn pop_finished(&mut self, now: Time) -> Vec<u64> {
            self.advance(now);
            let mut done = Vec::new();
            self.flows.retain(|fl| {
                if fl.1 == 0 {
                    done.push(fl.2);
                    false
                } else {
                    true
                }
            });
            if !done.is_empty() {
                self.rates();
            }
            done
        }

        fn next_finish(&self) -> Option<Time> {
            self.flows
                .iter()
                .map(|f| (f.1 * f.4).div_ceil(f.3.max(1)))
                .min()
                .map(|dt| {
                    self.last
                        .saturating_add(u64::try_from(dt).unwrap_or(Time::MAX))
                })
        }
    }

    /// Flows arriving at random on random servers finish at the same times, in the same order,
    /// as under the per-flow definition (each flow its own remaining work and rate).
    #[test]
    fn service_clocks_match_per_flow_accounting() {
        for seed in 1..40u64 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut rnd = move |m: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % m
            };
            let servers = 1 + rnd(5) as usize;
            let (bw, agg) = (50 + rnd(200), 100 + rnd(600));
            let mut f = Fluid::new(servers, bw, agg);
            let mut r = PerFlow {
                caps: vec![bw; servers],
                aggregate: agg,
                flows: Vec::new(),
                last: 0,
            };
            let (mut now, mut owner) = (0u64, 0u64);
            for _ in 0..300 {
                let next = f.next_finish();
                assert_eq!(next, r.next_finish(), "seed {seed}");
                let arrival = now + rnd(3 * SEC);
                if rnd(3) > 0 || next.is_none() {
                    now = next.map_or(arrival, |t| t.min(arrival));
                    let (srv, bytes) = (rnd(servers as u64) as u32, 1 + rnd(2000));
                    let mut a = Vec::new();
                    f.pop_finished(now, &mut a);
                    let b = r.pop_finished(now);
                    assert_eq!(a, b, "seed {seed}");
                    f.add(now, srv, bytes, owner);
                    r.advance(now);
                    r.flows
                        .push((srv, u128::from(bytes) * PS_PER_SEC, owner, 0, 1));
                    r.rates();
                    owner += 1;
                } else if let Some(t) = next {
                    now = t;
                    let mut a = Vec::new();
                    f.pop_finished(now, &mut a);
                    let b = r.pop_finished(now);
                    assert!(!a.is_empty());
                    assert_eq!(a, b, "seed {seed}");
                }
                assert_eq!(f.len(), r.flows.len());
            }
        }
    }
}
