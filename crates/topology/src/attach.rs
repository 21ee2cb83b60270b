//! Extra terminals (burst-buffer servers, PFS I/O nodes) attached where a placement asks.
//!
//! Compute terminals always come first (ids `0..compute`); each [`ExtraTerminals`] entry then
//! adds a contiguous range of terminal ids, in the order the entries are given. Storage code
//! only names a placement; it never needs to know port numbers.

use crate::error::{ExtraParam, NetError, NetParam};
use crate::graph::Builder;
use crate::link::LinkParams;
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
                let chosen: Vec<(u32, u32)> = (0..self.routers.len())
                    .filter(|&i| self.compute[i] > 0)
                    .enumerate()
                    .filter(|(ord, _)| *ord as u32 % every == 0)
                    .map(|(_, i)| (self.routers[i], *count))
                    .collect();
                if chosen.is_empty() {
                    return Err(NetError::invalid(
                        param(ExtraParam::Placement),
                        "at least one router with compute terminals",
                        "none",
                    ));
                }
                Ok(chosen)
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
            let mut free = free.into_iter();
            for _ in 0..count {
                let port = match free.next() {
                    Some(p) => p,
                    None => builder.reserve(router, 1),
                };
                builder.attach(router, port, link);
            }
            if builder.port_count(router) > u32::from(u16::MAX) {
                return Err(NetError::invalid(
                    NetParam::Extra(extra.name.clone(), ExtraParam::Ports),
                    "fewer than 65536 ports per router",
                    builder.port_count(router),
                ));
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
