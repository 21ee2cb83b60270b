//! Routing algorithms: which output port and virtual channel a packet takes at a router.
//!
//! - Fat-tree ([`fattree`]): up/down routing; the up-port is deterministic
//!   (destination mod up-links) or adaptive (least loaded, random ties). One VC.
//! - Dragonfly ([`dragonfly`]): minimal, Valiant, UGAL. The VC is the number of global links
//!   taken so far (2 VCs minimal, 3 otherwise).
//! - Torus ([`torus`]): dimension order with a dateline VC per dimension. 2 VCs.

pub mod dragonfly;
pub mod fattree;
pub mod torus;

use crate::error::{NetError, NetParam};
use crate::packet::Packet;
use crate::topology::{Shape, Topology};
use bbsim_engine::Rng;
use serde::{Deserialize, Serialize};

/// A routing algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Routing {
    /// Fat-tree: up-port = destination mod up-links (D-mod-k). Torus: dimension order.
    /// Dragonfly: minimal.
    Deterministic,
    /// Fat-tree: least-loaded up-port (queue occupancy), ties broken at random.
    /// Dragonfly: same as [`Routing::Ugal`].
    Adaptive,
    /// Minimal routes (fat-tree: as deterministic; torus: dimension order).
    Minimal,
    /// Dragonfly: every inter-group packet goes through a random intermediate group.
    Valiant,
    /// Dragonfly: UGAL-L, choosing per packet at the source router between the minimal route
    /// and a Valiant route by queue occupancy times hop count.
    Ugal,
    /// Torus: dimension-order routing with dateline virtual channels.
    DimensionOrder,
}

impl Routing {
    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Routing::Deterministic => "deterministic",
            Routing::Adaptive => "adaptive",
            Routing::Minimal => "minimal",
            Routing::Valiant => "valiant",
            Routing::Ugal => "ugal",
            Routing::DimensionOrder => "dimension-order",
        }
    }
}

/// The algorithm actually run on a topology, after validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algo {
    /// Fat-tree D-mod-k.
    FatTreeDeterministic,
    /// Fat-tree adaptive up-port.
    FatTreeAdaptive,
    /// Dragonfly minimal.
    DragonflyMinimal,
    /// Dragonfly Valiant.
    DragonflyValiant,
    /// Dragonfly UGAL-L.
    DragonflyUgal,
    /// Torus dimension order.
    TorusDor,
}

impl Algo {
    /// Resolves `routing` for `topo`, or says which algorithms the topology supports.
    pub fn resolve(routing: Routing, topo: &Topology) -> Result<Algo, NetError> {
        let algo = match (topo.shape(), routing) {
            (Shape::FatTree(_), Routing::Deterministic | Routing::Minimal) => {
                Some(Algo::FatTreeDeterministic)
            }
            (Shape::FatTree(_), Routing::Adaptive) => Some(Algo::FatTreeAdaptive),
            (Shape::Dragonfly(_), Routing::Minimal | Routing::Deterministic) => {
                Some(Algo::DragonflyMinimal)
            }
            (Shape::Dragonfly(_), Routing::Valiant) => Some(Algo::DragonflyValiant),
            (Shape::Dragonfly(_), Routing::Ugal | Routing::Adaptive) => Some(Algo::DragonflyUgal),
            (
                Shape::Torus(_),
                Routing::DimensionOrder | Routing::Minimal | Routing::Deterministic,
            ) => Some(Algo::TorusDor),
            _ => None,
        };
        algo.ok_or_else(|| {
            let expected = match topo.shape() {
                Shape::FatTree(_) => "deterministic, minimal or adaptive for a fat-tree",
                Shape::Dragonfly(_) => "minimal, valiant, ugal or adaptive for a dragonfly",
                Shape::Torus(_) => "dimension-order (or minimal) for a torus",
            };
            NetError::invalid(NetParam::Routing, expected, routing.name())
        })
    }

    /// Whether any VC may be used on any hop (fat-tree up/down routing), so that VCs beyond the
    /// first act as lanes.
    pub fn lanes(self) -> bool {
        matches!(self, Algo::FatTreeDeterministic | Algo::FatTreeAdaptive)
    }

    /// Virtual channels per port the algorithm needs to be deadlock-free.
    pub fn vcs(self) -> u8 {
        match self {
            Algo::FatTreeDeterministic | Algo::FatTreeAdaptive => 1,
            Algo::DragonflyMinimal | Algo::TorusDor => 2,
            Algo::DragonflyValiant | Algo::DragonflyUgal => 3,
        }
    }
}

/// Picks the output port and VC for `pkt` at router `r` (not its destination router).
/// `load` is the router's per-output-port occupancy in bytes (queued here plus buffered
/// downstream); the algorithm may update the packet's routing state. `cache` is the router's
/// dragonfly slot memo (unused on other topologies).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn route(
    topo: &Topology,
    algo: Algo,
    r: u32,
    dst_router: u32,
    pkt: &mut Packet,
    load: &[u64],
    rng: &mut Rng,
    ugal_threshold: u32,
    cache: &mut dragonfly::SlotCache,
) -> (u16, u8) {
    match topo.shape() {
        Shape::FatTree(s) => {
            let port = fattree::route(
                s,
                algo == Algo::FatTreeAdaptive,
                r,
                dst_router,
                pkt.dst,
                load,
                rng,
            );
            (port, 0)
        }
        Shape::Dragonfly(s) => dragonfly::route(
            s,
            algo,
            r,
            dst_router,
            pkt,
            load,
            rng,
            ugal_threshold,
            cache,
        ),
        Shape::Torus(s) => torus::route(s, r, dst_router, pkt),
    }
}

/// The least-loaded port among `base .. base + n`, ties broken uniformly with `rng` (drawn only
/// when there is a tie).
#[inline]
pub(crate) fn least_loaded(base: u32, n: u32, load: &[u64], rng: &mut Rng) -> u16 {
    let ports = &load[base as usize..(base + n) as usize];
    let (mut min, mut first, mut ties) = (u64::MAX, 0usize, 0u32);
    for (i, &l) in ports.iter().enumerate() {
        if l < min {
            (min, first, ties) = (l, i, 1);
        } else if l == min {
            ties += 1;
        }
    }
    if ties > 1 {
        let mut pick = rng.below(u64::from(ties));
        for (i, &l) in ports.iter().enumerate().skip(first) {
            if l == min {
                if pick == 0 {
                    first = i;
                    break;
                }
                pick -= 1;
            }
        }
    }
    (base as usize + first) as u16
}
