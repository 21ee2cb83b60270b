//! Max-min fair sharing of bandwidth among flows, each crossing one server of limited
//! bandwidth and a shared aggregate limit (the PFS backend).
//!
//! Rates are exact rationals recomputed by progressive filling whenever a flow starts or ends;
//! remaining work is kept in byte·10¹² units so a lone flow takes exactly
//! `ceil(bytes · 10¹² / min(server, aggregate))` ps.

use crate::units::PS_PER_SEC;
use bbsim_engine::Time;

#[derive(Clone, Debug)]
struct Flow {
    server: u32,
    /// Remaining work in bytes × 10¹².
    rem: u128,
    owner: u64,
    /// Rate as `num / den` bytes per second.
    num: u128,
    den: u128,
}

/// Flows sharing per-server bandwidths and an aggregate bandwidth (bytes/s).
#[derive(Clone, Debug)]
pub struct Fluid {
    caps: Vec<u64>,
    aggregate: u64,
    flows: Vec<Flow>,
    last: Time,
    counts: Vec<u64>,
}

impl Fluid {
    /// `servers` servers of `server_bw` each behind an `aggregate` limit (bytes/s, all > 0).
    pub fn new(servers: usize, server_bw: u64, aggregate: u64) -> Self {
        Fluid {
            caps: vec![server_bw; servers],
            aggregate,
            flows: Vec::new(),
            last: 0,
            counts: vec![0; servers],
        }
    }

    /// Flows in progress.
    pub fn len(&self) -> usize {
        self.flows.len()
    }

    /// Whether no flow is in progress.
    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// Flows in progress on each server.
    pub fn per_server(&self) -> &[u64] {
        &self.counts
    }

    /// Moves every flow forward to `now`.
    pub fn advance(&mut self, now: Time) {
        if now > self.last {
            let dt = u128::from(now - self.last);
            for f in &mut self.flows {
                let done = f.num * dt / f.den;
                f.rem = f.rem.saturating_sub(done);
            }
        }
        self.last = self.last.max(now);
    }

    /// Starts a flow of `bytes` on `server` at `now` for `owner`.
    pub fn add(&mut self, now: Time, server: u32, bytes: u64, owner: u64) {
        self.advance(now);
        self.flows.push(Flow {
            server,
            rem: u128::from(bytes) * PS_PER_SEC,
            owner,
            num: 0,
            den: 1,
        });
        self.rates();
    }

    /// Removes the flows finished by `now`, appending their owners (in start order).
    pub fn pop_finished(&mut self, now: Time, out: &mut Vec<u64>) {
        self.advance(now);
        let before = self.flows.len();
        self.flows.retain(|f| {
            if f.rem == 0 {
                out.push(f.owner);
                false
            } else {
                true
            }
        });
        if self.flows.len() != before {
            self.rates();
        }
    }

    /// When the next flow finishes (absolute ps), if any.
    pub fn next_finish(&self) -> Option<Time> {
        self.flows
            .iter()
            .map(|f| (f.rem * f.den).div_ceil(f.num.max(1)))
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
        self.counts.iter_mut().for_each(|c| *c = 0);
        for f in &self.flows {
            self.counts[f.server as usize] += 1;
        }
        let mut order: Vec<usize> = (0..self.caps.len())
            .filter(|&s| self.counts[s] > 0)
            .collect();
        // Ascending cap/count, compared exactly by cross-multiplication; ties by index.
        order.sort_by(|&a, &b| {
            let l = u128::from(self.caps[a]) * u128::from(self.counts[b]);
            let r = u128::from(self.caps[b]) * u128::from(self.counts[a]);
            l.cmp(&r).then(a.cmp(&b))
        });
        let mut share = vec![(0u128, 1u128); self.caps.len()];
        let mut c = u128::from(self.aggregate);
        let mut n = self.flows.len() as u128;
        let mut rest = false;
        for &s in &order {
            let (cap, cnt) = (u128::from(self.caps[s]), u128::from(self.counts[s]));
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
            let (num, den) = share[f.server as usize];
            f.num = num;
            f.den = den;
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
        let rates: Vec<(u128, u128)> = f.flows.iter().map(|x| (x.num, x.den)).collect();
        assert_eq!(rates[0], (100, 2));
        assert_eq!(rates[2], (100, 3));
        assert_eq!(rates[5], (50, 1));
        // Server 0's flows (50 B/s) finish first, at 20 s.
        assert_eq!(f.next_finish(), Some(20 * SEC));
    }
}
