//! Which SSD of a burst-buffer server a file's stripe units go on.
//!
//! A server keeps the units of a file in chunks of `chunk_units` consecutive units, and the
//! chunks of one file go round robin over the server's SSDs. Where that round robin starts is
//! chosen per file when the server first sees the file: the server hands out first SSDs round
//! robin over the files in the order they arrive (`0, 1, …, ssds − 1, 0, …`). So `K` files of
//! one chunk each on a server of `m` SSDs put `⌈K/m⌉` or `⌊K/m⌋` on every SSD, whatever the
//! file ids are.
//!
//! Why not start at `file mod ssds`: a striped layout puts file `f`'s first stripe on the
//! server at position `f mod n` of its stripe set, so with an even server count `n` every
//! small file a server holds has the same parity and, with two SSDs per server, only one of
//! them would ever be used. The arrival-order round robin has no such correlation; it is
//! deterministic because a server sees its requests in simulation-time order.

use rustc_hash::FxHashMap;

/// The per-server round robin of files' first SSDs.
#[derive(Clone, Debug)]
pub struct SsdRotation {
    ssds: u64,
    chunk_units: u64,
    /// The next file's first SSD.
    next: u64,
    /// First SSD of each (allocation, file) the server holds.
    first: FxHashMap<(u32, u64), u32>,
}

impl SsdRotation {
    /// A rotation over `ssds` devices (at least 1) with chunks of `chunk_units` units.
    pub fn new(ssds: usize, chunk_units: u32) -> Self {
        SsdRotation {
            ssds: ssds.max(1) as u64,
            chunk_units: u64::from(chunk_units.max(1)),
            next: 0,
            first: FxHashMap::default(),
        }
    }

    /// The SSD of unit `idx` of `file` in allocation `alloc`, giving the file the next first
    /// SSD if the server has not seen it yet.
    pub fn home(&mut self, alloc: u32, file: u64, idx: u64) -> usize {
        let first = match self.first.get(&(alloc, file)) {
            Some(&f) => u64::from(f),
            None if self.ssds == 1 => 0,
            None => {
                let f = self.next;
                self.next = (self.next + 1) % self.ssds;
                self.first.insert((alloc, file), f as u32);
                f
            }
        };
        self.at(first, idx)
    }

    /// The SSD of unit `idx` of `file` without recording anything: the file's own rotation,
    /// or the one the next new file would get.
    pub fn peek(&self, alloc: u32, file: u64, idx: u64) -> usize {
        let first = self
            .first
            .get(&(alloc, file))
            .map_or(self.next, |&f| u64::from(f));
        self.at(first, idx)
    }

    /// Forgets `file` of `alloc` (deleted): a later write starts it afresh.
    pub fn forget(&mut self, alloc: u32, file: u64) {
        self.first.remove(&(alloc, file));
    }

    fn at(&self, first: u64, idx: u64) -> usize {
        ((first + (idx / self.chunk_units) % self.ssds) % self.ssds) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_one_parity_still_use_every_ssd() {
        // The files an even-sized striped layout puts on one server: all even.
        let mut r = SsdRotation::new(2, 1);
        let mut per = [0u32; 2];
        for f in (0..100u64).map(|k| k * 140) {
            per[r.home(0, f, 0)] += 1;
        }
        assert_eq!(per, [50, 50]);
        // K files over m SSDs: ceil or floor of K / m each.
        let mut r = SsdRotation::new(3, 1);
        let mut per = [0u32; 3];
        for f in 0..10 {
            per[r.home(0, f, 0)] += 1;
        }
        assert_eq!(per, [4, 3, 3]);
    }

    #[test]
    fn a_files_chunks_rotate_from_its_first_ssd() {
        let mut r = SsdRotation::new(4, 2);
        assert_eq!(r.home(1, 7, 0), 0);
        assert_eq!(r.home(1, 8, 0), 1);
        let homes: Vec<usize> = (0..10).map(|i| r.home(1, 8, i)).collect();
        assert_eq!(homes, vec![1, 1, 2, 2, 3, 3, 0, 0, 1, 1]);
        // The same file id in another allocation is another file.
        assert_eq!(r.home(2, 8, 0), 2);
        assert_eq!(r.peek(1, 8, 2), 2);
        assert_eq!(r.peek(3, 1, 0), 3);
        r.forget(1, 8);
        assert_eq!(r.home(1, 8, 0), 3);
        // One SSD: everything on it, nothing recorded.
        let mut one = SsdRotation::new(1, 1);
        assert_eq!(one.home(0, 5, 9), 0);
        assert!(one.first.is_empty());
    }
}
