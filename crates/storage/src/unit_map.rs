//! The table of a BB server's allocated units: `(allocation, file, unit index)` → unit state,
//! with the units of each file listed in index order for whole-file operations (delete).
//!
//! Units are kept in pages of 64 consecutive unit indices of one file: a page is a presence
//! bitmap and the present units' states in index order, and a page table (a hash map keyed by
//! allocation, file and page number) finds them. A unit is found by one hash probe and a
//! population count. Why pages: a full-scale study run writes tens of millions of 128 KiB units
//! (GTC alone: 39 M), and one hash entry per unit with its own ordered index cost about
//! 150 bytes per unit, which was the run's whole memory (8.6 GB for GTC, 15.7 GB for
//! GTC+S3D+HACC). A server holds every stripe-count-th unit of a file it stripes (every 4th on the
//! study's systems), so a page holds 16 of them and costs about 6 bytes per unit beside the
//! states themselves; a file written sequentially on one server fills its pages completely.
//!
//! Why not one ordered map: a full-scale DataWarp server holds tens of thousands of units
//! (77 TB in 8 MiB units over 140 servers is about 65,000 each) and every 1 MiB transfer looks
//! its unit up several times. In an ordered tree each lookup walks four or five nodes that are
//! rarely in cache; a hash lookup touches one bucket. The hasher is `rustc_hash`'s Fx hash,
//! which has no random state, and nothing iterates the hash tables, so runs stay deterministic;
//! the per-file lists of page numbers (ordered sets) give whole-file walks in unit order.

use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// A unit's key: (allocation or capacity account, global file id, unit index in the file).
pub type UnitKey = (u32, u64, u64);

/// Unit indices per page (a power of two: the presence bitmap is one `u64`).
const PAGE_UNITS: u64 = 64;

/// A page's key: (allocation, file, unit index / [`PAGE_UNITS`]).
type PageKey = (u32, u64, u64);

/// The present units of 64 consecutive unit indices of one file.
#[derive(Clone, Debug)]
struct Page<U> {
    /// Bit `i`: unit `page * 64 + i` is present.
    present: u64,
    /// The present units' states, in index order.
    units: Vec<U>,
}

impl<U> Page<U> {
    /// Where unit bit `bit` is (or would be) in `units`.
    fn slot(&self, bit: u32) -> usize {
        (self.present & ((1u64 << bit) - 1)).count_ones() as usize
    }

    fn has(&self, bit: u32) -> bool {
        self.present & (1u64 << bit) != 0
    }
}

/// The page key and the bit of unit `key`.
fn locate(key: &UnitKey) -> (PageKey, u32) {
    (
        (key.0, key.1, key.2 / PAGE_UNITS),
        (key.2 % PAGE_UNITS) as u32,
    )
}

/// Units by key, plus each file's pages in order.
#[derive(Clone, Debug)]
pub struct UnitMap<U> {
    pages: FxHashMap<PageKey, Page<U>>,
    files: FxHashMap<(u32, u64), BTreeSet<u64>>,
    len: usize,
}

impl<U> Default for UnitMap<U> {
    fn default() -> Self {
        UnitMap {
            pages: FxHashMap::default(),
            files: FxHashMap::default(),
            len: 0,
        }
    }
}

impl<U> UnitMap<U> {
    /// Whether unit `key` is allocated.
    #[inline]
    pub fn contains_key(&self, key: &UnitKey) -> bool {
        let (pk, bit) = locate(key);
        self.pages.get(&pk).is_some_and(|p| p.has(bit))
    }

    /// Unit `key`'s state.
    #[inline]
    pub fn get(&self, key: &UnitKey) -> Option<&U> {
        let (pk, bit) = locate(key);
        let page = self.pages.get(&pk)?;
        page.has(bit).then(|| &page.units[page.slot(bit)])
    }

    /// Unit `key`'s state, mutable.
    #[inline]
    pub fn get_mut(&mut self, key: &UnitKey) -> Option<&mut U> {
        let (pk, bit) = locate(key);
        let page = self.pages.get_mut(&pk)?;
        if !page.has(bit) {
            return None;
        }
        let slot = page.slot(bit);
        Some(&mut page.units[slot])
    }

    /// Adds (or replaces) unit `key`.
    pub fn insert(&mut self, key: UnitKey, unit: U) {
        let (pk, bit) = locate(&key);
        let files = &mut self.files;
        let page = self.pages.entry(pk).or_insert_with(|| {
            files.entry((pk.0, pk.1)).or_default().insert(pk.2);
            Page {
                present: 0,
                units: Vec::new(),
            }
        });
        let slot = page.slot(bit);
        if page.has(bit) {
            page.units[slot] = unit;
        } else {
            page.units.insert(slot, unit);
            page.present |= 1u64 << bit;
            self.len += 1;
        }
    }

    /// Unit `key`'s state, mutable, made by `make` first if the unit is not allocated: one
    /// page lookup where `contains_key`, `insert` and `get_mut` take three.
    pub fn get_or_insert_with(&mut self, key: UnitKey, make: impl FnOnce() -> U) -> &mut U {
        let (pk, bit) = locate(&key);
        let files = &mut self.files;
        let page = self.pages.entry(pk).or_insert_with(|| {
            files.entry((pk.0, pk.1)).or_default().insert(pk.2);
            Page {
                present: 0,
                units: Vec::new(),
            }
        });
        let slot = page.slot(bit);
        if !page.has(bit) {
            page.units.insert(slot, make());
            page.present |= 1u64 << bit;
            self.len += 1;
        }
        &mut page.units[slot]
    }

    /// Removes unit `key`, returning its state.
    pub fn remove(&mut self, key: &UnitKey) -> Option<U> {
        let (pk, bit) = locate(key);
        let page = self.pages.get_mut(&pk)?;
        if !page.has(bit) {
            return None;
        }
        let u = page.units.remove(page.slot(bit));
        page.present &= !(1u64 << bit);
        self.len -= 1;
        if page.present == 0 {
            self.pages.remove(&pk);
            if let Some(set) = self.files.get_mut(&(pk.0, pk.1)) {
                set.remove(&pk.2);
                if set.is_empty() {
                    self.files.remove(&(pk.0, pk.1));
                }
            }
        }
        Some(u)
    }

    /// The keys of `file`'s units in allocation `alloc`, in unit-index order.
    pub fn file_keys(&self, alloc: u32, file: u64) -> Vec<UnitKey> {
        let Some(set) = self.files.get(&(alloc, file)) else {
            return Vec::new();
        };
        let mut keys = Vec::new();
        for &pg in set {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_or_insert_with_makes_a_unit_once() {
        let mut m = UnitMap::default();
        let mut made = 0;
        for _ in 0..3 {
            let u = m.get_or_insert_with((1, 5, 70), || {
                made += 1;
                7u64
            });
            *u += 1;
        }
        assert_eq!(made, 1, "made only when missing");
        assert_eq!(m.get(&(1, 5, 70)), Some(&10));
        *m.get_or_insert_with((1, 5, 3), || 1) += 0;
        assert_eq!(m.len(), 2);
        assert_eq!(m.file_keys(1, 5), vec![(1, 5, 3), (1, 5, 70)]);
    }

    #[test]
    fn file_keys_are_in_unit_order_and_follow_inserts_and_removes() {
        let mut m = UnitMap::default();
        for i in [7u64, 2, 9, 0] {
            m.insert((1, 5, i), i * 10);
        }
        m.insert((1, 6, 3), 0);
        m.insert((2, 5, 1), 0);
        m.insert((1, 5, 2), 99); // replaces, still listed once
        assert_eq!(m.len(), 6);
        assert_eq!(
            m.file_keys(1, 5),
            vec![(1, 5, 0), (1, 5, 2), (1, 5, 7), (1, 5, 9)]
        );
        assert_eq!(m.get(&(1, 5, 2)), Some(&99));
        assert_eq!(m.remove(&(1, 5, 7)), Some(70));
        assert_eq!(m.remove(&(1, 5, 7)), None);
        assert_eq!(m.file_keys(1, 5), vec![(1, 5, 0), (1, 5, 2), (1, 5, 9)]);
        for i in [0, 2, 9] {
            m.remove(&(1, 5, i));
        }
        assert!(m.file_keys(1, 5).is_empty());
        assert!(
            !m.files.contains_key(&(1, 5)) && m.pages.len() == 2,
            "empty pages and file lists are dropped"
        );
        assert_eq!(m.file_keys(2, 5), vec![(2, 5, 1)]);
        assert!(!m.contains_key(&(1, 5, 0)) && m.contains_key(&(1, 6, 3)));
    }

    #[test]
    fn pages_agree_with_an_ordered_map_under_random_inserts_and_removes() {
        use std::collections::BTreeMap;
        let mut m = UnitMap::default();
        let mut reference = BTreeMap::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for step in 0..20_000u64 {
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
            if (x >> 40) % 3 == 0 {
                assert_eq!(m.remove(&key), reference.remove(&key), "step {step}");
            } else {
                m.insert(key, step);
                reference.insert(key, step);
            }
            assert_eq!(m.get(&key), reference.get(&key));
            assert_eq!(m.contains_key(&key), reference.contains_key(&key));
            assert_eq!(m.len(), reference.len());
        }
        for alloc in 0..2 {
            for file in 0..3 {
                let want: Vec<UnitKey> = reference
                    .range((alloc, file, 0)..=(alloc, file, u64::MAX))
                    .map(|(&k, _)| k)
                    .collect();
                assert_eq!(m.file_keys(alloc, file), want);
            }
        }
        let all: Vec<UnitKey> = reference.keys().copied().collect();
        assert_eq!(m.keys(), all, "every key, in key order");
        for (k, v) in &reference {
            *m.get_mut(k).unwrap() += 1;
            assert_eq!(m.get(k), Some(&(v + 1)));
        }
    }
}
