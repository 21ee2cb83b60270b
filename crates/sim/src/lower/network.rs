//! The network a scenario describes: topology and its shape, routing, links, packets, router
//! buffers and the network model's options, as a [`NetworkConfig`] of the topology crate.
//!
//! Adding a topology: give it a config in `bbsim-topology`, a [`TopologyKind`] variant in the
//! schema, and one arm in [`topology`] here; the topology crate names a bad parameter with a
//! typed [`NetParam`], which [`scenario_key`] turns into the scenario key.

use crate::diag::{Diagnostic, SourceMap};
use crate::lower::placement::{BB_EXTRA, PFS_EXTRA};
use crate::scenario::{NetworkSection, Scenario, TopologyKind};
use crate::units::format_bytes;
use bbsim_topology::aries::AriesConfig;
use bbsim_topology::dragonfly::DragonflyConfig;
use bbsim_topology::fattree::FatTreeConfig;
use bbsim_topology::link::LinkParams;
use bbsim_topology::network::{
    checked_unit_size, packet_size, NetworkConfig, MAX_HEADER_BYTES, MAX_PACKET_SIZE,
};
use bbsim_topology::routing::Routing;
use bbsim_topology::topology::TopologyConfig;
use bbsim_topology::torus::TorusConfig;
use bbsim_topology::{
    ExtraParam, FatTreeParam, GroupParam, LinkField, NetError, NetModel, NetParam, TorusParam,
    TrafficParam,
};

/// The link classes of a network: terminal (NIC) links, local and global router links.
struct Links {
    terminal: LinkParams,
    local: LinkParams,
    global: LinkParams,
}

/// Checks the bandwidths and the latency of `[network]` and makes the three link classes
/// (bandwidth in bytes/s, latency in ps; unset classes take `link_bandwidth`).
fn links(n: &NetworkSection, map: &SourceMap) -> Result<Links, Diagnostic> {
    let latency = n.link_latency.0;
    if latency == 0 {
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
    let link = |bandwidth: u64| LinkParams { bandwidth, latency };
    Ok(Links {
        terminal: link(n.terminal_bandwidth.unwrap_or(n.link_bandwidth).0),
        local: link(n.local_bandwidth.unwrap_or(n.link_bandwidth).0),
        global: link(n.global_bandwidth.unwrap_or(n.link_bandwidth).0),
    })
}

/// A shape key the topology needs.
fn need(map: &SourceMap, v: Option<u32>, key: &str, topo: &str) -> Result<u32, Diagnostic> {
    v.ok_or_else(|| {
        map.error_at(
            &format!("network.{key}"),
            format!("topology = \"{topo}\" needs `{key}`"),
        )
    })
}

/// The shape keys of `[network]` and whether each is set, in the order they are checked.
fn shape_keys(n: &NetworkSection) -> [(&'static str, bool); 11] {
    [
        ("levels", n.levels.is_some()),
        ("radix", n.radix.is_some()),
        ("taper", n.taper.is_some()),
        ("edge_switches", n.edge_switches.is_some()),
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
    ]
}

/// Refuses the shape keys that topology `topo` does not take (`accepted`).
fn only_keys(
    map: &SourceMap,
    n: &NetworkSection,
    topo: &str,
    accepted: &[&str],
) -> Result<(), Diagnostic> {
    match shape_keys(n)
        .into_iter()
        .find(|(k, present)| *present && !accepted.contains(k))
    {
        Some((k, _)) => Err(map.error_at(
            &format!("network.{k}"),
            format!("`{k}` does not apply to topology = \"{topo}\""),
        )),
        None => Ok(()),
    }
}

/// The topology of `[network]`, its shape keys checked.
fn topology(n: &NetworkSection, map: &SourceMap, l: &Links) -> Result<TopologyConfig, Diagnostic> {
    match n.topology {
        TopologyKind::FatTree => fat_tree(n, map, l),
        TopologyKind::Dragonfly => dragonfly(n, map, l),
        TopologyKind::Aries => aries(n, map, l),
        TopologyKind::Torus => torus(n, map, l),
    }
}

/// A 2- or 3-level fat-tree (`radix`, `levels`, `taper`, `nodes`, `edge_switches`).
fn fat_tree(n: &NetworkSection, map: &SourceMap, l: &Links) -> Result<TopologyConfig, Diagnostic> {
    only_keys(
        map,
        n,
        "fat-tree",
        &["levels", "radix", "taper", "edge_switches"],
    )?;
    let mut cfg = FatTreeConfig {
        levels: u8::try_from(n.levels.unwrap_or(3)).unwrap_or(u8::MAX),
        radix: need(map, n.radix, "radix", "fat-tree")?,
        terminals: 0,
        taper: n.taper.unwrap_or(1),
        terminal: l.terminal,
        link: l.local,
    };
    // By default every node port of the full tree holds a node.
    let full = u64::from(cfg.max_edges()) * u64::from(cfg.half());
    cfg.terminals = n.nodes.unwrap_or(u32::try_from(full).unwrap_or(u32::MAX));
    if let Some(edges) = n.edge_switches {
        cfg.terminals = nodes_on_edge_switches(map, n.nodes.is_some(), edges, &cfg)?;
    }
    Ok(TopologyConfig::FatTree(cfg))
}

/// The compute nodes of fat-tree `cfg` described by its edge switches that hold them
/// (`network.edge_switches`; each takes [`FatTreeConfig::half`] nodes, the tree filling them
/// from the first): `cfg.terminals` when `nodes` was given and fills exactly that many edge
/// switches, else every node port of those switches. Edge switches that hold only BB servers
/// or I/O nodes are not counted.
fn nodes_on_edge_switches(
    map: &SourceMap,
    nodes_given: bool,
    edges: u32,
    cfg: &FatTreeConfig,
) -> Result<u32, Diagnostic> {
    if cfg.validate().is_err() {
        // A tree the topology refuses (its radix, levels, taper or nodes): its own check,
        // which runs next, names the key.
        return Ok(cfg.terminals);
    }
    let per_edge = u64::from(cfg.half());
    let in_tree = cfg.max_edges();
    let radix = cfg.radix;
    let key = "network.edge_switches";
    if edges == 0 || edges > in_tree {
        return Err(map.error_at(
            key,
            format!(
                "edge_switches = {edges}: expected 1 to {in_tree}, the edge switches of the full \
                 tree of radix {radix}"
            ),
        ));
    }
    if !nodes_given {
        return Ok(u32::try_from(u64::from(edges) * per_edge).unwrap_or(u32::MAX));
    }
    let n = cfg.terminals;
    let filled = u64::from(n).div_ceil(per_edge);
    if filled == u64::from(edges) {
        Ok(n)
    } else {
        Err(map.error_at(
            key,
            format!(
                "edge_switches = {edges}, but nodes = {n} fill {filled} edge switches of \
                 {per_edge} node ports each (radix {radix}); make them agree, or leave one out"
            ),
        ))
    }
}

/// A canonical dragonfly (`routers_per_group` a, `terminals_per_router` p,
/// `global_links_per_router` h, `groups` g).
fn dragonfly(n: &NetworkSection, map: &SourceMap, l: &Links) -> Result<TopologyConfig, Diagnostic> {
    only_keys(
        map,
        n,
        "dragonfly",
        &[
            "routers_per_group",
            "terminals_per_router",
            "global_links_per_router",
            "groups",
        ],
    )?;
    Ok(TopologyConfig::Dragonfly(DragonflyConfig {
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
        terminal: l.terminal,
        local: l.local,
        global: l.global,
    }))
}

/// A Cray Cascade/Aries dragonfly (`rows` x `columns` routers per group).
fn aries(n: &NetworkSection, map: &SourceMap, l: &Links) -> Result<TopologyConfig, Diagnostic> {
    only_keys(
        map,
        n,
        "aries",
        &[
            "rows",
            "columns",
            "terminals_per_router",
            "global_links_per_router",
            "groups",
        ],
    )?;
    Ok(TopologyConfig::Aries(AriesConfig {
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
        terminal: l.terminal,
        local: l.local,
        global: l.global,
    }))
}

/// An n-dimensional torus (`dims`).
fn torus(n: &NetworkSection, map: &SourceMap, l: &Links) -> Result<TopologyConfig, Diagnostic> {
    only_keys(map, n, "torus", &["dims", "terminals_per_router"])?;
    let dims = n.dims.clone().ok_or_else(|| {
        map.error_at(
            "network.dims",
            "topology = \"torus\" needs `dims`, e.g. [8, 8, 8]",
        )
    })?;
    Ok(TopologyConfig::Torus(TorusConfig {
        dims,
        terminals_per_router: n.terminals_per_router.unwrap_or(1),
        terminals: n.nodes,
        terminal: l.terminal,
        link: l.local,
    }))
}

/// The routing algorithm: the scenario's, or the topology's default (adaptive up-ports on a
/// fat-tree, UGAL on dragonflies, dimension order on a torus). `adaptive` on a dragonfly is
/// UGAL.
pub fn routing(n: &NetworkSection) -> Routing {
    match (n.topology, n.routing) {
        (TopologyKind::FatTree, None) => Routing::Adaptive,
        (TopologyKind::Dragonfly | TopologyKind::Aries, None) => Routing::Ugal,
        (TopologyKind::Torus, None) => Routing::DimensionOrder,
        (TopologyKind::Dragonfly | TopologyKind::Aries, Some(Routing::Adaptive)) => Routing::Ugal,
        (_, Some(r)) => r,
    }
}

/// The packet size, the virtual-channel buffer and the unit size (bytes), checked against each
/// other: a buffer holds at least one packet; a unit is a whole number of packets.
fn packets(s: &Scenario, map: &SourceMap) -> Result<(u32, u32, Option<u32>), Diagnostic> {
    let packet = packet_size(s.simulation.packet_size.0).map_err(|e| net_error(map, e))?;
    let mut vc_buffer = s.network.effective_vc_buffer();
    if vc_buffer.0 < u64::from(packet) {
        if s.network.model != NetModel::Packet {
            // The path and flow models have no router buffers.
            vc_buffer.0 = u64::from(packet);
        } else {
            return Err(map.error_at(
                "network.vc_buffer",
                format!(
                    "must hold at least one packet ({}), got {} (the default is 64KiB \
                     whatever the packet size: set it for larger packets)",
                    format_bytes(u64::from(packet)),
                    format_bytes(vc_buffer.0),
                ),
            ));
        }
    }
    let vc_buffer = u32::try_from(vc_buffer.0)
        .ok()
        .filter(|&b| b <= u32::MAX - MAX_HEADER_BYTES)
        .ok_or_else(|| map.error_at("network.vc_buffer", "must be below 4GiB"))?;
    let unit = match s.simulation.unit_size {
        None => None,
        Some(u) => {
            packet_model_only(s.network.model, map, "simulation.unit_size")?;
            Some(checked_unit_size(packet, u.0).map_err(|e| net_error(map, e))?)
        }
    };
    Ok((packet, vc_buffer, unit))
}

/// Rejects `key`, set in the scenario, unless the network runs the packet model (the path and
/// flow models have no routers, buffers or units for it to act on).
fn packet_model_only(model: NetModel, map: &SourceMap, key: &str) -> Result<(), Diagnostic> {
    if model == NetModel::Packet {
        Ok(())
    } else {
        Err(map.error_at(
            key,
            "applies to the packet model only (network.model = \"packet\")",
        ))
    }
}

/// The compute network of a scenario, without extra terminals: topology, routing, packets,
/// units and buffers. Checks every key it reads.
pub fn compute_network(s: &Scenario, map: &SourceMap) -> Result<NetworkConfig, Diagnostic> {
    let n = &s.network;
    let links = links(n, map)?;
    let topology = topology(n, map, &links)?;
    let (packet, vc_buffer, unit) = packets(s, map)?;
    let mut cfg = NetworkConfig::new(topology, routing(n));
    cfg.packet_size = packet;
    cfg.vc_buffer = Some(vc_buffer);
    cfg.unit_size = unit;
    for (key, value, field) in [
        (
            "network.routing_block",
            n.routing_block,
            &mut cfg.routing_block,
        ),
        ("network.grant_block", n.grant_block, &mut cfg.grant_block),
        ("network.lane_block", n.lane_block, &mut cfg.lane_block),
        (
            "network.credit_batch",
            n.credit_batch,
            &mut cfg.credit_batch,
        ),
        ("network.min_part", n.min_part, &mut cfg.min_part),
    ] {
        let Some(b) = value else { continue };
        packet_model_only(n.model, map, key)?;
        if b.0 == 0 || b.0 > u64::from(u32::MAX / 2) {
            return Err(map.error_at(key, "must be 1B to 2GiB"));
        }
        *field = Some(b.0 as u32);
    }
    if let Some(spread) = n.unit_spread {
        packet_model_only(n.model, map, "network.unit_spread")?;
        cfg.unit_spread = spread;
    }
    Ok(cfg)
}

/// Sets the router delay and the network model's options (`model`, `flow_window`,
/// `flow_jitter`, `bypass_max`) on `cfg`.
pub fn model_options(
    n: &NetworkSection,
    map: &SourceMap,
    cfg: &mut NetworkConfig,
) -> Result<(), Diagnostic> {
    cfg.router_delay = n.router_delay.0;
    cfg.model = n.model;
    let flow_only = |key: &str| {
        map.error_at(
            key,
            "applies to the flow model only (set network.model = \"flow\" or remove it)",
        )
    };
    if let Some(w) = n.flow_window {
        if n.model != NetModel::Flow {
            return Err(flow_only("network.flow_window"));
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
        if n.model != NetModel::Flow {
            return Err(flow_only("network.flow_jitter"));
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
    Ok(())
}

/// The scenario key that sets a topology-crate parameter. Virtual channels follow from the
/// routing; the slowest link and the size of a dragonfly come from several keys, so they are
/// reported on `[network]`; the extra terminal sets are the BB servers and the PFS I/O nodes.
fn scenario_key(param: &NetParam) -> &'static str {
    match param {
        NetParam::FatTree(p) => match p {
            FatTreeParam::Levels => "network.levels",
            FatTreeParam::Radix => "network.radix",
            FatTreeParam::Taper => "network.taper",
            FatTreeParam::Terminals => "network.nodes",
            FatTreeParam::TerminalLink(l) => link_key(*l, "network.terminal_bandwidth"),
            FatTreeParam::Link(l) => link_key(*l, "network.link_bandwidth"),
        },
        NetParam::Dragonfly(p) | NetParam::Aries(p) => match p {
            GroupParam::RoutersPerGroup => "network.routers_per_group",
            GroupParam::Rows => "network.rows",
            GroupParam::Cols => "network.columns",
            GroupParam::TerminalsPerRouter => "network.terminals_per_router",
            GroupParam::GlobalLinks => "network.global_links_per_router",
            GroupParam::Groups => "network.groups",
            GroupParam::Terminals => "network.nodes",
            GroupParam::Size => "network",
            GroupParam::TerminalLink(l) => link_key(*l, "network.terminal_bandwidth"),
            GroupParam::LocalLink(l) => link_key(*l, "network.local_bandwidth"),
            GroupParam::GlobalLink(l) => link_key(*l, "network.global_bandwidth"),
        },
        NetParam::Torus(p) => match p {
            TorusParam::Dims | TorusParam::Dim(_) => "network.dims",
            TorusParam::TerminalsPerRouter => "network.terminals_per_router",
            TorusParam::Terminals => "network.nodes",
            TorusParam::TerminalLink(l) => link_key(*l, "network.terminal_bandwidth"),
            TorusParam::Link(l) => link_key(*l, "network.link_bandwidth"),
        },
        NetParam::Extra(name, p) => match p {
            ExtraParam::Name
            | ExtraParam::Placement
            | ExtraParam::Every
            | ExtraParam::Count
            | ExtraParam::Routers
            | ExtraParam::Groups
            | ExtraParam::PerRouter
            | ExtraParam::Ports
            | ExtraParam::Link(_) => match name.as_str() {
                BB_EXTRA => "burst_buffer.placement",
                PFS_EXTRA => "pfs.io_nodes",
                _ => "network",
            },
        },
        NetParam::Routing | NetParam::Vcs => "network.routing",
        NetParam::PacketSize => "simulation.packet_size",
        NetParam::BufferPackets | NetParam::VcBuffer => "network.vc_buffer",
        NetParam::UnitSize => "simulation.unit_size",
        NetParam::RoutingBlock => "network.routing_block",
        NetParam::GrantBlock => "network.grant_block",
        NetParam::LaneBlock => "network.lane_block",
        NetParam::MinPart => "network.min_part",
        NetParam::FlowWindow => "network.flow_window",
        NetParam::FlowJitterPpm => "network.flow_jitter",
        NetParam::LinkBandwidth => "network",
        NetParam::Traffic(p) => match p {
            TrafficParam::Terminals | TrafficParam::Terminal => "network.nodes",
            TrafficParam::End => "traffic.end",
            TrafficParam::MessagesPerNode => "traffic.messages_per_node",
            TrafficParam::HotSpot => "traffic.hot_spot",
            TrafficParam::Pattern => "traffic.pattern",
            TrafficParam::Shift => "traffic.shift",
            TrafficParam::Victim => "traffic.victim_from",
        },
    }
}

/// The key of a link field: `bandwidth` (the link class's bandwidth key) or the latency.
fn link_key(field: LinkField, bandwidth: &'static str) -> &'static str {
    match field {
        LinkField::Bandwidth => bandwidth,
        LinkField::Latency => "network.link_latency",
    }
}

/// A topology-crate error as a diagnostic on the scenario key that caused it.
pub fn net_error(map: &SourceMap, e: NetError) -> Diagnostic {
    match &e {
        NetError::Invalid { param, .. } => map.error_at(scenario_key(param), e.to_string()),
        NetError::Engine(_) => map.error_at("network", e.to_string()),
    }
}
