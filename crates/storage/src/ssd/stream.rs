//! Write-stream placement: which open erase block a host write lands in.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How host writes are grouped into open erase blocks (`burst_buffer.ftl.placement`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamMode {
    /// All writers share one write frontier (one open block); data of different lifetimes mix.
    #[default]
    Legacy,
    /// One stream (own open block) per stream key (a user or job id chosen by the caller), up to
    /// the FTL's `max_streams`; further keys share streams by `key % max_streams`.
    /// Garbage-collection copies stay in the stream of the block they come from.
    MultiStream,
}

impl StreamMode {
    /// The name as a scenario file spells it (`legacy`, `multi-stream`).
    pub fn name(self) -> &'static str {
        match self {
            StreamMode::Legacy => "legacy",
            StreamMode::MultiStream => "multi-stream",
        }
    }

    /// Open blocks the mode may hold at once, with at most `max_streams` streams.
    pub fn open_blocks(self, max_streams: u32) -> u32 {
        match self {
            StreamMode::Legacy => 1,
            StreamMode::MultiStream => max_streams.max(1),
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
    pub(crate) fn new(mode: StreamMode, max_streams: u32) -> Self {
        StreamMap {
            slots: mode.open_blocks(max_streams),
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
        let mut l = StreamMap::new(StreamMode::Legacy, 16);
        assert_eq!(l.slot(7), 0);
        assert_eq!(l.slot(9), 0);
        let mut m = StreamMap::new(StreamMode::MultiStream, 2);
        assert_eq!(m.slot(70), 0);
        assert_eq!(m.slot(30), 1);
        assert_eq!(m.slot(70), 0);
        assert_eq!(m.slot(5), 1); // overflow: 5 % 2
        assert_eq!(StreamMode::MultiStream.open_blocks(0), 1);
    }
}
