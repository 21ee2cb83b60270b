//! The conservative parallel executor.
//!
//! Time advances in windows `[gmin, gmin + lookahead)`, where `gmin` is the earliest pending
//! event anywhere (so idle time is skipped). Within a window every cluster handles its events in
//! key order independently: any event sent to another cluster carries at least the lookahead
//! and therefore lands in a later window. Worker threads claim clusters dynamically (there are
//! more clusters than threads): each worker owns a contiguous home range of clusters and claims
//! from it first, so a cluster's LPs and pending events usually stay in one core's cache from
//! window to window, then steals from the other workers' ranges when its own is done. Claiming
//! order never changes results. Workers send cross-cluster events into
//! per-(thread, destination cluster) outboxes, and publish them into the destination's mailbox
//! at the end of the window. One barrier per window reduces the next `gmin`.

use super::barrier::{SpinBarrier, WindowReduction, FLAG_CANCEL, FLAG_ERROR, FLAG_STOP};
use super::workers::{
    deal_into_clusters, lock, on_threads, return_to_lp_order, unpoisoned, ClusterLps,
};
use super::Failure;
use crate::error::EngineError;
use crate::event::{Event, LpId};
use crate::lp::LogicalProcess;
use crate::pending::{BucketRing, HeapSet, PendingKind, PendingSet, WindowSet};
use crate::sim::{dispatch, Channels, Executor, RunInput};
use crate::stats::{Progress, RunStats, StopReason, ThreadStats};
use crate::time::Time;
use crossbeam::utils::CachePadded;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Runs clusters of LPs on `threads` worker threads in lookahead windows.
#[derive(Clone, Copy, Debug)]
pub struct Parallel {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Pending-event structure of each cluster.
    pub pending: PendingKind,
}

impl Parallel {
    /// A parallel executor with `threads` workers and the default pending-event structure.
    pub fn new(threads: usize) -> Self {
        Parallel {
            threads: threads.max(1),
            pending: PendingKind::default(),
        }
    }
}

impl Executor for Parallel {
    fn execute<L: LogicalProcess>(&self, input: RunInput<'_, L>) -> Result<RunStats, EngineError> {
        match self.pending {
            PendingKind::Heap => run::<L, HeapSet<L::Event>>(self.threads, input),
            PendingKind::Ring => run::<L, BucketRing<L::Event>>(self.threads, input),
            PendingKind::Window => run::<L, WindowSet<L::Event>>(self.threads, input),
        }
    }
}

/// One cluster's LPs and pending events.
struct Cluster<L: LogicalProcess, P> {
    lps: ClusterLps<L>,
    pending: P,
}

/// A cluster's inbox: events from other clusters, appended at window ends.
type Mailbox<E> = Mutex<Vec<Event<E>>>;

/// State shared by all workers of one run.
struct Shared<'a, L: LogicalProcess, P> {
    clusters: Vec<Mutex<Cluster<L, P>>>,
    /// Mailboxes by window parity and destination cluster.
    mail: [Vec<Mailbox<L::Event>>; 2],
    local_index: Vec<u32>,
    channels: Channels<'a>,
    barrier: SpinBarrier,
    /// Per worker: the next unclaimed cluster of its home range in this window.
    next_claim: Vec<CachePadded<AtomicUsize>>,
    /// Per worker: the first cluster of its home range (plus the end of the last range).
    home_start: Vec<usize>,
    windows: AtomicU64,
    window: Time,
    end_time: Time,
    progress: &'a Progress,
    /// The time of the earliest stop request so far (`Time::MAX`: none).
    stop_at: AtomicU64,
}

struct WorkerResult {
    stats: ThreadStats,
    failure: Option<Failure>,
    last: Time,
    stop: StopReason,
}

/// Runs the windowed cluster algorithm on `threads` workers; with one thread it runs inline on
/// the calling thread (the windowed sequential executor).
pub(crate) fn run<L: LogicalProcess, P: PendingSet<L::Event>>(
    threads: usize,
    input: RunInput<'_, L>,
) -> Result<RunStats, EngineError> {
    let started = Instant::now();
    let threads = threads.max(1);
    let RunInput {
        slots,
        initial,
        channels,
        end_time,
        progress,
    } = input;
    let window = channels.window();
    if window == 0 {
        return Err(EngineError::ZeroLookahead);
    }
    let nlp = slots.len();
    // This executor's clusters are the partition's regions: every one of them is visited
    // each window, so splitting a pod into its routers would multiply that cost. Sends are
    // still checked against the partition's clusters, as on every executor.
    let nclusters = channels.regions();

    // Distribute LPs into clusters, remembering local indices.
    let (lps, local_index) = deal_into_clusters(slots, channels.region_of_lp, nclusters);
    let mut clusters: Vec<Cluster<L, P>> = lps
        .into_iter()
        .map(|lps| Cluster {
            lps,
            pending: P::new(window),
        })
        .collect();
    for ev in initial {
        let c = channels.region_of(ev.dst) as usize;
        clusters[c].pending.push(ev);
    }
    let first = clusters
        .iter_mut()
        .filter_map(|c| c.pending.next_time())
        .min()
        .unwrap_or(Time::MAX);

    // Home ranges: contiguous, as equal as possible (LP-contiguous clusters stay together).
    let home_start: Vec<usize> = (0..=threads).map(|w| w * nclusters / threads).collect();
    let shared = Shared {
        clusters: clusters.into_iter().map(Mutex::new).collect(),
        mail: [
            (0..nclusters).map(|_| Mutex::new(Vec::new())).collect(),
            (0..nclusters).map(|_| Mutex::new(Vec::new())).collect(),
        ],
        local_index,
        channels,
        barrier: SpinBarrier::new(threads),
        next_claim: home_start[..threads]
            .iter()
            .map(|&c| CachePadded::new(AtomicUsize::new(c)))
            .collect(),
        home_start,
        windows: AtomicU64::new(0),
        window,
        end_time,
        progress,
        stop_at: AtomicU64::new(Time::MAX),
    };

    let results = on_threads(
        threads,
        || shared.barrier.poison(),
        |me| worker(&shared, me, first),
    );

    // Put the LPs back in LP order.
    let windows = shared.windows.load(Ordering::Relaxed);
    return_to_lp_order(
        slots,
        nlp,
        shared.clusters.into_iter().map(|c| unpoisoned(c).lps),
    );

    let mut per_thread = Vec::with_capacity(threads);
    let mut failure = None;
    let mut last = 0;
    let mut stop = StopReason::Drained;
    for r in results {
        let r = r?;
        failure = Failure::earliest(failure, r.failure);
        last = last.max(r.last);
        stop = r.stop;
        per_thread.push(r.stats);
    }
    if let Some(f) = failure {
        return Err(f.error);
    }
    let events = per_thread.iter().map(|t| t.events).sum();
    Ok(RunStats {
        events,
        windows,
        last_event_time: last,
        window,
        threads,
        parallel_events: if threads > 1 { events } else { 0 },
        clusters: nclusters,
        per_thread,
        wall: started.elapsed(),
        stop,
    })
}

/// Queues checked sends of cluster `my_cluster` (`dests` holds their clusters): its own events
/// into its pending set, the others into the outbox of their cluster (`local_min` tracks the
/// earliest of those).
#[inline]
fn route<L: LogicalProcess, P: PendingSet<L::Event>>(
    my_cluster: u32,
    cl: &mut Cluster<L, P>,
    sent: &mut Vec<Event<L::Event>>,
    dests: &mut Vec<u32>,
    outboxes: &mut [Vec<Event<L::Event>>],
    local_min: &mut Time,
) {
    for (out, dc) in sent.drain(..).zip(dests.drain(..)) {
        if dc == my_cluster {
            cl.pending.push(out);
        } else {
            *local_min = (*local_min).min(out.time());
            outboxes[dc as usize].push(out);
        }
    }
}

/// Claims the next cluster for worker `me` in this window: from its own home range first, then
/// from the others' in turn (each cluster is claimed exactly once per window).
fn claim<L: LogicalProcess, P>(sh: &Shared<'_, L, P>, me: usize) -> Option<usize> {
    let workers = sh.next_claim.len();
    (0..workers).map(|k| (me + k) % workers).find_map(|w| {
        let end = sh.home_start[w + 1];
        // A cheap look first, so exhausted ranges are not bumped again by every thief.
        if sh.next_claim[w].load(Ordering::Relaxed) >= end {
            return None;
        }
        let c = sh.next_claim[w].fetch_add(1, Ordering::Relaxed);
        (c < end).then_some(c)
    })
}

fn worker<L: LogicalProcess, P: PendingSet<L::Event>>(
    sh: &Shared<'_, L, P>,
    me: usize,
    first: Time,
) -> WorkerResult {
    let nclusters = sh.clusters.len();
    let mut outboxes: Vec<Vec<Event<L::Event>>> = (0..nclusters).map(|_| Vec::new()).collect();
    let mut sent = Vec::new();
    let mut dests = Vec::new();
    let mut stats = ThreadStats::default();
    let mut failure: Option<Failure> = None;
    let mut last = 0;
    let mut gmin = first;
    let mut generation = 0usize;
    // Events at or after `limit` are not handled: the end time, or earlier after a stop request.
    let mut limit = sh.end_time;
    let mut stopping = false;
    let stop = loop {
        if stopping && (gmin == Time::MAX || gmin >= limit) {
            break StopReason::Requested;
        }
        if gmin == Time::MAX {
            break StopReason::Drained;
        }
        if gmin >= limit {
            break StopReason::EndTime;
        }
        let window_end = gmin.saturating_add(sh.window).min(limit);
        let parity = generation & 1;
        let mut local_min = Time::MAX;
        let mut stop_requested = false;
        let events_before = stats.events;
        while let Some(c) = claim(sh, me) {
            stats.cluster_windows += 1;
            let mut guard = lock(&sh.clusters[c]);
            let cl = &mut *guard;
            {
                let mut inbox = lock(&sh.mail[parity ^ 1][c]);
                for ev in inbox.drain(..) {
                    cl.pending.push(ev);
                }
            }
            let my_cluster = c as u32;
            // Sends wait in `sent` and are routed when the cluster's window is done (reading an
            // event back right after the model wrote it stalls on store forwarding); each is
            // checked at once. Sends into this window go in at once.
            'events: while let Some(ev) = cl.pending.pop_before(window_end) {
                let t = ev.time();
                let key = ev.key;
                let me = ev.dst;
                last = last.max(t);
                stats.events += 1;
                let local_of = |lp: LpId| cl.lps.local(lp, &sh.local_index);
                let local = local_of(me);
                // Start loading the next event's LP (its slot and state) while this one runs.
                if let Some(next) = cl
                    .pending
                    .next_dst()
                    .and_then(|d| cl.lps.slots.get(local_of(d)))
                {
                    crate::hint::prefetch(next);
                    next.lp.prefetch();
                }
                let first_new = sent.len();
                let asked_before = stop_requested;
                dispatch(
                    &mut cl.lps.slots[local],
                    ev,
                    &mut sent,
                    &mut stop_requested,
                    sh.end_time,
                );
                if stop_requested && !asked_before {
                    sh.stop_at.fetch_min(t, Ordering::AcqRel);
                }
                let mut now_due = false;
                // The handling LP's cluster in the partition (this executor's cluster is its
                // region), looked up once for all its sends.
                let fine = sh.channels.cluster_of(me);
                for out in &sent[first_new..] {
                    match sh.channels.destination(me, fine, t, out) {
                        Ok(dc) => {
                            dests.push(sh.channels.region_of[dc as usize]);
                            now_due |= out.time() < window_end;
                        }
                        Err(error) => {
                            // Keep the sends made before this event; drop this event's.
                            sent.truncate(first_new);
                            dests.truncate(first_new);
                            failure =
                                Failure::earliest(failure.take(), Some(Failure { at: key, error }));
                            break 'events;
                        }
                    }
                }
                if now_due {
                    let (s, d) = (&mut sent, &mut dests);
                    route(my_cluster, cl, s, d, &mut outboxes, &mut local_min);
                }
            }
            if !sent.is_empty() {
                let (s, d) = (&mut sent, &mut dests);
                route(my_cluster, cl, s, d, &mut outboxes, &mut local_min);
            }
            if let Some(t) = cl.pending.next_time() {
                local_min = local_min.min(t);
            }
        }
        for (dc, out) in outboxes.iter_mut().enumerate() {
            if !out.is_empty() {
                lock(&sh.mail[parity][dc]).append(out);
            }
        }
        sh.progress.add_events(stats.events - events_before);
        let mut flags = 0;
        if sh.progress.is_cancelled() {
            flags |= FLAG_CANCEL;
        }
        if stop_requested {
            flags |= FLAG_STOP;
        }
        if failure.is_some() {
            flags |= FLAG_ERROR;
        }
        let wait_start = Instant::now();
        let reduced = sh.barrier.wait(
            WindowReduction {
                min_time: local_min,
                flags,
            },
            || {
                for (w, next) in sh.next_claim.iter().enumerate() {
                    next.store(sh.home_start[w], Ordering::Relaxed);
                }
                sh.windows.fetch_add(1, Ordering::Relaxed);
                sh.progress.set_now(window_end);
            },
        );
        stats.barrier_wait += wait_start.elapsed();
        generation += 1;
        let Ok(reduced) = reduced else {
            break StopReason::Requested;
        };
        if reduced.flags & FLAG_ERROR != 0 {
            break StopReason::Requested;
        }
        if reduced.flags & FLAG_STOP != 0 && !stopping {
            // Every stop request of later windows is later than this window's.
            stopping = true;
            let at = sh.stop_at.load(Ordering::Acquire);
            limit = limit.min(super::stop_end(at, sh.window));
        }
        if reduced.flags & FLAG_CANCEL != 0 {
            break StopReason::Cancelled;
        }
        gmin = reduced.min_time;
    };
    WorkerResult {
        stats,
        failure,
        last,
        stop,
    }
}
