//! A built topology: wiring, shape, terminals (compute and extra), cluster hints, hop distances.

use crate::aries::AriesConfig;
use crate::attach::{ExtraGroup, ExtraTerminals};
use crate::dragonfly::{self, DragonflyConfig, DragonflyShape, HopTable};
use crate::error::NetError;
use crate::fattree::{self, FatTreeConfig, FatTreeShape};
use crate::graph::{Attachment, Port, Wiring};
use crate::metrics::{self, TopologySummary};
use crate::torus::{self, TorusConfig, TorusShape};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Which topology to build, with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TopologyConfig {
    /// A 2- or 3-level fat-tree.
    FatTree(FatTreeConfig),
    /// A canonical 1-D dragonfly.
    Dragonfly(DragonflyConfig),
    /// A Cray Cascade/Aries-style dragonfly.
    Aries(AriesConfig),
    /// An n-dimensional torus.
    Torus(TorusConfig),
}

impl TopologyConfig {
    /// A short description, e.g. `fat-tree(3 levels, k=36, 4860 terminals, taper 1:1)`.
    pub fn describe(&self) -> String {
        match self {
            TopologyConfig::FatTree(c) => format!(
                "fat-tree({} levels, k={}, {} terminals, taper {}:1)",
                c.levels, c.radix, c.terminals, c.taper
            ),
            TopologyConfig::Dragonfly(c) => {
                format!("dragonfly(a={}, p={}, h={}, g={})", c.a, c.p, c.h, c.g)
            }
            TopologyConfig::Aries(c) => format!(
                "aries({}x{} routers/group, {} terminals/router, h={}, {} groups)",
                c.rows, c.cols, c.terminals_per_router, c.h, c.groups
            ),
            TopologyConfig::Torus(c) => format!(
                "torus({}, {} terminals/router)",
                c.dims
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join("x"),
                c.terminals_per_router
            ),
        }
    }
}

/// The structure-specific part of a topology, used by routing and closed forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A fat-tree.
    FatTree(FatTreeShape),
    /// A dragonfly (canonical or Aries).
    Dragonfly(DragonflyShape),
    /// A torus.
    Torus(TorusShape),
}

/// A built interconnect: routers with ports, terminals attached to router ports, and the
/// metadata routing and storage placement need. Immutable once built; routers share it through
/// an `Arc`.
#[derive(Clone, Debug)]
pub struct Topology {
    config: TopologyConfig,
    wiring: Wiring,
    shape: Shape,
    compute: u32,
    extras: Vec<ExtraGroup>,
    cluster: Vec<u32>,
    /// The diameter, computed on first use (a breadth-first search from every router: about
    /// 0.15 s on a Cori-sized Aries, and summaries ask for it more than once per run).
    diameter: std::sync::OnceLock<u32>,
    /// Dragonflies: the minimal routes' router counts, built on first use (storage asks for
    /// the distance from every compute node to every BB server when it picks stripe sets).
    hop_table: std::sync::OnceLock<Option<HopTable>>,
}

impl Topology {
    /// Builds the topology described by `config` with the extra terminal sets `extras`
    /// (attached after the compute terminals, in order).
    pub fn build(config: &TopologyConfig, extras: &[ExtraTerminals]) -> Result<Self, NetError> {
        let (wiring, shape, compute, extras) = match config {
            TopologyConfig::FatTree(c) => {
                let (w, s, n, e) = fattree::build(c, extras)?;
                (w, Shape::FatTree(s), n, e)
            }
            TopologyConfig::Dragonfly(c) => {
                c.validate()?;
                let s = c.shape();
                let links = [c.terminal, c.local, c.local, c.global];
                let (w, n, e) = dragonfly::build_shape(&s, c.terminals, links, extras)?;
                (w, Shape::Dragonfly(s), n, e)
            }
            TopologyConfig::Aries(c) => {
                c.validate()?;
                let s = c.shape();
                let links = [c.terminal, c.local, c.local, c.global];
                let (w, n, e) = dragonfly::build_shape(&s, c.terminals, links, extras)?;
                (w, Shape::Dragonfly(s), n, e)
            }
            TopologyConfig::Torus(c) => {
                let (w, s, n, e) = torus::build(c, extras)?;
                (w, Shape::Torus(s), n, e)
            }
        };
        let cluster = (0..wiring.routers())
            .map(|r| match &shape {
                Shape::FatTree(s) => s.cluster(r),
                Shape::Dragonfly(s) => s.group(r),
                Shape::Torus(s) => s.cluster(r),
            })
            .collect();
        Ok(Topology {
            config: config.clone(),
            wiring,
            shape,
            compute,
            extras,
            cluster,
            diameter: std::sync::OnceLock::new(),
            hop_table: std::sync::OnceLock::new(),
        })
    }

    /// The configuration it was built from.
    pub fn config(&self) -> &TopologyConfig {
        &self.config
    }

    /// The structure-specific shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The wiring: port table, attachments and the petgraph view.
    pub fn wiring(&self) -> &Wiring {
        &self.wiring
    }

    /// Number of routers (switches).
    pub fn routers(&self) -> u32 {
        self.wiring.routers()
    }

    /// Number of terminals, compute and extra.
    pub fn terminals(&self) -> u32 {
        self.wiring.terminals.len() as u32
    }

    /// Compute terminal ids (`0..compute`).
    pub fn compute_terminals(&self) -> Range<u32> {
        0..self.compute
    }

    /// The extra terminal sets, in the order they were requested.
    pub fn extra_groups(&self) -> &[ExtraGroup] {
        &self.extras
    }

    /// The terminal ids of the extra set named `name`.
    pub fn extra(&self, name: &str) -> Option<Range<u32>> {
        self.extras
            .iter()
            .find(|g| g.name == name)
            .map(ExtraGroup::range)
    }

    /// Where terminal `t` is attached (`None` if there is no such terminal).
    pub fn attachment(&self, t: u32) -> Option<&Attachment> {
        self.wiring.terminals.get(t as usize)
    }

    /// The router of terminal `t` (`None` if there is no such terminal).
    pub fn router_of(&self, t: u32) -> Option<u32> {
        self.attachment(t).map(|a| a.router)
    }

    /// Router `r`'s ports.
    pub fn ports(&self, r: u32) -> &[Port] {
        self.wiring.router_ports(r)
    }

    /// Cluster hint of router `r` (its pod or group, or a slab of a torus).
    pub fn router_cluster(&self, r: u32) -> u32 {
        self.cluster[r as usize]
    }

    /// Cluster hint for the host LP owning terminal `t`: its router's cluster.
    pub fn terminal_cluster(&self, t: u32) -> u32 {
        self.cluster[self.wiring.terminals[t as usize].router as usize]
    }

    /// Routers traversed by a minimal route between terminals `a` and `b` (1 when both hang
    /// off one router; `None` if a terminal does not exist). Storage uses it to pick the
    /// nearest servers.
    pub fn hop_distance(&self, a: u32, b: u32) -> Option<u32> {
        let (ra, rb) = (self.router_of(a)?, self.router_of(b)?);
        Some(self.router_hops(ra, rb))
    }

    /// Routers traversed by a minimal route between routers `a` and `b` (both included).
    pub fn router_hops(&self, a: u32, b: u32) -> u32 {
        match &self.shape {
            Shape::FatTree(s) => s.hops(a, b),
            Shape::Dragonfly(s) => match self.hop_table.get_or_init(|| HopTable::new(s)) {
                Some(t) => t.hops(a, b),
                None => s.hops(a, b),
            },
            Shape::Torus(s) => s.hops(a, b),
        }
    }

    /// Graph diameter in router-to-router links between routers hosting terminals, computed
    /// once ([`metrics::diameter`]: a breadth-first search from 64 sources at a time; its cost
    /// grows with host routers / 64 x links x levels).
    pub fn diameter(&self) -> u32 {
        *self
            .diameter
            .get_or_init(|| metrics::diameter(&self.wiring))
    }

    /// Bisection bandwidth in bytes/s (one direction) from the closed form of the topology
    /// (see [`metrics::bisection_bandwidth`]).
    pub fn bisection_bandwidth(&self) -> f64 {
        metrics::bisection_bandwidth(self)
    }

    /// Routers, terminals, links, diameter and bisection bandwidth.
    pub fn summary(&self) -> TopologySummary {
        TopologySummary {
            name: self.config.describe(),
            routers: self.routers(),
            terminals: self.terminals(),
            compute_terminals: self.compute,
            extra_terminals: self.terminals() - self.compute,
            router_links: self.wiring.router_links(),
            terminal_links: u64::from(self.terminals()),
            diameter: self.diameter(),
            bisection_bandwidth: self.bisection_bandwidth(),
        }
    }
}
