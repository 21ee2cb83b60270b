//! Synthetic traffic: patterns, a standalone simulation (routers plus traffic-generating
//! hosts) and its report, so that a network can be studied on its own.

use crate::error::{NetError, NetParam, TrafficParam};
use crate::flow::FlowFabric;
use crate::network::NetModel;
use crate::network::{LpLayout, Network, NetworkConfig};
use crate::nic::{Nic, NicStats};
use crate::packet::NetEvent;
use crate::path::PathFabric;
use crate::router::{Router, RouterStats};
use crate::stats::NetworkStats;
use crate::topology::Shape;
use bbsim_engine::digest::Digest;
use bbsim_engine::pending::PendingKind;
use bbsim_engine::time::format_time;
use bbsim_engine::{
    Ctx, LogicalProcess, LookaheadTable, PartitionSpec, Rng, RunStats, SimConfig, Simulation,
    Threads, ThreadsExecutor, Time,
};
use serde::{Deserialize, Serialize};
use std::fmt;

fn one_u64() -> u64 {
    1
}
fn yes() -> bool {
    true
}

/// Who sends to whom. Only compute terminals send and receive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Every message goes to a uniformly random other terminal.
    UniformRandom,
    /// A fixed random permutation without fixed points (drawn from the run seed).
    RandomPermutation,
    /// Terminal `i` sends to terminal `i + 1` (mod N): the next terminal on the same router,
    /// or on the next router in id order.
    NearestNeighbour,
    /// All-to-one: every terminal but [`TrafficConfig::hot_spot`] sends to it.
    HotSpot,
    /// Dragonfly worst case: terminal `i` of group `G` sends to terminal `i` of group `G + 1`.
    DragonflyWorstCase,
    /// Terminal `i` sends to terminal `i + shift` (mod N, [`TrafficConfig::shift`]): with a
    /// shift of the terminals per edge switch, every edge switch's terminals all send to the
    /// next switch's (a switch-to-switch fan-in through the up-links).
    Shift,
}

impl Pattern {
    /// The name as a scenario file spells it (`uniform-random`, `hot-spot`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Pattern::UniformRandom => "uniform-random",
            Pattern::RandomPermutation => "random-permutation",
            Pattern::NearestNeighbour => "nearest-neighbour",
            Pattern::HotSpot => "hot-spot",
            Pattern::DragonflyWorstCase => "dragonfly-worst-case",
            Pattern::Shift => "shift",
        }
    }
}

/// A synthetic-traffic experiment. Times in ps, sizes in bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrafficConfig {
    /// The network.
    pub network: NetworkConfig,
    /// The traffic pattern.
    pub pattern: Pattern,
    /// The receiving terminal of [`Pattern::HotSpot`].
    #[serde(default)]
    pub hot_spot: u32,
    /// How far [`Pattern::Shift`] sends (terminals, at least 1, below the terminal count).
    #[serde(default)]
    pub shift: u32,
    /// [`Pattern::HotSpot`] only: one sender that sends to another terminal instead of the hot
    /// spot (a victim flow, usually to a terminal on the hot spot's switch), reported on its own.
    #[serde(default)]
    pub victim: Option<Victim>,
    /// Message size in bytes.
    pub message_bytes: u64,
    /// Time between two messages of one terminal (ps). The first message of each terminal
    /// goes at a random offset in `[0, interval)`. 0 queues all `messages_per_node` messages
    /// at time 0.
    #[serde(default)]
    pub interval: Time,
    /// Messages per terminal; `None` sends until `end`.
    #[serde(default)]
    pub messages_per_node: Option<u64>,
    /// No message is generated at or after this time (ps); throughput is measured over
    /// `[0, end]`.
    pub end: Time,
    /// Run seed.
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// Keep running after `end` until every message is delivered (default); otherwise stop at
    /// `end`.
    #[serde(default = "yes")]
    pub drain: bool,
}

/// A victim flow beside a hot spot: `source` sends its messages to `destination`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Victim {
    /// The sending terminal.
    pub source: u32,
    /// The receiving terminal (neither the hot spot nor `source`).
    pub destination: u32,
}

impl TrafficConfig {
    /// Checks the traffic parameters against the built network.
    fn validate(&self, net: &Network) -> Result<(), NetError> {
        let n = net.topology().compute_terminals().end;
        if n < 2 {
            return Err(NetError::invalid(
                NetParam::Traffic(TrafficParam::Terminals),
                "at least 2 compute terminals",
                n,
            ));
        }
        if self.end == 0 {
            return Err(NetError::invalid(
                NetParam::Traffic(TrafficParam::End),
                "an end time > 0 ps",
                0,
            ));
        }
        if self.interval == 0 && self.messages_per_node.is_none() {
            return Err(NetError::invalid(
                NetParam::Traffic(TrafficParam::MessagesPerNode),
                "a message count when interval is 0 (all messages queued at time 0)",
                "none",
            ));
        }
        if let Some(v) = self.victim {
            let (ok, expected) = if self.pattern != Pattern::HotSpot {
                (
                    false,
                    "no victim flow (it belongs to the hot-spot pattern)".to_string(),
                )
            } else {
                let ids = [v.source, v.destination];
                (
                    ids.iter().all(|&t| t < n && t != self.hot_spot) && v.source != v.destination,
                    format!(
                        "two different compute terminals below {n}, neither the hot spot {}",
                        self.hot_spot
                    ),
                )
            };
            if !ok {
                return Err(NetError::invalid(
                    NetParam::Traffic(TrafficParam::Victim),
                    expected,
                    format!("{} -> {}", v.source, v.destination),
                ));
            }
        }
        match &self.pattern {
            Pattern::Shift if self.shift == 0 || self.shift >= n => Err(NetError::invalid(
                NetParam::Traffic(TrafficParam::Shift),
                format!("1 to {} terminals", n - 1),
                self.shift,
            )),
            Pattern::HotSpot if self.hot_spot >= n => Err(NetError::invalid(
                NetParam::Traffic(TrafficParam::HotSpot),
                format!("a compute terminal id below {n}"),
                self.hot_spot,
            )),
            Pattern::DragonflyWorstCase => match net.topology().shape() {
                Shape::Dragonfly(s) if s.groups >= 2 => {
                    let per_group = s.routers_per_group() * s.p;
                    if n < 2 * per_group {
                        return Err(NetError::invalid(
                            NetParam::Traffic(TrafficParam::Pattern),
                            "compute terminals filling at least two dragonfly groups",
                            n,
                        ));
                    }
                    Ok(())
                }
                _ => Err(NetError::invalid(
                    NetParam::Traffic(TrafficParam::Pattern),
                    "a dragonfly with at least 2 groups for dragonfly-worst-case",
                    net.topology().config().describe(),
                )),
            },
            _ => Ok(()),
        }
    }
}

/// The event type of the standalone traffic simulation.
#[derive(Clone, Debug)]
pub enum TrafficEvent {
    /// A network event.
    Net(NetEvent<()>),
    /// A host's timer: generate the next message.
    Generate,
}

impl From<NetEvent<()>> for TrafficEvent {
    fn from(e: NetEvent<()>) -> Self {
        TrafficEvent::Net(e)
    }
}

/// How a host picks destinations.
#[derive(Clone, Copy, Debug)]
enum Dst {
    /// Uniform over the other `n - 1` compute terminals.
    Random(u32),
    /// Always this terminal.
    Fixed(u32),
    /// Does not send.
    Silent,
}

/// A terminal's host that generates synthetic traffic and records deliveries.
#[derive(Clone, Debug)]
pub struct TrafficHost {
    nic: Nic<()>,
    cluster: u32,
    dst: Dst,
    message_bytes: u64,
    interval: Time,
    remaining: u64,
    end: Time,
    /// Bytes delivered to this host with delivery time <= `end`.
    pub delivered_by_end: u64,
}

impl TrafficHost {
    /// The host's NIC.
    pub fn nic(&self) -> &Nic<()> {
        &self.nic
    }

    fn send_one(&mut self, ctx: &mut Ctx<'_, TrafficEvent>) {
        let me = self.nic.terminal();
        let dst = match self.dst {
            Dst::Random(n) => {
                let d = ctx.rng().below(u64::from(n - 1)) as u32;
                if d >= me {
                    d + 1
                } else {
                    d
                }
            }
            Dst::Fixed(d) => d,
            Dst::Silent => return,
        };
        self.remaining -= 1;
        self.nic.send_message(ctx, dst, self.message_bytes, ());
    }

    fn init(&mut self, ctx: &mut Ctx<'_, TrafficEvent>) {
        if matches!(self.dst, Dst::Silent) || self.remaining == 0 {
            return;
        }
        if self.interval == 0 {
            while self.remaining > 0 {
                self.send_one(ctx);
            }
        } else {
            let offset = ctx.rng().below(self.interval);
            if offset < self.end {
                ctx.send_self(offset, TrafficEvent::Generate);
            }
        }
    }

    fn handle(&mut self, ev: TrafficEvent, ctx: &mut Ctx<'_, TrafficEvent>) {
        match ev {
            TrafficEvent::Generate => {
                self.send_one(ctx);
                if self.remaining > 0 && ctx.now() + self.interval < self.end {
                    ctx.send_self(self.interval, TrafficEvent::Generate);
                }
            }
            TrafficEvent::Net(e) => {
                if let Some(d) = self.nic.handle(e, ctx) {
                    if d.delivered <= self.end {
                        self.delivered_by_end += d.bytes;
                    }
                }
            }
        }
    }
}

/// The LP of the standalone traffic simulation: a router or a traffic host.
#[allow(clippy::large_enum_variant)]
pub enum TrafficLp {
    /// A router.
    Router(Router<()>),
    /// The path model's fabric (all routers' links in one LP).
    Fabric(PathFabric<()>),
    /// The flow model's fabric (all routers' links in one LP).
    Flows(FlowFabric<()>),
    /// A terminal's host.
    Host(TrafficHost),
}

/// Lookahead class of routers in the standalone simulation.
pub const ROUTER_CLASS: u16 = 0;
/// Lookahead class of hosts in the standalone simulation.
pub const HOST_CLASS: u16 = 1;

impl LogicalProcess for TrafficLp {
    type Event = TrafficEvent;

    fn init(&mut self, ctx: &mut Ctx<'_, TrafficEvent>) {
        if let TrafficLp::Host(h) = self {
            h.init(ctx);
        }
    }

    #[inline]
    fn handle(&mut self, ev: TrafficEvent, ctx: &mut Ctx<'_, TrafficEvent>) {
        match (self, ev) {
            (TrafficLp::Router(r), TrafficEvent::Net(e)) => r.handle(e, ctx),
            (TrafficLp::Fabric(f), TrafficEvent::Net(e)) => f.handle(e, ctx),
            (TrafficLp::Flows(f), TrafficEvent::Net(e)) => f.handle(e, ctx),
            (TrafficLp::Fabric(_) | TrafficLp::Flows(_), TrafficEvent::Generate) => {}
            (TrafficLp::Host(h), ev) => h.handle(ev, ctx),
            (TrafficLp::Router(_), TrafficEvent::Generate) => {}
        }
    }

    fn class(&self) -> u16 {
        match self {
            TrafficLp::Router(_) | TrafficLp::Fabric(_) | TrafficLp::Flows(_) => ROUTER_CLASS,
            TrafficLp::Host(_) => HOST_CLASS,
        }
    }

    fn cluster_hint(&self) -> Option<u32> {
        Some(match self {
            TrafficLp::Router(r) => r.cluster_hint(),
            TrafficLp::Fabric(_) | TrafficLp::Flows(_) => 0,
            TrafficLp::Host(h) => h.cluster,
        })
    }

    fn label(&self) -> String {
        match self {
            TrafficLp::Router(r) => r.label(),
            TrafficLp::Fabric(f) => f.label(),
            TrafficLp::Flows(f) => f.label(),
            TrafficLp::Host(h) => format!("host of terminal {}", h.nic.terminal()),
        }
    }
}

/// A random permutation of `0..n` without fixed points, from `seed`.
fn derangement(n: u32, seed: u64) -> Vec<u32> {
    let mut rng = Rng::seed_from_u64(seed ^ 0x005E_ED0F_7E27_u64);
    let mut p: Vec<u32> = (0..n).collect();
    for i in (1..n as usize).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        p.swap(i, j);
    }
    for i in 0..n as usize {
        if p[i] == i as u32 {
            let j = (i + 1) % n as usize;
            p.swap(i, j);
        }
    }
    p
}

/// A built standalone traffic simulation.
pub struct TrafficSim {
    /// The engine simulation (routers are LPs `0..routers`, or the path model's fabric is LP
    /// 0; hosts follow in terminal order).
    pub sim: Simulation<TrafficLp>,
    /// The network.
    pub network: Network,
    config: TrafficConfig,
}

impl TrafficSim {
    /// Builds the network, its routers and one traffic host per terminal (extra terminals
    /// get silent hosts).
    pub fn build(cfg: &TrafficConfig) -> Result<Self, NetError> {
        let net = cfg.network.build()?;
        cfg.validate(&net)?;
        let topo = net.topology().clone();
        let (routers, terminals) = (topo.routers(), topo.terminals());
        let n = topo.compute_terminals().end;
        let layout = LpLayout::for_model(net.model(), routers, terminals);
        let mut lps: Vec<TrafficLp> = match net.model() {
            NetModel::Packet => net
                .build_routers(&layout, ROUTER_CLASS)
                .into_iter()
                .map(TrafficLp::Router)
                .collect(),
            NetModel::Path => vec![TrafficLp::Fabric(
                net.build_path_fabric(&layout, ROUTER_CLASS),
            )],
            NetModel::Flow => vec![TrafficLp::Flows(
                net.build_flow_fabric(&layout, ROUTER_CLASS),
            )],
        };
        let perm = match cfg.pattern {
            Pattern::RandomPermutation => derangement(n, cfg.seed),
            _ => Vec::new(),
        };
        let per_group = match topo.shape() {
            Shape::Dragonfly(s) => s.routers_per_group() * s.p,
            _ => 0,
        };
        for t in 0..terminals {
            let dst = if t >= n {
                Dst::Silent
            } else {
                match cfg.pattern {
                    Pattern::UniformRandom => Dst::Random(n),
                    Pattern::RandomPermutation => Dst::Fixed(perm[t as usize]),
                    Pattern::NearestNeighbour => Dst::Fixed((t + 1) % n),
                    Pattern::HotSpot if cfg.hot_spot == t => Dst::Silent,
                    Pattern::HotSpot if cfg.victim.is_some_and(|v| v.source == t) => {
                        Dst::Fixed(cfg.victim.map_or(cfg.hot_spot, |v| v.destination))
                    }
                    Pattern::HotSpot => Dst::Fixed(cfg.hot_spot),
                    Pattern::DragonflyWorstCase => Dst::Fixed((t + per_group) % n),
                    Pattern::Shift => Dst::Fixed((t + cfg.shift) % n),
                }
            };
            let nic = net.nic(t, &layout).ok_or_else(|| {
                NetError::invalid(
                    NetParam::Traffic(TrafficParam::Terminal),
                    format!("an id below {terminals}"),
                    t,
                )
            })?;
            lps.push(TrafficLp::Host(TrafficHost {
                nic,
                cluster: topo.terminal_cluster(t),
                dst,
                message_bytes: cfg.message_bytes,
                interval: cfg.interval,
                remaining: cfg.messages_per_node.unwrap_or(u64::MAX),
                end: cfg.end,
                delivered_by_end: 0,
            }));
        }
        let mut table = LookaheadTable::with_classes(["router", "host"]);
        net.declare_lookahead(&mut table, ROUTER_CLASS, &[HOST_CLASS]);
        let sim = Simulation::new(
            lps,
            table,
            SimConfig {
                seed: cfg.seed,
                end_time: if cfg.drain { Time::MAX } else { cfg.end },
                partition: PartitionSpec::Auto,
            },
        );
        Ok(TrafficSim {
            sim,
            network: net,
            config: cfg.clone(),
        })
    }

    /// Runs on `threads` threads (1 = the sequential executor).
    pub fn run(&mut self, threads: usize) -> Result<RunStats, NetError> {
        self.run_threads(Threads::Count(threads))
    }

    /// Runs with the executor a thread setting asks for ([`ThreadsExecutor`]: `auto` uses the
    /// cores only while they pay).
    pub fn run_threads(&mut self, threads: Threads) -> Result<RunStats, NetError> {
        Ok(self
            .sim
            .run(&ThreadsExecutor::new(threads, PendingKind::Ring))?)
    }

    /// Routers of the simulation, in router order (none in the path model).
    pub fn routers(&self) -> impl Iterator<Item = &Router<()>> {
        self.sim.lps().filter_map(|lp| match lp {
            TrafficLp::Router(r) => Some(r),
            _ => None,
        })
    }

    /// Every router's statistics (router id, figures) in router order, from the routers or
    /// the path model's fabric.
    pub fn router_stats(&self) -> Vec<(u32, &RouterStats)> {
        let mut all = Vec::new();
        for lp in self.sim.lps() {
            match lp {
                TrafficLp::Router(r) => all.push((r.id(), r.stats())),
                TrafficLp::Fabric(f) => all.extend(f.router_stats()),
                TrafficLp::Flows(f) => all.extend(f.router_stats()),
                TrafficLp::Host(_) => {}
            }
        }
        all
    }

    /// Hosts of the simulation, in terminal order.
    pub fn hosts(&self) -> impl Iterator<Item = &TrafficHost> {
        self.sim.lps().filter_map(|lp| match lp {
            TrafficLp::Host(h) => Some(h),
            _ => None,
        })
    }

    /// The report of a finished run.
    pub fn report(&self, run: &RunStats) -> TrafficReport {
        let cfg = &self.config;
        let topo = self.network.topology();
        let mut total = NicStats::default();
        let (mut by_end, mut queued, mut partial) = (0u64, 0u64, 0u64);
        let mut digest = Digest::new();
        for h in self.hosts() {
            let s = h.nic().stats();
            total.sent_messages += s.sent_messages;
            total.sent_bytes += s.sent_bytes;
            total.received_messages += s.received_messages;
            total.received_packets += s.received_packets;
            total.received_bytes += s.received_bytes;
            total.latency_sum += s.latency_sum;
            total.latency_max = total.latency_max.max(s.latency_max);
            total.packet_hops += s.packet_hops;
            total.nonminimal_packets += s.nonminimal_packets;
            by_end += h.delivered_by_end;
            queued += h.nic().queued_messages() as u64;
            partial += h.nic().partial_messages() as u64;
            digest
                .word(s.sent_messages)
                .word(s.received_messages)
                .word(s.received_bytes)
                .word(s.latency_sum as u64)
                .word((s.latency_sum >> 64) as u64)
                .word(s.latency_max)
                .word(s.packet_hops)
                .word(s.nonminimal_packets)
                .word(s.injection.busy)
                .word(h.delivered_by_end);
        }
        let until = run.last_event_time.max(cfg.end);
        let network = NetworkStats::collect(
            topo,
            self.router_stats(),
            self.hosts().map(|h| h.nic().stats()),
            until,
        );
        network.digest(&mut digest);
        let buffered: u64 = self
            .sim
            .lps()
            .map(|lp| match lp {
                TrafficLp::Router(r) => r.buffered_packets() as u64,
                TrafficLp::Fabric(f) => f.waiting_packets() as u64,
                TrafficLp::Flows(f) => f.waiting_packets() as u64,
                TrafficLp::Host(_) => 0,
            })
            .sum();
        // Messages whose packets have partly reached their terminal's router port count as
        // partly received too (routers assemble them only in drained runs).
        partial += self
            .sim
            .lps()
            .map(|lp| match lp {
                TrafficLp::Router(r) => r.assembling_messages() as u64,
                _ => 0,
            })
            .sum::<u64>();
        digest.word(run.events).word(run.last_event_time);
        let n = topo.compute_terminals().end;
        let secs = cfg.end as f64 * 1e-12;
        let accepted = by_end as f64 / secs;
        let injection_bw = topo.attachment(0).map_or(1, |a| a.link.bandwidth) as f64;
        let rm = total.received_messages.max(1) as f64;
        let rp = total.received_packets.max(1) as f64;
        let victim = cfg.victim.and_then(|v| {
            let h = self.hosts().nth(v.destination as usize)?;
            let s = h.nic().stats();
            Some(VictimReport {
                source: v.source,
                destination: v.destination,
                messages_delivered: s.received_messages,
                avg_latency_ns: s.latency_sum as f64 / s.received_messages.max(1) as f64 / 1e3,
                max_latency_ns: s.latency_max as f64 / 1e3,
                accepted_bytes_per_s: h.delivered_by_end as f64 / secs,
            })
        });
        TrafficReport {
            topology: topo.config().describe(),
            routing: self.network.config().routing.name().to_string(),
            pattern: match cfg.pattern {
                Pattern::HotSpot => format!("hot-spot(terminal {})", cfg.hot_spot),
                Pattern::Shift => format!("shift(by {})", cfg.shift),
                p => p.name().to_string(),
            },
            routers: topo.routers(),
            terminals: n,
            packet_size: self.network.params().packet_size,
            message_bytes: cfg.message_bytes,
            interval_ps: cfg.interval,
            end_ps: cfg.end,
            messages_sent: total.sent_messages,
            messages_delivered: total.received_messages,
            packets_delivered: total.received_packets,
            bytes_delivered: total.received_bytes,
            messages_queued: queued,
            messages_partial: partial,
            packets_buffered: buffered,
            avg_latency_ns: total.latency_sum as f64 / rm / 1e3,
            max_latency_ns: total.latency_max as f64 / 1e3,
            avg_hops: total.packet_hops as f64 / rp,
            nonminimal_fraction: total.nonminimal_packets as f64 / rp,
            offered_bytes_per_s: total.sent_bytes as f64 / secs,
            accepted_bytes_per_s: accepted,
            accepted_per_node_bytes_per_s: accepted / f64::from(n),
            accepted_fraction_of_injection: accepted / f64::from(n) / injection_bw,
            victim,
            sim_end_ps: run.last_event_time,
            events: run.events,
            threads: run.threads,
            wall_seconds: run.wall.as_secs_f64(),
            network,
            digest: digest.finish(),
        }
    }
}

/// Builds, runs and reports a synthetic-traffic experiment on `threads` threads.
pub fn run_traffic(cfg: &TrafficConfig, threads: usize) -> Result<TrafficReport, NetError> {
    run_traffic_threads(cfg, Threads::Count(threads))
}

/// Builds, runs and reports a synthetic-traffic experiment with the executor `threads` asks
/// for (`auto` included).
pub fn run_traffic_threads(
    cfg: &TrafficConfig,
    threads: Threads,
) -> Result<TrafficReport, NetError> {
    let mut t = TrafficSim::build(cfg)?;
    let run = t.run_threads(threads)?;
    Ok(t.report(&run))
}

/// What a synthetic-traffic run measured. Latencies in ns, throughput in bytes/s.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrafficReport {
    /// Topology description.
    pub topology: String,
    /// Routing algorithm.
    pub routing: String,
    /// Traffic pattern.
    pub pattern: String,
    /// Routers.
    pub routers: u32,
    /// Compute terminals (the traffic's sources and sinks).
    pub terminals: u32,
    /// Packet size in bytes.
    pub packet_size: u32,
    /// Message size in bytes.
    pub message_bytes: u64,
    /// Interval between messages per node (ps; 0 = all at time 0).
    pub interval_ps: Time,
    /// End of generation and of the throughput window (ps).
    pub end_ps: Time,
    /// Messages generated.
    pub messages_sent: u64,
    /// Messages delivered.
    pub messages_delivered: u64,
    /// Packets delivered.
    pub packets_delivered: u64,
    /// Bytes delivered.
    pub bytes_delivered: u64,
    /// Messages still queued at NICs when the run ended.
    pub messages_queued: u64,
    /// Messages partly received when the run ended.
    pub messages_partial: u64,
    /// Packets still in router buffers when the run ended.
    pub packets_buffered: u64,
    /// Mean message latency (ns), from hand-over to the NIC to delivery of the last byte.
    pub avg_latency_ns: f64,
    /// Largest message latency (ns).
    pub max_latency_ns: f64,
    /// Mean routers traversed per packet.
    pub avg_hops: f64,
    /// Fraction of packets routed non-minimally.
    pub nonminimal_fraction: f64,
    /// Bytes generated per second of `[0, end]`, all terminals together.
    pub offered_bytes_per_s: f64,
    /// Bytes delivered within `[0, end]` per second, all terminals together.
    pub accepted_bytes_per_s: f64,
    /// Accepted throughput per terminal (bytes/s).
    pub accepted_per_node_bytes_per_s: f64,
    /// Accepted throughput per terminal as a fraction of the terminal link bandwidth.
    pub accepted_fraction_of_injection: f64,
    /// The victim flow beside the hot spot, if the traffic has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub victim: Option<VictimReport>,
    /// Time of the last event (ps).
    pub sim_end_ps: Time,
    /// Events handled.
    pub events: u64,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock seconds of the run (not part of the digest).
    pub wall_seconds: f64,
    /// Link and buffer statistics.
    pub network: NetworkStats,
    /// Digest of every deterministic figure (identical for any thread count).
    pub digest: u64,
}

/// What the victim flow beside a hot spot saw ([`TrafficConfig::victim`]). Latencies in ns,
/// throughput in bytes/s.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VictimReport {
    /// Sending terminal.
    pub source: u32,
    /// Receiving terminal.
    pub destination: u32,
    /// Messages of the flow delivered.
    pub messages_delivered: u64,
    /// Mean message latency of the flow (ns).
    pub avg_latency_ns: f64,
    /// Largest message latency of the flow (ns).
    pub max_latency_ns: f64,
    /// Bytes of the flow delivered within `[0, end]` per second.
    pub accepted_bytes_per_s: f64,
}

impl fmt::Display for TrafficReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gb = |x: f64| x / 1e9;
        writeln!(
            f,
            "network      {}, {} routing, {} B packets, {} routers",
            self.topology, self.routing, self.packet_size, self.routers
        )?;
        let when = if self.interval_ps == 0 {
            "all at time 0".to_string()
        } else {
            format!("every {} per node", format_time(self.interval_ps))
        };
        writeln!(
            f,
            "traffic      {} over {} terminals, {} B messages {}, until {}",
            self.pattern,
            self.terminals,
            self.message_bytes,
            when,
            format_time(self.end_ps)
        )?;
        writeln!(
            f,
            "messages     {} sent, {} delivered ({} packets, {} bytes)",
            self.messages_sent,
            self.messages_delivered,
            self.packets_delivered,
            self.bytes_delivered
        )?;
        if self.messages_queued + self.messages_partial + self.packets_buffered > 0 {
            writeln!(
                f,
                "in flight    {} messages queued, {} partly received, {} packets in routers",
                self.messages_queued, self.messages_partial, self.packets_buffered
            )?;
        }
        writeln!(
            f,
            "latency      avg {:.3} us, max {:.3} us",
            self.avg_latency_ns / 1e3,
            self.max_latency_ns / 1e3
        )?;
        writeln!(
            f,
            "hops         avg {:.3} routers per packet, {:.2}% routed non-minimally",
            self.avg_hops,
            100.0 * self.nonminimal_fraction
        )?;
        writeln!(
            f,
            "throughput   offered {:.3} GB/s, accepted {:.3} GB/s ({:.3} GB/s per node, {:.1}% of injection bandwidth)",
            gb(self.offered_bytes_per_s),
            gb(self.accepted_bytes_per_s),
            gb(self.accepted_per_node_bytes_per_s),
            100.0 * self.accepted_fraction_of_injection
        )?;
        if let Some(v) = &self.victim {
            writeln!(
                f,
                "victim       {} -> {}: {} messages, latency avg {:.3} us, max {:.3} us, accepted {:.3} GB/s",
                v.source,
                v.destination,
                v.messages_delivered,
                v.avg_latency_ns / 1e3,
                v.max_latency_ns / 1e3,
                gb(v.accepted_bytes_per_s)
            )?;
        }
        for c in &self.network.classes {
            writeln!(
                f,
                "links        {:<9} {:>7} channels, {:>6.2}% mean, {:>6.2}% max utilisation",
                c.class.name(),
                c.channels,
                100.0 * c.utilisation,
                100.0 * c.max_utilisation
            )?;
        }
        writeln!(
            f,
            "buffers      mean {:.1} B per router, max {} B in a router, {} B in a port",
            self.network.mean_buffer_occupancy,
            self.network.max_buffer_occupancy,
            self.network.max_port_occupancy
        )?;
        let w = &self.network.head_waits;
        writeln!(
            f,
            "head waits   {} behind a busy port ({}), {} for credit ({})",
            w.busy,
            format_time(w.busy_ps),
            w.no_credit,
            format_time(w.no_credit_ps)
        )?;
        write!(
            f,
            "engine       {} events, last at {}, {} thread(s), {:.3} s wall, digest {:016x}",
            self.events,
            format_time(self.sim_end_ps),
            self.threads,
            self.wall_seconds,
            self.digest
        )
    }
}
