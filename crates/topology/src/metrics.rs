//! Topology metrics: the summary (routers, terminals, links, diameter, bisection), closed forms
//! of the bisection bandwidth, breadth-first diameter and a max-flow check of bisections.

use crate::graph::{Peer, Wiring};
use crate::link::LinkClass;
use crate::topology::{Shape, Topology, TopologyConfig};
use serde::Serialize;
use std::collections::VecDeque;
use std::fmt;

/// What a topology reports about itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TopologySummary {
    /// Description of the configuration.
    pub name: String,
    /// Routers (switches).
    pub routers: u32,
    /// All terminals (compute and extra).
    pub terminals: u32,
    /// Compute terminals.
    pub compute_terminals: u32,
    /// Extra terminals (BB servers, I/O nodes).
    pub extra_terminals: u32,
    /// Bidirectional router-to-router links.
    pub router_links: u64,
    /// Terminal links (one per terminal).
    pub terminal_links: u64,
    /// Graph diameter in router-to-router links between terminal-hosting routers.
    pub diameter: u32,
    /// Bisection bandwidth in bytes/s, one direction.
    pub bisection_bandwidth: f64,
}

impl fmt::Display for TopologySummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "topology            {}", self.name)?;
        writeln!(f, "routers             {}", self.routers)?;
        writeln!(
            f,
            "terminals           {} ({} compute, {} extra)",
            self.terminals, self.compute_terminals, self.extra_terminals
        )?;
        writeln!(f, "router links        {}", self.router_links)?;
        writeln!(
            f,
            "diameter            {} router-to-router links",
            self.diameter
        )?;
        write!(
            f,
            "bisection bandwidth {:.3} GB/s",
            self.bisection_bandwidth / 1e9
        )
    }
}

/// Closed-form bisection bandwidth (bytes/s, one direction) of the natural halving of a
/// topology:
/// - fat-tree, 3 levels, `P >= 2` pods: `up * k/2 * floor(P/2) * B` (each core switch cuts its
///   links to the smaller half of the pods); one pod of `E` edge switches:
///   `up * floor(E/2) * B`; 2 levels with `L` leaves: `up * floor(L/2) * B`. For a full tree this
///   is `terminals / 2 / taper * B`.
/// - dragonfly: global links between the first `floor(g/2)` groups and the rest, times the
///   global bandwidth (for `g = a*h + 1`: `floor(g/2) * ceil(g/2)` links); a single group is cut
///   across its rows or columns, whichever is cheaper.
/// - torus: `2 * N / k * B` for the largest dimension `k` (two cut planes because of the
///   wrap-around links).
pub fn bisection_bandwidth(topo: &Topology) -> f64 {
    // One arm per topology family, so a new family cannot silently report no bisection.
    let shape = topo.shape();
    match topo.config() {
        TopologyConfig::FatTree(c) => {
            let Shape::FatTree(s) = shape else {
                unreachable!("a fat-tree configuration builds a fat-tree")
            };
            let b = c.link.bandwidth as f64;
            let cut = if s.levels == 2 {
                u64::from(s.up) * u64::from(s.edges / 2)
            } else if s.pods >= 2 {
                u64::from(s.up) * u64::from(s.half) * u64::from(s.pods / 2)
            } else {
                u64::from(s.up) * u64::from(s.edges / 2)
            };
            cut as f64 * b
        }
        TopologyConfig::Dragonfly(c) => {
            let Shape::Dragonfly(s) = shape else {
                unreachable!("a dragonfly configuration builds a dragonfly")
            };
            dragonfly_bisection(s, c.local.bandwidth, c.global.bandwidth)
        }
        TopologyConfig::Aries(c) => {
            let Shape::Dragonfly(s) = shape else {
                unreachable!("an Aries configuration builds a dragonfly")
            };
            dragonfly_bisection(s, c.local.bandwidth, c.global.bandwidth)
        }
        TopologyConfig::Torus(c) => {
            let Shape::Torus(s) = shape else {
                unreachable!("a torus configuration builds a torus")
            };
            let k = s.dims.iter().copied().max().unwrap_or(1);
            2.0 * f64::from(s.routers / k) * c.link.bandwidth as f64
        }
    }
}

fn dragonfly_bisection(s: &crate::dragonfly::DragonflyShape, local: u64, global: u64) -> f64 {
    let g = s.groups;
    if g == 1 {
        let (r, c) = (u64::from(s.rows), u64::from(s.cols));
        let across_cols = r * (c / 2) * c.div_ceil(2);
        let across_rows = c * (r / 2) * r.div_ceil(2);
        let cut = if r == 1 {
            across_cols
        } else if c == 1 {
            across_rows
        } else {
            across_cols.min(across_rows)
        };
        return cut as f64 * local as f64;
    }
    let half = g / 2;
    let mut links = 0u64;
    for i in 0..half {
        for j in half..g {
            links += u64::from(s.links_to_offset((j + g - i) % g));
        }
    }
    links as f64 * global as f64
}

/// Graph diameter (router-to-router links) between routers that host terminals: the largest
/// finite distance between two of them. Breadth-first search from 64 of them at once, one bit
/// per source in a word per router (each level ORs the frontier words of a router's
/// neighbours), so the edges are walked once per level and batch of 64 sources instead of once
/// per source: about 40 times less work on an Aries machine of 1,500 routers.
pub fn diameter(w: &Wiring) -> u32 {
    let routers = w.routers() as usize;
    let mut hosts = vec![false; routers];
    for a in &w.terminals {
        hosts[a.router as usize] = true;
    }
    let sources: Vec<usize> = (0..routers).filter(|&r| hosts[r]).collect();
    let (mut seen, mut frontier, mut next) = (
        vec![0u64; routers],
        vec![0u64; routers],
        vec![0u64; routers],
    );
    let mut best = 0;
    for batch in sources.chunks(64) {
        seen.fill(0);
        frontier.fill(0);
        for (i, &src) in batch.iter().enumerate() {
            seen[src] |= 1 << i;
            frontier[src] |= 1 << i;
        }
        let mut level = 0;
        loop {
            let mut reached = false;
            for (v, out) in next.iter_mut().enumerate() {
                let bits = w
                    .router_ports(v as u32)
                    .iter()
                    .fold(0u64, |acc, p| match p.peer {
                        Peer::Router { router, .. } => acc | frontier[router as usize],
                        _ => acc,
                    });
                *out = bits & !seen[v];
                reached |= *out != 0;
            }
            if !reached {
                break;
            }
            level += 1;
            for v in 0..routers {
                seen[v] |= next[v];
                if hosts[v] && next[v] != 0 {
                    best = best.max(level);
                }
            }
            std::mem::swap(&mut frontier, &mut next);
        }
    }
    best
}

/// Maximum flow (bytes/s) from the routers `from` to the routers `to` over router-to-router
/// links, each link carrying up to its bandwidth in each direction (Dinic's algorithm). With
/// `from` and `to` the routers of two halves of the terminals it measures the bisection
/// bandwidth of that cut; tests use it to check the closed forms.
pub fn max_flow(w: &Wiring, from: &[u32], to: &[u32]) -> u64 {
    let n = w.routers() as usize + 2;
    let (s, t) = (n - 2, n - 1);
    // Arc list: (to, capacity), with the reverse arc at index ^ 1.
    let mut head: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut arcs: Vec<(usize, u64)> = Vec::new();
    let mut add = |a: usize, b: usize, cap: u64, rev_cap: u64| {
        head[a].push(arcs.len());
        arcs.push((b, cap));
        head[b].push(arcs.len());
        arcs.push((a, rev_cap));
    };
    for r in 0..w.routers() {
        for (p, port) in w.router_ports(r).iter().enumerate() {
            if let Peer::Router { router, port: pp } = port.peer {
                if port.class != LinkClass::Terminal && (router, pp) > (r, p as u16) {
                    let c = port.link.bandwidth;
                    add(r as usize, router as usize, c, c);
                }
            }
        }
    }
    for &r in from {
        add(s, r as usize, u64::MAX / 4, 0);
    }
    for &r in to {
        add(r as usize, t, u64::MAX / 4, 0);
    }
    let mut flow = 0u64;
    let mut level = vec![u32::MAX; n];
    let mut it = vec![0usize; n];
    loop {
        level.fill(u32::MAX);
        level[s] = 0;
        let mut q = VecDeque::from([s]);
        while let Some(u) = q.pop_front() {
            for &a in &head[u] {
                let (v, c) = arcs[a];
                if c > 0 && level[v] == u32::MAX {
                    level[v] = level[u] + 1;
                    q.push_back(v);
                }
            }
        }
        if level[t] == u32::MAX {
            return flow;
        }
        it.fill(0);
        loop {
            let f = augment(s, t, u64::MAX, &head, &mut arcs, &level, &mut it);
            if f == 0 {
                break;
            }
            flow += f;
        }
    }
}

fn augment(
    u: usize,
    t: usize,
    limit: u64,
    head: &[Vec<usize>],
    arcs: &mut [(usize, u64)],
    level: &[u32],
    it: &mut [usize],
) -> u64 {
    if u == t {
        return limit;
    }
    while it[u] < head[u].len() {
        let a = head[u][it[u]];
        let (v, c) = arcs[a];
        if c > 0 && level[v] == level[u] + 1 {
            let f = augment(v, t, limit.min(c), head, arcs, level, it);
            if f > 0 {
                arcs[a].1 -= f;
                arcs[a ^ 1].1 += f;
                return f;
            }
        }
        it[u] += 1;
    }
    0
}
