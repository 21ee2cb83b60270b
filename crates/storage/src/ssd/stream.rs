//! Write-stream placement: which open erase block a host write lands in.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How host writes are grouped into open erase blocks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamMode {
    /// All writers share one write frontier (one open block); data of different lifetimes mix.
    Legacy,
    /// One stream (own open block) per stream key (a user or job id chosen by the caller), up to
    /// `max_streams`; further keys share streams by `key % max_streams`. Garbage-collection
    /// copies stay in the stream of the block they come from.
    MultiStream {
        /// Most streams the device keeps open at once (NVMe devices offer 8–16).
        max_streams: u32,
    },
}

impl StreamMode {
    /// Open blocks the mode may hold at once.
    pub fn open_blocks(&self) -> u32 {
        match self {
            StreamMode::Legacy => 1,
            StreamMode::MultiStream { max_streams } => (*max_streams).max(1),
        }
    }
}

/// Maps stream keys to stream slots, first come first served (deterministic).
#[derive(Clone, Debug)]
pub(crate) struct StreamMap {
    slots: u32,
    assigned: BTreeMap<u32, u16>,
}

impl StreamMap {
    pub(crate) fn new(mode: &StreamMode) -> Self {
        StreamMap {
            slots: mode.open_blocks(),
            assigned: BTreeMap::new(),
        }
    }

    /// The slot of stream `key`.
    pub(crate) fn slot(&mut self, key: u32) -> usize {
        if self.slots <= 1 {
            return 0;
        }
        if let Some(&s) = self.assigned.get(&key) {
            return usize::from(s);
        }
        let n = self.assigned.len() as u32;
        let s = if n < self.slots { n } else { key % self.slots };
        if n < self.slots {
            self.assigned.insert(key, s as u16);
        }
        s as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_uses_one_slot_and_multistream_assigns_in_order() {
        let mut l = StreamMap::new(&StreamMode::Legacy);
        assert_eq!(l.slot(7), 0);
        assert_eq!(l.slot(9), 0);
        let mut m = StreamMap::new(&StreamMode::MultiStream { max_streams: 2 });
        assert_eq!(m.slot(70), 0);
        assert_eq!(m.slot(30), 1);
        assert_eq!(m.slot(70), 0);
        assert_eq!(m.slot(5), 1); // overflow: 5 % 2
        assert_eq!(StreamMode::MultiStream { max_streams: 0 }.open_blocks(), 1);
    }
}
