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
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Multiplicative hash for the small integer keys of [`SlotCache`].
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
}

/// One router's memo of [`choose_slot`]: for each (target group offset, destination router in
/// that group or none) the lowest cost and the global slots that reach it, in scan order. The
/// choice among tied slots still draws from the router's random stream exactly as the scan does,
/// so results are the same with or without the memo; it saves scanning every parallel global
/// link of a group pair per packet (64 on a 4-group Aries with 2 global links per router).
#[derive(Debug, Default)]
pub(crate) struct SlotCache {
    /// Small shapes: (offset, destination + 1 or 0) -> a packed memo (see [`pack_memo`]; 0:
    /// unknown).
    dense: Vec<u64>,
    /// Large shapes: the same map, hashed.
    sparse: HashMap<u64, u64, BuildHasherDefault<KeyHasher>>,
    /// Memos too large to pack: (cost, first index in `slots`, count).
    entries: Vec<(u32, u32, u32)>,
    /// The tied slots of memos with more than one.
    slots: Vec<u32>,
}

/// Marks a packed memo.
const PACKED: u64 = 1 << 63;

/// A memo in one word, so that a decision touches the memo's cache line and at most the tied
/// slots' (not a separate entry as well): [`PACKED`] | count (15 bits) << 48 | cost (16
/// bits) << 32 | the slot itself if count is 1, else the index of the first tied slot in
/// [`SlotCache::slots`]. `None` if a field does not fit; such memos are `1 + index` into
/// [`SlotCache::entries`].
fn pack_memo(count: usize, cost: u32, low: usize) -> Option<u64> {
    (count < 1 << 15 && cost < 1 << 16 && low < 1 << 32)
        .then(|| PACKED | (count as u64) << 48 | u64::from(cost) << 32 | low as u64)
}

/// Largest (groups x (routers per group + 1)) a router's memo indexes densely (16 KiB).
const DENSE_KEYS: u32 = 4096;

/// [`choose_slot`] through `cache` (which must belong to the router at `from_local` of
/// `from_group`: the key leaves them out).
pub(crate) fn choose_slot_cached(
    s: &DragonflyShape,
    cache: &mut SlotCache,
    from_group: u32,
    from_local: u32,
    to_group: u32,
    dst_local: Option<u32>,
    rng: &mut Rng,
) -> (u32, u32) {
    let offset = (to_group + s.groups - from_group) % s.groups;
    let d = dst_local.map_or(0, |d| d + 1);
    let per = s.routers_per_group() + 1;
    let keys = s.groups.saturating_mul(per);
    let SlotCache {
        dense,
        sparse,
        entries,
        slots,
    } = cache;
    let known = if keys <= DENSE_KEYS {
        if dense.is_empty() {
            dense.resize(keys as usize, 0);
        }
        &mut dense[(offset * per + d) as usize]
    } else {
        sparse
            .entry((u64::from(offset) << 32) | u64::from(d))
            .or_insert(0)
    };
    if *known == 0 {
        let cost = |slot: u32, far: u32| {
            s.local_hops(from_local, slot / s.h)
                + 1
                + dst_local.map_or(0, |d| s.local_hops(far / s.h, d))
        };
        let best = s
            .slot_pairs(offset)
            .map(|(slot, far)| cost(slot, far))
            .min()
            .unwrap_or(u32::MAX);
        let start = slots.len();
        slots.extend(
            s.slot_pairs(offset)
                .filter(|&(slot, far)| cost(slot, far) == best)
                .map(|(slot, _)| slot),
        );
        let count = slots.len() - start;
        let packed = if count == 1 {
            pack_memo(1, best, slots[start] as usize).inspect(|_| slots.truncate(start))
        } else {
            pack_memo(count, best, start)
        };
        *known = packed.unwrap_or_else(|| {
            entries.push((best, start as u32, count as u32));
            entries.len() as u64
        });
    }
    let memo = *known;
    let (cost, low, count) = if memo & PACKED != 0 {
        (
            ((memo >> 32) & 0xFFFF) as u32,
            memo as u32,
            ((memo >> 48) & 0x7FFF) as u32,
        )
    } else {
        entries[memo as usize - 1]
    };
    match count {
        1 if memo & PACKED != 0 => (low, cost),
        0 | 1 => (slots[low as usize], cost),
        _ => {
            let pick = rng.below(u64::from(count)) as u32;
            (slots[(low + pick) as usize], cost)
        }
    }
}

/// Picks the global slot (in `from_group`) of a link toward group `to_group`, minimising
/// local hops from in-group router `from_local` to its owner plus (if `dst_local` is given)
/// from the far end to `dst_local`; ties broken with `rng`. Returns `(slot, links on the way
/// to and over the global link plus after it)`. The reference scan behind
/// [`choose_slot_cached`], which routers use.
#[cfg(test)]
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
    for (slot, far) in s.slot_pairs(offset) {
        let c = cost(slot, far);
        if c < best {
            (best, ties, first) = (c, 1, slot);
        } else if c == best {
            ties += 1;
        }
    }
    if ties <= 1 {
        return (first, best);
    }
    let pick = rng.below(ties) as usize;
    s.slot_pairs(offset)
        .filter(|&(slot, far)| cost(slot, far) == best)
        .nth(pick)
        .map_or((first, best), |(slot, _)| (slot, best))
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
    cache: &mut SlotCache,
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
                        choose_slot_cached(s, cache, here, local, dst_group, Some(dst_local), rng);
                    let inter = intermediate(s, here, dst_group, rng);
                    let (non_slot, non_first) =
                        choose_slot_cached(s, cache, here, local, inter, None, rng);
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
        pkt.slot = choose_slot_cached(s, cache, here, local, target, dst, rng).0 as u16;
    }
    let slot = u32::from(pkt.slot);
    let port = port_toward_slot(s, local, slot);
    if slot / s.h == local {
        pkt.ghops += 1;
        pkt.slot = NONE;
    }
    (port, vc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memo picks the same slot and consumes the same random draws as the scan, for every
    /// source router, target group and destination of an Aries shape with parallel global
    /// links (many ties) and of canonical dragonflies (dense and hashed memo).
    #[test]
    fn cached_slot_choice_equals_the_scan() {
        let shapes = [
            DragonflyShape {
                groups: 4,
                rows: 6,
                cols: 16,
                p: 4,
                h: 2,
            },
            DragonflyShape {
                groups: 9,
                rows: 1,
                cols: 8,
                p: 4,
                h: 4,
            },
            // Above DENSE_KEYS: the hashed memo.
            DragonflyShape {
                groups: 33,
                rows: 1,
                cols: 128,
                p: 1,
                h: 1,
            },
        ];
        for s in shapes {
            let rpg = s.routers_per_group();
            for from_local in (0..rpg).step_by(5) {
                let mut cache = SlotCache::default();
                let (mut a, mut b) = (Rng::seed_from_u64(7), Rng::seed_from_u64(7));
                for round in 0..3 {
                    for to in 1..s.groups {
                        for dst in std::iter::once(None).chain((0..rpg).map(Some)) {
                            let want = choose_slot(&s, 0, from_local, to, dst, &mut a);
                            let got =
                                choose_slot_cached(&s, &mut cache, 0, from_local, to, dst, &mut b);
                            assert_eq!(
                                got, want,
                                "from {from_local} to group {to} dst {dst:?} round {round}"
                            );
                        }
                    }
                }
                assert_eq!(a.next_u64(), b.next_u64(), "same random draws");
            }
        }
    }
}
