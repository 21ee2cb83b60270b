//! Dragonflies: groups of routers joined by global links.
//!
//! The canonical 1-D dragonfly (Kim et al., ISCA 2008) has `a` routers per group connected
//! all-to-all by local links, `p` terminals and `h` global links per router, and `g` groups.
//! The Cray Cascade/Aries variant ([`crate::aries`]) arranges a group as a `rows x cols` array
//! with all-to-all links inside each row and inside each column. Both share [`DragonflyShape`]:
//! the canonical dragonfly is a group of one row of `a` routers.
//!
//! Global wiring: a group has `routers_per_group * h` global slots; router `i` of a group owns
//! slots `i*h .. (i+1)*h`. Slot `s` of group `G` points to group `G + o` (mod `g`) with offset
//! `o = s mod (g-1) + 1` and copy `m = s div (g-1)`; it is wired to slot
//! `m*(g-1) + (g-o) - 1` of that group when both slots exist. With `g = a*h + 1` every pair of
//! groups has exactly one global link (Kim's maximal configuration); with fewer groups pairs get
//! several parallel links.
//!
//! Router ids: group by group, row-major inside a group. Port layout of every router:
//! `p` terminal ports, `cols - 1` row (local) ports, `rows - 1` column ports, `h` global ports,
//! then any ports added for extra terminals.

use crate::attach::{attach_extras, ExtraGroup, ExtraTerminals, Hosts};
use crate::error::{at_least, GroupParam, NetError, NetParam};
use crate::graph::{Builder, Wiring};
use crate::link::{LinkClass, LinkParams};
use bbsim_engine::time::NS;
use serde::{Deserialize, Serialize};

/// Parameters of a canonical 1-D dragonfly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DragonflyConfig {
    /// Routers per group (all-to-all local links), >= 1.
    pub a: u32,
    /// Terminal ports per router, >= 1.
    pub p: u32,
    /// Global links per router, >= 1 when there is more than one group.
    pub h: u32,
    /// Groups, 1 ..= `a*h + 1`.
    pub g: u32,
    /// Compute terminals (filled router by router); `None` fills every terminal port.
    #[serde(default)]
    pub terminals: Option<u32>,
    /// Terminal links (bytes/s, ps).
    pub terminal: LinkParams,
    /// Local (intra-group) links.
    pub local: LinkParams,
    /// Global (inter-group) links.
    pub global: LinkParams,
}

impl DragonflyConfig {
    /// The 1,056-node dragonfly of the benchmarks: `a = 8, p = 4, h = 4, g = 33`, 12.5 GB/s
    /// links, 50 ns local / 100 ns global latency.
    pub fn kim_1056() -> Self {
        DragonflyConfig {
            a: 8,
            p: 4,
            h: 4,
            g: 33,
            terminals: None,
            terminal: LinkParams::new(12_500_000_000, 50 * NS),
            local: LinkParams::new(12_500_000_000, 50 * NS),
            global: LinkParams::new(12_500_000_000, 100 * NS),
        }
    }

    pub(crate) fn shape(&self) -> DragonflyShape {
        DragonflyShape {
            groups: self.g,
            rows: 1,
            cols: self.a,
            p: self.p,
            h: self.h,
        }
    }

    /// Checks the parameters, naming the first bad one.
    pub fn validate(&self) -> Result<(), NetError> {
        let param = NetParam::Dragonfly;
        at_least(param(GroupParam::RoutersPerGroup), u64::from(self.a), 1)?;
        at_least(param(GroupParam::TerminalsPerRouter), u64::from(self.p), 1)?;
        validate_common(&self.shape(), param, self.terminals)?;
        self.terminal
            .validate(|l| param(GroupParam::TerminalLink(l)))?;
        self.local.validate(|l| param(GroupParam::LocalLink(l)))?;
        self.global.validate(|l| param(GroupParam::GlobalLink(l)))
    }
}

/// Checks group count, global links and terminal count of a dragonfly shape, naming the
/// fields as `param` (the dragonfly family's [`NetParam`]) does.
pub(crate) fn validate_common(
    s: &DragonflyShape,
    param: fn(GroupParam) -> NetParam,
    terminals: Option<u32>,
) -> Result<(), NetError> {
    at_least(param(GroupParam::Groups), u64::from(s.groups), 1)?;
    if s.groups > 1 {
        at_least(param(GroupParam::GlobalLinks), u64::from(s.h), 1)?;
    }
    let slots = u64::from(s.routers_per_group()) * u64::from(s.h);
    if u64::from(s.groups) > slots + 1 {
        return Err(NetError::invalid(
            param(GroupParam::Groups),
            format!("at most routers_per_group * h + 1 = {} so that every pair of groups has a global link", slots + 1),
            s.groups,
        ));
    }
    let routers = u64::from(s.routers_per_group()) * u64::from(s.groups);
    let ports = u64::from(s.p) + u64::from(s.cols) + u64::from(s.rows) + u64::from(s.h);
    if routers > u64::from(u32::MAX / 2) || ports > 60_000 {
        return Err(NetError::invalid(
            param(GroupParam::Size),
            "fewer than 2^31 routers and 60,000 ports per router",
            routers,
        ));
    }
    let capacity = routers * u64::from(s.p);
    if let Some(t) = terminals {
        at_least(param(GroupParam::Terminals), u64::from(t), 1)?;
        if u64::from(t) > capacity {
            return Err(NetError::invalid(
                param(GroupParam::Terminals),
                format!("at most {capacity} (routers x terminals per router)"),
                t,
            ));
        }
    }
    Ok(())
}

/// The resolved shape of a dragonfly (canonical: `rows = 1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DragonflyShape {
    /// Number of groups `g`.
    pub groups: u32,
    /// Rows of routers in a group (1 for the canonical dragonfly).
    pub rows: u32,
    /// Routers per row (`a` for the canonical dragonfly).
    pub cols: u32,
    /// Terminal ports per router.
    pub p: u32,
    /// Global links per router.
    pub h: u32,
}

impl DragonflyShape {
    /// Routers in a group.
    #[inline]
    pub fn routers_per_group(&self) -> u32 {
        self.rows * self.cols
    }

    /// All routers.
    pub fn routers(&self) -> u32 {
        self.routers_per_group() * self.groups
    }

    /// First row port.
    #[inline]
    pub fn row_base(&self) -> u32 {
        self.p
    }

    /// First column port.
    #[inline]
    pub fn col_base(&self) -> u32 {
        self.p + self.cols - 1
    }

    /// First global port.
    #[inline]
    pub fn global_base(&self) -> u32 {
        self.col_base() + self.rows - 1
    }

    /// Group of router `r`.
    #[inline]
    pub fn group(&self, r: u32) -> u32 {
        r / self.routers_per_group()
    }

    /// Index of router `r` inside its group.
    #[inline]
    pub fn local(&self, r: u32) -> u32 {
        r % self.routers_per_group()
    }

    /// Row port of a router in column `from` leading to column `to` of the same row.
    #[inline]
    pub fn row_port(&self, from: u32, to: u32) -> u16 {
        (self.row_base() + if to < from { to } else { to - 1 }) as u16
    }

    /// Column port of a router in row `from` leading to row `to` of the same column.
    #[inline]
    pub fn col_port(&self, from: u32, to: u32) -> u16 {
        (self.col_base() + if to < from { to } else { to - 1 }) as u16
    }

    /// Local hops between two routers of one group (0, 1, or 2: row then column).
    #[inline]
    pub fn local_hops(&self, a: u32, b: u32) -> u32 {
        if a == b {
            0
        } else if a / self.cols == b / self.cols || a % self.cols == b % self.cols {
            1
        } else {
            2
        }
    }

    /// The next local port from in-group router `a` toward in-group router `b != a`: a row hop
    /// to `b`'s column first, then a column hop. Returns the port and its class.
    #[inline]
    pub fn local_port(&self, a: u32, b: u32) -> u16 {
        let (ra, ca) = (a / self.cols, a % self.cols);
        let (rb, cb) = (b / self.cols, b % self.cols);
        if ca != cb {
            self.row_port(ca, cb)
        } else {
            self.col_port(ra, rb)
        }
    }

    /// Global slots per group.
    #[inline]
    pub fn slots(&self) -> u32 {
        self.routers_per_group() * self.h
    }

    /// The number of parallel global links from a group to the group `offset` (1..g) ahead.
    pub fn links_to_offset(&self, offset: u32) -> u32 {
        let g = self.groups;
        if g < 2 {
            return 0;
        }
        self.slot_pairs(offset).count() as u32
    }

    /// The `(slot, far slot)` pair of copy `m` of the links to the group `offset` ahead, if that
    /// link exists.
    #[inline]
    pub fn slot_pair(&self, offset: u32, m: u32) -> Option<(u32, u32)> {
        let g = self.groups;
        let s = m * (g - 1) + offset - 1;
        let far = m * (g - 1) + (g - offset) - 1;
        (s < self.slots() && far < self.slots()).then_some((s, far))
    }

    /// The `(slot, far slot)` pairs of every parallel link to the group `offset` (1..g) ahead,
    /// copy 0 first: [`Self::slot_pair`] for `m = 0, 1, ..` while the link exists.
    #[inline]
    pub fn slot_pairs(&self, offset: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..).map_while(move |m| self.slot_pair(offset, m))
    }

    /// Routers traversed on a minimal route from router `a` to router `b`.
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        let (ga, gb) = (self.group(a), self.group(b));
        let (la, lb) = (self.local(a), self.local(b));
        if ga == gb {
            return self.local_hops(la, lb) + 1;
        }
        let offset = (gb + self.groups - ga) % self.groups;
        let best = self
            .slot_pairs(offset)
            .map(|(s, far)| self.local_hops(la, s / self.h) + 1 + self.local_hops(far / self.h, lb))
            .min()
            .unwrap_or(u32::MAX);
        best + 1
    }
}

/// Routers on the minimal route between every two routers of a dragonfly, by (group offset,
/// local source, local destination): what [`DragonflyShape::hops`] computes by scanning every
/// global link between two groups, looked up in one byte.
#[derive(Clone, Debug)]
pub struct HopTable {
    groups: u32,
    per_group: u32,
    hops: Vec<u8>,
}

impl HopTable {
    /// Largest table (entries, one byte each) built; larger dragonflies compute each route.
    pub const MAX_ENTRIES: u64 = 64 << 20;

    /// The table of `s`, or `None` when it would exceed [`Self::MAX_ENTRIES`] or a route
    /// traverses more than 255 routers.
    pub fn new(s: &DragonflyShape) -> Option<Self> {
        let per_group = s.routers_per_group();
        let size = u64::from(s.groups) * u64::from(per_group) * u64::from(per_group);
        if size > Self::MAX_ENTRIES {
            return None;
        }
        let mut hops = Vec::with_capacity(size as usize);
        // Offset 0: routes inside a group (group 0's routers stand for any group's).
        for a in 0..per_group {
            for b in 0..per_group {
                hops.push(u8::try_from(s.hops(a, b)).ok()?);
            }
        }
        let mut far = FarSide::new(s);
        for offset in 1..s.groups {
            far.links.clear();
            far.links.extend(
                s.slot_pairs(offset)
                    .map(|(slot, far_slot)| (slot / s.h, far_slot / s.h)),
            );
            for a in 0..per_group {
                far.reach_from(s, a);
                for b in 0..per_group {
                    // Two routers besides the local hops: the global link's two ends.
                    let h = far.hops_to(s, b).checked_add(2)?;
                    hops.push(u8::try_from(h).ok()?);
                }
            }
        }
        Some(HopTable {
            groups: s.groups,
            per_group,
            hops,
        })
    }

    /// Routers traversed on a minimal route from router `a` to router `b` (both included).
    #[inline]
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        let (ga, gb) = (a / self.per_group, b / self.per_group);
        let offset = (gb + self.groups - ga) % self.groups;
        let i = (offset * self.per_group + a % self.per_group) as usize * self.per_group as usize
            + (b % self.per_group) as usize;
        u32::from(self.hops[i])
    }
}

/// Scratch for [`HopTable::new`]: the local hops from one source router, through the cheapest
/// global link to another group, to each router of that group, found in time proportional to
/// the links plus the routers rather than their product. Local hops within a group are 0 (the
/// router itself), 1 (same row or column) or 2, so the cheapest way to `b` from the far ends
/// is the least of: the far end at `b`, one more than the best far end in `b`'s row or column,
/// two more than the best far end anywhere.
struct FarSide {
    /// `(near router, far router)` of every global link to the group in hand, as local indices.
    links: Vec<(u32, u32)>,
    /// Fewest local hops from the source to the near end of a link whose far end is this
    /// router (`u32::MAX`: no link lands here).
    at: Vec<u32>,
    /// The least of `at` over each row and each column of the far group.
    row: Vec<u32>,
    col: Vec<u32>,
    /// The least of `at` over the group.
    any: u32,
}

impl FarSide {
    fn new(s: &DragonflyShape) -> Self {
        FarSide {
            links: Vec::new(),
            at: vec![u32::MAX; s.routers_per_group() as usize],
            row: vec![u32::MAX; s.rows as usize],
            col: vec![u32::MAX; s.cols as usize],
            any: u32::MAX,
        }
    }

    /// Fills the minima for source router `a` over [`Self::links`].
    fn reach_from(&mut self, s: &DragonflyShape, a: u32) {
        self.at.fill(u32::MAX);
        for &(near, far) in &self.links {
            let h = s.local_hops(a, near);
            let slot = &mut self.at[far as usize];
            *slot = (*slot).min(h);
        }
        self.row.fill(u32::MAX);
        self.col.fill(u32::MAX);
        for (r, &h) in self.at.iter().enumerate() {
            let r = r as u32;
            let row = &mut self.row[(r / s.cols) as usize];
            *row = (*row).min(h);
            let col = &mut self.col[(r % s.cols) as usize];
            *col = (*col).min(h);
        }
        self.any = self.row.iter().copied().min().unwrap_or(u32::MAX);
    }

    /// Fewest local hops, on both sides of a global link, from the source to far router `b`
    /// (`u32::MAX` when no link reaches the group).
    fn hops_to(&self, s: &DragonflyShape, b: u32) -> u32 {
        let line = self.row[(b / s.cols) as usize].min(self.col[(b % s.cols) as usize]);
        self.at[b as usize]
            .min(line.saturating_add(1))
            .min(self.any.saturating_add(2))
    }
}

/// Builds the routers, local and global links and terminals of a dragonfly shape.
pub(crate) fn build_shape(
    s: &DragonflyShape,
    terminals: Option<u32>,
    links: [LinkParams; 4],
    extras: &[ExtraTerminals],
) -> Result<(Wiring, u32, Vec<ExtraGroup>), NetError> {
    let [terminal, row, col, global] = links;
    let row_class = if s.rows == 1 {
        LinkClass::Local
    } else {
        LinkClass::Row
    };
    let rpg = s.routers_per_group();
    let routers = s.routers();
    let mut b = Builder::new(routers);
    for r in 0..routers {
        b.reserve(r, s.p + (s.cols - 1) + (s.rows - 1) + s.h);
    }
    for grp in 0..s.groups {
        let base = grp * rpg;
        for i in 0..rpg {
            let (ri, ci) = (i / s.cols, i % s.cols);
            for j in (i + 1)..rpg {
                let (rj, cj) = (j / s.cols, j % s.cols);
                if ri == rj {
                    b.connect(
                        base + i,
                        s.row_port(ci, cj),
                        base + j,
                        s.row_port(cj, ci),
                        row_class,
                        row,
                    );
                } else if ci == cj {
                    b.connect(
                        base + i,
                        s.col_port(ri, rj),
                        base + j,
                        s.col_port(rj, ri),
                        LinkClass::Column,
                        col,
                    );
                }
            }
        }
    }
    if s.groups > 1 {
        let g = s.groups;
        for grp in 0..g {
            for slot in 0..s.slots() {
                let offset = slot % (g - 1) + 1;
                let m = slot / (g - 1);
                let Some((_, far)) = s.slot_pair(offset, m) else {
                    continue;
                };
                let other = (grp + offset) % g;
                if (other, far) <= (grp, slot) {
                    continue;
                }
                let (ra, rb) = (grp * rpg + slot / s.h, other * rpg + far / s.h);
                let pa = (s.global_base() + slot % s.h) as u16;
                let pb = (s.global_base() + far % s.h) as u16;
                b.connect(ra, pa, rb, pb, LinkClass::Global, global);
            }
        }
    }
    let compute = terminals.unwrap_or(routers * s.p);
    for t in 0..compute {
        b.attach(t / s.p, (t % s.p) as u16, terminal);
    }
    let per_router = (0..routers)
        .map(|r| compute.saturating_sub(r * s.p).min(s.p))
        .collect();
    let group = (0..routers).map(|r| s.group(r)).collect();
    let mut hosts = Hosts::new((0..routers).collect(), per_router, Some(group));
    let p = s.p as u16;
    let groups = attach_extras(&mut b, &mut hosts, extras, terminal, |_| 0..p)?;
    Ok((b.finish(), compute, groups))
}
