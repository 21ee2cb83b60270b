//! The router: per-port, per-VC input buffers with credit-based flow control, a routing stage,
//! round-robin output arbitration and output links with bandwidth and latency.
//!
//! Timing (virtual cut-through at packet granularity): a packet's head arrives at
//! `start + latency` after its upstream transmission started at `start`; its event is delivered
//! `router_delay` later, when it has been routed and joins the input buffer of its VC. It may
//! start on its output port when the port is idle and the downstream buffer of its output VC
//! has room for the whole packet (credits). Transmission lasts `bytes / bandwidth`; it never
//! ends before the packet's tail has arrived. The input buffer space is returned to the
//! upstream sender (a credit) when the tail has left, plus the input link's latency.
//!
//! Events per packet and hop: one arrival at the next router and one credit back upstream; a
//! port wake-up only when packets wait for a busy port.
//!
//! Credits count bytes against the physical VC buffer (`vc_buffer`, plus room for one
//! message header). Units ([`crate::NetworkConfig::unit_size`]): a NIC sends up to `unit_size`
//! bytes of one message as one unit of whole packets (the last may be short), which a router
//! routes, buffers (FIFO), arbitrates and serialises as one, exactly as a packet, except that
//! it may start when the downstream VC has credit for half its buffer ([`crate::min_part`]):
//! then its first whole packets that fit go as a unit of their own and the rest stays at the
//! head of the input buffer. Serialisation and the cut-through tail follow the bytes actually
//! sent; a unit's buffer space goes back as one credit as soon as its packets' own credits
//! would have let the sender restart (docs/network.md, "Credits of a unit"). A unit of one
//! packet is the packet model above.
//!
//! Diagnostic variants of the packet model ([`crate::NetworkConfig::routing_block`],
//! [`crate::NetworkConfig::lane_block`], [`crate::NetworkConfig::grant_block`],
//! [`crate::NetworkConfig::credit_batch`]) coarsen one thing each, routing decisions, lane
//! choices, output grants or credits, to measure what units change.

use crate::graph::Peer;
use crate::link::{serialisation, LinkStats};
use crate::network::{LpLayout, RouterParams};
use crate::packet::{Assembled, NetEvent, Packet, MAX_ASSEMBLED_PACKETS};
use crate::routing::{self, Algo};
use crate::topology::Topology;
use bbsim_engine::{Ctx, LpId, Time};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Runtime constants of one port.
#[derive(Clone, Copy, Debug)]
struct PortRt {
    peer_lp: LpId,
    peer_port: u16,
    kind: PeerKind,
    latency: Time,
    bandwidth: u64,
    ser_full: Time,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PeerKind {
    None,
    Router,
    Terminal,
}

/// One port: its constants and its output state, on one cache line (an arrival, a grant and a
/// transmission each read both for the same port).
#[derive(Clone, Debug)]
#[repr(align(64))]
struct Port {
    rt: PortRt,
    out: OutState,
}

/// Output-port state.
#[derive(Clone, Debug, Default)]
struct OutState {
    /// The port is serialising until this time (ps).
    busy_until: Time,
    /// A `PortFree` self-event is pending.
    wake: bool,
    /// Round-robin pointer: the input-VC index after the last one granted.
    rr: u32,
    /// How many input VCs' head packets wait for this port (bits set in its request mask).
    waiting: u32,
    /// The grant-block variant ([`crate::NetworkConfig::grant_block`]): the message
    /// (`src << 32 | seq`) that holds the port's current burst of grants.
    burst_msg: u64,
    /// Grants left in the current burst.
    burst_left: u16,
}

/// What arbitration needs of an input VC's head packet while it waits for its output port
/// (the head stays the same while it waits, so the grant scan never touches the buffers).
#[derive(Clone, Copy, Debug, Default)]
struct Request {
    /// Downstream buffer bytes the head needs to start: its whole cost for a packet, one
    /// packet for a unit of several packets ([`Router::start_cost`]).
    cost: u32,
    /// The head's output VC.
    vc: u8,
    /// It began to wait without downstream credit (else behind a busy or contended port).
    no_credit: bool,
    /// When it began to wait (ps).
    since: Time,
}

/// An input virtual channel: its buffered packets, and what arbitration needs of its head while
/// the head waits for its output port (valid while the input's bit is set in that port's
/// request mask), side by side and aligned to a cache line so that a grant finds both on one
/// line (unaligned, half of the 48-byte records straddle two).
#[derive(Clone, Debug)]
#[repr(align(64))]
struct InputVc<P> {
    queue: VecDeque<Buffered<P>>,
    request: Request,
}

/// A buffered packet (or what is left of a unit) with its routing decision.
#[derive(Clone, Debug)]
struct Buffered<P> {
    pkt: Packet,
    arrived: Time,
    /// Bytes of the unit already sent on (its front parts, when credit was short).
    sent: u32,
    payload: Option<P>,
    out_port: u16,
    out_vc: u8,
}

/// The routing fields of a packet that a routing decision reads or writes: the dragonfly's
/// intermediate group and global slot, the flags, global hops taken and the VC.
type RouteFields = (u16, u16, u8, u8, u8);

fn route_fields(p: &Packet) -> RouteFields {
    (p.aux, p.slot, p.flags, p.ghops, p.vc)
}

/// Decisions held for a message's current block of packets at one router, by (source,
/// sequence, input port): the diagnostic variants that decide once per block
/// ([`crate::NetworkConfig::routing_block`], [`crate::NetworkConfig::lane_block`]). Empty when
/// every packet decides. Looked up by key only, never iterated. A block whose message's last
/// packet passes another router, or arrives here on another input port, is never closed: a
/// few dozen bytes per such message, in diagnostic runs only.
#[derive(Clone, Debug)]
struct Blocks<D> {
    /// Per message: packets of its block still to come, and the block's decision.
    open: HashMap<(u32, u32, u16), (u16, D)>,
}

impl<D> Default for Blocks<D> {
    fn default() -> Self {
        Blocks {
            open: HashMap::new(),
        }
    }
}

impl<D: Copy> Blocks<D> {
    fn key(pkt: &Packet) -> (u32, u32, u16) {
        (pkt.src, pkt.seq, pkt.in_port)
    }

    /// The decision `pkt` follows, if its message has a block open here that `holds` accepts:
    /// the packet counts against the block, which closes after its last packet or the
    /// message's (`last`).
    fn follow(&mut self, pkt: &Packet, last: bool, holds: impl FnOnce(&D) -> bool) -> Option<D> {
        let key = Self::key(pkt);
        let (left, d) = self.open.get_mut(&key).filter(|(_, d)| holds(d))?;
        let d = *d;
        *left -= 1;
        if *left == 0 || last {
            self.open.remove(&key);
        }
        Some(d)
    }

    /// Opens a block of `size` packets (at least 2) with decision `d`, taken by `pkt`; the
    /// message's last packet (`last`) opens none and closes any block its message left here.
    fn open(&mut self, pkt: &Packet, last: bool, size: u16, d: D) {
        debug_assert!(size > 1, "a block of one packet is every packet deciding");
        let key = Self::key(pkt);
        if last {
            self.open.remove(&key);
        } else {
            self.open.insert(key, (size - 1, d));
        }
    }
}

/// The routing decision a message's block of packets follows at one router
/// ([`crate::NetworkConfig::routing_block`]).
#[derive(Clone, Copy, Debug)]
struct Block {
    /// The deciding packet's routing fields on arrival (a follower must arrive with the same).
    before: RouteFields,
    /// Its routing fields after the decision (given to every follower).
    after: RouteFields,
    out_port: u16,
    out_vc: u8,
}

/// The lane a message's block of packets keeps at one router
/// ([`crate::NetworkConfig::lane_block`]).
#[derive(Clone, Copy, Debug)]
struct LaneBlock {
    /// The output port the lane belongs to (a follower routed elsewhere chooses afresh).
    out_port: u16,
    lane: u8,
}

/// A message being assembled at an ejection port: what its packets sent so far add up to.
#[derive(Clone, Debug)]
struct Assembly<P> {
    /// Packets still to come.
    remaining: u32,
    /// Sum over the packets sent so far of (bytes - packet size).
    extra_bytes: i64,
    hop_sum: u32,
    nonminimal_packets: u32,
    hops: u8,
    payload: Option<P>,
}

/// The messages being assembled at one terminal port: their ids (`src << 32 | seq`, scanned
/// linearly: a port interleaves a few dozen messages at most) and, at the same index, what
/// their packets add up to.
#[derive(Clone, Debug)]
struct PortAssembly<P> {
    ids: Vec<u64>,
    parts: Vec<Assembly<P>>,
}

impl<P> Default for PortAssembly<P> {
    fn default() -> Self {
        PortAssembly {
            ids: Vec::new(),
            parts: Vec::new(),
        }
    }
}

/// Why input-buffer heads waited for one output port: how often and how long (ps), by what
/// held them when they began to wait.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct HeadWaits {
    /// Heads that found the port busy (serialising, or granted to another input first)
    /// while the downstream buffer had room for them.
    pub busy: u64,
    /// Picoseconds those heads waited until granted.
    pub busy_ps: Time,
    /// Heads that found the downstream buffer without credit for them (the port idle or not).
    pub no_credit: u64,
    /// Picoseconds those heads waited until granted.
    pub no_credit_ps: Time,
}

impl HeadWaits {
    /// Adds another port's figures.
    pub fn add(&mut self, o: &HeadWaits) {
        self.busy += o.busy;
        self.busy_ps += o.busy_ps;
        self.no_credit += o.no_credit;
        self.no_credit_ps += o.no_credit_ps;
    }
}

/// Per-router statistics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RouterStats {
    /// Packets routed (a unit counts as the packets it carries).
    pub packets: u64,
    /// Per output port: bytes, packets and busy time of that link direction.
    pub links: Vec<LinkStats>,
    /// Per output port: why the heads that waited for it waited.
    pub head_waits: Vec<HeadWaits>,
    /// Units split at an output because the downstream buffer had credit for only part of
    /// them (always 0 when units are one packet).
    pub splits: u64,
    /// Time integral of the bytes held in all input buffers (byte x ps).
    pub occupancy_area: u128,
    /// Largest number of bytes held in all input buffers at once.
    pub max_occupancy: u64,
    occupancy: u64,
    /// Per input port: bytes held in its buffers (all VCs) now and at most. One record per
    /// port, so an arrival or departure touches one cache line of it, not two.
    ports: Vec<PortOccupancy>,
    last_change: Time,
}

/// Bytes held in one input port's buffers (all VCs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PortOccupancy {
    now: u64,
    max: u64,
}

impl RouterStats {
    /// Empty statistics of a router with `ports` ports.
    pub(crate) fn with_ports(ports: usize) -> Self {
        RouterStats {
            links: vec![LinkStats::default(); ports],
            head_waits: vec![HeadWaits::default(); ports],
            ports: vec![PortOccupancy::default(); ports],
            ..RouterStats::default()
        }
    }

    /// Adds the bytes held since the last change to the occupancy's time integral.
    fn advance(&mut self, now: Time) {
        self.occupancy_area += u128::from(self.occupancy) * u128::from(now - self.last_change);
        self.last_change = now;
    }

    /// `bytes` entered input port `port`'s buffers at `now` (ps).
    fn enter(&mut self, now: Time, port: usize, bytes: u32) {
        self.advance(now);
        let bytes = u64::from(bytes);
        let p = &mut self.ports[port];
        self.occupancy += bytes;
        p.now += bytes;
        self.max_occupancy = self.max_occupancy.max(self.occupancy);
        p.max = p.max.max(p.now);
    }

    /// `bytes` left input port `port`'s buffers at `now` (ps).
    fn leave(&mut self, now: Time, port: usize, bytes: u32) {
        self.advance(now);
        let bytes = u64::from(bytes);
        self.occupancy -= bytes;
        self.ports[port].now -= bytes;
    }

    /// Largest number of bytes held in each input port's buffers (all VCs) at once, in port
    /// order.
    pub fn port_max_occupancy(&self) -> impl Iterator<Item = u64> + '_ {
        self.ports.iter().map(|p| p.max)
    }

    /// Bytes held in the input buffers right now.
    pub fn current_occupancy(&self) -> u64 {
        self.occupancy
    }

    /// Mean bytes held in the input buffers over `[0, until)` (ps).
    pub fn mean_occupancy(&self, until: Time) -> f64 {
        if until == 0 {
            return 0.0;
        }
        let tail = until.saturating_sub(self.last_change);
        let area = self.occupancy_area + u128::from(self.occupancy) * u128::from(tail);
        area as f64 / until as f64
    }
}

/// A router logical-process component. Embed it in the simulation's LP enum and forward
/// [`NetEvent`]s to [`Router::handle`].
///
/// Laid out in declaration order from a cache-line boundary: the first two lines hold what
/// every packet arrival and credit reads, the next two the statistics every arrival and
/// departure updates. Routers are touched at random, so each line of a router's own struct
/// that an event reads is usually a cache miss.
#[repr(C, align(64))]
pub struct Router<P> {
    id: u32,
    vcs: u32,
    topo: Arc<Topology>,
    params: Arc<RouterParams>,
    ports: Box<[Port]>,
    inputs: Vec<InputVc<P>>,
    /// Free downstream buffer (bytes) per output port and VC: at most `buffer_bytes` (< 2^32).
    credits: Vec<u32>,
    /// Bytes per output port queued here or buffered downstream (all VCs): can pass 2^32.
    load: Vec<u64>,
    /// Words per port in `request_mask`.
    mask_words: usize,
    algo: Algo,
    lanes: bool,
    class: u16,
    cluster: u32,
    stats: RouterStats,
    /// Per output port, a bit mask over input-VC indices (`mask_words` 64-bit words each): the
    /// inputs whose head packet waits for that port. Round-robin arbitration scans it from the
    /// port's pointer, so a grant costs a few word scans however many inputs wait.
    request_mask: Vec<u64>,
    /// Dragonfly global-slot candidates per destination (routing memo).
    slots: routing::dragonfly::SlotCache,
    /// The routing-block variant ([`crate::NetworkConfig::routing_block`]): the decision of each
    /// message's current block of packets at this router.
    blocks: Blocks<Block>,
    /// The lane-block variant ([`crate::NetworkConfig::lane_block`]): the lane of each
    /// message's current block of packets at this router.
    lane_blocks: Blocks<LaneBlock>,
    /// The credit-batch variant ([`crate::NetworkConfig::credit_batch`]): buffer space freed
    /// per input VC and not yet returned upstream (bytes; empty when credits go at once).
    held_credit: Vec<u32>,
    /// Per output port, the messages of several packets partly sent to its terminal (see
    /// [`Router::eject`]; empty for ports to routers).
    assembly: Vec<PortAssembly<P>>,
}

// The layout the doc comments of `Router` and `InputVc` describe: adding or moving a field
// past these bounds fails the build instead of silently costing a cache line per event.
const _: () = {
    assert!(std::mem::offset_of!(Router<()>, credits) == 64);
    assert!(std::mem::offset_of!(Router<()>, stats) == 128);
    assert!(std::mem::size_of::<RouterStats>() == 128);
    assert!(std::mem::size_of::<InputVc<()>>() == 64);
};

impl<P> Router<P> {
    /// Router `id` of `topo`, with neighbours' LP ids from `layout`.
    pub(crate) fn new(
        id: u32,
        class: u16,
        topo: Arc<Topology>,
        algo: Algo,
        params: Arc<RouterParams>,
        layout: &LpLayout,
    ) -> Self {
        let ports: Box<[Port]> = topo
            .ports(id)
            .iter()
            .map(|p| {
                let (peer_lp, peer_port, kind) = match p.peer {
                    Peer::None => (LpId(u32::MAX), 0, PeerKind::None),
                    Peer::Router { router, port } => {
                        (layout.routers[router as usize], port, PeerKind::Router)
                    }
                    Peer::Terminal(t) => (layout.terminals[t as usize], 0, PeerKind::Terminal),
                };
                debug_assert!(
                    match p.peer {
                        Peer::None => true,
                        Peer::Router { router, port } => {
                            topo.ports(router)[usize::from(port)].link == p.link
                        }
                        Peer::Terminal(t) => topo.attachment(t).map(|a| a.link) == Some(p.link),
                    },
                    "both directions of a link share its parameters (cut-through relies on it)"
                );
                let rt = PortRt {
                    peer_lp,
                    peer_port,
                    kind,
                    latency: p.link.latency,
                    bandwidth: p.link.bandwidth,
                    ser_full: serialisation(u64::from(params.packet_size), p.link.bandwidth),
                };
                Port {
                    rt,
                    out: OutState::default(),
                }
            })
            .collect();
        let n = ports.len();
        let vcs = u32::from(params.vcs);
        let credits = ports
            .iter()
            .flat_map(|p| {
                let c = if p.rt.kind == PeerKind::Router {
                    params.buffer_bytes
                } else {
                    0
                };
                std::iter::repeat_n(c, vcs as usize)
            })
            .collect();
        let cluster = topo.router_cluster(id);
        let inputs = n * vcs as usize;
        let mask_words = inputs.div_ceil(64).max(1);
        let held_credit = if params.credit_batch > 0 {
            vec![0; inputs]
        } else {
            Vec::new()
        };
        Router {
            id,
            class,
            cluster,
            topo,
            algo,
            params,
            vcs,
            lanes: algo.lanes() && vcs > 1,
            ports,
            inputs: (0..inputs)
                .map(|_| InputVc {
                    queue: VecDeque::new(),
                    request: Request::default(),
                })
                .collect(),
            request_mask: vec![0; n * mask_words],
            mask_words,
            credits,
            load: vec![0; n],
            slots: Default::default(),
            blocks: Blocks::default(),
            lane_blocks: Blocks::default(),
            held_credit,
            assembly: (0..n).map(|_| PortAssembly::default()).collect(),
            stats: RouterStats::with_ports(n),
        }
    }

    /// The router's id in the topology.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The lookahead class given at construction.
    pub fn class(&self) -> u16 {
        self.class
    }

    /// The cluster hint (pod, group or torus slab).
    pub fn cluster_hint(&self) -> u32 {
        self.cluster
    }

    /// A label for engine error messages.
    pub fn label(&self) -> String {
        format!("router {}", self.id)
    }

    /// Statistics so far.
    pub fn stats(&self) -> &RouterStats {
        &self.stats
    }

    /// Packets currently held in the input buffers (0 after a drained run).
    pub fn buffered_packets(&self) -> usize {
        self.inputs.iter().map(|i| i.queue.len()).sum()
    }

    /// Messages partly sent to their terminals, being assembled (0 after a drained run).
    pub fn assembling_messages(&self) -> usize {
        self.assembly.iter().map(|a| a.ids.len()).sum()
    }

    /// Handles one network event addressed to this router.
    pub fn handle<E: From<NetEvent<P>>>(&mut self, ev: NetEvent<P>, ctx: &mut Ctx<'_, E>) {
        match ev {
            NetEvent::Packet { pkt, payload } => self.arrive(pkt, payload, ctx),
            NetEvent::Credit { port, vc, bytes } => {
                let p = usize::from(port);
                self.credits[p * self.vcs as usize + usize::from(vc)] += bytes;
                self.load[p] -= u64::from(bytes);
                if self.ports[p].out.waiting > 0 {
                    self.arbitrate(p, ctx);
                }
            }
            NetEvent::PortFree { port } => {
                let p = usize::from(port);
                self.ports[p].out.wake = false;
                self.arbitrate(p, ctx);
            }
            // Path-model link wake-ups are the fabric's own events, never a router's.
            NetEvent::LinkFree { .. } | NetEvent::Resume { .. } => {}
        }
    }

    fn arrive<E: From<NetEvent<P>>>(
        &mut self,
        mut pkt: Packet,
        payload: Option<P>,
        ctx: &mut Ctx<'_, E>,
    ) {
        pkt.hops = pkt.hops.saturating_add(1);
        self.stats.packets += u64::from(pkt.span.max(1));
        let dst = self.topo.wiring().terminals[pkt.dst as usize];
        if dst.router != self.id && pkt.span > 1 && self.params.unit_spread {
            self.spread(pkt, payload, dst.router, ctx);
            return;
        }
        let (out_port, out_vc) = if dst.router == self.id {
            (dst.port, 0)
        } else if self.params.routing_block > 1 && pkt.span <= 1 {
            self.route_in_blocks(&mut pkt, dst.router, payload.is_some(), ctx)
        } else {
            self.decide_route(&mut pkt, dst.router, ctx)
        };
        let out_vc = self.output_lane(&pkt, out_port, out_vc, payload.is_some());
        self.enqueue(pkt, payload, 0, out_port, out_vc, ctx);
    }

    /// The VC `pkt` takes on `out_port`: where VCs act as lanes (fat-tree, towards a router)
    /// the lane with the most free downstream buffer (or its block's lane under the lane-block
    /// variant), else the routing's `out_vc`.
    fn output_lane(&mut self, pkt: &Packet, out_port: u16, out_vc: u8, last: bool) -> u8 {
        if self.lanes && self.ports[usize::from(out_port)].rt.kind == PeerKind::Router {
            if self.params.lane_block > 1 && pkt.span <= 1 {
                self.lane_in_blocks(pkt, out_port, last)
            } else {
                self.widest_lane(usize::from(out_port))
            }
        } else {
            out_vc
        }
    }

    /// Routes a unit of several packets the way its packets would have gone
    /// ([`crate::NetworkConfig::unit_spread`]). Its packets arrive at the input link's rate
    /// `in`; a route whose rate `out` is lower (the output's, or the network's slowest channel
    /// if that is lower still, which the route may cross further on) drains only
    /// `ceil(span x out / in)` of them while they all arrive, and the packet model's
    /// per-packet decisions (UGAL, adaptive up-ports, random global slots) would send the
    /// rest elsewhere as that route's queue grows. So the unit's front part of that share
    /// takes the decided output, and the rest decides again, from the routing fields the
    /// unit arrived with and the loads the front part left, and so on. Consecutive parts that
    /// decide alike stay one part: a unit is split only where its packets would have parted
    /// ways (never under deterministic routing), and never where its input is no faster
    /// than every channel ahead.
    fn spread<E: From<NetEvent<P>>>(
        &mut self,
        mut pkt: Packet,
        payload: Option<P>,
        dst_router: u32,
        ctx: &mut Ctx<'_, E>,
    ) {
        let ps = self.params.packet_size;
        let arrived_with = route_fields(&pkt);
        let in_bw = self.ports[usize::from(pkt.in_port)].rt.bandwidth;
        let total = u64::from(pkt.span);
        // The front part not yet enqueued: its packets, routing fields, port and VC.
        let mut front: Option<(u16, RouteFields, u16, u8)> = None;
        let mut sent = 0u32;
        let mut left = pkt.span;
        // Loads the front part would add, counted while the rest decides.
        let mut pending: u64 = 0;
        while left > 0 {
            let (port, vc) = self.decide_route(&mut pkt, dst_router, ctx);
            let vc = self.output_lane(&pkt, port, vc, false);
            let out_bw = self.ports[usize::from(port)]
                .rt
                .bandwidth
                .min(self.params.slowest_channel);
            let share = if out_bw < in_bw {
                (total * out_bw).div_ceil(in_bw).clamp(1, u64::from(left)) as u16
            } else {
                left
            };
            let fields = route_fields(&pkt);
            match &mut front {
                Some((n, f, p, v)) if (*f, *p, *v) == (fields, port, vc) => *n += share,
                _ => {
                    if let Some((n, f, p, v)) = front.take() {
                        self.load[usize::from(p)] -= pending;
                        let part = self.front_part(&pkt, n, f);
                        self.enqueue(part, None, sent, p, v, ctx);
                        sent += u32::from(n) * ps;
                    }
                    front = Some((share, fields, port, vc));
                    pending = 0;
                }
            }
            let bytes = u64::from(share) * u64::from(ps);
            self.load[usize::from(port)] += bytes;
            pending += bytes;
            left -= share;
            (pkt.aux, pkt.slot, pkt.flags, pkt.ghops, pkt.vc) = arrived_with;
        }
        let Some((n, f, p, v)) = front else { return };
        self.load[usize::from(p)] -= pending;
        // The last part carries the rest of the unit: its header, its short last packet and
        // the payload.
        pkt.bytes -= sent;
        pkt.span = n;
        (pkt.aux, pkt.slot, pkt.flags, pkt.ghops, pkt.vc) = f;
        self.enqueue(pkt, payload, sent, p, v, ctx);
    }

    /// The front part of `n` whole packets of unit `pkt`, with routing fields `f`.
    fn front_part(&mut self, pkt: &Packet, n: u16, f: RouteFields) -> Packet {
        let mut part = *pkt;
        part.bytes = u32::from(n) * self.params.packet_size;
        part.span = n;
        (part.aux, part.slot, part.flags, part.ghops, part.vc) = f;
        self.stats.splits += 1;
        part
    }

    /// Queues `pkt` (`sent` bytes into its unit) at its input VC for `out_port` and `out_vc`,
    /// or sends it at once when it is the input's head, its port is free and the downstream
    /// buffer takes it whole.
    fn enqueue<E: From<NetEvent<P>>>(
        &mut self,
        pkt: Packet,
        payload: Option<P>,
        sent: u32,
        out_port: u16,
        out_vc: u8,
        ctx: &mut Ctx<'_, E>,
    ) {
        let cost = pkt.cost();
        self.load[usize::from(out_port)] += u64::from(cost);
        let in_port = usize::from(pkt.in_port);
        self.stats.enter(ctx.now(), in_port, cost);
        let idx = in_port * self.vcs as usize + usize::from(pkt.vc);
        let b = Buffered {
            pkt,
            arrived: ctx.now(),
            sent,
            payload,
            out_port,
            out_vc,
        };
        let port = usize::from(out_port);
        if self.inputs[idx].queue.is_empty()
            && self.ports[port].out.busy_until <= ctx.now()
            && self.ports[port].out.waiting == 0
            && self.has_credit(port, out_vc, cost)
        {
            // The packet is the input's head, its port is free and the downstream buffer takes
            // it whole: it leaves at once, without a round trip through the input buffer (what
            // `head_ready` would do).
            self.send(b, ctx);
            return;
        }
        self.inputs[idx].queue.push_back(b);
        if self.inputs[idx].queue.len() == 1 {
            self.head_ready(idx, ctx);
        }
    }

    /// Decides `pkt`'s output port and VC towards `dst_router` (another router) with the
    /// network's routing algorithm, from this router's port loads.
    #[inline]
    fn decide_route<E>(
        &mut self,
        pkt: &mut Packet,
        dst_router: u32,
        ctx: &mut Ctx<'_, E>,
    ) -> (u16, u8) {
        routing::route(
            &self.topo,
            self.algo,
            self.id,
            dst_router,
            pkt,
            &self.load,
            ctx.rng(),
            self.params.ugal_threshold,
            &mut self.slots,
        )
    }

    /// Routes `pkt` under the routing-block variant: a packet that continues its message's
    /// current block here (same input port, same routing fields on arrival) takes the block's
    /// decision; any other decides as usual and opens a block. The message's last packet
    /// (`last`) closes its block.
    fn route_in_blocks<E>(
        &mut self,
        pkt: &mut Packet,
        dst_router: u32,
        last: bool,
        ctx: &mut Ctx<'_, E>,
    ) -> (u16, u8) {
        let before = route_fields(pkt);
        if let Some(b) = self.blocks.follow(pkt, last, |b| b.before == before) {
            (pkt.aux, pkt.slot, pkt.flags, pkt.ghops, pkt.vc) = b.after;
            return (b.out_port, b.out_vc);
        }
        let (out_port, out_vc) = self.decide_route(pkt, dst_router, ctx);
        let block = Block {
            before,
            after: route_fields(pkt),
            out_port,
            out_vc,
        };
        self.blocks
            .open(pkt, last, self.params.routing_block, block);
        (out_port, out_vc)
    }

    /// The lane of `pkt` on `out_port` under the lane-block variant: a packet that continues its
    /// message's current block here (same input port, same output port) keeps the block's
    /// lane; any other takes the widest lane and opens a block. The message's last packet
    /// (`last`) closes its block.
    fn lane_in_blocks(&mut self, pkt: &Packet, out_port: u16, last: bool) -> u8 {
        if let Some(b) = self
            .lane_blocks
            .follow(pkt, last, |b| b.out_port == out_port)
        {
            return b.lane;
        }
        let lane = self.widest_lane(usize::from(out_port));
        let block = LaneBlock { out_port, lane };
        self.lane_blocks
            .open(pkt, last, self.params.lane_block, block);
        lane
    }

    /// The VC of `port` with the most free downstream buffer (lowest index on ties).
    #[inline]
    fn widest_lane(&self, port: usize) -> u8 {
        let vcs = self.vcs as usize;
        let c = &self.credits[port * vcs..(port + 1) * vcs];
        let mut best = 0;
        for (v, &x) in c.iter().enumerate().skip(1) {
            if x > c[best] {
                best = v;
            }
        }
        best as u8
    }

    /// Downstream credit (bytes) a buffered unit needs to start on its output: all of it for a
    /// packet, the smallest part ([`crate::min_part`], half the buffer) for a unit of several
    /// packets (the part that fits goes, the rest stays at the head, [`Router::transmit`]).
    #[inline]
    fn start_cost(&self, pkt: &Packet) -> u32 {
        if pkt.span > 1 {
            self.params.min_part.min(pkt.cost())
        } else {
            pkt.cost()
        }
    }

    #[inline]
    fn has_credit(&self, port: usize, vc: u8, cost: u32) -> bool {
        self.ports[port].rt.kind != PeerKind::Router
            || self.credits[port * self.vcs as usize + usize::from(vc)] >= cost
    }

    /// The head of input VC `idx` is new: send it if its port is free, else queue a request.
    fn head_ready<E: From<NetEvent<P>>>(&mut self, mut idx: usize, ctx: &mut Ctx<'_, E>) {
        let now = ctx.now();
        while let Some(head) = self.inputs[idx].queue.front() {
            let port = usize::from(head.out_port);
            let free = self.ports[port].out.busy_until <= now;
            let cost = self.start_cost(&head.pkt);
            let credit = self.has_credit(port, head.out_vc, cost);
            if free && self.ports[port].out.waiting == 0 && credit {
                self.transmit(idx, ctx);
                continue;
            }
            self.inputs[idx].request = Request {
                cost,
                vc: head.out_vc,
                no_credit: !credit,
                since: now,
            };
            self.request_mask[port * self.mask_words + idx / 64] |= 1 << (idx % 64);
            self.ports[port].out.waiting += 1;
            if free {
                // Others are waiting: let round-robin arbitration decide.
                idx = match self.grant(port, ctx) {
                    Some(i) => i,
                    None => return,
                };
                continue;
            }
            self.ensure_wake(port, ctx);
            return;
        }
    }

    /// Arbitrates free output `port` and follows up on the granted input's next head.
    fn arbitrate<E: From<NetEvent<P>>>(&mut self, port: usize, ctx: &mut Ctx<'_, E>) {
        if self.ports[port].out.busy_until > ctx.now() {
            if self.ports[port].out.waiting > 0 {
                self.ensure_wake(port, ctx);
            }
            return;
        }
        if let Some(idx) = self.grant(port, ctx) {
            self.head_ready(idx, ctx);
        }
    }

    /// Round-robin grant of free output `port` among requesting inputs whose head has credit:
    /// the first one at or after the port's round-robin pointer, in input-VC order, wrapping.
    /// Transmits the winner's head and returns the winner's input index.
    fn grant<E: From<NetEvent<P>>>(&mut self, port: usize, ctx: &mut Ctx<'_, E>) -> Option<usize> {
        let n = self.inputs.len() as u32;
        let idx = self.first_request(port)?;
        let r = self.inputs[idx].request;
        let waited = ctx.now() - r.since;
        let w = &mut self.stats.head_waits[port];
        if r.no_credit {
            w.no_credit += 1;
            w.no_credit_ps += waited;
        } else {
            w.busy += 1;
            w.busy_ps += waited;
        }
        self.request_mask[port * self.mask_words + idx / 64] &= !(1 << (idx % 64));
        self.ports[port].out.waiting -= 1;
        let stay = self.params.grant_block > 1 && self.burst(port, idx);
        self.ports[port].out.rr = if stay {
            idx as u32
        } else {
            (idx as u32 + 1) % n
        };
        self.transmit(idx, ctx);
        if self.ports[port].out.waiting > 0 {
            self.ensure_wake(port, ctx);
        }
        Some(idx)
    }

    /// The grant-block variant: counts the grant of `port` to input `idx` in the port's burst
    /// (a new burst when another message's packet wins) and says whether the round-robin
    /// pointer should stay on `idx`, so that its message's next packet wins again while it
    /// waits with credit and the burst lasts.
    fn burst(&mut self, port: usize, idx: usize) -> bool {
        let msg = self.inputs[idx].queue.front().map_or(u64::MAX, |b| {
            u64::from(b.pkt.src) << 32 | u64::from(b.pkt.seq)
        });
        let o = &mut self.ports[port].out;
        if o.burst_msg == msg && o.burst_left > 0 {
            o.burst_left -= 1;
        } else {
            o.burst_msg = msg;
            o.burst_left = self.params.grant_block - 1;
        }
        o.burst_left > 0
    }

    /// The waiting input of `port` that round-robin arbitration grants next: the first set bit
    /// of the port's request mask at or after its pointer (wrapping) whose head has credit.
    #[inline]
    fn first_request(&self, port: usize) -> Option<usize> {
        let words = self.mask_words;
        let mask = &self.request_mask[port * words..(port + 1) * words];
        let vcs = self.vcs as usize;
        // Credits matter only towards a router; a terminal always takes the packet.
        let credits = (self.ports[port].rt.kind == PeerKind::Router)
            .then(|| &self.credits[port * vcs..(port + 1) * vcs]);
        let rr = self.ports[port].out.rr as usize;
        let (first_word, first_bit) = (rr / 64, rr % 64);
        // The pointer's word from its bit up, the other words in order, then the pointer's
        // word below its bit.
        for step in 0..=words {
            let w = (first_word + step) % words;
            let mut m = mask[w];
            if step == 0 {
                m &= u64::MAX << first_bit;
            } else if step == words {
                m &= (1u64 << first_bit) - 1;
            }
            while m != 0 {
                let idx = w * 64 + m.trailing_zeros() as usize;
                let r = self.inputs[idx].request;
                if credits.is_none_or(|c| c[usize::from(r.vc)] >= r.cost) {
                    return Some(idx);
                }
                m &= m - 1;
            }
        }
        None
    }

    #[inline]
    fn ensure_wake<E: From<NetEvent<P>>>(&mut self, port: usize, ctx: &mut Ctx<'_, E>) {
        let o = &mut self.ports[port].out;
        if !o.wake {
            o.wake = true;
            let delay = o.busy_until.saturating_sub(ctx.now());
            ctx.send_self(delay, E::from(NetEvent::PortFree { port: port as u16 }));
        }
    }

    /// Sends the head of input VC `idx` on its output port (which is free and has credit for
    /// at least [`Router::start_cost`]). A unit the downstream buffer cannot take whole splits:
    /// its first whole packets that fit go, the rest stays at the head (with the message's
    /// payload, which rides with its last part).
    fn transmit<E: From<NetEvent<P>>>(&mut self, idx: usize, ctx: &mut Ctx<'_, E>) {
        let Some(head) = self.inputs[idx].queue.front() else {
            return;
        };
        let port = usize::from(head.out_port);
        let credit = if self.ports[port].rt.kind == PeerKind::Router {
            self.credits[port * self.vcs as usize + usize::from(head.out_vc)]
        } else {
            u32::MAX
        };
        if head.pkt.cost() <= credit {
            if let Some(b) = self.inputs[idx].queue.pop_front() {
                self.send(b, ctx);
            }
            return;
        }
        let ps = self.params.packet_size;
        let Some(head) = self.inputs[idx].queue.front_mut() else {
            return;
        };
        // The start cost guarantees one packet of credit and a unit of several packets.
        let k = (credit / ps).clamp(1, u32::from(head.pkt.span.max(2)) - 1);
        let bytes = k * ps;
        let mut pkt = head.pkt;
        pkt.bytes = bytes;
        pkt.span = k as u16;
        let part = Buffered {
            pkt,
            arrived: head.arrived,
            sent: head.sent,
            payload: None,
            out_port: head.out_port,
            out_vc: head.out_vc,
        };
        head.pkt.bytes -= bytes;
        head.pkt.span -= k as u16;
        head.sent += bytes;
        self.stats.splits += 1;
        self.send(part, ctx);
    }

    /// Sends buffered packet `b` on its output port (which is free and has credit): occupies
    /// the port for its serialisation, passes it downstream and returns its buffer space
    /// upstream as a credit.
    fn send<E: From<NetEvent<P>>>(&mut self, b: Buffered<P>, ctx: &mut Ctx<'_, E>) {
        let now = ctx.now();
        let port = usize::from(b.out_port);
        let rt = self.ports[port].rt;
        let cost = b.pkt.cost();
        let ser = if b.pkt.bytes == self.params.packet_size {
            rt.ser_full
        } else {
            serialisation(u64::from(b.pkt.bytes), rt.bandwidth)
        };
        // Cut-through: the tail cannot leave before it has arrived. It arrives one serialisation
        // on the input link after the head, which arrived `router_delay` before this packet's
        // arrival event. Both directions of a link share its bandwidth, so the input port gives
        // that serialisation; an input link no slower than the output never holds the tail back
        // (then `tail - ser <= head <= now`).
        // A unit's later part has its tail `sent + bytes` into the unit.
        let up = self.ports[usize::from(b.pkt.in_port)].rt;
        let start = if up.bandwidth < rt.bandwidth {
            let tail_bytes = b.sent + b.pkt.bytes;
            let ser_in = if tail_bytes == self.params.packet_size {
                up.ser_full
            } else {
                serialisation(u64::from(tail_bytes), up.bandwidth)
            };
            let tail = b.arrived - self.params.router_delay + ser_in;
            now.max(tail.saturating_sub(ser))
        } else if b.sent > 0 {
            // A later part of a spread unit cannot leave before its head has arrived and been
            // routed, `sent` bytes into the unit (a part left behind for credit always can:
            // it follows the front part on this output, which is no faster than the input).
            now.max(b.arrived + serialisation(u64::from(b.sent), up.bandwidth))
        } else {
            now
        };
        let end = start + ser;
        self.ports[port].out.busy_until = end;
        self.stats.links[port].record_span(u64::from(b.pkt.bytes), ser, b.pkt.span.max(1));
        let vcs = self.vcs as usize;
        let (in_port, in_vc) = (usize::from(b.pkt.in_port), b.pkt.vc);
        self.stats.leave(now, in_port, cost);
        let mut pkt = b.pkt;
        match rt.kind {
            PeerKind::Router => {
                self.credits[port * vcs + usize::from(b.out_vc)] -= cost;
                pkt.in_port = rt.peer_port;
                pkt.vc = b.out_vc;
                let delay = start - now + rt.latency + self.params.router_delay;
                let ev = NetEvent::Packet {
                    pkt,
                    payload: b.payload,
                };
                ctx.send(rt.peer_lp, delay, E::from(ev));
            }
            PeerKind::Terminal | PeerKind::None => {
                self.load[port] -= u64::from(cost);
                let whole = pkt.packets > 1
                    && pkt.packets <= MAX_ASSEMBLED_PACKETS
                    && ctx.end_time() == Time::MAX;
                let ev = if whole {
                    self.eject(port, pkt, b.payload)
                } else {
                    Some(NetEvent::Packet {
                        pkt,
                        payload: b.payload,
                    })
                };
                if let Some(ev) = ev {
                    ctx.send(rt.peer_lp, end + rt.latency - now, E::from(ev));
                }
            }
        }
        let up = self.ports[in_port].rt;
        let freed = if b.pkt.span > 1 {
            self.unit_freed(start, end, cost, rt.bandwidth, up.bandwidth)
        } else {
            end
        };
        let mut bytes = cost;
        if self.params.credit_batch > 0 {
            // The credit-batch variant: hold the freed space until a batch is due or the
            // input buffer is empty (so nothing waits on a credit held back for good).
            let i = in_port * vcs + usize::from(in_vc);
            self.held_credit[i] += cost;
            if self.held_credit[i] < self.params.credit_batch && !self.inputs[i].queue.is_empty() {
                return;
            }
            bytes = std::mem::take(&mut self.held_credit[i]);
        }
        let credit = NetEvent::Credit {
            port: up.peer_port,
            vc: in_vc,
            bytes,
        };
        ctx.send(up.peer_lp, freed - now + up.latency, E::from(credit));
    }

    /// When a unit of `cost` bytes of several packets, sent on an output of `out_bw` bytes/s
    /// from `start` to `end`, returns its buffer space upstream (one credit for all of it): the
    /// earliest time at which the upstream sender, streaming a new unit into that space at its
    /// link's `in_bw` as soon as the credit arrives, sends no packet sooner than the credits of
    /// the departing packets, freed one by one as each packet's tail leaves, would have let it.
    /// Packet `i` (from 1) frees its space at `start + i * ser_out(packet)` and the sender needs
    /// `ser_in(packet)` per packet, so the binding packet is the first when the input link is
    /// no faster than the output and the last otherwise. A unit of one packet returns its credit
    /// at `end`, as a packet does.
    #[inline]
    fn unit_freed(&self, start: Time, end: Time, cost: u32, out_bw: u64, in_bw: u64) -> Time {
        let first = self.params.packet_size.min(cost);
        let first_out = serialisation(u64::from(first), out_bw);
        let rest_in = serialisation(u64::from(cost - first), in_bw);
        (start + first_out)
            .max(end.saturating_sub(rest_in))
            .min(end)
    }

    /// Ejects packet (or unit) `pkt` of a message of several packets: adds it to the message's
    /// assembly, as the packets it carries,
    /// and returns the whole message once its last packet leaves (the terminal port is FIFO, so
    /// the last packet sent is the last to arrive). The terminal then gets one event instead of
    /// one per packet, with the packet counts, hop sums and bytes it would have added up; in a
    /// run without an end time no message can be cut off half-received, so what the NIC
    /// reports is the same.
    fn eject(&mut self, port: usize, pkt: Packet, payload: Option<P>) -> Option<NetEvent<P>> {
        let id = u64::from(pkt.src) << 32 | u64::from(pkt.seq);
        let pa = &mut self.assembly[port];
        let i = match pa.ids.iter().position(|&k| k == id) {
            Some(i) => i,
            None => {
                pa.ids.push(id);
                pa.parts.push(Assembly {
                    remaining: pkt.packets,
                    extra_bytes: 0,
                    hop_sum: 0,
                    nonminimal_packets: 0,
                    hops: 0,
                    payload: None,
                });
                pa.ids.len() - 1
            }
        };
        let a = &mut pa.parts[i];
        let span = u32::from(pkt.span.max(1));
        a.remaining = a.remaining.saturating_sub(span);
        a.extra_bytes +=
            i64::from(pkt.bytes) - i64::from(self.params.packet_size) * i64::from(span);
        a.hop_sum += u32::from(pkt.hops) * span;
        a.nonminimal_packets += u32::from(pkt.nonminimal()) * span;
        a.hops = a.hops.max(pkt.hops);
        if payload.is_some() {
            a.payload = payload;
        }
        if a.remaining > 0 {
            return None;
        }
        pa.ids.swap_remove(i);
        let a = pa.parts.swap_remove(i);
        Some(NetEvent::Packet {
            pkt: Packet::whole(&Assembled {
                src: pkt.src,
                dst: pkt.dst,
                seq: pkt.seq,
                packets: pkt.packets,
                injected: pkt.injected,
                // Within [-packet_size, MAX_HEADER_BYTES]: the header less the last packet's
                // shortfall.
                extra_bytes: i32::try_from(a.extra_bytes).ok()?,
                hop_sum: a.hop_sum,
                nonminimal_packets: a.nonminimal_packets,
                hops: a.hops,
            }),
            payload: a.payload,
        })
    }
}
