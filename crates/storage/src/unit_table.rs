//! The table of a BB server's allocated units: `(allocation, file, unit index)` → unit state,
//! with the units of each file listed in index order for whole-file operations (delete).
//!
//! Two tiers. Almost every unit, most of the time, is *settled* in a plain state: no write
//! pending, not draining, not deleted, and either wholly dirty (written, not yet drained) or
//! clean (drained, or staged in). Such a unit is fully described by its place (SSD and logical
//! unit address) and a few state bits, and the table keeps it in 7 bytes. A unit in any other
//! state (writes in progress, draining, deleted while busy, or partly dirty) is *active*: its
//! whole [`Unit`] record, dirty byte ranges included, is in a side map. [`UnitTable::get_mut`]
//! promotes a settled unit into the side map for good; [`UnitTable::update`] changes a unit
//! and folds it back into its slot if the change leaves it settled. The server changes a unit
//! through `update` wherever the change can settle it; a unit left active costs memory, never
//! a different result.
//!
//! Units are kept in pages of 64 consecutive unit indices of one file: a page is a presence
//! bitmap and, in index order, each present unit's slot (SSD, address, state bits), and a page
//! table (a hash map keyed by allocation, file and page number) finds them. A unit is found by
//! one hash probe and a population count. Why pages: a full-scale study run writes tens of
//! millions of 128 KiB units (GTC alone: 39 M). One hash entry per unit with its own ordered
//! index cost about 150 bytes per unit (8.6 GB for GTC); pages of full records, 46. A server
//! keeps a file's stripes packed back to back (`placement::Layout::split`), so the units it
//! holds of a file have consecutive indices and a large file's pages are full: a page costs 48
//! bytes in the page table (load factor 0.44 to 0.875) plus its 64 slots, about 9 bytes per
//! settled unit ([`UnitTable::heap_bytes`]; docs/performance.md). A page of one unit, as most
//! are where ranks write a small file per step, keeps its slot inline and allocates nothing.
//! Slots hold their state bits themselves rather than in per-page bitmaps, which would make a
//! page-table entry 32 bytes larger.
//!
//! Why not extents (one record per run of consecutive units): a run shares neither a device nor
//! an address range. The server takes each unit's logical address from its SSD's allocator in
//! the order writes arrive (ranks write their files at the same time, so one file's units
//! interleave with others' in address space) and gives freed addresses back for reuse, and a
//! file's chunks alternate over the server's SSDs. An extent would have to carry every unit's
//! address, or the allocator would have to hand out per-file address ranges, which changes what
//! the SSDs are asked to write (their TRIM and garbage collection follow the addresses). The
//! pages above keep the per-unit address at 7 bytes a unit; what a study run holds besides is
//! mostly per file, not per unit (docs/performance.md, "BB server state per unit written").
//!
//! Why not one ordered map: a full-scale DataWarp server holds tens of thousands of units
//! (77 TB in 8 MiB units over 140 servers is about 65,000 each) and every 1 MiB transfer looks
//! its unit up several times. In an ordered tree each lookup walks four or five nodes that are
//! rarely in cache; a hash lookup touches one bucket. The hasher is `rustc_hash`'s Fx hash,
//! which has no random state, and nothing iterates the hash tables, so runs stay deterministic;
//! the per-file lists of page numbers (ordered sets) give whole-file walks in unit order.

use crate::intervals::Intervals;
use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;
use std::collections::BTreeSet;
use std::mem::size_of;

/// A unit's key: (allocation or capacity account, global file id, unit index in the file).
pub type UnitKey = (u32, u64, u64);

/// One allocated unit's whole state (32 bytes): what the server reads and changes while a unit
/// is active.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Bytes of the unit written and not yet handed to the drain (offsets within the unit).
    pub dirty: Intervals,
    /// Logical unit address on its SSD (bytes `lba · unit` onwards).
    pub lba: u32,
    /// Write pieces submitted to the SSD and not yet complete.
    pub pending_writes: u32,
    /// Drain transfers of the unit not yet acknowledged by the PFS.
    pub draining: u32,
    /// The SSD (or array device) holding it.
    pub ssd: u16,
    /// State bits.
    pub flags: UnitFlags,
}

/// A unit's state bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitFlags(u8);

impl UnitFlags {
    /// In its allocation's drain queue.
    pub const QUEUED: u8 = 1;
    /// Deleted while busy: evict once settled.
    pub const DOOMED: u8 = 2;
    /// Drained to the PFS at least once.
    pub const DRAINED: u8 = 4;

    /// Whether `bit` is set.
    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// Sets or clears `bit`.
    pub fn set(&mut self, bit: u8, on: bool) {
        if on {
            self.0 |= bit;
        } else {
            self.0 &= !bit;
        }
    }
}

/// Slot state bit: the unit's record is in the side map (the other bits are then unused).
const ACTIVE: u8 = 0x80;
/// Slot state bit: settled and wholly dirty (clear: settled and clean).
const FULL: u8 = 0x40;
/// The [`UnitFlags`] bits a settled unit may have, kept as they are in its slot.
const SETTLED_FLAGS: u8 = UnitFlags::QUEUED | UnitFlags::DRAINED;

/// One present unit in a page, 7 bytes: its address (little-endian `u32`), its SSD
/// (little-endian `u16`) and its state bits ([`ACTIVE`], [`FULL`], [`SETTLED_FLAGS`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot([u8; 7]);

impl Slot {
    fn new(ssd: u16, lba: u32, state: u8) -> Self {
        let [a, b, c, d] = lba.to_le_bytes();
        let [e, f] = ssd.to_le_bytes();
        Slot([a, b, c, d, e, f, state])
    }

    fn lba(self) -> u32 {
        let [a, b, c, d, ..] = self.0;
        u32::from_le_bytes([a, b, c, d])
    }

    fn ssd(self) -> u16 {
        u16::from_le_bytes([self.0[4], self.0[5]])
    }

    fn state(self) -> u8 {
        self.0[6]
    }

    fn set_state(&mut self, state: u8) {
        self.0[6] = state;
    }

    fn is_active(self) -> bool {
        self.state() & ACTIVE != 0
    }

    /// The whole record of a settled unit of `unit_bytes` bytes.
    fn expand(self, unit_bytes: u64) -> Unit {
        let state = self.state();
        Unit {
            dirty: if state & FULL != 0 {
                Intervals::whole(unit_bytes)
            } else {
                Intervals::default()
            },
            lba: self.lba(),
            pending_writes: 0,
            draining: 0,
            ssd: self.ssd(),
            flags: UnitFlags(state & SETTLED_FLAGS),
        }
    }
}

/// The slot state of `u` if it is settled in a plain state (no write pending, not draining,
/// not doomed, wholly dirty or clean); `None` if it must stay active.
fn settled_state(u: &Unit, unit_bytes: u64) -> Option<u8> {
    if u.pending_writes > 0 || u.draining > 0 || u.flags.has(UnitFlags::DOOMED) {
        return None;
    }
    let full = if u.dirty.is_empty() {
        0
    } else if u.dirty.is_whole(unit_bytes) {
        FULL
    } else {
        return None;
    };
    Some(full | (u.flags.0 & SETTLED_FLAGS))
}

/// Unit indices per page (a power of two: the presence bitmap is one `u64`).
const PAGE_UNITS: u64 = 64;

/// A page's key: (allocation, file, unit index / [`PAGE_UNITS`]).
type PageKey = (u32, u64, u64);

/// A page's room for slots: one slot inline (a page with one present unit, as most pages of a
/// run that writes a file per rank and step are), or a boxed slice whose length is the room.
/// Both fit in 16 bytes: the inline slot sits beside the box pointer's null niche.
#[derive(Clone, Debug)]
enum Slots {
    One(Slot),
    Many(Box<[Slot]>),
}

impl Default for Slots {
    fn default() -> Self {
        Slots::One(Slot::default())
    }
}

impl Slots {
    /// The room, used or not.
    fn as_slice(&self) -> &[Slot] {
        match self {
            Slots::One(s) => std::slice::from_ref(s),
            Slots::Many(b) => b,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [Slot] {
        match self {
            Slots::One(s) => std::slice::from_mut(s),
            Slots::Many(b) => b,
        }
    }

    /// Heap bytes (none inline).
    fn heap_bytes(&self) -> usize {
        match self {
            Slots::One(_) => 0,
            Slots::Many(b) => b.len() * size_of::<Slot>(),
        }
    }
}

/// The present units of 64 consecutive unit indices of one file.
#[derive(Clone, Debug, Default)]
struct Page {
    /// Bit `i`: unit `page * 64 + i` is present.
    present: u64,
    /// The present units' slots in index order, then spare room (so a page is 24 bytes, and
    /// one of a single unit allocates nothing).
    slots: Slots,
}

impl Page {
    /// Where unit bit `bit` is (or would be) in `slots`.
    fn slot(&self, bit: u32) -> usize {
        (self.present & ((1u64 << bit) - 1)).count_ones() as usize
    }

    fn has(&self, bit: u32) -> bool {
        self.present & (1u64 << bit) != 0
    }

    fn count(&self) -> usize {
        self.present.count_ones() as usize
    }

    /// The slot at position `i`.
    fn at(&self, i: usize) -> Slot {
        self.slots.as_slice()[i]
    }

    /// The slot at position `i`, mutable.
    fn at_mut(&mut self, i: usize) -> &mut Slot {
        &mut self.slots.as_mut_slice()[i]
    }

    /// Slots the page has room for.
    fn room(&self) -> usize {
        self.slots.as_slice().len()
    }

    /// Adds unit bit `bit` (absent) with slot `s`, doubling the room when it is full (from one
    /// inline slot to four boxed ones).
    fn insert(&mut self, bit: u32, s: Slot) {
        let (i, n) = (self.slot(bit), self.count());
        if n == self.room() {
            let old = self.slots.as_slice();
            let room = (2 * n).clamp(4, PAGE_UNITS as usize);
            let mut grown = Vec::with_capacity(room);
            grown.extend_from_slice(&old[..i]);
            grown.push(s);
            grown.extend_from_slice(&old[i..n]);
            grown.resize(room, Slot::default());
            self.slots = Slots::Many(grown.into_boxed_slice());
        } else {
            let slots = self.slots.as_mut_slice();
            slots.copy_within(i..n, i + 1);
            slots[i] = s;
        }
        self.present |= 1u64 << bit;
    }

    /// Removes unit bit `bit` (present), returning its slot; halves the room when a quarter
    /// or less of it is used, and keeps a last unit inline.
    fn remove(&mut self, bit: u32) -> Slot {
        let (i, n) = (self.slot(bit), self.count());
        let slots = self.slots.as_mut_slice();
        let s = slots[i];
        slots.copy_within(i + 1..n, i);
        self.present &= !(1u64 << bit);
        let room = slots.len();
        if n - 1 <= 1 {
            self.slots = Slots::One(slots[0]);
        } else if n - 1 <= room / 4 && room > 4 {
            self.slots = Slots::Many(slots[..room / 2].into());
        }
        s
    }
}

/// The page key and the bit of unit `key`.
fn locate(key: &UnitKey) -> (PageKey, u32) {
    (
        (key.0, key.1, key.2 / PAGE_UNITS),
        (key.2 % PAGE_UNITS) as u32,
    )
}

/// Bytes a hash map's table takes for its capacity: hashbrown's buckets (capacity 7/8 of them,
/// or one less below 8) of one entry and one control byte each, plus one group of control
/// bytes.
fn hash_table_bytes<K, V>(m: &FxHashMap<K, V>) -> usize {
    let cap = m.capacity();
    if cap == 0 {
        return 0;
    }
    let buckets = if cap < 8 { cap + 1 } else { cap / 7 * 8 };
    buckets * (size_of::<(K, V)>() + 1) + 16
}

/// Bytes of a `BTreeSet<u64>` of `len` keys, estimated: leaf nodes of room for 11 keys
/// (104 bytes) at least 5 of them used, plus the root.
fn ordered_set_bytes(len: usize) -> usize {
    (len / 5 + 1) * 104
}

/// A file's page numbers on one server, in order. Most files a server holds fill one page
/// (a study run with a file per rank and step puts millions of one-unit files on the servers),
/// so one page is kept inline and only a second one makes an ordered set: an empty
/// `BTreeSet` costs nothing, but its first key allocates a 104-byte node.
#[derive(Clone, Debug)]
enum PageList {
    One(u64),
    Many(BTreeSet<u64>),
}

impl PageList {
    /// Adds page `pg` (absent).
    fn insert(&mut self, pg: u64) {
        match self {
            PageList::One(first) => {
                let set = BTreeSet::from([*first, pg]);
                *self = PageList::Many(set);
            }
            PageList::Many(set) => {
                set.insert(pg);
            }
        }
    }

    /// Removes page `pg`; returns whether no page is left.
    fn remove(&mut self, pg: u64) -> bool {
        match self {
            PageList::One(first) => *first == pg,
            PageList::Many(set) => {
                set.remove(&pg);
                set.is_empty()
            }
        }
    }

    /// The pages in order.
    fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let (one, many) = match self {
            PageList::One(pg) => (Some(*pg), None),
            PageList::Many(set) => (None, Some(set.iter().copied())),
        };
        one.into_iter().chain(many.into_iter().flatten())
    }

    /// Heap bytes beside the list itself.
    fn heap_bytes(&self) -> usize {
        match self {
            PageList::One(_) => 0,
            PageList::Many(set) => ordered_set_bytes(set.len()),
        }
    }
}

/// A BB server's allocated units: settled ones in 7-byte slots in pages, active ones also in
/// a side map with their whole [`Unit`] record.
#[derive(Clone, Debug)]
pub struct UnitTable {
    /// The allocation unit (bytes): a settled unit is dirty in `[0, unit_bytes)` or clean.
    unit_bytes: u64,
    pages: FxHashMap<PageKey, Page>,
    files: FxHashMap<(u32, u64), PageList>,
    /// The records of the active units.
    active: FxHashMap<UnitKey, Unit>,
    len: usize,
}

impl UnitTable {
    /// An empty table of units of `unit_bytes` bytes (at most 2 GiB).
    pub fn new(unit_bytes: u64) -> Self {
        UnitTable {
            unit_bytes,
            pages: FxHashMap::default(),
            files: FxHashMap::default(),
            active: FxHashMap::default(),
            len: 0,
        }
    }

    /// The slot of unit `key`.
    fn slot(&self, key: &UnitKey) -> Option<Slot> {
        let (pk, bit) = locate(key);
        let page = self.pages.get(&pk)?;
        page.has(bit).then(|| page.at(page.slot(bit)))
    }

    /// Whether unit `key` is allocated.
    #[inline]
    pub fn contains_key(&self, key: &UnitKey) -> bool {
        let (pk, bit) = locate(key);
        self.pages.get(&pk).is_some_and(|p| p.has(bit))
    }

    /// Where unit `key` lives: (SSD, logical unit address), without promoting it.
    #[inline]
    pub fn place(&self, key: &UnitKey) -> Option<(u16, u32)> {
        self.slot(key).map(|s| (s.ssd(), s.lba()))
    }

    /// Unit `key`'s state, mutable: a settled unit is promoted into the side map and stays
    /// there (for changes that leave it busy; see [`UnitTable::update`]).
    #[inline]
    pub fn get_mut(&mut self, key: &UnitKey) -> Option<&mut Unit> {
        let (pk, bit) = locate(key);
        let page = self.pages.get_mut(&pk)?;
        if !page.has(bit) {
            return None;
        }
        let i = page.slot(bit);
        Some(promote(
            &mut self.active,
            page.at_mut(i),
            *key,
            self.unit_bytes,
        ))
    }

    /// Unit `key`'s state, mutable, made by `make` first if the unit is not allocated: one
    /// page lookup where `contains_key`, an insert and `get_mut` take three. The unit is
    /// active afterwards (see [`UnitTable::get_mut`]).
    pub fn get_or_insert_with(&mut self, key: UnitKey, make: impl FnOnce() -> Unit) -> &mut Unit {
        let (pk, bit) = locate(&key);
        let files = &mut self.files;
        let page = self.pages.entry(pk).or_insert_with(|| {
            match files.entry((pk.0, pk.1)) {
                Entry::Occupied(mut e) => e.get_mut().insert(pk.2),
                Entry::Vacant(e) => {
                    e.insert(PageList::One(pk.2));
                }
            }
            Page::default()
        });
        if !page.has(bit) {
            let u = make();
            page.insert(bit, Slot::new(u.ssd, u.lba, ACTIVE));
            self.len += 1;
            return self.active.entry(key).or_insert(u);
        }
        let i = page.slot(bit);
        promote(&mut self.active, page.at_mut(i), key, self.unit_bytes)
    }

    /// Applies `change` to unit `key`'s state (`None` if the unit is not allocated), then keeps
    /// the unit in its slot alone if it is left settled in a plain state (no write pending,
    /// not draining, not doomed, wholly dirty or clean), else in the side map: a
    /// [`UnitTable::get_mut`] that folds the unit back, in one page and one side-map lookup.
    pub fn update<R>(&mut self, key: &UnitKey, change: impl FnOnce(&mut Unit) -> R) -> Option<R> {
        let (pk, bit) = locate(key);
        let page = self.pages.get_mut(&pk)?;
        if !page.has(bit) {
            return None;
        }
        let i = page.slot(bit);
        let slot = page.at_mut(i);
        let unit_bytes = self.unit_bytes;
        Some(match self.active.entry(*key) {
            Entry::Occupied(mut e) => {
                let r = change(e.get_mut());
                if let Some(state) = settled_state(e.get(), unit_bytes) {
                    slot.set_state(state);
                    e.remove();
                }
                r
            }
            Entry::Vacant(e) => {
                let mut u = slot.expand(unit_bytes);
                let r = change(&mut u);
                match settled_state(&u, unit_bytes) {
                    Some(state) => slot.set_state(state),
                    None => {
                        slot.set_state(ACTIVE);
                        e.insert(u);
                    }
                }
                r
            }
        })
    }

    /// Removes unit `key`, returning its state (from whichever tier holds it).
    pub fn remove(&mut self, key: &UnitKey) -> Option<Unit> {
        let (pk, bit) = locate(key);
        let page = self.pages.get_mut(&pk)?;
        if !page.has(bit) {
            return None;
        }
        let s = page.remove(bit);
        self.len -= 1;
        if page.present == 0 {
            self.pages.remove(&pk);
            if let Entry::Occupied(mut e) = self.files.entry((pk.0, pk.1)) {
                if e.get_mut().remove(pk.2) {
                    e.remove();
                }
            }
        }
        if s.is_active() {
            self.active.remove(key)
        } else {
            Some(s.expand(self.unit_bytes))
        }
    }

    /// The keys of `file`'s units in allocation `alloc`, in unit-index order.
    pub fn file_keys(&self, alloc: u32, file: u64) -> Vec<UnitKey> {
        let Some(list) = self.files.get(&(alloc, file)) else {
            return Vec::new();
        };
        let mut keys = Vec::new();
        for pg in list.iter() {
            let mut bits = self.pages[&(alloc, file, pg)].present;
            while bits != 0 {
                let bit = u64::from(bits.trailing_zeros());
                keys.push((alloc, file, pg * PAGE_UNITS + bit));
                bits &= bits - 1;
            }
        }
        keys
    }

    /// The keys of every allocated unit, in key order (allocation, file, unit index). It walks
    /// the whole table: for rare whole-server operations only.
    pub fn keys(&self) -> Vec<UnitKey> {
        let mut files: Vec<(u32, u64)> = self.files.keys().copied().collect();
        files.sort_unstable();
        files
            .into_iter()
            .flat_map(|(alloc, file)| self.file_keys(alloc, file))
            .collect()
    }

    /// Units allocated.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no unit is allocated.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Units whose whole record is in the side map (active, or promoted by `get_mut`).
    pub fn active_len(&self) -> usize {
        self.active.len()
    }

    /// Bytes the table takes on the heap, estimated from capacities (hash tables, slots, the
    /// side map's out-of-line dirty ranges) and the ordered page lists' lengths; the
    /// allocator's own overhead is not counted.
    pub fn heap_bytes(&self) -> usize {
        let slots: usize = self.pages.values().map(|p| p.slots.heap_bytes()).sum();
        let lists: usize = self.files.values().map(PageList::heap_bytes).sum();
        let ranges: usize = self.active.values().map(|u| u.dirty.heap_bytes()).sum();
        hash_table_bytes(&self.pages)
            + slots
            + hash_table_bytes(&self.files)
            + lists
            + hash_table_bytes(&self.active)
            + ranges
    }

    /// Unit `key`'s whole state, from whichever tier holds it.
    #[cfg(test)]
    fn state(&self, key: &UnitKey) -> Option<Unit> {
        let s = self.slot(key)?;
        if s.is_active() {
            self.active.get(key).cloned()
        } else {
            Some(s.expand(self.unit_bytes))
        }
    }
}

/// The side-map record of the unit in slot `s`, made from the slot first if it is settled.
fn promote<'a>(
    active: &'a mut FxHashMap<UnitKey, Unit>,
    s: &mut Slot,
    key: UnitKey,
    unit_bytes: u64,
) -> &'a mut Unit {
    let settled = *s;
    s.set_state(ACTIVE);
    active
        .entry(key)
        .or_insert_with(|| settled.expand(unit_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const UNIT: u64 = 128 << 10;

    /// Folds unit `key` back into its slot if it is settled.
    fn compact(t: &mut UnitTable, key: &UnitKey) {
        t.update(key, |_| ());
    }

    fn fresh(ssd: u16, lba: u32) -> Unit {
        Unit {
            dirty: Intervals::default(),
            lba,
            pending_writes: 0,
            draining: 0,
            ssd,
            flags: UnitFlags::default(),
        }
    }

    #[test]
    fn a_unit_record_is_32_bytes_and_a_slot_7() {
        assert_eq!(size_of::<Unit>(), 32);
        assert_eq!(size_of::<Slot>(), 7);
        assert_eq!(size_of::<Page>(), 24);
    }

    #[test]
    fn settled_units_leave_the_side_map_and_busy_or_partly_dirty_ones_stay() {
        let mut t = UnitTable::new(UNIT);
        // Written wholly, write complete: settles.
        let u = t.get_or_insert_with((1, 5, 0), || fresh(3, 77));
        u.dirty.insert(0, UNIT);
        u.pending_writes += 1;
        compact(&mut t, &(1, 5, 0));
        assert_eq!(t.active_len(), 1, "a write pending keeps it active");
        t.get_mut(&(1, 5, 0)).unwrap().pending_writes -= 1;
        compact(&mut t, &(1, 5, 0));
        assert_eq!(t.active_len(), 0, "wholly dirty and idle: compact");
        assert_eq!(t.place(&(1, 5, 0)), Some((3, 77)));
        // A change that leaves it settled does not bring it into the side map.
        t.update(&(1, 5, 0), |u| u.flags.set(UnitFlags::QUEUED, true));
        assert_eq!(t.active_len(), 0);
        assert!(t.state(&(1, 5, 0)).unwrap().flags.has(UnitFlags::QUEUED));
        t.update(&(1, 5, 0), |u| u.flags.set(UnitFlags::QUEUED, false));
        let back = t.state(&(1, 5, 0)).unwrap();
        assert!(back.dirty.is_whole(UNIT) && back.flags == UnitFlags::default());
        // Partly dirty: stays.
        let u = t.get_or_insert_with((1, 5, 1), || fresh(0, 1));
        u.dirty.insert(0, UNIT - 1);
        compact(&mut t, &(1, 5, 1));
        assert_eq!(t.active_len(), 1);
        // Draining, doomed: stay; drained and clean: settles with its DRAINED bit.
        let u = t.get_mut(&(1, 5, 0)).unwrap();
        u.dirty.clear();
        u.draining = 1;
        compact(&mut t, &(1, 5, 0));
        assert_eq!(t.active_len(), 2);
        let u = t.get_mut(&(1, 5, 0)).unwrap();
        u.draining = 0;
        u.flags.set(UnitFlags::DRAINED, true);
        u.flags.set(UnitFlags::DOOMED, true);
        compact(&mut t, &(1, 5, 0));
        assert_eq!(t.active_len(), 2, "doomed");
        t.get_mut(&(1, 5, 0))
            .unwrap()
            .flags
            .set(UnitFlags::DOOMED, false);
        compact(&mut t, &(1, 5, 0));
        assert_eq!(t.active_len(), 1);
        let back = t.state(&(1, 5, 0)).unwrap();
        assert!(back.dirty.is_empty() && back.flags.has(UnitFlags::DRAINED));
        // Removing returns the record from either tier.
        assert_eq!(t.remove(&(1, 5, 0)).map(|u| (u.ssd, u.lba)), Some((3, 77)));
        assert_eq!(t.remove(&(1, 5, 1)).map(|u| u.dirty.len()), Some(UNIT - 1));
        assert!(t.is_empty() && t.active_len() == 0);
    }

    /// A random unit state: dirty empty, whole, partial or in pieces; writes pending and
    /// drains in flight or not; any flags.
    fn mutate(u: &mut Unit, x: u64) {
        u.dirty.clear();
        match x % 5 {
            0 | 1 => {}
            2 => {
                u.dirty.insert(0, UNIT);
            }
            3 => {
                u.dirty.insert(x % 1000, UNIT - (x >> 10) % 1000);
            }
            _ => {
                u.dirty.insert(0, 10);
                u.dirty.insert(100, UNIT);
            }
        }
        u.pending_writes = u32::from((x >> 3) % 6 == 0);
        u.draining = u32::from((x >> 6) % 6 == 0);
        u.flags = UnitFlags(((x >> 9) % 8) as u8 & SETTLED_FLAGS);
        u.flags.set(UnitFlags::DOOMED, (x >> 12) % 6 == 0);
    }

    #[test]
    fn both_tiers_agree_with_an_ordered_map_under_random_operations() {
        let mut t = UnitTable::new(UNIT);
        let mut reference: BTreeMap<UnitKey, Unit> = BTreeMap::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let (mut promoted, mut compacted) = (0, 0);
        for step in 0..6_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Two allocations, three files, indices around page edges and far apart.
            let key = (
                (x % 2) as u32,
                (x >> 8) % 3,
                match (x >> 16) % 4 {
                    0 => (x >> 20) % 130,
                    1 => 63 + (x >> 20) % 3,
                    2 => (x >> 20) % 4 * 4,
                    _ => u64::MAX - (x >> 20) % 70,
                },
            );
            let y = x >> 30;
            match y % 7 {
                0 => assert_eq!(t.remove(&key), reference.remove(&key), "step {step}"),
                1 | 2 => {
                    if t.contains_key(&key) && !t.active.contains_key(&key) {
                        promoted += 1;
                    }
                    let made = fresh((y >> 3) as u16, (y >> 19) as u32);
                    let u = t.get_or_insert_with(key, || made.clone());
                    let r = reference.entry(key).or_insert(made);
                    assert_eq!(u, r, "step {step}");
                    mutate(u, y >> 5);
                    mutate(r, y >> 5);
                }
                3 => {
                    // Promote and change, as the server does through get_mut.
                    let was_active = t.active.contains_key(&key);
                    match (t.get_mut(&key), reference.get_mut(&key)) {
                        (Some(u), Some(r)) => {
                            assert_eq!(u, r, "step {step}");
                            if !was_active {
                                promoted += 1;
                            }
                            if (y >> 3) % 2 == 0 {
                                mutate(u, y >> 5);
                                mutate(r, y >> 5);
                            }
                        }
                        (None, None) => {}
                        _ => panic!("step {step}: presence differs"),
                    }
                }
                4 => {
                    // Change and fold back if settled, as the server does through update.
                    let got = t.update(&key, |u| {
                        let was = u.clone();
                        mutate(u, y >> 5);
                        was
                    });
                    if let Some(r) = reference.get_mut(&key) {
                        assert_eq!(got.as_ref(), Some(&*r), "step {step}");
                        mutate(r, y >> 5);
                        let settles = settled_state(r, UNIT).is_some();
                        assert_eq!(t.active.contains_key(&key), !settles, "step {step}");
                    } else {
                        assert!(got.is_none());
                    }
                }
                _ => {
                    let before = t.active_len();
                    compact(&mut t, &key);
                    let settles = reference
                        .get(&key)
                        .and_then(|r| settled_state(r, UNIT))
                        .is_some();
                    if t.active_len() < before {
                        compacted += 1;
                    }
                    if let Some(s) = t.slot(&key) {
                        assert_eq!(!s.is_active(), settles, "step {step}");
                    }
                }
            }
            assert_eq!(t.len(), reference.len());
            for (k, r) in &reference {
                assert_eq!(t.state(k).as_ref(), Some(r), "step {step}, unit {k:?}");
                assert_eq!(t.place(k), Some((r.ssd, r.lba)));
            }
            assert_eq!(t.state(&key).is_some(), reference.contains_key(&key));
            let all: Vec<UnitKey> = reference.keys().copied().collect();
            assert_eq!(t.keys(), all, "step {step}: every key, in key order");
        }
        assert!(promoted > 100 && compacted > 100, "{promoted} {compacted}");
        for alloc in 0..2 {
            for file in 0..3 {
                let want: Vec<UnitKey> = reference
                    .range((alloc, file, 0)..=(alloc, file, u64::MAX))
                    .map(|(&k, _)| k)
                    .collect();
                assert_eq!(t.file_keys(alloc, file), want);
            }
        }
        let keys: Vec<UnitKey> = reference.keys().copied().collect();
        for k in &keys {
            assert_eq!(t.remove(k).as_ref(), reference.get(k));
        }
        assert!(t.is_empty() && t.active_len() == 0 && t.pages.is_empty() && t.files.is_empty());
    }

    #[test]
    fn file_keys_are_in_unit_order_and_follow_inserts_and_removes() {
        let mut t = UnitTable::new(UNIT);
        for i in [7u64, 2, 9, 0] {
            t.get_or_insert_with((1, 5, i), || fresh(0, i as u32));
        }
        t.get_or_insert_with((1, 6, 3), || fresh(0, 0));
        t.get_or_insert_with((2, 5, 1), || fresh(0, 0));
        t.get_or_insert_with((1, 5, 2), || unreachable!("present"));
        assert_eq!(t.len(), 6);
        assert_eq!(
            t.file_keys(1, 5),
            vec![(1, 5, 0), (1, 5, 2), (1, 5, 7), (1, 5, 9)]
        );
        assert_eq!(t.remove(&(1, 5, 7)).map(|u| u.lba), Some(7));
        assert!(t.remove(&(1, 5, 7)).is_none());
        for i in [0, 2, 9] {
            t.remove(&(1, 5, i));
        }
        assert!(t.file_keys(1, 5).is_empty());
        assert!(
            !t.files.contains_key(&(1, 5)) && t.pages.len() == 2,
            "empty pages and file lists are dropped"
        );
        assert!(!t.contains_key(&(1, 5, 0)) && t.contains_key(&(1, 6, 3)));
    }

    #[test]
    fn a_file_over_several_pages_lists_them_in_order_and_drops_them_empty() {
        let mut t = UnitTable::new(UNIT);
        let idx = [10 * PAGE_UNITS + 5, 3, 3 * PAGE_UNITS + 1, 10 * PAGE_UNITS];
        for &i in &idx {
            t.get_or_insert_with((0, 9, i), || fresh(0, i as u32));
        }
        let mut want: Vec<UnitKey> = idx.iter().map(|&i| (0, 9, i)).collect();
        want.sort_unstable();
        assert_eq!(t.file_keys(0, 9), want);
        assert_eq!(t.keys(), want);
        // Down to one page, then none.
        t.remove(&(0, 9, 3));
        t.remove(&(0, 9, 3 * PAGE_UNITS + 1));
        assert_eq!(
            t.file_keys(0, 9),
            vec![(0, 9, 10 * PAGE_UNITS), (0, 9, 10 * PAGE_UNITS + 5)]
        );
        t.get_or_insert_with((0, 9, 1), || fresh(0, 1));
        assert_eq!(
            t.file_keys(0, 9)[0],
            (0, 9, 1),
            "a page added again comes first"
        );
        for i in [1, 10 * PAGE_UNITS, 10 * PAGE_UNITS + 5] {
            t.remove(&(0, 9, i));
        }
        assert!(t.is_empty() && t.files.is_empty() && t.pages.is_empty());
    }

    #[test]
    fn a_hundred_thousand_one_unit_files_take_under_140_bytes_each() {
        // A file per rank and step, one unit of it on this server: the page list and the
        // page's one slot stay inline (an ordered set would add a 104-byte node per file, a
        // boxed room of four slots 28 bytes and the allocator's overhead).
        assert_eq!(size_of::<Page>(), 24);
        let mut t = UnitTable::new(UNIT);
        let n: u64 = 100_000;
        for f in 0..n {
            let key = (0, f, 0);
            let u = t.get_or_insert_with(key, || fresh((f % 18) as u16, f as u32));
            u.dirty.insert(0, UNIT);
            compact(&mut t, &key);
        }
        let per_file = t.heap_bytes() as f64 / n as f64;
        assert!(per_file < 140.0, "{per_file:.1} bytes per one-unit file");
        assert!(t.pages.values().all(|p| matches!(p.slots, Slots::One(_))));
        assert_eq!(t.keys().len(), n as usize);
    }

    #[test]
    fn a_page_grows_and_shrinks_its_room_with_its_units() {
        let mut t = UnitTable::new(UNIT);
        for i in 0..64u64 {
            t.get_or_insert_with((0, 0, 63 - i), || fresh(1, i as u32));
            let room = t.pages[&(0, 0, 0)].room();
            let want = match i {
                0 => 1,
                _ => (i as usize + 1).next_power_of_two().max(4),
            };
            assert_eq!(room, want);
        }
        for i in 0..64u64 {
            assert_eq!(t.place(&(0, 0, 63 - i)), Some((1, i as u32)));
        }
        for i in 0..62u64 {
            t.remove(&(0, 0, i * 7 % 64));
        }
        assert!(t.pages[&(0, 0, 0)].room() <= 8);
        let left: Vec<u64> = t.file_keys(0, 0).iter().map(|k| k.2).collect();
        for k in &left {
            assert_eq!(t.place(&(0, 0, *k)), Some((1, 63 - *k as u32)));
        }
        assert_eq!(left.len(), 2);
        // The last unit goes back inline and keeps its place.
        t.remove(&(0, 0, left[0]));
        assert!(matches!(t.pages[&(0, 0, 0)].slots, Slots::One(_)));
        assert_eq!(t.place(&(0, 0, left[1])), Some((1, 63 - left[1] as u32)));
        assert_eq!(t.place(&(0, 0, left[0])), None);
    }

    #[test]
    fn a_million_settled_units_take_under_9_bytes_each() {
        // Written sequentially, as a server holds a striped file's units (packed back to back:
        // consecutive indices, full pages), each write complete and the unit wholly dirty:
        // settled.
        let settle_all = |step: u64| {
            let mut t = UnitTable::new(UNIT);
            let n: u64 = 1 << 20;
            for i in 0..n {
                let key = (0, 0, step * i);
                let u = t.get_or_insert_with(key, || fresh((i % 18) as u16, i as u32));
                u.dirty.insert(0, UNIT);
                compact(&mut t, &key);
            }
            assert_eq!(t.active_len(), 0);
            (t.heap_bytes() as f64 / n as f64, t)
        };
        let (per_unit, mut t) = settle_all(1);
        assert!(per_unit < 9.0, "{per_unit:.1} bytes per unit");
        // Every 4th index (16 units a page) costs more, still under 16 bytes a unit.
        let (sparse, _) = settle_all(4);
        assert!(
            (per_unit..16.0).contains(&sparse),
            "{sparse:.1} vs {per_unit:.1}"
        );
        // The same units all active (as full records) take more than twice as much.
        for i in 0..(1 << 18) {
            t.get_mut(&(0, 0, 4 * i)).unwrap();
        }
        let busy = t.heap_bytes() as f64 / (1u64 << 20) as f64;
        assert!(busy > per_unit + 16.0, "{busy:.1} vs {per_unit:.1}");
    }
}
