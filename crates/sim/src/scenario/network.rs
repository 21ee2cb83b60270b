//! `[network]`: topology and its shape, routing, links, routers and the network model.

use super::*;

/// Network topology families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    /// 2- or 3-level fat-tree, optionally tapered.
    FatTree,
    /// Canonical 1-D dragonfly (Kim et al.).
    Dragonfly,
    /// Cray Cascade/Aries dragonfly (rows x columns groups).
    Aries,
    /// n-dimensional torus.
    Torus,
}

/// `[network]`: topology, its shape, routing, links and routers.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// Topology family.
    pub topology: TopologyKind,
    /// Routing; default: adaptive (fat-tree), ugal (dragonflies), dimension-order (torus).
    #[serde(default)]
    pub routing: Option<Routing>,
    /// Compute nodes (fat-tree: default the full tree; others: every terminal slot).
    #[serde(default)]
    pub nodes: Option<u32>,
    /// Fat-tree levels (2 or 3).
    #[serde(default)]
    pub levels: Option<u32>,
    /// Fat-tree switch radix (ports per switch).
    #[serde(default)]
    pub radix: Option<u32>,
    /// Fat-tree edge switches holding compute nodes, `radix / 2` each: gives `nodes` when that
    /// is not set, and must agree with it when it is (BB-only edge switches are not counted).
    #[serde(default)]
    pub edge_switches: Option<u32>,
    /// Fat-tree tapering: edge down-links per up-link (1 = full bisection, 2 = 2:1).
    #[serde(default)]
    pub taper: Option<u32>,
    /// Dragonfly: routers per group (a).
    #[serde(default)]
    pub routers_per_group: Option<u32>,
    /// Dragonfly and Aries: terminals per router (p).
    #[serde(default)]
    pub terminals_per_router: Option<u32>,
    /// Dragonfly: global links per router (h).
    #[serde(default)]
    pub global_links_per_router: Option<u32>,
    /// Dragonfly and Aries: number of groups (g).
    #[serde(default)]
    pub groups: Option<u32>,
    /// Aries: router rows per group.
    #[serde(default)]
    pub rows: Option<u32>,
    /// Aries: router columns per group.
    #[serde(default)]
    pub columns: Option<u32>,
    /// Torus: routers along each dimension.
    #[serde(default)]
    pub dims: Option<Vec<u32>>,
    /// Bandwidth of router-to-router links (fat-tree, torus) and of local channels
    /// (dragonflies) unless `local_bandwidth` is given.
    #[serde(default = "default_link_bw")]
    pub link_bandwidth: Bandwidth,
    /// Terminal (NIC) link bandwidth; default `link_bandwidth`.
    #[serde(default)]
    pub terminal_bandwidth: Option<Bandwidth>,
    /// Dragonfly local (intra-group) channel bandwidth; default `link_bandwidth`.
    #[serde(default)]
    pub local_bandwidth: Option<Bandwidth>,
    /// Dragonfly global (inter-group) channel bandwidth; default `link_bandwidth`.
    #[serde(default)]
    pub global_bandwidth: Option<Bandwidth>,
    /// Link propagation latency.
    #[serde(default = "default_link_latency")]
    pub link_latency: Duration,
    /// Router traversal delay.
    #[serde(default = "default_router_delay")]
    pub router_delay: Duration,
    /// Input buffer per port and virtual channel, in bytes: the physical buffer router credits
    /// count against (packet model). Default [`DEFAULT_VC_BUFFER`], whatever the packet and
    /// unit sizes; it must hold at least one packet.
    #[serde(default)]
    pub vc_buffer: Option<Bytes>,
    /// A diagnostic variant of the packet model: every router decides the route of a
    /// message's packets once per this many bytes (a whole number of packets), the first packet
    /// of each block deciding for the rest. Default: every packet decides.
    #[serde(default)]
    pub routing_block: Option<Bytes>,
    /// A diagnostic variant of the packet model: an output keeps granting the message it
    /// granted, while its packets wait there with credit, for up to this many bytes (a whole
    /// number of packets) before round-robin moves on. Default: round-robin per packet.
    #[serde(default)]
    pub grant_block: Option<Bytes>,
    /// A diagnostic variant of the packet model: where VCs act as lanes (fat-tree), every
    /// router keeps a message's packets on the lane its first packet of each block of this many
    /// bytes (a whole number of packets) chose. Default: every packet chooses its lane.
    #[serde(default)]
    pub lane_block: Option<Bytes>,
    /// A diagnostic variant of the packet model: input buffers return freed space upstream in
    /// credits of this many bytes (or when they empty). Default: every packet's credit.
    #[serde(default)]
    pub credit_batch: Option<Bytes>,
    /// Units: whether a unit routed to an output slower than the link it arrived on spreads
    /// over outputs as its packets would have (the share that output drains while the unit
    /// arrives takes it; the rest decides its route again). Default true; false routes every
    /// unit whole, a diagnostic variant.
    #[serde(default)]
    pub unit_spread: Option<bool>,
    /// Units: the smallest part a unit of several packets is sent as when the downstream
    /// buffer has credit for less than all of it, a whole number of packets up to the VC
    /// buffer. Default: half the VC buffer; one packet sends whatever fits at once.
    #[serde(default)]
    pub min_part: Option<Bytes>,
    /// Messages of at most this size (wire bytes: data plus the 64 B storage header) skip the
    /// packet model and arrive after the zero-load latency of their minimal route, without
    /// occupying links or buffers: "64B" bypasses write acknowledgements and read requests.
    /// Default: none (every message travels as packets).
    #[serde(default)]
    pub bypass_max: Option<Bytes>,
    /// How messages cross the network: `"packet"` (default: router LPs with buffers and
    /// credits), `"path"` (one fabric LP reserves each link of a packet's route first come,
    /// first served; no buffers or back-pressure; a third of the events for bulk transfers) or
    /// `"flow"` (one fabric LP moves each packet as a flow at the bottleneck share of its
    /// route's bandwidth, a terminal's packets one at a time; two events per packet, for
    /// whole-message packets).
    #[serde(default)]
    pub model: bbsim_topology::NetModel,
    /// Flow model only (`model = "flow"`): packets a terminal may have moving at once,
    /// sharing its injection link, 1 to 64 (default 1: one at a time). A window above 1 lets
    /// a NIC move on to its next packet while one is held up behind a congested link, as the
    /// packet model's router buffers do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_window: Option<u16>,
    /// Flow model only: the most a flow that shares its bottleneck link falls short of its
    /// exact share, as a fraction of it (0 to 0.01; each flow draws its own at its start
    /// from the run's random stream). Exact equal shares keep alike ranks in lockstep, which
    /// the packet model's packet-by-packet arbitration does not (docs/network.md §2c).
    /// Default: none (exact shares).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_jitter: Option<f64>,
}

/// Default input buffer per port and virtual channel: 64 KiB, a fixed number of bytes, as a
/// router's buffer is, independent of the simulation's packet and unit sizes. The value is
/// the model's long-standing default for small packets, kept: published per-VC input buffer
/// sizes of the modelled switches (EDR InfiniBand, Aries) were not at hand to pick another.
pub const DEFAULT_VC_BUFFER: Bytes = Bytes(64 * 1024);

impl NetworkSection {
    /// `vc_buffer`, or its default, [`DEFAULT_VC_BUFFER`].
    pub fn effective_vc_buffer(&self) -> Bytes {
        self.vc_buffer.unwrap_or(DEFAULT_VC_BUFFER)
    }
}

fn default_link_bw() -> Bandwidth {
    Bandwidth(12_500_000_000)
}
fn default_link_latency() -> Duration {
    Duration(50_000)
}
fn default_router_delay() -> Duration {
    Duration(90_000)
}
