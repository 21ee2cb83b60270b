//! Run statistics reported by the executors.

use crate::time::Time;
use std::time::Duration;

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// No events remained.
    Drained,
    /// The next event was at or after the end time.
    EndTime,
    /// A model asked to stop.
    Requested,
}

/// What one worker thread did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadStats {
    /// Events this thread handled.
    pub events: u64,
    /// Wall time spent waiting in the window barrier.
    pub barrier_wait: Duration,
    /// Cluster-windows this thread processed.
    pub cluster_windows: u64,
}

/// Statistics of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunStats {
    /// Events committed (handled) in total.
    pub events: u64,
    /// Lookahead windows executed.
    pub windows: u64,
    /// Time of the last handled event (ps).
    pub last_event_time: Time,
    /// Window width used (ps).
    pub window: Time,
    /// Worker threads used (1 for the sequential executor).
    pub threads: usize,
    /// Clusters the LPs were grouped into.
    pub clusters: usize,
    /// Per-thread figures.
    pub per_thread: Vec<ThreadStats>,
    /// Wall-clock duration of the run.
    pub wall: Duration,
    /// Why the run ended.
    pub stop: StopReason,
}

impl RunStats {
    /// Average events per window.
    pub fn events_per_window(&self) -> f64 {
        if self.windows == 0 {
            0.0
        } else {
            self.events as f64 / self.windows as f64
        }
    }

    /// Committed events per second of wall time.
    pub fn events_per_second(&self) -> f64 {
        let s = self.wall.as_secs_f64();
        if s > 0.0 {
            self.events as f64 / s
        } else {
            0.0
        }
    }

    /// Total wall time all threads spent waiting in barriers.
    pub fn barrier_wait(&self) -> Duration {
        self.per_thread.iter().map(|t| t.barrier_wait).sum()
    }
}
