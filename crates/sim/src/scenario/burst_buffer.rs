//! `[burst_buffer]` and its `ssd`, `ftl` and `drain` subsections, and `[[reservations]]`.

use super::*;

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
    /// Lustre-style extent locks per stripe at the BB servers: a client writing a stripe last
    /// held by another client waits for the lock's revocation (`storage::extent_lock`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub extent_locks: bool,
    /// With `extent_locks`: the time to revoke another client's lock and grant it (default
    /// 50 us).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_revocation: Option<Duration>,
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
    pub full_policy: FullPolicy,
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
    /// Each compute node's burst-buffer client (DataWarp's DVS client): bandwidth of its
    /// requests to the BB servers (unset: only the NIC limits it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_bandwidth: Option<Bandwidth>,
    /// Each compute node's burst-buffer client: most requests to the BB servers in flight at
    /// once, over all of its ranks (unset: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_requests: Option<u32>,
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
            extent_locks: false,
            lock_revocation: None,
            ssd_chunk: None,
            ssd_model: bbsim_storage::SsdModel::PerSsd,
            request_threads: default_threads(),
            request_overhead: Duration(0),
            staging_buffer: Bytes(0),
            staging_bandwidth: default_staging_bw(),
            full_policy: FullPolicy::Stall,
            ssd: SsdSection::default(),
            ftl: FtlSection::default(),
            drain: DrainSection::default(),
            grain: None,
            access_mode: AccessMode::Striped,
            client_bandwidth: None,
            client_requests: None,
        }
    }
}

/// `[burst_buffer.ssd]`: one SSD (card).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsdSection {
    /// A datasheet preset (`bbsim_storage::ssd::preset`, e.g. `"intel-p3608"`) giving the
    /// defaults of this section's keys and of the FTL geometry; keys the scenario sets win.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// NVMe devices the host sees on one card (default 1, or the preset's): each of the
    /// `ssds_per_server` cards is that many devices, each with an even share of the card's
    /// capacity and bandwidths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices_per_card: Option<u32>,
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
            model: None,
            devices_per_card: None,
            write_bandwidth: default_ssd_write(),
            read_bandwidth: default_ssd_read(),
            op_overhead: Duration(0),
            access_latency: Duration(0),
            channels: default_channels(),
            capacity: default_ssd_capacity(),
        }
    }
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

/// `[burst_buffer.drain]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrainSection {
    /// When to drain.
    #[serde(default)]
    pub policy: DrainPolicy,
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
            policy: DrainPolicy::None,
            bandwidth: default_drain_bw(),
            threshold: default_drain_threshold(),
        }
    }
}
