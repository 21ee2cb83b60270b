//! The flow model: packets cross the network as flows that share link bandwidth, without
//! router LPs and without per-hop events. Meant for large packets (a whole storage message
//! each, `packet_size` of a few MiB), where it costs two events per packet whatever the
//! route's length.
//!
//! Each NIC hands its packets to one fabric LP as soon as it has them, `latency +
//! router_delay` later (when the head would be routed at the first router). The fabric keeps
//! every terminal's packets in the order its NIC sent them and moves at most `window` of them
//! at a time per terminal (by default one, as a NIC injects one packet after another): a
//! terminal's next packet starts when one of its moving packets has left. With a window of
//! `w > 1` a terminal's moving flows share its injection link (each gets at most its
//! bandwidth / the number moving), so a packet held up behind a congested link no longer
//! holds back the terminal's later packets to other destinations, as the packet model's
//! buffers let a NIC move on while a piece drains. A packet that starts is routed at once through every router of
//! its route with the topology's routing algorithm (adaptive choices see, per output link, the
//! bytes of the flows crossing it) and becomes a flow over the route's links plus its
//! terminal's injection link. Every flow moves at the **bottleneck share** of its route: the
//! least, over the injection link and the route's links, of the link's bandwidth divided by
//! the flows crossing it. Rates change only when a flow starts or ends, and then only for the
//! flows that share a link with it. The packet is delivered when its last byte has left plus
//! the rest of the route's latency.
//!
//! Timing: a flow that starts at `h` (the head routed at the first router, `s + L0 + D` for a
//! packet the NIC sent at `s` over its link of latency `L0`) and moves its `B` bytes at a
//! constant rate `b` ends at `e = h + B / b`; it is delivered at `e + (k - 1) D + L1 + ... +
//! Lk` over `k` routers whose output links have latencies `L1..Lk`. A lone flow moves at the
//! slowest link's bandwidth, so with no other traffic this is **exactly the packet model's
//! zero-load latency** for a one-packet message (and for any message on links of equal
//! bandwidth). Remaining work is kept in byte·10¹² units and rates as exact fractions, so a
//! lone flow takes exactly [`serialisation`] of its bytes.
//!
//! Jitter: exact equal shares keep flows that are alike in lockstep: ranks that start
//! together, write alike and meet at a link end their transfers at the same picosecond, queue
//! at their BB server's SSDs at the same instant, and stay in step for the whole I/O phase,
//! where the packet model's packet-by-packet arbitration spreads them apart. With a jitter
//! `j` (parts per million, [`MAX_FLOW_JITTER_PPM`] at most) each flow draws a shortfall
//! `s` in `[0, j]` at its start from the fabric's random stream, and moves at `(1 - s / 10⁶)`
//! of its bottleneck share whenever that share is split (more than one flow on its bottleneck
//! link, or on its injection link): alike flows then end at different times, and a link is
//! never served at less than `(1 - j / 10⁶)` of its bandwidth. A lone flow keeps its exact
//! share, so the zero-load closed form above holds with any jitter.
//!
//! What it does not model: buffers, credits and back-pressure beyond the window per terminal
//! (slowed flows hold their terminal's next packets back, nothing else);
//! the unused share of a link whose flows are bound elsewhere is not handed to the others
//! (the bottleneck share is not max-min fair); a packet's bytes reach the destination all at
//! once, when the flow ends. Buffer-occupancy statistics are zero; a link's busy time is its
//! bytes at its full bandwidth.

use crate::end_heap::EndHeap;
use crate::fabric::FabricRoutes;
use crate::graph::Peer;
use crate::link::serialisation;
use crate::network::RouterParams;
use crate::packet::{NetEvent, Packet};
use crate::router::RouterStats;
use crate::routing::Algo;
use crate::topology::Topology;
use bbsim_engine::{Ctx, LpId, Time};
use std::collections::VecDeque;
use std::sync::Arc;

/// Picoseconds per second: remaining work is in bytes × this, so that a rate in bytes per
/// second consumes its own value per picosecond.
const PS_PER_SEC: u128 = 1_000_000_000_000;

/// Parts per million.
const PPM: u32 = 1_000_000;

/// The largest flow jitter: 1 % of a flow's share (10,000 parts per million).
pub const MAX_FLOW_JITTER_PPM: u32 = 10_000;

/// One output link of one router.
struct FlowLink {
    /// Router and input port it leads to; `None` for an ejection link (or nothing attached).
    next: Option<(u32, u16)>,
    latency: Time,
    bandwidth: u64,
    /// Flows crossing it (ids into `flows`).
    flows: Vec<u32>,
    /// Bytes of the flows crossing it: the load adaptive routing sees.
    bytes: u64,
}

/// A packet on its way as a flow.
struct Flow<P> {
    pkt: Packet,
    payload: Option<P>,
    /// Fabric link indices of its route, first router's output link first.
    links: Vec<u32>,
    /// Its terminal's injection bandwidth (bytes/s).
    injection: u64,
    /// Its terminal (index into `moving`).
    src: u32,
    /// Parts per million its rate falls short of its share while it shares its bottleneck
    /// (drawn at its start, below the fabric's `jitter`; 0 without).
    slack: u32,
    /// Remaining work (bytes × 10¹²).
    rem: u128,
    /// Rate as `num / den` bytes per second.
    num: u128,
    den: u128,
    /// When `rem` was last brought up to date (ps).
    updated: Time,
    /// From the flow's end to its delivery (ps): the route's link latencies and the router
    /// delays after the first router.
    tail: Time,
}

/// The flow-model fabric: every router's output links and the flows crossing them, in one LP.
/// Embed it in the simulation's LP enum and forward [`NetEvent`]s to [`FlowFabric::handle`].
/// Its own wake-up (the earliest flow end) arrives as a [`NetEvent::LinkFree`].
pub struct FlowFabric<P> {
    class: u16,
    /// Port numbering (router `r`'s ports in `links`) and routing.
    routes: FabricRoutes,
    /// LP of the host owning terminal `t`.
    hosts: Arc<[LpId]>,
    links: Vec<FlowLink>,
    /// Flows by id (`None`: a free slot).
    flows: Vec<Option<Flow<P>>>,
    free_ids: Vec<u32>,
    /// Per terminal: its moving flows (at most `window`), which share its injection link.
    moving: Vec<Vec<u32>>,
    /// Flows a terminal may have moving at once (at least 1).
    window: usize,
    /// Largest rate shortfall of a flow that shares its bottleneck, in parts per million
    /// (0: exact shares).
    jitter: u32,
    /// Per terminal: packets waiting for its flow to end, in the order its NIC sent them.
    waiting: Vec<VecDeque<(Packet, Option<P>)>>,
    /// Flow ends (time, flow id), earliest first, one per moving flow.
    ends: EndHeap,
    /// When the pending wake-up is due (`Time::MAX`: none).
    wake_at: Time,
    /// Per flow id: the last recomputation that visited it (to visit each flow once).
    seen: Vec<u32>,
    pass: u32,
    /// Scratch: the route of the flow whose sharers are being recomputed.
    route_buf: Vec<u32>,
    /// Per router: packets routed and per-port link statistics.
    stats: Vec<RouterStats>,
}

impl<P> FlowFabric<P> {
    /// The fabric of `topo`, delivering to the host LPs `hosts` (indexed by terminal).
    pub(crate) fn new(
        class: u16,
        topo: Arc<Topology>,
        algo: Algo,
        params: Arc<RouterParams>,
        hosts: Arc<[LpId]>,
        window: u16,
        jitter: u32,
    ) -> Self {
        let routes = FabricRoutes::new(topo, algo, params);
        let topo = &routes.topo;
        let mut links = Vec::new();
        let mut stats = Vec::with_capacity(topo.routers() as usize);
        for r in 0..topo.routers() {
            let rp = topo.ports(r);
            links.extend(rp.iter().map(|p| FlowLink {
                next: match p.peer {
                    Peer::Router { router, port } => Some((router, port)),
                    Peer::None | Peer::Terminal(_) => None,
                },
                latency: p.link.latency,
                bandwidth: p.link.bandwidth,
                flows: Vec::new(),
                bytes: 0,
            }));
            stats.push(RouterStats::with_ports(rp.len()));
        }
        let terminals = topo.terminals() as usize;
        FlowFabric {
            class,
            routes,
            hosts,
            links,
            flows: Vec::new(),
            free_ids: Vec::new(),
            moving: vec![Vec::new(); terminals],
            window: usize::from(window.max(1)),
            jitter: jitter.min(MAX_FLOW_JITTER_PPM),
            waiting: (0..terminals).map(|_| VecDeque::new()).collect(),
            ends: EndHeap::default(),
            wake_at: Time::MAX,
            seen: Vec::new(),
            pass: 0,
            route_buf: Vec::new(),
            stats,
        }
    }

    /// The lookahead class given at construction.
    pub fn class(&self) -> u16 {
        self.class
    }

    /// A label for engine error messages.
    pub fn label(&self) -> String {
        "network fabric (flow model)".into()
    }

    /// Router `r`'s statistics: packets routed and per-output-port link figures.
    pub fn router_stats(&self) -> impl Iterator<Item = (u32, &RouterStats)> {
        self.stats.iter().enumerate().map(|(r, s)| (r as u32, s))
    }

    /// Packets moving or waiting for their terminal (0 after a drained run).
    pub fn waiting_packets(&self) -> usize {
        self.flows.iter().flatten().count() + self.waiting.iter().map(VecDeque::len).sum::<usize>()
    }

    /// Handles one network event addressed to the fabric: a packet from a NIC (its head would
    /// now be routed at its first router) or the fabric's wake-up for the flows ending now.
    pub fn handle<E: From<NetEvent<P>>>(&mut self, ev: NetEvent<P>, ctx: &mut Ctx<'_, E>) {
        match ev {
            NetEvent::Packet { pkt, payload } => {
                let src = pkt.src as usize;
                if src >= self.moving.len() {
                    return; // NICs only send from existing terminals
                }
                if self.moving[src].len() >= self.window {
                    self.waiting[src].push_back((pkt, payload));
                } else {
                    self.start(pkt, payload, ctx);
                }
            }
            NetEvent::LinkFree { .. } => {
                if self.wake_at <= ctx.now() {
                    self.wake_at = Time::MAX;
                }
            }
            NetEvent::Credit { .. } | NetEvent::PortFree { .. } | NetEvent::Resume { .. } => {}
        }
        self.end_due(ctx);
        self.schedule_wake(ctx);
    }

    /// Starts `pkt` as a flow now: routes it through every router of its route, adds it to
    /// the links and gives every flow on them its new rate.
    fn start<E: From<NetEvent<P>>>(
        &mut self,
        mut pkt: Packet,
        payload: Option<P>,
        ctx: &mut Ctx<'_, E>,
    ) {
        let Some(src) = self.routes.topo.attachment(pkt.src).copied() else {
            return;
        };
        let now = ctx.now();
        let dst = self.routes.topo.wiring().terminals[pkt.dst as usize];
        let bytes = u64::from(pkt.bytes);
        let mut links = Vec::with_capacity(8);
        let mut tail = 0;
        let mut r = src.router;
        loop {
            pkt.hops = pkt.hops.saturating_add(1);
            self.stats[r as usize].packets += 1;
            let (port, vc) = if r == dst.router {
                (dst.port, 0)
            } else {
                let links = &self.links;
                self.routes
                    .route(r, &mut pkt, ctx.rng(), |i| links[i].bytes)
            };
            let link = self.routes.index(r, port);
            let l = &mut self.links[link as usize];
            l.bytes += bytes;
            tail += l.latency;
            let (latency_next, ser) = (l.next, serialisation(bytes, l.bandwidth));
            self.stats[r as usize].links[port as usize].record(bytes, ser);
            links.push(link);
            match latency_next {
                Some((router, in_port)) => {
                    pkt.in_port = in_port;
                    pkt.vc = vc;
                    tail += self.routes.params.router_delay;
                    r = router;
                }
                None => break,
            }
        }
        let id = match self.free_ids.pop() {
            Some(id) => id,
            None => {
                self.flows.push(None);
                self.seen.push(0);
                (self.flows.len() - 1) as u32
            }
        };
        for &l in &links {
            self.links[l as usize].flows.push(id);
        }
        let terminal = pkt.src;
        self.moving[terminal as usize].push(id);
        let slack = if self.jitter > 0 {
            ctx.rng().below(u64::from(self.jitter) + 1) as u32
        } else {
            0
        };
        self.flows[id as usize] = Some(Flow {
            pkt,
            payload,
            links,
            injection: src.link.bandwidth,
            src: terminal,
            slack,
            rem: u128::from(bytes) * PS_PER_SEC,
            num: 0,
            den: 1,
            updated: now,
            tail,
        });
        self.rerate(id, now);
    }

    /// Ends flow `id` now: delivers its packet, starts its terminal's next one and gives the
    /// flows that shared its links their new rates.
    fn end<E: From<NetEvent<P>>>(&mut self, id: u32, ctx: &mut Ctx<'_, E>) {
        self.ends.remove(id);
        let Some(f) = self.flows[id as usize].take() else {
            return;
        };
        self.free_ids.push(id);
        let bytes = u64::from(f.pkt.bytes);
        for &l in &f.links {
            let l = &mut self.links[l as usize];
            l.bytes -= bytes;
            if let Some(k) = l.flows.iter().position(|&g| g == id) {
                l.flows.swap_remove(k);
            }
        }
        let src = f.pkt.src as usize;
        let host = self.hosts[f.pkt.dst as usize];
        let ev = NetEvent::Packet {
            pkt: f.pkt,
            payload: f.payload,
        };
        ctx.send(host, f.tail, E::from(ev));
        let moving = &mut self.moving[src];
        if let Some(k) = moving.iter().position(|&g| g == id) {
            moving.remove(k);
        }
        let now = ctx.now();
        self.rerate_links(&f.links, f.src, now);
        if self.moving[src].len() < self.window {
            if let Some((pkt, payload)) = self.waiting[src].pop_front() {
                self.start(pkt, payload, ctx);
            }
        }
    }

    /// Gives the flow `id` and every flow sharing a link with it its bottleneck share at
    /// `now`.
    fn rerate(&mut self, id: u32, now: Time) {
        // A copy of the route in a reused buffer: the flow keeps its own (its rate is
        // recomputed from it too).
        let mut links = std::mem::take(&mut self.route_buf);
        links.clear();
        let src = match &self.flows[id as usize] {
            Some(f) => {
                links.extend_from_slice(&f.links);
                f.src
            }
            None => {
                self.route_buf = links;
                return;
            }
        };
        self.rerate_links(&links, src, now);
        self.route_buf = links;
    }

    /// Gives every flow crossing one of `links` or moving from terminal `src` (they share its
    /// injection link) its bottleneck share at `now`, each once.
    fn rerate_links(&mut self, links: &[u32], src: u32, now: Time) {
        self.pass = self.pass.wrapping_add(1);
        let pass = self.pass;
        if self.window > 1 {
            for k in 0..self.moving[src as usize].len() {
                let g = self.moving[src as usize][k];
                if self.seen[g as usize] != pass {
                    self.seen[g as usize] = pass;
                    self.set_rate(g, now);
                }
            }
        }
        for &l in links {
            for k in 0..self.links[l as usize].flows.len() {
                let g = self.links[l as usize].flows[k];
                if self.seen[g as usize] == pass {
                    continue;
                }
                self.seen[g as usize] = pass;
                self.set_rate(g, now);
            }
        }
    }

    /// Recomputes flow `g`'s rate; if it changed, brings its remaining work up to `now` at the
    /// old rate and files its new end.
    fn set_rate(&mut self, g: u32, now: Time) {
        let links = &self.links;
        let Some(f) = self.flows[g as usize].as_mut() else {
            return;
        };
        // The least of bandwidth / flows over the injection link (this flow and its
        // terminal's other moving flows) and the route's links, as an exact fraction.
        let sharing = self.moving[f.src as usize].len().max(1) as u128;
        let (mut num, mut den) = (u128::from(f.injection), sharing);
        for &l in &f.links {
            let l = &links[l as usize];
            let (n, d) = (u128::from(l.bandwidth), l.flows.len() as u128);
            if n * den < num * d {
                (num, den) = (n, d);
            }
        }
        if den > 1 && f.slack > 0 {
            // Shared: a little short of the exact share, so that flows alike do not stay in
            // lockstep (module documentation, "Jitter").
            num *= u128::from(PPM - f.slack);
            den *= u128::from(PPM);
        }
        if num * f.den == f.num * den && f.num != 0 {
            return; // the same rate: its end stands
        }
        if f.num != 0 {
            let moved = u128::from(now - f.updated) * f.num / f.den;
            f.rem = f.rem.saturating_sub(moved);
        }
        f.updated = now;
        (f.num, f.den) = (num, den);
        let left = u64::try_from((f.rem * den).div_ceil(num)).unwrap_or(Time::MAX);
        self.ends.set(g, now.saturating_add(left));
    }

    /// Ends every flow due by now, earliest first.
    fn end_due<E: From<NetEvent<P>>>(&mut self, ctx: &mut Ctx<'_, E>) {
        let now = ctx.now();
        while let Some((at, id)) = self.ends.peek() {
            if at > now {
                break;
            }
            self.end(id, ctx);
        }
    }

    /// Schedules a wake-up for the earliest flow end unless one is due no later.
    fn schedule_wake<E: From<NetEvent<P>>>(&mut self, ctx: &mut Ctx<'_, E>) {
        if let Some((at, _)) = self.ends.peek() {
            if at < self.wake_at {
                self.wake_at = at;
                let delay = at - ctx.now();
                ctx.send_self(delay, E::from(NetEvent::LinkFree { link: 0 }));
            }
        }
    }
}
