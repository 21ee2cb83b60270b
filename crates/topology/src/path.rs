//! The path model: packets cross the network without router LPs. The source NIC serialises a
//! message's packets on its injection link and hands each to one fabric LP when its head
//! reaches the first router; the fabric routes the packet hop by hop with the topology's
//! routing algorithm and moves it on through every output link that is free when its head
//! arrives, reserving the link until its tail has left. At a busy link the packet joins that
//! link's first-come-first-served queue, and one wake-up event at the end of the reservation
//! grants the link to the next waiting packet. The destination host gets the packet when its
//! tail arrives.
//!
//! Why: in the packet model ([`crate::router`]) a packet costs one arrival event and one credit
//! event per hop, plus port wake-ups under contention. Full-scale bulk I/O (a Cori-like IOR
//! moving 70 TB in 1 MiB transfers) spends two thirds of its events there. The path model keeps
//! what bulk storage traffic needs (routes, hop counts, link bandwidth and latency, queueing at
//! contended links, link utilisation, adaptive routing on link backlog) in two events per
//! packet plus one per packet that has to wait for a link.
//!
//! Timing, per packet and per hop: the head is routed at router `r` at `h = s' + L' + D`, where
//! `s'` is the start of its transmission on the previous link (latency `L'`) and `D` the router
//! delay. If the output link is free at `h` (and nobody waits for it), transmission starts at
//! `s = max(h, tail - ser)`, else at the time `g` the link is granted to it:
//! `s = max(g, tail - ser)`; it ends at `e = s + ser`, with `ser = bytes / bandwidth` and
//! `tail = s' + ser' + L'` the time the packet's tail has arrived (cut-through: the tail cannot
//! leave before it arrives). The packet is delivered at `e + L` of the ejection link. With no
//! other traffic this is the packet model's zero-load latency exactly (`docs/network.md`).
//!
//! What it does not model: there are no buffers, so nothing blocks upstream (no credits,
//! congestion trees or head-of-line blocking) and link queues are unbounded; the fabric moves a
//! packet through free links at once, so its reservations run up to one path latency (about a
//! microsecond) ahead of the fabric's clock, and a packet whose head reaches a link a little
//! earlier but is handled later waits behind it; adaptive routing sees each output link's
//! backlog (bytes reserved but not yet sent, plus bytes queued) instead of buffer occupancy and
//! credits. Buffer occupancy statistics are zero.

use crate::fabric::FabricRoutes;
use crate::graph::Peer;
use crate::link::serialisation;
use crate::network::RouterParams;
use crate::packet::{NetEvent, Packet};
use crate::router::RouterStats;
use crate::routing::Algo;
use crate::topology::Topology;
use bbsim_engine::{Ctx, LpId, Time};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

/// Where a router port leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Nothing attached.
    None,
    /// Router `router`, arriving on its port `port`.
    Router { router: u32, port: u16 },
    /// A terminal (the ejection link).
    Terminal,
}

/// One output port of one router.
#[derive(Clone, Copy, Debug)]
struct PathPort {
    next: Next,
    latency: Time,
    bandwidth: u64,
}

/// The path-model fabric: every router's output links as reservations, in one LP. Embed it in
/// the simulation's LP enum and forward [`NetEvent`]s to [`PathFabric::handle`].
pub struct PathFabric<P> {
    class: u16,
    /// Port numbering (router `r`'s ports in `links`) and routing.
    routes: FabricRoutes,
    /// LP of the host owning terminal `t`.
    hosts: Arc<[LpId]>,
    /// Per output port: the link's parameters, reservation, wake-up flag and queue, together
    /// (a hop reads all of them; in separate arrays each was its own cold cache line).
    links: Vec<Link<P>>,
    /// Per output port: bytes routed to it whose credit has not come back, as a router counts
    /// them for adaptive routing (queued here, or in the downstream router until their tail
    /// leaves it; on an ejection link, until they start).
    load_bytes: Vec<u64>,
    /// Per output port: future credit returns (time in ps, bytes), earliest first.
    credits: Vec<BinaryHeap<Reverse<(Time, u32)>>>,
    /// Per output port: when its earliest future credit is due (`Time::MAX`: none). Kept
    /// beside the heaps so that replaying a router's credits before a routing decision reads
    /// one contiguous array and touches only the heaps that have a credit due.
    next_credit: Vec<Time>,
    /// Per router: packets routed and per-port link statistics (no buffer statistics).
    stats: Vec<RouterStats>,
    /// Packets whose head is on its way to the next router, waiting for their
    /// [`NetEvent::Resume`] (see [`AHEAD_FRACTION`]).
    parked: Vec<Option<Parked<P>>>,
    /// Free slots of `parked`.
    free_slots: Vec<u32>,
}

/// How far ahead of its clock the fabric moves a packet on: through the next router at once
/// only if the head gets there within `1 / AHEAD_FRACTION` of the packet's serialisation on the
/// link it just took; otherwise the packet is parked until its head arrives. A link reserved
/// ahead of time cannot be used by a packet that reaches it earlier but is handled later, so
/// this bounds the idle gap such a reservation can leave to 1/16 of a packet time, while
/// packets much longer than a path's latency (1 MiB takes 80-200 µs, a path about 1 µs) still
/// cross the whole network in one event.
pub const AHEAD_FRACTION: u64 = 16;

/// One output link of the fabric.
struct Link<P> {
    /// The end of its last reservation (ps).
    free: Time,
    /// Where it leads, its latency and bandwidth.
    port: PathPort,
    /// A [`NetEvent::LinkFree`] wake-up is pending.
    wake: bool,
    /// Packets waiting for it.
    queue: LinkQueue<P>,
}

/// The packets waiting for one output link, one FIFO per input port of its router, served
/// round robin among the inputs as a router's arbiter does.
struct LinkQueue<P> {
    /// (input port, its waiting packets in arrival order).
    inputs: Vec<(u16, VecDeque<Waiting<P>>)>,
    /// The input index after the last one served.
    next: usize,
    /// Packets waiting over all inputs.
    len: usize,
}

impl<P> Default for LinkQueue<P> {
    fn default() -> Self {
        LinkQueue {
            inputs: Vec::new(),
            next: 0,
            len: 0,
        }
    }
}

impl<P> LinkQueue<P> {
    /// Queues `w` behind the packets from the same input port.
    fn push(&mut self, w: Waiting<P>) {
        let port = w.pkt.in_port;
        match self.inputs.iter_mut().find(|(p, _)| *p == port) {
            Some((_, q)) => q.push_back(w),
            None => self.inputs.push((port, VecDeque::from([w]))),
        }
        self.len += 1;
    }

    /// The next packet, round robin over the inputs that have one.
    fn pop(&mut self) -> Option<Waiting<P>> {
        let n = self.inputs.len();
        for k in 0..n {
            let i = (self.next + k) % n;
            if let Some(w) = self.inputs[i].1.pop_front() {
                self.next = (i + 1) % n;
                self.len -= 1;
                return Some(w);
            }
        }
        None
    }
}

/// A packet travelling between two routers, parked until its head arrives.
struct Parked<P> {
    pkt: Packet,
    payload: Option<P>,
    router: u32,
    head: Time,
    tail: Time,
    from: u32,
}

/// A packet at router `router` whose head has been routed to output port `link` (fabric index).
struct Waiting<P> {
    pkt: Packet,
    payload: Option<P>,
    router: u32,
    link: u32,
    /// VC the routing chose (kept in the header as the router model does).
    vc: u8,
    /// When its head was routed here (ps).
    head: Time,
    /// When its tail has arrived here (ps).
    tail: Time,
    /// The link it arrived on (its credit returns when the packet leaves here), or `u32::MAX`
    /// from a NIC.
    from: u32,
}

impl<P> PathFabric<P> {
    /// The fabric of `topo`, delivering to the host LPs `hosts` (indexed by terminal).
    pub(crate) fn new(
        class: u16,
        topo: Arc<Topology>,
        algo: Algo,
        params: Arc<RouterParams>,
        hosts: Arc<[LpId]>,
    ) -> Self {
        let routes = FabricRoutes::new(topo, algo, params);
        let topo = &routes.topo;
        let mut ports = Vec::new();
        let mut stats = Vec::with_capacity(topo.routers() as usize);
        for r in 0..topo.routers() {
            let rp = topo.ports(r);
            ports.extend(rp.iter().map(|p| PathPort {
                next: match p.peer {
                    Peer::None => Next::None,
                    Peer::Router { router, port } => Next::Router { router, port },
                    Peer::Terminal(_) => Next::Terminal,
                },
                latency: p.link.latency,
                bandwidth: p.link.bandwidth,
            }));
            stats.push(RouterStats::with_ports(rp.len()));
        }
        let n = ports.len();
        let links = ports
            .into_iter()
            .map(|port| Link {
                free: 0,
                port,
                wake: false,
                queue: LinkQueue::default(),
            })
            .collect();
        PathFabric {
            class,
            routes,
            hosts,
            links,
            load_bytes: vec![0; n],
            credits: (0..n).map(|_| BinaryHeap::new()).collect(),
            next_credit: vec![Time::MAX; n],
            stats,
            parked: Vec::new(),
            free_slots: Vec::new(),
        }
    }

    /// The lookahead class given at construction.
    pub fn class(&self) -> u16 {
        self.class
    }

    /// A label for engine error messages.
    pub fn label(&self) -> String {
        "network fabric (path model)".into()
    }

    /// Router `r`'s statistics: packets routed and per-output-port link figures.
    pub fn router_stats(&self) -> impl Iterator<Item = (u32, &RouterStats)> {
        self.stats.iter().enumerate().map(|(r, s)| (r as u32, s))
    }

    /// Packets waiting for a link or parked between routers (0 after a drained run).
    pub fn waiting_packets(&self) -> usize {
        self.links.iter().map(|l| l.queue.len).sum::<usize>() + self.parked.iter().flatten().count()
    }

    /// Handles one network event addressed to the fabric: a packet from a NIC (its head has
    /// just been routed at its first router) or a link's wake-up.
    pub fn handle<E: From<NetEvent<P>>>(&mut self, ev: NetEvent<P>, ctx: &mut Ctx<'_, E>) {
        match ev {
            NetEvent::Packet { pkt, payload } => {
                let Some(src) = self.routes.topo.attachment(pkt.src).copied() else {
                    return; // NICs only send from existing terminals
                };
                let now = ctx.now();
                // The head left the NIC `latency + router_delay` ago; the tail arrives one
                // serialisation on the terminal link after the head.
                let head_in = now - self.routes.params.router_delay;
                let tail = head_in + serialisation(u64::from(pkt.bytes), src.link.bandwidth);
                self.arrive(pkt, payload, src.router, (now, tail, u32::MAX), ctx);
            }
            NetEvent::LinkFree { link } => self.grant(link, ctx),
            NetEvent::Resume { slot } => {
                let Some(p) = self.parked.get_mut(slot as usize).and_then(Option::take) else {
                    return;
                };
                self.free_slots.push(slot);
                self.arrive(p.pkt, p.payload, p.router, (p.head, p.tail, p.from), ctx);
            }
            NetEvent::Credit { .. } | NetEvent::PortFree { .. } => {}
        }
    }

    /// The head of `pkt` has been routed at router `r` at `head`, its tail arrives at `tail`,
    /// over link `from`: move it on through every free link, or queue it at the first busy one.
    fn arrive<E: From<NetEvent<P>>>(
        &mut self,
        mut pkt: Packet,
        payload: Option<P>,
        r: u32,
        (head, tail, from): (Time, Time, u32),
        ctx: &mut Ctx<'_, E>,
    ) {
        pkt.hops = pkt.hops.saturating_add(1);
        self.stats[r as usize].packets += 1;
        let dst = self.routes.topo.wiring().terminals[pkt.dst as usize];
        let (port, vc) = if r == dst.router {
            (dst.port, 0)
        } else {
            self.route(r, head, &mut pkt, ctx)
        };
        let link = self.routes.index(r, port);
        let i = link as usize;
        self.load_bytes[i] += u64::from(pkt.cost());
        let w = Waiting {
            pkt,
            payload,
            router: r,
            link,
            vc,
            head,
            tail,
            from,
        };
        let l = &mut self.links[i];
        if l.free > head || l.queue.len > 0 {
            l.queue.push(w);
            self.ensure_wake(i, ctx);
        } else {
            self.transmit(w, head, ctx);
        }
    }

    /// Sends waiting packet `w` on its link, granted at `granted`, and moves it on.
    fn transmit<E: From<NetEvent<P>>>(
        &mut self,
        w: Waiting<P>,
        granted: Time,
        ctx: &mut Ctx<'_, E>,
    ) {
        let i = w.link as usize;
        let p = self.links[i].port;
        let bytes = u64::from(w.pkt.bytes);
        let ser = serialisation(bytes, p.bandwidth);
        let start = granted.max(w.tail.saturating_sub(ser));
        let end = start + ser;
        self.links[i].free = end;
        let port = w.link - self.routes.index(w.router, 0);
        self.stats[w.router as usize].links[port as usize].record(bytes, ser);
        let now = ctx.now();
        let cost = w.pkt.cost();
        if w.from != u32::MAX {
            // The tail leaves this router at `end`: the upstream link's credit is back one
            // latency later.
            let back = end + self.links[w.from as usize].port.latency;
            self.credit_back(w.from as usize, back, cost, now);
        }
        let mut pkt = w.pkt;
        match p.next {
            Next::Router { router, port } => {
                pkt.in_port = port;
                pkt.vc = w.vc;
                let head = start + p.latency + self.routes.params.router_delay;
                let hop = (head, end + p.latency, w.link);
                if head - now > ser / AHEAD_FRACTION {
                    self.park(pkt, w.payload, router, hop, ctx);
                } else {
                    self.arrive(pkt, w.payload, router, hop, ctx);
                }
            }
            Next::Terminal | Next::None => {
                // An ejection link counts the packet until it starts (no credits from a NIC).
                self.credit_back(i, start, cost, now);
                let host = self.hosts[pkt.dst as usize];
                let ev = NetEvent::Packet {
                    pkt,
                    payload: w.payload,
                };
                ctx.send(host, end + p.latency - ctx.now(), E::from(ev));
            }
        }
    }

    /// Parks `pkt` until its head reaches router `r` at `head` (a [`NetEvent::Resume`]).
    fn park<E: From<NetEvent<P>>>(
        &mut self,
        pkt: Packet,
        payload: Option<P>,
        r: u32,
        (head, tail, from): (Time, Time, u32),
        ctx: &mut Ctx<'_, E>,
    ) {
        let p = Parked {
            pkt,
            payload,
            router: r,
            head,
            tail,
            from,
        };
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.parked[s as usize] = Some(p);
                s
            }
            None => {
                self.parked.push(Some(p));
                (self.parked.len() - 1) as u32
            }
        };
        let delay = head - ctx.now();
        ctx.send_self(delay, E::from(NetEvent::Resume { slot }));
    }

    /// Link `i` gets `bytes` of credit back at `at`; credits due by `now` are applied.
    fn credit_back(&mut self, i: usize, at: Time, bytes: u32, now: Time) {
        self.credits[i].push(Reverse((at, bytes)));
        self.next_credit[i] = self.next_credit[i].min(at);
        self.apply_credits(i, now);
    }

    /// Applies link `i`'s credits due by `at`.
    fn apply_credits(&mut self, i: usize, at: Time) {
        if self.next_credit[i] > at {
            return;
        }
        self.next_credit[i] = Time::MAX;
        while let Some(&Reverse((t, bytes))) = self.credits[i].peek() {
            if t > at {
                self.next_credit[i] = t;
                break;
            }
            self.credits[i].pop();
            self.load_bytes[i] -= u64::from(bytes);
        }
    }

    /// Schedules a wake-up of link `i` when its reservation ends, unless one is pending.
    fn ensure_wake<E: From<NetEvent<P>>>(&mut self, i: usize, ctx: &mut Ctx<'_, E>) {
        let l = &mut self.links[i];
        if !l.wake {
            l.wake = true;
            let delay = l.free.saturating_sub(ctx.now());
            ctx.send_self(delay, E::from(NetEvent::LinkFree { link: i as u32 }));
        }
    }

    /// Link `link`'s reservation has ended: grant it to its first waiting packet.
    fn grant<E: From<NetEvent<P>>>(&mut self, link: u32, ctx: &mut Ctx<'_, E>) {
        let i = link as usize;
        self.links[i].wake = false;
        let Some(w) = self.links[i].queue.pop() else {
            return;
        };
        let granted = ctx.now().max(w.head);
        self.transmit(w, granted, ctx);
        if self.links[i].queue.len > 0 {
            self.ensure_wake(i, ctx);
        }
    }

    /// The output port and VC for `pkt` at router `r` (not its destination router), decided
    /// at `at` on the backlog of `r`'s output links at that time.
    fn route<E>(&mut self, r: u32, at: Time, pkt: &mut Packet, ctx: &mut Ctx<'_, E>) -> (u16, u8) {
        if self.routes.needs_load(pkt) {
            for i in self.routes.ports(r) {
                self.apply_credits(i, at);
            }
        }
        let load = &self.load_bytes;
        self.routes.route(r, pkt, ctx.rng(), |i| load[i])
    }
}
