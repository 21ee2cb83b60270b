//! Greedy victim selection: closed erase blocks bucketed by their valid-page count.
//!
//! Each bucket is an intrusive doubly linked list over block indices, so inserting, removing
//! and moving a block one bucket down (a page invalidated) are O(1), and taking the block with
//! the fewest valid pages is O(1) amortised (a cursor that only scans upward between pops).

const NIL: u32 = u32::MAX;

/// Closed blocks indexed by valid-page count (`0..=pages_per_block`).
#[derive(Clone, Debug)]
pub(crate) struct ValidBuckets {
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    key: Vec<u32>,
    member: Vec<bool>,
    min: usize,
    len: usize,
}

impl ValidBuckets {
    /// Buckets for `blocks` blocks of `pages_per_block` pages.
    pub(crate) fn new(blocks: usize, pages_per_block: usize) -> Self {
        ValidBuckets {
            head: vec![NIL; pages_per_block + 1],
            next: vec![NIL; blocks],
            prev: vec![NIL; blocks],
            key: vec![0; blocks],
            member: vec![false; blocks],
            min: pages_per_block + 1,
            len: 0,
        }
    }

    /// Number of blocks held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether block `b` is held.
    #[cfg(test)]
    pub(crate) fn contains(&self, b: u32) -> bool {
        self.member[b as usize]
    }

    /// Adds block `b` with `valid` valid pages.
    pub(crate) fn insert(&mut self, b: u32, valid: u32) {
        let bi = b as usize;
        debug_assert!(!self.member[bi]);
        let v = valid as usize;
        let h = self.head[v];
        self.next[bi] = h;
        self.prev[bi] = NIL;
        if h != NIL {
            self.prev[h as usize] = b;
        }
        self.head[v] = b;
        self.key[bi] = valid;
        self.member[bi] = true;
        self.len += 1;
        if v < self.min {
            self.min = v;
        }
    }

    /// Removes block `b` (no-op if absent).
    pub(crate) fn remove(&mut self, b: u32) {
        let bi = b as usize;
        if !self.member[bi] {
            return;
        }
        let (n, p) = (self.next[bi], self.prev[bi]);
        if p == NIL {
            self.head[self.key[bi] as usize] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
        self.member[bi] = false;
        self.len -= 1;
    }

    /// Moves block `b` one bucket down (one of its pages became invalid). No-op if absent.
    pub(crate) fn decrement(&mut self, b: u32) {
        if !self.member[b as usize] {
            return;
        }
        let k = self.key[b as usize];
        self.remove(b);
        self.insert(b, k.saturating_sub(1));
    }

    /// The block with the fewest valid pages (the most recently inserted among ties), and its
    /// count, removed from the set.
    pub(crate) fn pop_min(&mut self) -> Option<(u32, u32)> {
        if self.len == 0 {
            return None;
        }
        while self.min < self.head.len() && self.head[self.min] == NIL {
            self.min += 1;
        }
        let b = *self.head.get(self.min)?;
        let k = self.key[b as usize];
        self.remove(b);
        Some((b, k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_valid_order_and_tracks_moves() {
        let mut v = ValidBuckets::new(6, 4);
        v.insert(0, 4);
        v.insert(1, 2);
        v.insert(2, 3);
        v.insert(3, 2);
        assert_eq!(v.len(), 4);
        v.decrement(0); // 4 -> 3
        v.decrement(2); // 3 -> 2
        v.decrement(2); // 2 -> 1
        assert_eq!(v.pop_min(), Some((2, 1)));
        v.remove(3);
        assert!(!v.contains(3));
        assert_eq!(v.pop_min(), Some((1, 2)));
        v.decrement(5); // absent: ignored
        assert_eq!(v.pop_min(), Some((0, 3)));
        assert_eq!(v.pop_min(), None);
        v.insert(4, 0);
        assert_eq!(v.pop_min(), Some((4, 0)));
    }
}
