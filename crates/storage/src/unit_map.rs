//! The table of a BB server's allocated units: `(allocation, file, unit index)` → unit state,
//! with the units of each file listed in index order for whole-file operations (delete).
//!
//! Why not one ordered map: a full-scale DataWarp server holds tens of thousands of units
//! (77 TB in 8 MiB units over 140 servers is about 65,000 each) and every 1 MiB transfer looks
//! its unit up several times. In an ordered tree each lookup walks four or five nodes that are
//! rarely in cache; a hash lookup touches one bucket. The hasher is `rustc_hash`'s Fx hash,
//! which has no random state, and nothing iterates the hash tables, so runs stay deterministic;
//! the per-file index lists (ordered sets) give whole-file walks in unit order.

use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// A unit's key: (allocation or capacity account, global file id, unit index in the file).
pub type UnitKey = (u32, u64, u64);

/// Units by key, plus each file's unit indices in order.
#[derive(Clone, Debug)]
pub struct UnitMap<U> {
    units: FxHashMap<UnitKey, U>,
    files: FxHashMap<(u32, u64), BTreeSet<u64>>,
}

impl<U> Default for UnitMap<U> {
    fn default() -> Self {
        UnitMap {
            units: FxHashMap::default(),
            files: FxHashMap::default(),
        }
    }
}

impl<U> UnitMap<U> {
    /// Whether unit `key` is allocated.
    #[inline]
    pub fn contains_key(&self, key: &UnitKey) -> bool {
        self.units.contains_key(key)
    }

    /// Unit `key`'s state.
    #[inline]
    pub fn get(&self, key: &UnitKey) -> Option<&U> {
        self.units.get(key)
    }

    /// Unit `key`'s state, mutable.
    #[inline]
    pub fn get_mut(&mut self, key: &UnitKey) -> Option<&mut U> {
        self.units.get_mut(key)
    }

    /// Adds (or replaces) unit `key`.
    pub fn insert(&mut self, key: UnitKey, unit: U) {
        if self.units.insert(key, unit).is_none() {
            self.files.entry((key.0, key.1)).or_default().insert(key.2);
        }
    }

    /// Removes unit `key`, returning its state.
    pub fn remove(&mut self, key: &UnitKey) -> Option<U> {
        let u = self.units.remove(key)?;
        if let Some(set) = self.files.get_mut(&(key.0, key.1)) {
            set.remove(&key.2);
            if set.is_empty() {
                self.files.remove(&(key.0, key.1));
            }
        }
        Some(u)
    }

    /// The keys of `file`'s units in allocation `alloc`, in unit-index order.
    pub fn file_keys(&self, alloc: u32, file: u64) -> Vec<UnitKey> {
        self.files
            .get(&(alloc, file))
            .map(|s| s.iter().map(|&i| (alloc, file, i)).collect())
            .unwrap_or_default()
    }

    /// Units allocated.
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Whether no unit is allocated.
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            !m.files.contains_key(&(1, 5)),
            "empty file lists are dropped"
        );
        assert_eq!(m.file_keys(2, 5), vec![(2, 5, 1)]);
        assert!(!m.contains_key(&(1, 5, 0)) && m.contains_key(&(1, 6, 3)));
    }
}
