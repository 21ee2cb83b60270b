//! A client-side read cache: least-recently-used blocks of files, per rank.
//!
//! A read is a hit when every block it touches is cached; otherwise the client fetches the
//! blocks from the first missing one to the last missing one in one request and caches them.
//! Block size and capacity are bytes; the cache holds `capacity / block` blocks (at least 1).

use std::collections::{BTreeMap, HashMap};

/// Memory-copy bandwidth (bytes/s) at which cache hits are served: 10 GB/s.
pub const HIT_BANDWIDTH: u64 = 10_000_000_000;

/// An LRU cache of (file, block index) entries.
#[derive(Clone, Debug, Default)]
pub struct ReadCache {
    block: u64,
    slots: usize,
    tick: u64,
    by_key: HashMap<(u64, u64), u64>,
    by_age: BTreeMap<u64, (u64, u64)>,
    /// Reads served entirely from the cache.
    pub hits: u64,
    /// Reads that needed a fetch.
    pub misses: u64,
    /// Bytes fetched from storage.
    pub fetched: u64,
}

/// What a read needs from storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Every block is cached.
    Hit,
    /// Fetch `[offset, offset + len)` of the file.
    Fetch {
        /// First byte to fetch.
        offset: u64,
        /// Bytes to fetch.
        len: u64,
    },
}

impl ReadCache {
    /// A cache of `capacity` bytes in blocks of `block` bytes.
    pub fn new(capacity: u64, block: u64) -> Self {
        let block = block.max(1);
        ReadCache {
            block,
            slots: (capacity / block).max(1) as usize,
            ..ReadCache::default()
        }
    }

    fn blocks(&self, offset: u64, len: u64) -> std::ops::RangeInclusive<u64> {
        let last = offset.saturating_add(len.max(1)) - 1;
        (offset / self.block)..=(last / self.block)
    }

    /// Looks up a read of `len` bytes at `offset` of `file` (at most `extent` bytes long);
    /// hits refresh their blocks' age.
    pub fn lookup(&mut self, file: u64, offset: u64, len: u64, extent: u64) -> Lookup {
        let missing: Vec<u64> = self
            .blocks(offset, len)
            .filter(|b| !self.by_key.contains_key(&(file, *b)))
            .collect();
        match (missing.first(), missing.last()) {
            (Some(&first), Some(&last)) => {
                self.misses += 1;
                let start = first * self.block;
                let end = ((last + 1) * self.block).min(extent.max(offset + len));
                self.fetched += end - start;
                Lookup::Fetch {
                    offset: start,
                    len: end - start,
                }
            }
            _ => {
                self.hits += 1;
                for b in self.blocks(offset, len) {
                    self.touch(file, b);
                }
                Lookup::Hit
            }
        }
    }

    /// Records that `[offset, offset + len)` of `file` arrived: its blocks become the newest.
    pub fn fill(&mut self, file: u64, offset: u64, len: u64) {
        for b in self.blocks(offset, len) {
            self.touch(file, b);
        }
    }

    fn touch(&mut self, file: u64, block: u64) {
        self.tick += 1;
        if let Some(old) = self.by_key.insert((file, block), self.tick) {
            self.by_age.remove(&old);
        }
        self.by_age.insert(self.tick, (file, block));
        while self.by_key.len() > self.slots {
            if let Some((_, key)) = self.by_age.pop_first() {
                self.by_key.remove(&key);
            }
        }
    }

    /// Blocks cached now.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_small_reads_fetch_each_block_once() {
        let mut c = ReadCache::new(4 << 20, 1 << 20);
        let mut fetches = Vec::new();
        for i in 0..64u64 {
            if let Lookup::Fetch { offset, len } = c.lookup(7, i * 65536, 65536, 4 << 20) {
                fetches.push((offset, len));
                c.fill(7, offset, len);
            }
        }
        assert_eq!(
            fetches,
            (0..4u64).map(|b| (b << 20, 1 << 20)).collect::<Vec<_>>()
        );
        assert_eq!((c.hits, c.misses, c.fetched), (60, 4, 4 << 20));
    }

    #[test]
    fn least_recently_used_block_is_evicted() {
        let mut c = ReadCache::new(2 * 4096, 4096);
        for (off, hit) in [
            (0, false),
            (4096, false),
            (0, true),
            (8192, false),
            (0, true),
        ] {
            let r = c.lookup(1, off, 100, 1 << 20);
            assert_eq!(r == Lookup::Hit, hit, "offset {off}");
            if let Lookup::Fetch { offset, len } = r {
                c.fill(1, offset, len);
            }
        }
        // Block 1 (offset 4096) was the least recently used when block 2 came in.
        assert_ne!(c.lookup(1, 4096, 100, 1 << 20), Lookup::Hit);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn a_fetch_spans_the_missing_blocks_and_stops_at_the_file_end() {
        let mut c = ReadCache::new(1 << 20, 4096);
        c.fill(3, 4096, 4096);
        assert_eq!(
            c.lookup(3, 100, 2 * 4096, 10_000),
            Lookup::Fetch {
                offset: 0,
                len: 10_000
            }
        );
    }
}
