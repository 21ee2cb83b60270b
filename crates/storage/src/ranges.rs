//! A set of byte ranges of one file (which bytes a device holds), with 64-bit offsets.

use std::collections::BTreeMap;

/// Disjoint, non-adjacent half-open byte ranges `[start, end)`, keyed by start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByteRanges {
    spans: BTreeMap<u64, u64>,
}

impl ByteRanges {
    /// Adds `[start, end)`; returns how many of its bytes were not yet in the set.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if end <= start {
            return 0;
        }
        let already = self.covered(start, end);
        let (mut s, mut e) = (start, end);
        // Merge with every span that overlaps or touches [s, e).
        if let Some((&a, &b)) = self.spans.range(..=s).next_back() {
            if b >= s {
                s = a;
                e = e.max(b);
            }
        }
        let absorbed: Vec<(u64, u64)> = self.spans.range(s..=e).map(|(&a, &b)| (a, b)).collect();
        for (a, b) in absorbed {
            self.spans.remove(&a);
            e = e.max(b);
        }
        self.spans.insert(s, e);
        (end - start) - already
    }

    /// Removes `[start, end)`; returns how many bytes were in the set.
    pub fn remove(&mut self, start: u64, end: u64) -> u64 {
        if end <= start {
            return 0;
        }
        let removed = self.covered(start, end);
        let first = self.first_overlapping(start);
        let hit: Vec<(u64, u64)> = self
            .spans
            .range(first..end)
            .map(|(&a, &b)| (a, b))
            .collect();
        for (a, b) in hit {
            self.spans.remove(&a);
            if a < start {
                self.spans.insert(a, start);
            }
            if b > end {
                self.spans.insert(end, b);
            }
        }
        removed
    }

    /// The start of the span holding `start`, if one does, else `start`: where a walk over
    /// the spans overlapping `[start, ..)` begins.
    fn first_overlapping(&self, start: u64) -> u64 {
        self.spans
            .range(..start)
            .next_back()
            .filter(|(_, &b)| b > start)
            .map(|(&a, _)| a)
            .unwrap_or(start)
    }

    /// Bytes of `[start, end)` in the set.
    pub fn covered(&self, start: u64, end: u64) -> u64 {
        if end <= start {
            return 0;
        }
        let first = self.first_overlapping(start);
        self.spans
            .range(first..end)
            .map(|(&a, &b)| b.min(end).saturating_sub(a.max(start)))
            .sum()
    }

    /// Total bytes in the set.
    pub fn len(&self) -> u64 {
        self.spans.iter().map(|(a, b)| b - a).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_counts_new_bytes_and_merges() {
        let mut r = ByteRanges::default();
        assert_eq!(r.insert(10, 20), 10);
        assert_eq!(r.insert(15, 30), 10);
        assert_eq!(r.insert(30, 40), 10, "touching spans merge");
        assert_eq!(r.insert(0, 50), 20);
        assert_eq!(r.len(), 50);
        assert_eq!(r.spans.len(), 1);
        assert_eq!(r.insert(5, 5), 0);
    }

    #[test]
    fn remove_splits_and_counts() {
        let mut r = ByteRanges::default();
        r.insert(0, 100);
        r.insert(200, 300);
        assert_eq!(r.remove(50, 250), 100);
        assert_eq!(r.len(), 100);
        assert_eq!(r.covered(0, 1000), 100);
        assert_eq!(r.covered(40, 60), 10);
        assert_eq!(r.covered(240, 260), 10);
        assert_eq!(r.remove(0, 1000), 100);
        assert!(r.is_empty());
    }

    #[test]
    fn agrees_with_a_byte_map() {
        // Deterministic pseudo-random operations against a plain bitmap.
        let mut r = ByteRanges::default();
        let mut bits = vec![false; 256];
        let mut x: u64 = 12345;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = (x >> 33) % 256;
            let b = (a + (x >> 20) % 40).min(256);
            let before = bits[a as usize..b as usize].iter().filter(|&&v| v).count() as u64;
            if x & 1 == 0 {
                assert_eq!(r.insert(a, b), (b - a) - before);
                bits[a as usize..b as usize].fill(true);
            } else {
                assert_eq!(r.remove(a, b), before);
                bits[a as usize..b as usize].fill(false);
            }
            assert_eq!(r.len(), bits.iter().filter(|&&v| v).count() as u64);
        }
    }
}
