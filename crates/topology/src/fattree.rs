//! Fat-trees (folded Clos networks) of 2 or 3 levels built from radix-`k` switches, with any
//! number of terminals up to the full tree and an optional taper of the edge layer's up-links.
//!
//! Structure (`half = k / 2`, `up = half / taper`):
//! - 3 levels: pods of `half` edge switches and `up` aggregation switches; every edge switch has
//!   `half` terminal ports and one up-link to each aggregation switch of its pod; aggregation
//!   switch `j` of every pod has `half` up-links to core switches `j * half .. (j + 1) * half`;
//!   there are `up * half` core switches with one link per pod. The full tree has `k` pods and
//!   `k^3 / 4` terminals.
//! - 2 levels: leaf switches with `half` terminal ports and one up-link to each of `up` spine
//!   switches; at most `k` leaves (`k^2 / 2` terminals).
//!
//! Router ids: edge (leaf) switches first, then aggregation switches pod by pod, then core
//! switches (2 levels: leaves, then spines). Terminal `t` sits on edge switch `t / half`.

use crate::attach::{attach_extras, ExtraGroup, ExtraTerminals, Hosts, Placement};
use crate::error::{at_least, ExtraParam, FatTreeParam, NetError, NetParam};
use crate::graph::{Builder, Wiring};
use crate::link::{LinkClass, LinkParams};
use bbsim_engine::time::NS;
use serde::{Deserialize, Serialize};

fn one() -> u32 {
    1
}

/// Parameters of a fat-tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FatTreeConfig {
    /// Number of switch levels: 2 (leaf-spine) or 3 (edge-aggregation-core).
    pub levels: u8,
    /// Switch radix `k` (ports per switch), even and >= 4.
    pub radix: u32,
    /// Compute terminals, filled into edge switches in order (`k / 2` per edge switch).
    pub terminals: u32,
    /// Taper ratio of the edge layer: 1 for full bisection, 2 for 2:1 (half the up-links), ...
    /// Must divide `k / 2`.
    #[serde(default = "one")]
    pub taper: u32,
    /// Terminal links (bytes/s, ps).
    pub terminal: LinkParams,
    /// Switch-to-switch links (bytes/s, ps).
    pub link: LinkParams,
}

impl FatTreeConfig {
    /// The Summit-like fat-tree of the reference study: 3 levels, radix 36, 270 edge switches,
    /// 4,860 terminals, 25 GB/s links, 100 ns link latency.
    pub fn summit() -> Self {
        FatTreeConfig {
            levels: 3,
            radix: 36,
            terminals: 4_860,
            taper: 1,
            terminal: LinkParams::new(25_000_000_000, 100 * NS),
            link: LinkParams::new(25_000_000_000, 100 * NS),
        }
    }

    /// The Summit-like fat-tree with a 2:1 taper (half the edge up-links).
    pub fn summit_tapered() -> Self {
        FatTreeConfig {
            taper: 2,
            ..Self::summit()
        }
    }

    /// Terminals per edge switch (`k / 2`).
    pub fn half(&self) -> u32 {
        self.radix / 2
    }

    /// Edge up-links (`k / 2 / taper`).
    pub fn up(&self) -> u32 {
        self.half() / self.taper.max(1)
    }

    /// Largest number of edge switches the tree can have (`k` pods of `k / 2` for 3 levels,
    /// `k` leaves for 2 levels).
    pub fn max_edges(&self) -> u32 {
        if self.levels == 2 {
            self.radix
        } else {
            self.radix * self.half()
        }
    }

    /// Checks the parameters, naming the first bad one.
    pub fn validate(&self) -> Result<(), NetError> {
        if self.levels != 2 && self.levels != 3 {
            return Err(NetError::invalid(
                NetParam::FatTree(FatTreeParam::Levels),
                "2 or 3",
                self.levels,
            ));
        }
        if self.radix < 4 || self.radix % 2 != 0 {
            return Err(NetError::invalid(
                NetParam::FatTree(FatTreeParam::Radix),
                "an even number >= 4",
                self.radix,
            ));
        }
        if self.radix > 4096 {
            return Err(NetError::invalid(
                NetParam::FatTree(FatTreeParam::Radix),
                "at most 4096",
                self.radix,
            ));
        }
        if self.taper == 0 || self.half() % self.taper != 0 {
            return Err(NetError::invalid(
                NetParam::FatTree(FatTreeParam::Taper),
                format!(
                    "a divisor of radix/2 = {} (1 = full bisection, 2 = 2:1, ...)",
                    self.half()
                ),
                self.taper,
            ));
        }
        at_least(
            NetParam::FatTree(FatTreeParam::Terminals),
            u64::from(self.terminals),
            1,
        )?;
        let capacity = u64::from(self.max_edges()) * u64::from(self.half());
        if u64::from(self.terminals) > capacity {
            return Err(NetError::invalid(
                NetParam::FatTree(FatTreeParam::Terminals),
                format!(
                    "at most {capacity} for a {}-level tree of radix {} ({})",
                    self.levels,
                    self.radix,
                    if self.levels == 3 { "k^3/4" } else { "k^2/2" }
                ),
                self.terminals,
            ));
        }
        self.terminal
            .validate(|l| NetParam::FatTree(FatTreeParam::TerminalLink(l)))?;
        self.link
            .validate(|l| NetParam::FatTree(FatTreeParam::Link(l)))
    }
}

/// The resolved shape of a fat-tree, used by routing and metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FatTreeShape {
    /// 2 or 3.
    pub levels: u8,
    /// Switch radix `k`.
    pub radix: u32,
    /// `k / 2`: terminal ports per edge switch, edge switches per pod, core up-links per
    /// aggregation switch.
    pub half: u32,
    /// Up-links per edge switch (aggregation switches per pod, or spines).
    pub up: u32,
    /// Edge (leaf) switches, including dedicated ones and padding.
    pub edges: u32,
    /// Pods (3 levels; for 2 levels equals `edges`).
    pub pods: u32,
    /// First aggregation (3 levels) or spine (2 levels) router id.
    pub agg_base: u32,
    /// First core router id (3 levels; equals the router count for 2 levels).
    pub core_base: u32,
    /// Total routers.
    pub routers: u32,
}

/// Which layer a fat-tree router is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FatTreeLevel {
    /// Edge (leaf) switch.
    Edge,
    /// Aggregation switch (3 levels) or spine (2 levels).
    Agg,
    /// Core switch (3 levels only).
    Core,
}

impl FatTreeShape {
    /// The shape of the tree `cfg` with `edges` edge (leaf) switches: 3 levels add the pods'
    /// aggregation switches and `up * half` core switches; 2 levels add `up` spines.
    pub fn new(cfg: &FatTreeConfig, edges: u32) -> Self {
        let (half, up, k) = (cfg.half(), cfg.up(), cfg.radix);
        if cfg.levels == 3 {
            let pods = edges.div_ceil(half);
            let agg_base = edges;
            let core_base = agg_base + pods * up;
            FatTreeShape {
                levels: 3,
                radix: k,
                half,
                up,
                edges,
                pods,
                agg_base,
                core_base,
                routers: core_base + up * half,
            }
        } else {
            FatTreeShape {
                levels: 2,
                radix: k,
                half,
                up,
                edges,
                pods: edges,
                agg_base: edges,
                core_base: edges + up,
                routers: edges + up,
            }
        }
    }

    /// Switch-to-switch links: `up` up-links per edge switch, and (3 levels) `half` up-links
    /// per aggregation switch.
    pub fn router_links(&self) -> u64 {
        let edge_up = u64::from(self.edges) * u64::from(self.up);
        if self.levels == 3 {
            edge_up + u64::from(self.pods) * u64::from(self.up) * u64::from(self.half)
        } else {
            edge_up
        }
    }

    /// The layer of router `r`.
    #[inline]
    pub fn level(&self, r: u32) -> FatTreeLevel {
        if r < self.agg_base {
            FatTreeLevel::Edge
        } else if r < self.core_base {
            FatTreeLevel::Agg
        } else {
            FatTreeLevel::Core
        }
    }

    /// The pod of an edge switch (3 levels), or the leaf itself (2 levels).
    #[inline]
    pub fn pod_of_edge(&self, e: u32) -> u32 {
        if self.levels == 3 {
            e / self.half
        } else {
            e
        }
    }

    /// Cluster hint of router `r`: its pod (core switches spread over pods).
    pub fn cluster(&self, r: u32) -> u32 {
        match self.level(r) {
            FatTreeLevel::Edge => self.pod_of_edge(r),
            FatTreeLevel::Agg if self.levels == 3 => (r - self.agg_base) / self.up,
            FatTreeLevel::Agg => (r - self.agg_base) % self.pods,
            FatTreeLevel::Core => (r - self.core_base) % self.pods,
        }
    }

    /// Routers traversed on a minimal route between terminals on edge switches `a` and `b`.
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        if a == b {
            1
        } else if self.levels == 3 && self.pod_of_edge(a) == self.pod_of_edge(b) {
            3
        } else if self.levels == 3 {
            5
        } else {
            3
        }
    }
}

/// Builds a fat-tree with extra terminals. Returns the wiring, shape, compute terminal count,
/// extra groups and per-router cluster hints.
pub(crate) fn build(
    cfg: &FatTreeConfig,
    extras: &[ExtraTerminals],
) -> Result<(Wiring, FatTreeShape, u32, Vec<ExtraGroup>), NetError> {
    cfg.validate()?;
    let (half, up, k) = (cfg.half(), cfg.up(), cfg.radix);
    let compute_edges = cfg.terminals.div_ceil(half);
    // Plan the edge switches: compute edges, then dedicated ones in placement order.
    let mut reserved: Vec<Option<usize>> = vec![None; compute_edges as usize];
    for (idx, extra) in extras.iter().enumerate() {
        match &extra.placement {
            Placement::Dedicated { routers, .. } => {
                reserved.extend(std::iter::repeat_n(Some(idx), *routers as usize));
            }
            Placement::DedicatedGroups { groups, .. } if cfg.levels == 3 => {
                let pad = (half - reserved.len() as u32 % half) % half;
                reserved.extend(std::iter::repeat_n(None, pad as usize));
                reserved.extend(std::iter::repeat_n(Some(idx), (*groups * half) as usize));
            }
            Placement::DedicatedGroups { groups, .. } => {
                reserved.extend(std::iter::repeat_n(Some(idx), *groups as usize));
            }
            _ => {}
        }
        if reserved.len() > cfg.max_edges() as usize {
            return Err(NetError::invalid(
                NetParam::Extra(extra.name.clone(), ExtraParam::Placement),
                format!(
                    "room in the tree: radix {} holds at most {} edge switches, compute and \
                     dedicated placements need {}",
                    k,
                    cfg.max_edges(),
                    reserved.len()
                ),
                format!("{:?}", extra.placement),
            ));
        }
    }
    let edges = reserved.len() as u32;
    let shape = FatTreeShape::new(cfg, edges);
    let mut b = Builder::new(shape.routers);
    for e in 0..edges {
        b.reserve(e, half);
        b.reserve(e, up);
    }
    if shape.levels == 3 {
        for a in shape.agg_base..shape.core_base {
            b.reserve(a, half); // down to the pod's edge switches
            b.reserve(a, half); // up to core switches
        }
        for c in shape.core_base..shape.routers {
            b.reserve(c, shape.pods);
        }
        for e in 0..edges {
            let (pod, i) = (e / half, e % half);
            for j in 0..up {
                let agg = shape.agg_base + pod * up + j;
                b.connect(
                    e,
                    (half + j) as u16,
                    agg,
                    i as u16,
                    LinkClass::EdgeAgg,
                    cfg.link,
                );
            }
        }
        for pod in 0..shape.pods {
            for j in 0..up {
                let agg = shape.agg_base + pod * up + j;
                for m in 0..half {
                    let core = shape.core_base + j * half + m;
                    b.connect(
                        agg,
                        (half + m) as u16,
                        core,
                        pod as u16,
                        LinkClass::AggCore,
                        cfg.link,
                    );
                }
            }
        }
    } else {
        for s in shape.agg_base..shape.routers {
            b.reserve(s, edges);
        }
        for e in 0..edges {
            for j in 0..up {
                b.connect(
                    e,
                    (half + j) as u16,
                    shape.agg_base + j,
                    e as u16,
                    LinkClass::EdgeAgg,
                    cfg.link,
                );
            }
        }
    }
    for t in 0..cfg.terminals {
        b.attach(t / half, (t % half) as u16, cfg.terminal);
    }
    let compute: Vec<u32> = (0..edges)
        .map(|e| cfg.terminals.saturating_sub(e * half).min(half))
        .collect();
    let group = (0..edges).map(|e| shape.pod_of_edge(e)).collect();
    let mut hosts = Hosts::new((0..edges).collect(), compute, Some(group));
    hosts.reserved_for = reserved;
    let groups = attach_extras(&mut b, &mut hosts, extras, cfg.terminal, |_| 0..half as u16)?;
    Ok((b.finish(), shape, cfg.terminals, groups))
}
