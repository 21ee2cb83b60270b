//! The parallelism a run offers any executor: the longest chain of events that depend on each
//! other, measured on the run itself.
//!
//! An event depends on the event that sent it and on the previous event its LP handled (an LP
//! handles its events one at a time in key order, on every executor, conservative or
//! optimistic). The run's events and these dependencies form a directed acyclic graph; its
//! longest path, counted in events, is the critical path. No executor, however many threads it
//! has and however it speculates, can finish in fewer steps than the critical path, nor faster
//! than the busiest cluster's events handled one at a time (a cluster's LPs share one thread at
//! any moment). Counting every event as one step assumes events cost the same: a bound on the
//! shape of the run, not a forecast of wall time.

use super::asynchronous::deal_out;
use super::sequential::{run_observed, Observer};
use crate::error::EngineError;
use crate::event::{EventKey, LpId};
use crate::lp::LogicalProcess;
use crate::pending::{BucketRing, HeapSet, PendingKind, WindowSet};
use crate::sim::{Executor, RunInput};
use crate::stats::RunStats;
use rustc_hash::FxHashMap;
use std::sync::Mutex;

/// What the dependencies between a run's events allow (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dependencies {
    /// Events handled in all.
    pub events: u64,
    /// Events on the longest chain of dependent events (sender to sent, and one LP's events in
    /// order).
    pub critical_path: u64,
    /// Events handled by each cluster of the run's partition, in cluster order.
    pub cluster_events: Vec<u64>,
    /// The region of each cluster ([`crate::Partition`]).
    pub cluster_regions: Vec<u32>,
    /// Events handled by the LP that handled the most.
    pub busiest_lp_events: u64,
}

impl Dependencies {
    /// Regions of the run's partition (one more than the largest region id).
    pub fn regions(&self) -> usize {
        self.cluster_regions
            .iter()
            .max()
            .map_or(0, |&r| r as usize + 1)
    }

    /// The average parallelism: events per step of the critical path. No executor gains more
    /// over one thread than this, with any number of threads.
    pub fn parallelism(&self) -> f64 {
        self.events as f64 / self.critical_path.max(1) as f64
    }

    /// The largest speed-up over one thread that `threads` threads can reach with the run's
    /// clusters dealt out as the asynchronous executor deals them by measured load in a dense
    /// stretch (regions whole unless splitting them evens the threads): events divided by the
    /// larger of the critical path and the busiest thread's events.
    pub fn bound(&self, threads: usize) -> f64 {
        let threads = threads.max(1);
        let owner = deal_out(&self.cluster_events, &self.cluster_regions, threads, true);
        let mut load = vec![0u64; threads];
        for (&events, &t) in self.cluster_events.iter().zip(&owner) {
            load[usize::from(t)] += events;
        }
        let busiest = load.into_iter().max().unwrap_or(0);
        self.bound_with(threads, busiest)
    }

    /// [`Self::bound`] were every LP a cluster of its own (the finest partition possible).
    pub fn bound_per_lp(&self, threads: usize) -> f64 {
        self.bound_with(threads, self.busiest_lp_events)
    }

    fn bound_with(&self, threads: usize, busiest: u64) -> f64 {
        let share = self.events.div_ceil(threads.max(1) as u64);
        let steps = self.critical_path.max(share).max(busiest).max(1);
        self.events as f64 / steps as f64
    }
}

/// The reference executor (one thread, global key order; results identical to every other
/// executor) measuring the run's [`Dependencies`] as it goes. It keeps one entry per pending
/// event (an Fx-hashed map) and one depth per LP, so it costs more time and memory than
/// [`super::Sequential`].
#[derive(Debug, Default)]
pub struct CriticalPath {
    /// Pending-event structure.
    pub pending: PendingKind,
    measured: Mutex<Option<Dependencies>>,
}

impl CriticalPath {
    /// An executor with the given pending-event structure and nothing measured yet.
    pub fn new(pending: PendingKind) -> Self {
        CriticalPath {
            pending,
            measured: Mutex::new(None),
        }
    }

    /// What the last run measured (`None` before a run, or after one that failed).
    pub fn measured(&self) -> Option<Dependencies> {
        self.measured.lock().ok().and_then(|m| m.clone())
    }
}

impl Executor for CriticalPath {
    fn execute<L: LogicalProcess>(&self, input: RunInput<'_, L>) -> Result<RunStats, EngineError> {
        // The slots come back to be counted once the run is over.
        let slots = input.slots;
        let channels = input.channels;
        let mut tracker = Tracker {
            lp_depth: vec![0; slots.len()],
            pending: FxHashMap::default(),
            current: 0,
            longest: 0,
        };
        let input = RunInput {
            slots: &mut *slots,
            ..input
        };
        let t = &mut tracker;
        let segment = match self.pending {
            PendingKind::Heap => run_observed::<L, HeapSet<L::Event>, _>(input, None, t),
            PendingKind::Ring => run_observed::<L, BucketRing<L::Event>, _>(input, None, t),
            PendingKind::Window => run_observed::<L, WindowSet<L::Event>, _>(input, None, t),
        }?;
        // A simulation runs once, so each LP's handled count is this run's.
        let mut cluster_events = vec![0u64; channels.clusters()];
        for (lp, slot) in slots.iter().enumerate() {
            cluster_events[channels.cluster_of(LpId(lp as u32)) as usize] += slot.handled;
        }
        let measured = Dependencies {
            events: segment.stats.events,
            critical_path: tracker.longest,
            cluster_events,
            cluster_regions: channels.regions_of_clusters().to_vec(),
            busiest_lp_events: slots.iter().map(|s| s.handled).max().unwrap_or(0),
        };
        if let Ok(mut m) = self.measured.lock() {
            *m = Some(measured);
        }
        Ok(segment.stats)
    }
}

/// The depth (events on the longest chain ending there) of every pending event and of every
/// LP's last event.
struct Tracker {
    lp_depth: Vec<u64>,
    /// Depth of the event that sent each pending event (initial events are absent: depth 0).
    pending: FxHashMap<EventKey, u64>,
    /// Depth of the event being handled.
    current: u64,
    longest: u64,
}

impl Observer for Tracker {
    fn handling(&mut self, key: &EventKey, dst: LpId) {
        let sender = self.pending.remove(key).unwrap_or(0);
        let lp = dst.index();
        let depth = sender.max(self.lp_depth[lp]) + 1;
        self.lp_depth[lp] = depth;
        self.current = depth;
        self.longest = self.longest.max(depth);
    }

    fn sent(&mut self, key: &EventKey) {
        self.pending.insert(*key, self.current);
    }
}
