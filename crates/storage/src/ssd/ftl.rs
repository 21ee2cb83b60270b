//! A page-mapped flash translation layer at erase-block granularity with greedy garbage
//! collection, over-provisioning, TRIM and stream placement.
//!
//! The mapping unit ("page") is configurable: 4 KiB reproduces a real FTL; large units (1 MiB
//! and up) keep whole-centre runs affordable, at the price of treating a partially overwritten
//! unit as fully rewritten. Memory: 8 bytes per physical page plus about 20 bytes per block.

use super::gc::ValidBuckets;
use super::stream::{StreamMap, StreamMode};
use crate::error::{positive, ConfigError, FtlField, SsdField};
use bbsim_engine::{Rng, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

const UNMAPPED: u32 = u32::MAX;

/// How the device starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Precondition {
    /// Factory fresh: every block erased, nothing mapped.
    Fresh,
    /// Every user page written once, sequentially (all user data valid, no stale pages).
    Full,
    /// `Full`, then `overwrite_passes × user pages` uniform random single-page overwrites (drawn
    /// from a stream seeded with `seed`), which brings greedy GC to its steady state. Counters
    /// are reset afterwards, so reports cover the simulated period only.
    Steady {
        /// Random overwrites as a multiple of the user page count (2–4 reaches steady state).
        overwrite_passes: u32,
        /// Seed of the preconditioning random stream.
        seed: u64,
    },
}

/// Flash translation layer settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FtlConfig {
    /// Mapping unit (flash page) in bytes. Host writes are rounded out to whole pages.
    pub page_size: u64,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// Spare factor `S_f`: the fraction of physical pages that is not user-addressable
    /// (over-provisioning), in `[0, 1)`.
    pub spare_factor: f64,
    /// Garbage collection runs while fewer than this many blocks are free (at least 1).
    pub gc_free_blocks: u32,
    /// Placement of host writes into open blocks.
    pub streams: StreamMode,
    /// Most streams (open blocks) a [`StreamMode::MultiStream`] device keeps at once (NVMe
    /// devices offer 8-16).
    pub max_streams: u32,
    /// Time to erase one block (ps), charged to the write that triggered the collection.
    pub erase_time: Time,
    /// Initial condition.
    pub precondition: Precondition,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            page_size: 4096,
            pages_per_block: 128,
            spare_factor: 0.07,
            gc_free_blocks: 2,
            streams: StreamMode::Legacy,
            max_streams: 16,
            erase_time: 0,
            precondition: Precondition::Fresh,
        }
    }
}

/// Geometry derived from a capacity and an [`FtlConfig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FtlGeometry {
    /// User-addressable pages `U` (capacity / page size, rounded down).
    pub user_pages: u32,
    /// Erase blocks.
    pub blocks: u32,
    /// Pages per block.
    pub pages_per_block: u32,
}

impl FtlGeometry {
    /// Physical pages `T`.
    pub fn physical_pages(&self) -> u64 {
        u64::from(self.blocks) * u64::from(self.pages_per_block)
    }
}

impl FtlConfig {
    /// Checks the settings for a device of `capacity` user bytes and derives the geometry.
    /// Errors name the FTL's fields as the SSD's (`SsdField::Ftl`), and the capacity as
    /// `SsdField::Capacity`.
    pub fn geometry(&self, capacity: u64) -> Result<FtlGeometry, ConfigError<SsdField>> {
        let ftl = SsdField::Ftl;
        positive(ftl(FtlField::PageSize), self.page_size)?;
        positive(
            ftl(FtlField::PagesPerBlock),
            u64::from(self.pages_per_block),
        )?;
        if !(self.spare_factor.is_finite() && (0.0..1.0).contains(&self.spare_factor)) {
            return Err(ConfigError::new(
                ftl(FtlField::SpareFactor),
                self.spare_factor,
                "must be in [0, 1)",
            ));
        }
        if self.gc_free_blocks == 0 {
            return Err(ConfigError::new(
                ftl(FtlField::GcFreeBlocks),
                0,
                "must be >= 1",
            ));
        }
        if self.streams == StreamMode::MultiStream && self.max_streams == 0 {
            return Err(ConfigError::new(
                ftl(FtlField::MaxStreams),
                0,
                "must be >= 1",
            ));
        }
        let block_bytes = self
            .page_size
            .saturating_mul(u64::from(self.pages_per_block));
        if capacity < block_bytes {
            return Err(ConfigError::new(
                SsdField::Capacity,
                format!("{capacity} bytes"),
                format!("must not be smaller than one erase block ({block_bytes} bytes)"),
            ));
        }
        let user = capacity / self.page_size;
        let ppb = u64::from(self.pages_per_block);
        let physical = (user as f64 / (1.0 - self.spare_factor)).ceil() as u64;
        let blocks = physical.div_ceil(ppb);
        if blocks.saturating_mul(ppb) >= u64::from(u32::MAX) {
            return Err(ConfigError::new(
                ftl(FtlField::PageSize),
                format!("{} physical pages", blocks.saturating_mul(ppb)),
                "must give at most 2^32 - 1 physical pages, which the FTL maps (use a larger \
                 mapping unit)",
            ));
        }
        let user_blocks = user.div_ceil(ppb);
        let needed = u64::from(self.gc_free_blocks)
            + u64::from(self.streams.open_blocks(self.max_streams))
            + 1;
        if blocks < user_blocks + needed {
            return Err(ConfigError::new(
                ftl(FtlField::SpareFactor),
                format!(
                    "{} ({} spare blocks)",
                    self.spare_factor,
                    blocks.saturating_sub(user_blocks)
                ),
                format!(
                    "must leave the {needed} spare blocks garbage collection needs \
                     (gc_free_blocks + open streams + 1)"
                ),
            ));
        }
        Ok(FtlGeometry {
            user_pages: user as u32,
            blocks: blocks as u32,
            pages_per_block: self.pages_per_block,
        })
    }
}

/// NAND work caused by one host write: garbage-collection page copies and block erases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GcWork {
    /// Valid pages copied by garbage collection.
    pub copies: u64,
    /// Blocks erased.
    pub erases: u64,
}

impl GcWork {
    fn add(&mut self, o: GcWork) {
        self.copies += o.copies;
        self.erases += o.erases;
    }
}

/// Running FTL counters (pages).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FtlCounters {
    /// Pages programmed on behalf of the host.
    pub host_pages: u64,
    /// Pages programmed by garbage collection (copies).
    pub gc_pages: u64,
    /// Blocks erased.
    pub erases: u64,
    /// Garbage-collection victim blocks processed.
    pub gc_victims: u64,
    /// Pages unmapped by TRIM.
    pub trimmed_pages: u64,
}

impl FtlCounters {
    /// Write amplification: NAND pages programmed per host page (1 when nothing was written).
    pub fn write_amplification(&self) -> f64 {
        if self.host_pages == 0 {
            1.0
        } else {
            (self.host_pages + self.gc_pages) as f64 / self.host_pages as f64
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Open {
    block: u32,
    next: u32,
}

/// The flash translation layer state of one device.
#[derive(Clone, Debug)]
pub struct Ftl {
    geo: FtlGeometry,
    page_size: u64,
    gc_free_blocks: u32,
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    valid: Vec<u32>,
    block_slot: Vec<u16>,
    free: VecDeque<u32>,
    open: Vec<Option<Open>>,
    closed: ValidBuckets,
    streams: StreamMap,
    counters: FtlCounters,
}

impl Ftl {
    /// Builds the FTL of a device with `capacity` user bytes and applies the preconditioning.
    pub fn new(capacity: u64, cfg: &FtlConfig) -> Result<Self, ConfigError<SsdField>> {
        let geo = cfg.geometry(capacity)?;
        let phys = geo.physical_pages() as usize;
        let blocks = geo.blocks as usize;
        let slots = cfg.streams.open_blocks(cfg.max_streams) as usize;
        let mut ftl = Ftl {
            geo,
            page_size: cfg.page_size,
            gc_free_blocks: cfg.gc_free_blocks,
            l2p: vec![UNMAPPED; geo.user_pages as usize],
            p2l: vec![UNMAPPED; phys],
            valid: vec![0; blocks],
            block_slot: vec![0; blocks],
            free: (0..geo.blocks).collect(),
            open: vec![None; slots],
            closed: ValidBuckets::new(blocks, geo.pages_per_block as usize),
            streams: StreamMap::new(cfg.streams, cfg.max_streams),
            counters: FtlCounters::default(),
        };
        match cfg.precondition {
            Precondition::Fresh => {}
            Precondition::Full => ftl.fill_sequential(),
            Precondition::Steady {
                overwrite_passes,
                seed,
            } => {
                ftl.fill_sequential();
                let mut rng = Rng::seed_from_u64(seed);
                let n = u64::from(overwrite_passes) * u64::from(geo.user_pages);
                let u = u64::from(geo.user_pages);
                for _ in 0..n {
                    let lpn = rng.below(u) as u32;
                    ftl.write_page(lpn, 0);
                }
            }
        }
        ftl.counters = FtlCounters::default();
        Ok(ftl)
    }

    fn fill_sequential(&mut self) {
        for lpn in 0..self.geo.user_pages {
            self.write_page(lpn, 0);
        }
    }

    /// The device geometry.
    pub fn geometry(&self) -> FtlGeometry {
        self.geo
    }

    /// Mapping unit in bytes.
    pub fn page_size(&self) -> u64 {
        self.page_size
    }

    /// Running counters.
    pub fn counters(&self) -> FtlCounters {
        self.counters
    }

    /// Resets the counters (for example after a warm-up phase).
    pub fn reset_counters(&mut self) {
        self.counters = FtlCounters::default();
    }

    /// Blocks currently erased and unused.
    pub fn free_blocks(&self) -> usize {
        self.free.len()
    }

    /// User pages currently mapped (holding valid data).
    pub fn mapped_pages(&self) -> u64 {
        self.valid.iter().map(|&v| u64::from(v)).sum()
    }

    /// The stream slot of stream key `stream`.
    pub fn slot_of(&mut self, stream: u32) -> usize {
        self.streams.slot(stream)
    }

    /// Writes logical page `lpn` into stream slot `slot` (from [`Ftl::slot_of`]; slots past the
    /// mode's count fold onto slot 0), running garbage collection as needed. Out-of-range pages
    /// are ignored and cost nothing.
    pub fn write_page(&mut self, lpn: u32, slot: usize) -> GcWork {
        if lpn >= self.geo.user_pages {
            return GcWork::default();
        }
        let slot = if slot < self.open.len() { slot } else { 0 };
        self.invalidate(lpn);
        let mut work = GcWork::default();
        self.program(lpn, slot, &mut work);
        self.counters.host_pages += 1;
        work
    }

    /// Writes the logical pages covering bytes `[offset, offset + len)` with stream key
    /// `stream`. Returns the pages written and the GC work.
    pub fn write_bytes(&mut self, offset: u64, len: u64, stream: u32) -> (u64, GcWork) {
        let Some((first, last)) = self.page_range(offset, len) else {
            return (0, GcWork::default());
        };
        let slot = self.streams.slot(stream);
        let mut work = GcWork::default();
        for lpn in first..=last {
            work.add(self.write_page(lpn, slot));
        }
        (u64::from(last - first) + 1, work)
    }

    /// TRIM: unmaps the logical pages wholly inside `[offset, offset + len)` (a deleted file).
    /// Returns the pages unmapped.
    pub fn trim_bytes(&mut self, offset: u64, len: u64) -> u64 {
        let ps = self.page_size;
        let first = offset.div_ceil(ps);
        let end = (offset.saturating_add(len) / ps).min(u64::from(self.geo.user_pages));
        let mut n = 0;
        for lpn in first..end {
            if self.invalidate(lpn as u32) {
                n += 1;
            }
        }
        self.counters.trimmed_pages += n;
        n
    }

    /// Inclusive logical page range touched by a byte range, clipped to the user space.
    fn page_range(&self, offset: u64, len: u64) -> Option<(u32, u32)> {
        if len == 0 {
            return None;
        }
        let ps = self.page_size;
        let first = offset / ps;
        let last = ((offset.saturating_add(len) - 1) / ps).min(u64::from(self.geo.user_pages) - 1);
        if first > last {
            return None;
        }
        Some((first as u32, last as u32))
    }

    /// Unmaps `lpn`; returns whether it was mapped.
    fn invalidate(&mut self, lpn: u32) -> bool {
        let old = self.l2p[lpn as usize];
        if old == UNMAPPED {
            return false;
        }
        self.l2p[lpn as usize] = UNMAPPED;
        self.p2l[old as usize] = UNMAPPED;
        let b = old / self.geo.pages_per_block;
        self.valid[b as usize] -= 1;
        self.closed.decrement(b);
        true
    }

    /// Programs `lpn` at the frontier of `slot`, opening a block (and collecting first if that
    /// would leave fewer than `gc_free_blocks` free) if needed.
    fn program(&mut self, lpn: u32, slot: usize, work: &mut GcWork) {
        if !self.has_room(slot) {
            self.close(slot);
            if self.free.len() <= self.gc_free_blocks as usize {
                self.collect(work);
            }
            // Collection may have opened (and even filled) a block for this slot.
            if !self.has_room(slot) {
                self.close(slot);
                self.open_block(slot);
            }
        }
        self.put(lpn, slot);
    }

    fn has_room(&self, slot: usize) -> bool {
        matches!(self.open[slot], Some(o) if o.next < self.geo.pages_per_block)
    }

    /// Moves the slot's open block (if any) to the closed set.
    fn close(&mut self, slot: usize) {
        if let Some(o) = self.open[slot].take() {
            self.closed.insert(o.block, self.valid[o.block as usize]);
        }
    }

    fn open_block(&mut self, slot: usize) {
        // Validation keeps more spare blocks than collection can ever hold back, so the free
        // list is never empty here (see `FtlConfig::geometry`).
        let block = self.free.pop_front().unwrap_or(0);
        self.block_slot[block as usize] = slot as u16;
        self.open[slot] = Some(Open { block, next: 0 });
    }

    /// Writes `lpn` into the slot's open block, which has room.
    fn put(&mut self, lpn: u32, slot: usize) {
        let ppb = self.geo.pages_per_block;
        if let Some(o) = self.open[slot].as_mut() {
            let ppn = o.block * ppb + o.next;
            o.next += 1;
            self.p2l[ppn as usize] = lpn;
            self.l2p[lpn as usize] = ppn;
            self.valid[(ppn / ppb) as usize] += 1;
        }
    }

    /// Greedy collection: cleans the closed block with the fewest valid pages until more than
    /// `gc_free_blocks` blocks are free. Copies go to the victim's own stream.
    fn collect(&mut self, work: &mut GcWork) {
        let ppb = self.geo.pages_per_block;
        while self.free.len() <= self.gc_free_blocks as usize {
            let Some((victim, valid)) = self.closed.pop_min() else {
                return;
            };
            if valid >= ppb {
                // Nothing to gain: every closed block is full of valid data.
                self.closed.insert(victim, valid);
                return;
            }
            self.counters.gc_victims += 1;
            let slot = usize::from(self.block_slot[victim as usize]);
            let base = victim * ppb;
            for ppn in base..base + ppb {
                let lpn = self.p2l[ppn as usize];
                if lpn == UNMAPPED {
                    continue;
                }
                self.p2l[ppn as usize] = UNMAPPED;
                self.l2p[lpn as usize] = UNMAPPED;
                if !self.has_room(slot) {
                    self.close(slot);
                    self.open_block(slot);
                }
                self.put(lpn, slot);
                self.counters.gc_pages += 1;
                work.copies += 1;
            }
            self.valid[victim as usize] = 0;
            self.free.push_back(victim);
            self.counters.erases += 1;
            work.erases += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(sf: f64) -> FtlConfig {
        FtlConfig {
            page_size: 4096,
            pages_per_block: 64,
            spare_factor: sf,
            ..FtlConfig::default()
        }
    }

    #[test]
    fn geometry_follows_spare_factor() {
        let g = cfg(0.2).geometry(64 * 4096 * 100).unwrap();
        assert_eq!(g.user_pages, 6400);
        assert_eq!(g.blocks, 125);
        assert_eq!(g.physical_pages(), 8000);
    }

    #[test]
    fn bad_settings_name_their_key() {
        assert_eq!(
            cfg(0.2).geometry(4096).unwrap_err().field,
            SsdField::Capacity
        );
        assert_eq!(
            cfg(1.0).geometry(1 << 30).unwrap_err().field,
            SsdField::Ftl(FtlField::SpareFactor)
        );
        assert_eq!(
            cfg(0.0).geometry(1 << 30).unwrap_err().field,
            SsdField::Ftl(FtlField::SpareFactor)
        );
        let mut c = cfg(0.2);
        c.page_size = 0;
        assert_eq!(
            c.geometry(1 << 30).unwrap_err().field,
            SsdField::Ftl(FtlField::PageSize)
        );
        c.page_size = 1;
        assert_eq!(
            c.geometry(1 << 40).unwrap_err().field,
            SsdField::Ftl(FtlField::PageSize)
        );
        let mut c = cfg(0.2);
        c.gc_free_blocks = 0;
        assert_eq!(
            c.geometry(1 << 30).unwrap_err().field,
            SsdField::Ftl(FtlField::GcFreeBlocks)
        );
        c.gc_free_blocks = 1;
        c.streams = StreamMode::MultiStream;
        c.max_streams = 0;
        assert_eq!(
            c.geometry(1 << 30).unwrap_err().field,
            SsdField::Ftl(FtlField::MaxStreams)
        );
    }

    #[test]
    fn sequential_fill_needs_no_gc_and_trim_unmaps() {
        let mut f = Ftl::new(64 * 4096 * 100, &cfg(0.2)).unwrap();
        let (pages, work) = f.write_bytes(0, 64 * 4096 * 100, 0);
        assert_eq!(pages, 6400);
        assert_eq!(work, GcWork::default());
        assert_eq!(f.mapped_pages(), 6400);
        // Partial pages at both ends are not trimmed.
        assert_eq!(f.trim_bytes(100, 3 * 4096), 2);
        assert_eq!(f.trim_bytes(0, 4096), 1);
        assert_eq!(f.mapped_pages(), 6397);
        assert_eq!(f.counters().trimmed_pages, 3);
        // Rewriting the whole device: the stale copies are in whole blocks, so GC copies nothing.
        let (_, work) = f.write_bytes(0, 64 * 4096 * 100, 0);
        assert_eq!(work.copies, 0);
        assert!(work.erases > 0);
        assert_eq!(f.counters().write_amplification(), 1.0);
    }

    #[test]
    fn trimmed_device_collects_for_free() {
        let mut f = Ftl::new(64 * 4096 * 100, &cfg(0.2)).unwrap();
        f.write_bytes(0, 64 * 4096 * 100, 0);
        // Delete everything, then write half the space in random order: every victim is empty.
        assert_eq!(f.trim_bytes(0, 64 * 4096 * 100), 6400);
        let mut order: Vec<u32> = (0..6400).step_by(2).collect();
        let mut rng = Rng::seed_from_u64(3);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut work = GcWork::default();
        for lpn in order {
            work.add(f.write_page(lpn, 0));
        }
        assert!(work.erases > 0, "collection ran");
        assert_eq!(work.copies, 0);
        assert_eq!(f.counters().gc_pages, 0);
        assert_eq!(f.mapped_pages(), 3200);
    }
}
