//! Extra terminals (burst-buffer servers, PFS I/O nodes) attached where a placement asks.
//!
//! Compute terminals always come first (ids `0..compute`); each [`ExtraTerminals`] entry then
//! adds a contiguous range of terminal ids, in the order the entries are given. Storage code
//! only names a placement; it never needs to know port numbers.

use crate::dragonfly::DragonflyShape;
use crate::error::{ExtraParam, NetError, NetParam};
use crate::fattree::FatTreeShape;
use crate::graph::Builder;
use crate::link::LinkParams;
use crate::topology::{Topology, TopologyConfig};
use serde::{Deserialize, Serialize};
use std::ops::Range;

fn one() -> u32 {
    1
}

/// Where to attach a set of extra terminals.
///
/// "Routers" are the routers that may host terminals: edge (leaf) switches of a fat-tree, every
/// router (blade) of a dragonfly, every router of a torus. "Groups" are fat-tree pods and
/// dragonfly groups.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Placement {
    /// `count` extra terminals on every `every`-th router that hosts compute terminals:
    /// "one per edge switch" is `every = 1, count = 1`; "one per 2 blades" is `every = 2`.
    PerRouter {
        /// Take every `every`-th compute router (>= 1).
        #[serde(default = "one")]
        every: u32,
        /// Extra terminals on each chosen router (>= 1).
        #[serde(default = "one")]
        count: u32,
    },
    /// `routers` routers that host no compute terminal, `per_router` extra terminals each
    /// ("dedicated edge switches", "dedicated blades"). A fat-tree grows new edge switches for
    /// them; a dragonfly or torus uses its routers without compute terminals, in id order.
    Dedicated {
        /// Number of dedicated routers (>= 1).
        routers: u32,
        /// Extra terminals per dedicated router (>= 1).
        per_router: u32,
    },
    /// Whole groups (dragonfly groups, fat-tree pods) that host no compute terminal,
    /// `per_router` extra terminals on each of their routers. A fat-tree grows new pods.
    DedicatedGroups {
        /// Number of dedicated groups (>= 1).
        groups: u32,
        /// Extra terminals per router of those groups (>= 1).
        per_router: u32,
    },
    /// `count` extra terminals spread evenly over the routers that host compute terminals, in
    /// router order: of `n` such routers, terminal `i` goes on the `(i * n / count)`-th (one
    /// router takes several when `count > n`). PFS I/O nodes use it.
    Spread {
        /// Extra terminals (>= 1).
        count: u32,
    },
    /// Explicit router ids, `per_router` extra terminals on each.
    Routers {
        /// Router ids (each must be a terminal-capable router).
        routers: Vec<u32>,
        /// Extra terminals per listed router (>= 1).
        per_router: u32,
    },
}

/// A named set of extra terminals to attach.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraTerminals {
    /// Name used to look the range up later (e.g. `bb` or `pfs`).
    pub name: String,
    /// Where the terminals go.
    pub placement: Placement,
    /// Their link to the router; `None` uses the topology's terminal link.
    #[serde(default)]
    pub link: Option<LinkParams>,
}

/// A contiguous range of extra terminal ids created by one [`ExtraTerminals`] entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExtraGroup {
    /// The entry's name.
    pub name: String,
    /// First terminal id.
    pub first: u32,
    /// Number of terminals.
    pub count: u32,
}

impl ExtraGroup {
    /// The terminal ids of the group.
    pub fn range(&self) -> Range<u32> {
        self.first..self.first + self.count
    }
}

/// The routers that may host terminals, and what they already host, while placements are
/// resolved.
pub(crate) struct Hosts {
    /// Candidate router ids, in order.
    pub routers: Vec<u32>,
    /// Compute terminals on each candidate.
    pub compute: Vec<u32>,
    /// Group (pod / dragonfly group) of each candidate, if the topology has groups.
    pub group: Option<Vec<u32>>,
    /// Candidates reserved for a given placement index by the topology builder.
    pub reserved_for: Vec<Option<usize>>,
    /// Candidates already taken by a dedicated placement.
    pub claimed: Vec<bool>,
}

impl Hosts {
    /// Candidates `routers` with their compute counts; nothing reserved or claimed.
    pub(crate) fn new(routers: Vec<u32>, compute: Vec<u32>, group: Option<Vec<u32>>) -> Self {
        let n = routers.len();
        Hosts {
            routers,
            compute,
            group,
            reserved_for: vec![None; n],
            claimed: vec![false; n],
        }
    }

    fn is_free(&self, i: usize) -> bool {
        self.compute[i] == 0 && !self.claimed[i] && self.reserved_for[i].is_none()
    }

    /// Resolves placement number `idx` into `(router, terminals)` pairs.
    pub(crate) fn resolve(
        &mut self,
        idx: usize,
        extra: &ExtraTerminals,
    ) -> Result<Vec<(u32, u32)>, NetError> {
        let name = &extra.name;
        let param = |p| NetParam::Extra(name.clone(), p);
        let positive = |p, v: u32| {
            if v == 0 {
                Err(NetError::invalid(param(p), "at least 1", 0))
            } else {
                Ok(())
            }
        };
        match &extra.placement {
            Placement::PerRouter { every, count } => {
                positive(ExtraParam::Every, *every)?;
                positive(ExtraParam::Count, *count)?;
                Ok(self
                    .compute_routers(extra)?
                    .into_iter()
                    .enumerate()
                    .filter(|(ord, _)| *ord as u32 % every == 0)
                    .map(|(_, r)| (r, *count))
                    .collect())
            }
            Placement::Dedicated {
                routers,
                per_router,
            } => {
                positive(ExtraParam::Routers, *routers)?;
                positive(ExtraParam::PerRouter, *per_router)?;
                let reserved: Vec<usize> = (0..self.routers.len())
                    .filter(|&i| self.reserved_for[i] == Some(idx))
                    .collect();
                let picked: Vec<usize> = if reserved.is_empty() {
                    let free: Vec<usize> = (0..self.routers.len())
                        .filter(|&i| self.is_free(i))
                        .collect();
                    if free.len() < *routers as usize {
                        return Err(NetError::invalid(
                            param(ExtraParam::Routers),
                            format!(
                                "at most {} (the routers hosting no compute terminal and not \
                                 used by an earlier placement; add groups or routers)",
                                free.len()
                            ),
                            routers,
                        ));
                    }
                    free[..*routers as usize].to_vec()
                } else {
                    reserved
                };
                Ok(self.claim(&picked, *per_router))
            }
            Placement::DedicatedGroups { groups, per_router } => {
                positive(ExtraParam::Groups, *groups)?;
                positive(ExtraParam::PerRouter, *per_router)?;
                let Some(group) = self.group.clone() else {
                    return Err(NetError::invalid(
                        param(ExtraParam::Placement),
                        "a topology with groups (dragonfly groups or fat-tree pods)",
                        "a torus",
                    ));
                };
                let reserved: Vec<usize> = (0..self.routers.len())
                    .filter(|&i| self.reserved_for[i] == Some(idx))
                    .collect();
                let picked = if reserved.is_empty() {
                    let ngroups = group.iter().copied().max().map_or(0, |g| g + 1);
                    let mut free_groups = Vec::new();
                    for g in 0..ngroups {
                        let members: Vec<usize> =
                            (0..group.len()).filter(|&i| group[i] == g).collect();
                        if !members.is_empty() && members.iter().all(|&i| self.is_free(i)) {
                            free_groups.push(members);
                        }
                    }
                    if free_groups.len() < *groups as usize {
                        return Err(NetError::invalid(
                            param(ExtraParam::Groups),
                            format!(
                                "at most {} (the groups hosting no compute terminal; add groups)",
                                free_groups.len()
                            ),
                            groups,
                        ));
                    }
                    free_groups.truncate(*groups as usize);
                    free_groups.concat()
                } else {
                    reserved
                };
                Ok(self.claim(&picked, *per_router))
            }
            Placement::Spread { count } => {
                positive(ExtraParam::Count, *count)?;
                let hosts = self.compute_routers(extra)?;
                let (n, count) = (hosts.len() as u64, u64::from(*count));
                Ok((0..count)
                    .map(|i| (hosts[(i * n / count) as usize], 1))
                    .collect())
            }
            Placement::Routers {
                routers,
                per_router,
            } => {
                positive(ExtraParam::PerRouter, *per_router)?;
                if routers.is_empty() {
                    return Err(NetError::invalid(
                        param(ExtraParam::Routers),
                        "a non-empty list",
                        "[]",
                    ));
                }
                routers
                    .iter()
                    .map(|&r| match self.routers.binary_search(&r) {
                        Ok(_) => Ok((r, *per_router)),
                        Err(_) => Err(NetError::invalid(
                            param(ExtraParam::Routers),
                            "ids of terminal-capable routers (fat-tree: edge switches)",
                            r,
                        )),
                    })
                    .collect()
            }
        }
    }

    /// The candidates that host compute terminals, in order (an error on `extra`'s placement
    /// when there is none).
    fn compute_routers(&self, extra: &ExtraTerminals) -> Result<Vec<u32>, NetError> {
        let hosts: Vec<u32> = (0..self.routers.len())
            .filter(|&i| self.compute[i] > 0)
            .map(|i| self.routers[i])
            .collect();
        if hosts.is_empty() {
            return Err(NetError::invalid(
                NetParam::Extra(extra.name.clone(), ExtraParam::Placement),
                "at least one router with compute terminals",
                "none",
            ));
        }
        Ok(hosts)
    }

    fn claim(&mut self, picked: &[usize], per_router: u32) -> Vec<(u32, u32)> {
        picked
            .iter()
            .map(|&i| {
                self.claimed[i] = true;
                (self.routers[i], per_router)
            })
            .collect()
    }
}

/// Attaches `extras` in order through `hosts`, using free reserved terminal ports first
/// (`terminal_ports(router)` lists them) and new ports after. Returns the created groups.
pub(crate) fn attach_extras(
    builder: &mut Builder,
    hosts: &mut Hosts,
    extras: &[ExtraTerminals],
    default_link: LinkParams,
    terminal_ports: impl Fn(u32) -> Range<u16>,
) -> Result<Vec<ExtraGroup>, NetError> {
    let mut groups = Vec::with_capacity(extras.len());
    for (idx, extra) in extras.iter().enumerate() {
        if extras[..idx].iter().any(|e| e.name == extra.name) {
            return Err(NetError::invalid(
                NetParam::Extra(extra.name.clone(), ExtraParam::Name),
                "names that are unique among the extra terminal sets",
                &extra.name,
            ));
        }
        let link = extra.link.unwrap_or(default_link);
        link.validate(|l| NetParam::Extra(extra.name.clone(), ExtraParam::Link(l)))?;
        let first = builder.terminal_count();
        for (router, count) in hosts.resolve(idx, extra)? {
            let free: Vec<u16> = terminal_ports(router)
                .filter(|&p| builder.is_free(router, p))
                .collect();
            // Checked before any port is added: port indices are 16 bits.
            let ports = u64::from(builder.port_count(router))
                + u64::from(count).saturating_sub(free.len() as u64);
            if ports > u64::from(u16::MAX) {
                return Err(NetError::invalid(
                    NetParam::Extra(extra.name.clone(), ExtraParam::Ports),
                    "fewer than 65536 ports per router",
                    ports,
                ));
            }
            let mut free = free.into_iter();
            for _ in 0..count {
                let port = match free.next() {
                    Some(p) => p,
                    None => builder.reserve(router, 1),
                };
                builder.attach(router, port, link);
            }
        }
        groups.push(ExtraGroup {
            name: extra.name.clone(),
            first,
            count: builder.terminal_count() - first,
        });
    }
    Ok(groups)
}

/// The most routers a [`Placement::Dedicated`] of `per_router` extra terminals each can take
/// as the first extra set of `config`: the count its build accepts. A fat-tree has room for
/// `max_edges` edge switches and its compute terminals fill the first ones; dragonflies and
/// tori have their routers without compute terminals. 0 when `config` is invalid, when
/// `per_router` is 0, or when `per_router` terminals would take a router past 65,535 ports.
pub fn dedicated_room(config: &TopologyConfig, per_router: u32) -> u32 {
    // (free routers, terminal ports of a free router, its ports before any extra terminal)
    let room = match config {
        TopologyConfig::FatTree(c) => c.validate().ok().map(|()| {
            let compute_edges = c.terminals.div_ceil(c.half());
            (
                u64::from(c.max_edges() - compute_edges),
                c.half(),
                u64::from(c.half()) + u64::from(c.up()),
            )
        }),
        TopologyConfig::Dragonfly(c) => c
            .validate()
            .ok()
            .map(|()| dragonfly_room(&c.shape(), c.terminals)),
        TopologyConfig::Aries(c) => c
            .validate()
            .ok()
            .map(|()| dragonfly_room(&c.shape(), c.terminals)),
        TopologyConfig::Torus(c) => c.validate().ok().map(|()| {
            let routers: u64 = c.dims.iter().map(|&k| u64::from(k)).product();
            let p = c.terminals_per_router;
            (
                free_routers(routers, p, c.terminals),
                p,
                u64::from(p) + 2 * c.dims.len() as u64,
            )
        }),
    };
    match room {
        Some((free, terminal_ports, ports))
            if per_router > 0
                && ports + u64::from(per_router.saturating_sub(terminal_ports))
                    <= u64::from(u16::MAX) =>
        {
            u32::try_from(free).unwrap_or(u32::MAX)
        }
        _ => 0,
    }
}

/// Routers of `routers` with `p` terminal ports each that host none of the `terminals` compute
/// terminals (filled router by router; `None` fills every port).
fn free_routers(routers: u64, p: u32, terminals: Option<u32>) -> u64 {
    let compute = terminals.map_or(routers * u64::from(p), u64::from);
    routers.saturating_sub(compute.div_ceil(u64::from(p)))
}

/// [`dedicated_room`]'s figures of a dragonfly: its routers without compute terminals, their
/// `p` terminal ports, and their local, column and global ports.
fn dragonfly_room(s: &DragonflyShape, terminals: Option<u32>) -> (u64, u32, u64) {
    let routers = u64::from(s.routers_per_group()) * u64::from(s.groups);
    let ports = u64::from(s.p) + u64::from(s.cols - 1) + u64::from(s.rows - 1) + u64::from(s.h);
    (free_routers(routers, s.p, terminals), s.p, ports)
}

/// Routers and router-to-router links of `topology` without the routers its extra terminals
/// added: a fat-tree grows edge switches (and the pods of aggregation switches they need) for
/// dedicated placements; the other families attach extra terminals to routers they already
/// have. The cost of a placement is what it adds to these.
pub fn compute_fabric(topology: &Topology) -> (u32, u64) {
    match topology.config() {
        TopologyConfig::FatTree(c) => {
            let compute = FatTreeShape::new(c, c.terminals.div_ceil(c.half()));
            (compute.routers, compute.router_links())
        }
        TopologyConfig::Dragonfly(_) | TopologyConfig::Aries(_) | TopologyConfig::Torus(_) => {
            (topology.routers(), topology.wiring().router_links())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aries::AriesConfig;
    use crate::dragonfly::DragonflyConfig;
    use crate::fattree::FatTreeConfig;
    use crate::torus::TorusConfig;
    use bbsim_engine::time::NS;

    fn configs() -> Vec<TopologyConfig> {
        let l = LinkParams::new(12_500_000_000, 100 * NS);
        let fat = |levels, radix, terminals, taper| {
            TopologyConfig::FatTree(FatTreeConfig {
                levels,
                radix,
                terminals,
                taper,
                terminal: l,
                link: l,
            })
        };
        vec![
            fat(3, 8, 120, 1),
            fat(3, 8, 128, 1),
            fat(3, 12, 1, 6),
            fat(3, 12, 100, 2),
            fat(2, 8, 5, 1),
            fat(2, 16, 9, 8),
            fat(3, 8, 0, 1),
            TopologyConfig::Dragonfly(DragonflyConfig {
                a: 4,
                p: 2,
                h: 2,
                g: 5,
                terminals: Some(27),
                terminal: l,
                local: l,
                global: l,
            }),
            TopologyConfig::Aries(AriesConfig {
                rows: 2,
                cols: 3,
                terminals_per_router: 4,
                h: 1,
                groups: 4,
                terminals: Some(50),
                terminal: l,
                local: l,
                global: l,
            }),
            TopologyConfig::Torus(TorusConfig {
                dims: vec![4, 3],
                terminals_per_router: 2,
                terminals: Some(13),
                terminal: l,
                link: l,
            }),
            TopologyConfig::Torus(TorusConfig {
                dims: vec![3, 3],
                terminals_per_router: 1,
                terminals: None,
                terminal: l,
                link: l,
            }),
        ]
    }

    fn dedicated(routers: u32, per_router: u32) -> ExtraTerminals {
        ExtraTerminals {
            name: "bb".into(),
            placement: Placement::Dedicated {
                routers,
                per_router,
            },
            link: None,
        }
    }

    /// The room for dedicated routers is the largest count a build accepts: trial builds
    /// with one more router fail, with that many succeed.
    #[test]
    fn dedicated_room_is_the_largest_count_that_builds() {
        let mut nonzero = 0;
        for cfg in configs() {
            for per in [0, 1, 3, 40, 65_000, 70_000] {
                let room = dedicated_room(&cfg, per);
                let builds = |k| Topology::build(&cfg, &[dedicated(k, per)]).is_ok();
                assert!(
                    room == 0 || builds(room),
                    "{cfg:?}: {room} dedicated routers of {per} do not build"
                );
                assert!(
                    !builds(room + 1),
                    "{cfg:?}: {} dedicated routers of {per} build",
                    room + 1
                );
                nonzero += u32::from(room > 0);
            }
        }
        assert!(nonzero >= 20, "only {nonzero} configurations have room");
    }

    /// The compute fabric of a topology with dedicated extra routers equals the topology built
    /// without extra terminals.
    #[test]
    fn compute_fabric_equals_the_topology_without_extras() {
        let mut checked = 0;
        for cfg in configs() {
            let Ok(bare) = Topology::build(&cfg, &[]) else {
                continue;
            };
            let want = (bare.routers(), bare.wiring().router_links());
            assert_eq!(compute_fabric(&bare), want, "{cfg:?}");
            let room = dedicated_room(&cfg, 2);
            if room > 0 {
                let grown = Topology::build(&cfg, &[dedicated(room, 2)]).unwrap();
                assert_eq!(
                    compute_fabric(&grown),
                    want,
                    "{cfg:?} with {room} dedicated"
                );
                checked += 1;
            }
        }
        assert!(checked >= 8, "only {checked} topologies had room");
    }

    /// Spread terminals go on the routers of the compute terminals, the `i`-th on the
    /// `(i * n / count)`-th of the `n`, after the terminals of earlier sets.
    #[test]
    fn spread_covers_the_compute_routers_evenly() {
        for cfg in configs() {
            let Ok(bare) = Topology::build(&cfg, &[]) else {
                continue;
            };
            let mut hosts: Vec<u32> = bare
                .compute_terminals()
                .filter_map(|t| bare.router_of(t))
                .collect();
            hosts.dedup();
            for count in [1, 2, 7, hosts.len() as u32 * 2 + 1] {
                let bb = ExtraTerminals {
                    name: "bb".into(),
                    placement: Placement::PerRouter { every: 2, count: 1 },
                    link: None,
                };
                let io = ExtraTerminals {
                    name: "io".into(),
                    placement: Placement::Spread { count },
                    link: None,
                };
                let t = Topology::build(&cfg, &[bb, io]).unwrap();
                let got: Vec<u32> = t
                    .extra("io")
                    .unwrap()
                    .filter_map(|x| t.router_of(x))
                    .collect();
                let n = hosts.len();
                let want: Vec<u32> = (0..count as usize)
                    .map(|i| hosts[i * n / count as usize])
                    .collect();
                assert_eq!(got, want, "{cfg:?} with {count} spread terminals");
            }
        }
    }
}
