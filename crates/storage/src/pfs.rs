//! The parallel file system: I/O nodes on the network forwarding to a backend of storage
//! servers with per-server and aggregate bandwidth and a per-request latency.
//!
//! Two components. An [`IoNode`] lives in an I/O-node host LP (a network terminal): it forwards
//! every request it receives to the [`PfsBackend`] LP with `forward_latency`, and relays the
//! backend's answers back over the network. The [`PfsBackend`] is its own LP: after
//! `request_latency` (times [`IoRequest::ops`] for a transfer train) a request's bytes are
//! striped over the file's `stripe_count` storage servers (OSTs) in `stripe_size` units, and the
//! per-server parts transfer as flows sharing each server's bandwidth and the aggregate
//! bandwidth max-min fairly.
//!
//! Which OSTs a file gets ([`first_ost`]): Lustre's round-robin object allocator, taken in file
//! id order. Files are given consecutive OSTs: file `k`'s objects follow file `k − 1`'s, so
//! with stripe count `c` over `n` OSTs file `k` starts at position `k·c` of the cyclic OST list,
//! and, as Lustre's allocator does when it wraps around the pool, the start moves one OST
//! further at each wrap (so that files whose stripe count divides `n` do not always start on
//! the same OSTs): `first(k) = (k·c + ⌊k·c / n⌋) mod n`. With `c = n` that is `k mod n`, every
//! file over every OST from its own first one. `N` files of one stripe over `M` OSTs thus put
//! `⌈N/M⌉` or `⌊N/M⌋` files on each OST. (Lustre also re-seeds its start index at random now
//! and then and skips full or degraded OSTs; neither is modelled.)
//! The answer returns to the I/O node after `forward_latency`, which is the lookahead the
//! simulator declares for the I/O node ↔ backend channel (or it keeps them on one cluster).
//!
//! With a [`MetadataConfig`], metadata requests ([`RequestKind::Metadata`]: a client's open,
//! close or delete of a PFS file) travel the same way and are served by the backend's
//! [`MetadataService`] (the MDS) instead of the storage servers; without one nobody sends them.

use crate::error::{positive, ConfigError, PfsField};
use crate::event::StorageEvent;
use crate::fluid::Fluid;
use crate::metadata::{MetadataConfig, MetadataService, MetadataStats};
use crate::request::{Endpoint, IoOp, IoReply, IoRequest, ReplyStatus, RequestKind, StorageMsg};
use crate::stats::DeviceStats;
use bbsim_engine::{Ctx, LpId, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// PFS parameters. Bandwidths in bytes/s, sizes in bytes, times in ps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PfsConfig {
    /// Storage servers (OSTs) in the backend.
    pub servers: u32,
    /// Bandwidth of one storage server (bytes/s).
    pub server_bandwidth: u64,
    /// Bandwidth of the whole backend (bytes/s).
    pub aggregate_bandwidth: u64,
    /// Fixed service latency of every request at the backend (ps).
    pub request_latency: Time,
    /// PFS stripe size (bytes).
    pub stripe_size: u64,
    /// Storage servers (OSTs) a file is striped over unless `file_stripe_counts` says
    /// otherwise (Lustre's default is 1).
    pub stripe_count: u32,
    /// Stripe counts of ranges of file ids `(first file, end file (exclusive), count)`,
    /// sorted and disjoint: a job whose files are striped differently (`lfs setstripe` on its
    /// directory). Files outside every range use `stripe_count`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub file_stripe_counts: Vec<(u64, u64, u32)>,
    /// One-way delay between an I/O node and the backend (ps).
    pub forward_latency: Time,
    /// The metadata service (MDS) that opens, closes and deletes of PFS files wait for;
    /// `None`: they cost nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<MetadataConfig>,
}

impl Default for PfsConfig {
    fn default() -> Self {
        PfsConfig {
            servers: 8,
            server_bandwidth: 2_000_000_000,
            aggregate_bandwidth: 10_000_000_000,
            request_latency: 100 * bbsim_engine::time::US,
            stripe_size: 1 << 20,
            stripe_count: 4,
            file_stripe_counts: Vec::new(),
            forward_latency: bbsim_engine::time::US,
            metadata: None,
        }
    }
}

impl PfsConfig {
    /// Checks every setting; keys are relative to the PFS section.
    pub fn validate(&self) -> Result<(), ConfigError<PfsField>> {
        positive(PfsField::Servers, u64::from(self.servers))?;
        positive(PfsField::ServerBandwidth, self.server_bandwidth)?;
        positive(PfsField::AggregateBandwidth, self.aggregate_bandwidth)?;
        positive(PfsField::StripeSize, self.stripe_size)?;
        self.check_count(PfsField::StripeCount, self.stripe_count)?;
        let mut end = 0;
        for &(first, last, count) in &self.file_stripe_counts {
            if first < end || last <= first {
                return Err(ConfigError::new(
                    PfsField::FileStripeCounts,
                    format!("{first}..{last}"),
                    "file ranges must be non-empty, sorted and disjoint",
                ));
            }
            end = last;
            self.check_count(PfsField::FileStripeCounts, count)?;
        }
        if let Some(m) = &self.metadata {
            m.validate()?;
        }
        Ok(())
    }

    fn check_count(&self, field: PfsField, count: u32) -> Result<(), ConfigError<PfsField>> {
        positive(field, u64::from(count))?;
        if count > self.servers {
            return Err(ConfigError::new(
                field,
                count,
                format!("must not exceed the number of servers ({})", self.servers),
            ));
        }
        Ok(())
    }

    /// The stripe count of `file`.
    pub fn stripe_count_of(&self, file: u64) -> u32 {
        let i = self
            .file_stripe_counts
            .partition_point(|&(first, _, _)| first <= file);
        match i.checked_sub(1).map(|i| self.file_stripe_counts[i]) {
            Some((_, end, count)) if file < end => count,
            _ => self.stripe_count,
        }
    }
}

/// The OST holding stripe 0 of file `file` striped over `count` of `servers` OSTs by Lustre's
/// round-robin allocator in file-id order: `(file·count + ⌊file·count / servers⌋) mod
/// servers` (module docs).
pub fn first_ost(file: u64, count: u32, servers: u32) -> u32 {
    let n = u128::from(servers.max(1));
    let pos = u128::from(file) * u128::from(count);
    ((pos + pos / n) % n) as u32
}

/// A PFS event: a request forwarded to the backend, a backend timer, or an answer for an
/// I/O node. Delivered as [`StorageEvent::Pfs`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PfsEvent(PfsMsg);

#[derive(Clone, Debug, PartialEq, Eq)]
enum PfsMsg {
    Submit { from: LpId, req: IoRequest },
    Start(u64),
    Flows(u64),
    Done { reply: IoReply, origin: Endpoint },
}

/// Counters of an I/O node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoNodeStats {
    /// Requests forwarded.
    pub requests: u64,
    /// Bytes written through this node.
    pub bytes_written: u64,
    /// Bytes read through this node.
    pub bytes_read: u64,
}

/// A PFS I/O node (gateway) component.
#[derive(Clone, Debug)]
pub struct IoNode {
    me: Endpoint,
    backend: LpId,
    forward_latency: Time,
    stats: IoNodeStats,
}

impl IoNode {
    /// The I/O node at network endpoint `me`, forwarding to the backend LP `backend`.
    pub fn new(me: Endpoint, backend: LpId, cfg: &PfsConfig) -> Self {
        IoNode {
            me,
            backend,
            forward_latency: cfg.forward_latency,
            stats: IoNodeStats::default(),
        }
    }

    /// Counters.
    pub fn stats(&self) -> IoNodeStats {
        self.stats
    }

    /// A message delivered by the network: requests go to the backend (replies are ignored;
    /// I/O nodes send none).
    pub fn on_message<E: From<StorageEvent>>(&mut self, msg: StorageMsg, ctx: &mut Ctx<'_, E>) {
        if let StorageMsg::Request(req) = msg {
            self.stats.requests += 1;
            match req.op {
                IoOp::Write => self.stats.bytes_written += req.len,
                IoOp::Read => self.stats.bytes_read += req.len,
            }
            let from = ctx.me();
            let ev = StorageEvent::Pfs(PfsEvent(PfsMsg::Submit { from, req }));
            ctx.send(self.backend, self.forward_latency, E::from(ev));
        }
    }

    /// A PFS event for this I/O node: an answer to relay, appended to `out` as
    /// `(destination, message)`.
    pub fn handle(&mut self, ev: PfsEvent, out: &mut Vec<(Endpoint, StorageMsg)>) {
        if let PfsMsg::Done { mut reply, origin } = ev.0 {
            reply.server = self.me;
            out.push((origin, StorageMsg::Reply(reply)));
        }
    }
}

/// Bytes the backend has completed, by direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfsTotals {
    /// Bytes persisted (writes completed), all request kinds.
    pub stored: u64,
    /// Of which drained from burst buffers.
    pub stored_drain: u64,
    /// Of which spilled by full burst buffers.
    pub stored_spill: u64,
    /// Of which drained from node-local SSDs by their compute nodes.
    pub stored_local_drain: u64,
    /// Bytes read.
    pub read: u64,
    /// Requests completed.
    pub requests: u64,
}

#[derive(Clone, Debug)]
struct Pending {
    from: LpId,
    req: IoRequest,
    flows_left: u32,
}

/// The PFS backend: storage servers with max-min shared bandwidth.
#[derive(Clone, Debug)]
pub struct PfsBackend {
    cfg: PfsConfig,
    fluid: Fluid,
    pending: BTreeMap<u64, Pending>,
    next_id: u64,
    gen: u64,
    totals: PfsTotals,
    servers: Vec<DeviceStats>,
    finished: Vec<u64>,
    metadata: Option<MetadataService>,
}

impl PfsBackend {
    /// A backend with the given configuration (validated).
    pub fn new(cfg: PfsConfig) -> Result<Self, ConfigError<PfsField>> {
        cfg.validate()?;
        Ok(PfsBackend {
            fluid: Fluid::new(
                cfg.servers as usize,
                cfg.server_bandwidth,
                cfg.aggregate_bandwidth,
            ),
            servers: vec![DeviceStats::default(); cfg.servers as usize],
            metadata: cfg.metadata.map(MetadataService::new),
            cfg,
            pending: BTreeMap::new(),
            next_id: 0,
            gen: 0,
            totals: PfsTotals::default(),
            finished: Vec::new(),
        })
    }

    /// Completed-byte totals.
    pub fn totals(&self) -> PfsTotals {
        self.totals
    }

    /// The metadata service's counters (`None` without one).
    pub fn metadata_stats(&self) -> Option<MetadataStats> {
        self.metadata.as_ref().map(MetadataService::stats)
    }

    /// Per-storage-server statistics (bytes, busy time, flows in progress over time).
    pub fn server_stats(&self) -> &[DeviceStats] {
        &self.servers
    }

    /// The storage servers a request touches and its bytes on each, in server order.
    pub fn layout(&self, file: u64, offset: u64, len: u64) -> Vec<(u32, u64)> {
        let n = u64::from(self.cfg.servers);
        let count = u64::from(self.cfg.stripe_count_of(file));
        let ss = self.cfg.stripe_size;
        let first = u64::from(first_ost(file, count as u32, self.cfg.servers));
        let mut per: BTreeMap<u32, u64> = BTreeMap::new();
        let mut pos = offset;
        let end = offset.saturating_add(len);
        while pos < end {
            let stripe = pos / ss;
            let take = (ss - pos % ss).min(end - pos);
            let server = ((first + stripe % count) % n) as u32;
            *per.entry(server).or_default() += take;
            pos += take;
        }
        per.into_iter().collect()
    }

    /// Handles a PFS event delivered to the backend LP.
    pub fn handle<E: From<StorageEvent>>(&mut self, ev: PfsEvent, ctx: &mut Ctx<'_, E>) {
        match ev.0 {
            PfsMsg::Submit { from, req } if req.kind == RequestKind::Metadata => {
                let now = ctx.now();
                let end = self.metadata.as_mut().map_or(now, |m| m.serve(now));
                self.reply(from, &req, end - now, ctx);
            }
            PfsMsg::Submit { from, req } => {
                self.next_id += 1;
                let id = self.next_id;
                self.pending.insert(
                    id,
                    Pending {
                        from,
                        req,
                        flows_left: 0,
                    },
                );
                if self.cfg.request_latency > 0 {
                    // A transfer train (a spilled one) pays every operation's latency.
                    let ops = self.pending.get(&id).map_or(1, |p| p.req.ops.max(1));
                    let latency = self.cfg.request_latency.saturating_mul(u64::from(ops));
                    let ev = StorageEvent::Pfs(PfsEvent(PfsMsg::Start(id)));
                    ctx.send_self(latency, E::from(ev));
                } else {
                    self.start(id, ctx);
                }
            }
            PfsMsg::Start(id) => self.start(id, ctx),
            PfsMsg::Flows(gen) => {
                if gen != self.gen {
                    return;
                }
                let now = ctx.now();
                let mut fin = std::mem::take(&mut self.finished);
                self.fluid.pop_finished(now, &mut fin);
                for &owner in &fin {
                    let server = (owner & 0xFFFF_FFFF) as usize;
                    let id = owner >> 32;
                    self.servers[server].queue_change(now, -1);
                    let done = match self.pending.get_mut(&id) {
                        Some(p) => {
                            p.flows_left -= 1;
                            p.flows_left == 0
                        }
                        None => false,
                    };
                    if done {
                        self.complete(id, ctx);
                    }
                }
                fin.clear();
                self.finished = fin;
                self.reschedule(ctx);
            }
            PfsMsg::Done { .. } => {}
        }
    }

    fn start<E: From<StorageEvent>>(&mut self, id: u64, ctx: &mut Ctx<'_, E>) {
        let Some(p) = self.pending.get(&id) else {
            return;
        };
        let (file, offset, len, op) = (p.req.file, p.req.offset, p.req.len, p.req.op);
        let parts = self.layout(file, offset, len);
        if parts.is_empty() {
            self.complete(id, ctx);
            return;
        }
        let now = ctx.now();
        for &(server, bytes) in &parts {
            let s = &mut self.servers[server as usize];
            match op {
                IoOp::Write => {
                    s.host_bytes_written += bytes;
                    s.nand_bytes_written += bytes;
                    s.writes += 1;
                }
                IoOp::Read => {
                    s.host_bytes_read += bytes;
                    s.reads += 1;
                }
            }
            s.queue_change(now, 1);
            self.fluid
                .add(now, server, bytes, (id << 32) | u64::from(server));
        }
        if let Some(p) = self.pending.get_mut(&id) {
            p.flows_left = parts.len() as u32;
        }
        self.reschedule(ctx);
    }

    fn reschedule<E: From<StorageEvent>>(&mut self, ctx: &mut Ctx<'_, E>) {
        self.gen += 1;
        if let Some(t) = self.fluid.next_finish() {
            let ev = StorageEvent::Pfs(PfsEvent(PfsMsg::Flows(self.gen)));
            ctx.send_self(t.saturating_sub(ctx.now()), E::from(ev));
        }
    }

    fn complete<E: From<StorageEvent>>(&mut self, id: u64, ctx: &mut Ctx<'_, E>) {
        let Some(p) = self.pending.remove(&id) else {
            return;
        };
        let r = p.req;
        self.totals.requests += 1;
        match r.op {
            IoOp::Write => {
                self.totals.stored += r.len;
                match r.kind {
                    RequestKind::Drain => self.totals.stored_drain += r.len,
                    RequestKind::Spill => self.totals.stored_spill += r.len,
                    RequestKind::LocalDrain => self.totals.stored_local_drain += r.len,
                    _ => {}
                }
            }
            IoOp::Read => self.totals.read += r.len,
        }
        self.reply(p.from, &r, 0, ctx);
    }

    /// Answers `r` to the I/O node LP `from` in `delay` ps plus the forward latency.
    fn reply<E: From<StorageEvent>>(
        &self,
        from: LpId,
        r: &IoRequest,
        delay: Time,
        ctx: &mut Ctx<'_, E>,
    ) {
        let reply = IoReply {
            id: r.id,
            op: r.op,
            kind: r.kind,
            len: r.len,
            server: Endpoint(u32::MAX),
            status: ReplyStatus::Done,
            hops: r.hops,
            stalled: 0,
            stall_end: 0,
        };
        let ev = StorageEvent::Pfs(PfsEvent(PfsMsg::Done {
            reply,
            origin: r.origin,
        }));
        ctx.send(
            from,
            delay.saturating_add(self.cfg.forward_latency),
            E::from(ev),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_stripes_round_robin_from_the_file_server() {
        let cfg = PfsConfig {
            servers: 4,
            stripe_size: 100,
            stripe_count: 2,
            ..PfsConfig::default()
        };
        let b = PfsBackend::new(cfg.clone()).unwrap();
        // File 3 starts at server 3 and alternates with server 0.
        assert_eq!(b.layout(3, 50, 300), vec![(0, 150), (3, 150)]);
        assert_eq!(b.layout(1, 0, 0), vec![]);
        let bad = PfsConfig {
            stripe_count: 5,
            ..cfg.clone()
        };
        assert_eq!(bad.validate().unwrap_err().field, PfsField::StripeCount);
        let bad = PfsConfig {
            aggregate_bandwidth: 0,
            ..cfg
        };
        assert_eq!(
            bad.validate().unwrap_err().field,
            PfsField::AggregateBandwidth
        );
    }

    fn osts(servers: u32, stripe_count: u32) -> PfsBackend {
        PfsBackend::new(PfsConfig {
            servers,
            stripe_size: 100,
            stripe_count,
            ..PfsConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn stripe_count_one_puts_a_file_on_one_ost() {
        let b = osts(8, 1);
        for file in 0..40 {
            let parts = b.layout(file, 0, 10_000);
            assert_eq!(parts.len(), 1, "file {file}");
            assert_eq!(parts[0].1, 10_000);
        }
    }

    #[test]
    fn files_take_consecutive_osts_like_lustres_round_robin_allocator() {
        // N one-stripe files over M OSTs: ceil or floor of N / M files on each.
        for (n, m) in [(10u64, 4u32), (248, 248), (1000, 248), (7, 3)] {
            let mut per = vec![0u64; m as usize];
            for f in 0..n {
                per[first_ost(f, 1, m) as usize] += 1;
            }
            let (lo, hi) = (n / u64::from(m), n.div_ceil(u64::from(m)));
            assert!(
                per.iter().all(|&k| k == lo || k == hi),
                "{n} over {m}: {per:?}"
            );
        }
        // Stripe count 2 over 4 OSTs: files on (0,1), (2,3), then shifted one at the wrap:
        // (1,2), (3,0), then (2,3), (0,1), …
        let b = osts(4, 2);
        let sets: Vec<Vec<u32>> = (0..6)
            .map(|f| b.layout(f, 0, 200).iter().map(|p| p.0).collect())
            .collect();
        assert_eq!(
            sets,
            vec![
                vec![0, 1],
                vec![2, 3],
                vec![1, 2],
                vec![0, 3],
                vec![2, 3],
                vec![0, 1]
            ]
        );
        // Every file over every OST: file k starts at OST k mod n.
        for f in 0..20u64 {
            assert_eq!(u64::from(first_ost(f, 5, 5)), f % 5);
        }
    }

    #[test]
    fn file_ranges_override_the_stripe_count() {
        let cfg = PfsConfig {
            servers: 8,
            stripe_size: 100,
            stripe_count: 1,
            file_stripe_counts: vec![(10, 20, 4), (30, 31, 8)],
            ..PfsConfig::default()
        };
        let counts: Vec<u32> = [0, 9, 10, 19, 20, 29, 30, 31]
            .iter()
            .map(|&f| cfg.stripe_count_of(f))
            .collect();
        assert_eq!(counts, vec![1, 1, 4, 4, 1, 1, 8, 1]);
        let b = PfsBackend::new(cfg.clone()).unwrap();
        assert_eq!(b.layout(12, 0, 800).len(), 4);
        assert_eq!(b.layout(30, 0, 800).len(), 8);
        let too_wide = PfsConfig {
            file_stripe_counts: vec![(0, 5, 9)],
            ..cfg.clone()
        };
        let e = too_wide.validate().unwrap_err();
        assert_eq!(e.field, PfsField::FileStripeCounts);
        assert!(e
            .to_string()
            .contains("must not exceed the number of servers (8)"));
        let overlapping = PfsConfig {
            file_stripe_counts: vec![(0, 5, 2), (4, 6, 2)],
            ..cfg
        };
        assert_eq!(
            overlapping.validate().unwrap_err().field,
            PfsField::FileStripeCounts
        );
    }
}
