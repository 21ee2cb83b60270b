//! Capacity of a node-local SSD: which bytes of which files it holds, what a write that does
//! not fit does (`burst_buffer.full_policy`), and which drained data it may release to make
//! room.
//!
//! A write takes only the bytes the SSD does not hold yet (rewrites are free). When they do not
//! fit, the SSD first releases (TRIMs) data the node's drain has already copied to the PFS,
//! oldest first; if that is not enough, the write is spilled to the PFS (`spill`) or waits in
//! FIFO order for room (`stall`). A waiting write opens the drain whatever its policy (a
//! write-back buffer under pressure writes back), except `none`, which has no drain: such a
//! write waits for ever and the run reports that it cannot finish. Reads of bytes the SSD no
//! longer holds (spilled or released) go to the PFS.

use bbsim_engine::Time;
use bbsim_storage::ranges::ByteRanges;
use bbsim_storage::{CapacityLedger, FullPolicy};
use std::collections::{BTreeMap, VecDeque};

/// A write waiting for room: the request id it completes, and where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitingWrite {
    /// Application request id (the node's in-flight key).
    pub id: u64,
    /// Job index (the capacity account).
    pub job: u32,
    /// Global file id.
    pub file: u64,
    /// Offset in the file (bytes).
    pub offset: u64,
    /// Bytes.
    pub len: u64,
    /// When it began to wait (ps).
    pub since: Time,
}

/// Extents (global file, offset, bytes) released from the SSD, for its TRIM.
pub type Released = Vec<(u64, u64, u64)>;

/// What to do with a write now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// It fits: the bytes are taken; write it to the SSD.
    Write,
    /// It does not fit and the policy is spill: write it to the PFS instead.
    Spill,
    /// It does not fit and the policy is stall: it waits (see [`LocalStore::admit_waiting`]).
    Wait,
}

/// The capacity state of one node-local SSD.
#[derive(Clone, Debug)]
pub struct LocalStore {
    ledger: CapacityLedger,
    policy: FullPolicy,
    /// Per global file: the bytes on the SSD.
    held: BTreeMap<u64, ByteRanges>,
    /// Per global file: bytes written but no longer (or never) on the SSD, which the PFS has.
    gone: BTreeMap<u64, ByteRanges>,
    /// Drained extents (job, file, offset, bytes), oldest first: candidates for release.
    drained: VecDeque<(u32, u64, u64, u64)>,
    /// Per global file: the bytes the PFS has in their latest version (drained and not
    /// written since), which may be released.
    clean: BTreeMap<u64, ByteRanges>,
    /// Extents (file, offset, bytes) queued or in flight in the drain, with how many times.
    draining: BTreeMap<(u64, u64, u64), u32>,
    waiting: VecDeque<WaitingWrite>,
    /// Bytes written to the PFS instead because the SSD was full.
    pub spilled: u64,
    /// Drained bytes released to make room.
    pub released: u64,
    /// Writes that had to wait for room.
    pub waits: u64,
    /// Time writes waited for room, summed over writes (ps).
    pub wait_time: Time,
}

impl LocalStore {
    /// An empty SSD of `capacity` bytes.
    pub fn new(capacity: u64, policy: FullPolicy) -> Self {
        LocalStore {
            ledger: CapacityLedger::new(capacity),
            policy,
            held: BTreeMap::new(),
            gone: BTreeMap::new(),
            drained: VecDeque::new(),
            clean: BTreeMap::new(),
            draining: BTreeMap::new(),
            waiting: VecDeque::new(),
            spilled: 0,
            released: 0,
            waits: 0,
            wait_time: 0,
        }
    }

    /// Capacity accounting, with the occupancy history.
    pub fn ledger(&self) -> &CapacityLedger {
        &self.ledger
    }

    /// Writes waiting for room, oldest first.
    pub fn waiting(&self) -> &VecDeque<WaitingWrite> {
        &self.waiting
    }

    /// Bytes of `[offset, offset + len)` of `file` the SSD does not hold.
    fn missing(&self, file: u64, offset: u64, len: u64) -> u64 {
        let end = offset.saturating_add(len);
        len - self.held.get(&file).map_or(0, |h| h.covered(offset, end))
    }

    /// Whether a read of `[offset, offset + len)` of `file` must go to the PFS: some of it was
    /// spilled or released.
    pub fn read_from_pfs(&self, file: u64, offset: u64, len: u64) -> bool {
        let end = offset.saturating_add(len);
        self.gone
            .get(&file)
            .is_some_and(|g| g.covered(offset, end) > 0)
    }

    /// Takes the room for a write and records its bytes as held.
    fn take(&mut self, job: u32, file: u64, offset: u64, len: u64, now: Time) {
        let end = offset.saturating_add(len);
        let added = self.held.entry(file).or_default().insert(offset, end);
        if let Some(g) = self.gone.get_mut(&file) {
            g.remove(offset, end);
        }
        if added < len {
            // A rewrite: the PFS copy of these bytes is stale now.
            if let Some(c) = self.clean.get_mut(&file) {
                c.remove(offset, end);
            }
        }
        if added > 0 {
            self.ledger.take(job, added, now);
        }
    }

    /// Whether `need` more bytes fit for `job`, releasing drained data if that makes room.
    /// Returns the extents released, for the SSD's TRIM.
    fn make_room(&mut self, job: u32, need: u64, now: Time) -> (bool, Released) {
        let mut trims = Vec::new();
        while !self.ledger.fits(job, need) {
            let Some((owner, file, offset, len)) = self.drained.pop_front() else {
                break;
            };
            let end = offset.saturating_add(len);
            // Only an extent whose every byte is still clean (not rewritten since) goes.
            let clean = self.clean.get_mut(&file);
            if clean.as_ref().is_none_or(|c| c.covered(offset, end) < len) {
                continue;
            }
            if let Some(c) = clean {
                c.remove(offset, end);
            }
            let freed = self
                .held
                .get_mut(&file)
                .map_or(0, |h| h.remove(offset, end));
            if freed > 0 {
                self.gone.entry(file).or_default().insert(offset, end);
                self.ledger.release(owner, freed, now);
                self.released += freed;
                trims.push((file, offset, len));
            }
        }
        (self.ledger.fits(job, need), trims)
    }

    /// Decides what a write of `len` bytes at `offset` of `file` by `job` does at `now`;
    /// also returns the drained extents released to make room (file, offset, bytes), for the
    /// SSD's TRIM. A waiting write is queued under `id`.
    pub fn admit(
        &mut self,
        id: u64,
        job: u32,
        file: u64,
        offset: u64,
        len: u64,
        now: Time,
    ) -> (Admission, Released) {
        let need = self.missing(file, offset, len);
        let (fits, trims) = if self.waiting.is_empty() || self.policy == FullPolicy::Spill {
            self.make_room(job, need, now)
        } else {
            (false, Vec::new())
        };
        if fits {
            self.take(job, file, offset, len, now);
            return (Admission::Write, trims);
        }
        match self.policy {
            FullPolicy::Spill => {
                let end = offset.saturating_add(len);
                self.gone.entry(file).or_default().insert(offset, end);
                self.spilled += len;
                (Admission::Spill, trims)
            }
            FullPolicy::Stall => {
                self.waits += 1;
                self.waiting.push_back(WaitingWrite {
                    id,
                    job,
                    file,
                    offset,
                    len,
                    since: now,
                });
                (Admission::Wait, trims)
            }
        }
    }

    /// Admits the waiting writes that fit now, in order; returns them with the time each
    /// waited, and the extents released to make room.
    pub fn admit_waiting(&mut self, now: Time) -> (Vec<(WaitingWrite, Time)>, Released) {
        let mut admitted = Vec::new();
        let mut trims = Vec::new();
        while let Some(&w) = self.waiting.front() {
            let need = self.missing(w.file, w.offset, w.len);
            let (fits, t) = self.make_room(w.job, need, now);
            trims.extend(t);
            if !fits {
                break;
            }
            self.waiting.pop_front();
            self.take(w.job, w.file, w.offset, w.len, now);
            let waited = now - w.since;
            self.wait_time += waited;
            admitted.push((w, waited));
        }
        (admitted, trims)
    }

    /// An extent of `file` was queued for the drain.
    pub fn drain_queued(&mut self, file: u64, offset: u64, len: u64) {
        *self.draining.entry((file, offset, len)).or_default() += 1;
    }

    /// The PFS acknowledged the drained extent: unless a later write of it is still being
    /// drained, it is clean and may be released from now on.
    pub fn drained(&mut self, job: u32, file: u64, offset: u64, len: u64) {
        let key = (file, offset, len);
        let left = self.draining.get_mut(&key).map_or(0, |n| {
            *n = n.saturating_sub(1);
            *n
        });
        if left > 0 {
            return;
        }
        self.draining.remove(&key);
        self.clean
            .entry(file)
            .or_default()
            .insert(offset, offset.saturating_add(len));
        self.drained.push_back((job, file, offset, len));
    }

    /// `job` deleted `file`: its bytes leave the SSD.
    pub fn delete(&mut self, job: u32, file: u64, now: Time) {
        if let Some(h) = self.held.remove(&file) {
            self.ledger.release(job, h.len(), now);
        }
        self.gone.remove(&file);
        self.clean.remove(&file);
        self.drained.retain(|e| e.1 != file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_are_free_and_spill_sends_the_excess() {
        let mut s = LocalStore::new(100, FullPolicy::Spill);
        assert_eq!(s.admit(1, 0, 7, 0, 60, 1).0, Admission::Write);
        assert_eq!(s.admit(2, 0, 7, 0, 60, 2).0, Admission::Write, "rewrite");
        assert_eq!(s.admit(3, 0, 8, 0, 40, 3).0, Admission::Write);
        assert_eq!(s.admit(4, 0, 9, 0, 10, 4).0, Admission::Spill);
        assert_eq!(s.spilled, 10);
        assert!(s.read_from_pfs(9, 0, 10));
        assert!(!s.read_from_pfs(7, 0, 60));
        assert_eq!(s.ledger().occupancy().peak(), 100);
    }

    #[test]
    fn a_waiting_write_is_admitted_once_drained_data_is_released() {
        let mut s = LocalStore::new(100, FullPolicy::Stall);
        assert_eq!(s.admit(1, 0, 7, 0, 80, 0).0, Admission::Write);
        s.drain_queued(7, 0, 80);
        assert_eq!(s.admit(2, 0, 8, 0, 50, 10).0, Admission::Wait);
        assert_eq!(s.admit(3, 0, 9, 0, 1, 11).0, Admission::Wait, "FIFO behind");
        assert!(s.admit_waiting(20).0.is_empty(), "nothing drained yet");
        s.drained(0, 7, 0, 80);
        let (done, trims) = s.admit_waiting(30);
        assert_eq!(trims, vec![(7, 0, 80)]);
        assert_eq!(done.len(), 2);
        assert_eq!(done[0].1, 20);
        assert_eq!(s.wait_time, 20 + 19);
        assert_eq!(s.released, 80);
        assert!(s.read_from_pfs(7, 0, 1));
        assert_eq!(s.ledger().used(), 51);
    }

    #[test]
    fn data_rewritten_after_its_drain_is_not_released() {
        let mut s = LocalStore::new(100, FullPolicy::Stall);
        assert_eq!(s.admit(1, 0, 7, 0, 50, 0).0, Admission::Write);
        s.drain_queued(7, 0, 50);
        s.drained(0, 7, 0, 50);
        assert_eq!(
            s.admit(2, 0, 7, 0, 50, 1).0,
            Admission::Write,
            "rewrite, in place"
        );
        // 50 held, all dirty again: a 60-byte write cannot make room.
        assert_eq!(s.admit(3, 0, 8, 0, 60, 2).0, Admission::Wait);
        assert_eq!(s.released, 0);
        assert!(!s.read_from_pfs(7, 0, 50));
    }
}
