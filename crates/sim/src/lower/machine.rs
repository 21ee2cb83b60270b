//! The machine a scenario describes: the network (with BB servers and PFS I/O nodes attached
//! where the placement asks) and the storage configurations, all validated, with errors that
//! name scenario keys.

use crate::diag::{Diagnostic, SourceMap};
use crate::lower::network::{compute_network, model_options, net_error};
use crate::lower::pfs::pfs_config;
use crate::lower::placement::{bb_servers, pfs_io_nodes, BB_EXTRA, PFS_EXTRA};
use crate::lower::storage::bb_storage;
use crate::scenario::{Placement, Scenario};
use crate::units::{human_bandwidth, human_bytes};
use bbsim_storage::{BbServerConfig, PfsConfig, SsdConfig};
use bbsim_topology::attach::compute_fabric;
use bbsim_topology::network::Network;
use serde::Serialize;

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
    /// Extent locks at the PFS I/O nodes (`pfs.extent_locks`).
    pub pfs_locks: Option<bbsim_storage::LockConfig>,
    /// Extent locks at the BB servers (`burst_buffer.extent_locks`).
    pub bb_locks: Option<bbsim_storage::LockConfig>,
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

/// Checks the keys that are not the network's or the storage's but must hold before either is
/// built: prices, end time, I/O nodes.
fn check_run_keys(s: &Scenario, map: &SourceMap) -> Result<(), Diagnostic> {
    if let Some(k) = s.cost.invalid_key() {
        return Err(map.error_at(&format!("cost.{k}"), "must be a number >= 0"));
    }
    if s.simulation.end_time.is_some_and(|d| d.0 == 0) {
        return Err(map.error_at(
            "simulation.end_time",
            "must be > 0 (leave it out to run until every job is done)",
        ));
    }
    if s.pfs.io_nodes == 0 {
        return Err(map.error_at("pfs.io_nodes", "must be at least 1"));
    }
    Ok(())
}

/// Routers and links of the machine without its BB servers (for the cost of what the
/// placement adds): the compute fabric's, plus one terminal link per compute node and PFS I/O
/// node (I/O nodes attach to routers that host compute nodes).
fn base_counts(network: &Network, compute_nodes: u32, io_nodes: u32) -> (u32, u64) {
    let (routers, router_links) = compute_fabric(network.topology());
    let links = router_links + u64::from(compute_nodes) + u64::from(io_nodes);
    (routers, links)
}

/// Builds and validates the machine of a scenario: the network is built once, with its BB
/// servers and PFS I/O nodes.
pub fn build_machine(s: &Scenario, map: &SourceMap) -> Result<Machine, Diagnostic> {
    let mut cfg = compute_network(s, map)?;
    let bb_extra = bb_servers(s, map, &cfg.topology)?;
    check_run_keys(s, map)?;
    model_options(&s.network, map, &mut cfg)?;
    cfg.extras = bb_extra.into_iter().chain([pfs_io_nodes(s)]).collect();
    let network = Network::build(&cfg).map_err(|e| net_error(map, e))?;
    let compute_nodes = network.topology().compute_terminals().len() as u32;
    let group = |name: &str| -> Vec<u32> {
        network
            .topology()
            .extra(name)
            .map(|g| g.collect())
            .unwrap_or_default()
    };
    let bb_terminals = group(BB_EXTRA);
    let io_terminals = group(PFS_EXTRA);
    let (base_routers, base_links) = base_counts(&network, compute_nodes, s.pfs.io_nodes);
    let storage = bb_storage(s, map, bb_terminals.len(), compute_nodes)?;
    let pfs = pfs_config(s, map)?;
    let (pfs_locks, bb_locks) = super::locks::lock_configs(s, map)?;
    Ok(Machine {
        network,
        compute_nodes,
        bb_terminals,
        io_terminals,
        bb_server: storage.server,
        local_ssd: storage.local_ssd,
        local_ssds: s.burst_buffer.ssds_per_server,
        pfs,
        pfs_locks,
        bb_locks,
        placement: s.burst_buffer.placement,
        base_routers,
        base_links,
    })
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
            placement: self.placement.name().to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::load;
    use crate::lower::placement::pfs_io_nodes;
    use std::path::Path;

    /// The base counts derived from the compute network equal those of the network built
    /// with the PFS I/O nodes and without BB servers, on every topology family and placement.
    #[test]
    fn base_counts_equal_the_network_without_bb_servers() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/data");
        let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let files = [
            data.join("tiny-fattree.toml"),
            data.join("tiny-dragonfly.toml"),
            data.join("tiny-aries.toml"),
            data.join("tiny-torus.toml"),
            scenarios.join("quickstart.toml"),
            scenarios.join("summit-tapered-global.toml"),
        ];
        let mut checked = 0;
        for f in &files {
            for placement in ["none", "node-local", "grouped", "global"] {
                let mut sets = vec![format!("burst_buffer.placement={placement}")];
                if placement == "global" {
                    sets.push("burst_buffer.servers=4".into());
                    sets.push("burst_buffer.servers_per_router=2".into());
                }
                let Ok((s, map)) = load::<Scenario>(f, &sets) else {
                    continue;
                };
                let Ok(m) = build_machine(&s, &map) else {
                    continue;
                };
                let mut base_cfg = m.network.config().clone();
                base_cfg.extras = vec![pfs_io_nodes(&s)];
                let base = Network::build(&base_cfg).expect("the machine without BB servers");
                let links = base.topology().wiring().router_links()
                    + u64::from(base.topology().terminals());
                assert_eq!(
                    (m.base_routers, m.base_links),
                    (base.routers(), links),
                    "{} with placement {placement}",
                    f.display()
                );
                checked += 1;
            }
        }
        assert!(checked >= 12, "only {checked} machines were checked");
    }
}
