//! Extent locks of one storage target, as Lustre's distributed lock manager keeps them on
//! each OST: the cost a file shared by several clients pays for consistency.
//!
//! # What is modelled
//!
//! The target locks each file in units of `unit` bytes of its own view of the file (the
//! stripe size: one unit is one stripe of the file on this target). A client (a compute node;
//! its ranks share its locks, as Lustre clients do) takes a lock on every unit a request
//! touches before the request is served:
//!
//! - a write takes the units exclusively (Lustre's PW mode); a read shares them with other
//!   readers (PR mode), and a client that holds a unit for writing also reads under that lock;
//! - a unit nobody holds, or one the client already holds in a sufficient mode, is granted at
//!   once: a client writing only its own stripes never pays anything, so a shared file with one
//!   writer per stripe is timed exactly like a file per process;
//! - a unit held by another client in a conflicting mode must be revoked first: the target
//!   calls the holders back (in parallel, one callback round for all the units of the request)
//!   and grants the lock when they have cancelled theirs, `revocation` after the later of the
//!   request's arrival and the end of the previous grant of those units. Grants of a unit are
//!   serialised: `k` conflicting requests for one unit arriving together are granted at
//!   `revocation`, `2 x revocation`, ..., `k x revocation`.
//!
//! Only application requests ([`RequestKind::Client`]) take locks; the servers' own traffic
//! (drain, spill, stage-in) does not.
//!
//! # Parameters
//!
//! `revocation` (ps) is the cost of taking a lock away from another client: the blocking
//! callback to the holder and its cancel, then the grant to the requester, two RPC round trips
//! through the lock manager. `unit` (bytes) is the lock granularity. The model has no client
//! write-back cache, so a holder has no dirty pages to flush before it cancels; that flush is
//! not part of the cost.

use crate::request::{Endpoint, IoOp, IoRequest, RequestKind};
use bbsim_engine::Time;
use std::collections::{BTreeMap, HashMap};

/// Parameters of a target's extent locks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockConfig {
    /// Bytes of the target's view of a file per lock unit (the stripe size).
    pub unit: u64,
    /// Time to revoke a conflicting lock and grant it to the requester (ps).
    pub revocation: Time,
}

/// Who holds a run of lock units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holder {
    /// One client, exclusively (it wrote last).
    Writer(Endpoint),
    /// Readers only (any client reads without a revocation).
    Readers,
}

/// A run of lock units `[start, end)` (the map key is `start`) with one holder, granted at
/// `granted` (ps): a request for these units cannot be served before then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    end: u64,
    holder: Holder,
    granted: Time,
}

/// Lock counts of one target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LockStats {
    /// Requests that took locks.
    pub requests: u64,
    /// Requests that had to revoke another client's lock.
    pub revocations: u64,
    /// Time requests waited for their locks, summed (ps).
    pub wait: Time,
}

/// The extent locks of every file on one target.
#[derive(Clone, Debug)]
pub struct ExtentLocks {
    cfg: LockConfig,
    /// Per (capacity account, file): runs of lock units by first unit.
    files: HashMap<(u32, u64), BTreeMap<u64, Run>>,
    stats: LockStats,
}

impl ExtentLocks {
    /// No locks held yet.
    pub fn new(cfg: LockConfig) -> Self {
        ExtentLocks {
            cfg: LockConfig {
                unit: cfg.unit.max(1),
                ..cfg
            },
            files: HashMap::new(),
            stats: LockStats::default(),
        }
    }

    /// The parameters.
    pub fn config(&self) -> LockConfig {
        self.cfg
    }

    /// Counts so far.
    pub fn stats(&self) -> LockStats {
        self.stats
    }

    /// Takes the locks `req`, arriving at `now`, needs; returns when they are granted (`now`
    /// when nothing conflicts, and always for requests that are not the application's).
    pub fn acquire(&mut self, req: &IoRequest, now: Time) -> Time {
        if req.kind != RequestKind::Client || req.len == 0 {
            return now;
        }
        let unit = self.cfg.unit;
        let last = req.offset.saturating_add(req.len - 1) / unit;
        let (first, end) = (req.offset / unit, last + 1);
        let client = req.origin;
        let write = req.op == IoOp::Write;
        let runs = self.files.entry((req.alloc, req.file)).or_default();
        // The runs overlapping [first, end), cut to it.
        let mut overlap: Vec<(u64, Run)> = Vec::new();
        if let Some((&s, r)) = runs.range(..first).next_back() {
            if r.end > first {
                overlap.push((s, *r));
            }
        }
        overlap.extend(runs.range(first..end).map(|(&s, r)| (s, *r)));
        let mut conflict = false;
        let mut after = now;
        for (_, r) in &overlap {
            conflict |= match r.holder {
                Holder::Writer(c) => c != client,
                Holder::Readers => write,
            };
            after = after.max(r.granted);
        }
        let granted = if conflict {
            after.saturating_add(self.cfg.revocation)
        } else {
            after
        };
        self.stats.requests += 1;
        self.stats.revocations += u64::from(conflict);
        self.stats.wait = self.stats.wait.saturating_add(granted - now);
        // Cut the boundary runs, then lay the new holders over [first, end).
        for &(s, r) in &overlap {
            runs.remove(&s);
            if s < first {
                runs.insert(s, Run { end: first, ..r });
            }
            if r.end > end {
                runs.insert(end, r);
            }
        }
        let mine = Holder::Writer(client);
        let new = if write { mine } else { Holder::Readers };
        // A reader keeps the units it holds for writing (its PW lock covers the read).
        let mut pos = first;
        let mut pieces: Vec<(u64, u64, Holder)> = Vec::new();
        let mut push = |a: u64, b: u64, h: Holder| match pieces.last_mut() {
            Some(last) if last.1 == a && last.2 == h => last.1 = b,
            _ => pieces.push((a, b, h)),
        };
        for &(s, r) in &overlap {
            let (a, b) = (s.max(first), r.end.min(end));
            if pos < a {
                push(pos, a, new);
            }
            push(
                a,
                b,
                if !write && r.holder == mine {
                    mine
                } else {
                    new
                },
            );
            pos = b;
        }
        if pos < end {
            push(pos, end, new);
        }
        for (a, b, holder) in pieces {
            Self::put(runs, a, b, holder, granted, now);
        }
        granted
    }

    /// Inserts run `[a, b)`, merged with the run ending at `a` when both have the same holder
    /// and neither has a grant still pending at `now`.
    fn put(
        runs: &mut BTreeMap<u64, Run>,
        a: u64,
        b: u64,
        holder: Holder,
        granted: Time,
        now: Time,
    ) {
        if let Some((_, prev)) = runs.range_mut(..a).next_back() {
            if prev.end == a && prev.holder == holder && prev.granted <= now && granted <= now {
                prev.end = b;
                prev.granted = prev.granted.max(granted);
                return;
            }
        }
        runs.insert(
            a,
            Run {
                end: b,
                holder,
                granted,
            },
        );
    }

    /// Runs of lock units held on all files (for tests and memory checks).
    pub fn runs(&self) -> usize {
        self.files.values().map(BTreeMap::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REV: Time = 100;

    fn locks() -> ExtentLocks {
        ExtentLocks::new(LockConfig {
            unit: 10,
            revocation: REV,
        })
    }

    fn req(client: u32, op: IoOp, offset: u64, len: u64) -> IoRequest {
        IoRequest {
            id: 0,
            origin: Endpoint(client),
            op,
            kind: RequestKind::Client,
            alloc: 0,
            stream: 0,
            file: 7,
            offset,
            len,
            ops: 1,
            hops: 0,
        }
    }

    fn w(client: u32, offset: u64, len: u64) -> IoRequest {
        req(client, IoOp::Write, offset, len)
    }

    #[test]
    fn a_client_on_its_own_units_never_waits() {
        let mut l = locks();
        for t in 0..50u64 {
            for c in 0..4u32 {
                // client c owns units 4k + c
                let off = (4 * t + u64::from(c)) * 10;
                assert_eq!(l.acquire(&w(c, off, 10), t), t);
                assert_eq!(l.acquire(&req(c, IoOp::Read, off + 2, 5), t), t);
            }
        }
        assert_eq!(l.stats().revocations, 0);
        assert_eq!(l.stats().wait, 0);
    }

    #[test]
    fn conflicting_writers_to_one_unit_are_granted_one_revocation_apart() {
        // k clients writing one unit at time 0: the first is granted at once, the others
        // at REV, 2 REV, ..., (k - 1) REV.
        for k in 1..6u32 {
            let mut l = locks();
            let grants: Vec<Time> = (0..k).map(|c| l.acquire(&w(c, 3, 4), 0)).collect();
            let expected: Vec<Time> = (0..u64::from(k)).map(|i| i * REV).collect();
            assert_eq!(grants, expected);
            assert_eq!(l.stats().revocations, u64::from(k) - 1);
            assert_eq!(l.stats().wait, REV * u64::from(k) * u64::from(k - 1) / 2);
        }
    }

    #[test]
    fn lock_cost_grows_with_writers_per_unit() {
        // One unit of 1,000 bytes written in 1,000 / w pieces by w clients in turn, 12
        // rounds: every write after the first revokes, so the wait grows with w.
        let mut last = None;
        for writers in [1u32, 2, 4, 5, 8] {
            let mut l = ExtentLocks::new(LockConfig {
                unit: 1000,
                revocation: REV,
            });
            let piece = 1000 / u64::from(writers);
            let mut t = 0;
            for _round in 0..12 {
                for c in 0..writers {
                    t = l.acquire(&w(c, u64::from(c) * piece, piece), t);
                }
            }
            let revocations = if writers == 1 {
                0
            } else {
                12 * u64::from(writers) - 1
            };
            assert_eq!(l.stats().revocations, revocations, "{writers} writers");
            assert_eq!(t, revocations * REV);
            if let Some(prev) = last {
                assert!(l.stats().wait > prev || writers == 1);
            }
            last = Some(l.stats().wait);
        }
    }

    #[test]
    fn readers_share_and_writers_revoke_them() {
        let mut l = locks();
        assert_eq!(l.acquire(&req(1, IoOp::Read, 0, 30), 0), 0);
        assert_eq!(l.acquire(&req(2, IoOp::Read, 5, 30), 0), 0);
        // A write to units the readers hold revokes them (one round).
        assert_eq!(l.acquire(&w(3, 12, 30), 10), 10 + REV);
        // The writer reads under its own lock; another reader revokes it.
        assert_eq!(l.acquire(&req(3, IoOp::Read, 12, 5), 500), 500);
        assert_eq!(l.acquire(&req(1, IoOp::Read, 12, 5), 600), 600 + REV);
        assert_eq!(l.stats().revocations, 2);
    }

    #[test]
    fn other_files_accounts_and_server_traffic_take_no_locks() {
        let mut l = locks();
        l.acquire(&w(1, 0, 10), 0);
        let mut other = w(2, 0, 10);
        other.file = 8;
        assert_eq!(l.acquire(&other, 0), 0);
        other.file = 7;
        other.alloc = 1;
        assert_eq!(l.acquire(&other, 0), 0);
        let mut drain = w(2, 0, 10);
        drain.kind = RequestKind::Drain;
        assert_eq!(l.acquire(&drain, 0), 0);
        assert_eq!(l.stats().revocations, 0);
    }

    #[test]
    fn sequential_writes_by_one_client_keep_one_run() {
        let mut l = locks();
        for k in 0..10_000u64 {
            l.acquire(&w(1, k * 7, 7), k);
        }
        assert_eq!(l.runs(), 1);
        // a huge request costs one run, not one entry per unit
        l.acquire(&w(2, 0, 1 << 60), 20_000);
        assert_eq!(l.runs(), 1);
    }
}
