//! The burst buffer's storage: the SSD (and its FTL), the BB server around it, and its drain
//! to the PFS, as configurations of the storage crate.
//!
//! Adding an SSD model: its parameters in `bbsim-storage` ([`SsdConfig`]), its keys in the
//! schema's `[burst_buffer.ssd]` section, and their mapping in [`ssd_config`] here; the storage
//! crate's errors name a typed field ([`SsdField`], [`BbServerField`], ...), which [`ssd_key`]
//! and its siblings turn into the scenario key (a new field does not compile until it has one).

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{Placement, Scenario};
use crate::units::Bandwidth;
use crate::units::{format_bytes, human_bytes};
use bbsim_storage::client_gate::{ClientLimits, FsClients};
use bbsim_storage::ssd::{FtlConfig, Precondition};
use bbsim_storage::{
    BbServerConfig, BbServerField, DataWarpField, DrainConfig, DrainField, FtlField, PfsField,
    SsdConfig, SsdField, StagingConfig, StripeField,
};

/// The most BB servers one file is striped over.
pub const MAX_STRIPE_COUNT: u32 = 64;

/// The FTL mapping table's memory limit over all SSDs of a design (bytes).
const FTL_MEMORY_LIMIT: u64 = 16 << 30;

/// The burst buffer's storage: a BB server configuration (grouped, global) or a node-local
/// SSD configuration, or neither (`none`).
pub struct BbStorage {
    /// Configuration of each BB server (grouped, global).
    pub server: Option<BbServerConfig>,
    /// Configuration of each compute node's SSD (node-local).
    pub local_ssd: Option<SsdConfig>,
}

/// The storage of `placement` with `servers` BB servers (grouped, global) or `compute_nodes`
/// node-local SSDs.
pub fn bb_storage(
    s: &Scenario,
    map: &SourceMap,
    servers: usize,
    compute_nodes: u32,
) -> Result<BbStorage, Diagnostic> {
    let s = &*crate::lower::ssd_preset::apply(s, map)?;
    let bb = &s.burst_buffer;
    let devices = match bb.placement {
        Placement::NodeLocal => u64::from(compute_nodes),
        Placement::Grouped | Placement::Global => servers as u64 * u64::from(bb.ssds_per_server),
        Placement::None => 1,
    };
    let ssd = ssd_config(s, map, devices.max(1))?;
    let storage = match bb.placement {
        Placement::None => BbStorage {
            server: None,
            local_ssd: None,
        },
        Placement::NodeLocal => BbStorage {
            server: None,
            local_ssd: Some(ssd),
        },
        Placement::Grouped | Placement::Global => BbStorage {
            server: Some(bb_server(s, map, ssd, servers)?),
            local_ssd: None,
        },
    };
    if bb.stripe_count == 0 {
        return Err(map.error_at("burst_buffer.stripe_count", "must be at least 1"));
    }
    Ok(storage)
}

/// The compute nodes' file-system clients: the burst-buffer (DataWarp/DVS) client's and the
/// PFS (Lustre) client's bandwidth (bytes/s) and requests in flight; unset keys limit nothing,
/// and zero is refused.
pub fn client_limits(s: &Scenario, map: &SourceMap) -> Result<FsClients, Diagnostic> {
    let limits = |section: &str, bandwidth: Option<Bandwidth>, requests: Option<u32>| {
        let positive = |key: &str, value: u64| {
            if value == 0 {
                Err(map.error_at(
                    &format!("{section}.{key}"),
                    "must be positive (leave it unset for no limit)",
                ))
            } else {
                Ok(value)
            }
        };
        Ok(ClientLimits {
            bandwidth: bandwidth
                .map(|b| positive("client_bandwidth", b.0))
                .transpose()?,
            max_requests: requests
                .map(|r| positive("client_requests", u64::from(r)).map(|_| r))
                .transpose()?,
        })
    };
    let (bb, pfs) = (&s.burst_buffer, &s.pfs);
    Ok(FsClients {
        burst_buffer: limits("burst_buffer", bb.client_bandwidth, bb.client_requests)?,
        pfs: limits("pfs", pfs.client_bandwidth, pfs.client_requests)?,
    })
}

/// One BB server of `servers`: its SSDs, striping unit, request handling, staging buffer,
/// full policy and drain.
fn bb_server(
    s: &Scenario,
    map: &SourceMap,
    ssd: SsdConfig,
    servers: usize,
) -> Result<BbServerConfig, Diagnostic> {
    let bb = &s.burst_buffer;
    if bb.stripe_count as usize > servers {
        return Err(map.error_at(
            "burst_buffer.stripe_count",
            format!(
                "stripe_count {} is larger than the {} BB servers this placement creates",
                bb.stripe_count, servers
            ),
        ));
    }
    if bb.stripe_count > MAX_STRIPE_COUNT {
        return Err(map.error_at("burst_buffer.stripe_count", "at most 64 servers per stripe"));
    }
    let cfg = BbServerConfig {
        ssd,
        ssds: bb.ssds_per_server,
        unit: bb.stripe_size.0,
        chunk_units: ssd_chunk_units(s, map)?,
        ssd_model: bb.ssd_model,
        threads: bb.request_threads,
        request_overhead: bb.request_overhead.0,
        staging: (bb.staging_buffer.0 > 0).then_some(StagingConfig {
            capacity: bb.staging_buffer.0,
            bandwidth: bb.staging_bandwidth.0,
        }),
        full_policy: bb.full_policy,
        drain: drain_config(s),
    };
    cfg.validate()
        .map_err(|e| map.error_at(bb_server_key(e.field), e.message()))?;
    Ok(cfg)
}

/// The scenario key that sets a BB server field.
pub fn bb_server_key(field: BbServerField) -> &'static str {
    match field {
        BbServerField::Ssd(f) => ssd_key(f),
        BbServerField::Ssds => "burst_buffer.ssds_per_server",
        BbServerField::Unit => "burst_buffer.stripe_size",
        BbServerField::ChunkUnits => "burst_buffer.ssd_chunk",
        BbServerField::SsdModel => "burst_buffer.ssd_model",
        BbServerField::Threads => "burst_buffer.request_threads",
        BbServerField::StagingCapacity => "burst_buffer.staging_buffer",
        BbServerField::StagingBandwidth => "burst_buffer.staging_bandwidth",
        BbServerField::Drain(f) => drain_key(f),
        BbServerField::PfsTargets => "pfs.io_nodes",
    }
}

/// The scenario key that sets an SSD field (`[burst_buffer.ssd]`, `[burst_buffer.ftl]`; an
/// SSD array pools a server's `ssds_per_server` drives; size bins have no key of their own).
pub fn ssd_key(field: SsdField) -> &'static str {
    match field {
        SsdField::Capacity => "burst_buffer.ssd.capacity",
        SsdField::ReadBandwidth => "burst_buffer.ssd.read_bandwidth",
        SsdField::WriteBandwidth => "burst_buffer.ssd.write_bandwidth",
        SsdField::Channels => "burst_buffer.ssd.channels",
        SsdField::Drives => "burst_buffer.ssds_per_server",
        SsdField::SizeBin(..) => "burst_buffer.ssd",
        SsdField::Ftl(f) => ftl_key(f),
    }
}

/// The scenario key that sets an FTL field (`gc_threshold` sets the free-block threshold,
/// `placement` the number of streams).
fn ftl_key(field: FtlField) -> &'static str {
    match field {
        FtlField::PageSize => "burst_buffer.ftl.page_size",
        FtlField::PagesPerBlock => "burst_buffer.ftl.pages_per_block",
        FtlField::SpareFactor => "burst_buffer.ftl.over_provisioning",
        FtlField::GcFreeBlocks => "burst_buffer.ftl.gc_threshold",
        FtlField::MaxStreams => "burst_buffer.ftl.placement",
    }
}

/// The scenario key that sets a drain field (the drain must evict when a full BB stalls
/// writers: `full_policy` decides).
fn drain_key(field: DrainField) -> &'static str {
    match field {
        DrainField::Bandwidth => "burst_buffer.drain.bandwidth",
        DrainField::MaxOutstanding => "burst_buffer.drain",
        DrainField::Threshold => "burst_buffer.drain.threshold",
        DrainField::Evict => "burst_buffer.full_policy",
    }
}

/// The scenario key that sets a PFS field (files are striped over every PFS server).
pub fn pfs_key(field: PfsField) -> &'static str {
    match field {
        PfsField::Servers => "pfs.servers",
        PfsField::StripeCount => "pfs.stripe_count",
        PfsField::FileStripeCounts => "jobs.pfs_stripe_count",
        PfsField::ServerBandwidth => "pfs.server_bandwidth",
        PfsField::AggregateBandwidth => "pfs.aggregate_bandwidth",
        PfsField::StripeSize => "pfs.stripe_size",
        PfsField::MetadataLatency => "pfs.metadata_latency",
        PfsField::MetadataThreads => "pfs.metadata_threads",
    }
}

/// The scenario key that sets a BB stripe field (the servers to stripe over come from the
/// placement).
pub fn stripe_key(field: StripeField) -> &'static str {
    match field {
        StripeField::StripeCount => "burst_buffer.stripe_count",
        StripeField::StripeSize => "burst_buffer.stripe_size",
        StripeField::Servers => "burst_buffer.placement",
    }
}

/// The scenario key that sets a DataWarp field; the capacity is the one asked for at
/// `capacity_key` (a job's or a persistent reservation's).
pub fn datawarp_key(field: DataWarpField, capacity_key: &str) -> &str {
    match field {
        DataWarpField::Grain => "burst_buffer.grain",
        DataWarpField::StripeSize => "burst_buffer.stripe_size",
        DataWarpField::Capacity => capacity_key,
    }
}

/// Stripe units per SSD chunk in a BB server (`burst_buffer.ssd_chunk` / `stripe_size`; 1 when
/// unset). A chunk must be a whole, non-zero multiple of the stripe unit.
fn ssd_chunk_units(s: &Scenario, map: &SourceMap) -> Result<u32, Diagnostic> {
    let bb = &s.burst_buffer;
    let unit = bb.stripe_size.0;
    let Some(chunk) = bb.ssd_chunk else {
        return Ok(1);
    };
    if unit == 0 {
        // The server's own validation reports `burst_buffer.stripe_size`.
        return Ok(1);
    }
    if chunk.0 == 0 || chunk.0 % unit != 0 {
        return Err(map.error_at(
            "burst_buffer.ssd_chunk",
            format!(
                "must be a whole multiple of the stripe unit (burst_buffer.stripe_size = {}), not {}",
                format_bytes(unit),
                format_bytes(chunk.0)
            ),
        ));
    }
    u32::try_from(chunk.0 / unit).map_err(|_| {
        map.error_at(
            "burst_buffer.ssd_chunk",
            "at most 2^32 - 1 stripe units per chunk",
        )
    })
}

/// The BB server's data mover (`[burst_buffer.drain]`).
fn drain_config(s: &Scenario) -> DrainConfig {
    let d = &s.burst_buffer.drain;
    DrainConfig {
        policy: d.policy,
        threshold: d.threshold,
        bandwidth: d.bandwidth.0,
        ..DrainConfig::default()
    }
}

/// The FTL of each SSD (`[burst_buffer.ftl]`), or `None` when it is off.
fn ftl_config(s: &Scenario, map: &SourceMap) -> Result<Option<FtlConfig>, Diagnostic> {
    let d = &s.burst_buffer.ssd;
    let f = &s.burst_buffer.ftl;
    if !f.enabled {
        return Ok(None);
    }
    if !(0.0..1.0).contains(&f.over_provisioning) {
        return Err(map.error_at("burst_buffer.ftl.over_provisioning", "must be in [0, 1)"));
    }
    if !(0.0..1.0).contains(&f.gc_threshold) {
        return Err(map.error_at("burst_buffer.ftl.gc_threshold", "must be in [0, 1)"));
    }
    let blocks = d.capacity.0 / f.page_size.0.max(1) / u64::from(f.pages_per_block.max(1));
    let gc_free = ((blocks as f64 * f.gc_threshold).ceil() as u32).max(2);
    Ok(Some(FtlConfig {
        page_size: f.page_size.0,
        pages_per_block: f.pages_per_block,
        spare_factor: f.over_provisioning,
        gc_free_blocks: gc_free,
        streams: f.placement,
        max_streams: 16,
        precondition: if f.precondition {
            Precondition::Steady {
                overwrite_passes: 2,
                seed: s.simulation.seed,
            }
        } else {
            Precondition::Fresh
        },
        ..FtlConfig::default()
    }))
}

/// Refuses designs whose FTL mapping tables (about 8 bytes per mapping unit) over all
/// `devices` SSDs would not fit in memory.
fn check_ftl_memory(s: &Scenario, map: &SourceMap, devices: u64) -> Result<(), Diagnostic> {
    let d = &s.burst_buffer.ssd;
    let f = &s.burst_buffer.ftl;
    if !f.enabled {
        return Ok(());
    }
    let units = d.capacity.0 / f.page_size.0.max(1);
    let bytes = units.saturating_mul(8).saturating_mul(devices);
    if bytes > FTL_MEMORY_LIMIT {
        return Err(map.error_at(
            "burst_buffer.ftl.page_size",
            format!(
                "the FTL would need about {} of memory ({} mapping units of {} per SSD, {} SSDs); use a larger page_size",
                human_bytes(bytes),
                units,
                format_bytes(f.page_size.0),
                devices
            ),
        ));
    }
    Ok(())
}

/// The SSD configuration; `devices` is the number of SSDs in the design (for the FTL memory
/// check).
fn ssd_config(s: &Scenario, map: &SourceMap, devices: u64) -> Result<SsdConfig, Diagnostic> {
    let d = &s.burst_buffer.ssd;
    let ftl = ftl_config(s, map)?;
    check_ftl_memory(s, map, devices)?;
    let cfg = SsdConfig {
        capacity: d.capacity.0,
        read_bandwidth: d.read_bandwidth.0,
        write_bandwidth: d.write_bandwidth.0,
        op_overhead: d.op_overhead.0,
        access_latency: d.access_latency.0,
        channels: d.channels,
        ftl,
        ..SsdConfig::default()
    };
    cfg.validate()
        .map_err(|e| map.error_at(ssd_key(e.field), e.message()))?;
    Ok(cfg)
}
