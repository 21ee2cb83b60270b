//! Dragonfly routing: minimal, Valiant and UGAL-L.
//!
//! A route is a sequence of phases; each phase crosses at most one group: local hops inside
//! the group (row hop first, then column hop on Aries) to a router owning a global link to the
//! phase's target group, then that global link. A minimal route has one inter-group phase and
//! a final local phase; a Valiant route first goes to a random intermediate group.
//!
//! Deadlock freedom: the virtual channel of every hop is the number of global links taken so
//! far (0, 1, 2). Within one VC the hops of a packet go row -> column -> global, and a global hop
//! moves the packet to the next VC, so channels can be ordered (VC, class) with every dependency
//! going upwards: no cycle, for any buffer size.

use super::Algo;
use crate::dragonfly::DragonflyShape;
use crate::packet::{Packet, FLAG_DECIDED, FLAG_NONMINIMAL, NONE};
use bbsim_engine::Rng;

/// Picks the global slot (in `from_group`) of a link toward group `to_group`, minimising
/// local hops from in-group router `from_local` to its owner plus (if `dst_local` is given)
/// from the far end to `dst_local`; ties broken with `rng`. Returns `(slot, links on the way
/// to and over the global link plus after it)`.
pub(crate) fn choose_slot(
    s: &DragonflyShape,
    from_group: u32,
    from_local: u32,
    to_group: u32,
    dst_local: Option<u32>,
    rng: &mut Rng,
) -> (u32, u32) {
    let offset = (to_group + s.groups - from_group) % s.groups;
    let cost = |slot: u32, far: u32| {
        s.local_hops(from_local, slot / s.h)
            + 1
            + dst_local.map_or(0, |d| s.local_hops(far / s.h, d))
    };
    let (mut best, mut ties, mut first) = (u32::MAX, 0u64, u32::MAX);
    let mut m = 0;
    while let Some((slot, far)) = s.slot_pair(offset, m) {
        let c = cost(slot, far);
        if c < best {
            (best, ties, first) = (c, 1, slot);
        } else if c == best {
            ties += 1;
        }
        m += 1;
    }
    if ties <= 1 {
        return (first, best);
    }
    let mut pick = rng.below(ties);
    let mut m = 0;
    while let Some((slot, far)) = s.slot_pair(offset, m) {
        if cost(slot, far) == best {
            if pick == 0 {
                return (slot, best);
            }
            pick -= 1;
        }
        m += 1;
    }
    (first, best)
}

/// The first port from in-group router `local` toward the owner of global `slot`.
#[inline]
fn port_toward_slot(s: &DragonflyShape, local: u32, slot: u32) -> u16 {
    let owner = slot / s.h;
    if owner == local {
        (s.global_base() + slot % s.h) as u16
    } else {
        s.local_port(local, owner)
    }
}

/// A uniformly random group other than `a` and `b` (requires at least 3 groups).
#[inline]
fn intermediate(s: &DragonflyShape, a: u32, b: u32, rng: &mut Rng) -> u32 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let mut x = rng.below(u64::from(s.groups - 2)) as u32;
    if x >= lo {
        x += 1;
    }
    if x >= hi {
        x += 1;
    }
    x
}

/// Output port and VC at router `r` toward router `dst_router != r`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn route(
    s: &DragonflyShape,
    algo: Algo,
    r: u32,
    dst_router: u32,
    pkt: &mut Packet,
    load: &[u64],
    rng: &mut Rng,
    ugal_threshold: u32,
) -> (u16, u8) {
    let (here, local) = (s.group(r), s.local(r));
    let (dst_group, dst_local) = (s.group(dst_router), s.local(dst_router));
    if pkt.flags & FLAG_DECIDED == 0 {
        pkt.flags |= FLAG_DECIDED;
        if here != dst_group && s.groups >= 3 {
            match algo {
                Algo::DragonflyValiant => {
                    pkt.aux = intermediate(s, here, dst_group, rng) as u16;
                    pkt.flags |= FLAG_NONMINIMAL;
                }
                Algo::DragonflyUgal => {
                    let (min_slot, min_links) =
                        choose_slot(s, here, local, dst_group, Some(dst_local), rng);
                    let inter = intermediate(s, here, dst_group, rng);
                    let (non_slot, non_first) = choose_slot(s, here, local, inter, None, rng);
                    // Non-minimal estimate: to the intermediate group, across it, the second
                    // global link and the destination group's local hops.
                    let local_diam = if s.rows > 1 && s.cols > 1 { 2 } else { 1 };
                    let non_links = non_first + 2 * local_diam + 1;
                    let q_min = load[usize::from(port_toward_slot(s, local, min_slot))];
                    let q_non = load[usize::from(port_toward_slot(s, local, non_slot))];
                    if q_min * u64::from(min_links)
                        <= q_non * u64::from(non_links) + u64::from(ugal_threshold)
                    {
                        pkt.slot = min_slot as u16;
                    } else {
                        pkt.aux = inter as u16;
                        pkt.slot = non_slot as u16;
                        pkt.flags |= FLAG_NONMINIMAL;
                    }
                }
                _ => {}
            }
        }
    }
    let vc = pkt.ghops;
    let target = if pkt.flags & FLAG_NONMINIMAL != 0 && pkt.ghops == 0 {
        u32::from(pkt.aux)
    } else {
        dst_group
    };
    if here == target {
        return (s.local_port(local, dst_local), vc);
    }
    if pkt.slot == NONE {
        let dst = (target == dst_group).then_some(dst_local);
        pkt.slot = choose_slot(s, here, local, target, dst, rng).0 as u16;
    }
    let slot = u32::from(pkt.slot);
    let port = port_toward_slot(s, local, slot);
    if slot / s.h == local {
        pkt.ghops += 1;
        pkt.slot = NONE;
    }
    (port, vc)
}
