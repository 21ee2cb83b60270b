//! What the path and flow models' fabric LPs share: every router's output ports numbered in
//! one array (router `r`'s ports are `base[r]..base[r + 1]`), and hop-by-hop routing with the
//! topology's algorithm on a per-port load signal that each model keeps its own way (bytes
//! whose credit is out in the path model, bytes of the crossing flows in the flow model).

use crate::network::RouterParams;
use crate::packet::{Packet, FLAG_DECIDED};
use crate::routing::{self, dragonfly::SlotCache, Algo};
use crate::topology::Topology;
use bbsim_engine::Rng;
use std::ops::Range;
use std::sync::Arc;

/// The routing state of a fabric LP: topology, algorithm, router parameters, the port
/// numbering and each router's dragonfly slot memo.
pub(crate) struct FabricRoutes {
    /// The topology.
    pub topo: Arc<Topology>,
    /// Router parameters (router delay in ps, UGAL threshold in bytes × hops).
    pub params: Arc<RouterParams>,
    algo: Algo,
    /// First fabric index of router `r`'s ports (plus the total at the end).
    base: Vec<u32>,
    /// Per router: dragonfly global-slot memo.
    slots: Vec<SlotCache>,
    /// Scratch: per-port load of the router deciding a route.
    load: Vec<u64>,
}

impl FabricRoutes {
    /// The port numbering and routing state of `topo`.
    pub fn new(topo: Arc<Topology>, algo: Algo, params: Arc<RouterParams>) -> Self {
        let routers = topo.routers();
        let mut base = Vec::with_capacity(routers as usize + 1);
        let (mut total, mut widest) = (0u32, 0usize);
        for r in 0..routers {
            base.push(total);
            let n = topo.ports(r).len();
            total += n as u32;
            widest = widest.max(n);
        }
        base.push(total);
        FabricRoutes {
            topo,
            params,
            algo,
            base,
            slots: (0..routers).map(|_| SlotCache::default()).collect(),
            load: vec![0; widest],
        }
    }

    /// Fabric indices of router `r`'s output ports.
    pub fn ports(&self, r: u32) -> Range<usize> {
        self.base[r as usize] as usize..self.base[r as usize + 1] as usize
    }

    /// The fabric index of router `r`'s port `port`.
    pub fn index(&self, r: u32, port: u16) -> u32 {
        self.base[r as usize] + u32::from(port)
    }

    /// Whether routing `pkt` reads the load of the router's ports (adaptive fat-tree routing,
    /// and UGAL before it has decided).
    pub fn needs_load(&self, pkt: &Packet) -> bool {
        match self.algo {
            Algo::FatTreeAdaptive => true,
            Algo::DragonflyUgal => pkt.flags & FLAG_DECIDED == 0,
            _ => false,
        }
    }

    /// The output port and VC for `pkt` at router `r` (not its destination router). When
    /// [`FabricRoutes::needs_load`], `load(i)` gives the load (bytes) of the port with fabric
    /// index `i`.
    pub fn route(
        &mut self,
        r: u32,
        pkt: &mut Packet,
        rng: &mut Rng,
        load: impl Fn(usize) -> u64,
    ) -> (u16, u8) {
        let ports = self.ports(r);
        let width = ports.len();
        if self.needs_load(pkt) {
            for (k, i) in ports.enumerate() {
                self.load[k] = load(i);
            }
        }
        let dst_router = self.topo.wiring().terminals[pkt.dst as usize].router;
        routing::route(
            &self.topo,
            self.algo,
            r,
            dst_router,
            pkt,
            &self.load[..width],
            rng,
            self.params.ugal_threshold,
            &mut self.slots[r as usize],
        )
    }
}
