//! The machine a scenario describes: the network (with BB servers and PFS I/O nodes attached
//! where the placement asks) and the storage configurations, all validated, with errors that
//! name scenario keys.

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{
    DrainPolicyKind, FullPolicyKind, Placement, RoutingKind, Scenario, StreamMode, TopologyKind,
};
use crate::units::{format_bytes, human_bandwidth, human_bytes};
use bbsim_engine::time::US;
use bbsim_engine::Time;
use bbsim_storage::ssd::{FtlConfig, Precondition, StreamMode as FtlStreams};
use bbsim_storage::{
    BbServerConfig, DrainConfig, DrainPolicy, FullPolicy, PfsConfig, SsdConfig, StagingConfig,
};
use bbsim_topology::aries::AriesConfig;
use bbsim_topology::attach::{ExtraTerminals, Placement as Attach};
use bbsim_topology::dragonfly::DragonflyConfig;
use bbsim_topology::fattree::FatTreeConfig;
use bbsim_topology::link::LinkParams;
use bbsim_topology::network::{Network, NetworkConfig, MAX_PACKET_SIZE};
use bbsim_topology::routing::Routing;
use bbsim_topology::topology::TopologyConfig;
use bbsim_topology::torus::TorusConfig;
use bbsim_topology::NetError;
use serde::Serialize;

/// Name of the BB-server extra terminals.
pub const BB_EXTRA: &str = "bb";
/// Name of the PFS I/O-node extra terminals.
pub const PFS_EXTRA: &str = "pfs";

/// Latency between a PFS I/O node and the storage servers behind it (the I/O node to backend
/// channel; also its lookahead).
pub const PFS_FORWARD_LATENCY: Time = US;

/// The validated machine.
#[derive(Clone, Debug)]
pub struct Machine {
    /// The network, extra terminals included.
    pub network: Network,
    /// Compute nodes (terminals `0..compute_nodes`).
    pub compute_nodes: u32,
    /// Terminal ids of the BB servers (empty unless grouped or global).
    pub bb_terminals: Vec<u32>,
    /// Terminal ids of the PFS I/O nodes.
    pub io_terminals: Vec<u32>,
    /// Configuration of each BB server (grouped, global) or of the node-local storage.
    pub bb_server: Option<BbServerConfig>,
    /// Node-local SSD configuration (node-local placement).
    pub local_ssd: Option<SsdConfig>,
    /// SSDs per compute node (node-local placement).
    pub local_ssds: u32,
    /// The PFS.
    pub pfs: PfsConfig,
    /// Placement.
    pub placement: Placement,
    /// Routers of the same network without burst-buffer servers (for the cost model).
    pub base_routers: u32,
    /// Links of the same network without burst-buffer servers.
    pub base_links: u64,
}

/// What `bbsim validate` prints about a machine.
#[derive(Clone, Debug, Serialize)]
pub struct MachineSummary {
    /// Topology description.
    pub topology: String,
    /// Routing algorithm.
    pub routing: String,
    /// Compute nodes.
    pub compute_nodes: u32,
    /// Routers.
    pub routers: u32,
    /// Links (router-router and terminal links).
    pub links: u64,
    /// Network diameter in router hops.
    pub diameter: u32,
    /// Bisection bandwidth, bytes per second.
    pub bisection_bandwidth: u64,
    /// Burst-buffer placement.
    pub placement: String,
    /// BB servers (node-local: compute nodes with SSDs).
    pub bb_servers: u32,
    /// SSDs in the burst buffer, in total.
    pub bb_ssds: u64,
    /// Aggregate BB write bandwidth, bytes per second.
    pub bb_write_bandwidth: u64,
    /// Aggregate BB read bandwidth, bytes per second.
    pub bb_read_bandwidth: u64,
    /// Aggregate BB capacity, bytes.
    pub bb_capacity: u64,
    /// PFS I/O nodes.
    pub pfs_io_nodes: u32,
    /// Aggregate PFS bandwidth, bytes per second.
    pub pfs_bandwidth: u64,
}

impl MachineSummary {
    /// The human-readable form printed by `bbsim validate`.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let mut line = |k: &str, v: String| s.push_str(&format!("  {k:<24} {v}\n"));
        line("topology", self.topology.clone());
        line("routing", self.routing.clone());
        line("compute nodes", self.compute_nodes.to_string());
        line("routers", self.routers.to_string());
        line("links", self.links.to_string());
        line("diameter (router hops)", self.diameter.to_string());
        line(
            "bisection bandwidth",
            human_bandwidth(self.bisection_bandwidth as f64),
        );
        line("burst-buffer placement", self.placement.clone());
        line("BB servers", self.bb_servers.to_string());
        line("BB SSDs", self.bb_ssds.to_string());
        line(
            "BB write bandwidth",
            human_bandwidth(self.bb_write_bandwidth as f64),
        );
        line(
            "BB read bandwidth",
            human_bandwidth(self.bb_read_bandwidth as f64),
        );
        line("BB capacity", human_bytes(self.bb_capacity));
        line("PFS I/O nodes", self.pfs_io_nodes.to_string());
        line("PFS bandwidth", human_bandwidth(self.pfs_bandwidth as f64));
        s
    }
}

fn need(map: &SourceMap, v: Option<u32>, key: &str, topo: &str) -> Result<u32, Diagnostic> {
    v.ok_or_else(|| {
        map.error_at(
            &format!("network.{key}"),
            format!("topology = \"{topo}\" needs `{key}`"),
        )
    })
}

/// Maps a topology-crate parameter name to the scenario key that sets it.
fn scenario_key(param: &str) -> String {
    let last = param.rsplit('.').next().unwrap_or(param);
    let key = match last {
        "radix" | "levels" | "taper" | "rows" | "dims" | "groups" | "routing" | "vcs" => last,
        "terminals" => "nodes",
        "a" => "routers_per_group",
        "p" | "terminals_per_router" => "terminals_per_router",
        "h" => "global_links_per_router",
        "g" => "groups",
        "cols" => "columns",
        "packet_size" => return "simulation.packet_size".into(),
        "buffer_packets" => return "network.vc_buffer".into(),
        _ => {
            if param.contains("bb") {
                return "burst_buffer.placement".into();
            }
            if param.contains("pfs") {
                return "pfs.io_nodes".into();
            }
            return "network".into();
        }
    };
    format!("network.{key}")
}

fn net_error(map: &SourceMap, e: NetError) -> Diagnostic {
    match &e {
        NetError::Invalid { param, .. } => map.error_at(&scenario_key(param), e.to_string()),
        _ => map.error_at("network", e.to_string()),
    }
}

fn link(bw: u64, latency: Time) -> LinkParams {
    LinkParams {
        bandwidth: bw,
        latency,
    }
}

/// Builds and validates the machine of a scenario.
pub fn build_machine(s: &Scenario, map: &SourceMap) -> Result<Machine, Diagnostic> {
    let n = &s.network;
    let lat = n.link_latency.0;
    if lat == 0 {
        return Err(map.error_at(
            "network.link_latency",
            "must be > 0 (it is the lookahead of the parallel engine)",
        ));
    }
    for (k, v) in [
        ("network.link_bandwidth", Some(n.link_bandwidth.0)),
        (
            "network.terminal_bandwidth",
            n.terminal_bandwidth.map(|b| b.0),
        ),
        ("network.local_bandwidth", n.local_bandwidth.map(|b| b.0)),
        ("network.global_bandwidth", n.global_bandwidth.map(|b| b.0)),
    ] {
        if v == Some(0) {
            return Err(map.error_at(k, "must be > 0"));
        }
    }
    let term = link(n.terminal_bandwidth.unwrap_or(n.link_bandwidth).0, lat);
    let local = link(n.local_bandwidth.unwrap_or(n.link_bandwidth).0, lat);
    let global = link(n.global_bandwidth.unwrap_or(n.link_bandwidth).0, lat);
    let not_for = |keys: &[(&str, bool)], topo: &str| -> Result<(), Diagnostic> {
        for (k, present) in keys {
            if *present {
                return Err(map.error_at(
                    &format!("network.{k}"),
                    format!("`{k}` does not apply to topology = \"{topo}\""),
                ));
            }
        }
        Ok(())
    };
    let (topology, name) = match n.topology {
        TopologyKind::FatTree => {
            not_for(
                &[
                    ("routers_per_group", n.routers_per_group.is_some()),
                    (
                        "global_links_per_router",
                        n.global_links_per_router.is_some(),
                    ),
                    ("rows", n.rows.is_some()),
                    ("columns", n.columns.is_some()),
                    ("dims", n.dims.is_some()),
                    ("groups", n.groups.is_some()),
                    ("terminals_per_router", n.terminals_per_router.is_some()),
                ],
                "fat-tree",
            )?;
            let levels = n.levels.unwrap_or(3);
            let radix = need(map, n.radix, "radix", "fat-tree")?;
            let full = if levels == 2 {
                u64::from(radix) * u64::from(radix) / 2
            } else {
                u64::from(radix).pow(3) / 4
            };
            let nodes = n.nodes.unwrap_or(u32::try_from(full).unwrap_or(u32::MAX));
            (
                TopologyConfig::FatTree(FatTreeConfig {
                    levels: u8::try_from(levels).unwrap_or(u8::MAX),
                    radix,
                    terminals: nodes,
                    taper: n.taper.unwrap_or(1),
                    terminal: term,
                    link: local,
                }),
                "fat-tree",
            )
        }
        TopologyKind::Dragonfly => {
            not_for(
                &[
                    ("levels", n.levels.is_some()),
                    ("radix", n.radix.is_some()),
                    ("taper", n.taper.is_some()),
                    ("rows", n.rows.is_some()),
                    ("columns", n.columns.is_some()),
                    ("dims", n.dims.is_some()),
                ],
                "dragonfly",
            )?;
            (
                TopologyConfig::Dragonfly(DragonflyConfig {
                    a: need(map, n.routers_per_group, "routers_per_group", "dragonfly")?,
                    p: need(
                        map,
                        n.terminals_per_router,
                        "terminals_per_router",
                        "dragonfly",
                    )?,
                    h: need(
                        map,
                        n.global_links_per_router,
                        "global_links_per_router",
                        "dragonfly",
                    )?,
                    g: need(map, n.groups, "groups", "dragonfly")?,
                    terminals: n.nodes,
                    terminal: term,
                    local,
                    global,
                }),
                "dragonfly",
            )
        }
        TopologyKind::Aries => {
            not_for(
                &[
                    ("levels", n.levels.is_some()),
                    ("radix", n.radix.is_some()),
                    ("taper", n.taper.is_some()),
                    ("routers_per_group", n.routers_per_group.is_some()),
                    ("dims", n.dims.is_some()),
                ],
                "aries",
            )?;
            (
                TopologyConfig::Aries(AriesConfig {
                    rows: need(map, n.rows, "rows", "aries")?,
                    cols: need(map, n.columns, "columns", "aries")?,
                    terminals_per_router: n.terminals_per_router.unwrap_or(4),
                    h: need(
                        map,
                        n.global_links_per_router,
                        "global_links_per_router",
                        "aries",
                    )?,
                    groups: need(map, n.groups, "groups", "aries")?,
                    terminals: n.nodes,
                    terminal: term,
                    local,
                    global,
                }),
                "aries",
            )
        }
        TopologyKind::Torus => {
            not_for(
                &[
                    ("levels", n.levels.is_some()),
                    ("radix", n.radix.is_some()),
                    ("taper", n.taper.is_some()),
                    ("routers_per_group", n.routers_per_group.is_some()),
                    (
                        "global_links_per_router",
                        n.global_links_per_router.is_some(),
                    ),
                    ("rows", n.rows.is_some()),
                    ("columns", n.columns.is_some()),
                    ("groups", n.groups.is_some()),
                ],
                "torus",
            )?;
            let dims = n.dims.clone().ok_or_else(|| {
                map.error_at(
                    "network.dims",
                    "topology = \"torus\" needs `dims`, e.g. [8, 8, 8]",
                )
            })?;
            (
                TopologyConfig::Torus(TorusConfig {
                    dims,
                    terminals_per_router: n.terminals_per_router.unwrap_or(1),
                    terminals: n.nodes,
                    terminal: term,
                    link: local,
                }),
                "torus",
            )
        }
    };
    let routing = match (n.topology, n.routing) {
        (TopologyKind::FatTree, None) => Routing::Adaptive,
        (TopologyKind::Dragonfly | TopologyKind::Aries, None) => Routing::Ugal,
        (TopologyKind::Torus, None) => Routing::DimensionOrder,
        (TopologyKind::Dragonfly | TopologyKind::Aries, Some(RoutingKind::Adaptive)) => {
            Routing::Ugal
        }
        (_, Some(r)) => match r {
            RoutingKind::Deterministic => Routing::Deterministic,
            RoutingKind::Adaptive => Routing::Adaptive,
            RoutingKind::Minimal => Routing::Minimal,
            RoutingKind::Valiant => Routing::Valiant,
            RoutingKind::Ugal => Routing::Ugal,
            RoutingKind::DimensionOrder => Routing::DimensionOrder,
        },
    };
    let packet = s.simulation.packet_size.0;
    if packet == 0 || packet > u64::from(bbsim_topology::MAX_PACKET_SIZE) {
        return Err(map.error_at(
            "simulation.packet_size",
            format!(
                "must be between 1B and 64MiB (67108864B), got {}",
                format_bytes(packet)
            ),
        ));
    }
    let packet = packet as u32;
    let vc_buffer = n.effective_vc_buffer(u64::from(packet));
    let buffer_packets = u32::try_from(vc_buffer.0.div_ceil(u64::from(packet)).max(1))
        .map_err(|_| map.error_at("network.vc_buffer", "is too large"))?;
    if vc_buffer.0 < u64::from(packet) {
        return Err(map.error_at(
            "network.vc_buffer",
            format!(
                "must hold at least one packet ({}), got {}",
                format_bytes(u64::from(packet)),
                format_bytes(vc_buffer.0)
            ),
        ));
    }

    // Extra terminals: BB servers and PFS I/O nodes.
    let bb = &s.burst_buffer;
    let mut extras = Vec::new();
    match bb.placement {
        Placement::Grouped => {
            if bb.servers.is_some() || bb.servers_per_router.is_some() {
                return Err(map.error_at(
                    if bb.servers.is_some() { "burst_buffer.servers" } else { "burst_buffer.servers_per_router" },
                    "placement = \"grouped\" places one server per `routers_per_server` routers; `servers` and `servers_per_router` apply to placement = \"global\"",
                ));
            }
            let every = bb.routers_per_server.unwrap_or(match n.topology {
                TopologyKind::Dragonfly | TopologyKind::Aries => 2,
                _ => 1,
            });
            if every == 0 {
                return Err(map.error_at("burst_buffer.routers_per_server", "must be at least 1"));
            }
            extras.push(ExtraTerminals {
                name: BB_EXTRA.into(),
                placement: Attach::PerRouter { every, count: 1 },
                link: None,
            });
        }
        Placement::Global => {
            if bb.routers_per_server.is_some() {
                return Err(map.error_at(
                    "burst_buffer.routers_per_server",
                    "applies to placement = \"grouped\"; use `servers` and `servers_per_router` for global",
                ));
            }
            let servers = bb.servers.ok_or_else(|| {
                map.error_at(
                    "burst_buffer.servers",
                    "placement = \"global\" needs `servers` (the number of BB servers)",
                )
            })?;
            let per = bb
                .servers_per_router
                .unwrap_or(match (&topology, n.topology) {
                    (TopologyConfig::FatTree(c), _) => (c.radix / 2).max(1),
                    (_, TopologyKind::Dragonfly | TopologyKind::Aries) => {
                        n.terminals_per_router.unwrap_or(4)
                    }
                    _ => 1,
                });
            if servers == 0 || per == 0 {
                return Err(map.error_at("burst_buffer.servers", "must be at least 1"));
            }
            if servers % per != 0 {
                return Err(map.error_at(
                    "burst_buffer.servers",
                    format!("{servers} servers do not fill whole dedicated routers of {per} servers each (servers_per_router)"),
                ));
            }
            extras.push(ExtraTerminals {
                name: BB_EXTRA.into(),
                placement: Attach::Dedicated {
                    routers: servers / per,
                    per_router: per,
                },
                link: None,
            });
        }
        // `none` is the PFS-only baseline of any scenario: its server keys are ignored.
        Placement::None => {}
        Placement::NodeLocal => {
            for (k, present) in [
                ("servers", bb.servers.is_some()),
                ("servers_per_router", bb.servers_per_router.is_some()),
                ("routers_per_server", bb.routers_per_server.is_some()),
            ] {
                if present {
                    return Err(map.error_at(
                        &format!("burst_buffer.{k}"),
                        "applies only to placement = \"grouped\" or \"global\"",
                    ));
                }
            }
        }
    }
    if let Some(k) = s.cost.invalid_key() {
        return Err(map.error_at(&format!("cost.{k}"), "must be a number >= 0"));
    }
    if s.simulation.end_time.is_some_and(|d| d.0 == 0) {
        return Err(map.error_at(
            "simulation.end_time",
            "must be > 0 (leave it out to run until every job is done)",
        ));
    }
    let pfs = &s.pfs;
    if pfs.io_nodes == 0 {
        return Err(map.error_at("pfs.io_nodes", "must be at least 1"));
    }
    // I/O nodes are spread over the routers that host compute nodes.
    let mut probe_cfg = NetworkConfig::new(topology.clone(), routing);
    probe_cfg.packet_size = packet;
    probe_cfg.buffer_packets = buffer_packets;
    let probe = Network::build(&probe_cfg).map_err(|e| net_error(map, e))?;
    let compute_nodes = probe.terminals();
    let probe_topo = probe.topology();
    let mut hosts: Vec<u32> = probe_topo
        .compute_terminals()
        .filter_map(|t| probe_topo.router_of(t))
        .collect();
    hosts.dedup();
    if hosts.is_empty() {
        return Err(map.error_at("network", "the topology has no routers with compute nodes"));
    }
    let io_routers: Vec<u32> = (0..pfs.io_nodes as usize)
        .map(|i| hosts[i * hosts.len() / pfs.io_nodes as usize])
        .collect();
    extras.push(ExtraTerminals {
        name: PFS_EXTRA.into(),
        placement: Attach::Routers {
            routers: io_routers,
            per_router: 1,
        },
        link: None,
    });
    let mut cfg = NetworkConfig::new(topology, routing);
    cfg.packet_size = packet;
    cfg.buffer_packets = buffer_packets;
    cfg.router_delay = n.router_delay.0;
    cfg.model = n.model;
    if let Some(w) = n.flow_window {
        if n.model != bbsim_topology::NetModel::Flow {
            return Err(map.error_at(
                "network.flow_window",
                "applies to the flow model only (set network.model = \"flow\" or remove it)",
            ));
        }
        if !(1..=bbsim_topology::MAX_FLOW_WINDOW).contains(&w) {
            return Err(map.error_at(
                "network.flow_window",
                "must be 1 to 64 packets per terminal",
            ));
        }
        cfg.flow_window = w;
    }
    if let Some(j) = n.flow_jitter {
        if n.model != bbsim_topology::NetModel::Flow {
            return Err(map.error_at(
                "network.flow_jitter",
                "applies to the flow model only (set network.model = \"flow\" or remove it)",
            ));
        }
        let max = f64::from(bbsim_topology::MAX_FLOW_JITTER_PPM) / 1e6;
        if !(j.is_finite() && (0.0..=max).contains(&j)) {
            return Err(map.error_at(
                "network.flow_jitter",
                format!("must be a fraction from 0 to {max} of a flow's share, got {j}"),
            ));
        }
        cfg.flow_jitter_ppm = (j * 1e6).round() as u32;
    }
    cfg.bypass_max = match n.bypass_max {
        Some(b) => Some(
            u32::try_from(b.0)
                .ok()
                .filter(|&v| v <= MAX_PACKET_SIZE)
                .ok_or_else(|| map.error_at("network.bypass_max", "must be at most 64MiB"))?,
        ),
        None => None,
    };
    // The same network without BB servers, for the cost of what the placement adds.
    let mut base_cfg = cfg.clone();
    base_cfg.extras = extras
        .iter()
        .filter(|e| e.name != BB_EXTRA)
        .cloned()
        .collect();
    let base = Network::build(&base_cfg).map_err(|e| net_error(map, e))?;
    // Link counts only: the full summary would also search the base network's diameter.
    let base_topo = base.topology();
    let base_routers = base.routers();
    let base_links = base_topo.wiring().router_links() + u64::from(base_topo.terminals());
    cfg.extras = extras;
    let network = Network::build(&cfg).map_err(|e| net_error(map, e))?;
    let group = |name: &str| -> Vec<u32> {
        network
            .topology()
            .extra(name)
            .map(|g| g.collect())
            .unwrap_or_default()
    };
    let bb_terminals = group(BB_EXTRA);
    let io_terminals = group(PFS_EXTRA);
    let _ = name;

    // Storage configurations.
    let devices = match bb.placement {
        Placement::NodeLocal => u64::from(compute_nodes),
        Placement::Grouped | Placement::Global => {
            bb_terminals.len() as u64 * u64::from(bb.ssds_per_server)
        }
        Placement::None => 1,
    };
    let ssd = ssd_config(s, map, devices.max(1))?;
    let (bb_server, local_ssd) = match bb.placement {
        Placement::None => (None, None),
        Placement::NodeLocal => (None, Some(ssd)),
        Placement::Grouped | Placement::Global => {
            if bb.stripe_count as usize > bb_terminals.len() {
                return Err(map.error_at(
                    "burst_buffer.stripe_count",
                    format!(
                        "stripe_count {} is larger than the {} BB servers this placement creates",
                        bb.stripe_count,
                        bb_terminals.len()
                    ),
                ));
            }
            if bb.stripe_count > 64 {
                return Err(
                    map.error_at("burst_buffer.stripe_count", "at most 64 servers per stripe")
                );
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
                full_policy: match bb.full_policy {
                    FullPolicyKind::Stall => FullPolicy::Stall,
                    FullPolicyKind::Spill => FullPolicy::Spill,
                },
                drain: drain_config(s),
            };
            cfg.validate().map_err(|e| {
                map.error_at(
                    &format!("burst_buffer.{}", storage_key(&e.key)),
                    e.message.clone(),
                )
            })?;
            (Some(cfg), None)
        }
    };
    if bb.stripe_count == 0 {
        return Err(map.error_at("burst_buffer.stripe_count", "must be at least 1"));
    }
    let pfs_cfg = PfsConfig {
        servers: pfs.servers,
        server_bandwidth: pfs.server_bandwidth.0,
        aggregate_bandwidth: pfs.aggregate_bandwidth.map_or(
            u64::from(pfs.servers).saturating_mul(pfs.server_bandwidth.0),
            |b| b.0,
        ),
        request_latency: pfs.latency.0,
        stripe_size: pfs.stripe_size.0,
        stripe_count: pfs.servers,
        forward_latency: PFS_FORWARD_LATENCY,
    };
    pfs_cfg
        .validate()
        .map_err(|e| map.error_at(&format!("pfs.{}", storage_key(&e.key)), e.message.clone()))?;
    Ok(Machine {
        network,
        compute_nodes,
        bb_terminals,
        io_terminals,
        bb_server,
        local_ssd,
        local_ssds: bb.ssds_per_server,
        pfs: pfs_cfg,
        placement: bb.placement,
        base_routers,
        base_links,
    })
}

/// Maps a storage-crate key (`ssd.write_bandwidth`, `ssds`, `unit`) to the scenario key.
fn storage_key(key: &str) -> String {
    let k = key
        .trim_start_matches("burst_buffer.")
        .trim_start_matches("pfs.");
    match k {
        "ssds" => "ssds_per_server".into(),
        "unit" => "stripe_size".into(),
        "chunk_units" => "ssd_chunk".into(),
        "threads" => "request_threads".into(),
        "request_latency" => "latency".into(),
        "drain.policy.fill" | "drain.fill" => "drain.threshold".into(),
        other => other
            .replace("ftl.spare_factor", "ftl.over_provisioning")
            .replace("ftl.gc_free_blocks", "ftl.gc_threshold"),
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

fn drain_config(s: &Scenario) -> DrainConfig {
    let d = &s.burst_buffer.drain;
    DrainConfig {
        policy: match d.policy {
            DrainPolicyKind::None => DrainPolicy::Never,
            DrainPolicyKind::Immediate => DrainPolicy::Immediately,
            DrainPolicyKind::JobEnd => DrainPolicy::AtJobEnd,
            DrainPolicyKind::Threshold => DrainPolicy::AboveFill { fill: d.threshold },
        },
        bandwidth: d.bandwidth.0,
        ..DrainConfig::default()
    }
}

/// The SSD configuration; `devices` is the number of SSDs in the design (for the FTL memory
/// check).
fn ssd_config(s: &Scenario, map: &SourceMap, devices: u64) -> Result<SsdConfig, Diagnostic> {
    let d = &s.burst_buffer.ssd;
    let f = &s.burst_buffer.ftl;
    let ftl = if f.enabled {
        if !(0.0..1.0).contains(&f.over_provisioning) {
            return Err(map.error_at("burst_buffer.ftl.over_provisioning", "must be in [0, 1)"));
        }
        if !(0.0..1.0).contains(&f.gc_threshold) {
            return Err(map.error_at("burst_buffer.ftl.gc_threshold", "must be in [0, 1)"));
        }
        let blocks = d.capacity.0 / f.page_size.0.max(1) / u64::from(f.pages_per_block.max(1));
        let gc_free = ((blocks as f64 * f.gc_threshold).ceil() as u32).max(2);
        Some(FtlConfig {
            page_size: f.page_size.0,
            pages_per_block: f.pages_per_block,
            spare_factor: f.over_provisioning,
            gc_free_blocks: gc_free,
            streams: match f.placement {
                StreamMode::Legacy => FtlStreams::Legacy,
                StreamMode::MultiStream => FtlStreams::MultiStream { max_streams: 16 },
            },
            precondition: if f.precondition {
                Precondition::Steady {
                    overwrite_passes: 2,
                    seed: s.simulation.seed,
                }
            } else {
                Precondition::Fresh
            },
            ..FtlConfig::default()
        })
    } else {
        None
    };
    if f.enabled {
        // The FTL keeps about 8 bytes per mapping unit: refuse designs that cannot fit.
        let units = d.capacity.0 / f.page_size.0.max(1);
        let bytes = units.saturating_mul(8).saturating_mul(devices);
        if bytes > 16 << 30 {
            return Err(map.error_at(
                "burst_buffer.ftl.page_size",
                format!(
                    "the FTL would need about {} of memory ({} mapping units of {} per SSD, {} SSDs); use a larger page_size",
                    crate::units::human_bytes(bytes),
                    units,
                    format_bytes(f.page_size.0),
                    devices
                ),
            ));
        }
    }
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
    cfg.validate().map_err(|e| {
        let k = storage_key(&e.key);
        let key = if k.starts_with("ftl.") {
            format!("burst_buffer.{k}")
        } else {
            format!("burst_buffer.ssd.{}", k.trim_start_matches("ssd."))
        };
        map.error_at(&key, e.message.clone())
    })?;
    Ok(cfg)
}

impl Machine {
    /// The summary printed by `bbsim validate` and written into `summary.json`.
    pub fn summary(&self) -> MachineSummary {
        let topo = self.network.topology();
        let m = topo.summary();
        let (servers, ssds_each, ssd) = match (&self.bb_server, &self.local_ssd) {
            (Some(b), _) => (self.bb_terminals.len() as u32, b.ssds, Some(&b.ssd)),
            (None, Some(l)) => (self.compute_nodes, self.local_ssds, Some(l)),
            _ => (0, 0, None),
        };
        let ssds = u64::from(servers) * u64::from(ssds_each);
        MachineSummary {
            topology: self.network.config().topology.describe(),
            routing: self.network.config().routing.name().to_string(),
            compute_nodes: self.compute_nodes,
            routers: m.routers,
            links: m.router_links + m.terminal_links,
            diameter: m.diameter,
            bisection_bandwidth: m.bisection_bandwidth.round() as u64,
            placement: format!("{:?}", self.placement).to_lowercase(),
            bb_servers: servers,
            bb_ssds: ssds,
            bb_write_bandwidth: ssd.map_or(0, |d| d.write_bandwidth.saturating_mul(ssds)),
            bb_read_bandwidth: ssd.map_or(0, |d| d.read_bandwidth.saturating_mul(ssds)),
            bb_capacity: ssd.map_or(0, |d| d.capacity.saturating_mul(ssds)),
            pfs_io_nodes: self.io_terminals.len() as u32,
            pfs_bandwidth: self.pfs.aggregate_bandwidth,
        }
    }
}
