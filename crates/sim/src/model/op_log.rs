//! A compute node's log of its ranks' finished I/O operations, the rows of `timeline.csv`
//! (kept only with `outputs.timeline`).
//!
//! A record is 48 bytes with no allocation of its own: where the operation was served is an
//! index into the log's table of the distinct targets its ranks used. A full-scale run logs
//! millions of operations (LAMMPS on the study's systems: 1.4 million), so a record that held
//! its target (a list of BB servers) and later a row with its file name and target as text
//! cost about 290 bytes an operation at the end of a run; the log is handed to the results
//! as it is ([`crate::output::timeline`]).

use super::node::Target;
use bbsim_engine::Time;
use std::collections::HashMap;

/// One finished I/O operation of one rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpRecord {
    /// Rank within its job.
    pub rank: u32,
    /// Job-local file id.
    pub file: u32,
    /// Where it was served: an index into its log's targets ([`OpLog::target`]).
    pub target: u32,
    /// Largest request-path router hop count over the operation's parts (0 for local I/O).
    pub hops: u16,
    /// Write (true) or read.
    pub write: bool,
    /// Offset in the file (bytes).
    pub offset: u64,
    /// Bytes.
    pub bytes: u64,
    /// Issue time (ps).
    pub start: Time,
    /// Completion time (ps).
    pub end: Time,
}

/// Distinct targets, each numbered by its first use.
#[derive(Clone, Debug, Default)]
pub struct TargetTable {
    targets: Vec<Target>,
    /// Where each of `targets` is.
    index: HashMap<Target, u32>,
}

impl TargetTable {
    /// The number of `target`, given the next one if it is new.
    pub fn intern(&mut self, target: &Target) -> u32 {
        if let Some(&i) = self.index.get(target) {
            return i;
        }
        let i = self.targets.len() as u32;
        self.targets.push(target.clone());
        self.index.insert(target.clone(), i);
        i
    }

    /// The targets in number order.
    pub fn as_slice(&self) -> &[Target] {
        &self.targets
    }

    /// The targets in number order, without the lookup index.
    pub fn into_targets(self) -> Vec<Target> {
        self.targets
    }
}

/// The operations one node's ranks finished, in completion order until [`OpLog::sort`].
#[derive(Clone, Debug, Default)]
pub struct OpLog {
    records: Vec<OpRecord>,
    /// The distinct targets of the records.
    targets: TargetTable,
}

impl OpLog {
    /// Appends `record`, served by `target` (its `target` field is set here).
    pub fn push(&mut self, mut record: OpRecord, target: &Target) {
        record.target = self.targets.intern(target);
        self.records.push(record);
    }

    /// The records.
    pub fn records(&self) -> &[OpRecord] {
        &self.records
    }

    /// How many operations it holds.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The distinct targets its records name (none once they were moved to a shared table).
    pub fn targets(&self) -> &[Target] {
        self.targets.as_slice()
    }

    /// Moves its targets into `shared`, a table several logs share: afterwards its records
    /// name targets by their numbers in `shared`, and the log keeps no table of its own.
    pub fn share_targets(&mut self, shared: &mut TargetTable) {
        let map: Vec<u32> = self
            .targets
            .as_slice()
            .iter()
            .map(|t| shared.intern(t))
            .collect();
        for r in &mut self.records {
            r.target = map[r.target as usize];
        }
        self.targets = TargetTable::default();
    }

    /// Sorts the records by rank, start, end and offset; records equal in all four keep
    /// their completion order.
    pub fn sort(&mut self) {
        self.records
            .sort_by_key(|r| (r.rank, r.start, r.end, r.offset));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(rank: u32, start: Time, end: Time) -> OpRecord {
        OpRecord {
            rank,
            file: 0,
            target: u32::MAX,
            hops: 0,
            write: true,
            offset: 0,
            bytes: 1,
            start,
            end,
        }
    }

    #[test]
    fn a_record_is_48_bytes() {
        assert_eq!(std::mem::size_of::<OpRecord>(), 48);
    }

    #[test]
    fn targets_are_kept_once_and_named_by_index() {
        let bb = Target::Bb {
            servers: vec![2, 5],
            spilled: false,
        };
        let mut log = OpLog::default();
        log.push(record(0, 0, 1), &bb);
        log.push(record(0, 1, 2), &Target::Pfs);
        log.push(record(1, 0, 2), &bb);
        assert_eq!(log.targets(), &[bb.clone(), Target::Pfs]);
        let named: Vec<&Target> = log
            .records()
            .iter()
            .map(|r| &log.targets()[r.target as usize])
            .collect();
        assert_eq!(named, vec![&bb, &Target::Pfs, &bb]);
    }

    #[test]
    fn shared_targets_keep_what_each_record_names() {
        let bb = |s: u32| Target::Bb {
            servers: vec![s],
            spilled: false,
        };
        let mut shared = TargetTable::default();
        let mut a = OpLog::default();
        a.push(record(0, 0, 1), &bb(1));
        a.push(record(0, 1, 2), &Target::Pfs);
        let mut b = OpLog::default();
        b.push(record(1, 0, 1), &Target::Pfs);
        b.push(record(1, 1, 2), &bb(2));
        a.share_targets(&mut shared);
        b.share_targets(&mut shared);
        assert!(a.targets().is_empty() && b.targets().is_empty());
        let named = |l: &OpLog| -> Vec<Target> {
            l.records()
                .iter()
                .map(|r| shared.as_slice()[r.target as usize].clone())
                .collect()
        };
        assert_eq!(named(&a), vec![bb(1), Target::Pfs]);
        assert_eq!(named(&b), vec![Target::Pfs, bb(2)]);
        assert_eq!(shared.as_slice().len(), 3);
    }

    #[test]
    fn sorting_orders_by_rank_then_time_and_keeps_ties_in_completion_order() {
        let mut log = OpLog::default();
        let mut tie = record(0, 5, 9);
        tie.bytes = 2;
        for r in [record(1, 0, 3), record(0, 5, 9), record(0, 1, 4), tie] {
            log.push(r, &Target::Local);
        }
        log.sort();
        let got: Vec<(u32, Time, u64)> = log
            .records()
            .iter()
            .map(|r| (r.rank, r.start, r.bytes))
            .collect();
        assert_eq!(got, vec![(0, 1, 1), (0, 5, 1), (0, 5, 2), (1, 0, 1)]);
    }
}
