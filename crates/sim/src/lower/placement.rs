//! Where the burst buffer and the PFS I/O nodes attach to the network: the extra terminals of
//! each placement.
//!
//! Adding a placement: a [`Placement`] variant in `bbsim-storage` (its name as the scenario
//! spells it), its keys in `scenario/`, and one arm in [`bb_servers`] here (plus, if its
//! servers are not network terminals, the storage lowering in `lower/storage.rs`).

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{Placement, Scenario, TopologyKind};
use bbsim_topology::attach::{dedicated_room, ExtraTerminals, Placement as Attach};
use bbsim_topology::topology::TopologyConfig;

/// Name of the BB-server extra terminals.
pub const BB_EXTRA: &str = "bb";
/// Name of the PFS I/O-node extra terminals.
pub const PFS_EXTRA: &str = "pfs";

/// The BB servers as extra terminals of the network (grouped: one per `routers_per_server`
/// routers; global: `servers` on dedicated routers of `servers_per_router`), or `None` when
/// the placement has no servers on the network. Keys of other placements are not read.
pub fn bb_servers(
    s: &Scenario,
    map: &SourceMap,
    topology: &TopologyConfig,
) -> Result<Option<ExtraTerminals>, Diagnostic> {
    let bb = &s.burst_buffer;
    match bb.placement {
        Placement::Grouped => grouped(s, map).map(Some),
        Placement::Global => global(s, map, topology).map(Some),
        // Their server keys are reported as unused (`lower::unused`), not read here.
        Placement::None | Placement::NodeLocal => Ok(None),
    }
}

/// Grouped servers: one under every `routers_per_server` routers (default 1; 2 on
/// dragonflies).
fn grouped(s: &Scenario, map: &SourceMap) -> Result<ExtraTerminals, Diagnostic> {
    let bb = &s.burst_buffer;
    let every = bb.routers_per_server.unwrap_or(match s.network.topology {
        TopologyKind::Dragonfly | TopologyKind::Aries => 2,
        _ => 1,
    });
    if every == 0 {
        return Err(map.error_at("burst_buffer.routers_per_server", "must be at least 1"));
    }
    Ok(ExtraTerminals {
        name: BB_EXTRA.into(),
        placement: Attach::PerRouter { every, count: 1 },
        link: None,
    })
}

/// Global servers: `servers` on dedicated routers, `servers_per_router` each (default: half
/// a fat-tree switch's ports, a dragonfly router's terminal ports, or 1). Without `servers`,
/// every router that hosts no compute node gets its `servers_per_router`.
fn global(
    s: &Scenario,
    map: &SourceMap,
    topology: &TopologyConfig,
) -> Result<ExtraTerminals, Diagnostic> {
    let bb = &s.burst_buffer;
    let n = &s.network;
    let per = bb
        .servers_per_router
        .unwrap_or(match (topology, n.topology) {
            (TopologyConfig::FatTree(c), _) => (c.radix / 2).max(1),
            (_, TopologyKind::Dragonfly | TopologyKind::Aries) => {
                n.terminals_per_router.unwrap_or(4)
            }
            _ => 1,
        });
    let servers =
        match bb.servers {
            Some(n) => n,
            // Unset: every router that hosts no compute node gets `per` servers.
            None => match dedicated_room(topology, per.max(1)) {
                0 => return Err(map.error_at(
                    "burst_buffer.servers",
                    "placement = \"global\" puts the BB servers on routers that host no compute \
                     node, and every router of this network hosts some: lower network.nodes or \
                     enlarge the network",
                )),
                free => free.saturating_mul(per),
            },
        };
    if servers == 0 || per == 0 {
        return Err(map.error_at("burst_buffer.servers", "must be at least 1"));
    }
    if servers % per != 0 {
        return Err(map.error_at(
            "burst_buffer.servers",
            format!("{servers} servers do not fill whole dedicated routers of {per} servers each (servers_per_router)"),
        ));
    }
    Ok(ExtraTerminals {
        name: BB_EXTRA.into(),
        placement: Attach::Dedicated {
            routers: servers / per,
            per_router: per,
        },
        link: None,
    })
}

/// The PFS I/O nodes (`pfs.io_nodes`), spread evenly over the routers that host compute nodes.
pub fn pfs_io_nodes(s: &Scenario) -> ExtraTerminals {
    ExtraTerminals {
        name: PFS_EXTRA.into(),
        placement: Attach::Spread {
            count: s.pfs.io_nodes,
        },
        link: None,
    }
}
