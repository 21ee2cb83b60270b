//! The scenario file schema: what a centre writes to describe a machine and a workload.
//!
//! Every quantity takes a unit (see [`crate::units`]). Every section and key has a default
//! unless noted, and the loaded scenario (with every default filled in) is echoed into
//! `summary.json`. Unknown keys are errors.

use crate::units::{Bandwidth, Bytes, Duration};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A whole scenario.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A name for reports.
    #[serde(default = "default_name")]
    pub name: String,
    /// Run settings.
    #[serde(default)]
    pub simulation: SimulationSection,
    /// The interconnect.
    pub network: NetworkSection,
    /// Burst buffers: placement, servers, SSDs, striping, FTL, drain.
    #[serde(default)]
    pub burst_buffer: BurstBufferSection,
    /// The parallel file system.
    #[serde(default)]
    pub pfs: PfsSection,
    /// Persistent burst-buffer reservations (`[[reservations]]`).
    #[serde(default)]
    pub reservations: Vec<ReservationSection>,
    /// The jobs (`[[jobs]]`), in submission order (`bbsim run` needs at least one).
    #[serde(default)]
    pub jobs: Vec<JobSection>,
    /// Synthetic network traffic for `bbsim net` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<TrafficSection>,
    /// What to write.
    #[serde(default)]
    pub outputs: OutputsSection,
    /// Unit prices and powers for the cost model.
    #[serde(default)]
    pub cost: crate::cost::CostSection,
}

fn default_name() -> String {
    "scenario".into()
}

/// `[simulation]`: seed, threads, end time, packet size.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSection {
    /// Seed of every random stream (allocation, routing ties, application jitter).
    #[serde(default = "one")]
    pub seed: u64,
    /// Worker threads (results are identical for any value).
    #[serde(default = "one_usize")]
    pub threads: usize,
    /// Stop the simulation at this simulated time; by default it runs until every job is done.
    #[serde(default)]
    pub end_time: Option<Duration>,
    /// Network packet size (messages are split into packets of this size).
    #[serde(default = "default_packet")]
    pub packet_size: Bytes,
    /// Transfer trains: at most this many consecutive reads or writes of one rank (same file,
    /// same size, back to back offsets, within one stripe of a BB layout, or to the node-local
    /// SSD) are simulated as one network message and one serial device request, each operation
    /// still charged its own overheads; 1 (the default) simulates every operation on its own.
    /// A coarser model for speed: docs/architecture.md, "Transfer trains".
    #[serde(default = "one_u32")]
    pub train_ops: u32,
}

fn one() -> u64 {
    1
}
fn one_usize() -> usize {
    1
}
fn default_packet() -> Bytes {
    Bytes(4096)
}

impl Default for SimulationSection {
    fn default() -> Self {
        SimulationSection {
            seed: 1,
            threads: 1,
            end_time: None,
            packet_size: default_packet(),
            train_ops: 1,
        }
    }
}

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

/// Routing algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingKind {
    /// Fat-tree: destination-mod-k up-port.
    Deterministic,
    /// Fat-tree: least-loaded up-port. Dragonfly: UGAL-style (same as `ugal`).
    Adaptive,
    /// Dragonfly: minimal.
    Minimal,
    /// Dragonfly: Valiant, through a random intermediate group.
    Valiant,
    /// Dragonfly: UGAL-style per-packet choice between minimal and Valiant.
    Ugal,
    /// Torus: dimension order.
    DimensionOrder,
}

/// `[network]`: topology, its shape, routing, links and routers.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// Topology family.
    pub topology: TopologyKind,
    /// Routing; default: adaptive (fat-tree), ugal (dragonflies), dimension-order (torus).
    #[serde(default)]
    pub routing: Option<RoutingKind>,
    /// Compute nodes (fat-tree: default the full tree; others: every terminal slot).
    #[serde(default)]
    pub nodes: Option<u32>,
    /// Fat-tree levels (2 or 3).
    #[serde(default)]
    pub levels: Option<u32>,
    /// Fat-tree switch radix (ports per switch).
    #[serde(default)]
    pub radix: Option<u32>,
    /// Fat-tree edge switches (default: as many as the full tree has).
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
    /// Input buffer per port and virtual channel (default: 64 KiB or two packets, whichever
    /// is larger).
    #[serde(default)]
    pub vc_buffer: Option<Bytes>,
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

impl NetworkSection {
    /// `vc_buffer`, or its default for packets of `packet` bytes: 64 KiB or two packets,
    /// whichever is larger.
    pub fn effective_vc_buffer(&self, packet: u64) -> Bytes {
        self.vc_buffer.unwrap_or(Bytes((64 * 1024).max(2 * packet)))
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

/// Where burst buffers sit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// No burst buffer: all I/O goes to the PFS.
    #[default]
    None,
    /// An SSD inside every compute node; local I/O never touches the network.
    NodeLocal,
    /// BB servers inside each group / under each edge switch.
    Grouped,
    /// BB servers on their own switches / groups.
    Global,
}

/// What a full burst buffer does with more writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FullPolicyKind {
    /// Stall the writer until drain frees space.
    #[default]
    Stall,
    /// Send the write on to the PFS.
    Spill,
}

/// `[burst_buffer]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BurstBufferSection {
    /// Placement of the burst buffers.
    #[serde(default)]
    pub placement: Placement,
    /// Global placement: total number of BB servers.
    #[serde(default)]
    pub servers: Option<u32>,
    /// Global placement: BB servers attached to each dedicated switch / router.
    #[serde(default)]
    pub servers_per_router: Option<u32>,
    /// Grouped placement: edge switches (fat-tree) or routers (dragonfly, torus) per BB server;
    /// default 1 on fat-trees and tori, 2 on dragonflies (one per two blades).
    #[serde(default)]
    pub routers_per_server: Option<u32>,
    /// SSDs inside each BB server (node-local: SSDs per compute node).
    #[serde(default = "one_u32")]
    pub ssds_per_server: u32,
    /// Servers each file is striped over.
    #[serde(default = "default_stripe_count")]
    pub stripe_count: u32,
    /// Stripe unit.
    #[serde(default = "default_stripe_size")]
    pub stripe_size: Bytes,
    /// Per-SSD chunk inside a BB server: consecutive stripe units of a file kept on one SSD
    /// before the next SSD (a whole multiple of `stripe_size`; unset: `stripe_size`, plain
    /// round robin of units). Each unit is still one SSD operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssd_chunk: Option<Bytes>,
    /// How a BB server's SSDs are simulated: `"per-ssd"` (default: each SSD its own device,
    /// units round robin over them) or `"array"` (the server's SSDs as one device with
    /// `ssds_per_server` times the channels, bandwidths and capacity; one device request per
    /// server request, still one operation per stripe unit; no FTL, no `ssd_chunk`).
    #[serde(default, skip_serializing_if = "bbsim_storage::SsdModel::is_per_ssd")]
    pub ssd_model: bbsim_storage::SsdModel,
    /// Request threads per BB server.
    #[serde(default = "default_threads")]
    pub request_threads: u32,
    /// Per-request processing overhead in the BB server software.
    #[serde(default)]
    pub request_overhead: Duration,
    /// DRAM staging buffer per server (0 = none).
    #[serde(default)]
    pub staging_buffer: Bytes,
    /// DRAM staging buffer bandwidth.
    #[serde(default = "default_staging_bw")]
    pub staging_bandwidth: Bandwidth,
    /// What happens when a server is full.
    #[serde(default)]
    pub full_policy: FullPolicyKind,
    /// The SSD model.
    #[serde(default)]
    pub ssd: SsdSection,
    /// The flash translation layer.
    #[serde(default)]
    pub ftl: FtlSection,
    /// Stage-out to the PFS.
    #[serde(default)]
    pub drain: DrainSection,
    /// DataWarp-style allocation granularity. When set, a job uses the BB servers only
    /// through a reservation: its own (`jobs.bb_capacity`, a scratch reservation created at
    /// job start and staged out at job end) or a persistent one (`jobs.reservation`); a
    /// reservation of capacity C gets `ceil(C / grain)` servers, one grain on each, and its
    /// files are laid out over those servers as `access_mode` says. Unset: every compute node
    /// stripes over its own nearest `stripe_count` servers (the placement study's model).
    #[serde(default)]
    pub grain: Option<Bytes>,
    /// With `grain`: `striped` (every file striped over all servers of the reservation in
    /// `stripe_size` units) or `private` (each file on one server, by compute node and file).
    #[serde(default)]
    pub access_mode: AccessMode,
}

/// DataWarp access modes (`burst_buffer.access_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AccessMode {
    /// One namespace per reservation; files striped over all its servers.
    #[default]
    Striped,
    /// One namespace per compute node; each file on one server of the reservation.
    Private,
}

/// `[[reservations]]`: a persistent burst-buffer reservation (DataWarp `create_persistent`),
/// created by a setup step before any job starts, shared by the jobs that name it in
/// `jobs.reservation`, and torn down when the last of them ends (its data is staged out as
/// `burst_buffer.drain.policy` says). Needs `burst_buffer.grain`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReservationSection {
    /// Name the jobs refer to.
    pub name: String,
    /// Capacity requested; granted in whole grains.
    pub capacity: Bytes,
}

fn one_u32() -> u32 {
    1
}
fn default_stripe_count() -> u32 {
    4
}
fn default_stripe_size() -> Bytes {
    Bytes(128 * 1024)
}
fn default_threads() -> u32 {
    16
}
fn default_staging_bw() -> Bandwidth {
    Bandwidth(50_000_000_000)
}

impl Default for BurstBufferSection {
    fn default() -> Self {
        BurstBufferSection {
            placement: Placement::None,
            servers: None,
            servers_per_router: None,
            routers_per_server: None,
            ssds_per_server: 1,
            stripe_count: default_stripe_count(),
            stripe_size: default_stripe_size(),
            ssd_chunk: None,
            ssd_model: bbsim_storage::SsdModel::PerSsd,
            request_threads: default_threads(),
            request_overhead: Duration(0),
            staging_buffer: Bytes(0),
            staging_bandwidth: default_staging_bw(),
            full_policy: FullPolicyKind::Stall,
            ssd: SsdSection::default(),
            ftl: FtlSection::default(),
            drain: DrainSection::default(),
            grain: None,
            access_mode: AccessMode::Striped,
        }
    }
}

/// `[burst_buffer.ssd]`: one SSD.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsdSection {
    /// Sequential write bandwidth.
    #[serde(default = "default_ssd_write")]
    pub write_bandwidth: Bandwidth,
    /// Sequential read bandwidth.
    #[serde(default = "default_ssd_read")]
    pub read_bandwidth: Bandwidth,
    /// Fixed cost of every operation.
    #[serde(default)]
    pub op_overhead: Duration,
    /// Extra latency of a non-sequential access.
    #[serde(default)]
    pub access_latency: Duration,
    /// Internal channels serving requests concurrently (sharing the bandwidth).
    #[serde(default = "default_channels")]
    pub channels: u32,
    /// Usable capacity.
    #[serde(default = "default_ssd_capacity")]
    pub capacity: Bytes,
}

fn default_ssd_write() -> Bandwidth {
    Bandwidth(1_400_000_000)
}
fn default_ssd_read() -> Bandwidth {
    Bandwidth(2_300_000_000)
}
fn default_channels() -> u32 {
    8
}
fn default_ssd_capacity() -> Bytes {
    Bytes(1_600_000_000_000)
}

impl Default for SsdSection {
    fn default() -> Self {
        SsdSection {
            write_bandwidth: default_ssd_write(),
            read_bandwidth: default_ssd_read(),
            op_overhead: Duration(0),
            access_latency: Duration(0),
            channels: default_channels(),
            capacity: default_ssd_capacity(),
        }
    }
}

/// FTL placement modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum StreamMode {
    /// All writers share the open blocks.
    #[default]
    Legacy,
    /// One stream (open blocks) per job.
    MultiStream,
}

/// `[burst_buffer.ftl]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlSection {
    /// Model the flash translation layer (garbage collection, write amplification).
    #[serde(default)]
    pub enabled: bool,
    /// Mapping unit (flash page).
    #[serde(default = "default_page")]
    pub page_size: Bytes,
    /// Pages per erase block.
    #[serde(default = "default_ppb")]
    pub pages_per_block: u32,
    /// Spare fraction of physical space (over-provisioning), e.g. 0.07.
    #[serde(default = "default_op")]
    pub over_provisioning: f64,
    /// GC starts when the free-block fraction falls below this.
    #[serde(default = "default_gc")]
    pub gc_threshold: f64,
    /// Block placement.
    #[serde(default)]
    pub placement: StreamMode,
    /// Start from a full, steady-state device.
    #[serde(default)]
    pub precondition: bool,
}

fn default_page() -> Bytes {
    Bytes(1 << 20)
}
fn default_ppb() -> u32 {
    64
}
fn default_op() -> f64 {
    0.07
}
fn default_gc() -> f64 {
    0.02
}

impl Default for FtlSection {
    fn default() -> Self {
        FtlSection {
            enabled: false,
            page_size: default_page(),
            pages_per_block: default_ppb(),
            over_provisioning: default_op(),
            gc_threshold: default_gc(),
            placement: StreamMode::Legacy,
            precondition: false,
        }
    }
}

/// Drain policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DrainPolicyKind {
    /// Data stays in the burst buffer.
    #[default]
    None,
    /// Drain as soon as data lands.
    Immediate,
    /// Drain when the writing job ends.
    JobEnd,
    /// Drain while the server is fuller than `threshold`.
    Threshold,
}

/// `[burst_buffer.drain]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrainSection {
    /// When to drain.
    #[serde(default)]
    pub policy: DrainPolicyKind,
    /// Drain bandwidth per server.
    #[serde(default = "default_drain_bw")]
    pub bandwidth: Bandwidth,
    /// Fill fraction that starts draining (policy `threshold`).
    #[serde(default = "default_drain_threshold")]
    pub threshold: f64,
}

fn default_drain_bw() -> Bandwidth {
    Bandwidth(1_000_000_000)
}
fn default_drain_threshold() -> f64 {
    0.8
}

impl Default for DrainSection {
    fn default() -> Self {
        DrainSection {
            policy: DrainPolicyKind::None,
            bandwidth: default_drain_bw(),
            threshold: default_drain_threshold(),
        }
    }
}

/// `[pfs]`: the parallel file system behind I/O nodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfsSection {
    /// I/O (router/LNet) nodes on the network forwarding to the storage servers.
    #[serde(default = "default_io_nodes")]
    pub io_nodes: u32,
    /// Storage servers (OSSs).
    #[serde(default = "default_pfs_servers")]
    pub servers: u32,
    /// Bandwidth of each storage server.
    #[serde(default = "default_pfs_server_bw")]
    pub server_bandwidth: Bandwidth,
    /// Cap on the aggregate bandwidth (default: servers x server_bandwidth).
    #[serde(default)]
    pub aggregate_bandwidth: Option<Bandwidth>,
    /// Per-request latency.
    #[serde(default = "default_pfs_latency")]
    pub latency: Duration,
    /// Stripe unit on the PFS.
    #[serde(default = "default_pfs_stripe")]
    pub stripe_size: Bytes,
}

fn default_io_nodes() -> u32 {
    4
}
fn default_pfs_servers() -> u32 {
    8
}
fn default_pfs_server_bw() -> Bandwidth {
    Bandwidth(5_000_000_000)
}
fn default_pfs_latency() -> Duration {
    Duration(100_000_000)
}
fn default_pfs_stripe() -> Bytes {
    Bytes(1 << 20)
}

impl Default for PfsSection {
    fn default() -> Self {
        PfsSection {
            io_nodes: default_io_nodes(),
            servers: default_pfs_servers(),
            server_bandwidth: default_pfs_server_bw(),
            aggregate_bandwidth: None,
            latency: default_pfs_latency(),
            stripe_size: default_pfs_stripe(),
        }
    }
}

/// Where a job's operations come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobSource {
    /// One of the study's applications (`preset = "gtc" | "lammps" | "s3d" | "hacc"`).
    Preset,
    /// IOR.
    Ior,
    /// A generic checkpointing application.
    Checkpoint,
    /// A Darshan log (`log = "path"`).
    Darshan,
    /// A consumer of another job's files (`inputs = "job"`): reads each of them, computes,
    /// writes its own products. In transit (`in_transit = true`) it runs beside the producer
    /// and opens each file as soon as the producer has closed it.
    Analysis,
    /// One user of a shared BB writing plot and checkpoint files into a quota and deleting
    /// the oldest when the quota is 90% full.
    QuotaUser,
    /// Many small reads from one input file per rank (an ATLAS-like analysis).
    SmallReads,
}

/// Node allocation policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AllocationKind {
    /// Lowest-numbered run of consecutive free nodes.
    #[default]
    Contiguous,
    /// Free nodes uniformly at random.
    Random,
    /// Chunks of consecutive free nodes scattered over the machine (a busy batch system).
    Fragmented,
    /// Line `allocation_line` of the CODES-format `allocation_file`.
    File,
    /// The free nodes nearest in node id to the nodes of the earlier jobs named in `next_to`
    /// (ties to the lower id), as a job backfilled next to a running one.
    NextTo,
}

/// One job name or a list of them (`next_to = "gtc"` or `next_to = ["gtc", "s3d"]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum JobNames {
    /// A single name.
    One(String),
    /// A list of names.
    Many(Vec<String>),
}

impl JobNames {
    /// The names, in the order given.
    pub fn names(&self) -> &[String] {
        match self {
            JobNames::One(n) => std::slice::from_ref(n),
            JobNames::Many(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for JobNames {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> serde::de::Visitor<'de> for Names {
            type Value = JobNames;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a job name or a list of job names")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<JobNames, E> {
                Ok(JobNames::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<JobNames, A::Error> {
                let mut names = Vec::new();
                while let Some(n) = a.next_element::<String>()? {
                    names.push(n);
                }
                Ok(JobNames::Many(names))
            }
        }
        d.deserialize_any(Names)
    }
}

/// One `[[jobs.transforms]]` entry, applied in order.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "kebab-case")]
pub enum TransformSection {
    /// More ranks behaving like the existing ones.
    WeakScale {
        /// New rank count.
        ranks: u32,
    },
    /// Bytes per rank multiplied by `factor` (e.g. 0.5 or 2).
    StrongScale {
        /// Multiplier of every I/O size.
        factor: f64,
    },
    /// The job repeated `count` times, `interval` apart.
    Repeat {
        /// Iterations.
        count: u32,
        /// Gap between iterations.
        interval: Duration,
    },
    /// Consecutive small writes merged up to `size`.
    Collate {
        /// Largest merged write.
        size: Bytes,
    },
    /// Barriers around every I/O phase, over the whole job or groups of `group` ranks.
    Barriers {
        /// Ranks per sub-communicator (0 = the whole job).
        #[serde(default)]
        group: u32,
    },
}

/// `[[jobs]]`: one job.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSection {
    /// Name in reports (default: the preset or source name and the job index).
    #[serde(default)]
    pub name: Option<String>,
    /// Where the operations come from.
    pub source: JobSource,
    /// With `source = "preset"`: `gtc`, `lammps`, `s3d` or `hacc`.
    #[serde(default)]
    pub preset: Option<String>,
    /// Ranks (default: the application's).
    #[serde(default)]
    pub ranks: Option<u32>,
    /// Ranks per compute node.
    #[serde(default = "default_rpn")]
    pub ranks_per_node: u32,
    /// Submission (start) time.
    #[serde(default)]
    pub start: Duration,
    /// Node allocation policy.
    #[serde(default)]
    pub allocation: AllocationKind,
    /// Fragmented allocation: mean free-chunk size in nodes.
    #[serde(default = "default_chunk")]
    pub chunk_mean: f64,
    /// `allocation = "file"`: the CODES-format allocation file (relative to the scenario).
    #[serde(default)]
    pub allocation_file: Option<PathBuf>,
    /// `allocation = "file"`: which line (0-based; default the job's index).
    #[serde(default)]
    pub allocation_line: Option<usize>,
    /// `allocation = "next-to"`: the earlier job (or jobs) whose nodes this one takes the
    /// nearest free nodes to, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_to: Option<JobNames>,
    /// Bytes written per rank (presets, checkpoint).
    #[serde(default)]
    pub bytes_per_rank: Option<Bytes>,
    /// Transfer (request) size.
    #[serde(default)]
    pub transfer_size: Option<Bytes>,
    /// Compute time before the (first) I/O phase (presets; checkpoints use `period`).
    #[serde(default)]
    pub compute: Option<Duration>,
    /// I/O phases (S3D, HACC).
    #[serde(default)]
    pub phases: Option<u32>,
    /// LAMMPS: files each rank writes.
    #[serde(default)]
    pub files_per_rank: Option<u32>,
    /// IOR: block size per rank and segment.
    #[serde(default)]
    pub block_size: Option<Bytes>,
    /// IOR: segments.
    #[serde(default)]
    pub segments: Option<u32>,
    /// IOR, checkpoint: one file per process (else one shared file).
    #[serde(default)]
    pub file_per_process: Option<bool>,
    /// IOR: write phase.
    #[serde(default)]
    pub write: Option<bool>,
    /// IOR: read phase.
    #[serde(default)]
    pub read: Option<bool>,
    /// IOR: repetitions.
    #[serde(default)]
    pub repetitions: Option<u32>,
    /// Checkpoint: period between checkpoints.
    #[serde(default)]
    pub period: Option<Duration>,
    /// Checkpoint: number of checkpoints.
    #[serde(default)]
    pub checkpoints: Option<u32>,
    /// `source = "darshan"`: the log (relative to the scenario file).
    #[serde(default)]
    pub log: Option<PathBuf>,
    /// Transforms applied in order.
    #[serde(default)]
    pub transforms: Vec<TransformSection>,
    /// Burst-buffer reservation (DataWarp-style): at most this many bytes of the job in the BB
    /// servers its nodes stripe over, split evenly among them; writes beyond it stall or spill
    /// as `burst_buffer.full_policy` says. Grouped and global placements only.
    #[serde(default)]
    pub bb_capacity: Option<Bytes>,
    /// Bytes staged in from the PFS into the job's BB servers (split evenly) before it starts;
    /// the job starts when every server has its share. Grouped and global placements only.
    #[serde(default)]
    pub stage_in: Option<Bytes>,
    /// Names of jobs that must finish before this one starts (a workflow DAG). The job then
    /// starts at its `start` time or when its last parent finishes, whichever is later.
    #[serde(default)]
    pub after: Vec<String>,
    /// The persistent reservation (`[[reservations]]` name) whose namespace holds this job's
    /// files (needs `burst_buffer.grain`).
    #[serde(default)]
    pub reservation: Option<String>,
    /// `source = "analysis"`: the job whose files this one reads.
    #[serde(default)]
    pub inputs: Option<String>,
    /// `source = "analysis"`: run beside the producer and open each input as soon as the
    /// producer closed it (else start after the producer ends).
    #[serde(default)]
    pub in_transit: bool,
    /// `source = "analysis"`: output files written over the whole run.
    #[serde(default)]
    pub output_files: Option<u64>,
    /// `source = "analysis"`: bytes written over all output files.
    #[serde(default)]
    pub output_bytes: Option<Bytes>,
    /// Stage every file the job reads from the PFS into its reservation before it starts
    /// (needs `burst_buffer.grain` and a reservation).
    #[serde(default)]
    pub stage_in_inputs: bool,
    /// Client-side read cache per rank (0 or unset: none). Reads are served in
    /// `read_cache_block` blocks; a read whose blocks are all cached costs only a memory copy.
    #[serde(default)]
    pub read_cache: Option<Bytes>,
    /// Block size of the read cache.
    #[serde(default = "default_cache_block")]
    pub read_cache_block: Bytes,
    /// `source = "quota-user"`: the user's quota.
    #[serde(default)]
    pub quota: Option<Bytes>,
    /// `source = "quota-user"`: bytes per checkpoint file.
    #[serde(default)]
    pub checkpoint_bytes: Option<Bytes>,
    /// `source = "quota-user"`: bytes per plot file.
    #[serde(default)]
    pub plot_bytes: Option<Bytes>,
    /// `source = "quota-user"`: checkpoint periods.
    #[serde(default)]
    pub steps: Option<u32>,
    /// `source = "small-reads"`: bytes of each rank's input file.
    #[serde(default)]
    pub dataset_bytes: Option<Bytes>,
    /// `source = "small-reads"`: reads per rank.
    #[serde(default)]
    pub reads_per_rank: Option<u64>,
}

fn default_cache_block() -> Bytes {
    Bytes(64 * 1024)
}

fn default_rpn() -> u32 {
    6
}
fn default_chunk() -> f64 {
    8.0
}

/// Synthetic traffic patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrafficPattern {
    /// Every message to a uniformly random other node.
    UniformRandom,
    /// A fixed random permutation.
    RandomPermutation,
    /// Node `i` to node `i + 1`.
    NearestNeighbour,
    /// All nodes to `hot_spot`.
    HotSpot,
    /// Every node of dragonfly group `i` to group `i + 1`.
    DragonflyWorstCase,
}

/// `[traffic]`: synthetic traffic between compute nodes, run by `bbsim net`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSection {
    /// The pattern.
    pub pattern: TrafficPattern,
    /// Receiving node of the `hot-spot` pattern.
    #[serde(default)]
    pub hot_spot: u32,
    /// Message size.
    #[serde(default = "default_msg")]
    pub message_size: Bytes,
    /// Time between two messages of one node (0 sends `messages_per_node` at once).
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Messages per node (default: until `end`).
    #[serde(default)]
    pub messages_per_node: Option<u64>,
    /// No message is generated at or after this time.
    pub end: Duration,
}

fn default_msg() -> Bytes {
    Bytes(512)
}
fn default_interval() -> Duration {
    Duration(1_000_000)
}

/// `[outputs]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputsSection {
    /// Write `timeline.csv` (one row per I/O operation).
    #[serde(default = "yes")]
    pub timeline: bool,
    /// Write the SVG plots.
    #[serde(default = "yes")]
    pub plots: bool,
    /// A job's I/O phases (`io_phases` in `summary.json`) are split where none of its ranks
    /// has I/O in progress for longer than this. Must be positive.
    #[serde(default = "default_phase_gap")]
    pub phase_gap: Duration,
}

fn yes() -> bool {
    true
}
/// 60 s: longer than the gaps inside one I/O phase of the study's applications (S3D's 2 s
/// stagger between groups of writers, HACC's 1-40 s delays before each rank writes), shorter
/// than their computation between phases (120-900 s).
fn default_phase_gap() -> Duration {
    Duration(60_000_000_000_000)
}

impl Default for OutputsSection {
    fn default() -> Self {
        OutputsSection {
            timeline: true,
            plots: true,
            phase_gap: default_phase_gap(),
        }
    }
}
