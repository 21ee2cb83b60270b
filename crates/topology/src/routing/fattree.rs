//! Fat-tree up/down routing. Packets climb to the lowest common ancestor layer and descend on
//! the unique down path; since no packet ever turns from down to up, the channel dependency
//! graph is acyclic and one virtual channel is deadlock-free.

use super::least_loaded;
use crate::fattree::{FatTreeLevel, FatTreeShape};
use bbsim_engine::Rng;

/// Output port at router `r` toward terminal `dst` on edge switch `dst_edge` (`r != dst_edge`).
/// Deterministic up-ports: `dst mod up` at the edge layer, `(dst / up) mod (k/2)` at the
/// aggregation layer; adaptive up-ports: the least loaded, ties broken by `rng`.
#[inline]
pub(crate) fn route(
    s: &FatTreeShape,
    adaptive: bool,
    r: u32,
    dst_edge: u32,
    dst: u32,
    load: &[u64],
    rng: &mut Rng,
) -> u16 {
    let half = s.half;
    match s.level(r) {
        FatTreeLevel::Edge => {
            if adaptive {
                least_loaded(half, s.up, load, rng)
            } else {
                (half + dst % s.up) as u16
            }
        }
        FatTreeLevel::Agg if s.levels == 2 => dst_edge as u16,
        FatTreeLevel::Agg => {
            let pod = (r - s.agg_base) / s.up;
            if dst_edge / half == pod {
                (dst_edge % half) as u16
            } else if adaptive {
                least_loaded(half, half, load, rng)
            } else {
                (half + (dst / s.up) % half) as u16
            }
        }
        FatTreeLevel::Core => (dst_edge / half) as u16,
    }
}
