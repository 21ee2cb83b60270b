//! The network as a whole: configuration, construction of router LPs and NICs, the LP layout,
//! lookahead declarations and cluster hints for assembling a simulation.

use crate::attach::ExtraTerminals;
use crate::bypass::Bypass;
use crate::error::{at_least, GroupParam, NetError, NetParam, TorusParam};
use crate::flow::{FlowFabric, MAX_FLOW_JITTER_PPM};
use crate::graph::Peer;
use crate::link::serialisation;
use crate::link::LinkClass;
use crate::nic::{Nic, NicSetup};
use crate::packet::NONE;
use crate::path::PathFabric;
use crate::router::Router;
use crate::routing::{Algo, Routing};
use crate::topology::{Shape, Topology, TopologyConfig};
use bbsim_engine::time::{NS, SEC};
use bbsim_engine::{LookaheadTable, LpId, Time};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

fn default_packet_size() -> u32 {
    DEFAULT_PACKET_SIZE
}
fn default_buffer_packets() -> u32 {
    16
}
fn default_router_delay() -> Time {
    90 * NS
}
fn default_unit_spread() -> bool {
    true
}

fn default_ugal_threshold() -> u32 {
    3_072
}

/// Largest packet size in bytes: 64 MiB. Large packets trade fairness granularity (arbitration
/// is per packet) for far fewer events per byte.
pub const MAX_PACKET_SIZE: u32 = 64 << 20;

/// Default packet size in bytes: 4 KiB.
pub const DEFAULT_PACKET_SIZE: u32 = 4096;

/// A packet size in bytes, checked: 1 to [`MAX_PACKET_SIZE`].
pub fn packet_size(bytes: u64) -> Result<u32, NetError> {
    u32::try_from(bytes)
        .ok()
        .filter(|b| (1..=MAX_PACKET_SIZE).contains(b))
        .ok_or_else(|| {
            NetError::invalid(NetParam::PacketSize, "1 to 67108864 bytes (64 MiB)", bytes)
        })
}

/// Most packets in one unit ([`NetworkConfig::unit_size`]): 65535.
pub const MAX_UNIT_PACKETS: u32 = u16::MAX as u32;

/// The credits of each VC in bytes: the physical buffer (`vc_buffer` bytes, at least one
/// packet, or `buffer_packets` packets) plus room for a header.
fn buffer_bytes(cfg: &NetworkConfig) -> Result<u32, NetError> {
    let physical = match cfg.vc_buffer {
        Some(b) => {
            if b < cfg.packet_size {
                return Err(NetError::invalid(
                    NetParam::VcBuffer,
                    format!(
                        "at least one packet (packet_size = {} bytes)",
                        cfg.packet_size
                    ),
                    format!("{b} bytes"),
                ));
            }
            u64::from(b)
        }
        None => {
            at_least(NetParam::BufferPackets, u64::from(cfg.buffer_packets), 1)?;
            u64::from(cfg.buffer_packets) * u64::from(cfg.packet_size)
        }
    };
    let bytes = physical + u64::from(MAX_HEADER_BYTES);
    u32::try_from(bytes).map_err(|_| {
        let param = if cfg.vc_buffer.is_some() {
            NetParam::VcBuffer
        } else {
            NetParam::BufferPackets
        };
        NetError::invalid(
            param,
            "buffer_packets * packet_size below 2^32 bytes",
            bytes,
        )
    })
}

/// The smallest part (bytes) a unit of several packets is sent as when the downstream buffer has
/// credit for less than the whole unit: half the VC buffer (`buffer_bytes`) in whole packets, at
/// least one packet. A unit that finds less credit than this waits for it, as the packets of a
/// wormhole stream wait for the credit already on its way back: the buffer downstream still holds
/// the other half, so the congested output it feeds never runs dry meanwhile, and under
/// congestion units travel in parts of half a buffer or more instead of one packet at a time
/// (which is what the credit freed by each departing packet would allow).
pub fn min_part(packet_size: u32, buffer_bytes: u32) -> u32 {
    (buffer_bytes / 2 / packet_size).max(1) * packet_size
}

/// The smallest part of a unit ([`NetworkConfig::min_part`]), checked: a whole number of
/// packets, at most the VC buffer `buffer_bytes`; [`min_part`] when unset.
fn smallest_part(cfg: &NetworkConfig, buffer_bytes: u32) -> Result<u32, NetError> {
    let ps = cfg.packet_size;
    match cfg.min_part {
        None => Ok(min_part(ps, buffer_bytes)),
        Some(b) if b >= ps && b % ps == 0 && b <= buffer_bytes => Ok(b),
        Some(b) => Err(NetError::invalid(
            NetParam::MinPart,
            format!(
                "a whole number of packets ({ps} B each), at most the VC buffer ({buffer_bytes} B)"
            ),
            b,
        )),
    }
}

/// Packets in a block of `bytes` ([`NetworkConfig::routing_block`],
/// [`NetworkConfig::grant_block`], [`NetworkConfig::lane_block`]), checked: a whole number of packets, at most
/// [`MAX_UNIT_PACKETS`]; 1 when unset.
fn packets_per(cfg: &NetworkConfig, bytes: Option<u32>, param: NetParam) -> Result<u16, NetError> {
    let Some(b) = bytes else {
        return Ok(1);
    };
    let ps = cfg.packet_size;
    u16::try_from(b / ps)
        .ok()
        .filter(|&k| b >= ps && b % ps == 0 && k >= 1)
        .ok_or_else(|| {
            NetError::invalid(
                param,
                format!(
                    "a whole number of packets (packet_size = {ps} bytes), at most \
                     {MAX_UNIT_PACKETS} packets"
                ),
                format!("{b} bytes"),
            )
        })
}

/// The unit size in bytes: `unit_size`, checked, or one packet.
fn unit_size(cfg: &NetworkConfig) -> Result<u32, NetError> {
    match cfg.unit_size {
        None => Ok(cfg.packet_size),
        Some(u) => checked_unit_size(cfg.packet_size, u64::from(u)),
    }
}

/// A unit size in bytes ([`NetworkConfig::unit_size`]) for packets of `packet_size` bytes,
/// checked: a whole number of packets, at most [`MAX_UNIT_PACKETS`] of them and
/// [`MAX_PACKET_SIZE`] bytes.
pub fn checked_unit_size(packet_size: u32, bytes: u64) -> Result<u32, NetError> {
    let ps = u64::from(packet_size.max(1));
    let whole = bytes >= ps && bytes % ps == 0 && bytes / ps <= u64::from(MAX_UNIT_PACKETS);
    u32::try_from(bytes)
        .ok()
        .filter(|&u| whole && u <= MAX_PACKET_SIZE)
        .ok_or_else(|| {
            NetError::invalid(
                NetParam::UnitSize,
                format!(
                    "a whole number of packets (packet_size = {ps} bytes), at most \
                     {MAX_UNIT_PACKETS} packets and 64 MiB"
                ),
                format!("{bytes} bytes"),
            )
        })
}

/// Longest serialisation (ps) of one full packet on the slowest link: one hour. It keeps packet
/// times far from the 64-bit picosecond range (about 213 days); real links are many orders of
/// magnitude faster (a 64 MiB packet reaches it only below about 18.6 kB/s).
pub const MAX_PACKET_SERIALISATION: Time = 3_600 * SEC;

/// Largest message header (bytes) that rides in a message's first packet on top of
/// `packet_size` ([`Nic::send_framed`]). Every VC buffer holds this much beyond its whole
/// packets, so a full packet with its header always fits.
pub const MAX_HEADER_BYTES: u32 = 256;

/// Default virtual channels (lanes) per port on fat-trees.
pub const FAT_TREE_LANES: u8 = 4;

/// How messages cross the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetModel {
    /// Packets through router LPs with input buffers, credits and round-robin arbitration
    /// ([`crate::router`]): the reference model.
    #[default]
    Packet,
    /// Path-level reservation ([`crate::path`]): one fabric LP routes each message's packets
    /// with the same routing algorithms and reserves every link of the route first come, first
    /// served; no buffers, credits or back-pressure. About a third of the events of the packet
    /// model for bulk transfers; exact zero-load latency.
    Path,
    /// Flow-level sharing ([`crate::flow`]): one fabric LP moves each packet as a flow over
    /// its route at the bottleneck share of the links' bandwidth, each terminal's packets one
    /// at a time; two events per packet whatever the route; exact zero-load latency for
    /// one-packet messages. For whole-message packets (`packet_size` of a few MiB).
    Flow,
}

/// Everything needed to build a network: topology, routing, packet and router parameters, and
/// extra terminals. Units: bytes, bytes per second, picoseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkConfig {
    /// The topology.
    pub topology: TopologyConfig,
    /// The routing algorithm (validated against the topology).
    pub routing: Routing,
    /// Packet size in bytes, 1 to [`MAX_PACKET_SIZE`] (64 MiB). Messages are split into packets
    /// of this size; the last packet carries the remainder. Default [`DEFAULT_PACKET_SIZE`].
    #[serde(default = "default_packet_size")]
    pub packet_size: u32,
    /// Input buffer of each virtual channel of each router port, in packets, when `vc_buffer`
    /// is not given. Default 16.
    #[serde(default = "default_buffer_packets")]
    pub buffer_packets: u32,
    /// The physical input buffer of each virtual channel of each router port, in bytes: what
    /// credits count against. At least one packet. `None` (the default): `buffer_packets`
    /// packets.
    #[serde(default)]
    pub vc_buffer: Option<u32>,
    /// Units (bytes) in which the packet model moves a message: up to this many bytes of one
    /// message travel as one unit, routed, buffered, arbitrated and serialised as one, and
    /// split at packet boundaries where credit is short, into parts of at least half the VC
    /// buffer ([`min_part`], [`crate::router`]). A whole number of
    /// packets, at most [`MAX_UNIT_PACKETS`] of them and [`MAX_PACKET_SIZE`] bytes. `None`
    /// (the default): one packet, every packet on its own.
    #[serde(default)]
    pub unit_size: Option<u32>,
    /// A diagnostic variant of the packet model, to measure what coarse routing decisions alone
    /// change: each router decides the route of a message's packets (adaptive up-port, UGAL)
    /// once per this many bytes, the first packet of every block deciding and the next ones
    /// following it. A whole number of packets; `None` (the default): every packet decides.
    /// Units decide per unit whatever this says.
    #[serde(default)]
    pub routing_block: Option<u32>,
    /// A diagnostic variant of the packet model, to measure what granting an output in turns
    /// of a unit changes: an output that grants a message's packet keeps granting that
    /// message's next packets, while they wait there with credit, up to this many bytes, before
    /// round-robin moves on. A whole number of packets; `None` (the default): round-robin per
    /// packet.
    #[serde(default)]
    pub grant_block: Option<u32>,
    /// A diagnostic variant of the packet model, to measure what choosing a lane once per unit
    /// changes: where VCs act as lanes (fat-tree), each router puts a message's packets on the
    /// output lane the first packet of every block of this many bytes chose (the one with the
    /// most free downstream buffer then), instead of choosing per packet. A whole number of
    /// packets; `None` (the default): every packet chooses. Units choose per unit whatever
    /// this says.
    #[serde(default)]
    pub lane_block: Option<u32>,
    /// A diagnostic variant of the packet model, to measure what credits returned in a unit's
    /// size change: each input buffer holds back the space freed by departing packets until
    /// this many bytes are due or the buffer is empty, then returns them as one credit.
    /// `None` (the default): every packet's credit goes back when it leaves.
    #[serde(default)]
    pub credit_batch: Option<u32>,
    /// The smallest part (bytes) a unit of several packets is sent as when the downstream
    /// buffer has credit for less than the whole unit ([`min_part`]): a whole number of
    /// packets, at most the VC buffer. `None` (the default): half the VC buffer. One packet
    /// sends whatever credit allows at once, as the packet model's packets would.
    #[serde(default)]
    pub min_part: Option<u32>,
    /// Units only: whether a unit whose route is slower than the link it arrived on (at its
    /// output, or at the network's slowest channel further on) is spread over routes as its
    /// packets would have been ([`crate::router`]): the share of its packets that route drains
    /// while they arrive takes it, and the rest decides its route again. Default `true`;
    /// `false` routes every unit whole, a diagnostic variant that measures what spreading
    /// changes.
    #[serde(default = "default_unit_spread")]
    pub unit_spread: bool,
    /// Router delay (routing and switch traversal) in ps. Default 90 ns.
    #[serde(default = "default_router_delay")]
    pub router_delay: Time,
    /// UGAL bias toward minimal routes, in bytes of queue occupancy x hops: the minimal route
    /// is taken when `q_min * H_min <= q_nonmin * H_nonmin + ugal_threshold`. Default 3072
    /// (about two 512 B packets on a 3-hop minimal route), which keeps packets minimal at low
    /// load; 0 is textbook UGAL-L, which sends a packet non-minimally as soon as one packet is
    /// in flight on its minimal port.
    #[serde(default = "default_ugal_threshold")]
    pub ugal_threshold: u32,
    /// Virtual channels per port. `None` (the default) takes what the routing needs: 2
    /// (dragonfly minimal, torus) or 3 (Valiant, UGAL), and 4 lanes on fat-trees. Up/down
    /// routing is deadlock-free on any VC, so fat-trees accept any count >= 1 and use the VCs
    /// as lanes against head-of-line blocking; dragonflies and tori need exactly their count.
    #[serde(default)]
    pub vcs: Option<u8>,
    /// Extra terminals (BB servers, PFS I/O nodes), attached after the compute terminals.
    #[serde(default)]
    pub extras: Vec<ExtraTerminals>,
    /// Messages of at most this many wire bytes bypass the packet model and arrive after the
    /// zero-load latency of their minimal route ([`crate::bypass`]). `None` (the default):
    /// every message goes through routers as packets.
    #[serde(default)]
    pub bypass_max: Option<u32>,
    /// Packet model (router LPs, the default) or path model (one fabric LP).
    #[serde(default)]
    pub model: NetModel,
    /// Flow model only: packets a terminal may have moving at once, sharing its injection
    /// link (at least 1; 1, the default, moves a terminal's packets one at a time).
    #[serde(default = "default_flow_window")]
    pub flow_window: u16,
    /// Flow model only: the most a flow that shares its bottleneck link falls short of its
    /// exact share, in parts per million of it (0 to [`MAX_FLOW_JITTER_PPM`]; 0, the
    /// default here, gives exact shares). Each flow draws its shortfall at its start.
    #[serde(default)]
    pub flow_jitter_ppm: u32,
}

/// The largest flow window (packets moving at once per terminal).
pub const MAX_FLOW_WINDOW: u16 = 64;

/// The flow model's default window: one packet at a time per terminal.
fn default_flow_window() -> u16 {
    1
}

impl NetworkConfig {
    /// A configuration with default packet and router parameters and no extra terminals.
    pub fn new(topology: TopologyConfig, routing: Routing) -> Self {
        NetworkConfig {
            topology,
            routing,
            packet_size: default_packet_size(),
            buffer_packets: default_buffer_packets(),
            vc_buffer: None,
            unit_size: None,
            routing_block: None,
            grant_block: None,
            lane_block: None,
            credit_batch: None,
            min_part: None,
            unit_spread: default_unit_spread(),
            router_delay: default_router_delay(),
            ugal_threshold: default_ugal_threshold(),
            vcs: None,
            extras: Vec::new(),
            bypass_max: None,
            model: NetModel::Packet,
            flow_window: default_flow_window(),
            flow_jitter_ppm: 0,
        }
    }

    /// Builds the network.
    pub fn build(&self) -> Result<Network, NetError> {
        Network::build(self)
    }
}

/// Router parameters shared by every router and NIC of a network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouterParams {
    /// Packet size in bytes.
    pub packet_size: u32,
    /// Credits per VC in bytes: the physical input buffer (`vc_buffer`, or `buffer_packets *
    /// packet_size`) plus [`MAX_HEADER_BYTES`], so that a full packet with its header fits.
    pub buffer_bytes: u32,
    /// Largest unit in bytes (a whole number of packets; `packet_size` when units are off).
    pub unit_size: u32,
    /// Smallest part (bytes) a unit is split into when credit is short ([`min_part`]).
    pub min_part: u32,
    /// Packets of a message per routing decision at each router
    /// ([`NetworkConfig::routing_block`]; 1: every packet decides).
    pub routing_block: u16,
    /// Packets per burst of grants ([`NetworkConfig::grant_block`]; 1: round-robin per packet).
    pub grant_block: u16,
    /// Packets of a message per lane choice at each router ([`NetworkConfig::lane_block`];
    /// 1: every packet chooses).
    pub lane_block: u16,
    /// Bytes of credit returned at once ([`NetworkConfig::credit_batch`]; 0: every packet's).
    pub credit_batch: u32,
    /// Whether units routed to a slower output spread over outputs
    /// ([`NetworkConfig::unit_spread`]).
    pub unit_spread: bool,
    /// The slowest channel between two routers (bytes per second; `u64::MAX` with none): the
    /// rate a spreading unit's route may narrow to past its next hop.
    pub slowest_channel: u64,
    /// Router delay in ps.
    pub router_delay: Time,
    /// Virtual channels per port (set by the routing algorithm).
    pub vcs: u8,
    /// UGAL threshold (bytes x hops).
    pub ugal_threshold: u32,
}

/// Which LP id every router and every terminal's host has in the simulation. The simulator
/// decides where its LPs go; routers and NICs only need this map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LpLayout {
    /// LP of router `r`.
    pub routers: Vec<LpId>,
    /// LP of the host owning terminal `t`'s NIC.
    pub terminals: Vec<LpId>,
}

impl LpLayout {
    /// Routers first (LPs `0..routers`), then one host per terminal.
    pub fn routers_then_terminals(routers: u32, terminals: u32) -> Self {
        LpLayout {
            routers: (0..routers).map(LpId).collect(),
            terminals: (routers..routers + terminals).map(LpId).collect(),
        }
    }

    /// Path and flow models: the fabric is LP 0 (every router maps to it), then one host per
    /// terminal.
    pub fn fabric_then_terminals(routers: u32, terminals: u32) -> Self {
        LpLayout {
            routers: vec![LpId(0); routers as usize],
            terminals: (1..1 + terminals).map(LpId).collect(),
        }
    }

    /// Network LPs before the first host: 1 (the fabric) in the path and flow models, else the
    /// routers.
    pub fn for_model(model: NetModel, routers: u32, terminals: u32) -> Self {
        match model {
            NetModel::Packet => Self::routers_then_terminals(routers, terminals),
            NetModel::Path | NetModel::Flow => Self::fabric_then_terminals(routers, terminals),
        }
    }
}

/// Checks the limits of the compact packet header and of packet timing: a full packet's
/// serialisation on any link takes at most [`MAX_PACKET_SERIALISATION`], routes visit at most
/// 255 routers, dragonfly groups and global slots fit in 16 bits.
fn check_packet_limits(topo: &Topology, packet_size: u32, what: &str) -> Result<(), NetError> {
    let slowest = topo
        .wiring()
        .ports
        .iter()
        .filter(|p| p.peer != Peer::None)
        .map(|p| p.link.bandwidth)
        .min();
    if let Some(bw) = slowest {
        if serialisation(u64::from(packet_size), bw) > MAX_PACKET_SERIALISATION {
            return Err(NetError::invalid(
                NetParam::LinkBandwidth,
                format!(
                    "a bandwidth at which one {what} = {packet_size} bytes) \
                     serialises in at most 1 hour"
                ),
                format!("{bw} bytes/s"),
            ));
        }
    }
    match topo.shape() {
        Shape::Torus(s) => {
            let longest: u32 = s.dims.iter().map(|k| k / 2).sum::<u32>() + 1;
            if longest > 255 {
                return Err(NetError::invalid(
                    NetParam::Torus(TorusParam::Dims),
                    "routes of at most 255 routers (sum of floor(k/2) + 1)",
                    longest,
                ));
            }
        }
        Shape::Dragonfly(s) => {
            if s.groups >= u32::from(NONE) || s.slots() >= u32::from(NONE) {
                return Err(NetError::invalid(
                    NetParam::Dragonfly(GroupParam::Size),
                    "fewer than 65535 groups and global links per group",
                    format!("{} groups, {} global links per group", s.groups, s.slots()),
                ));
            }
        }
        Shape::FatTree(_) => {}
    }
    Ok(())
}

/// A built network: the topology plus validated routing and router parameters.
#[derive(Clone, Debug)]
pub struct Network {
    topo: Arc<Topology>,
    algo: Algo,
    params: Arc<RouterParams>,
    config: NetworkConfig,
    /// The bypass shared by the NICs built for the last layout (built on first use).
    bypass: Arc<Mutex<Option<Arc<Bypass>>>>,
}

impl Network {
    /// Builds and validates the network described by `cfg`.
    pub fn build(cfg: &NetworkConfig) -> Result<Self, NetError> {
        packet_size(u64::from(cfg.packet_size))?;
        if !(1..=MAX_FLOW_WINDOW).contains(&cfg.flow_window) {
            return Err(NetError::invalid(
                NetParam::FlowWindow,
                format!("1 to {MAX_FLOW_WINDOW} packets per terminal"),
                cfg.flow_window,
            ));
        }
        if cfg.flow_jitter_ppm > MAX_FLOW_JITTER_PPM {
            return Err(NetError::invalid(
                NetParam::FlowJitterPpm,
                format!("0 to {MAX_FLOW_JITTER_PPM} parts per million"),
                cfg.flow_jitter_ppm,
            ));
        }
        if cfg.flow_jitter_ppm > 0 && cfg.model != NetModel::Flow {
            return Err(NetError::invalid(
                NetParam::FlowJitterPpm,
                "0 unless the network model is \"flow\" (it is the flow model's jitter)",
                cfg.flow_jitter_ppm,
            ));
        }
        if cfg.flow_window > 1 && cfg.model != NetModel::Flow {
            return Err(NetError::invalid(
                NetParam::FlowWindow,
                "1 unless the network model is \"flow\" (it is the flow model's window)",
                cfg.flow_window,
            ));
        }
        let buffer_bytes = buffer_bytes(cfg)?;
        let unit_size = unit_size(cfg)?;
        let topo = Topology::build(&cfg.topology, &cfg.extras)?;
        let algo = Algo::resolve(cfg.routing, &topo)?;
        let what = if cfg.unit_size.is_some() {
            "unit (unit_size"
        } else {
            "packet (packet_size"
        };
        check_packet_limits(&topo, unit_size, what)?;
        let vcs = match (cfg.vcs, algo.lanes()) {
            (None, true) => FAT_TREE_LANES,
            (None, false) => algo.vcs(),
            (Some(v), true) if v >= 1 => v,
            (Some(v), false) if v == algo.vcs() => v,
            (Some(v), lanes) => {
                let expected = if lanes {
                    "at least 1 on a fat-tree".to_string()
                } else {
                    format!(
                        "{} for {} routing (set by the routing)",
                        algo.vcs(),
                        cfg.routing.name()
                    )
                };
                return Err(NetError::invalid(NetParam::Vcs, expected, v));
            }
        };
        let slowest_channel = (0..topo.routers())
            .flat_map(|r| topo.ports(r))
            .filter(|p| matches!(p.peer, Peer::Router { .. }))
            .map(|p| p.link.bandwidth)
            .min()
            .unwrap_or(u64::MAX);
        Ok(Network {
            topo: Arc::new(topo),
            algo,
            params: Arc::new(RouterParams {
                packet_size: cfg.packet_size,
                buffer_bytes,
                unit_size,
                min_part: smallest_part(cfg, buffer_bytes)?,
                routing_block: packets_per(cfg, cfg.routing_block, NetParam::RoutingBlock)?,
                grant_block: packets_per(cfg, cfg.grant_block, NetParam::GrantBlock)?,
                lane_block: packets_per(cfg, cfg.lane_block, NetParam::LaneBlock)?,
                credit_batch: cfg.credit_batch.unwrap_or(0),
                unit_spread: cfg.unit_spread,
                slowest_channel,
                router_delay: cfg.router_delay,
                vcs,
                ugal_threshold: cfg.ugal_threshold,
            }),
            config: cfg.clone(),
            bypass: Arc::new(Mutex::new(None)),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &NetworkConfig {
        &self.config
    }

    /// The topology.
    pub fn topology(&self) -> &Arc<Topology> {
        &self.topo
    }

    /// The routing algorithm in use.
    pub fn algo(&self) -> Algo {
        self.algo
    }

    /// Router parameters (packet size, buffers, delay, VCs).
    pub fn params(&self) -> &RouterParams {
        &self.params
    }

    /// Number of routers.
    pub fn routers(&self) -> u32 {
        self.topo.routers()
    }

    /// Number of terminals (compute and extra).
    pub fn terminals(&self) -> u32 {
        self.topo.terminals()
    }

    /// Minimum delay (ps) of any event between two routers: the smallest router-to-router link
    /// latency (packets also carry the router delay; credits only the latency).
    pub fn router_lookahead(&self) -> Time {
        self.min_latency(|c| c != LinkClass::Terminal)
            .unwrap_or_else(|| self.terminal_lookahead())
    }

    /// Minimum delay (ps) of any event between a router and a terminal's host, either way: the
    /// smallest terminal link latency.
    pub fn terminal_lookahead(&self) -> Time {
        self.min_latency(|c| c == LinkClass::Terminal).unwrap_or(1)
    }

    fn min_latency(&self, f: impl Fn(LinkClass) -> bool) -> Option<Time> {
        self.topo
            .wiring()
            .ports
            .iter()
            .filter(|p| p.peer != Peer::None && f(p.class))
            .map(|p| p.link.latency)
            .min()
    }

    /// Declares the network's channels in `table`: router <-> router with the router lookahead
    /// and router <-> each host class with the terminal lookahead.
    pub fn declare_lookahead(
        &self,
        table: &mut LookaheadTable,
        router_class: u16,
        host_classes: &[u16],
    ) {
        table.declare(router_class, router_class, self.router_lookahead());
        for &h in host_classes {
            table.declare_both(router_class, h, self.terminal_lookahead());
        }
        if self.config.bypass_max.is_some() {
            let direct = Bypass::lookahead(&self.topo, self.params.router_delay);
            for (i, &a) in host_classes.iter().enumerate() {
                for &b in &host_classes[i..] {
                    table.declare_both(a, b, direct);
                }
            }
        }
    }

    /// The bypass for NICs delivering to `layout`'s hosts, shared while the layout is the same.
    fn bypass_for(&self, layout: &LpLayout) -> Option<Arc<Bypass>> {
        let max = self.config.bypass_max?;
        let mut cached = self.bypass.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = cached.as_ref().filter(|b| b.delivers_to(&layout.terminals)) {
            return Some(b.clone());
        }
        let b = Arc::new(Bypass::new(
            self.topo.clone(),
            layout.terminals.clone().into(),
            u64::from(max),
            self.params.router_delay,
        ));
        *cached = Some(b.clone());
        Some(b)
    }

    /// Builds router LPs `0..routers` (in router order) for the given layout and lookahead class.
    pub fn build_routers<P>(&self, layout: &LpLayout, class: u16) -> Vec<Router<P>> {
        (0..self.topo.routers())
            .map(|r| {
                Router::new(
                    r,
                    class,
                    self.topo.clone(),
                    self.algo,
                    self.params.clone(),
                    layout,
                )
            })
            .collect()
    }

    /// The path-model fabric LP for `layout` (built with [`LpLayout::fabric_then_terminals`]),
    /// in lookahead class `class`.
    pub fn build_path_fabric<P>(&self, layout: &LpLayout, class: u16) -> PathFabric<P> {
        PathFabric::new(
            class,
            self.topo.clone(),
            self.algo,
            self.params.clone(),
            layout.terminals.clone().into(),
        )
    }

    /// The flow-model fabric LP for `layout` (built with [`LpLayout::fabric_then_terminals`]),
    /// in lookahead class `class`.
    pub fn build_flow_fabric<P>(&self, layout: &LpLayout, class: u16) -> FlowFabric<P> {
        FlowFabric::new(
            class,
            self.topo.clone(),
            self.algo,
            self.params.clone(),
            layout.terminals.clone().into(),
            self.config.flow_window,
            self.config.flow_jitter_ppm,
        )
    }

    /// The network model (packet, path or flow).
    pub fn model(&self) -> NetModel {
        self.config.model
    }

    /// The NIC of terminal `t` (`None` if there is no such terminal).
    pub fn nic<P>(&self, t: u32, layout: &LpLayout) -> Option<Nic<P>> {
        let a = *self.topo.attachment(t)?;
        Some(Nic::new(NicSetup {
            terminal: t,
            terminals: self.topo.terminals(),
            router_lp: layout.routers[a.router as usize],
            router_port: a.port,
            latency: a.link.latency,
            bandwidth: a.link.bandwidth,
            packet_size: self.params.packet_size,
            unit_size: self.params.unit_size,
            router_delay: self.params.router_delay,
            buffer_bytes: self.params.buffer_bytes,
            min_part: self.params.min_part,
            bypass: self.bypass_for(layout),
            path: matches!(self.config.model, NetModel::Path | NetModel::Flow),
            flow: self.config.model == NetModel::Flow,
        }))
    }

    /// Cluster hint for router `r` (pod, group or torus slab).
    pub fn router_cluster(&self, r: u32) -> u32 {
        self.topo.router_cluster(r)
    }

    /// Cluster hint for the host LP of terminal `t`: its router's cluster.
    pub fn terminal_cluster(&self, t: u32) -> u32 {
        self.topo.terminal_cluster(t)
    }

    /// Routers traversed by a minimal route between terminals `a` and `b`.
    pub fn hop_distance(&self, a: u32, b: u32) -> Option<u32> {
        self.topo.hop_distance(a, b)
    }
}
